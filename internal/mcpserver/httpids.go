package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxExactID is the largest integer id (in magnitude) the SDK answers
// with the id it was sent. go-sdk v1.8.0 decodes an id into a float64
// and converts that to int64 (jsonrpc2.DecodeMessage, MakeID), so
// 9007199254740993 is answered as 9007199254740992, 1.5 as 1, and
// 9223372036854775807 or anything larger as -9223372036854775808: the
// client then cannot match the answer to its request, or matches it to
// another one. Only integers up to 2^53-1 survive the float64.
const maxExactID = 1<<53 - 1

// vetMessages vets the body of a POST to the MCP endpoint before the SDK
// reads it, as filterMessages does for stdio, so that every request is
// answered with its id exactly as sent. A body the SDK would answer with
// another id, or not at all, is answered here instead: HTTP 400 and a
// JSON-RPC error (for a batch, an array of them, one per offending
// entry) with the id as sent. Anything else goes to next unchanged.
//
// What go-sdk v1.8.0 does with batches over streamable HTTP
// (mcp/streamable.go, servePOST): it refuses them (400, text/plain) when
// the Mcp-Protocol-Version header is 2025-06-18 or later, but serves them
// when the header is absent or older: each entry is decoded with the
// float64 ids above, the calls are collected in a map keyed by id, and
// the stream ends at the first answer for an id; a second entry with the
// same id runs, but its answer finds the stream closed and is dropped
// without a word. So a batch is vetted entry by entry here, and its ids
// must be distinct.
//
// Bodies that are not JSON are answered here too, with the standard
// parse error (-32700; id null, or as on stdio the id when one was read
// before the JSON broke off): the SDK answers them with a text/plain
// "malformed payload", which a JSON-RPC client cannot read. A body over
// the limit set earlier in the chain (limitBody) is answered 413, as the
// SDK would, but in JSON-RPC.
//
// A single message the SDK has no method for is answered as on stdio
// (unhandledRecorder): the SDK would answer a plain-text 400.
//
// GET, DELETE, OPTIONS and bodies that are not application/json (the SDK
// answers those 415) pass through untouched.
//
// It reads the whole body, so it belongs inside limitBody; and inside the
// token check and the rate limit, so that no body is parsed for a client
// that is refused anyway (NewHTTPHandler's chain).
func vetMessages(next http.Handler, log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil || !isJSON(r.Header.Get("Content-Type")) {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			if mbe, ok := errors.AsType[*http.MaxBytesError](err); ok {
				writeRejections(w, http.StatusRequestEntityTooLarge, []rejection{{err: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
					Message: fmt.Sprintf("request body over the limit of %d bytes; send smaller arguments", mbe.Limit)}}}, false)
				return
			}
			// The client went away or sent a broken chunked body: no
			// message to answer.
			http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		if rs, batch := vetBody(body); len(rs) > 0 {
			log.Warn("rejected a malformed message", "code", rs[0].err.Code, "reason", rs[0].err.Message,
				"rejected", len(rs), "batch", batch, "bytes", len(body))
			writeRejections(w, http.StatusBadRequest, rs, batch)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		method, request, single := singleMessage(body)
		if !single {
			next.ServeHTTP(w, r)
			return
		}
		rec := &unhandledRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		rec.finish(method, request, readMembers(body).id)
	})
}

// singleMessage reads the method of a body holding one request or
// notification (request: it has an id); single is false for anything else.
func singleMessage(body []byte) (method string, request, single bool) {
	var m struct {
		Method string `json:"method"`
	}
	if t := bytes.TrimSpace(body); len(t) == 0 || t[0] != '{' || json.Unmarshal(body, &m) != nil || m.Method == "" {
		return "", false, false
	}
	return m.Method, readMembers(body).id != nil, true
}

// notHandled begins the SDK's text/plain answer to a method it has no
// handler for (go-sdk v1.8.0, mcp/shared.go checkRequest, answered 400 by
// mcp/streamable.go servePOST in protocols before 2026-07-28, and for
// notifications in every protocol).
const notHandled = "JSON RPC not handled: "

// unhandledRecorder passes the SDK's answer through, except its plain-text
// 400 to an unknown method, which it holds: finish answers that as stdio
// does. A request gets the JSON-RPC error -32601 (method not found) with
// its id, in a 200 answer as every other JSON-RPC error (a 404 would tell
// a 2025 client its session is gone); an unknown notification is accepted
// (202) and ignored, as JSON-RPC has a server do with any notification it
// does not know. From 2026-07-28 the SDK answers an unknown request 404
// with -32601 itself, as that protocol has it: that passes through.
type unhandledRecorder struct {
	http.ResponseWriter
	held bool
	body bytes.Buffer
}

