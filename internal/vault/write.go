package vault

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path"
	"runtime"
	"strings"
	"syscall"

	"github.com/langspec/langspec/internal/apperr"
)

// Result reports a successful write. Bytes and Lines describe the whole file
// after the write, so a model knows where it stands without reading it back.
type Result struct {
	Path  string `json:"path" jsonschema:"the file written, relative to the vault root"` // canonical path
	Bytes int64  `json:"bytes" jsonschema:"size of the whole file after the write"`
	Lines int    `json:"lines" jsonschema:"lines in the whole file after the write"` // a last line without "\n" counts
	Mode  string `json:"mode" jsonschema:"what was done: create, overwrite, append or replace"`
}

// Create writes a new file, creating parent folders as needed. It never
// replaces anything: the content is written to a temp file and hard-linked
// into place, which fails if the name is taken (even by a dangling symlink),
// so readers and crashes see no file or the whole file. Where the file
// system has no hard links it falls back to O_CREATE|O_EXCL and writes in
// place (a crash may then leave a short new file; never a changed old one).
//
// Errors: the Clean codes, path_outside_vault, extension_not_allowed,
// invalid_path (also for .system/), already_exists, is_a_directory,
// file_too_large.
func (v *Vault) Create(p string, data []byte) (Result, error) { return v.create(byModel, p, data) }

func (v *Vault) create(by writer, p string, data []byte) (Result, error) {
	return v.write(opCreate, by, p, func(w *writeCtx) (Result, error) {
		if err := v.checkSize(p, int64(len(data))); err != nil {
			return Result{}, err
		}
		if w.leaf != nil {
			if w.leaf.IsDir() {
				return Result{}, apperr.New(apperr.IsADirectory, "name a file, or list the folder", "path %s is a folder", apperr.Quote(p))
			}
			return Result{}, apperr.New(apperr.AlreadyExists, "use overwrite, append or replace to change it, or pick a new name",
				"path %s already exists", apperr.Quote(p))
		}
		if dir := path.Dir(w.disk); dir != "." {
			if err := w.root.MkdirAll(dir, dirPerm); err != nil {
				return Result{}, fsError(err, p, "create folder for")
			}
		}
		mode, err := v.createExclusive(w, data)
		if err != nil {
			return Result{}, err
		}
		w.mode = mode
		return Result{Path: w.canon, Bytes: int64(len(data)), Lines: countLines(data), Mode: string(opCreate)}, nil
	})
}

// Overwrite replaces the contents of an existing file atomically: temp file
// in the same folder, fsync, rename over the target, fsync the folder. The
// file keeps its permission bits.
//
// Errors: the Clean codes, path_outside_vault, extension_not_allowed,
// append_only, not_found, is_a_directory, invalid_path (also for .system/),
// file_too_large.
func (v *Vault) Overwrite(p string, data []byte) (Result, error) {
	return v.overwrite(byModel, p, data)
}

func (v *Vault) overwrite(by writer, p string, data []byte) (Result, error) {
	return v.write(opOverwrite, by, p, func(w *writeCtx) (Result, error) {
		if err := v.checkSize(p, int64(len(data))); err != nil {
			return Result{}, err
		}
		if err := v.checkFile(p, w.leaf); err != nil {
			return Result{}, err
		}
		if err := v.replaceAtomic(w, data); err != nil {
			return Result{}, err
		}
		return Result{Path: w.canon, Bytes: int64(len(data)), Lines: countLines(data), Mode: string(opOverwrite)}, nil
	})
}

// Append adds data at the end of an existing file with O_APPEND and fsyncs
// it before reporting success. Appends to one file are serialised with each
// other and with overwrites and replaces of it (across processes where
// lock.go can), so concurrent writes never interleave or lose an
// acknowledged append. Append is not crash-atomic: a crash may leave part
// of the new data, never damage what was there. It does not add a newline.
//
// Errors: the Clean codes, path_outside_vault, extension_not_allowed,
// not_found, is_a_directory, invalid_path (also for .system/),
// file_too_large (data over MaxWriteBytes, or the file would pass
// MaxReadBytes).
func (v *Vault) Append(p string, data []byte) (Result, error) { return v.append(byModel, p, data) }

