package main

// The attack harness: langspec attacked as a hostile client and a hostile
// environment would, through the real binary over stdio. Each case names
// the class of attack and what langspec promises under it (README,
// "Guarantees"). Attacks that need no process live next to their code and
// are named in README: the vault's paths (internal/vault/attack_test.go),
// kill -9 mid-ingest (internal/db/kill_test.go), request ids
// (internal/mcpserver/ids_test.go), upstreams (internal/catalog/upstream),
// batches (internal/catalog/batch).

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Protocol abuse: every line gets an answer that keeps its id as sent, and
// stdout carries JSON-RPC only.
func TestAttackProtocol(t *testing.T) {
	s := startRaw(t, seededDB(t))
	s.initialize()
	deep := strings.Repeat(`{"a":`, 10_000) + `1` + strings.Repeat(`}`, 10_000)
	threeMB := strings.Repeat("x", 3<<20) // under the message limit (4 MiB), over every argument's
	fiveMB := strings.Repeat("x", 5<<20)  // over the message limit
	steps := []struct {
		name    string
		line    string
		id      string // the answer's id, as raw JSON
		errCode int    // JSON-RPC error code; 0 for a result
		isError bool   // a tool error result
		text    string // substring of the answer
	}{
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, "null", -32600, false, "not a string or an integer"},
		{"fractional id kept as sent", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, "1.5", -32600, false, "not a string or an integer"},
		{"10k-deep JSON arguments", `{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"search_spec","arguments":` + deep + `}}`, `"deep"`, -32600, false, "nested deeper than 10000 levels"},
		{"3 MB argument", toolCall("3mb", "search_spec", map[string]any{"query": threeMB}), `"3mb"`, 0, true, "characters"},
		{"3 MB of unknown argument", toolCall("3mbx", "search_spec", map[string]any{"query": "x", "junk": threeMB}), `"3mbx"`, 0, true, "unknown argument"},
		// Past the limit the message is not read, its id with it.
		{"5 MB message", toolCall("5mb", "search_spec", map[string]any{"query": fiveMB}), "null", -32600, false, "longer than 4194304 bytes"},
		{"method that does not exist", `{"jsonrpc":"2.0","id":"m","method":"tools/destroy"}`, `"m"`, -32601, false, ""},
		{"params of the wrong type", `{"jsonrpc":"2.0","id":"p","method":"tools/call","params":[1,2]}`, `"p"`, -32602, false, ""},
		{"still serving", toolCall("ok", "search_spec", map[string]any{"query": "defer", "limit": 1}), `"ok"`, 0, false, "Defer_statements"},
	}
	for _, st := range steps {
		s.send(st.line)
		msg := s.next()
		b, _ := json.Marshal(msg["id"])
		if string(b) != st.id {
			t.Errorf("%s: answer id %s, want %s", st.name, b, st.id)
		}
		all, _ := json.Marshal(msg)
		if !strings.Contains(string(all), st.text) {
			t.Errorf("%s: answer lacks %q: %.300s", st.name, st.text, all)
		}
		e, _ := msg["error"].(map[string]any)
		switch {
		case st.errCode != 0 && (e == nil || e["code"] != float64(st.errCode)):
			t.Errorf("%s: want JSON-RPC error %d, got %.300s", st.name, st.errCode, all)
		case st.errCode == 0 && e != nil:
			t.Errorf("%s: unexpected protocol error %.300s", st.name, all)
		case st.errCode == 0:
			res, _ := msg["result"].(map[string]any)
			if isErr, _ := res["isError"].(bool); isErr != st.isError {
				t.Errorf("%s: isError %v, want %v: %.300s", st.name, isErr, st.isError, all)
			}
		}
	}
	s.stdin.Close()
	if err := s.wait(); err != nil {
		t.Errorf("exit after EOF: %v", err)
	}
	if strings.Contains(s.stderr.String(), "panic") {
		t.Errorf("stderr:\n%s", s.stderr)
	}
}

// Load: 2,000 calls, 32 at a time, all answered, with the server's peak
// memory bounded.
func TestAttackManyCalls(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the peak memory from /proc")
	}
	bin := langspecBinary(t)
	cmd := serveCmd(bin, seededDB(t), &lockedBuffer{})
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "load", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	queries := []string{"slice expressions", "gorutine chanel", "x.(T)", "method sets", "zzqqxx", "defer"}
	const calls, workers = 2000, 32
	var wg sync.WaitGroup
	var mu sync.Mutex
	failed := 0
	jobs := make(chan int)
	for range workers {
		wg.Go(func() {
			for i := range jobs {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_spec", Arguments: map[string]any{"query": queries[i%len(queries)], "limit": 10}})
				if err != nil || res.IsError {
					mu.Lock()
					failed++
					mu.Unlock()
				}
			}
		})
	}
	for i := range calls {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if failed > 0 {
		t.Errorf("%d of %d calls failed", failed, calls)
	}
	peak := peakRSSMiB(t, cmd.Process.Pid)
	t.Logf("peak RSS after %d calls, %d at a time: %d MiB", calls, workers, peak)
	if peak > 256 {
		t.Errorf("peak RSS %d MiB, want at most 256 MiB", peak)
	}
}

