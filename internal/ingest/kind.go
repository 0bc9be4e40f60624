package ingest

import (
	"context"
	"net/url"
	"path"
	"runtime/debug"
	"strings"

	"github.com/langspec/langspec/internal/db"
)

// Kind names a document format; each has its own reader.
type Kind string

const (
	KindHTML         Kind = "html"          // one page split at headings (Go spec)
	KindHTMLChapters Kind = "html-chapters" // an index page and chapter pages (Java JLS)
	KindMdBook       Kind = "mdbook"        // mdBook output or sources (Rust Reference)
	KindEcmarkup     Kind = "ecmarkup"      // nested <emu-clause id> (ECMAScript)
	KindSphinx       Kind = "sphinx"        // Sphinx HTML (Python language reference)
	KindMarkdown     Kind = "markdown"      // Markdown files with front matter (TypeScript handbook)
)

// SourceSpec declares one document: what it is, where to read it, how to
// cite it. It is data: presets ship with langspec, and users add or override
// them in langspec.json.
type SourceSpec struct {
	Language    string `json:"language" jsonschema:"language id, e.g. rust"`
	Doc         string `json:"doc" jsonschema:"document id within the language, e.g. reference"`
	DisplayName string `json:"display_name" jsonschema:"human-readable name of the document"`
	Kind        Kind   `json:"kind" jsonschema:"document format: html, html-chapters, mdbook, ecmarkup, sphinx or markdown"`
	// URL is where the document is fetched from when no local copy is found:
	// the page itself, or the folder (ending in /) that holds Entry.
	URL string `json:"url,omitempty" jsonschema:"network location: the page, or the folder (ending in /) holding entry"`
	// Local lists folders or files to try before the network, in order.
	// ${GOROOT} and ${RUSTUP_TOOLCHAIN} expand to the local toolchains; a
	// glob pattern picks its highest-versioned match.
	Local []string `json:"local,omitempty" jsonschema:"local copies to try first, in order; ${GOROOT} and ${RUSTUP_TOOLCHAIN} expand to the toolchains' folders"`
	// Entry is the file to start from, relative to a folder location
	// (print.html, index.html, SUMMARY.md); empty when the location is the
	// page itself.
	Entry string `json:"entry,omitempty" jsonschema:"file to start from inside a folder location, e.g. print.html"`
	// CanonicalURL is the public address sections are cited by: a page's
	// path relative to the entry's folder is appended, then #anchor.
	CanonicalURL string `json:"canonical_url" jsonschema:"public base URL for citations; a page's path relative to the entry folder and #anchor are appended; {version} stands for the version stored"`
	SourcePolicy string `json:"source_policy" jsonschema:"full_text, or excerpt_only when the licence allows only excerpts"`
	// Version fixes the version label; otherwise it is read from the
	// document, else the fetch date (YYYY-MM-DD).
	Version string `json:"version,omitempty" jsonschema:"fixed version label; default: read from the document, else the fetch date"`
	// ChapterPattern selects chapter links on an html-chapters index page
	// (a regular expression matched against each link's href).
	ChapterPattern string `json:"chapter_pattern,omitempty" jsonschema:"html-chapters: regular expression that chapter links' href must match"`
	// Files lists a markdown document's files in reading order, relative to
	// the location. Without it, a local folder is read whole: every .md file
	// below it, in every subfolder, in path order.
	Files []string `json:"files,omitempty" jsonschema:"markdown: the files in reading order, relative to the location; default: every .md file below a local folder"`
	// Skip lists CSS selectors of elements that hold no document text.
	Skip []string `json:"skip,omitempty" jsonschema:"CSS selectors of elements to leave out (navigation, sidebars)"`
	// Embedded names a copy compiled into langspec, tried when neither a
	// local copy nor the network works. Presets only.
	Embedded string `json:"-"`

	// spill says where a reader may keep the texts of a big document while
	// it is read (textspill.go); Ingest sets it from its Options.
	spill spillConfig
}

// Page is one file of a document as read.
type Page struct {
	Location string // where it was read from: a URL or a file path
	Rel      string // its path relative to the document's folder, "/"-separated (for canonical URLs)
	Body     []byte
}

// PageReader reads the pages of one document. rel is relative to the
// document's folder (or URL base), "/"-separated, and may carry a
// "#fragment", which is ignored.
type PageReader interface {
	Read(ctx context.Context, rel string) (Page, error)
}

// Lister is a PageReader that can also list its files: local folders can, a
// web server cannot. Files come back "/"-separated, sorted, from every
// subfolder.
type Lister interface {
	List(ctx context.Context, ext string) ([]string, error)
}

// PageFailure is a page that could not be read; the document is then
// incomplete and is stored, but never as the latest version.
type PageFailure struct {
	Rel string
	Err error
}

// Document is what a kind's reader returns.
type Document struct {
	Version  string        // "" when the document does not state one
	Stated   string        // what it states instead, when it says something ("Version of Aug 2, 2023")
	Sections []db.Section  // in document order, ids unique; nil once packed
	Failed   []PageFailure // pages that could not be read
	// texts, when not nil, holds the sections' texts, some of them in a
	// file (their Text is then ""), and once packed the sections too: read
	// them with Section, and Close the document when done.
	texts *textSpill
}

// Len is the number of sections (db.SectionSource).
func (d Document) Len() int {
	if d.texts != nil {
		return d.texts.Len()
	}
	return len(d.Sections)
}

// Section returns section i with its text, wherever it is kept
// (db.SectionSource).
func (d Document) Section(i int) (db.Section, error) {
	if d.texts == nil {
		return d.Sections[i], nil
	}
	return d.texts.Section(i)
}

// pack moves a big document's sections to the file its texts were
// spilled to (textSpill.pack): Sections is nil afterwards, and Section
// reads them.
func (d *Document) pack() error {
	if !d.texts.spilled() {
		return nil
	}
	if err := d.texts.pack(); err != nil {
		return err
	}
	d.Sections = nil
	// Hand the memory the sections held back to the system now: the Go
	// runtime would keep it for itself, and SQLite, whose memory is its
	// own, is about to need hundreds of megabytes of it.
	debug.FreeOSMemory()
	return nil
}

// Close lets go of the file a big document's texts were kept in.
func (d Document) Close() error { return d.texts.Close() }

// kindReader reads a whole document of one kind: the entry page through r,
// and any further pages it links to.
type kindReader func(ctx context.Context, src SourceSpec, r PageReader) (Document, error)

// canonical is the citation URL of the page at rel, with an anchor:
// CanonicalURL + rel + "#" + anchor. A single-page document has rel "";
// a multi-page one has a CanonicalURL ending in "/".
func canonical(src SourceSpec, rel, anchor string) string {
	u := src.CanonicalURL + rel
	if anchor != "" {
		u += "#" + anchor
	}
	return u
}

// resolveRel joins a link found on page from with the page's own rel path:
// "../x.html#a" on "a/b.html" is "x.html". It reports false for links that
// leave the document (absolute URLs, other hosts, mailto:).
func resolveRel(from, href string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(href))
	if err != nil || u.Scheme != "" || u.Host != "" || u.Path == "" {
		return "", false
	}
	dir := path.Dir(from)
	rel := path.Clean(path.Join(dir, u.Path))
	if strings.HasPrefix(rel, "../") || rel == ".." {
		return "", false
	}
	return rel, true
}
