package tools

import (
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/search"
)

// TestCompactSearchKeepsEveryFact rebuilds each hit's canonical URL, path
// and document from the compact answer: nothing a citation said is lost by
// saying the shared parts once.
func TestCompactSearchKeepsEveryFact(t *testing.T) {
	hit := func(lang, doc, id, title, path, url string) search.Citation {
		return search.Citation{Language: lang, Doc: doc, Version: "v1", SectionID: id, Title: title, SectionPath: path,
			URL: url, Snippet: "…**" + title + "**…", Score: 0.5, Matched: []string{"words"}}
	}
	tests := []struct {
		name string
		hits []search.Citation
		base map[string]string // document id → url
	}{
		{"one HTML page", []search.Citation{
			hit("go", "spec", "Slice_expressions", "Slice expressions", "Expressions > Slice expressions", "https://go.dev/ref/spec#Slice_expressions"),
			hit("go", "spec", "Full_slice_expressions", "Full slice expressions", "Expressions > Slice expressions > Full slice expressions", "https://go.dev/ref/spec#Slice_expressions"),
			hit("go", "spec", "Types", "Types", "Types", "https://go.dev/ref/spec#Types"),
		}, map[string]string{"go/spec": "https://go.dev/ref/spec"}},
		{"pages of a folder", []search.Citation{
			hit("rust", "reference", "items/traits", "Traits", "Items > Traits", "https://doc.rust-lang.org/reference/items/traits.html"),
			hit("rust", "reference", "types/closure#other-traits", "Other traits", "Types > Closure types > Other traits", "https://doc.rust-lang.org/reference/types/closure.html#other-traits"),
		}, map[string]string{"rust/reference": "https://doc.rust-lang.org/reference/"}},
		{"one hit without a fragment", []search.Citation{
			hit("py", "ref", "x", "X", "X", "https://docs.python.org/3/reference/x.html"),
		}, map[string]string{"py/ref": "https://docs.python.org/3/reference/x.html"}},
		{"two documents", []search.Citation{
			hit("go", "spec", "Types", "Types", "Types", "https://go.dev/ref/spec#Types"),
			hit("go", "memory", "Introduction", "Introduction", "Introduction", "https://go.dev/ref/mem#Introduction"),
		}, map[string]string{"go/spec": "https://go.dev/ref/spec", "go/memory": "https://go.dev/ref/mem"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, verbose := range []bool{false, true} {
				out := compactSearch(search.Result{Query: "q", Channels: []string{"words"}, Hits: tt.hits}, verbose)
				docs := map[string]SearchDocument{}
				for _, d := range out.Documents {
					docs[d.ID] = d
					if _, ok := tt.base[d.ID]; !ok {
						t.Errorf("document %s is none of the hits'", d.ID)
					}
				}
				if len(out.Results) != len(tt.hits) {
					t.Fatalf("%d results for %d hits", len(out.Results), len(tt.hits))
				}
				for i, h := range out.Results {
					want := tt.hits[i]
					id := h.Document
					if id == "" {
						id = out.Documents[0].ID
					}
					d := docs[id]
					// Every hit's URL whole, in the structured content and
					// in the text (issue 49).
					if h.URL != want.URL || !strings.Contains(renderSearch(out), " "+want.URL+" ") {
						t.Errorf("hit %d: url %q, want %q whole in both contents", i, h.URL, want.URL)
					}
					path := h.Title
					if h.Path != "" {
						path = h.Path + " > " + h.Title
					}
					if path != want.SectionPath || d.Language != want.Language || d.Doc != want.Doc || d.Version != want.Version {
						t.Errorf("hit %d: %s in %+v, want %s in %s/%s %s", i, path, d, want.SectionPath, want.Language, want.Doc, want.Version)
					}
					if (len(out.Documents) > 1) != (h.Document != "") {
						t.Errorf("hit %d names its document %q with %d documents", i, h.Document, len(out.Documents))
					}
					if verbose != (h.Score != nil && h.Snippet == want.Snippet) {
						t.Errorf("verbose %v: score %v, snippet %q", verbose, h.Score, h.Snippet)
					}
					if !strings.Contains(renderSearch(out), want.Snippet) {
						t.Errorf("hit %d: the text content lacks its snippet", i)
					}
				}
				if verbose != (len(out.Channels) > 0) {
					t.Errorf("verbose %v: channels %v", verbose, out.Channels)
				}
			}
		})
	}
}
