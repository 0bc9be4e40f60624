package completion_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/completion"
	"github.com/langspec/langspec/internal/ingest"
	"github.com/langspec/langspec/internal/prompts"
	"github.com/langspec/langspec/internal/resources"
	"github.com/langspec/langspec/internal/tools"
	"github.com/langspec/langspec/internal/tools/toolstest"
)

// deps is the Go spec and the Python fixture, the fixture manuals and a
// vault with one note.
func deps(t *testing.T) *tools.Deps {
	t.Helper()
	store := toolstest.OpenDB(t)
	src, err := ingest.Resolve(nil, "python", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Ingest(context.Background(), store, src, ingest.Options{
		From: filepath.Join("..", "..", "fixtures", "sphinx"), Now: func() time.Time { return toolstest.Now }}); err != nil {
		t.Fatal(err)
	}
	v := toolstest.OpenVault(t)
	if _, err := v.Create("notes/plan.md", []byte("plan\n")); err != nil {
		t.Fatal(err)
	}
	return &tools.Deps{Store: store, Manuals: toolstest.OpenManuals(t), Vault: v}
}

func TestComplete(t *testing.T) {
	c := completion.New(deps(t))
	go_ := map[string]string{"language": "go"}
	tests := []struct {
		name    string
		kind    completion.Kind
		value   string
		scope   map[string]string
		first   []string // the values must begin with these, in order
		has     []string // and hold these somewhere
		hasNot  []string
		total   int // 0: not checked
		hasMore bool
	}{
		{name: "section id prefix", kind: completion.Section, value: "Slice", scope: go_, first: []string{"Slice_types", "Slice_expressions"}, hasNot: []string{"Index_expressions"}},
		{name: "section title words", kind: completion.Section, value: "full slice", scope: go_, first: []string{"Full_slice_expressions"}},
		{name: "section word inside an id", kind: completion.Section, value: "expr", scope: go_, has: []string{"Slice_expressions", "Index_expressions"}},
		{name: "section any case", kind: completion.Section, value: "sLiCe_Ex", scope: go_, first: []string{"Slice_expressions"}},
		{name: "section, all of a doc, in order", kind: completion.Section, value: "", scope: go_, first: []string{"Introduction", "Notation"}, total: 165, hasMore: true},
		{name: "section without scope reads every doc", kind: completion.Section, value: "Slice_e", first: []string{"Slice_expressions"}},
		{name: "section scoped to another language", kind: completion.Section, value: "Slice_e", scope: map[string]string{"language": "python"}, hasNot: []string{"Slice_expressions"}},
		{name: "section, unknown language", kind: completion.Section, value: "S", scope: map[string]string{"language": "cobol"}, total: 0},
		{name: "section, unknown version", kind: completion.Section, value: "S", scope: map[string]string{"language": "go", "doc": "spec", "version": "go0"}, total: 0},
		{name: "language", kind: completion.Language, value: "p", first: []string{"python"}, total: 1},
		{name: "languages", kind: completion.Language, value: "", first: []string{"go", "python"}, total: 2},
		{name: "doc of a language", kind: completion.Doc, value: "", scope: go_, first: []string{"spec"}, total: 1},
		{name: "version", kind: completion.Version, value: "go", scope: map[string]string{"language": "go", "doc": "spec"}, first: []string{"go1.26"}, total: 1},
		{name: "titles", kind: completion.Titles, value: "slice e", scope: go_, first: []string{"Slice expressions"}},
		{name: "titles list", kind: completion.Titles, value: "Types,  Slice e", scope: go_, first: []string{"Types, Slice expressions"}},
		{name: "weeks", kind: completion.Weeks, value: "1", first: []string{"1", "10", "11", "12"}, total: 4},
		{name: "manual ids", kind: completion.Manual, value: "ops", first: []string{"ops-en", "ops-handbook"}, total: 2},
		{name: "manual path prefix", kind: completion.ManualPath, value: "runbooks/db/", scope: map[string]string{"manual_id": "ops-en"}, has: []string{"runbooks/db/failover.md"}},
		{name: "manual path by file name", kind: completion.ManualPath, value: "failover", scope: map[string]string{"manual_id": "ops-en"}, has: []string{"runbooks/db/failover.md"}},
		{name: "manual path, Japanese", kind: completion.ManualPath, value: "約款/", scope: map[string]string{"manual_id": "insurance-ja"}, has: []string{"約款/普通保険約款.md"}},
		{name: "manual path without manual", kind: completion.ManualPath, value: "a", total: 0},
		{name: "vault root", kind: completion.VaultPath, value: "", has: []string{"notes/"}},
		{name: "vault folder", kind: completion.VaultPath, value: "notes/p", first: []string{"notes/plan.md"}, total: 1},
		{name: "vault escape", kind: completion.VaultPath, value: "../", total: 0},
		{name: "unknown kind", kind: "colour", value: "r", total: 0},
		{name: "value too long", kind: completion.Section, value: strings.Repeat("a", 201), scope: go_, total: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Complete(context.Background(), tt.kind, tt.value, tt.scope)
			if r.Values == nil || len(r.Values) > completion.MaxValues {
				t.Fatalf("values %v: want a list of at most %d", r.Values, completion.MaxValues)
			}
			if len(r.Values) < len(tt.first) || !slices.Equal(r.Values[:len(tt.first)], tt.first) {
				t.Errorf("values %v, want them to begin %v", r.Values, tt.first)
			}
			for _, v := range tt.has {
				if !slices.Contains(r.Values, v) {
					t.Errorf("values %v lack %q", r.Values, v)
				}
			}
			for _, v := range tt.hasNot {
				if slices.Contains(r.Values, v) {
					t.Errorf("values %v hold %q", r.Values, v)
				}
			}
			if (tt.total > 0 || len(tt.first)+len(tt.has) == 0) && r.Total != tt.total {
				t.Errorf("total %d, want %d (values %v)", r.Total, tt.total, r.Values)
			}
			if r.HasMore != tt.hasMore && r.Total > 0 && tt.total > 0 {
				t.Errorf("hasMore %v, want %v", r.HasMore, tt.hasMore)
			}
		})
	}
}

