package upstream

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/apperr"
)

// fakeStdio is the config of a fake upstream child in mode.
func fakeStdio(mode string, args ...string) ServerConfig {
	return ServerConfig{
		Description: "fake " + mode,
		Command:     os.Args[0],
		Args:        args,
		Env:         map[string]string{fakeModeEnv: mode},
	}
}

func echo(t *testing.T, m *Manager, server, text string) echoOut {
	t.Helper()
	res, err := m.Call(context.Background(), server, "echo", map[string]any{"text": text})
	if err != nil {
		t.Fatalf("echo on %s: %v", server, err)
	}
	var out echoOut
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil || out.Text != text {
		t.Fatalf("echo on %s = %s (%v)", server, b, err)
	}
	return out
}

// TestStdio runs real child processes: the end-to-end path, stderr, a
// crash in a call, a timeout, and servers that never start, all in one
// Manager, since one server's trouble must not touch another.
func TestStdio(t *testing.T) {
	stderr := &syncBuffer{}
	getenv := func(k string) string {
		return map[string]string{"SECRET": "tok-123456", "WORD": "expanded"}[k]
	}
	m, logs := newTestManager(t, Options{Stderr: stderr, Getenv: getenv, CallTimeout: 200 * time.Millisecond, ConnectTimeout: 5 * time.Second})
	cfg := fakeStdio("serve", "--flag=${WORD}", "$$literal")
	cfg.Env["FAKE_TOKEN"] = "${SECRET}"
	for name, c := range map[string]ServerConfig{
		"fake":    cfg,
		"missing": {Description: "not installed", Command: filepath.Join(t.TempDir(), "no-such-server")},
		"exits":   fakeStdio("exit"),
	} {
		if err := m.Add(name, c); err != nil {
			t.Fatal(err)
		}
	}
	m.Start(context.Background())

	var pid int
	t.Run("end to end", func(t *testing.T) {
		out := echo(t, m, "fake", "hello")
		if out.Token != "tok-123456" {
			t.Errorf("FAKE_TOKEN in the child = %q", out.Token)
		}
		if want := []string{"--flag=expanded", "$literal"}; !slices.Equal(out.Args, want) {
			t.Errorf("child args = %q, want %q", out.Args, want)
		}
		pid = out.PID
	})
	t.Run("crash mid-call reconnects", func(t *testing.T) {
		_, err := m.Call(context.Background(), "fake", "crash", nil)
		if apperr.CodeOf(err) != apperr.UpstreamCallError {
			t.Fatalf("err = %v, want upstream_call_error", err)
		}
		mustContain(t, "error", err.Error(), `server "fake" ended during the call of "crash"`, "next call restarts")
		out := echo(t, m, "fake", "again")
		if out.PID == pid {
			t.Errorf("still pid %d after the crash", pid)
		}
		pid = out.PID
		if st := m.Status()[0]; st.Name != "exits" {
			t.Fatalf("Status not sorted: %+v", m.Status())
		}
		for _, st := range m.Status() {
			if st.Name == "fake" && (st.Reconnects != 1 || st.State != StateReady) {
				t.Errorf("fake status = %+v, want ready after 1 reconnect", st)
			}
		}
	})
	t.Run("call timeout", func(t *testing.T) {
		start := time.Now()
		_, err := m.Call(context.Background(), "fake", "sleep", map[string]any{"ms": 10000})
		if apperr.CodeOf(err) != apperr.UpstreamCallError {
			t.Fatalf("err = %v, want upstream_call_error", err)
		}
		mustContain(t, "error", err.Error(), `the call of "sleep" on server "fake" did not answer within 200ms`)
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("timed out after %v", d)
		}
		echo(t, m, "fake", "still there") // the session survives a timeout
	})
	t.Run("never starts", func(t *testing.T) {
		tests := []struct {
			server string
			want   []string
		}{
			{"missing", []string{`server "missing" could not start`, "no-such-server", "mcpServers.missing.command"}},
			{"exits", []string{`server "exits" ended before answering initialize`, "[exits]"}},
		}
		for _, tt := range tests {
			start := time.Now()
			_, err := m.Call(context.Background(), tt.server, "echo", nil)
			if apperr.CodeOf(err) != apperr.UpstreamUnavailable {
				t.Fatalf("%s: err = %v, want upstream_unavailable", tt.server, err)
			}
			mustContain(t, tt.server+" error", err.Error(), tt.want...)
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("%s: failed after %v", tt.server, d)
			}
		}
		echo(t, m, "fake", "unaffected")
	})

	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if alive(pid) {
		t.Errorf("child %d still running after Close", pid)
	}
	out := stderr.String()
	mustContain(t, "stderr", out, "[fake] fake upstream up\n", "[fake] last words without newline\n", "[exits] fake: bad config\n")
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !strings.HasPrefix(line, "[fake] ") && !strings.HasPrefix(line, "[exits] ") {
			t.Errorf("stderr line without a server prefix: %q", line)
		}
	}
	if strings.Contains(logs.String(), "tok-123456") {
		t.Error("the token reached the logs")
	}
	mustContain(t, "logs", logs.String(), `msg="upstream ready" server=fake tools=5`, "upstream ended")
}

