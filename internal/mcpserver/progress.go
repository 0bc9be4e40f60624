package mcpserver

import (
	"context"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/progress"
)

// Progress pacing. A batch of fifty quick tasks or a re-index of a
// thousand files would otherwise send a notification per unit; clients draw
// a bar, for which ten updates a second are plenty. The flush bound keeps a
// call's last notification ahead of its answer without letting a client
// that stopped reading hold the answer back.
const (
	progressInterval = 100 * time.Millisecond
	progressFlush    = 100 * time.Millisecond
)

// reportProgress is the receiving middleware that gives a tools/call whose
// client sent a progress token a reporter in its context (package
// progress), and sends what the call reports as notifications/progress.
func reportProgress(interval time.Duration) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/call" {
				return next(ctx, method, req)
			}
			token := metaOf(req)["progressToken"]
			ss, isServer := req.GetSession().(*mcp.ServerSession)
			if token == nil || !isServer {
				return next(ctx, method, req)
			}
			p := newCallProgress(ctx, interval, func(ctx context.Context, n *mcp.ProgressNotificationParams) error {
				n.ProgressToken = token
				return ss.NotifyProgress(ctx, n)
			})
			defer p.finish(progressFlush)
			return next(progress.NewContext(ctx, p), method, req)
		}
	}
}

// callProgress is the progress.Reporter of one call. Reports only update
// its state and wake its sender goroutine, which sends the latest state at
// most once an interval: the code that reports (a scheduler, a re-index
// holding the index lock) never waits for the client, and a burst of
// reports costs one notification.
type callProgress struct {
	send     func(context.Context, *mcp.ProgressNotificationParams) error
	interval time.Duration

	mu      sync.Mutex
	done    int
	total   int
	message string

	wake     chan struct{} // buffered 1: "the state changed"
	stop     chan struct{} // closed when the call ends
	finished chan struct{} // closed when the sender is gone
}

func newCallProgress(ctx context.Context, interval time.Duration, send func(context.Context, *mcp.ProgressNotificationParams) error) *callProgress {
	p := &callProgress{send: send, interval: interval,
		wake: make(chan struct{}, 1), stop: make(chan struct{}), finished: make(chan struct{})}
	// The notifications outlive nothing but must survive the call's own
	// cancellation long enough for the last one.
	go p.run(context.WithoutCancel(ctx))
	return p
}

// Expect implements progress.Reporter.
func (p *callProgress) Expect(n int) {
	if n <= 0 {
		return
	}
	p.mu.Lock()
	p.total += n
	p.mu.Unlock()
}

// Done implements progress.Reporter.
func (p *callProgress) Done(n int, message string) {
	if n <= 0 {
		return
	}
	p.mu.Lock()
	p.done += n
	p.message = message
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default: // a wake-up is pending already
	}
}

// finish ends the reporting when the call returns: what was reported last
// is sent if it was not, waiting at most flush for it.
func (p *callProgress) finish(flush time.Duration) {
	close(p.stop)
	select {
	case <-p.finished:
	case <-time.After(flush):
	}
}

// run sends the state as it changes, at most once an interval. The first
// report goes out at once; the state when the call ends goes out too, so
// the client sees the final count.
func (p *callProgress) run(ctx context.Context) {
	defer close(p.finished)
	sent := 0
	var last time.Time
	flush := func() bool {
		p.mu.Lock()
		n := &mcp.ProgressNotificationParams{Progress: float64(p.done), Message: p.message}
		if p.total >= p.done {
			n.Total = float64(p.total)
		}
		done := p.done
		p.mu.Unlock()
		// The spec wants progress to grow with every notification.
		if done <= sent {
			return true
		}
		sent, last = done, time.Now()
		return p.send(ctx, n) == nil
	}
	for {
		select {
		case <-p.stop:
			flush()
			return
		case <-p.wake:
		}
		if wait := p.interval - time.Since(last); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-p.stop:
				t.Stop()
				flush()
				return
			case <-t.C:
			}
		}
		if !flush() {
			return // the connection is gone
		}
	}
}
