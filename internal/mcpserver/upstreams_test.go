package mcpserver

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/catalog"
	"github.com/langspec/langspec/internal/catalog/upstream"
	"github.com/langspec/langspec/internal/tools"
	"github.com/langspec/langspec/internal/tools/toolstest"
)

// TestShutdownEndsUpstreamCalls: when the server's context ends (SIGTERM)
// with a call-category-tool waiting on an upstream that never answers,
// the server stops at once instead of after the upstream's CallTimeout.
// Issue 13: SIGTERM took 64 s with a call in flight.
func TestShutdownEndsUpstreamCalls(t *testing.T) {
	started := make(chan struct{}, 1)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	hung := mcp.NewServer(&mcp.Implementation{Name: "hung", Version: "1"}, nil)
	hung.AddTool(&mcp.Tool{Name: "hang", Description: "Never answers.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			started <- struct{}{}
			<-release // deaf to cancellation too
			return &mcp.CallToolResult{}, nil
		})
	mgr := upstream.NewManager(upstream.Options{}) // the default CallTimeout of a minute
	t.Cleanup(func() { mgr.Close() })
	if err := mgr.AddTransport("hung", "never answers", InProcess(hung)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	d := tools.Deps{Store: toolstest.OpenDB(t), Logger: slog.New(slog.DiscardHandler)}
	cats := map[string]catalog.Config{"slow": {Description: "a hung upstream", Server: "hung", Tools: catalog.Selection{IncludeNames: []string{"hang"}}}}
	server, err := Build(ctx, d, Options{Mode: ModeCategories, Version: "test", Categories: cats, Upstreams: mgr})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ran := make(chan error, 1)
	go func() { ran <- server.Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	called := make(chan struct{})
	go func() {
		defer close(called)
		_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tools.CallCategoryTool,
			Arguments: map[string]any{"category": "slow", "name": "hang", "args": map[string]any{}}})
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the call never reached the upstream")
	}

	start := time.Now()
	cancel() // what SIGTERM does to serve's context
	select {
	case <-ran:
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not stop")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the server took %v to stop, want under 2s", d)
	}
	select {
	case <-called:
	case <-time.After(5 * time.Second):
		t.Error("the client's call never returned")
	}
}

// TestUnconfiguredUpstreamIsMarked: an upstream whose ${VAR} is not set
// does not keep the server from starting; its category is marked
// unavailable and calls say which variable is missing.
func TestUnconfiguredUpstreamIsMarked(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	mgr := upstream.NewManager(upstream.Options{Getenv: func(string) string { return "" }})
	t.Cleanup(func() { mgr.Close() })
	err := mgr.Add("gh", upstream.ServerConfig{Description: "GitHub", Type: upstream.TypeHTTP, URL: "https://api.example.com/mcp",
		Headers: map[string]string{"Authorization": "Bearer ${GH_TOKEN}"}})
	if err != nil {
		t.Fatal(err)
	}
	cats := map[string]catalog.Config{"github": {Description: "issues and pull requests", Server: "gh", Tools: catalog.Selection{IncludePatterns: []string{"*"}}}}
	d := tools.Deps{Store: toolstest.OpenDB(t), Logger: slog.New(slog.DiscardHandler)}
	server, err := Build(ctx, d, Options{Mode: ModeCategories, Version: "test", Categories: cats, Upstreams: mgr})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	changed := make(chan struct{}, 64)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	}).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	e := &catalogEnv{cs: cs, changed: changed}
	e.waitFor(t, "the github category marked unavailable", func(listed []*mcp.Tool) bool {
		return slices.ContainsFunc(listed, func(tool *mcp.Tool) bool {
			return tool.Name == tools.GetCategoryTools && strings.Contains(tool.Description, "- github: issues and pull requests [unavailable")
		})
	})
	res := toolstest.Call(t, cs, tools.CallCategoryTool, map[string]any{"category": "github", "name": "list_issues", "args": map[string]any{}})
	if text := toolstest.Text(res); !res.IsError || !strings.Contains(text, "upstream_unavailable") || !strings.Contains(text, "GH_TOKEN is not set") {
		t.Errorf("call-category-tool = %s", text)
	}
	// langspec's own tools are served all the same.
	res = toolstest.Call(t, cs, tools.CallCategoryTool, map[string]any{"category": "spec", "name": "search_spec", "args": map[string]any{"query": "slice expressions", "limit": 1}})
	if res.IsError {
		t.Errorf("search_spec: %s", toolstest.Text(res))
	}
}
