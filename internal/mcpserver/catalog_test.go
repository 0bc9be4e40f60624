package mcpserver

import (
	"context"
	"errors"
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

// fakeUpstream is an in-process MCP server standing in for an upstream: it
// counts the calls that reach it, so a test can prove a refused call never
// did.
type fakeUpstream struct {
	calls chan string
}

type echoIn struct {
	Message string `json:"message" jsonschema:"text to echo"`
}

type echoOut struct {
	Echo   string `json:"echo" jsonschema:"the text"`
	Length int    `json:"length" jsonschema:"its length"`
}

func (f *fakeUpstream) server() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "fake", Version: "1"}, nil)
	note := func(name string) {
		select {
		case f.calls <- name:
		default:
		}
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo a message."}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, echoOut, error) {
		note("echo")
		return nil, echoOut{Echo: in.Message, Length: len(in.Message)}, nil
	})
	s.AddTool(&mcp.Tool{Name: "image", Description: "A tiny image.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			note("image")
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: []byte{0x89, 'P', 'N', 'G'}, MIMEType: "image/png"}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "fail", Description: "Always fails.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			note("fail")
			r := &mcp.CallToolResult{}
			r.SetError(errors.New("the fake failed on purpose"))
			return r, nil
		})
	s.AddTool(&mcp.Tool{Name: "execute_shell_command", Description: "Dangerous.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			note("execute_shell_command")
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
		})
	return s
}

func no() *bool { f := false; return &f }

// demoCategories are the categories the tests serve: one over the fake,
// one over a server that never starts, and langspec's own defaults.
func demoCategories() map[string]catalog.Config {
	return map[string]catalog.Config{
		"demo": {Description: "the fake upstream's demo tools", Server: "fake", Tools: catalog.Selection{
			IncludeNames: []string{"echo", "image", "fail", "execute_shell_command", "ghost"},
			Overrides: map[string]catalog.Override{
				"execute_shell_command": {Enabled: no()},
				"echo":                  {Description: "Echo, overridden."},
			}}},
		"down": {Description: "tools of a server that never starts", Server: "broken", Tools: catalog.Selection{IncludePatterns: []string{"*"}}},
	}
}

type catalogEnv struct {
	cs      *mcp.ClientSession
	calls   chan string   // tools the fake upstream ran
	changed chan struct{} // notifications/tools/list_changed the client got
}

func newCatalogEnv(t *testing.T, mode string, mask catalog.Mask) *catalogEnv {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	d := tools.Deps{Store: toolstest.OpenDB(t), Logger: slog.New(slog.DiscardHandler)}
	fake := &fakeUpstream{calls: make(chan string, 64)}
	mgr := upstream.NewManager(upstream.Options{CallTimeout: 5 * time.Second, ConnectTimeout: 2 * time.Second})
	t.Cleanup(func() { mgr.Close() })
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(mgr.AddTransport("fake", "fake upstream", InProcess(fake.server())))
	must(mgr.AddTransport("broken", "never starts", func(context.Context) (mcp.Transport, error) {
		return nil, errors.New("exec: \"no-such-server\": executable file not found in $PATH")
	}))
	server, err := Build(ctx, d, Options{Mode: mode, Version: "test", Mask: mask, Categories: demoCategories(), Upstreams: mgr})
	must(err)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	must(err)
	changed := make(chan struct{}, 64)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	cs, err := client.Connect(ctx, ct, nil)
	must(err)
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return &catalogEnv{cs: cs, calls: fake.calls, changed: changed}
}

// waitFor lists the tools after each list_changed notification until ok
// accepts them; the server announces every change, so no polling is needed.
func (e *catalogEnv) waitFor(t *testing.T, what string, ok func([]*mcp.Tool) bool) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for !ok(e.tools(t)) {
		select {
		case <-e.changed:
		case <-timeout:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func (e *catalogEnv) tools(t *testing.T) []*mcp.Tool {
	t.Helper()
	var out []*mcp.Tool
	for tool, err := range e.cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tool)
	}
	return out
}

func TestCategoriesModeListsOnlyMetaTools(t *testing.T) {
	e := newCatalogEnv(t, ModeCategories, catalog.Mask{})
	var names []string
	var desc string
	for _, tool := range e.tools(t) {
		names = append(names, tool.Name)
		if tool.Name == tools.GetCategoryTools {
			desc = tool.Description
		}
	}
	slices.Sort(names)
	if want := []string{"batch", "call-category-tool", "get-category-tools"}; !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	for _, want := range []string{"- demo: the fake upstream's demo tools", "- spec: language specifications", "- down: tools of a server that never starts"} {
		if !strings.Contains(desc, want) {
			t.Errorf("description lacks %q:\n%s", want, desc)
		}
	}
}

