package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/langspec/langspec/internal/eval/corpusgen"
)

// TestGoldmarkTreeIsHTMLParse holds goldmarkTree to html.Parse: for every
// page it takes, the tree is the one html.Parse builds from the same HTML,
// node for node (text nodes split alike, attributes alike). The pages are
// CommonMark's 652 examples and GFM's (from goldmark's module, which ships
// them), the Markdown under fixtures/, a generated specification, and the
// cases below, which also say which pages it must take and which it must
// leave to html.Parse.
func TestGoldmarkTreeIsHTMLParse(t *testing.T) {
	cases := []struct {
		name, markdown string
		takes          bool
	}{
		{"empty", "", true},
		{"only blanks", "  \n\n\t\n", true},
		{"paragraphs and a soft break", "one\ntwo\n\nthree", true},
		{"headings", "# One\n\n## Two *em* `code`\n\ntext\n\n###### Six", true},
		{"entities and escapes", "a &amp; b &copy; &#169; &#x26; \\* &notanentity; &copy <x>", false},
		{"entities alone", "a &amp; b &copy; &#169; &#x26; \\* &notanentity; &copy", true},
		{"code span and block", "`a < b && c`\n\n```go\nif a < b {\n\treturn\n}\n```\n\n    indented\n    code", true},
		{"twoslash block", "```ts twoslash\n// @errors: 2345\nlet a = 1\n// ^?\n```", true},
		{"lists tight and loose", "- a\n- b\n  - c\n\n1. one\n\n2. two\n   > quoted", true},
		{"task list", "- [ ] todo\n- [x] done", true},
		{"table", "| a | b |\n|---|:-:|\n| `c` | **d** |\n| e |", true},
		{"table without body", "| a | b |\n|---|---|", true},
		{"links and images", "[text](http://x/y?a=1&b=2 \"title\") ![alt *x*](p.png) <http://auto.link> www.example.com", true},
		{"autolink inside a link", "[see www.example.com](http://x)", true},
		{"strikethrough and hard breaks", "~~gone~~ a  \nb\\\nc", true},
		{"thematic break", "a\n\n---\n\nb\n***", true},
		{"CRLF line ends", "# T\r\n\r\ntext\r\nmore\r\n\r\n```\r\ncode\r\n```\r\n", true},
		{"NUL", "a\x00b", true},
		{"raw HTML block", "<div>\n*x*\n</div>\n\ntext", false},
		{"raw inline HTML", "a <b>bold</b> c", false},
		{"comment", "a <!-- c --> b", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, took, err := compareGoldmarkTree([]byte(tc.markdown))
			if err != nil {
				t.Fatal(err)
			}
			if took != tc.takes {
				t.Errorf("goldmarkTree took the page: %v, want %v", took, tc.takes)
			}
		})
	}

	var pages []namedPage
	pages = append(pages, goldmarkExamples(t)...)
	pages = append(pages, fixtureMarkdown(t)...)
	dir := t.TempDir()
	if _, err := corpusgen.WriteSpec(dir, 600); err != nil {
		t.Fatal(err)
	}
	pages = append(pages, markdownUnder(t, dir)...)

	taken, withoutRawHTML := 0, 0
	for _, p := range pages {
		rawHTML, took, err := compareGoldmarkTree(p.body)
		if err != nil {
			t.Errorf("%s: %v\n%s", p.name, err, p.body)
			continue
		}
		if took {
			taken++
		}
		if !rawHTML {
			withoutRawHTML++
		}
	}
	t.Logf("%d pages, %d without raw HTML, %d taken by goldmarkTree", len(pages), withoutRawHTML, taken)
	// The fast path is worth having only if it takes nearly every page it
	// may take; a check that refused everything would pass the rest.
	if taken < withoutRawHTML*95/100 {
		t.Errorf("goldmarkTree took %d of the %d pages without raw HTML, want at least 95 %%", taken, withoutRawHTML)
	}
}

type namedPage struct {
	name string
	body []byte
}

// compareGoldmarkTree converts markdown as the reader does and, when the
// page has no raw HTML and goldmarkTree takes it, reports a difference
// from html.Parse's tree as an error.
func compareGoldmarkTree(markdown []byte) (rawHTML, took bool, err error) {
	c := newMarkdownConverter()
	var buf bytes.Buffer
	if err := c.convert(markdown, &buf); err != nil {
		return false, false, err
	}
	if c.rawHTML {
		return true, false, nil
	}
	got, ok := goldmarkTree(buf.Bytes())
	if !ok {
		return false, false, nil
	}
	want, err := html.Parse(bytes.NewReader(buf.Bytes()))
	if err != nil {
		return false, true, err
	}
	if g, w := dumpTree(got), dumpTree(want); g != w {
		return false, true, fmt.Errorf("goldmarkTree's tree differs from html.Parse's\nHTML:\n%s\ngot:\n%s\nwant:\n%s", buf.Bytes(), g, w)
	}
	return false, true, nil
}

