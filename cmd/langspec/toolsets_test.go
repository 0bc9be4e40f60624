package main

// End-to-end tests of toolsets (--toolsets, LANGSPEC_TOOLSETS) and of the
// protocol features a client can ask for: progress notifications, the log
// as notifications/message, and the protocol version negotiated. The real
// binary, started by the SDK's CommandTransport or driven over raw pipes.

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// specTools are the five tools of the spec toolset.
var specTools = []string{"build_learning_plan", "compare", "get_section", "list_languages", "list_versions", "search_spec", "spec_diff"}

// connectServe starts `langspec serve` with flags and extra environment
// (on top of serveCmd's, which names a vault and the fixture manuals) and
// connects a client made with opts; protocol "" lets the SDK pick.
func connectServe(t *testing.T, opts *mcp.ClientOptions, protocol string, env []string, flags ...string) (*mcp.ClientSession, *lockedBuffer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
	t.Cleanup(cancel)
	stderr := &lockedBuffer{}
	cmd := serveCmd(langspecBinary(t), seededDB(t), stderr)
	cmd.Args = append(cmd.Args, flags...)
	cmd.Env = append(cmd.Env, env...)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, opts).Connect(ctx, &mcp.CommandTransport{Command: cmd},
		&mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, stderr
}

func listedNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var names []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

func TestServeToolsets(t *testing.T) {
	vaultTools := []string{"artifact_audit", "vault_coverage", "vault_create", "vault_find", "vault_ls", "vault_read", "vault_replace", "vault_scan", "vault_search", "vault_write"}
	for _, tc := range []struct {
		name    string
		env     []string
		flags   []string
		want    []string
		wantLog string
	}{
		{name: "flag spec", flags: []string{"--toolsets", "spec"}, want: specTools, wantLog: "toolsets=spec "},
		{name: "env spec,vault", env: []string{"LANGSPEC_TOOLSETS=spec,vault"}, want: slices.Concat(specTools, vaultTools), wantLog: "toolsets=spec,vault "},
		{name: "flag wins over env", env: []string{"LANGSPEC_TOOLSETS=vault"}, flags: []string{"--toolsets", "spec"}, want: specTools},
		{name: "default: every folder is there", want: slices.Sorted(mapKeysOf(validCalls)), wantLog: "toolsets=spec,manual,vault,bridge "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs, stderr := connectServe(t, nil, "", tc.env, tc.flags...)
			want := slices.Sorted(slices.Values(tc.want))
			if got := listedNames(t, cs); !slices.Equal(got, want) {
				t.Errorf("tools %v\nwant %v", got, want)
			}
			if tc.wantLog != "" && !stderr.waitFor(tc.wantLog) {
				t.Errorf("start-up log does not name the toolsets (%q):\n%s", tc.wantLog, stderr)
			}
		})
	}
}

// A vault/ folder that happens to be where the server starts gives the
// model no writing tool: with one user-scope registration it would be any
// project's that has one. Named (VAULT_ROOT), it does.
func TestServeStrayVaultFolderWritesNothing(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "vault"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env   []string
		vault bool
	}{{nil, false}, {[]string{"VAULT_ROOT=" + filepath.Join(dir, "vault")}, true}} {
		stderr := &lockedBuffer{}
		cmd := exec.Command(langspecBinary(t), "--db", seededDB(t), "serve")
		cmd.Dir = dir
		cmd.Env = append([]string{"HOME=" + dir, "LANGSPEC_LOG=info"}, tc.env...)
		cmd.Stderr = stderr
		ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		cancel()
		if err != nil {
			t.Fatalf("connect: %v\n%s", err, stderr)
		}
		names := listedNames(t, cs)
		cs.Close()
		if writes := slices.Contains(names, "vault_write") || slices.Contains(names, "vault_create"); writes != tc.vault {
			t.Errorf("env %v: the model may write into the vault: %v, want %v (tools %v)", tc.env, writes, tc.vault, names)
		}
	}
}

