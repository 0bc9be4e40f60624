package main

// Tests of what a newcomer met with only the README: manuals that could
// not be searched from the terminal, hints that stopped one step short,
// queries that start with -, titles typed as people type them, and the
// small things (version, help, built-in source, JSON escapes, a silent
// first run).

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/manual"
	"github.com/langspec/langspec/internal/manual/find"
)

// cliCase is one run of langspec and what its output must hold.
type cliCase struct {
	name     string
	env      map[string]string // nil: the test's environment
	args     []string
	code     int
	out, err []string // substrings of stdout / stderr
	notOut   []string // substrings stdout must not hold
	notErr   []string // substrings stderr must not hold
}

// runCases runs each case with env unless it brings its own.
func runCases(t *testing.T, env map[string]string, tests []cliCase) {
	t.Helper()
	runCasesThen(t, env, tests, nil)
}

// runCasesThen is runCases with a check of its own after each case's
// (nil for none).
func runCasesThen(t *testing.T, env map[string]string, tests []cliCase, then func(t *testing.T, tt cliCase, out, errOut string)) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := env
			if tt.env != nil {
				e = tt.env
			}
			code, out, errOut := run(t, e, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, errOut)
			}
			for _, w := range tt.out {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tt.err {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
			for _, w := range tt.notOut {
				if strings.Contains(out, w) {
					t.Errorf("stdout holds %q:\n%s", w, out)
				}
			}
			for _, w := range tt.notErr {
				if strings.Contains(errOut, w) {
					t.Errorf("stderr holds %q:\n%s", w, errOut)
				}
			}
			if then != nil {
				then(t, tt, out, errOut)
			}
		})
	}
}

// seededHome is a HOME whose default database already holds the Go spec,
// so the cases below see no first-run line.
func seededHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	if code, _, errOut := run(t, map[string]string{"HOME": home}, "versions"); code != 0 {
		t.Fatalf("seeding: %s", errOut)
	}
	return home
}

