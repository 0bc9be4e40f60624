package upstream

import "syscall"

// childSysProcAttr puts the child in its own process group and has the
// kernel SIGKILL it when the thread that started it ends: that thread is
// the spawner's, which lives as long as the Manager, so a langspec killed
// with SIGKILL (no Close, no cleanup) takes its children with it instead
// of leaving them orphaned. Pdeathsig reaches the child only: a grandchild
// (node under npx) is left to notice that its stdin closed.
func childSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