// The handler behind completion/complete, over a real client session: the
// references of the resource templates and the prompts, and everything a
// client may send that is not one of them, which completes to nothing.
func TestHandler(t *testing.T) {
	d := deps(t)
	s := mcp.NewServer(&mcp.Implementation{Name: "langspec", Version: "t"}, &mcp.ServerOptions{
		CompletionHandler: completion.Handler(completion.New(d), resources.Arguments, prompts.Arguments),
	})
	resources.Register(s, d, resources.Grants{Diff: true})
	prompts.Register(s, d, prompts.Options{Tools: tools.Available(d)})
	cs := toolstest.Connect(t, s)
	if cs.InitializeResult().Capabilities.Completions == nil {
		t.Fatal("the server does not advertise completions")
	}
	section := &mcp.CompleteReference{Type: "ref/resource", URI: "langspec://{language}/{doc}/sections/{section_id}"}
	tests := []struct {
		name  string
		ref   *mcp.CompleteReference
		arg   string
		value string
		ctx   map[string]string
		first string // "": the list must be empty
	}{
		{"section template", section, "section_id", "Slice_e", map[string]string{"language": "go", "doc": "spec"}, "Slice_expressions"},
		{"section template, language", section, "language", "g", nil, "go"},
		{"manual template", &mcp.CompleteReference{Type: "ref/resource", URI: "langspec://manuals/{manual_id}/{+path}"}, "manual_id", "insurance", nil, "insurance-ja"},
		{"vault template", &mcp.CompleteReference{Type: "ref/resource", URI: "langspec://vault/{+path}"}, "path", "notes/", nil, "notes/plan.md"},
		{"explain-rule topic", &mcp.CompleteReference{Type: "ref/prompt", Name: "explain-rule"}, "topic", "slice e", map[string]string{"language": "go"}, "Slice expressions"},
		{"learning-plan weeks", &mcp.CompleteReference{Type: "ref/prompt", Name: "learning-plan"}, "weeks", "12", nil, "12"},
		{"collect-from-manuals manual", &mcp.CompleteReference{Type: "ref/prompt", Name: "collect-from-manuals"}, "manual_id", "kasai", nil, "kasai-hoken"},
		{"free-text topic", &mcp.CompleteReference{Type: "ref/prompt", Name: "collect-from-manuals"}, "topic", "解約", nil, ""},
		{"unknown argument", section, "colour", "r", nil, ""},
		{"unknown template", &mcp.CompleteReference{Type: "ref/resource", URI: "file:///{path}"}, "path", "a", nil, ""},
		{"unknown prompt", &mcp.CompleteReference{Type: "ref/prompt", Name: "nope"}, "language", "g", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &mcp.CompleteParams{Ref: tt.ref, Argument: mcp.CompleteParamsArgument{Name: tt.arg, Value: tt.value}}
			if tt.ctx != nil {
				p.Context = &mcp.CompleteContext{Arguments: tt.ctx}
			}
			res, err := cs.Complete(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			got := res.Completion.Values
			if tt.first == "" && len(got) != 0 || tt.first != "" && (len(got) == 0 || got[0] != tt.first) {
				t.Errorf("values %v, want first %q", got, tt.first)
			}
		})
	}
}
