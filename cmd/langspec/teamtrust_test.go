package main

// The team server's second round of attacks: a bare tool name reaching an
// upstream tool, the page minting what the command line refuses, a later
// token reading an earlier JWT subject's files, names that differ only in
// case, a resource granted by the wrong tool, floods of the page, of its
// logins and of concurrent initializes, and the limits of one message.
// Real processes, real HTTP on loopback, the go-sdk client where a client
// is needed; each test names the item it keeps.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// jwtSecret signs the HS256 tokens of these tests' identity provider.
const jwtSecret = "correct horse battery staple, long enough"

// jwtConfig writes a langspec.json naming an HS256 identity provider
// (issuer https://id.example, audience team, the secret in JWT_SECRET),
// with subjects (JSON members, "" for none) and anything else in extra.
func jwtConfig(t *testing.T, subjects, extra string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "langspec.json")
	body := `{"auth": {"jwt": {"issuer": "https://id.example", "audience": "team", "hs256_secret": "${JWT_SECRET}"}, "subjects": {` + subjects + `}}` + extra + `}`
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// mintJWT signs a token of the identity provider of jwtConfig for sub.
func mintJWT(t *testing.T, sub string) string {
	t.Helper()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"iss": "https://id.example", "aud": "team", "sub": sub,
		"exp": time.Now().Add(time.Hour).Unix()}).SignedString([]byte(jwtSecret))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// Item 1: a bare tool name in a token's tools is langspec's own tool only.
