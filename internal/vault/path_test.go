package vault

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/langspec/langspec/internal/apperr"
)

func TestClean(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"notes/a.md", "notes/a.md"},
		{"notes//a.md", "notes/a.md"},
		{"./notes/./a.md", "notes/a.md"},
		{"notes/a/", "notes/a"},
		{"Notes/A.md", "notes/A.md"},
		{"DRAFTS/x", "drafts/x"},
		{".SYSTEM/x.json", ".system/x.json"},
		{"ARTIFACTS/DAILY/2026-11-22.md", "artifacts/daily/2026-11-22.md"},
		{"artifact\u017f/x.md", "artifacts/x.md"}, // long s folds to s
		{"notes/daily/x", "notes/daily/x"},        // only artifacts/daily is managed
		{"elsewhere/Notes/x", "elsewhere/Notes/x"},
		{"notes/café.md", "notes/café.md"},
		// Names are NFC: a decomposed spelling means the composed file.
		{"notes/cafe\u0301.md", "notes/caf\u00e9.md"},
		{"Notes/Cafe\u0301/x.md", "notes/Caf\u00e9/x.md"},
		{"notes/\u1100\u1161.md", "notes/\uac00.md"},                                                        // Hangul jamo compose
		{"notes/\u212b.md", "notes/\u00c5.md"},                                                              // angstrom sign is Å
		{"notes/a\u0308\u0323.md", "notes/\u1ea1\u0308.md"},                                                 // marks reordered, then composed
		{"notes/x\u0301.md", "notes/x\u0301.md"},                                                            // no precomposed x́: stays
		{"notes/" + strings.Repeat("e\u0301", 85) + ".md", "notes/" + strings.Repeat("\u00e9", 85) + ".md"}, // 258 bytes decomposed, 173 composed
		{"notes/\u1fef.md", "notes/`.md"},                                                                   // Greek varia is "`" composed
		{"notes/~draft.md", "notes/~draft.md"},                                                              // "~" only refused first
		{"notes/a~", "notes/a~"},
		{"notes/日本語.md", "notes/日本語.md"},
		{"notes/C++ & Go (draft) #1.md", "notes/C++ & Go (draft) #1.md"},
		{"notes/.hidden", "notes/.hidden"},
		{"notes/..%2f..%2fx.md", "notes/..%2f..%2fx.md"},
		{"notes/a..b.md", "notes/a..b.md"},
		{"notes/console.md", "notes/console.md"}, // CON only as the whole stem
		{"notes/com10.md", "notes/com10.md"},
		{strings.Repeat("a", 255), strings.Repeat("a", 255)},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Clean(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again, err := Clean(got); err != nil || again != got {
				t.Errorf("Clean(%q) = %q, %v; want it unchanged", got, again, err)
			}
		})
	}
}