// The manual commands run the manual tools from the terminal, with
// citations, over the repository's sample manuals.
func TestManualCommands(t *testing.T) {
	home := seededHome(t)
	env := map[string]string{"HOME": home, "MANUALS_ROOT": fixtureManuals}
	noEnv := map[string]string{"HOME": home}
	missing := filepath.Join(t.TempDir(), "nowhere")
	const lag = "database-failover/promote-the-replica/verify-replication-lag"
	runCases(t, env, []cliCase{
		{name: "list", args: []string{"manual", "list"}, out: []string{"insurance-ja\nkasai-hoken\nnodejs-en\nops-en\nops-handbook\n"}},
		{name: "list json", args: []string{"manual", "list", "--json"}, out: []string{`"manuals": [`, `"kasai-hoken"`}},
		{name: "ls", args: []string{"manual", "ls", "ops-en"}, out: []string{"runbooks/db/failover.md\n", "alerts/thresholds.json\n"}},
		{name: "ls Japanese names", args: []string{"manual", "ls", "kasai-hoken"}, out: []string{"約款/普通保険約款.md\n", "設定/支払基準.json\n"}},
		{name: "toc", args: []string{"manual", "toc", "ops-en", "runbooks/db/failover.md"},
			out: []string{"ops-en/runbooks/db/failover.md\n", "Database failover  [database-failover, lines 3-30]",
				"    Verify replication lag  [" + lag + ", lines 19-22]"}},
		{name: "read a node", args: []string{"manual", "read", "ops-en", "runbooks/db/failover.md", "--node", lag},
			out: []string{"Verify replication lag  [ops-en runbooks/db/failover.md#" + lag + ", lines 19-22]", "Check lag is below 30 s before promoting."}},
		{name: "read lines of a node that match", args: []string{"manual", "read", "ops-en", "runbooks/db/failover.md", "--node", "database-failover", "--query", "lag"},
			out: []string{"[ops-en runbooks/db/failover.md#database-failover, lines 3-30]", "21: Check lag is below 30 s before promoting."}},
		{name: "read two nodes", args: []string{"manual", "read", "ops-en", "runbooks/db/failover.md", "--node", lag, "--node", "rollback/faq"},
			out: []string{"#" + lag + ", lines 19-22]", "#rollback/faq, lines 33-35]"}},
		{name: "read a file, cut", args: []string{"manual", "read", "ops-en", "alerts/thresholds.json", "--max-chars", "40"},
			out: []string{"alerts/thresholds.json  [ops-en alerts/thresholds.json#file, lines 1-8]", "[cut at --max-chars]"}},
		{name: "find Japanese", args: []string{"manual", "find", "地震火災費用", "--manual", "kasai-hoken", "--limit", "3"},
			out: []string{"1. ", "  [kasai-hoken]  (", "特約/地震火災費用特約.md#", ", lines ", "line ", "3 of ", " candidates in ",
				"read one: langspec manual read kasai-hoken "}},
		{name: "find English", args: []string{"manual", "find", "replication", "lag", "--limit", "1"},
			out: []string{"1. Verify replication lag  [ops-en]  (", "   runbooks/db/failover.md#" + lag + ", lines 19-22\n",
				"   line 21: Check lag is below 30 s before promoting.", "read one: langspec manual read ops-en runbooks/db/failover.md --node " + lag}},
		{name: "find with --manuals-root", env: noEnv, args: []string{"manual", "--manuals-root", fixtureManuals, "find", "replication lag", "-n", "1"},
			out: []string{"Verify replication lag  [ops-en]", "read one: langspec manual read ops-en runbooks/db/failover.md --node " + lag + " --manuals-root " + fixtureManuals + "\n"}},
		{name: "find nothing", args: []string{"manual", "find", "zzqqxxyy"}, err: []string{`nothing in the manuals matches "zzqqxxyy"`}},

		{name: "unknown manual names the manuals there", args: []string{"manual", "ls", "nope"}, code: 1,
			err: []string{`langspec: no manual "nope"`, `hint: manual ids: insurance-ja, kasai-hoken, nodejs-en, ops-en, ops-handbook`}},
		{name: "unknown manual in find", args: []string{"manual", "find", "lag", "--manual", "nope"}, code: 1,
			err: []string{`no manual "nope"`, "manual ids: insurance-ja, kasai-hoken"}},
		{name: "a path out of the manual", args: []string{"manual", "read", "ops-en", "../kasai-hoken/用語集.md"}, code: 1,
			err: []string{`path "../kasai-hoken/用語集.md" contains a ".." segment`}},
		{name: "an absolute path", args: []string{"manual", "toc", "ops-en", "/etc/passwd.md"}, code: 1, err: []string{"absolute", "hint:"}},
		{name: "unknown node", args: []string{"manual", "read", "ops-en", "runbooks/db/failover.md", "--node", "nope"}, code: 1,
			err: []string{`no node "nope"`, "nearest node ids:"}},
		{name: "no manuals folder", env: map[string]string{"HOME": home, "MANUALS_ROOT": missing}, args: []string{"manual", "list"}, code: 1,
			err: []string{"no manuals folder at " + missing, "--manuals-root DIR or MANUALS_ROOT=DIR"}},

		{name: "bad scope", args: []string{"manual", "read", "ops-en", "x.md", "--scope", "bogus"}, code: 2, err: []string{`--scope "bogus" is not a scope`}},
		{name: "section scope with two nodes", args: []string{"manual", "read", "ops-en", "x.md", "--scope", "section", "--node", "a", "--node", "b"}, code: 2,
			err: []string{"give one --node ID (got 2)"}},
		{name: "query without a node", args: []string{"manual", "read", "ops-en", "x.md", "--query", "lag"}, code: 2, err: []string{"--query picks the lines"}},
		{name: "max chars out of range", args: []string{"manual", "read", "ops-en", "x.md", "--max-chars", "100001"}, code: 2, err: []string{"--max-chars 100001 is out of range"}},
		{name: "find needs a query", args: []string{"manual", "find"}, code: 2, err: []string{"manual find needs a query"}},
		{name: "find limit", args: []string{"manual", "find", "x", "--limit", "0"}, code: 2, err: []string{"--limit 0 is out of range; use 1 to 100"}},
		{name: "read needs a path", args: []string{"manual", "read", "ops-en"}, code: 2, err: []string{"takes MANUAL_ID and PATH"}},
		{name: "unknown subcommand", args: []string{"manual", "grep"}, code: 2, err: []string{`unknown command "grep" for "langspec manual"`}},
	})
}

