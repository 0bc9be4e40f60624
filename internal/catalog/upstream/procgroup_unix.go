//go:build unix

package upstream

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts the child in a process group of its own, so that
// what it starts (npx starts node, uvx starts python) can be ended with it,
// and a Ctrl-C meant for langspec reaches the child only through Close.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killProcessGroup kills what is left of the child's group once the child
// itself has been reaped, so no grandchild outlives its session. The group
// id is the child's pid, which the kernel does not hand out again while any
// member lives; an empty group is ESRCH, ignored. Only in the instant
// between the reap and this call could an emptied id have been reused.
func killProcessGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}