func (v *Vault) append(by writer, p string, data []byte) (Result, error) {
	return v.write(opAppend, by, p, func(w *writeCtx) (Result, error) {
		if err := v.checkSize(p, int64(len(data))); err != nil {
			return Result{}, err
		}
		if err := v.checkFile(p, w.leaf); err != nil {
			return Result{}, err
		}
		// No O_CREATE: a leaf swapped for a dangling symlink since inspect
		// cannot create its target; os.Root keeps any other swap inside.
		f, err := w.root.OpenFile(w.disk, os.O_RDWR|os.O_APPEND, 0)
		if err != nil {
			return Result{}, fsError(err, p, "append to")
		}
		defer f.Close()
		old, err := v.readCapped(p, f)
		if err != nil {
			return Result{}, err
		}
		size := int64(len(old)) + int64(len(data))
		if size > v.opts.MaxReadBytes {
			return Result{}, v.tooLarge(p, size, v.opts.MaxReadBytes, "file size")
		}
		if _, err := f.Write(data); err != nil {
			return Result{}, fsError(err, p, "append to")
		}
		if err := f.Sync(); err != nil {
			return Result{}, fsError(err, p, "sync")
		}
		if err := f.Close(); err != nil {
			return Result{}, fsError(err, p, "append to")
		}
		w.mode = "append"
		lines := bytes.Count(old, []byte("\n")) + bytes.Count(data, []byte("\n"))
		if size > 0 && lastByte(old, data) != '\n' {
			lines++
		}
		return Result{Path: w.canon, Bytes: size, Lines: lines, Mode: string(opAppend)}, nil
	})
}

// Replace replaces every literal occurrence of old with new in an existing
// file, atomically as Overwrite does, but only when old occurs exactly
// expected times: a model that guessed wrong about the file changes nothing.
//
// Errors: the Clean codes, path_outside_vault, extension_not_allowed,
// append_only, not_found, is_a_directory, invalid_path (also for .system/),
// invalid_argument (empty old, expected < 1), match_count_mismatch (the
// message has the actual count), file_too_large.
func (v *Vault) Replace(p, old, new string, expected int) (Result, error) {
	return v.replace(byModel, p, old, new, expected)
}

func (v *Vault) replace(by writer, p, old, new string, expected int) (Result, error) {
	return v.write(opReplace, by, p, func(w *writeCtx) (Result, error) {
		if old == "" {
			return Result{}, apperr.New(apperr.InvalidArgument, "give the exact text to replace", "replace in %s: the text to replace is empty", apperr.Quote(p))
		}
		if expected < 1 {
			return Result{}, apperr.New(apperr.InvalidArgument, "expected is how many times the text occurs: 1 or more",
				"replace in %s: expected count %d", apperr.Quote(p), expected)
		}
		if err := v.checkSize(p, int64(len(old)+len(new))); err != nil {
			return Result{}, err
		}
		if err := v.checkFile(p, w.leaf); err != nil {
			return Result{}, err
		}
		f, err := w.root.Open(w.disk)
		if err != nil {
			return Result{}, fsError(err, p, "read")
		}
		b, err := v.readCapped(p, f)
		f.Close()
		if err != nil {
			return Result{}, err
		}
		content := string(b)
		if n := strings.Count(content, old); n != expected {
			return Result{}, apperr.New(apperr.MatchCountMismatch,
				"read the file again and give the exact text and its count, or more surrounding text to make it unique",
				"path %s: the text occurs %d times, expected %d", apperr.Quote(p), n, expected)
		}
		out := []byte(strings.ReplaceAll(content, old, new))
		if int64(len(out)) > v.opts.MaxReadBytes {
			return Result{}, v.tooLarge(p, int64(len(out)), v.opts.MaxReadBytes, "file size")
		}
		if err := v.replaceAtomic(w, out); err != nil {
			return Result{}, err
		}
		return Result{Path: w.canon, Bytes: int64(len(out)), Lines: countLines(out), Mode: string(opReplace)}, nil
	})
}

// writeCtx is what one write sees once its path is validated and locked.
type writeCtx struct {
	root  *os.Root
	p     string      // as the user gave it, for messages
	canon string      // NFC: what answers and rules see
	disk  string      // the path as it is on disk (a file a Mac made may be NFD); canon for a new file
	leaf  fs.FileInfo // nil if the path does not exist
	mode  string      // how the bytes got there, for the op log
}

