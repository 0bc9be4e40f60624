//go:build unix

package upstream

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts the child in a process group of its own, so that
// what it starts (npx starts node, uvx starts python) can be ended with it,
// and a Ctrl-C meant for langspec reaches the child only through Close. On
// Linux the child also dies with langspec (see childSysProcAttr).
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = childSysProcAttr()
}

// killProcessGroup kills the child's group: the child, if it is still
// there, and what it started. The group id is the child's pid, which the
// kernel does not hand out again while any member lives; an empty group is
// ESRCH, ignored. Only in the instant between the reap of a child that
// exited by itself and this call could an emptied id have been reused.
func killProcessGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}
