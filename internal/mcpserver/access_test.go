package mcpserver

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/catalog"
	"github.com/langspec/langspec/internal/tools"
	"github.com/langspec/langspec/internal/tools/toolstest"
)

// TestMaskCoversEveryMethod walks every MCP method a client can send with a
// masked subject, in both modes: what it can read besides calling tools
// must follow from the tools its mask leaves it (accessFor), never from the
// toolsets alone. The attacker's path was a token limited to search_spec
// and get_section reading manual files and vault notes as resources.
func TestMaskCoversEveryMethod(t *testing.T) {
	d := fullDeps(t)
	if _, err := d.Vault.Create("notes/secret.md", []byte("the vault text\n")); err != nil {
		t.Fatal(err)
	}
	const manualURI = "langspec://manuals/ops-en/runbooks/db/failover.md"
	const vaultURI = "langspec://vault/notes/secret.md"
	const sectionURI = "langspec://go/spec/sections/Slice_expressions"
	only := func(names ...string) catalog.Mask {
		m := catalog.Mask{}
		for _, n := range names {
			m.Allow = append(m.Allow, "*/"+n)
		}
		return m
	}
	for _, tc := range []struct {
		name string
		mask catalog.Mask
		// What the client may reach.
		specText, specDiff, manualText, vaultText bool
		prompts                                   []string
	}{
		{name: "no mask", mask: catalog.Mask{}, specText: true, specDiff: true, manualText: true, vaultText: true,
			prompts: []string{"collect-from-manuals", "compare-languages", "explain-rule", "learning-plan", "what-changed"}},
		// get_section grants the sections, not what spec_diff answers.
		{name: "search_spec and get_section", mask: only("search_spec", "get_section"), specText: true, prompts: []string{"explain-rule"}},
		{name: "spec_diff and get_section", mask: only("spec_diff", "get_section"), specText: true, specDiff: true, prompts: []string{"what-changed"}},
		{name: "compare and get_section", mask: only("compare", "get_section"), specText: true, prompts: []string{"compare-languages"}},
		{name: "search_spec only", mask: only("search_spec")},
		{name: "manuals without manual_read", mask: only("manual_find", "manual_hits", "manual_list", "manual_ls")},
		{name: "manual_read", mask: only("manual_read"), manualText: true},
		{name: "vault denied", mask: catalog.Mask{Deny: []string{"vault/*"}}, specText: true, specDiff: true, manualText: true,
			prompts: []string{"collect-from-manuals", "compare-languages", "explain-rule", "learning-plan", "what-changed"}},
	} {
		for _, mode := range []string{ModeFlat, ModeCategories} {
			t.Run(mode+" "+tc.name, func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				s, err := Build(ctx, d, Options{Mode: mode, Version: "test", Mask: tc.mask})
				if err != nil {
					t.Fatal(err)
				}
				cs := toolstest.Connect(t, s)

				// resources/templates/list
				tmpls, err := cs.ListResourceTemplates(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				var names []string
				for _, tm := range tmpls.ResourceTemplates {
					names = append(names, tm.Name)
				}
				for name, want := range map[string]bool{"section": tc.specText, "diff": tc.specDiff, "manual-file": tc.manualText, "vault-note": tc.vaultText} {
					if slices.Contains(names, name) != want {
						t.Errorf("template %s listed: %v, want %v (templates %v)", name, !want, want, names)
					}
				}
				// resources/list
				res, err := cs.ListResources(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				if (len(res.Resources) > 0) != tc.specText {
					t.Errorf("resources/list has %d documents, want them only with get_section", len(res.Resources))
				}
				// resources/read
				for uri, want := range map[string]bool{sectionURI: tc.specText, manualURI: tc.manualText, vaultURI: tc.vaultText} {
					r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
					if got := err == nil && len(r.Contents) > 0 && r.Contents[0].Text != ""; got != want {
						t.Errorf("read %s: got text %v (err %v), want %v", uri, got, err, want)
					}
				}
				// The diff template answers what spec_diff answers: only one
				// stored version here, so a granted read fails on the
				// versions, a refused one on the grant.
				_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "langspec://go/spec/diff/go1.25/go1.26"})
				if refused := err != nil && strings.Contains(err.Error(), "what spec_diff answers"); refused == tc.specDiff {
					t.Errorf("read the diff template: %v, want it refused only without spec_diff", err)
				}
				// completion/complete
				complete := func(ref *mcp.CompleteReference, arg, value string, ctxArgs map[string]string) []string {
					p := &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}}
					if ctxArgs != nil {
						p.Context = &mcp.CompleteContext{Arguments: ctxArgs}
					}
					r, err := cs.Complete(ctx, p)
					if err != nil {
						t.Fatalf("complete %s: %v", arg, err)
					}
					return r.Completion.Values
				}
				manualRef := &mcp.CompleteReference{Type: "ref/resource", URI: "langspec://manuals/{manual_id}/{+path}"}
				if got := complete(manualRef, "manual_id", "ops", nil); (len(got) > 0) != tc.manualText {
					t.Errorf("manual_id completions %v, want some only with manual_read", got)
				}
				if got := complete(manualRef, "path", "", map[string]string{"manual_id": "ops-en"}); (len(got) > 0) != tc.manualText {
					t.Errorf("manual path completions %v, want some only with manual_read", got)
				}
				vaultRef := &mcp.CompleteReference{Type: "ref/resource", URI: "langspec://vault/{+path}"}
				if got := complete(vaultRef, "path", "no", nil); (len(got) > 0) != tc.vaultText {
					t.Errorf("vault path completions %v, want some only with vault_read", got)
				}
				promptRef := &mcp.CompleteReference{Type: "ref/prompt", Name: "collect-from-manuals"}
				if got := complete(promptRef, "manual_id", "ops", nil); (len(got) > 0) != tc.manualText {
					t.Errorf("collect-from-manuals manual_id completions %v", got)
				}
				sectionRef := &mcp.CompleteReference{Type: "ref/resource", URI: "langspec://{language}/{doc}/sections/{section_id}"}
				if got := complete(sectionRef, "language", "g", nil); (len(got) > 0) != tc.specText {
					t.Errorf("language completions %v, want some only with get_section", got)
				}
				// prompts/list and prompts/get
				pl, err := cs.ListPrompts(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				var prompts []string
				for _, p := range pl.Prompts {
					prompts = append(prompts, p.Name)
				}
				slices.Sort(prompts)
				if !slices.Equal(prompts, tc.prompts) {
					t.Errorf("prompts %v, want %v", prompts, tc.prompts)
				}
				_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "collect-from-manuals", Arguments: map[string]string{"topic": "backup"}})
				if (err == nil) != slices.Contains(tc.prompts, "collect-from-manuals") {
					t.Errorf("prompts/get collect-from-manuals: err %v", err)
				}
				// tools/list (flat) or the categories' tools.
				if mode == ModeFlat {
					tl, err := cs.ListTools(ctx, nil)
					if err != nil {
						t.Fatal(err)
					}
					for _, tool := range tl.Tools {
						if !tc.mask.Visible(catalog.BuiltinServer, categoryOf(tool.Name), tool.Name) {
							t.Errorf("tool %s listed against the mask", tool.Name)
						}
					}
				}
			})
		}
	}
}

// categoryOf is the family of one of langspec's tools.
func categoryOf(name string) string {
	for _, t := range tools.Inventory() {
		if t.Def.Name == name {
			return t.Category
		}
	}
	return strings.Split(name, "__")[0]
}