// TestStdioHang: a child that never answers initialize is given up after
// ConnectTimeout and ended, and the next call fails fast while backing off.
func TestStdioHang(t *testing.T) {
	m, _ := newTestManager(t, Options{ConnectTimeout: 300 * time.Millisecond})
	if err := m.Add("hang", fakeStdio("hang")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := m.Call(context.Background(), "hang", "echo", nil)
	if apperr.CodeOf(err) != apperr.UpstreamUnavailable {
		t.Fatalf("err = %v, want upstream_unavailable", err)
	}
	mustContain(t, "error", err.Error(), "did not start within 300ms")
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("gave up after %v", d)
	}
	_, err = m.Call(context.Background(), "hang", "echo", nil)
	mustContain(t, "second error", err.Error(), "did not start within 300ms", "next attempt in")
}

// TestHTTP reaches the fake server over streamable HTTP and SSE, with a
// header from a variable; a wrong header is refused without showing it.
func TestHTTP(t *testing.T) {
	for _, typ := range []string{TypeHTTP, TypeSSE} {
		t.Run(typ, func(t *testing.T) {
			srv := newFakeServer(nil)
			var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
			if typ == TypeSSE {
				h = mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil)
			}
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") != "Bearer good-token-1" {
					http.Error(w, "no", http.StatusUnauthorized)
					return
				}
				h.ServeHTTP(w, r)
			}))
			t.Cleanup(ts.Close) // after the Manager's Close, which ends the open streams
			getenv := func(k string) string {
				return map[string]string{"GOOD": "good-token-1", "BAD": "bad-token-22"}[k]
			}
			// A short ConnectTimeout: the SSE stream must outlive the
			// attempt's context, which the slow call below spans.
			m, logs := newTestManager(t, Options{Getenv: getenv, ConnectTimeout: 300 * time.Millisecond})
			for name, tok := range map[string]string{"good": "${GOOD}", "bad": "${BAD}"} {
				cfg := ServerConfig{Description: "web", Type: typ, URL: ts.URL + "/?k=${" + strings.ToUpper(name) + "}", Headers: map[string]string{"Authorization": "Bearer " + tok}}
				if err := m.Add(name, cfg); err != nil {
					t.Fatal(err)
				}
			}
			echo(t, m, "good", "over http")
			if _, err := m.Call(context.Background(), "good", "sleep", map[string]any{"ms": 500}); err != nil {
				t.Fatalf("a call longer than ConnectTimeout: %v", err)
			}
			echo(t, m, "good", "still over http")

			_, err := m.Call(context.Background(), "bad", "echo", nil)
			if apperr.CodeOf(err) != apperr.UpstreamUnavailable {
				t.Fatalf("bad token: err = %v, want upstream_unavailable", err)
			}
			for _, where := range []string{err.Error(), logs.String(), m.Status()[0].LastError} {
				if strings.Contains(where, "bad-token-22") || strings.Contains(where, "good-token-1") {
					t.Errorf("a token leaked: %s", where)
				}
			}
		})
	}
}
