package specdiff

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/contextnote"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/search"
)

// Bounds of a diff request.
const (
	DefaultLimit = 20  // items a page at most, unless the page's bytes end it first
	MaxLimit     = 100 // items a page at most
	// DefaultSentencesPerItem is how many changed sentences each item of a
	// page carries in a whole-document diff; one section's diff carries
	// them all. A page of sections stays a page, not a wall.
	DefaultSentencesPerItem = 1
	// DefaultPageBytes bounds a page as a model reads it over MCP: its
	// items' text (each sentence once, its citation) and structured content
	// (each item's fields, sentences only for one section), estimated by
	// pageBytes. 6,000 leaves room for the counts and keeps a page under
	// 8 KB; one item always makes a page.
	DefaultPageBytes = 6000
	// clipChars is how much of a sentence a page of many sections shows:
	// a changed one around its marks, an added or removed one from its
	// start. One section's diff shows them whole.
	clipChars = 140
	// maxQueryHits is how many sections of each version a query keeps.
	maxQueryHits = 20
	// maxTextBytes bounds the texts a diff reads: only sections whose
	// hashes differ are read, so this is reached only when most of a huge
	// document changed, and then the request must be narrowed.
	maxTextBytes = 64 << 20
)

// Request asks what changed in one document between two stored versions.
type Request struct {
	Language string
	Doc      string // "" when the language has one document
	From     string // the older version; "" for the one before To
	To       string // the newer version; "" for the newest complete one
	// SectionID narrows the diff to one section (its id or title, in either
	// version), with every changed sentence.
	SectionID string
	// Query narrows it to the sections a search for it finds in either
	// version.
	Query string
	// Class keeps only the items of one class (ClassRule…); "" keeps all.
	Class  string
	Offset int
	Limit  int // 0: DefaultLimit
	// SentencesPerItem bounds each item's sentences in a diff of more than
	// one section; 0: DefaultSentencesPerItem.
	SentencesPerItem int
	// SentencesInJSON keeps each item's sentences in Sentences on a page of
	// many sections too (the CLI's --json). Without it only one section's
	// diff has them there: a page of many gives them in its text, which a
	// model reads (Shown), and the structured copy says how many there are.
	SentencesInJSON bool
	// PageBytes bounds the page as a model reads it, text and structured
	// content together; 0: DefaultPageBytes when
	// Limit is 0 too (a limit asked for is kept), < 0: only Limit bounds
	// the page.
	PageBytes int
	Notes     *contextnote.Set
}

// VersionRef is one side of a diff.
type VersionRef struct {
	Version  string `json:"version" jsonschema:"the version"`
	Source   string `json:"source" jsonschema:"where it was read from"`
	Sections int    `json:"sections" jsonschema:"sections it holds"`
}

// Place names a section in one version, for citing it.
type Place struct {
	SectionID string `json:"section_id" jsonschema:"the section's anchor"`
	Title     string `json:"title" jsonschema:"the section's heading"`
	URL       string `json:"url" jsonschema:"citation URL"`
}

// Sentence is one changed sentence as a page gives it: one form only.
type Sentence struct {
	Kind  string `json:"kind" jsonschema:"changed, added, removed or moved"`
	Class string `json:"class" jsonschema:"rule, example, moved or editorial"`
	// Text is the sentence: for changed, marked word by word as
	// SentenceChange.Marked is (its two sides are read back from it).
	Text    string `json:"text" jsonschema:"changed: the sentence with [-old-]{+new+} marks (a backslash makes the next character literal); else the sentence"`
	From    string `json:"from,omitempty" jsonschema:"moved: the section id it left, in the older version"`
	Clipped bool   `json:"clipped,omitempty" jsonschema:"true when only part of the sentence is shown (…); pass section_id for it whole"`
}

