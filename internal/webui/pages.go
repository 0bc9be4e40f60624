package webui

import (
	"context"
	"html/template"
	"net/http"
	"net/url"
	"strings"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest"
	"github.com/langspec/langspec/internal/search"
	"github.com/langspec/langspec/internal/spec"
	"github.com/langspec/langspec/internal/text/snippet"
)

type searchPage struct {
	page
	Query, Language string
	Languages       []string
	Result          *search.Result
	// Notes are the context notes covering the results, each once.
	Notes []noteView
	// Stored is what the server holds, on the first page (no query).
	Stored *storedView
	// Searched says in words where a search that found nothing looked;
	// Try are the next things to try, each a link or a command.
	Searched string
	Try      []suggestion
	// ManualsHref is the same words in the manuals, below the hits, when
	// the token may search them.
	ManualsHref string
}

// suggestion is a next thing to try: a link (Href), or a command to run.
type suggestion struct{ Text, Href, Command string }

// storedView is what the first page says is stored: the specifications'
// versions and the manuals, with searches that find something in them.
type storedView struct {
	Docs          []storedDoc
	Languages     int
	Manuals       []manualRow
	ManualsServed bool // the server serves manuals and the token may search them
	SpecExamples  []example
	ManualExample []example
}

// storedDoc is a stored document: the version searched by default, and
// how many others are stored beside it.
type storedDoc struct {
	Language, Doc, DisplayName, Version string
	Sections, Others                    int
}

func (u *UI) search(w http.ResponseWriter, r *http.Request, s *session) {
	p := searchPage{page: newPage("Search", s), Query: strings.TrimSpace(r.FormValue("q")), Language: r.FormValue("lang")}
	ctx := r.Context()
	svc := u.o.SpecOf(ctx)
	p.Languages, _ = svc.LanguageIDs(ctx)
	if p.Query == "" {
		p.Stored = u.stored(ctx, svc, p.page)
		u.render(w, "search", p)
		return
	}
	p.Title = p.Query + " · Search"
	res, err := svc.Search(ctx, search.Request{Query: p.Query, Language: p.Language, Limit: 10,
		Snippet: snippet.Options{Mark: htmlMark}})
	if err != nil {
		// Shown on the page with 200, as ever; statusOf logs what is not
		// the request's fault.
		p.Error, _ = u.shown(err), u.statusOf(err)
	} else {
		p.Result, p.Notes = &res, resultNotes(res.Context)
		if len(res.Hits) == 0 {
			p.Searched, p.Try = u.nothingFound(ctx, p)
		} else if p.CanFindManuals {
			p.ManualsHref = "/ui/manuals/search?" + url.Values{"q": {p.Query}}.Encode()
		}
	}
	u.render(w, "search", p)
}

// nothingFound says where a search that found nothing looked, and what to
// try next: every language, the manuals (the command line's hint too),
// other words, another language.
func (u *UI) nothingFound(ctx context.Context, p searchPage) (string, []suggestion) {
	searched := "every stored language (" + strings.Join(p.Languages, ", ") + ")"
	if p.Language != "" {
		searched = "the " + p.Language + " specification"
	}
	if len(p.Languages) == 0 {
		searched = "the stored specifications (there are none yet)"
	}
	var try []suggestion
	if p.Language != "" && len(p.Languages) > 1 {
		try = append(try, suggestion{Text: "the same words in every language", Href: "/ui/search?" + url.Values{"q": {p.Query}}.Encode()})
	}
	if p.CanFindManuals {
		if svc := u.manualService(ctx); svc != nil {
			if list, err := svc.List(ctx); err == nil && len(list.Manuals) > 0 {
				try = append(try, suggestion{Text: "the same words in the manuals (" + strings.Join(list.Manuals, ", ") + ")",
					Href: "/ui/manuals/search?" + url.Values{"q": {p.Query}}.Encode()})
			}
		}
	}
	try = append(try, suggestion{Text: "fewer words, or the specification's own terms (a quoted phrase must match as written)"})
	try = append(try, suggestion{Text: "another language: an admin adds one with", Command: "langspec ingest LANGUAGE"})
	return searched, try
}