// --json prints what the tools return: manual find is manual_find's result
// with manual_hits' first page; read, ls and toc are the tools' results,
// field for field.
func TestManualCommandsJSON(t *testing.T) {
	env := map[string]string{"HOME": seededHome(t), "MANUALS_ROOT": fixtureManuals}
	jsonOf := func(t *testing.T, v any, args ...string) {
		t.Helper()
		code, out, errOut := run(t, env, append(args, "--json")...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if err := json.Unmarshal([]byte(out), v); err != nil {
			t.Fatalf("%v: not JSON: %v\n%s", args, err, out)
		}
	}

	var found struct {
		Summary find.Summary  `json:"summary"`
		Hits    find.HitsPage `json:"hits"`
	}
	jsonOf(t, &found, "manual", "find", "replication lag", "--limit", "2")
	c := found.Hits.Candidates
	if found.Summary.TraceID == "" || found.Hits.TraceID != found.Summary.TraceID || found.Hits.Total != found.Summary.Candidates ||
		len(c) != 2 || c[0].ManualID != "ops-en" || c[0].Path != "runbooks/db/failover.md" ||
		c[0].NodeID != "database-failover/promote-the-replica/verify-replication-lag" || c[0].LineStart != 19 || c[0].Snippet == "" {
		t.Errorf("find JSON: %+v", found)
	}

	// The same calls the MCP tools make, on the same folder.
	lib, err := manual.Open(fixtureManuals)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	calls := &find.Service{Lib: lib}
	ctx := context.Background()

	var read find.ReadResult
	jsonOf(t, &read, "manual", "read", "kasai-hoken", "約款/普通保険約款.md", "--node", "第２章-補償内容", "--max-chars", "300")
	want, err := calls.Read(ctx, find.ReadRequest{ManualID: "kasai-hoken", Path: "約款/普通保険約款.md", Scope: "section", NodeID: "第２章-補償内容", MaxChars: 300})
	if err != nil || !reflect.DeepEqual(read, want) || len(read.Parts) != 1 || !read.Parts[0].Truncated {
		t.Errorf("read JSON %+v\nmanual_read   %+v (%v)", read, want, err)
	}

	var toc find.Toc
	jsonOf(t, &toc, "manual", "toc", "ops-en", "runbooks/db/failover.md")
	wantToc, err := calls.Toc(ctx, "ops-en", "runbooks/db/failover.md")
	if err != nil || !reflect.DeepEqual(toc, wantToc) || len(toc.Nodes) < 5 {
		t.Errorf("toc JSON %+v\nmanual_toc   %+v (%v)", toc, wantToc, err)
	}

	var ls find.FileList
	jsonOf(t, &ls, "manual", "ls", "kasai-hoken")
	wantLs, err := calls.Ls(ctx, "kasai-hoken")
	if err != nil || !reflect.DeepEqual(ls, wantLs) {
		t.Errorf("ls JSON %+v\nmanual_ls   %+v (%v)", ls, wantLs, err)
	}
}

// search says where manuals are searched when the specs hold nothing.
func TestSearchPointsAtManuals(t *testing.T) {
	home := seededHome(t)
	withManuals := map[string]string{"HOME": home, "MANUALS_ROOT": fixtureManuals}
	if code, _, errOut := run(t, withManuals, "ingest", "manuals"); code != 0 {
		t.Fatalf("ingest manuals: %s", errOut)
	}
	const pointer = "search reads the specifications only; to search the manuals (insurance-ja, kasai-hoken, nodejs-en, ops-en, ops-handbook), run: langspec manual find 給与"
	runCases(t, withManuals, []cliCase{
		{name: "after ingest manuals", args: []string{"search", "給与"}, err: []string{`no sections match "給与"`, pointer}},
		// The index in the database is enough: a later shell without MANUALS_ROOT.
		{name: "from the index alone", env: map[string]string{"HOME": home}, args: []string{"search", "給与"}, err: []string{pointer}},
		{name: "a query to quote", args: []string{"search", "給与 規程"}, err: []string{"run: langspec manual find '給与 規程'"}},
		{name: "not when something matched", args: []string{"search", "slice"}, notErr: []string{"manual find"}},
		{name: "not without manuals", env: map[string]string{"HOME": t.TempDir()}, args: []string{"search", "給与"},
			err: []string{`no sections match "給与"`}, notErr: []string{"manual find"}},
	})
}

// ingest manuals with nothing to index says how to point at the manuals,
// and fails: nothing was done.
func TestIngestManualsWithoutManuals(t *testing.T) {
	home := seededHome(t)
	ws := t.TempDir()
	t.Chdir(ws)
	empty := filepath.Join(t.TempDir(), "manuals")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	runCases(t, map[string]string{"HOME": home}, []cliCase{
		{name: "no manuals folder", args: []string{"ingest", "manuals"}, code: 1,
			err: []string{"langspec: no manuals folder at " + filepath.Join(ws, "manuals"), "--manuals-root DIR or MANUALS_ROOT=DIR"}},
		{name: "json too", args: []string{"ingest", "manuals", "--json"}, code: 1, err: []string{"no manuals folder"}},
		{name: "an empty folder", args: []string{"ingest", "manuals", "--manuals-root", empty}, code: 1,
			err: []string{"no manuals in " + empty, "put one folder of .md and .json files per manual in it"}},
		{name: "the folder named", args: []string{"ingest", "manuals", "--manuals-root", fixtureManuals},
			out: []string{"kasai-hoken: ", "ops-en: "}},
	})
	if code, out, _ := run(t, map[string]string{"HOME": home}, "ingest", "manuals", "--json"); code != 1 || out != "" {
		t.Errorf("--json without manuals: exit %d, stdout %q; want 1 and nothing", code, out)
	}
}

// A language langspec can ingest, not stored yet, gets the command that
// adds it; one it knows nothing of gets the list of what is stored.
func TestNotStoredLanguageHints(t *testing.T) {
	env := map[string]string{"HOME": seededHome(t)}
	tests := []cliCase{
		{name: "search rust", args: []string{"search", "x", "--lang", "rust"}, code: 1,
			err: []string{`langspec: language "rust" is not stored yet`, `hint: run langspec ingest rust to add The Rust Reference`, "available languages: go"}},
		{name: "section java", args: []string{"section", "Types", "--lang", "java"}, code: 1, err: []string{"run langspec ingest java to add The Java Language Specification"}},
		{name: "plan typescript", args: []string{"plan", "--lang", "typescript"}, code: 1, err: []string{"run langspec ingest typescript"}},
		{name: "versions ecmascript", args: []string{"versions", "ecmascript"}, code: 1, err: []string{"run langspec ingest ecmascript"}},
		{name: "unknown language", args: []string{"search", "x", "--lang", "cobol"}, code: 1,
			err: []string{`unknown language "cobol"`, `hint: available languages: go`}, notErr: []string{"langspec ingest"}},
	}
	if matches, _ := filepath.Glob("/usr/share/doc/python3*/html/reference/index.html"); len(matches) > 0 {
		tests = append(tests, cliCase{name: "python with a local copy", args: []string{"search", "x", "--lang", "python"}, code: 1,
			err: []string{"run langspec ingest python to add The Python Language Reference (a local copy was found: /usr/share/doc/python3"}})
	} else {
		t.Log("no /usr/share/doc/python3*/html/reference here: the local-copy case is covered by internal/ingest TestNotStored only")
	}
	runCases(t, env, tests)
}

// A whole Sphinx build given as --from is read at its reference/ folder.
func TestIngestPythonFromWholeBuild(t *testing.T) {
	build := t.TempDir()
	ref := filepath.Join(build, "reference")
	if err := os.MkdirAll(ref, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"index.html", "lexical_analysis.html", "expressions.html"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "sphinx", name))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(ref, name), b, 0o644)
	}
	os.WriteFile(filepath.Join(build, "index.html"), []byte("<html><body><h1>Python documentation</h1></body></html>"), 0o644)
	tests := []cliCase{
		{name: "fixture build folder", args: []string{"ingest", "python", "--from", build},
			out: []string{"python/reference ", "from " + filepath.Join(ref, "index.html")}},
		{name: "fixture build index.html", args: []string{"ingest", "python", "--from", filepath.Join(build, "index.html")},
			out: []string{"unchanged", "from " + filepath.Join(ref, "index.html")}},
	}
	const debian = "/usr/share/doc/python3/html"
	if _, err := os.Stat(filepath.Join(debian, "reference", "index.html")); err == nil {
		tests = append(tests, cliCase{name: "python3-doc", args: []string{"--db", filepath.Join(t.TempDir(), "p.db"), "ingest", "python", "--from", debian},
			out: []string{"python/reference ", "from " + debian + "/reference/index.html"}})
	} else {
		t.Logf("skipped the python3-doc case: %s/reference/index.html is not here (apt-get install python3-doc installs it)", debian)
	}
	runCases(t, map[string]string{"HOME": seededHome(t)}, tests)
}

