package upstream

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/apperr"
)

// TestSecretsInConfig: ${secret:NAME} in headers is the stored value; a
// subject with a value of its own gets a connection of its own carrying
// it, others share the server with the shared value; a secret that is not
// stored makes the server unavailable, saying how to store it; no value
// reaches the logs.
func TestSecretsInConfig(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "whoami", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "whoami", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: req.Extra.Header.Get("Authorization")}}}, nil
		})
	h := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(h.Close) // after the Manager's Close (cleanups run last first), which ends the clients' streams
	stored := map[[2]string]string{{"TOKEN", ""}: "shared-value-1", {"TOKEN", "alice"}: "alice-value-2"}
	lookup := func(name, subject string) (string, bool, error) {
		if v, ok := stored[[2]string{name, subject}]; ok && subject != "" {
			return v, true, nil
		}
		return stored[[2]string{name, ""}], false, nil
	}
	m, logs := newTestManager(t, Options{Secrets: lookup})
	cfg := ServerConfig{Description: "who am I", Type: TypeHTTP, URL: h.URL, Headers: map[string]string{"Authorization": "Bearer ${secret:TOKEN}"}}
	if err := m.Add("up", cfg); err != nil {
		t.Fatal(err)
	}
	if err := m.Add("missing", ServerConfig{Description: "x", Type: TypeHTTP, URL: h.URL, Headers: map[string]string{"X-Key": "${secret:NOPE}"}}); err != nil {
		t.Fatal(err)
	}
	whoami := func(m *Manager) string {
		t.Helper()
		res, err := m.Call(context.Background(), "up", "whoami", nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	if got := whoami(m); got != "Bearer shared-value-1" {
		t.Errorf("shared: %q", got)
	}
	for subject, want := range map[string]string{"alice": "Bearer alice-value-2", "bob": "Bearer shared-value-1"} {
		f, err := m.ForkFor(subject)
		if err != nil {
			t.Fatal(err)
		}
		if got := whoami(f); got != want {
			t.Errorf("%s: %q, want %q", subject, got, want)
		}
		f.Close()
	}
	_, err := m.Call(context.Background(), "missing", "whoami", nil)
	if apperr.CodeOf(err) != apperr.UpstreamUnavailable || !strings.Contains(err.Error(), "secret NOPE is not stored") ||
		!strings.Contains(err.Error(), "langspec secret set NOPE") {
		t.Errorf("a missing secret: %v", err)
	}
	if strings.Contains(logs.String(), "shared-value-1") || strings.Contains(logs.String(), "alice-value-2") {
		t.Error("a secret's value is in the logs")
	}
	// The shared server still works after a fork closed.
	if got := whoami(m); got != "Bearer shared-value-1" {
		t.Errorf("after the forks closed: %q", got)
	}
}