// stored is what the first page lists: each stored document's default
// version, the manuals, and a few searches that find something.
func (u *UI) stored(ctx context.Context, svc *spec.Service, p page) *storedView {
	v := &storedView{}
	versions, err := svc.Versions(ctx, "")
	if err != nil {
		u.o.Logger.Warn("listing the stored versions for the first page", "err", err)
	}
	at := map[string]int{}
	langs := map[string]bool{}
	for _, vi := range versions {
		key := vi.Language + "/" + vi.Doc
		i, ok := at[key]
		if !ok {
			at[key] = len(v.Docs)
			v.Docs = append(v.Docs, storedDoc{Language: vi.Language, Doc: vi.Doc, DisplayName: vi.DisplayName, Version: vi.Version, Sections: vi.SectionCount})
			langs[vi.Language] = true
			continue
		}
		d := &v.Docs[i]
		d.Others++
		if vi.Default {
			d.Version, d.Sections, d.DisplayName = vi.Version, vi.SectionCount, vi.DisplayName
		}
	}
	v.Languages = len(langs)
	for _, d := range v.Docs {
		if len(v.SpecExamples) == 3 {
			break
		}
		if q := u.specExample(ctx, svc, d); q != "" {
			v.SpecExamples = append(v.SpecExamples, example{Query: q, Scope: d.Language,
				Href: "/ui/search?" + url.Values{"q": {q}, "lang": {d.Language}}.Encode()})
		}
	}
	if m := u.manualService(ctx); m != nil && p.CanFindManuals {
		v.ManualsServed = true
		rows, err := u.storedManuals(ctx, m)
		if err != nil {
			u.o.Logger.Warn("listing the manuals for the first page", "err", err)
		}
		v.Manuals = rows
		v.ManualExample = manualExamples(ctx, m, rows)
	}
	return v
}

// specExample is a search that finds something in a stored document: a
// section title of its default version, from its outline.
func (u *UI) specExample(ctx context.Context, svc *spec.Service, d storedDoc) string {
	_, outline, err := svc.Store().Outline(ctx, db.Scope{Language: d.Language, Doc: d.Doc, Version: d.Version})
	if err != nil {
		return ""
	}
	titles := make([]string, 0, len(outline))
	for _, row := range outline {
		if row.Level >= 2 {
			titles = append(titles, row.Title)
		}
	}
	return exampleTitle(titles)
}

type sectionPage struct {
	page
	Section                                 *search.SectionResult
	SectionLang, SectionDoc, SectionVersion string
	// Body is the section's text as HTML (sectionHTML).
	Body template.HTML
	// Ancestors are the sections above this one, the document's top first:
	// its heading path, each a link. Empty when the outline could not be
	// read; the page then shows the path as text.
	Ancestors []sectionLink
	// Prev and Next are the sections before and after this one in
	// document order (a subsection follows its parent); nil at either end.
	Prev, Next *sectionLink
	// Notes are the context notes on the section's document.
	Notes []noteView
}

// sectionLink is a section of the same document version to link to.
type sectionLink struct{ ID, Title string }

func (u *UI) section(w http.ResponseWriter, r *http.Request, s *session) {
	p := sectionPage{page: newPage("Section", s)}
	svc := u.o.SpecOf(r.Context())
	res, err := svc.Section(r.Context(), search.SectionRequest{Language: r.FormValue("lang"), Doc: r.FormValue("doc"),
		Version: r.FormValue("version"), SectionID: r.FormValue("id")})
	if err != nil {
		p.Error = err.Error()
		u.renderStatus(w, http.StatusNotFound, "section", p)
		return
	}
	p.Section, p.Title, p.Body = &res, res.Citation.Title, sectionHTML(res.Text)
	p.SectionLang, p.SectionDoc, p.SectionVersion = res.Citation.Language, res.Citation.Doc, res.Citation.Version
	p.Notes = wholeNotes(res.Context)
	p.Ancestors, p.Prev, p.Next, err = around(r.Context(), svc.Store(), res.Citation)
	if err != nil {
		u.o.Logger.Warn("reading a document's outline for the section page", "language", res.Citation.Language,
			"doc", res.Citation.Doc, "version", res.Citation.Version, "err", err)
	}
	u.render(w, "section", p)
}

// around finds, in the outline of a section's document version, the
// sections above it (its heading path) and the ones before and after it in
// document order.
func around(ctx context.Context, store *db.DB, c search.Citation) (ancestors []sectionLink, prev, next *sectionLink, err error) {
	_, outline, err := store.Outline(ctx, db.Scope{Language: c.Language, Doc: c.Doc, Version: c.Version})
	if err != nil {
		return nil, nil, nil, err
	}
	at, byID := -1, make(map[string]db.SectionRow, len(outline))
	for i, row := range outline {
		byID[row.SectionID] = row
		if row.SectionID == c.SectionID {
			at = i
		}
	}
	if at < 0 {
		return nil, nil, nil, nil
	}
	if at > 0 {
		prev = &sectionLink{ID: outline[at-1].SectionID, Title: outline[at-1].Title}
	}
	if at+1 < len(outline) {
		next = &sectionLink{ID: outline[at+1].SectionID, Title: outline[at+1].Title}
	}
	seen := map[string]bool{c.SectionID: true}
	for id := outline[at].ParentID; id != "" && !seen[id]; id = byID[id].ParentID {
		parent, ok := byID[id]
		if !ok {
			break
		}
		seen[id] = true
		ancestors = append([]sectionLink{{ID: parent.SectionID, Title: parent.Title}}, ancestors...)
	}
	return ancestors, prev, next, nil
}

