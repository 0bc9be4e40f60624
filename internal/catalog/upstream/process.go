package upstream

import (
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"time"
)

// Bounds of ending a stdio child. langspec promises to exit within a
// second of SIGTERM, children included, so nothing here waits long.
const (
	// stdioGrace is how long a child gets to exit by itself once its stdin
	// is closed, the MCP way to ask a stdio server to stop, before its
	// process group is killed. Servers that heed EOF exit within
	// milliseconds; the rest (server-everything among them) never do, and
	// waiting longer for them would only delay langspec's own exit.
	stdioGrace = 500 * time.Millisecond
	// reapTimeout bounds the wait for a killed child to be reaped. SIGKILL
	// cannot be ignored; only a process stuck in the kernel outlives it.
	reapTimeout = 2 * time.Second
	// stderrDrain bounds the wait for a child's last stderr lines once its
	// process group is gone: only a grandchild that left the group can
	// still hold the pipe open.
	stderrDrain = 250 * time.Millisecond
)

// child is a running stdio server: langspec's ends of its stdin, stdout and
// stderr. The pipes are made here rather than by exec.Cmd, so that the
// child can be reaped as soon as it exits (exec's own pipes may not be
// read after Wait, and its stderr copy would hold Wait open while a
// grandchild keeps stderr), and so that stop decides every bound.
type child struct {
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	stderr *os.File      // nil when stderr is discarded
	pw     *prefixWriter // where stderr goes; nil when discarded
	exited chan struct{} // closed once the child is reaped
	copied chan struct{} // closed once stderr copying ended
	once   sync.Once
}

// startChild starts cmd through start with pipes for stdin and stdout, and
// its stderr copied to pw (nil: discarded).
func startChild(cmd *exec.Cmd, pw *prefixWriter, start func(*exec.Cmd) error) (_ *child, err error) {
	var parent, inChild []*os.File // langspec's ends, the child's ends
	defer func() {
		// The child has its own copies of its ends now; ours would keep
		// EOF from ever arriving.
		closeAll(inChild)
		if err != nil {
			closeAll(parent)
		}
	}()
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	parent, inChild = append(parent, inW), append(inChild, inR)
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	parent, inChild = append(parent, outR), append(inChild, outW)
	c := &child{cmd: cmd, stdin: inW, stdout: outR, pw: pw, exited: make(chan struct{}), copied: make(chan struct{})}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, nil
	if pw != nil {
		errR, errW, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		parent, inChild = append(parent, errR), append(inChild, errW)
		c.stderr, cmd.Stderr = errR, errW
	}
	if err := start(cmd); err != nil {
		return nil, err
	}
	// With only *os.File for its stdio, Wait returns as soon as the child
	// exits: no copying goroutine of exec's holds it.
	go func() { _ = cmd.Wait(); close(c.exited) }()
	if c.stderr != nil {
		go func() { _, _ = io.Copy(pw, c.stderr); close(c.copied) }()
	} else {
		close(c.copied)
	}
	return c, nil
}

func closeAll(files []*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}

// stop ends the child: it closes its stdin, gives it grace to exit, then
// kills its process group (grandchildren included, whether or not the
// child exited by itself), reaps it and copies its last stderr lines. It
// returns within grace + reapTimeout + stderrDrain, normally within grace
// and a few milliseconds. Only the first call acts; later ones wait for it.
func (c *child) stop(grace time.Duration) {
	c.once.Do(func() {
		_ = c.stdin.Close()
		if grace > 0 {
			t := time.NewTimer(grace)
			select {
			case <-c.exited:
			case <-t.C:
			}
			t.Stop()
		}
		killProcessGroup(c.cmd.Process.Pid)
		select {
		case <-c.exited:
		default:
			// Where there are no process groups, and for a child that
			// moved to a group of its own.
			_ = c.cmd.Process.Kill()
		}
		t := time.NewTimer(reapTimeout)
		defer t.Stop()
		select {
		case <-c.exited:
		case <-t.C:
		}
		if c.stderr != nil {
			d := time.NewTimer(stderrDrain)
			select {
			case <-c.copied:
			case <-d.C:
			}
			d.Stop()
			_ = c.stderr.Close() // unblocks the copy if a stray process holds the pipe
			<-c.copied
			c.pw.Flush()
		}
		// Unblocks the session's reader should a stray process hold stdout.
		_ = c.stdout.Close()
	})
}

// stdinPipe and stdoutPipe are the child's pipes as the SDK's IOTransport
// takes them. Closing the transport stops the child: the SDK closes it when
// the session ends, from either side.
type (
	stdinPipe  struct{ c *child }
	stdoutPipe struct{ c *child }
)

func (p stdinPipe) Write(b []byte) (int, error) { return p.c.stdin.Write(b) }
func (p stdinPipe) Close() error                { p.c.stop(stdioGrace); return nil }
func (p stdoutPipe) Read(b []byte) (int, error) { return p.c.stdout.Read(b) }
func (p stdoutPipe) Close() error               { return nil } // stop closes it, after the child is gone

// spawner starts the stdio children of one Manager from one goroutine,
// locked to its OS thread for the Manager's life. On Linux a child is
// started with Pdeathsig (see childSysProcAttr), which the kernel sends
// when the *thread* that started the child ends, not the process: a child
// started from an arbitrary goroutine would be killed whenever the Go
// runtime retired that thread (it does so when a goroutine locked to a
// thread exits). Here the thread ends only when stop is called, after
// Close has ended every child, or when langspec itself dies, which is when
// the signal is wanted.
type spawner struct {
	once sync.Once // starts loop, or marks a spawner stopped before its first start
	reqs chan spawnReq
	quit chan struct{}
	done chan struct{} // closed when loop returned, or at once if it never ran
}

type spawnReq struct {
	cmd  *exec.Cmd
	errc chan error
}

func newSpawner() *spawner {
	return &spawner{reqs: make(chan spawnReq), quit: make(chan struct{}), done: make(chan struct{})}
}

// start runs cmd.Start on the spawner's thread.
func (p *spawner) start(cmd *exec.Cmd) error {
	p.once.Do(func() { go p.loop() })
	errc := make(chan error, 1)
	select {
	case p.reqs <- spawnReq{cmd, errc}:
		return <-errc
	case <-p.quit:
		return errClosed
	}
}

func (p *spawner) loop() {
	// Never unlocked: when loop returns, its thread ends with it.
	runtime.LockOSThread()
	defer close(p.done)
	for {
		select {
		case r := <-p.reqs:
			r.errc <- r.cmd.Start()
		case <-p.quit:
			return
		}
	}
}

// stop ends the spawner's goroutine and thread; later starts fail. It is
// called once, by Manager.Close.
func (p *spawner) stop() {
	p.once.Do(func() { close(p.done) }) // never started: nothing to wait for
	close(p.quit)
	<-p.done
}
