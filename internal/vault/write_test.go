package vault

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/apperr"
)

func TestOpenIsLazy(t *testing.T) {
	e := newEnv(t, Options{})
	if got, err := e.v.List("", true); err != nil || len(got) != 0 {
		t.Fatalf("List of a vault not yet created = %v, %v", got, err)
	}
	_, err := e.v.ReadFile("notes/a.md")
	wantCode(t, err, apperr.NotFound)
	if _, err := os.Stat(e.dir); !os.IsNotExist(err) {
		t.Fatalf("reads created the vault folder: %v", err)
	}
	if _, err := e.v.Create("notes/a/b.md", []byte("x")); err != nil {
		t.Fatal(err)
	}
	for _, d := range topFolders {
		if fi, err := os.Stat(filepath.Join(e.dir, d)); err != nil || !fi.IsDir() {
			t.Errorf("%s/ not created on first write: %v", d, err)
		}
	}
}

func TestOpenRefusesFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "f")
	mustWrite(t, f, "x")
	_, err := Open(f, Options{})
	wantCode(t, err, apperr.InvalidArgument)
}

func TestClosed(t *testing.T) {
	e := newEnv(t, Options{})
	e.v.Close()
	_, err := e.v.Create("notes/a.md", nil)
	wantCode(t, err, apperr.Unavailable)
}

func TestWrites(t *testing.T) {
	tests := []struct {
		name string
		do   func(v *Vault) (Result, error)
		want Result
		file string // content of want.Path afterwards
	}{
		{
			name: "create with parents",
			do:   func(v *Vault) (Result, error) { return v.Create("notes/deep/er/a.md", []byte("one\ntwo")) },
			want: Result{Path: "notes/deep/er/a.md", Bytes: 7, Lines: 2, Mode: "create"},
			file: "one\ntwo",
		},
		{
			name: "create empty",
			do:   func(v *Vault) (Result, error) { return v.Create("drafts/empty", nil) },
			want: Result{Path: "drafts/empty", Bytes: 0, Lines: 0, Mode: "create"},
		},
		{
			name: "create artifact upper extension",
			do:   func(v *Vault) (Result, error) { return v.Create("Artifacts/R.MD", []byte("# r\n")) },
			want: Result{Path: "artifacts/R.MD", Bytes: 4, Lines: 1, Mode: "create"},
			file: "# r\n",
		},
		{
			name: "overwrite",
			do:   func(v *Vault) (Result, error) { return v.Overwrite("notes/base.md", []byte("new\n")) },
			want: Result{Path: "notes/base.md", Bytes: 4, Lines: 1, Mode: "overwrite"},
			file: "new\n",
		},
		{
			name: "append",
			do:   func(v *Vault) (Result, error) { return v.Append("notes/base.md", []byte("three")) },
			want: Result{Path: "notes/base.md", Bytes: 22, Lines: 4, Mode: "append"},
			file: "alpha\nbeta\nalpha\nthree",
		},
		{
			name: "replace",
			do:   func(v *Vault) (Result, error) { return v.Replace("notes/base.md", "alpha", "gamma", 2) },
			want: Result{Path: "notes/base.md", Bytes: 17, Lines: 3, Mode: "replace"},
			file: "gamma\nbeta\ngamma\n",
		},
		{
			name: "replace unique",
			do:   func(v *Vault) (Result, error) { return v.Replace("notes/base.md", "beta", "", 1) },
			want: Result{Path: "notes/base.md", Bytes: 13, Lines: 3, Mode: "replace"},
			file: "alpha\n\nalpha\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, Options{})
			if _, err := e.v.Create("notes/base.md", []byte("alpha\nbeta\nalpha\n")); err != nil {
				t.Fatal(err)
			}
			got, err := tt.do(e.v)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("result = %+v, want %+v", got, tt.want)
			}
			b, err := e.v.ReadFile(got.Path)
			if err != nil || string(b) != tt.file {
				t.Errorf("content = %q, %v; want %q", b, err, tt.file)
			}
			if tmp := tempFiles(t, e.dir); len(tmp) > 0 {
				t.Errorf("temp files left: %v", tmp)
			}
		})
	}
}

