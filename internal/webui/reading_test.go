package webui

import (
	"context"
	"html"
	"html/template"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/contextnote"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest"
	"github.com/langspec/langspec/internal/specdiff"
	"github.com/langspec/langspec/internal/teamauth"
	"github.com/langspec/langspec/internal/tools/toolstest"
)

// ingestOlderGoSpec stores go1.25 beside the embedded go1.26
// (toolstest.OlderGoSpec: Blocks changed, Empty_statements added, Old_rule
// removed, Sets_of_methods renamed to Method_sets), ingested as a user's
// copy is.
func ingestOlderGoSpec(t testing.TB, store *db.DB) {
	t.Helper()
	p := toolstest.OlderGoSpec(t, t.TempDir())
	src, err := ingest.Resolve(nil, "go", "spec")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := ingest.Ingest(context.Background(), store, src, ingest.Options{From: p})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Version != "go1.25" {
		t.Fatalf("the older copy was stored as %q, want go1.25", rep.Version)
	}
}

// publishDemo stores a second language, demo, with a section about
// slices, so that a comparison has two columns.
func publishDemo(t testing.TB, store *db.DB) {
	t.Helper()
	snap := db.Snapshot{Language: "demo", Doc: "manual", DisplayName: "The Demo Manual", Version: "1.0", SourceURL: "test", FetchedAt: time.Now(), ContentHash: "demo1"}
	if _, err := store.Publish(context.Background(), snap, []db.Section{
		{SectionID: "Slices", Level: 2, Title: "Slices", Path: "Slices", URL: "https://demo.example/#Slices", SourcePolicy: db.FullText,
			Text: "Slice expressions in demo take a low and a high bound; a slice shares its array."},
		{SectionID: "Maps", Level: 2, Title: "Maps", Path: "Maps", URL: "https://demo.example/#Maps", SourcePolicy: db.FullText,
			Text: "A map holds keys and values."},
	}); err != nil {
		t.Fatal(err)
	}
}

// open fetches path with token and fails the test unless the status is
// want and the page was rendered to its end.
func open(t *testing.T, srv *httptest.Server, token, path string, want int) string {
	t.Helper()
	code, body := get(t, srv, token, path)
	if code != want || !complete(body) {
		t.Fatalf("%s: %d (want %d), rendered whole %v:\n%s", path, code, want, complete(body), tail(body))
	}
	return body
}

func mustContain(t *testing.T, what, body string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("%s: the page lacks %q:\n%s", what, w, tail(body))
		}
	}
}

func mustLack(t *testing.T, what, body string, bad ...string) {
	t.Helper()
	for _, b := range bad {
		if strings.Contains(body, b) {
			t.Errorf("%s: the page holds %q", what, b)
		}
	}
}

