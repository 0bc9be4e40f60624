package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A client that cancels a long call (notifications/cancelled) gets its
// server back: the call stops where it stands and the server logs it as
// cancelled, other requests are answered meanwhile and after, and the model
// never gets the cancelled call's hits. The call is manual_excepts with a
// query over a 2 MB page named a thousand times: minutes of work if it ran
// on (hours before the scan went linear), so it is surely running when
// the cancellation arrives. Nothing here times the server: hangLimit only
// turns a call that never stops into a failure.
func TestServeCancelsALongCall(t *testing.T) {
	manuals := filepath.Join(t.TempDir(), "manuals")
	if err := os.MkdirAll(filepath.Join(manuals, "big"), 0o755); err != nil {
		t.Fatal(err)
	}
	// One top-level section over the whole page, every line about errors
	// and none with an exception term: the scan reads every line and
	// finds nothing, so max_hits never ends it early.
	var page strings.Builder
	page.WriteString("# Errors\n\n")
	for i := 0; page.Len() < 2<<20; i++ {
		fmt.Fprintf(&page, "Line %d: the error value of call %d is passed to the callback.\n", i, i%97)
	}
	if err := os.WriteFile(filepath.Join(manuals, "big", "errors.md"), []byte(page.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	paths := make([]string, 1000)
	for i := range paths {
		paths[i] = "errors.md"
	}

	s := startRaw(t, seededDB(t), func(c *exec.Cmd) {
		for i, kv := range c.Env {
			if strings.HasPrefix(kv, "MANUALS_ROOT=") {
				c.Env[i] = "MANUALS_ROOT=" + manuals
			}
		}
	})
	s.initialize()
	s.send(toolCall("long", "manual_excepts", map[string]any{"manual_id": "big", "paths": paths, "query": "error"}))
	// The server reads its input in order and serves a tools/call while it
	// reads on: once the ping is answered, the call is under way.
	s.send(`{"jsonrpc":"2.0","id":"before","method":"ping"}`)
	if msg := s.next(); msg["id"] != "before" {
		t.Fatalf("the long call answered before it could be cancelled: %.300v", msg)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"long","reason":"the user gave up"}}`)

	if !s.stderr.waitFor("the call was cancelled") {
		t.Fatalf("the cancelled call did not stop within %v; stderr:\n%s", hangLimit, s.stderr)
	}
	log := s.stderr.String()
	if !strings.Contains(log, "tool=manual_excepts") || !strings.Contains(log, "outcome=error code=unavailable") || strings.Contains(log, "panic") {
		t.Errorf("the call's log line does not say it was cancelled:\n%s", log)
	}

	// Still serving. The SDK may still write an answer for the cancelled
	// call (MCP says it should not); if it does, it is the cancellation,
	// not the call's hits.
	s.send(toolCall("after", "manual_ls", map[string]any{"manual_id": "big"}))
	for {
		msg := s.next()
		b, _ := json.Marshal(msg)
		if msg["id"] == "long" {
			res, _ := msg["result"].(map[string]any)
			if isErr, _ := res["isError"].(bool); !isErr || !strings.Contains(string(b), "the call was cancelled") {
				t.Errorf("the cancelled call answered with more than its cancellation: %.300s", b)
			}
			continue
		}
		if msg["id"] != "after" || !strings.Contains(string(b), "errors.md") {
			t.Fatalf("want the answer to the call after the cancellation, got %.300s", b)
		}
		break
	}
	s.stdin.Close()
	if err := s.wait(); err != nil {
		t.Errorf("exit after EOF: %v\nstderr:\n%s", err, s.stderr)
	}
}
