package webui

import (
	"bytes"
	"context"
	"errors"
	"html"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/contextnote"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest"
	"github.com/langspec/langspec/internal/manual/find"
	"github.com/langspec/langspec/internal/rank"
	"github.com/langspec/langspec/internal/search"
	"github.com/langspec/langspec/internal/specdiff"
	"github.com/langspec/langspec/internal/teamauth"
)

// get fetches path with token as a bearer header ("" for none) and
// returns the status and body.
func get(t *testing.T, srv *httptest.Server, token, path string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", srv.URL+path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// complete says whether a page was rendered to its end.
func complete(body string) bool {
	return strings.Contains(body, "<footer") && strings.HasSuffix(strings.TrimSpace(body), "</html>")
}

// TestSearchPage searches the Go specification on the page with a query
// for each channel, a typo, nothing to find and a CJK query: each page is
// rendered whole, and a corrected typo says what was searched for it.
func TestSearchPage(t *testing.T) {
	srv, _, admin, plain := newTestUI(t)
	for _, tc := range []struct {
		query string
		want  []string // in the page, as HTML
	}{
		{"methd reciever", []string{"Also searched “method” for “methd”.", "Also searched “receiver” for “reciever”.", "found by", "typo:method"}},
		{"zzqqxxv", []string{`<h2 id="nothing-heading">Nothing found.</h2>`, "Nothing in every stored language (go) matches “zzqqxxv”.", "langspec ingest LANGUAGE"}},
		{"型", []string{`value="型"`}},
		{"slice expressions", []string{">Slice expressions</a>", "found by title"}},
		{"goroutine", []string{"found by", "words", "<mark>"}},
		{"<-chan", []string{">Channel types</a>", "literal"}},
		{"s[i:j:k]", []string{">Full slice expressions</a>", "symbol"}},
		{"x.(T)", []string{">Type assertions</a>", "symbol"}},
	} {
		for _, token := range []string{admin, plain} {
			code, body := get(t, srv, token, "/ui/search?q="+url.QueryEscape(tc.query))
			if code != http.StatusOK || !complete(body) {
				t.Errorf("%q: %d, the page not rendered whole:\n%s", tc.query, code, tail(body))
				continue
			}
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("%q: the page lacks %q:\n%s", tc.query, w, tail(body))
				}
			}
			if !strings.Contains(body, "Nothing found.") && !strings.Contains(body, `class="hit"`) {
				t.Errorf("%q: neither hits nor \"Nothing found\"", tc.query)
			}
		}
	}
}

func tail(s string) string {
	if len(s) > 1500 {
		return "…" + s[len(s)-1500:]
	}
	return s
}

