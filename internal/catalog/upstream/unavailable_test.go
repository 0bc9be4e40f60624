package upstream

import (
	"context"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/apperr"
)

// TestIncompleteConfigIsUnavailable: a server whose ${VAR} is not set, or
// whose url is no URL once expanded, is added unavailable, says why in
// Status and in every call, and leaves the other servers working. Issue
// 13: one unset variable stopped langspec from starting at all.
func TestIncompleteConfigIsUnavailable(t *testing.T) {
	getenv := func(k string) string { return map[string]string{"NOT_A_URL": "tok-abcdef:secret-part"}[k] }
	m, logs := newTestManager(t, Options{Getenv: getenv})
	if err := m.AddTransport("fine", "works", inMemory(newFakeServer(nil))); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		server string
		cfg    ServerConfig
		want   []string // in Status' LastError and in the error of a call
	}{
		{"gh", ServerConfig{Description: "d", Type: TypeHTTP, URL: "https://api.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer ${GH_TOKEN}"}},
			[]string{`server "gh" is not configured: mcpServers.gh.headers.Authorization: environment variable GH_TOKEN is not set`}},
		{"serena", ServerConfig{Description: "d", Command: "uvx", Args: []string{"serena", "--project", "${PROJECT_ROOT}"}},
			[]string{`server "serena" is not configured: mcpServers.serena.args[2]: environment variable PROJECT_ROOT is not set`}},
		{"web", ServerConfig{Description: "d", Type: TypeSSE, URL: "${NOT_A_URL}"},
			[]string{`server "web" is not configured: mcpServers.web.url: not an absolute http or https URL once its ${VAR}s are expanded`}},
	}
	for _, tt := range tests {
		if err := m.Add(tt.server, tt.cfg); err != nil {
			t.Fatalf("Add(%s) = %v, want the server added unavailable", tt.server, err)
		}
	}
	m.Start(context.Background())

	byName := map[string]ServerStatus{}
	for _, st := range m.Status() {
		byName[st.Name] = st
	}
	for _, tt := range tests {
		t.Run(tt.server, func(t *testing.T) {
			st := byName[tt.server]
			if st.State != StateUnavailable {
				t.Errorf("Status = %+v, want unavailable", st)
			}
			mustContain(t, "LastError", st.LastError, tt.want...)
			for what, f := range map[string]func() error{
				"Call":  func() error { _, err := m.Call(context.Background(), tt.server, "echo", nil); return err },
				"Tools": func() error { _, err := m.Tools(context.Background(), tt.server); return err },
			} {
				err := f()
				if apperr.CodeOf(err) != apperr.UpstreamUnavailable {
					t.Fatalf("%s: err = %v, want upstream_unavailable", what, err)
				}
				mustContain(t, what+" error", err.Error(), append(tt.want, "then restart langspec")...)
				if strings.Contains(err.Error(), "tok-abcdef") || strings.Contains(err.Error(), "secret-part") {
					t.Errorf("%s error shows the variable's value: %v", what, err)
				}
			}
		})
	}
	echo(t, m, "fine", "unaffected")
	mustContain(t, "logs", logs.String(), "server=gh", "GH_TOKEN is not set")
}
