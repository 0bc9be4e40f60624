//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd || solaris)

package vault

import "os"

// crossProcessLocks: here (Windows, AIX, Plan 9, WebAssembly…) writes are
// serialised within this process only. Two processes on one vault may then
// lose appends to a concurrent overwrite or replace of the same file: run
// one langspec per vault on these systems.
const crossProcessLocks = false

func lockProcesses(*os.File, int64) error { return nil }
