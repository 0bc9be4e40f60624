package vault

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/apperr"
)

// attack is one hostile path and the code every listed operation must
// return for it.
type attack struct {
	name    string
	path    string
	ops     []string // nil: every operation in allOps
	code    apperr.Code
	symlink bool // needs the symlinks setUpAttacks makes
}

var allOps = []string{"create", "overwrite", "append", "replace", "read", "stat"}

var writeOps = []string{"create", "overwrite", "append", "replace"}

// attacks is also FuzzClean's seed corpus.
var attacks = []attack{
	// Leaving by "..", however spelled.
	{name: "dotdot", path: "../x", code: apperr.PathOutsideVault},
	{name: "dotdot deeper", path: "a/../../x", code: apperr.PathOutsideVault},
	{name: "dotdot backslash", path: `a/..\..\x`, code: apperr.PathOutsideVault},
	{name: "dotdot all backslash", path: `a\..\b`, code: apperr.PathOutsideVault},
	{name: "dotdot staying inside", path: "notes/../notes/x.md", code: apperr.PathOutsideVault},
	{name: "dotdot trailing", path: "notes/..", code: apperr.PathOutsideVault},
	{name: "sibling prefix", path: "../vault_evil/x", code: apperr.PathOutsideVault},
	{name: "sibling prefix via folder", path: "notes/../../vault_evil/x", code: apperr.PathOutsideVault},
	// Absolute, drive and UNC paths.
	{name: "absolute", path: "/etc/passwd", code: apperr.PathOutsideVault},
	{name: "absolute backslash", path: `\etc`, code: apperr.PathOutsideVault},
	{name: "drive backslash", path: `C:\x`, code: apperr.PathOutsideVault},
	{name: "drive relative", path: "c:x", code: apperr.PathOutsideVault},
	{name: "drive slash", path: "c:/x", code: apperr.PathOutsideVault},
	{name: "unc", path: `\\server\share`, code: apperr.PathOutsideVault},
	{name: "unc device", path: `\\?\C:\x`, code: apperr.PathOutsideVault},
	// Empty and root.
	{name: "empty", path: "", code: apperr.InvalidPath},
	{name: "dot", path: ".", code: apperr.InvalidPath},
	{name: "dot slash", path: "./", code: apperr.InvalidPath},
	{name: "slashes only", path: "//", code: apperr.PathOutsideVault},
	// Control characters and bad encodings.
	{name: "nul", path: "a\x00b", code: apperr.InvalidPath},
	{name: "nul then dotdot", path: "notes/x.md\x00/../../x", code: apperr.InvalidPath},
	{name: "newline", path: "a\nb", code: apperr.InvalidPath},
	{name: "del", path: "a\x7f", code: apperr.InvalidPath},
	{name: "c1 next line", path: "notes/a\u0085b.md", code: apperr.InvalidPath},
	{name: "invalid utf8", path: "notes/bad\xff.md", code: apperr.InvalidPath},
	// Look-alike separators and dots.
	{name: "division slash", path: "a\u2215..\u2215x", code: apperr.InvalidPath},
	{name: "fraction slash", path: "a\u2044x", code: apperr.InvalidPath},
	{name: "fullwidth solidus", path: "a\uff0fx", code: apperr.InvalidPath},
	{name: "big solidus", path: "a\u29f8x", code: apperr.InvalidPath},
	{name: "fullwidth reverse solidus", path: "a\uff3cx", code: apperr.InvalidPath},
	{name: "set minus", path: "a\u2216x", code: apperr.InvalidPath},
	{name: "fullwidth dots", path: "\uff0e\uff0e/x", code: apperr.InvalidPath},
	{name: "one dot leaders", path: "\u2024\u2024/x", code: apperr.InvalidPath},
	{name: "two dot leader", path: "\u2025/x", code: apperr.InvalidPath},
	{name: "fullwidth letter", path: "\uff41rtifacts/run.sh", code: apperr.InvalidPath},
	{name: "zero width space", path: "notes/a\u200bb.md", code: apperr.InvalidPath},
	{name: "bidi override", path: "notes/a\u202edm.exe", code: apperr.InvalidPath},
	{name: "hangul filler", path: "notes/\u3164.md", code: apperr.InvalidPath},
	{name: "no-break space", path: "notes/a\u00a0b.md", code: apperr.InvalidPath},
	// Windows aliases and names.
	{name: "trailing dot", path: "notes/x.md.", code: apperr.InvalidPath},
	{name: "trailing space", path: "notes/x.md ", code: apperr.InvalidPath},
	{name: "trailing dot folder", path: "notes./x.md", code: apperr.InvalidPath},
	{name: "triple dot", path: "notes/...", code: apperr.InvalidPath},
	{name: "alternate stream", path: "notes/x.md:evil", code: apperr.InvalidPath},
	{name: "reserved CON", path: "CON", code: apperr.InvalidPath},
	{name: "reserved nul.txt", path: "notes/nul.txt", code: apperr.InvalidPath},
	{name: "reserved com1", path: "notes/com1.md", code: apperr.InvalidPath},
	{name: "reserved lpt9 space", path: "notes/LPT9 .md", code: apperr.InvalidPath},
	{name: "wildcard", path: "notes/*.md", code: apperr.InvalidPath},
	{name: "temp prefix", path: "notes/.langspec-tmp-0123", code: apperr.InvalidPath},
	{name: "lock file", path: ".system/.langspec-lock", code: apperr.InvalidPath},
	{name: "reserved prefix", path: "notes/.Langspec-x", code: apperr.InvalidPath},
	// Spellings that look like a path elsewhere but would make odd names
	// here: "\" is no separator in the vault, "~" no home folder.
	{name: "backslash separator", path: `notes\existing.md`, code: apperr.InvalidPath},
	{name: "backslash in a name", path: `notes/a\b.md`, code: apperr.InvalidPath},
	{name: "tilde home", path: "~/x.md", code: apperr.InvalidPath},
	{name: "tilde alone", path: "~", code: apperr.InvalidPath},
	{name: "tilde user", path: "~root/.ssh/authorized_keys", code: apperr.InvalidPath},
	{name: "tilde after dot", path: "./~/notes/x.md", code: apperr.InvalidPath},
	{name: "tilde backslash", path: `~\x.md`, code: apperr.InvalidPath},
	// Lengths.
	{name: "300-byte name", path: "notes/" + strings.Repeat("a", 300) + ".md", code: apperr.InvalidPath},
	{name: "5000-byte path", path: strings.Repeat("ab/", 1666) + "x.md", code: apperr.InvalidPath},
	{name: "5000 slashes", path: "notes" + strings.Repeat("/", 5000) + "x.md", code: apperr.InvalidPath},
	// Folder rules.
	{name: "daily overwrite case-folded", path: "Artifacts/Daily/2026-11-22.md", ops: []string{"overwrite", "replace"}, code: apperr.AppendOnly},
	{name: "daily upper", path: "ARTIFACTS/DAILY/2026-11-22.md", ops: []string{"overwrite", "replace"}, code: apperr.AppendOnly},
	{name: "daily dot segment", path: "artifacts/./daily/2026-11-22.md", ops: []string{"overwrite", "replace"}, code: apperr.AppendOnly},
	{name: "daily double slash", path: "artifacts//daily/2026-11-22.md", ops: []string{"overwrite", "replace"}, code: apperr.AppendOnly},
	{name: "daily backslash", path: `artifacts\daily\2026-11-22.md`, code: apperr.InvalidPath},
	{name: "daily long s", path: "artifact\u017f/daily/2026-11-22.md", ops: []string{"overwrite", "replace"}, code: apperr.AppendOnly},
	{name: "daily bad name", path: "artifacts/daily/notes.md", ops: writeOps, code: apperr.InvalidPath},
	{name: "daily not a date", path: "artifacts/daily/2026-02-30.md", ops: writeOps, code: apperr.InvalidPath},
	{name: "daily upper extension", path: "artifacts/daily/2026-11-22.MD", ops: writeOps, code: apperr.InvalidPath},
	{name: "daily subfolder", path: "artifacts/daily/x/2026-11-22.md", ops: writeOps, code: apperr.InvalidPath},
	{name: "daily folder", path: "artifacts/daily", ops: writeOps, code: apperr.IsADirectory},
	{name: "artifacts folder", path: "Artifacts", ops: writeOps, code: apperr.IsADirectory},
	{name: "artifact script", path: "artifacts/run.sh", ops: writeOps, code: apperr.ExtensionNotAllowed},
	{name: "artifact double extension", path: "artifacts/x.md.sh", ops: writeOps, code: apperr.ExtensionNotAllowed},
	{name: "artifact no extension", path: "artifacts/sub/x", ops: writeOps, code: apperr.ExtensionNotAllowed},
	{name: "artifact case-folded folder", path: "ARTIFACTS/run.SH", ops: writeOps, code: apperr.ExtensionNotAllowed},
	{name: "artifact dot segment", path: "./artifacts/./run.sh", ops: writeOps, code: apperr.ExtensionNotAllowed},
	{name: "file as folder", path: "notes/existing.md/x.md", code: apperr.NotFound},
	// langspec's own state is read-only to the model (see setUpAttacks).
	{name: "system coverage", path: ".system/coverage.json", ops: writeOps, code: apperr.InvalidPath},
	{name: "system stats case-folded", path: ".SYSTEM/adaptive_stats.jsonl", ops: writeOps, code: apperr.InvalidPath},
	{name: "system dot segment", path: "./.system//coverage.json", ops: writeOps, code: apperr.InvalidPath},
	{name: "system new file", path: ".system/new.json", ops: writeOps, code: apperr.InvalidPath},
	{name: "system subfolder", path: ".system/sub/x.md", ops: writeOps, code: apperr.InvalidPath},
	// Symbolic links (see setUpAttacks).
	{name: "symlink to outside dir", path: "link/x.md", code: apperr.PathOutsideVault, symlink: true},
	{name: "symlink to outside file", path: "link/secret.txt", code: apperr.PathOutsideVault, symlink: true},
	{name: "symlink leaf to outside dir", path: "link", code: apperr.PathOutsideVault, symlink: true},
	{name: "relative symlink to outside", path: "rlink/secret.txt", code: apperr.PathOutsideVault, symlink: true},
	{name: "symlink chain", path: "l1/x.md", code: apperr.PathOutsideVault, symlink: true},
	{name: "symlink chain leaf", path: "l1/secret.txt", code: apperr.PathOutsideVault, symlink: true},
	{name: "dangling symlink leaf", path: "notes/d.md", code: apperr.PathOutsideVault, symlink: true},
	{name: "dangling relative symlink leaf", path: "notes/d2.md", code: apperr.PathOutsideVault, symlink: true},
	{name: "symlink to outside file leaf", path: "notes/s.md", code: apperr.PathOutsideVault, symlink: true},
	{name: "symlink dir up and out", path: "notes/up/secret.txt", code: apperr.PathOutsideVault, symlink: true},
	{name: "symlink dir up and out new", path: "notes/up/new.md", code: apperr.PathOutsideVault, symlink: true},
	{name: "symlink to sibling prefix", path: "notes/evil/x", code: apperr.PathOutsideVault, symlink: true},
	{name: "in-vault symlink leaf", path: "notes/in.md", code: apperr.PathOutsideVault, symlink: true},
	{name: "in-vault symlink to daily", path: "notes/days/2026-11-22.md", code: apperr.PathOutsideVault, symlink: true},
	{name: "in-vault symlink to artifacts", path: "notes/art/run.sh", code: apperr.PathOutsideVault, symlink: true},
}

