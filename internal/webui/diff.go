package webui

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/specdiff"
)

type diffPage struct {
	page
	// Docs are the documents with two complete versions or more, the
	// form's choice; Single the others ("go/spec (go1.26)"), named when
	// there is nothing to compare.
	Docs   []diffDoc
	Single []string
	// Doc ("language/doc"), From, To, Section and Query are the form's
	// values; Versions the chosen document's complete versions, newest
	// first, for the version selects.
	Doc, From, To, Section, Query string
	Versions                      []string
	// Limit is the items a page asked for; 0 for the default.
	Limit  int
	Answer *specdiff.Answer
	// Items are the answer's page of items, each with its number and the
	// link to its section's whole diff when sentences were left out.
	Items []diffItem
	// First and Last number the page's items; Prev and Next link the
	// pages around it ("" at either end).
	First, Last int
	Prev, Next  string
	Notes       []noteView
}

type diffDoc struct{ Value, Label string }

type diffItem struct {
	specdiff.PageItem
	N int
	// Whole links the diff of this item's section alone, which carries
	// every changed sentence; "" when nothing was left out.
	Whole string
}

// diff shows what changed in one document between two stored versions:
// the spec_diff tool in a browser.
func (u *UI) diff(w http.ResponseWriter, r *http.Request, s *session) {
	ctx := r.Context()
	svc := u.o.SpecOf(ctx)
	p := diffPage{page: newPage("Diff", s), Section: strings.TrimSpace(r.FormValue("section")),
		Query: strings.TrimSpace(r.FormValue("q"))}
	vs, err := svc.Versions(ctx, "")
	if err != nil {
		p.Error = err.Error()
		u.renderStatus(w, u.statusOf(err), "diff", p)
		return
	}
	versions := map[string][]string{} // language/doc → complete versions, newest first
	var order []string
	names := map[string]string{}
	for _, v := range vs { // by language, doc, newest first
		if !v.Complete {
			continue // never compared: a diff reads complete versions only
		}
		key := v.Language + "/" + v.Doc
		if _, ok := versions[key]; !ok {
			order = append(order, key)
			names[key] = v.DisplayName
		}
		versions[key] = append(versions[key], v.Version)
	}
	for _, key := range order {
		if len(versions[key]) < 2 {
			p.Single = append(p.Single, key+" ("+versions[key][0]+")")
			continue
		}
		label := key
		if names[key] != "" {
			label = names[key] + " (" + key + ")"
		}
		p.Docs = append(p.Docs, diffDoc{Value: key, Label: label})
	}
	if len(p.Docs) == 0 {
		u.render(w, "diff", p) // the page says how to store a second version
		return
	}
	asked := strings.TrimSpace(r.FormValue("doc"))
	p.Doc = asked
	if p.Doc == "" {
		p.Doc = p.Docs[0].Value
	}
	if !slices.ContainsFunc(p.Docs, func(d diffDoc) bool { return d.Value == p.Doc }) {
		var docs []string
		for _, d := range p.Docs {
			docs = append(docs, d.Value)
		}
		p.Error = apperr.New(apperr.NotFound, "documents with two versions or more: "+strings.Join(docs, ", ")+
			"; store another with langspec ingest LANGUAGE --from OLDER_COPY --version-label VERSION",
			"no document %s with two complete versions is stored", apperr.Quote(p.Doc)).Error()
		p.Doc = p.Docs[0].Value
		p.Versions = versions[p.Doc]
		p.From, p.To = p.Versions[1], p.Versions[0]
		u.renderStatus(w, http.StatusNotFound, "diff", p)
		return
	}
	p.Versions = versions[p.Doc]
	p.From, p.To = strings.TrimSpace(r.FormValue("from")), strings.TrimSpace(r.FormValue("to"))
	// Without script the version selects cannot follow a change of
	// document: versions of another one fall back to this one's newest.
	for _, v := range []string{p.From, p.To} {
		if v != "" && !slices.Contains(p.Versions, v) {
			p.Notice = fmt.Sprintf("%s has no version %s: comparing its two newest, %s and %s.", p.Doc, v, p.Versions[1], p.Versions[0])
			p.From, p.To = "", ""
			break
		}
	}
	if p.To == "" {
		p.To = p.Versions[0]
	}
	if i := slices.Index(p.Versions, p.To); p.From == "" && i+1 < len(p.Versions) {
		p.From = p.Versions[i+1]
	}
	offset, err := formInt(r, "offset", 0)
	if err == nil {
		p.Limit, err = formInt(r, "limit", 0)
	}
	if err != nil {
		p.Error = err.Error()
		u.renderStatus(w, http.StatusBadRequest, "diff", p)
		return
	}
	if asked == "" {
		u.render(w, "diff", p) // the form, its defaults chosen
		return
	}
	language, doc, _ := strings.Cut(p.Doc, "/")
	ans, err := svc.Diff(ctx, specdiff.Request{Language: language, Doc: doc, From: p.From, To: p.To,
		SectionID: p.Section, Query: p.Query, Offset: offset, Limit: p.Limit})
	if err != nil {
		p.Error = err.Error()
		u.renderStatus(w, u.statusOf(err), "diff", p)
		return
	}
	p.Answer, p.Notes = &ans, wholeNotes(ans.Context)
	for i, it := range ans.Items {
		item := diffItem{PageItem: it, N: ans.Offset + i + 1}
		if it.MoreSentences > 0 {
			item.Whole = p.href(it.SectionID, "", 0)
		}
		p.Items = append(p.Items, item)
	}
	if len(p.Items) > 0 {
		p.First, p.Last = ans.Offset+1, ans.Offset+len(p.Items)
	}
	if ans.Offset > 0 {
		p.Prev = p.href(p.Section, p.Query, max(0, ans.Offset-cmp.Or(p.Limit, specdiff.DefaultLimit)))
	}
	if ans.Next > 0 {
		p.Next = p.href(p.Section, p.Query, ans.Next)
	}
	u.render(w, "diff", p)
}

// href links this diff with another section, query or offset.
func (p *diffPage) href(section, query string, offset int) string {
	q := url.Values{"doc": {p.Doc}, "from": {p.From}, "to": {p.To}}
	if section != "" {
		q.Set("section", section)
	}
	if query != "" {
		q.Set("q", query)
	}
	if offset > 0 {
		q.Set("offset", strconv.Itoa(offset))
	}
	if p.Limit != 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	return "/ui/diff?" + q.Encode()
}

// formInt is a whole-number form field; def when it is absent or empty.
// Errors: apperr.InvalidArgument naming the field.
func formInt(r *http.Request, name string, def int) (int, error) {
	v := strings.TrimSpace(r.FormValue(name))
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, apperr.New(apperr.InvalidArgument, "use a whole number", "%s %s is not a number", name, apperr.Quote(v))
	}
	return n, nil
}
