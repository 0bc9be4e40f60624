package main

// What a client gets wrong is answered alike over stdio and over HTTP, in
// JSON-RPC, with the code that fits and words it can act on; and what a
// call logs reaches its caller over either transport. Each test drives the
// real binary: raw lines on a stdio server's pipes, raw POSTs to a team
// server on loopback, or the Go SDK's client.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawPeer is a server reached by a raw client in the 2025 era: a stdio
// server on its pipes, or a team server's session over HTTP.
type rawPeer struct {
	name string
	// request sends a request and returns its answer, and over HTTP the
	// status (0 over stdio).
	request func(t *testing.T, body string) (answer map[string]any, status int)
	// notify sends a notification and returns the HTTP status (0 over
	// stdio, where nothing comes back).
	notify func(t *testing.T, body string) int
}

// rawPeers starts a stdio server and a team server on seeded databases,
// each initialized, with args for both (e.g. --tools categories).
func rawPeers(t *testing.T, args ...string) []rawPeer {
	t.Helper()
	s := startRaw(t, seededDB(t), func(c *exec.Cmd) { c.Args = append(c.Args, args...) })
	s.initialize()
	team := startTeamServerEnv(t, seededDB(t), []string{"MANUALS_ROOT=" + manualsRoot(t)}, args...)
	session := openSession(t, team, "")
	return []rawPeer{
		{name: "stdio", request: func(t *testing.T, body string) (map[string]any, int) {
			t.Helper()
			s.send(body)
			return answerTo(t, body, s.next), 0
		}, notify: func(t *testing.T, body string) int {
			t.Helper()
			s.send(body)
			return 0
		}},
		{name: "http", request: func(t *testing.T, body string) (map[string]any, int) {
			t.Helper()
			resp, text := mcpPost(t, team, "", session, body)
			msgs := httpMessages(t, resp, text)
			return answerTo(t, body, func() map[string]any {
				if len(msgs) == 0 {
					t.Fatalf("%s: HTTP %d with no answer: %q", body, resp.StatusCode, text)
				}
				m := msgs[0]
				msgs = msgs[1:]
				return m
			}), resp.StatusCode
		}, notify: func(t *testing.T, body string) int {
			t.Helper()
			resp, text := mcpPost(t, team, "", session, body)
			if text != "" {
				t.Errorf("%s: HTTP %d answered %q; a notification gets no answer", body, resp.StatusCode, text)
			}
			return resp.StatusCode
		}},
	}
}

// answerTo reads messages with next until the answer to body's request:
// server notifications are skipped, an answer to any other id fails.
func answerTo(t *testing.T, body string, next func() map[string]any) map[string]any {
	t.Helper()
	var req struct{ ID any }
	json.Unmarshal([]byte(body), &req)
	for {
		m := next()
		if _, isNotification := m["method"]; isNotification {
			continue
		}
		if fmt.Sprint(m["id"]) != fmt.Sprint(req.ID) {
			t.Fatalf("%s: answered %v, an answer to another id", body, m)
		}
		return m
	}
}

// httpMessages are the JSON-RPC messages of an HTTP answer: a JSON body,
// or the events of a stream.
func httpMessages(t *testing.T, resp *http.Response, body string) []map[string]any {
	t.Helper()
	var datas []string
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, l := range strings.Split(body, "\n") {
			if d, ok := strings.CutPrefix(l, "data: "); ok {
				datas = append(datas, d)
			}
		}
	} else if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		datas = []string{body}
	}
	var msgs []map[string]any
	for _, d := range datas {
		var m map[string]any
		if err := json.Unmarshal([]byte(d), &m); err != nil || m["jsonrpc"] != "2.0" {
			t.Fatalf("HTTP %d (%s): not a JSON-RPC message: %q", resp.StatusCode, resp.Header.Get("Content-Type"), d)
		}
		msgs = append(msgs, m)
	}
	return msgs
}

// rpcError is an answer's error, failing the test when it has none.
func rpcError(t *testing.T, what string, answer map[string]any) (code int, message string) {
	t.Helper()
	e, ok := answer["error"].(map[string]any)
	if !ok {
		t.Fatalf("%s: answered %v, want a JSON-RPC error", what, answer)
	}
	c, _ := e["code"].(float64)
	m, _ := e["message"].(string)
	return int(c), m
}

