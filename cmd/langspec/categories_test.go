package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/catalog/upstream/upstreamtest"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// everythingCommand is how to start the reference upstream server
// (upstreamtest.Everything: the CI's copy, the cached one, or one installed
// now unless LANGSPEC_OFFLINE is set).
func everythingCommand(t testing.TB) (string, []string) {
	t.Helper()
	return upstreamtest.Everything(t)
}

// writeCategoriesConfig writes a langspec.json with server-everything as an
// upstream and one category over some of its tools.
func writeCategoriesConfig(t *testing.T, command string, args []string) string {
	t.Helper()
	cfg := map[string]any{
		"mcpServers": map[string]any{"everything": map[string]any{
			"description": "MCP reference server", "command": command, "args": args,
			"env": map[string]any{"LANGSPEC_TEST_MARK": "${LANGSPEC_TEST_MARK}"},
		}},
		"categories": map[string]any{"demo": map[string]any{
			"description": "the reference server's demo tools", "server": "everything",
			"tools": map[string]any{
				"includeNames": []string{"echo", "get-sum", "get-tiny-image", "get-structured-content", "get-env"},
				"overrides":    map[string]any{"get-env": map[string]any{"enabled": false}, "get-sum": map[string]any{"description": "Add a and b."}},
			},
		}},
		"toolMask": map[string]any{"deny": []string{"*/execute_shell_command"}},
	}
	b, _ := json.Marshal(cfg)
	p := filepath.Join(t.TempDir(), "langspec.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// serveWith starts the built binary with a config and extra flags and
// connects the SDK client to it.
func serveWith(t *testing.T, configPath string, flags ...string) (*mcp.ClientSession, *lockedBuffer) {
	t.Helper()
	bin := langspecBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*hangLimit)
	t.Cleanup(cancel)
	dbPath := filepath.Join(t.TempDir(), "l.db")
	stderr := &lockedBuffer{}
	cmd := serveCmd(bin, dbPath, stderr)
	cmd.Args = append(cmd.Args, flags...)
	cmd.Env = append(cmd.Env, "PATH="+os.Getenv("PATH"), "LANGSPEC_TEST_MARK=from-the-test")
	if configPath != "" {
		cmd.Env = append(cmd.Env, "LANGSPEC_CONFIG="+configPath)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, stderr
}

func callE2E(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func textOf(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// TestCategoriesWithServerEverything runs langspec with the real reference
// server as an upstream, through the real binary and the SDK client:
// categories mode end to end (the meta tools listed in place of every tool,
// a category's tools loaded with their schemas when asked for, then called).
func TestCategoriesWithServerEverything(t *testing.T) {
	command, args := everythingCommand(t)
	cs, stderr := serveWith(t, writeCategoriesConfig(t, command, args))
	ctx := context.Background()

	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range lt.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"batch", "call-category-tool", "get-category-tools"}) {
		t.Fatalf("categories mode lists %v", names)
	}
	for _, tool := range lt.Tools {
		if tool.Name == "get-category-tools" && (!strings.Contains(tool.Description, "- demo: the reference server's demo tools") || !strings.Contains(tool.Description, "- spec:")) {
			t.Errorf("category list missing from the description:\n%s", tool.Description)
		}
	}

	res := callE2E(t, cs, "get-category-tools", map[string]any{"category": "demo"})
	var got struct {
		Tools map[string]struct {
			Description string         `json:"description"`
			InputSchema map[string]any `json:"inputSchema"`
		} `json:"tools"`
		Meta struct {
			SourceServer     string   `json:"sourceServer"`
			UnavailableTools []string `json:"unavailableTools"`
		} `json:"meta"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &got); err != nil || res.IsError {
		t.Fatalf("get-category-tools: %s\nstderr:\n%s", textOf(res), stderr)
	}
	if len(got.Tools) != 4 || got.Tools["get-sum"].Description != "Add a and b." || got.Tools["echo"].InputSchema["type"] != "object" {
		t.Errorf("demo tools: %s", b)
	}
	if _, listed := got.Tools["get-env"]; listed || got.Meta.SourceServer != "everything" || !slices.Contains(got.Meta.UnavailableTools, "get-env") {
		t.Errorf("disabled get-env listed, or meta wrong: %s", b)
	}

	res = callE2E(t, cs, "call-category-tool", map[string]any{"category": "demo", "name": "echo", "args": map[string]any{"message": "hi there"}})
	if res.IsError || !strings.Contains(textOf(res), "hi there") {
		t.Errorf("echo: %s", textOf(res))
	}
	res = callE2E(t, cs, "call-category-tool", map[string]any{"category": "demo", "name": "get-tiny-image", "args": map[string]any{}})
	if !slices.ContainsFunc(res.Content, func(c mcp.Content) bool { _, ok := c.(*mcp.ImageContent); return ok }) {
		t.Errorf("image did not pass through: %+v", res.Content)
	}
	res = callE2E(t, cs, "call-category-tool", map[string]any{"category": "demo", "name": "get-structured-content", "args": map[string]any{"location": "Chicago"}})
	if res.IsError || res.StructuredContent == nil {
		t.Errorf("structured content did not pass through: %s", textOf(res))
	}
	for _, bad := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"category": "demo", "name": "get-env", "args": map[string]any{}}, "tool_disabled"},
		{map[string]any{"category": "nope", "name": "echo", "args": map[string]any{}}, "unknown_category"},
		{map[string]any{"category": "demo", "name": "toggle-simulated-logging", "args": map[string]any{}}, "unknown_tool"},
	} {
		res := callE2E(t, cs, "call-category-tool", bad.args)
		if !res.IsError || !strings.Contains(textOf(res), bad.want) {
			t.Errorf("%v: %s, want %s", bad.args, textOf(res), bad.want)
		}
	}

	tasks := `{"id":"sum","category":"demo","tool":"get-sum","params":{"a":2,"b":3}}
{"id":"spec","category":"spec","tool":"search_spec","params":{"query":"slice expressions","limit":1}}
{"id":"echo","category":"demo","tool":"echo","params":{"message":"section ${spec.results[0].section_id}"},"after":["sum","spec"],"output":true}`
	res = callE2E(t, cs, "batch", map[string]any{"tasks": tasks})
	if res.IsError || !strings.Contains(textOf(res), "section Slice_expressions") || strings.Contains(textOf(res), `"id":"sum"`) {
		t.Errorf("batch: %s", textOf(res))
	}
	log := stderr.String()
	for _, want := range []string{`msg="category ready" category=demo server=everything tools=4 disabled=1`, `msg="category call" category=demo tool=echo`,
		"[everything] Starting default (STDIO) server"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
}

// TestToolsListContextSize measures what tools/list costs a model in each
// mode: bytes of the listing and ceil(bytes/4) tokens.
func TestToolsListContextSize(t *testing.T) {
	command, args := everythingCommand(t)
	ctx := context.Background()
	size := func(cs *mcp.ClientSession) int {
		lt, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(lt)
		return len(b)
	}
	flatAlone, _ := serveWith(t, "", "--tools", "flat")
	catAlone, _ := serveWith(t, "", "--tools", "categories")
	cfg := writeCategoriesConfig(t, command, args)
	catBoth, _ := serveWith(t, cfg)
	// Without langspec's categories a user registers both servers in the
	// client: the listings add up.
	direct, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx,
		&mcp.CommandTransport{Command: exec.Command(command, args...)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	rows := []struct {
		name       string
		flat, cats int
	}{
		{"langspec alone", size(flatAlone), size(catAlone)},
		{"langspec + server-everything", size(flatAlone) + size(direct), size(catBoth)},
	}
	for _, r := range rows {
		saved := 1 - float64(r.cats)/float64(r.flat)
		t.Logf("%-30s flat %6d bytes (%5d tokens)  categories %5d bytes (%4d tokens)  %.1f%% smaller",
			r.name, r.flat, (r.flat+3)/4, r.cats, (r.cats+3)/4, saved*100)
		if saved < 0.85 {
			t.Errorf("%s: categories mode is only %.1f%% smaller, want at least 85%%", r.name, saved*100)
		}
	}
}

// SIGTERM with a call in flight to an upstream that would take a minute:
// langspec ends the call and exits at once, and the upstream with it.
func TestCategoriesShutdownMidCall(t *testing.T) {
	command, args := everythingCommand(t)
	cfg := map[string]any{
		"mcpServers": map[string]any{"everything": map[string]any{"description": "MCP reference server", "command": command, "args": args}},
		"categories": map[string]any{"slow": map[string]any{"description": "a long operation", "server": "everything",
			"tools": map[string]any{"includeNames": []string{"trigger-long-running-operation", "get-sum"}}}},
	}
	b, _ := json.Marshal(cfg)
	configPath := filepath.Join(t.TempDir(), "langspec.json")
	if err := os.WriteFile(configPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	s := startRaw(t, seededDB(t), func(c *exec.Cmd) {
		c.Env = append(c.Env, "PATH="+os.Getenv("PATH"), "LANGSPEC_CONFIG="+configPath)
	})
	s.initialize()
	// A quick call first: the upstream is running once it is answered.
	// Starting Node on a busy machine can take longer than a message is
	// otherwise given, and this is no timing.
	s.send(toolCall("sum", "call-category-tool", map[string]any{"category": "slow", "name": "get-sum", "args": map[string]any{"a": 1, "b": 2}}))
	for {
		msg := s.nextWithin(6 * hangLimit) // notifications (tools/list_changed) may come first
		if msg["id"] == nil {
			continue
		}
		if msg["id"] != "sum" || msg["error"] != nil {
			t.Fatalf("get-sum: %v", msg)
		}
		break
	}
	s.send(toolCall("long", "call-category-tool", map[string]any{"category": "slow", "name": "trigger-long-running-operation",
		"args": map[string]any{"duration": 60, "steps": 60}}))
	// The answer to a later ping shows the long call was read and is running.
	s.send(`{"jsonrpc":"2.0","id":"ping","method":"ping"}`)
	for {
		msg := s.next()
		if msg["id"] == "ping" {
			break
		}
	}
	start := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := s.wait(); err != nil {
		t.Errorf("exit: %v\nstderr:\n%s", err, s.stderr)
	}
	// Generous against a busy machine; before the fix it took the call's
	// whole timeout (60 s), which s.wait's own bound would report.
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("SIGTERM mid-call took %v", took)
	}
}