func TestWriteErrors(t *testing.T) {
	tests := []struct {
		name string
		do   func(v *Vault) error
		code apperr.Code
		msg  string // the message must contain it
	}{
		{"create taken", func(v *Vault) error { _, err := v.Create("notes/base.md", nil); return err }, apperr.AlreadyExists, `"notes/base.md"`},
		{"create taken case-folded folder", func(v *Vault) error { _, err := v.Create("NOTES/base.md", nil); return err }, apperr.AlreadyExists, `"NOTES/base.md"`},
		{"create over folder", func(v *Vault) error { _, err := v.Create("notes/sub", nil); return err }, apperr.IsADirectory, ""},
		{"overwrite missing", func(v *Vault) error { _, err := v.Overwrite("notes/nope.md", nil); return err }, apperr.NotFound, `"notes/nope.md"`},
		{"overwrite folder", func(v *Vault) error { _, err := v.Overwrite("notes/sub", nil); return err }, apperr.IsADirectory, ""},
		{"append missing", func(v *Vault) error { _, err := v.Append("notes/nope.md", nil); return err }, apperr.NotFound, ""},
		{"append folder", func(v *Vault) error { _, err := v.Append("notes", nil); return err }, apperr.IsADirectory, ""},
		{"read folder", func(v *Vault) error { _, err := v.ReadFile("notes/sub"); return err }, apperr.IsADirectory, ""},
		{"replace none", func(v *Vault) error { _, err := v.Replace("notes/base.md", "zeta", "x", 1); return err }, apperr.MatchCountMismatch, "occurs 0 times, expected 1"},
		{"replace too many", func(v *Vault) error { _, err := v.Replace("notes/base.md", "alpha", "x", 1); return err }, apperr.MatchCountMismatch, "occurs 2 times, expected 1"},
		{"replace too few", func(v *Vault) error { _, err := v.Replace("notes/base.md", "beta", "x", 3); return err }, apperr.MatchCountMismatch, "occurs 1 times, expected 3"},
		{"replace empty old", func(v *Vault) error { _, err := v.Replace("notes/base.md", "", "x", 1); return err }, apperr.InvalidArgument, ""},
		{"replace expected zero", func(v *Vault) error { _, err := v.Replace("notes/base.md", "zeta", "x", 0); return err }, apperr.InvalidArgument, ""},
		{"replace missing", func(v *Vault) error { _, err := v.Replace("notes/nope.md", "a", "x", 1); return err }, apperr.NotFound, ""},
		{"list file", func(v *Vault) error { _, err := v.List("notes/base.md", false); return err }, apperr.InvalidPath, ""},
		{"list missing", func(v *Vault) error { _, err := v.List("nope", false); return err }, apperr.NotFound, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, Options{})
			if _, err := e.v.Create("notes/base.md", []byte("alpha\nbeta\nalpha\n")); err != nil {
				t.Fatal(err)
			}
			if _, err := e.v.Create("notes/sub/x.md", nil); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, e.base)
			err := tt.do(e.v)
			wantCode(t, err, tt.code)
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not contain %q", err, tt.msg)
			}
			if d := diffSnapshots(before, snapshot(t, e.base)); len(d) > 0 {
				t.Errorf("a refused write changed the file system: %v", d)
			}
		})
	}
}

func TestDaily(t *testing.T) {
	e := newEnv(t, Options{})
	p := e.v.DailyPath()
	if p != "artifacts/daily/2026-11-22.md" {
		t.Fatalf("DailyPath = %q", p)
	}
	if _, err := e.v.Create(p, []byte("- 09:30 started\n")); err != nil {
		t.Fatal(err)
	}
	res, err := e.v.Append("Artifacts/Daily/2026-11-22.md", []byte("- 10:00 more\n"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Path != p || res.Lines != 2 {
		t.Errorf("append result = %+v", res)
	}
	refused := []struct {
		name string
		do   func() error
		code apperr.Code
	}{
		{"overwrite", func() error { _, err := e.v.Overwrite(p, []byte("gone")); return err }, apperr.AppendOnly},
		{"replace", func() error { _, err := e.v.Replace(p, "more", "less", 1); return err }, apperr.AppendOnly},
		{"create again", func() error { _, err := e.v.Create(p, []byte("again")); return err }, apperr.AlreadyExists},
		{"create again upper", func() error { _, err := e.v.Create("ARTIFACTS/DAILY/2026-11-22.md", nil); return err }, apperr.AlreadyExists},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			wantCode(t, tt.do(), tt.code)
		})
	}
	b, err := e.v.ReadFile(p)
	if err != nil || string(b) != "- 09:30 started\n- 10:00 more\n" {
		t.Errorf("daily = %q, %v", b, err)
	}
	// Any real date may be created, not just today's.
	if _, err := e.v.Create("artifacts/daily/2024-02-29.md", nil); err != nil {
		t.Error(err)
	}
}