func TestGetCategoryTools(t *testing.T) {
	e := newCatalogEnv(t, ModeCategories, catalog.Mask{})
	var out tools.GetCategoryToolsOut
	res := toolstest.Call(t, e.cs, tools.GetCategoryTools, map[string]any{"category": "demo"})
	toolstest.Remarshal(t, res.StructuredContent, &out)
	var names []string
	for n := range out.Tools {
		names = append(names, n)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"echo", "fail", "image"}) {
		t.Fatalf("tools %v", names)
	}
	if out.Tools["echo"].Description != "Echo, overridden." || out.Tools["echo"].InputSchema == nil {
		t.Errorf("echo %+v", out.Tools["echo"])
	}
	if out.Meta.SourceServer != "fake" || !slices.Contains(out.Meta.UnavailableTools, "execute_shell_command") || !slices.Contains(out.Meta.UnavailableTools, "ghost") {
		t.Errorf("meta %+v", out.Meta)
	}
	res = toolstest.Call(t, e.cs, tools.GetCategoryTools, map[string]any{"category": "spec", "toolNames": []string{"search_spec", "vault_read"}})
	var subset tools.GetCategoryToolsOut
	toolstest.Remarshal(t, res.StructuredContent, &subset)
	if len(subset.Tools) != 1 || subset.Tools["search_spec"].InputSchema == nil || !slices.Equal(subset.Meta.UnavailableTools, []string{"vault_read"}) {
		t.Errorf("spec subset: %d tools, meta %+v", len(subset.Tools), subset.Meta)
	}
}

func TestCallCategoryTool(t *testing.T) {
	e := newCatalogEnv(t, ModeCategories, catalog.Mask{Deny: []string{"demo/fail"}})
	res := toolstest.Call(t, e.cs, tools.CallCategoryTool, map[string]any{"category": "demo", "name": "echo", "args": map[string]any{"message": "hi"}})
	var got echoOut
	toolstest.Remarshal(t, res.StructuredContent, &got)
	if res.IsError || got.Echo != "hi" || got.Length != 2 {
		t.Fatalf("echo: %s %+v", toolstest.Text(res), res.StructuredContent)
	}
	res = toolstest.Call(t, e.cs, tools.CallCategoryTool, map[string]any{"category": "demo", "name": "image", "args": map[string]any{}})
	if img, ok := res.Content[0].(*mcp.ImageContent); res.IsError || !ok || img.MIMEType != "image/png" {
		t.Fatalf("image did not pass through: %+v", res.Content)
	}
	res = toolstest.Call(t, e.cs, tools.CallCategoryTool, map[string]any{"category": "spec", "name": "search_spec", "args": map[string]any{"query": "slice expressions", "limit": 1}})
	if res.IsError || !strings.Contains(toolstest.Text(res), "Slice_expressions") {
		t.Fatalf("built-in tool: %s", toolstest.Text(res))
	}
	<-e.calls // echo
	<-e.calls // image
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"disabled by override", map[string]any{"category": "demo", "name": "execute_shell_command", "args": map[string]any{}}, "tool_disabled"},
		{"hidden by the mask", map[string]any{"category": "demo", "name": "fail", "args": map[string]any{}}, "tool_disabled"},
		{"unknown category", map[string]any{"category": "nope", "name": "echo", "args": map[string]any{}}, "unknown_category"},
		{"not in the category", map[string]any{"category": "demo", "name": "list_dir", "args": map[string]any{}}, "unknown_tool"},
		{"configured, not listed", map[string]any{"category": "demo", "name": "ghost", "args": map[string]any{}}, "unknown_tool"},
		{"server never started", map[string]any{"category": "down", "name": "x", "args": map[string]any{}}, "upstream_unavailable"},
		{"bad arguments pass the upstream's own error", map[string]any{"category": "spec", "name": "search_spec", "args": map[string]any{"limit": 3}}, "query"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := toolstest.Call(t, e.cs, tools.CallCategoryTool, tt.args)
			if !res.IsError || !strings.Contains(toolstest.Text(res), tt.want) {
				t.Fatalf("got %s, want an error with %q", toolstest.Text(res), tt.want)
			}
		})
	}
	select {
	case name := <-e.calls:
		t.Fatalf("refused call reached the upstream: %s", name)
	default:
	}
}

