package main

// What strict clients expect of both transports alike: the same
// notifications (log, progress) over HTTP as over stdio, each HTTP client
// hearing only its own; an answer of the right shape to a request without
// a session and to one over the rate.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// notes collects notifications a client receives.
type notes struct {
	mu       sync.Mutex
	logs     []string // each message's data, as JSON
	progress []*mcp.ProgressNotificationParams
}

func (n *notes) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			b, _ := json.Marshal(r.Params.Data)
			n.mu.Lock()
			n.logs = append(n.logs, string(b))
			n.mu.Unlock()
		},
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			n.mu.Lock()
			n.progress = append(n.progress, r.Params)
			n.mu.Unlock()
		},
	}
}

// waitLog waits until a log message holds want; false after hangLimit.
func (n *notes) waitLog(want string) bool {
	for deadline := time.Now().Add(hangLimit); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		n.mu.Lock()
		for _, l := range n.logs {
			if strings.Contains(l, want) {
				n.mu.Unlock()
				return true
			}
		}
		n.mu.Unlock()
	}
	return false
}

func (n *notes) anyLog(s string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, l := range n.logs {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// TestHTTPNotifications: a team server's client that asks for the log gets
// it, by logging/setLevel (up to 2025-11-25) or by a request's _meta log
// level (2026-07-28), and progress of a batch; it gets the log lines of
// its own requests only, never another subject's.
func TestHTTPNotifications(t *testing.T) {
	dbPath := seededDB(t)
	alice := makeToken(t, dbPath, "alice")
	bob := makeToken(t, dbPath, "bob")
	s := startTeamServer(t, dbPath, "--tools", "categories")
	ctx := context.Background()

	t.Run("logging/setLevel", func(t *testing.T) {
		var heard notes
		as, err := s.connectWith(t, alice, heard.options(), "2025-11-25")
		if err != nil {
			t.Fatal(err)
		}
		if err := as.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
			t.Fatal(err)
		}
		bs, err := s.connectWith(t, bob, nil, "2025-11-25")
		if err != nil {
			t.Fatal(err)
		}
		if text, isErr := callText(t, bs, "get-category-tools", map[string]any{"category": "spec"}); isErr {
			t.Fatal(text)
		}
		if text, isErr := callText(t, as, "call-category-tool", map[string]any{"category": "spec", "name": "list_languages", "args": map[string]any{}}); isErr {
			t.Fatal(text)
		}
		if !heard.waitLog(`"subject":"alice"`) {
			t.Fatalf("alice heard no log line of her call: %v\nstderr:\n%s", heard.logs, s.stderr)
		}
		if heard.anyLog(`"subject":"bob"`) || heard.anyLog("get-category-tools") {
			t.Errorf("alice heard bob's log lines: %v", heard.logs)
		}
	})

	t.Run("a request's _meta log level (2026-07-28)", func(t *testing.T) {
		var heard notes
		cs, err := s.connectWith(t, alice, heard.options(), "2026-07-28")
		if err != nil {
			t.Fatal(err)
		}
		if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
			t.Fatalf("negotiated %s", v)
		}
		params := &mcp.CallToolParams{Name: "call-category-tool", Arguments: map[string]any{"category": "spec", "name": "list_languages", "args": map[string]any{}},
			Meta: mcp.Meta{mcp.MetaKeyLogLevel: "info"}}
		if _, err := cs.CallTool(ctx, params); err != nil {
			t.Fatal(err)
		}
		if !heard.waitLog(`"tool":"call-category-tool"`) {
			t.Errorf("no log line of the call: %v", heard.logs)
		}
	})

	t.Run("progress", func(t *testing.T) {
		var heard notes
		cs, err := s.connectWith(t, alice, heard.options(), "2025-11-25")
		if err != nil {
			t.Fatal(err)
		}
		tasks := `{"id":"s","category":"spec","tool":"search_spec","params":{"query":"slices"}}` + "\n" +
			`{"id":"l","category":"spec","tool":"list_languages","params":{}}`
		params := &mcp.CallToolParams{Name: "batch", Arguments: map[string]any{"tasks": tasks}}
		params.SetProgressToken("b1")
		if _, err := cs.CallTool(ctx, params); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(hangLimit); ; time.Sleep(10 * time.Millisecond) {
			heard.mu.Lock()
			done := len(heard.progress) > 0 && heard.progress[len(heard.progress)-1].Progress == 2
			heard.mu.Unlock()
			if done {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no final progress over HTTP: %+v", heard.progress)
			}
		}
	})
}

// TestHTTPRequestWithoutSession: a stateful server answers a request that
// needs a session but names none with 400 and a JSON-RPC error saying
// what to do, as the transport specifies, instead of making a session for
// it.
func TestHTTPRequestWithoutSession(t *testing.T) {
	s := startTeamServer(t, seededDB(t))
	for _, body := range []string{
		toolCall(7, "search_spec", map[string]any{"query": "defer"}),
		`{"jsonrpc":"2.0","id":7,"method":"ping"}`,
	} {
		resp, got := mcpPost(t, s, "", "", body, "Mcp-Protocol-Version", "2025-11-25")
		var answer struct {
			ID    json.RawMessage
			Error *struct {
				Code    int
				Message string
			}
		}
		if resp.StatusCode != http.StatusBadRequest || json.Unmarshal([]byte(got), &answer) != nil || string(answer.ID) != "7" ||
			answer.Error == nil || !strings.Contains(answer.Error.Message, "initialize") {
			t.Errorf("%s without a session: %d %s", body, resp.StatusCode, got)
		}
	}
	if id := openSession(t, s, ""); id == "" {
		t.Error("initialize without a session made none")
	}
}

// TestHTTPRateLimitAnswer: a request over the rate gets 429 with
// Retry-After and a JSON-RPC error that carries its id and says what to
// do, which a client can show.
func TestHTTPRateLimitAnswer(t *testing.T) {
	s := startTeamServer(t, seededDB(t), "--rate", "1")
	for i := range 10 {
		resp, body := mcpPost(t, s, "", "", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fast","version":"1"}}}`, 100+i))
		if resp.StatusCode != http.StatusTooManyRequests {
			continue
		}
		var answer struct {
			ID    json.RawMessage
			Error *struct {
				Code    int
				Message string
			}
		}
		if resp.Header.Get("Retry-After") == "" || resp.Header.Get("Content-Type") != "application/json" ||
			json.Unmarshal([]byte(body), &answer) != nil || string(answer.ID) != fmt.Sprint(100+i) || answer.Error == nil ||
			!strings.Contains(answer.Error.Message, "retry after") {
			t.Errorf("429: Retry-After %q, %s", resp.Header.Get("Retry-After"), body)
		}
		return
	}
	t.Error("ten requests at once at --rate 1: none got 429")
}
