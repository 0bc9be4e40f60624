package ingest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/langspec/langspec/fixtures"
	"github.com/langspec/langspec/internal/apperr"
)

func TestParseGoSpecExcerpt(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "gospec", "excerpt.html"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParseGoSpec(src)
	if err != nil {
		t.Fatal(err)
	}
	if p.Version != "go1.26" {
		t.Errorf("version = %q, want go1.26", p.Version)
	}
	want := []struct {
		id, parent, path, url string
		level                 int
		textHas               string
	}{
		{"Introduction", "", "Introduction", "https://go.dev/ref/spec#Introduction", 2, "This is the reference manual"},
		{"Expressions", "", "Expressions", "https://go.dev/ref/spec#Expressions", 2, "An expression specifies the computation"},
		{"Slice_expressions", "Expressions", "Expressions > Slice expressions", "https://go.dev/ref/spec#Slice_expressions", 3,
			"Slice expressions construct a substring or slice"},
		// The two h4s have no id: ids come from titles, links go to the
		// nearest real anchor.
		{"Simple_slice_expressions", "Slice_expressions", "Expressions > Slice expressions > Simple slice expressions",
			"https://go.dev/ref/spec#Slice_expressions", 4, "a[low : high]"},
		{"Full_slice_expressions", "Slice_expressions", "Expressions > Slice expressions > Full slice expressions",
			"https://go.dev/ref/spec#Slice_expressions", 4, "a[low : high : max]"},
	}
	if len(p.Sections) != len(want) {
		t.Fatalf("got %d sections, want %d", len(p.Sections), len(want))
	}
	for i, w := range want {
		s := p.Sections[i]
		if s.SectionID != w.id || s.ParentID != w.parent || s.Path != w.path || s.URL != w.url || s.Level != w.level {
			t.Errorf("section %d = {%s %s %q %s h%d}, want {%s %s %q %s h%d}", i,
				s.SectionID, s.ParentID, s.Path, s.URL, s.Level, w.id, w.parent, w.path, w.url, w.level)
		}
		if !strings.Contains(s.Text, w.textHas) {
			t.Errorf("%s text lacks %q:\n%s", s.SectionID, w.textHas, s.Text)
		}
		if s.SourcePolicy != "full_text" {
			t.Errorf("%s policy = %q", s.SectionID, s.SourcePolicy)
		}
	}
	// A section's text stops at the next heading of any level.
	if strings.Contains(p.Sections[2].Text, "a[low : high : max]") {
		t.Error("Slice_expressions holds its subsection's text")
	}
	// <pre> keeps its line breaks; paragraphs are reflowed.
	if !strings.Contains(p.Sections[3].Text, "a := [5]int{1, 2, 3, 4, 5}\ns := a[1:4]") {
		t.Errorf("pre block not kept verbatim:\n%s", p.Sections[3].Text)
	}
	if regexp.MustCompile(`[^\n]\n[^\n]`).MatchString(p.Sections[0].Text) {
		t.Errorf("paragraph text has stray line breaks:\n%s", p.Sections[0].Text)
	}
}

func TestParseGoSpecFull(t *testing.T) {
	src, err := fixtures.GoSpec.ReadFile(fixtures.GoSpecPath)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParseGoSpec(src)
	if err != nil {
		t.Fatal(err)
	}
	h := regexp.MustCompile(`<h[234][ >]`)
	if n := len(h.FindAll(src, -1)); len(p.Sections) != n {
		t.Errorf("got %d sections, the source has %d h2-h4 headings", len(p.Sections), n)
	}
	if len(p.Sections) != 165 {
		t.Errorf("got %d sections, want 165 (19 h2, 108 h3, 38 h4)", len(p.Sections))
	}
	ids := map[string]bool{}
	for _, s := range p.Sections {
		if ids[s.SectionID] {
			t.Errorf("duplicate id %q", s.SectionID)
		}
		ids[s.SectionID] = true
	}
	// The seven h4 headings without an id in the real spec.
	for _, id := range []string{"Struct_literals", "Array_and_slice_literals", "Map_literals", "Elision_of_element_types",
		"Simple_slice_expressions", "Full_slice_expressions", "Conversions_between_numeric_types"} {
		if !ids[id] {
			t.Errorf("missing derived id %q", id)
		}
	}
	if p.Version != "go1.26" {
		t.Errorf("version = %q", p.Version)
	}
	// The spec links its terms to their definitions throughout: the link
	// texts become the anchor text of the section linked to.
	anchors := map[string]string{}
	with := 0
	for _, s := range p.Sections {
		anchors[s.SectionID] = s.Anchors
		if s.Anchors != "" {
			with++
		}
	}
	for id, word := range map[string]string{"Method_sets": "method set", "Assignability": "assignable", "Type_assertions": "type assertion"} {
		if !strings.Contains(anchors[id], word) {
			t.Errorf("anchors of %s = %q, want %q among them", id, anchors[id], word)
		}
	}
	if with < len(p.Sections)/3 {
		t.Errorf("only %d of %d sections have in-link text", with, len(p.Sections))
	}
}

