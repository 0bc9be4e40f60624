// Package ingest reads specification documents, splits them into sections with
// stable ids, and publishes them to the store.
package ingest

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
)

// The Go specification as langspec names it.
const (
	GoLanguage    = "go"
	GoDoc         = "spec"
	GoDisplayName = "The Go Programming Language Specification"
	GoCanonical   = "https://go.dev/ref/spec"
)

// Parsed is a document split into sections, in document order.
type Parsed struct {
	Version  string
	Stated   string // what the page states instead of a version ("Version of Aug 2, 2023")
	Sections []db.Section
}

var (
	goVersionRE       = regexp.MustCompile(`\bgo1(?:\.\d+)+\b`)
	renderedVersionRE = regexp.MustCompile(`Language version (go1(?:\.\d+)+)`)
)

// ParseGoSpec splits the Go specification (go_spec.html from the Go
// distribution, or the page served at go.dev/ref/spec) at its h2, h3 and h4
// headings. A section's text runs to the next heading of any level; its
// subsections are sections of their own. Headings without an id get one made
// from their title. Errors: apperr.InvalidArgument when src is not the spec.
func ParseGoSpec(src []byte) (Parsed, error) {
	p, err := parseHTMLPage(src, goPreset())
	if err != nil {
		return Parsed{}, err
	}
	if p.Version == "" {
		return Parsed{}, apperr.New(apperr.InvalidArgument,
			"pass the Go specification: go_spec.html from the Go distribution or https://go.dev/ref/spec",
			`no "Language version go1.N" in the document`)
	}
	if len(p.Sections) == 0 {
		return Parsed{}, apperr.New(apperr.InvalidArgument, "pass the Go specification HTML", "no h2/h3/h4 headings found")
	}
	return p, nil
}

// parseHTMLPage splits one HTML page at its h2–h4 headings, leaving out the
// elements spec.Skip selects. The version is the Go spec's "Language version"
// when the page states one. A page without headings gives no sections; the
// caller decides whether that is an error.
func parseHTMLPage(src []byte, spec SourceSpec) (Parsed, error) {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(src))
	if err != nil {
		return Parsed{}, apperr.Wrap(err, apperr.InvalidArgument, "", "cannot parse HTML")
	}
	for _, sel := range spec.Skip {
		doc.Find(sel).Remove()
	}
	b := newSectionBuilder(spec.CanonicalURL, spec.SourcePolicy)
	for _, n := range doc.Nodes {
		b.walk(n, false)
	}
	v, stated := goSpecVersion(doc)
	return Parsed{Version: v, Stated: stated, Sections: b.finish()}, nil
}

// goSpecVersion reads the version from the metadata comment go_spec.html
// starts with ({"Subtitle": "Language version go1.26 (Jan 12, 2026)"}), or
// from the rendered page's text when there is no such comment. Until Go
// 1.22 the subtitle gave a date ("Version of Aug 2, 2023"): no version,
// and stated is what it said.
func goSpecVersion(doc *goquery.Document) (version, stated string) {
	var found string
	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		if found != "" {
			return
		}
		if n.Type == html.CommentNode && strings.Contains(n.Data, `"Subtitle"`) {
			var meta struct{ Subtitle string }
			if json.Unmarshal([]byte(strings.TrimSpace(n.Data)), &meta) == nil {
				found = goVersionRE.FindString(meta.Subtitle)
				if found == "" {
					stated = meta.Subtitle
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	for _, n := range doc.Nodes {
		visit(n)
	}
	if found != "" {
		return found, ""
	}
	if m := renderedVersionRE.FindStringSubmatch(doc.Text()); m != nil {
		return m[1], ""
	}
	return "", stated
}
