package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/catalog"
	"github.com/langspec/langspec/internal/tools"
	"github.com/langspec/langspec/internal/tools/toolstest"
)

// TestArgumentErrorKeepsResultType: an argument error is the SDK's result
// with our words, so a client of protocol 2026-07-28 gets the resultType
// it requires ("missing required resultType" made the TypeScript client
// 2.x throw, and the model never saw the hint); an older client gets none,
// as from the SDK.
func TestArgumentErrorKeepsResultType(t *testing.T) {
	for _, tc := range []struct {
		protocol string
		want     bool
	}{{"2026-07-28", true}, {"2025-11-25", false}} {
		t.Run(tc.protocol, func(t *testing.T) {
			e := newNotifyEnv(t, tc.protocol, nil)
			res, err := e.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_section", Arguments: map[string]any{"language": "go"}})
			if err != nil {
				t.Fatal(err)
			}
			wire, _ := json.Marshal(res)
			if got := strings.Contains(string(wire), `"resultType":"complete"`); got != tc.want || !res.IsError ||
				!strings.Contains(string(wire), `missing required argument \"section_id\"; hint: arguments: language (required), section_id (required)`) {
				t.Errorf("%s: resultType complete %v (want %v): %s", tc.protocol, got, tc.want, wire)
			}
		})
	}
}

// TestProtocolErrorsInWords: logging/setLevel with an unknown level, a
// list with a cursor this server never gave, and a second initialize.
func TestProtocolErrorsInWords(t *testing.T) {
	e := newNotifyEnv(t, "2025-11-25", nil)
	ctx := context.Background()
	err := e.cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "loud"})
	if code, msg := wireError(err); code != jsonrpc.CodeInvalidParams || !strings.Contains(msg, `unknown log level "loud"; use one of debug, info, notice, warning, error, critical, alert or emergency`) {
		t.Errorf("setLevel loud: %v", err)
	}
	_, err = e.cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: "page-2"})
	if code, msg := wireError(err); code != jsonrpc.CodeInvalidParams || !strings.Contains(msg, `cursor "page-2" is not one this server gave`) {
		t.Errorf("tools/list with a bad cursor: %v", err)
	}
	// The level set before stays: nothing is sent below warning.
	if err := e.cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "warning"}); err != nil {
		t.Fatal(err)
	}

	r := newRawSession(t, NewFlat(&tools.Deps{Store: toolstest.OpenDB(t), Languages: []string{"go"}}, "test", catalog.Mask{}))
	r.send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if got := r.next(); !strings.Contains(got, `"code":-32600`) || !strings.Contains(got, `duplicate \"initialize\" received`) {
		t.Errorf("second initialize: %s", got)
	}
}

// wireError is err's JSON-RPC code and message, as the client got them.
func wireError(err error) (int64, string) {
	if e, ok := errors.AsType[*jsonrpc.Error](err); ok {
		return e.Code, e.Message
	}
	return 0, ""
}

// TestInProcessCallsLogForTheirCaller: in categories mode langspec's own
// tools run in a server of their own; what a batch's tasks log there
// reaches the client whose request ran the batch, under that request's
// level, on a team server's scoped log (each client hears its own
// requests only) as on stdio.
func TestInProcessCallsLogForTheirCaller(t *testing.T) {
	for _, scoped := range []bool{false, true} {
		name := map[bool]string{false: "stdio", true: "scoped"}[scoped]
		for _, protocol := range []string{"2025-11-25", "2026-07-28"} {
			t.Run(name+"/"+protocol, func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				t.Cleanup(cancel)
				cl := NewClientLog()
				if scoped {
					cl = NewScopedClientLog()
				}
				log := slog.New(slog.NewMultiHandler(slog.NewTextHandler(&toolstest.SyncBuffer{}, nil), cl.Handler()))
				d := tools.Deps{Store: toolstest.OpenDB(t), Languages: []string{"go"}, Logger: log}
				mgr := newManager(log, "test")
				t.Cleanup(func() { mgr.Close() })
				s, err := Build(ctx, d, Options{Mode: ModeCategories, Version: "test", Upstreams: mgr})
				if err != nil {
					t.Fatal(err)
				}
				addNotifications(s, cl)
				go cl.run(ctx)
				var heard logLines
				cs := connectLogged(t, s, protocol, &heard)
				params := &mcp.CallToolParams{Name: "batch", Arguments: map[string]any{"tasks": `{"id":"a","category":"spec","tool":"list_languages","params":{}}` + "\n" +
					`{"id":"b","category":"spec","tool":"list_versions","params":{"language":"go"}}`}}
				if protocol < "2026-07-28" {
					if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
						t.Fatal(err)
					}
				} else {
					params.Meta = mcp.Meta{mcp.MetaKeyLogLevel: "info"}
				}
				if res, err := cs.CallTool(ctx, params); err != nil || res.IsError {
					t.Fatalf("batch: %v %v", err, res)
				}
				want := []string{"category call list_languages", "category call list_versions", "tool call batch", "tool call list_languages", "tool call list_versions"}
				eventually(t, "every line of the batch", func() bool { return len(heard.calls()) >= len(want) })
				if got := heard.calls(); !slices.Equal(got, want) {
					t.Errorf("heard %v, want %v", got, want)
				}
			})
		}
	}
}

// logLines collects the log lines a client hears.
type logLines struct {
	mu    sync.Mutex
	lines []map[string]any
}

// calls are the lines of tool and category calls, as "msg tool", sorted.
func (l *logLines) calls() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, m := range l.lines {
		if msg, _ := m["msg"].(string); msg == "tool call" || msg == "category call" {
			out = append(out, msg+" "+m["tool"].(string))
		}
	}
	slices.Sort(out)
	return out
}

// connectLogged connects a client speaking protocol to s over the SDK's
// in-memory transport, collecting the log lines it hears into heard.
func connectLogged(t *testing.T, s *mcp.Server, protocol string, heard *logLines) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			var m map[string]any
			b, _ := json.Marshal(r.Params.Data)
			json.Unmarshal(b, &m)
			heard.mu.Lock()
			heard.lines = append(heard.lines, m)
			heard.mu.Unlock()
		},
	})
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}
