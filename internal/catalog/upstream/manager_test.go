package upstream

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/apperr"
)

// listCounter counts tools/list requests a fake server receives.
func listCounter(srv *mcp.Server) *atomic.Int32 {
	var n atomic.Int32
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				n.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	return &n
}

func toolNames(tools []*mcp.Tool) []string {
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	slices.Sort(names)
	return names
}

func TestToolsCache(t *testing.T) {
	clock := newFakeClock()
	changed := make(chan string, 10)
	m, _ := newTestManager(t, Options{Now: clock.Now, SchemaTTL: time.Minute, OnToolsChanged: func(s string) { changed <- s }})
	// A page size of 2 makes the listing take three pages.
	srv := newFakeServer(&mcp.ServerOptions{PageSize: 2})
	lists := listCounter(srv)
	if err := m.AddTransport("fake", "a fake server", inMemory(srv)); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	first, err := m.ToolList(ctx, "fake")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"crash", "echo", "rich", "sleep", "spawn"}
	if got := toolNames(first.Tools); !slices.Equal(got, want) {
		t.Fatalf("tools = %v, want %v", got, want)
	}
	listsAfterFirst := lists.Load() // three pages, maybe twice: the ready line lists too, unless it finds the cache

	t.Run("hit within TTL", func(t *testing.T) {
		clock.Add(30 * time.Second)
		again, err := m.ToolList(ctx, "fake")
		if err != nil {
			t.Fatal(err)
		}
		if again != first || lists.Load() != listsAfterFirst {
			t.Errorf("listed again within the TTL: %d requests, want %d; same list: %v", lists.Load(), listsAfterFirst, again == first)
		}
	})
	t.Run("refresh after TTL keeps identity", func(t *testing.T) {
		clock.Add(31 * time.Second)
		again, err := m.ToolList(ctx, "fake")
		if err != nil {
			t.Fatal(err)
		}
		if lists.Load() != listsAfterFirst+3 {
			t.Errorf("tools/list requests = %d, want %d", lists.Load(), listsAfterFirst+3)
		}
		if again != first {
			t.Errorf("an unchanged listing got a new ToolList: key %s, was %s", again.Key, first.Key)
		}
	})
	t.Run("list_changed invalidates", func(t *testing.T) {
		srv.AddTool(&mcp.Tool{Name: "added", InputSchema: &jsonschema.Schema{Type: "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
		select {
		case s := <-changed:
			if s != "fake" {
				t.Errorf("OnToolsChanged(%q), want fake", s)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no notifications/tools/list_changed")
		}
		again, err := m.ToolList(ctx, "fake")
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(toolNames(again.Tools), "added") {
			t.Errorf("tools = %v, want the added tool", toolNames(again.Tools))
		}
		if again.Key == first.Key {
			t.Errorf("key %s unchanged after a tool was added", again.Key)
		}
	})
	if st := m.Status(); len(st) != 1 || st[0].Tools != 6 || st[0].State != StateReady {
		t.Errorf("Status() = %+v, want fake ready with 6 tools", st)
	}
}

func TestSchemaNormalisation(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "fake", Version: "1"}, nil)
	nop := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}
	props := map[string]any{"q": map[string]any{"type": "string"}}
	for _, name := range []string{"notype", "noschema", "stringtype", "ok"} {
		srv.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object", "properties": props}}, nop)
	}
	// Server.AddTool insists on "type":"object", as clients do; rewrite
	// the listing on its way out to play a server that does not.
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if lr, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				out := *lr
				out.Tools = nil
				for _, tool := range lr.Tools {
					tt := *tool
					switch tt.Name {
					case "notype":
						tt.InputSchema = map[string]any{"properties": props}
					case "noschema":
						tt.InputSchema = nil
					case "stringtype":
						tt.InputSchema = map[string]any{"type": "string"}
					}
					out.Tools = append(out.Tools, &tt)
				}
				return &out, nil
			}
			return res, err
		}
	})
	m, _ := newTestManager(t, Options{})
	if err := m.AddTransport("fake", "a fake server", inMemory(srv)); err != nil {
		t.Fatal(err)
	}
	tools, err := m.Tools(context.Background(), "fake")
	if err != nil {
		t.Fatal(err)
	}
	withProps := map[string]any{"type": "object", "properties": props}
	want := map[string]any{
		"notype":     withProps,
		"noschema":   map[string]any{"type": "object"},
		"stringtype": map[string]any{"type": "object"},
		"ok":         withProps,
	}
	for _, tool := range tools {
		if !reflect.DeepEqual(tool.InputSchema, want[tool.Name]) {
			t.Errorf("%s: InputSchema = %#v, want %#v", tool.Name, tool.InputSchema, want[tool.Name])
		}
	}
	if len(tools) != len(want) {
		t.Errorf("got %d tools, want %d", len(tools), len(want))
	}
}

