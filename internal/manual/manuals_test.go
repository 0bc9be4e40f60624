package manual

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/langspec/langspec/internal/apperr"
)

func TestOpen(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file.md")
	mustWrite(t, file, "x\n")
	tests := []struct {
		name string
		dir  string
		code apperr.Code
	}{
		{name: "fixtures", dir: fixturesDir},
		{name: "missing folder is an empty library", dir: filepath.Join(t.TempDir(), "not-yet")},
		{name: "empty", dir: "", code: apperr.InvalidArgument},
		{name: "a file", dir: file, code: apperr.InvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Open(tt.dir)
			if !checkCode(t, err, tt.code) || err != nil {
				return
			}
			defer l.Close()
			ids, err := l.Manuals()
			if err != nil {
				t.Fatal(err)
			}
			if tt.name != "fixtures" && len(ids) != 0 {
				t.Errorf("Manuals() = %v, want none", ids)
			}
		})
	}
}

func TestMissingRootAppearsLater(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "manuals")
	l, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Files("ops"); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("Files before the folder exists: %v, want not_found", err)
	}
	mustWrite(t, filepath.Join(dir, "ops", "a.md"), "# A\n")
	ids, err := l.Manuals()
	if err != nil || !slices.Equal(ids, []string{"ops"}) {
		t.Fatalf("Manuals() = %v, %v; want [ops]", ids, err)
	}
}

func TestClosed(t *testing.T) {
	l, err := Open(fixturesDir)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	if _, err := l.Manuals(); apperr.CodeOf(err) != apperr.Unavailable {
		t.Errorf("Manuals after Close: %v, want unavailable", err)
	}
}

func TestManuals(t *testing.T) {
	skipSymlinks(t)
	e := newEnv(t)
	mustSymlink(t, e.outside, filepath.Join(e.dir, "linked"))
	mustSymlink(t, "ops-en", filepath.Join(e.dir, "ops-alias"))
	mustWrite(t, filepath.Join(e.dir, "stray.md"), "# not a manual\n")
	mustWrite(t, filepath.Join(e.dir, ".git", "HEAD"), "ref\n")
	got, err := e.lib.Manuals()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"insurance-ja", "kasai-hoken", "nodejs-en", "ops-en", "ops-handbook"}; !slices.Equal(got, want) {
		t.Errorf("Manuals() = %q, want %q", got, want)
	}
}

func TestFiles(t *testing.T) {
	skipSymlinks(t)
	e := newEnv(t)
	// Things Files must leave out: links to files and folders, inside or
	// out, hidden names, other extensions.
	mustSymlink(t, filepath.Join(e.outside, "secret.md"), filepath.Join(e.dir, "ops-en", "runbooks", "secret.md"))
	mustSymlink(t, filepath.Join(e.outside, "docs"), filepath.Join(e.dir, "ops-en", "runbooks", "docs"))
	mustSymlink(t, "failover.md", filepath.Join(e.dir, "ops-en", "runbooks", "db", "alias.md"))
	mustSymlink(t, "db", filepath.Join(e.dir, "ops-en", "runbooks", "db2"))
	mustWrite(t, filepath.Join(e.dir, "ops-en", ".drafts", "wip.md"), "# wip\n")
	mustWrite(t, filepath.Join(e.dir, "ops-en", "runbooks", ".hidden.md"), "# hidden\n")
	mustWrite(t, filepath.Join(e.dir, "ops-en", "runbooks", "db", "UPPER.MD"), "# Upper\n")
	mustSymlink(t, e.outside, filepath.Join(e.dir, "linked"))

	tests := []struct {
		id   string
		want []string
		code apperr.Code
	}{
		{id: "insurance-ja", want: []string{"faq/よくある質問.md", "約款/普通保険約款.md"}},
		{id: "ops-en", want: []string{
			"README.md",
			"alerts/thresholds.json",
			"checklists/oncall-handoff.md",
			"runbooks/db/UPPER.MD",
			"runbooks/db/failover.md",
		}},
		{id: "nope", code: apperr.NotFound},
		{id: "linked", code: apperr.PathOutsideManuals},
		{id: "..", code: apperr.PathOutsideManuals},
		{id: "../outside", code: apperr.PathOutsideManuals},
		{id: "ops-en/runbooks", code: apperr.PathOutsideManuals},
		{id: "/etc", code: apperr.PathOutsideManuals},
		{id: ".", code: apperr.InvalidArgument},
		{id: "", code: apperr.InvalidArgument},
		{id: "ops\x00en", code: apperr.InvalidArgument},
		{id: "stray.md", code: apperr.NotFound},
	}
	mustWrite(t, filepath.Join(e.dir, "stray.md"), "# not a manual\n")
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			got, err := e.lib.Files(tt.id)
			if !checkCode(t, err, tt.code) {
				return
			}
			if err == nil && !slices.Equal(got, tt.want) {
				t.Errorf("Files(%q) =\n%q\nwant\n%q", tt.id, got, tt.want)
			}
		})
	}
}

