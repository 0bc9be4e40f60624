package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpMode is one of the two ways the team server runs the SDK's
// handler: stateless when it watches a replaced index.
type httpMode struct {
	name      string
	stateless bool
}

func httpModes() []httpMode { return []httpMode{{"stateful", false}, {"stateless", true}} }

// vettedServer is a trivial MCP server with one tool, served over
// streamable HTTP behind vetMessages.
func vettedServer(t *testing.T, stateless bool) *httptest.Server {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "vetted", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo"}}}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: stateless})
	srv := httptest.NewServer(vetMessages(h, nil))
	t.Cleanup(srv.Close)
	return srv
}

// rawHTTPClient posts JSON-RPC bodies as they are written, as a careless
// or hostile client would. No Mcp-Protocol-Version header is sent, so the
// SDK serves batches (it refuses them from 2025-06-18 on).
type rawHTTPClient struct {
	url, session string
}

func newRawHTTPClient(t *testing.T, url string) *rawHTTPClient {
	t.Helper()
	c := &rawHTTPClient{url: url}
	res := c.post(t, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if res.status != http.StatusOK {
		t.Fatalf("initialize: %d %s", res.status, res.body)
	}
	c.session = res.header.Get("Mcp-Session-Id") // "" when stateless
	if res := c.post(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); res.status != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", res.status, res.body)
	}
	return c
}

// httpReply is an answer to a POST: its messages, from a JSON body (an
// array when batch) or from the data lines of an event stream.
type httpReply struct {
	status   int
	header   http.Header
	body     []byte
	batch    bool
	messages []reply
}

func (c *rawHTTPClient) post(t *testing.T, body string) httpReply {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, c.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	r := httpReply{status: resp.StatusCode, header: resp.Header, body: data}
	var raws []json.RawMessage
	switch ct := resp.Header.Get("Content-Type"); {
	case strings.HasPrefix(ct, "text/event-stream"):
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				raws = append(raws, json.RawMessage(d))
			}
		}
	case ct == "application/json" && bytes.HasPrefix(data, []byte("[")):
		r.batch = true
		if err := json.Unmarshal(data, &raws); err != nil {
			t.Fatalf("answer %s: %v", data, err)
		}
	case ct == "application/json":
		raws = []json.RawMessage{data}
	}
	for _, raw := range raws {
		var rep reply
		if err := json.Unmarshal(raw, &rep); err != nil {
			t.Fatalf("answer %s: %v", raw, err)
		}
		r.messages = append(r.messages, rep)
	}
	return r
}

// want is one expected answer: its id as sent, and an error's code and
// part of its message (code 0: a result).
type want struct {
	id   string
	code int
	msg  string
}

// sameID says whether an answer's id is the id sent: the same bytes, or,
// for a string, the same string (the SDK writes "a\u0062" back as "ab").
func sameID(got json.RawMessage, sent string) bool {
	if string(got) == sent {
		return true
	}
	var g, s string
	return json.Unmarshal(got, &g) == nil && json.Unmarshal([]byte(sent), &s) == nil && g == s
}