func TestToolsRejected(t *testing.T) {
	srv := newFakeServer(nil)
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "index not built"}
			}
			return next(ctx, method, req)
		}
	})
	m, _ := newTestManager(t, Options{})
	_ = m.AddTransport("fake", "a fake server", inMemory(srv))
	_, err := m.Tools(context.Background(), "fake")
	if apperr.CodeOf(err) != apperr.SchemaFetchError {
		t.Fatalf("err = %v, want schema_fetch_error", err)
	}
	mustContain(t, "error", err.Error(), `server "fake" rejected tools/list: index not built`)
	// Calls still go through: the category layer may call a tool whose
	// schema it could not load.
	if _, err := m.Call(context.Background(), "fake", "echo", map[string]any{"text": "x"}); err != nil {
		t.Fatal(err)
	}
}

func TestNormalizeSchema(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want any
	}{
		{"nil", nil, map[string]any{"type": "object"}},
		{"object kept", map[string]any{"type": "object", "required": []any{"a"}}, map[string]any{"type": "object", "required": []any{"a"}}},
		{"missing type", map[string]any{"properties": map[string]any{}}, map[string]any{"type": "object", "properties": map[string]any{}}},
		{"boolean schema", true, map[string]any{"type": "object"}},
		{"typed schema", &jsonschema.Schema{Description: "d"}, map[string]any{"type": "object", "description": "d"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := normalizeSchema(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("normalizeSchema(%#v) = %#v, want %#v", tt.in, got, tt.want)
			}
		})
	}
	in := map[string]any{"properties": map[string]any{}}
	normalizeSchema(in)
	if _, ok := in["type"]; ok {
		t.Error("normalizeSchema changed its argument")
	}
}

func TestCallPassthrough(t *testing.T) {
	m, logs := newTestManager(t, Options{})
	if err := m.AddTransport("fake", "a fake server", inMemory(newFakeServer(nil))); err != nil {
		t.Fatal(err)
	}
	res, err := m.Call(context.Background(), "fake", "rich", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError {
		t.Error("IsError = false, want true")
	}
	if len(res.Content) != 2 {
		t.Fatalf("content = %#v, want text and image", res.Content)
	}
	if img, ok := res.Content[1].(*mcp.ImageContent); !ok || string(img.Data) != "\x89PNG" || img.MIMEType != "image/png" {
		t.Errorf("content[1] = %#v, want the PNG image", res.Content[1])
	}
	if want := map[string]any{"width": 1.0, "tags": []any{"x"}}; !reflect.DeepEqual(res.StructuredContent, want) {
		t.Errorf("structuredContent = %#v, want %#v", res.StructuredContent, want)
	}
	mustContain(t, "logs", logs.String(), `msg="upstream call" server=fake tool=rich`, "outcome=tool_error")

	// The server's own refusal is an upstream_call_error naming it.
	_, err = m.Call(context.Background(), "fake", "nosuchtool", map[string]any{})
	if apperr.CodeOf(err) != apperr.UpstreamCallError {
		t.Fatalf("unknown tool: err = %v, want upstream_call_error", err)
	}
	mustContain(t, "error", err.Error(), `server "fake" rejected the call of "nosuchtool"`)

	if _, err := m.Call(context.Background(), "nope", "echo", nil); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("unknown server: err = %v, want not_found", err)
	}
	if got := m.Description("fake"); got != "a fake server" {
		t.Errorf("Description = %q", got)
	}
}

