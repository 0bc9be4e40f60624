package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/search"
)

// run runs langspec in-process against buffers, with env as the whole
// environment.
func run(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	io := &ioStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	code = Main(context.Background(), args, io, func(k string) string { return env[k] })
	return code, out.String(), errOut.String()
}

// homeOf is the environment of a command run beside the database at
// dbPath: HOME its folder, as the team servers of the tests have it, so
// that both find the same state file (tokens, secrets) there.
func homeOf(dbPath string) map[string]string {
	return map[string]string{"HOME": filepath.Dir(dbPath)}
}

// End to end: a fresh data directory, nothing ingested, no network.
func TestCLI(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home}
	defaultDB := filepath.Join(home, ".local", "share", "langspec", "langspec.db")
	corrupt := filepath.Join(t.TempDir(), "bad.db")
	os.WriteFile(corrupt, bytes.Repeat([]byte("not a database "), 400), 0o644)
	badConfig := filepath.Join(t.TempDir(), "langspec.json")
	os.WriteFile(badConfig, []byte(`{"sources": [{"language": "go", "kindd": "html"}]}`), 0o644)
	goodConfig := filepath.Join(t.TempDir(), "langspec.json")
	os.WriteFile(goodConfig, []byte(`{"sources": [{"language": "go", "doc": "spec", "display_name": "Go (mirror)", "kind": "html",
		"url": "https://mirror.example/spec", "canonical_url": "https://go.dev/ref/spec", "source_policy": "full_text"}]}`), 0o644)

	tests := []cliCase{
		{name: "first search seeds the default database", args: []string{"search", "slice", "expressions"},
			out: []string{"1. Slice expressions  [go spec go1.26]", "Expressions > Slice expressions",
				"https://go.dev/ref/spec#Slice_expressions", "(title, words)", "10 results"}},
		{name: "no color when not a terminal", args: []string{"search", "range clause"}, out: []string{"For statements with range clause"}},
		{name: "no match is not an error", args: []string{"search", "zzqqxx"}, err: []string{`no sections match "zzqqxx"`}},
		{name: "empty query", args: []string{"search", ""}, code: 2, err: []string{"langspec: empty query"}},
		{name: "unknown language", args: []string{"search", "x", "--lang", "cobol"}, code: 1,
			err: []string{`unknown language "cobol"`, `hint: available languages: go`}},
		{name: "limit out of range", args: []string{"search", "x", "--limit", "0"}, code: 2, err: []string{"--limit 0 is out of range; use 1 to 50"}},
		{name: "unknown command", args: []string{"frobnicate"}, code: 2, err: []string{`unknown command "frobnicate" for "langspec"`, "--help"}},
		{name: "misspelt command", args: []string{"serach", "x"}, code: 2, err: []string{`did you mean search?`}},
		{name: "unknown subcommand", args: []string{"eval", "nope"}, code: 2, err: []string{`unknown command "nope" for "langspec eval"`}},
		{name: "bad flag", args: []string{"search", "x", "--nope"}, code: 2, err: []string{"unknown flag: --nope", "--help"}},
		{name: "misspelt flag", args: []string{"search", "x", "--limt", "3"}, code: 2, err: []string{"unknown flag: --limt; did you mean --limit?", "langspec search --help"}},
		{name: "misspelt flag of another command", args: []string{"section", "x", "--lnag", "go"}, code: 2, err: []string{"unknown flag: --lnag; did you mean --lang?"}},
		{name: "no query", args: []string{"search"}, code: 2, err: []string{"search needs a query"}},
		{name: "section", args: []string{"section", "Slice_expressions"},
			out: []string{"Slice expressions  [go spec go1.26]", "https://go.dev/ref/spec#Slice_expressions",
				"Subsections:", "Full_slice_expressions"}},
		{name: "section by title", args: []string{"section", "type assertions"}, out: []string{"https://go.dev/ref/spec#Type_assertions"}},
		{name: "unknown section suggests", args: []string{"section", "Slice_expresion"}, code: 1,
			err: []string{`no section "Slice_expresion"`, `hint: nearest ids: Slice_expressions`}},
		{name: "plan", args: []string{"plan", "--lang", "go", "--weeks", "3", "--focus", "Statements"},
			out: []string{"Reading plan: go spec go1.26, 3 weeks", "Week 3", "* moved forward"}},
		{name: "plan bad weeks", args: []string{"plan", "--weeks", "13"}, code: 2, err: []string{"13 weeks is out of range"}},
		{name: "plan unknown focus", args: []string{"plan", "--focus", "Monads"}, code: 2, err: []string{`focus area "Monads"`}},
		{name: "list", args: []string{"list"}, out: []string{"LANGUAGE", "go1.26 (default)", "165"}},
		{name: "versions", args: []string{"versions", "go"}, out: []string{"go1.26 (default)"}},
		{name: "versions json", args: []string{"versions", "--json"}, out: []string{`"version": "go1.26"`, `"default": true`}},
		{name: "sources", args: []string{"sources"}, out: []string{"go/spec", "rust/reference", "java/jls", "excerpts", "go1.26"}},
		{name: "sources from config", args: []string{"--config", goodConfig, "sources", "--json"}, out: []string{`"url": "https://mirror.example/spec"`}},
		{name: "bad config", args: []string{"--config", badConfig, "sources"}, code: 2,
			err: []string{`$.sources[0]: unknown key "kindd"`, "langspec config schema"}},
		{name: "bad config from env", env: map[string]string{"HOME": home, "LANGSPEC_CONFIG": badConfig}, args: []string{"ingest", "go"}, code: 2,
			err: []string{`unknown key "kindd"`}},
		{name: "missing named config", args: []string{"--config", "/nonexistent/langspec.json", "sources"}, code: 1,
			err: []string{"cannot read config /nonexistent/langspec.json"}},
		{name: "config schema", args: []string{"config", "schema"}, out: []string{`"sources"`, `"additionalProperties": false`}},
		{name: "prune keeps the latest", args: []string{"prune", "go", "--keep", "1"}, out: []string{"pruned nothing"}},
		{name: "prune keep 0", args: []string{"prune", "go", "--keep", "0"}, code: 2, err: []string{"keep at least 1"}},
		{name: "list unknown language", args: []string{"list", "--lang", "cobol"}, code: 1,
			err: []string{`unknown language "cobol"`, `hint: available languages: go`}},
		{name: "section paging", args: []string{"section", "Types", "--with-subsections", "--max-chars", "500"},
			out: []string{"[characters 0–", "read on with --offset"}},
		{name: "ingest again is unchanged", args: []string{"ingest", "go", "../../fixtures/gospec/go_spec.html"},
			out: []string{"go/spec go1.26: unchanged, 165 sections (0 added, 0 changed, 165 unchanged, 0 removed)",
				"pages: 1 read, 0 fetched, 0 cached, 0 failed"}},
		{name: "ingest with --from", args: []string{"ingest", "go", "--from", "embedded", "--json"},
			out: []string{`"status": "unchanged"`, `"source": "embedded:gospec/go_spec.html"`}},
		{name: "ingest source twice", args: []string{"ingest", "go", "x.html", "--from", "y.html"}, code: 2, err: []string{"either PATH or --from"}},
		{name: "ingest within a memory bound", args: []string{"ingest", "go", "../../fixtures/gospec/go_spec.html", "--max-memory", "256MiB"},
			out: []string{"go/spec go1.26: unchanged, 165 sections"}},
		{name: "ingest memory bound too small", args: []string{"ingest", "go", "--max-memory", "10MB"}, code: 2,
			err: []string{`--max-memory "10MB": give a size of at least 64MiB, with its unit, such as 512MiB, 1GiB or 2GB`}},
		{name: "ingest memory bound not a size", args: []string{"ingest", "go", "--max-memory", "lots"}, code: 2,
			err: []string{`--max-memory "lots": give a size of at least 64MiB`}},
		{name: "ingest unknown language", args: []string{"ingest", "cobol"}, code: 1,
			err: []string{`no source for "cobol"`, "known sources: go/spec, rust/reference"}},
		{name: "ingest unreadable file", args: []string{"ingest", "go", "/nonexistent/spec.html"}, code: 1, err: []string{"cannot read /nonexistent/spec.html"}},
		{name: "corrupt database", args: []string{"--db", corrupt, "search", "x"}, code: 1,
			err: []string{"" + corrupt + " is not a usable langspec database"}},
		// Human words and the next command (issue 50 item 8).
		{name: "a misspelt language", args: []string{"search", "defer", "--lang", "rsut"}, code: 1,
			err: []string{`unknown language "rsut"`, "hint: did you mean rust? (not stored yet: langspec ingest rust adds it)"}},
		{name: "a topic for a section id", args: []string{"section", "closures"}, code: 1,
			err: []string{`no section "closures"`, `or search for "closures" to find its sections`}},
		{name: "a flag after --", args: []string{"search", "--", "-2**2", "-n", "2"}, code: 2,
			err: []string{`-n 2 after -- would be searched for as words; put the flags before --: langspec search -n 2 -- "-2**2"`, "Run 'langspec search --help'"}},
		{name: "a dash word after -- is a word", args: []string{"search", "--limit", "1", "--", "-2**2"}, out: []string{"1 result"}},
		{name: "a port alone", args: []string{"serve", "--http", "8080"}, code: 2,
			err: []string{"--http 8080 is a port alone; give host:port, such as 127.0.0.1:8080"}},
		{name: "LANGSPEC_DB", env: map[string]string{"HOME": home, "LANGSPEC_DB": corrupt}, args: []string{"list"}, code: 1,
			err: []string{"is not a usable langspec database"}},
		// A database named in a folder that does not exist is a typo, not a
		// new database: only the default place is made.
		{name: "--db in a missing folder", args: []string{"search", "defer", "--db", "/nonexistent/dir/x.db"}, code: 2,
			err: []string{"--db /nonexistent/dir/x.db: the folder /nonexistent/dir does not exist", "mkdir -p /nonexistent/dir"}},
		{name: "LANGSPEC_DB in a missing folder", env: map[string]string{"HOME": home, "LANGSPEC_DB": "/nonexistent/dir/x.db"}, args: []string{"list"}, code: 2,
			err: []string{"LANGSPEC_DB /nonexistent/dir/x.db: the folder /nonexistent/dir does not exist"}},
	}
	runCasesThen(t, env, tests, func(t *testing.T, tt cliCase, out, errOut string) {
		if strings.Contains(out, "\x1b[") {
			t.Errorf("ANSI codes in non-terminal output")
		}
		if tt.code != 0 && strings.Count(strings.TrimSpace(errOut), "\n") > 1 {
			t.Errorf("error is not one line:\n%s", errOut)
		}
	})
	if _, err := os.Stat(defaultDB); err != nil {
		t.Errorf("default database not created: %v", err)
	}
}

