package upstream

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
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
//	serve  a stdio MCP server with the tools of newFakeServer
//	exit   writes a line to stderr and exits 1 before initialize
//	hang   never answers; exits when stdin closes
//	fifo   opens os.Args[1] for writing and sleeps, so the reader sees EOF when it dies
func runFake(mode string) int {
	switch mode {
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
}

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
		return nil, echoOut{Text: in.Text, Token: os.Getenv("FAKE_TOKEN"), Args: os.Args[1:], PID: os.Getpid()}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "sleep"}, func(ctx context.Context, _ *mcp.CallToolRequest, in sleepIn) (*mcp.CallToolResult, any, error) {
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

func mustContain(t *testing.T, what, s string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Errorf("%s = %q, want it to contain %q", what, s, w)
		}
	}
}