// pageData are realistic data for each page, covering every branch of its
// template (each if with and without, each range with items and without).
func pageData() map[string][]any {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	admin := page{Title: "T", CSRF: "c", Subject: "ops", Admin: true, CanSearch: true, CanRead: true}
	reader := page{Title: "T", CSRF: "c", Subject: "alice", CanSearch: true, CanRead: true}
	withError, withNotice := admin, reader
	withError.Error, withNotice.Notice, withNotice.Refresh = "something failed", "something happened", true
	hit := search.Citation{Language: "go", Doc: "spec", Version: "go1.26", SectionID: "Slice_expressions", Title: "Slice expressions",
		SectionPath: "Expressions > Slice expressions", URL: "https://go.dev/ref/spec#Slice_expressions",
		Snippet: "a " + htmlMark.Before + "slice" + htmlMark.After + " expression", Score: 1, Matched: []string{"title", "words"}}
	section := &search.SectionResult{Citation: hit, Text: "text", Children: []search.Child{{SectionID: "Full_slice_expressions", Title: "Full slice expressions"}},
		Notice: "excerpt_only: …"}
	bare := &search.SectionResult{Citation: hit, Text: "text", Children: []search.Child{}}
	running := ingestView{ID: 1, Language: "go", Doc: "spec", Pages: 3, Failed: 1, Last: "spec.html", Elapsed: time.Second}
	done := ingestView{ID: 1, Language: "go", Doc: "spec", Done: true, Elapsed: 3422 * time.Millisecond,
		Report: ingest.Report{Version: "go1.26", Status: db.Created, Sections: ingest.SectionStats{Added: 165}}}
	failed := ingestView{ID: 1, Language: "go", Doc: "spec", Done: true, Elapsed: time.Second, Error: "unavailable: no copy",
		Hint: "try again later", Command: "langspec --db x.db ingest go --doc spec --from PATH"}
	failedNoHint := failed
	failedNoHint.Hint = ""
	notes := []noteView{{Target: "langspec://go", Text: "the language we build with", Covers: "results 1, 2"},
		{Target: "langspec://go/spec", Text: "an old edition\n<b>kept</b>", Aside: true}}
	compared := &search.CompareResult{Concept: "slice expressions", Searched: []string{"go", "rust"}, Notices: []string{"rust/reference: no section matches"},
		Columns: []search.CompareColumn{{Language: "go", Doc: "spec", DisplayName: "The Go spec", Version: "go1.26", Hits: []search.Citation{hit, hit}},
			{Language: "rust", Doc: "reference", DisplayName: "The Rust Reference", Version: "1.80.0", Hits: []search.Citation{}, Corrections: []string{"slise→slice"}}},
		Context: []contextnote.Covered{{Target: "langspec://go/spec", Text: "ours", Hits: []int{1, 2}}}}
	also := []alsoField{{N: 1, Value: "s[i:j]"}, {N: 2}, {N: 3}, {N: 4}}
	langs := []langChoice{{ID: "go", Checked: true}, {ID: "rust"}}
	older := &specdiff.Ref{SectionID: "Sets_of_methods", Title: "Sets of methods", Path: "Sets of methods", URL: "https://go.dev/ref/spec#Sets_of_methods", Version: "go1.25"}
	newer := &specdiff.Ref{SectionID: "Method_sets", Title: "Method sets", Path: "Method sets", URL: "https://go.dev/ref/spec#Method_sets", Version: "go1.26"}
	items := []diffItem{
		{N: 1, PageItem: specdiff.PageItem{Kind: specdiff.KindChanged, Class: specdiff.ClassRule, SectionID: older.SectionID, Title: older.Title, URL: older.URL, Similarity: .9,
			Sentences: []specdiff.Sentence{{Kind: specdiff.KindChanged, Class: specdiff.ClassRule, Text: "[-In addition to-]{+Besides+} the"},
				{Kind: specdiff.KindRemoved, Class: specdiff.ClassRule, Text: "gone <b>"}, {Kind: specdiff.KindAdded, Class: specdiff.ClassRule, Text: "new & here"}}, MoreSentences: 2}, Whole: "/ui/diff?doc=go%2Fspec&section=Blocks"},
		{N: 2, PageItem: specdiff.PageItem{Kind: specdiff.KindRenamed, Class: specdiff.ClassEditorial, SectionID: newer.SectionID, Title: newer.Title, URL: newer.URL,
			Old: &specdiff.Place{SectionID: older.SectionID, Title: older.Title, URL: older.URL}, Similarity: 0.999, Truncated: true}},
		{N: 3, PageItem: specdiff.PageItem{Kind: specdiff.KindAdded, Class: specdiff.ClassRule, SectionID: newer.SectionID, Title: newer.Title, URL: newer.URL}},
		{N: 4, PageItem: specdiff.PageItem{Kind: specdiff.KindRemoved, Class: specdiff.ClassRule, SectionID: older.SectionID, Title: older.Title, URL: older.URL}},
	}
	changed := &specdiff.Answer{Language: "go", Doc: "spec", From: specdiff.VersionRef{Version: "go1.25", Source: "go_spec_go1.25.html", Sections: 165},
		To: specdiff.VersionRef{Version: "go1.26", Source: "embedded:go_spec.html", Sections: 165}, Scope: "document", Total: 24, Offset: 20,
		Summary: specdiff.Summary{Added: 1, Removed: 1, Renamed: 1, Changed: 21, Unchanged: 161, Chapters: []specdiff.Chapter{{ID: "Blocks", Title: "Blocks", Changed: 1}, {ID: "Statements", Added: 1, Removed: 1}}},
		Notices: []string{"something is missing"}, Context: []contextnote.Covered{{Target: "langspec://go/spec", Text: "ours", Hits: []int{1}}}}
	unchanged := &specdiff.Answer{Language: "go", Doc: "spec", From: specdiff.VersionRef{Version: "go1.25"}, To: specdiff.VersionRef{Version: "go1.26"},
		Scope: "section Introduction", Unchanged: true, Items: []specdiff.PageItem{}, Summary: specdiff.Summary{Unchanged: 1, Chapters: []specdiff.Chapter{}}}
	docs := []diffDoc{{Value: "go/spec", Label: "The Go spec (go/spec)"}, {Value: "rust/reference", Label: "rust/reference"}}
	diffForm := diffPage{page: admin, Docs: docs, Doc: "go/spec", Versions: []string{"go1.26", "go1.25"}, From: "go1.25", To: "go1.26"}
	diffChanged := diffForm
	diffChanged.page, diffChanged.Answer, diffChanged.Items, diffChanged.First, diffChanged.Last = withNotice, changed, items, 21, 24
	diffChanged.Prev, diffChanged.Next, diffChanged.Limit, diffChanged.Notes = "/ui/diff?offset=0", "/ui/diff?offset=24", 4, notes
	diffChanged.Single = []string{"java/jls (se21)"}
	diffUnchanged := diffForm
	diffUnchanged.page, diffUnchanged.Answer, diffUnchanged.Section = reader, unchanged, "Introduction"
	manualReader := reader
	manualReader.CanFindManuals, manualReader.CanReadManuals = true, true
	manualRows := []manualRow{{ID: "ops-en", Files: 4}, {ID: "nodejs-en", Files: 17, Warnings: []string{"x.md left out: undecodable"}}}
	mhit := find.Candidate{Ref: "ops-en/runbooks/db/failover.md#database-failover", ManualID: "ops-en", Path: "runbooks/db/failover.md", NodeID: "database-failover",
		Title: "Database failover", LineStart: 1, LineEnd: 40, Stages: []string{"exact", "heading"}, Exception: true, Snippet: "watch the replication lag", SnippetLine: 12}
	mread := find.ReadResult{ManualID: "ops-en", Path: "runbooks/db/failover.md", Scope: find.ScopeSection,
		Parts: []find.Part{{NodeID: "database-failover", Title: "Database failover", LineStart: 1, LineEnd: 40, Text: "# Database failover\ntext", Truncated: true}}}
	diffNoRead := diffChanged
	diffNoRead.page = page{Title: "T", CSRF: "c", Subject: "differ", CanDiff: true}
	return map[string][]any{
		"login": {page{Title: "Log in", CSRF: "c"}, page{Title: "Log in", CSRF: "c", Error: "That is not a valid token."}},
		"denied": {withError, page{Title: "T", Subject: "bob", CanRead: true, Error: "no"}, page{Title: "T", Subject: "eve", Error: "no"}, reader,
			page{Title: "T", Subject: "carol", CanCompare: true, CanDiff: true, Error: "no"}},
		"search": {
			searchPage{page: admin, Languages: []string{"go", "rust"}},
			searchPage{page: withNotice, Query: "methd reciever", Language: "go", Languages: []string{"go", "rust"},
				Result: &search.Result{Query: "methd reciever", Corrections: []rank.Correction{{Word: "methd", To: "method"}},
					Channels: []string{"words"}, Hits: []search.Citation{hit}, Notices: []string{"the semantic channel is off"}}, Notes: notes,
				ManualsHref: "/ui/manuals/search?q=methd+reciever"},
			searchPage{page: reader, Query: "zzqqxxv", Result: &search.Result{Query: "zzqqxxv"}},
			searchPage{page: withError, Query: "("},
			searchPage{page: reader, Query: "zzqqxxv", Language: "go", Languages: []string{"go", "rust"}, Result: &search.Result{Query: "zzqqxxv"},
				Searched: "the go specification", Try: []suggestion{{Text: "every language", Href: "/ui/search?q=zzqqxxv"}, {Text: "ingest", Command: "langspec ingest LANGUAGE"}}},
			searchPage{page: manualReader, Stored: &storedView{Docs: []storedDoc{{Language: "go", Doc: "spec", DisplayName: "The Go spec", Version: "go1.26", Sections: 165, Others: 1}},
				Languages: 1, ManualsServed: true, Manuals: []manualRow{{ID: "ops-en", Files: 4}}, SpecExamples: []example{{Query: "Slice expressions", Scope: "go", Href: "/ui/search?q=x"}},
				ManualExample: []example{{Query: "Failover", Scope: "ops-en", Href: "/ui/manuals/search?q=Failover"}}}},
			searchPage{page: admin, Stored: &storedView{ManualsServed: true}},
			searchPage{page: reader, Stored: &storedView{}},
		},
		"manuals": {
			manualsPage{page: manualReader, Manuals: manualRows, Root: "/srv/manuals", Examples: []example{{Query: "Failover", Scope: "ops-en", Href: "/ui/manuals/search?q=Failover"}}},
			manualsPage{page: manualReader, Manual: "ops-en", Manuals: manualRows},
			manualsPage{page: admin, Root: "/srv/manuals"},
			manualsPage{page: manualReader, Query: "replication lag", Manuals: manualRows, Searched: true, Scope: "every manual (ops-en, nodejs-en)",
				Summary: &find.Summary{CutoffReason: "time_budget", Unscanned: 3, Warnings: []string{"gap: lag"}}, Hits: []manualHit{{mhit, "/ui/manuals/read?ref=x&q=lag"}, {mhit, "/ui/manuals/read?ref=y"}}, First: 1, Total: 12, Files: 3,
				NextHref: "/ui/manuals/search?q=replication+lag&offset=10", Notes: notes},
			manualsPage{page: page{Title: "T", CSRF: "c", Subject: "finder", CanFindManuals: true}, Query: "lag", Manuals: manualRows, Searched: true, Scope: "every manual", Hits: []manualHit{{Candidate: mhit}}, First: 11},
			manualsPage{page: manualReader, Query: "zzqqxxv", Manual: "ops-en", Manuals: manualRows, Searched: true, Scope: "the manual ops-en",
				Summary: &find.Summary{Warnings: []string{"gap: zzqqxxv"}}, SearchAllHref: "/ui/manuals/search?q=zzqqxxv", SpecSearchHref: "/ui/search?q=zzqqxxv", SpecLanguages: []string{"go"}},
			manualsPage{page: manualReader, Query: "x", Searched: true, Scope: "every manual ()"},
			manualsPage{page: withError},
		},
		"manualread": {
			manualReadPage{page: manualReader, Ref: "ops-en/runbooks/db/failover.md#database-failover", Read: &mread, Parts: []manualPart{{Part: mread.Parts[0], Ref: "ops-en/runbooks/db/failover.md#database-failover", Body: "<p>text</p>"}},
				Truncated: true, FullHref: "/ui/manuals/read?ref=x&full=1", Ancestors: []manualLink{{Ref: "ops-en/a.md#top", Title: "Top"}}, Children: []manualLink{{Ref: "ops-en/a.md#top/sub", Title: "Sub"}},
				ChildrenHeading: "Subsections", Prev: &manualLink{Ref: "ops-en/a.md#p", Title: "P"}, Next: &manualLink{Ref: "ops-en/a.md#n", Title: "N"}, Notes: notes,
				Query: "lag", BackHref: "/ui/manuals/search?q=lag", FileRef: "ops-en/runbooks/db/failover.md", MaxReadChars: 100000},
			manualReadPage{page: manualReader, Read: &find.ReadResult{ManualID: "ops-en", Path: "a.json", Omitted: []string{"x"}}, Truncated: true, MaxReadChars: 100000},
			manualReadPage{page: page{Title: "T", CSRF: "c", Subject: "reader", CanReadManuals: true}, Read: &mread, Prev: &manualLink{Ref: "ops-en/a.md#p", Title: "P"}},
			manualReadPage{page: withError, Ref: "../etc/passwd"},
		},
		"section": {
			sectionPage{page: withError},
			sectionPage{page: admin, Section: section, SectionLang: "go", SectionDoc: "spec", SectionVersion: "go1.26", Body: "<p>text</p>",
				Ancestors: []sectionLink{{ID: "Expressions", Title: "Expressions"}}, Prev: &sectionLink{ID: "Index_expressions", Title: "Index expressions"},
				Next: &sectionLink{ID: "Simple_slice_expressions", Title: "Simple slice expressions"}, Notes: notes[1:]},
			sectionPage{page: reader, Section: bare, SectionLang: "go", SectionDoc: "spec", SectionVersion: "go1.26"},
			sectionPage{page: reader, Section: bare, Next: &sectionLink{ID: "Notation", Title: "Notation"}},
			sectionPage{page: reader, Section: bare, Prev: &sectionLink{ID: "Notation", Title: "Notation"}},
		},
		"compare": {
			comparePage{page: admin, Also: also, PerDoc: 3, MinPerDoc: 1, MaxPerDoc: 10, Languages: langs},
			comparePage{page: withNotice, Concept: "slice expressions", Also: also, PerDoc: 3, Languages: langs, Result: compared, Notes: notes},
			comparePage{page: page{Title: "T", CSRF: "c", Subject: "comparer", CanCompare: true}, Concept: "x", Result: compared},
			comparePage{page: withError, Concept: "", Also: also, PerDoc: 11},
		},
		"diff": {
			diffPage{page: admin, Single: []string{"go/spec (go1.26)"}},
			diffPage{page: reader},
			diffForm, diffChanged, diffUnchanged, diffNoRead,
			diffPage{page: withError, Docs: docs, Doc: "go/spec", Versions: []string{"go1.26", "go1.25"}},
		},
		"context": {
			contextPage{page: admin, Configured: true, Notes: []contextnote.Note{{Target: "langspec://go/spec", Text: "ours\nsecond line", From: contextnote.FromConfig},
				{Target: "langspec://manuals/m/ref/", Text: "another product", Aside: true, From: contextnote.FromState}}},
			contextPage{page: admin, Configured: true},
			contextPage{page: admin},
			contextPage{page: withError, Configured: true},
		},
		"sources": {
			sourcesPage{page: admin, DBPath: "x.db", Versions: []db.VersionInfo{{Language: "go", Doc: "spec", DisplayName: "The Go spec", Version: "go1.26",
				Default: true, Complete: true, SectionCount: 165, FetchedAt: at}, {Language: "go", Doc: "spec", Version: "go1.25", FetchedAt: at},
				{Language: "go", Doc: "spec", Version: "go1.24", Complete: true, FetchedAt: at}},
				Sources: []ingest.SourceSpec{{Language: "go", Doc: "spec", DisplayName: "The Go spec"}}, CanIngest: true},
			sourcesPage{page: withError, DBPath: "x.db", ReadOnly: true},
		},
		"tokens": {
			tokensPage{page: admin, NewToken: "lsp_x", NewTokenName: "temp", Tokens: []db.APIToken{
				{Name: "ops", Admin: true, CreatedAt: at}, {Name: "old", Tools: []string{"search_spec", "get_section"}, CreatedAt: at, RevokedAt: at}},
				Subjects: map[string]SubjectInfo{"alice": {Tools: []string{"search_spec"}}, "root": {Admin: true}}},
			tokensPage{page: withError},
		},
		"upstreams": {
			upstreamsPage{page: withNotice, Upstreams: []upstreamRow{{Name: "wiki", Type: "http", State: "ready", Tools: 3, OAuth: true},
				{Name: "tracker", Type: "stdio", State: "unavailable", LastError: "exit 1"}},
				Secrets: []db.SealedSecret{{Name: "oauth.wiki", UpdatedAt: at}, {Name: "key", Subject: "alice", UpdatedAt: at}}},
			upstreamsPage{page: admin},
		},
		"ingest": {
			ingestPage{page: withNotice, Job: running},
			ingestPage{page: admin, Job: ingestView{ID: 2, Language: "go", Doc: "spec"}},
			ingestPage{page: admin, Job: done},
			ingestPage{page: admin, Job: failed},
			ingestPage{page: admin, Job: failedNoHint},
			ingestPage{page: page{Title: "T"}, Job: failed}, // no session: the layout without navigation
		},
	}
}

