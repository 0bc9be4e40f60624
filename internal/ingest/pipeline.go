package ingest

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
)

// Options are what one ingest run needs besides the source.
type Options struct {
	From string // --from: a file, folder or URL that replaces the source's own locations
	// Version names the version stored (--version-label), for a copy whose
	// text does not say it: an older toolchain's docs, a tagged file.
	Version string
	Env     Env
	Getter  Getter // for URLs; nil means the network is not used
	Now     func() time.Time
	// Progress is told about each page as it is read; it may be nil.
	Progress func(rel string, failed bool)
	// SemanticProgress is told how many sections' embeddings are done, of
	// how many, after each batch (app.App.Ingest); it may be nil.
	SemanticProgress func(done, total int)
	// SpillDir is where a big document's section texts wait while it is
	// read ("" for the system's temporary folder): the database's folder,
	// so that they go to the disk the database is on, not to a /tmp that
	// may be memory.
	SpillDir string
	// TextsHeld is how many bytes of section text are held in memory
	// before the rest waits in SpillDir; 0 means textsHeld, < 0 never.
	TextsHeld int
	// IndexMemory bounds the memory SQLite gathers a big document's
	// full-text index in (db.PublishOptions); 0 is the store's default.
	IndexMemory int
}

// Report is what an ingest did, for the summary line.
type Report struct {
	Language string           `json:"language"`
	Doc      string           `json:"doc"`
	Version  string           `json:"version"`
	Status   db.PublishStatus `json:"status"`
	Source   string           `json:"source"` // where it was read from
	Pages    PageStats        `json:"pages"`
	Sections SectionStats     `json:"sections"`
	Failed   []FailedPage     `json:"failed_pages,omitempty"`
	Elapsed  time.Duration    `json:"elapsed_ns"`
	// Notices say what the ingest chose for the user: the date as the
	// version of a document that states none.
	Notices   []string `json:"notices,omitempty"`
	Attempted []string `json:"attempted,omitempty"` // locations tried before the one used
	// Semantic is what the ingest did for the optional semantic channel;
	// nil when it is not configured.
	Semantic *SemanticReport `json:"semantic,omitempty"`
}

// SemanticReport says how the sections' vectors were brought up to date.
type SemanticReport struct {
	Model    string `json:"model"`
	Sections int    `json:"sections"`
	Embedded int    `json:"embedded"`      // sent to the endpoint
	Cached   int    `json:"cached"`        // already stored: nothing sent
	Off      string `json:"off,omitempty"` // why the channel is off: the endpoint failed; the ingest itself succeeded
}

// SectionStats compares the sections read with the latest version stored
// before this run.
type SectionStats struct {
	Added     int `json:"added"`
	Changed   int `json:"changed"`
	Unchanged int `json:"unchanged"`
	Removed   int `json:"removed"`
}

// FailedPage is a page that could not be read, with the reason.
type FailedPage struct {
	Page  string `json:"page"`
	Error string `json:"error"`
}

