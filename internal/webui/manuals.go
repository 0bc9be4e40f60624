package webui

import (
	"context"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/ingest/manualfile"
	"github.com/langspec/langspec/internal/manual"
	"github.com/langspec/langspec/internal/manual/find"
)

// The manual pages are the manual tools in a browser: the manuals stored
// (manual_list, manual_ls), a search (manual_find, then manual_hits' first
// page, as `langspec manual find` makes them) and a section read
// (manual_read), each one call of find.Service. The page adds no search
// and no ranking of its own: it shows the candidates in the order the
// finder gave them, so it answers as the command line and the tools do.

const (
	// manualHitsShown is how many candidates a manual search lists at a
	// time: `langspec manual find`'s default, a screen.
	manualHitsShown = 10
	// maxManualQueryChars is the tools' bound on a query (manual_find's
	// schema), which the page keeps too.
	maxManualQueryChars = 1000
)

// manualService is the manual use cases of the index that answers ctx;
// nil when the server serves no manuals.
func (u *UI) manualService(ctx context.Context) *find.Service {
	if u.o.ManualsOf == nil {
		return nil
	}
	return u.o.ManualsOf(ctx)
}

// noManualsServed is what a manual page says on a server without manuals.
const noManualsServed = "This server serves no manuals: it was started without a manuals folder (MANUALS_ROOT or --manuals-root, one folder of .md and .json files per manual) or without the manual toolset (--toolsets)."

// shown is an error as a page shows it: an apperr's code, message and hint,
// word for word what the command line and the tools say; anything else (a
// database failure) in words that give away nothing of the server's
// insides, statusOf logging the detail.
func (u *UI) shown(err error) string {
	if _, ok := errors.AsType[*apperr.Error](err); ok && apperr.CodeOf(err) != apperr.Internal {
		return err.Error()
	}
	return "The server could not answer this (its log says why). Try again; if it goes on, tell the server's admin."
}

// manualRow is a stored manual: its id and how many files it holds.
type manualRow struct {
	ID       string
	Files    int
	Warnings []string // files left out (manual_ls' warnings), or why the manual could not be listed
}

// storedManuals lists the manuals with their files (manual_list, then
// manual_ls of each). A manual that cannot be listed stays in the list
// with why.
func (u *UI) storedManuals(ctx context.Context, svc *find.Service) ([]manualRow, error) {
	list, err := svc.List(ctx)
	if err != nil {
		return nil, err
	}
	rows := make([]manualRow, 0, len(list.Manuals))
	for _, id := range list.Manuals {
		ls, err := svc.Ls(ctx, id)
		if err != nil {
			rows = append(rows, manualRow{ID: id, Warnings: []string{u.shown(err)}})
			continue
		}
		rows = append(rows, manualRow{ID: id, Files: len(ls.Files), Warnings: ls.Warnings})
	}
	return rows, nil
}

func manualIDs(rows []manualRow) []string {
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	return ids
}

// example is a search a page suggests, with where it goes.
type example struct{ Query, Scope, Href string }

// manualExamples are a few searches that find something: a heading of the
// first file of each of the first manuals (manual_ls, manual_toc), each
// searched in its manual.
func manualExamples(ctx context.Context, svc *find.Service, rows []manualRow) []example {
	var out []example
	for _, row := range rows {
		if len(out) == 3 {
			break
		}
		ls, err := svc.Ls(ctx, row.ID)
		if err != nil || len(ls.Files) == 0 {
			continue
		}
		toc, err := svc.Toc(ctx, row.ID, ls.Files[0])
		if err != nil {
			continue
		}
		titles := make([]string, 0, len(toc.Nodes))
		for _, n := range toc.Nodes {
			if n.Level >= 2 {
				titles = append(titles, n.Title)
			}
		}
		if q := exampleTitle(titles); q != "" {
			out = append(out, example{Query: q, Scope: row.ID, Href: "/ui/manuals/search?" + url.Values{"q": {q}, "manual": {row.ID}}.Encode()})
		}
	}
	return out
}

