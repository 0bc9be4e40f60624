package upstream

import (
	"context"
	"testing"
	"time"
)

// TestCloseEndsCallsInFlight: Close with a call in flight returns at once,
// whether the child exits when its stdin closes or, like server-everything,
// ignores it; the call fails, and the child is gone. Issue 13: Close used
// to wait for the call (up to CallTimeout) and then 5 s for the child.
func TestCloseEndsCallsInFlight(t *testing.T) {
	for _, mode := range []string{"serve", "linger"} {
		t.Run(mode, func(t *testing.T) {
			watch := newLineWatcher(sleepStarted)
			m, _ := newTestManager(t, Options{Stderr: watch}) // the default CallTimeout of a minute
			if err := m.Add("fake", fakeStdio(mode)); err != nil {
				t.Fatal(err)
			}
			pid := echo(t, m, "fake", "up").PID
			errc := make(chan error, 1)
			go func() {
				_, err := m.Call(context.Background(), "fake", "sleep", map[string]any{"ms": 8000})
				errc <- err
			}()
			select {
			case <-watch.seen:
			case <-time.After(10 * time.Second):
				t.Fatal("the sleep call never reached the child")
			}

			start := time.Now()
			closed := make(chan struct{})
			go func() { _ = m.Close(); close(closed) }()
			select {
			case <-closed:
			case <-time.After(20 * time.Second):
				t.Fatal("Close hung")
			}
			// Half a second of grace for the child; 2 s leaves room for a
			// loaded machine.
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("Close took %v, want under 2s", d)
			}
			select {
			case err := <-errc:
				if err == nil {
					t.Fatal("the call in flight succeeded")
				}
				mustContain(t, "error", err.Error(), "langspec is shutting down")
			case <-time.After(5 * time.Second):
				t.Fatal("the call in flight did not return")
			}
			if alive(pid) {
				t.Errorf("child %d still running after Close", pid)
			}
		})
	}
}
