package vault

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/apperr"
)

// fixedNow is the tests' clock: the daily log for it is 2026-11-22.md.
func fixedNow() time.Time { return time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC) }

// testEnv is a temp folder holding the vault, an "outside" folder and a
// "vault_evil" sibling whose name shares the vault's prefix.
type testEnv struct {
	base, dir, outside string
	v                  *Vault
}

func newEnv(tb testing.TB, opts Options) *testEnv {
	tb.Helper()
	base := tb.TempDir()
	e := &testEnv{base: base, dir: filepath.Join(base, "vault"), outside: filepath.Join(base, "outside")}
	mustWrite(tb, filepath.Join(e.outside, "secret.txt"), "outside secret\n")
	mustWrite(tb, filepath.Join(base, "vault_evil", "x"), "evil sibling\n")
	if opts.Now == nil {
		opts.Now = fixedNow
	}
	v, err := Open(e.dir, opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { v.Close() })
	e.v = v
	return e
}

func mustWrite(tb testing.TB, name, content string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

func mustSymlink(tb testing.TB, target, name string) {
	tb.Helper()
	if err := os.Symlink(target, name); err != nil {
		tb.Fatal(err)
	}
}

// snapshot records every entry under root: files by content, folders, and
// symlinks by target. Two equal snapshots mean nothing was created, removed,
// changed or redirected.
func snapshot(tb testing.TB, root string) map[string]string {
	tb.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			t, err := os.Readlink(p)
			if err != nil {
				return err
			}
			m[rel] = "link:" + t
		case d.IsDir():
			m[rel] = "dir"
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			m[rel] = "file:" + string(b)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

func diffSnapshots(before, after map[string]string) []string {
	var d []string
	for k, v := range before {
		if w, ok := after[k]; !ok {
			d = append(d, "removed "+k)
		} else if v != w {
			d = append(d, "changed "+k)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			d = append(d, "added "+k)
		}
	}
	return d
}

// wantCode fails the test unless err is an *apperr.Error with code and a
// hint.
func wantCode(tb testing.TB, err error, code apperr.Code) {
	tb.Helper()
	if !checkCode(tb, err, code) {
		tb.FailNow()
	}
}

// checkCode reports (and marks as failed) an err that is not an
// *apperr.Error with code and a hint, letting the test go on.
func checkCode(tb testing.TB, err error, code apperr.Code) bool {
	tb.Helper()
	e, ok := errors.AsType[*apperr.Error](err)
	switch {
	case err == nil:
		tb.Errorf("got no error, want %s", code)
	case !ok:
		tb.Errorf("got %T %v, want *apperr.Error %s", err, err, code)
	case e.Code != code:
		tb.Errorf("got %v, want code %s", err, code)
	case e.Hint == "":
		tb.Errorf("error %v has no hint", err)
	default:
		return true
	}
	return false
}

// tempFiles lists the vault's temp files anywhere under dir.
func tempFiles(tb testing.TB, dir string) []string {
	tb.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), tempPrefix) {
			out = append(out, p)
		}
		return nil
	})
	return out
}
