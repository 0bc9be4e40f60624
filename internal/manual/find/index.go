// Package find keeps the manuals folder indexed in the store and runs
// manual_find, the thorough staged search over it, with its traces, its
// adaptive thresholds and the gold-set evaluation that measures it.
package find

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"golang.org/x/text/unicode/norm"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest/manualfile"
	"github.com/langspec/langspec/internal/manual"
	"github.com/langspec/langspec/internal/progress"
	"github.com/langspec/langspec/internal/rank"
	"github.com/langspec/langspec/internal/text/normalize"
)

// Index keeps the manual tables of the store in step with the manuals
// folder, incrementally: a refresh lists the files, re-reads only those whose
// size or modification time changed, and re-indexes only those whose content
// hash changed. Safe for concurrent use; refreshes run one at a time.
type Index struct {
	store *db.DB
	// manuals are the library's manuals in the store: those of its folder
	// alone, so that another folder's manuals (another project's, under the
	// same database) are never refreshed or removed from here.
	manuals *db.ManualRoot
	lib     *manual.Library
	log     *slog.Logger

	mu    sync.Mutex // serialises refreshes and guards cache
	cache map[string]*manualSnapshot
}

// manualSnapshot is the nodes of one manual as of one set of file hashes.
// What is worked out from the nodes alone is built on first use and kept
// with them: immutable once built, shared by concurrent searches.
type manualSnapshot struct {
	manual  string
	key     string // fingerprint of (path, hash) of every file
	nodes   []db.ManualNode
	traits  []nodeTraits // by node, in nodes' order
	skipped []SkippedFile

	treeOnce    sync.Once
	tree        *nodeTree
	textOnce    sync.Once
	text        *textIndex
	orderOnce   sync.Once
	inOrder     bool
	trigramOnce sync.Once
	trigram     *trigramRows
	sourceOnce  sync.Once
	src         *rank.MemorySource
	srcErr      error

	gramMu   sync.Mutex         // guards gramRows
	gramRows map[string][]int32 // trigram → the nodes holding it (rowsHolding)
}

// source is the snapshot as the ranking engine reads it, built on first
// use: a node's heading, file name (the path field) and text, with its
// normal text for the literal channel. The store keeps no postings of a
// manual: they are worked out from the nodes, so that a manual is ranked
// with its own statistics, whatever else the database holds, and its
// misspelt words are corrected from its own vocabulary.
func (sn *manualSnapshot) source() (*rank.MemorySource, error) {
	sn.sourceOnce.Do(func() {
		secs := make([]rank.MemorySection, len(sn.nodes))
		for i := range sn.nodes {
			n := &sn.nodes[i]
			secs[i] = rank.MemorySection{ID: n.RowID, Title: n.Title, Path: n.FileName, Body: n.Body, Literal: n.Norm}
		}
		// Not the caller's context: the source is the snapshot's, kept
		// for every later search, and one caller's cancellation must not
		// be kept as its error.
		sn.src, sn.srcErr = rank.NewMemorySource(context.Background(), secs)
	})
	return sn.src, sn.srcErr
}

// nodeTraits are what every search reads of a node that no query changes:
// worked out once when a manual's nodes are loaded, not per search, where
// normalising every heading and matching every body against the exception
// words and the list pattern took a third of a manual_find
// (docs/performance.md).
type nodeTraits struct {
	normTitle, looseTitle string
	titleKey              string       // rank.TitleKey of its title, for the exact-title rule
	hasExc                bool         // holds exception vocabulary
	isList                bool         // holds a numbered or bulleted procedure
	figures               []figureSlot // the figures it states with their context, to compare sections of the same heading
}

// traitsOf works out the traits of nodes, on every core: the regular
// expressions make it the longest part of loading a large manual.
func traitsOf(nodes []db.ManualNode) []nodeTraits {
	excs := exceptionForms()
	out := make([]nodeTraits, len(nodes))
	parts := min(runtime.GOMAXPROCS(0), len(nodes)/1000+1)
	var wg sync.WaitGroup
	for k := range parts {
		wg.Go(func() {
			for i := k * len(nodes) / parts; i < (k+1)*len(nodes)/parts; i++ {
				n := &nodes[i]
				out[i] = nodeTraits{normTitle: normalize.Normal(n.Title), looseTitle: normalize.Loose(n.Title), titleKey: rank.TitleKey(n.Title),
					hasExc: containsAny(n.Norm, excs), isList: numberedLine.MatchString(n.Body), figures: proseFigures(n)}
			}
		})
	}
	wg.Wait()
	return out
}

// exceptionForms are the exception words in normal form.
func exceptionForms() []string {
	excs := manual.ExceptionTerms()
	out := make([]string, len(excs))
	for i, e := range excs {
		out[i] = normalize.Normal(e)
	}
	return out
}

// SkippedFile is a file the index could not take, with why.
type SkippedFile struct {
	Path   string `json:"path" jsonschema:"file relative to the manual's folder"`
	Reason string `json:"reason" jsonschema:"why it is not searchable, such as file_too_large or undecodable"`
	Detail string `json:"detail" jsonschema:"the error, in one sentence, with what to do"`
}

