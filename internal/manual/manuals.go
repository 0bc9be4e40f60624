// Package manual reads the user's manuals folder (MANUALS_ROOT): one
// subfolder per manual, holding Markdown and JSON files at any depth. It
// splits each file into nodes (Markdown sections, whole JSON files) that a
// bridge can copy into the vault and a search index can store, both keyed by
// the same (manual id, path, node id) and line ranges.
//
// The folder is read-only to langspec. Every access goes through one os.Root,
// which refuses any path that resolves outside it; on top of that the library
// never follows a symbolic link, inside or out: a path with a symlink at any
// component is refused with path_outside_manuals, and listings skip symlinks.
// A link swapped in between the check and the open can at worst redirect a
// read to another file inside the folder, because os.Root still confines it.
package manual

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/text/unicode/norm"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/ingest/manualfile"
	"github.com/langspec/langspec/internal/rootpath"
	"github.com/langspec/langspec/internal/text/decode"
)

// DefaultMaxReadBytes caps one manual file. Manuals are prose and settings;
// a larger file is more likely a data dump than a manual.
const DefaultMaxReadBytes = 8 << 20

// policy is the manuals' use of the shared path policy: their codes and
// hints. Names have no rule beyond it; the extension rule is cleanRel's.
var policy = rootpath.Policy{
	Folder:      "the manuals folder",
	Outside:     apperr.PathOutsideManuals,
	Invalid:     apperr.InvalidArgument,
	Example:     "runbooks/db/failover.md",
	Hint:        `use a path relative to the manual's folder with "/" between names, such as runbooks/db/failover.md; no leading "/", drive letter, ".." or symbolic link`,
	SymlinkHint: "manuals are not read through symbolic links; use the path of the real file",
	LongHint:    "use at most " + strconv.Itoa(rootpath.MaxBytes) + " bytes",
	ControlHint: "remove control characters (NUL, newline, tab…)",
}

// Library is a MANUALS_ROOT folder. Safe for concurrent use.
type Library struct {
	dir       string
	maxRead   int64
	encodings map[string]string // manual id (NFC) -> encoding override

	mu     sync.Mutex // guards root, closed
	root   *os.Root
	closed bool

	checkedMu sync.Mutex
	checked   map[string]checkedFile // manual id/path -> the last decoding of it, for Listing
}

// checkedFile is whether a file decoded, for its size and time.
type checkedFile struct {
	size    int64
	modTime time.Time
	err     error
}

// Options tune a Library.
type Options struct {
	// Encodings names the encoding of a manual's files, by manual id, for
	// the rare manual whose files detection reads wrong ("cp932", "euc-jp";
	// see decode.Canonical). A BOM still wins.
	Encodings map[string]string
}

// Open returns a Library for dir. A dir that does not exist yet is an empty
// library, so langspec can start before the user has made the folder; it is
// opened on first use after it appears. A dir that exists and is not a folder
// is invalid_argument.
func Open(dir string) (*Library, error) { return OpenWith(dir, Options{}) }

// OpenWith is Open with options. Errors: those of Open, and
// invalid_argument for an encoding override that names no encoding.
func OpenWith(dir string, opts Options) (*Library, error) {
	encodings := map[string]string{}
	for id, name := range opts.Encodings {
		c, err := decode.Canonical(name)
		if err != nil {
			return nil, apperr.Wrap(err, apperr.InvalidArgument, "use one of "+strings.Join(decode.Names(), ", "),
				"manual %s: unknown encoding %s", apperr.Quote(id), apperr.Quote(name))
		}
		encodings[norm.NFC.String(id)] = c
	}
	if dir == "" {
		return nil, apperr.New(apperr.InvalidArgument, "set MANUALS_ROOT", "no manuals folder given")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.InvalidArgument, "", "manuals folder %q: %v", dir, err)
	}
	if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
		return nil, apperr.New(apperr.InvalidArgument, "point MANUALS_ROOT at a folder", "manuals root %q is not a folder", abs)
	}
	return &Library{dir: abs, maxRead: DefaultMaxReadBytes, encodings: encodings, checked: map[string]checkedFile{}}, nil
}