// The attacks on ids over HTTP are answered with the id exactly as sent,
// without reaching the SDK; clean messages and batches are served by it
// with their ids unchanged.
func TestVetMessagesOverHTTP(t *testing.T) {
	const notStringOrInt = "is not a string or an integer; use a string, or an integer from -9007199254740991 to 9007199254740991"
	tests := []struct {
		name   string
		body   string
		status int
		batch  bool
		want   []want // in this order; the SDK's answers to a batch sorted by id bytes
	}{
		// The three attacks reproduced against the bare SDK.
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, 400, false,
			[]want{{"1.5", -32600, "id 1.5 " + notStringOrInt}}},
		{"id beyond int64", `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`, 400, false,
			[]want{{"123456789012345678901234567890", -32600, notStringOrInt}}},
		{"batch repeating an id", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`, 400, true,
			[]want{{"1", -32600, "id 1 appears twice in this batch; give every request its own id"}}},

		// More ids the SDK would rewrite or drop.
		{"int64 max (beyond 2^53)", `{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping"}`, 400, false,
			[]want{{"9223372036854775807", -32600, "beyond ±9007199254740991"}}},
		{"2^53+1", `{"jsonrpc":"2.0","id":-9007199254740993,"method":"ping"}`, 400, false,
			[]want{{"-9007199254740993", -32600, "beyond ±9007199254740991"}}},
		{"exponent id", `{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, 400, false, []want{{"1e3", -32600, notStringOrInt}}},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, 400, false, []want{{"null", -32600, notStringOrInt}}},
		{"object id, spaces kept", `{"jsonrpc":"2.0","id":{ "a": [1] },"method":"ping"}`, 400, false,
			[]want{{`{ "a": [1] }`, -32600, notStringOrInt}}},
		{"id beside an Id the SDK ignores", `{"jsonrpc":"2.0","id":1.5,"Id":1,"method":"ping"}`, 400, false,
			[]want{{"1.5", -32600, notStringOrInt}}},
		{"id given twice, the SDK takes the last", `{"jsonrpc":"2.0","id":1,"id":2.5,"method":"ping"}`, 400, false,
			[]want{{"2.5", -32600, notStringOrInt}}},
		{"not JSON", `hello`, 400, false, []want{{"null", -32700, "the request body is not valid JSON"}}},
		// As on stdio, an id read before the JSON breaks is answered.
		{"JSON cut short after the id", `{"jsonrpc":"2.0","id":1,`, 400, false, []want{{"1", -32700, "not valid JSON"}}},
		{"not JSON-RPC", `{"id":3,"method":"ping"}`, 400, false, []want{{"3", -32600, "invalid request"}}},
		{"empty batch", `[]`, 400, false, []want{{"null", -32600, "the batch is empty"}}},
		{"batch with a fractional id and a repeated one",
			`[{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","id":2.5,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"a","method":"ping"}]`,
			400, true, []want{{"2.5", -32600, notStringOrInt}, {`"a"`, -32600, `id "a" appears twice`}}},

		// What the SDK answers unchanged passes.
		{"string id", `{"jsonrpc":"2.0","id":"req <1> & more","method":"ping"}`, 200, false, []want{{`"req <1> & more"`, 0, ""}}},
		{"escaped string id", `{"jsonrpc":"2.0","id":"a\u0062","method":"ping"}`, 200, false, []want{{`"ab"`, 0, ""}}},
		{"largest exact id", `{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}`, 200, false, []want{{"9007199254740991", 0, ""}}},
		{"smallest exact id", `{"jsonrpc":"2.0","id":-9007199254740991,"method":"tools/list"}`, 200, false, []want{{"-9007199254740991", 0, ""}}},
		{"clean batch, 7 and \"7\" apart", `[{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","id":"7","method":"tools/list"}]`, 200, false,
			[]want{{`"7"`, 0, ""}, {"7", 0, ""}}}, // sorted by id bytes
	}
	for _, mode := range httpModes() {
		t.Run(mode.name, func(t *testing.T) {
			c := newRawHTTPClient(t, vettedServer(t, mode.stateless).URL)
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					res := c.post(t, tt.body)
					if res.status != tt.status || res.batch != tt.batch || len(res.messages) != len(tt.want) {
						t.Fatalf("%d, batch %v, %d answers (%s); want %d, batch %v, %d answers",
							res.status, res.batch, len(res.messages), res.body, tt.status, tt.batch, len(tt.want))
					}
					if tt.status == http.StatusBadRequest && res.header.Get("Content-Type") != "application/json" {
						t.Errorf("Content-Type %q, want application/json", res.header.Get("Content-Type"))
					}
					got := res.messages
					if tt.status == http.StatusOK {
						// The SDK answers a batch's calls as they finish.
						got = slices.Clone(got)
						slices.SortFunc(got, func(a, b reply) int { return bytes.Compare(a.ID, b.ID) })
					}
					for i, w := range tt.want {
						g := got[i]
						switch {
						case !sameID(g.ID, w.id):
							t.Errorf("answer %d has id %s, want %s (%s)", i, g.ID, w.id, res.body)
						case w.code == 0 && g.Error != nil:
							t.Errorf("answer %d: error %+v, want a result", i, g.Error)
						case w.code != 0 && (g.Error == nil || g.Error.Code != w.code || !strings.Contains(g.Error.Message, w.msg)):
							t.Errorf("answer %d: error %+v, want %d with %q", i, g.Error, w.code, w.msg)
						}
					}
				})
			}
		})
	}
}

