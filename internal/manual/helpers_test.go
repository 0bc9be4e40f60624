package manual

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/apperr"
)

// fixturesDir is the repository's sample manuals, read-only to tests.
const fixturesDir = "../../fixtures/manuals"

// secret is the content of the file outside the manuals folder that attacks
// aim at; it must never appear in anything a test gets back.
const secret = "TOP-SECRET-OUTSIDE-THE-MANUALS-FOLDER"

// testEnv is a copy of the fixtures in a temp folder, with a sibling folder
// "outside" that holds secret files.
type testEnv struct {
	lib     *Library
	dir     string // the manuals root
	outside string
}

func openFixtures(t *testing.T) *Library {
	t.Helper()
	l, err := Open(fixturesDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// newEnv copies the fixtures so a test can add links and files to them.
func newEnv(t *testing.T) *testEnv {
	t.Helper()
	base := t.TempDir()
	dir := filepath.Join(base, "manuals")
	if err := os.CopyFS(dir, os.DirFS(fixturesDir)); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(base, "outside")
	mustWrite(t, filepath.Join(outside, "secret.md"), "# "+secret+"\n")
	mustWrite(t, filepath.Join(outside, "secret.json"), `{"k": "`+secret+`"}`)
	mustWrite(t, filepath.Join(outside, "docs", "x.md"), "# "+secret+"\n")
	l, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return &testEnv{lib: l, dir: dir, outside: outside}
}

func mustWrite(t *testing.T, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// skipSymlinks: creating symlinks needs privileges on Windows.
func skipSymlinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
}

// checkCode reports whether err has the wanted code (and is nil when want
// is "").
func checkCode(t *testing.T, err error, want apperr.Code) bool {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Errorf("unexpected error: %v", err)
			return false
		}
		return true
	}
	if err == nil {
		t.Errorf("got no error, want %s", want)
		return false
	}
	if got := apperr.CodeOf(err); got != want {
		t.Errorf("code = %s, want %s (error: %v)", got, want, err)
		return false
	}
	return true
}

// fileLines returns lines start..end of a fixture file as the test reads
// it, independently of source.lines.
func fileLines(t *testing.T, p string, start, end int) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines[start-1:end], "")
}