// Ingest reads src from the first of its locations that works, splits it
// into sections and publishes them. A document with pages that failed is
// stored as incomplete: the previous complete version stays current.
func Ingest(ctx context.Context, store *db.DB, src SourceSpec, opts Options) (Report, error) {
	start := time.Now()
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	rep := Report{Language: src.Language, Doc: src.Doc}
	read, err := readerFor(src.Kind)
	if err != nil {
		return rep, err
	}
	locs, err := Candidates(src, opts.From, opts.Env)
	if err != nil {
		return rep, err
	}
	var doc Document
	defer func() { doc.Close() }()
	var loc Location
	var hash string
	err = apperr.New(apperr.Unavailable, "pass a local copy with --from",
		"%s/%s has no local copy and the network is not in use", src.Language, src.Doc)
	for _, l := range locs {
		if l.Kind == AtURL && opts.Getter == nil {
			continue
		}
		rep.Pages = PageStats{}
		doc, hash, err = readAt(ctx, src, l, read, opts, &rep.Pages)
		if err == nil {
			loc = l
			break
		}
		if ctx.Err() != nil {
			return rep, ctx.Err()
		}
		rep.Attempted = append(rep.Attempted, fmt.Sprintf("%s: %v", l, err))
	}
	if err != nil {
		return rep, err
	}
	rep.Source = sourceOf(src, loc)
	rep.Version = firstNonEmpty(opts.Version, src.Version, doc.Version, loc.Version)
	known := rep.Version != ""
	if !known {
		// A copy stored under today's date would pass for the newest
		// version, whatever its age: only a document that never states a
		// version (a living handbook) is dated, and the report says so.
		if !DatedKind(src.Kind) {
			return rep, noVersion(src, loc, doc)
		}
		rep.Version = now().UTC().Format(time.DateOnly)
		rep.Notices = append(rep.Notices, fmt.Sprintf("%s/%s states no version: stored as %s, the date it was read; --version-label names it",
			src.Language, src.Doc, rep.Version))
	}
	citeVersion(doc.Sections, rep.Version, known)
	for _, f := range doc.Failed {
		rep.Failed = append(rep.Failed, FailedPage{Page: f.Rel, Error: f.Err.Error()})
	}
	if err := doc.pack(); err != nil {
		return rep, err
	}
	if rep.Sections, err = compareSections(ctx, store, src, doc); err != nil {
		return rep, err
	}
	res, err := store.PublishFrom(ctx, db.Snapshot{
		Language: src.Language, Doc: src.Doc, DisplayName: src.DisplayName, Version: rep.Version,
		SourceURL: rep.Source, FetchedAt: now(), ContentHash: hash, Incomplete: len(doc.Failed) > 0,
	}, doc, db.PublishOptions{IndexMemory: opts.IndexMemory})
	rep.Status, rep.Version = res.Status, res.Version
	rep.Elapsed = time.Since(start)
	return rep, err
}

// readAt reads the whole document at one location.
func readAt(ctx context.Context, src SourceSpec, loc Location, read kindReader, opts Options, stats *PageStats) (Document, string, error) {
	var inner PageReader
	switch loc.Kind {
	case AtFolder:
		d, err := openDirReader(loc.Base)
		if err != nil {
			return Document{}, "", err
		}
		defer d.Close()
		inner = d
	case AtURL:
		u, err := newURLReader(loc.Base, opts.Getter, stats)
		if err != nil {
			return Document{}, "", err
		}
		inner = u
	case AtEmbedded:
		inner = embeddedReader{dir: loc.Base}
	}
	src.spill = spillConfig{dir: opts.SpillDir, held: cmp.Or(opts.TextsHeld, textsHeld)}
	h := sha256.New()
	cr := &countingReader{inner: inner, stats: stats, local: loc.Kind != AtURL, entry: loc.Entry, hash: h, progress: opts.Progress}
	src.Entry = loc.Entry
	if opts.From != "" && loc.Kind == AtFolder && loc.Entry == "" {
		// A folder the user points at is read whole; the source's file
		// list describes its own URL's layout.
		src.Files = nil
	}
	doc, err := read(ctx, src, cr)
	if err != nil {
		return doc, "", err
	}
	if len(doc.Sections) == 0 {
		return doc, "", apperr.New(apperr.InvalidArgument, "check that --from is the document you meant",
			"%s has no sections a %s reader recognises", loc, src.Kind)
	}
	return doc, hex.EncodeToString(h.Sum(nil)), nil
}

// sourceOf is the source_url stored with a version: where it was read,
// "embedded:<path>" for the copy built into langspec. Citations do not use
// it (each section keeps its canonical URL), so the built-in copy is not
// recorded as if it had been fetched from the canonical address.
func sourceOf(_ SourceSpec, loc Location) string {
	return loc.String()
}

// BuiltIn reports whether a stored source_url is the copy built into
// langspec (a Location of kind AtEmbedded).
func BuiltIn(sourceURL string) bool {
	return strings.HasPrefix(sourceURL, string(AtEmbedded)+":")
}

// SourceLabel is a stored source URL as people read it: "built in" for the
// copy compiled into langspec (its sections still cite the canonical URL),
// else the URL or file as stored. The terminal and the page both say it.
func SourceLabel(sourceURL string) string {
	if BuiltIn(sourceURL) {
		return "built in"
	}
	return sourceURL
}

