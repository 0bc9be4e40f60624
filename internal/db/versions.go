package db

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/langspec/langspec/internal/apperr"
)

// The stored versions of each document: listing them (through the memo),
// ordering them, and which one is searched when none is named.

// VersionInfo describes one stored version of a document.
type VersionInfo struct {
	Language     string    `json:"language" jsonschema:"language id"`
	Doc          string    `json:"doc" jsonschema:"document id within the language"`
	DisplayName  string    `json:"display_name" jsonschema:"the document's human-readable name"`
	Version      string    `json:"version" jsonschema:"version label, e.g. go1.26"`
	SourceURL    string    `json:"source_url" jsonschema:"where this version was read from: a URL, a file, or embedded:…"`
	FetchedAt    time.Time `json:"fetched_at" jsonschema:"when it was ingested (RFC 3339)"`
	SectionCount int       `json:"section_count" jsonschema:"number of sections stored"`
	Complete     bool      `json:"complete" jsonschema:"false when some pages failed; an incomplete version is never searched by default"`
	Prerelease   bool      `json:"prerelease,omitempty" jsonschema:"a pre-release (1.97.0-nightly, 2.0.0-beta.1): the default only when ingested with --default"`
	Default      bool      `json:"default" jsonschema:"true for the version searched when none is named"`

	snapshotID int64
}

// Versions lists every stored version, grouped by language and doc, newest
// version first. language "" means all languages. Errors: apperr.NotFound,
// naming the stored languages, for a language with nothing stored.
func (d *DB) Versions(ctx context.Context, language string) ([]VersionInfo, error) {
	vs, err := d.versions(ctx, language)
	if err != nil || language == "" || len(vs) > 0 {
		return vs, err
	}
	all, err := d.versions(ctx, "")
	if err != nil {
		return nil, err
	}
	return nil, unknownLanguage(language, all)
}

// ErrUnknownLanguage is the cause of the not_found error for a language
// with nothing stored, so callers that know where languages come from
// (internal/ingest.NotStored) can add the next step.
var ErrUnknownLanguage = errors.New("unknown language")

// unknownLanguage is the error for a language not in all.
func unknownLanguage(language string, all []VersionInfo) error {
	if len(all) == 0 {
		return apperr.Wrap(ErrUnknownLanguage, apperr.NotFound, "ingest a specification first (langspec ingest go)", "nothing has been ingested yet")
	}
	var langs []string
	for _, v := range all {
		if !slices.Contains(langs, v.Language) {
			langs = append(langs, v.Language)
		}
	}
	return apperr.Wrap(ErrUnknownLanguage, apperr.NotFound, "available languages: "+strings.Join(langs, ", "), "unknown language %q", language)
}

// versions lists the stored versions of language ("" for all) as
// Versions does, from the memo while the store is unchanged.
func (d *DB) versions(ctx context.Context, language string) ([]VersionInfo, error) {
	g, err := d.generation(ctx)
	if err != nil {
		return nil, err
	}
	return d.versionsIn(ctx, g, language)
}

// versionsIn is versions within generation g.
func (d *DB) versionsIn(ctx context.Context, g *generation, language string) ([]VersionInfo, error) {
	all, err := g.allVersions(func() ([]VersionInfo, error) { return d.readVersions(ctx) })
	if err != nil {
		return nil, err
	}
	out := make([]VersionInfo, 0, len(all))
	for _, v := range all {
		if language == "" || v.Language == language {
			out = append(out, v)
		}
	}
	return out, nil
}

