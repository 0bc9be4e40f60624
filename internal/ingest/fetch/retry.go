package fetch

import (
	"context"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// retryableStatus reports the statuses that mean "not now" rather than "no":
// rate limiting and server-side trouble that usually passes.
func retryableStatus(code int) bool {
	switch code {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// retryable reports whether a transport error may pass on a new connection:
// timeouts and connections that broke part way. Refused connections and
// unknown hosts are not retried: they rarely heal within the half minute the
// backoff spans, and the user is better told at once.
func retryable(err error) bool {
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		return true
	}
	if de, ok := errors.AsType[*net.DNSError](err); ok {
		return de.IsTemporary || de.IsTimeout
	}
	// io.EOF: the server closed the connection before answering;
	// io.ErrUnexpectedEOF: the body was shorter than its Content-Length.
	for _, target := range []error{io.EOF, io.ErrUnexpectedEOF, syscall.ECONNRESET, syscall.ECONNABORTED, syscall.EPIPE} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// backoff is the wait before retry n (from 0): full jitter, rnd·min(max,
// base·2ⁿ), rnd in [0, 1].
func backoff(n int, base, max time.Duration, rnd float64) time.Duration {
	ceil := base
	for i := 0; i < n && ceil < max; i++ {
		ceil *= 2
	}
	ceil = min(ceil, max)
	return time.Duration(rnd * float64(ceil))
}

// parseRetryAfter reads a Retry-After value, delay-seconds or an HTTP date
// (RFC 9110 §10.2.3), as a wait from now. A date in the past means no wait;
// an unreadable value is ignored, so backoff applies.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > math.MaxInt64/int64(time.Second) {
			return time.Duration(math.MaxInt64), true
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// sleepCtx is the real Options.Sleep.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