// compareSections counts sections added, changed, unchanged and removed
// against the latest complete version stored.
func compareSections(ctx context.Context, store *db.DB, src SourceSpec, doc Document) (SectionStats, error) {
	var st SectionStats
	old, err := store.SectionTexts(ctx, db.Scope{Language: src.Language, Doc: src.Doc})
	if apperr.CodeOf(err) == apperr.NotFound {
		st.Added = doc.Len()
		return st, nil
	}
	if err != nil {
		return st, err
	}
	// Ids are unique within a document: what is left of old at the end was
	// removed.
	for i := range doc.Len() {
		s, err := doc.Section(i)
		if err != nil {
			return st, err
		}
		prev, ok := old[s.SectionID]
		switch {
		case !ok:
			st.Added++
			continue
		case prev != db.TextHash(s.Text):
			st.Changed++
		default:
			st.Unchanged++
		}
		delete(old, s.SectionID)
	}
	st.Removed = len(old)
	return st, nil
}

// readerFor returns the reader of a kind.
func readerFor(k Kind) (kindReader, error) {
	switch k {
	case KindHTML:
		return readHTML, nil
	case KindMdBook:
		return readMdBook, nil
	case KindHTMLChapters:
		return readHTMLChapters, nil
	case KindEcmarkup:
		return readEcmarkup, nil
	case KindSphinx:
		return readSphinx, nil
	case KindMarkdown:
		return readMarkdown, nil
	}
	var names []string
	for _, k := range Kinds() {
		names = append(names, string(k))
	}
	return nil, apperr.New(apperr.InvalidArgument, "kinds: "+strings.Join(names, ", "), "unknown source kind %q", k)
}

// Kinds lists every document kind.
func Kinds() []Kind {
	return []Kind{KindHTML, KindHTMLChapters, KindMdBook, KindEcmarkup, KindSphinx, KindMarkdown}
}

// readHTML reads one page split at h2–h4 headings: the Go spec, and any
// document of the same shape.
func readHTML(ctx context.Context, src SourceSpec, r PageReader) (Document, error) {
	page, err := r.Read(ctx, src.Entry)
	if err != nil {
		return Document{}, err
	}
	parsed, err := parseHTMLPage(page.Body, src)
	if err != nil {
		return Document{}, err
	}
	return Document{Version: parsed.Version, Stated: parsed.Stated, Sections: parsed.Sections}, nil
}

// VersionPlaceholder in a source's canonical_url stands for the version
// whose text is stored: a citation must name the version it quotes
// ("https://docs.python.org/{version}/reference/" cites 3.11 as
// docs.python.org/3.11/…, not the current version, which may say something
// else).
const VersionPlaceholder = "{version}"

// urlVersion is how a site names a version in its URLs: a nightly or beta
// build (1.97.0-nightly) is published under its channel, not its number.
func urlVersion(v string) string {
	switch {
	case strings.Contains(v, "nightly"):
		return "nightly"
	case strings.Contains(v, "beta"):
		return "beta"
	}
	return v
}

// citeVersion writes the version into the sections' URLs. known is false
// when the document did not say its version (the date stands in): the
// placeholder and the slash after it are dropped then, which leaves the
// site's current version.
func citeVersion(sections []db.Section, version string, known bool) {
	for i := range sections {
		u := sections[i].URL
		if !strings.Contains(u, VersionPlaceholder) {
			continue
		}
		if known {
			sections[i].URL = strings.ReplaceAll(u, VersionPlaceholder, urlVersion(version))
		} else {
			sections[i].URL = strings.ReplaceAll(u, VersionPlaceholder+"/", "")
		}
	}
}

// DatedKind reports whether documents of a kind may be stored under the
// date they were read when they state no version: Markdown pages (the
// TypeScript handbook) are living documents with no version of their own.
// The other kinds' documents state one (the Go spec's "Language version
// go1.26", the JLS's edition, ECMAScript's year or draft date, Sphinx's
// release, the rustup toolchain's): a copy that does not is an old or a
// partial one, and its version must be named.
func DatedKind(k Kind) bool { return k == KindMarkdown }

// noVersion is the refusal of a document that states no version.
// Errors: apperr.InvalidArgument, the hint naming --version-label.
func noVersion(src SourceSpec, loc Location, doc Document) error {
	said := ""
	if doc.Stated != "" {
		said = fmt.Sprintf(" (it says %q)", doc.Stated)
	}
	example := "VERSION"
	if src.Language == GoLanguage {
		example = "go1.21"
	}
	return apperr.New(apperr.InvalidArgument,
		"name its version: langspec ingest "+src.Language+" --from "+loc.String()+" --version-label "+example,
		"%s states no version of %s/%s%s", loc, src.Language, src.Doc, said)
}
