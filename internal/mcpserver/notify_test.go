package mcpserver

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/progress"
	"github.com/langspec/langspec/internal/tools"
	"github.com/langspec/langspec/internal/tools/toolstest"
)

// TestCallProgressPaces: a burst of reports becomes a few notifications,
// each further on than the last, ending on the final count.
func TestCallProgressPaces(t *testing.T) {
	var mu sync.Mutex
	var got []*mcp.ProgressNotificationParams
	p := newCallProgress(context.Background(), 20*time.Millisecond, func(_ context.Context, n *mcp.ProgressNotificationParams) error {
		mu.Lock()
		got = append(got, n)
		mu.Unlock()
		return nil
	})
	p.Expect(1000)
	for i := range 1000 {
		p.Done(1, "unit")
		if i%250 == 0 {
			time.Sleep(25 * time.Millisecond)
		}
	}
	p.finish(time.Second)
	mu.Lock()
	defer mu.Unlock()
	if len(got) < 2 || len(got) > 20 {
		t.Fatalf("%d notifications for 1000 reports", len(got))
	}
	for i, n := range got {
		if i > 0 && n.Progress <= got[i-1].Progress {
			t.Errorf("notification %d: progress %v after %v", i, n.Progress, got[i-1].Progress)
		}
		if n.Total != 1000 {
			t.Errorf("notification %d: total %v", i, n.Total)
		}
	}
	if last := got[len(got)-1]; last.Progress != 1000 {
		t.Errorf("last progress %v, want 1000", last.Progress)
	}
}

// TestCallProgressNeverBlocks: a client that does not read holds up
// neither the reports nor, beyond the flush bound, the end of the call.
func TestCallProgressNeverBlocks(t *testing.T) {
	stuck := make(chan struct{})
	defer close(stuck)
	p := newCallProgress(context.Background(), time.Millisecond, func(context.Context, *mcp.ProgressNotificationParams) error {
		<-stuck
		return nil
	})
	start := time.Now()
	p.Expect(100000)
	for range 100000 {
		p.Done(1, "x")
	}
	p.finish(50 * time.Millisecond)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("reporting to a stuck client took %v", d)
	}
}

// notifyEnv is a flat server with the notifications Serve adds, and a
// client that records what it is sent.
type notifyEnv struct {
	cs       *mcp.ClientSession
	stderr   *toolstest.SyncBuffer
	mu       sync.Mutex
	logs     []*mcp.LoggingMessageParams
	progress []*mcp.ProgressNotificationParams
}

func (e *notifyEnv) logged() []*mcp.LoggingMessageParams {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]*mcp.LoggingMessageParams(nil), e.logs...)
}

func newNotifyEnv(t *testing.T, protocol string, extra func(*mcp.Server)) *notifyEnv {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	e := &notifyEnv{stderr: &toolstest.SyncBuffer{}}
	cl := NewClientLog()
	log := slog.New(slog.NewMultiHandler(slog.NewTextHandler(e.stderr, nil), cl.Handler()))
	s, err := Build(ctx, tools.Deps{Store: toolstest.OpenDB(t), Languages: []string{"go"}, Logger: log}, Options{Mode: ModeFlat, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if extra != nil {
		extra(s)
	}
	addNotifications(s, cl)
	go cl.run(ctx)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			e.mu.Lock()
			e.logs = append(e.logs, r.Params)
			e.mu.Unlock()
		},
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			e.mu.Lock()
			e.progress = append(e.progress, r.Params)
			e.mu.Unlock()
		},
	})
	e.cs, err = client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.cs.Close(); ss.Wait() })
	return e
}

