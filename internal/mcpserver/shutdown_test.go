package mcpserver

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A connection the server accepted but that has not sent a whole request
// yet must not hold shutdown: Go's http.Server counts such a connection
// as busy until it is five seconds old, and an HTTP client dials spare
// connections it may never use (a CI run of the team server waited 5.2 s
// for one at SIGTERM).
func TestShutdownDoesNotWaitForConnectionsWithoutARequest(t *testing.T) {
	cases := []struct {
		name string
		send string // what the client writes before shutdown; then it waits
	}{
		{"dialled, nothing sent", ""},
		{"half a request line", "POST /mc"},
		{"headers not finished", "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ctx, stop := context.WithCancel(context.Background())
			defer stop()
			handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") })
			done := make(chan error, 1)
			go func() { done <- ListenAndServeHTTP(ctx, ln, handler, 10*time.Second, slog.New(slog.DiscardHandler)) }()

			// A request answered first: the server is up and serving.
			if resp, err := http.Get("http://" + ln.Addr().String() + "/"); err != nil {
				t.Fatal(err)
			} else {
				resp.Body.Close()
			}
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if tc.send != "" {
				if _, err := io.WriteString(c, tc.send); err != nil {
					t.Fatal(err)
				}
			}
			time.Sleep(100 * time.Millisecond) // the server has accepted it

			start := time.Now()
			stop()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("shutdown: %v", err)
				}
			case <-time.After(15 * time.Second):
				t.Fatal("shutdown never returned")
			}
			// Nothing is in flight, so shutdown is a matter of
			// milliseconds; the bound leaves room for a loaded machine
			// and stays well under the five seconds it used to take.
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("shutdown took %s with a connection that sent %q", took, tc.send)
			}
			// The connection was closed, not left open.
			_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
			b, err := io.ReadAll(c)
			if err != nil && !strings.Contains(err.Error(), "reset") {
				t.Errorf("the connection was not closed: read %q, %v", b, err)
			}
		})
	}
}
