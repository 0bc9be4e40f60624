package webui

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/search"
	"github.com/langspec/langspec/internal/text/snippet"
)

type comparePage struct {
	page
	Concept string
	// Also are the form's fields for other phrasings, search.MaxAlso of
	// them, filled with those asked.
	Also []alsoField
	// PerDoc is the form's sections per language, as asked (the answer's
	// error says when it is out of range).
	PerDoc, MinPerDoc, MaxPerDoc int
	// Languages are the stored languages as the form's checkboxes.
	Languages []langChoice
	Result    *search.CompareResult
	Notes     []noteView
}

type alsoField struct {
	N     int // 1-based, for its label
	Value string
}

type langChoice struct {
	ID      string
	Checked bool
}

// compare answers one concept in each stored language's documents, side by
// side: the compare tool in a browser.
func (u *UI) compare(w http.ResponseWriter, r *http.Request, s *session) {
	ctx := r.Context()
	svc := u.o.SpecOf(ctx)
	p := comparePage{page: newPage("Compare", s), Concept: strings.TrimSpace(r.FormValue("concept")),
		PerDoc: search.DefaultComparePerDoc, MinPerDoc: 1, MaxPerDoc: search.MaxComparePerDoc}
	ids, err := svc.LanguageIDs(ctx)
	if err != nil {
		p.Error = err.Error()
		u.renderStatus(w, u.statusOf(err), "compare", p)
		return
	}
	picked := formList(r, "lang")
	for _, id := range ids {
		// None ticked (the form's first showing, or every box cleared):
		// every language, as the tool does without languages.
		p.Languages = append(p.Languages, langChoice{ID: id, Checked: len(picked) == 0 || slices.Contains(picked, id)})
	}
	also := formList(r, "also")
	for i := range max(search.MaxAlso, len(also)) {
		f := alsoField{N: i + 1}
		if i < len(also) {
			f.Value = also[i]
		}
		p.Also = append(p.Also, f)
	}
	status := http.StatusOK
	if v := strings.TrimSpace(r.FormValue("per")); v != "" {
		n, err := strconv.Atoi(v)
		hint := fmt.Sprintf("use %d to %d sections per language", p.MinPerDoc, p.MaxPerDoc)
		if err != nil {
			err = apperr.New(apperr.InvalidArgument, hint, "sections per language %s is not a number", apperr.Quote(v))
		} else if p.PerDoc = n; n < p.MinPerDoc || n > p.MaxPerDoc {
			// 0 would be the tool's default: on the form it is a mistake.
			err = apperr.New(apperr.InvalidArgument, hint, "sections per language %d is out of range", n)
		}
		if err != nil {
			p.Error = err.Error()
			u.renderStatus(w, http.StatusBadRequest, "compare", p)
			return
		}
	}
	if !r.Form.Has("concept") {
		u.render(w, "compare", p) // the form alone
		return
	}
	langs := picked
	if len(picked) == len(ids) && !slices.ContainsFunc(ids, func(id string) bool { return !slices.Contains(picked, id) }) {
		// Every one ticked is every one stored: no bound on how many.
		langs = nil
	}
	res, err := svc.Compare(ctx, search.CompareRequest{Concept: p.Concept, Also: also, Languages: langs, PerDoc: p.PerDoc,
		Snippet: snippet.Options{Mark: htmlMark}})
	if err != nil {
		p.Error, status = err.Error(), u.statusOf(err)
	} else {
		p.Result, p.Notes = &res, compareNotes(res)
	}
	u.renderStatus(w, status, "compare", p)
}

// formList is a repeated form field's non-empty values, trimmed, in order.
func formList(r *http.Request, name string) []string {
	r.ParseForm()
	var out []string
	for _, v := range r.Form[name] {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// compareNotes are a comparison's notes, each with the documents whose
// columns it covers: the answer numbers hits across the columns, which a
// reader of columns side by side cannot count.
func compareNotes(res search.CompareResult) []noteView {
	var columnOf []string // hit position - 1 → its column's language/doc
	for _, c := range res.Columns {
		for range c.Hits {
			columnOf = append(columnOf, c.Language+"/"+c.Doc)
		}
	}
	return noteViews(res.Context, func(hits []int) string {
		var cols []string
		for _, h := range hits {
			if h >= 1 && h <= len(columnOf) && !slices.Contains(cols, columnOf[h-1]) {
				cols = append(cols, columnOf[h-1])
			}
		}
		switch len(cols) {
		case 0:
			return ""
		case 1:
			return "column " + cols[0]
		}
		return "columns " + strings.Join(cols, ", ")
	})
}
