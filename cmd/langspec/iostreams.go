package main

import (
	"encoding/json"
	"io"
	"os"

	"golang.org/x/term"
)

// ioStreams are where a command reads and writes. Data goes to Out; progress
// and notices go to ErrOut, and only when a person is watching (a TTY).
type ioStreams struct {
	In       io.Reader
	Out      io.Writer
	ErrOut   io.Writer
	outTTY   bool // Out is a terminal: print for people, not programs
	errTTY   bool
	colorOut bool // bold is allowed on Out
}

func systemIO() *ioStreams {
	outTTY := term.IsTerminal(int(os.Stdout.Fd()))
	return &ioStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		outTTY:   outTTY,
		errTTY:   term.IsTerminal(int(os.Stderr.Fd())),
		colorOut: outTTY && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb",
	}
}

// writeJSON prints v as indented JSON, the format of every --json flag.
// Nothing is escaped for HTML: the output is read by people and programs,
// never put in a page, and "x <- ch" must stay as written.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
