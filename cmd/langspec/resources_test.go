package main

// End-to-end tests of the resources, templates, completions and prompts of
// `langspec serve`, over the SDK's CommandTransport as a client such as
// Claude Desktop or VS Code would start it.

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// promptArgs are good arguments of every prompt. A prompt added without an
// entry here fails TestServeResourcesAndPrompts.
var promptArgs = map[string]map[string]string{
	"explain-rule":         {"language": "go", "topic": "slice expressions"},
	"learning-plan":        {"language": "go", "weeks": "2", "focus": "Types"},
	"collect-from-manuals": {"topic": "解約の手続き", "manual_id": "kasai-hoken"},
	"compare-languages":    {"concept": "integer overflow", "languages": "go"},
	"what-changed":         {"language": "go", "topic": "implicit blocks"},
}

func TestServeResourcesAndPrompts(t *testing.T) {
	for _, mode := range []string{"flat", "categories"} {
		t.Run(mode, func(t *testing.T) { testResourcesAndPrompts(t, mode) })
	}
}

func testResourcesAndPrompts(t *testing.T, mode string) {
	bin := langspecBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
	defer cancel()
	dbPath := seededDB(t)
	// A note in the vault, and a file beside it that no vault URI may reach.
	vaultDir := filepath.Join(filepath.Dir(dbPath), "vault")
	if err := os.MkdirAll(filepath.Join(vaultDir, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vaultDir, "notes", "plan.md"), []byte("# Plan\nread the spec\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stderr := &lockedBuffer{}
	cmd := serveCmd(bin, dbPath, stderr)
	cmd.Args = append(cmd.Args, "--tools", mode)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr)
	}
	defer cs.Close()
	caps := cs.InitializeResult().Capabilities
	if caps.Resources == nil || caps.Prompts == nil || caps.Completions == nil {
		t.Fatalf("capabilities %+v: want resources, prompts and completions", caps)
	}

	var uris []string
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		uris = append(uris, r.URI)
	}
	if !slices.Equal(uris, []string{"langspec://go/spec"}) {
		t.Errorf("resources %v, want the one document", uris)
	}
	var templates []string
	for rt, err := range cs.ResourceTemplates(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		templates = append(templates, rt.URITemplate)
	}
	for _, want := range []string{"langspec://{language}/{doc}/sections/{section_id}", "langspec://manuals/{manual_id}/{+path}", "langspec://vault/{+path}"} {
		if !slices.Contains(templates, want) {
			t.Errorf("templates %v lack %s", templates, want)
		}
	}

	reads := map[string]string{ // URI -> text it must hold
		"langspec://go/spec":                                "`Slice_expressions`",
		"langspec://go/spec/sections/Slice_expressions":     "Cite: https://go.dev/ref/spec#Slice_expressions",
		"langspec://manuals/ops-en/runbooks/db/failover.md": "#",
		"langspec://manuals/insurance-ja/約款/普通保険約款.md":      "支払",
		"langspec://vault/notes/plan.md":                    "read the spec",
	}
	for uri, want := range reads {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Errorf("read %s: %v", uri, err)
			continue
		}
		if len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, want) {
			t.Errorf("read %s: %+v, want text holding %q", uri, res.Contents, want)
		}
	}
	for uri, want := range map[string]string{
		"langspec://vault/../langspec.db":                  "path_outside_vault",
		"langspec://vault/%2e%2e/langspec.db":              "path_outside_vault",
		"langspec://manuals/ops-en/../../../etc/passwd.md": "path_outside_manuals",
		"langspec://go/spec/sections/Slice_expresions":     "nearest ids: Slice_expressions",
	} {
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("read %s: %v, want an error holding %q", uri, err, want)
		}
	}

	done, err := cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "langspec://{language}/{doc}/sections/{section_id}"},
		Argument: mcp.CompleteParamsArgument{Name: "section_id", Value: "Slice"},
		Context:  &mcp.CompleteContext{Arguments: map[string]string{"language": "go", "doc": "spec"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if v := done.Completion.Values; !slices.Contains(v, "Slice_expressions") || len(v) > 20 {
		t.Errorf("completions of Slice: %v", v)
	}

	var names []string
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, p.Name)
		args, ok := promptArgs[p.Name]
		if !ok {
			t.Errorf("prompt %s has no end-to-end call; add one to promptArgs", p.Name)
			continue
		}
		res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: p.Name, Arguments: args})
		if err != nil {
			t.Errorf("prompt %s: %v", p.Name, err)
			continue
		}
		text := res.Messages[0].Content.(*mcp.TextContent).Text
		if mode == "categories" && !strings.Contains(text, "call-category-tool") {
			t.Errorf("prompt %s in categories mode does not say how to reach the tools:\n%s", p.Name, text)
		}
	}
	if want := slices.Sorted(mapKeysOf(promptArgs)); !slices.Equal(slices.Sorted(slices.Values(names)), want) {
		t.Errorf("prompts %v, want %v", names, want)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "explain-rule", Arguments: map[string]string{"topic": "maps"}}); err == nil ||
		!strings.Contains(err.Error(), "missing argument language") {
		t.Errorf("explain-rule without language: %v", err)
	}
}