// Dir returns the absolute manuals folder.
func (l *Library) Dir() string { return l.dir }

// Close releases the folder handle. Calls after Close fail with unavailable.
func (l *Library) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.root == nil {
		return nil
	}
	err := l.root.Close()
	l.root = nil
	return err
}

// openRoot returns the folder's os.Root, or nil, nil while the folder does
// not exist (an empty library).
func (l *Library) openRoot() (*os.Root, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, apperr.New(apperr.Unavailable, "langspec is shutting down; retry once it has restarted", "the manuals library is closed")
	}
	if l.root == nil {
		r, err := os.OpenRoot(l.dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, apperr.Wrap(err, apperr.Unavailable, "check MANUALS_ROOT and its permissions", "open manuals folder: %v", err)
		}
		l.root = r
	}
	return l.root, nil
}

// Manuals returns the manual ids, the names of the first-level folders,
// sorted. Symbolic links, files, hidden folders (".git") and names
// checkManualID would refuse are left out: nothing could be read through them.
func (l *Library) Manuals() ([]string, error) {
	root, err := l.openRoot()
	if err != nil || root == nil {
		return nil, err
	}
	f, err := root.Open(".")
	if err != nil {
		return nil, fsError(err, ".", "list manuals")
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil, fsError(err, ".", "list manuals")
	}
	var ids []string
	for _, e := range ents {
		// DirEntry types come from the directory itself (Lstat semantics), so
		// a symlink to a folder is a symlink here, not a folder.
		if e.IsDir() && checkManualID(e.Name()) == nil {
			ids = append(ids, e.Name())
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// Files returns the .md and .json files of a manual at any depth, as
// "/"-separated paths relative to the manual folder, sorted. Only regular
// files are listed; symbolic links (to files or folders) and hidden names are
// skipped. Errors: invalid_argument (bad id), path_outside_manuals (the manual
// folder is a symlink), not_found (no such manual).
func (l *Library) Files(manualID string) ([]string, error) {
	infos, err := l.FileInfos(manualID)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(infos))
	for i, fi := range infos {
		out[i] = fi.Path
	}
	return out, nil
}

// Listing is a manual's files for a person or a model: the files that can
// be read, as on disk, and a warning for each file left out (its bytes are
// in no encoding langspec reads) and for names that differ only in Unicode
// form (either spelling would be a guess). A file is decoded once per size
// and modification time. Errors: those of Files; ctx.Err() once ctx ends
// (checked before each file: the first listing of a large manual reads
// every file).
func (l *Library) Listing(ctx context.Context, manualID string) (files, warnings []string, err error) {
	infos, err := l.FileInfos(manualID)
	if err != nil {
		return nil, nil, err
	}
	id, err := l.ManualID(manualID)
	if err != nil {
		return nil, nil, err
	}
	all := make([]string, 0, len(infos))
	for _, fi := range infos {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		all = append(all, fi.Path)
		if err := l.decodes(id, fi); err != nil {
			warnings = append(warnings, fmt.Sprintf("%s left out: %v", fi.Path, err))
			continue
		}
		files = append(files, fi.Path)
	}
	for _, group := range rootpath.Conflicts(all) {
		warnings = append(warnings, rootpath.Conflict("", group).Error())
	}
	return files, warnings, nil
}

// decodes reports whether a listed file reads as text, from the cache when
// its size and time are unchanged.
func (l *Library) decodes(manualID string, fi FileInfo) error {
	key := manualID + "/" + fi.Path
	l.checkedMu.Lock()
	c, ok := l.checked[key]
	l.checkedMu.Unlock()
	if ok && c.size == fi.Size && c.modTime.Equal(fi.ModTime) {
		return c.err
	}
	_, err := l.read(manualID, fi.Path)
	if apperr.CodeOf(err) != apperr.Undecodable {
		err = nil // other failures (a file gone since the walk) are not the listing's
	}
	l.checkedMu.Lock()
	l.checked[key] = checkedFile{size: fi.Size, modTime: fi.ModTime, err: err}
	l.checkedMu.Unlock()
	return err
}

// ManualID returns a manual id as it is on disk, for either Unicode form.
// Errors: invalid_argument, path_outside_manuals, not_found, name_conflict.
func (l *Library) ManualID(manualID string) (string, error) {
	_, id, err := l.manualRoot(manualID)
	return id, err
}

// Resolve returns a manual id and a file path as they are on disk, for
// either Unicode form of each name. Errors: those of Read that need no
// reading (bad id or path, name_conflict, not_found for the manual).
func (l *Library) Resolve(manualID, rel string) (string, string, error) {
	root, manualID, err := l.manualRoot(manualID)
	if err != nil {
		return "", "", err
	}
	canon, err := cleanRel(rel)
	if err != nil {
		return "", "", err
	}
	canon, err = policy.Resolve(root, manualID, canon)
	return manualID, canon, err
}

// FileInfo is a manual file's path with the size and modification time an
// index compares to tell whether the file changed.
type FileInfo struct {
	Path    string // relative to the manual's folder
	Size    int64
	ModTime time.Time
}

// FileInfos is Files with each file's size and modification time, read from
// the same walk. A file that vanishes during the walk is left out.
func (l *Library) FileInfos(manualID string) ([]FileInfo, error) {
	root, manualID, err := l.manualRoot(manualID)
	if err != nil {
		return nil, err
	}
	var out []FileInfo
	err = fs.WalkDir(root.FS(), manualID, func(name string, d fs.DirEntry, err error) error {
		if name == manualID {
			return err // the manual folder itself must be readable
		}
		if err != nil {
			return skip(d) // an unreadable subfolder is left out, not fatal
		}
		if strings.HasPrefix(d.Name(), ".") {
			return skip(d)
		}
		// d.Type comes from the directory listing: a symlink is never a
		// folder here, so the walk cannot follow one.
		if d.Type().IsRegular() && allowedExt(name) {
			fi, err := d.Info()
			if err != nil {
				return nil // removed since the listing
			}
			out = append(out, FileInfo{Path: strings.TrimPrefix(name, manualID+"/"), Size: fi.Size(), ModTime: fi.ModTime()})
		}
		return nil
	})
	if err != nil {
		return nil, fsError(err, manualID, "list")
	}
	slices.SortFunc(out, func(a, b FileInfo) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

func skip(d fs.DirEntry) error {
	if d != nil && d.IsDir() {
		return fs.SkipDir
	}
	return nil
}

// Read returns a manual file's text: decoded to UTF-8 (from UTF-16, CP932,
// EUC-JP or ISO-2022-JP when that is what the file holds), without a BOM,
// line ends as stored. Names in either Unicode form find the file. Errors:
// invalid_argument (bad id or path, not .md or .json, not a regular file),
// path_outside_manuals, not_found, file_too_large, undecodable,
// name_conflict.
func (l *Library) Read(manualID, rel string) ([]byte, error) {
	f, err := l.read(manualID, rel)
	return f.Text, err
}

// File is a manual file as read: its text, and where and how it was read.
type File struct {
	ManualID string // as on disk
	Path     string // as on disk, relative to the manual's folder
	Encoding string // what the bytes were in (decode's names)
	Text     []byte // decoded to UTF-8, without a BOM, line ends as stored
}

// ReadFile is Read with the file's names as on disk and its encoding.
func (l *Library) ReadFile(manualID, rel string) (File, error) { return l.read(manualID, rel) }

func (l *Library) read(manualID, rel string) (File, error) {
	root, manualID, err := l.manualRoot(manualID)
	if err != nil {
		return File{}, err
	}
	canon, err := cleanRel(rel)
	if err != nil {
		return File{}, err
	}
	if canon, err = policy.Resolve(root, manualID, canon); err != nil {
		return File{}, err
	}
	// manualRoot has checked the manual's folder itself; a file where a
	// folder should be is just a missing file here.
	full := manualID + "/" + canon
	fi, _, err := policy.Walk(root, rel, full, len(manualID))
	if err != nil {
		return File{}, err
	}
	if err := checkFile(manualID, rel, fi); err != nil {
		return File{}, err
	}
	f, err := root.Open(full)
	if err != nil {
		return File{}, fsError(err, rel, "read")
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return File{}, fsError(err, rel, "read")
	}
	if err := checkFile(manualID, rel, fi); err != nil {
		return File{}, err
	}
	// The size may change after Stat; the limited read is what enforces it.
	if fi.Size() > l.maxRead {
		return File{}, l.tooLarge(rel, fi.Size())
	}
	b, err := io.ReadAll(io.LimitReader(f, l.maxRead+1))
	if err != nil {
		return File{}, fsError(err, rel, "read")
	}
	if int64(len(b)) > l.maxRead {
		return File{}, l.tooLarge(rel, int64(len(b)))
	}
	text, enc, err := decode.Text(b, l.encodings[norm.NFC.String(manualID)])
	if err != nil {
		return File{}, apperr.Wrap(err, apperr.Undecodable,
			fmt.Sprintf(`save it as UTF-8, or name its encoding in langspec.json: "manuals": {%q: {"encoding": "cp932"}}`, manualID),
			"manual file %s cannot be read as text: %s", apperr.Quote(manualID+"/"+canon), strings.TrimPrefix(err.Error(), "invalid_argument: "))
	}
	return File{ManualID: manualID, Path: canon, Encoding: enc, Text: []byte(text)}, nil
}

func (l *Library) tooLarge(rel string, size int64) error {
	return apperr.New(apperr.FileTooLarge, fmt.Sprintf("manual files are read up to %d bytes; split the file", l.maxRead),
		"manual file %s: %d bytes is over the read limit", apperr.Quote(rel), size)
}

// Nodes parses one manual file into its nodes, in file order. Errors: those
// of Read, and invalid_argument for a JSON file that is not valid JSON.
func (l *Library) Nodes(manualID, rel string) ([]manualfile.Node, error) {
	_, nodes, err := l.parsed(manualID, rel)
	return nodes, err
}

// parsed reads and parses a file, returning the normalised source too.
func (l *Library) parsed(manualID, rel string) (*manualfile.Source, []manualfile.Node, error) {
	f, err := l.read(manualID, rel)
	if err != nil {
		return nil, nil, err
	}
	src := manualfile.NewSource(f.Text)
	nodes, err := manualfile.ParseSource(f.Path, src)
	if err != nil {
		return nil, nil, err
	}
	return src, nodes, nil
}

// Section returns a node's full text, lines LineStart..LineEnd with "\n"
// line endings: for a heading, the heading and everything under it,
// descendant sections included. Errors: those of Nodes, and not_found for an
// unknown node id, with the nearest ids as the hint.
func (l *Library) Section(manualID, rel, nodeID string) (string, manualfile.Node, error) {
	src, nodes, err := l.parsed(manualID, rel)
	if err != nil {
		return "", manualfile.Node{}, err
	}
	for _, n := range nodes {
		if n.NodeID == nodeID {
			return src.Lines(n.LineStart, n.LineEnd), n, nil
		}
	}
	hint := "this file has no sections"
	if near := manualfile.NearestIDs(nodeID, nodes, 5); len(near) > 0 {
		hint = "nearest node ids: " + strings.Join(near, ", ")
	}
	return "", manualfile.Node{}, apperr.New(apperr.NotFound, hint, "no node %s in %s", apperr.Quote(nodeID), apperr.Quote(manualID+"/"+rel))
}

// Lines returns lines start..end (1-based, inclusive) of a manual file with
// "\n" line endings. Errors: those of Read, and invalid_argument for a range
// that is empty or runs past the file, naming the file's line count.
func (l *Library) Lines(manualID, rel string, start, end int) (string, error) {
	f, err := l.read(manualID, rel)
	if err != nil {
		return "", err
	}
	src := manualfile.NewSource(f.Text)
	n := src.LineCount()
	if start < 1 || end < start || end > n {
		return "", apperr.New(apperr.InvalidArgument, fmt.Sprintf("use 1 <= start <= end <= %d", n),
			"line range %d-%d is outside %s, which has %d lines", start, end, apperr.Quote(rel), n)
	}
	return src.Lines(start, end), nil
}

// manualRoot validates a manual id and checks that its folder exists and is
// a real folder. It returns the id as on disk (see rootpath.Policy.Resolve).
func (l *Library) manualRoot(manualID string) (*os.Root, string, error) {
	if err := checkManualID(manualID); err != nil {
		return nil, "", err
	}
	root, err := l.openRoot()
	if err != nil {
		return nil, "", err
	}
	var fi fs.FileInfo
	if root != nil {
		onDisk, err := policy.Resolve(root, "", manualID)
		if err != nil {
			return nil, "", err
		}
		if onDisk != "" {
			manualID = onDisk
			fi, err = root.Lstat(manualID)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, "", fsError(err, manualID, "open manual")
			}
		}
	}
	switch {
	case fi == nil || (fi.Mode()&fs.ModeSymlink == 0 && !fi.IsDir()):
		return nil, "", l.unknownManual(manualID)
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, "", apperr.New(apperr.PathOutsideManuals, "manuals are real folders under MANUALS_ROOT; symbolic links are not followed",
			"manual %s is a symbolic link", apperr.Quote(manualID))
	}
	return root, manualID, nil
}

func (l *Library) unknownManual(manualID string) error {
	ids, err := l.Manuals()
	hint := "no manuals yet: add a folder per manual under MANUALS_ROOT"
	if err == nil && len(ids) > 0 {
		hint = "manual ids: " + strings.Join(ids, ", ")
	}
	return apperr.New(apperr.NotFound, hint, "no manual %s", apperr.Quote(manualID))
}

// checkManualID accepts one plain folder name: no separators, no "." or "..",
// no hidden names, no control characters.
func checkManualID(id string) error {
	const hint = "use a manual id from the list of manuals: a single folder name under MANUALS_ROOT"
	if err := policy.CheckChars(id, "manual id"); err != nil {
		return err
	}
	switch {
	case id == "":
		return apperr.New(apperr.InvalidArgument, hint, "empty manual id")
	case strings.ContainsAny(id, `/\`), id == "..", rootpath.HasDriveLetter(id):
		return apperr.New(apperr.PathOutsideManuals, hint, "manual id %s leaves the manuals folder or names more than one folder", apperr.Quote(id))
	case strings.HasPrefix(id, "."):
		return apperr.New(apperr.InvalidArgument, hint, "manual id %s is hidden or names the root", apperr.Quote(id))
	}
	return nil
}

// cleanRel validates a path inside a manual (rootpath.Policy.File) and
// returns it "/"-separated with no empty or "." segments, if it names a .md or
// .json file. Backslash counts as a separator everywhere, so `a\..\b` is seen
// as the ".." it is whatever the host. ".." is refused even when it would
// stay inside: nothing is resolved, so nothing can go wrong.
func cleanRel(p string) (string, error) {
	segs, err := policy.File(p)
	if err != nil {
		return "", err
	}
	canon := strings.Join(segs, "/")
	if !allowedExt(canon) {
		return "", apperr.New(apperr.InvalidArgument, "manual files are .md (Markdown) and .json only; list them with the manual's files",
			"path %s is not a .md or .json file", apperr.Quote(p))
	}
	return canon, nil
}

// allowedExt reports .md or .json, in any case: "README.MD" is a manual too.
func allowedExt(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	return ext == ".md" || ext == ".json"
}

// checkFile refuses a missing leaf and anything but a regular file.
func checkFile(manualID, rel string, fi fs.FileInfo) error {
	switch {
	case fi == nil:
		return apperr.New(apperr.NotFound, "list the manual's files to see what exists",
			"manual %s has no file %s", apperr.Quote(manualID), apperr.Quote(rel))
	case !fi.Mode().IsRegular():
		return apperr.New(apperr.InvalidArgument, "name a .md or .json file, not a folder or special file",
			"path %s in manual %s is not a regular file", apperr.Quote(rel), apperr.Quote(manualID))
	}
	return nil
}

// fsError turns an error from the root into an apperr.Error naming the
// user's path: a missing file here, escapes and the rest by the policy.
func fsError(err error, p, op string) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return apperr.Wrap(err, apperr.NotFound, "list the manual's files to see what exists", "path %s does not exist", apperr.Quote(p))
	}
	return policy.FSError(err, p, op)
}