// eventually waits for ok, bounded.
func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func TestClientLogSessionLevel(t *testing.T) {
	ctx := context.Background()
	e := newNotifyEnv(t, "2025-11-25", nil)
	if caps := e.cs.InitializeResult().Capabilities; caps.Logging == nil {
		t.Errorf("logging capability not declared: %+v", caps)
	}
	toolstest.Call(t, e.cs, "list_languages", map[string]any{})
	time.Sleep(50 * time.Millisecond) // what would have been sent has been
	if got := e.logged(); len(got) != 0 {
		t.Fatalf("sent before the client set a level: %+v", got)
	}
	if !strings.Contains(e.stderr.String(), `msg="tool call"`) {
		t.Fatalf("stderr lost the call's line:\n%s", e.stderr)
	}
	if err := e.cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	toolstest.Call(t, e.cs, "list_languages", map[string]any{})
	eventually(t, "the tool call's log line", func() bool { return len(e.logged()) > 0 })
	m := e.logged()[0]
	var data map[string]any
	b, _ := json.Marshal(m.Data)
	json.Unmarshal(b, &data)
	if m.Level != "info" || m.Logger != "langspec" || data["msg"] != "tool call" || data["tool"] != "list_languages" || data["level"] != nil {
		t.Errorf("message %+v data %v", m, data)
	}
	// Warnings only: the next ok call is not sent, an error result is.
	if err := e.cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "warning"}); err != nil {
		t.Fatal(err)
	}
	n := len(e.logged())
	toolstest.Call(t, e.cs, "list_languages", map[string]any{})
	toolstest.Call(t, e.cs, "get_section", map[string]any{"language": "go", "section_id": "No_such_section"})
	eventually(t, "the failed call's warning", func() bool { return len(e.logged()) > n })
	for _, m := range e.logged()[n:] {
		if m.Level != "warning" {
			t.Errorf("sent at level warning: %+v", m)
		}
	}
}

// TestClientLogRequestLevel: from protocol 2026-07-28 there is no
// logging/setLevel; a request carries its log level in _meta and hears the
// records logged in its own context.
func TestClientLogRequestLevel(t *testing.T) {
	ctx := context.Background()
	e := newNotifyEnv(t, "", nil)
	if v := e.cs.InitializeResult().ProtocolVersion; v != mcp.SupportedProtocolVersions()[0] {
		t.Fatalf("negotiated %s, want the SDK's latest %s", v, mcp.SupportedProtocolVersions()[0])
	}
	toolstest.Call(t, e.cs, "list_languages", map[string]any{})
	time.Sleep(50 * time.Millisecond)
	if got := e.logged(); len(got) != 0 {
		t.Fatalf("sent for a request without a log level: %+v", got)
	}
	_, err := e.cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_languages", Arguments: map[string]any{},
		Meta: mcp.Meta{mcp.MetaKeyLogLevel: "info"}})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the request's log line", func() bool { return len(e.logged()) > 0 })
}

func TestProgressMiddleware(t *testing.T) {
	ctx := context.Background()
	// A tool that reports five steps, standing in for batch.
	e := newNotifyEnv(t, "2025-11-25", func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "steps", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			p := progress.From(ctx)
			p.Expect(5)
			for i := range 5 {
				p.Done(1, "step "+string(rune('a'+i)))
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	})
	// Without a token: nothing.
	if _, err := e.cs.CallTool(ctx, &mcp.CallToolParams{Name: "steps"}); err != nil {
		t.Fatal(err)
	}
	p := &mcp.CallToolParams{Name: "steps"}
	p.SetProgressToken("tok")
	if _, err := e.cs.CallTool(ctx, p); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the final progress", func() bool {
		e.mu.Lock()
		defer e.mu.Unlock()
		return len(e.progress) > 0 && e.progress[len(e.progress)-1].Progress == 5
	})
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, n := range e.progress {
		if n.ProgressToken != "tok" || n.Total != 5 {
			t.Errorf("notification %+v", n)
		}
	}
}

// TestMetaOfNilParams: a notification sent without params reaches the
// middleware as a nil pointer in an interface; reading its _meta must not
// panic (it did, for every client that sends notifications/initialized
// bare).
func TestMetaOfNilParams(t *testing.T) {
	for _, req := range []mcp.Request{
		&mcp.InitializedRequest{},
		&mcp.CallToolRequest{},
		&mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Meta: mcp.Meta{"progressToken": "t"}}},
	} {
		_ = metaOf(req)
	}
	if got := metaOf(&mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Meta: mcp.Meta{"progressToken": "t"}}}); got["progressToken"] != "t" {
		t.Errorf("meta %v", got)
	}
}
