package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
)

// copyTree copies the files of src (one level) into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// pythonPreset is the python source as langspec ships it.
func pythonPreset(t *testing.T) SourceSpec {
	t.Helper()
	src, err := Resolve(nil, "python", "")
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// A whole Sphinx build (Debian's /usr/share/doc/python3/html) given as
// --from, or its index.html, is read at its reference/ folder: the
// Language Reference. The reference folder itself, or its index.html, is
// read as before.
func TestDocInSphinxBuild(t *testing.T) {
	build := t.TempDir()
	copyTree(t, filepath.Join("..", "..", "fixtures", "sphinx"), filepath.Join(build, "reference"))
	// The build's own start page: a Sphinx page about the whole set of documents.
	if err := os.WriteFile(filepath.Join(build, "index.html"), []byte("<html><body><h1>Python documentation</h1></body></html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join(build, "reference")
	src := pythonPreset(t)
	tests := []struct {
		name, from, base string
	}{
		{"the build's folder", build, ref},
		{"the build's index.html", filepath.Join(build, "index.html"), ref},
		{"the reference folder", ref, ref},
		{"the reference's index.html", filepath.Join(ref, "index.html"), ref},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			locs, err := Candidates(src, tt.from, Env{})
			if err != nil || len(locs) != 1 || locs[0].Base != tt.base || locs[0].Entry != "index.html" {
				t.Fatalf("Candidates(%s) = %+v, %v; want %s/index.html", tt.from, locs, err, tt.base)
			}
			store, err := db.Open(context.Background(), filepath.Join(t.TempDir(), "l.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			rep, err := Ingest(context.Background(), store, src, Options{From: tt.from, Now: time.Now})
			if err != nil || rep.Sections.Added == 0 || rep.Source != filepath.Join(ref, "index.html") {
				t.Fatalf("ingest from %s: %+v, %v", tt.from, rep, err)
			}
		})
	}
	// Another kind of document is not looked for in a subfolder.
	goSrc := goPreset()
	if _, ok := docInBuild(build, mustStat(t, build), goSrc); ok {
		t.Error("a Go source found a document in a Sphinx build")
	}
}

func mustStat(t *testing.T, p string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

// The folder Debian's python3-doc installs, when this machine has it.
func TestDocInDebianPythonBuild(t *testing.T) {
	const build = "/usr/share/doc/python3/html"
	if _, err := os.Stat(filepath.Join(build, "reference", "index.html")); err != nil {
		t.Skipf("skipped: %s/reference/index.html is not here (apt-get install python3-doc installs it)", build)
	}
	locs, err := Candidates(pythonPreset(t), build, Env{})
	if err != nil || len(locs) != 1 || locs[0].Base != filepath.Join(build, "reference") {
		t.Fatalf("Candidates(%s) = %+v, %v", build, locs, err)
	}
}

// A language langspec has a source for, with nothing stored, gets the
// ingest that adds it, and the local copy it would read when one is found.
func TestNotStored(t *testing.T) {
	unknown := func(lang string) error {
		return apperr.Wrap(db.ErrUnknownLanguage, apperr.NotFound, "available languages: go", "unknown language %q", lang)
	}
	toolchain := t.TempDir()
	ref := filepath.Join(toolchain, "share", "doc", "rust", "html", "reference")
	if err := os.MkdirAll(ref, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ref, "print.html"), []byte("<html></html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	configured := []SourceSpec{{Language: "zig", Doc: "langref", DisplayName: "The Zig Language Reference", Kind: KindHTML}}
	tests := []struct {
		name     string
		err      error
		language string
		env      *Env
		want     string // the whole error
	}{
		{"preset", unknown("rust"), "rust", &Env{},
			`not_found: language "rust" is not stored yet; hint: run langspec ingest rust to add The Rust Reference; available languages: go`},
		{"preset with a local copy", unknown("rust"), "rust", &Env{RustupToolchain: toolchain},
			`not_found: language "rust" is not stored yet; hint: run langspec ingest rust to add The Rust Reference (a local copy was found: ` +
				filepath.Join(ref, "print.html") + `); available languages: go`},
		{"no look for local copies", unknown("rust"), "rust", nil,
			`not_found: language "rust" is not stored yet; hint: run langspec ingest rust to add The Rust Reference; available languages: go`},
		{"configured", unknown("zig"), "zig", &Env{},
			`not_found: language "zig" is not stored yet; hint: run langspec ingest zig to add The Zig Language Reference; available languages: go`},
		{"no source", unknown("cobol"), "cobol", &Env{}, `not_found: unknown language "cobol"; hint: available languages: go`},
		{"another not_found", apperr.New(apperr.NotFound, "nearest ids: Types", "no section %q", "Typs"), "go", &Env{},
			`not_found: no section "Typs"; hint: nearest ids: Types`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := NotStored(tt.err, tt.language, configured, tt.env)
			if err == nil || err.Error() != tt.want || apperr.CodeOf(err) != apperr.NotFound {
				t.Errorf("got  %v\nwant %s", err, tt.want)
			}
		})
	}
	if NotStored(nil, "rust", nil, nil) != nil {
		t.Error("nil error became an error")
	}
}

// The built-in copy is recorded as such, not as the canonical URL it is
// cited by.
func TestBuiltInSource(t *testing.T) {
	store, err := db.Open(context.Background(), filepath.Join(t.TempDir(), "l.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, err := EnsureDefault(context.Background(), store, time.Now()); err != nil {
		t.Fatal(err)
	}
	vs, err := store.Versions(context.Background(), "go")
	if err != nil || len(vs) != 1 || !BuiltIn(vs[0].SourceURL) || !strings.HasPrefix(vs[0].SourceURL, "embedded:") {
		t.Fatalf("versions %+v, %v", vs, err)
	}
	row, err := store.Section(context.Background(), db.Scope{Language: "go"}, "Slice_expressions")
	if err != nil || row.URL != "https://go.dev/ref/spec#Slice_expressions" {
		t.Errorf("citation %q, %v", row.URL, err)
	}
	for _, s := range []string{"https://go.dev/ref/spec", "/usr/lib/go/doc/go_spec.html", ""} {
		if BuiltIn(s) {
			t.Errorf("BuiltIn(%q)", s)
		}
	}
}