// readVersions reads every stored version, sorted and with each
// document's latest marked.
func (d *DB) readVersions(ctx context.Context) ([]VersionInfo, error) {
	rows, err := d.query(ctx, `SELECT s.id, d.language, d.doc, d.display_name, s.version, s.source_url,
			s.fetched_at, s.section_count, s.complete, coalesce(d.default_version, '')
		FROM snapshots s JOIN documents d ON d.id = s.document_id`)
	if err != nil {
		return nil, d.classify(err, "read versions from")
	}
	defer rows.Close()
	var out []VersionInfo
	pinned := map[[2]string]string{} // document -> the version ingested with --default
	for rows.Next() {
		var v VersionInfo
		var fetched, pin string
		if err := rows.Scan(&v.snapshotID, &v.Language, &v.Doc, &v.DisplayName, &v.Version, &v.SourceURL,
			&fetched, &v.SectionCount, &v.Complete, &pin); err != nil {
			return nil, d.classify(err, "read versions from")
		}
		v.FetchedAt, _ = time.Parse(time.RFC3339, fetched)
		v.Prerelease = IsPrerelease(v.Version)
		if pin != "" {
			pinned[[2]string{v.Language, v.Doc}] = pin
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, d.classify(err, "read versions from")
	}
	slices.SortFunc(out, func(a, b VersionInfo) int {
		if c := strings.Compare(a.Language, b.Language); c != 0 {
			return c
		}
		if c := strings.Compare(a.Doc, b.Doc); c != 0 {
			return c
		}
		return -compareVersions(a, b) // newest first
	})
	markDefault(out, pinned)
	return out, nil
}

// compareVersions orders versions of one document: by version string compared
// naturally (go1.9 < go1.10), then by fetch time.
func compareVersions(a, b VersionInfo) int {
	if c := CompareVersionStrings(a.Version, b.Version); c != 0 {
		return c
	}
	return a.FetchedAt.Compare(b.FetchedAt)
}

// markDefault flags, in a list sorted by Versions, the version of each
// document searched when none is named: the one pinned (ingested with
// --default) while it is complete, else the newest complete release, else
// (only pre-releases stored) the newest complete pre-release. An incomplete
// version is never the default.
func markDefault(vs []VersionInfo, pinned map[[2]string]string) {
	chosen := map[[2]string]int{}
	for i, v := range vs {
		if !v.Complete {
			continue
		}
		key := [2]string{v.Language, v.Doc}
		j, seen := chosen[key]
		switch {
		case pinned[key] != "" && v.Version == pinned[key]:
			chosen[key] = i
		case !seen:
			chosen[key] = i
		case vs[j].Prerelease && !v.Prerelease && vs[j].Version != pinned[key]:
			chosen[key] = i // the newest release before a newer pre-release
		}
	}
	for _, i := range chosen {
		vs[i].Default = true
	}
}

// IsPrerelease says whether a version label names a pre-release: a
// semantic-version pre-release part (1.97.0-nightly, 2.0.0-beta.1,
// 3.14.0rc1) or the words nightly, beta, alpha, rc, dev, preview, draft.
func IsPrerelease(version string) bool {
	v := strings.ToLower(version)
	for _, w := range []string{"nightly", "beta", "alpha", "preview", "draft", "dev", "snapshot"} {
		if strings.Contains(v, w) {
			return true
		}
	}
	// rc1, -rc.2: a release candidate after a number.
	for i := 1; i+1 < len(v); i++ {
		if v[i] == 'r' && v[i+1] == 'c' && (v[i-1] >= '0' && v[i-1] <= '9' || v[i-1] == '-' || v[i-1] == '.') {
			return true
		}
	}
	return false
}

// SetDefaultVersion makes version the one a document is searched at when
// none is named ("" returns it to the rule: the newest release). Errors:
// not_found when the document has no such complete version.
func (d *DB) SetDefaultVersion(ctx context.Context, language, doc, version string) error {
	if version != "" {
		vs, err := d.readVersions(ctx)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(vs, func(v VersionInfo) bool {
			return v.Language == language && v.Doc == doc && v.Version == version && v.Complete
		}) {
			return apperr.New(apperr.NotFound, "langspec versions lists the stored versions", "no complete version %s of %s/%s", apperr.Quote(version), language, doc)
		}
	}
	var pin any
	if version != "" {
		pin = version
	}
	_, err := d.sql.ExecContext(ctx, `UPDATE documents SET default_version = ? WHERE language = ? AND doc = ?`, pin, language, doc)
	return d.classify(err, "set the default version in")
}

// CompareVersionStrings compares version strings so that runs of digits
// compare as numbers: "go1.9" < "go1.10" < "go1.26", "se8" < "se21".
func CompareVersionStrings(a, b string) int {
	for a != "" && b != "" {
		da, db := leadingDigits(a), leadingDigits(b)
		switch {
		case da != "" && db != "":
			na, nb := strings.TrimLeft(da, "0"), strings.TrimLeft(db, "0")
			if c := len(na) - len(nb); c != 0 {
				return sign(c)
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[len(da):], b[len(db):]
		default:
			if a[0] != b[0] {
				return sign(int(a[0]) - int(b[0]))
			}
			a, b = a[1:], b[1:]
		}
	}
	return sign(len(a) - len(b))
}

func leadingDigits(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

// Empty reports whether nothing has been ingested yet.
func (d *DB) Empty(ctx context.Context) (bool, error) {
	var n int
	if err := d.sql.QueryRowContext(ctx, `SELECT count(*) FROM snapshots WHERE complete = 1`).Scan(&n); err != nil {
		return false, d.classify(err, "read")
	}
	return n == 0, nil
}
