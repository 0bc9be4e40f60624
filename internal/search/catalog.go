package search

import (
	"context"

	"github.com/langspec/langspec/internal/db"
)

// Language is one stored language and its documents.
type Language struct {
	Language string       `json:"language" jsonschema:"language id, as passed to the other tools (go, rust, …)"`
	Docs     []DocSummary `json:"docs" jsonschema:"the documents stored for this language"`
}

// DocSummary describes one document by its latest complete version.
type DocSummary struct {
	Doc           string `json:"doc" jsonschema:"document id within the language (spec, reference, …)"`
	DisplayName   string `json:"display_name" jsonschema:"the document's human-readable name"`
	LatestVersion string `json:"latest_version" jsonschema:"the version searched when none is named; empty if no version is complete"`
	SectionCount  int    `json:"section_count" jsonschema:"sections in the latest version"`
	Versions      int    `json:"versions" jsonschema:"how many versions are stored, complete or not"`
}

// Languages lists every stored language with its documents, sorted by id.
func Languages(ctx context.Context, store *db.DB) ([]Language, error) {
	vs, err := store.Versions(ctx, "")
	if err != nil {
		return nil, err
	}
	out := []Language{}
	for _, v := range vs { // sorted by language, doc, newest first
		if len(out) == 0 || out[len(out)-1].Language != v.Language {
			out = append(out, Language{Language: v.Language, Docs: []DocSummary{}})
		}
		lang := &out[len(out)-1]
		if len(lang.Docs) == 0 || lang.Docs[len(lang.Docs)-1].Doc != v.Doc {
			lang.Docs = append(lang.Docs, DocSummary{Doc: v.Doc, DisplayName: v.DisplayName})
		}
		doc := &lang.Docs[len(lang.Docs)-1]
		doc.Versions++
		if v.Default {
			doc.LatestVersion, doc.SectionCount = v.Version, v.SectionCount
		}
	}
	return out, nil
}

// LanguageIDs returns the ids of the stored languages, sorted.
func LanguageIDs(ctx context.Context, store *db.DB) ([]string, error) {
	langs, err := Languages(ctx, store)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(langs))
	for i, l := range langs {
		ids[i] = l.Language
	}
	return ids, nil
}
