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
// readable in one log, and redacted: a server that fails to authenticate
// tends to print the token it was given, or the URL with it. A line is the
// unit of redaction, so a secret cut by the maxStderrLine split could pass
// in two halves.
type prefixWriter struct {
	mu     *sync.Mutex // shared by every writer to out, so lines never interleave
	out    io.Writer
	prefix string
	red    redactor
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

// emit writes the buffered line, redacted. w.mu is held.
func (w *prefixWriter) emit() {
	text := w.red.apply(string(bytes.TrimSuffix(w.buf, []byte("\r"))))
	line := make([]byte, 0, len(w.prefix)+len(text)+1)
	line = append(line, w.prefix...)
	line = append(line, text...)
	line = append(line, '\n')
	_, _ = w.out.Write(line)
	w.buf = w.buf[:0]
}