func TestJSONOutput(t *testing.T) {
	env := map[string]string{"HOME": t.TempDir()}
	code, out, errOut := run(t, env, "search", "slice expressions", "--json", "--limit", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var hits []map[string]any
	if err := json.Unmarshal([]byte(out), &hits); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(hits) != 2 {
		t.Fatalf("%d hits", len(hits))
	}
	for _, k := range []string{"language", "doc", "version", "section_id", "title", "section_path", "url", "snippet", "score", "matched"} {
		if _, ok := hits[0][k]; !ok {
			t.Errorf("hit lacks %q: %v", k, hits[0])
		}
	}
	if s, _ := hits[0]["snippet"].(string); !strings.Contains(s, "**Slice**") {
		t.Errorf("snippet not marked: %q", s)
	}
	code, out, _ = run(t, env, "search", "zzqqxx", "--json")
	if code != 0 || strings.TrimSpace(out) != "[]" {
		t.Errorf("no match in JSON: exit %d, %q", code, out)
	}
	code, out, _ = run(t, env, "section", "Slice_expressions", "--json")
	var sec search.SectionResult
	if err := json.Unmarshal([]byte(out), &sec); code != 0 || err != nil || sec.Citation.SectionID != "Slice_expressions" || sec.Text == "" {
		t.Errorf("section JSON: exit %d, %v, %+v", code, err, sec)
	}
}

func TestNewCmdSearch(t *testing.T) {
	tests := []struct {
		args []string
		want search.Request
	}{
		{[]string{"slice", "expressions"}, search.Request{Query: "slice expressions", Limit: 10}},
		{[]string{"x", "--lang", "go", "--version", "go1.26", "-n", "3", "--doc", "spec", "--path-prefix", "Types"},
			search.Request{Query: "x", Language: "go", Version: "go1.26", Limit: 3, Doc: "spec", PathPrefix: "Types"}},
		{[]string{"shut a chan", "--also", "close channel", "--also", "channel closed"},
			search.Request{Query: "shut a chan", Also: []string{"close channel", "channel closed"}, Limit: 10}},
	}
	for _, tt := range tests {
		var got *searchOptions
		cmd := newCmdSearch(&factory{}, func(_ context.Context, o *searchOptions) error { got = o; return nil })
		cmd.SetArgs(tt.args)
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
		got.req.Snippet = tt.want.Snippet
		if !reflect.DeepEqual(got.req, tt.want) {
			t.Errorf("%v: opts = %+v, want %+v", tt.args, got.req, tt.want)
		}
	}
}

func TestDefaultDBPath(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HOME": "/home/u"}, "/home/u/.local/share/langspec/langspec.db"},
		{map[string]string{"HOME": "/home/u", "XDG_DATA_HOME": "/data"}, "/data/langspec/langspec.db"},
		{map[string]string{"HOME": "/home/u", "XDG_DATA_HOME": "relative"}, "/home/u/.local/share/langspec/langspec.db"},
	}
	for _, tt := range tests {
		got, err := defaultDBPath(func(k string) string { return tt.env[k] })
		if err != nil || got != tt.want {
			t.Errorf("%v: %q, %v; want %q", tt.env, got, err, tt.want)
		}
	}
	if _, err := defaultDBPath(func(string) string { return "" }); err == nil {
		t.Error("no HOME: want an error")
	}
}