// TestConcurrentAppends: 8 writers × 200 appends to one file, through
// differently cased spellings of it, lose and duplicate nothing.
func TestConcurrentAppends(t *testing.T) {
	e := newEnv(t, Options{})
	if _, err := e.v.Create("notes/log.md", nil); err != nil {
		t.Fatal(err)
	}
	const writers, appends = 8, 200
	spellings := []string{"notes/log.md", "Notes/log.md", "./notes//log.md", "NOTES/./log.md"}
	var wg sync.WaitGroup
	errs := make(chan error, writers*appends)
	for w := range writers {
		wg.Go(func() {
			for i := range appends {
				if _, err := e.v.Append(spellings[w%len(spellings)], fmt.Appendf(nil, "w%d-%d\n", w, i)); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	b, err := e.v.ReadFile("notes/log.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		seen[line]++
	}
	for w := range writers {
		for i := range appends {
			if n := seen[fmt.Sprintf("w%d-%d", w, i)]; n != 1 {
				t.Errorf("line w%d-%d present %d times", w, i, n)
			}
		}
	}
	if len(seen) != writers*appends {
		t.Errorf("%d distinct lines, want %d", len(seen), writers*appends)
	}
	if len(e.v.locks) != 0 {
		t.Errorf("%d file locks left in the map", len(e.v.locks))
	}
}

// TestOverwriteDoesNotLoseAppends: Overwrite takes the file lock, so an
// append either lands before it (and is replaced, as asked) or after it.
func TestOverwriteDoesNotLoseAppends(t *testing.T) {
	e := newEnv(t, Options{})
	if _, err := e.v.Create("notes/x.md", nil); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for range 100 {
			if _, err := e.v.Overwrite("notes/x.md", []byte("reset\n")); err != nil {
				t.Error(err)
			}
		}
	})
	wg.Go(func() {
		for range 100 {
			if _, err := e.v.Append("notes/x.md", []byte("line\n")); err != nil {
				t.Error(err)
			}
		}
	})
	wg.Wait()
	b, _ := e.v.ReadFile("notes/x.md")
	// Whatever the interleaving: one "reset" line, then whole "line"s.
	if !strings.HasPrefix(string(b), "reset\n") && !strings.HasPrefix(string(b), "line\n") {
		t.Errorf("content = %q", b)
	}
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if l != "reset" && l != "line" {
			t.Fatalf("torn line %q in %q", l, b)
		}
	}
}

// TestCrashBeforeCommit: a failure after the temp file is written and before
// it replaces the target leaves the old content and no temp file.
func TestCrashBeforeCommit(t *testing.T) {
	crash := errors.New("simulated crash")
	tests := []struct {
		name string
		do   func(v *Vault) error
		want string // content of notes/x.md afterwards; "-" for no file
		path string
	}{
		{"overwrite", func(v *Vault) error { _, err := v.Overwrite("notes/x.md", []byte("NEW")); return err }, "old\n", "notes/x.md"},
		{"replace", func(v *Vault) error { _, err := v.Replace("notes/x.md", "old", "NEW", 1); return err }, "old\n", "notes/x.md"},
		{"create", func(v *Vault) error { _, err := v.Create("notes/y.md", []byte("NEW")); return err }, "-", "notes/y.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, Options{})
			if _, err := e.v.Create("notes/x.md", []byte("old\n")); err != nil {
				t.Fatal(err)
			}
			var sawTemp bool
			e.v.beforeCommit = func(tmp string) error {
				b, err := os.ReadFile(filepath.Join(e.dir, filepath.FromSlash(tmp)))
				sawTemp = err == nil && strings.Contains(string(b), "NEW")
				return crash
			}
			err := tt.do(e.v)
			if !errors.Is(err, crash) {
				t.Fatalf("err = %v, want the simulated crash", err)
			}
			if !sawTemp {
				t.Error("the hook did not see the new content in the temp file")
			}
			b, err := os.ReadFile(filepath.Join(e.dir, filepath.FromSlash(tt.path)))
			switch {
			case tt.want == "-" && !os.IsNotExist(err):
				t.Errorf("%s exists after a failed create: %q %v", tt.path, b, err)
			case tt.want != "-" && string(b) != tt.want:
				t.Errorf("%s = %q, %v; want %q", tt.path, b, err, tt.want)
			}
			if tmp := tempFiles(t, e.dir); len(tmp) > 0 {
				t.Errorf("temp files left: %v", tmp)
			}
		})
	}
}

