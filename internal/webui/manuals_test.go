package webui

import (
	"context"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/manual"
	"github.com/langspec/langspec/internal/manual/find"
	"github.com/langspec/langspec/internal/teamauth"
)

// fixtureManuals is the repository's manuals folder (ops-en, nodejs-en,
// kasai-hoken, …).
func fixtureManuals(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "fixtures", "manuals"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// newManualUI serves the page over the Go specification and the fixture
// manuals, the manual use cases built as the team server builds them
// (tools.Deps.ManualService: a library, its index in the page's store and
// a finder). It returns the use cases too, for a test to ask them
// directly.
func newManualUI(t *testing.T, set func(*Options)) (srv *httptest.Server, store uiStore, admin, plain string, svc *find.Service) {
	t.Helper()
	return newManualUIAt(t, fixtureManuals(t), set)
}

// newManualUIAt is newManualUI over the manuals folder dir.
func newManualUIAt(t *testing.T, dir string, set func(*Options)) (srv *httptest.Server, store uiStore, admin, plain string, svc *find.Service) {
	t.Helper()
	var holder struct{ svc *find.Service }
	srv, store, admin, plain = newTestUIWith(t, func(o *Options) {
		o.ManualsOf = func(context.Context) *find.Service { return holder.svc }
		if set != nil {
			set(o)
		}
	})
	lib, err := manual.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	finder := &find.Finder{Index: find.NewIndex(store.DB, lib, nil), Synonyms: find.NewSynonymFile(filepath.Join(dir, "synonyms.json")),
		Traces: find.NewTraces(0, 0)}
	holder.svc = &find.Service{Lib: lib, Finder: finder}
	return srv, store, admin, plain, holder.svc
}

// tokenWith makes a token that is not an admin's, with tools.
func tokenWith(t *testing.T, store uiStore, name string, tools ...string) string {
	t.Helper()
	token, hash := teamauth.NewToken()
	if err := store.CreateToken(context.Background(), name, hash, tools, false, time.Now()); err != nil {
		t.Fatal(err)
	}
	return token
}

var manualHitRE = regexp.MustCompile(`<li class="hit" data-ref="([^"]+)">`)

// manualHitRefs are the refs of a manual search page's hits, in order.
func manualHitRefs(body string) []string {
	var refs []string
	for _, m := range manualHitRE.FindAllStringSubmatch(body, -1) {
		refs = append(refs, html.UnescapeString(m[1]))
	}
	return refs
}

// TestManualSearchPageIsTheFinders: the page lists the candidates
// manual_find's trace holds, in its order, page by page (manual_hits), for
// queries in English and Japanese, in every manual and in one.
func TestManualSearchPageIsTheFinders(t *testing.T) {
	srv, _, _, plain, svc := newManualUI(t, nil)
	ctx := context.Background()
	for _, tc := range []struct{ query, manual string }{
		{"replication lag", ""},
		{"EADDRINUSE", ""},
		{"地震 保険金", "kasai-hoken"},
		{"stream backpressure", "nodejs-en"},
	} {
		sum, err := svc.Find(ctx, find.Request{Query: tc.query, ManualID: tc.manual, Hits: find.DefaultShownHits})
		if err != nil {
			t.Fatal(err)
		}
		want, err := svc.Hits(ctx, find.HitsRequest{TraceID: sum.TraceID, Limit: manualHitsShown})
		if err != nil {
			t.Fatal(err)
		}
		var refs []string
		for _, c := range want.Candidates {
			refs = append(refs, c.Ref)
		}
		code, body := get(t, srv, plain, "/ui/manuals/search?"+url.Values{"q": {tc.query}, "manual": {tc.manual}}.Encode())
		if code != http.StatusOK || !complete(body) {
			t.Fatalf("%q: %d\n%s", tc.query, code, tail(body))
		}
		if got := manualHitRefs(body); len(refs) == 0 || !slices.Equal(got, refs) {
			t.Errorf("%q in %q: the page lists\n%v\nmanual_find's trace\n%v", tc.query, tc.manual, got, refs)
		}
		if want.NextOffset > 0 {
			_, next := get(t, srv, plain, "/ui/manuals/search?"+url.Values{"q": {tc.query}, "manual": {tc.manual}, "offset": {"10"}}.Encode())
			second, _ := svc.Hits(ctx, find.HitsRequest{TraceID: sum.TraceID, Offset: 10, Limit: manualHitsShown})
			if got := manualHitRefs(next); len(got) != len(second.Candidates) || got[0] != second.Candidates[0].Ref {
				t.Errorf("%q, second page: %v", tc.query, got)
			}
			mustContain(t, "the first page", body, `rel="next"`, "offset=10")
		}
		// Each hit reads through manual_read with the ref it lists.
		first := want.Candidates[0]
		mustContain(t, tc.query, body, html.EscapeString(first.Path+"#"+first.NodeID), "lines ", "/ui/manuals/read?ref=")
		read := open(t, srv, plain, "/ui/manuals/read?"+url.Values{"ref": {first.Ref}, "q": {tc.query}}.Encode(), http.StatusOK)
		mustContain(t, "the read of "+first.Ref, read, "<h2>"+html.EscapeString(first.Title)+"</h2>", html.EscapeString(first.Ref), "Back to the search for")
	}
}

// TestManualPagesEmptyStates: the first page says what is stored and what
// to search; a search that finds nothing says where it looked and what
// to try next, in the specifications and in the manuals.
func TestManualPagesEmptyStates(t *testing.T) {
	srv, _, admin, plain, _ := newManualUI(t, nil)
	home := open(t, srv, plain, "/ui/", http.StatusOK)
	mustContain(t, "the first page", home, "What is stored", ">go<", "go1.", "Manuals", ">ops-en</a>", ">nodejs-en</a>", "files)", "Try:", "/ui/manuals/search?manual=")
	list := open(t, srv, plain, "/ui/manuals", http.StatusOK)
	mustContain(t, "the manuals page", list, "Stored manuals", ">kasai-hoken</a>", "Try:")
	mustLack(t, "the manuals page to a token that is not an admin's", list, fixtureManuals(t))
	mustContain(t, "the manuals page to an admin", open(t, srv, admin, "/ui/manuals", http.StatusOK), html.EscapeString(fixtureManuals(t)))

	// The terminal's hint, on the page: EADDRINUSE is in the manuals.
	spec := open(t, srv, plain, "/ui/search?q=EADDRINUSE", http.StatusOK)
	mustContain(t, "a specification search that finds nothing", spec, "Nothing found.", "Nothing in every stored language (go) matches “EADDRINUSE”.",
		`href="/ui/manuals/search?q=EADDRINUSE"`, "the same words in the manuals (", "langspec ingest LANGUAGE")
	mustContain(t, "a specification search with hits", open(t, srv, plain, "/ui/search?q=slice", http.StatusOK), `href="/ui/manuals/search?q=slice"`)
	mustContain(t, "a manual search with hits", open(t, srv, plain, "/ui/manuals/search?q=slice", http.StatusOK), `href="/ui/search?q=slice"`)
	inGo := open(t, srv, plain, "/ui/search?q=zzqqxxv&lang=go", http.StatusOK)
	mustContain(t, "a search of one language that finds nothing", inGo, "Nothing in the go specification matches")
	found := open(t, srv, plain, "/ui/manuals/search?q=EADDRINUSE", http.StatusOK)
	if refs := manualHitRefs(found); len(refs) == 0 || !strings.HasPrefix(refs[0], "nodejs-en/") {
		t.Errorf("the manual search for EADDRINUSE: %v", refs)
	}

	none := open(t, srv, plain, "/ui/manuals/search?q=zzqqxxvv&manual=ops-en", http.StatusOK)
	mustContain(t, "a manual search that finds nothing", none, "Nothing found.", "Nothing in the manual ops-en matches “zzqqxxvv”.",
		`href="/ui/manuals/search?q=zzqqxxvv"`, "the same words in every manual", `href="/ui/search?q=zzqqxxvv"`, "langspec ingest manuals")
	mustLack(t, "a manual search that finds nothing", none, `class="hit"`)
}

// TestManualPagesWithoutManuals: a manuals folder with nothing in it; each
// page says so, and how to add one.
func TestManualPagesWithoutManuals(t *testing.T) {
	srv, _, _, plain, _ := newManualUIAt(t, t.TempDir(), nil)
	mustContain(t, "the first page", open(t, srv, plain, "/ui/", http.StatusOK), "What is stored", "No manuals are stored", "langspec ingest manuals")
	mustContain(t, "the manuals page", open(t, srv, plain, "/ui/manuals", http.StatusOK), "No manuals are stored", "langspec ingest manuals")
	none := open(t, srv, plain, "/ui/manuals/search?q=lag", http.StatusOK)
	mustContain(t, "a search", none, "Nothing found.", "There are no manuals to search", `href="/ui/search?q=lag"`, "langspec ingest manuals")
	mustLack(t, "a search", none, "Nothing in every manual")
	mustContain(t, "a specification search", open(t, srv, plain, "/ui/search?q=zzqqxxv", http.StatusOK), "Nothing found.")
	mustLack(t, "a specification search", open(t, srv, plain, "/ui/search?q=zzqqxxv", http.StatusOK), "/ui/manuals/search?q=")
}

// TestManualPagesErrors: an unknown manual, a bad ref, a ref out of the
// manuals folder, hostile words: each a page that says what was wrong and
// what is allowed (the manual tools' own message and hint), with the
// request's status, the input escaped.
func TestManualPagesErrors(t *testing.T) {
	srv, _, _, plain, svc := newManualUI(t, nil)
	ctx := context.Background()
	_, findErr := svc.Find(ctx, find.Request{Query: "lag", ManualID: "ops-em", Hits: find.DefaultShownHits})
	_, readErr := svc.Read(ctx, find.ReadRequest{ManualID: "ops-en/runbooks/db/failover.md#no-such-node"})
	for _, tc := range []struct {
		name, path string
		status     int
		want       []string
	}{
		{"an unknown manual", "/ui/manuals/search?q=lag&manual=ops-em", http.StatusNotFound, []string{html.EscapeString(findErr.Error())}},
		{"an unknown section", "/ui/manuals/read?ref=" + url.QueryEscape("ops-en/runbooks/db/failover.md#no-such-node"), http.StatusNotFound,
			[]string{html.EscapeString(readErr.Error())}},
		{"no ref", "/ui/manuals/read", http.StatusBadRequest, []string{"ref=MANUAL_ID/PATH#NODE_ID"}},
		{"a ref out of the folder", "/ui/manuals/read?ref=" + url.QueryEscape("ops-en/../../../etc/passwd"), http.StatusBadRequest, []string{"path_outside_manuals"}},
		{"a ref with an absolute path", "/ui/manuals/read?ref=" + url.QueryEscape("ops-en//etc/passwd"), http.StatusBadRequest, nil},
		{"a hostile ref", "/ui/manuals/read?ref=" + url.QueryEscape(`<script>alert(1)</script>/x.md#"><img src=x>`), http.StatusNotFound, []string{"&lt;script&gt;"}},
		{"a hostile query", "/ui/manuals/search?q=" + url.QueryEscape(`<script>alert(1)</script>`), http.StatusOK, []string{"&lt;script&gt;alert(1)&lt;/script&gt;"}},
		{"a bad offset", "/ui/manuals/search?q=lag&offset=x", http.StatusBadRequest, []string{"offset"}},
		{"an offset past the hits", "/ui/manuals/search?q=lag&offset=100000", http.StatusBadRequest, []string{"offset is 0 to"}},
		{"a query too long", "/ui/manuals/search?q=" + strings.Repeat("a", 1001), http.StatusBadRequest, []string{"at most 1000"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := get(t, srv, plain, tc.path)
			if code != tc.status || !complete(body) {
				t.Errorf("%d, want %d\n%s", code, tc.status, tail(body))
			}
			if tc.status != http.StatusOK {
				mustContain(t, tc.name, body, `<p class="error" role="alert">`)
			}
			mustContain(t, tc.name, body, tc.want...)
			mustLack(t, tc.name, body, "<script>", "<img", "SELECT", "sqlite")
		})
	}
}

// TestManualPagesFollowTheToolMasks: a token reaches the manual pages its
// tools allow, as /mcp serves it those tools, and the navigation offers
// only those; a server without manuals offers none.
func TestManualPagesFollowTheToolMasks(t *testing.T) {
	srv, store, admin, plain, _ := newManualUI(t, nil)
	specOnly := tokenWith(t, store, "speconly", "search_spec", "get_section")
	finder := tokenWith(t, store, "finder", "manual_find")
	reader := tokenWith(t, store, "reader", "manual_find", "manual_read")
	read := "/ui/manuals/read?ref=" + url.QueryEscape("ops-en/runbooks/db/failover.md#database-failover")
	for _, tc := range []struct {
		name, token, path string
		want              int
	}{
		{"admin, the list", admin, "/ui/manuals", http.StatusOK},
		{"all tools, a read", plain, read, http.StatusOK},
		{"spec tools only, the list", specOnly, "/ui/manuals", http.StatusForbidden},
		{"spec tools only, a search", specOnly, "/ui/manuals/search?q=lag", http.StatusForbidden},
		{"spec tools only, a read", specOnly, read, http.StatusForbidden},
		{"manual_find, a search", finder, "/ui/manuals/search?q=lag", http.StatusOK},
		{"manual_find without manual_read, a read", finder, read, http.StatusForbidden},
		{"manual_find and manual_read, a read", reader, read, http.StatusOK},
		{"manual tools only, the spec search", reader, "/ui/search?q=slice", http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := get(t, srv, tc.token, tc.path)
			if code != tc.want {
				t.Fatalf("%d, want %d\n%s", code, tc.want, tail(body))
			}
			if code == http.StatusForbidden {
				mustContain(t, tc.name, body, "its tools do not include")
			}
		})
	}
	mustLack(t, "the navigation of spec tools only", open(t, srv, specOnly, "/ui/search?q=slice", http.StatusOK), `href="/ui/manuals"`, "/ui/manuals/search?q=")
	mustLack(t, "the first page of spec tools only", open(t, srv, specOnly, "/ui/", http.StatusOK), "/ui/manuals")
	finding := open(t, srv, finder, "/ui/manuals/search?q=lag", http.StatusOK)
	mustContain(t, "manual_find without manual_read", finding, `href="/ui/manuals"`, `class="hit"`)
	mustLack(t, "manual_find without manual_read", finding, "/ui/manuals/read?", `href="/ui/"`)

	// A token of the manual tools alone lands on the manuals page.
	req, _ := http.NewRequest("GET", srv.URL+"/ui/", nil)
	req.Header.Set("Authorization", "Bearer "+finder)
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/ui/manuals" {
		t.Errorf("/ui/ for a manual_find token: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if code := loginStatus(t, srv, finder); code != http.StatusSeeOther {
		t.Errorf("a manual_find token's login: %d", code)
	}

	// A server without manuals: no link, and the pages say why.
	bare, _, bareAdmin, _ := newTestUI(t)
	mustLack(t, "a server without manuals", open(t, bare, bareAdmin, "/ui/", http.StatusOK), "/ui/manuals")
	mustContain(t, "a server without manuals", open(t, bare, bareAdmin, "/ui/manuals", http.StatusNotFound), "serves no manuals")
	mustContain(t, "a server without manuals", open(t, bare, bareAdmin, read, http.StatusNotFound), "serves no manuals")
}
