package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest"
)

// TestTokenCommands makes, lists and revokes tokens through the CLI: a
// token is printed once and never stored (only its SHA-256 is in the
// state file, and nothing of it in the index), names and --tools are
// checked.
func TestTokenCommands(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "t.db")
	code, out, errOut := run(t, homeOf(dbPath), "--db", dbPath, "token", "create", "alice", "--tools", "search_spec,get_section", "--json")
	if code != 0 {
		t.Fatalf("create: %d %s", code, errOut)
	}
	var made struct{ Name, Token string }
	if err := json.Unmarshal([]byte(out), &made); err != nil || made.Name != "alice" || !strings.HasPrefix(made.Token, "lsp_") {
		t.Fatalf("create --json printed %q (%v)", out, err)
	}
	statePath := filepath.Join(filepath.Dir(dbPath), ".local", "state", "langspec", "state.db")
	for _, file := range []string{dbPath, statePath, statePath + "-wal"} {
		raw, err := os.ReadFile(file)
		if err != nil && file == statePath {
			t.Fatal(err) // the token commands make the state file, and no index
		}
		if bytes.Contains(raw, []byte(made.Token)) || bytes.Contains(raw, []byte(strings.TrimPrefix(made.Token, "lsp_"))) {
			t.Errorf("the token itself is in %s", file)
		}
		if file == dbPath && bytes.Contains(raw, []byte("alice")) {
			t.Error("the index holds the token's name: tokens are state, not index")
		}
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"token", "create", "alice"}, 1, "exists already"},
		{[]string{"token", "create", "../bob"}, 2, "not a token name"},
		{[]string{"token", "create", "bob", "--tools", "rm_rf"}, 2, `"rm_rf" is not a tool`},
		{[]string{"token", "revoke", "zed"}, 1, `no token named "zed"`},
		{[]string{"token", "revoke", "alice"}, 0, "revoked"},
	} {
		code, _, errOut := run(t, homeOf(dbPath), append([]string{"--db", dbPath}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: code %d, stderr %q; want code %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
	_, out, _ = run(t, homeOf(dbPath), "--db", dbPath, "token", "list", "--json")
	var list []map[string]any
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 || list[0]["revoked_at"] == nil ||
		strings.Contains(out, made.Token) {
		t.Errorf("token list --json = %s (%v)", out, err)
	}
}

// teamServer is a running `langspec serve --http` child.
type teamServer struct {
	url    string // http://127.0.0.1:port
	stderr *lockedBuffer
	cmd    *exec.Cmd

	stopOnce sync.Once
	exit     error
	took     time.Duration
	hung     bool
}

// startTeamServer starts `langspec serve --http 127.0.0.1:0 args...` on
// dbPath, with a vault under the database's folder, and waits until it
// listens.
func startTeamServer(t testing.TB, dbPath string, args ...string) *teamServer {
	t.Helper()
	return startTeamServerEnv(t, dbPath, nil, args...)
}

// startTeamServerEnv is startTeamServer with more environment variables.
func startTeamServerEnv(t testing.TB, dbPath string, env []string, args ...string) *teamServer {
	t.Helper()
	bin := langspecBinary(t)
	cmd := exec.Command(bin, append([]string{"--db", dbPath, "serve", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = append([]string{"HOME=" + filepath.Dir(dbPath), "LANGSPEC_LOG=info", "VAULT_ROOT=" + filepath.Join(filepath.Dir(dbPath), "vault")}, env...)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &teamServer{stderr: stderr, cmd: cmd}
	t.Cleanup(func() {
		if _, _, hung := s.stop(os.Interrupt); hung {
			t.Errorf("the team server did not stop within %s of SIGINT", hangLimit)
		}
	})
	if !stderr.waitFor("serving MCP over HTTP") {
		t.Fatalf("no listening line; stderr:\n%s", stderr)
	}
	m := regexp.MustCompile(`url=(http://[^ ]+)/mcp`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no url in stderr:\n%s", stderr)
	}
	s.url = m[1]
	return s
}

// stop sends sig once and waits for the exit (killing the server after
// hangLimit): the exit's error, how long it took, and whether it hung.
// Later calls return the first one's results.
func (s *teamServer) stop(sig os.Signal) (exit error, took time.Duration, hung bool) {
	s.stopOnce.Do(func() {
		start := time.Now()
		s.cmd.Process.Signal(sig)
		done := make(chan error, 1)
		go func() { done <- s.cmd.Wait() }()
		select {
		case s.exit = <-done:
		case <-time.After(hangLimit):
			s.cmd.Process.Kill()
			s.exit, s.hung = <-done, true
		}
		s.took = time.Since(start)
	})
	return s.exit, s.took, s.hung
}

// bearer adds a bearer token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// connect opens an MCP session to s as the holder of token ("" for none).
func (s *teamServer) connect(t testing.TB, token string) (*mcp.ClientSession, error) {
	t.Helper()
	return s.connectWith(t, token, nil, "")
}

// connectWith is connect with client options and a protocol version to
// ask for ("" for the SDK's latest).
func (s *teamServer) connectWith(t testing.TB, token string, opts *mcp.ClientOptions, protocol string) (*mcp.ClientSession, error) {
	t.Helper()
	client := &http.Client{Transport: bearer{token, http.DefaultTransport}, Timeout: hangLimit}
	if token == "" {
		client = &http.Client{Timeout: hangLimit}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url + "/mcp", HTTPClient: client, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// makeToken makes a token with the CLI and returns it.
func makeToken(t *testing.T, dbPath, name string, extra ...string) string {
	t.Helper()
	code, out, errOut := run(t, homeOf(dbPath), append([]string{"--db", dbPath, "token", "create", name}, extra...)...)
	if code != 0 {
		t.Fatalf("token create %s: %s", name, errOut)
	}
	return strings.TrimSpace(out)
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

func callText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return err.Error(), true
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// TestTeamServerAuth: a request without a token, with a made-up one or a
// revoked one gets 401 and a pointer to the protected resource metadata;
// each subject lists and calls only its tools, and writes only into its
// own vault folder.
func TestTeamServerAuth(t *testing.T) {
	dbPath := seededDB(t)
	alice := makeToken(t, dbPath, "alice", "--tools", "search_spec,vault_create,vault_read")
	bob := makeToken(t, dbPath, "bob")
	gone := makeToken(t, dbPath, "gone")
	if code, _, errOut := run(t, homeOf(dbPath), "--db", dbPath, "token", "revoke", "gone"); code != 0 {
		t.Fatal(errOut)
	}
	s := startTeamServer(t, dbPath)

	for name, token := range map[string]string{"no token": "", "made up": "lsp_nope", "revoked": gone} {
		req, _ := http.NewRequest("POST", s.url+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		// langspec's own tokens only: no authorization server to log in
		// to, so the 401 points at none (a client would try OAuth
		// discovery that cannot complete) and says how to get a token.
		challenge := resp.Header.Get("WWW-Authenticate")
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(challenge, "Bearer ") || strings.Contains(challenge, "resource_metadata") ||
			strings.Contains(challenge, "invalid_token") != (token != "") || !strings.Contains(string(body), "langspec token create") {
			t.Errorf("%s: %d, WWW-Authenticate %q, body %q", name, resp.StatusCode, challenge, body)
		}
		if _, err := s.connect(t, token); err == nil {
			t.Errorf("%s: an MCP client connected", name)
		}
	}
	for _, path := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
		resp, err := http.Get(s.url + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s without an authorization server: %d, want 404", path, resp.StatusCode)
		}
	}
	// The server's address in a browser leads to the page; a wrong path
	// names the right ones (issue 50 item 3).
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if resp, err := noFollow.Get(s.url + "/"); err != nil || resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/ui/" {
		t.Errorf("GET /: %v %v, want 303 to /ui/", resp, err)
	}
	if resp, err := http.Get(s.url + "/mpc"); err != nil {
		t.Fatal(err)
	} else {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), "MCP is at /mcp") || !strings.Contains(string(body), "/ui/") {
			t.Errorf("GET /mpc: %d %q", resp.StatusCode, body)
		}
	}

	as, err := s.connect(t, alice)
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(t, as); !slices.Equal(got, []string{"search_spec", "vault_create", "vault_read"}) {
		t.Errorf("alice lists %v", got)
	}
	if text, isErr := callText(t, as, "list_languages", nil); !isErr {
		t.Errorf("alice called list_languages: %s", text)
	}
	if text, isErr := callText(t, as, "search_spec", map[string]any{"query": "slice expressions", "limit": 1}); isErr || !strings.Contains(text, "Slice") {
		t.Errorf("alice's search: %s", text)
	}
	if !s.stderr.waitFor("subject=alice") {
		t.Errorf("the call's log line does not name its subject:\n%s", s.stderr)
	}
	if strings.Contains(s.stderr.String(), alice) {
		t.Error("a token is in the log")
	}
	bs, err := s.connect(t, bob)
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(t, bs); !slices.Contains(got, "list_languages") || !slices.Contains(got, "vault_write") {
		t.Errorf("bob (every tool) lists %v", got)
	}

	// Vaults: alice's note is hers alone.
	if text, isErr := callText(t, as, "vault_create", map[string]any{"path": "notes/secret.md", "content": "alice only"}); isErr {
		t.Fatalf("alice's write: %s", text)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dbPath), "vault", "alice", "notes", "secret.md")); err != nil {
		t.Errorf("alice's note is not under VAULT_ROOT/alice: %v", err)
	}
	if text, isErr := callText(t, bs, "vault_read", map[string]any{"path": "notes/secret.md"}); !isErr || strings.Contains(text, "alice only") {
		t.Errorf("bob read alice's note: %s", text)
	}
	if text, isErr := callText(t, bs, "vault_read", map[string]any{"path": "../alice/notes/secret.md"}); !isErr || strings.Contains(text, "alice only") {
		t.Errorf("bob read alice's note through ..: %s", text)
	}
	if text, _ := callText(t, bs, "vault_ls", map[string]any{"path": "notes"}); strings.Contains(text, "secret") {
		t.Errorf("bob's listing shows alice's note: %s", text)
	}
}

// TestTeamServerGuards: what the team server refuses before any tool runs
// (a foreign Origin, a body over the limit, a subject over its rate, a
// public address without tokens), what it serves anyway (/health), and
// masks through the meta tools of categories mode.
func TestTeamServerGuards(t *testing.T) {
	dbPath := seededDB(t)
	alice := makeToken(t, dbPath, "alice", "--tools", "search_spec")
	s := startTeamServer(t, dbPath, "--tools", "categories", "--allow-origin", "http://localhost:6274")

	post := func(s *teamServer, body string, header ...string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("POST", s.url+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+alice)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	if code := post(s, ping, "Origin", "http://evil.example").StatusCode; code != http.StatusForbidden {
		t.Errorf("foreign Origin: %d, want 403", code)
	}
	if code := post(s, ping, "Origin", "http://localhost:6274").StatusCode; code == http.StatusForbidden {
		t.Errorf("allowed Origin: %d", code)
	}
	if code := post(s, `{"x":"`+strings.Repeat("a", 5<<20)+`"}`).StatusCode; code != http.StatusRequestEntityTooLarge {
		t.Errorf("5 MB body: %d, want 413", code)
	}
	resp, err := http.Get(s.url + "/health")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("/health: %v %v", resp, err)
	}
	if resp != nil {
		resp.Body.Close()
	}

	// Masks through categories: alice may run search_spec only.
	cs, err := s.connect(t, alice)
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(t, cs); !slices.Equal(got, []string{"batch", "call-category-tool", "get-category-tools"}) {
		t.Errorf("categories mode lists %v", got)
	}
	if text, isErr := callText(t, cs, "call-category-tool", map[string]any{"category": "spec", "name": "list_languages", "args": map[string]any{}}); !isErr || !strings.Contains(text, "tool_disabled") {
		t.Errorf("call-category-tool ran a masked tool: %s", text)
	}
	if text, _ := callText(t, cs, "batch", map[string]any{"tasks": `{"id":"a","category":"spec","tool":"list_languages","params":{},"output":true}`}); !strings.Contains(text, `"failed":1`) || !strings.Contains(text, "tool_disabled") {
		t.Errorf("batch ran a masked tool: %s", text)
	}
	if text, isErr := callText(t, cs, "call-category-tool", map[string]any{"category": "spec", "name": "search_spec", "args": map[string]any{"query": "defer", "limit": 1}}); isErr {
		t.Errorf("call-category-tool refused an allowed tool: %s", text)
	}

	// Rate: at --rate 1, a burst of 2; ten at once cannot all pass.
	slow := startTeamServer(t, dbPath, "--rate", "1")
	limited := 0
	for range 10 {
		if post(slow, ping).StatusCode == http.StatusTooManyRequests {
			limited++
		}
	}
	if limited == 0 {
		t.Error("ten requests at once at --rate 1: none got 429")
	}
}

// TestTeamServerRefusesPublicWithoutAuth: a non-loopback address with no
// token is refused, with what to do.
func TestTeamServerRefusesPublicWithoutAuth(t *testing.T) {
	dbPath := seededDB(t)
	code, _, errOut := run(t, homeOf(dbPath), "--db", dbPath, "serve", "--http", "0.0.0.0:0")
	if code != 2 || !strings.Contains(errOut, "token create") {
		t.Errorf("serve --http 0.0.0.0:0 without tokens: code %d, %q", code, errOut)
	}
}

// TestServeReadOnly lists no writing tool with --read-only.
func TestServeReadOnly(t *testing.T) {
	dbPath := seededDB(t)
	s := startTeamServer(t, dbPath, "--read-only")
	cs, err := s.connect(t, "")
	if err != nil {
		t.Fatal(err)
	}
	got := toolNames(t, cs)
	if !slices.Contains(got, "vault_read") || !slices.Contains(got, "search_spec") {
		t.Errorf("--read-only lost reading tools: %v", got)
	}
	for _, w := range []string{"vault_write", "vault_create", "vault_replace", "bridge_copy_file", "bridge_copy_section"} {
		if slices.Contains(got, w) {
			t.Errorf("--read-only lists %s", w)
		}
	}
}

// TestTeamServerJWT: with auth.jwt in langspec.json, an HS256 token of the
// identity provider is a subject with the tools the configuration gives
// it, a token of the wrong audience or past its expiry is 401, and the
// metadata names the issuer; langspec's own tokens keep working.
func TestTeamServerJWT(t *testing.T) {
	dbPath := seededDB(t)
	dir := filepath.Dir(dbPath)
	cfg := filepath.Join(dir, "langspec.json")
	os.WriteFile(cfg, []byte(`{"auth": {"jwt": {"issuer": "https://id.example", "audience": "langspec-team", "hs256_secret": "${JWT_SECRET}"},
		"subjects": {"carol": {"tools": ["search_spec", "list_languages"]}}, "allowed_origins": ["http://localhost:6274"]}}`), 0o600)
	secret := "correct horse battery staple, long enough"
	own := makeToken(t, dbPath, "dave", "--tools", "get_section")
	s := startTeamServerEnv(t, dbPath, []string{"JWT_SECRET=" + secret}, "--config", cfg)
	if strings.Contains(s.stderr.String(), secret) {
		t.Error("the secret is in the log")
	}
	mint := func(aud string, exp time.Duration) string {
		tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"iss": "https://id.example", "aud": aud, "sub": "carol",
			"exp": time.Now().Add(exp).Unix()}).SignedString([]byte(secret))
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	cs, err := s.connect(t, mint("langspec-team", time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(t, cs); !slices.Equal(got, []string{"list_languages", "search_spec"}) {
		t.Errorf("carol lists %v", got)
	}
	for name, tok := range map[string]string{"wrong audience": mint("other", time.Hour), "expired": mint("langspec-team", -time.Hour)} {
		if _, err := s.connect(t, tok); err == nil {
			t.Errorf("%s: connected", name)
		}
	}
	ds, err := s.connect(t, own)
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(t, ds); !slices.Equal(got, []string{"get_section"}) {
		t.Errorf("dave's own token lists %v", got)
	}
	// With an identity provider, the metadata names it, at both the bare
	// path and RFC 9728's path form, and a 401 points at it.
	for _, path := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
		resp, err := http.Get(s.url + path)
		if err != nil {
			t.Fatal(err)
		}
		var meta struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
		}
		json.NewDecoder(resp.Body).Decode(&meta)
		resp.Body.Close()
		if meta.Resource != s.url+"/mcp" || !slices.Equal(meta.AuthorizationServers, []string{"https://id.example"}) {
			t.Errorf("%s: metadata %+v", path, meta)
		}
	}
	resp, err := http.Post(s.url+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if want := `resource_metadata="` + s.url + `/.well-known/oauth-protected-resource/mcp"`; !strings.Contains(resp.Header.Get("WWW-Authenticate"), want) {
		t.Errorf("401 WWW-Authenticate %q lacks %s", resp.Header.Get("WWW-Authenticate"), want)
	}
	// The configured origin is allowed.
	req, _ := http.NewRequest("POST", s.url+"/mcp", strings.NewReader(`{}`))
	req.Header.Set("Origin", "http://localhost:6274")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode == http.StatusForbidden {
		t.Errorf("configured origin: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
}

// TestTeamServerSwapsIndex runs a read-only replica under load from four
// clients while a newer index replaces its database file (built beside
// it, then renamed over it, as a sync tool does): every request succeeds,
// and the new index answers within seconds.
func TestTeamServerSwapsIndex(t *testing.T) {
	dbPath := seededDB(t)
	s := startTeamServer(t, dbPath, "--read-only", "--rate", "100000")

	// The newer index: the Go spec and a document with a word the old one
	// lacks.
	next := filepath.Join(filepath.Dir(dbPath), "next.db")
	store, err := db.Open(context.Background(), next)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.EnsureDefault(context.Background(), store, time.Now()); err != nil {
		t.Fatal(err)
	}
	snap := db.Snapshot{Language: "swap", Doc: "notes", DisplayName: "Swap notes", Version: "1", SourceURL: "test",
		FetchedAt: time.Now(), ContentHash: "s1"}
	if _, err := store.Publish(context.Background(), snap, []db.Section{{SectionID: "Zebrafish", Level: 2, Title: "Zebrafish",
		Path: "Zebrafish", URL: "https://swap.example/#Zebrafish", Text: "The zebrafishword is only in the new index.", SourcePolicy: db.FullText}}); err != nil {
		t.Fatal(err)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}

	ctx, stop := context.WithCancel(context.Background())
	type result struct {
		calls, failures int
		first           string
	}
	results := make(chan result, 4)
	for i := range 4 {
		cs, err := s.connect(t, "")
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			var r result
			for ctx.Err() == nil {
				q := []string{"slice expressions", "defer statements", "zebrafishword"}[(r.calls+i)%3]
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search_spec", Arguments: map[string]any{"query": q, "limit": 3}})
				r.calls++
				if err != nil || res.IsError {
					r.failures++
					if r.first == "" {
						r.first = fmt.Sprint(err, res)
					}
				}
			}
			results <- r
		}()
	}
	time.Sleep(300 * time.Millisecond)
	if err := os.Rename(next, dbPath); err != nil {
		t.Fatal(err)
	}
	cs, err := s.connect(t, "")
	if err != nil {
		t.Fatal(err)
	}
	swapped := false
	for deadline := time.Now().Add(hangLimit); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if text, isErr := callText(t, cs, "search_spec", map[string]any{"query": "zebrafishword", "language": "swap"}); !isErr && strings.Contains(text, "Zebrafish") {
			swapped = true
			break
		}
	}
	time.Sleep(300 * time.Millisecond) // load on the new index, and the old one closing
	stop()
	total := result{}
	for range 4 {
		r := <-results
		total.calls += r.calls
		total.failures += r.failures
		if total.first == "" {
			total.first = r.first
		}
	}
	if !swapped {
		t.Errorf("the new index never answered; stderr:\n%s", s.stderr)
	}
	if total.failures > 0 || total.calls < 20 {
		t.Errorf("%d of %d calls failed during the swap (first: %s)", total.failures, total.calls, total.first)
	}
	if !s.stderr.waitFor("switched to the replaced index") { // stderr's pipe may lag behind the answers
		t.Errorf("no switch in the log:\n%s", s.stderr)
	}
	t.Logf("%d calls, none failed, across the swap", total.calls)
}

// TestTeamServerUpstream serves the real @modelcontextprotocol/server-
// everything through the team server's categories: two subjects reach it
// (one process for both), and alice's token lets her run only its echo.
func TestTeamServerUpstream(t *testing.T) {
	command, args := everythingCommand(t)
	cfg := writeCategoriesConfig(t, command, args)
	dbPath := seededDB(t)
	alice := makeToken(t, dbPath, "alice", "--tools", "demo__echo")
	bob := makeToken(t, dbPath, "bob")
	s := startTeamServerEnv(t, dbPath, []string{"PATH=" + os.Getenv("PATH"), "LANGSPEC_TEST_MARK=x"}, "--config", cfg, "--tools", "categories")
	echo := map[string]any{"category": "demo", "name": "echo", "args": map[string]any{"message": "hello team"}}
	for name, token := range map[string]string{"alice": alice, "bob": bob} {
		cs, err := s.connect(t, token)
		if err != nil {
			t.Fatal(err)
		}
		if text, isErr := callText(t, cs, "call-category-tool", echo); isErr || !strings.Contains(text, "hello team") {
			t.Errorf("%s's echo: %s", name, text)
		}
		sum := map[string]any{"category": "demo", "name": "get-sum", "args": map[string]any{"a": 1, "b": 2}}
		text, isErr := callText(t, cs, "call-category-tool", sum)
		if name == "alice" && (!isErr || !strings.Contains(text, "tool_disabled")) {
			t.Errorf("alice ran get-sum: %s", text)
		}
		if name == "bob" && (isErr || !strings.Contains(text, "3")) {
			t.Errorf("bob's get-sum: %s", text)
		}
	}
	s.stderr.waitFor(`msg="upstream ready" server=everything`) // stderr's pipe may lag behind the answers
	if n := strings.Count(s.stderr.String(), `msg="upstream ready" server=everything`); n != 1 {
		t.Errorf("the upstream was started %d times for two subjects, want once", n)
	}
}

// TestTeamServerMetrics: /metrics in the Prometheus text format counts the
// calls by tool and outcome, for an admin token only.
func TestTeamServerMetrics(t *testing.T) {
	dbPath := seededDB(t)
	alice := makeToken(t, dbPath, "alice")
	ops := makeToken(t, dbPath, "ops", "--admin")
	s := startTeamServer(t, dbPath)
	cs, err := s.connect(t, alice)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		callText(t, cs, "search_spec", map[string]any{"query": "defer", "limit": 1})
	}
	callText(t, cs, "get_section", map[string]any{"section_id": "No_such_section"})
	callText(t, cs, "made-up tool of a client", nil)
	get := func(token string) (int, string) {
		req, _ := http.NewRequest("GET", s.url+"/metrics", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return resp.StatusCode, b.String()
	}
	if code, _ := get(""); code != http.StatusUnauthorized {
		t.Errorf("no token: %d", code)
	}
	if code, _ := get(alice); code != http.StatusForbidden {
		t.Errorf("a token that is not an admin's: %d", code)
	}
	code, body := get(ops)
	for _, want := range []string{
		`langspec_tool_calls_total{outcome="ok",tool="search_spec"} 2`,
		`langspec_tool_calls_total{outcome="error",tool="get_section"} 1`,
		`langspec_tool_calls_total{outcome="protocol_error",tool="unknown"} 1`,
		`langspec_tool_call_duration_seconds_count{tool="search_spec"} 2`,
	} {
		if code != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("admin: %d, no %s in\n%s", code, want, body)
		}
	}
}

// TestTeamServerSharesOneReadPool drives the real team server as a team
// would: 32 sessions of four tokens calling search_spec at once, every
// kind of query (words, a phrase, a prefix, code, a typo, a path filter),
// through the one store every request shares and its read pool the size
// of the cores, which the server names when it starts. Every call must be
// answered, none with an error, none left hanging.
func TestTeamServerSharesOneReadPool(t *testing.T) {
	dbPath := seededDB(t)
	tokens := make([]string, 4)
	for i := range tokens {
		tokens[i] = makeToken(t, dbPath, fmt.Sprintf("member%d", i))
	}
	s := startTeamServer(t, dbPath, "--rate", "100000")
	m := regexp.MustCompile(`read_pool=(\d+)`).FindStringSubmatch(s.stderr.String())
	if m == nil || m[1] == "0" {
		t.Fatalf("the listening line names no read pool:\n%s", s.stderr)
	}
	queries := []map[string]any{
		{"query": "slice expressions"},
		{"query": `"type assertion"`},
		{"query": "assert*"},
		{"query": "x.(T)"},
		{"query": "recieve operatr"},
		{"query": "method sets", "section_path_prefix": "Types"},
		{"query": "defer", "language": "go", "limit": 3},
	}
	const sessions, calls = 32, 12
	var wg sync.WaitGroup
	errs := make(chan error, sessions*calls)
	for i := range sessions {
		cs, err := s.connect(t, tokens[i%len(tokens)])
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			for j := range calls {
				args := queries[(i+j)%len(queries)]
				ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_spec", Arguments: args})
				cancel()
				switch {
				case err != nil:
					errs <- fmt.Errorf("session %d, %v: %w", i, args, err)
				case res.IsError:
					errs <- fmt.Errorf("session %d, %v: %s", i, args, textOf(res))
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if strings.Contains(s.stderr.String(), "panic") {
		t.Errorf("stderr:\n%s", s.stderr)
	}
}