// TestReadDuringOverwrite: a reader racing overwrites sees one whole
// version or the other, never a mix or a short read.
func TestReadDuringOverwrite(t *testing.T) {
	e := newEnv(t, Options{})
	a := bytes.Repeat([]byte("A"), 64<<10)
	b := bytes.Repeat([]byte("B"), 100<<10)
	if _, err := e.v.Create("notes/x.md", a); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(done)
		for i := range 100 {
			data := a
			if i%2 == 0 {
				data = b
			}
			if _, err := e.v.Overwrite("notes/x.md", data); err != nil {
				t.Error(err)
				return
			}
		}
	})
	reads := make([]int, 4)
	for r := range reads {
		wg.Go(func() {
			for {
				got, err := e.v.ReadFile("notes/x.md")
				if err != nil {
					t.Error(err)
					return
				}
				if !bytes.Equal(got, a) && !bytes.Equal(got, b) {
					t.Errorf("read %d bytes that are neither version", len(got))
					return
				}
				reads[r]++
				select {
				case <-done:
					return
				default:
				}
			}
		})
	}
	wg.Wait()
	t.Logf("reads per reader: %v", reads)
}

func TestSizeCaps(t *testing.T) {
	tests := []struct {
		name string
		do   func(v *Vault) error
		hint string // the hint must name the limit
	}{
		{"create over write cap", func(v *Vault) error { _, err := v.Create("notes/big.md", make([]byte, 51)); return err }, "50 bytes"},
		{"overwrite over write cap", func(v *Vault) error { _, err := v.Overwrite("notes/x.md", make([]byte, 51)); return err }, "50 bytes"},
		{"append over write cap", func(v *Vault) error { _, err := v.Append("notes/x.md", make([]byte, 51)); return err }, "50 bytes"},
		{"append past read cap", func(v *Vault) error { _, err := v.Append("notes/x.md", make([]byte, 50)); return err }, "100 bytes"},
		{"replace past read cap", func(v *Vault) error { _, err := v.Replace("notes/x.md", "x", "xxx", 50); return err }, "100 bytes"},
		{"read over read cap", func(v *Vault) error { _, err := v.ReadFile("notes/huge.md"); return err }, "100 bytes"},
		{"append to over-cap file", func(v *Vault) error { _, err := v.Append("notes/huge.md", []byte("x")); return err }, "100 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, Options{MaxReadBytes: 100, MaxWriteBytes: 50})
			if _, err := e.v.Create("notes/x.md", bytes.Repeat([]byte("x"), 49)); err != nil {
				t.Fatal(err)
			}
			if _, err := e.v.Append("notes/x.md", bytes.Repeat([]byte("a"), 10)); err != nil { // 59 bytes
				t.Fatal(err)
			}
			mustWrite(t, filepath.Join(e.dir, "notes", "huge.md"), strings.Repeat("h", 101))
			if _, err := e.v.Overwrite("notes/x.md", bytes.Repeat([]byte("x"), 50)); err != nil { // at the cap is fine
				t.Fatal(err)
			}
			if _, err := e.v.Append("notes/x.md", []byte("a")); err != nil { // 51 bytes, one "a"
				t.Fatal(err)
			}
			err := tt.do(e.v)
			wantCode(t, err, apperr.FileTooLarge)
			if e, _ := errors.AsType[*apperr.Error](err); !strings.Contains(e.Hint, tt.hint) {
				t.Errorf("hint %q does not name the limit %q", e.Hint, tt.hint)
			}
		})
	}
}