// RefreshReport says what a refresh changed.
type RefreshReport struct {
	ManualID  string        `json:"manual_id"`
	Files     int           `json:"files"`     // files seen
	Indexed   int           `json:"indexed"`   // new or changed content, (re)indexed
	Unchanged int           `json:"unchanged"` // same size and time, or same content
	Removed   int           `json:"removed"`   // gone from disk, dropped from the index
	Skipped   []SkippedFile `json:"skipped,omitempty"`
}

// NewIndex returns an Index over lib, stored in store.
func NewIndex(store *db.DB, lib *manual.Library, log *slog.Logger) *Index {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Index{store: store, manuals: store.ManualRoot(RootKey(lib.Dir())), lib: lib, log: log, cache: map[string]*manualSnapshot{}}
}

// RootKey is how the index names a manuals folder: its absolute path with
// symbolic links resolved (a folder reached by two paths is one root) and
// in NFC (a Mac may spell it decomposed).
func RootKey(dir string) string {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return norm.NFC.String(filepath.Clean(dir))
}

// Manuals are the library's manuals in the store.
func (x *Index) Manuals() *db.ManualRoot { return x.manuals }

// Library is the manuals folder the index follows.
func (x *Index) Library() *manual.Library { return x.lib }

// RefreshAll refreshes every manual of the folder and drops those of its
// manuals whose folder is gone; another folder's manuals stay as they are.
func (x *Index) RefreshAll(ctx context.Context) ([]RefreshReport, error) {
	ids, err := x.lib.Manuals()
	if err != nil {
		return nil, err
	}
	var reports []RefreshReport
	for _, id := range ids {
		r, err := x.Refresh(ctx, id)
		if err != nil {
			return reports, err
		}
		reports = append(reports, r)
	}
	indexed, err := x.manuals.Indexed(ctx)
	if err != nil {
		return reports, err
	}
	for _, id := range indexed {
		if !slices.Contains(ids, id) {
			if err := x.manuals.Delete(ctx, id, nil); err != nil {
				return reports, err
			}
			x.log.Info("manual removed from index", "manual", id, "root", x.manuals.Root())
		}
	}
	return reports, nil
}

// Refresh brings one manual's index up to date with its folder.
func (x *Index) Refresh(ctx context.Context, manualID string) (RefreshReport, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	_, r, err := x.refreshLocked(ctx, manualID)
	return r, err
}

// Nodes refreshes a manual and returns its nodes in path and document order,
// with the files it had to skip. The slice is shared: callers must not
// change it.
func (x *Index) Nodes(ctx context.Context, manualID string) ([]db.ManualNode, []SkippedFile, error) {
	snap, err := x.snapshot(ctx, manualID)
	if err != nil {
		return nil, nil, err
	}
	return snap.nodes, snap.skipped, nil
}

// snapshot refreshes a manual and returns its nodes with their traits, from
// the cache while the files are unchanged.
func (x *Index) snapshot(ctx context.Context, manualID string) (*manualSnapshot, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	key, _, err := x.refreshLocked(ctx, manualID)
	if err != nil {
		return nil, err
	}
	if snap := x.cache[manualID]; snap != nil && snap.key == key.fingerprint {
		return snap, nil
	}
	nodes, err := x.manuals.Nodes(ctx, manualID)
	if err != nil {
		return nil, err
	}
	snap := &manualSnapshot{manual: manualID, key: key.fingerprint, nodes: nodes, traits: traitsOf(nodes), skipped: key.skipped}
	x.cache[manualID] = snap
	return snap, nil
}

// built returns the manual's snapshot as last built, or nil, without
// looking at the folder.
func (x *Index) built(manualID string) *manualSnapshot {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.cache[manualID]
}

// confirm refreshes the manuals of snaps, in order, and returns their
// snapshots now, with errStale when one of them is no longer its manual's
// snapshot.
func (x *Index) confirm(ctx context.Context, snaps []*manualSnapshot) (map[string]*manualSnapshot, error) {
	now := make(map[string]*manualSnapshot, len(snaps))
	var err error
	for _, snap := range snaps {
		cur, e := x.snapshot(ctx, snap.manual)
		if e != nil {
			return nil, e
		}
		now[snap.manual] = cur
		if cur != snap {
			err = errStale
		}
	}
	return now, err
}

type refreshState struct {
	fingerprint string
	skipped     []SkippedFile
}