// TestCleanRefusals: spellings that mean something elsewhere get a typed
// error whose hint says what to write instead.
func TestCleanRefusals(t *testing.T) {
	tests := []struct {
		in   string
		code apperr.Code
		hint string // the hint must contain it
	}{
		{`notes\a.md`, apperr.InvalidPath, `use "/" between names`},
		{`notes/a\`, apperr.InvalidPath, `use "/" between names`},
		{`.\notes`, apperr.InvalidPath, `use "/" between names`},
		{"~/x.md", apperr.InvalidPath, "~ is not your home folder here"},
		{"~", apperr.InvalidPath, "~ is not your home folder here"},
		{"~user/x.md", apperr.InvalidPath, "use a path relative to the vault root"},
		{".//~x/y.md", apperr.InvalidPath, "~ is not your home folder here"},
		// Graver faults come first, whatever else the path has.
		{`a\..\b`, apperr.PathOutsideVault, "no leading"},
		{"~/../x", apperr.PathOutsideVault, "no leading"},
		{`\x`, apperr.PathOutsideVault, "no leading"},
		// Checks apply to the composed name, and quote the name as given.
		{"notes/e\u0301*.md", apperr.InvalidPath, "use letters"},
		{"notes/" + strings.Repeat("\u0958", 43) + ".md", apperr.InvalidPath, "at most 255 bytes"}, // 132 bytes, 261 decomposed
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := Clean(tt.in)
			wantCode(t, err, tt.code)
			if e, _ := errors.AsType[*apperr.Error](err); !strings.Contains(e.Hint, tt.hint) {
				t.Errorf("hint %q lacks %q", e.Hint, tt.hint)
			}
			if !strings.Contains(err.Error(), apperr.Quote(tt.in)) {
				t.Errorf("error %q does not name the path", err)
			}
		})
	}
}

func TestCleanListRoot(t *testing.T) {
	for _, in := range []string{"", ".", "./", ".//."} {
		got, err := cleanPath(in, true)
		if err != nil || got != "" {
			t.Errorf("cleanPath(%q, true) = %q, %v; want the root", in, got, err)
		}
	}
	_, err := cleanPath("/", true)
	wantCode(t, err, apperr.PathOutsideVault)
}

func TestIsDailyName(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"2026-11-22.md", true},
		{"2024-02-29.md", true},
		{"2026-02-29.md", false},
		{"2026-02-30.md", false},
		{"2026-13-01.md", false},
		{"2026-1-22.md", false},
		{"2026-11-22.MD", false},
		{"2026-11-22.md.md", false},
		{"+026-11-22.md", false},
		{"notes.md", false},
		{"2026-11-22", false},
	}
	for _, tt := range tests {
		if got := isDailyName(tt.name); got != tt.want {
			t.Errorf("isDailyName(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// FuzzClean checks the path layer's promise on any input: either an error,
// or a canonical path that is local, clean and stable, and that a Create
// puts inside the vault and nowhere else.
func FuzzClean(f *testing.F) {
	for _, a := range attacks {
		f.Add(a.path)
	}
	f.Add("notes/a.md")
	f.Add("artifacts/daily/2026-11-22.md")
	f.Add("notes/..%2f..%2fx.md")
	e := newEnv(f, Options{})
	outside := snapshot(f, e.outside)
	f.Fuzz(func(t *testing.T, p string) {
		canon, err := Clean(p)
		if err != nil {
			if c := apperr.CodeOf(err); c != apperr.InvalidPath && c != apperr.PathOutsideVault {
				t.Fatalf("Clean(%q): code %s", p, c)
			}
			return
		}
		if !filepath.IsLocal(filepath.FromSlash(canon)) || strings.HasPrefix(canon, "/") || strings.Contains(canon, `\`) {
			t.Fatalf("Clean(%q) = %q: not local", p, canon)
		}
		for _, s := range strings.Split(canon, "/") {
			if s == "" || s == "." || s == ".." {
				t.Fatalf("Clean(%q) = %q: segment %q", p, canon, s)
			}
		}
		if strings.IndexFunc(canon, unicode.IsControl) >= 0 || len(canon) > maxPathBytes {
			t.Fatalf("Clean(%q) = %q: control character or too long", p, canon)
		}
		if again, err := Clean(canon); err != nil || again != canon {
			t.Fatalf("Clean(Clean(%q)) = %q, %v; want %q", p, again, err, canon)
		}
		if _, err := e.v.Create(canon, []byte("fuzz")); err != nil {
			return // rules (extension, daily name, already exists) may refuse it
		}
		fi, err := os.Lstat(filepath.Join(e.dir, filepath.FromSlash(canon)))
		if err != nil || !fi.Mode().IsRegular() {
			t.Fatalf("Create(%q) succeeded but the file is not at vault/%s: %v", p, canon, err)
		}
		if d := diffSnapshots(outside, snapshot(t, e.outside)); len(d) > 0 {
			t.Fatalf("Create(%q) changed outside: %v", p, d)
		}
		entries, err := os.ReadDir(e.base)
		if err != nil || len(entries) != 3 { // vault, outside, vault_evil
			t.Fatalf("Create(%q) added to the vault's parent: %v %v", p, entries, err)
		}
	})
}
