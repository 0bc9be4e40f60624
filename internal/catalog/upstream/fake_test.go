package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeModeEnv makes the test binary a fake upstream (see TestMain), so the
// stdio tests run a real child process without building anything.
const fakeModeEnv = "LANGSPEC_FAKE_UPSTREAM"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeModeEnv); mode != "" {
		os.Exit(runFake(mode))
	}
	os.Exit(m.Run())
}

// runFake is the child process. Modes:
//
//	serve   a stdio MCP server with the tools of newFakeServer
//	linger  serve, but when stdin closes keep running, as server-everything does
//	wedge   serve, plus a tool "wedge" after which the server reads nothing more
//	leak    writes its credentials to stderr, as a failing server might, and exits 1
//	exit    writes a line to stderr and exits 1 before initialize
//	hang    never answers; exits when stdin closes
//	fifo    opens os.Args[1] for writing and sleeps, so the reader sees EOF when it dies
//	parent  a langspec stand-in: starts a linger child through a Manager,
//	        prints the child's pid and runs until killed
func runFake(mode string) int {
	switch mode {
	case "linger":
		if err := newFakeServer(nil).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, "fake:", err)
		}
		time.Sleep(time.Hour) // until killed
		return 0
	case "wedge":
		in := &wedgeReader{r: os.Stdin}
		srv := newFakeServer(nil)
		srv.AddTool(&mcp.Tool{Name: "wedge", InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				in.wedged.Store(true)
				time.Sleep(time.Hour) // like a server stuck in a loop: never answers
				return nil, nil
			})
		if err := srv.Run(context.Background(), &mcp.IOTransport{Reader: in, Writer: os.Stdout}); err != nil {
			return 1
		}
		return 0
	case "leak":
		for range 10 {
			fmt.Fprintln(os.Stderr, "auth failed with token", os.Getenv("FAKE_TOKEN"))
			fmt.Fprintln(os.Stderr, "sent Authorization: Bearer unknown-token-1234567")
			fmt.Fprintln(os.Stderr, "key sk-proj-abcdefghijklmnopqrstuv rejected by https://bob:hunter2-pass@example.com/v1?api_key=qq-secret-99")
		}
		return 1
	case "parent":
		m := NewManager(Options{})
		if err := m.Add("child", fakeStdio("linger")); err != nil {
			fmt.Fprintln(os.Stderr, "fake parent:", err)
			return 4
		}
		res, err := m.Call(context.Background(), "child", "echo", map[string]any{"text": "x"})
		if err != nil {
			fmt.Fprintln(os.Stderr, "fake parent:", err)
			return 4
		}
		var out echoOut
		b, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(b, &out)
		fmt.Println(out.PID)
		time.Sleep(time.Hour) // until killed
		return 0
	case "exit":
		fmt.Fprintln(os.Stderr, "fake: bad config")
		return 1
	case "hang":
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	case "fifo":
		f, err := os.OpenFile(os.Args[1], os.O_WRONLY, 0)
		if err != nil {
			return 2
		}
		defer f.Close()
		time.Sleep(time.Hour) // until killed
		return 0
	case "serve":
		fmt.Fprintln(os.Stderr, "fake upstream up")
		fmt.Fprint(os.Stderr, "last words without newline")
		if err := newFakeServer(nil).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			return 1
		}
		return 0
	}
	return 3
}

type echoIn struct {
	Text string `json:"text" jsonschema:"text to echo"`
}

type echoOut struct {
	Text  string   `json:"text"`
	Token string   `json:"token"` // FAKE_TOKEN of the server's environment
	Args  []string `json:"args"`  // the server's command-line arguments
	PID   int      `json:"pid"`
	Env   []string `json:"env"` // the server's environment
}

// wedgeReader is a child's stdin that stops delivering anything once
// wedged: what it reads afterwards, a ping included, is dropped.
type wedgeReader struct {
	r      io.Reader
	wedged atomic.Bool
}

