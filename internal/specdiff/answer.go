package specdiff

import (
	"context"
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
	DefaultLimit = 20  // items a page
	MaxLimit     = 100 // items a page at most
	// DefaultSentencesPerItem is how many changed sentences each item of a
	// page carries in a whole-document diff; one section's diff carries
	// them all. A page of twenty sections stays a page, not a wall.
	DefaultSentencesPerItem = 3
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
	From     string // the older version; "" for the second newest complete one
	To       string // the newer version; "" for the newest complete one
	// SectionID narrows the diff to one section (its id or title, in either
	// version), with every changed sentence.
	SectionID string
	// Query narrows it to the sections a search for it finds in either
	// version.
	Query  string
	Offset int
	Limit  int // 0: DefaultLimit
	// SentencesPerItem bounds each item's sentences in a diff of more than
	// one section; 0: DefaultSentencesPerItem.
	SentencesPerItem int
	Notes            *contextnote.Set
}

// VersionRef is one side of a diff.
type VersionRef struct {
	Version  string `json:"version" jsonschema:"the version"`
	Source   string `json:"source" jsonschema:"where it was read from"`
	Sections int    `json:"sections" jsonschema:"sections it holds"`
}

// PageItem is an item of a page: a changed section, its sentences bounded.
type PageItem struct {
	Item
	MoreSentences int `json:"more_sentences,omitempty" jsonschema:"changed sentences left out of this page; pass section_id for them all"`
}

// Answer is one page of a diff.
type Answer struct {
	Language  string                `json:"language" jsonschema:"language id"`
	Doc       string                `json:"doc" jsonschema:"document id"`
	From      VersionRef            `json:"from" jsonschema:"the older version"`
	To        VersionRef            `json:"to" jsonschema:"the newer version"`
	Scope     string                `json:"scope" jsonschema:"what was compared: the document, one section, or the sections a query finds"`
	Unchanged bool                  `json:"unchanged" jsonschema:"true when nothing in scope changed"`
	Summary   Summary               `json:"summary" jsonschema:"counts in scope, overall and by chapter"`
	Items     []PageItem            `json:"items" jsonschema:"this page of the changed sections, in the newer version's order"`
	Total     int                   `json:"total" jsonschema:"changed sections in scope"`
	Offset    int                   `json:"offset" jsonschema:"index of the first item of this page"`
	Next      int                   `json:"next_offset,omitempty" jsonschema:"offset of the next page; absent on the last"`
	Notices   []string              `json:"notices,omitempty" jsonschema:"what the answer lacks"`
	Context   []contextnote.Covered `json:"context,omitempty" jsonschema:"the user's notes on this document"`
}

// Run answers req over store. Errors: apperr.InvalidArgument for bad
// bounds or the same version twice; apperr.NotFound for an unknown
// language, document or version, one version only, or a section in
// neither version; ctx.Err() once ctx ends.
func Run(ctx context.Context, store *db.DB, req Request) (Answer, error) {
	if err := check(&req); err != nil {
		return Answer{}, err
	}
	from, to, err := pickVersions(ctx, store, req)
	if err != nil {
		return Answer{}, err
	}
	oldD, err := store.Digest(ctx, db.Scope{Language: req.Language, Doc: from.Doc, Version: from.Version})
	if err != nil {
		return Answer{}, err
	}
	newD, err := store.Digest(ctx, db.Scope{Language: req.Language, Doc: to.Doc, Version: to.Version})
	if err != nil {
		return Answer{}, err
	}
	ans := Answer{Language: req.Language, Doc: to.Doc, Scope: "document", Items: []PageItem{},
		From: VersionRef{Version: from.Version, Source: from.SourceURL, Sections: len(oldD.Sections)},
		To:   VersionRef{Version: to.Version, Source: to.SourceURL, Sections: len(newD.Sections)}}
	keep, err := narrow(ctx, store, req, from, to, &ans)
	if err != nil {
		return Answer{}, err
	}
	oldRows, newRows, err := withTexts(ctx, store, oldD, newD)
	if err != nil {
		return Answer{}, err
	}
	d, err := Compare(ctx, oldRows, newRows, Options{})
	if err != nil {
		return Answer{}, err
	}
	items := d.Items
	if keep != nil {
		items = slices.DeleteFunc(items, func(it Item) bool {
			return !(it.Old != nil && keep[it.Old.SectionID] || it.New != nil && keep[it.New.SectionID])
		})
		ans.Summary = summarize(items, d.Summary.Chapters, keep, newRows)
	} else {
		ans.Summary = d.Summary
	}
	ans.Total, ans.Offset, ans.Unchanged = len(items), req.Offset, len(items) == 0
	if req.Offset > len(items) {
		return Answer{}, apperr.New(apperr.InvalidArgument, fmt.Sprintf("use an offset from 0 to %d", len(items)),
			"offset %d is past the %d changed sections", req.Offset, len(items))
	}
	end := min(req.Offset+req.Limit, len(items))
	if end < len(items) {
		ans.Next = end
	}
	perItem := req.SentencesPerItem
	if req.SectionID != "" {
		perItem = MaxSentencesPerItem
	}
	for _, it := range items[req.Offset:end] {
		p := PageItem{Item: it}
		p.Similarity = math.Round(p.Similarity*1000) / 1000
		if len(p.Sentences) > perItem {
			p.MoreSentences = len(p.Sentences) - perItem
			p.Sentences = p.Sentences[:perItem]
		}
		ans.Items = append(ans.Items, p)
	}
	ans.Context = req.Notes.Cover([]contextnote.Target{{Language: req.Language, Doc: to.Doc}})
	return ans, nil
}