func (u *unhandledRecorder) WriteHeader(code int) {
	if code == http.StatusBadRequest && strings.HasPrefix(u.Header().Get("Content-Type"), "text/plain") {
		u.held = true
		return
	}
	u.ResponseWriter.WriteHeader(code)
}

func (u *unhandledRecorder) Write(p []byte) (int, error) {
	if u.held {
		return u.body.Write(p)
	}
	return u.ResponseWriter.Write(p)
}

// Flush keeps server-sent events flowing.
func (u *unhandledRecorder) Flush() {
	if f, ok := u.ResponseWriter.(http.Flusher); ok && !u.held {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (u *unhandledRecorder) Unwrap() http.ResponseWriter { return u.ResponseWriter }

// finish writes what was held: the answer to an unknown method, or the
// SDK's own 400 when it was something else.
func (u *unhandledRecorder) finish(method string, request bool, id json.RawMessage) {
	if !u.held {
		return
	}
	w := u.ResponseWriter
	if !bytes.HasPrefix(u.body.Bytes(), []byte(notHandled)) {
		w.WriteHeader(http.StatusBadRequest)
		w.Write(u.body.Bytes())
		return
	}
	w.Header().Del("X-Content-Type-Options")
	if !request {
		w.Header().Del("Content-Type")
		w.WriteHeader(http.StatusAccepted)
		return
	}
	writeRejections(w, http.StatusOK, []rejection{{id: id, err: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
		Message: fmt.Sprintf("method not found: %q", method)}}}, false)
}

// isJSON says whether a Content-Type is application/json, parameters
// (charset) aside, as the SDK reads it.
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// rejection is the answer to one message the SDK must not see.
type rejection struct {
	id  json.RawMessage // as sent; nil when none can be read (answered null)
	err *jsonrpc.Error
}

// vetBody returns the rejections of a POST body, none when the SDK may
// read it; batch says they are answered as an array (a batch with at
// least one entry).
func vetBody(body []byte) (rs []rejection, batch bool) {
	if trimmed := bytes.TrimSpace(body); len(trimmed) > 0 && trimmed[0] == '[' && json.Valid(trimmed) {
		return vetBatch(trimmed)
	}
	if v := vetOne(body); v.err != nil {
		return []rejection{{id: v.id, err: v.err}}, false
	}
	return nil, false
}

// vetted is what vetting learned of one message.
type vetted struct {
	id      json.RawMessage // as sent, nil when absent or unreadable
	key     string          // idKey of a valid id, "" when none
	request bool            // a request or notification (it has a method), not a response
	err     *jsonrpc.Error  // why the SDK must not see it; nil when it may
}

// vetOne vets a single message: check's rules (the same as stdio's), and
// an id, when there is one, that the SDK answers unchanged.
func vetOne(msg []byte) vetted {
	if !json.Valid(msg) {
		e := check(msg, false)
		if e.Code == jsonrpc.CodeParseError {
			// check speaks of lines, stdio's unit; here it is the body.
			e.Message = "parse error: the request body is not valid JSON"
		}
		return vetted{id: topLevelID(msg), err: e}
	}
	m := readMembers(msg)
	v := vetted{id: m.id, request: m.hasMethod}
	if m.id != nil {
		if v.key, v.err = vetID(m.id); v.err != nil {
			return v
		}
	}
	v.err = check(msg, false)
	return v
}

// vetID returns an id's idKey, or why the SDK would not answer it
// unchanged: MCP allows strings and integers (no null, no fraction),
// and the SDK keeps integers exactly up to maxExactID.
func vetID(raw json.RawMessage) (string, *jsonrpc.Error) {
	key, ok := idKey(raw)
	if !ok {
		return "", &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf(
			"invalid request: id %s is not a string or an integer; use a string, or an integer from -%d to %d",
			shortID(raw), maxExactID, maxExactID)}
	}
	if key[0] == 'n' {
		n, _ := strconv.ParseInt(key[1:], 10, 64) // idKey wrote it
		if n > maxExactID || n < -maxExactID {
			return "", &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf(
				"invalid request: id %s is an integer beyond ±%d (2^53-1), which this server cannot answer exactly; use a string, or an integer from -%d to %d",
				shortID(raw), maxExactID, maxExactID, maxExactID)}
		}
	}
	return key, nil
}