func (w *wedgeReader) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if w.wedged.Load() {
		// Read, never processed. A sleep, not select{}: with every
		// goroutine blocked on channels the runtime would end the process
		// as deadlocked.
		time.Sleep(time.Hour)
	}
	return n, err
}

func (w *wedgeReader) Close() error { return nil }

type sleepIn struct {
	MS int `json:"ms" jsonschema:"milliseconds to sleep"`
}

type spawnIn struct {
	FIFO string `json:"fifo" jsonschema:"named pipe the grandchild holds open while it lives"`
}

// newFakeServer is the fake upstream, in process or in the child. opts
// may be nil.
func newFakeServer(opts *mcp.ServerOptions) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "fake", Version: "1"}, opts)
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, echoOut, error) {
		return nil, echoOut{Text: in.Text, Token: os.Getenv("FAKE_TOKEN"), Args: os.Args[1:], PID: os.Getpid(), Env: os.Environ()}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "sleep"}, func(ctx context.Context, _ *mcp.CallToolRequest, in sleepIn) (*mcp.CallToolResult, any, error) {
		if os.Getenv(fakeModeEnv) != "" {
			fmt.Fprintln(os.Stderr, sleepStarted) // tells a test in the parent the call is in flight
		}
		select {
		case <-time.After(time.Duration(in.MS) * time.Millisecond):
		case <-ctx.Done():
		}
		return nil, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "crash"}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		os.Exit(3)
		return nil, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "spawn"}, func(_ context.Context, _ *mcp.CallToolRequest, in spawnIn) (*mcp.CallToolResult, any, error) {
		// No stdio for the grandchild: it stays in the child's process
		// group, which is what Close must end.
		cmd := exec.Command(os.Args[0], in.FIFO)
		cmd.Env = append(os.Environ(), fakeModeEnv+"=fifo")
		return nil, nil, cmd.Start()
	})
	mcp.AddTool(s, &mcp.Tool{Name: "rich"}, func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{
			Content: []mcp.Content{
				&mcp.TextContent{Text: "a picture"},
				&mcp.ImageContent{Data: []byte("\x89PNG"), MIMEType: "image/png"},
			},
			StructuredContent: map[string]any{"width": 1.0, "tags": []any{"x"}},
			IsError:           true,
		}, nil, nil
	})
	return s
}

// sleepStarted is what a fake child writes to stderr when its sleep tool
// starts.
const sleepStarted = "fake: sleep started"

// inMemory returns an AddTransport connect func that serves srv over a
// fresh pair of in-memory transports per attempt.
func inMemory(srv *mcp.Server) func(context.Context) (mcp.Transport, error) {
	return func(ctx context.Context) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}
}

// fakeClock is an Options.Now the test moves by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// syncBuffer is a bytes.Buffer safe for the goroutines that log and copy
// stderr.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// newTestManager returns a Manager logging at Debug into the returned
// buffer, closed at the end of the test.
func newTestManager(t *testing.T, opts Options) (*Manager, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	opts.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	m := NewManager(opts)
	t.Cleanup(func() {
		_ = m.Close()
		if t.Failed() {
			t.Logf("logs:\n%s", logs)
		}
	})
	return m, logs
}

// lineWatcher is an Options.Stderr that reports on seen the first line
// containing want, and keeps everything in buf.
type lineWatcher struct {
	buf  syncBuffer
	want string
	seen chan struct{}
	once sync.Once
}

func newLineWatcher(want string) *lineWatcher {
	return &lineWatcher{want: want, seen: make(chan struct{})}
}

func (w *lineWatcher) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(w.want)) {
		w.once.Do(func() { close(w.seen) })
	}
	return w.buf.Write(p)
}

// eventually polls cond until it holds or within passes; for the state of
// real processes, which nothing signals.
func eventually(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(within)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline:
			t.Fatalf("%s: not within %v", what, within)
		case <-tick.C:
		}
	}
}

func mustContain(t *testing.T, what, s string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Errorf("%s = %q, want it to contain %q", what, s, w)
		}
	}
}
