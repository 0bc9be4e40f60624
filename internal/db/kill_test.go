package db_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/db"
)

// TestKilledIngest kills a real process in the middle of writing a new version
// (SIGKILL: no deferred rollback runs) and checks that the previous version is
// still the one searched and the file is intact.
func TestKilledIngest(t *testing.T) {
	path, parent := parentStore(t)
	if !parent {
		return
	}
	d, err := db.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.Publish(context.Background(), snapshot("go1.25", "old"), sections(5, "oldword")); err != nil {
		t.Fatal(err)
	}

	// The WAL growing shows the child is really mid-transaction when it
	// dies.
	killChildMidWrite(t, "TestKilledIngest", path, func() bool {
		st, err := os.Stat(path + "-wal")
		return err == nil && st.Size() > 4<<20
	})

	if hits := mustSearch(t, d, db.Scope{}, "oldword"); len(hits) != 1 || hits[0].Version != "go1.25" {
		t.Errorf("after the kill: oldword hits = %+v", hits)
	}
	if hits := mustSearch(t, d, db.Scope{}, "newword"); len(hits) != 0 {
		t.Errorf("half-written version visible: %+v", hits)
	}
	if vs, _ := d.Versions(context.Background(), ""); len(vs) != 1 {
		t.Errorf("versions = %+v", vs)
	}
	if err := d.IntegrityCheck(context.Background()); err != nil {
		t.Error(err)
	}
}

// TestKilledFirstIngest kills a real process in the middle of writing the
// first snapshot of a new store, which it writes alone through a rollback
// journal (directwrite.go): the next process to open the store finds it
// empty, whole, in WAL mode, and able to take the write again; that write
// removes the scratch database the killed one was building indexes in
// (sideindex.go), and nothing else.
func TestKilledFirstIngest(t *testing.T) {
	path, parent := parentStore(t)
	if !parent {
		return
	}
	// Nothing here opens the store before the kill: the child must have it
	// alone. The journal beside a file that grows shows it is writing so.
	killChildMidWrite(t, "TestKilledFirstIngest", path, func() bool {
		_, err := os.Stat(path + "-journal")
		st, err2 := os.Stat(path)
		return err == nil && err2 == nil && st.Size() > 4<<20
	})
	if _, err := os.Stat(path + "-journal"); err != nil {
		t.Fatalf("the killed child left no journal to play back: %v", err)
	}
	left := scratchIndexes(t, path)
	if len(left) != 1 {
		t.Fatalf("the killed child left scratch databases %q, want the one it was building", left)
	}
	// Files the next write must not take for its own leftovers: another
	// store's scratch database, and a file of another name.
	others := []string{filepath.Join(filepath.Dir(path), "other.db.index-1.tmp"), path + ".index-notes.txt"}
	for _, name := range others {
		if err := os.WriteFile(name, []byte("not ours"), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	d, err := db.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if vs, err := d.Versions(context.Background(), ""); err != nil || len(vs) != 0 {
		t.Errorf("after the kill: versions %+v, %v; want none", vs, err)
	}
	if err := d.IntegrityCheck(context.Background()); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(path + "-journal"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the journal is still there after the store was opened again: %v", err)
	}
	if mode := db.JournalMode(t, path); mode != "wal" {
		t.Errorf("after the kill the journal mode is %q, want wal", mode)
	}
	if _, err := d.Publish(context.Background(), snapshot("go1.26", "again"), sections(50, "newword")); err != nil {
		t.Fatalf("the write after the kill: %v", err)
	}
	if hits := mustSearch(t, d, db.Scope{}, "newword"); len(hits) != 1 {
		t.Errorf("after the write that followed the kill: newword hits = %+v", hits)
	}
	if _, err := os.Stat(left[0]); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the write after the kill left the killed child's scratch database: %v", err)
	}
	for _, name := range others {
		if _, err := os.Stat(name); err != nil {
			t.Errorf("the write after the kill removed %s, which is not its leftover: %v", name, err)
		}
	}
}

// killChildMidWrite runs test in a child process that writes a big snapshot
// into the store at path (childIngest) and kills it (SIGKILL: no deferred
// rollback runs) once writing says it is mid-transaction.
func killChildMidWrite(t *testing.T, test, path string, writing func() bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), "LANGSPEC_KILL_CHILD_DB="+path)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "writing\n" {
		t.Fatalf("child said %q", line)
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(60 * time.Second)
	for !writing() {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatal("the child never got to the middle of its write")
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
}

// parentStore is the start of a kill test: in the child process it runs
// the child's part (childIngest) and returns false; in the parent it
// returns the path of a store that does not exist yet.
func parentStore(t *testing.T) (path string, parent bool) {
	if path := os.Getenv("LANGSPEC_KILL_CHILD_DB"); path != "" {
		childIngest(t, path)
		return "", false
	}
	if testing.Short() {
		t.Skip("starts a child process")
	}
	return filepath.Join(t.TempDir(), "langspec.db"), true
}

func childIngest(t *testing.T, path string) {
	d, err := db.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("writing\n")
	// Big enough to take seconds; the parent kills us long before the end.
	d.Publish(context.Background(), snapshot("go1.26", "new"), sections(500000, "newword"))
	t.Fatal("the parent should have killed this process before the publish finished")
}
