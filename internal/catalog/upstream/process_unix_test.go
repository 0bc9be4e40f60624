//go:build unix

package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// alive reports whether pid is a running process (not gone, not a zombie).
func alive(pid int) bool {
	if b, err := os.ReadFile(filepath.Join("/proc", itoa(pid), "stat")); err == nil {
		// The state follows the parenthesised command name.
		s := string(b)
		return !strings.HasPrefix(s[strings.LastIndexByte(s, ')')+1:], " Z")
	} else if runtime.GOOS == "linux" {
		return false
	}
	return syscall.Kill(pid, 0) == nil
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestCloseEndsGrandchildren: what a stdio server started goes with it.
// The grandchild holds a named pipe open, so its death is seen as EOF.
func TestCloseEndsGrandchildren(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("process groups are Unix")
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes:", err)
	}
	m, _ := newTestManager(t, Options{})
	if err := m.Add("fake", fakeStdio("serve")); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Call(context.Background(), "fake", "spawn", map[string]any{"fifo": fifo}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(fifo) // blocks until the grandchild opens its end
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	eof := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, f); eof <- err }()

	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-eof:
		if err != nil && !errors.Is(err, os.ErrClosed) {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the grandchild outlived Close")
	}
}