// PageItem is an item of a page: one section's change, cited once.
type PageItem struct {
	Kind  string `json:"kind" jsonschema:"added, removed, renamed or changed"`
	Class string `json:"class" jsonschema:"rule, example, moved or editorial"`
	// Release is the version that made the change: the newer side of the
	// step it was found in. A diff over several stored versions compares
	// each with the next.
	Release   string `json:"release,omitempty" jsonschema:"the version that made this change, when several were walked"`
	SectionID string `json:"section_id" jsonschema:"the section's id in the newer version (the older when removed)"`
	Title     string `json:"title" jsonschema:"its heading"`
	URL       string `json:"url" jsonschema:"citation URL (the older version's when removed)"`
	// Old is the older side when its id, title or URL differ.
	Old           *Place     `json:"old,omitempty" jsonschema:"the section in the older version, when its id, title or url differ"`
	Similarity    float64    `json:"similarity,omitempty" jsonschema:"how alike the two texts are, 0 to 1, below 1 when the text changed"`
	Sentences     []Sentence `json:"sentences,omitempty" jsonschema:"changed sentences, the most substantial first, when one section was asked for (else in the text)"`
	MoreSentences int        `json:"more_sentences,omitempty" jsonschema:"changed sentences left out; pass section_id for them all"`
	MovedOut      []MovedOut `json:"moved_out,omitempty" jsonschema:"sentences that left for other sections, listed there as moved"`
	Truncated     bool       `json:"truncated,omitempty" jsonschema:"true when the text was too long to compare whole"`

	from  string     // the older version of the step
	to    string     // the newer version of the step
	shown []Sentence // the sentences the text shows, whether or not Sentences has them
}

// ToVersion is the version the item's newer side is from ("" when the
// section was removed).
func (p PageItem) ToVersion() string { return p.to }

// ShownSentences are the sentences a page shows of the item, in the text
// when not in Sentences.
func (p PageItem) ShownSentences() []Sentence {
	if p.shown == nil {
		return p.Sentences
	}
	return p.shown
}

// Step counts the changes one release made, in a diff over several.
type Step struct {
	From    string         `json:"from" jsonschema:"the version before"`
	To      string         `json:"to" jsonschema:"the version that made the changes"`
	Classes map[string]int `json:"classes" jsonschema:"sections changed, by class"`
}

// Answer is one page of a diff.
type Answer struct {
	Language  string                `json:"language" jsonschema:"language id"`
	Doc       string                `json:"doc" jsonschema:"document id"`
	From      VersionRef            `json:"from" jsonschema:"the older version"`
	To        VersionRef            `json:"to" jsonschema:"the newer version"`
	Steps     []Step                `json:"steps,omitempty" jsonschema:"when versions are stored between from and to: each release's changes, oldest first"`
	Scope     string                `json:"scope" jsonschema:"what was compared: the document, one section, or the sections a query finds"`
	Unchanged bool                  `json:"unchanged" jsonschema:"true when nothing in scope changed"`
	Summary   Summary               `json:"summary" jsonschema:"counts in scope, overall and by chapter"`
	Items     []PageItem            `json:"items" jsonschema:"this page of the sections that differ: rules first, then examples, moved text, editorial edits"`
	Total     int                   `json:"total" jsonschema:"sections that differ in scope (in every step)"`
	Offset    int                   `json:"offset" jsonschema:"index of the first item of this page"`
	Next      int                   `json:"next_offset,omitempty" jsonschema:"offset of the next page; absent on the last"`
	Notices   []string              `json:"notices,omitempty" jsonschema:"what the answer lacks"`
	Context   []contextnote.Covered `json:"context,omitempty" jsonschema:"the user's notes on this document"`
}