func (x *Index) refreshLocked(ctx context.Context, manualID string) (refreshState, RefreshReport, error) {
	rep := RefreshReport{ManualID: manualID}
	infos, err := x.lib.FileInfos(manualID)
	if err != nil {
		if apperr.CodeOf(err) == apperr.NotFound {
			// The folder is gone: forget it, then report not_found.
			_ = x.manuals.Delete(ctx, manualID, nil)
			delete(x.cache, manualID)
		}
		return refreshState{}, rep, err
	}
	stored, err := x.manuals.Files(ctx, manualID)
	if err != nil {
		return refreshState{}, rep, err
	}
	rep.Files = len(infos)
	// A call that re-indexes reports one unit per file it reads (package
	// progress); a folder that has not changed reports nothing.
	prog := progress.From(ctx)
	for _, fi := range infos {
		if old, ok := stored[fi.Path]; !ok || old.Size != fi.Size || old.MtimeNS != fi.ModTime.UnixNano() {
			prog.Expect(1)
		}
	}
	var st refreshState
	fp := sha256.New()
	seen := make(map[string]bool, len(infos))
	for _, fi := range infos {
		if err := ctx.Err(); err != nil {
			return st, rep, err
		}
		seen[fi.Path] = true
		cur := db.ManualFile{ManualID: manualID, Path: fi.Path, Size: fi.Size, MtimeNS: fi.ModTime.UnixNano()}
		old, ok := stored[fi.Path]
		if ok && old.Size == cur.Size && old.MtimeNS == cur.MtimeNS {
			rep.Unchanged++
			fp.Write([]byte(fi.Path + "\x00" + old.Hash + "\x00"))
			continue
		}
		prog.Done(1, "indexing "+manualID+"/"+fi.Path)
		b, err := x.lib.Read(manualID, fi.Path)
		if err != nil {
			code := apperr.CodeOf(err)
			if code == apperr.NotFound {
				continue // removed since the listing
			}
			st.skipped = append(st.skipped, SkippedFile{Path: fi.Path, Reason: string(code), Detail: err.Error()})
			x.log.Warn("manual file not indexed", "manual", manualID, "path", fi.Path, "err", err)
			continue
		}
		cur.Hash = db.TextHash(string(b))
		fp.Write([]byte(fi.Path + "\x00" + cur.Hash + "\x00"))
		if ok && old.Hash == cur.Hash {
			rep.Unchanged++
			if err := x.manuals.Touch(ctx, cur); err != nil {
				return st, rep, err
			}
			continue
		}
		if err := x.manuals.Put(ctx, cur, nodesOf(fi.Path, b)); err != nil {
			return st, rep, err
		}
		rep.Indexed++
	}
	var gone []string
	for p := range stored {
		if !seen[p] {
			gone = append(gone, p)
		}
	}
	// A skipped file that is still on disk keeps no stale rows either: what
	// cannot be read now must not be served from an old copy.
	for _, s := range st.skipped {
		if _, ok := stored[s.Path]; ok {
			gone = append(gone, s.Path)
		}
	}
	if len(gone) > 0 {
		if err := x.manuals.Delete(ctx, manualID, gone); err != nil {
			return st, rep, err
		}
		rep.Removed = len(gone)
	}
	rep.Skipped = st.skipped
	st.fingerprint = hex.EncodeToString(fp.Sum(nil))
	if rep.Indexed > 0 || rep.Removed > 0 {
		if err := x.store.MergeManualIndexes(ctx); err != nil {
			return st, rep, err
		}
		x.log.Info("manual index refreshed", "manual", manualID, "indexed", rep.Indexed, "removed", rep.Removed, "unchanged", rep.Unchanged)
	}
	return st, rep, nil
}

// nodesOf splits a file into stored nodes, each with its own text. A JSON file
// that does not parse is still indexed, as one node of its text: a typo in a
// settings file must not hide the file from search.
func nodesOf(rel string, b []byte) []db.ManualNode {
	doc, err := manualfile.ParseDocument(rel, b)
	if err != nil {
		text := manualfile.NewSource(b).Text()
		lines := strings.Count(text, "\n")
		if !strings.HasSuffix(text, "\n") && text != "" {
			lines++
		}
		return []db.ManualNode{storedNode(manualfile.Node{Kind: manualfile.KindFile, NodeID: manualfile.FileID, Path: rel,
			Title: pathBase(rel), LineStart: 1, LineEnd: lines}, lines, text)}
	}
	out := make([]db.ManualNode, 0, len(doc.Nodes))
	for i, n := range doc.Nodes {
		ownEnd := n.LineEnd
		if i+1 < len(doc.Nodes) && doc.Nodes[i+1].LineStart <= n.LineEnd {
			ownEnd = doc.Nodes[i+1].LineStart - 1
		}
		out = append(out, storedNode(n, ownEnd, doc.Lines(n.LineStart, ownEnd)))
	}
	return out
}

func storedNode(n manualfile.Node, ownEnd int, body string) db.ManualNode {
	text := n.Title + "\n" + body
	return db.ManualNode{Path: n.Path, NodeID: n.NodeID, ParentID: n.ParentID, Kind: n.Kind, Level: n.Level,
		Title: n.Title, LineStart: n.LineStart, LineEnd: n.LineEnd, OwnEnd: ownEnd, Body: body,
		Norm: normalize.Normal(text), Loose: normalize.Loose(text)}
}

func pathBase(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[i+1:]
	}
	return rel
}
