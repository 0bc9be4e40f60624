package specdiff

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/contextnote"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/search"
)

// Bounds of a since answer.
const (
	// maxSinceSections is how many sections a query's since answer covers:
	// the best hits of the newest version.
	maxSinceSections = 4
	// DefaultRulesPerSection is how many dated sentences each section of a
	// query's answer lists (the newest first); one section's lists them all.
	DefaultRulesPerSection = 6
	// sinceClipChars is how much of each dated sentence is shown in a
	// query's answer.
	sinceClipChars = 160
)

// SinceRequest asks when the rules of a section, or of the sections a
// query finds, came into a document, over every stored version.
type SinceRequest struct {
	Language  string
	Doc       string
	SectionID string // an id or title, in any stored version
	Query     string
	Notes     *contextnote.Set
}

// SinceAnswer dates the rules of some sections.
type SinceAnswer struct {
	Language string `json:"language" jsonschema:"language id"`
	Doc      string `json:"doc" jsonschema:"document id"`
	// Versions are the complete versions walked, oldest first. A rule
	// dated to the oldest was there already: it may be older still.
	Versions []string              `json:"versions" jsonschema:"the stored versions walked, oldest first; a rule dated to the first may be older"`
	Scope    string                `json:"scope" jsonschema:"one section, or the sections a query finds in the newest version"`
	Sections []SinceSection        `json:"sections" jsonschema:"each section with its dated rules"`
	Context  []contextnote.Covered `json:"context,omitempty" jsonschema:"the user's notes on this document"`
}

// SinceSection is one section's history.
type SinceSection struct {
	SectionID string `json:"section_id" jsonschema:"the section's id, in the newest version that has it"`
	Title     string `json:"title" jsonschema:"its heading"`
	URL       string `json:"url" jsonschema:"citation URL, in the newest version that has it"`
	// Since is the version it first appears in (under any id: a section
	// renamed keeps its date).
	Since   string `json:"since" jsonschema:"the version the section first appears in"`
	SinceID string `json:"since_id,omitempty" jsonschema:"its id then, when it had another"`
	Removed string `json:"removed,omitempty" jsonschema:"the version that removed the section"`
	// Rules are the sentences dated after the oldest version, in the
	// order the section has them, then the ones removed.
	Rules []SinceRule `json:"rules" jsonschema:"its sentences that came, changed or went after the oldest version"`
	// MoreRules counts the dated sentences left out of a query's answer.
	MoreRules int `json:"more_rules,omitempty" jsonschema:"dated sentences left out; pass section_id for them all"`
	// Unchanged counts the sentences as they stood in the oldest version.
	Unchanged int `json:"unchanged" jsonschema:"sentences that stand as in the oldest version"`
}

// SinceRule is one sentence dated.
type SinceRule struct {
	Since   string `json:"since" jsonschema:"the version it first appeared in"`
	Changed string `json:"changed,omitempty" jsonschema:"the version that last reworded it, when later"`
	Removed string `json:"removed,omitempty" jsonschema:"the version that removed it"`
	Moved   string `json:"moved,omitempty" jsonschema:"the section id it came from, when it moved here"`
	Class   string `json:"class" jsonschema:"rule, example or editorial: what its last change was"`
	Text    string `json:"text" jsonschema:"the sentence (as it stood last, when removed)"`
	URL     string `json:"url" jsonschema:"citation of the section in the version it first appeared in"`
	Clipped bool   `json:"clipped,omitempty" jsonschema:"true when only its start is shown"`
}

// lineage is what is known of one sentence of one section.
type lineage struct {
	since, changed, class, url, moved string
}

// sectionLine is the history of one section as the walk goes.
type sectionLine struct {
	since, sinceID, removed string
	title, url              string
	dated                   map[string]*lineage // by movedKey of the sentence as it stands
	gone                    []removedRule
}

type removedRule struct {
	lin     lineage
	text    string
	removed string
}