// exampleTitle picks a heading that reads as a search: the first of one to
// four words, from the middle of the list on (the first headings are
// often an introduction); "" when none is.
func exampleTitle(titles []string) string {
	for i := range titles {
		t := strings.TrimSpace(titles[(len(titles)/3+i)%len(titles)])
		if n := len(strings.Fields(t)); n >= 1 && n <= 4 && utf8.RuneCountInString(t) <= 32 {
			return t
		}
	}
	return ""
}

type manualsPage struct {
	page
	Query, Manual string
	// Root is the manuals folder on the server, shown to admins only.
	Root    string
	Manuals []manualRow
	// Searched: a query was run (or would have been, with manuals).
	Searched bool
	// Scope says in words what was searched: a manual, or every one.
	Scope   string
	Summary *find.Summary
	Hits    []manualHit
	// First is the number of the first hit listed (offset + 1); NextHref
	// the next page of the same search, "" on the last.
	First          int
	Total, Files   int
	NextHref       string
	Notes          []noteView
	Examples       []example
	SpecLanguages  []string // stored languages, for the specification search's link
	SearchAllHref  string   // the same words in every manual, when one was searched
	SpecSearchHref string   // the same words in the specifications
}

// manualHit is a candidate as the page lists it, with the link that reads
// it: its ref, and the search it came from (to lead back to it, and to
// tell the finder's statistics what the search led to, as manual_read's
// trace_id does).
type manualHit struct {
	find.Candidate
	ReadHref string
}

func (u *UI) manuals(w http.ResponseWriter, r *http.Request, s *session) {
	ctx := r.Context()
	p := manualsPage{page: newPage("Manuals", s), Query: strings.TrimSpace(r.FormValue("q")), Manual: strings.TrimSpace(r.FormValue("manual"))}
	svc := u.manualService(ctx)
	if svc == nil {
		p.Error = noManualsServed
		u.renderStatus(w, http.StatusNotFound, "manuals", p)
		return
	}
	if s.subject.Admin {
		p.Root = svc.Lib.Dir()
	}
	rows, err := u.storedManuals(ctx, svc)
	if err != nil {
		p.Error = u.shown(err)
		u.renderStatus(w, u.statusOf(err), "manuals", p)
		return
	}
	p.Manuals = rows
	if p.CanSearch {
		p.SpecLanguages, _ = u.o.SpecOf(ctx).LanguageIDs(ctx)
	}
	if p.Query == "" {
		p.Examples = manualExamples(ctx, svc, rows)
		u.render(w, "manuals", p)
		return
	}
	p.Title = p.Query + " · Manuals"
	p.Searched = true
	p.Scope = "every manual (" + strings.Join(manualIDs(rows), ", ") + ")"
	if p.Manual != "" {
		p.Scope = "the manual " + p.Manual
		p.SearchAllHref = "/ui/manuals/search?" + url.Values{"q": {p.Query}}.Encode()
	}
	if p.CanSearch && len(p.SpecLanguages) > 0 {
		p.SpecSearchHref = "/ui/search?" + url.Values{"q": {p.Query}}.Encode()
	}
	if len(rows) == 0 && p.Manual == "" {
		// Nothing to search: the empty state says what to add.
		u.render(w, "manuals", p)
		return
	}
	// fail shows what was wrong in place of the answer, with the
	// request's status.
	fail := func(err error) {
		p.Searched, p.Error = false, u.shown(err)
		u.renderStatus(w, u.statusOf(err), "manuals", p)
	}
	if n := utf8.RuneCountInString(p.Query); n > maxManualQueryChars {
		fail(apperr.New(apperr.InvalidArgument, "ask in fewer words", "the query has %d characters; at most %d are searched", n, maxManualQueryChars))
		return
	}
	offset := 0
	if v := r.FormValue("offset"); v != "" {
		if offset, err = strconv.Atoi(v); err != nil {
			fail(apperr.New(apperr.InvalidArgument, "offset is a whole number: the next page's, as the More link gives it", "offset %s is not a number", apperr.Quote(v)))
			return
		}
	}
	// manual_find, then manual_hits' page of its trace: `langspec manual
	// find`'s two calls (app.ManualFind), with the same requests.
	sum, err := svc.Find(ctx, find.Request{ManualID: p.Manual, Query: p.Query, Hits: find.DefaultShownHits})
	if err != nil {
		fail(err)
		return
	}
	hits, err := svc.Hits(ctx, find.HitsRequest{TraceID: sum.TraceID, Offset: offset, Limit: manualHitsShown})
	if err != nil {
		fail(err)
		return
	}
	p.Summary, p.First, p.Total, p.Files = &sum, offset+1, hits.Total, sum.Files
	back := url.Values{"q": {p.Query}, "manual": {p.Manual}, "trace": {sum.TraceID}}.Encode()
	for _, c := range hits.Candidates {
		p.Hits = append(p.Hits, manualHit{Candidate: c, ReadHref: "/ui/manuals/read?ref=" + url.QueryEscape(c.Ref) + "&" + back})
	}
	p.Notes = resultNotes(hits.Context)
	if hits.NextOffset > 0 {
		p.NextHref = "/ui/manuals/search?" + url.Values{"q": {p.Query}, "manual": {p.Manual}, "offset": {strconv.Itoa(hits.NextOffset)}}.Encode()
	}
	u.render(w, "manuals", p)
}