// Queries that start with - work after --, and the flag error says so.
func TestSearchQueriesStartingWithDash(t *testing.T) {
	runCases(t, map[string]string{"HOME": seededHome(t)}, []cliCase{
		{name: "after --", args: []string{"search", "--", "-2**2"}, out: []string{"1. ", " results\n"}},
		{name: "a long flag's look after --", args: []string{"search", "--", "--release"}, notErr: []string{"unknown flag"}},
		{name: "flags before --", args: []string{"search", "--limit", "1", "--", "-x"}, out: []string{"1 result\n"}},
		{name: "shorthand", args: []string{"search", "-2**2"}, code: 2,
			err: []string{"langspec: unknown shorthand flag: '2' in -2**2; to search for text that starts with -, put -- before it: langspec search -- '-2**2'"}},
		{name: "long", args: []string{"search", "--release"}, code: 2,
			err: []string{"unknown flag: --release; to search for text that starts with -, put -- before it: langspec search -- --release"}},
		{name: "other flag errors are as they were", args: []string{"search", "x", "--lang"}, code: 2,
			err: []string{"flag needs an argument: --lang"}, notErr: []string{"put -- before it"}},
	})
}

// A section is found by its title as people type it; otherwise the error
// names up to five near ids, with titles where they add something.
func TestSectionByTitle(t *testing.T) {
	home := seededHome(t)
	env := map[string]string{"HOME": home}
	tests := []cliCase{
		{name: "singular", args: []string{"section", "method set"}, out: []string{"Method sets  [go spec go1.26]", "https://go.dev/ref/spec#Method_sets"}},
		{name: "case and article", args: []string{"section", "THE METHOD SETS"}, out: []string{"https://go.dev/ref/spec#Method_sets"}},
		{name: "an id with the other plural", args: []string{"section", "Type_assertion"}, out: []string{"https://go.dev/ref/spec#Type_assertions"}},
		{name: "json", args: []string{"section", "slice expression", "--json"}, out: []string{`"section_id": "Slice_expressions"`}},
		{name: "a typo", args: []string{"section", "metod sets"}, code: 1, err: []string{`no section "metod sets"`, `hint: nearest ids: Method_sets`}},
	}
	const pyRef = "/usr/share/doc/python3/html/reference"
	if _, err := os.Stat(filepath.Join(pyRef, "index.html")); err == nil {
		if code, _, errOut := run(t, env, "ingest", "python", "--from", pyRef); code != 0 {
			t.Fatalf("ingest python: %s", errOut)
		}
		tests = append(tests,
			cliCase{name: "python title with number and article", args: []string{"section", "the yield statement", "--lang", "python"},
				out: []string{"7.7. The yield statement  [python reference", "simple_stmts.html#the-yield-statement"}},
			cliCase{name: "python, no language named", args: []string{"section", "yield statements"}, out: []string{"The yield statement  [python reference"}},
			cliCase{name: "python typo", args: []string{"section", "the yeld statement", "--lang", "python"}, code: 1,
				err: []string{"nearest ids: the-yield-statement (7.7. The yield statement)"}},
		)
	} else {
		t.Logf("skipped the Python cases: %s is not here (apt-get install python3-doc installs it)", pyRef)
	}
	runCases(t, env, tests)

	// At most five suggestions.
	_, _, errOut := run(t, env, "section", "Go_statemens", "--lang", "go")
	_, list, ok := strings.Cut(strings.TrimSpace(errOut), "nearest ids: ")
	if n := len(strings.Split(list, ", ")); !ok || n < 2 || n > 5 {
		t.Errorf("%d suggestions, want 2 to 5: %s", n, errOut)
	}
}