// TestOpLog: one line per write with op, path, bytes and mode, and never
// the content.
func TestOpLog(t *testing.T) {
	var buf bytes.Buffer
	e := newEnv(t, Options{Logger: slog.New(slog.NewJSONHandler(&buf, nil))})
	const secret = "SECRET-CONTENT-42"
	steps := []func() error{
		func() error { _, err := e.v.Create("notes/a.md", []byte(secret+"\n")); return err },
		func() error { _, err := e.v.Append("notes/a.md", []byte(secret+"\n")); return err },
		func() error { _, err := e.v.Replace("notes/a.md", secret, "x", 2); return err },
		func() error { _, err := e.v.Overwrite("notes/a.md", []byte(secret)); return err },
		func() error { _, err := e.v.Create("notes/a.md", []byte(secret)); return err }, // refused
	}
	for _, s := range steps {
		s()
	}
	log := buf.String()
	if strings.Contains(log, secret) {
		t.Fatalf("the op log contains file content:\n%s", log)
	}
	for _, want := range []string{
		`"op":"create","path":"notes/a.md","bytes":18,"mode":"exclusive-link"`,
		`"op":"append","path":"notes/a.md","bytes":36,"mode":"append"`,
		`"op":"replace","path":"notes/a.md","bytes":4,"mode":"atomic-rename"`,
		`"op":"overwrite","path":"notes/a.md","bytes":17,"mode":"atomic-rename"`,
		`"level":"WARN","msg":"vault write refused","op":"create","path":"\"notes/a.md\"","code":"already_exists"`,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("op log lacks %s:\n%s", want, log)
		}
	}
}

// TestOverwriteKeepsPermissions: the temp file takes the old file's bits.
func TestOverwriteKeepsPermissions(t *testing.T) {
	if skipSymlinks() { // Windows has no Unix permission bits
		t.Skip("no permission bits")
	}
	e := newEnv(t, Options{})
	if _, err := e.v.Create("notes/x.md", []byte("a")); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(e.dir, "notes", "x.md")
	if err := os.Chmod(name, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := e.v.Overwrite("notes/x.md", []byte("b")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(name); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, %v; want 0600", fi.Mode(), err)
	}
}

// TestNFCSpellingsAreOneFile: "café" composed (NFC) and decomposed (NFD)
// look the same, so they name one file: create refuses the second
// spelling, and every operation reaches the one file through either.
func TestNFCSpellingsAreOneFile(t *testing.T) {
	const nfc, nfd = "notes/caf\u00e9.md", "notes/cafe\u0301.md"
	tests := []struct {
		name        string
		first, then string
	}{
		{"composed first", nfc, nfd},
		{"decomposed first", nfd, nfc},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, Options{})
			res, err := e.v.Create(tt.first, []byte("one\n"))
			if err != nil {
				t.Fatal(err)
			}
			if res.Path != nfc {
				t.Errorf("created %q, want the composed %q", res.Path, nfc)
			}
			_, err = e.v.Create(tt.then, []byte("two\n"))
			wantCode(t, err, apperr.AlreadyExists)
			if _, err := e.v.Append(tt.then, []byte("three\n")); err != nil {
				t.Fatal(err)
			}
			if _, err := e.v.Replace(tt.then, "one", "ONE", 1); err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{nfc, nfd} {
				b, err := e.v.ReadFile(p)
				if err != nil || string(b) != "ONE\nthree\n" {
					t.Errorf("ReadFile(%q) = %q, %v", p, b, err)
				}
			}
			entries, err := os.ReadDir(filepath.Join(e.dir, "notes"))
			if err != nil || len(entries) != 1 || entries[0].Name() != "caf\u00e9.md" {
				t.Errorf("notes/ on disk holds %v, %v; want the one composed name", entries, err)
			}
		})
	}
}

