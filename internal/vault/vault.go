// Package vault is the only way langspec touches the user's vault folder: a
// root-confined file layer a model may read and write through MCP tools.
//
// Every access goes through one os.Root, which refuses any path or symbolic
// link that resolves outside the folder (no string-prefix check to get
// wrong). On top of that the vault applies its own, stricter rules:
//
//   - Paths are validated and normalised by Clean before anything touches the
//     disk; ".." is refused even when it would stay inside.
//   - Symbolic links are never followed by the vault, inside or out: a path
//     with a symlink at any component, including the leaf, is refused with
//     path_outside_vault, and List skips symlinks. Confinement does not rest
//     on this check (os.Root does that); it stops in-vault links from
//     bypassing the folder rules, e.g. notes/d -> ../artifacts/daily.
//   - artifacts/ holds only .md and .json; artifacts/daily/ holds only
//     YYYY-MM-DD.md logs that can be created and appended to, never rewritten.
//   - Create is exclusive; Overwrite and Replace replace the file atomically
//     (temp file, fsync, rename); an Append is acknowledged once fsynced.
//   - Writes to one file are serialised, within the process and, on Linux,
//     the BSDs, macOS and Solaris, across processes too (lock.go): two
//     langspec processes on one vault lose no acknowledged append to each
//     other's overwrites and replaces. Elsewhere, across processes, they are
//     only as safe as O_APPEND is.
//   - .system/ is langspec's own state: the Vault's writes, which are the
//     model's, refuse it; langspec writes it through System.
//   - Names are NFC, so a composed and a decomposed "café" are one file;
//     "\" and a leading "~" are refused rather than taken literally.
//
// The vault folder and its subfolders are created lazily, on the first write:
// a session that only reads leaves no trace on disk. Opening a vault that
// exists removes the temp files of writes that a crash cut short.
package vault

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/text/unicode/norm"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/text/decode"
)

const (
	DefaultMaxReadBytes  = 8 << 20
	DefaultMaxWriteBytes = 2 << 20

	dirPerm  = 0o755
	filePerm = 0o644
)

// Options configures a Vault; the zero value is usable.
type Options struct {
	// MaxReadBytes caps a file the vault reads. No write may make a file
	// larger, so every file written through the vault stays readable.
	MaxReadBytes int64
	// MaxWriteBytes caps the data one Create, Overwrite or Append supplies.
	MaxWriteBytes int64
	// Logger receives one line per write (op, path, bytes, mode) and per
	// refused write (op, path, code). Never file contents. Nil discards.
	Logger *slog.Logger
	// Now is the clock for DailyPath and for Find's time budget; nil
	// means time.Now.
	Now func() time.Time
}

// Info describes a file or folder in the vault.
type Info struct {
	Path    string    `json:"path" jsonschema:"path relative to the vault root, '/'-separated"` // canonical
	Size    int64     `json:"size" jsonschema:"size in bytes"`
	ModTime time.Time `json:"mod_time" jsonschema:"last modification time (RFC 3339)"`
	IsDir   bool      `json:"is_dir" jsonschema:"true for a folder"`
}

// Vault is a folder a model may read and write. Safe for concurrent use.
type Vault struct {
	dir  string
	opts Options
	log  *slog.Logger

	mu         sync.Mutex // guards root, layoutDone, closed
	root       *os.Root
	layoutDone bool
	closed     bool

	locksMu sync.Mutex
	locks   map[string]*fileLock // by foldKey of the canonical path

	// beforeCommit, set only by tests, runs after a temp file is written and
	// synced and before it replaces (or is linked to) the target; an error
	// aborts the write as a crash there would.
	beforeCommit func(tmp string) error
}

type fileLock struct {
	mu   sync.Mutex
	refs int // guarded by Vault.locksMu
}

// Open returns a Vault for dir. Nothing is created until the first write,
// which creates dir and artifacts/, drafts/, notes/ and .system/ in it.
// If dir exists, stale temp files in it are removed (sweepTemps).
// It fails if dir exists and is not a folder.
func Open(dir string, opts Options) (*Vault, error) {
	if dir == "" {
		return nil, apperr.New(apperr.InvalidArgument, "set VAULT_ROOT or WORKSPACE_ROOT", "no vault folder given")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.InvalidArgument, "", "vault folder %q: %v", dir, err)
	}
	if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
		return nil, apperr.New(apperr.InvalidArgument, "point VAULT_ROOT at a folder", "vault %q is not a folder", abs)
	}
	if opts.MaxReadBytes <= 0 {
		opts.MaxReadBytes = DefaultMaxReadBytes
	}
	if opts.MaxWriteBytes <= 0 {
		opts.MaxWriteBytes = DefaultMaxWriteBytes
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	v := &Vault{dir: abs, opts: opts, log: log, locks: map[string]*fileLock{}}
	v.sweepTemps()
	return v, nil
}

