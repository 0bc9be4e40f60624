package upstream

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/apperr"
)

// policyServer is an upstream over streamable HTTP on httptest with
// tools that count their calls: lookup (read-only), write (neither
// read-only nor idempotent), flaky (read-only; fails its first two calls
// with a protocol error) and flakyWrite (the same, not safe to repeat).
type policyServer struct {
	url                                  string
	lookups, writes, flakies, flakyWrite atomic.Int32
}

func newPolicyServer(t *testing.T) *policyServer {
	t.Helper()
	ps := &policyServer{}
	srv := mcp.NewServer(&mcp.Implementation{Name: "policy", Version: "1"}, nil)
	schema := map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}, "n": map[string]any{"type": "integer", "minimum": 1}},
		"required": []any{"q"}, "additionalProperties": false}
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	srv.AddTool(&mcp.Tool{Name: "lookup", InputSchema: schema, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ps.lookups.Add(1)
			return text("found"), nil
		})
	srv.AddTool(&mcp.Tool{Name: "write", InputSchema: schema},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ps.writes.Add(1)
			return text("written"), nil
		})
	flaky := func(n *atomic.Int32) mcp.ToolHandler {
		return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if n.Add(1) <= 2 {
				return nil, errors.New("temporarily broken")
			}
			return text("ok at last"), nil
		}
	}
	srv.AddTool(&mcp.Tool{Name: "flaky", InputSchema: schema, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, flaky(&ps.flakies))
	srv.AddTool(&mcp.Tool{Name: "flakyWrite", InputSchema: schema}, flaky(&ps.flakyWrite))
	h := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(h.Close)
	ps.url = h.URL
	return ps
}

func TestCallPolicies(t *testing.T) {
	ps := newPolicyServer(t)
	clock := newFakeClock()
	m, _ := newTestManager(t, Options{Now: clock.Now})
	err := m.Add("up", ServerConfig{Description: "policies", Type: TypeHTTP, URL: ps.url,
		Retry: &RetryPolicy{Attempts: 3, InitialDelayMs: 1, MaxDelayMs: 2},
		Cache: &CachePolicy{TTLSeconds: 60, MaxEntries: 2}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	call := func(tool string, args map[string]any) (string, error) {
		t.Helper()
		res, err := m.Call(ctx, "up", tool, args)
		if err != nil {
			return "", err
		}
		return res.Content[0].(*mcp.TextContent).Text, nil
	}

	t.Run("arguments checked against the input schema", func(t *testing.T) {
		for _, args := range []map[string]any{{}, {"q": 3}, {"q": "x", "n": 0}, {"q": "x", "extra": true}} {
			_, err := call("lookup", args)
			if apperr.CodeOf(err) != apperr.InvalidArgument || !strings.Contains(err.Error(), `arguments of "lookup"`) {
				t.Errorf("%v: %v, want invalid_argument naming the tool", args, err)
			}
		}
		if ps.lookups.Load() != 0 {
			t.Errorf("the server got %d bad calls", ps.lookups.Load())
		}
		_, err := call("lookup", map[string]any{})
		if !strings.Contains(err.Error(), "q") {
			t.Errorf("a missing argument is not named: %v", err)
		}
	})

	t.Run("results of a read-only tool cached by arguments", func(t *testing.T) {
		before := ps.lookups.Load()
		for range 3 {
			if got, err := call("lookup", map[string]any{"q": "a", "n": 1}); err != nil || got != "found" {
				t.Fatalf("lookup: %q, %v", got, err)
			}
		}
		// The same arguments in another order are the same key.
		call("lookup", map[string]any{"n": 1, "q": "a"})
		if n := ps.lookups.Load() - before; n != 1 {
			t.Errorf("four equal calls reached the server %d times, want 1", n)
		}
		call("lookup", map[string]any{"q": "b"})
		if n := ps.lookups.Load() - before; n != 2 {
			t.Errorf("other arguments: %d calls, want 2", n)
		}
		clock.Add(61 * time.Second) // past the TTL
		call("lookup", map[string]any{"q": "a", "n": 1})
		if n := ps.lookups.Load() - before; n != 3 {
			t.Errorf("after the TTL: %d calls, want 3", n)
		}
		// Two entries at most: a, b, then c evicts the least recently used.
		call("lookup", map[string]any{"q": "c"})
		call("lookup", map[string]any{"q": "b"})
		if n := ps.lookups.Load() - before; n != 5 {
			t.Errorf("LRU of 2: %d calls, want 5 (b was evicted by c)", n)
		}
		// A tool that is not read-only or idempotent is never cached.
		call("write", map[string]any{"q": "a"})
		call("write", map[string]any{"q": "a"})
		if ps.writes.Load() != 2 {
			t.Errorf("write reached the server %d times, want 2", ps.writes.Load())
		}
	})

	t.Run("a read-only tool tried again, a writing one not", func(t *testing.T) {
		if got, err := call("flaky", map[string]any{"q": "x"}); err != nil || got != "ok at last" {
			t.Errorf("flaky with 3 attempts: %q, %v", got, err)
		}
		if n := ps.flakies.Load(); n != 3 {
			t.Errorf("flaky was called %d times, want 3", n)
		}
		if _, err := call("flakyWrite", map[string]any{"q": "x"}); apperr.CodeOf(err) != apperr.UpstreamCallError {
			t.Errorf("flakyWrite: %v, want upstream_call_error", err)
		}
		if n := ps.flakyWrite.Load(); n != 1 {
			t.Errorf("a call that may have reached the server was sent %d times, want once", n)
		}
	})
}

func TestPolicyValidation(t *testing.T) {
	for _, tc := range []struct {
		cfg  ServerConfig
		want string
	}{
		{ServerConfig{Retry: &RetryPolicy{Attempts: 11}}, "retry.attempts"},
		{ServerConfig{Retry: &RetryPolicy{Multiplier: 0.5}}, "retry.multiplier"},
		{ServerConfig{Retry: &RetryPolicy{RetryOn: []string{"tool_error"}}}, "retry.retryOn[0]"},
		{ServerConfig{Cache: &CachePolicy{}}, "cache.ttlSeconds"},
		{ServerConfig{Cache: &CachePolicy{TTLSeconds: 10, MaxEntries: -1}}, "cache.maxEntries"},
	} {
		tc.cfg.Description, tc.cfg.Command = "x", "x"
		err := tc.cfg.Validate("s")
		if apperr.CodeOf(err) != apperr.InvalidArgument || !strings.Contains(err.Error(), "mcpServers.s."+tc.want) {
			t.Errorf("%+v: %v, want invalid_argument naming %s", tc.cfg, err, tc.want)
		}
	}
}