// Since walks every complete version of the document, oldest first, each
// compared with the next as Run does, and dates the sentences of the
// sections asked for: when each first appeared, was last reworded, moved
// in or went. Errors: as Run's for the language, document and versions;
// apperr.NotFound for a section in no version or a query that finds none.
func Since(ctx context.Context, store *db.DB, req SinceRequest) (SinceAnswer, error) {
	req.Language, req.Doc = strings.TrimSpace(req.Language), strings.TrimSpace(req.Doc)
	req.SectionID, req.Query = strings.TrimSpace(req.SectionID), strings.TrimSpace(req.Query)
	switch {
	case req.Language == "":
		return SinceAnswer{}, apperr.New(apperr.InvalidArgument, "name a language: list_languages shows them", "no language given")
	case req.SectionID == "" && req.Query == "":
		return SinceAnswer{}, apperr.New(apperr.InvalidArgument, "give section_id for one section, or query for the sections about a topic", "since needs a section or a query")
	case req.SectionID != "" && req.Query != "":
		return SinceAnswer{}, apperr.New(apperr.InvalidArgument, "give section_id for one section, or query for the sections about a topic", "section_id and query are both given")
	}
	// Every complete version, oldest first: pickVersions from the oldest
	// to the newest.
	all, err := pickVersions(ctx, store, Request{Language: req.Language, Doc: req.Doc})
	if err != nil {
		return SinceAnswer{}, err
	}
	oldest, err := pickOldest(ctx, store, req, all[len(all)-1])
	if err != nil {
		return SinceAnswer{}, err
	}
	chain, err := pickVersions(ctx, store, Request{Language: req.Language, Doc: req.Doc, From: oldest.Version, To: all[len(all)-1].Version})
	if err != nil {
		return SinceAnswer{}, err
	}
	ans := SinceAnswer{Language: req.Language, Doc: chain[0].Doc, Sections: []SinceSection{}}
	for _, v := range chain {
		ans.Versions = append(ans.Versions, v.Version)
	}
	digests := make([]db.VersionDigest, len(chain))
	for i, v := range chain {
		if digests[i], err = store.Digest(ctx, db.Scope{Language: req.Language, Doc: v.Doc, Version: v.Version}); err != nil {
			return SinceAnswer{}, err
		}
	}

	// Walk: lines holds each section of the version reached, by id.
	lines := map[string]*sectionLine{}
	for _, r := range digests[0].Sections {
		lines[r.SectionID] = &sectionLine{since: chain[0].Version, title: r.Title, url: r.URL, dated: map[string]*lineage{}}
	}
	removedLines := map[string]*sectionLine{} // sections gone, by their last id
	for i := 1; i < len(chain); i++ {
		oldRows, newRows, err := withTexts(ctx, store, digests[i-1], digests[i])
		if err != nil {
			return SinceAnswer{}, err
		}
		d, err := Compare(ctx, oldRows, newRows, Options{})
		if err != nil {
			return SinceAnswer{}, err
		}
		walkStep(lines, removedLines, d.Items, chain[i].Version)
	}

	newest := chain[len(chain)-1]
	var targets []string
	switch {
	case req.SectionID != "":
		id, err := findSection(ctx, store, req, chain)
		if err != nil {
			return SinceAnswer{}, err
		}
		targets = []string{id}
		ans.Scope = "section " + req.SectionID
	default:
		res, err := search.Search(ctx, store, search.Request{Query: req.Query, Language: req.Language, Doc: newest.Doc, Version: newest.Version, Limit: maxSinceSections})
		if err != nil {
			return SinceAnswer{}, err
		}
		for _, h := range res.Hits {
			targets = append(targets, h.SectionID)
		}
		// A section removed is in no newest hit: the best hit of each
		// older version that is gone by now is added ("core types").
		for i := len(chain) - 2; i >= 0; i-- {
			v := chain[i]
			old, err := search.Search(ctx, store, search.Request{Query: req.Query, Language: req.Language, Doc: v.Doc, Version: v.Version, Limit: 1})
			if err != nil {
				return SinceAnswer{}, err
			}
			for _, h := range old.Hits {
				if l := removedLines[h.SectionID]; l != nil && lines[h.SectionID] == nil && !slices.Contains(targets, h.SectionID) {
					targets = append(targets, h.SectionID)
				}
			}
		}
		if len(targets) == 0 {
			return SinceAnswer{}, apperr.New(apperr.NotFound, "try other or fewer words, or name a section",
				"no section of %s matches %q", newest.Version, req.Query)
		}
		ans.Scope = "sections about " + fmt.Sprintf("%q", req.Query)
	}
	texts, err := store.TextsOf(ctx, newest, targets)
	if err != nil {
		return SinceAnswer{}, err
	}
	perSection, clip := DefaultRulesPerSection, sinceClipChars
	if req.SectionID != "" {
		perSection, clip = MaxSentencesPerItem, 0
	}
	for _, id := range targets {
		l, ok := lines[id]
		if !ok {
			l = removedLines[id]
		}
		if l == nil {
			continue
		}
		s := SinceSection{SectionID: id, Title: l.title, URL: l.url, Since: l.since, SinceID: l.sinceID, Removed: l.removed, Rules: []SinceRule{}}
		var rules []SinceRule
		if l.removed == "" {
			for _, sent := range splitSentences(texts[id]) {
				if len(wordBag(sent)) < 3 {
					continue // "}", "f(i)": a line of code says nothing alone
				}
				key, _ := movedKey(sent)
				lin := l.dated[key]
				if lin == nil || lin.since == chain[0].Version && lin.changed == "" && lin.moved == "" {
					s.Unchanged++
					continue
				}
				rules = append(rules, SinceRule{Since: lin.since, Changed: lin.changed, Moved: lin.moved, Class: lin.class, Text: sent, URL: lin.url})
			}
		}
		for _, g := range l.gone {
			if len(wordBag(g.text)) < 3 {
				continue
			}
			rules = append(rules, SinceRule{Since: g.lin.since, Changed: g.lin.changed, Removed: g.removed, Class: g.lin.class, Text: g.text, URL: g.lin.url})
		}
		if len(rules) > perSection {
			// A query's answer keeps the rules about its words, then the
			// newest: what a reader is least likely to know already.
			score := relevance(rules, queryWords(req.Query))
			order := make([]int, len(rules))
			for i := range order {
				order[i] = i
			}
			slices.SortStableFunc(order, func(a, b int) int {
				if c := cmp.Compare(score[b], score[a]); c != 0 {
					return c
				}
				return db.CompareVersionStrings(rules[b].latest(), rules[a].latest())
			})
			sorted := make([]SinceRule, len(rules))
			for i, k := range order {
				sorted[i] = rules[k]
			}
			rules = sorted
			s.MoreRules = len(rules) - perSection
			rules = rules[:perSection]
		}
		for _, r := range rules {
			r.Text, r.Clipped = clipPlain(r.Text, clip)
			s.Rules = append(s.Rules, r)
		}
		ans.Sections = append(ans.Sections, s)
	}
	ans.Context = req.Notes.Cover([]contextnote.Target{{Language: req.Language, Doc: ans.Doc}})
	return ans, nil
}

