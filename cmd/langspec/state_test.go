package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// oldIndexKey is the secret key the index of testdata/index-53efcf0.db.gz
// sealed its secrets under (a test key, nothing else uses it).
const oldIndexKey = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="

// oldIndex writes the index an older langspec (53efcf0, where tokens and
// secrets lived in the index) made: tokens alice (two tools), ops (admin)
// and gone (revoked), and the secret API_KEY shared and alice's own. It
// returns its path and the tokens by name.
func oldIndex(t *testing.T) (string, map[string]string) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "index-53efcf0.db.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "langspec.db")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join("testdata", "index-53efcf0.tokens.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tokens map[string]string
	if err := json.Unmarshal(b, &tokens); err != nil {
		t.Fatal(err)
	}
	return path, tokens
}

// Upgrading an index made when tokens and secrets lived in it keeps every
// token, admin token and secret: they move into the state file at its
// first open, and the index holds none of them afterwards (issue 48 item 3).
func TestStateAdoptsAnOlderIndexsTokensAndSecrets(t *testing.T) {
	dbPath, tokens := oldIndex(t)
	env := homeOf(dbPath)
	env["LANGSPEC_SECRET_KEY"] = oldIndexKey
	code, out, errOut := run(t, env, "--db", dbPath, "token", "list", "--json")
	if code != 0 {
		t.Fatalf("token list: %s", errOut)
	}
	var list []struct {
		Name      string   `json:"name"`
		Tools     []string `json:"tools"`
		Admin     bool     `json:"admin"`
		RevokedAt string   `json:"revoked_at"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 3 {
		t.Fatalf("token list after the upgrade: %s (%v)", out, err)
	}
	for _, tok := range list {
		switch tok.Name {
		case "alice":
			if strings.Join(tok.Tools, ",") != "search_spec,get_section" || tok.Admin || tok.RevokedAt != "" {
				t.Errorf("alice after the upgrade: %+v", tok)
			}
		case "ops":
			if !tok.Admin || tok.RevokedAt != "" {
				t.Errorf("ops after the upgrade: %+v", tok)
			}
		case "gone":
			if tok.RevokedAt == "" {
				t.Errorf("gone after the upgrade: %+v", tok)
			}
		}
	}
	code, out, errOut = run(t, env, "--db", dbPath, "secret", "list", "--json")
	if code != 0 || !strings.Contains(out, `"subject": "alice"`) || strings.Count(out, `"name": "API_KEY"`) != 2 {
		t.Fatalf("secret list after the upgrade: %d %s %s", code, out, errOut)
	}
	// The index holds no token or secret any more, not even in the free
	// pages an older langspec left behind: neither a token's hash nor a
	// secret's sealed bytes are anywhere in the file.
	raw, err := os.ReadFile(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	for name, tok := range tokens {
		if bytes.Contains(raw, []byte(hashHex(tok))) {
			t.Errorf("the index still holds %s's token hash", name)
		}
	}
	for _, table := range []string{"api_tokens", "secrets"} {
		if bytes.Contains(raw, []byte("CREATE TABLE "+table)) {
			t.Errorf("the index still defines %s", table)
		}
	}
	// The team server takes the old tokens as they were, and refuses the
	// revoked one; the secrets open with the old key.
	s := startTeamServerEnv(t, dbPath, []string{"LANGSPEC_SECRET_KEY=" + oldIndexKey})
	for name, want := range map[string]int{"alice": http.StatusOK, "ops": http.StatusOK, "gone": http.StatusUnauthorized} {
		if resp, body := mcpPost(t, s, tokens[name], "", initializeBody); resp.StatusCode != want {
			t.Errorf("%s's old token: %d %.200s, want %d", name, resp.StatusCode, body, want)
		}
	}
	if got := pageGet(t, s, "/metrics", "Bearer", tokens["ops"]); got != http.StatusOK {
		t.Errorf("the old admin token on /metrics: %d", got)
	}
}

// A replica reads tokens from the state file, not from its index: a
// revocation reaches it through a state file shared with the writer at the
// next request, and through a shipped copy (renamed over, as rsync does)
// at the next look at the file — no new index needed (issue 48 item 3).
func TestReplicaRevocationThroughTheStateFile(t *testing.T) {
	dbPath := seededDB(t)
	alice := makeToken(t, dbPath, "alice")
	bob := makeToken(t, dbPath, "bob")
	ping := initializeBody
	// Shared: two replicas beside the writer's state file.
	replicas := []*teamServer{startTeamServer(t, dbPath, "--read-only"), startTeamServer(t, dbPath, "--read-only")}
	for _, r := range replicas {
		if resp, body := mcpPost(t, r, alice, "", ping); resp.StatusCode != http.StatusOK {
			t.Fatalf("alice on a replica: %d %s", resp.StatusCode, body)
		}
	}
	start := time.Now()
	if code, _, errOut := run(t, homeOf(dbPath), "--db", dbPath, "token", "revoke", "alice"); code != 0 {
		t.Fatal(errOut)
	}
	for i, r := range replicas {
		if resp, _ := mcpPost(t, r, alice, "", ping); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("replica %d, the request after the revocation: %d, want 401", i, resp.StatusCode)
		}
	}
	t.Logf("a revocation reached 2 replicas sharing the state file in %s", time.Since(start).Round(time.Millisecond))

	// Shipped: a replica of its own copy of the state, replaced by rename.
	shipDir := t.TempDir()
	shipped := filepath.Join(shipDir, "state.db")
	writerState := filepath.Join(filepath.Dir(dbPath), ".local", "state", "langspec", "state.db")
	copyFile(t, writerState, shipped)
	r := startTeamServer(t, dbPath, "--read-only", "--state", shipped)
	if resp, body := mcpPost(t, r, bob, "", ping); resp.StatusCode != http.StatusOK {
		t.Fatalf("bob on the shipped replica: %d %s", resp.StatusCode, body)
	}
	if code, _, errOut := run(t, homeOf(dbPath), "--db", dbPath, "token", "revoke", "bob"); code != 0 {
		t.Fatal(errOut)
	}
	if resp, _ := mcpPost(t, r, bob, "", ping); resp.StatusCode != http.StatusOK {
		t.Errorf("bob before the state is shipped: %d, want 200 (the replica's copy is older)", resp.StatusCode)
	}
	next := filepath.Join(shipDir, "state.next")
	copyFile(t, writerState, next)
	if err := os.Rename(next, shipped); err != nil {
		t.Fatal(err)
	}
	shippedAt := time.Now()
	deadline := shippedAt.Add(hangLimit)
	for {
		resp, _ := mcpPost(t, r, bob, "", ping)
		if resp.StatusCode == http.StatusUnauthorized {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("bob still served %s after the state was shipped", hangLimit)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("a revocation reached the replica %s after its state file was replaced", time.Since(shippedAt).Round(time.Millisecond))
}

// hashHex is how the store keeps a token: its SHA-256 in hex.
func hashHex(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// A replica writes nothing, not even a state file it was not given: with
// no file at --state it starts holding no token (and so, on a public
// address, refuses to serve, naming the file), and the folder stays as it
// was.
func TestReplicaWithoutAStateFileWritesNone(t *testing.T) {
	dbPath := seededDB(t)
	missing := filepath.Join(t.TempDir(), "shipped", "state.db")
	code, _, errOut := run(t, homeOf(dbPath), "--db", dbPath, "serve", "--read-only", "--http", "0.0.0.0:0", "--state", missing)
	if code != 2 || !strings.Contains(errOut, "no token exists in the state file "+missing) || !strings.Contains(errOut, "--state PATH") {
		t.Errorf("a public replica with no state file: %d %s", code, errOut)
	}
	r := startTeamServer(t, dbPath, "--read-only", "--state", missing)
	if resp, body := mcpPost(t, r, "", "", initializeBody); resp.StatusCode != http.StatusOK {
		t.Errorf("a loopback replica with no state file: %d %s", resp.StatusCode, body)
	}
	if _, err := os.Stat(filepath.Dir(missing)); !os.IsNotExist(err) {
		t.Errorf("the replica made %s (%v)", filepath.Dir(missing), err)
	}
}
