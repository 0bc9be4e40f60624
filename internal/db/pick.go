package db

import (
	"context"
	"slices"
	"strings"

	"github.com/langspec/langspec/internal/apperr"
)

// Which stored snapshots a read looks at (a Scope resolved against the
// stored versions).

// Scope selects what a read looks at. Empty fields mean "any"; an empty
// Version means each document's default version (markDefault).
type Scope struct {
	Language string
	Doc      string
	Version  string
}

// snapshotsIn resolves a scope to snapshot ids. Errors: apperr.NotFound naming
// what exists when the language or version is unknown.
func (d *DB) snapshotsIn(ctx context.Context, sc Scope) ([]VersionInfo, error) {
	all, err := d.versions(ctx, "")
	if err != nil {
		return nil, err
	}
	return pickSnapshots(all, sc)
}

// pickSnapshots is snapshotsIn over the stored versions all.
func pickSnapshots(all []VersionInfo, sc Scope) ([]VersionInfo, error) {
	var picked, ofLanguage []VersionInfo
	for _, v := range all {
		if sc.Language != "" && v.Language != sc.Language || sc.Doc != "" && v.Doc != sc.Doc {
			continue
		}
		ofLanguage = append(ofLanguage, v)
		if v.Complete && (sc.Version == "" && v.Default || sc.Version != "" && v.Version == sc.Version) {
			picked = append(picked, v)
		}
	}
	if len(picked) > 0 {
		return picked, nil
	}
	switch {
	case len(all) == 0, sc.Language != "" && !slices.ContainsFunc(all, func(v VersionInfo) bool { return v.Language == sc.Language }):
		return nil, unknownLanguage(sc.Language, all)
	case len(ofLanguage) == 0:
		var docs []string
		for _, v := range all {
			if (sc.Language == "" || v.Language == sc.Language) && !slices.Contains(docs, v.Doc) {
				docs = append(docs, v.Doc)
			}
		}
		return nil, apperr.New(apperr.NotFound, "available documents: "+strings.Join(docs, ", "),
			"no document %q for %s", sc.Doc, describe(sc))
	default:
		var names []string
		for _, v := range ofLanguage {
			if v.Complete && !slices.Contains(names, v.Version) {
				names = append(names, v.Version)
			}
		}
		return nil, apperr.New(apperr.NotFound, "available versions: "+strings.Join(names, ", "),
			"no version %s for %s", apperr.Quote(sc.Version), describe(sc))
	}
}

func describe(sc Scope) string {
	if sc.Language == "" {
		return "any language"
	}
	return sc.Language
}
