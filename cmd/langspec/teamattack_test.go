package main

// The team server's attack suite: `langspec serve --http` attacked as a
// colleague with a limited token, a revoked admin, a web page of an
// attacker's domain, or a client that never says goodbye would — real
// processes, real HTTP on loopback, the go-sdk client where a client is
// needed. Each test names the promise of README's security table it
// keeps; the attempts that held before this suite was written stay here
// as regressions (TestTeamAttackHeld*), beside the tests elsewhere that
// the table names.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/app"
)

// mcpPost sends one JSON-RPC body to s's /mcp as a client would, with
// token and session ("" for none) and any extra header pairs; it returns
// the response with its body read.
func mcpPost(t testing.TB, s *teamServer, token, session, body string, header ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", s.url+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := (&http.Client{Timeout: hangLimit}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"attacker","version":"1"}}}`

// openSession initializes a session over raw HTTP and returns its id.
func openSession(t testing.TB, s *teamServer, token string) string {
	t.Helper()
	resp, body := mcpPost(t, s, token, "", initializeBody)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d %q, session %q", resp.StatusCode, body, id)
	}
	if resp, body := mcpPost(t, s, token, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %d %q", resp.StatusCode, body)
	}
	return id
}

// pageClient logs in to s's management page with token through the login
// form, as a browser would, and returns the client holding the session
// cookie (redirects not followed).
func pageClient(t *testing.T, s *teamServer, token string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: hangLimit, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(s.url + "/ui/login")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindSubmatch(body)
	if m == nil {
		t.Fatalf("no CSRF token in the login form:\n%s", body)
	}
	resp, err = c.PostForm(s.url+"/ui/login", url.Values{"token": {token}, "csrf": {string(m[1])}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("login as %s…: %d", token[:8], resp.StatusCode)
	}
	return c
}

// pageCSRF reads the CSRF token of a page's forms.
func pageCSRF(t *testing.T, c *http.Client, pageURL string) (status int, csrf string) {
	t.Helper()
	resp, err := c.Get(pageURL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindSubmatch(body); m != nil {
		csrf = string(m[1])
	}
	return resp.StatusCode, csrf
}

// tokenNames is what `langspec token list --json` names, revoked ones
// marked.
func tokenNames(t *testing.T, dbPath string) map[string]bool {
	t.Helper()
	code, out, errOut := run(t, homeOf(dbPath), "--db", dbPath, "token", "list", "--json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var list []struct {
		Name      string `json:"name"`
		RevokedAt any    `json:"revoked_at"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tok := range list {
		names[tok.Name] = tok.RevokedAt == nil
	}
	return names
}

// Item 1: a revoked admin keeps the management page. The page session is
// its token, checked again on every request.
func TestTeamAttackRevokedAdminLosesThePage(t *testing.T) {
	dbPath := seededDB(t)
	admin := makeToken(t, dbPath, "admin2", "--admin")
	s := startTeamServer(t, dbPath)
	c := pageClient(t, s, admin)
	status, csrf := pageCSRF(t, c, s.url+"/ui/tokens")
	if status != http.StatusOK || csrf == "" {
		t.Fatalf("the tokens page as an admin: %d, csrf %q", status, csrf)
	}
	if code, _, errOut := run(t, homeOf(dbPath), "--db", dbPath, "token", "revoke", "admin2"); code != 0 {
		t.Fatal(errOut)
	}
	if status, _ := pageCSRF(t, c, s.url+"/ui/tokens"); status != http.StatusUnauthorized {
		t.Errorf("the tokens page after revocation: %d, want 401", status)
	}
	resp, err := c.PostForm(s.url+"/ui/tokens", url.Values{"name": {"minted"}, "admin": {"on"}, "csrf": {csrf}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("minting a token after revocation: %d, want 401", resp.StatusCode)
	}
	if _, ok := tokenNames(t, dbPath)["minted"]; ok {
		t.Error("a revoked admin's session minted a token")
	}
}

// Item 3, from outside: a token limited to search_spec and get_section
// reaches nothing of the manuals or the vault through any MCP method —
// not even its own vault folder, since it may not call vault_read.
func TestTeamAttackMaskCoversResources(t *testing.T) {
	dbPath := seededDB(t)
	root, err := filepath.Abs(filepath.Join("..", "..", "fixtures", "manuals"))
	if err != nil {
		t.Fatal(err)
	}
	limited := makeToken(t, dbPath, "ci", "--tools", "search_spec,get_section")
	full := makeToken(t, dbPath, "ops")
	for _, sub := range []string{"ci", "ops"} {
		dir := filepath.Join(filepath.Dir(dbPath), "vault", sub, "notes")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "plan.md"), []byte("a note\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := startTeamServerEnv(t, dbPath, []string{"MANUALS_ROOT=" + root})
	ctx := context.Background()
	for name, tc := range map[string]struct {
		token string
		reach bool
	}{"limited": {limited, false}, "full": {full, true}} {
		cs, err := s.connect(t, tc.token)
		if err != nil {
			t.Fatal(err)
		}
		tmpls, err := cs.ListResourceTemplates(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tm := range tmpls.ResourceTemplates {
			names = append(names, tm.Name)
		}
		if slices.Contains(names, "manual-file") != tc.reach || slices.Contains(names, "vault-note") != tc.reach {
			t.Errorf("%s lists the templates %v", name, names)
		}
		for _, uri := range []string{"langspec://manuals/ops-en/runbooks/db/failover.md", "langspec://vault/notes/plan.md"} {
			r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			if read := err == nil && len(r.Contents) > 0; read != tc.reach {
				t.Errorf("%s reads %s: %v (%v)", name, uri, read, err)
			}
		}
		for _, c := range []struct {
			ref      *mcp.CompleteReference
			arg, val string
		}{
			{&mcp.CompleteReference{Type: "ref/resource", URI: "langspec://manuals/{manual_id}/{+path}"}, "manual_id", ""},
			{&mcp.CompleteReference{Type: "ref/prompt", Name: "collect-from-manuals"}, "manual_id", ""},
			{&mcp.CompleteReference{Type: "ref/resource", URI: "langspec://vault/{+path}"}, "path", ""},
		} {
			res, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: c.ref, Argument: mcp.CompleteParamsArgument{Name: c.arg, Value: c.val}})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(res.Completion.Values) > 0; got != tc.reach {
				t.Errorf("%s completes %s of %s: %v", name, c.arg, c.ref.URI+c.ref.Name, res.Completion.Values)
			}
		}
		pl, err := cs.ListPrompts(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var prompts []string
		for _, p := range pl.Prompts {
			prompts = append(prompts, p.Name)
		}
		if slices.Contains(prompts, "collect-from-manuals") != tc.reach || slices.Contains(prompts, "learning-plan") != tc.reach {
			t.Errorf("%s is offered the prompts %v", name, prompts)
		}
		if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "collect-from-manuals", Arguments: map[string]string{"topic": "backup"}}); (err == nil) != tc.reach {
			t.Errorf("%s gets the collect-from-manuals prompt: %v", name, err)
		}
	}
}

// Item 5: DNS rebinding. A page of the attacker's domain, re-pointed at
// 127.0.0.1, is same-origin with the server for the browser; every route
// refuses a Host that is not the server's.
func TestTeamAttackDNSRebinding(t *testing.T) {
	dbPath := seededDB(t)
	s := startTeamServer(t, dbPath) // no tokens: loopback only, and the page open to whoever reaches it
	port := strings.TrimPrefix(s.url, "http://127.0.0.1:")
	for _, path := range []string{"/ui/", "/ui/tokens", "/ui/sources", "/ui/upstreams", "/ui/login", "/metrics", "/health",
		"/.well-known/oauth-protected-resource", "/mcp"} {
		for _, host := range []string{"rebind.attacker.example:" + port, "rebind.attacker.example", "127.0.0.1.nip.io:" + port} {
			req, _ := http.NewRequest("GET", s.url+path, nil)
			req.Host = host
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden || strings.Contains(string(body), "csrf") || strings.Contains(string(body), dbPath) {
				t.Errorf("GET %s with Host %s: %d %.120q, want 403", path, host, resp.StatusCode, body)
			}
		}
	}
	for _, host := range []string{"localhost:" + strings.TrimPrefix(s.url, "http://127.0.0.1:"), "127.0.0.1:" + port} {
		req, _ := http.NewRequest("GET", s.url+"/ui/", nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("the page under its own name %s: %d", host, resp.StatusCode)
		}
	}
}

// Item 6: sessions end. An idle session is closed (404, so the client
// starts again); a held GET stream counts as use; a subject over its cap
// loses its oldest idle session, never another subject's.
func TestTeamAttackSessionsEnd(t *testing.T) {
	dbPath := seededDB(t)
	alice := makeToken(t, dbPath, "alice")
	bob := makeToken(t, dbPath, "bob")
	s := startTeamServer(t, dbPath, "--session-idle", "1s", "--max-sessions", "3")
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	alive := func(token, id string) bool {
		resp, body := mcpPost(t, s, token, id, ping)
		switch resp.StatusCode {
		case http.StatusOK:
			return true
		case http.StatusNotFound:
			return false
		}
		t.Fatalf("ping on session %s: %d %q", id, resp.StatusCode, body)
		return false
	}

	t.Run("idle", func(t *testing.T) {
		id := openSession(t, s, alice)
		if !alive(alice, id) {
			t.Fatal("a new session is gone")
		}
		deadline := time.Now().Add(hangLimit)
		for alive(alice, id) {
			if time.Now().After(deadline) {
				t.Fatalf("a session idle for %s still answers (idle limit 1s)", hangLimit)
			}
			time.Sleep(1500 * time.Millisecond) // longer than the idle limit, so the ping itself is no keep-alive
		}
	})

	t.Run("a held stream is use", func(t *testing.T) {
		id := openSession(t, s, alice)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", s.url+"/mcp", nil)
		req.Header.Set("Authorization", "Bearer "+alice)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", id)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET stream: %d", resp.StatusCode)
		}
		time.Sleep(2500 * time.Millisecond) // over twice the idle limit with only the stream open
		if !alive(alice, id) {
			t.Error("a session holding a GET stream was closed as idle")
		}
	})

	t.Run("cap per subject", func(t *testing.T) {
		bobs := openSession(t, s, bob)
		var ids []string
		for range 5 {
			ids = append(ids, openSession(t, s, alice))
		}
		var kept []bool
		for _, id := range ids {
			kept = append(kept, alive(alice, id))
		}
		// Alice may hold 3: the oldest are closed first. The stream
		// session of the subtest before may still count while it ends.
		if kept[3] != true || kept[4] != true || kept[0] || kept[1] {
			t.Errorf("alice's five sessions, oldest first, alive: %v; want the newest kept and the oldest closed", kept)
		}
		if !alive(bob, bobs) {
			t.Error("alice's sessions pushed out bob's")
		}
	})
	if !s.stderr.waitFor("closed idle sessions") {
		t.Errorf("no log line of the sweep:\n%s", s.stderr)
	}
}

// Item 7: shutdown with a GET stream open ends at once, with exit 0:
// a stream only waits for server messages, and the server used to wait
// its whole 10 s grace for it.
func TestTeamAttackShutdownWithAStreamOpen(t *testing.T) {
	s := startTeamServer(t, seededDB(t))
	id := openSession(t, s, "")
	req, _ := http.NewRequest("GET", s.url+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	stream, err := http.DefaultClient.Do(req)
	if err != nil || stream.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %v %v", stream, err)
	}
	defer stream.Body.Close()
	exit, took, hung := s.stop(syscall.SIGTERM)
	// The bound is the behaviour, not a benchmark: well under the 10 s
	// grace the server used to wait out, with room for a loaded machine
	// under the race detector (BenchmarkTeamServerShutdown measures).
	if hung || exit != nil || took > app.ShutdownGrace/2 {
		t.Errorf("SIGTERM with a stream open: exit %v after %s (hung %v); stderr:\n%s", exit, took, hung, s.stderr)
	}
	t.Logf("SIGTERM to exit with a stream open: %s", took)
}

// Item 7, connections: a connection that was opened but has sent no whole
// request (HTTP clients dial spare ones) does not hold SIGTERM. Go's
// http.Server waited until such a connection was five seconds old; a CI
// run of TestTeamAttackShutdownMidUpstreamCall took 5.2 s because of one.
func TestTeamAttackShutdownWithAnUnusedConnection(t *testing.T) {
	s := startTeamServer(t, seededDB(t))
	openSession(t, s, "") // the server has served a request
	host := strings.TrimPrefix(s.url, "http://")
	for _, send := range []string{"", "POST /mcp HTTP/1.1\r\nHost: " + host + "\r\n"} {
		c, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, send); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(200 * time.Millisecond) // the server has accepted both
	exit, took, hung := s.stop(syscall.SIGTERM)
	// Nothing is in flight: milliseconds, with room for a loaded machine
	// under the race detector, and well under the five seconds it took.
	if hung || exit != nil || took > 3*time.Second {
		t.Errorf("SIGTERM with unused connections open: exit %v after %s (hung %v); stderr:\n%s", exit, took, hung, s.stderr)
	}
	t.Logf("SIGTERM to exit with unused connections open: %s", took)
}

// Item 7, upstreams: a call in flight to an upstream server is cancelled
// at SIGTERM and answered with an error; the server exits 0 at once.
func TestTeamAttackShutdownMidUpstreamCall(t *testing.T) {
	command, args := everythingCommand(t)
	cfg := map[string]any{
		"mcpServers": map[string]any{"everything": map[string]any{"description": "the MCP reference server", "command": command, "args": args}},
		"categories": map[string]any{"slow": map[string]any{"description": "a slow tool", "server": "everything",
			"tools": map[string]any{"includeNames": []string{"echo", "trigger-long-running-operation"}}}},
	}
	b, _ := json.Marshal(cfg)
	cfgPath := filepath.Join(t.TempDir(), "langspec.json")
	if err := os.WriteFile(cfgPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	s := startTeamServerEnv(t, seededDB(t), []string{"PATH=" + os.Getenv("PATH")}, "--config", cfgPath)
	cs, err := s.connect(t, "")
	if err != nil {
		t.Fatal(err)
	}
	if text, isErr := callText(t, cs, "call-category-tool", map[string]any{"category": "slow", "name": "echo", "args": map[string]any{"message": "up"}}); isErr {
		t.Fatalf("the upstream does not answer: %s", text)
	}
	answered := make(chan string, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "call-category-tool", Arguments: map[string]any{
			"category": "slow", "name": "trigger-long-running-operation", "args": map[string]any{"duration": 60, "steps": 60}}})
		if err != nil {
			answered <- "protocol error: " + err.Error()
			return
		}
		answered <- fmt.Sprintf("isError=%v %s", res.IsError, textOf(res))
	}()
	time.Sleep(time.Second) // the call reaches the upstream
	exit, took, hung := s.stop(syscall.SIGTERM)
	if hung || exit != nil || took > app.ShutdownGrace/2 {
		t.Errorf("SIGTERM mid-call: exit %v after %s (hung %v); stderr:\n%s", exit, took, hung, s.stderr)
	}
	select {
	case a := <-answered:
		if !strings.Contains(a, "isError=true") {
			t.Errorf("the call in flight was answered %q, want a tool error; stderr:\n%s", a, s.stderr)
		}
	case <-time.After(hangLimit):
		t.Error("the call in flight was never answered")
	}
	t.Logf("SIGTERM to exit mid-call: %s", took)
}

// Item 8: a replica closes its first index once a newer one replaces it,
// so the replaced file's space is freed.
func TestTeamAttackReplicaFreesTheOldIndex(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("reads the server's open files from /proc")
	}
	dbPath := seededDB(t)
	s := startTeamServer(t, dbPath, "--read-only")
	cs, err := s.connect(t, "")
	if err != nil {
		t.Fatal(err)
	}
	if text, isErr := callText(t, cs, "search_spec", map[string]any{"query": "defer", "limit": 1}); isErr {
		t.Fatal(text)
	}
	next := filepath.Join(filepath.Dir(dbPath), "next.db")
	copyFile(t, dbPath, next)
	if err := os.Rename(next, dbPath); err != nil {
		t.Fatal(err)
	}
	if !s.stderr.waitFor("switched to the replaced index") {
		t.Fatalf("no swap:\n%s", s.stderr)
	}
	deleted := func() []string {
		var open []string
		fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", s.cmd.Process.Pid))
		for _, fd := range fds {
			target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", s.cmd.Process.Pid, fd.Name()))
			if err == nil && strings.Contains(target, filepath.Base(dbPath)) && strings.HasSuffix(target, "(deleted)") {
				open = append(open, target)
			}
		}
		return open
	}
	deadline := time.Now().Add(hangLimit)
	for len(deleted()) > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if open := deleted(); len(open) > 0 {
		t.Errorf("the replaced index is still open %d times: %v", len(open), open)
	}
}

// copyFile copies a database file whole.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Item 9: a read-only replica serves every read tool, manual_find and the
// paging of its trace among them: traces are the server's state, not the
// index's.
func TestTeamAttackReplicaServesManualFind(t *testing.T) {
	dbPath := seededDB(t)
	root, err := filepath.Abs(filepath.Join("..", "..", "fixtures", "manuals"))
	if err != nil {
		t.Fatal(err)
	}
	// The index holds the manuals: built with write access, then served
	// read-only.
	if code, _, errOut := run(t, map[string]string{"MANUALS_ROOT": root}, "--db", dbPath, "ingest", "manuals", "--manuals-root", root); code != 0 {
		t.Fatal(errOut)
	}
	s := startTeamServerEnv(t, dbPath, []string{"MANUALS_ROOT=" + root}, "--read-only")
	cs, err := s.connect(t, "")
	if err != nil {
		t.Fatal(err)
	}
	var found struct {
		TraceID    string `json:"trace_id"`
		Candidates int    `json:"candidates"`
	}
	if text := callJSON(t, cs, "manual_find", map[string]any{"query": "failover", "manual_id": "ops-en"}, &found); found.TraceID == "" || found.Candidates == 0 {
		t.Fatalf("manual_find on a replica: %s", text)
	}
	var hits struct {
		Candidates []json.RawMessage `json:"candidates"`
	}
	if text := callJSON(t, cs, "manual_hits", map[string]any{"trace_id": found.TraceID}, &hits); len(hits.Candidates) == 0 {
		t.Errorf("manual_hits on a replica: %s", text)
	}
}

// sseData is the data of the first server-sent event in body, or body as
// it is when it is not an event stream.
func sseData(body string) string {
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			return d
		}
	}
	return body
}

// Item 2 (wave 3), since issue 48 item 3: tokens live in the state file,
// not in the index, so swapping the index neither brings back a revoked
// token nor loses a new one — an index copied from before the revocation,
// renamed over the replica's, changes nothing about who is let in.
func TestTeamAttackIndexSwapKeepsTokens(t *testing.T) {
	dbPath := seededDB(t)
	alice := makeToken(t, dbPath, "alice")
	before := filepath.Join(filepath.Dir(dbPath), "before.db")
	copyFile(t, dbPath, before)
	s := startTeamServer(t, dbPath, "--read-only")
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	if resp, body := mcpPost(t, s, alice, "", ping); resp.StatusCode != http.StatusOK {
		t.Fatalf("alice before the swap: %d %s", resp.StatusCode, body)
	}
	if code, _, errOut := run(t, homeOf(dbPath), "--db", dbPath, "token", "revoke", "alice"); code != 0 {
		t.Fatal(errOut)
	}
	newbie := makeToken(t, dbPath, "newbie")
	if err := os.Rename(before, dbPath); err != nil {
		t.Fatal(err)
	}
	if !s.stderr.waitFor("switched to the replaced index") {
		t.Fatalf("no swap:\n%s", s.stderr)
	}
	if resp, _ := mcpPost(t, s, alice, "", ping); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("alice, revoked, after an index from before the revocation: %d, want 401", resp.StatusCode)
	}
	if resp, body := mcpPost(t, s, newbie, "", ping); resp.StatusCode != http.StatusOK {
		t.Errorf("newbie, made after the index was copied: %d %s, want 200", resp.StatusCode, body)
	}
}

// Item 4: a static token and a JWT subject of one name are two subjects,
// and a name that both would go by is refused, at start, at token create
// and at the request.
func TestTeamAttackSubjectsOfOneName(t *testing.T) {
	const secret = "correct horse battery staple, long enough"
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "t.db")
	copyFile(t, seededDB(t), dbPath)
	writeConfig := func(subjects string) string {
		p := filepath.Join(dir, "langspec.json")
		if err := os.WriteFile(p, []byte(`{"auth": {"jwt": {"issuer": "https://id.example", "audience": "team", "hs256_secret": "${JWT_SECRET}"},
			"subjects": {`+subjects+`}}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mint := func(sub string) string {
		tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"iss": "https://id.example", "aud": "team", "sub": sub,
			"exp": time.Now().Add(time.Hour).Unix()}).SignedString([]byte(secret))
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	ci := makeToken(t, dbPath, "ci", "--tools", "search_spec,get_section")

	// A configuration naming the token's name is refused at start.
	cfg := writeConfig(`"ci": {"tools": ["search_spec", "get_section", "list_languages", "list_versions", "build_learning_plan", "vault_read"]}`)
	// The binary, bounded: a regression would serve instead of refusing.
	ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
	defer cancel()
	serve := exec.CommandContext(ctx, langspecBinary(t), "--db", dbPath, "--config", cfg, "serve", "--http", "127.0.0.1:0")
	serve.Env = []string{"HOME=" + dir, "JWT_SECRET=" + secret}
	out, err := serve.CombinedOutput()
	if err == nil || ctx.Err() != nil || !strings.Contains(string(out), `"ci"`) || !strings.Contains(string(out), "share a name") {
		t.Errorf("serve with auth.subjects.ci beside a token ci: %v, %q", err, out)
	}
	// And so is a token named as a configured subject.
	cfg = writeConfig(`"carol": {"tools": ["search_spec"]}`)
	if code, _, errOut := run(t, homeOf(dbPath), "--db", dbPath, "--config", cfg, "token", "create", "carol"); code == 0 || !strings.Contains(errOut, "carol") {
		t.Errorf("token create carol with auth.subjects.carol: code %d, %q", code, errOut)
	}

	// A subject the configuration does not name, whose sub is a token's
	// name, is refused at the request; the token keeps its own tools
	// whoever connects first.
	s := startTeamServerEnv(t, dbPath, []string{"JWT_SECRET=" + secret}, "--config", cfg)
	if _, err := s.connect(t, mint("ci")); err == nil {
		t.Error("a JWT whose sub is the token name ci connected")
	}
	cs, err := s.connect(t, ci)
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(t, cs); !slices.Equal(got, []string{"get_section", "search_spec"}) {
		t.Errorf("the token ci lists %v", got)
	}
	carol, err := s.connect(t, mint("carol"))
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(t, carol); !slices.Equal(got, []string{"search_spec"}) {
		t.Errorf("carol lists %v", got)
	}
}

// Item 11: the protocol details of auth. The documented 30 s exp leeway
// holds through the SDK's middleware; the page's 401s carry a challenge;
// an admin with a bearer header can submit the page's forms; and a browser
// client from an --allow-origin origin gets its preflight answered.
func TestTeamAttackAuthDetails(t *testing.T) {
	const secret = "correct horse battery staple, long enough"
	dbPath := seededDB(t)
	cfg := filepath.Join(t.TempDir(), "langspec.json")
	if err := os.WriteFile(cfg, []byte(`{"auth": {"jwt": {"issuer": "https://id.example", "audience": "team", "hs256_secret": "${JWT_SECRET}"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	admin := makeToken(t, dbPath, "ops", "--admin")
	s := startTeamServerEnv(t, dbPath, []string{"JWT_SECRET=" + secret}, "--config", cfg, "--allow-origin", "http://localhost:6274")
	mint := func(exp time.Duration) string {
		tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"iss": "https://id.example", "aud": "team", "sub": "dana",
			"exp": time.Now().Add(exp).Unix()}).SignedString([]byte(secret))
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	ping := initializeBody // a stateful server answers nothing else without a session
	if resp, body := mcpPost(t, s, mint(-5*time.Second), "", ping); resp.StatusCode != http.StatusOK {
		t.Errorf("a JWT 5 s past its exp (leeway 30 s): %d %s", resp.StatusCode, body)
	}
	if resp, _ := mcpPost(t, s, mint(-time.Minute), "", ping); resp.StatusCode != http.StatusUnauthorized ||
		!strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Errorf("a JWT a minute past its exp: %d, %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}

	resp, err := http.Get(s.url + "/ui/tokens")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer ") {
		t.Errorf("/ui/tokens without a token: %d, WWW-Authenticate %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	req, _ := http.NewRequest("POST", s.url+"/ui/tokens", strings.NewReader(url.Values{"name": {"from-script"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+admin)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if !tokenNames(t, dbPath)["from-script"] {
		t.Errorf("an admin's bearer POST /ui/tokens (no CSRF token: no browser adds the header) made no token: %d", resp.StatusCode)
	}

	req, _ = http.NewRequest("OPTIONS", s.url+"/mcp", nil)
	req.Header.Set("Origin", "http://localhost:6274")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "authorization, content-type, mcp-session-id")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 || resp.Header.Get("Access-Control-Allow-Origin") != "http://localhost:6274" ||
		!strings.Contains(strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers")), "authorization") {
		t.Errorf("preflight from an allowed origin: %d %v", resp.StatusCode, resp.Header)
	}
	resp, _ = mcpPost(t, s, admin, "", ping, "Origin", "http://localhost:6274")
	if resp.Header.Get("Access-Control-Allow-Origin") != "http://localhost:6274" || !strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), "Mcp-Session-Id") {
		t.Errorf("a POST from an allowed origin lacks CORS headers: %v", resp.Header)
	}
	resp, _ = mcpPost(t, s, admin, "", ping, "Origin", "http://evil.example")
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("a foreign origin: %d, %v", resp.StatusCode, resp.Header)
	}
}

// Item 12: over HTTP as over stdio, every request is answered with its id
// exactly as sent, and a batch that repeats an id is refused whole rather
// than answered in part.
func TestTeamAttackRequestIDsOverHTTP(t *testing.T) {
	s := startTeamServer(t, seededDB(t))
	id := openSession(t, s, "")
	for _, tc := range []struct{ name, body, wantID string }{
		{"fractional", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, "1.5"},
		{"past int64", `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`, "123456789012345678901234567890"},
		{"past 2^53", `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, "9007199254740993"},
	} {
		resp, body := mcpPost(t, s, "", id, tc.body)
		var answer struct {
			ID    json.RawMessage `json:"id"`
			Error *struct{ Code int }
		}
		if err := json.Unmarshal([]byte(sseData(body)), &answer); err != nil || string(answer.ID) != tc.wantID || answer.Error == nil || answer.Error.Code != -32600 {
			t.Errorf("%s id: %d %s; want an error answer with id %s", tc.name, resp.StatusCode, body, tc.wantID)
		}
	}
	// Batches are allowed before 2025-06-18: send one without the version.
	req, _ := http.NewRequest("POST", s.url+"/mcp", strings.NewReader(`[{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"2.0","id":5,"method":"ping"}]`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "twice") {
		t.Errorf("a batch with id 5 twice: %d %s", resp.StatusCode, body)
	}
}

// BenchmarkTeamServerShutdown measures SIGTERM to exit of the team server
// with a session's GET stream open (TestTeamAttackShutdownWithAStreamOpen
// holds the behaviour; this gives the figure).
func BenchmarkTeamServerShutdown(b *testing.B) {
	dbPath := seededDB(b)
	var lat []time.Duration
	for b.Loop() {
		s := startTeamServer(b, dbPath)
		id := openSession(b, s, "")
		req, _ := http.NewRequest("GET", s.url+"/mcp", nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", id)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		stream, err := http.DefaultClient.Do(req)
		if err != nil || stream.StatusCode != http.StatusOK {
			b.Fatalf("GET stream: %v %v", stream, err)
		}
		_, took, _ := s.stop(syscall.SIGTERM)
		stream.Body.Close()
		lat = append(lat, took)
	}
	reportPercentiles(b, lat)
}

// BenchmarkTeamServerIdleSessions measures what sessions that are never
// closed (initialize, then nothing) cost the server: its resident memory
// grown over the first 1,000, and per 1,000 over the next 4,000 — with
// sessions capped per subject the second stays flat; without, it grows
// with every session.
func BenchmarkTeamServerIdleSessions(b *testing.B) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("reads the server's memory from /proc")
	}
	dbPath := seededDB(b)
	open := func(s *teamServer, n int) {
		for range n {
			if resp, body := mcpPost(b, s, "", "", initializeBody); resp.StatusCode != http.StatusOK {
				b.Fatalf("initialize: %d %s", resp.StatusCode, body)
			}
		}
	}
	for b.Loop() {
		s := startTeamServer(b, dbPath, "--rate", "100000")
		openSession(b, s, "") // the first session builds the subject's server
		before := rssMiB(b, s.cmd.Process.Pid)
		open(s, 1000)
		first := rssMiB(b, s.cmd.Process.Pid)
		open(s, 4000)
		b.ReportMetric(first-before, "MiB-first-1000")
		b.ReportMetric((rssMiB(b, s.cmd.Process.Pid)-first)/4, "MiB-per-1000-after")
		s.stop(syscall.SIGTERM)
	}
}

// rssMiB is a process's resident set now (VmRSS).
func rssMiB(tb testing.TB, pid int) float64 {
	tb.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			if err != nil {
				tb.Fatal(err)
			}
			return float64(kb) / 1024
		}
	}
	tb.Fatal("no VmRSS")
	return 0
}

// A subject that floods the read pool: six sessions of one token send
// prefix queries without pause, each new (the memo cannot answer them),
// while another subject searches. The server's searches share a read pool
// the size of the cores; the flood must not starve the other subject, nor
// deadlock, nor fail either side's calls. Measured at 200,000 sections,
// the other subject's slowest call went 0.10–0.13 s → 0.43–0.46 s with
// the pool (docs/team-server.md); the bound here is what a user would call
// a hang.
func TestTeamAttackFloodDoesNotStarveAnotherSubject(t *testing.T) {
	dbPath := seededDB(t)
	flooder := makeToken(t, dbPath, "flooder")
	colleague := makeToken(t, dbPath, "colleague")
	s := startTeamServer(t, dbPath, "--rate", "100000")
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var wg sync.WaitGroup
	floodErrs := make(chan error, 6)
	for i := range 6 {
		cs, err := s.connect(t, flooder)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			for n := 0; ctx.Err() == nil; n++ {
				q := fmt.Sprintf("%c%c* %c* method sets of the type", 'a'+rune((n*7+i)%26), 'a'+rune((n*3+i)%26), 'a'+rune((n*5+i)%26))
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_spec", Arguments: map[string]any{"query": q}})
				if ctx.Err() != nil {
					return
				}
				if err != nil || res.IsError {
					floodErrs <- fmt.Errorf("flood %q: %v %v", q, err, res)
					return
				}
			}
		})
	}
	cs, err := s.connect(t, colleague)
	if err != nil {
		t.Fatal(err)
	}
	const limit = 5 * time.Second
	slowest := time.Duration(0)
	for i := range 20 {
		q := []string{"slice expressions", "gorutine", `"type assertion"`, "x.(T)"}[i%4]
		callCtx, cancel := context.WithTimeout(context.Background(), limit)
		start := time.Now()
		res, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: "search_spec", Arguments: map[string]any{"query": q}})
		took := time.Since(start)
		cancel()
		if err != nil || res.IsError {
			t.Fatalf("the colleague's %q during the flood: %v %v (after %s)", q, err, res, took)
		}
		slowest = max(slowest, took)
	}
	stop()
	wg.Wait()
	close(floodErrs)
	for err := range floodErrs {
		t.Error(err)
	}
	t.Logf("the colleague's slowest call during the flood: %s", slowest)
}
