package upstream

import (
	"bytes"
	"io"
	"sync"
)

// maxStderrLine caps a buffered stderr line, so a child writing without
// newlines cannot grow memory; longer lines are split.
const maxStderrLine = 64 << 10

// prefixWriter copies a child's stderr to out a line at a time, each line
// prefixed with "[<server>] ", so the lines of several children stay
// readable in one log.
type prefixWriter struct {
	mu     *sync.Mutex // shared by every writer to out, so lines never interleave
	out    io.Writer
	prefix string
	buf    []byte // the unfinished line
}

// Write never fails: a broken log sink must not end the child with EPIPE.
func (w *prefixWriter) Write(p []byte) (int, error) {
	n := len(p)
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if room := maxStderrLine - len(w.buf); len(chunk) > room {
			w.buf = append(w.buf, chunk[:room]...)
			w.emit()
			p = p[room:]
			continue
		}
		w.buf = append(w.buf, chunk...)
		if i < 0 {
			break
		}
		w.emit()
		p = p[i+1:]
	}
	return n, nil
}

// Flush writes an unfinished last line.
func (w *prefixWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.emit()
	}
}

// emit writes the buffered line. w.mu is held.
func (w *prefixWriter) emit() {
	line := make([]byte, 0, len(w.prefix)+len(w.buf)+1)
	line = append(line, w.prefix...)
	line = append(line, bytes.TrimSuffix(w.buf, []byte("\r"))...)
	line = append(line, '\n')
	_, _ = w.out.Write(line)
	w.buf = w.buf[:0]
}