// queryWords are a query's words as since looks for them in sentences:
// lower case, without their last two letters past the fifth (a crude
// stem: "integer" and "integers" meet, "stringdata" is not "string"),
// words of three letters or fewer left out.
func queryWords(q string) []string {
	var out []string
	for _, w := range lettersOnly(strings.ToLower(q)) {
		if len(w) > 3 {
			out = append(out, w[:max(min(len(w), 5), len(w)-2)])
		}
	}
	return out
}

// relevance scores each rule by the query words it holds, a word held by
// fewer of the rules counting more ("integer" over "range" in the
// section about range clauses).
func relevance(rules []SinceRule, words []string) []float64 {
	holds := make([][]bool, len(rules))
	df := make([]int, len(words))
	for i, r := range rules {
		text := strings.ToLower(r.Text)
		holds[i] = make([]bool, len(words))
		for k, w := range words {
			if strings.Contains(text, w) {
				holds[i][k] = true
				df[k]++
			}
		}
	}
	score := make([]float64, len(rules))
	for i := range rules {
		for k := range words {
			if holds[i][k] {
				score[i] += 1 / float64(df[k])
			}
		}
	}
	return score
}

// latest is the last version that did something to the rule.
func (r SinceRule) latest() string {
	return cmp3(r.Removed, r.Changed, r.Since)
}

func cmp3(a, b, c string) string {
	for _, s := range []string{a, b, c} {
		if s != "" {
			return s
		}
	}
	return ""
}

// pickOldest is the oldest complete version of the document.
func pickOldest(ctx context.Context, store *db.DB, req SinceRequest, newestStep db.VersionInfo) (db.VersionInfo, error) {
	all, err := store.Versions(ctx, req.Language)
	if err != nil {
		return db.VersionInfo{}, err
	}
	var oldest db.VersionInfo
	for _, v := range all { // newest first
		if v.Doc == newestStep.Doc && v.Complete {
			oldest = v
		}
	}
	return oldest, nil
}

