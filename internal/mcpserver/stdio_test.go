package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// readLine must keep lines up to the limit whole, however the buffer splits
// them, and skip longer ones entirely.
func TestReadLine(t *testing.T) {
	long := strings.Repeat("x", 100)
	tests := []struct {
		name  string
		input string
		limit int
		want  []string // lines kept; "!" marks a line reported too long
	}{
		{"short lines", "a\nbb\n", 10, []string{"a", "bb"}},
		{"CRLF", "a\r\nb\r\n", 10, []string{"a", "b"}},
		{"at the limit, split by the buffer", long + "\n" + "y\n", 100, []string{long, "y"}},
		{"over the limit is skipped to its end", long + "\n" + "y\n", 99, []string{"!", "y"}},
		{"last line without newline", "a\nb", 10, []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := bufio.NewReaderSize(strings.NewReader(tt.input), 16)
			var got []string
			for {
				line, tooLong, err := readLine(r, tt.limit)
				switch {
				case tooLong:
					got = append(got, "!")
				case len(line) > 0:
					got = append(got, string(line))
				}
				if err != nil {
					break
				}
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// recordingConn is a connection that keeps what is written through it.
type recordingConn struct {
	mcp.Connection
	written []jsonrpc.Message
}

func (c *recordingConn) Write(_ context.Context, msg jsonrpc.Message) error {
	c.written = append(c.written, msg)
	return nil
}

// TestResultWriterWritesAsTheSDK: a response with a result is written by
// resultWriter byte for byte as the SDK's transport writes it, whatever its
// id (HTML characters, quotes and non-ASCII in a string id, large numbers);
// every other message goes to the SDK's connection.
func TestResultWriterWritesAsTheSDK(t *testing.T) {
	id := func(v any) jsonrpc.ID {
		t.Helper()
		id, err := jsonrpc.MakeID(v)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	result := json.RawMessage(`{"content":[{"type":"text","text":"a < b && c > d \u2028 “q”"}],"structuredContent":{"x":[1,2.5,"é"]}}`)
	written := []jsonrpc.Message{
		&jsonrpc.Response{ID: id(float64(7)), Result: result},
		&jsonrpc.Response{ID: id(float64(1 << 52)), Result: json.RawMessage(`{}`)},
		&jsonrpc.Response{ID: id(`a<b>&"c\d 型`), Result: result},
		&jsonrpc.Response{ID: id(""), Result: json.RawMessage(`[]`)},
	}
	delegated := []jsonrpc.Message{
		&jsonrpc.Response{ID: id(float64(8)), Error: &jsonrpc.Error{Code: -32602, Message: "bad"}},
		&jsonrpc.Response{ID: id(float64(9))},
		&jsonrpc.Request{Method: "notifications/message", Params: json.RawMessage(`{"level":"info"}`)},
		&jsonrpc.Request{ID: id("s1"), Method: "sampling/createMessage"},
	}
	var out bytes.Buffer
	inner := &recordingConn{}
	c := &resultWriter{Connection: inner, w: &lineWriter{w: &out, ids: &inFlight{ids: map[string]bool{}}}}
	for _, msg := range append(slices.Clone(written), delegated...) {
		if err := c.Write(context.Background(), msg); err != nil {
			t.Fatal(err)
		}
	}
	var want bytes.Buffer
	for _, msg := range written {
		data, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			t.Fatal(err)
		}
		want.Write(append(data, '\n'))
	}
	if out.String() != want.String() {
		t.Errorf("written:\n%s\nthe SDK writes:\n%s", out.String(), want.String())
	}
	if !reflect.DeepEqual(inner.written, delegated) {
		t.Errorf("went to the SDK's connection: %v, want %v", inner.written, delegated)
	}
}
