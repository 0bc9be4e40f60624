package completion

import (
	"context"
	"strings"
	"unicode"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/search"
)

// Section ranks, best first.
const (
	rankIDPrefix    = iota // "Slice" for Slice_expressions
	rankTitlePrefix        // "slice exp" for the title "Slice expressions"
	rankWords              // "expr" for Slice_expressions: every word of value begins a word of the id or title
)

// sections suggests section ids in scope (every stored document's latest
// version when scope is empty), in document order within a rank.
func (c *Completer) sections(ctx context.Context, scope db.Scope, value string) matches {
	var m matches
	c.outlines(ctx, scope, func(s db.SectionRow) {
		m.add(s.SectionID, sectionRank(value, s.SectionID, s.Title))
	})
	return m
}

// titles suggests section titles, for arguments that take a topic or focus
// areas in words. In a comma-separated list the last item is completed and
// the items before it are kept, so "Types, Sli" offers "Types, Slice
// expressions".
func (c *Completer) titles(ctx context.Context, scope db.Scope, value string) matches {
	head, last := "", value
	if i := strings.LastIndexByte(value, ','); i >= 0 {
		head, last = strings.TrimSpace(value[:i])+", ", value[i+1:]
	}
	last = strings.TrimSpace(last)
	var m matches
	c.outlines(ctx, scope, func(s db.SectionRow) {
		rank := -1
		switch {
		case strings.HasPrefix(fold(s.Title), fold(last)):
			rank = 0
		case wordsMatch(words(last), words(s.Title)):
			rank = 1
		}
		m.add(head+s.Title, rank)
	})
	return m
}

// outlines calls each for every section (without text) of the documents in
// scope, stopping after maxSectionsScanned. A scope naming no document reads
// every stored document's outline in turn: Outline needs one document.
func (c *Completer) outlines(ctx context.Context, scope db.Scope, each func(db.SectionRow)) {
	if c.store == nil {
		return
	}
	var docs []db.Scope
	if scope.Language != "" && scope.Doc != "" {
		docs = []db.Scope{scope}
	} else {
		langs, err := search.Languages(ctx, c.store)
		if err != nil {
			c.log.Debug("completion: languages", "err", err)
			return
		}
		for _, l := range langs {
			if scope.Language != "" && l.Language != scope.Language {
				continue
			}
			for _, d := range l.Docs {
				if scope.Doc == "" || d.Doc == scope.Doc {
					docs = append(docs, db.Scope{Language: l.Language, Doc: d.Doc, Version: scope.Version})
				}
			}
		}
	}
	scanned := 0
	for _, sc := range docs {
		if ctx.Err() != nil {
			return
		}
		_, rows, err := c.store.Outline(ctx, sc)
		if err != nil {
			// An unknown doc or version in the context, or a version only
			// some documents have: nothing to suggest from this one.
			c.log.Debug("completion: outline", "scope", sc, "err", err)
			continue
		}
		for _, r := range rows {
			if scanned == maxSectionsScanned {
				return
			}
			scanned++
			each(r)
		}
	}
}

// sectionRank ranks a section for a partial value: an id or title that
// begins with it, then one with a word for each of its words ("expr"
// finds Slice_expressions, "full slice" finds Full slice expressions). A
// space in value stands for the underscore ids use. An empty value matches
// everything, in document order.
func sectionRank(value, id, title string) int {
	v := fold(strings.TrimSpace(value))
	lid := fold(id)
	switch {
	case strings.HasPrefix(lid, v), strings.HasPrefix(lid, strings.ReplaceAll(v, " ", "_")):
		return rankIDPrefix
	case strings.HasPrefix(fold(title), v):
		return rankTitlePrefix
	case wordsMatch(words(v), append(words(id), words(title)...)):
		return rankWords
	}
	return -1
}

// words splits s into lower-case words at anything but a letter or digit.
func words(s string) []string {
	return strings.FieldsFunc(fold(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// wordsMatch reports whether every word of want begins some word of have.
func wordsMatch(want, have []string) bool {
	if len(want) == 0 {
		return false
	}
	for _, w := range want {
		found := false
		for _, h := range have {
			if strings.HasPrefix(h, w) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
