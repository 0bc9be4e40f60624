package upstream

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/langspec/langspec/internal/apperr"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		server  string
		cfg     ServerConfig
		wantErr string // substring of the message; "" for valid
	}{
		{"stdio", "serena", ServerConfig{Description: "d", Command: "uvx", Args: []string{"serena"}}, ""},
		{"explicit stdio", "s", ServerConfig{Description: "d", Type: "stdio", Command: "x", Env: map[string]string{"A": "1"}}, ""},
		{"http", "gh", ServerConfig{Description: "d", Type: "http", URL: "https://api.example.com/mcp", Headers: map[string]string{"Authorization": "x"}}, ""},
		{"sse", "old", ServerConfig{Description: "d", Type: "sse", URL: "http://localhost:3000/sse"}, ""},
		{"url with variable", "gh", ServerConfig{Description: "d", Type: "http", URL: "${GH_URL}"}, ""},
		{"no description", "s", ServerConfig{Command: "x"}, "mcpServers.s.description: missing"},
		{"blank description", "s", ServerConfig{Description: " ", Command: "x"}, "mcpServers.s.description: missing"},
		{"unknown type", "s", ServerConfig{Description: "d", Type: "websocket", URL: "ws://x"}, `mcpServers.s.type: unknown type "websocket"`},
		{"stdio without command", "s", ServerConfig{Description: "d"}, "mcpServers.s.command: missing"},
		{"stdio with url", "s", ServerConfig{Description: "d", Command: "x", URL: "http://x"}, "mcpServers.s.url: set on a stdio server"},
		{"stdio with headers", "s", ServerConfig{Description: "d", Command: "x", Headers: map[string]string{"A": "b"}}, "mcpServers.s.headers"},
		{"http without url", "s", ServerConfig{Description: "d", Type: "http"}, `mcpServers.s.url: missing for type "http"`},
		{"http with command", "s", ServerConfig{Description: "d", Type: "http", URL: "http://x", Command: "x"}, `mcpServers.s.command: set with type "http"`},
		{"sse with args", "s", ServerConfig{Description: "d", Type: "sse", URL: "http://x", Args: []string{"a"}}, "mcpServers.s.args"},
		{"http with env", "s", ServerConfig{Description: "d", Type: "http", URL: "http://x", Env: map[string]string{"A": "b"}}, "mcpServers.s.env"},
		{"relative url", "s", ServerConfig{Description: "d", Type: "http", URL: "/mcp"}, "mcpServers.s.url"},
		{"ftp url", "s", ServerConfig{Description: "d", Type: "sse", URL: "ftp://x/"}, `scheme "ftp"`},
		{"bad env name", "s", ServerConfig{Description: "d", Command: "x", Env: map[string]string{"A=B": "c"}}, "mcpServers.s.env: bad variable name"},
		{"bad header name", "s", ServerConfig{Description: "d", Type: "http", URL: "http://x", Headers: map[string]string{"X Y": "c"}}, "mcpServers.s.headers: bad header name"},
		{"inheritEnv", "s", ServerConfig{Description: "d", Command: "x", InheritEnv: true}, ""},
		{"http with inheritEnv", "s", ServerConfig{Description: "d", Type: "http", URL: "http://x", InheritEnv: true}, `mcpServers.s.inheritEnv: set with type "http"`},
		{"unset variable is no config error", "s", ServerConfig{Description: "d", Command: "x", Args: []string{"${SURELY_NOT_SET_ANYWHERE}"}}, ""},
		{"unclosed variable", "s", ServerConfig{Description: "d", Command: "x", Args: []string{"ok", "${HOME"}}, "mcpServers.s.args[1]: unclosed ${"},
		{"bad variable name in a header", "s", ServerConfig{Description: "d", Type: "http", URL: "http://x", Headers: map[string]string{"A": "${A-B}"}}, `mcpServers.s.headers.A: bad variable name "A-B"`},
		{"empty name", "", ServerConfig{Description: "d", Command: "x"}, "empty server name"},
		{"bad name", "a b", ServerConfig{Description: "d", Command: "x"}, `bad server name "a b"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate(tt.server)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if apperr.CodeOf(err) != apperr.InvalidArgument {
				t.Fatalf("Validate = %v, want invalid_argument", err)
			}
			if e, _ := err.(*apperr.Error); !strings.Contains(e.Message, tt.wantErr) || e.Hint == "" {
				t.Errorf("Validate = %v, want a hint and a message containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	env := map[string]string{"TOKEN": "s3cret-token", "HOME": "/home/me", "EMPTY": ""}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		name    string
		cfg     ServerConfig
		want    ServerConfig
		wantErr string
	}{
		{
			name: "args env url headers",
			cfg: ServerConfig{
				Args:    []string{"--dir=${HOME}/x", "plain", "${TOKEN}${TOKEN}"},
				Env:     map[string]string{"T": "${TOKEN}"},
				URL:     "https://h/${TOKEN}",
				Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"},
			},
			want: ServerConfig{
				Args:    []string{"--dir=/home/me/x", "plain", "s3cret-tokens3cret-token"},
				Env:     map[string]string{"T": "s3cret-token"},
				URL:     "https://h/s3cret-token",
				Headers: map[string]string{"Authorization": "Bearer s3cret-token"},
			},
		},
		{
			name: "dollars",
			cfg:  ServerConfig{Args: []string{"$$", "$${HOME}", "a$b", "end$", "^x$", "$$$${HOME}"}},
			want: ServerConfig{Args: []string{"$", "${HOME}", "a$b", "end$", "^x$", "$${HOME}"}},
		},
		{
			name: "command and description are literal",
			cfg:  ServerConfig{Description: "${HOME}", Command: "${HOME}/bin/x"},
			want: ServerConfig{Description: "${HOME}", Command: "${HOME}/bin/x"},
		},
		{name: "undefined in args", cfg: ServerConfig{Args: []string{"a", "b", "${NOPE}"}}, wantErr: "mcpServers.srv.args[2]: environment variable NOPE is not set"},
		{name: "empty counts as undefined", cfg: ServerConfig{Env: map[string]string{"X": "${EMPTY}"}}, wantErr: "mcpServers.srv.env.X: environment variable EMPTY is not set"},
		{name: "undefined in header", cfg: ServerConfig{Headers: map[string]string{"Authorization": "Bearer ${GH_TOKEN}"}}, wantErr: "mcpServers.srv.headers.Authorization: environment variable GH_TOKEN"},
		{name: "undefined in url", cfg: ServerConfig{URL: "https://${HOST}/"}, wantErr: "mcpServers.srv.url: environment variable HOST"},
		{name: "unclosed", cfg: ServerConfig{Args: []string{"${HOME"}}, wantErr: "mcpServers.srv.args[0]: unclosed ${"},
		{name: "empty name", cfg: ServerConfig{Args: []string{"${}"}}, wantErr: `bad variable name ""`},
		{name: "bad name", cfg: ServerConfig{Args: []string{"${A-B}"}}, wantErr: `bad variable name "A-B"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.cfg.Expand("srv", getenv)
			if tt.wantErr != "" {
				if apperr.CodeOf(err) != apperr.InvalidArgument || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Expand = %v, want invalid_argument containing %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "s3cret") {
					t.Errorf("error shows a value: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Expand = %+v, want %+v", got, tt.want)
			}
		})
	}
	// Expand copies: the input keeps its ${VAR}s.
	cfg := ServerConfig{Args: []string{"${HOME}"}}
	if _, err := cfg.Expand("srv", getenv); err != nil || cfg.Args[0] != "${HOME}" {
		t.Errorf("Expand changed its receiver: %v, %v", cfg.Args, err)
	}
}

// TestConfigSchema: ServerConfig goes into langspec.json's published JSON
// Schema, so its tags must infer, with only description required.
func TestConfigSchema(t *testing.T) {
	s, err := jsonschema.For[ServerConfig](nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.Required, []string{"description"}) {
		t.Errorf("required = %v, want [description]", s.Required)
	}
	for name, p := range s.Properties {
		if p.Description == "" {
			t.Errorf("%s has no description", name)
		}
	}
}
