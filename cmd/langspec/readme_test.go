package main

// README.md is the newcomer's first hour: every command it shows must work
// as shown, on a fresh home, in the order shown. TestReadmeCommands runs
// them; a command it does not know how to run fails it, so the front page
// cannot show one nobody runs.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readmeBlock is one fenced block of README.md.
type readmeBlock struct {
	lang  string // the fence's info string: sh, console, json, …
	line  int    // of the opening fence, 1-based
	lines []string
}

// readmeBlocks reads the fenced blocks of a Markdown file.
func readmeBlocks(t *testing.T, path string) []readmeBlock {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []readmeBlock
	var cur *readmeBlock
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if fence, ok := strings.CutPrefix(line, "```"); ok {
			if cur == nil {
				cur = &readmeBlock{lang: strings.TrimSpace(fence), line: n}
			} else {
				out = append(out, *cur)
				cur = nil
			}
			continue
		}
		if cur != nil {
			cur.lines = append(cur.lines, line)
		}
	}
	return out
}

// shellWords splits a command line as sh would for the simple lines README
// shows: words, '…' and "…" quotes, and a # comment at a word's start.
func shellWords(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\'' || c == '"':
			end := strings.IndexByte(line[i+1:], c)
			if end < 0 {
				return nil, fmt.Errorf("unclosed %c", c)
			}
			cur.WriteString(line[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case c == '#' && !inWord:
			i = len(line)
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\\' && i+1 < len(line):
			cur.WriteByte(line[i+1])
			i++
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// readmeRun is the state of one pass over README's commands: a fresh home,
// the binary, the servers started, the last token made.
type readmeRun struct {
	t       *testing.T
	bin     string
	env     []string
	root    string // the clone: README's relative paths start here
	token   string // the last token `token create` printed
	servers map[string]*teamServer
}

// langspec runs the binary as README's line would, and returns its output.
func (r *readmeRun) langspec(args []string, stdin string) (stdout, stderr string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*hangLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.bin, args...)
	cmd.Dir, cmd.Env = r.root, r.env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

func TestReadmeCommands(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	r := &readmeRun{t: t, bin: langspecBinary(t), root: root, servers: map[string]*teamServer{},
		env: []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}}
	// rustup's local copy of the Rust Reference, where this machine has one
	// (README: "rustup's local copy when there is one").
	if rh := os.Getenv("RUSTUP_HOME"); rh != "" {
		r.env = append(r.env, "RUSTUP_HOME="+rh)
	} else if h, err := os.UserHomeDir(); err == nil {
		if _, err := os.Stat(filepath.Join(h, ".rustup")); err == nil {
			r.env = append(r.env, "RUSTUP_HOME="+filepath.Join(h, ".rustup"))
		}
	}
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, block := range readmeBlocks(t, filepath.Join(root, "README.md")) {
		switch block.lang {
		case "sh":
			for i, line := range block.lines {
				if strings.TrimSpace(line) == "" {
					continue
				}
				words, err := shellWords(line)
				if err != nil {
					t.Fatalf("README.md:%d: %v", block.line+1+i, err)
				}
				if len(words) == 0 {
					continue
				}
				where := fmt.Sprintf("README.md:%d: %s", block.line+1+i, strings.TrimSpace(line))
				r.run(where, words, ci)
				ran++
			}
		case "console":
			r.checkConsole(block)
		}
	}
	if ran < 10 {
		t.Errorf("ran only %d README commands; did the README lose its tour?", ran)
	}
}

// run runs one README command line, or fails the test saying why it
// cannot.
func (r *readmeRun) run(where string, words []string, ci []byte) {
	t := r.t
	switch {
	case words[0] == "go" && len(words) > 2 && words[1] == "run" && words[2] == "./cmd/langspec":
		r.runLangspec(where, words[3:])
	case words[0] == "go":
		// The go command's own steps (test, install) are what CI runs:
		// they must be in .ci/run as written.
		if !bytes.Contains(ci, []byte(strings.Join(words, " "))) {
			t.Errorf("%s: not run by .ci/run (add it there, or show a command this test runs)", where)
		}
	case words[0] == "langspec":
		r.runLangspec(where, words[1:])
	case words[0] == "claude":
		r.runClaude(where, words)
	default:
		t.Errorf("%s: this test does not know how to run %q; teach it, or show another command", where, words[0])
	}
}

// runLangspec runs one langspec command of README's.
func (r *readmeRun) runLangspec(where string, args []string) {
	t := r.t
	if len(args) >= 3 && args[0] == "serve" && args[1] == "--http" {
		// A team server: started on a free port, kept for the commands
		// that reach it, stopped at the end.
		rest := slices.Clone(args[3:])
		// HOME as the README's other commands have it, so that the
		// server reads the tokens they make (the state file in it).
		s := startTeamServerEnv(t, filepath.Join(envValue(r.env, "HOME"), ".local", "share", "langspec", "langspec.db"),
			[]string{"HOME=" + envValue(r.env, "HOME")}, rest...)
		r.servers[args[2]] = s
		return
	}
	if len(args) >= 1 && args[0] == "ingest" && len(args) >= 2 && (args[1] == "rust" || args[1] == "python") {
		// Read from the machine's local copy; without one it would need the
		// network, which a test does not have.
		out, _, _ := r.langspec([]string{"sources"}, "")
		if !regexp.MustCompile(`(?m)^` + args[1] + `/\S+\s.*\(local\)$`).MatchString(out) {
			t.Logf("%s: not run: no local copy of it on this machine (CI installs one)", where)
			return
		}
	}
	if len(args) >= 2 && (args[0] == "search" || args[0] == "compare") {
		for i, a := range args[:len(args)-1] {
			if a != "--lang" {
				continue
			}
			if lang := args[i+1]; !r.stored(lang, 1) {
				t.Logf("%s: not run: %s was not ingested here (no local copy)", where, lang)
				return
			}
		}
	}
	if len(args) >= 3 && args[0] == "ingest" && slices.Contains(args, "--toolchain") {
		// rustup's toolchain of that name, where this machine has one.
		name := args[slices.Index(args, "--toolchain")+1]
		if m, _ := filepath.Glob(filepath.Join(envValue(r.env, "RUSTUP_HOME"), "toolchains", name+"-*")); len(m) == 0 {
			t.Logf("%s: not run: no rustup toolchain %s on this machine", where, name)
			return
		}
	}
	if len(args) >= 2 && args[0] == "diff" && !r.stored(args[1], 2) {
		t.Logf("%s: not run: fewer than two versions of %s were ingested here", where, args[1])
		return
	}
	if len(args) >= 2 && args[0] == "token" && args[1] == "revoke" {
		// The server started above must refuse the revoked token at once.
		defer func() {
			for _, s := range r.servers {
				if resp, _ := mcpPost(t, s, r.token, "", initializeBody); resp.StatusCode != http.StatusUnauthorized {
					t.Errorf("%s: the revoked token still gets %d", where, resp.StatusCode)
				}
			}
		}()
	}
	stdout, stderr, err := r.langspec(args, "")
	if err != nil {
		t.Errorf("%s: %v\nstdout:\n%.2000s\nstderr:\n%.2000s", where, err, stdout, stderr)
		return
	}
	if len(args) >= 2 && args[0] == "token" && args[1] == "create" {
		r.token = strings.TrimSpace(stdout)
	}
}

// stored reports whether the README's database holds at least n versions
// of language (of one of its documents).
func (r *readmeRun) stored(language string, n int) bool {
	out, _, err := r.langspec([]string{"versions", language, "--json"}, "")
	if err != nil {
		return false
	}
	var vs []struct{ Doc string }
	if json.Unmarshal([]byte(out), &vs) != nil {
		return false
	}
	per := map[string]int{}
	for _, v := range vs {
		if per[v.Doc]++; per[v.Doc] >= n {
			return true
		}
	}
	return false
}

// runClaude checks a `claude mcp add` line: the stdio form's server command
// starts and ends cleanly when its client goes; the HTTP form's URL and
// header reach a server README started, with the token README made.
func (r *readmeRun) runClaude(where string, words []string) {
	t := r.t
	if i := slices.Index(words, "--"); i >= 0 {
		cmd := words[i+1:]
		if len(cmd) == 0 || cmd[0] != "langspec" {
			t.Errorf("%s: the server command is not langspec", where)
			return
		}
		if _, stderr, err := r.langspec(cmd[1:], ""); err != nil {
			t.Errorf("%s: %s: %v\n%s", where, strings.Join(cmd, " "), err, stderr)
		}
		return
	}
	var url, header string
	for i, w := range words {
		switch {
		case strings.HasPrefix(w, "http://"):
			url = w
		case w == "--header" && i+1 < len(words):
			header = words[i+1]
		}
	}
	m := regexp.MustCompile(`^http://([^/]+)/mcp$`).FindStringSubmatch(url)
	if m == nil {
		t.Errorf("%s: no MCP URL of a server README starts", where)
		return
	}
	s := r.servers[m[1]]
	if s == nil {
		t.Errorf("%s: README starts no server at %s before this line", where, m[1])
		return
	}
	token := ""
	if h, ok := strings.CutPrefix(header, "Authorization: Bearer "); ok && strings.HasPrefix(h, "lsp_") {
		token = r.token // README shows the token's start only
	}
	if resp, body := mcpPost(t, s, token, "", initializeBody); resp.StatusCode != http.StatusOK {
		t.Errorf("%s: initialize: %d %s", where, resp.StatusCode, body)
	}
}

// checkConsole runs each `$ langspec …` line of a console block and checks
// that the lines README shows under it are what the command prints (a line
// README shortens with … matches up to the …).
func (r *readmeRun) checkConsole(block readmeBlock) {
	t := r.t
	for i := 0; i < len(block.lines); i++ {
		cmdLine, ok := strings.CutPrefix(block.lines[i], "$ ")
		if !ok {
			continue
		}
		where := fmt.Sprintf("README.md:%d: %s", block.line+1+i, cmdLine)
		words, err := shellWords(cmdLine)
		if err != nil || len(words) == 0 || words[0] != "langspec" {
			t.Errorf("%s: a console block runs langspec commands only", where)
			continue
		}
		stdout, stderr, err := r.langspec(words[1:], "")
		if err != nil {
			t.Errorf("%s: %v\n%s", where, err, stderr)
			continue
		}
		got := strings.Split(stderr+stdout, "\n")
		for j := i + 1; j < len(block.lines) && !strings.HasPrefix(block.lines[j], "$ "); j++ {
			want := block.lines[j]
			if prefix, cut := strings.CutSuffix(want, "…"); cut {
				want = strings.TrimRight(prefix, " ")
			}
			if strings.TrimSpace(want) == "" {
				continue
			}
			if !slices.ContainsFunc(got, func(g string) bool { return strings.HasPrefix(g, want) }) {
				t.Errorf("%s: README shows %q, the command printed:\n%s", where, block.lines[j], stderr+stdout)
			}
		}
	}
}

func envValue(env []string, key string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}