func TestUnknownManualHint(t *testing.T) {
	_, err := openFixtures(t).Files("insurance")
	ae, ok := errors.AsType[*apperr.Error](err)
	if !ok || ae.Code != apperr.NotFound || !strings.Contains(ae.Hint, "insurance-ja, kasai-hoken, nodejs-en, ops-en, ops-handbook") {
		t.Errorf("Files(unknown) = %v; want not_found with the ids in the hint", err)
	}
}

func TestRead(t *testing.T) {
	l := openFixtures(t)
	tests := []struct {
		name, id, rel string
		code          apperr.Code
	}{
		{name: "markdown", id: "ops-en", rel: "runbooks/db/failover.md"},
		{name: "json", id: "ops-en", rel: "alerts/thresholds.json"},
		{name: "japanese path", id: "insurance-ja", rel: "約款/普通保険約款.md"},
		{name: "dot segments and double slash", id: "ops-en", rel: "./runbooks//db/./failover.md"},
		{name: "backslash separators", id: "ops-en", rel: `runbooks\db\failover.md`},
		{name: "missing file", id: "ops-en", rel: "runbooks/db/missing.md", code: apperr.NotFound},
		{name: "file as folder", id: "ops-en", rel: "README.md/x.md", code: apperr.NotFound},
		{name: "txt", id: "ops-en", rel: "runbooks/notes.txt", code: apperr.InvalidArgument},
		{name: "no extension", id: "ops-en", rel: "runbooks", code: apperr.InvalidArgument},
		{name: "folder named .md", id: "ops-en", rel: "runbooks/db.md", code: apperr.NotFound},
		{name: "empty", id: "ops-en", rel: "", code: apperr.InvalidArgument},
		{name: "dot", id: "ops-en", rel: ".", code: apperr.InvalidArgument},
		{name: "unknown manual", id: "ops", rel: "README.md", code: apperr.NotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := l.Read(tt.id, tt.rel)
			if !checkCode(t, err, tt.code) || err != nil {
				return
			}
			want, err := os.ReadFile(filepath.Join(fixturesDir, tt.id, filepath.FromSlash(strings.ReplaceAll(tt.rel, `\`, "/"))))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("Read returned %d bytes, want the file's %d", len(got), len(want))
			}
		})
	}
}

func TestReadFolderNamedMD(t *testing.T) {
	e := newEnv(t)
	if err := os.Mkdir(filepath.Join(e.dir, "ops-en", "dir.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := e.lib.Read("ops-en", "dir.md")
	checkCode(t, err, apperr.InvalidArgument)
}

func TestReadTooLarge(t *testing.T) {
	l := openFixtures(t)
	l.maxRead = 100
	_, err := l.Read("ops-en", "runbooks/db/failover.md")
	checkCode(t, err, apperr.FileTooLarge)
	if _, err := l.Nodes("ops-en", "runbooks/db/failover.md"); apperr.CodeOf(err) != apperr.FileTooLarge {
		t.Errorf("Nodes over the cap: %v, want file_too_large", err)
	}
}

// TestAttacks runs every escape attempt through every reading method and
// checks the code and that nothing from outside comes back.
func TestAttacks(t *testing.T) {
	skipSymlinks(t)
	e := newEnv(t)
	ops := filepath.Join(e.dir, "ops-en")
	mustSymlink(t, e.outside, filepath.Join(e.dir, "linked"))
	mustSymlink(t, "../../outside", filepath.Join(e.dir, "rel-linked"))
	mustSymlink(t, filepath.Join(e.outside, "secret.md"), filepath.Join(ops, "abs-link.md"))
	mustSymlink(t, "../../outside/secret.md", filepath.Join(ops, "rel-link.md"))
	mustSymlink(t, "../../outside/secret.json", filepath.Join(ops, "link.json"))
	mustSymlink(t, filepath.Join(e.outside, "docs"), filepath.Join(ops, "docs"))
	mustSymlink(t, "README.md", filepath.Join(ops, "inside-link.md"))
	mustSymlink(t, "runbooks", filepath.Join(ops, "rb"))
	mustSymlink(t, filepath.Join(e.outside, "gone.md"), filepath.Join(ops, "dangling.md"))

	tests := []struct {
		name, id, rel string
		code          apperr.Code
	}{
		{name: "dotdot", id: "ops-en", rel: "../x.md", code: apperr.PathOutsideManuals},
		{name: "dotdot to outside", id: "ops-en", rel: "../../outside/secret.md", code: apperr.PathOutsideManuals},
		{name: "dotdot staying inside", id: "ops-en", rel: "runbooks/../README.md", code: apperr.PathOutsideManuals},
		{name: "dotdot backslash", id: "ops-en", rel: `runbooks\..\..\x.md`, code: apperr.PathOutsideManuals},
		{name: "absolute", id: "ops-en", rel: "/etc/passwd", code: apperr.PathOutsideManuals},
		{name: "absolute md", id: "ops-en", rel: filepath.Join(e.outside, "secret.md"), code: apperr.PathOutsideManuals},
		{name: "backslash absolute", id: "ops-en", rel: `\\server\share\x.md`, code: apperr.PathOutsideManuals},
		{name: "drive", id: "ops-en", rel: `C:\x.md`, code: apperr.PathOutsideManuals},
		{name: "nul", id: "ops-en", rel: "README.md\x00.txt", code: apperr.InvalidArgument},
		{name: "nul then dotdot", id: "ops-en", rel: "x.md\x00/../../../outside/secret.md", code: apperr.InvalidArgument},
		{name: "newline", id: "ops-en", rel: "READ\nME.md", code: apperr.InvalidArgument},
		{name: "invalid utf8", id: "ops-en", rel: "bad\xff.md", code: apperr.InvalidArgument},
		{name: "long", id: "ops-en", rel: strings.Repeat("a/", 600) + "x.md", code: apperr.InvalidArgument},
		{name: "manual id dotdot", id: "..", rel: "outside/secret.md", code: apperr.PathOutsideManuals},
		{name: "manual id with slash", id: "ops-en/runbooks", rel: "db/failover.md", code: apperr.PathOutsideManuals},
		{name: "manual id absolute", id: "/tmp", rel: "x.md", code: apperr.PathOutsideManuals},
		{name: "manual id nul", id: "ops-en\x00", rel: "README.md", code: apperr.InvalidArgument},
		{name: "symlinked manual folder", id: "linked", rel: "secret.md", code: apperr.PathOutsideManuals},
		{name: "relative symlinked manual folder", id: "rel-linked", rel: "secret.md", code: apperr.PathOutsideManuals},
		{name: "symlink to outside file", id: "ops-en", rel: "abs-link.md", code: apperr.PathOutsideManuals},
		{name: "relative symlink to outside file", id: "ops-en", rel: "rel-link.md", code: apperr.PathOutsideManuals},
		{name: "symlink to outside json", id: "ops-en", rel: "link.json", code: apperr.PathOutsideManuals},
		{name: "symlinked folder to outside", id: "ops-en", rel: "docs/x.md", code: apperr.PathOutsideManuals},
		{name: "symlink inside", id: "ops-en", rel: "inside-link.md", code: apperr.PathOutsideManuals},
		{name: "symlinked folder inside", id: "ops-en", rel: "rb/db/failover.md", code: apperr.PathOutsideManuals},
		{name: "dangling symlink", id: "ops-en", rel: "dangling.md", code: apperr.PathOutsideManuals},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := map[string]func() (string, error){
				"read": func() (string, error) { b, err := e.lib.Read(tt.id, tt.rel); return string(b), err },
				"nodes": func() (string, error) {
					ns, err := e.lib.Nodes(tt.id, tt.rel)
					return strings.Repeat("node ", len(ns)), err
				},
				"section": func() (string, error) {
					s, _, err := e.lib.Section(tt.id, tt.rel, "top-secret-outside-the-manuals-folder")
					return s, err
				},
				"lines": func() (string, error) { return e.lib.Lines(tt.id, tt.rel, 1, 1) },
			}
			for op, call := range calls {
				got, err := call()
				if !checkCode(t, err, tt.code) {
					t.Errorf("  in %s(%q, %q)", op, tt.id, tt.rel)
				}
				if got != "" || (err != nil && strings.Contains(err.Error(), secret)) {
					t.Errorf("%s(%q, %q) returned data %q / error %v", op, tt.id, tt.rel, got, err)
				}
			}
		})
	}
}

// TestConcurrent exercises one Library from many goroutines (run with -race).
func TestConcurrent(t *testing.T) {
	l := openFixtures(t)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 10 {
				if _, _, err := l.Section("insurance-ja", "約款/普通保険約款.md", "保険金の支払い/支払いの対象外"); err != nil {
					t.Error(err)
					return
				}
				if _, err := l.Files("ops-en"); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// The first listing of a manual reads every file; a cancelled one stops
// and says why.
func TestListingStopsWhenCancelled(t *testing.T) {
	lib := openFixtures(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if files, _, err := lib.Listing(ctx, "ops-en"); !errors.Is(err, context.Canceled) || files != nil {
		t.Errorf("files %v, err %v", files, err)
	}
	if files, _, err := lib.Listing(context.Background(), "ops-en"); err != nil || len(files) == 0 {
		t.Errorf("files %v, err %v", files, err)
	}
}