// vetBatch vets each entry of a batch (a valid JSON array) and the ids
// across them. A batch is run whole or not at all: with one bad entry
// the SDK would run the others and answer only some, so the client
// could not tell which ran.
func vetBatch(body []byte) ([]rejection, bool) {
	var entries []json.RawMessage
	if err := json.Unmarshal(body, &entries); err != nil {
		// Not reached: the caller found body valid, and json.Valid
		// refuses what encoding/json cannot decode.
		return []rejection{{err: &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "parse error: the request body is not valid JSON"}}}, false
	}
	if len(entries) == 0 {
		// JSON-RPC answers an empty batch with one error, not an array.
		return []rejection{{err: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: "invalid request: the batch is empty; send at least one message"}}}, false
	}
	rejected := make([]*rejection, len(entries))
	// Requests and responses are kept apart: the client's answer to the
	// server's request 7 and the client's own request 7 share no id space.
	type use struct{ count, second int }
	uses := map[string]*use{}
	var repeated []string
	for i, e := range entries {
		if t := bytes.TrimSpace(e); len(t) > 0 && t[0] == '[' {
			rejected[i] = &rejection{err: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
				Message: fmt.Sprintf("invalid request: entry %d of the batch is an array; a batch holds JSON-RPC messages (objects) only", i+1)}}
			continue
		}
		v := vetOne(e)
		if v.err != nil {
			rejected[i] = &rejection{id: v.id, err: v.err}
			continue
		}
		if v.key == "" {
			continue // a notification
		}
		k := "r" + v.key
		if v.request {
			k = "q" + v.key
		}
		switch u := uses[k]; {
		case u == nil:
			uses[k] = &use{count: 1}
		default:
			u.count++
			if u.count == 2 {
				u.second = i
				repeated = append(repeated, k)
			}
		}
	}
	for _, k := range repeated {
		u := uses[k]
		times := "twice"
		if u.count > 2 {
			times = strconv.Itoa(u.count) + " times"
		}
		id := readMembers(entries[u.second]).id
		msg := fmt.Sprintf("invalid request: id %s appears %s in this batch; give every request its own id", shortID(id), times)
		if k[0] == 'r' {
			msg = fmt.Sprintf("invalid request: the response to request %s appears %s in this batch; answer each request once", shortID(id), times)
		}
		rejected[u.second] = &rejection{id: id, err: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: msg}}
	}
	var rs []rejection
	for _, r := range rejected {
		if r != nil {
			r.err.Message += " (no message of this batch was run)"
			rs = append(rs, *r)
		}
	}
	return rs, true
}

// members is what the SDK reads of a message to tell its id and kind.
type members struct {
	id        json.RawMessage // nil when there is no "id" member
	hasMethod bool
}

// readMembers reads a message's "id" and "method" members as the SDK's
// decoder does: names matched exactly (it ignores "Id" and "ID", which
// encoding/json would take), the last of repeated names winning. msg is
// valid JSON; a message that is not an object has neither member.
func readMembers(msg []byte) members {
	var m members
	dec := json.NewDecoder(bytes.NewReader(msg))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return m
	}
	var value json.RawMessage // reused: only the id is kept
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return m
		}
		if err := dec.Decode(&value); err != nil {
			return m
		}
		switch key {
		case "id":
			m.id = bytes.Clone(value)
		case "method":
			m.hasMethod = true
		}
	}
	return m
}

// shortID is an id for an error message: the id itself travels in the
// answer, so a long one is cut here.
func shortID(raw json.RawMessage) string {
	const max = 40
	if len(raw) > max {
		return string(raw[:max]) + "…"
	}
	return string(raw)
}

// writeRejections answers with rs, each id written back byte for byte
// (json.Marshal would compact it and escape HTML in it).
func writeRejections(w http.ResponseWriter, status int, rs []rejection, batch bool) {
	var b bytes.Buffer
	if batch {
		b.WriteByte('[')
	}
	for i, r := range rs {
		if i > 0 {
			b.WriteByte(',')
		}
		id := bytes.TrimSpace(r.id)
		if len(id) == 0 {
			id = []byte("null")
		}
		e, err := json.Marshal(r.err)
		if err != nil { // a number and a string: it cannot fail
			e = []byte(`{"code":-32603,"message":"internal error"}`)
		}
		b.WriteString(`{"jsonrpc":"2.0","id":`)
		b.Write(id)
		b.WriteString(`,"error":`)
		b.Write(e)
		b.WriteByte('}')
	}
	if batch {
		b.WriteByte(']')
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(status)
	w.Write(b.Bytes())
}
