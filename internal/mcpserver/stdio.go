package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxMessageBytes is the largest JSON-RPC message the server reads, over
// stdio and over HTTP alike (HTTPOptions.MaxBodyBytes): a longer one is
// answered with a JSON-RPC error on both. 4 MiB holds the largest thing a
// tool takes — a vault note of vault.DefaultMaxWriteBytes (2 MiB), with
// room for JSON's escapes — and keeps what one request can make the team
// server hold small.
const MaxMessageBytes = 4 << 20

// StdioTransport is the SDK's newline-delimited JSON transport over in and
// out, made to survive bad input. The SDK ends the whole session on the
// first line it cannot decode, so one malformed message from a client would
// take the server down. Here every line is checked first: a valid JSON-RPC
// message passes through unchanged; anything else (not JSON, not a JSON-RPC
// message, a batch, a line over MaxMessageBytes) is answered with the
// standard JSON-RPC error and dropped, and the session goes on.
//
// Closing the transport's reader closes in, which unblocks a pending read
// when the server is stopped by a signal.
func StdioTransport(in io.ReadCloser, out io.Writer, log *slog.Logger) mcp.Transport {
	w := &lineWriter{w: out, ids: &inFlight{ids: map[string]bool{}}}
	pr, pw := io.Pipe()
	go filterMessages(in, pw, w, log)
	return &stdioTransport{sdk: &mcp.IOTransport{Reader: &filteredReader{PipeReader: pr, in: in}, Writer: w}, w: w}
}

// stdioTransport is the SDK's transport, whose connection writes results
// itself (resultWriter).
type stdioTransport struct {
	sdk *mcp.IOTransport
	w   *lineWriter
}

func (t *stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.sdk.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &resultWriter{Connection: c, w: t.w}, nil
}

// resultWriter writes a response that carries a result without encoding
// it again. The SDK has already encoded the result (compact, as
// encoding/json writes it); its transport would run encoding/json over
// those bytes once more to wrap them, a pass over every byte of every
// answer (docs/performance.md). The line written is the one the SDK
// writes. Everything else goes through the SDK's own connection.
type resultWriter struct {
	mcp.Connection
	w *lineWriter
}

func (c *resultWriter) Write(ctx context.Context, msg jsonrpc.Message) error {
	resp, ok := msg.(*jsonrpc.Response)
	if ok && resp.Error != nil {
		return c.Connection.Write(ctx, withErrorCode(resp))
	}
	if !ok || len(resp.Result) == 0 || !resp.ID.IsValid() {
		return c.Connection.Write(ctx, msg)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	line := make([]byte, 0, len(resp.Result)+64)
	line = append(line, `{"jsonrpc":"2.0","id":`...)
	switch id := resp.ID.Raw().(type) {
	case int64:
		line = strconv.AppendInt(line, id, 10)
	case string:
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // as the SDK writes it
		if err := enc.Encode(id); err != nil {
			return c.Connection.Write(ctx, msg)
		}
		line = append(line, bytes.TrimRight(b.Bytes(), "\n")...)
	default:
		return c.Connection.Write(ctx, msg)
	}
	line = append(line, `,"result":`...)
	line = append(line, resp.Result...)
	line = append(line, "}\n"...)
	c.w.ids.answered(resp.ID)
	_, err := c.w.writeLine(line)
	return err
}

// withErrorCode gives the SDK's answer to a request sent before initialize
// the code JSON-RPC has for it, -32600 (invalid request), and says what to
// do: the SDK fails it as a plain error, which goes out with code 0.
func withErrorCode(resp *jsonrpc.Response) *jsonrpc.Response {
	if _, isWire := errors.AsType[*jsonrpc.Error](resp.Error); isWire || !strings.Contains(resp.Error.Error(), "invalid during session initialization") {
		return resp
	}
	r := *resp
	r.Error = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
		Message: "invalid request: " + resp.Error.Error() + "; send initialize first, then notifications/initialized"}
	return &r
}

