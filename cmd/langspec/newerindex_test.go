package main

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An index a newer langspec migrated is refused by the command line as
// such — what happened, and that the file is left as it is — not taken for
// a file that is no langspec database (whose hint was to move it away).
func TestNewerIndexRefused(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "l.db")
	env := map[string]string{"HOME": dir}
	if code, _, errOut := run(t, env, "--db", dbPath, "ingest", "go"); code != 0 {
		t.Fatalf("ingest go: %s", errOut)
	}
	raw, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`INSERT INTO schema_migrations (name, applied_at) VALUES ('9999_from_the_future.sql', 'then')`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	before, _ := os.ReadFile(dbPath)
	for _, args := range [][]string{{"search", "slice expressions"}, {"ingest", "go"}} {
		code, out, errOut := run(t, env, append([]string{"--db", dbPath}, args...)...)
		if code == 0 || out != "" || !strings.Contains(errOut, "newer langspec") || !strings.Contains(errOut, "9999_from_the_future.sql") ||
			strings.Contains(errOut, "move the file away") || strings.Contains(errOut, "SQL logic") {
			t.Errorf("%v on a newer index: exit %d\nstdout %q\nstderr %q", args, code, out, errOut)
		}
	}
	if after, _ := os.ReadFile(dbPath); !bytes.Equal(after, before) {
		t.Error("the newer index was changed")
	}
}
