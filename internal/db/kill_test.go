package db_test

import (
	"bufio"
	"context"
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
	if path := os.Getenv("LANGSPEC_KILL_CHILD_DB"); path != "" {
		childIngest(t, path)
		return
	}
	if testing.Short() {
		t.Skip("starts a child process")
	}
	path := filepath.Join(t.TempDir(), "langspec.db")
	d, err := db.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.Publish(context.Background(), snapshot("go1.25", "old"), sections(5, "oldword")); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledIngest$")
	cmd.Env = append(os.Environ(), "LANGSPEC_KILL_CHILD_DB="+path)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// The child says when it starts writing; the WAL growing shows it is
	// really mid-transaction when it dies.
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "writing\n" {
		t.Fatalf("child said %q", line)
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(60 * time.Second)
	for grown := false; !grown; {
		select {
		case <-tick.C:
			st, err := os.Stat(path + "-wal")
			grown = err == nil && st.Size() > 4<<20
		case <-deadline:
			t.Fatal("the child never wrote 4 MiB")
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

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
