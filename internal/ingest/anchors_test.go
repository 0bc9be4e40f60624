package ingest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// TestInLinkAnchors checks what the builder keeps of links: the text of a
// link into the document goes to the section that holds the target id (a
// heading's own or an element's inside it), on the same page or another;
// links to the section itself, out of the document, or without text are
// dropped, and a text is kept once.
func TestInLinkAnchors(t *testing.T) {
	pages := []struct{ rel, html string }{
		{"a.html", `<h2 id="intro">Intro</h2><p>See <a href="#slices">slice expressions</a>,
			<a href="#slices">Slice Expressions</a> again, <a href="#full">the full form</a>,
			<a href="b.html#calls">calling a function</a>, <a href="b.html">the other page</a>,
			<a href="https://example.com/#slices">elsewhere</a>, <a href="#nowhere">nothing</a>.</p>
			<h2 id="slices">Slices</h2><p>Text <span id="full">a[low : high : max]</span>
			and <a href="#slices">itself</a>.</p>`},
		{"b.html", `<h2 id="calls">Calls</h2><p><a href="a.html#slices"></a><a href="a.html#intro">back</a><a href="../x.html#intro">out of the document</a></p>`},
	}
	b := newSectionBuilder("https://example.com/", "full_text")
	for _, p := range pages {
		b.page = p.rel
		for _, n := range mustParseHTML(t, p.html) {
			b.walk(n, false)
		}
	}
	got := map[string][]string{}
	for _, s := range b.finish() {
		if s.Anchors != "" {
			got[s.SectionID] = strings.Split(s.Anchors, "\n")
		}
	}
	want := map[string][]string{
		"slices": {"slice expressions", "the full form"},
		"calls":  {"calling a function", "the other page"}, // a page without a fragment is its first section
		"intro":  {"back"},
	}
	for id, w := range want {
		if !slices.Equal(got[id], w) {
			t.Errorf("anchors of %s = %q, want %q", id, got[id], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("anchors = %q, want only %v", got, want)
	}
}

func mustParseHTML(t *testing.T, s string) []*html.Node {
	t.Helper()
	body := &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}
	nodes, err := html.ParseFragment(strings.NewReader(s), body)
	if err != nil {
		t.Fatal(err)
	}
	return nodes
}

// TestInLinkAnchorsAreBounded: a section keeps at most maxAnchorTexts link
// texts, the first ones met, each once whatever its letter case.
func TestInLinkAnchorsAreBounded(t *testing.T) {
	var page strings.Builder
	page.WriteString(`<h2 id="target">Target</h2><h2 id="from">From</h2><p>`)
	var want []string
	for i := range maxAnchorTexts + 12 {
		text := fmt.Sprintf("Wording %d", i)
		fmt.Fprintf(&page, `<a href="#target">%s</a> <a href="#target">%s</a> `, text, strings.ToUpper(text))
		if i < maxAnchorTexts {
			want = append(want, text)
		}
	}
	b := newSectionBuilder("https://example.com/", "full_text")
	for _, n := range mustParseHTML(t, page.String()) {
		b.walk(n, false)
	}
	for _, s := range b.finish() {
		if s.SectionID == "target" {
			if got := strings.Split(s.Anchors, "\n"); !slices.Equal(got, want) {
				t.Errorf("anchors of target: %d texts, want the first %d: %q", len(got), len(want), got)
			}
			return
		}
	}
	t.Fatal("no section target")
}
