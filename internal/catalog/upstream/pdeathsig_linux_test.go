package upstream

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestChildDiesWithLangspec: a langspec killed with SIGKILL runs no
// cleanup, yet its stdio children must not outlive it. The parent is this
// test binary in fake mode "parent", its child one in mode "linger", which
// ignores the EOF on its stdin that the parent's death causes. Issue 13:
// such children were orphaned.
func TestChildDiesWithLangspec(t *testing.T) {
	parent := exec.Command(os.Args[0])
	parent.Env = append(os.Environ(), fakeModeEnv+"=parent")
	stderr := &syncBuffer{}
	parent.Stderr = stderr
	stdout, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = parent.Process.Kill(); _ = parent.Wait() })
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Scan()
		line <- sc.Text()
	}()
	var pid int
	select {
	case l := <-line:
		if pid, err = strconv.Atoi(l); err != nil {
			t.Fatalf("parent printed %q; stderr:\n%s", l, stderr)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("the parent never started its child; stderr:\n%s", stderr)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) }) // should the test fail
	if !alive(pid) {
		t.Fatalf("child %d is not running", pid)
	}

	if err := parent.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = parent.Wait()
	eventually(t, 5*time.Second, "the child ends with its parent", func() bool { return !alive(pid) })
}

// TestChildOutlivesStartingThread: Pdeathsig fires when the thread that
// started a child ends. A child must not die because the goroutine that
// asked for it ran on a thread the runtime then retired (it retires the
// thread of a goroutine that exits while locked to it): the spawner starts
// every child from its own thread.
func TestChildOutlivesStartingThread(t *testing.T) {
	m, _ := newTestManager(t, Options{})
	dial := m.stdioDial("fake", fakeStdio("serve"), redactor{})
	type started struct {
		d   dialed
		tid int
		err error
	}
	// The main thread is never retired, only wedged, so the goroutine must
	// run elsewhere: holding this goroutine's thread (the main one, often)
	// keeps the new goroutine off it, and an unlucky draw is retried.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var s started
	for range 20 {
		ch := make(chan started, 1)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
			if syscall.Gettid() == syscall.Getpid() {
				runtime.UnlockOSThread()
				ch <- started{}
				return
			}
			d, err := dial(context.Background())
			ch <- started{d, syscall.Gettid(), err}
		}()
		if s = <-ch; s.tid != 0 || s.err != nil {
			break
		}
	}
	if s.err != nil {
		t.Fatal(s.err)
	}
	if s.tid == 0 {
		t.Skip("could not get a goroutine off the main thread")
	}
	t.Cleanup(func() { s.d.kill(0) })
	task := fmt.Sprintf("/proc/self/task/%d", s.tid)
	eventually(t, 5*time.Second, "the asking thread ends", func() bool { _, err := os.Stat(task); return err != nil })

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, s.d.t, nil)
	if err != nil {
		t.Fatalf("the child died with the thread that asked for it: %v", err)
	}
	defer cs.Close()
	if err := cs.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
}