// A real client still works through the vetting: it initializes, lists
// and calls tools, and (stateful) opens the GET stream and ends the
// session with DELETE.
func TestVetMessagesClient(t *testing.T) {
	for _, mode := range httpModes() {
		t.Run(mode.name, func(t *testing.T) {
			srv := vettedServer(t, mode.stateless)
			client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil)
			cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			list, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(list.Tools) != 1 || list.Tools[0].Name != "echo" {
				t.Fatalf("tools/list: %+v", list.Tools)
			}
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}})
			if err != nil || res.IsError {
				t.Fatalf("tools/call: %+v, %v", res, err)
			}
			if err := cs.Close(); err != nil {
				t.Fatalf("close: %v", err)
			}
		})
	}
}

// The batch rules and the answers' shape, without a server.
func TestVetBody(t *testing.T) {
	deep := `{"jsonrpc":"2.0","id":5,"method":"ping","params":` + strings.Repeat("[", maxNesting+1)
	tests := []struct {
		name  string
		body  string
		batch bool
		want  []want
	}{
		{"clean message", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, false, nil},
		{"clean notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, false, nil},
		{"a client's response", `{"jsonrpc":"2.0","id":3,"result":{}}`, false, nil},
		{"a client's response with a fractional id", `{"jsonrpc":"2.0","id":3.5,"result":{}}`, false, []want{{"3.5", -32600, "not a string or an integer"}}},
		{"empty body", ``, false, []want{{"null", -32700, "the request body is not valid JSON"}}},
		{"JSON nested too deep, id read", deep, false, []want{{"5", -32600, "nested deeper than"}}},
		{"a bare number", `42`, false, []want{{"null", -32600, "invalid request"}}},
		{"request and response sharing an id", ` [{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","id":4,"result":{}}] `, true, nil},
		{"an id three times", `[{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","id":4,"method":"ping"}]`, true,
			[]want{{"4", -32600, "id 4 appears 3 times in this batch; give every request its own id (no message of this batch was run)"}}},
		{"a response twice", `[{"jsonrpc":"2.0","id":5,"result":{}},{"jsonrpc":"2.0","id":5,"error":{"code":1,"message":"x"}}]`, true,
			[]want{{"5", -32600, "the response to request 5 appears twice"}}},
		{"a batch in a batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"},[{"jsonrpc":"2.0","id":2,"method":"ping"}]]`, true,
			[]want{{"null", -32600, "entry 2 of the batch is an array"}}},
		{"not a message in a batch", `[1]`, true, []want{{"null", -32600, "invalid request"}}},
		{"a long id cut in the message", `{"jsonrpc":"2.0","id":"` + strings.Repeat("x", 100) + `","id":[` + strings.Repeat("1,", 50) + `1],"method":"ping"}`, false,
			[]want{{"[" + strings.Repeat("1,", 50) + "1]", -32600, "id [" + strings.Repeat("1,", 19) + "1… is not"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, batch := vetBody([]byte(tt.body))
			if len(rs) != len(tt.want) || (len(rs) > 0 && batch != tt.batch) {
				t.Fatalf("%d rejections (batch %v): %+v; want %d (batch %v)", len(rs), batch, rs, len(tt.want), tt.batch)
			}
			rec := httptest.NewRecorder()
			if len(rs) > 0 {
				writeRejections(rec, http.StatusBadRequest, rs, batch)
			}
			var got []reply
			if len(rs) > 0 && batch {
				if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
					t.Fatalf("answer %s: %v", rec.Body, err)
				}
			} else if len(rs) > 0 {
				got = make([]reply, 1)
				if err := json.Unmarshal(rec.Body.Bytes(), &got[0]); err != nil {
					t.Fatalf("answer %s: %v", rec.Body, err)
				}
			}
			for i, w := range tt.want {
				if g := got[i]; string(g.ID) != w.id || g.Error == nil || g.Error.Code != w.code || !strings.Contains(g.Error.Message, w.msg) {
					t.Errorf("answer %d: id %s error %+v; want id %s, %d with %q", i, g.ID, g.Error, w.id, w.code, w.msg)
				}
			}
		})
	}
}

// Everything vetMessages does not refuse reaches next with its body
// byte for byte; a body over limitBody's limit is answered 413.
func TestVetMessagesPassThrough(t *testing.T) {
	const limit = 64
	tests := []struct {
		name, method, contentType, body string
		chunked                         bool // no Content-Length, so only the MaxBytesReader stops it
		wantStatus                      int  // 200: next served it
	}{
		{"GET", http.MethodGet, "", "", false, 200},
		{"DELETE", http.MethodDelete, "", "", false, 200},
		{"OPTIONS", http.MethodOptions, "", "", false, 200},
		{"GET with a body not vetted", http.MethodGet, "application/json", `{"id":1.5}`, false, 200},
		{"POST that is not JSON", http.MethodPost, "text/plain", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, false, 200},
		{"clean POST", http.MethodPost, "application/json; charset=utf-8", ` {"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n", false, 200},
		{"refused POST", http.MethodPost, "application/json", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, false, 400},
		{"POST over the limit", http.MethodPost, "application/json", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", limit) + `"}}`, true, 413},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seen []byte
			next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				seen, _ = io.ReadAll(r.Body)
			})
			req := httptest.NewRequest(tt.method, "/mcp", strings.NewReader(tt.body))
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			if tt.chunked {
				req.ContentLength = -1
			}
			rec := httptest.NewRecorder()
			limitBody(vetMessages(next, nil), limit).ServeHTTP(rec, req)
			if rec.Code != tt.wantStatus {
				t.Fatalf("status %d (%s), want %d", rec.Code, rec.Body, tt.wantStatus)
			}
			if tt.wantStatus == http.StatusOK && string(seen) != tt.body {
				t.Errorf("next read %q, want %q", seen, tt.body)
			}
			if tt.wantStatus != http.StatusOK {
				var rep reply
				if seen != nil || rec.Header().Get("Content-Type") != "application/json" || json.Unmarshal(rec.Body.Bytes(), &rep) != nil || rep.Error == nil {
					t.Errorf("next read %q; answer %q (%s), want a JSON-RPC error and next not called", seen, rec.Body, rec.Header().Get("Content-Type"))
				}
			}
		})
	}
}

// TestUnknownMethodOverHTTP: an unknown method is answered as over stdio,
// with the JSON-RPC error -32601 and its id, in a 200 (a 404 would tell a
// 2025 client its session is gone), and an unknown notification is
// accepted and ignored; the SDK answered both with a plain-text 400. Its
// other 400s pass through as they are.
func TestUnknownMethodOverHTTP(t *testing.T) {
	for _, m := range httpModes() {
		t.Run(m.name, func(t *testing.T) {
			c := newRawHTTPClient(t, vettedServer(t, m.stateless).URL)
			res := c.post(t, `{"jsonrpc":"2.0","id":"x","method":"langspec/nope","params":{}}`)
			if res.status != http.StatusOK || len(res.messages) != 1 || !sameID(res.messages[0].ID, `"x"`) || res.messages[0].Error == nil ||
				res.messages[0].Error.Code != -32601 || res.messages[0].Error.Message != `method not found: "langspec/nope"` {
				t.Errorf("unknown method: %d %s", res.status, res.body)
			}
			res = c.post(t, `{"jsonrpc":"2.0","method":"notifications/nope"}`)
			if res.status != http.StatusAccepted || len(res.body) != 0 {
				t.Errorf("unknown notification: %d %q", res.status, res.body)
			}
			// A notification with an id is still the SDK's to refuse.
			res = c.post(t, `{"jsonrpc":"2.0","id":3,"method":"notifications/initialized"}`)
			if res.status != http.StatusBadRequest || !strings.Contains(string(res.body), "unexpected id") {
				t.Errorf("notification with an id: %d %q", res.status, res.body)
			}
			if res := c.post(t, `{"jsonrpc":"2.0","id":4,"method":"ping"}`); res.status != http.StatusOK || len(res.messages) != 1 || res.messages[0].Error != nil {
				t.Errorf("ping: %d %s", res.status, res.body)
			}
		})
	}
}