// manualLink is a section of the same manual file to link to.
type manualLink struct{ Ref, Title string }

// manualPart is a section read, its text as HTML.
type manualPart struct {
	find.Part
	Ref  string
	Body template.HTML
}

type manualReadPage struct {
	page
	Ref       string
	Read      *find.ReadResult
	Parts     []manualPart
	Truncated bool
	FullHref  string // the same read without the page's cut, when it cut
	Ancestors []manualLink
	Children  []manualLink
	// ChildrenHeading is what the children are: a file's contents, or a
	// section's subsections.
	ChildrenHeading string
	Prev, Next      *manualLink
	Notes           []noteView
	Query           string // the search the read came from, to lead back to
	BackHref        string
	FileRef         string
	MaxReadChars    int
}

// manualRead reads a section (or a whole file) named by the ref a manual
// search lists: manual_read with that ref, the default scope, and
// manual_read's default length unless the whole was asked for.
func (u *UI) manualRead(w http.ResponseWriter, r *http.Request, s *session) {
	ctx := r.Context()
	p := manualReadPage{page: newPage("Manual", s), Ref: strings.TrimSpace(r.FormValue("ref")), Query: strings.TrimSpace(r.FormValue("q")),
		MaxReadChars: find.MaxReadChars}
	if p.Query != "" {
		p.BackHref = "/ui/manuals/search?" + url.Values{"q": {p.Query}, "manual": {strings.TrimSpace(r.FormValue("manual"))}}.Encode()
	}
	svc := u.manualService(ctx)
	if svc == nil {
		p.Error = noManualsServed
		u.renderStatus(w, http.StatusNotFound, "manualread", p)
		return
	}
	if p.Ref == "" {
		p.Error = "Which section? Give ref=MANUAL_ID/PATH#NODE_ID, the ref a manual search lists for each hit (MANUAL_ID/PATH for a whole file)."
		u.renderStatus(w, http.StatusBadRequest, "manualread", p)
		return
	}
	req := find.ReadRequest{ManualID: p.Ref, TraceID: strings.TrimSpace(r.FormValue("trace"))}
	full := r.FormValue("full") != ""
	if full {
		req.MaxChars = find.MaxReadChars
	}
	res, err := svc.Read(ctx, req)
	if err != nil {
		p.Error = u.shown(err)
		u.renderStatus(w, u.statusOf(err), "manualread", p)
		return
	}
	p.Read = &res
	p.FileRef = manual.FormatRef(res.ManualID, res.Path, "")
	markdownFile := strings.EqualFold(pathExt(res.Path), ".md")
	for _, part := range res.Parts {
		ref := p.FileRef
		if part.NodeID != manualfile.FileID {
			ref = manual.FormatRef(res.ManualID, res.Path, part.NodeID)
		}
		p.Parts = append(p.Parts, manualPart{Part: part, Ref: ref, Body: manualHTML(part, markdownFile)})
		p.Truncated = p.Truncated || part.Truncated
	}
	if len(res.Parts) > 0 {
		p.Title = res.Parts[0].Title
	}
	if p.Truncated && !full {
		q := r.URL.Query()
		q.Set("full", "1")
		p.FullHref = "/ui/manuals/read?" + q.Encode()
	}
	p.Notes = wholeNotes(res.Context)
	if len(res.Parts) == 1 {
		toc, err := svc.Toc(ctx, res.ManualID, res.Path)
		if err != nil {
			u.o.Logger.Warn("reading a manual file's headings for the read page", "manual", res.ManualID, "path", res.Path, "err", err)
		} else {
			p.Ancestors, p.Children, p.Prev, p.Next = manualAround(res.ManualID, res.Path, res.Parts[0].NodeID, toc.Nodes)
		}
		p.ChildrenHeading = "Subsections"
		if res.Parts[0].NodeID == manualfile.FileID {
			p.ChildrenHeading = "Contents"
		}
	}
	u.render(w, "manualread", p)
}