type sourcesPage struct {
	page
	DBPath    string
	ReadOnly  bool
	Versions  []db.VersionInfo
	Sources   []ingest.SourceSpec // what the page can ingest; none on a read-only server
	CanIngest bool
}

func (u *UI) sources(w http.ResponseWriter, r *http.Request, s *session) {
	svc := u.o.SpecOf(r.Context())
	p := sourcesPage{page: newPage("Sources", s), DBPath: svc.Store().Path(), ReadOnly: svc.Store().ReadOnly()}
	vs, err := svc.Versions(r.Context(), "")
	if err != nil {
		p.Error = err.Error()
	}
	p.Versions = vs
	p.CanIngest = u.o.Ingest != nil && !p.ReadOnly
	if p.CanIngest {
		p.Sources = u.o.Sources
	}
	u.render(w, "sources", p)
}

type tokensPage struct {
	page
	Tokens                 []db.APIToken
	NewToken, NewTokenName string
	Subjects               map[string]SubjectInfo
}

func (u *UI) tokens(w http.ResponseWriter, r *http.Request, s *session) {
	p := tokensPage{page: newPage("Tokens", s), Subjects: u.o.Subjects}
	if r.Method == http.MethodPost {
		// The command line's rule, whole (teamauth.Tokens): the name, the
		// configured subjects' names, the tools.
		name := strings.TrimSpace(r.PostFormValue("name"))
		var tools []string // none named: every tool
		if list := strings.TrimSpace(r.PostFormValue("tools")); list != "" {
			tools = strings.Split(list, ",")
		}
		rules := u.o.Tokens
		rules.Store = u.o.StateOf(r.Context())
		token, err := rules.Create(r.Context(), name, tools, r.PostFormValue("admin") != "")
		if err == nil {
			// Shown once, on this answer to the form; never again.
			p.NewToken, p.NewTokenName = token, name
			u.o.Logger.Info("token made on the management page", "name", name, "by", s.subject.Name)
		} else {
			p.Error = err.Error()
		}
	}
	status := http.StatusOK
	if p.Error != "" {
		status = http.StatusBadRequest
	}
	list, err := u.o.StateOf(r.Context()).Tokens(r.Context())
	if err != nil && p.Error == "" {
		p.Error, status = err.Error(), http.StatusInternalServerError
	}
	p.Tokens = list
	u.renderStatus(w, status, "tokens", p)
}

func (u *UI) revoke(w http.ResponseWriter, r *http.Request, s *session) {
	name := r.PostFormValue("name")
	if err := u.o.StateOf(r.Context()).RevokeToken(r.Context(), name, u.o.Now()); err != nil {
		p := tokensPage{page: newPage("Tokens", s)}
		p.Error = err.Error()
		p.Tokens, _ = u.o.StateOf(r.Context()).Tokens(r.Context())
		u.renderStatus(w, http.StatusBadRequest, "tokens", p)
		return
	}
	u.o.Logger.Info("token revoked on the management page", "name", name, "by", s.subject.Name)
	http.Redirect(w, r, "/ui/tokens", http.StatusSeeOther)
}

type upstreamsPage struct {
	page
	Upstreams []upstreamRow
	Secrets   []db.SealedSecret // names, subjects and dates only are rendered
}

type upstreamRow struct {
	Name, Type, State, LastError string
	Tools                        int
	OAuth                        bool
}

func (u *UI) upstreams(w http.ResponseWriter, r *http.Request, s *session) {
	p := u.upstreamsData(r, s)
	switch r.FormValue("done") {
	case "login":
		p.Notice = "Logged in."
	case "logout":
		p.Notice = "Logged out."
	}
	u.render(w, "upstreams", p)
}

func (u *UI) upstreamsData(r *http.Request, s *session) upstreamsPage {
	p := upstreamsPage{page: newPage("Upstreams", s)}
	if u.o.Upstreams != nil {
		for _, st := range u.o.Upstreams.Status() {
			p.Upstreams = append(p.Upstreams, upstreamRow{Name: st.Name, Type: st.Type, State: string(st.State), LastError: st.LastError,
				Tools: st.Tools, OAuth: u.o.Upstreams.UsesOAuth(st.Name)})
		}
	}
	secrets, err := u.o.StateOf(r.Context()).Secrets(r.Context())
	if err != nil {
		p.Error = err.Error()
	}
	for _, sec := range secrets {
		// Never hand a ciphertext to a template either.
		p.Secrets = append(p.Secrets, db.SealedSecret{Name: sec.Name, Subject: sec.Subject, UpdatedAt: sec.UpdatedAt})
	}
	return p
}
