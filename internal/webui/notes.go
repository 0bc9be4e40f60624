package webui

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/langspec/langspec/internal/contextnote"
)

// noteView is a context note as an answer's page shows it, below the
// answer: once, with what it covers. Its text is the user's, shown as
// text (html/template escapes it like any other string).
type noteView struct {
	Target, Text string
	Aside        bool
	// Covers says what of the answer the note covers ("results 1, 3",
	// "go/spec"); "" when it is the whole answer (a section, a diff).
	Covers string
}

// resultNotes are an answer's notes, each with the results it covers.
func resultNotes(covered []contextnote.Covered) []noteView {
	return noteViews(covered, func(hits []int) string {
		s := make([]string, len(hits))
		for i, h := range hits {
			s[i] = strconv.Itoa(h)
		}
		word := "results "
		if len(hits) == 1 {
			word = "result "
		}
		return word + strings.Join(s, ", ")
	})
}

// wholeNotes are the notes of an answer that is one document's (a section,
// a diff): what they cover is the answer itself.
func wholeNotes(covered []contextnote.Covered) []noteView {
	return noteViews(covered, func([]int) string { return "" })
}

func noteViews(covered []contextnote.Covered, covers func([]int) string) []noteView {
	var out []noteView
	for _, c := range covered {
		out = append(out, noteView{Target: c.Target, Text: c.Text, Aside: c.Aside, Covers: covers(c.Hits)})
	}
	return out
}

type contextPage struct {
	page
	Notes []contextnote.Note
	// Configured: the server reads notes (Options.Notes is set).
	Configured bool
}

// contextNotes lists the notes in force, read-only: they are edited with
// langspec context add|rm or in langspec.json.
func (u *UI) contextNotes(w http.ResponseWriter, r *http.Request, s *session) {
	p := contextPage{page: newPage("Context notes", s), Configured: u.o.Notes != nil}
	set, err := u.o.Notes.Set()
	if err != nil {
		u.o.Logger.Warn("context notes not read for the context page", "err", err)
		p.Error = "The context notes could not be read: " + err.Error()
	}
	p.Notes = set.All()
	u.render(w, "context", p)
}