// pathExt is the extension of a "/"-separated path's last name.
func pathExt(p string) string {
	name := p[strings.LastIndexByte(p, '/')+1:]
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i:]
	}
	return ""
}

// manualHTML renders a part read: a Markdown file's text as Markdown
// (without the section's own heading line, which the page shows as its
// title), any other file's as it is.
func manualHTML(part find.Part, markdownFile bool) template.HTML {
	if !markdownFile {
		return template.HTML("<pre>" + template.HTMLEscapeString(part.Text) + "</pre>")
	}
	text := part.Text
	if part.NodeID != manualfile.FileID {
		if first, rest, _ := strings.Cut(text, "\n"); strings.HasPrefix(strings.TrimSpace(first), "#") {
			text = rest
		}
	}
	return renderMarkdown([]byte(text))
}

// manualAround finds, in a file's headings (manual_toc), the sections
// above nodeID, its subsections, and the sections before and after it in
// document order; for the whole file (nodeID "file") its top headings.
func manualAround(manualID, path, nodeID string, nodes []manualfile.Node) (ancestors, children []manualLink, prev, next *manualLink) {
	link := func(n manualfile.Node) manualLink {
		return manualLink{Ref: manual.FormatRef(manualID, path, n.NodeID), Title: n.Title}
	}
	if nodeID == manualfile.FileID {
		for _, n := range nodes {
			if n.ParentID == "" && n.Kind == manualfile.KindHeading {
				children = append(children, link(n))
			}
		}
		return nil, children, nil, nil
	}
	at, byID := -1, make(map[string]manualfile.Node, len(nodes))
	for i, n := range nodes {
		byID[n.NodeID] = n
		if n.NodeID == nodeID {
			at = i
		}
	}
	if at < 0 {
		return nil, nil, nil, nil
	}
	if at > 0 {
		l := link(nodes[at-1])
		prev = &l
	}
	if at+1 < len(nodes) {
		l := link(nodes[at+1])
		next = &l
	}
	for _, n := range nodes {
		if n.ParentID == nodeID {
			children = append(children, link(n))
		}
	}
	seen := map[string]bool{nodeID: true}
	for id := nodes[at].ParentID; id != "" && !seen[id]; id = byID[id].ParentID {
		parent, ok := byID[id]
		if !ok {
			break
		}
		seen[id] = true
		ancestors = append([]manualLink{link(parent)}, ancestors...)
	}
	return ancestors, children, prev, next
}