// An upstream that lists a tool of the same name (here langspec itself,
// served over stdio as the upstream "up"), in a category that includes
// every tool, is refused through call-category-tool and through batch; it
// is reached only when the token names it as up__search_spec.
func TestTeamTrustBareToolNameIsLangspecsOwn(t *testing.T) {
	dbPath := seededDB(t)
	cfg := map[string]any{
		"mcpServers": map[string]any{"up": map[string]any{"description": "an upstream with a tool named search_spec",
			"command": langspecBinary(t), "args": []string{"--db", dbPath, "serve"}}},
		"categories": map[string]any{"up": map[string]any{"description": "every tool of up", "server": "up",
			"tools": map[string]any{"includePatterns": []string{"*"}}}},
	}
	b, _ := json.Marshal(cfg)
	cfgPath := filepath.Join(t.TempDir(), "langspec.json")
	if err := os.WriteFile(cfgPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	carol := makeToken(t, dbPath, "carol", "--tools", "search_spec")
	dave := makeToken(t, dbPath, "dave", "--tools", "up__search_spec")
	s := startTeamServer(t, dbPath, "--config", cfgPath)
	search := map[string]any{"query": "defer statements", "limit": 1}
	batch := func(category string) map[string]any {
		line, _ := json.Marshal(map[string]any{"id": "a", "category": category, "tool": "search_spec", "params": search, "output": true})
		return map[string]any{"tasks": string(line)}
	}
	for _, tc := range []struct {
		who, token        string
		upstream, ownTool bool
	}{
		{"carol (search_spec)", carol, false, true},
		{"dave (up__search_spec)", dave, true, false},
	} {
		cs, err := s.connect(t, tc.token)
		if err != nil {
			t.Fatal(err)
		}
		text, isErr := callText(t, cs, "call-category-tool", map[string]any{"category": "up", "name": "search_spec", "args": search})
		if isErr == tc.upstream || !tc.upstream && !strings.Contains(text, "tool_disabled") {
			t.Errorf("%s: call-category-tool up/search_spec: error %v, %.300s", tc.who, isErr, text)
		}
		text, isErr = callText(t, cs, "batch", batch("up"))
		if ran := !isErr && strings.Contains(text, "Defer statements"); ran != tc.upstream {
			t.Errorf("%s: batch over up/search_spec ran %v, want %v: %.300s", tc.who, ran, tc.upstream, text)
		}
		text, isErr = callText(t, cs, "call-category-tool", map[string]any{"category": "spec", "name": "search_spec", "args": search})
		if isErr == tc.ownTool {
			t.Errorf("%s: call-category-tool spec/search_spec: error %v, %.300s", tc.who, isErr, text)
		}
		var listing struct {
			Tools map[string]any `json:"tools"`
		}
		callJSON(t, cs, "get-category-tools", map[string]any{"category": "up"}, &listing)
		if _, listed := listing.Tools["search_spec"]; listed != tc.upstream {
			t.Errorf("%s: get-category-tools up lists search_spec: %v, want %v", tc.who, listed, tc.upstream)
		}
	}
}

// postTokenForm submits the tokens page's form as an admin's browser
// would, and returns the status and the page.
func postTokenForm(t *testing.T, s *teamServer, c *http.Client, form url.Values) (int, string) {
	t.Helper()
	status, csrf := pageCSRF(t, c, s.url+"/ui/tokens")
	if status != http.StatusOK || csrf == "" {
		t.Fatalf("the tokens page: %d, csrf %q", status, csrf)
	}
	form.Set("csrf", csrf)
	resp, err := c.PostForm(s.url+"/ui/tokens", form)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, string(body)
}

// Item 2 (and 4 on the page): the tokens page makes exactly the tokens
// `token create` makes. A configured subject's name, a name that differs
// from a token's only in case, an unknown tool: refused by both, with the
// same words.
func TestTeamTrustPageMakesWhatTheCLIMakes(t *testing.T) {
	dbPath := seededDB(t)
	cfg := jwtConfig(t, `"ci": {"tools": ["search_spec"]}`, "")
	admin := makeToken(t, dbPath, "ops", "--admin")
	makeToken(t, dbPath, "alice")
	s := startTeamServerEnv(t, dbPath, []string{"JWT_SECRET=" + jwtSecret}, "--config", cfg)
	c := pageClient(t, s, admin)
	for _, tc := range []struct {
		name, tools string
		want        string // in the page and in the command line's error; "" to make it
	}{
		{"ci", "", `the identity provider's subject "ci" under auth.subjects goes by the name "ci" already`},
		{"CI", "", `goes by the name "ci" already`},
		{"ALICE", "", `a token named "alice" exists already: names that differ only in case are one name`},
		{"bob", "rm_rf", `tools: "rm_rf" is not a tool`},
		{"gus", "*__search_spec", `tools: "*__search_spec" is not a tool`}, // a pattern would reach every upstream's search_spec
		{"../x", "", `"../x" is not a token name`},
		{"erin", "search_spec, up__fetch", ""},
		{"frank", "", ""},
	} {
		status, page := postTokenForm(t, s, c, url.Values{"name": {tc.name}, "tools": {tc.tools}})
		args := []string{"--db", filepath.Join(t.TempDir(), "cli.db"), "--config", cfg, "token", "create", tc.name}
		if tc.tools != "" {
			args = append(args, "--tools", tc.tools)
		}
		env := map[string]string{"HOME": t.TempDir()}
		if tc.name == "ALICE" {
			args[1], env = dbPath, homeOf(dbPath) // the name alice is taken there
		}
		code, _, errOut := run(t, env, args...)
		if tc.want == "" {
			if status != http.StatusOK || !strings.Contains(page, "lsp_") || code != 0 {
				t.Errorf("%s: the page answered %d, the CLI %d %q; want both to make it", tc.name, status, code, errOut)
			}
			continue
		}
		if status != http.StatusBadRequest || !strings.Contains(page, htmlEscape(tc.want)) || strings.Contains(page, "lsp_") {
			t.Errorf("%s: the page answered %d, want 400 with %q:\n%s", tc.name, status, tc.want, pageError(page))
		}
		if code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: the CLI answered %d %q, want an error with %q", tc.name, code, errOut, tc.want)
		}
	}
	names := tokenNames(t, dbPath)
	for _, refused := range []string{"ci", "CI", "ALICE", "bob", "gus", "../x"} {
		if _, made := names[refused]; made {
			t.Errorf("the page made a token %q", refused)
		}
	}
	// The configured subject ci still gets in with its own tools.
	cs, err := s.connect(t, mintJWT(t, "ci"))
	if err != nil {
		t.Fatalf("the JWT subject ci after the page's refusal: %v", err)
	}
	if got := toolNames(t, cs); len(got) != 1 || got[0] != "search_spec" {
		t.Errorf("ci lists %v", got)
	}
	// And the configuration's subjects follow the same rule for their
	// tools: a server whose auth.subjects names a pattern does not start.
	bad := jwtConfig(t, `"ci": {"tools": ["*__search_spec"]}`, "")
	ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
	defer cancel()
	serve := exec.CommandContext(ctx, langspecBinary(t), "--db", dbPath, "--config", bad, "serve", "--http", "127.0.0.1:0")
	serve.Env = []string{"HOME=" + t.TempDir(), "JWT_SECRET=" + jwtSecret}
	if out, err := serve.CombinedOutput(); err == nil || ctx.Err() != nil || !strings.Contains(string(out), `auth.subjects.ci.tools: "*__search_spec" is not a tool`) {
		t.Errorf("serve with a pattern under auth.subjects.ci.tools: %v, %q", err, out)
	}
}

