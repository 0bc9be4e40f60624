package vault

import (
	"errors"
	"hash/fnv"
	"io/fs"
	"os"
	"strings"
	"unicode"

	"github.com/langspec/langspec/internal/apperr"
)

// Writers of one file are serialised twice over: by an in-process mutex
// (lockFile), and, where the platform allows (crossProcessLocks), by a lock
// on .system/.langspec-lock that other processes respect. The second is what
// makes two `langspec serve` on one vault safe: without it a Replace in one
// process reads the file, writes a temp file and renames it over the file,
// and appends another process made in between go with the old inode,
// acknowledged and lost.
//
// Each write opens the lock file afresh and closes it when done. Open file
// description locks (Linux) and flock (the BSDs, macOS, Solaris) belong to
// one open file, so two writes in this process conflict as two processes do,
// and closing the file, or the process dying, releases the lock: nothing
// stale is ever left to clean up. The in-process mutex stays in front so
// that writers of one file in this process queue cheaply on a mutex rather
// than each holding an OS thread in a blocking lock call.

// lockFile serialises writers of one file in this process. The key is
// case-folded so that "Notes/A.md" and "notes/a.md", one file on macOS and
// Windows, share a lock; on a case-sensitive system that only costs a little
// parallelism.
func (v *Vault) lockFile(canon string) (unlock func()) {
	key := foldKey(canon)
	v.locksMu.Lock()
	l := v.locks[key]
	if l == nil {
		l = &fileLock{}
		v.locks[key] = l
	}
	l.refs++
	v.locksMu.Unlock()

	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		v.locksMu.Lock()
		if l.refs--; l.refs == 0 {
			delete(v.locks, key) // keep the map as small as the writes in flight
		}
		v.locksMu.Unlock()
	}
}

// foldKey maps every rune to the smallest rune of its simple case-folding
// orbit, so two strings get one key exactly when strings.EqualFold holds.
func foldKey(s string) string {
	return strings.Map(func(r rune) rune {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		return m
	}, s)
}

// lockSlot is the byte of the lock file that stands for a file: a hash of
// its lockFile key, below 2^40 so any file system takes the offset. Two
// files sharing a slot only wait for one another.
func lockSlot(canon string) int64 {
	h := fnv.New64a()
	h.Write([]byte(foldKey(canon)))
	return int64(h.Sum64() >> 24)
}

// lockWrite takes both locks for a write of canon, in-process first, and
// returns what releases them. Where crossProcessLocks is false it takes the
// in-process lock only.
func (v *Vault) lockWrite(root *os.Root, p, canon string) (unlock func(), err error) {
	unlockMu := v.lockFile(canon)
	if !crossProcessLocks {
		return unlockMu, nil
	}
	name := systemDir + "/" + lockName
	f, err := root.OpenFile(name, os.O_RDWR|os.O_CREATE, filePerm)
	if errors.Is(err, fs.ErrNotExist) {
		// .system/ removed since the layout was made: make it again.
		if err = root.Mkdir(systemDir, dirPerm); err == nil || errors.Is(err, fs.ErrExist) {
			f, err = root.OpenFile(name, os.O_RDWR|os.O_CREATE, filePerm)
		}
	}
	if err == nil {
		if err = lockProcesses(f, lockSlot(canon)); err != nil {
			f.Close()
		}
	}
	if err != nil {
		unlockMu()
		return nil, apperr.Wrap(err, apperr.Unavailable, "check that the vault's .system/ folder is writable",
			"lock %s for writing: %v", apperr.Quote(p), err)
	}
	return func() {
		f.Close() // releases the lock
		unlockMu()
	}, nil
}