// A relative --db or LANGSPEC_DB is a path from the working directory.
func TestRelativeDB(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		env  map[string]string
		args []string
		file string
	}{
		{"flag", map[string]string{"HOME": dir}, []string{"--db", "sub/a.db", "search", "slice", "--limit", "1"}, "sub/a.db"},
		{"environment", map[string]string{"HOME": dir, "LANGSPEC_DB": "sub/b.db"}, []string{"search", "slice", "--limit", "1"}, "sub/b.db"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := run(t, tt.env, tt.args...)
			if code != 0 || !strings.Contains(out, "Slice expressions") {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
			}
			if _, err := os.Stat(filepath.Join(dir, tt.file)); err != nil {
				t.Errorf("database not at %s: %v", tt.file, err)
			}
		})
	}
}

// A pre-release is searched when named, and the default only when ingested
// with --default: ingesting a nightly beside the stable Reference must not
// make every Rust search read the nightly (issue 50 item 9). versions says
// which is the default.
func TestPrereleaseIsNotTheDefaultUnasked(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"HOME": dir}
	dbPath := filepath.Join(dir, "l.db")
	print, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "mdbook", "print", "print.html"))
	if err != nil {
		t.Fatal(err)
	}
	// The nightly's copy holds a word the stable one lacks.
	nightly := filepath.Join(dir, "nightly", "print.html")
	if err := os.MkdirAll(filepath.Dir(nightly), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(nightly, bytes.Replace(print, []byte("</main>"), []byte("<p>Zwieback nightly feature.</p></main>"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	toc, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "mdbook", "print", "toc.html"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(nightly), "toc.html"), toc, 0o644); err != nil {
		t.Fatal(err)
	}
	ingest := func(from, label string, extra ...string) string {
		t.Helper()
		code, _, errOut := run(t, env, append([]string{"--db", dbPath, "ingest", "rust", "--from", from, "--version-label", label}, extra...)...)
		if code != 0 {
			t.Fatalf("ingest %s: %s", label, errOut)
		}
		return errOut
	}
	ingest(filepath.Join("..", "..", "fixtures", "mdbook", "print"), "1.95.0")
	if said := ingest(filepath.Dir(nightly), "1.97.0-nightly"); !strings.Contains(said, "1.97.0-nightly is a pre-release") {
		t.Errorf("ingesting a nightly says nothing of the default: %q", said)
	}
	versions := func() string {
		t.Helper()
		_, out, _ := run(t, env, "--db", dbPath, "versions", "rust")
		return out
	}
	if out := versions(); !strings.Contains(out, "1.95.0 (default)") || !strings.Contains(out, "1.97.0-nightly (pre-release)") {
		t.Errorf("versions after a nightly:\n%s", out)
	}
	if _, out, _ := run(t, env, "--db", dbPath, "search", "zwieback", "--lang", "rust"); strings.Contains(out, "1.97.0-nightly") {
		t.Errorf("a search without a version read the nightly:\n%s", out)
	}
	if _, out, _ := run(t, env, "--db", dbPath, "search", "zwieback", "--lang", "rust", "--version", "1.97.0-nightly"); !strings.Contains(out, "1.97.0-nightly") {
		t.Errorf("a search naming the nightly:\n%s", out)
	}
	ingest(filepath.Dir(nightly), "1.97.0-nightly", "--default")
	if out := versions(); !strings.Contains(out, "1.97.0-nightly (default)") || strings.Contains(out, "1.95.0 (default)") {
		t.Errorf("versions after --default:\n%s", out)
	}
}