// TestListNonNFCNames: a name the vault did not write, decomposed on disk
// (copied from macOS, say), is listed by its composed path when that path
// reaches the file (a normalisation-insensitive file system), and left out
// when it does not, since the model could not open it.
func TestListNonNFCNames(t *testing.T) {
	e := newEnv(t, Options{})
	if _, err := e.v.Create("notes/plain.md", nil); err != nil {
		t.Fatal(err)
	}
	// Made on a Mac: decomposed names. They are listed by their NFC path,
	// which opens them; a name with a twin in the other form is left out.
	mustWrite(t, filepath.Join(e.dir, "notes", "cafe\u0301.md"), "x")
	mustWrite(t, filepath.Join(e.dir, "notes", "Cafe\u0301", "y.md"), "y")
	mustWrite(t, filepath.Join(e.dir, "notes", "twin\u00e9.md"), "composed")
	mustWrite(t, filepath.Join(e.dir, "notes", "twine\u0301.md"), "decomposed")
	got, err := e.v.List("notes", true)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, in := range got {
		paths = append(paths, in.Path)
		if _, err := e.v.Stat(in.Path); err != nil {
			t.Errorf("List reported %q, which Stat cannot reach: %v", in.Path, err)
		}
		if c, err := Clean(in.Path); err != nil || c != in.Path {
			t.Errorf("List reported %q, which is not canonical: %q %v", in.Path, c, err)
		}
	}
	want := []string{"notes/Caf\u00e9", "notes/Caf\u00e9/y.md", "notes/caf\u00e9.md", "notes/plain.md"}
	if _, err := os.Stat(filepath.Join(e.dir, "notes", "twine\u0301.md")); err == nil && !sameName(filepath.Join(e.dir, "notes"), "twin\u00e9.md", "twine\u0301.md") {
		// A file system that keeps both forms: the twins are a conflict.
		if _, err := e.v.ReadFile("notes/twin\u00e9.md"); apperr.CodeOf(err) != apperr.NameConflict {
			t.Errorf("reading a name with a twin: %v, want name_conflict", err)
		}
	}
	if strings.Join(paths, "|") != strings.Join(want, "|") {
		t.Errorf("List = %q, want %q", paths, want)
	}
}

// sameName reports whether two names in dir are one file (a file system
// that ignores the Unicode form).
func sameName(dir, a, b string) bool {
	fa, errA := os.Stat(filepath.Join(dir, a))
	fb, errB := os.Stat(filepath.Join(dir, b))
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// A file a Mac made, named decomposed, is read and written through its
// composed name, and a write goes to it rather than making a twin.
func TestDecomposedNamesOnDisk(t *testing.T) {
	e := newEnv(t, Options{})
	nfd := filepath.Join(e.dir, "notes", "\u304b\u3099\u3093.md") // が (か + ゛) ん
	mustWrite(t, nfd, "first\n")
	if b, err := e.v.ReadFile("notes/\u304c\u3093.md"); err != nil || string(b) != "first\n" {
		t.Fatalf("read by the composed name: %q, %v", b, err)
	}
	if _, err := e.v.Append("notes/\u304c\u3093.md", []byte("second\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := e.v.Create("notes/\u304c\u3093.md", []byte("twin")); apperr.CodeOf(err) != apperr.AlreadyExists {
		t.Errorf("create over a decomposed name: %v, want already_exists", err)
	}
	if _, err := e.v.Replace("notes/\u304c\u3093.md", "first", "1st", 1); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(nfd)
	if err != nil || string(b) != "1st\nsecond\n" {
		t.Errorf("the decomposed file holds %q, %v", b, err)
	}
	entries, _ := os.ReadDir(filepath.Join(e.dir, "notes"))
	if len(entries) != 1 {
		var names []string
		for _, en := range entries {
			names = append(names, en.Name())
		}
		t.Errorf("notes/ holds %q: a write made a twin", names)
	}
}

// TestOpenSweepsStaleTempFiles: a process killed between writing a temp
// file and renaming it leaves the temp file behind, hidden from List. Open
// removes such files once they are old enough that no live process can be
// writing them, and leaves everything else alone.
func TestOpenSweepsStaleTempFiles(t *testing.T) {
	tests := []struct {
		name string
		path string // under the vault
		age  time.Duration
		dir  bool // a folder, not a file
		kept bool
	}{
		{name: "stale", path: "notes/" + tempPrefix + "0a1b", age: time.Hour},
		{name: "stale deep", path: "drafts/a/b/" + tempPrefix + "2c3d", age: 24 * time.Hour},
		{name: "stale at the root", path: tempPrefix + "4e5f", age: time.Hour},
		{name: "just past the bound", path: "notes/" + tempPrefix + "6a7b", age: staleTempAge + time.Minute},
		{name: "fresh: a write in flight elsewhere", path: "notes/" + tempPrefix + "8c9d", kept: true},
		{name: "within the bound", path: "notes/" + tempPrefix + "aabb", age: staleTempAge - time.Minute, kept: true},
		{name: "from the future", path: "notes/" + tempPrefix + "ccdd", age: -time.Hour, kept: true},
		{name: "a folder so named", path: "notes/" + tempPrefix + "eeff", age: time.Hour, dir: true, kept: true},
		{name: "an old note", path: "notes/old.md", age: time.Hour, kept: true},
		{name: "the lock file", path: ".system/" + lockName, age: time.Hour, kept: true},
	}
	e := newEnv(t, Options{})
	if _, err := e.v.Create("notes/x.md", []byte("x")); err != nil {
		t.Fatal(err)
	}
	e.v.Close()
	now := time.Now()
	for _, tt := range tests {
		name := filepath.Join(e.dir, filepath.FromSlash(tt.path))
		if tt.dir {
			if err := os.MkdirAll(name, 0o755); err != nil {
				t.Fatal(err)
			}
		} else {
			mustWrite(t, name, "half a write")
		}
		if err := os.Chtimes(name, now.Add(-tt.age), now.Add(-tt.age)); err != nil {
			t.Fatal(err)
		}
	}
	v, err := Open(e.dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := os.Lstat(filepath.Join(e.dir, filepath.FromSlash(tt.path)))
			switch {
			case tt.kept && err != nil:
				t.Errorf("%s was removed: %v", tt.path, err)
			case !tt.kept && !os.IsNotExist(err):
				t.Errorf("%s is still there: %v", tt.path, err)
			}
		})
	}
	if b, err := v.ReadFile("notes/x.md"); err != nil || string(b) != "x" {
		t.Errorf("notes/x.md = %q, %v", b, err)
	}
}