// findSection resolves a section id or title in the newest version that
// has it, newest first, and returns its id there.
func findSection(ctx context.Context, store *db.DB, req SinceRequest, chain []db.VersionInfo) (string, error) {
	var firstErr error
	for i := len(chain) - 1; i >= 0; i-- {
		v := chain[i]
		r, err := store.Section(ctx, db.Scope{Language: req.Language, Doc: v.Doc, Version: v.Version}, req.SectionID)
		if err == nil {
			return r.SectionID, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return "", firstErr
}

// walkStep applies one step's items to the sections' lines.
func walkStep(lines, removedLines map[string]*sectionLine, items []Item, version string) {
	// Renames first, so that a moved sentence finds its source by the id
	// it has now.
	next := map[string]*sectionLine{}
	for _, it := range items {
		if it.Old != nil && it.New != nil && it.Old.SectionID != it.New.SectionID {
			if l := lines[it.Old.SectionID]; l != nil {
				delete(lines, it.Old.SectionID)
				if l.sinceID == "" && l.since != version {
					l.sinceID = it.Old.SectionID
				}
				next[it.New.SectionID] = l
			}
		}
	}
	for id, l := range next {
		lines[id] = l
	}
	lineOf := func(it Item) *sectionLine {
		switch {
		case it.New == nil:
			return lines[it.Old.SectionID]
		case it.Kind == KindAdded:
			l := &sectionLine{since: version, dated: map[string]*lineage{}}
			lines[it.New.SectionID] = l
			return l
		default:
			return lines[it.New.SectionID]
		}
	}
	// Moved sentences take their lineage from where they stood; they are
	// placed once every item is read, so that no source has lost them yet.
	var pending []func()
	for _, it := range items {
		l := lineOf(it)
		if l == nil {
			continue
		}
		side := it.New
		if side == nil {
			side = it.Old
		}
		l.title, l.url = side.Title, side.URL
		for _, s := range it.Sentences {
			switch s.Kind {
			case KindAdded:
				key, _ := movedKey(s.New)
				l.dated[key] = &lineage{since: version, class: s.Class, url: side.URL}
			case KindChanged:
				oldKey, _ := movedKey(s.Old)
				newKey, _ := movedKey(s.New)
				lin := l.dated[oldKey]
				if lin == nil {
					lin = &lineage{} // there from the section's start: fillOldest
				}
				delete(l.dated, oldKey)
				cp := *lin
				if s.Class != ClassEditorial {
					cp.changed, cp.class = version, s.Class
				}
				l.dated[newKey] = &cp
			case KindRemoved:
				key, _ := movedKey(s.Old)
				lin := l.dated[key]
				if lin == nil {
					lin = &lineage{}
				}
				delete(l.dated, key)
				l.gone = append(l.gone, removedRule{lin: *lin, text: s.Old, removed: version})
			case KindMoved:
				key, _ := movedKey(s.New)
				src := lines[s.From]
				var lin lineage
				if src != nil && src.dated[key] != nil {
					lin = *src.dated[key]
				}
				lin.moved = s.From
				if lin.class == "" {
					lin.class = ClassMoved
				}
				dst := l
				pending = append(pending, func() {
					if src != nil {
						delete(src.dated, key)
					}
					dst.dated[key] = &lin
				})
			}
		}
		if it.Kind == KindRemoved {
			l.removed = version
			removedLines[it.Old.SectionID] = l
			delete(lines, it.Old.SectionID)
		}
	}
	for _, f := range pending {
		f()
	}
	// A sentence of the oldest version has no lineage until it changes:
	// fill in what the walk could not know when it met it.
	for _, group := range []map[string]*sectionLine{lines, removedLines} {
		for _, l := range group {
			for _, lin := range l.dated {
				fillOldest(lin, l)
			}
			for k := range l.gone {
				fillOldest(&l.gone[k].lin, l)
			}
		}
	}
}

// fillOldest dates a lineage first met changed or removed: it stood in
// the section from the section's own start.
func fillOldest(lin *lineage, l *sectionLine) {
	if lin.since == "" {
		lin.since = l.since
	}
	if lin.url == "" {
		lin.url = l.url
	}
	if lin.class == "" {
		lin.class = ClassRule
	}
}