// write runs the checks every write shares, in order: path, folder rules
// (which depend on by), the vault folder, the per-file locks, then a
// symlink-free inspection of the path under them. Everything that reads or
// changes the file happens under the locks, so a replace cannot rename over
// an append made since it read the file. It logs the outcome.
func (v *Vault) write(op writeOp, by writer, p string, do func(*writeCtx) (Result, error)) (Result, error) {
	res, err := v.writeLocked(op, by, p, do)
	if err != nil {
		v.log.Warn("vault write refused", "op", string(op), "path", apperr.Quote(p), "code", string(apperr.CodeOf(err)))
		return Result{}, err
	}
	return res, nil
}

func (v *Vault) writeLocked(op writeOp, by writer, p string, do func(*writeCtx) (Result, error)) (Result, error) {
	canon, err := Clean(p)
	if err != nil {
		return Result{}, err
	}
	if err := checkWriteRules(p, canon, op, by); err != nil {
		return Result{}, err
	}
	root, err := v.openRoot(true)
	if err != nil {
		return Result{}, err
	}
	unlock, err := v.lockWrite(root, p, canon)
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	// A file already on disk under its decomposed name is that file: a
	// write goes to it rather than making a twin that looks the same.
	disk, err := policy.Resolve(root, "", canon)
	if err != nil {
		return Result{}, err
	}
	leaf, err := v.inspect(root, p, disk)
	if err != nil {
		return Result{}, err
	}
	w := &writeCtx{root: root, p: p, canon: canon, disk: disk, leaf: leaf, mode: "atomic-rename"}
	res, err := do(w)
	if err != nil {
		return Result{}, err
	}
	v.log.Info("vault write", "op", string(op), "path", canon, "bytes", res.Bytes, "mode", w.mode)
	return res, nil
}

func (v *Vault) checkSize(p string, n int64) error {
	if n > v.opts.MaxWriteBytes {
		return v.tooLarge(p, n, v.opts.MaxWriteBytes, "write")
	}
	if n > v.opts.MaxReadBytes {
		return v.tooLarge(p, n, v.opts.MaxReadBytes, "file size")
	}
	return nil
}

// createExclusive puts data at w.canon only if nothing is there, and
// returns how ("exclusive-link" or "exclusive-create").
func (v *Vault) createExclusive(w *writeCtx, data []byte) (string, error) {
	tmp, err := v.writeTemp(w, data, filePerm)
	if err != nil {
		return "", err
	}
	defer v.removeTemp(w.root, tmp)
	if v.beforeCommit != nil {
		if err := v.beforeCommit(tmp); err != nil {
			return "", apperr.Wrap(err, apperr.Internal, "", "create %s: %v", apperr.Quote(w.p), err)
		}
	}
	// link(2) neither follows nor replaces an existing name, dangling
	// symlinks included: exclusive and atomic at once.
	err = w.root.Link(tmp, w.disk)
	if err == nil {
		v.syncDir(w, path.Dir(w.disk))
		return "exclusive-link", nil
	}
	if !linkUnsupported(err) {
		return "", fsError(err, w.p, "create")
	}
	f, err := w.root.OpenFile(w.disk, os.O_WRONLY|os.O_CREATE|os.O_EXCL, filePerm)
	if err != nil {
		return "", fsError(err, w.p, "create")
	}
	if err := writeSync(f, data); err != nil {
		w.root.Remove(w.canon) // ours: O_EXCL made it
		return "", fsError(err, w.p, "create")
	}
	v.syncDir(w, path.Dir(w.disk))
	return "exclusive-create", nil
}

// linkUnsupported reports errors that mean "this file system has no hard
// links" rather than "the name is taken" or "outside the vault".
func linkUnsupported(err error) bool {
	return errors.Is(err, errors.ErrUnsupported) || errors.Is(err, fs.ErrPermission) ||
		errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.EMLINK)
}

