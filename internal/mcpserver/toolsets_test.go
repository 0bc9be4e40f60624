package mcpserver

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/tools"
	"github.com/langspec/langspec/internal/tools/toolstest"
)

func TestParseToolsets(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    []string
		wantErr string
	}{
		{in: "", want: nil},
		{in: " , ", want: nil},
		{in: "spec", want: []string{"spec"}},
		{in: "vault,spec", want: []string{"spec", "vault"}},
		{in: " Manual , SPEC,manual", want: []string{"spec", "manual"}},
		{in: "all", want: []string{"spec", "manual", "vault", "bridge"}},
		{in: "spec,all", want: []string{"spec", "manual", "vault", "bridge"}},
		{in: "spec,meta", wantErr: `unknown toolset "meta"; hint: toolsets are spec, manual, vault, bridge or all`},
		{in: "specs", wantErr: `unknown toolset "specs"`},
	} {
		got, err := ParseToolsets(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || apperr.CodeOf(err) != apperr.InvalidArgument {
				t.Errorf("ParseToolsets(%q) error %v, want invalid_argument containing %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("ParseToolsets(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// fullDeps can serve every family.
func fullDeps(t *testing.T) tools.Deps {
	store, lib := toolstest.OpenDB(t), toolstest.OpenManuals(t)
	return tools.Deps{Store: store, Vault: toolstest.OpenVault(t), Manuals: lib, Finder: toolstest.Finder(store, lib),
		Languages: []string{"go"}, Logger: slog.New(slog.DiscardHandler)}
}

func TestBuildToolsets(t *testing.T) {
	d := fullDeps(t)
	for _, tc := range []struct {
		name     string
		mode     string
		sets     []string
		wantCats []string // categories mode: langspec's own categories
		want     []string // flat mode: the tools listed
	}{
		{name: "flat spec", mode: ModeFlat, sets: []string{"spec"},
			want: []string{"build_learning_plan", "compare", "get_section", "list_languages", "list_versions", "search_spec", "spec_diff"}},
		{name: "flat vault", mode: ModeFlat, sets: []string{"vault"}},
		{name: "categories spec", mode: ModeCategories, sets: []string{"spec"}, wantCats: []string{"spec"}},
		{name: "categories manual and bridge", mode: ModeCategories, sets: []string{"manual", "bridge"}, wantCats: []string{"bridge", "manual"}},
		{name: "categories all", mode: ModeCategories, wantCats: []string{"bridge", "manual", "spec", "vault"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			cs := connectToolsets(t, d, tc.mode, tc.sets)
			res, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range res.Tools {
				names = append(names, tool.Name)
			}
			slices.Sort(names)
			if tc.mode == ModeCategories {
				desc := ""
				for _, tool := range res.Tools {
					if tool.Name == tools.GetCategoryTools {
						desc = tool.Description
					}
				}
				for _, c := range []string{"spec", "manual", "vault", "bridge"} {
					listed := strings.Contains(desc, "\n- "+c+":")
					if listed != slices.Contains(tc.wantCats, c) {
						t.Errorf("category %s listed %v in %q, want categories %v", c, listed, desc, tc.wantCats)
					}
				}
				return
			}
			want := tc.want
			if want == nil {
				for _, tool := range tools.Available(&d) {
					if slices.Contains(tc.sets, tool.Category) {
						want = append(want, tool.Def.Name)
					}
				}
				slices.Sort(want)
			}
			if !slices.Equal(names, want) {
				t.Errorf("tools %v, want %v", names, want)
			}
		})
	}
}

// TestToolsetsLimitResources checks that the resource templates follow the
// toolsets too: --toolsets spec offers no manual file or vault note, in
// either mode, although the server has both folders.
func TestToolsetsLimitResources(t *testing.T) {
	d := fullDeps(t)
	for _, tc := range []struct {
		mode string
		sets []string
		want []string // template names besides the spec ones
	}{
		{ModeFlat, []string{"spec"}, nil},
		{ModeCategories, []string{"spec"}, nil},
		{ModeFlat, []string{"spec", "manual"}, []string{"manual-file"}},
		{ModeFlat, nil, []string{"manual-file", "vault-note"}},
	} {
		t.Run(tc.mode+" "+strings.Join(tc.sets, ","), func(t *testing.T) {
			ctx := context.Background()
			cs := connectToolsets(t, d, tc.mode, tc.sets)
			res, err := cs.ListResourceTemplates(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tmpl := range res.ResourceTemplates {
				if tmpl.Name == "manual-file" || tmpl.Name == "vault-note" {
					got = append(got, tmpl.Name)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("templates %v, want %v", got, tc.want)
			}
		})
	}
}

func TestBuildRejectsUnknownToolset(t *testing.T) {
	_, err := Build(context.Background(), tools.Deps{}, Options{Mode: ModeFlat, Toolsets: []string{"spec", "meta"}})
	if apperr.CodeOf(err) != apperr.InvalidArgument || !strings.Contains(err.Error(), `"meta"`) {
		t.Errorf("err %v", err)
	}
}

// The builtin categories follow the toolsets: a category over a family
// that is off is not langspec's to offer.
func TestInToolsets(t *testing.T) {
	d := fullDeps(t)
	cats := tools.BuiltinCategories(inToolsets(tools.Available(&d), []string{"spec", "vault"}))
	if got := slices.Sorted(maps.Keys(cats)); !slices.Equal(got, []string{"spec", "vault"}) {
		t.Errorf("categories %v", got)
	}
	if got := inToolsets(tools.Available(&d), nil); len(got) != len(tools.Available(&d)) {
		t.Errorf("nil toolsets kept %d of %d tools", len(got), len(tools.Available(&d)))
	}
}

// connectToolsets builds a server of mode over d with the toolsets sets and
// connects a client to it; the server's context ends with the test.
func connectToolsets(t *testing.T, d tools.Deps, mode string, sets []string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s, err := Build(ctx, d, Options{Mode: mode, Version: "test", Toolsets: sets})
	if err != nil {
		t.Fatal(err)
	}
	return toolstest.Connect(t, s)
}
