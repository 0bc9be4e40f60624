package upstream

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRedactor: known values go whole, longest first; credentials nobody
// declared go by their shape; text that only looks a bit like them stays.
func TestRedactor(t *testing.T) {
	ghp := "ghp_" + strings.Repeat("A1b2", 9)
	tests := []struct {
		name    string
		secrets []string
		in      string
		want    string
	}{
		{"known value", []string{"tok-abcdef123"}, "got tok-abcdef123 back", "got [redacted] back"},
		{"known header value whole", []string{"Bearer abcdef123"}, "sent Bearer abcdef123", "sent [redacted]"},
		{"its token alone", []string{"Bearer abcdef123"}, "token abcdef123 alone", "token [redacted] alone"},
		{"the scheme word is no secret", []string{"Bearer abcdef123"}, "Bearer stays", "Bearer stays"},
		{"short values stay", []string{"short"}, "short stays", "short stays"},
		{"longest first", []string{"abcdef", "abcdef123456"}, "x abcdef123456 y abcdef", "x [redacted] y [redacted]"},
		{"query api_key", nil, `Post "https://h/mcp?api_key=SECRET1&page=2": EOF`, `Post "https://h/mcp?api_key=[redacted]&page=2": EOF`},
		{"query names in any case", nil, "?X-Amz-Signature=abc123&X-Amz-Credential=AKID%2F2024&Token=t0k", "?X-Amz-Signature=[redacted]&X-Amz-Credential=[redacted]&Token=[redacted]"},
		{"query secret, password, auth", nil, "?access_token=a1&client_secret=b2&password=c3&auth=d4", "?access_token=[redacted]&client_secret=[redacted]&password=[redacted]&auth=[redacted]"},
		{"other query values stay", nil, "https://h/search?q=go&page=2&author=rob", "https://h/search?q=go&page=2&author=rob"},
		{"userinfo", nil, "dial https://bob:hunter2@example.com/x failed", "dial https://[redacted]@example.com/x failed"},
		{"token as user", nil, "git clone https://" + ghp + "@github.com/o/r", "git clone https://[redacted]@github.com/o/r"},
		{"Authorization header", nil, "Authorization: Bearer abc.def.ghi", "Authorization: Bearer [redacted]"},
		{"Authorization without scheme", nil, "authorization=xyz123", "authorization=[redacted]"},
		{"Proxy-Authorization", nil, `"Proxy-Authorization": "Basic dXNlcjpwYXNz"`, `"Proxy-Authorization": "Basic [redacted]"`},
		{"X-Api-Key header", nil, "X-Api-Key: abcd1234 sent", "X-Api-Key: [redacted] sent"},
		{"bearer anywhere", nil, "retrying with bearer eyJhbGciOi.payload.sig", "retrying with bearer [redacted]"},
		{"sk- key", nil, "using sk-ant-api03-abcdefghijklmnop now", "using [redacted] now"},
		{"GitHub token", nil, "token " + ghp, "token [redacted]"},
		{"environment dump", nil, "GITHUB_TOKEN=" + ghp + " HOME=/root", "GITHUB_TOKEN=[redacted] HOME=/root"},
		{"flag", nil, "exec server --api-key=xyz987 --port=8080", "exec server --api-key=[redacted] --port=8080"},
		{"JSON member", nil, `{"api_key": "v1", "name": "n"}`, `{"api_key": "[redacted]", "name": "n"}`},
		{"prose stays", nil, "the key is missing; see the author's notes on tokens", "the key is missing; see the author's notes on tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := newRedactor(tt.secrets).apply(tt.in); got != tt.want {
				t.Errorf("apply(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestLiteralSecrets: credentials written into a config literally, not
// through ${VAR}, are known secrets all the same.
func TestLiteralSecrets(t *testing.T) {
	tests := []struct {
		name    string
		cfg     ServerConfig
		want    []string
		notWant []string
	}{
		{"query, raw and decoded", ServerConfig{URL: "https://h/mcp?api_key=a%2Bb123456&page=2"}, []string{"a%2Bb123456", "a+b123456"}, []string{"2"}},
		{"userinfo", ServerConfig{URL: "https://bob:pa55word@h/mcp"}, []string{"bob:pa55word", "pa55word"}, nil},
		{"headers and env", ServerConfig{Headers: map[string]string{"X-Api-Key": "k1"}, Env: map[string]string{"T": "t1"}}, []string{"k1", "t1"}, nil},
		{"flags", ServerConfig{Args: []string{"--token", "t-value", "--api-key=k-value", "--port", "8080", "-v"}}, []string{"t-value", "k-value"}, []string{"8080"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := literalSecrets(tt.cfg)
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("secrets %q lack %q", got, w)
				}
			}
			for _, w := range tt.notWant {
				if slices.Contains(got, w) {
					t.Errorf("secrets %q hold %q", got, w)
				}
			}
		})
	}
}

// TestCredentialsNeverShown: upstreams configured with literal credentials
// (in the url's query and userinfo, in a header, in env) fail, and neither
// the errors, the logs, Status nor the stderr copied from a child that
// prints its token show any of them. Issue 13: only ${VAR} values were
// redacted, and children's stderr not at all.
func TestCredentialsNeverShown(t *testing.T) {
	// A server that refuses with the request's URL and key quoted, as some do.
	quoting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "unauthorized: "+r.URL.String()+" key "+r.Header.Get("X-Api-Key"), http.StatusUnauthorized)
	}))
	t.Cleanup(quoting.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := ln.Addr().String() // nothing listens there once closed
	ln.Close()

	stderr := &syncBuffer{}
	m, logs := newTestManager(t, Options{Stderr: stderr, ConnectTimeout: 5 * time.Second})
	leaky := fakeStdio("leak")
	leaky.Env["FAKE_TOKEN"] = "SECRET-env-6"
	servers := map[string]ServerConfig{
		"refused":    {Description: "d", Type: TypeHTTP, URL: "http://" + refused + "/mcp?api_key=SECRET-refused-1"},
		"refusedsse": {Description: "d", Type: TypeSSE, URL: "http://" + refused + "/sse?token=SECRET-refused-2"},
		"userinfo":   {Description: "d", Type: TypeHTTP, URL: "http://bob:SECRET-pass-3@" + refused + "/mcp"},
		"quoting":    {Description: "d", Type: TypeHTTP, URL: quoting.URL + "/mcp?api_key=SECRET-quoted-4", Headers: map[string]string{"X-Api-Key": "SECRET-header-5"}},
		"leaky":      leaky,
	}
	for name, cfg := range servers {
		if err := m.Add(name, cfg); err != nil {
			t.Fatal(err)
		}
	}
	// What the leak child prints besides its configured token.
	leaked := []string{"SECRET-", "unknown-token-1234567", "sk-proj-abcdefghijklmnopqrstuv", "hunter2-pass", "qq-secret-99"}
	check := func(where, s string) {
		t.Helper()
		for _, secret := range leaked {
			if strings.Contains(s, secret) {
				t.Errorf("%s shows %q:\n%s", where, secret, s)
			}
		}
	}
	for name := range servers {
		_, err := m.Call(context.Background(), name, "echo", nil)
		if err == nil {
			t.Fatalf("%s: the call succeeded", name)
		}
		check(name+" error", err.Error())
	}
	for _, st := range m.Status() {
		check(st.Name+" status", st.LastError)
	}
	check("logs", logs.String())
	check("stderr", stderr.String())
	mustContain(t, "stderr", stderr.String(), "[leaky] auth failed with token [redacted]", "Authorization: Bearer [redacted]")
}