// replaceAtomic writes data to a temp file beside w.canon and renames it
// over the target, keeping the target's permission bits. rename(2) replaces
// the name, never writing through it, so a symlink swapped in after inspect
// is replaced, not followed.
func (v *Vault) replaceAtomic(w *writeCtx, data []byte) error {
	tmp, err := v.writeTemp(w, data, w.leaf.Mode().Perm())
	if err != nil {
		return err
	}
	committed := false
	defer func() {
		if !committed {
			v.removeTemp(w.root, tmp)
		}
	}()
	if v.beforeCommit != nil {
		if err := v.beforeCommit(tmp); err != nil {
			return apperr.Wrap(err, apperr.Internal, "", "overwrite %s: %v", apperr.Quote(w.p), err)
		}
	}
	if err := w.root.Rename(tmp, w.disk); err != nil {
		return fsError(err, w.p, "replace")
	}
	committed = true
	v.syncDir(w, path.Dir(w.disk))
	return nil
}

// writeTemp writes data to a new, exclusively created temp file in
// w.canon's folder and fsyncs it. The name is random so that nothing can be
// planted at it in advance (O_EXCL would refuse it anyway).
func (v *Vault) writeTemp(w *writeCtx, data []byte, perm fs.FileMode) (string, error) {
	dir := path.Dir(w.disk)
	for range 3 {
		var rnd [12]byte
		rand.Read(rnd[:])
		name := path.Join(dir, tempPrefix+hex.EncodeToString(rnd[:]))
		f, err := w.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fsError(err, w.p, "write temp file for")
		}
		// The umask narrowed perm at create; chmod the descriptor (not the
		// name) so an overwrite keeps the old file's bits exactly.
		err = f.Chmod(perm)
		if err == nil {
			err = writeSync(f, data)
		} else {
			f.Close()
		}
		if err != nil {
			v.removeTemp(w.root, name)
			return "", fsError(err, w.p, "write temp file for")
		}
		return name, nil
	}
	return "", apperr.New(apperr.Internal, "", "write %s: could not pick a temp file name", apperr.Quote(w.p))
}

// writeSync writes, fsyncs and closes f.
func writeSync(f *os.File, data []byte) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (v *Vault) removeTemp(root *os.Root, name string) {
	if err := root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		v.log.Warn("vault: temp file left behind", "path", name, "err", err)
	}
}

// syncDir fsyncs a folder so a rename or link survives a crash. Windows
// cannot fsync a directory handle (and NTFS journals the rename), so it is
// skipped there. A failure is logged, not returned: the new name is in place
// and visible, only its durability is unconfirmed, and reporting the write as
// failed would invite a retry that duplicates it.
func (v *Vault) syncDir(w *writeCtx, dir string) {
	if runtime.GOOS == "windows" {
		return
	}
	d, err := w.root.Open(dir)
	if err == nil {
		err = d.Sync()
		d.Close()
	}
	if err != nil {
		v.log.Warn("vault: fsync folder failed", "path", dir, "err", err)
	}
}

// countLines counts lines; a last line without "\n" counts.
func countLines(b []byte) int {
	n := bytes.Count(b, []byte("\n"))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

func lastByte(a, b []byte) byte {
	if len(b) > 0 {
		return b[len(b)-1]
	}
	if len(a) > 0 {
		return a[len(a)-1]
	}
	return 0
}

// System writes langspec's own state under .system/, which the Vault's own
// writes refuse: those are the model's, through the tools. Paths and every
// other rule are as for the Vault's writes, and the two share the locks;
// a path outside .system/ is an internal error, a bug in the caller.
//
// Only langspec's bookkeeping may use System (audit's coverage store); a
// tool that takes a path from the model must write through the Vault.
type System struct{ v *Vault }

// System returns the writer for .system/.
func (v *Vault) System() System { return System{v} }

// Create is Vault.Create for a path under .system/.
func (s System) Create(p string, data []byte) (Result, error) { return s.v.create(bySystem, p, data) }

// Overwrite is Vault.Overwrite for a path under .system/.
func (s System) Overwrite(p string, data []byte) (Result, error) {
	return s.v.overwrite(bySystem, p, data)
}

// Append is Vault.Append for a path under .system/.
func (s System) Append(p string, data []byte) (Result, error) { return s.v.append(bySystem, p, data) }

// Replace is Vault.Replace for a path under .system/.
func (s System) Replace(p, old, new string, expected int) (Result, error) {
	return s.v.replace(bySystem, p, old, new, expected)
}
