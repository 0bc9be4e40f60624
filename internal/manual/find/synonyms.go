package find

import (
	"errors"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/langspec/langspec/internal/manual/find/queryplan"
)

// SynonymFile is the user's synonym dictionary, reloaded when the file
// changes, so an edit applies to the next search without a restart.
type SynonymFile struct {
	path string

	mu      sync.Mutex
	dict    *queryplan.Dictionary
	size    int64
	modTime time.Time
	loaded  bool
}

// NewSynonymFile returns the dictionary at path; "" means none.
func NewSynonymFile(path string) *SynonymFile { return &SynonymFile{path: path} }

// Path is the dictionary file.
func (s *SynonymFile) Path() string {
	if s == nil {
		return ""
	}
	return s.path
}

// Load returns the current dictionary. A missing file is an empty
// dictionary; a broken one is an error (and an empty dictionary), so the
// search goes on without synonyms and says why.
func (s *SynonymFile) Load() (*queryplan.Dictionary, *DictionaryStatus, error) {
	if s == nil || s.path == "" {
		return nil, nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fi, err := os.Stat(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		s.dict, s.loaded = nil, false
		return nil, &DictionaryStatus{Path: s.path}, nil
	}
	if err == nil && s.loaded && fi.Size() == s.size && fi.ModTime().Equal(s.modTime) {
		return s.dict, &DictionaryStatus{Path: s.path, Groups: s.dict.Len()}, nil
	}
	d, err := queryplan.LoadDictionary(s.path)
	if err != nil {
		return nil, &DictionaryStatus{Path: s.path}, err
	}
	s.dict, s.loaded = d, true
	if fi != nil {
		s.size, s.modTime = fi.Size(), fi.ModTime()
	}
	return d, &DictionaryStatus{Path: s.path, Groups: d.Len()}, nil
}