// TestServeToolsetErrors: a name that is no toolset, and a toolset whose
// folder is missing, stop serve before it reads stdin, with exit code 2
// and what to do.
func TestServeToolsetErrors(t *testing.T) {
	bin := langspecBinary(t)
	dir := t.TempDir() // no vault/ and no manuals/ here
	for _, tc := range []struct {
		name  string
		env   []string
		flags []string
		want  []string
	}{
		{name: "unknown name", flags: []string{"--toolsets", "spec,vaults"},
			want: []string{`unknown toolset "vaults"`, "toolsets are spec, manual, vault, bridge or all", "Run 'langspec serve --help'"}},
		{name: "unknown name from env", env: []string{"LANGSPEC_TOOLSETS=meta"}, want: []string{`unknown toolset "meta"`}},
		{name: "vault not configured", flags: []string{"--toolsets", "spec,vault"},
			want: []string{"toolset vault: no vault is named", "pass --vault-root DIR (env VAULT_ROOT)"}},
		{name: "all without manuals", env: []string{"VAULT_ROOT=" + filepath.Join(dir, "v")}, flags: []string{"--toolsets", "all"},
			want: []string{"toolset manual: the manuals folder", "--manuals-root DIR (env MANUALS_ROOT)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, append([]string{"--db", filepath.Join(dir, "l.db"), "serve"}, tc.flags...)...)
			cmd.Dir = dir
			cmd.Env = append([]string{"HOME=" + dir}, tc.env...)
			out, err := cmd.CombinedOutput()
			if code := cmd.ProcessState.ExitCode(); code != 2 {
				t.Errorf("exit code %d (%v), want 2:\n%s", code, err, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

// TestServeToolsetsCategories: in categories mode, langspec's own
// categories are those of the toolsets on, and a tool of another family
// cannot be reached through call-category-tool either.
func TestServeToolsetsCategories(t *testing.T) {
	cs, _ := connectServe(t, nil, "", nil, "--tools", "categories", "--toolsets", "spec,manual")
	desc := ""
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Name == "get-category-tools" {
			desc = tool.Description
		}
	}
	for _, c := range []string{"spec", "manual", "vault", "bridge"} {
		on := c == "spec" || c == "manual"
		if got := strings.Contains(desc, "\n- "+c+":"); got != on {
			t.Errorf("category %s listed: %v, want %v:\n%s", c, got, on, desc)
		}
	}
	res := callE2E(t, cs, "call-category-tool", map[string]any{"category": "spec", "name": "list_languages", "args": map[string]any{}})
	if res.IsError {
		t.Errorf("spec tool: %s", textOf(res))
	}
	res = callE2E(t, cs, "call-category-tool", map[string]any{"category": "vault", "name": "vault_ls", "args": map[string]any{}})
	if !res.IsError || !strings.Contains(textOf(res), "vault") {
		t.Errorf("vault tool with the vault toolset off: %s", textOf(res))
	}
}

// TestServeBatchProgress: a batch call with a progress token hears one step
// per task, ending on the total, before its answer; without a token it
// hears nothing.
func TestServeBatchProgress(t *testing.T) {
	var mu sync.Mutex
	var got []*mcp.ProgressNotificationParams
	cs, _ := connectServe(t, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			got = append(got, r.Params)
			mu.Unlock()
		},
	}, "", nil, "--tools", "categories")
	tasks := strings.Join([]string{
		`{"id":"s","category":"spec","tool":"search_spec","params":{"query":"slices"}}`,
		`{"id":"l","category":"spec","tool":"list_languages","params":{}}`,
		`{"id":"r","category":"spec","tool":"get_section","params":{"language":"go","section_id":"${s.results[0].section_id}","max_chars":200},"after":"s","output":true}`,
	}, "\n")
	res := callE2E(t, cs, "batch", map[string]any{"tasks": tasks})
	if res.IsError {
		t.Fatalf("batch: %s", textOf(res))
	}
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	if len(got) != 0 {
		t.Errorf("progress without a token: %+v", got)
	}
	mu.Unlock()

	params := &mcp.CallToolParams{Name: "batch", Arguments: map[string]any{"tasks": tasks}}
	params.SetProgressToken("batch-1")
	if _, err := cs.CallTool(context.Background(), params); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(hangLimit)
	for {
		mu.Lock()
		n := len(got)
		final := n > 0 && got[n-1].Progress == 3
		mu.Unlock()
		if final {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no final progress notification: %+v", got)
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	for i, n := range got {
		if n.ProgressToken != "batch-1" || n.Total != 3 || (i > 0 && n.Progress <= got[i-1].Progress) {
			t.Errorf("notification %d: %+v", i, n)
		}
	}
}

// TestServeClientLogging: nothing reaches the client before it sets a
// level; then the log lines at or above it do, and stderr keeps them all.
func TestServeClientLogging(t *testing.T) {
	var mu sync.Mutex
	var got []*mcp.LoggingMessageParams
	// logging/setLevel exists up to protocol 2025-11-25, which is what
	// Claude Code, Claude Desktop and the Inspector speak.
	cs, stderr := connectServe(t, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			mu.Lock()
			got = append(got, r.Params)
			mu.Unlock()
		},
	}, "2025-11-25", nil, "--toolsets", "spec")
	if cs.InitializeResult().Capabilities.Logging == nil {
		t.Error("logging capability not declared")
	}
	callE2E(t, cs, "list_languages", map[string]any{})
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	if len(got) != 0 {
		t.Errorf("log sent before the client set a level: %+v", got)
	}
	mu.Unlock()
	if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	callE2E(t, cs, "search_spec", map[string]any{"query": "slices", "limit": 1})
	deadline := time.Now().Add(hangLimit)
	for {
		mu.Lock()
		found := slices.ContainsFunc(got, func(m *mcp.LoggingMessageParams) bool {
			b, _ := json.Marshal(m.Data)
			return m.Level == "info" && strings.Contains(string(b), `"tool":"search_spec"`)
		})
		mu.Unlock()
		if found {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no log message for the call: %+v", got)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// stderr reaches the test through another pipe than the notification,
	// and may come later.
	for n := 0; n != 2; n = strings.Count(stderr.String(), `msg="tool call"`) {
		if time.Now().After(deadline) {
			t.Fatalf("stderr has %d tool call lines, want 2:\n%s", n, stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestServeStdoutProtocolOnly drives the binary over raw pipes with the log
// mirrored at debug and a progress token on a call: every line on stdout is
// a JSON-RPC message, and the log messages are among them.
func TestServeStdoutProtocolOnly(t *testing.T) {
	s := startRaw(t, seededDB(t), func(c *exec.Cmd) { c.Args = append(c.Args, "--log-level", "debug") })
	s.initialize()
	s.send(`{"jsonrpc":"2.0","id":"lvl","method":"logging/setLevel","params":{"level":"debug"}}`)
	s.send(`{"jsonrpc":"2.0","id":"call","method":"tools/call","params":{"name":"manual_find","arguments":{"manual_id":"kasai-hoken","query":"解約"},"_meta":{"progressToken":7}}}`)
	answered, logged := map[string]bool{}, 0
	for !answered["call"] || !answered["lvl"] || logged == 0 {
		msg := s.next() // fails the test on a line that is not JSON-RPC
		if id, ok := msg["id"].(string); ok {
			answered[id] = true
		}
		if msg["method"] == "notifications/message" {
			logged++
			if b, _ := json.Marshal(msg); strings.Contains(string(b), "VAULT_ROOT=") {
				t.Errorf("environment in a log message: %s", b)
			}
		}
	}
	s.stdin.Close()
	if err := s.wait(); err != nil {
		t.Errorf("exit: %v\nstderr:\n%s", err, s.stderr)
	}
}

// TestServeProtocolVersion: a client of the same SDK negotiates the latest
// version it supports (server/discover), and one that starts with
// initialize at an older version gets that version.
// TestServeProtocolVersion: every released protocol version is offered on
// every transport — stdio, the stateful team server and a stateless
// replica — and the tools work under each.
func TestServeProtocolVersion(t *testing.T) {
	latest := mcp.SupportedProtocolVersions()[0]
	dbPath := seededDB(t)
	stateful := startTeamServer(t, dbPath, "--toolsets", "spec")
	replica := startTeamServer(t, dbPath, "--toolsets", "spec", "--read-only")
	for _, ask := range []string{"", "2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"} {
		want := ask
		if want == "" {
			want = latest
		}
		for transport, connect := range map[string]func() *mcp.ClientSession{
			"stdio": func() *mcp.ClientSession { cs, _ := connectServe(t, nil, ask, nil, "--toolsets", "spec"); return cs },
			"stateful HTTP": func() *mcp.ClientSession {
				cs, err := stateful.connectWith(t, "", nil, ask)
				if err != nil {
					t.Fatalf("stateful HTTP, %q: %v", ask, err)
				}
				return cs
			},
			"stateless HTTP": func() *mcp.ClientSession {
				cs, err := replica.connectWith(t, "", nil, ask)
				if err != nil {
					t.Fatalf("stateless HTTP, %q: %v", ask, err)
				}
				return cs
			},
		} {
			cs := connect()
			if got := cs.InitializeResult().ProtocolVersion; got != want {
				t.Errorf("%s, asked %q: negotiated %s, want %s", transport, ask, got, want)
			}
			if got := listedNames(t, cs); !slices.Equal(got, specTools) {
				t.Errorf("%s, asked %q: tools %v", transport, ask, got)
			}
			if text, isErr := callText(t, cs, "search_spec", map[string]any{"query": "defer", "limit": 1}); isErr {
				t.Errorf("%s, asked %q: search_spec: %s", transport, ask, text)
			}
		}
	}
}