// htmlEscape is how html/template writes s in a page's text.
func htmlEscape(s string) string {
	return strings.NewReplacer(`"`, "&#34;", "'", "&#39;", "&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// pageError is the error paragraph of a page, for a failure message.
func pageError(page string) string {
	if m := regexp.MustCompile(`(?s)<p class="error"[^>]*>(.*?)</p>`).FindStringSubmatch(page); m != nil {
		return m[1]
	}
	return fmt.Sprintf("%.400s", page)
}

// Item 3: a JWT subject's vault lives under its issuer, so a token made
// later under its name reads nothing of it. And a JWT subject's folder
// from before (VAULT_ROOT/<name>) moves to its home on its first request,
// when no token has the name.
func TestTeamTrustLaterTokenDoesNotInheritAJWTSubjectsVault(t *testing.T) {
	dbPath := seededDB(t)
	vaultRoot := filepath.Join(filepath.Dir(dbPath), "vault")
	legacy := filepath.Join(vaultRoot, "hank", "old.md")
	if err := os.MkdirAll(filepath.Dir(legacy), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(legacy, []byte("hank's note from an older version\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	admin := makeToken(t, dbPath, "ops", "--admin")
	cfg := jwtConfig(t, "", "")
	s := startTeamServerEnv(t, dbPath, []string{"JWT_SECRET=" + jwtSecret}, "--config", cfg)

	gina, err := s.connect(t, mintJWT(t, "gina"))
	if err != nil {
		t.Fatal(err)
	}
	if text, isErr := callText(t, gina, "vault_create", map[string]any{"path": "private/diary.md", "content": "gina's diary\n"}); isErr {
		t.Fatalf("gina writes her diary: %s", text)
	}
	hank, err := s.connect(t, mintJWT(t, "hank"))
	if err != nil {
		t.Fatal(err)
	}
	if text, isErr := callText(t, hank, "vault_read", map[string]any{"path": "old.md"}); isErr || !strings.Contains(text, "older version") {
		t.Errorf("hank's note of an older version, read at its home: %v %.300s", isErr, text)
	}
	// An admin makes a token named gina on the page, and one named hank
	// on the command line.
	c := pageClient(t, s, admin)
	status, page := postTokenForm(t, s, c, url.Values{"name": {"gina"}})
	ginaToken := regexp.MustCompile(`lsp_[A-Za-z0-9_-]{20,}`).FindString(page)
	if status != http.StatusOK || ginaToken == "" {
		t.Fatalf("an admin makes a token gina: %d %s", status, pageError(page))
	}
	for name, tok := range map[string]string{"gina": ginaToken, "hank": makeToken(t, dbPath, "hank")} {
		cs, err := s.connect(t, tok)
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{"private/diary.md", "old.md"} {
			if text, isErr := callText(t, cs, "vault_read", map[string]any{"path": path}); !isErr || strings.Contains(text, "diary\n") || strings.Contains(text, "older version") {
				t.Errorf("the later token %s reads %s: error %v, %.200s", name, path, isErr, text)
			}
		}
		if text, _ := callText(t, cs, "vault_ls", map[string]any{}); strings.Contains(text, "diary") || strings.Contains(text, "old.md") {
			t.Errorf("the later token %s lists the JWT subject's files: %.300s", name, text)
		}
	}
	// On disk: under _jwt, apart from the tokens' folders.
	homes, _ := filepath.Glob(filepath.Join(vaultRoot, "_jwt", "*", "gina", "private", "diary.md"))
	if len(homes) != 1 {
		t.Errorf("gina's diary is not in her home under _jwt: %v", homes)
	}
	if _, err := os.Stat(legacy); err == nil {
		t.Error("hank's old folder was not moved to his home")
	}
}

// Item 4: names that differ only in case are one name wherever a name
// becomes a path: `token create ALICE` beside alice is refused, a JWT
// subject "Alice" beside the token alice is refused, and the JWT subjects
// "Bob" and "bob" of one issuer get two homes that differ in more than
// case (one folder on macOS and Windows otherwise).
func TestTeamTrustNamesDifferingInCase(t *testing.T) {
	dbPath := seededDB(t)
	makeToken(t, dbPath, "alice")
	if code, _, errOut := run(t, homeOf(dbPath), "--db", dbPath, "token", "create", "ALICE"); code == 0 || !strings.Contains(errOut, "differ only in case") {
		t.Errorf("token create ALICE beside alice: %d %q", code, errOut)
	}
	s := startTeamServerEnv(t, dbPath, []string{"JWT_SECRET=" + jwtSecret}, "--config", jwtConfig(t, "", ""))
	if _, err := s.connect(t, mintJWT(t, "Alice")); err == nil {
		t.Error("the JWT subject Alice connected beside the token alice")
	}
	vaultRoot := filepath.Join(filepath.Dir(dbPath), "vault")
	for _, sub := range []string{"Bob", "bob"} {
		cs, err := s.connect(t, mintJWT(t, sub))
		if err != nil {
			t.Fatal(err)
		}
		if text, isErr := callText(t, cs, "vault_create", map[string]any{"path": "me.md", "content": sub + "\n"}); isErr {
			t.Fatalf("%s writes: %s", sub, text)
		}
	}
	notes, _ := filepath.Glob(filepath.Join(vaultRoot, "_jwt", "*", "*", "me.md"))
	if len(notes) != 2 {
		t.Fatalf("the notes of Bob and bob: %v", notes)
	}
	a, b := filepath.Dir(notes[0]), filepath.Dir(notes[1])
	if strings.EqualFold(a, b) {
		t.Errorf("Bob and bob have homes that differ only in case: %s, %s", a, b)
	}
	for _, n := range notes {
		got, _ := os.ReadFile(n)
		if dir := filepath.Base(filepath.Dir(n)); (dir == "bob") != (string(got) == "bob\n") {
			t.Errorf("%s holds %q", n, got)
		}
	}
}

// Item 5: the diff template answers what spec_diff answers, so it is
// granted by spec_diff, not by get_section: a token with search_spec and
// get_section neither lists it nor reads it. And a version of any length
// is quoted in the error, not echoed whole (cosmetic item).
func TestTeamTrustDiffResourceNeedsSpecDiff(t *testing.T) {
	dbPath := seededDB(t)
	reader := makeToken(t, dbPath, "reader", "--tools", "search_spec,get_section")
	differ := makeToken(t, dbPath, "differ", "--tools", "spec_diff,get_section")
	s := startTeamServer(t, dbPath)
	ctx := context.Background()
	long := strings.Repeat("v", 5000)
	for _, tc := range []struct {
		who, token string
		diff       bool
	}{{"search_spec,get_section", reader, false}, {"spec_diff,get_section", differ, true}} {
		cs, err := s.connect(t, tc.token)
		if err != nil {
			t.Fatal(err)
		}
		tmpls, err := cs.ListResourceTemplates(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		listed := false
		for _, tm := range tmpls.ResourceTemplates {
			listed = listed || tm.Name == "diff"
		}
		if listed != tc.diff {
			t.Errorf("%s: the diff template listed %v, want %v", tc.who, listed, tc.diff)
		}
		_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "langspec://go/spec/diff/go1.26/go1.26"})
		if refused := err != nil && strings.Contains(err.Error(), "spec_diff"); refused == tc.diff {
			t.Errorf("%s: read the diff template: %v", tc.who, err)
		}
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "langspec://go/spec/diff/" + long + "/go1.26"}); err == nil || len(err.Error()) > 600 {
			t.Errorf("%s: a 5000-character version: an error of %d bytes: %.200s", tc.who, len(fmt.Sprint(err)), err)
		}
	}
}

// pageGet fetches a page of s with a bearer header (in the scheme's
// spelling given), returning its status.
func pageGet(t *testing.T, s *teamServer, path, scheme, token string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", s.url+path, nil)
	if token != "" {
		req.Header.Set("Authorization", scheme+" "+token)
	}
	resp, err := (&http.Client{Timeout: hangLimit}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// Item 6: one rate limit in front of every route that runs a query. With
// --rate 5 (bursts of 10), a flood of the page's searches, of /metrics, of
// /health and of logins is refused with 429, the page and /mcp draw from
// one bucket, and a flood is logged in a line, not a line a request.
// Cosmetic: the page takes the bearer scheme in any case, as /mcp does.
func TestTeamTrustOneLimiterForEveryRoute(t *testing.T) {
	dbPath := seededDB(t)
	admin := makeToken(t, dbPath, "ops", "--admin")
	reader := makeToken(t, dbPath, "reader")
	s := startTeamServer(t, dbPath, "--rate", "5")
	if got := pageGet(t, s, "/ui/search?q=defer", "bearer", reader); got != http.StatusOK {
		t.Errorf("the page with the scheme spelt bearer: %d", got)
	}
	flood := func(what string, send func() int) {
		t.Helper()
		refused := 0
		for range 40 {
			if send() == http.StatusTooManyRequests {
				refused++
			}
		}
		if refused < 20 {
			t.Errorf("%s: %d of 40 quick requests refused with 429, want most (rate 5, burst 10)", what, refused)
		}
	}
	flood("the page's search", func() int { return pageGet(t, s, "/ui/search?q=defer", "Bearer", reader) })
	// The same subject's bucket is empty for /mcp too.
	if resp, _ := mcpPost(t, s, reader, "", initializeBody); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("/mcp right after the page's flood: %d, want 429 (one bucket per subject)", resp.StatusCode)
	}
	flood("/metrics", func() int { return pageGet(t, s, "/metrics", "Bearer", admin) })
	flood("/health", func() int { return pageGet(t, s, "/health", "", "") })
	flood("the login form", func() int {
		resp, err := http.PostForm(s.url+"/ui/login", url.Values{"token": {"lsp_nope"}, "csrf": {"x"}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	})
	// Made-up tokens have no subject: they are counted by address, and
	// once that address's share is used up, not even checked.
	flood("made-up tokens on /mcp", func() int {
		resp, _ := mcpPost(t, s, "lsp_made-up", "", initializeBody)
		return resp.StatusCode
	})
	flood("made-up tokens on the page", func() int { return pageGet(t, s, "/ui/search?q=defer", "Bearer", "lsp_made-up") })
	if n := strings.Count(s.stderr.String(), `msg="rate limited"`); n < 1 || n > 12 {
		t.Errorf("%d log lines for six floods of 429s, want one or two each:\n%s", n, s.stderr)
	}
}

// Item 7: a token that logs in to the page without end holds at most the
// cap of sessions: each login past it ends the subject's oldest, whose
// cookie then gets the login page again.
func TestTeamTrustPageSessionsAreCapped(t *testing.T) {
	dbPath := seededDB(t)
	reader := makeToken(t, dbPath, "reader")
	s := startTeamServer(t, dbPath)
	first := pageClient(t, s, reader)
	if status, _ := pageCSRF(t, first, s.url+"/ui/search"); status != http.StatusOK {
		t.Fatalf("the first login: %d", status)
	}
	const cap = 16 // webui.DefaultSessionsPerSubject
	var last *http.Client
	for range cap {
		last = pageClient(t, s, reader)
	}
	if status, _ := pageCSRF(t, first, s.url+"/ui/search"); status != http.StatusUnauthorized {
		t.Errorf("the first of %d logins of one token: %d, want 401 (ended to make room)", cap+1, status)
	}
	if status, _ := pageCSRF(t, last, s.url+"/ui/search"); status != http.StatusOK {
		t.Errorf("the newest login: %d", status)
	}
	if !strings.Contains(s.stderr.String(), "ended the subject's oldest session") {
		t.Errorf("no log line for the session ended:\n%s", s.stderr)
	}
}

// Item 8: --max-sessions holds under concurrency. 60 initializes at once
// with a cap of 3 leave at most 3 live sessions: the slot is taken before
// the SDK makes the session.
func TestTeamTrustSessionCapHoldsUnderConcurrency(t *testing.T) {
	dbPath := seededDB(t)
	token := makeToken(t, dbPath, "many")
	s := startTeamServer(t, dbPath, "--max-sessions", "3", "--rate", "1000") // the rate is not what this test is about
	var mu sync.Mutex
	var made []string
	var wg sync.WaitGroup
	for range 60 {
		wg.Go(func() {
			resp, _ := mcpPost(t, s, token, "", initializeBody)
			if id := resp.Header.Get("Mcp-Session-Id"); resp.StatusCode == http.StatusOK && id != "" {
				mu.Lock()
				made = append(made, id)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	live := 0
	for _, id := range made {
		resp, _ := mcpPost(t, s, token, id, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
		if resp.StatusCode == http.StatusOK {
			live++
		}
	}
	if live > 3 || live == 0 {
		t.Errorf("%d sessions live after 60 concurrent initializes with --max-sessions 3 (%d made)", live, len(made))
	}
}

// Item 15: one limit on a message, 4 MiB, over both transports: a vault
// note of the vault's largest size (2 MiB), which only stdio took before,
// is written over HTTP too, and a 5 MiB message is refused on both with a
// JSON-RPC error that names the limit.
func TestTeamTrustOneMessageLimit(t *testing.T) {
	dbPath := seededDB(t)
	note := strings.Repeat("a line of a large note\n", 3<<20/23)
	tooBig := strings.Repeat("x", 5<<20)
	// HTTP.
	s := startTeamServer(t, dbPath)
	cs, err := s.connect(t, "")
	if err != nil {
		t.Fatal(err)
	}
	if text, isErr := callText(t, cs, "vault_create", map[string]any{"path": "big.md", "content": note[:2<<20-100]}); isErr {
		t.Errorf("HTTP: a 2 MiB note: %.300s", text)
	}
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"vault_write","arguments":{"path":"huge.md","content":"` + tooBig + `"}}}`
	resp, got := mcpPost(t, s, "", "", body)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(got, `"jsonrpc":"2.0"`) || !strings.Contains(got, "4194304") {
		t.Errorf("HTTP: a 5 MiB message: %d %.300s", resp.StatusCode, got)
	}
	// stdio: the same message, answered in JSON-RPC with the same limit.
	bin := langspecBinary(t)
	stderr := &lockedBuffer{}
	cmd := serveCmd(bin, dbPath, stderr)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); cmd.Wait() }()
	lines := make(chan string, 4)
	go func() {
		dec := json.NewDecoder(out)
		for {
			var m json.RawMessage
			if dec.Decode(&m) != nil {
				close(lines)
				return
			}
			lines <- string(m)
		}
	}()
	io.WriteString(in, initializeBody+"\n"+`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	<-lines
	io.WriteString(in, body+"\n")
	select {
	case l := <-lines:
		if !strings.Contains(l, `"error"`) || !strings.Contains(l, "4194304") {
			t.Errorf("stdio: a 5 MiB message: %.300s", l)
		}
	case <-time.After(hangLimit):
		t.Fatalf("stdio: no answer to a 5 MiB message; stderr:\n%s", stderr)
	}
}

// Item 17: a loopback server without auth has no rate limit unless --rate
// is given (the conformance suite run in one go tripped the default); with
// --rate it has one.
func TestTeamTrustNoDefaultLimitOnAnOpenLoopbackServer(t *testing.T) {
	dbPath := seededDB(t)
	for _, tc := range []struct {
		args    []string
		limited bool
	}{{nil, false}, {[]string{"--rate", "5"}, true}} {
		s := startTeamServer(t, dbPath, tc.args...)
		refused := 0
		for range 300 {
			if resp, _ := mcpPost(t, s, "", "", initializeBody); resp.StatusCode == http.StatusTooManyRequests {
				refused++
			}
		}
		if (refused > 0) != tc.limited {
			t.Errorf("serve --http 127.0.0.1:0 %v: %d of 300 requests refused", tc.args, refused)
		}
		if want := map[bool]string{false: "rate=none", true: "rate=5/s"}[tc.limited]; !strings.Contains(s.stderr.String(), want) {
			t.Errorf("%v: the listening line lacks %s:\n%s", tc.args, want, s.stderr)
		}
	}
}