func TestBatch(t *testing.T) {
	e := newCatalogEnv(t, ModeCategories, catalog.Mask{})
	tasks := strings.Join([]string{
		`{"id":"s","category":"spec","tool":"search_spec","params":{"query":"slice expressions","limit":1}}`,
		`{"id":"e","category":"demo","tool":"echo","params":{"message":"first: ${s.results[0].section_id}"},"after":"s","output":true}`,
		`{"id":"f","category":"demo","tool":"fail","params":{}}`,
		`{"id":"g","category":"demo","tool":"echo","params":{"message":"never"},"after":"f","output":true}`,
		`{"id":"r","category":"spec","tool":"get_section","params":{"language":"go","section_id":"${s.results[0].section_id}","max_chars":200},"after":["s"],"output":true}`,
	}, "\n")
	res := toolstest.Call(t, e.cs, tools.Batch, map[string]any{"tasks": tasks})
	var out tools.BatchOut
	toolstest.Remarshal(t, res.StructuredContent, &out)
	if res.IsError || out.Succeeded != 3 || out.Failed != 1 || out.Skipped != 1 {
		t.Fatalf("batch: %s", toolstest.Text(res))
	}
	byID := map[string]tools.BatchTaskResult{}
	for _, r := range out.Tasks {
		byID[r.ID] = r
	}
	if _, listed := byID["s"]; listed {
		t.Errorf("task s has no output:true but was returned")
	}
	if e := byID["e"].Result.(map[string]any)["echo"]; e != "first: Slice_expressions" {
		t.Errorf("reference not resolved: %v", byID["e"].Result)
	}
	if byID["f"].Status != "error" || byID["g"].Status != "skipped" || !strings.Contains(byID["g"].Error, `"f"`) {
		t.Errorf("failure propagation: %+v %+v", byID["f"], byID["g"])
	}
	for _, bad := range []struct{ tasks, want string }{
		{`{"id":"a","category":"demo","tool":"echo","after":"b"}` + "\n" + `{"id":"b","category":"demo","tool":"echo","after":"a"}`, "cycle"},
		{`{"id":"a","category":"nope","tool":"echo"}`, "unknown_category"},
	} {
		res := toolstest.Call(t, e.cs, tools.Batch, map[string]any{"tasks": bad.tasks})
		if !res.IsError || !strings.Contains(toolstest.Text(res), bad.want) {
			t.Errorf("batch %q: %s, want %q", bad.tasks, toolstest.Text(res), bad.want)
		}
	}
}

func TestUnavailableUpstreamIsMarked(t *testing.T) {
	e := newCatalogEnv(t, ModeCategories, catalog.Mask{})
	e.waitFor(t, "the down category marked unavailable", func(listed []*mcp.Tool) bool {
		return slices.ContainsFunc(listed, func(tool *mcp.Tool) bool {
			return tool.Name == tools.GetCategoryTools && strings.Contains(tool.Description, "- down: tools of a server that never starts [unavailable")
		})
	})
	res := toolstest.Call(t, e.cs, tools.GetCategoryTools, map[string]any{"category": "down"})
	if !res.IsError || !strings.Contains(toolstest.Text(res), "upstream_unavailable") {
		t.Fatalf("down: %s", toolstest.Text(res))
	}
}

func TestFlatModeAddsUpstreamTools(t *testing.T) {
	e := newCatalogEnv(t, ModeFlat, catalog.Mask{})
	has := func(tools []*mcp.Tool, name string) bool {
		return slices.ContainsFunc(tools, func(tool *mcp.Tool) bool { return tool.Name == name })
	}
	e.waitFor(t, "demo__echo", func(tools []*mcp.Tool) bool { return has(tools, "demo__echo") })
	listed := e.tools(t)
	if !has(listed, "search_spec") || has(listed, "demo__execute_shell_command") || has(listed, tools.GetCategoryTools) {
		t.Fatalf("flat tools: %d listed", len(listed))
	}
	res := toolstest.Call(t, e.cs, "demo__echo", map[string]any{"message": "flat"})
	if res.IsError || !strings.Contains(toolstest.Text(res), "flat") {
		t.Fatalf("demo__echo: %s", toolstest.Text(res))
	}
}