// filterMessages copies valid messages from in to pw, one per line, and
// answers the rest through w.
func filterMessages(in io.Reader, pw *io.PipeWriter, w *lineWriter, log *slog.Logger) {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(r, MaxMessageBytes)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			rejection := check(line, tooLong)
			if rejection == nil {
				rejection = w.ids.received(line)
			}
			if rejection != nil {
				log.Warn("rejected a malformed message", "code", rejection.Code, "reason", rejection.Message, "bytes", len(line))
				w.writeError(line, rejection)
			} else if _, werr := pw.Write(append(line, '\n')); werr != nil {
				return // the server closed the transport
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
				// The client has said all it will say, not that it wants
				// no answers: every request read gets its answer before
				// the server sees the end and stops (a pipe such as
				// `{ echo INIT; echo CALL; } | langspec serve` closes
				// right after its last request).
				if !w.ids.waitAnswered(drainLimit) {
					log.Warn("input ended with requests unanswered; stopping anyway", "after", drainLimit)
				}
			}
			pw.CloseWithError(err) // nil: the server sees EOF
			return
		}
	}
}

// readLine reads one line without its newline. A line longer than limit is
// read to its end but not kept: tooLong reports it.
func readLine(r *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > limit+1 { // +1: the newline
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// check returns the JSON-RPC error for a line the SDK must not see, or nil.
func check(line []byte, tooLong bool) *jsonrpc.Error {
	switch {
	case tooLong:
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: fmt.Sprintf("message longer than %d bytes; send smaller arguments", MaxMessageBytes)}
	case !json.Valid(line):
		if nestingDepth(line) > maxNesting {
			return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
				Message: fmt.Sprintf("invalid request: JSON nested deeper than %d levels", maxNesting)}
		}
		return &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "parse error: the line is not valid JSON"}
	case bytes.HasPrefix(bytes.TrimSpace(line), []byte("[")):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "JSON-RPC batches are not supported; send one message per line"}
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: " + err.Error()}
	}
	return nil
}

// maxNesting is encoding/json's own limit: deeper JSON does not decode.
const maxNesting = 10000

// nestingDepth is the deepest nesting of objects and arrays in b, strings
// skipped.
func nestingDepth(b []byte) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// lineWriter writes whole lines, one at a time, so the error answers written
// here never interleave with the SDK's messages. The SDK writes each message
// with a single Write call; each is noted in ids, so a request answered is no
// longer in flight.
type lineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	ids *inFlight
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.ids.sent(p)
	return l.writeLine(p)
}

// writeLine writes p, a whole line, with nothing noted.
func (l *lineWriter) writeLine(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close leaves the underlying writer (stdout) open.
func (l *lineWriter) Close() error { return nil }

// writeError answers a rejected line with the line's id exactly as it was
// sent (an id is never rewritten: 1.5 stays 1.5), or null when none can be
// read, as JSON-RPC prescribes.
func (l *lineWriter) writeError(line []byte, e *jsonrpc.Error) {
	id := json.RawMessage("null")
	if json.Valid(line) {
		if m := readMembers(line); m.id != nil {
			id = m.id // "id" exactly, as the SDK reads it
		}
	} else if top := topLevelID(line); top != nil {
		id = top // JSON too deep to decode whole, with its id before the depth
	}
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}{"2.0", id, e})
	if err != nil {
		return
	}
	l.Write(append(data, '\n'))
}

// topLevelID reads an object's "id" member token by token, so it is found
// even when a later member is too deep to decode; nil when there is none.
func topLevelID(line []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return nil
		}
		if key == "id" {
			return v
		}
	}
	return nil
}

// drainLimit bounds how long the server, once its input has ended, waits
// for the answers of the requests it read: as long as a stopping team
// server gives its requests (shutdownGrace in cmd/langspec).
const drainLimit = 10 * time.Second

