package db

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/rank"
)

// SectionRow is a stored section with the version it belongs to.
type SectionRow struct {
	Language     string
	Doc          string
	Version      string
	SectionID    string
	ParentID     string
	Order        int
	Level        int
	Title        string
	Path         string
	URL          string
	Text         string // empty in outlines
	CharCount    int
	SourcePolicy string

	snapshotID int64
}

const sectionColumns = `sec.snapshot_id, sec.section_id, sec.parent_id, sec.ord, sec.level, sec.title,
	sec.section_path, sec.url, sec.body, sec.char_count, sec.source_policy`

// scanSection reads sectionColumns (plus extra destinations) and fills the
// version fields from the snapshot it belongs to.
func scanSection(rows *sql.Rows, versions map[int64]VersionInfo, extra ...any) (SectionRow, error) {
	var r SectionRow
	dest := append([]any{&r.snapshotID, &r.SectionID, &r.ParentID, &r.Order, &r.Level, &r.Title,
		&r.Path, &r.URL, &r.Text, &r.CharCount, &r.SourcePolicy}, extra...)
	if err := rows.Scan(dest...); err != nil {
		return r, err
	}
	v := versions[r.snapshotID]
	r.Language, r.Doc, r.Version = v.Language, v.Doc, v.Version
	return r, nil
}

// snapshotSet is a resolved scope: the snapshots to read, by id, and the same
// ids as a JSON array to bind to `IN (SELECT value FROM json_each(?))`, which
// keeps the SQL text fixed whatever their number.
type snapshotSet struct {
	byID map[int64]VersionInfo
	json string
	key  string // snapshotKeys(byID), for the caches of what never changes
}

func (d *DB) resolve(ctx context.Context, sc Scope) (snapshotSet, error) {
	vs, err := d.snapshotsIn(ctx, sc)
	if err != nil {
		return snapshotSet{}, err
	}
	return newSnapshotSet(vs), nil
}

func newSnapshotSet(vs []VersionInfo) snapshotSet {
	set := snapshotSet{byID: make(map[int64]VersionInfo, len(vs))}
	ids := make([]int64, 0, len(vs))
	for _, v := range vs {
		set.byID[v.snapshotID] = v
		ids = append(ids, v.snapshotID)
	}
	b, _ := json.Marshal(ids) // []int64 always marshals
	set.json = string(b)
	set.key = snapshotKeys(set.byID)
	return set
}

// Outline returns the sections of one document version in document order,
// without their text. The scope must pick one document: naming the language
// (and the doc, when the language has several) unless only one is stored. Errors: apperr.NotFound,
// apperr.InvalidArgument.
func (d *DB) Outline(ctx context.Context, sc Scope) (VersionInfo, []SectionRow, error) {
	v, err := d.oneDocument(ctx, sc)
	if err != nil {
		return VersionInfo{}, nil, err
	}
	rows, err := d.query(ctx, `SELECT `+strings.Replace(sectionColumns, "sec.body", "''", 1)+`
		FROM sections sec WHERE sec.snapshot_id = ? ORDER BY sec.ord`, v.snapshotID)
	if err != nil {
		return v, nil, d.classify(err, "read sections from")
	}
	defer rows.Close()
	byID := map[int64]VersionInfo{v.snapshotID: v}
	var out []SectionRow
	for rows.Next() {
		r, err := scanSection(rows, byID)
		if err != nil {
			return v, nil, d.classify(err, "read sections from")
		}
		out = append(out, r)
	}
	return v, out, d.classify(rows.Err(), "read sections from")
}

func (d *DB) oneDocument(ctx context.Context, sc Scope) (VersionInfo, error) {
	vs, err := d.snapshotsIn(ctx, sc)
	if err != nil {
		return VersionInfo{}, err
	}
	if len(vs) > 1 && sc.Language == "" {
		var langs []string
		for _, v := range vs {
			if !slices.Contains(langs, v.Language) {
				langs = append(langs, v.Language)
			}
		}
		return VersionInfo{}, apperr.New(apperr.InvalidArgument, "name a language, one of: "+strings.Join(langs, ", "),
			"no language given and several are stored")
	}
	if len(vs) > 1 {
		var docs []string
		for _, v := range vs {
			docs = append(docs, v.Doc)
		}
		return VersionInfo{}, apperr.New(apperr.InvalidArgument, "name a doc, one of: "+strings.Join(docs, ", "),
			"%s has %d documents", sc.Language, len(vs))
	}
	return vs[0], nil
}

