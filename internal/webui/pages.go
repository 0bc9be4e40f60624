package webui

import (
	"context"
	"html/template"
	"net/http"
	"strings"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest"
	"github.com/langspec/langspec/internal/search"
	"github.com/langspec/langspec/internal/text/snippet"
)

type searchPage struct {
	page
	Query, Language string
	Languages       []string
	Result          *search.Result
	// Notes are the context notes covering the results, each once.
	Notes []noteView
}

func (u *UI) search(w http.ResponseWriter, r *http.Request, s *session) {
	p := searchPage{page: newPage("Search", s), Query: strings.TrimSpace(r.FormValue("q")), Language: r.FormValue("lang")}
	svc := u.o.SpecOf(r.Context())
	p.Languages, _ = svc.LanguageIDs(r.Context())
	if p.Query != "" {
		res, err := svc.Search(r.Context(), search.Request{Query: p.Query, Language: p.Language, Limit: 10,
			Snippet: snippet.Options{Mark: htmlMark}})
		if err != nil {
			p.Error = err.Error()
		} else {
			p.Result, p.Notes = &res, resultNotes(res.Context)
		}
	}
	u.render(w, "search", p)
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