// Run answers req over store. When versions are stored between From and
// To, each is compared with the next, and every change is said with the
// release that made it. Errors: apperr.InvalidArgument for bad bounds, a
// class that is none, the same version twice, versions in the wrong order
// (the hint gives the right one) or an offset past the end;
// apperr.NotFound for an unknown language, document or version, one
// version only, a section in neither version, or a query that finds no
// section; ctx.Err() once ctx ends.
func Run(ctx context.Context, store *db.DB, req Request) (Answer, error) {
	if err := check(&req); err != nil {
		return Answer{}, err
	}
	chain, err := pickVersions(ctx, store, req)
	if err != nil {
		return Answer{}, err
	}
	from, to := chain[0], chain[len(chain)-1]
	digests := make([]db.VersionDigest, len(chain))
	for i, v := range chain {
		if digests[i], err = store.Digest(ctx, db.Scope{Language: req.Language, Doc: v.Doc, Version: v.Version}); err != nil {
			return Answer{}, err
		}
	}
	ans := Answer{Language: req.Language, Doc: to.Doc, Scope: "document", Items: []PageItem{},
		From: VersionRef{Version: from.Version, Source: from.SourceURL, Sections: len(digests[0].Sections)},
		To:   VersionRef{Version: to.Version, Source: to.SourceURL, Sections: len(digests[len(chain)-1].Sections)}}
	keep, err := narrow(ctx, store, req, chain, &ans)
	if err != nil {
		return Answer{}, err
	}
	if req.Class != "" {
		ans.Scope += ", " + req.Class + " changes only"
	}
	var items []Item
	var releases []string
	var summaries []Summary
	var lastNew []db.SectionRow
	for i := 1; i < len(chain); i++ {
		oldRows, newRows, err := withTexts(ctx, store, digests[i-1], digests[i])
		if err != nil {
			return Answer{}, err
		}
		d, err := Compare(ctx, oldRows, newRows, Options{})
		if err != nil {
			return Answer{}, err
		}
		stepItems := d.Items
		if keep != nil {
			stepItems = slices.DeleteFunc(stepItems, func(it Item) bool {
				return !(it.Old != nil && keep[it.Old.SectionID] || it.New != nil && keep[it.New.SectionID])
			})
		}
		summaries = append(summaries, d.Summary)
		if len(chain) > 2 {
			st := Step{From: chain[i-1].Version, To: chain[i].Version, Classes: map[string]int{}}
			for _, it := range stepItems {
				st.Classes[it.Class]++
			}
			ans.Steps = append(ans.Steps, st)
		}
		for range stepItems {
			releases = append(releases, chain[i].Version)
		}
		items = append(items, stepItems...)
		lastNew = newRows
	}
	if keep == nil && len(summaries) == 1 {
		ans.Summary = summaries[0]
	} else {
		ans.Summary = summarize(items, summaries, keep, lastNew)
	}
	if req.Class != "" {
		kept, kr := items[:0], releases[:0]
		for i, it := range items {
			if it.Class == req.Class {
				kept, kr = append(kept, it), append(kr, releases[i])
			}
		}
		items, releases = kept, kr
	}
	// Substance first: rules, then examples, moved text and editorial
	// edits. Over several releases, the oldest release first, so that the
	// page reads as the history did. Within a class, what a reader knows
	// least first: sections added (all new), then the others, the biggest
	// change first (weight), so that a rewritten or removed rule comes
	// before a word changed. Ties keep the newer version's
	// document order.
	order := make([]int, len(items))
	weights := make([]int, len(items))
	for i := range order {
		order[i], weights[i] = i, weight(items[i])
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if c := cmp.Compare(classRank(items[a].Class), classRank(items[b].Class)); c != 0 {
			return c
		}
		if c := db.CompareVersionStrings(releases[a], releases[b]); c != 0 {
			return c
		}
		if c := cmp.Compare(kindRank(items[a].Kind), kindRank(items[b].Kind)); c != 0 {
			return c
		}
		return cmp.Compare(weights[b], weights[a])
	})
	ans.Total, ans.Offset, ans.Unchanged = len(items), req.Offset, len(items) == 0
	if err := checkOffset(req.Offset, len(items)); err != nil {
		return Answer{}, err
	}
	perItem := req.SentencesPerItem
	clip := clipChars
	if req.SectionID != "" {
		perItem, clip = MaxSentencesPerItem, 0
	}
	size := 0
	for k := req.Offset; k < len(items) && k < req.Offset+req.Limit; k++ {
		i := order[k]
		release := ""
		if len(chain) > 2 {
			release = releases[i]
		}
		p := pageItem(items[i], release, perItem, clip)
		if req.SectionID == "" && !req.SentencesInJSON {
			p.Sentences = nil
		}
		if req.PageBytes > 0 {
			n := pageBytes(p)
			if k > req.Offset && size+n > req.PageBytes {
				break
			}
			size += n
		}
		ans.Items = append(ans.Items, p)
	}
	if end := req.Offset + len(ans.Items); end < len(items) {
		ans.Next = end
	}
	ans.Context = req.Notes.Cover([]contextnote.Target{{Language: req.Language, Doc: to.Doc}})
	return ans, nil
}

