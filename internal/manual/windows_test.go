package manual

import (
	"bytes"
	"testing"

	"github.com/langspec/langspec/internal/apperr"
)

// TestWindowsSpellings: a path inside a manual as a Windows user or a model
// that saw one writes it — "\" between names, a manual id with a
// separator — reads the file the "/" path names, on any host (cleanRel
// counts "\" as a separator everywhere), or is refused as leaving the
// manual; never read as a file name with backslashes in it, as a Linux
// file system would allow.
func TestWindowsSpellings(t *testing.T) {
	l := openFixtures(t)
	want, err := l.Read("ops-en", "runbooks/db/failover.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{`runbooks\db\failover.md`, `runbooks/db\failover.md`, `.\runbooks\db\failover.md`, `runbooks\\db\failover.md`} {
		got, err := l.Read("ops-en", rel)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("Read(%q) = %d bytes, %v; want runbooks/db/failover.md", rel, len(got), err)
		}
		id, canon, err := l.Resolve("ops-en", rel)
		if err != nil || id != "ops-en" || canon != "runbooks/db/failover.md" {
			t.Errorf("Resolve(%q) = %q, %q, %v; want the slash path", rel, id, canon, err)
		}
	}
	for _, tt := range []struct{ id, rel string }{
		{`ops-en\runbooks`, `db\failover.md`},     // a manual id is one folder name
		{"ops-en", `runbooks\..\README.md`},       // ".." even when it would stay inside
		{"ops-en", `C:\manuals\ops-en\README.md`}, // a drive letter
		{"ops-en", `\\host\share\README.md`},      // a UNC path
		{"ops-en", `\README.md`},                  // rooted on the current drive
	} {
		if _, err := l.Read(tt.id, tt.rel); apperr.CodeOf(err) != apperr.PathOutsideManuals {
			t.Errorf("Read(%q, %q): %v, want path_outside_manuals", tt.id, tt.rel, err)
		}
	}
}