// TestBackoff drives a server that fails to connect with the fake clock:
// each failure doubles the wait, calls while waiting fail fast without an
// attempt, and a success resets everything.
func TestBackoff(t *testing.T) {
	clock := newFakeClock()
	m, logs := newTestManager(t, Options{Now: clock.Now})
	var attempts atomic.Int32
	var healthy atomic.Bool
	srv := newFakeServer(nil)
	err := m.AddTransport("flaky", "fails until healthy", func(ctx context.Context) (mcp.Transport, error) {
		attempts.Add(1)
		if !healthy.Load() {
			return nil, errors.New("boom")
		}
		return inMemory(srv)(ctx)
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	steps := []struct {
		advance      time.Duration
		healthy      bool
		wantAttempts int32
		wantErr      string // substring; "" for success
	}{
		{0, false, 1, `server "flaky" could not start: boom`},
		{0, false, 1, "next attempt in 500ms"},
		{499 * time.Millisecond, false, 1, "next attempt in 1ms"},
		{time.Millisecond, false, 2, "could not start: boom"},
		{0, false, 2, "next attempt in 1s"},
		{time.Second, false, 3, "could not start"},
		{0, false, 3, "next attempt in 2s"},
		{2 * time.Second, true, 4, ""},
	}
	for i, st := range steps {
		clock.Add(st.advance)
		healthy.Store(st.healthy)
		_, err := m.Call(ctx, "flaky", "echo", map[string]any{"text": "hi"})
		if st.wantErr == "" {
			if err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
		} else {
			if apperr.CodeOf(err) != apperr.UpstreamUnavailable {
				t.Fatalf("step %d: err = %v, want upstream_unavailable", i, err)
			}
			mustContain(t, "error", err.Error(), st.wantErr)
		}
		if got := attempts.Load(); got != st.wantAttempts {
			t.Fatalf("step %d: %d attempts, want %d", i, got, st.wantAttempts)
		}
	}
	st := m.Status()[0]
	if st.State != StateReady || st.LastError != "" || !st.NextAttempt.IsZero() {
		t.Errorf("Status = %+v, want ready and clean", st)
	}
	mustContain(t, "logs", logs.String(), "upstream unavailable", "retry_in=1s")
}

func TestBackoffSteps(t *testing.T) {
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second}
	for i, w := range want {
		if got := backoff(i + 1); got != w {
			t.Errorf("backoff(%d) = %v, want %v", i+1, got, w)
		}
	}
	if got := backoff(1000); got != backoffMax {
		t.Errorf("backoff(1000) = %v", got)
	}
}

// TestStartDoesNotBlock: one upstream that never answers leaves Start
// returning at once and the others working; it fails after ConnectTimeout.
func TestStartDoesNotBlock(t *testing.T) {
	m, _ := newTestManager(t, Options{ConnectTimeout: 200 * time.Millisecond})
	hung := make(chan struct{})
	t.Cleanup(func() { close(hung) })
	_ = m.AddTransport("hangs", "never connects", func(ctx context.Context) (mcp.Transport, error) {
		<-hung
		return nil, errors.New("unreachable")
	})
	_ = m.AddTransport("fine", "works", inMemory(newFakeServer(nil)))

	done := make(chan struct{})
	go func() { m.Start(context.Background()); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Second):
		t.Fatal("Start blocked")
	}
	if _, err := m.Call(context.Background(), "fine", "echo", map[string]any{"text": "x"}); err != nil {
		t.Fatalf("fine: %v", err)
	}
	start := time.Now()
	_, err := m.Call(context.Background(), "hangs", "echo", nil)
	if apperr.CodeOf(err) != apperr.UpstreamUnavailable {
		t.Fatalf("hangs: err = %v, want upstream_unavailable", err)
	}
	mustContain(t, "error", err.Error(), "did not start within 200ms")
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the failing call took %v", d)
	}
	byName := map[string]ServerStatus{}
	for _, st := range m.Status() {
		byName[st.Name] = st
	}
	if byName["hangs"].State != StateUnavailable || byName["fine"].State != StateReady {
		t.Errorf("Status = %+v", m.Status())
	}
}

func TestCallerCancels(t *testing.T) {
	m, _ := newTestManager(t, Options{})
	_ = m.AddTransport("fake", "a fake server", inMemory(newFakeServer(nil)))
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := m.Call(ctx, "fake", "sleep", map[string]any{"ms": 10000})
	if apperr.CodeOf(err) != apperr.UpstreamCallError {
		t.Fatalf("err = %v, want upstream_call_error", err)
	}
	mustContain(t, "error", err.Error(), "stopped")
}

func TestClosedManager(t *testing.T) {
	m := NewManager(Options{})
	_ = m.AddTransport("fake", "a fake server", inMemory(newFakeServer(nil)))
	if _, err := m.Tools(context.Background(), "fake"); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Call(context.Background(), "fake", "echo", nil); apperr.CodeOf(err) != apperr.UpstreamUnavailable {
		t.Errorf("after Close: err = %v, want upstream_unavailable", err)
	}
	if err := m.AddTransport("late", "x", inMemory(newFakeServer(nil))); apperr.CodeOf(err) != apperr.InvalidArgument {
		t.Errorf("Add after Close: err = %v", err)
	}
	if err := m.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
