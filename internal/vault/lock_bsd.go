//go:build darwin || dragonfly || freebsd || netbsd || openbsd || solaris

package vault

import "os"

// lockRange: these systems have no byte-range lock that belongs to an open
// file (their fcntl locks belong to the process), so lockProcesses uses
// flock on the whole lock file.
func lockRange(*os.File, int64) error { return errNoRangeLocks }