func TestVersionCommand(t *testing.T) {
	env := map[string]string{"HOME": t.TempDir()}
	want := readVersion().String() + "\n"
	runCases(t, env, []cliCase{
		{name: "version", args: []string{"version"}, out: []string{want}},
		{name: "--version", args: []string{"--version"}, out: []string{want}},
		{name: "json", args: []string{"version", "--json"}, out: []string{`"version": "`, `"go": "go1.`, `"modified": `}},
		{name: "no arguments", args: []string{"version", "x"}, code: 2, err: []string{"takes no arguments"}},
	})
	if _, err := os.Stat(filepath.Join(env["HOME"], ".local")); err == nil {
		t.Error("version opened the database")
	}
	// search's own --version flag is a spec version, as before.
	runCases(t, map[string]string{"HOME": t.TempDir()}, []cliCase{
		{name: "search --version", args: []string{"search", "slice", "--version", "go1.26", "-n", "1"}, out: []string{"[go spec go1.26]"}},
	})
}

func TestVersionFromBuildInfo(t *testing.T) {
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		s    stamp
		want versionInfo
		line string
	}{
		{"no build info", nil, stamp{}, versionInfo{Version: "dev", Go: readVersion().Go}, "langspec dev (" + readVersion().Go + ")"},
		{"a release", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.4.0"}}, stamp{},
			versionInfo{Version: "v1.4.0", Go: "go1.26.0"}, "langspec v1.4.0 (go1.26.0)"},
		{"a checkout with changes", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "c6783ae1abc1d074bc495406207268d5c11b6330"},
			{Key: "vcs.time", Value: "2026-11-27T12:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}, stamp{},
			versionInfo{Version: "(devel)", Go: "go1.26.0", Revision: "c6783ae1abc1d074bc495406207268d5c11b6330", Time: "2026-11-27T12:00:00Z", Modified: true},
			"langspec (devel) (c6783ae1abc1+modified, 2026-11-27T12:00:00Z, go1.26.0)"},
		// go install github.com/langspec/langspec/cmd/langspec@COMMIT or
		// @latest before a tag: the pseudo-version names the commit and its date.
		{"a pseudo-version", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.0.0-20261127120000-c6783ae1abc1"}}, stamp{},
			versionInfo{Version: "v0.0.0-20261127120000-c6783ae1abc1", Go: "go1.26.0", Revision: "c6783ae1abc1", Time: "2026-11-27T12:00:00Z"},
			"langspec v0.0.0-20261127120000-c6783ae1abc1 (c6783ae1abc1, 2026-11-27T12:00:00Z, go1.26.0)"},
		{"a pseudo-version after a tag", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.4.1-0.20261127120000-c6783ae1abc1+incompatible"}}, stamp{},
			versionInfo{Version: "v1.4.1-0.20261127120000-c6783ae1abc1+incompatible", Go: "go1.26.0", Revision: "c6783ae1abc1", Time: "2026-11-27T12:00:00Z"},
			"langspec v1.4.1-0.20261127120000-c6783ae1abc1+incompatible (c6783ae1abc1, 2026-11-27T12:00:00Z, go1.26.0)"},
		{"a pre-release tag is no pseudo-version", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.5.0-rc.1"}}, stamp{},
			versionInfo{Version: "v1.5.0-rc.1", Go: "go1.26.0"}, "langspec v1.5.0-rc.1 (go1.26.0)"},
		// A release archive: goreleaser stamps all three with -ldflags -X,
		// over a build that recorded no VCS information (-buildvcs=false).
		{"a release archive", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}},
			stamp{version: "1.4.0", commit: "c6783ae1abc1d074bc495406207268d5c11b6330", date: "2026-11-27T12:00:00Z"},
			versionInfo{Version: "1.4.0", Go: "go1.26.0", Revision: "c6783ae1abc1d074bc495406207268d5c11b6330", Time: "2026-11-27T12:00:00Z"},
			"langspec 1.4.0 (c6783ae1abc1, 2026-11-27T12:00:00Z, go1.26.0)"},
		{"a stamp wins over the checkout", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0000000000000000000000000000000000000000"}, {Key: "vcs.time", Value: "2020-01-01T00:00:00Z"}}},
			stamp{version: "v1.4.0", commit: "c6783ae1abc1d074bc495406207268d5c11b6330", date: "2026-11-27T12:00:00Z"},
			versionInfo{Version: "v1.4.0", Go: "go1.26.0", Revision: "c6783ae1abc1d074bc495406207268d5c11b6330", Time: "2026-11-27T12:00:00Z"},
			"langspec v1.4.0 (c6783ae1abc1, 2026-11-27T12:00:00Z, go1.26.0)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := versionFrom(tt.bi, tt.s)
			if got != tt.want || got.String() != tt.line {
				t.Errorf("got %+v %q\nwant %+v %q", got, got.String(), tt.want, tt.line)
			}
		})
	}
}

