//go:build unix && !linux

package upstream

import "syscall"

// childSysProcAttr puts the child in its own process group. Other Unix
// systems have no Pdeathsig: a child outlives a langspec killed with
// SIGKILL until it notices that its stdin closed.
func childSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
