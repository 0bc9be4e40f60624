package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runBinary runs the built binary (LANGSPEC_TEST_BINARY when set, so the
// same cases can be run against another build) with HOME in a temporary
// folder.
func runBinary(t *testing.T, bin, home string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = []string{"HOME=" + home}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), errOut.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, out.String(), errOut.String()
}

// TestDiffHistoryFromOutside plays a user and a model on the real Go spec
// of 1.19 and 1.21–1.26 (fixtures/gospec-history), through the built
// binary: every bug of issue 49 as the issue reports it, the pages a model
// reads over MCP, the classes, the releases and since. Run against the
// build before the fix (LANGSPEC_TEST_BINARY), each subtest fails.
func TestDiffHistoryFromOutside(t *testing.T) {
	bin := langspecBinary(t)
	home := t.TempDir()
	dbPath := filepath.Join(home, "langspec.db")
	ls := func(args ...string) (int, string, string) {
		return runBinary(t, bin, home, append([]string{"--db", dbPath}, args...)...)
	}
	// The newest release is the spec langspec has built in, not a second copy.
	fixture := func(v string) string {
		if v == "go1.26" {
			return filepath.Join("..", "..", "fixtures", "gospec", "go_spec.html")
		}
		return filepath.Join("..", "..", "fixtures", "gospec-history", v+".html")
	}

	// Bug 49.2: a spec that states a date, not a version, is refused,
	// naming the flag; nothing is stored under today's date.
	t.Run("a spec without its version", func(t *testing.T) {
		code, _, stderr := ls("ingest", "go", "--from", fixture("go1.21"))
		if code != 2 || !strings.Contains(stderr, `it says "Version of Aug 2, 2023"`) || !strings.Contains(stderr, "--version-label go1.21") {
			t.Errorf("exit %d\n%s", code, stderr)
		}
		if _, out, _ := ls("versions", "go"); strings.Contains(out, "fixtures/gospec-history") {
			t.Errorf("stored anyway:\n%s", out)
		}
	})
	for _, v := range []string{"go1.19", "go1.21", "go1.22", "go1.23", "go1.24", "go1.25", "go1.26"} {
		if code, _, stderr := ls("ingest", "go", "--from", fixture(v), "--version-label", v); code != 0 {
			t.Fatalf("ingest %s: exit %d\n%s", v, code, stderr)
		}
	}

	// Bug 49.1: the hints, run as printed, show the versions compared.
	t.Run("hints run as printed", func(t *testing.T) {
		_, out, _ := ls("diff", "go", "--from", "go1.19", "--to", "go1.21")
		m := regexp.MustCompile(`more: (langspec diff [^\]]+)\]`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no next-page hint:\n%s", out)
		}
		code, next, stderr := ls(strings.Fields(m[1])[1:]...)
		if code != 0 || !strings.HasPrefix(next, "go/spec go1.19 → go1.21") {
			t.Errorf("%s: exit %d\n%s%s", m[1], code, next, stderr)
		}
		m = regexp.MustCompile(`see them all with (langspec diff .*) --section ID`).FindStringSubmatch(out)
		first := regexp.MustCompile(`(?m)^1\. \w+ .* https://go\.dev/ref/spec#(\S+)$`).FindStringSubmatch(out)
		if m == nil || first == nil {
			t.Fatalf("no hint for a section's sentences:\n%s", out)
		}
		code, one, stderr := ls(append(strings.Fields(m[1])[1:], "--section", first[1])...)
		if code != 0 || !strings.HasPrefix(one, "go/spec go1.19 → go1.21, section "+first[1]) {
			t.Errorf("%s --section %s: exit %d\n%s%s", m[1], first[1], code, one, stderr)
		}
	})

	for _, tc := range []struct {
		name string
		args []string
		code int
		out  []string // in stdout, or stderr when code != 0
	}{
		// Bug 49.3.
		{"versions in the wrong order", []string{"--from", "go1.22", "--to", "go1.21"}, 2,
			[]string{"from go1.22 is newer than to go1.21", "from go1.21, to go1.22"}},
		// Bug 49.4.
		{"a query that finds nothing", []string{"--query", "zzxqv wibblefrotz"}, 1, []string{"matches \"zzxqv wibblefrotz\""}},
		// Bug 49.5.
		{"an offset far past the end", []string{"--from", "go1.22", "--to", "go1.23", "--offset", "500"}, 2, []string{"use an offset from 0 to 6"}},
		{"the offset of the total", []string{"--from", "go1.22", "--to", "go1.23", "--offset", "7"}, 2, []string{"use an offset from 0 to 6"}},
		{"the last offset", []string{"--from", "go1.22", "--to", "go1.23", "--offset", "6"}, 0, []string{"\n7. "}},
		// Bug 49.6.
		{"versions as people write them", []string{"--from", "1.22", "--to", "go1.23.0"}, 0, []string{"go/spec go1.22 → go1.23"}},
		{"the footer counts what it pages", []string{"--from", "go1.19", "--to", "go1.21"}, 0, []string{"of 34 sections that differ"}},
		// Substance first, classes said, releases named.
		{"rule changes on the first page", []string{"--from", "go1.21", "--to", "go1.22"}, 0,
			[]string{"changed For statements with for clause [rule]", "changed For statements with range clause [rule]"}},
		{"editorial edits counted by chapter", []string{"--from", "go1.22", "--to", "go1.23"}, 0, []string{"Editorial only, by chapter:"}},
		{"a range names each release", []string{"--from", "go1.21", "--to", "go1.26", "--class", "rule", "--limit", "100"}, 0,
			[]string{"go1.22: changed For statements with for clause [rule]", "go1.23: changed For statements with range clause [rule]",
				"go1.24: changed Alias declarations [rule]", "go1.25: removed Core types [rule]", "go1.26: changed Allocation [rule]"}},
		{"moved is moved", []string{"--from", "go1.25", "--to", "go1.26", "--section", "Struct_literals"}, 0, []string{"(moved from Composite_literals)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := ls(append([]string{"diff", "go"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			out := stdout
			if tc.code != 0 {
				out = stderr
			}
			for _, w := range tc.out {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}

	// Bug 49.6: a section whose text changed is never "similarity": 1.
	t.Run("similarity below 1 when the text changed", func(t *testing.T) {
		for _, pair := range [][2]string{{"go1.22", "go1.23"}, {"go1.21", "go1.22"}} {
			_, out, _ := ls("diff", "go", "--from", pair[0], "--to", pair[1], "--limit", "100", "--json")
			var ans struct {
				Items []struct {
					Kind       string  `json:"kind"`
					Similarity float64 `json:"similarity"`
				} `json:"items"`
			}
			if err := json.Unmarshal([]byte(out), &ans); err != nil {
				t.Fatal(err)
			}
			for _, it := range ans.Items {
				if it.Kind == "changed" && it.Similarity >= 1 {
					t.Errorf("%s → %s: a changed section has similarity %v", pair[0], pair[1], it.Similarity)
				}
			}
		}
	})

	t.Run("since", func(t *testing.T) {
		code, out, stderr := ls("since", "go", "--section", "For_range")
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		for _, w := range []string{"go1.22, changed go1.23 [rule]: - For an integer value n", "go1.23 [rule]: - For a function f, the iteration proceeds"} {
			if !strings.Contains(out, w) {
				t.Errorf("since For_range lacks %q:\n%s", w, out)
			}
		}
		_, out, _ = ls("since", "go", "--section", "Core_types")
		if !strings.Contains(out, "removed in go1.25") {
			t.Errorf("since Core_types:\n%s", out)
		}
	})

	// Pages a model reads: at most 8 KB each, text and structured content
	// together, and since over MCP.
	t.Run("over MCP", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
		defer cancel()
		stderr := &lockedBuffer{}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: serveCmd(bin, dbPath, stderr)}, nil)
		if err != nil {
			t.Fatalf("connect: %v\n%s", err, stderr)
		}
		defer cs.Close()
		versions := []string{"go1.19", "go1.21", "go1.22", "go1.23", "go1.24", "go1.25", "go1.26"}
		for i := 1; i < len(versions); i++ {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "spec_diff", Arguments: map[string]any{"language": "go", "from": versions[i-1], "to": versions[i]}})
			if err != nil || res.IsError {
				t.Fatalf("spec_diff %s → %s: %v %+v", versions[i-1], versions[i], err, res)
			}
			raw, _ := json.Marshal(res)
			if len(raw) > 8000 {
				t.Errorf("spec_diff %s → %s: %d bytes, want ≤ 8,000", versions[i-1], versions[i], len(raw))
			}
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "spec_diff", Arguments: map[string]any{"language": "go", "since": true, "query": "range over an integer"}})
		if err != nil || res.IsError {
			t.Fatalf("since: %v %+v", err, res)
		}
		if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "For_range") || !strings.Contains(text, "go1.22") {
			t.Errorf("since over MCP:\n%s", text)
		}
	})
}