// dumpTree writes every node on a line of its own, text quoted, so that two
// trees whose text is split differently differ too (html.Render would
// write them alike).
func dumpTree(n *html.Node) string {
	var b strings.Builder
	var dump func(n *html.Node, depth int)
	dump = func(n *html.Node, depth int) {
		b.WriteString(strings.Repeat("  ", depth))
		switch n.Type {
		case html.ElementNode:
			fmt.Fprintf(&b, "<%s atom=%d ns=%q", n.Data, n.DataAtom, n.Namespace)
			for _, a := range n.Attr {
				fmt.Fprintf(&b, " %s:%s=%q", a.Namespace, a.Key, a.Val)
			}
			b.WriteString(">")
		case html.TextNode:
			fmt.Fprintf(&b, "%q", n.Data)
		default:
			fmt.Fprintf(&b, "type %d %q", n.Type, n.Data)
		}
		b.WriteString("\n")
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			dump(c, depth+1)
		}
	}
	dump(n, 0)
	return b.String()
}

// goldmarkExamples are the examples goldmark tests itself with: the
// CommonMark specification's and its GFM extensions'.
func goldmarkExamples(t *testing.T) []namedPage {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/yuin/goldmark").Output()
	if err != nil {
		t.Fatalf("goldmark's module: %v", err)
	}
	dir := strings.TrimSpace(string(out))
	raw, err := os.ReadFile(filepath.Join(dir, "_test", "spec.json"))
	if err != nil {
		t.Fatalf("CommonMark's examples: %v", err)
	}
	var spec []struct {
		Markdown string `json:"markdown"`
		Example  int    `json:"example"`
	}
	if err := json.Unmarshal(raw, &spec); err != nil {
		t.Fatal(err)
	}
	var pages []namedPage
	for _, e := range spec {
		pages = append(pages, namedPage{fmt.Sprintf("CommonMark example %d", e.Example), []byte(e.Markdown)})
	}
	files, _ := filepath.Glob(filepath.Join(dir, "extension", "_test", "*.txt"))
	separator := regexp.MustCompile(`(?m)^//- - - - - - - - -//\n`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range strings.Split(string(b), "//= = = = = = = = = = = = = = = = = = = = = = = =//") {
			if parts := separator.Split(c, 3); len(parts) == 3 {
				pages = append(pages, namedPage{fmt.Sprintf("%s case %d", filepath.Base(f), i+1), []byte(parts[1])})
			}
		}
	}
	if len(spec) < 600 || len(pages)-len(spec) < 50 {
		t.Fatalf("%d CommonMark examples and %d of GFM: goldmark's test files changed shape", len(spec), len(pages)-len(spec))
	}
	return pages
}

// fixtureMarkdown is every Markdown file under fixtures/.
func fixtureMarkdown(t *testing.T) []namedPage {
	t.Helper()
	pages := markdownUnder(t, filepath.Join("..", "..", "fixtures"))
	if len(pages) < 10 {
		t.Fatalf("%d Markdown files under fixtures/", len(pages))
	}
	return pages
}

func markdownUnder(t *testing.T, dir string) []namedPage {
	t.Helper()
	var pages []namedPage
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".md" {
			return err
		}
		b, err := os.ReadFile(p)
		pages = append(pages, namedPage{p, b})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

// FuzzGoldmarkTree looks for Markdown whose tree goldmarkTree gets wrong:
// go test -run '^$' -fuzz FuzzGoldmarkTree ./internal/ingest
func FuzzGoldmarkTree(f *testing.F) {
	for _, seed := range []string{
		"# T\n\n- a\n- [x] b\n\n| a | b |\n|---|---|\n| `c` | *d* |\n",
		"[see www.example.com](http://x) ![a](b) ~~c~~ **d _e_**  \nf",
		"> quote\n> - item\n>\n> ```\n> code\n> ```\n\n1. x\n\n   y\n",
		"a &amp; &copy &#0; \\* <http://a.b> www.c.d/e?f=g&h=i",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, markdown string) {
		if _, _, err := compareGoldmarkTree([]byte(markdown)); err != nil {
			t.Fatal(err)
		}
	})
}