// TestSystemWriter: langspec's own state is written through System, which
// writes only under .system/; the Vault's own writes, the model's, refuse
// .system/ (see the attacks).
func TestSystemWriter(t *testing.T) {
	e := newEnv(t, Options{})
	sys := e.v.System()
	steps := []struct {
		name string
		do   func() (Result, error)
		code apperr.Code // "" for success
	}{
		{"create", func() (Result, error) { return sys.Create(".system/coverage.json", []byte("{}\n")) }, ""},
		{"create case-folded", func() (Result, error) { return sys.Create(".SYSTEM/stats.jsonl", nil) }, ""},
		{"append", func() (Result, error) { return sys.Append(".system/stats.jsonl", []byte("a\n")) }, ""},
		{"replace", func() (Result, error) { return sys.Replace(".system/coverage.json", "{}", `{"a":1}`, 1) }, ""},
		{"overwrite", func() (Result, error) { return sys.Overwrite(".system/coverage.json", []byte("{}\n")) }, ""},
		{"not under .system", func() (Result, error) { return sys.Create("notes/x.md", nil) }, apperr.Internal},
		{"the folder itself", func() (Result, error) { return sys.Create(".system", nil) }, apperr.IsADirectory},
		{"still confined", func() (Result, error) { return sys.Create(".system/../x", nil) }, apperr.PathOutsideVault},
		{"the model's create", func() (Result, error) { return e.v.Create(".system/y.json", nil) }, apperr.InvalidPath},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			_, err := st.do()
			if st.code == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if got := apperr.CodeOf(err); got != st.code {
				t.Errorf("got %v, want %s", err, st.code)
			}
		})
	}
	if b, err := e.v.ReadFile(".system/coverage.json"); err != nil || string(b) != "{}\n" {
		t.Errorf("reading .system/coverage.json = %q, %v; reads stay allowed", b, err)
	}
	if b, _ := os.ReadFile(filepath.Join(e.dir, ".system", "stats.jsonl")); string(b) != "a\n" {
		t.Errorf(".system/stats.jsonl = %q", b)
	}
}
