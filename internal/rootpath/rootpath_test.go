package rootpath

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/apperr"
)

// vaultLike and manualsLike stand for the two folders' policies (the real
// ones live in packages vault and manual, which import this one). vaultLike
// has the optional rules, as the vault does: a Segment rule refusing "*"
// and ":" in a name, a Normalize (here: "Ω", the ohm sign, to "Ω", the
// letter, which NFC does too), and it refuses "\" and a leading "~".
var (
	vaultLike = Policy{
		Folder: "the vault", Outside: apperr.PathOutsideVault, Invalid: apperr.InvalidPath,
		Example: "notes/todo.md", Hint: "vault path hint", SymlinkHint: "vault symlink hint",
		LongHint: "vault long hint", ControlHint: "vault control hint",
		Segment: func(p, seg string) error {
			if strings.ContainsAny(seg, "*:") {
				return apperr.New(apperr.InvalidPath, "segment hint", "path %s has a bad name %s", apperr.Quote(p), apperr.Quote(seg))
			}
			return nil
		},
		Normalize:     func(p string) string { return strings.ReplaceAll(p, "\u2126", "\u03a9") },
		BackslashHint: "vault backslash hint",
		TildeHint:     "vault tilde hint",
	}
	manualsLike = Policy{
		Folder: "the manuals folder", Outside: apperr.PathOutsideManuals, Invalid: apperr.InvalidArgument,
		Example: "runbooks/db/failover.md", Hint: "manuals path hint", SymlinkHint: "manuals symlink hint",
		LongHint: "manuals long hint", ControlHint: "manuals control hint",
	}
)

// fault names the kind of error a case expects; each policy maps it to its
// code.
type fault int

const (
	ok fault = iota
	outside
	invalid
)

func (f fault) code(p Policy) apperr.Code {
	switch f {
	case outside:
		return p.Outside
	case invalid:
		return p.Invalid
	}
	return ""
}

