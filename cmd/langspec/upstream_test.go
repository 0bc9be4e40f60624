package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestUpstreamLogin runs `langspec upstream login` against an OAuth
// authorization server on httptest, playing the browser: the tokens end up
// encrypted among the secrets (`secret list` names them, the database file
// does not hold them), and `upstream logout` forgets them.
func TestUpstreamLogin(t *testing.T) {
	var mu sync.Mutex
	challenge := ""
	mux := http.NewServeMux()
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		mu.Lock()
		challenge = q.Get("code_challenge")
		mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code=c1&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
		mu.Lock()
		ok := r.Form.Get("code") == "c1" && base64.RawURLEncoding.EncodeToString(sum[:]) == challenge
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if !ok {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":"invalid_grant"}`)
			return
		}
		fmt.Fprint(w, `{"access_token":"at-visible-marker","refresh_token":"rt-visible-marker","token_type":"Bearer","expires_in":3600}`)
	})
	as := httptest.NewServer(mux)
	defer as.Close()

	dir := t.TempDir()
	cfg := filepath.Join(dir, "langspec.json")
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"prot": map[string]any{
		"description": "a protected server", "type": "http", "url": "https://mcp.example/mcp",
		"oauth": map[string]any{"clientId": "langspec", "authorizationUrl": as.URL + "/authorize", "tokenUrl": as.URL + "/token"},
	}}})
	os.WriteFile(cfg, b, 0o600)
	dbPath := filepath.Join(dir, "l.db")
	env := map[string]string{"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, "conf")}
	args := []string{"--db", dbPath, "--config", cfg}

	stderr := &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		var out bytes.Buffer
		io := &ioStreams{In: strings.NewReader(""), Out: &out, ErrOut: stderr}
		done <- Main(context.Background(), append(args, "upstream", "login", "prot", "--no-browser", "--timeout", "20s"), io,
			func(k string) string { return env[k] })
	}()
	if !stderr.waitFor("/authorize?") {
		t.Fatalf("no address printed:\n%s", stderr)
	}
	authURL := regexp.MustCompile(`http://\S+/authorize\?\S+`).FindString(stderr.String())
	resp, err := http.Get(authURL) // the browser, redirected to the loopback callback
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("login: %d\n%s", code, stderr)
		}
	case <-time.After(hangLimit):
		t.Fatal("login did not end")
	}
	if strings.Contains(stderr.String(), "visible-marker") {
		t.Error("a token is in the output")
	}
	_, out, _ := run(t, env, append(args, "secret", "list")...)
	if !strings.Contains(out, "oauth.prot") {
		t.Errorf("secret list: %s", out)
	}
	raw, _ := os.ReadFile(dbPath)
	wal, _ := os.ReadFile(dbPath + "-wal")
	if bytes.Contains(append(raw, wal...), []byte("visible-marker")) {
		t.Error("a token is in the database file in plaintext")
	}
	if code, _, errOut := run(t, env, append(args, "upstream", "logout", "prot")...); code != 0 {
		t.Errorf("logout: %s", errOut)
	}
	if code, _, errOut := run(t, env, append(args, "upstream", "login", "nope", "--no-browser", "--timeout", "1s")...); code == 0 || !strings.Contains(errOut, `no upstream named "nope"`) {
		t.Errorf("login to an unknown upstream: %d %s", code, errOut)
	}
}