// peakRSSMiB is a process's high-water resident set (VmHWM).
func peakRSSMiB(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			if err != nil {
				t.Fatal(err)
			}
			return kb / 1024
		}
	}
	t.Fatal("no VmHWM")
	return 0
}

// Corrupt database files: serve refuses to start with one line on stderr
// naming the file and the next step, and nothing on stdout.
func TestAttackCorruptDatabase(t *testing.T) {
	good := seededDB(t)
	whole, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		data []byte
	}{
		{"garbage", []byte(strings.Repeat("not a database ", 400))},
		{"truncated to its header", whole[:100]},
		{"header destroyed", append([]byte(strings.Repeat("\x00", 100)), whole[100:]...)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.db")
			if err := os.WriteFile(path, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout strings.Builder
			stderr := &lockedBuffer{}
			cmd := serveCmd(langspecBinary(t), path, stderr)
			cmd.Stdout = &stdout
			err := cmd.Run()
			var exit *exec.ExitError
			if !errorsAs(err, &exit) || exit.ExitCode() != 1 {
				t.Fatalf("exit %v, want 1\nstderr: %s", err, stderr)
			}
			if stdout.Len() > 0 {
				t.Errorf("stdout: %q", stdout.String())
			}
			if log := stderr.String(); !strings.Contains(log, "is not a usable langspec database") || !strings.Contains(log, "hint:") || strings.Contains(strings.ToLower(log), "sql") {
				t.Errorf("stderr:\n%s", log)
			}
		})
	}
}

// Hostile manuals: a FIFO named like a manual file, a symbolic link out of
// the manuals folder and one inside it get typed errors at once; nothing
// blocks on the FIFO, and nothing outside is read.
func TestAttackManualsFolder(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("FIFOs and symlinks")
	}
	dir := t.TempDir()
	manuals := filepath.Join(dir, "manuals")
	outside := filepath.Join(dir, "outside")
	for _, d := range []string{filepath.Join(manuals, "m"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const secret = "SECRET-OUTSIDE-MANUALS"
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(outside, "s.md"), []byte("# "+secret+"\n"), 0o644))
	must(os.WriteFile(filepath.Join(manuals, "m", "ok.md"), []byte("# Fine\nhello\n"), 0o644))
	must(syscall.Mkfifo(filepath.Join(manuals, "m", "fifo.md"), 0o644))
	must(os.Symlink(filepath.Join(outside, "s.md"), filepath.Join(manuals, "m", "out.md")))
	must(os.Symlink("ok.md", filepath.Join(manuals, "m", "in.md")))
	s := startRaw(t, seededDB(t), func(c *exec.Cmd) {
		for i, kv := range c.Env {
			if strings.HasPrefix(kv, "MANUALS_ROOT=") {
				c.Env[i] = "MANUALS_ROOT=" + manuals
			}
		}
	})
	s.initialize()
	for i, tt := range []struct {
		tool string
		args map[string]any
		want string // substring of the error; "" for a success
	}{
		{"manual_read", map[string]any{"manual_id": "m", "path": "fifo.md", "scope": "file"}, "not a regular file"},
		{"manual_read", map[string]any{"manual_id": "m", "path": "out.md", "scope": "file"}, "path_outside_manuals"},
		{"manual_read", map[string]any{"manual_id": "m", "path": "in.md", "scope": "file"}, "path_outside_manuals"},
		{"manual_read", map[string]any{"manual_id": "m", "path": "../outside/s.md", "scope": "file"}, "path_outside_manuals"},
		{"manual_find", map[string]any{"manual_id": "m", "query": "hello"}, ""},
		{"manual_ls", map[string]any{"manual_id": "m"}, ""},
	} {
		s.send(toolCall(i, tt.tool, tt.args))
		msg := s.next()
		all, _ := json.Marshal(msg)
		res, _ := msg["result"].(map[string]any)
		isErr, _ := res["isError"].(bool)
		if strings.Contains(string(all), secret) {
			t.Errorf("%s %v: the answer holds text from outside the manuals", tt.tool, tt.args)
		}
		if isErr != (tt.want != "") || !strings.Contains(string(all), tt.want) {
			t.Errorf("%s %v: %.300s, want error %q", tt.tool, tt.args, all, tt.want)
		}
	}
}

// Hostile vault names through the tools: refused with typed codes, nothing
// written outside the vault.
func TestAttackVaultNames(t *testing.T) {
	dbPath := seededDB(t)
	s := startRaw(t, dbPath)
	s.initialize()
	for i, p := range []string{"../x.md", "/etc/x.md", `C:\x.md`, "notes/\u2215x.md", "notes/a\x00b.md", "notes/CON.md", "notes/" + strings.Repeat("a", 300) + ".md", "artifacts/x.sh"} {
		s.send(toolCall(i, "vault_create", map[string]any{"path": p, "content": "x"}))
		msg := s.next()
		res, _ := msg["result"].(map[string]any)
		if isErr, _ := res["isError"].(bool); !isErr {
			all, _ := json.Marshal(msg)
			t.Errorf("vault_create %q was accepted: %.300s", p, all)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dbPath), "x.md")); err == nil {
		t.Error("a file was written outside the vault")
	}
}

func errorsAs(err error, target any) bool {
	e, ok := err.(*exec.ExitError)
	if ok {
		*(target.(**exec.ExitError)) = e
	}
	return ok
}