// pageBytes estimates what an item costs a model over MCP: its structured
// fields as JSON, and its text: a line with its title and citation, and
// each sentence shown on a line of its own.
func pageBytes(p PageItem) int {
	b, _ := json.Marshal(p)
	n := len(b) + len(p.Kind) + len(p.Title) + len(p.Class) + len(p.URL) + 16
	for _, s := range p.shown {
		n += len(s.Text) + 6
	}
	if p.MoreSentences > 0 {
		n += 40 + len(p.SectionID)
	}
	return n
}

// kindRank orders the kinds within a class: new sections first, then
// the rest.
func kindRank(kind string) int {
	if kind == KindAdded {
		return 0
	}
	return 1
}

// weight is how much an item changes of its class, in half sentences:
// each sentence of that class it adds, rewords or moves counts two, each
// it removes one. A rule rewritten removes about as much as it adds, so
// counting removals whole would rank a rewrite twice as high as new rules
// of the same length; a removal alone still counts.
func weight(it Item) int {
	n := 0
	for _, s := range it.Sentences {
		switch {
		case s.Class != it.Class:
		case s.Kind == KindRemoved:
			n++
		default:
			n += 2
		}
	}
	for _, m := range it.MovedOut {
		n += 2 * m.Sentences
	}
	return n
}

// checkOffset: an offset names an item, so it is below the total (0 is
// always allowed: an empty answer has a first page).
func checkOffset(offset, total int) error {
	if offset == 0 || offset < total {
		return nil
	}
	if total == 0 {
		return apperr.New(apperr.InvalidArgument, "use offset 0", "offset %d: nothing differs, so there is one page", offset)
	}
	return apperr.New(apperr.InvalidArgument, fmt.Sprintf("use an offset from 0 to %d", total-1),
		"offset %d is past the %d sections that differ", offset, total)
}

// pageItem is it as a page gives it: cited once, its sentences in one
// form, the most substantial first, at most perItem, each clipped to clip
// characters (0: whole).
func pageItem(it Item, release string, perItem, clip int) PageItem {
	p := PageItem{Kind: it.Kind, Class: it.Class, Release: release, MovedOut: it.MovedOut, Truncated: it.Truncated}
	side := it.New
	if side == nil {
		side = it.Old
	}
	p.SectionID, p.Title, p.URL = side.SectionID, side.Title, side.URL
	if it.Old != nil {
		p.from = it.Old.Version
	}
	if it.New != nil {
		p.to = it.New.Version
	}
	if it.Old != nil && it.New != nil {
		if it.Old.SectionID != it.New.SectionID || it.Old.Title != it.New.Title || it.Old.URL != it.New.URL {
			p.Old = &Place{SectionID: it.Old.SectionID, Title: it.Old.Title, URL: it.Old.URL}
		}
		p.Similarity = math.Round(it.Similarity*1000) / 1000
		if it.TextChanged && p.Similarity >= 1 {
			p.Similarity = 0.999 // the words are alike, the text is not: never say 1
		}
	}
	sents := slices.Clone(it.Sentences)
	slices.SortStableFunc(sents, func(a, b SentenceChange) int { return cmp.Compare(classRank(a.Class), classRank(b.Class)) })
	if len(sents) > perItem {
		p.MoreSentences = len(sents) - perItem
		sents = sents[:perItem]
	}
	for _, s := range sents {
		out := Sentence{Kind: s.Kind, Class: s.Class, From: s.From}
		switch s.Kind {
		case KindChanged:
			out.Text, out.Clipped = clipMarked(s.Marked, clip)
		case KindRemoved:
			out.Text, out.Clipped = clipPlain(s.Old, clip)
		default:
			out.Text, out.Clipped = clipPlain(s.New, clip)
		}
		p.Sentences = append(p.Sentences, out)
	}
	p.shown = p.Sentences
	return p
}

// MaxSentencesPerItem bounds the sentences of one section's diff.
const MaxSentencesPerItem = 200

