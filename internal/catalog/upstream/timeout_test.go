package upstream

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/apperr"
)

// wedgeable is an in-process fake upstream that its tool "wedge" wedges:
// from then on the session answers nothing, ping included, as a server
// stuck in a loop would, until the test ends; a new session works.
// cancelled receives when the wedge call's context ends, which is the
// notifications/cancelled the SDK sends for a call that timed out.
func wedgeable(t *testing.T) (srv *mcp.Server, cancelled <-chan struct{}) {
	srv = newFakeServer(nil)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) }) // before the Manager's Close, registered earlier
	cancel := make(chan struct{}, 1)
	var mu sync.Mutex
	wedged := map[mcp.Session]bool{}
	srv.AddTool(&mcp.Tool{Name: "wedge", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			mu.Lock()
			wedged[req.GetSession()] = true
			mu.Unlock()
			select {
			case <-ctx.Done():
				cancel <- struct{}{}
			case <-release:
			}
			return &mcp.CallToolResult{}, nil
		})
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			mu.Lock()
			stuck := wedged[req.GetSession()]
			mu.Unlock()
			if stuck && !strings.HasPrefix(method, "notifications/") {
				<-release
			}
			return next(ctx, method, req)
		}
	})
	return srv, cancel
}

// TestTimeoutDropsUnresponsiveServer: after a call times out, a server
// that does not answer a ping either is stopped and the next call gets a
// fresh one; a server that was only slow keeps its session. Issue 13: a
// wedged upstream used to make every later call time out too.
func TestTimeoutDropsUnresponsiveServer(t *testing.T) {
	tests := []struct {
		name        string
		add         func(t *testing.T, m *Manager) (cancelled <-chan struct{})
		tool        string
		args        map[string]any
		wantDropped bool
	}{
		{
			name: "in process, ping hangs",
			add: func(t *testing.T, m *Manager) <-chan struct{} {
				srv, cancelled := wedgeable(t)
				if err := m.AddTransport("fake", "wedges", inMemory(srv)); err != nil {
					t.Fatal(err)
				}
				return cancelled
			},
			tool:        "wedge",
			wantDropped: true,
		},
		{
			name: "child stops reading stdin",
			add: func(t *testing.T, m *Manager) <-chan struct{} {
				if err := m.Add("fake", fakeStdio("wedge")); err != nil {
					t.Fatal(err)
				}
				return nil
			},
			tool:        "wedge",
			wantDropped: true,
		},
		{
			name: "child only slow",
			add: func(t *testing.T, m *Manager) <-chan struct{} {
				if err := m.Add("fake", fakeStdio("serve")); err != nil {
					t.Fatal(err)
				}
				return nil
			},
			tool: "sleep",
			args: map[string]any{"ms": 10000},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := newTestManager(t, Options{CallTimeout: 300 * time.Millisecond})
			cancelled := tt.add(t, m)
			before := echo(t, m, "fake", "before")

			start := time.Now()
			_, err := m.Call(context.Background(), "fake", tt.tool, tt.args)
			if apperr.CodeOf(err) != apperr.UpstreamCallError {
				t.Fatalf("err = %v, want upstream_call_error", err)
			}
			mustContain(t, "error", err.Error(), "did not answer within 300ms")
			// CallTimeout, then a ping bounded by it as well.
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("the call failed after %v", d)
			}
			if cancelled != nil {
				select {
				case <-cancelled:
				case <-time.After(5 * time.Second):
					t.Error("the server never saw notifications/cancelled for the timed-out call")
				}
			}

			after := echo(t, m, "fake", "after") // timed out too, before the fix
			st := m.Status()[0]
			if !tt.wantDropped {
				if st.Reconnects != 0 || after.PID != before.PID {
					t.Errorf("a slow server was restarted: %+v, pid %d then %d", st, before.PID, after.PID)
				}
				return
			}
			mustContain(t, "error", err.Error(), "nor a ping within 300ms", "next call restarts")
			if st.Reconnects != 1 || st.State != StateReady {
				t.Errorf("Status = %+v, want ready after 1 reconnect", st)
			}
			if tt.name == "child stops reading stdin" {
				if after.PID == before.PID {
					t.Errorf("still pid %d", after.PID)
				}
				eventually(t, 5*time.Second, "the wedged child is killed", func() bool { return !alive(before.PID) })
			}
		})
	}
}
