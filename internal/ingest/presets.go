package ingest

import (
	"slices"
	"strings"

	"github.com/langspec/langspec/fixtures"
	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
)

// Presets are the documents langspec knows out of the box. The config file
// adds sources and overrides these by language and doc.
func Presets() []SourceSpec {
	return []SourceSpec{
		goPreset(),
		{
			Language: "rust", Doc: "reference", DisplayName: "The Rust Reference", Kind: KindMdBook,
			Local: []string{"${RUSTUP_TOOLCHAIN}/share/doc/rust/html/reference"},
			URL:   "https://doc.rust-lang.org/reference/",
			Entry: "print.html",
			// Each release's docs stay at doc.rust-lang.org/1.95.0/.
			CanonicalURL: "https://doc.rust-lang.org/" + VersionPlaceholder + "/reference/",
			SourcePolicy: db.FullText, // MIT OR Apache-2.0
		},
		{
			Language: "java", Doc: "jls", DisplayName: "The Java Language Specification, Java SE 21 Edition", Kind: KindHTMLChapters,
			URL:            "https://docs.oracle.com/javase/specs/jls/se21/html/",
			Entry:          "index.html",
			CanonicalURL:   "https://docs.oracle.com/javase/specs/jls/se21/html/",
			ChapterPattern: `^jls-\d+\.html$`,
			// © Oracle, no licence to redistribute: excerpts with a link.
			SourcePolicy: db.ExcerptOnly,
		},
		{
			Language: "ecmascript", Doc: "ecma262", DisplayName: "ECMAScript Language Specification (ECMA-262)", Kind: KindEcmarkup,
			URL:          "https://tc39.es/ecma262/",
			Entry:        "index.html",
			CanonicalURL: "https://tc39.es/ecma262/",
			// Ecma's copyright notice allows copies of the whole document
			// for reference, not reuse of parts: excerpts with a link.
			SourcePolicy: db.ExcerptOnly,
		},
		{
			Language: "python", Doc: "reference", DisplayName: "The Python Language Reference", Kind: KindSphinx,
			// Debian's python3.N-doc.
			Local: []string{"/usr/share/doc/python3.*/html/reference", "/usr/share/doc/python3/html/reference"},
			URL:   "https://docs.python.org/3/reference/",
			Entry: "index.html",
			// Each minor version's docs stay at docs.python.org/3.11/.
			CanonicalURL: "https://docs.python.org/" + VersionPlaceholder + "/reference/",
			SourcePolicy: db.FullText, // PSF documentation licence
		},
		{
			Language: "typescript", Doc: "handbook", DisplayName: "The TypeScript Handbook", Kind: KindMarkdown,
			URL: "https://raw.githubusercontent.com/microsoft/TypeScript-Website/v2/packages/documentation/copy/en/handbook-v2/",
			// The handbook's chapters in reading order, as the site's sidebar
			// lists them. Written down here because a web folder cannot be
			// listed; a local checkout can be read whole with --from.
			Files: []string{
				"The Handbook.md", "Basics.md", "Everyday Types.md", "Narrowing.md", "More on Functions.md",
				"Object Types.md", "Type Manipulation/_Creating Types from Types.md", "Type Manipulation/Generics.md",
				"Type Manipulation/Keyof Type Operator.md", "Type Manipulation/Typeof Type Operator.md",
				"Type Manipulation/Indexed Access Types.md", "Type Manipulation/Conditional Types.md",
				"Type Manipulation/Mapped Types.md", "Type Manipulation/Template Literal Types.md",
				"Classes.md", "Modules.md",
			},
			CanonicalURL: "https://www.typescriptlang.org",
			SourcePolicy: db.FullText, // CC BY 4.0
		},
	}
}

func goPreset() SourceSpec {
	return SourceSpec{
		Language: GoLanguage, Doc: GoDoc, DisplayName: GoDisplayName, Kind: KindHTML,
		Local:        []string{"${GOROOT}/doc/go_spec.html"},
		URL:          GoCanonical,
		CanonicalURL: GoCanonical,
		SourcePolicy: db.FullText, // CC BY 3.0
		Embedded:     fixtures.GoSpecPath,
	}
}

// Resolve picks the source for a language (and doc, when the language has
// several) from presets overridden by configured sources: a configured
// source with the same language and doc replaces the preset. Errors:
// apperr.NotFound naming what is known.
func Resolve(configured []SourceSpec, language, doc string) (SourceSpec, error) {
	all := Merge(Presets(), configured)
	var matches []SourceSpec
	for _, s := range all {
		if s.Language == language && (doc == "" || s.Doc == doc) {
			matches = append(matches, s)
		}
	}
	switch {
	case len(matches) == 1:
		return matches[0], nil
	case len(matches) > 1:
		var docs []string
		for _, m := range matches {
			docs = append(docs, m.Doc)
		}
		return SourceSpec{}, apperr.New(apperr.InvalidArgument, "name one with --doc: "+strings.Join(docs, ", "),
			"%s has %d documents", language, len(matches))
	}
	var names []string
	for _, s := range all {
		names = append(names, s.Language+"/"+s.Doc)
	}
	return SourceSpec{}, apperr.New(apperr.NotFound, "known sources: "+strings.Join(names, ", ")+"; add one in langspec.json",
		"no source for %q", strings.TrimSuffix(language+"/"+doc, "/"))
}

// Merge overlays configured sources on presets by (language, doc), keeping
// presets' order and appending new sources.
func Merge(presets, configured []SourceSpec) []SourceSpec {
	out := slices.Clone(presets)
	for _, c := range configured {
		i := slices.IndexFunc(out, func(s SourceSpec) bool { return s.Language == c.Language && s.Doc == c.Doc })
		if i >= 0 {
			c.Embedded = out[i].Embedded
			out[i] = c
		} else {
			out = append(out, c)
		}
	}
	return out
}