// inFlight is the ids of the client's requests that have not been
// answered yet. The SDK drops a request whose id is already in flight and
// the client then waits forever; here it is answered with an error instead.
type inFlight struct {
	mu  sync.Mutex
	ids map[string]bool
	// idle is closed when the last request in flight is answered, for a
	// waitAnswered under way; nil when none waits.
	idle chan struct{}
}

// waitAnswered waits until no request is in flight, or limit passes;
// false when it gave up.
func (f *inFlight) waitAnswered(limit time.Duration) bool {
	timeout := time.After(limit)
	for {
		f.mu.Lock()
		if len(f.ids) == 0 {
			f.mu.Unlock()
			return true
		}
		if f.idle == nil {
			f.idle = make(chan struct{})
		}
		idle := f.idle
		f.mu.Unlock()
		select {
		case <-idle:
		case <-timeout:
			return false
		}
	}
}

// envelope is what inFlight reads of a message.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
}

// received checks the id of a message from the client and records a
// request as in flight. Errors: invalid request for an id that is null or
// not a string or an integer (MCP allows no other), and for a request whose
// id is in flight.
func (f *inFlight) received(line []byte) *jsonrpc.Error {
	var m envelope
	if json.Unmarshal(line, &m) != nil {
		return nil // check has vetted the line; nothing more to learn
	}
	if m.Method == "notifications/cancelled" {
		if key, ok := idKey(m.Params.RequestID); ok {
			f.done(key) // the SDK may never answer a cancelled request
		}
		return nil
	}
	// The id as the SDK reads it (the name matched exactly: encoding/json
	// would take "Id" too), held to the rules it can answer exactly.
	m.ID = readMembers(line).id
	if m.ID == nil {
		return nil // a notification
	}
	key, e := vetID(m.ID)
	if e != nil {
		return e
	}
	if m.Method == "" {
		return nil // the client's answer to a request of ours
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ids[key] {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: fmt.Sprintf("invalid request: id %s is already in flight; give every request its own id", m.ID)}
	}
	f.ids[key] = true
	return nil
}

// sent notes a message to the client: a response ends its request.
func (f *inFlight) sent(msg []byte) {
	if id := responseID(msg); id != nil {
		if key, ok := idKey(id); ok {
			f.done(key)
		}
	}
}

// responseID is the id of a response, nil for any other message. It reads
// tokens only until it knows, so a large result is not decoded again: the
// SDK writes "jsonrpc" and "id" first, then "method" for a request or
// notification, or "result" or "error" for a response.
func responseID(msg []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(msg))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var id json.RawMessage
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		switch t {
		case "method":
			return nil
		case "result", "error":
			return id
		case "id":
			if dec.Decode(&id) != nil {
				return nil
			}
		default:
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
		}
	}
	return nil
}

// answered notes the response to the request id: it is no longer in
// flight.
func (f *inFlight) answered(id jsonrpc.ID) {
	switch v := id.Raw().(type) {
	case int64:
		f.done("n" + strconv.FormatInt(v, 10))
	case string:
		f.done("s" + v)
	}
}

func (f *inFlight) done(key string) {
	f.mu.Lock()
	delete(f.ids, key)
	if len(f.ids) == 0 && f.idle != nil {
		close(f.idle)
		f.idle = nil
	}
	f.mu.Unlock()
}

// idKey is an id as a map key: strings and integers, kept apart ("1" and
// 1 are different ids). ok is false for null, fractions, exponents and any
// other JSON value.
func idKey(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", false
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return "s" + s, true
	case c == '-' || c >= '0' && c <= '9':
		if bytes.ContainsAny(raw, ".eE") {
			return "", false
		}
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return "", false
		}
		return "n" + strconv.FormatInt(n, 10), true
	}
	return "", false
}

// filteredReader closes both the pipe and the real input.
type filteredReader struct {
	*io.PipeReader
	in io.Closer
}

func (f *filteredReader) Close() error {
	f.PipeReader.Close()
	return f.in.Close()
}