func TestWordDiffHTML(t *testing.T) {
	for _, tc := range []struct{ name, marked, want string }{
		{"no change marked", "plain text", "plain text"},
		{"a replacement", "In [-addition to-]{+short+} the blocks", "In <del>addition to</del><ins>short</ins> the blocks"},
		{"removed and added apart", "[-gone-] kept {+new+}.", "<del>gone</del> kept <ins>new</ins>."},
		{"marks of the text escaped", `a \[-b-\] and \{+c+\}`, "a [-b-] and {+c+}"},
		{"text holding [- and {+ inside marks", `[-x\[\-y-]{+s\{\+t+}`, "<del>x[-y</del><ins>s{+t</ins>"},
		{"overlapping marks of the text", `{+x[\-\]y+}`, "<ins>x[-]y</ins>"},
		{"removed text ending in [", `[-a\[-]`, "<del>a[</del>"},
		{"added text ending in {", `{+b\{+}`, "<ins>b{</ins>"},
		{"backslashes", `[-C:\\old-]{+C:\\new\\+}`, `<del>C:\old</del><ins>C:\new\</ins>`},
		{"HTML is text", `[-<script>alert(1)</script>-]{+&amp; "q"+}`, "<del>&lt;script&gt;alert(1)&lt;/script&gt;</del><ins>&amp;amp; &#34;q&#34;</ins>"},
		{"non-ASCII", "[-型-]{+型の+}は", "<del>型</del><ins>型の</ins>は"},
		{"only its own closer ends a mark", "[-a {+b+} c-]", "<del>a {+b+} c</del>"},
		{"closers outside a mark are text", "a -] b +}", "a -] b +}"},
		{"a mark left open is closed at the end", "x [-open", "x <del>open</del>"},
		{"a backslash at the end is text", `a\`, `a\`},
		{"an empty mark renders nothing", "a[--]b", "ab"},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(WordDiffHTML(tc.marked)); got != tc.want {
				t.Errorf("WordDiffHTML(%q) = %q, want %q", tc.marked, got, tc.want)
			}
		})
	}
}

// TestWordDiffHTMLReadsEscape: any text, escaped as specdiff.Escape does
// and marked as specdiff marks a replacement, renders as its two sides:
// removed in <del>, added in <ins>, the rest as it was.
func TestWordDiffHTMLReadsEscape(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"[", "]", "{", "}", "-", "+", `\`, "a", "word", " ", "[-", "-]", "{+", "+}", "<", "&", "型"}
	gen := func() string {
		var b strings.Builder
		for range 1 + rng.IntN(10) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	// side marks text as specdiff's markWriter does: escaped, and a final
	// opener escaped too so that it cannot pair with the closer.
	side := func(open, text, close string, opener byte) string {
		esc := specdiff.Escape(text)
		if last := len(esc) - 1; esc[last] == opener {
			esc = esc[:last] + `\` + string(opener)
		}
		return open + esc + close
	}
	for range 5000 {
		before, o, n, after := gen(), gen(), gen(), gen()
		marked := specdiff.Escape(before) + " " + side("[-", o, "-]", '[') + side("{+", n, "+}", '{') + " " + specdiff.Escape(after)
		want := template.HTMLEscapeString(before) + " <del>" + template.HTMLEscapeString(o) + "</del><ins>" + template.HTMLEscapeString(n) + "</ins> " + template.HTMLEscapeString(after)
		if got := string(WordDiffHTML(marked)); got != want {
			t.Fatalf("WordDiffHTML(%q) = %q, want %q", marked, got, want)
		}
	}
}

// TestComparePage compares concepts across the Go specification and a
// second language on the page: columns side by side, each hit linking to
// its section and citing its URL, the form keeping what was asked; and
// each error the user can make is the page's error, never a 500.
func TestComparePage(t *testing.T) {
	srv, store, _, plain := newTestUI(t)
	publishDemo(t, store.DB)

	body := open(t, srv, plain, "/ui/compare", http.StatusOK)
	mustContain(t, "the form", body, `<input type="search" id="concept" name="concept" value=""`,
		`name="lang" value="demo" checked>`, `name="lang" value="go" checked>`, `aria-label="other phrasing 4"`, `name="per" min="1" max="10" value="3"`)
	mustLack(t, "the form", body, `class="column"`, `aria-label="other phrasing 5"`)

	body = open(t, srv, plain, "/ui/compare?concept=slice+expressions", http.StatusOK)
	mustContain(t, "both languages", body, `<section class="column" aria-label="go spec">`, `<section class="column" aria-label="demo manual">`,
		"<h3>The Demo Manual</h3>", "go · spec · go1.26", "demo · manual · 1.0",
		`<a href="/ui/section?lang=go&amp;doc=spec&amp;version=go1.26&amp;id=Slice_expressions">Slice expressions</a>`,
		`<a href="/ui/section?lang=demo&amp;doc=manual&amp;version=1.0&amp;id=Slices">Slices</a>`,
		`cite: <a href="https://go.dev/ref/spec#Slice_expressions" rel="noreferrer">`, "<mark>")
	if n := strings.Count(body, `class="hit"`); n < 4 {
		t.Errorf("both languages: %d hits, want 3 from go and at least 1 from demo", n)
	}
	// The hit's link opens its section.
	open(t, srv, plain, "/ui/section?lang=demo&doc=manual&version=1.0&id=Slices", http.StatusOK)

	body = open(t, srv, plain, "/ui/compare?concept=slice+expressions&lang=go&per=1&also=s%5Bi%3Aj%5D&also=", http.StatusOK)
	mustContain(t, "one language, one section", body, `name="lang" value="go" checked>`, `name="lang" value="demo">`,
		`name="also" value="s[i:j]" aria-label="other phrasing 1"`, `value="1"`)
	mustLack(t, "one language, one section", body, `aria-label="demo manual"`)
	if n := strings.Count(body, `class="hit"`); n != 1 {
		t.Errorf("one language, one section: %d hits", n)
	}
	// Found by another phrasing alone.
	body = open(t, srv, plain, "/ui/compare?concept=zzqqxxv&also=slice+expressions&lang=demo", http.StatusOK)
	mustContain(t, "another phrasing", body, ">Slices</a>")

	for _, tc := range []struct {
		path string
		code int
		want string
	}{
		{"/ui/compare?concept=", http.StatusBadRequest, "the concept is empty"},
		{"/ui/compare?concept=+&lang=go", http.StatusBadRequest, "the concept is empty"},
		{"/ui/compare?concept=slices&lang=nope", http.StatusNotFound, "no language &#34;nope&#34; is stored"},
		{"/ui/compare?concept=slices&per=11", http.StatusBadRequest, "out of range"},
		{"/ui/compare?concept=slices&per=0", http.StatusBadRequest, "out of range"},
		{"/ui/compare?concept=slices&per=many", http.StatusBadRequest, "not a number"},
		{"/ui/compare?concept=slices&also=a&also=b&also=c&also=d&also=e", http.StatusBadRequest, "at most 4"},
		{"/ui/compare?concept=" + url.QueryEscape(`"unclosed`), http.StatusOK, ""},
	} {
		body := open(t, srv, plain, tc.path, tc.code)
		if tc.want != "" {
			mustContain(t, tc.path, body, `<p class="error" role="alert">`, tc.want)
		}
	}
}

// newDiffUI is newTestUI with go1.25 stored beside go1.26.
func newDiffUI(t *testing.T, set func(*Options)) (srv *httptest.Server, store uiStore, admin, plain string) {
	t.Helper()
	srv, store, admin, plain = newTestUIWith(t, set)
	ingestOlderGoSpec(t, store.DB)
	return srv, store, admin, plain
}

// TestDiffPage shows what changed from go1.25 to go1.26 of the real Go
// specification: the counts and chapters, each item with its links to
// both versions' sections and their citations, a reworded sentence's
// words in <del> and <ins>; a section, a query, pages, nothing changed in
// one line, and each error as the page's error.
func TestDiffPage(t *testing.T) {
	srv, _, _, plain := newDiffUI(t, nil)

	body := open(t, srv, plain, "/ui/diff", http.StatusOK)
	mustContain(t, "the form", body, `<option value="go/spec" selected>`, `<select id="from" name="from"><option value="go1.26">go1.26</option><option value="go1.25" selected>go1.25</option></select>`,
		`<select id="to" name="to"><option value="go1.26" selected>go1.26</option>`)
	mustLack(t, "the form", body, `class="summary"`, `class="change`)

	body = open(t, srv, plain, "/ui/diff?doc=go%2Fspec&from=go1.25&to=go1.26", http.StatusOK)
	mustContain(t, "the whole document", body,
		"<strong>1</strong> added, <strong>1</strong> removed, <strong>1</strong> renamed, <strong>1</strong> changed,",
		`<table class="stack chapters">`, `<td data-label="Chapter">Blocks</td>`, "Sections 1–4 of 4 that differ",
		`<span class="badge">renamed</span> <span class="badge">editorial</span> Sets of methods (Sets_of_methods) → Method sets (Method_sets)`,
		`<a href="/ui/section?lang=go&amp;doc=spec&amp;version=go1.25&amp;id=Sets_of_methods">Sets of methods</a>`,
		`<a href="/ui/section?lang=go&amp;doc=spec&amp;version=go1.26&amp;id=Method_sets">Method sets</a>`,
		`cite: <a href="https://go.dev/ref/spec#Method_sets" rel="noreferrer">`,
		`<span class="badge">added</span> <span class="badge">rule</span> Empty statements (Empty_statements)`, `<span class="badge">removed</span> <span class="badge">rule</span> An old rule (Old_rule)`,
		`<li class="changed"><span class="kind">reworded</span> `, "<del>", "<ins>")
	mustLack(t, "the whole document", body, "Nothing changed", `rel="next"`, `rel="prev"`)
	// The reworded sentence reads, without its removed words, as the new
	// one, and without its added words as the old one.
	m := regexp.MustCompile(`<li class="changed"><span class="kind">reworded</span> (.*?) <span class="muted">`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no reworded sentence")
	}
	side := func(drop string) string {
		s := regexp.MustCompile(`<`+drop+`>.*?</`+drop+`>`).ReplaceAllString(m[1], "")
		return strings.Join(strings.Fields(html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(s, ""))), " ")
	}
	if o, n := side("ins"), side("del"); !strings.HasPrefix(o, "Besides the explicit blocks") || !strings.HasPrefix(n, "In addition to explicit blocks") {
		t.Errorf("the reworded sentence reads as\n old %q\n new %q", o, n)
	}
	// Each side's link opens its version's section.
	mustContain(t, "go1.25's section", open(t, srv, plain, "/ui/section?lang=go&doc=spec&version=go1.25&id=Sets_of_methods", http.StatusOK),
		"<h2>Sets of methods</h2>", "go spec go1.25")

	body = open(t, srv, plain, "/ui/diff?doc=go%2Fspec&from=go1.25&to=go1.26&section=Blocks", http.StatusOK)
	mustContain(t, "one section", body, "section Blocks", "<strong>0</strong> added, <strong>0</strong> removed, <strong>0</strong> renamed, <strong>1</strong> changed,",
		"Sections 1–1 of 1 that differ", `value="Blocks"`)

	body = open(t, srv, plain, "/ui/diff?doc=go%2Fspec&from=go1.25&to=go1.26&section=Introduction", http.StatusOK)
	if n := strings.Count(body, "Nothing changed"); n != 1 || !strings.Contains(body, `<p class="nothing">Nothing changed between go1.25 and go1.26 (section Introduction).</p>`) {
		t.Errorf("an unchanged section: \"Nothing changed\" %d times:\n%s", n, tail(body))
	}
	mustLack(t, "an unchanged section", body, `class="summary"`, `class="chapters"`)

	body = open(t, srv, plain, "/ui/diff?doc=go%2Fspec&from=go1.25&to=go1.26&q=empty+statement", http.StatusOK)
	mustContain(t, "a query", body, "sections about &#34;empty statement&#34;", "Empty statements (Empty_statements)")

	// Pages of two.
	body = open(t, srv, plain, "/ui/diff?doc=go%2Fspec&from=go1.25&to=go1.26&limit=2", http.StatusOK)
	mustContain(t, "the first page", body, "Sections 1–2 of 4 that differ", `<input type="hidden" name="limit" value="2">`)
	next := regexp.MustCompile(`<a rel="next" href="([^"]+)">`).FindStringSubmatch(body)
	if next == nil || strings.Contains(body, `rel="prev"`) {
		t.Fatalf("the first page's links:\n%s", tail(body))
	}
	body = open(t, srv, plain, html.UnescapeString(next[1]), http.StatusOK)
	mustContain(t, "the second page", body, "Sections 3–4 of 4 that differ", "<h4>3. ")
	prev := regexp.MustCompile(`<a rel="prev" href="([^"]+)">`).FindStringSubmatch(body)
	if prev == nil || strings.Contains(body, `rel="next"`) {
		t.Fatalf("the second page's links:\n%s", tail(body))
	}
	mustContain(t, "back to the first page", open(t, srv, plain, html.UnescapeString(prev[1]), http.StatusOK), "Sections 1–2 of 4 that differ")

	// Versions of another document (the selects cannot follow a change of
	// document without script): the two newest, said so.
	body = open(t, srv, plain, "/ui/diff?doc=go%2Fspec&from=1.79.0&to=1.80.0", http.StatusOK)
	mustContain(t, "another document's versions", body, "go/spec has no version 1.79.0: comparing its two newest, go1.25 and go1.26.", "Sections 1–4 of 4 that differ")

	for _, tc := range []struct {
		path string
		code int
		want string
	}{
		{"/ui/diff?doc=go%2Fspec&from=go1.26&to=go1.26", http.StatusBadRequest, "from and to are both go1.26"},
		{"/ui/diff?doc=go%2Fspec&section=Blocks&q=blocks", http.StatusBadRequest, "section_id and query are both given"},
		{"/ui/diff?doc=go%2Fspec&section=No_such_section", http.StatusNotFound, "not_found"},
		{"/ui/diff?doc=rust%2Freference", http.StatusNotFound, "no document &#34;rust/reference&#34; with two complete versions is stored"},
		{"/ui/diff?doc=go%2Fspec&offset=99", http.StatusBadRequest, "past the 4 sections that differ"},
		{"/ui/diff?doc=go%2Fspec&offset=x", http.StatusBadRequest, "offset &#34;x&#34; is not a number"},
		{"/ui/diff?doc=go%2Fspec&limit=1000", http.StatusBadRequest, "limit 1000 is out of range"},
	} {
		body := open(t, srv, plain, tc.path, tc.code)
		mustContain(t, tc.path, body, `<p class="error" role="alert">`, tc.want, `<form method="get" action="/ui/diff"`)
	}
}

