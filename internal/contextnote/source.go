package contextnote

import (
	"log/slog"
	"sync"
)

// Source is the notes a running langspec uses: the config's, fixed at
// start, and the state file's, read again when it changes, so a note added
// with `langspec context add` reaches a server already running.
type Source struct {
	Config map[string]ConfigNote
	Store  *Store // nil: config notes only

	mu    sync.Mutex
	state []Note // what set was built from
	set   *Set
}

// Set is the notes in force now. Errors: a config entry that is not a
// note, or a state file that cannot be read.
func (s *Source) Set() (*Set, error) {
	if s == nil {
		return nil, nil
	}
	state, err := s.Store.Notes()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.set != nil && sameSlice(state, s.state) {
		return s.set, nil
	}
	set, err := NewSet(s.Config, state)
	if err != nil {
		return nil, err
	}
	s.state, s.set = state, set
	return set, nil
}

// Current is the notes in force now, for an answer to carry. Notes that
// cannot be read are logged to log (nil: nowhere) and the answer goes
// without them: a note is an aid, never a reason for a search, a read or a
// page to fail. Every front end (the tools, the page, the command line, the
// manuals' finder) asks here, so they all carry the same notes and all fail
// the same soft way.
func (s *Source) Current(log *slog.Logger) *Set {
	set, err := s.Set()
	if err != nil {
		if log != nil {
			log.Warn("context notes not read; answering without them", "err", err)
		}
		return nil
	}
	return set
}

// sameSlice reports whether a and b are the same slice (Store.Notes
// returns its cached slice until the file changes).
func sameSlice(a, b []Note) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