// staleTempAge is how old a temp file must be for sweepTemps to remove it. A
// temp file lives for one write: created, written, fsynced, then renamed or
// linked into place, seconds at most. One older than this was left by a
// process killed mid-write. The bound is minutes rather than zero because
// another langspec process may be serving the same vault: its write in
// flight has a young temp file, and removing that would fail the write.
const staleTempAge = 10 * time.Minute

// sweepTemps removes the vault's temp files (tempPrefix) older than
// staleTempAge anywhere in the vault, through the root and without
// following symbolic links. Nothing here fails Open: a file it cannot remove
// is logged and stays hidden from List, as before.
func (v *Vault) sweepTemps() {
	root, err := v.openRoot(false)
	if err != nil || root == nil {
		return // no vault yet, or unreadable: every later call will say so
	}
	cutoff := time.Now().Add(-staleTempAge)
	fs.WalkDir(root.FS(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return skip(d) // an unreadable folder is left alone
		}
		if !d.Type().IsRegular() || !strings.HasPrefix(d.Name(), tempPrefix) {
			return nil
		}
		fi, err := d.Info()
		if err != nil || !fi.ModTime().Before(cutoff) {
			return nil
		}
		if err := root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			v.log.Warn("vault: stale temp file not removed", "path", name, "err", err)
		} else if err == nil {
			v.log.Info("vault: removed stale temp file", "path", name, "mod_time", fi.ModTime())
		}
		return nil
	})
}

// Dir returns the absolute vault folder.
func (v *Vault) Dir() string { return v.dir }

// Close releases the folder handle. Calls after Close fail with unavailable.
func (v *Vault) Close() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.closed = true
	if v.root == nil {
		return nil
	}
	err := v.root.Close()
	v.root = nil
	return err
}

// Clean is the package Clean, as a method for callers holding a Vault.
func (v *Vault) Clean(p string) (string, error) { return Clean(p) }

// DailyPath returns today's daily log path, artifacts/daily/YYYY-MM-DD.md,
// by Options.Now in its location.
func (v *Vault) DailyPath() string {
	return artifactsDir + "/" + dailyDir + "/" + v.opts.Now().Format(time.DateOnly) + ".md"
}

// openRoot returns the vault's os.Root. For a read it returns nil, nil when
// the folder does not exist yet (an empty vault); for a write it creates the
// folder and its layout first.
func (v *Vault) openRoot(write bool) (*os.Root, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return nil, apperr.New(apperr.Unavailable, "langspec is shutting down; retry once it has restarted", "the vault is closed")
	}
	if v.root == nil {
		if write {
			if err := os.MkdirAll(v.dir, dirPerm); err != nil {
				return nil, apperr.Wrap(err, apperr.Unavailable, "check VAULT_ROOT and its permissions", "create vault folder: %v", err)
			}
		}
		r, err := os.OpenRoot(v.dir)
		if errors.Is(err, fs.ErrNotExist) && !write {
			return nil, nil
		}
		if err != nil {
			return nil, apperr.Wrap(err, apperr.Unavailable, "check VAULT_ROOT and its permissions", "open vault folder: %v", err)
		}
		v.root = r
	}
	if write && !v.layoutDone {
		for _, top := range topFolders {
			if err := v.root.Mkdir(top, dirPerm); err != nil && !errors.Is(err, fs.ErrExist) {
				return nil, apperr.Wrap(err, apperr.Unavailable, "check the vault folder's permissions", "create %s/: %v", top, err)
			}
		}
		v.layoutDone = true
	}
	return v.root, nil
}

// inspect Lstats every component of canon through the root without following
// any symbolic link (rootpath.Policy.Walk). It returns the leaf's info, or nil
// if the leaf (or a parent) does not exist. A symlink anywhere is
// path_outside_vault; a file where a folder should be is not_found.
func (v *Vault) inspect(root *os.Root, p, canon string) (fs.FileInfo, error) {
	fi, notDir, err := policy.Walk(root, p, canon, 0)
	if notDir != "" {
		return nil, apperr.New(apperr.NotFound, "check the path with list",
			"path %s: %s is a file, not a folder", apperr.Quote(p), apperr.Quote(notDir))
	}
	return fi, err
}