// TestDiffPageOneVersion: with one version of each document stored, the
// page says so and names the command that stores another.
func TestDiffPageOneVersion(t *testing.T) {
	srv, _, _, plain := newTestUI(t)
	for _, path := range []string{"/ui/diff", "/ui/diff?doc=go%2Fspec"} {
		body := open(t, srv, plain, path, http.StatusOK)
		mustContain(t, path, body, "Only one version of each document is stored (go/spec (go1.26)): there is nothing to compare it with.",
			`<p class="token">langspec ingest LANGUAGE --from OLDER_COPY --version-label VERSION</p>`)
		mustLack(t, path, body, `<form method="get" action="/ui/diff"`)
	}
}

// TestReadingPagesAccess: a token that is not an admin's opens the
// compare page only when its tools allow compare, and the diff page only
// when they allow spec_diff, each refusal a 403 naming the tool; its
// navigation links only the pages it may open; a token allowing only
// these tools logs in and lands on them. Only an admin's opens the
// context page.
func TestReadingPagesAccess(t *testing.T) {
	srv, store, admin, plain := newDiffUI(t, nil)
	ctx := context.Background()
	token := func(name string, tools ...string) string {
		tok, h := teamauth.NewToken()
		if err := store.CreateToken(ctx, name, h, tools, false, time.Now()); err != nil {
			t.Fatal(err)
		}
		return tok
	}
	reader := token("reader", "search_spec", "get_section")
	comparer := token("comparer", "compare", "spec_diff")
	differ := token("differ", "spec_diff")

	for _, tc := range []struct {
		name, token, path string
		code              int
		want              []string
	}{
		{"search tools, compare", reader, "/ui/compare?concept=slices", http.StatusForbidden, []string{"may not compare languages here", "do not include compare"}},
		{"search tools, diff", reader, "/ui/diff?doc=go%2Fspec", http.StatusForbidden, []string{"may not compare versions here", "do not include spec_diff"}},
		{"compare tools, compare", comparer, "/ui/compare?concept=slices", http.StatusOK, []string{`class="column"`}},
		{"compare tools, diff", comparer, "/ui/diff?doc=go%2Fspec", http.StatusOK, []string{`class="summary"`}},
		{"compare tools, search", comparer, "/ui/search?q=slices", http.StatusForbidden, []string{"do not include search_spec"}},
		{"spec_diff only, compare", differ, "/ui/compare", http.StatusForbidden, []string{"do not include compare"}},
		{"every tool, not an admin: compare", plain, "/ui/compare?concept=slices", http.StatusOK, nil},
		{"every tool, not an admin: diff", plain, "/ui/diff", http.StatusOK, nil},
		{"every tool, not an admin: context", plain, "/ui/context", http.StatusForbidden, []string{"context page lists", "admin tokens"}},
		{"admin: context", admin, "/ui/context", http.StatusOK, nil},
	} {
		code, body := get(t, srv, tc.token, tc.path)
		if code != tc.code || !complete(body) {
			t.Errorf("%s: %d, want %d\n%s", tc.name, code, tc.code, tail(body))
			continue
		}
		mustContain(t, tc.name, body, tc.want...)
	}

	nav := func(token, path string) string {
		t.Helper()
		_, body := get(t, srv, token, path)
		i, j := strings.Index(body, "<nav>"), strings.Index(body, "</nav>")
		if i < 0 || j < i {
			t.Fatalf("%s: no navigation", path)
		}
		return body[i:j]
	}
	links := []string{`href="/ui/"`, `href="/ui/compare"`, `href="/ui/diff"`, `href="/ui/sources"`, `href="/ui/context"`, `href="/ui/tokens"`}
	for _, tc := range []struct {
		name, token, path string
		want              []bool // links, in order
	}{
		{"admin", admin, "/ui/search", []bool{true, true, true, true, true, true}},
		{"every tool", plain, "/ui/search", []bool{true, true, true, false, false, false}},
		{"search tools", reader, "/ui/search", []bool{true, false, false, false, false, false}},
		{"compare tools", comparer, "/ui/compare", []bool{false, true, true, false, false, false}},
		{"spec_diff only", differ, "/ui/diff", []bool{false, false, true, false, false, false}},
	} {
		n := nav(tc.token, tc.path)
		for i, l := range links {
			if strings.Contains(n, l) != tc.want[i] {
				t.Errorf("%s's navigation links %s: %v, want %v", tc.name, l, !tc.want[i], tc.want[i])
			}
		}
	}

	// Without get_section, a hit or a changed section names its section
	// without linking the section page it could not open.
	_, body := get(t, srv, comparer, "/ui/compare?concept=slices")
	_, diffBody := get(t, srv, comparer, "/ui/diff?doc=go%2Fspec")
	for _, b := range []string{body, diffBody} {
		mustLack(t, "a token without get_section", b, `href="/ui/section`)
	}

	// A token allowing only compare and spec_diff logs in, and /ui/ (where
	// the login lands) leads to the first page it may open.
	if code := loginStatus(t, srv, comparer); code != http.StatusSeeOther {
		t.Errorf("logging in with compare and spec_diff: %d, want 303", code)
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for tok, want := range map[string]string{comparer: "/ui/compare", differ: "/ui/diff"} {
		req, _ := http.NewRequest("GET", srv.URL+"/ui/", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != want {
			t.Errorf("/ui/ for a token that may not search: %d → %q, want 303 → %s", resp.StatusCode, resp.Header.Get("Location"), want)
		}
	}
}

// hostileNote is a note whose text is markup: the pages show it as text.
const hostileNote = `Our services build with go1.26 <script>alert(1)</script><img src=x onerror=alert(2)>`

// notesOptions gives the page the context notes of a user: one on the Go
// specification (hostile), an aside on the language, one on another
// language.
func notesOptions(o *Options) {
	o.Notes = &contextnote.Source{Config: map[string]contextnote.ConfigNote{
		"langspec://go/spec":    {Text: hostileNote},
		"langspec://go":         {Text: "The language of our\nbackend services", Aside: true},
		"langspec://rust":       {Text: "not stored here"},
		"langspec://demo/other": {Text: "another document"},
	}}
}

// TestNotesOnPages: the search, section, compare and diff pages show the
// context notes covering their answer once, below it, with what each
// covers, the aside marked; a note's markup is shown as text. The context
// page lists every note for an admin. A notes file that cannot be read
// leaves the pages working, without notes.
func TestNotesOnPages(t *testing.T) {
	srv, store, admin, plain := newDiffUI(t, notesOptions)
	publishDemo(t, store.DB)
	escaped := `Our services build with go1.26 &lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;`
	notesOf := func(what, body string) string {
		t.Helper()
		if n := strings.Count(body, `<section class="notes"`); n != 1 {
			t.Fatalf("%s: %d notes sections, want 1:\n%s", what, n, tail(body))
		}
		notes := body[strings.Index(body, `<section class="notes"`):]
		notes = notes[:strings.Index(notes, "</section>")]
		if strings.Count(notes, escaped) != 1 || strings.Count(notes, `<li class="note">`) != 2 {
			t.Errorf("%s: want the two Go notes once each, the hostile one escaped:\n%s", what, notes)
		}
		mustContain(t, what, notes, `<code>langspec://go</code>`, `<span class="badge" title="material beside the subject">aside</span>`,
			"The language of our\nbackend services", `<code>langspec://go/spec</code>`)
		mustLack(t, what, notes, "not stored here", "another document")
		mustLack(t, what, body, "<script", "<img")
		return notes
	}
	body := open(t, srv, plain, "/ui/search?q=slice+expressions&lang=go", http.StatusOK)
	notes := notesOf("search", body)
	mustContain(t, "search", notes, "(results 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)")
	if strings.Index(body, `<section class="notes"`) < strings.LastIndex(body, `class="hit"`) {
		t.Error("search: the notes come before the results")
	}
	mustLack(t, "a search without hits", open(t, srv, plain, "/ui/search?q=zzqqxxv", http.StatusOK), `class="notes"`)

	notes = notesOf("section", open(t, srv, plain, "/ui/section?lang=go&id=Slice_expressions", http.StatusOK))
	mustLack(t, "section", notes, "(result")
	mustLack(t, "a section of another document", open(t, srv, plain, "/ui/section?lang=demo&id=Slices", http.StatusOK), `class="notes"`)

	notes = notesOf("compare", open(t, srv, plain, "/ui/compare?concept=slice+expressions", http.StatusOK))
	mustContain(t, "compare", notes, `<span class="muted">(column go/spec)</span>`)

	notesOf("diff", open(t, srv, plain, "/ui/diff?doc=go%2Fspec", http.StatusOK))

	body = open(t, srv, admin, "/ui/context", http.StatusOK)
	mustContain(t, "the context page", body, `<td data-label="Target"><code>langspec://rust</code></td>`, `<td data-label="Target"><code>langspec://demo/other</code></td>`,
		`<td class="note-text" data-label="Note">`+escaped+`</td>`, "langspec context add TARGET TEXT", "langspec context rm TARGET", "langspec.json")
	mustLack(t, "the context page", body, "<script", "<img")

	// A notes file that cannot be read: the answers, without notes.
	srv2, _, admin2, plain2 := newTestUIWith(t, func(o *Options) {
		o.Notes = &contextnote.Source{Store: &contextnote.Store{Path: t.TempDir()}} // a folder: it cannot be read as a file
	})
	body = open(t, srv2, plain2, "/ui/search?q=slice+expressions", http.StatusOK)
	mustContain(t, "unreadable notes", body, `class="hit"`)
	mustLack(t, "unreadable notes", body, `class="notes"`)
	mustContain(t, "unreadable notes, the context page", open(t, srv2, admin2, "/ui/context", http.StatusOK), "The context notes could not be read")
	// No notes at all.
	srv3, _, admin3, _ := newTestUI(t)
	mustContain(t, "a server without notes", open(t, srv3, admin3, "/ui/context", http.StatusOK), "This server reads no context notes.")
}
