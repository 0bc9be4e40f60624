package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxMessageBytes is the largest JSON-RPC message the server reads; a longer
// line is answered with an error and skipped.
const MaxMessageBytes = mcp.DefaultMaxLineLength

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
	w := &lineWriter{w: out}
	pr, pw := io.Pipe()
	go filterMessages(in, pw, w, log)
	return &mcp.IOTransport{Reader: &filteredReader{PipeReader: pr, in: in}, Writer: w}
}

// filterMessages copies valid messages from in to pw, one per line, and
// answers the rest through w.
func filterMessages(in io.Reader, pw *io.PipeWriter, w *lineWriter, log *slog.Logger) {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(r, MaxMessageBytes)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			if rejection := check(line, tooLong); rejection != nil {
				log.Warn("rejected a malformed message", "code", rejection.Code, "reason", rejection.Message, "bytes", len(line))
				w.writeError(line, rejection)
			} else if _, werr := pw.Write(append(line, '\n')); werr != nil {
				return // the server closed the transport
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
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
		return &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "parse error: the line is not valid JSON"}
	case bytes.HasPrefix(bytes.TrimSpace(line), []byte("[")):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "JSON-RPC batches are not supported; send one message per line"}
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: " + err.Error()}
	}
	return nil
}

// lineWriter writes whole lines, one at a time, so the error answers written
// here never interleave with the SDK's messages. The SDK writes each message
// with a single Write call.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close leaves the underlying writer (stdout) open.
func (l *lineWriter) Close() error { return nil }

// writeError answers a rejected line, with the line's id when one can be
// read from it, else null as JSON-RPC prescribes.
func (l *lineWriter) writeError(line []byte, e *jsonrpc.Error) {
	var probe struct {
		ID any `json:"id"`
	}
	var id jsonrpc.ID
	if json.Unmarshal(line, &probe) == nil {
		id, _ = jsonrpc.MakeID(probe.ID) // an invalid id stays null
	}
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: e})
	if err != nil {
		return
	}
	l.Write(append(data, '\n'))
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