// search --help describes the channels search runs now.
func TestSearchHelp(t *testing.T) {
	runCases(t, map[string]string{"HOME": t.TempDir()}, []cliCase{
		{name: "help", args: []string{"search", "--help"},
			out:    []string{"Several channels run\nat once", "words     the query's words by stem", "related ", "literal ", "symbol ", "typo:W", "semantic ", "langspec search -n 3 -- -2**2", "langspec manual find"},
			notOut: []string{"falls back to any word", "then to substrings"}},
	})
}

// The built-in copy shows as built in; its sections still cite go.dev.
func TestBuiltInSource(t *testing.T) {
	runCases(t, map[string]string{"HOME": seededHome(t)}, []cliCase{
		{name: "versions", args: []string{"versions"}, out: []string{"SOURCE", "built in"}, notOut: []string{"https://go.dev/ref/spec"}},
		{name: "versions json", args: []string{"versions", "--json"}, out: []string{`"source_url": "embedded:gospec/go_spec.html"`}},
		{name: "citations keep the canonical URL", args: []string{"search", "slice expressions", "-n", "1"}, out: []string{"https://go.dev/ref/spec#Slice_expressions"}},
		{name: "ingest says so", args: []string{"ingest", "go", "--from", "embedded"}, out: []string{"from the copy built into langspec"}},
	})
}

