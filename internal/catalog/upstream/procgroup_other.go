//go:build !unix

package upstream

import "os/exec"

// ownProcessGroup does nothing here: only Unix has process groups to end
// a child's own children with. CommandTransport still ends the child.
func ownProcessGroup(*exec.Cmd) {}

func killProcessGroup(int) {}