// TestServeSetLevelNamesTheLevels: logging/setLevel with a level MCP does
// not define is refused with -32602 naming the levels, on both transports;
// it was answered {} and the client then heard nothing.
func TestServeSetLevelNamesTheLevels(t *testing.T) {
	for _, p := range rawPeers(t) {
		t.Run(p.name, func(t *testing.T) {
			answer, _ := p.request(t, `{"jsonrpc":"2.0","id":"loud","method":"logging/setLevel","params":{"level":"loud"}}`)
			code, msg := rpcError(t, "setLevel loud", answer)
			if code != -32602 || !strings.Contains(msg, `"loud"`) {
				t.Errorf("setLevel loud: %d %q; want -32602 naming the level", code, msg)
			}
			for _, level := range []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"} {
				if !strings.Contains(msg, level) {
					t.Errorf("setLevel loud: %q does not name the level %s", msg, level)
				}
			}
			if answer, _ := p.request(t, `{"jsonrpc":"2.0","id":"warn","method":"logging/setLevel","params":{"level":"warning"}}`); answer["result"] == nil {
				t.Errorf("setLevel warning: %v", answer)
			}
		})
	}
}

// TestServeProtocolErrorsAlike: an unknown method, an unknown
// notification and a second initialize are answered alike over stdio and
// HTTP: -32601, nothing (202 over HTTP), -32600. Over HTTP an unknown
// method got a plain-text 400 and an unknown notification 400, while stdio
// answered -32601 and ignored the notification; a second initialize, and a
// request before initialize on stdio, carried code 0.
func TestServeProtocolErrorsAlike(t *testing.T) {
	for _, p := range rawPeers(t) {
		t.Run(p.name, func(t *testing.T) {
			answer, status := p.request(t, `{"jsonrpc":"2.0","id":1,"method":"langspec/no-such-method","params":{}}`)
			code, msg := rpcError(t, "unknown method", answer)
			if code != -32601 || msg != `method not found: "langspec/no-such-method"` {
				t.Errorf("unknown method: %d %q; want -32601 naming the method", code, msg)
			}
			if p.name == "http" && status != http.StatusOK {
				t.Errorf("unknown method: HTTP %d; want 200, as every JSON-RPC error of a session (404 says the session is gone)", status)
			}
			if status := p.notify(t, `{"jsonrpc":"2.0","method":"notifications/langspec-no-such-thing"}`); p.name == "http" && status != http.StatusAccepted {
				t.Errorf("unknown notification: HTTP %d; want 202, ignored as on stdio", status)
			}
			// Over stdio an answer to the notification would come before
			// this one, and fail it.
			if answer, _ := p.request(t, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); answer["result"] == nil {
				t.Errorf("ping after the unknown notification: %v", answer)
			}
			answer, _ = p.request(t, `{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"again","version":"1"}}}`)
			if code, msg := rpcError(t, "second initialize", answer); code != -32600 || !strings.Contains(msg, "initialize") {
				t.Errorf("second initialize: %d %q; want -32600", code, msg)
			}
		})
	}
	t.Run("stdio before initialize", func(t *testing.T) {
		s := startRaw(t, seededDB(t))
		s.send(`{"jsonrpc":"2.0","id":"early","method":"tools/list"}`)
		if code, msg := rpcError(t, "tools/list before initialize", s.next()); code != -32600 || !strings.Contains(msg, "send initialize first") {
			t.Errorf("tools/list before initialize: %d %q; want -32600 saying to initialize", code, msg)
		}
	})
	t.Run("http 2026-07-28", func(t *testing.T) {
		team := startTeamServer(t, seededDB(t))
		const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
		resp, body := mcpPost(t, team, "", "", `{"jsonrpc":"2.0","id":1,"method":"langspec/no-such-method","params":{`+meta+`}}`, "Mcp-Protocol-Version", "2026-07-28")
		// 404 with -32601 is what this protocol has for an unknown method.
		if msgs := httpMessages(t, resp, body); resp.StatusCode != http.StatusNotFound || len(msgs) != 1 {
			t.Errorf("unknown method: HTTP %d %q; want 404 and -32601", resp.StatusCode, body)
		} else if code, _ := rpcError(t, "unknown method", msgs[0]); code != -32601 {
			t.Errorf("unknown method: %d; want -32601", code)
		}
		resp, body = mcpPost(t, team, "", "", `{"jsonrpc":"2.0","method":"notifications/langspec-no-such-thing"}`, "Mcp-Protocol-Version", "2026-07-28")
		if resp.StatusCode != http.StatusAccepted || body != "" {
			t.Errorf("unknown notification: HTTP %d %q; want 202, ignored", resp.StatusCode, body)
		}
	})
}