// --json writes < > & as they are.
func TestJSONIsNotHTMLEscaped(t *testing.T) {
	runCases(t, map[string]string{"HOME": seededHome(t)}, []cliCase{
		{name: "section", args: []string{"section", "Channel_types", "--json"}, out: []string{"<-chan"}, notOut: []string{`\u003c`, `\u003e`, `\u0026`}},
		{name: "search", args: []string{"search", "<-chan", "--json", "-n", "3"}, out: []string{"<-"}, notOut: []string{`\u003c`, `\u003e`}},
		{name: "config schema", args: []string{"config", "schema"}, notOut: []string{`\u003c`, `\u003e`, `\u0026`}},
	})
}

// A first run says once, on stderr, what it creates where, terminal or not;
// stdout keeps only the answer.
func TestFirstRunNotice(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home}
	path := filepath.Join(home, ".local", "share", "langspec", "langspec.db")
	code, out, errOut := run(t, env, "search", "slice", "--json", "-n", "1")
	var hits []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &hits) != nil || len(hits) != 1 {
		t.Fatalf("exit %d, stdout not the JSON answer: %s", code, out)
	}
	if want := "langspec: first run: creating " + path + " with the Go specification built in\n"; errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
	if _, _, errOut := run(t, env, "search", "slice", "-n", "1"); errOut != "" {
		t.Errorf("second run stderr %q, want nothing", errOut)
	}
	// A database made by another command holds no spec yet: said too.
	other := filepath.Join(t.TempDir(), "m.db")
	withManuals := map[string]string{"HOME": home, "MANUALS_ROOT": fixtureManuals, "LANGSPEC_DB": other}
	if code, _, errOut := run(t, withManuals, "ingest", "manuals"); code != 0 || errOut != "" {
		t.Fatalf("ingest manuals: exit %d, %s", code, errOut)
	}
	if _, _, errOut := run(t, withManuals, "versions"); !strings.Contains(errOut, other+" holds no specification yet: loading the Go specification built into langspec") {
		t.Errorf("stderr %q", errOut)
	}
}