func check(req *Request) error {
	req.Language, req.Doc = strings.TrimSpace(req.Language), strings.TrimSpace(req.Doc)
	req.From, req.To = strings.TrimSpace(req.From), strings.TrimSpace(req.To)
	req.SectionID, req.Query = strings.TrimSpace(req.SectionID), strings.TrimSpace(req.Query)
	req.Class = strings.ToLower(strings.TrimSpace(req.Class))
	switch {
	case req.Language == "":
		return apperr.New(apperr.InvalidArgument, "name a language: list_languages shows them", "no language given")
	case req.SectionID != "" && req.Query != "":
		return apperr.New(apperr.InvalidArgument, "give section_id for one section, or query for the sections about a topic", "section_id and query are both given")
	case req.Offset < 0:
		return apperr.New(apperr.InvalidArgument, "offsets start at 0", "offset %d is negative", req.Offset)
	case req.Class != "" && classRank(req.Class) == len(Classes):
		return apperr.New(apperr.InvalidArgument, "use one of: "+strings.Join(Classes, ", "), "no class %s", apperr.Quote(req.Class))
	}
	if req.PageBytes == 0 && req.Limit == 0 {
		req.PageBytes = DefaultPageBytes
	}
	if req.Limit == 0 {
		req.Limit = DefaultLimit
	}
	if req.Limit < 1 || req.Limit > MaxLimit {
		return apperr.New(apperr.InvalidArgument, fmt.Sprintf("use a limit from 1 to %d", MaxLimit), "limit %d is out of range", req.Limit)
	}
	if req.SentencesPerItem == 0 {
		req.SentencesPerItem = DefaultSentencesPerItem
	}
	if req.SentencesPerItem < 1 || req.SentencesPerItem > MaxSentencesPerItem {
		return apperr.New(apperr.InvalidArgument, fmt.Sprintf("use 1 to %d", MaxSentencesPerItem), "sentences per item %d is out of range", req.SentencesPerItem)
	}
	return nil
}

// CanonicalVersion is a version as people write it, reduced to what
// names it: lower case, without a leading "go" or "v", without trailing
// ".0" parts past the second ("1.22", "go1.22.0" and "go1.22" are one).
func CanonicalVersion(v string) string {
	v = strings.ToLower(strings.TrimSpace(v))
	if rest, ok := strings.CutPrefix(v, "go"); ok && rest != "" && rest[0] >= '0' && rest[0] <= '9' {
		v = rest
	} else if rest, ok := strings.CutPrefix(v, "v"); ok && rest != "" && rest[0] >= '0' && rest[0] <= '9' {
		v = rest
	}
	for strings.Count(v, ".") > 1 && strings.HasSuffix(v, ".0") {
		v = strings.TrimSuffix(v, ".0")
	}
	return v
}