// setUpAttacks fills the vault with the files and links the attacks aim at.
func setUpAttacks(t *testing.T, e *testEnv) {
	t.Helper()
	for _, p := range []string{"notes/existing.md", "notes/real.md"} {
		if _, err := e.v.Create(p, []byte("a line\n")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.v.Create("artifacts/daily/2026-11-22.md", []byte("- morning\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := e.v.Create("artifacts/report.md", []byte("# a\n")); err != nil {
		t.Fatal(err)
	}
	// langspec's own state, as audit and the find statistics write it; the
	// "line" in each lets a replace attack find something to change.
	mustWrite(t, filepath.Join(e.dir, ".system", "coverage.json"), `{"version":1,"files":{},"x":"line"}`+"\n")
	mustWrite(t, filepath.Join(e.dir, ".system", "adaptive_stats.jsonl"), `{"q":"line"}`+"\n")
	if skipSymlinks() {
		return
	}
	d := e.dir
	mustSymlink(t, e.outside, filepath.Join(d, "link"))
	mustSymlink(t, "../outside", filepath.Join(d, "rlink"))
	mustSymlink(t, "l2", filepath.Join(d, "l1"))
	mustSymlink(t, "../outside", filepath.Join(d, "l2"))
	mustSymlink(t, filepath.Join(e.outside, "new.md"), filepath.Join(d, "notes", "d.md"))
	mustSymlink(t, "../../outside/new2.md", filepath.Join(d, "notes", "d2.md"))
	mustSymlink(t, "../../outside/secret.txt", filepath.Join(d, "notes", "s.md"))
	mustSymlink(t, "../../outside", filepath.Join(d, "notes", "up"))
	mustSymlink(t, "../../vault_evil", filepath.Join(d, "notes", "evil"))
	mustSymlink(t, "real.md", filepath.Join(d, "notes", "in.md"))
	mustSymlink(t, "../artifacts/daily", filepath.Join(d, "notes", "days"))
	mustSymlink(t, "../artifacts", filepath.Join(d, "notes", "art"))
}

// skipSymlinks: creating symlinks needs privileges on Windows.
func skipSymlinks() bool { return runtime.GOOS == "windows" }

// TestAttacks runs every attack through every operation it lists and checks
// the code and that nothing anywhere changed: not outside, not the sibling,
// not the vault itself.
func TestAttacks(t *testing.T) {
	e := newEnv(t, Options{})
	setUpAttacks(t, e)
	n := 0
	for _, a := range attacks {
		if a.symlink && skipSymlinks() {
			continue
		}
		ops := a.ops
		if ops == nil {
			ops = allOps
		}
		for _, op := range ops {
			n++
			t.Run(a.name+"/"+op, func(t *testing.T) {
				before := snapshot(t, e.base)
				err := runOp(e.v, op, a.path)
				if checkCode(t, err, a.code) && a.path != "" && !strings.Contains(err.Error(), apperr.Quote(a.path)) {
					t.Errorf("error %q does not name the path %s", err, apperr.Quote(a.path))
				}
				if d := diffSnapshots(before, snapshot(t, e.base)); len(d) > 0 {
					t.Errorf("%s %q changed the file system: %v", op, a.path, d)
				}
			})
		}
	}
	if _, err := os.Lstat(filepath.Join(e.outside, "new.md")); !os.IsNotExist(err) {
		t.Errorf("outside/new.md exists after writes through a dangling symlink: %v", err)
	}
	t.Logf("%d attack paths, %d attack operations", len(attacks), n)
}

// runOp runs one vault operation with harmless arguments.
func runOp(v *Vault, op, p string) error {
	data := []byte("pwned\n")
	var err error
	switch op {
	case "create":
		_, err = v.Create(p, data)
	case "overwrite":
		_, err = v.Overwrite(p, data)
	case "append":
		_, err = v.Append(p, data)
	case "replace":
		_, err = v.Replace(p, "line", "pwned", 1)
	case "read":
		_, err = v.ReadFile(p)
	case "stat":
		_, err = v.Stat(p)
	case "list":
		_, err = v.List(p, true)
	default:
		panic("unknown op " + op)
	}
	return err
}

// TestPercentEncodedIsLiteral: "%2e%2e%2f" is not decoded; it is a name,
// and the file it makes sits inside the vault.
func TestPercentEncodedIsLiteral(t *testing.T) {
	tests := []struct{ path, want string }{
		{"notes/..%2f..%2fx.md", "notes/..%2f..%2fx.md"},
		{"%2e%2e%2fx.md", "%2e%2e%2fx.md"},
		{"notes/%00.md", "notes/%00.md"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			e := newEnv(t, Options{})
			outside := snapshot(t, e.outside)
			res, err := e.v.Create(tt.path, []byte("x"))
			if err != nil {
				t.Fatal(err)
			}
			if res.Path != tt.want {
				t.Errorf("path = %q, want %q", res.Path, tt.want)
			}
			if _, err := os.Stat(filepath.Join(e.dir, filepath.FromSlash(tt.want))); err != nil {
				t.Errorf("file not inside the vault: %v", err)
			}
			if d := diffSnapshots(outside, snapshot(t, e.outside)); len(d) > 0 {
				t.Errorf("outside changed: %v", d)
			}
		})
	}
}

// TestListSkipsSymlinks: List never reports or descends a symlink, nor
// shows temp files.
func TestListSkipsSymlinks(t *testing.T) {
	if skipSymlinks() {
		t.Skip("no symlinks")
	}
	e := newEnv(t, Options{})
	setUpAttacks(t, e)
	mustWrite(t, filepath.Join(e.dir, "notes", tempPrefix+"abc"), "half")
	got, err := e.v.List("", true)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, in := range got {
		paths = append(paths, in.Path)
	}
	want := []string{".system", ".system/adaptive_stats.jsonl", ".system/coverage.json", "artifacts", "artifacts/daily", "artifacts/daily/2026-11-22.md", "artifacts/report.md",
		"drafts", "notes", "notes/existing.md", "notes/real.md"}
	if strings.Join(paths, "\n") != strings.Join(want, "\n") {
		t.Errorf("List = %q, want %q", paths, want)
	}
	for _, dir := range []string{"link", "notes/up", "l1"} {
		_, err := e.v.List(dir, false)
		wantCode(t, err, apperr.PathOutsideVault)
	}
}
