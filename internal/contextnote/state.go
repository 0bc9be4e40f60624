package contextnote

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/langspec/langspec/internal/apperr"
)

// DefaultStatePath is where notes added with `langspec context add` are
// kept: $XDG_STATE_HOME/langspec/context.jsonl, else
// ~/.local/state/langspec/; "" without either.
func DefaultStatePath(getenv func(string) string) string {
	if d := getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "langspec", "context.jsonl")
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".local", "state", "langspec", "context.jsonl")
	}
	return ""
}

// Store is the state file of notes. It is a log: each add or removal is
// one line appended with a single write, so two `langspec context` runs at
// once never lose each other's change, and a server reading it never sees
// half a note. Reading replays the log; the last line for a target wins.
type Store struct {
	Path string
	Now  func() time.Time // nil: time.Now

	mu     sync.Mutex // guards the cache below
	stamp  fileStamp
	cached []Note
}

// entry is one line of the log.
type entry struct {
	Op     string    `json:"op"` // "add" or "rm"
	Target string    `json:"target"`
	Text   string    `json:"text,omitempty"`
	Aside  bool      `json:"aside,omitempty"`
	At     time.Time `json:"at"`
}

// maxLine bounds a line the reader accepts: a note is at most
// MaxTextRunes runes, four bytes each, plus the rest of the entry.
const maxLine = 64 << 10

// fileStamp tells whether the file changed since it was read.
type fileStamp struct {
	size    int64
	modTime time.Time
}

// Notes is the notes the file holds now; a missing file holds none. It is
// read again only when its size or time changed, so a server may ask on
// every answer and still see a note added a moment ago. Errors: the file
// cannot be read.
func (s *Store) Notes() ([]Note, error) {
	if s == nil || s.Path == "" {
		return nil, nil
	}
	fi, err := os.Stat(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Unavailable, "check the state folder's permissions", "read the context notes %s", s.Path)
	}
	stamp := fileStamp{size: fi.Size(), modTime: fi.ModTime()}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cached != nil && stamp == s.stamp {
		return s.cached, nil
	}
	notes, err := s.read()
	if err != nil {
		return nil, err
	}
	s.stamp, s.cached = stamp, notes
	return notes, nil
}

func (s *Store) read() ([]Note, error) {
	f, err := os.Open(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return []Note{}, nil
	}
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Unavailable, "check the state folder's permissions", "read the context notes %s", s.Path)
	}
	defer f.Close()
	byTarget := map[string]Note{}
	var order []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	for sc.Scan() {
		var e entry
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue // a line cut short by a full disk: the others stand
		}
		switch e.Op {
		case "add":
			if _, ok := byTarget[e.Target]; !ok {
				order = append(order, e.Target)
			}
			byTarget[e.Target] = Note{Target: e.Target, Text: e.Text, Aside: e.Aside, From: FromState}
		case "rm":
			delete(byTarget, e.Target)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, apperr.Wrap(err, apperr.Unavailable, "the file may be damaged: move it aside and add the notes again", "read the context notes %s", s.Path)
	}
	out := []Note{}
	for _, t := range order {
		if n, ok := byTarget[t]; ok {
			out = append(out, n)
		}
	}
	return out, nil
}

// Add keeps text as the note of t, replacing the one it had. It returns
// whether one was replaced. Errors: apperr.InvalidArgument for the text,
// apperr.Unavailable when the file cannot be written.
func (s *Store) Add(t Target, text string, aside bool) (replaced bool, err error) {
	if err := CheckText(text); err != nil {
		return false, err
	}
	notes, err := s.Notes()
	if err != nil {
		return false, err
	}
	for _, n := range notes {
		replaced = replaced || n.Target == t.String()
	}
	return replaced, s.append(entry{Op: "add", Target: t.String(), Text: strings.TrimSpace(text), Aside: aside})
}

// Remove drops the note of t. Errors: apperr.NotFound when t has none,
// apperr.Unavailable when the file cannot be written.
func (s *Store) Remove(t Target) error {
	notes, err := s.Notes()
	if err != nil {
		return err
	}
	for _, n := range notes {
		if n.Target == t.String() {
			return s.append(entry{Op: "rm", Target: t.String()})
		}
	}
	return apperr.New(apperr.NotFound, "langspec context list shows the notes kept", "no context note on %s", t)
}

func (s *Store) append(e entry) error {
	if s == nil || s.Path == "" {
		return apperr.New(apperr.Unavailable, "set XDG_STATE_HOME or HOME", "there is no state folder to keep context notes in")
	}
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	e.At = now().UTC()
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encode context note: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
		return apperr.Wrap(err, apperr.Unavailable, "check the state folder's permissions", "create %s", filepath.Dir(s.Path))
	}
	f, err := os.OpenFile(s.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return apperr.Wrap(err, apperr.Unavailable, "check the state folder's permissions", "open %s", s.Path)
	}
	// One write of the whole line: with O_APPEND the kernel places it at
	// the end whatever another process appended meanwhile.
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return apperr.Wrap(err, apperr.Unavailable, "check the disk", "write %s", s.Path)
	}
	return f.Close()
}
