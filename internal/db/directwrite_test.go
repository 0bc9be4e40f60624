package db_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/langspec/langspec/internal/db"
)

// watchedSource is a snapshot's sections that calls watch once, when the
// writer first asks for section at: the middle of the write.
type watchedSource struct {
	db.SectionList
	at int
	// pass is the reading of section at that calls watch: the writer reads
	// the sections twice, for the rows and for the words; 0 is the first.
	pass  int32
	reads atomic.Int32
	once  sync.Once
	watch func() error
	// err is what the source answers from section at on, when set.
	err error
}

func (s *watchedSource) Section(i int) (db.Section, error) {
	if i == s.at && s.reads.Add(1) > s.pass {
		s.once.Do(func() {
			if err := s.watch(); err != nil {
				s.err = err
			}
		})
	}
	if i >= s.at && s.err != nil {
		return db.Section{}, s.err
	}
	return s.SectionList[i], nil
}

// fileState is what an observer outside the writer sees of the store in
// the middle of a write.
type fileState struct {
	journal, wal bool
	// readErr is another connection's read: nil, or SQLite's "database
	// is locked" when the writer holds the file alone.
	readErr error
}

// observe looks at the files beside path and reads the store on a
// connection of its own that waits only briefly for a lock.
func observe(t *testing.T, path string) fileState {
	t.Helper()
	exists := func(name string) bool {
		_, err := os.Stat(name)
		return err == nil
	}
	st := fileState{journal: exists(path + "-journal"), wal: exists(path + "-wal")}
	other, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(50)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	var n int
	st.readErr = other.QueryRow(`SELECT count(*) FROM snapshots`).Scan(&n)
	return st
}

// TestFirstSnapshotTakesTheStoreAlone writes a snapshot and looks at the
// store from outside the writer in the middle of the write: into a store
// that holds nothing and that nobody else has open, the writer takes the
// file alone and writes it through a rollback journal (no WAL, other
// connections wait); in every other case it writes through the WAL, and a
// reader reads beside it. Either way the store ends in WAL mode, whole.
func TestFirstSnapshotTakesTheStoreAlone(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		// before prepares the store; it returns a handle to keep open
		// during the write, or nil.
		before     func(t *testing.T, d *db.DB) *db.DB
		wantDirect bool
	}{
		{name: "empty store, nobody else", before: func(*testing.T, *db.DB) *db.DB { return nil }, wantDirect: true},
		{name: "empty store, open in another handle", before: func(t *testing.T, d *db.DB) *db.DB {
			other, err := db.Open(ctx, d.Path())
			if err != nil {
				t.Fatal(err)
			}
			if err := other.Ping(ctx); err != nil {
				t.Fatal(err)
			}
			return other
		}},
		{name: "store holding a snapshot", before: func(t *testing.T, d *db.DB) *db.DB {
			if _, err := d.Publish(ctx, snapshot("go1.25", "old"), sections(5, "oldword")); err != nil {
				t.Fatal(err)
			}
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := mustOpenDB(t)
			if other := tc.before(t, d); other != nil {
				defer other.Close()
			}
			var mid fileState
			src := &watchedSource{SectionList: sections(20000, "newword"), at: 10000,
				watch: func() error { mid = observe(t, d.Path()); return nil }}
			if _, err := d.PublishFrom(ctx, snapshot("go1.26", "new"), src, db.PublishOptions{}); err != nil {
				t.Fatal(err)
			}

			gotDirect := mid.journal && !mid.wal
			if gotDirect != tc.wantDirect || mid.journal == mid.wal {
				t.Errorf("mid-write: journal %v, WAL %v; want a rollback journal alone %v", mid.journal, mid.wal, tc.wantDirect)
			}
			switch {
			case gotDirect && (mid.readErr == nil || !strings.Contains(mid.readErr.Error(), "locked")):
				t.Errorf("mid-write, alone: another connection read with %v, want it locked out", mid.readErr)
			case !gotDirect && mid.readErr != nil:
				t.Errorf("mid-write through the WAL: another connection could not read: %v", mid.readErr)
			}
			if mode := db.JournalMode(t, d.Path()); mode != "wal" {
				t.Errorf("after the write the journal mode is %q, want wal", mode)
			}
			if hits := mustSearch(t, d, db.Scope{Language: "go"}, "newword"); len(hits) != 1 || hits[0].Version != "go1.26" {
				t.Errorf("after the write: newword hits = %+v", hits)
			}
			if err := d.IntegrityCheck(ctx); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestFailedFirstSnapshotLeavesAnEmptyStore fails the first write into an
// empty store half-way, by a source error and by a cancelled context, while
// the rows are written and while the words are read (the side indexes wait
// for them): the store is left empty, in WAL mode, without a journal, and
// takes the next write.
func TestFailedFirstSnapshotLeavesAnEmptyStore(t *testing.T) {
	errSource := errors.New("the source broke")
	for _, tc := range []struct {
		name string
		// fail makes the write fail from the middle on; it returns the
		// error Publish must wrap.
		fail func(cancel context.CancelFunc) error
		pass int32 // watchedSource.pass
	}{
		{name: "source error", fail: func(context.CancelFunc) error { return errSource }},
		{name: "cancelled", fail: func(cancel context.CancelFunc) error { cancel(); return nil }},
		{name: "source error reading the words", pass: 1, fail: func(context.CancelFunc) error { return errSource }},
		{name: "cancelled reading the words", pass: 1, fail: func(cancel context.CancelFunc) error { cancel(); return nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := mustOpenDB(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var mid fileState
			src := &watchedSource{SectionList: sections(20000, "newword"), at: 10000, pass: tc.pass,
				watch: func() error { mid = observe(t, d.Path()); return tc.fail(cancel) }}
			_, err := d.PublishFrom(ctx, snapshot("go1.26", "new"), src, db.PublishOptions{})
			if err == nil || !(errors.Is(err, errSource) || errors.Is(err, context.Canceled)) {
				t.Fatalf("Publish err = %v, want the source's error or context.Canceled", err)
			}
			if !mid.journal || mid.wal {
				t.Errorf("mid-write: journal %v, WAL %v; want the direct write this test fails", mid.journal, mid.wal)
			}
			if _, err := os.Stat(d.Path() + "-journal"); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a journal is left after the failed write: %v", err)
			}
			if left := scratchIndexes(t, d.Path()); len(left) > 0 {
				t.Errorf("scratch databases left after the failed write: %q", left)
			}
			if mode := db.JournalMode(t, d.Path()); mode != "wal" {
				t.Errorf("after the failed write the journal mode is %q, want wal", mode)
			}
			if vs, err := d.Versions(context.Background(), ""); err != nil || len(vs) != 0 {
				t.Errorf("after the failed write: versions %+v, %v; want none", vs, err)
			}
			if _, err := d.Publish(context.Background(), snapshot("go1.26", "new"), sections(50, "newword")); err != nil {
				t.Fatalf("the next write: %v", err)
			}
			if hits := mustSearch(t, d, db.Scope{}, "newword"); len(hits) != 1 {
				t.Errorf("after the next write: newword hits = %+v", hits)
			}
			if err := d.IntegrityCheck(context.Background()); err != nil {
				t.Error(err)
			}
		})
	}
}