// TestEveryTemplateRenders renders every page's template with realistic
// data for each of its branches, then with every field set and with none:
// a template that names a field its data lacks (html/template finds out
// only when it runs) fails here, not in front of a user.
func TestEveryTemplateRenders(t *testing.T) {
	u, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	files, _ := fs.Glob(templateFS, "templates/*.html")
	data := pageData()
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(f, "templates/"), ".html")
		if name == "layout" {
			continue
		}
		if !slices.Contains(pageNames, name) {
			t.Errorf("templates/%s.html is not in pageNames", name)
		}
		if len(data[name]) == 0 {
			t.Errorf("templates/%s.html has no data in pageData: add its cases", name)
		}
	}
	for name, cases := range data {
		typ := reflect.TypeOf(cases[0])
		cases = append(cases, reflect.Zero(typ).Interface(), filled(typ).Interface())
		for i, d := range cases {
			var b bytes.Buffer
			if err := u.pages[name].ExecuteTemplate(&b, name+".html", d); err != nil {
				t.Errorf("%s, case %d: %v", name, i, err)
				continue
			}
			if !complete(b.String()) {
				t.Errorf("%s, case %d: not rendered to its end:\n%s", name, i, tail(b.String()))
			}
		}
	}
}

// filled is a value of typ with every field set (strings "x", numbers 1,
// true, one item in each slice and map, pointers to filled values).
func filled(typ reflect.Type) reflect.Value {
	v := reflect.New(typ).Elem()
	fill(v, 0)
	return v
}

