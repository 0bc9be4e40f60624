package vault

import (
	"errors"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// lockRange takes an open file description (OFD) lock on byte slot of f.
// Unlike classic POSIX record locks, which belong to the process (so two
// goroutines never exclude each other, and closing any descriptor of the
// file drops them all), an OFD lock belongs to the open file: it conflicts
// with every other open of the file, in this process or another. Kernels
// before 3.15, and file systems that refuse the call, get flock instead.
func lockRange(f *os.File, slot int64) error {
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart, Start: slot, Len: 1}
	err := control(f, func(fd int) error { return unix.FcntlFlock(uintptr(fd), unix.F_OFD_SETLKW, &lk) })
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		return errNoRangeLocks
	}
	return err
}