// fsError turns an error from the root into an apperr.Error naming the
// user's path: the vault's own cases here, escapes and the rest by the policy.
func fsError(err error, p, op string) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return apperr.Wrap(err, apperr.NotFound, "check the path with list", "path %s does not exist", apperr.Quote(p))
	case errors.Is(err, fs.ErrExist):
		return apperr.Wrap(err, apperr.AlreadyExists, "use overwrite, append or replace to change it", "path %s already exists", apperr.Quote(p))
	case errors.Is(err, syscall.ENOTDIR):
		return apperr.Wrap(err, apperr.NotFound, "check the path with list", "path %s: a parent is a file, not a folder", apperr.Quote(p))
	case errors.Is(err, syscall.EISDIR):
		return apperr.Wrap(err, apperr.IsADirectory, "name a file, or list the folder", "path %s is a folder", apperr.Quote(p))
	}
	return policy.FSError(err, p, op)
}

// Stat describes a file or folder. It does not follow symbolic links.
// Errors: the Clean codes, path_outside_vault (a symlink), not_found.
func (v *Vault) Stat(p string) (Info, error) {
	canon, err := Clean(p)
	if err != nil {
		return Info{}, err
	}
	root, err := v.openRoot(false)
	if err != nil {
		return Info{}, err
	}
	var fi fs.FileInfo
	if root != nil {
		disk, err := policy.Resolve(root, "", canon)
		if err != nil {
			return Info{}, err
		}
		if fi, err = v.inspect(root, p, disk); err != nil {
			return Info{}, err
		}
	}
	if fi == nil {
		return Info{}, apperr.New(apperr.NotFound, "check the path with list", "path %s does not exist", apperr.Quote(p))
	}
	return Info{Path: canon, Size: fi.Size(), ModTime: fi.ModTime(), IsDir: fi.IsDir()}, nil
}

// List returns the entries of folder dir ("" or "." is the vault root),
// sorted by path; recursive descends into subfolders. It lists only regular
// files and folders: symbolic links, devices and the like are skipped, as are
// the vault's own files and names Clean would refuse (a model could not
// open them anyway). A name on disk that is not NFC (one a Mac made) is
// listed by its NFC path, which opens it; one with a twin in the other
// form is left out, since a name that looks the same would be a guess. Errors: the Clean codes,
// path_outside_vault, not_found, invalid_path (dir is a file).
func (v *Vault) List(dir string, recursive bool) ([]Info, error) {
	canon, err := cleanPath(dir, true)
	if err != nil {
		return nil, err
	}
	root, err := v.openRoot(false)
	if err != nil {
		return nil, err
	}
	if root == nil {
		if canon == "" {
			return nil, nil
		}
		return nil, apperr.New(apperr.NotFound, "list the vault root first", "folder %s does not exist", apperr.Quote(dir))
	}
	start := "."
	if canon != "" {
		fi, err := v.inspect(root, dir, canon)
		if err != nil {
			return nil, err
		}
		if fi == nil {
			return nil, apperr.New(apperr.NotFound, "list the vault root first", "folder %s does not exist", apperr.Quote(dir))
		}
		if !fi.IsDir() {
			return nil, apperr.New(apperr.InvalidPath, "use read for a file", "path %s is a file, not a folder", apperr.Quote(dir))
		}
		start = canon
	}
	var out []Info
	err = fs.WalkDir(root.FS(), start, func(name string, d fs.DirEntry, err error) error {
		if name == start {
			return err // the folder asked for must be readable
		}
		if err != nil {
			return skip(d) // an unreadable subfolder is left out, not fatal
		}
		shown, base := name, d.Name()
		if !norm.NFC.IsNormalString(name) {
			shown, base = norm.NFC.String(name), norm.NFC.String(base)
		}
		if checkSegment(shown, base) != nil || len(shown) > maxPathBytes ||
			shown == base && strings.HasPrefix(base, "~") { // Clean refuses a leading "~"
			return skip(d)
		}
		// d.Type comes from Lstat: a symlink is never a folder here, so the
		// walk cannot follow one.
		if !d.IsDir() && !d.Type().IsRegular() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return skip(d)
		}
		if shown != name || !norm.NFD.IsNormalString(d.Name()) {
			// Listed by its NFC path when that path leads here: the only
			// such name, or the same file (a file system that ignores the
			// form). A twin in the other form is a conflict, left out.
			if disk, err := policy.Resolve(root, "", shown); err != nil || disk != name && !sameFile(root, disk, fi) {
				return skip(d)
			}
		}
		out = append(out, Info{Path: shown, Size: fi.Size(), ModTime: fi.ModTime(), IsDir: d.IsDir()})
		if d.IsDir() && !recursive {
			return fs.SkipDir
		}
		return nil
	})
	if err != nil {
		return nil, fsError(err, dir, "list")
	}
	slices.SortFunc(out, func(a, b Info) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// sameFile reports whether name in root is the file fi describes.
func sameFile(root *os.Root, name string, fi fs.FileInfo) bool {
	other, err := root.Lstat(name)
	return err == nil && os.SameFile(fi, other)
}

func skip(d fs.DirEntry) error {
	if d != nil && d.IsDir() {
		return fs.SkipDir
	}
	return nil
}

// ReadFile returns a file's text, decoded once at the door as the
// manuals are (internal/text/decode: UTF-8 with or without a BOM, UTF-16
// with a BOM, CP932, EUC-JP, ISO-2022-JP), without a BOM, and with "\r\n"
// and a lone "\r" made "\n", so every reader of the vault counts the lines
// an editor shows. Writes never go through it: they work on the bytes. It
// does not follow symbolic links. Errors: the Clean codes,
// path_outside_vault, not_found, is_a_directory, invalid_path (not a regular
// file), file_too_large (over MaxReadBytes), undecodable.
func (v *Vault) ReadFile(p string) ([]byte, error) {
	raw, err := v.readRaw(p)
	if err != nil {
		return nil, err
	}
	text, _, err := decode.Text(raw, "")
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Undecodable, "save it as UTF-8; files langspec writes are always UTF-8",
			"vault file %s cannot be read as text: %s", apperr.Quote(p), strings.TrimPrefix(err.Error(), "invalid_argument: "))
	}
	if strings.IndexByte(text, '\r') >= 0 {
		text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	}
	return []byte(text), nil
}