// MaxSentencesPerItem bounds the sentences of one section's diff.
const MaxSentencesPerItem = 200

func check(req *Request) error {
	req.Language, req.Doc = strings.TrimSpace(req.Language), strings.TrimSpace(req.Doc)
	req.From, req.To = strings.TrimSpace(req.From), strings.TrimSpace(req.To)
	req.SectionID, req.Query = strings.TrimSpace(req.SectionID), strings.TrimSpace(req.Query)
	switch {
	case req.Language == "":
		return apperr.New(apperr.InvalidArgument, "name a language: list_languages shows them", "no language given")
	case req.SectionID != "" && req.Query != "":
		return apperr.New(apperr.InvalidArgument, "give section_id for one section, or query for the sections about a topic", "section_id and query are both given")
	case req.Offset < 0:
		return apperr.New(apperr.InvalidArgument, "offsets start at 0", "offset %d is negative", req.Offset)
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

// pickVersions resolves From and To among the document's complete
// versions, newest first: To defaults to the newest, From to the one
// before To.
func pickVersions(ctx context.Context, store *db.DB, req Request) (from, to db.VersionInfo, err error) {
	all, err := store.Versions(ctx, req.Language)
	if err != nil {
		return from, to, err
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
		return from, to, apperr.New(apperr.InvalidArgument, "name a doc, one of: "+strings.Join(docs, ", "), "%s has %d documents", req.Language, len(docs))
	case doc == "" && len(docs) == 1:
		doc = docs[0]
	case !slices.Contains(docs, doc):
		return from, to, apperr.New(apperr.NotFound, "documents of "+req.Language+": "+strings.Join(docs, ", "), "no document %s for %s", apperr.Quote(doc), req.Language)
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
		return from, to, apperr.New(apperr.NotFound,
			"ingest another version beside it: langspec ingest "+req.Language+" --from OLDER_COPY --version-label VERSION",
			"only one version of %s/%s is stored (%s): there is nothing to compare it with", req.Language, doc, strings.Join(names, ", "))
	}
	find := func(name, which string) (db.VersionInfo, error) {
		i := slices.IndexFunc(vs, func(v db.VersionInfo) bool { return v.Version == name })
		if i < 0 {
			return db.VersionInfo{}, apperr.New(apperr.NotFound, "stored versions: "+strings.Join(names, ", "), "no complete version %s of %s/%s (%s)", apperr.Quote(name), req.Language, doc, which)
		}
		return vs[i], nil
	}
	ti := 0
	if req.To != "" {
		if to, err = find(req.To, "to"); err != nil {
			return from, to, err
		}
		ti = slices.IndexFunc(vs, func(v db.VersionInfo) bool { return v.Version == req.To })
	} else {
		to = vs[0]
	}
	switch {
	case req.From != "":
		if from, err = find(req.From, "from"); err != nil {
			return from, to, err
		}
	case ti+1 < len(vs):
		from = vs[ti+1]
	default:
		return from, to, apperr.New(apperr.InvalidArgument, "name from: stored versions are "+strings.Join(names, ", "),
			"%s is the oldest version stored: no version before it", to.Version)
	}
	if from.Version == to.Version {
		return from, to, apperr.New(apperr.InvalidArgument, "name two different versions: "+strings.Join(names, ", "), "from and to are both %s", to.Version)
	}
	return from, to, nil
}

// narrow returns the section ids a request keeps (nil: every one), and
// names the scope in ans.
func narrow(ctx context.Context, store *db.DB, req Request, from, to db.VersionInfo, ans *Answer) (map[string]bool, error) {
	switch {
	case req.SectionID != "":
		keep := map[string]bool{}
		var firstErr error
		for _, v := range []db.VersionInfo{to, from} {
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
		for _, v := range []db.VersionInfo{from, to} {
			res, err := search.Search(ctx, store, search.Request{Query: req.Query, Language: req.Language, Doc: v.Doc, Version: v.Version, Limit: maxQueryHits})
			if err != nil {
				return nil, err
			}
			for _, h := range res.Hits {
				keep[h.SectionID] = true
			}
		}
		ans.Scope = "sections about " + fmt.Sprintf("%q", req.Query)
		if len(keep) == 0 {
			ans.Notices = append(ans.Notices, "no section of either version matches the query")
		}
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

// summarize counts items by kind and by chapter (titled from the whole
// diff's chapters), and the kept sections of the newer version with no
// item as unchanged.
func summarize(items []Item, chapters []Chapter, keep map[string]bool, newer []db.SectionRow) Summary {
	s := Summary{Chapters: []Chapter{}}
	at := map[string]int{}
	touched := map[string]bool{}
	for _, it := range items {
		i, ok := at[it.Chapter]
		if !ok {
			c := Chapter{ID: it.Chapter}
			if j := slices.IndexFunc(chapters, func(c Chapter) bool { return c.ID == it.Chapter }); j >= 0 {
				c.Title = chapters[j].Title
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
		if it.New != nil {
			touched[it.New.SectionID] = true
		}
	}
	for _, r := range newer {
		if keep[r.SectionID] && !touched[r.SectionID] {
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