// findVersion finds name among vs: as stored, else the one stored version
// with its canonical form (CanonicalVersion). -1 when none or several.
func findVersion(vs []db.VersionInfo, name string) int {
	if i := slices.IndexFunc(vs, func(v db.VersionInfo) bool { return v.Version == name }); i >= 0 {
		return i
	}
	c, found := CanonicalVersion(name), -1
	for i, v := range vs {
		if CanonicalVersion(v.Version) == c {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}

// pickVersions resolves From and To among the document's complete
// versions and returns them with every complete version between them,
// oldest first: To defaults to the newest, From to the one before To.
func pickVersions(ctx context.Context, store *db.DB, req Request) ([]db.VersionInfo, error) {
	all, err := store.Versions(ctx, req.Language)
	if err != nil {
		return nil, err
	}
	var docs []string
	for _, v := range all {
		if !slices.Contains(docs, v.Doc) {
			docs = append(docs, v.Doc)
		}
	}
	doc := req.Doc
	switch {
	case doc == "" && len(docs) > 1:
		return nil, apperr.New(apperr.InvalidArgument, "name a doc, one of: "+strings.Join(docs, ", "), "%s has %d documents", req.Language, len(docs))
	case doc == "" && len(docs) == 1:
		doc = docs[0]
	case !slices.Contains(docs, doc):
		return nil, apperr.New(apperr.NotFound, "documents of "+req.Language+": "+strings.Join(docs, ", "), "no document %s for %s", apperr.Quote(doc), req.Language)
	}
	var vs []db.VersionInfo // complete, newest first (Versions' order)
	var names []string
	for _, v := range all {
		if v.Doc == doc && v.Complete {
			vs = append(vs, v)
			names = append(names, v.Version)
		}
	}
	if len(vs) < 2 {
		return nil, apperr.New(apperr.NotFound,
			"ingest another version beside it: langspec ingest "+req.Language+" --from OLDER_COPY --version-label VERSION",
			"only one version of %s/%s is stored (%s): there is nothing to compare it with", req.Language, doc, strings.Join(names, ", "))
	}
	find := func(name, which string) (int, error) {
		i := findVersion(vs, name)
		if i < 0 {
			return -1, apperr.New(apperr.NotFound, "stored versions: "+strings.Join(names, ", "), "no complete version %s of %s/%s (%s)", apperr.Quote(name), req.Language, doc, which)
		}
		return i, nil
	}
	ti, fi := 0, -1
	if req.To != "" {
		if ti, err = find(req.To, "to"); err != nil {
			return nil, err
		}
	}
	switch {
	case req.From != "":
		if fi, err = find(req.From, "from"); err != nil {
			return nil, err
		}
	case ti+1 < len(vs):
		fi = ti + 1
	default:
		return nil, apperr.New(apperr.InvalidArgument, "name from: stored versions are "+strings.Join(names, ", "),
			"%s is the oldest version stored: no version before it", vs[ti].Version)
	}
	switch {
	case fi == ti:
		return nil, apperr.New(apperr.InvalidArgument, "name two different versions: "+strings.Join(names, ", "), "from and to are both %s", vs[ti].Version)
	case fi < ti: // newest first: from is the newer one
		return nil, apperr.New(apperr.InvalidArgument,
			fmt.Sprintf("the older version goes first: from %s, to %s", vs[ti].Version, vs[fi].Version),
			"from %s is newer than to %s", vs[fi].Version, vs[ti].Version)
	}
	chain := slices.Clone(vs[ti : fi+1])
	slices.Reverse(chain)
	return chain, nil
}

// narrow returns the section ids a request keeps (nil: every one), and
// names the scope in ans. A section is looked for in every version of the
// chain; a query is searched in each.
func narrow(ctx context.Context, store *db.DB, req Request, chain []db.VersionInfo, ans *Answer) (map[string]bool, error) {
	switch {
	case req.SectionID != "":
		keep := map[string]bool{}
		var firstErr error
		for i := len(chain) - 1; i >= 0; i-- {
			v := chain[i]
			r, err := store.Section(ctx, db.Scope{Language: req.Language, Doc: v.Doc, Version: v.Version}, req.SectionID)
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				continue
			}
			keep[r.SectionID] = true
		}
		if len(keep) == 0 {
			return nil, firstErr
		}
		ans.Scope = "section " + req.SectionID
		return keep, nil
	case req.Query != "":
		keep := map[string]bool{}
		for _, v := range chain {
			res, err := search.Search(ctx, store, search.Request{Query: req.Query, Language: req.Language, Doc: v.Doc, Version: v.Version, Limit: maxQueryHits})
			if err != nil {
				return nil, err
			}
			for _, h := range res.Hits {
				keep[h.SectionID] = true
			}
		}
		if len(keep) == 0 {
			return nil, apperr.New(apperr.NotFound, "try other or fewer words, or leave the query out to see every change",
				"no section of %s or %s matches %q", chain[0].Version, chain[len(chain)-1].Version, req.Query)
		}
		ans.Scope = "sections about " + fmt.Sprintf("%q", req.Query)
		return keep, nil
	}
	return nil, nil
}

// withTexts makes the two versions' rows for Compare, reading only the
// texts that can differ: a section with the same id and content hash on
// both sides is the same text, and both sides keep it empty.
func withTexts(ctx context.Context, store *db.DB, oldD, newD db.VersionDigest) (oldRows, newRows []db.SectionRow, err error) {
	oldHash := map[string]string{}
	for i, r := range oldD.Sections {
		oldHash[r.SectionID] = oldD.Hashes[i]
	}
	same := map[string]bool{}
	for i, r := range newD.Sections {
		if h, ok := oldHash[r.SectionID]; ok && h == newD.Hashes[i] {
			same[r.SectionID] = true
		}
	}
	read := func(d db.VersionDigest) ([]db.SectionRow, error) {
		var ids []string
		for _, r := range d.Sections {
			if !same[r.SectionID] {
				ids = append(ids, r.SectionID)
			}
		}
		texts, err := store.TextsOf(ctx, d.Version, ids)
		if err != nil {
			return nil, err
		}
		size := 0
		for _, t := range texts {
			size += len(t)
		}
		if size > maxTextBytes {
			return nil, apperr.New(apperr.InvalidArgument, "narrow it: pass section_id, or a query",
				"%d MB of %s/%s %s changed: more than a diff reads at once", size>>20, d.Version.Language, d.Version.Doc, d.Version.Version)
		}
		rows := slices.Clone(d.Sections)
		for i := range rows {
			rows[i].Text = texts[rows[i].SectionID]
		}
		return rows, nil
	}
	if oldRows, err = read(oldD); err != nil {
		return nil, nil, err
	}
	newRows, err = read(newD)
	return oldRows, newRows, err
}

// summarize counts items by kind, class and chapter (titled from the
// steps' chapters), and the kept sections of the newest version with no
// item as unchanged (every one when keep is nil).
func summarize(items []Item, steps []Summary, keep map[string]bool, newest []db.SectionRow) Summary {
	s := Summary{Chapters: []Chapter{}, Classes: map[string]int{}}
	at := map[string]int{}
	touched := map[string]bool{}
	for _, it := range items {
		i, ok := at[it.Chapter]
		if !ok {
			c := Chapter{ID: it.Chapter}
			for _, st := range steps {
				if j := slices.IndexFunc(st.Chapters, func(c Chapter) bool { return c.ID == it.Chapter }); j >= 0 {
					c.Title = st.Chapters[j].Title
				}
			}
			i = len(s.Chapters)
			at[it.Chapter] = i
			s.Chapters = append(s.Chapters, c)
		}
		ch := &s.Chapters[i]
		switch it.Kind {
		case KindAdded:
			s.Added++
			ch.Added++
		case KindRemoved:
			s.Removed++
			ch.Removed++
		case KindRenamed:
			s.Renamed++
			ch.Renamed++
		case KindChanged:
			s.Changed++
			ch.Changed++
		}
		s.Classes[it.Class]++
		if it.Class == ClassEditorial {
			ch.Editorial++
		}
		if it.New != nil {
			touched[it.New.SectionID] = true
		}
		if it.Old != nil {
			touched[it.Old.SectionID] = true
		}
	}
	for _, r := range newest {
		if (keep == nil || keep[r.SectionID]) && !touched[r.SectionID] {
			s.Unchanged++
		}
	}
	return s
}

// Counts says a chapter's changes in words: "2 added, 1 changed".
func (c Chapter) Counts() string {
	var parts []string
	for _, p := range []struct {
		n    int
		kind string
	}{{c.Added, KindAdded}, {c.Removed, KindRemoved}, {c.Renamed, KindRenamed}, {c.Changed, KindChanged}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.kind))
		}
	}
	return strings.Join(parts, ", ")
}

// Name names a page item's section as "Title (id)", old → new when it
// was renamed.
func (p PageItem) Name() string {
	name := p.Title + " (" + p.SectionID + ")"
	if p.Old != nil && (p.Old.SectionID != p.SectionID || p.Old.Title != p.Title) {
		return p.Old.Title + " (" + p.Old.SectionID + ") → " + name
	}
	return name
}

// FromVersion is the version the item's older side is from ("" when the
// section was added): in a diff over several versions, the one before
// Release.
func (p PageItem) FromVersion() string { return p.from }

// Name names an item's section as "Title (id)", old → new when it was
// renamed.
func (it Item) Name() string {
	name := func(r *Ref) string { return r.Title + " (" + r.SectionID + ")" }
	switch {
	case it.Old != nil && it.New != nil && (it.Old.SectionID != it.New.SectionID || it.Old.Title != it.New.Title):
		return name(it.Old) + " → " + name(it.New)
	case it.New != nil:
		return name(it.New)
	default:
		return name(it.Old)
	}
}

// ID is the item's section id: the newer version's, else the older's.
func (it Item) ID() string {
	if it.New != nil {
		return it.New.SectionID
	}
	return it.Old.SectionID
}