// Section finds one section by id in the scope's versions. A title or an id in
// other letter case finds it too, when that is unambiguous, and then a title
// as people type it (TitleKey: "method set" for "Method sets", "the yield
// statement" for "7.7. The yield statement"). Errors: apperr.NotFound with up
// to five nearest ids (and their titles) as the hint; apperr.InvalidArgument
// when the id or title names sections of several documents and the scope does
// not choose one.
func (d *DB) Section(ctx context.Context, sc Scope, id string) (SectionRow, error) {
	set, err := d.resolve(ctx, sc)
	if err != nil {
		return SectionRow{}, err
	}
	// An id as search results give it is found through the (snapshot,
	// section_id) index; the looser matches below read every section of
	// the scope, which grows with the corpus.
	exact, err := d.sectionsWhere(ctx, set, byExactID, id)
	if err != nil {
		return SectionRow{}, err
	}
	if len(exact) == 1 {
		return exact[0], nil
	}
	found, err := d.sectionsWhere(ctx, set, `(sec.section_id = ?2 OR lower(sec.section_id) = lower(?2) OR lower(sec.title) = lower(?2)
		       OR lower(sec.section_id) = lower(replace(?2, ' ', '_')))
		ORDER BY sec.section_id = ?2 DESC, lower(sec.section_id) = lower(?2) DESC`, id)
	if err != nil {
		return SectionRow{}, err
	}
	switch {
	case len(found) == 1, len(found) > 1 && found[0].SectionID == id && found[1].SectionID != id:
		return found[0], nil
	case len(found) > 1:
		return SectionRow{}, ambiguousSection(id, found)
	}
	names, err := d.sectionNames(ctx, set)
	if err != nil {
		return SectionRow{}, err
	}
	if named := byTitleKey(names, id); len(named) > 0 {
		var rows []SectionRow
		for _, n := range named {
			one := newSnapshotSet([]VersionInfo{set.byID[n.snapshotID]})
			r, err := d.sectionsWhere(ctx, one, byExactID, n.id)
			if err != nil {
				return SectionRow{}, err
			}
			rows = append(rows, r...)
		}
		switch {
		case len(rows) == 1:
			return rows[0], nil
		case len(rows) > 1:
			return SectionRow{}, ambiguousSection(id, rows)
		}
	}
	hint := "no id is close; search for the topic and use a section_id from the results"
	candidates := make([]rank.Name, len(names))
	for i, n := range names {
		label := n.id
		if !sameName(n.id, n.title) {
			label += " (" + n.title + ")"
		}
		candidates[i] = rank.Name{ID: n.id, Title: n.title, Label: label}
	}
	if near := rank.Nearest(candidates, id, 5); len(near) > 0 {
		hint = "nearest ids: " + strings.Join(near, ", ")
	}
	return SectionRow{}, apperr.New(apperr.NotFound, hint, "no section %q", id)
}

// ambiguousSection is the error for an id or title that names several
// sections: the hint lists them, so the caller can choose.
func ambiguousSection(id string, found []SectionRow) error {
	var where []string
	for _, r := range found {
		w := r.Language + "/" + r.Doc + ": " + r.SectionID
		if !sameName(r.SectionID, r.Title) {
			w += " (" + r.Title + ")"
		}
		where = append(where, w)
	}
	return apperr.New(apperr.InvalidArgument, "name the language (and doc), or pass one of the ids; matches: "+strings.Join(where, ", "),
		"section %q is ambiguous", id)
}

// sectionName is a section's id and title, for the looser lookups.
type sectionName struct {
	snapshotID int64
	id, title  string
}

// sectionNames reads the id and title of every section of set, in
// document order.
func (d *DB) sectionNames(ctx context.Context, set snapshotSet) ([]sectionName, error) {
	rows, err := d.query(ctx, `SELECT snapshot_id, section_id, title FROM sections
		WHERE snapshot_id IN (SELECT value FROM json_each(?)) ORDER BY snapshot_id, ord`, set.json)
	if err != nil {
		return nil, d.classify(err, "read section ids from")
	}
	defer rows.Close()
	var out []sectionName
	for rows.Next() {
		var n sectionName
		if err := rows.Scan(&n.snapshotID, &n.id, &n.title); err != nil {
			return nil, d.classify(err, "read section ids from")
		}
		out = append(out, n)
	}
	return out, d.classify(rows.Err(), "read section ids from")
}

// byTitleKey returns the sections whose title or id has the TitleKey of
// name, each once.
func byTitleKey(names []sectionName, name string) []sectionName {
	key := rank.TitleKey(name)
	if key == "" {
		return nil
	}
	var out []sectionName
	for _, n := range names {
		if rank.TitleKey(n.title) == key || rank.TitleKey(n.id) == key {
			out = append(out, n)
		}
	}
	return out
}

// sameName reports whether a title adds nothing to its id: the id is the
// title with underscores for spaces (Go's "Slice_expressions").
func sameName(id, title string) bool {
	return strings.ReplaceAll(id, "_", " ") == title
}

// byExactID is the condition of a section whose id is ?2.
const byExactID = `sec.section_id = ?2`