func TestParseGoSpecRejects(t *testing.T) {
	tests := []struct{ name, src, msg string }{
		{"not the spec", "<html><body><h2 id=x>X</h2></body></html>", "Language version"},
		{"no headings", "<!--{\"Subtitle\": \"Language version go1.26 (Jan 12, 2026)\"}--><p>text</p>", "no h2/h3/h4"},
		{"empty", "", "Language version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseGoSpec([]byte(tt.src))
			if apperr.CodeOf(err) != apperr.InvalidArgument || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v, want invalid_argument with %q", err, tt.msg)
			}
		})
	}
}

func TestIDFromTitle(t *testing.T) {
	b := newSectionBuilder("u", "full_text")
	tests := []struct{ title, want string }{
		{"Full slice expressions", "Full_slice_expressions"},
		{"Go 1.24", "Go_124"},
		{"  ", "section"},
		{"Full slice expressions", "Full_slice_expressions_2"}, // unique within the document
	}
	for _, tt := range tests {
		id := b.uniqueID(idFromTitle(tt.title))
		b.ids[id] = true
		if id != tt.want {
			t.Errorf("id for %q = %q, want %q", tt.title, id, tt.want)
		}
	}
}

func TestCandidates(t *testing.T) {
	goroot := t.TempDir()
	os.MkdirAll(filepath.Join(goroot, "doc"), 0o755)
	os.WriteFile(filepath.Join(goroot, "doc", "go_spec.html"), []byte("x"), 0o644)
	local := t.TempDir()
	os.WriteFile(filepath.Join(local, "spec.html"), []byte("x"), 0o644)
	book := t.TempDir()
	os.WriteFile(filepath.Join(book, "print.html"), []byte("x"), 0o644)
	docs := t.TempDir()
	for _, v := range []string{"python3.9", "python3.11"} {
		os.MkdirAll(filepath.Join(docs, v, "reference"), 0o755)
		os.WriteFile(filepath.Join(docs, v, "reference", "index.html"), []byte("x"), 0o644)
	}
	python := SourceSpec{Language: "python", Doc: "reference", Kind: KindSphinx, Entry: "index.html",
		Local: []string{filepath.Join(docs, "python3.*", "reference")}}
	rust := SourceSpec{Language: "rust", Doc: "reference", Kind: KindMdBook, Entry: "print.html",
		Local: []string{"${RUSTUP_TOOLCHAIN}/ref", book}, URL: "https://doc.rust-lang.org/reference/"}
	tests := []struct {
		name string
		src  SourceSpec
		from string
		env  Env
		want []string // Location.String() of each candidate
	}{
		{"URL wins", goPreset(), "https://example.com/ref/spec", Env{Goroot: goroot}, []string{"https://example.com/ref/spec"}},
		{"file wins", goPreset(), filepath.Join(local, "spec.html"), Env{Goroot: goroot}, []string{filepath.Join(local, "spec.html")}},
		{"embedded on request", goPreset(), FromEmbedded, Env{}, []string{"embedded:gospec/go_spec.html"}},
		{"GOROOT, network, built-in", goPreset(), "", Env{Goroot: goroot},
			[]string{filepath.Join(goroot, "doc", "go_spec.html"), "https://go.dev/ref/spec", "embedded:gospec/go_spec.html"}},
		{"no Go toolchain", goPreset(), "", Env{}, []string{"https://go.dev/ref/spec", "embedded:gospec/go_spec.html"}},
		{"GOROOT without the spec", goPreset(), "", Env{Goroot: t.TempDir()}, []string{"https://go.dev/ref/spec", "embedded:gospec/go_spec.html"}},
		{"folder with its entry", rust, "", Env{}, []string{filepath.Join(book, "print.html"), "https://doc.rust-lang.org/reference/print.html"}},
		{"folder given with --from", rust, book, Env{}, []string{filepath.Join(book, "print.html")}},
		{"a pattern picks the newest", python, "", Env{}, []string{filepath.Join(docs, "python3.11", "reference", "index.html")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			locs, err := Candidates(tt.src, tt.from, tt.env)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range locs {
				got = append(got, l.String())
			}
			if strings.Join(got, " | ") != strings.Join(tt.want, " | ") {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
	if _, err := Candidates(goPreset(), filepath.Join(local, "nope.html"), Env{}); apperr.CodeOf(err) != apperr.Unavailable {
		t.Errorf("missing --from file: %v", err)
	}
}