// serve over stdio: the notice goes to stderr, stdout carries only the
// protocol, and the start-up line names the database, what it holds and
// how to add a language.
func TestServeStartupNamesTheDatabase(t *testing.T) {
	bin := langspecBinary(t)
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "fresh.db")
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "--db", dbPath, "serve", "--log-level", "info")
	cmd.Env = []string{"HOME=" + dir, "MANUALS_ROOT=" + fixtureManuals}
	cmd.Stdin = strings.NewReader("") // no requests: the server starts and stops
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("serve: %v\n%s", err, stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout %q, want nothing but the protocol", stdout.String())
	}
	for _, want := range []string{
		"langspec: first run: creating " + dbPath + " with the Go specification built in\n",
		`msg="serving MCP on stdio" db=` + dbPath + " languages=go",
		`hint="add a language with langspec ingest LANG (rust, java, ecmascript, python, typescript); read another database with --db PATH or LANGSPEC_DB in the server's environment"`,
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}

// manual read picks the scope from the flags as its help says.
func TestNewCmdManualRead(t *testing.T) {
	tests := []struct {
		args []string
		want find.ReadRequest
	}{
		{[]string{"m", "a.md"}, find.ReadRequest{ManualID: "m", Path: "a.md", Scope: "file"}},
		{[]string{"m", "a.md", "--node", "n"}, find.ReadRequest{ManualID: "m", Path: "a.md", Scope: "section", NodeID: "n"}},
		{[]string{"m", "a.md", "--node", "n", "--node", "o", "--max-sections", "1"},
			find.ReadRequest{ManualID: "m", Path: "a.md", Scope: "sections", NodeIDs: []string{"n", "o"}, MaxSections: 1}},
		{[]string{"m", "a.md", "--node", "n", "--query", "lag"}, find.ReadRequest{ManualID: "m", Path: "a.md", Scope: "snippet", NodeID: "n", Query: "lag"}},
		{[]string{"m", "a.md", "--node", "n", "--scope", "sections", "--max-chars", "9"},
			find.ReadRequest{ManualID: "m", Path: "a.md", Scope: "sections", NodeIDs: []string{"n"}, MaxChars: 9}},
	}
	for _, tt := range tests {
		var got *manualReadOptions
		cmd := newCmdManualRead(&manualBase{}, func(_ context.Context, o *manualReadOptions) error { got = o; return nil })
		cmd.SetArgs(tt.args)
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		if !reflect.DeepEqual(got.req, tt.want) {
			t.Errorf("%v: req = %+v, want %+v", tt.args, got.req, tt.want)
		}
	}
}
