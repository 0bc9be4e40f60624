//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd || solaris

package vault

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// crossProcessLocks: writes lock .system/.langspec-lock, which every
// langspec process on the vault respects.
const crossProcessLocks = true

// errNoRangeLocks is lockRange's answer where byte-range locks that belong
// to an open file are not to be had.
var errNoRangeLocks = errors.New("no open file description locks")

// lockProcesses takes an exclusive lock standing for slot on f, the lock
// file, waiting for it: a byte-range lock on slot where the system has one
// that belongs to the open file (lockRange), so writes to different files
// go on in parallel, else flock on the whole file, which serialises every
// write to the vault. The lock lasts until f is closed.
func lockProcesses(f *os.File, slot int64) error {
	if err := lockRange(f, slot); !errors.Is(err, errNoRangeLocks) {
		return err
	}
	return control(f, func(fd int) error { return unix.Flock(fd, unix.LOCK_EX) })
}

// control runs lock on f's descriptor, again while a signal interrupts it.
// SyscallConn, unlike Fd, leaves the descriptor's mode alone.
func control(f *os.File, lock func(fd int) error) error {
	c, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var lerr error
	err = c.Control(func(fd uintptr) {
		for {
			if lerr = lock(int(fd)); lerr != unix.EINTR {
				return
			}
		}
	})
	if err != nil {
		return err
	}
	return lerr
}