// readRaw returns a file's bytes as stored.
func (v *Vault) readRaw(p string) ([]byte, error) {
	canon, err := Clean(p)
	if err != nil {
		return nil, err
	}
	root, err := v.openRoot(false)
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, apperr.New(apperr.NotFound, "check the path with list", "path %s does not exist", apperr.Quote(p))
	}
	disk, err := policy.Resolve(root, "", canon) // a name a Mac made may be NFD on disk
	if err != nil {
		return nil, err
	}
	fi, err := v.inspect(root, p, disk)
	if err != nil {
		return nil, err
	}
	if err := v.checkFile(p, fi); err != nil {
		return nil, err
	}
	f, err := root.Open(disk)
	if err != nil {
		return nil, fsError(err, p, "read")
	}
	defer f.Close()
	return v.readCapped(p, f)
}

// checkFile refuses a missing leaf, a folder or anything but a regular file.
func (v *Vault) checkFile(p string, fi fs.FileInfo) error {
	switch {
	case fi == nil:
		return apperr.New(apperr.NotFound, "check the path with list, or create the file", "path %s does not exist", apperr.Quote(p))
	case fi.IsDir():
		return apperr.New(apperr.IsADirectory, "name a file, or list the folder", "path %s is a folder", apperr.Quote(p))
	case !fi.Mode().IsRegular():
		return apperr.New(apperr.InvalidPath, "the vault reads and writes regular files only", "path %s is not a regular file", apperr.Quote(p))
	}
	return nil
}

// readCapped reads an open file, refusing more than MaxReadBytes whatever
// its size said when opened (it may be growing).
func (v *Vault) readCapped(p string, f *os.File) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, fsError(err, p, "read")
	}
	if err := v.checkFile(p, fi); err != nil {
		return nil, err
	}
	max := v.opts.MaxReadBytes
	if fi.Size() > max {
		return nil, v.tooLarge(p, fi.Size(), max, "read")
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fsError(err, p, "read")
	}
	if int64(len(b)) > max {
		return nil, v.tooLarge(p, int64(len(b)), max, "read")
	}
	return b, nil
}

func (v *Vault) tooLarge(p string, size, limit int64, what string) error {
	return apperr.New(apperr.FileTooLarge, fmt.Sprintf("the %s limit is %d bytes; split the content into smaller files", what, limit),
		"path %s: %d bytes is over the %s limit", apperr.Quote(p), size, what)
}