// wantErr checks err against the fault and that the message names the path
// and the error carries the hint named by hint (a field of p), if any.
func wantErr(t *testing.T, err error, p Policy, f fault, name, hint string) {
	t.Helper()
	if f == ok {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	ae, isApp := errors.AsType[*apperr.Error](err)
	switch {
	case err == nil:
		t.Fatalf("got no error, want %s", f.code(p))
	case !isApp:
		t.Fatalf("got %T %v, want *apperr.Error", err, err)
	case ae.Code != f.code(p):
		t.Fatalf("code = %s, want %s (error: %v)", ae.Code, f.code(p), err)
	case ae.Hint == "":
		t.Errorf("error %v has no hint", err)
	case hint != "" && ae.Hint != hint:
		t.Errorf("hint = %q, want %q", ae.Hint, hint)
	}
	if name != "" && !strings.Contains(ae.Message, apperr.Quote(name)) {
		t.Errorf("message %q does not name %s", ae.Message, apperr.Quote(name))
	}
}

func TestSplit(t *testing.T) {
	long := strings.Repeat("a/", 600) + "x.md"
	tests := []struct {
		name, in string
		want     []string
		fault    fault
		segment  bool   // vaultLike's Segment rule refuses it (invalid, "segment hint")
		strict   string // vaultLike refuses it (invalid) with this hint field: "backslash", "tilde"
		vault    []string
		hint     string // which hint field: "path", "long", "control", "" (any)
	}{
		{name: "plain", in: "runbooks/db/failover.md", want: []string{"runbooks", "db", "failover.md"}},
		{name: "dot and double slash", in: "./a//b", want: []string{"a", "b"}},
		{name: "backslash separators", in: `a\b\c.md`, want: []string{"a", "b", "c.md"}, strict: "backslash"},
		{name: "trailing backslash", in: `a/b\`, want: []string{"a", "b"}, strict: "backslash"},
		{name: "tilde home", in: "~/x.md", want: []string{"~", "x.md"}, strict: "tilde"},
		{name: "tilde alone", in: "~", want: []string{"~"}, strict: "tilde"},
		{name: "tilde user", in: "~root/x", want: []string{"~root", "x"}, strict: "tilde"},
		{name: "tilde after dot", in: "./~x", want: []string{"~x"}, strict: "tilde"},
		{name: "tilde before backslash", in: `~\x`, want: []string{"~", "x"}, strict: "tilde"},
		{name: "tilde later", in: "a/~b/c~", want: []string{"a", "~b", "c~"}},
		{name: "normalized", in: "\u2126.md", want: []string{"\u2126.md"}, vault: []string{"\u03a9.md"}},
		{name: "trailing slash", in: "a/b/", want: []string{"a", "b"}},
		{name: "dots inside a name", in: "a..b/...c", want: []string{"a..b", "...c"}},
		{name: "percent-encoded dotdot is a name", in: "..%2fx", want: []string{"..%2fx"}},
		{name: "japanese", in: "約款/普通保険約款.md", want: []string{"約款", "普通保険約款.md"}},
		{name: "digit colon is no drive", in: "1:x.md", want: []string{"1:x.md"}, segment: true},
		{name: "colon later is no drive", in: "ab:x", want: []string{"ab:x"}, segment: true},
		{name: "segment rule", in: "notes/*.md", want: []string{"notes", "*.md"}, segment: true},

		// The folder itself: no names, no error.
		{name: "empty", in: "", want: nil},
		{name: "dot", in: "."},
		{name: "dot slash", in: "./"},
		{name: "dots and slashes", in: `././/.`},
		{name: "dots and a backslash", in: `.\./.`, strict: "backslash"},

		// Absolute, UNC and drive paths.
		{name: "absolute", in: "/etc/passwd", fault: outside, hint: "path"},
		{name: "slashes only", in: "//", fault: outside, hint: "path"},
		{name: "root-relative backslash", in: `\etc`, fault: outside, hint: "path"},
		{name: "unc", in: `\\server\share`, fault: outside, hint: "path"},
		{name: "unc device", in: `\\?\C:\x`, fault: outside, hint: "path"},
		{name: "drive backslash", in: `C:\x.md`, fault: outside, hint: "path"},
		{name: "drive relative", in: "c:x", fault: outside, hint: "path"},
		{name: "drive slash", in: "z:/x", fault: outside, hint: "path"},
		{name: "drive alone", in: "C:", fault: outside, hint: "path"},

		// ".." anywhere, however spelled, even staying inside.
		{name: "dotdot", in: "..", fault: outside, hint: "path"},
		{name: "dotdot first", in: "../x", fault: outside, hint: "path"},
		{name: "dotdot middle", in: "a/../b", fault: outside, hint: "path"},
		{name: "dotdot last", in: "a/..", fault: outside, hint: "path"},
		{name: "dotdot backslash", in: `a\..\b`, fault: outside, hint: "path"},
		{name: "dotdot mixed", in: `a/..\..\x`, fault: outside, hint: "path"},
		{name: "dotdot after tilde", in: "~/../x", fault: outside, hint: "path"},
		{name: "bad name before backslash", in: `a*\b`, segment: true, want: []string{"a*", "b"}},
		{name: "dotdot after dot", in: "./../x", fault: outside, hint: "path"},
		{name: "dotdot before a bad name", in: "../a*", fault: outside, hint: "path"},
		{name: "bad name before dotdot", in: "a*/../x", fault: outside, segment: true},

		// Characters, checked before anything else.
		{name: "nul", in: "a\x00b", fault: invalid, hint: "control"},
		{name: "nul then dotdot", in: "x.md\x00/../../x", fault: invalid, hint: "control"},
		{name: "control then absolute", in: "/a\nb", fault: invalid, hint: "control"},
		{name: "newline", in: "a\nb", fault: invalid, hint: "control"},
		{name: "tab", in: "a\tb", fault: invalid, hint: "control"},
		{name: "del", in: "a\x7f", fault: invalid, hint: "control"},
		{name: "c1 next line", in: "a\u0085b", fault: invalid, hint: "control"},
		{name: "bad utf8", in: "bad\xff.md", fault: invalid},
		{name: "bad utf8 absolute", in: "/\xff", fault: invalid},
		{name: "truncated rune", in: "a\xe6\x97", fault: invalid},
		{name: "over-long", in: long, fault: invalid, hint: "long"},
		{name: "over-long slashes", in: "a" + strings.Repeat("/", MaxBytes) + "b", fault: invalid, hint: "long"},
		{name: "longest", in: strings.Repeat("a", MaxBytes), want: []string{strings.Repeat("a", MaxBytes)}},
	}
	// Normalize may lengthen a path; its result is held to MaxBytes too.
	grows := vaultLike
	grows.Normalize = func(p string) string { return p + p }
	wantErr(t, func() error { _, err := grows.Split(strings.Repeat("a", MaxBytes/2+1)); return err }(),
		grows, invalid, strings.Repeat("a", MaxBytes/2+1), grows.LongHint)
	for _, tt := range tests {
		for _, p := range []Policy{vaultLike, manualsLike} {
			t.Run(p.Folder+"/"+tt.name, func(t *testing.T) {
				f, hint := tt.fault, map[string]string{"path": p.Hint, "long": p.LongHint, "control": p.ControlHint}[tt.hint]
				want := tt.want
				if p.Normalize != nil && tt.vault != nil {
					want = tt.vault
				}
				switch {
				case tt.segment && p.Segment != nil:
					f, hint = invalid, "segment hint"
				case tt.strict != "" && p.BackslashHint != "":
					f, hint = invalid, map[string]string{"backslash": p.BackslashHint, "tilde": p.TildeHint}[tt.strict]
				}
				got, err := p.Split(tt.in)
				wantErr(t, err, p, f, tt.in, hint)
				if f == ok && !slices.Equal(got, want) {
					t.Errorf("Split(%q) = %q, want %q", tt.in, got, want)
				}
				if f != ok && got != nil {
					t.Errorf("Split(%q) = %q with an error, want no names", tt.in, got)
				}
			})
		}
	}
}

func TestFile(t *testing.T) {
	tests := []struct {
		in, msg string
		fault   fault
	}{
		{in: "a/b.md"},
		{in: "", msg: "empty path", fault: invalid},
		{in: ".", msg: `path "." names no file`, fault: invalid},
		{in: `././/`, msg: "names no file", fault: invalid},
		{in: "//", fault: outside},
		{in: "..", fault: outside},
	}
	for _, tt := range tests {
		for _, p := range []Policy{vaultLike, manualsLike} {
			t.Run(p.Folder+"/"+tt.in, func(t *testing.T) {
				segs, err := p.File(tt.in)
				wantErr(t, err, p, tt.fault, "", "")
				if err == nil {
					if len(segs) == 0 {
						t.Errorf("File(%q) returned no names and no error", tt.in)
					}
					return
				}
				if !strings.Contains(err.Error(), tt.msg) {
					t.Errorf("error %q lacks %q", err, tt.msg)
				}
				if tt.fault == invalid && !strings.HasSuffix(err.Error(), "name a file, such as "+p.Example) {
					t.Errorf("error %q does not suggest %s", err, p.Example)
				}
			})
		}
	}
}

func TestCheckChars(t *testing.T) {
	err := manualsLike.CheckChars("ops\x00en", "manual id")
	wantErr(t, err, manualsLike, invalid, "ops\x00en", manualsLike.ControlHint)
	if !strings.Contains(err.Error(), `manual id "ops\x00en" contains control character U+0000`) {
		t.Errorf("error %q does not say what was wrong", err)
	}
	err = vaultLike.CheckChars(strings.Repeat("x", MaxBytes+1), "path")
	wantErr(t, err, vaultLike, invalid, "", vaultLike.LongHint)
	if !strings.Contains(err.Error(), "is 1025 bytes long") {
		t.Errorf("error %q does not give the length", err)
	}
	// CheckChars knows nothing of separators: that is Split's business.
	if err := manualsLike.CheckChars("/../x", "path"); err != nil {
		t.Errorf("CheckChars(/../x) = %v, want nil", err)
	}
}

func TestHasDriveLetter(t *testing.T) {
	for s, want := range map[string]bool{
		"C:": true, `c:\x`: true, "Z:x": true,
		"": false, "C": false, "1:x": false, ":x": false, "ab:": false, "é:": false, "\xff:": false,
	} {
		if got := HasDriveLetter(s); got != want {
			t.Errorf("HasDriveLetter(%q) = %v, want %v", s, got, want)
		}
	}
}

// walkEnv is a folder opened as an os.Root, with a sibling "outside":
//
//	root/m/a/f.md        a file, also used as a parent
//	root/m/a/link     -> ../../../outside (a folder outside)
//	root/m/a/in.md    -> f.md (a file inside)
//	root/m/a/dangling -> ../../../outside/gone.md
//	root/alias        -> m (a link before the part Walk checks)
func walkEnv(t *testing.T) *os.Root {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	base := t.TempDir()
	dir := filepath.Join(base, "root")
	for _, d := range []string{filepath.Join(dir, "m", "a"), filepath.Join(base, "outside")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(dir, "m", "a", "f.md"), filepath.Join(base, "outside", "x.md")} {
		if err := os.WriteFile(f, []byte("# x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"m/a/link":     "../../../outside",
		"m/a/in.md":    "f.md",
		"m/a/dangling": "../../../outside/gone.md",
		"alias":        "m",
	} {
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root
}

func TestWalk(t *testing.T) {
	root := walkEnv(t)
	tests := []struct {
		name, full string
		from       int
		isDir      bool   // the leaf exists and is a folder
		isFile     bool   // the leaf exists and is a file
		notDir     string // want this parent reported as not a folder
		link       string // want an Outside error naming this link
	}{
		{name: "file", full: "m/a/f.md", isFile: true},
		{name: "folder", full: "m/a", isDir: true},
		{name: "file after from", full: "m/a/f.md", from: 1, isFile: true},
		{name: "missing leaf", full: "m/a/missing.md"},
		{name: "missing parent", full: "m/nope/x.md"},
		{name: "file as parent", full: "m/a/f.md/x.md", notDir: "m/a/f.md"},
		{name: "file as grandparent", full: "m/a/f.md/x/y.md", notDir: "m/a/f.md"},
		{name: "file as parent after from", full: "m/a/f.md/x.md", from: 1, notDir: "a/f.md"},
		{name: "symlink parent to outside", full: "m/a/link/x.md", link: "m/a/link"},
		{name: "symlink parent, missing leaf", full: "m/a/link/new.md", link: "m/a/link"},
		{name: "symlink leaf to a folder", full: "m/a/link", link: "m/a/link"},
		{name: "symlink leaf inside", full: "m/a/in.md", link: "m/a/in.md"},
		{name: "dangling symlink leaf", full: "m/a/dangling", link: "m/a/dangling"},
		{name: "symlink named after from", full: "m/a/link/x.md", from: 1, link: "a/link"},
		{name: "symlink first", full: "alias/a/f.md", link: "alias"},
		// Components before from are the caller's: the link is not seen.
		{name: "symlink before from", full: "alias/a/f.md", from: len("alias"), isFile: true},
	}
	for _, tt := range tests {
		for _, p := range []Policy{vaultLike, manualsLike} {
			t.Run(p.Folder+"/"+tt.name, func(t *testing.T) {
				fi, notDir, err := p.Walk(root, "user/"+tt.full, tt.full, tt.from)
				if tt.link != "" {
					wantErr(t, err, p, outside, "user/"+tt.full, p.SymlinkHint)
					if err != nil && !strings.Contains(err.Error(), "symbolic link "+apperr.Quote(tt.link)) {
						t.Errorf("error %q does not name the link %s", err, apperr.Quote(tt.link))
					}
					if fi != nil || notDir != "" {
						t.Errorf("Walk returned %v, %q with an error", fi, notDir)
					}
					return
				}
				if err != nil {
					t.Fatalf("Walk(%q): %v", tt.full, err)
				}
				if notDir != tt.notDir {
					t.Errorf("notDir = %q, want %q", notDir, tt.notDir)
				}
				switch {
				case tt.isDir || tt.isFile:
					if fi == nil || fi.IsDir() != tt.isDir || (tt.isFile && !fi.Mode().IsRegular()) {
						t.Errorf("Walk(%q) = %v, want a %s", tt.full, fi, map[bool]string{true: "folder", false: "file"}[tt.isDir])
					}
				case fi != nil:
					t.Errorf("Walk(%q) = %v (%s), want nil", tt.full, fi.Name(), fi.Mode())
				}
			})
		}
	}
}

// TestFSError: os.Root's own refusal of a path that leaves the root becomes
// the policy's Outside code with its hint; other errors are internal.
func TestFSError(t *testing.T) {
	root := walkEnv(t)
	_, err := root.Open("m/a/link/x.md")
	if err == nil {
		t.Fatal("os.Root opened a file outside it")
	}
	for _, p := range []Policy{vaultLike, manualsLike} {
		got := p.FSError(err, "m/a/link/x.md", "read")
		wantErr(t, got, p, outside, "m/a/link/x.md", p.Hint)
		if !strings.Contains(got.Error(), "resolves outside "+p.Folder) {
			t.Errorf("error %q does not name %s", got, p.Folder)
		}
		if !errors.Is(got, err) {
			t.Errorf("error %v does not wrap the cause %v", got, err)
		}
	}
	other := errors.New("disk on fire")
	got := vaultLike.FSError(other, "notes/x.md", "read")
	if apperr.CodeOf(got) != apperr.Internal || !errors.Is(got, other) ||
		!strings.Contains(got.Error(), `read "notes/x.md": disk on fire`) {
		t.Errorf("FSError(other) = %v, want internal naming the op, path and cause", got)
	}
}