// sectionsWhere reads the sections of set that hold where, with ?2 bound
// to id.
func (d *DB) sectionsWhere(ctx context.Context, set snapshotSet, where, id string) ([]SectionRow, error) {
	rows, err := d.query(ctx, sectionsQuery(where), set.json, id)
	if err != nil {
		return nil, d.classify(err, "read section from")
	}
	defer rows.Close()
	var found []SectionRow
	for rows.Next() {
		r, err := scanSection(rows, set.byID)
		if err != nil {
			return nil, d.classify(err, "read section from")
		}
		found = append(found, r)
	}
	return found, d.classify(rows.Err(), "read section from")
}

// sectionsQuery selects the sections of the snapshots ?1 (a JSON array)
// that hold where.
func sectionsQuery(where string) string {
	return `SELECT ` + sectionColumns + ` FROM sections sec
		WHERE sec.snapshot_id IN (SELECT value FROM json_each(?1)) AND ` + where
}

// Subsections returns the sections below s (children, grandchildren…) in
// document order, with their text.
func (d *DB) Subsections(ctx context.Context, s SectionRow) ([]SectionRow, error) {
	rows, err := d.query(ctx, `SELECT `+sectionColumns+` FROM sections sec
		WHERE sec.snapshot_id = ?1 AND sec.ord > ?2
		  AND sec.ord < coalesce((SELECT min(ord) FROM sections WHERE snapshot_id = ?1 AND ord > ?2 AND level <= ?3), 1 << 62)
		ORDER BY sec.ord`, s.snapshotID, s.Order, s.Level)
	if err != nil {
		return nil, d.classify(err, "read subsections from")
	}
	defer rows.Close()
	byID := map[int64]VersionInfo{s.snapshotID: {Language: s.Language, Doc: s.Doc, Version: s.Version}}
	var out []SectionRow
	for rows.Next() {
		r, err := scanSection(rows, byID)
		if err != nil {
			return nil, d.classify(err, "read subsections from")
		}
		out = append(out, r)
	}
	return out, d.classify(rows.Err(), "read subsections from")
}

// TextHash is the content hash stored with each section's text.
func TextHash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// SectionTexts maps each section id of the scope's one document (its latest
// complete version unless the scope names one) to the hash of its text, so
// a new ingest can tell what changed. Errors: apperr.NotFound when nothing
// is stored for the scope.
func (d *DB) SectionTexts(ctx context.Context, sc Scope) (map[string]string, error) {
	v, err := d.oneDocument(ctx, sc)
	if err != nil {
		return nil, err
	}
	rows, err := d.query(ctx, `SELECT section_id, content_hash FROM sections WHERE snapshot_id = ?`, v.snapshotID)
	if err != nil {
		return nil, d.classify(err, "read sections from")
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, h string
		if err := rows.Scan(&id, &h); err != nil {
			return nil, d.classify(err, "read sections from")
		}
		out[id] = h
	}
	return out, d.classify(rows.Err(), "read sections from")
}

// VersionDigest is one document version's outline with each section's
// content hash, for comparing versions without reading every text.
type VersionDigest struct {
	Version  VersionInfo
	Sections []SectionRow // in document order, Text empty
	Hashes   []string     // Hashes[i] is Sections[i]'s content hash
}

// Digest reads the scope's one document version (the latest complete one
// unless the scope names a version): its outline and content hashes.
// Errors: as Outline.
func (d *DB) Digest(ctx context.Context, sc Scope) (VersionDigest, error) {
	v, err := d.oneDocument(ctx, sc)
	if err != nil {
		return VersionDigest{}, err
	}
	out := VersionDigest{Version: v}
	rows, err := d.query(ctx, `SELECT `+strings.Replace(sectionColumns, "sec.body", "''", 1)+`, sec.content_hash
		FROM sections sec WHERE sec.snapshot_id = ? ORDER BY sec.ord`, v.snapshotID)
	if err != nil {
		return out, d.classify(err, "read sections from")
	}
	defer rows.Close()
	byID := map[int64]VersionInfo{v.snapshotID: v}
	for rows.Next() {
		var hash string
		r, err := scanSection(rows, byID, &hash)
		if err != nil {
			return out, d.classify(err, "read sections from")
		}
		out.Sections = append(out.Sections, r)
		out.Hashes = append(out.Hashes, hash)
	}
	return out, d.classify(rows.Err(), "read sections from")
}

// TextsOf reads the text of the sections ids of version v, by id.
func (d *DB) TextsOf(ctx context.Context, v VersionInfo, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	list, _ := json.Marshal(ids) // []string always marshals
	rows, err := d.query(ctx, `SELECT section_id, body FROM sections
		WHERE snapshot_id = ?1 AND section_id IN (SELECT value FROM json_each(?2))`, v.snapshotID, string(list))
	if err != nil {
		return nil, d.classify(err, "read sections from")
	}
	defer rows.Close()
	for rows.Next() {
		var id, body string
		if err := rows.Scan(&id, &body); err != nil {
			return nil, d.classify(err, "read sections from")
		}
		out[id] = body
	}
	return out, d.classify(rows.Err(), "read sections from")
}