// TestServeErrorTextsNameWhatIsAllowed: the answers a model reads to a
// value outside an enum, arguments that are not an object, a bad field of
// an object argument, and a cursor this server never gave name what was
// wrong and what is allowed, on both transports. They were "scope must be
// a string", "hint: arguments: " with nothing after, "budget must be a
// object" and a bare "invalid params".
func TestServeErrorTextsNameWhatIsAllowed(t *testing.T) {
	calls := []struct {
		tool string
		args any
		want []string
	}{
		{"manual_read", map[string]any{"manual_id": "ops-en", "path": "runbooks/db/failover.md", "scope": "everything"},
			[]string{`invalid_argument: argument scope: got "everything"; hint: scope must be one of "snippet", "section", "sections", "file"`}},
		{"list_languages", []int{1}, []string{"invalid_argument: arguments must be a JSON object; hint: list_languages takes no arguments: send {}"}},
		{"list_languages", map[string]any{"language": "go"}, []string{`invalid_argument: unknown argument "language"; hint: list_languages takes no arguments`}},
		{"search_spec", "slices", []string{"invalid_argument: arguments must be a JSON object; hint: arguments: query (required), also"}},
		{"vault_find", map[string]any{"query": "x", "budget": map[string]any{"time_ms": 0}},
			[]string{"invalid_argument: argument budget.time_ms: got 0; hint: budget.time_ms must be an integer from 1 to 600000 (default 60000)"}},
		{"vault_find", map[string]any{"query": "x", "budget": map[string]any{"seconds": 5}},
			[]string{`invalid_argument: unknown field "budget.seconds" in argument budget; hint: budget must be an object of`, "time_ms"}},
	}
	for _, p := range rawPeers(t) {
		t.Run(p.name, func(t *testing.T) {
			for i, c := range calls {
				answer, _ := p.request(t, toolCall(i, c.tool, c.args))
				result, _ := answer["result"].(map[string]any)
				if result == nil || result["isError"] != true {
					t.Errorf("%s %v: answered %v; want an error result", c.tool, c.args, answer)
					continue
				}
				text := fmt.Sprint(result["content"].([]any)[0].(map[string]any)["text"])
				for _, w := range c.want {
					if !strings.Contains(text, w) {
						t.Errorf("%s %v: %q lacks %q", c.tool, c.args, text, w)
					}
				}
				if strings.Contains(text, "validating") || strings.Contains(text, "unmarshal") || strings.HasSuffix(text, ": ") {
					t.Errorf("%s %v: %q is the validator's words, or ends in nothing", c.tool, c.args, text)
				}
			}
			for _, method := range []string{"tools/list", "resources/list", "resources/templates/list", "prompts/list"} {
				answer, _ := p.request(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":"page","method":%q,"params":{"cursor":"page-7"}}`, method))
				code, msg := rpcError(t, method+" with a bad cursor", answer)
				if code != -32602 || !strings.Contains(msg, `cursor "page-7"`) || !strings.Contains(msg, "nextCursor") {
					t.Errorf("%s with a bad cursor: %d %q; want -32602 naming the cursor and how to page", method, code, msg)
				}
			}
		})
	}
	t.Run("call-category-tool", func(t *testing.T) {
		s := startRaw(t, seededDB(t), func(c *exec.Cmd) { c.Args = append(c.Args, "--tools", "categories") })
		s.initialize()
		for i, c := range []struct {
			args any
			want string
		}{
			{map[string]any{"category": "spec", "name": "search_spec", "args": "slices"}, `invalid_argument: argument args: got "slices"; hint: args must be an object`},
			{map[string]any{"category": 5, "name": "search_spec", "args": map[string]any{}}, "invalid_argument: argument category: got 5; hint: category must be a string of 1 to 64 characters"},
			{[]string{"spec"}, "invalid_argument: arguments must be a JSON object; hint: arguments: args (required), category (required), name (required)"},
		} {
			s.send(toolCall(i, "call-category-tool", c.args))
			answer := answerTo(t, toolCall(i, "", nil), s.next)
			result, _ := answer["result"].(map[string]any)
			text := ""
			if result != nil {
				text = fmt.Sprint(result["content"].([]any)[0].(map[string]any)["text"])
			}
			if result["isError"] != true || !strings.Contains(text, c.want) || strings.Contains(text, "unmarshal") || strings.Contains(text, "Go struct") {
				t.Errorf("call-category-tool %v: %v; want an error result with %q, no decoder's words", c.args, answer, c.want)
			}
		}
	})
}

// TestServeBatchLogsReachTheCaller: a client that asks for the log hears
// every line a 5-task batch logs, the lines of its tasks among them, over
// HTTP as over stdio, whether it asks by logging/setLevel (2025) or in the
// call's _meta (2026-07-28): the batch's own line, a "category call" line
// per task, and the line of each task's call in langspec's own server.
// Over HTTP it heard the batch's line only (1 of 11), and over stdio in the
// 2026-07-28 era as well: the others were logged without the request's
// context, so the server could not tell whose they were or at what level.
func TestServeBatchLogsReachTheCaller(t *testing.T) {
	tools := []string{"search_spec", "list_languages", "get_section", "list_versions", "build_learning_plan"}
	args := []string{`{"query":"slices"}`, `{}`, `{"language":"go","section_id":"Slice_expressions"}`, `{"language":"go"}`, `{"language":"go"}`}
	var lines []string
	for i, tool := range tools {
		lines = append(lines, fmt.Sprintf(`{"id":"t%d","category":"spec","tool":%q,"params":%s}`, i, tool, args[i]))
	}
	tasks := strings.Join(lines, "\n")
	// want: what each line says, as "msg tool".
	want := []string{"tool call batch"}
	for _, tool := range tools {
		want = append(want, "category call "+tool, "tool call "+tool)
	}
	slices.Sort(want)

	connect := map[string]func(t *testing.T, heard *notes, protocol string) *mcp.ClientSession{
		"stdio": func(t *testing.T, heard *notes, protocol string) *mcp.ClientSession {
			stderr := &lockedBuffer{}
			cmd := serveCmd(langspecBinary(t), seededDB(t), stderr)
			cmd.Args = append(cmd.Args, "--tools", "categories")
			ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "logs", Version: "1"}, heard.options()).Connect(ctx,
				&mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
			if err != nil {
				t.Fatalf("connect: %v\n%s", err, stderr)
			}
			t.Cleanup(func() { cs.Close() })
			return cs
		},
		"http": func(t *testing.T, heard *notes, protocol string) *mcp.ClientSession {
			s := startTeamServer(t, seededDB(t), "--tools", "categories")
			cs, err := s.connectWith(t, "", heard.options(), protocol)
			if err != nil {
				t.Fatal(err)
			}
			return cs
		},
	}
	for _, protocol := range []string{"2025-11-25", "2026-07-28"} {
		heardOver := map[string][]string{}
		for _, transport := range []string{"stdio", "http"} {
			t.Run(transport+"/"+protocol, func(t *testing.T) {
				var heard notes
				cs := connect[transport](t, &heard, protocol)
				if v := cs.InitializeResult().ProtocolVersion; v != protocol {
					t.Fatalf("negotiated %s, want %s", v, protocol)
				}
				ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
				defer cancel()
				params := &mcp.CallToolParams{Name: "batch", Arguments: map[string]any{"tasks": tasks}}
				if protocol < "2026-07-28" {
					if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
						t.Fatal(err)
					}
				} else {
					params.Meta = mcp.Meta{mcp.MetaKeyLogLevel: "info"}
				}
				res, err := cs.CallTool(ctx, params)
				if err != nil || res.IsError {
					t.Fatalf("batch: %v %v", err, res)
				}
				// Over stdio the log goes out from a queue of its own, and
				// may follow the answer: wait, bounded, for every line.
				var got []string
				for deadline := time.Now().Add(hangLimit); ; time.Sleep(10 * time.Millisecond) {
					got = callLines(&heard)
					if len(got) >= len(want) || time.Now().After(deadline) {
						break
					}
				}
				heardOver[transport] = got
				if !slices.Equal(got, want) {
					t.Errorf("over %s (%s) the client heard\n%s\nwant\n%s", transport, protocol, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			})
		}
		if !slices.Equal(heardOver["stdio"], heardOver["http"]) {
			t.Errorf("%s: stdio heard %d lines, HTTP %d", protocol, len(heardOver["stdio"]), len(heardOver["http"]))
		}
	}
}

// callLines are the log lines a client heard of tool and category calls,
// as "msg tool", sorted.
func callLines(heard *notes) []string {
	heard.mu.Lock()
	defer heard.mu.Unlock()
	var out []string
	for _, l := range heard.logs {
		var rec struct{ Msg, Tool string }
		if json.Unmarshal([]byte(l), &rec) == nil && (rec.Msg == "tool call" || rec.Msg == "category call") {
			out = append(out, rec.Msg+" "+rec.Tool)
		}
	}
	slices.Sort(out)
	return out
}
