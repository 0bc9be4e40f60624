package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawSession is a server on StdioTransport driven line by line, as a
// careless or hostile client would.
type rawSession struct {
	t       *testing.T
	in      *io.PipeWriter
	replies chan string
}

func newRawSession(t *testing.T, s *mcp.Server) *rawSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = RunStdio(ctx, s, slog.New(slog.DiscardHandler), inR, outW)
		outW.Close()
	}()
	replies := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			replies <- sc.Text()
		}
		close(replies)
	}()
	t.Cleanup(func() { inW.Close(); cancel(); <-done })
	r := &rawSession{t: t, in: inW, replies: replies}
	r.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	r.next()
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return r
}

// with is r reporting to t, for subtests.
func (r *rawSession) with(t *testing.T) *rawSession {
	c := *r
	c.t = t
	return &c
}

func (r *rawSession) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.in, line+"\n"); err != nil {
		r.t.Fatal(err)
	}
}

// next is the next line the server wrote, within a bound.
func (r *rawSession) next() string {
	r.t.Helper()
	select {
	case line, ok := <-r.replies:
		if !ok {
			r.t.Fatal("the server closed stdout")
		}
		return line
	case <-time.After(10 * time.Second):
		r.t.Fatal("no reply within 10 s")
	}
	return ""
}

// reply is a decoded answer: its raw id and error.
type reply struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (r *rawSession) nextReply() reply {
	r.t.Helper()
	line := r.next()
	var rep reply
	if err := json.Unmarshal([]byte(line), &rep); err != nil {
		r.t.Fatalf("reply %q: %v", line, err)
	}
	return rep
}

// Every request gets an answer that carries its id exactly as sent: a
// duplicate in-flight id, a null id and a fractional id are refused with
// -32600 instead of being dropped or rewritten.
func TestRequestIDs(t *testing.T) {
	release := make(chan struct{})
	s := mcp.NewServer(&mcp.Implementation{Name: "ids", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "wait", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-release:
			case <-ctx.Done():
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "released"}}}, nil
		})
	r := newRawSession(t, s)

	tests := []struct {
		name, line, wantID, wantMsg string
	}{
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, "null", "not a string or an integer"},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, "1.5", "not a string or an integer"},
		{"exponent id", `{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, "1e3", "not a string or an integer"},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, "{}", ""},
		// The SDK reads ids as float64: past 2^53 it would answer another id.
		{"id past 2^53", `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, "9007199254740993", "beyond"},
		{"id past int64", `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`, "123456789012345678901234567890", "not a string or an integer"},
		// encoding/json would read "Id" as the id; the SDK reads "id" only.
		{"an id spelled twice", `{"jsonrpc":"2.0","id":1.5,"Id":2,"method":"ping"}`, "1.5", "not a string or an integer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := r.with(t)
			r.send(tt.line)
			rep := r.nextReply()
			if string(rep.ID) != tt.wantID || rep.Error == nil || rep.Error.Code != -32600 || !strings.Contains(rep.Error.Message, tt.wantMsg) {
				t.Errorf("reply id %s error %+v; want id %s, -32600 with %q", rep.ID, rep.Error, tt.wantID, tt.wantMsg)
			}
		})
	}

	// A request in flight, then a second request with its id.
	r.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait","arguments":{}}}`)
	r.send(`{"jsonrpc":"2.0","id":7,"method":"ping"}`)
	dup := r.nextReply()
	if string(dup.ID) != "7" || dup.Error == nil || dup.Error.Code != -32600 || !strings.Contains(dup.Error.Message, "already in flight") {
		t.Fatalf("duplicate id: %+v", dup)
	}
	// A string id "7" is another id.
	r.send(`{"jsonrpc":"2.0","id":"7","method":"ping"}`)
	if rep := r.nextReply(); string(rep.ID) != `"7"` || rep.Error != nil {
		t.Fatalf(`ping with id "7": %+v`, rep)
	}
	close(release)
	if rep := r.nextReply(); string(rep.ID) != "7" || rep.Error != nil {
		t.Fatalf("the first request's own answer: %+v", rep)
	}
	// Answered, so the id may be used again.
	r.send(`{"jsonrpc":"2.0","id":7,"method":"ping"}`)
	if rep := r.nextReply(); string(rep.ID) != "7" || rep.Error != nil {
		t.Fatalf("id 7 after its answer: %+v", rep)
	}
}

func TestIDKey(t *testing.T) {
	tests := []struct {
		raw string
		key string
		ok  bool
	}{
		{`7`, "n7", true}, {`-3`, "n-3", true}, {`"7"`, "s7", true}, {`"a\u0062"`, "sab", true},
		{`null`, "", false}, {`1.5`, "", false}, {`1e3`, "", false}, {`true`, "", false}, {`[]`, "", false},
		{`99999999999999999999`, "", false},
	}
	for _, tt := range tests {
		key, ok := idKey(json.RawMessage(tt.raw))
		if key != tt.key || ok != tt.ok {
			t.Errorf("idKey(%s) = %q, %v; want %q, %v", tt.raw, key, ok, tt.key, tt.ok)
		}
	}
}