func fill(v reflect.Value, depth int) {
	if depth > 8 || !v.CanSet() {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(1)
	case reflect.Float64:
		v.SetFloat(1)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)))
			return
		}
		for i := range v.NumField() {
			fill(v.Field(i), depth+1)
		}
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0), depth+1)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, depth+1)
		fill(e, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	}
}

// TestSectionPageMarkdown: a section's text is rendered as HTML — lists as
// lists, code in <pre>, prose as paragraphs — and markup in it is shown,
// never run, with nothing the Content-Security-Policy would refuse.
func TestSectionPageMarkdown(t *testing.T) {
	srv, store, _, plain := newTestUI(t)
	snap := db.Snapshot{Language: "demo", Doc: "spec", DisplayName: "Demo", Version: "1", SourceURL: "test", FetchedAt: time.Now(), ContentHash: "d1"}
	_, err := store.Publish(context.Background(), snap, []db.Section{
		{SectionID: "Lists", Level: 2, Title: "Lists", Path: "Lists", URL: "https://example.com/#Lists", SourcePolicy: db.FullText,
			Text: "Promoted methods are included as follows:\n\n- If S contains an embedded field T, the method set of *S includes *T.\n- If S contains **kwargs, nothing.\n\nThat is all."},
		{SectionID: "Hostile", Level: 2, Title: "Hostile", Path: "Hostile", URL: "https://example.com/#Hostile", SourcePolicy: db.FullText,
			Text: "The words <script>alert(1)</script> and [a link](javascript:alert(2)) and <img src=x onerror=alert(3)> stay text."},
		{SectionID: "Code", Level: 2, Title: "Code", Path: "Code", URL: "https://example.com/#Code", SourcePolicy: db.FullText,
			Text: "A struct:\n\nstruct {\n\tx, y int\n\t_ float32  // padding\n}\n\n```\nnot a fence\n```"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string][]string{
		"Lists":   {"<ul>\n<li>If S contains an embedded field T, the method set of *S includes *T.</li>", "<li>If S contains **kwargs, nothing.</li>", "<p>That is all.</p>"},
		"Hostile": {"The words &lt;script&gt;alert(1)&lt;/script&gt; and [a link](javascript:alert(2)) and &lt;img src=x onerror=alert(3)&gt; stay text."},
		"Code":    {"<p>A struct:</p>", "<pre><code>struct {\n\tx, y int\n\t_ float32  // padding\n}\n\n```\nnot a fence\n```\n</code></pre>"},
	} {
		code, body := get(t, srv, plain, "/ui/section?lang=demo&id="+id)
		if code != http.StatusOK || !complete(body) {
			t.Fatalf("%s: %d\n%s", id, code, tail(body))
		}
		for _, w := range want {
			if !strings.Contains(body, w) {
				t.Errorf("%s: the page lacks %q:\n%s", id, w, body)
			}
		}
		for _, bad := range []string{"<script", "<img", "javascript:alert(2)\"", "style=", "<em>", "<strong>", `class="text"><pre class="text"`} {
			if strings.Contains(body, bad) {
				t.Errorf("%s: the page holds %q", id, bad)
			}
		}
	}
}

// TestRenderMarkdownLinks: the page's goldmark lets through links to
// http(s) and relative ones only, and no raw HTML.
func TestRenderMarkdownLinks(t *testing.T) {
	for src, want := range map[string]string{
		"[spec](https://go.dev/ref/spec)":        `<a href="https://go.dev/ref/spec">spec</a>`,
		"[spec](/ui/section?id=x)":               `<a href="/ui/section?id=x">spec</a>`,
		"[x](javascript:alert(1))":               "<p>x</p>",
		"[x](JavaScript:alert(1))":               "<p>x</p>",
		"[x](&#106;avascript:alert(1))":          "<p>x</p>",
		"[x](data:text/html,hi)":                 "<p>x</p>",
		"[x](mailto:a@example.com)":              "<p>x</p>",
		"<https://go.dev>":                       `<a href="https://go.dev">https://go.dev</a>`,
		"<mailto:a@example.com>":                 "<p>mailto:a@example.com</p>",
		"<a@example.com>":                        "<p>a@example.com</p>",
		"![alt](https://example.com/x.png)":      "<p>alt</p>",
		"<script>alert(1)</script>":              "<!-- raw HTML omitted -->",
		"a <b onclick=alert(1)>b</b>":            "<p>a <!-- raw HTML omitted -->b<!-- raw HTML omitted --></p>",
		"- one\n- two":                           "<ul>\n<li>one</li>\n<li>two</li>\n</ul>",
		"[x](https://example.com/\"onmouseover)": `<a href="https://example.com/%22onmouseover">x</a>`,
	} {
		got := strings.TrimSpace(string(renderMarkdown([]byte(src))))
		if !strings.Contains(got, want) {
			t.Errorf("%q renders as %q, want %q in it", src, got, want)
		}
		if strings.Contains(got, "<script") || strings.Contains(got, "javascript:") || strings.Contains(got, "<img") {
			t.Errorf("%q renders as %q", src, got)
		}
	}
}

// TestSectionHTMLKeepsEveryCharacter renders every section of the Go
// specification: the HTML's text is the stored text, character for
// character (white space aside), so no "*", "_" or "\" of the document is
// taken for Markdown; and its lists and code come out as lists and <pre>.
func TestSectionHTMLKeepsEveryCharacter(t *testing.T) {
	_, store, _, _ := newTestUI(t)
	ctx := context.Background()
	_, outline, err := store.Outline(ctx, db.Scope{Language: "go"})
	if err != nil {
		t.Fatal(err)
	}
	tags, space := regexp.MustCompile(`<[^>]*>`), regexp.MustCompile(`\s+`)
	var lists, code int
	for _, row := range outline {
		s, err := store.Section(ctx, db.Scope{Language: "go"}, row.SectionID)
		if err != nil {
			t.Fatal(err)
		}
		h := string(sectionHTML(s.Text))
		lists += strings.Count(h, "<ul>")
		code += strings.Count(h, "<pre><code>")
		got := space.ReplaceAllString(html.UnescapeString(tags.ReplaceAllString(strings.ReplaceAll(h, "<li>", "- "), "")), "")
		if want := space.ReplaceAllString(s.Text, ""); got != want {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			t.Errorf("%s: the HTML's text differs from the stored text at byte %d: %q, want %q", row.SectionID, i,
				got[i:min(len(got), i+60)], want[i:min(len(want), i+60)])
		}
		if strings.Contains(h, "style=") || strings.Contains(h, "<script") {
			t.Errorf("%s: %q in the HTML", row.SectionID, "style= or <script")
		}
	}
	if lists < 10 || code < 50 {
		t.Errorf("%d lists and %d code blocks in the Go specification: the blocks were not found", lists, code)
	}
	h := string(sectionHTML(mustSection(t, store.DB, "Struct_types")))
	for _, w := range []string{"<ul>\n<li>If S contains an embedded field T,", "<pre><code>StructType    = &quot;struct&quot;", "\n\n// A struct with 6 fields.\nstruct {\n\tx, y int\n"} {
		if !strings.Contains(h, w) {
			t.Errorf("Struct_types lacks %q:\n%s", w, h)
		}
	}
}

func mustSection(t *testing.T, store *db.DB, id string) string {
	t.Helper()
	s, err := store.Section(context.Background(), db.Scope{Language: "go"}, id)
	if err != nil {
		t.Fatal(err)
	}
	return s.Text
}

// TestSectionNeighbours: the section page links each section above it
// (its heading path) and the sections before and after it in document
// order, on the real Go specification.
func TestSectionNeighbours(t *testing.T) {
	srv, _, _, plain := newTestUI(t)
	open := func(path string) string {
		t.Helper()
		code, body := get(t, srv, plain, path)
		if code != http.StatusOK || !complete(body) {
			t.Fatalf("%s: %d\n%s", path, code, tail(body))
		}
		return body
	}
	link := regexp.MustCompile(`<a (?:rel="(prev|next)" )?href="(/ui/section\?[^"]+)">([^<]*)</a>`)
	type found struct {
		prev, next string
		path       []string
	}
	read := func(body string) (f found) {
		nav := body[strings.Index(body, `<nav class="path"`):]
		nav = nav[:strings.Index(nav, "</nav>")]
		for _, m := range link.FindAllStringSubmatch(nav, -1) {
			f.path = append(f.path, html.UnescapeString(m[2]))
		}
		for _, m := range link.FindAllStringSubmatch(body, -1) {
			switch m[1] {
			case "prev":
				f.prev = html.UnescapeString(m[2])
			case "next":
				f.next = html.UnescapeString(m[2])
			}
		}
		return f
	}
	id := func(href string) string {
		u, err := url.Parse(href)
		if err != nil {
			t.Fatal(err)
		}
		return u.Query().Get("id")
	}
	for _, tc := range []struct {
		id, prev, next string
		path           []string
	}{
		{"Slice_expressions", "Index_expressions", "Simple_slice_expressions", []string{"Expressions"}},
		{"Full_slice_expressions", "Simple_slice_expressions", "Type_assertions", []string{"Expressions", "Slice_expressions"}},
		{"Introduction", "", "Notation", nil},
	} {
		f := read(open("/ui/section?lang=go&doc=spec&version=go1.26&id=" + tc.id))
		var path []string
		for _, p := range f.path {
			path = append(path, id(p))
			open(p) // each links to its section
		}
		if id(f.prev) != tc.prev || id(f.next) != tc.next || !slices.Equal(path, tc.path) {
			t.Errorf("%s: prev %q, next %q, path %v; want %q, %q, %v", tc.id, f.prev, f.next, path, tc.prev, tc.next, tc.path)
		}
	}
	// The links stay in the version read, and lead where they say.
	f := read(open("/ui/section?lang=go&id=Slice_expressions"))
	for _, href := range []string{f.prev, f.next, f.path[0]} {
		if !strings.Contains(href, "version=go1.26") {
			t.Errorf("%s does not name the version", href)
		}
	}
	if body := open(f.next); !strings.Contains(body, "<h2>Simple slice expressions</h2>") {
		t.Errorf("the next link does not lead to Simple slice expressions:\n%s", tail(body))
	}
	if body := open(f.path[0]); !strings.Contains(body, "<h2>Expressions</h2>") {
		t.Errorf("the path's link does not lead to Expressions:\n%s", tail(body))
	}
}

// TestNonAdminPages: a token that is not an admin's searches and reads
// sections, by bearer header or through the login form, and is refused
// every admin's page with a 403 that says what the page is for; its
// navigation links no admin's page.
func TestNonAdminPages(t *testing.T) {
	srv, store, admin, plain := newTestUI(t)
	ctx := context.Background()
	vaultOnly, h := teamauth.NewToken()
	store.CreateToken(ctx, "vaulter", h, []string{"vault_read"}, false, time.Now())
	searchOnly, h2 := teamauth.NewToken()
	store.CreateToken(ctx, "searcher", h2, []string{"search_spec"}, false, time.Now())

	adminLinks := []string{`href="/ui/tokens"`, `href="/ui/sources"`, `href="/ui/upstreams"`}
	code, body := get(t, srv, plain, "/ui/search?q=slice")
	if code != http.StatusOK || !strings.Contains(body, `class="hit"`) {
		t.Fatalf("a plain token's search: %d", code)
	}
	for _, l := range adminLinks {
		if strings.Contains(body, l) {
			t.Errorf("a plain token's navigation links %s", l)
		}
	}
	if _, body := get(t, srv, admin, "/ui/"); !strings.Contains(body, adminLinks[0]) {
		t.Error("an admin's navigation lacks the tokens page")
	}
	for path, purpose := range map[string]string{
		"/ui/tokens":          "tokens page makes and revokes",
		"/ui/sources":         "sources page shows the stored versions",
		"/ui/upstreams":       "upstreams page shows the upstream servers",
		"/ui/ingest?id=1":     "ingest page ingests",
		"/ui/upstreams/login": "upstreams page",
	} {
		code, body := get(t, srv, plain, path)
		if code != http.StatusForbidden || !strings.Contains(body, purpose) || !strings.Contains(body, "admin tokens") || !complete(body) {
			t.Errorf("a plain token on %s: %d\n%s", path, code, tail(body))
		}
	}
	// A form posted with a plain token's bearer header makes nothing.
	req, _ := http.NewRequest("POST", srv.URL+"/ui/tokens", strings.NewReader(url.Values{"name": {"mine"}, "admin": {"1"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+plain)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	tokens, _ := store.state.Tokens(ctx)
	if resp.StatusCode != http.StatusForbidden || slices.ContainsFunc(tokens, func(t db.APIToken) bool { return t.Name == "mine" }) {
		t.Errorf("a plain token posting the tokens form: %d; tokens %v", resp.StatusCode, tokens)
	}

	// Through the login form: the same pages.
	c := login(t, srv, plain)
	for path, want := range map[string]int{"/ui/": 200, "/ui/section?lang=go&id=Slice_expressions": 200, "/ui/tokens": 403, "/ui/sources": 403} {
		resp, err := c.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("a plain token's session on %s: %d, want %d", path, resp.StatusCode, want)
		}
	}

	// A token whose tools do not include the page's tool.
	if code, _ := get(t, srv, searchOnly, "/ui/search?q=slice"); code != http.StatusOK {
		t.Errorf("a search_spec token's search: %d", code)
	}
	if code, body := get(t, srv, searchOnly, "/ui/section?lang=go&id=Slice_expressions"); code != http.StatusForbidden || !strings.Contains(body, "get_section") {
		t.Errorf("a search_spec token's section: %d", code)
	}
	if code, _ := get(t, srv, vaultOnly, "/ui/"); code != http.StatusForbidden {
		t.Errorf("a vault_read token's search: %d", code)
	}
	if code := loginStatus(t, srv, vaultOnly); code != http.StatusForbidden {
		t.Errorf("logging in with a vault_read token: %d, want 403", code)
	}
}

// loginStatus posts the login form with token and returns the status.
func loginStatus(t *testing.T, srv *httptest.Server, token string) int {
	t.Helper()
	code, body := get(t, srv, "", "/ui/login")
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(body)
	if code != http.StatusOK || m == nil {
		t.Fatalf("the login form: %d", code)
	}
	req, _ := http.NewRequest("POST", srv.URL+"/ui/login", strings.NewReader(url.Values{"token": {token}, "csrf": {m[1]}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(&http.Cookie{Name: loginCookie, Value: m[1]})
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestSessionRoleIsReadOnEveryRequest: a session's role is its token's on
// each request, never the one it logged in with. An admin subject demoted
// (a JWT subject whose admin flag langspec.json drops) keeps searching but
// is refused the tokens page from its next request; a non-admin's session
// never reaches it.
func TestSessionRoleIsReadOnEveryRequest(t *testing.T) {
	var mu sync.Mutex
	demoted := false
	srv, store, admin, plain := newTestUIWith(t, func(o *Options) {
		inner := o.Verifier
		o.Verifier = func(ctx context.Context, token string, r *http.Request) (*auth.TokenInfo, error) {
			info, err := inner(ctx, token, r)
			if err != nil {
				return nil, err
			}
			mu.Lock()
			defer mu.Unlock()
			for k, v := range info.Extra {
				if s, ok := v.(teamauth.Subject); ok && demoted {
					s.Admin = false
					info.Extra[k] = s
				}
			}
			return info, nil
		}
	})
	status := func(c *http.Client, path string) int {
		t.Helper()
		resp, err := c.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	reader := login(t, srv, plain)
	if code := status(reader, "/ui/tokens"); code != http.StatusForbidden {
		t.Errorf("a non-admin's session on the tokens page: %d, want 403", code)
	}
	c := login(t, srv, admin)
	if code := status(c, "/ui/tokens"); code != http.StatusOK {
		t.Fatalf("an admin's session: %d", code)
	}
	mu.Lock()
	demoted = true
	mu.Unlock()
	if code := status(c, "/ui/tokens"); code != http.StatusForbidden {
		t.Errorf("the demoted admin's session on the tokens page: %d, want 403", code)
	}
	if code := status(c, "/ui/"); code != http.StatusOK {
		t.Errorf("the demoted admin's session searching: %d, want 200", code)
	}
	mu.Lock()
	demoted = false
	mu.Unlock()
	if code := status(c, "/ui/tokens"); code != http.StatusOK {
		t.Errorf("promoted again: %d, want 200", code)
	}
	// Revoked, the session ends (TestSessionEndsWithItsToken for admins).
	store.state.RevokeToken(context.Background(), "alice", time.Now())
	if code := status(reader, "/ui/"); code != http.StatusUnauthorized {
		t.Errorf("a revoked non-admin's session: %d, want 401", code)
	}
}

// TestIngestJobElapsed: a job's time is from its start to its end, however
// long after the page is shown.
func TestIngestJobElapsed(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	j := &ingestJob{ID: 1, Language: "go", Doc: "spec", Started: t0}
	if v := j.view(t0.Add(time.Second)); v.Done || v.Elapsed != time.Second {
		t.Errorf("running: %+v", v)
	}
	j.finish(ingest.Report{Version: "go1.26"}, nil, t0.Add(3422*time.Millisecond))
	for _, shown := range []time.Duration{3422 * time.Millisecond, 11863 * time.Millisecond, time.Hour} {
		if v := j.view(t0.Add(shown)); !v.Done || v.Elapsed != 3422*time.Millisecond {
			t.Errorf("shown %s after the start: elapsed %s, want 3.422s", shown, v.Elapsed)
		}
	}
}

// TestIngestPage runs ingests from the page on a clock the test moves:
// the time shown is the job's own, however late the page is reloaded; a
// failure says what to do from the page, and which command to run
// elsewhere, not a flag the page has no field for.
func TestIngestPage(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	advance := func(d time.Duration) {
		mu.Lock()
		now = now.Add(d)
		mu.Unlock()
	}
	fail := errors.New("")
	srv, _, admin, _ := newTestUIWith(t, func(o *Options) {
		o.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		o.Sources = []ingest.SourceSpec{{Language: "go", Doc: "spec"}, {Language: "demo", Doc: "broken"}}
		o.Ingest = func(ctx context.Context, language, doc string, progress func(string, bool)) (ingest.Report, error) {
			progress("page.html", false)
			advance(3422 * time.Millisecond)
			if doc == "broken" {
				fail = apperr.New(apperr.Unavailable, "pass a local copy with --from", "%s/%s has no local copy and the network is not in use", language, doc)
				return ingest.Report{}, fail
			}
			return ingest.Report{Language: language, Doc: doc, Version: "go1.26", Status: db.Created}, nil
		}
	})
	start := func(lang, doc string) string {
		t.Helper()
		req, _ := http.NewRequest("POST", srv.URL+"/ui/ingest", strings.NewReader(url.Values{"language": {lang}, "doc": {doc}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Authorization", "Bearer "+admin)
		resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		loc := resp.Header.Get("Location")
		if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/ui/ingest?id=") {
			t.Fatalf("starting an ingest: %d %q", resp.StatusCode, loc)
		}
		// Wait for the job to end.
		for range 500 {
			if _, body := get(t, srv, admin, loc); !strings.Contains(body, "Reading…") {
				return loc
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatal("the ingest never ended")
		return ""
	}
	loc := start("go", "spec")
	advance(8441 * time.Millisecond) // the page reloaded 8.441 s later
	if _, body := get(t, srv, admin, loc); !strings.Contains(body, "Done in 3.422s") {
		t.Errorf("after a reload:\n%s", tail(body))
	}

	loc = start("demo", "broken")
	advance(time.Minute)
	_, body := get(t, srv, admin, loc)
	for _, w := range []string{"Failed after 3.422s: unavailable: demo/broken has no local copy and the network is not in use",
		`<a href="/ui/sources">Sources</a> page`, "run this command on the machine that holds the server's database",
		"ingest demo --doc broken --from PATH</p>"} {
		if !strings.Contains(body, w) {
			t.Errorf("the failed ingest's page lacks %q:\n%s", w, body)
		}
	}
	if strings.Contains(body, "pass a local copy with --from") {
		t.Errorf("the failed ingest's page sends its user to a flag it has no field for:\n%s", body)
	}
}
