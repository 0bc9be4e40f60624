package upstream

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/langspec/langspec/internal/apperr"
)

func TestPrefixWriter(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		flush  bool
		want   string
	}{
		{"lines", []string{"a\nb\n"}, false, "[s] a\n[s] b\n"},
		{"split line", []string{"he", "llo\nwor", "ld\n"}, false, "[s] hello\n[s] world\n"},
		{"crlf", []string{"a\r\n"}, false, "[s] a\n"},
		{"unfinished kept until flush", []string{"a\nb"}, false, "[s] a\n"},
		{"flush", []string{"a\nb"}, true, "[s] a\n[s] b\n"},
		{"empty lines", []string{"\n\n"}, true, "[s] \n[s] \n"},
		{"full line", []string{strings.Repeat("x", maxStderrLine) + "\n"}, true, "[s] " + strings.Repeat("x", maxStderrLine) + "\n"},
		{"long line split", []string{strings.Repeat("x", maxStderrLine+1)}, true, "[s] " + strings.Repeat("x", maxStderrLine) + "\n[s] x\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			w := &prefixWriter{mu: &sync.Mutex{}, out: &out, prefix: "[s] "}
			for _, s := range tt.writes {
				if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if tt.flush {
				w.Flush()
			}
			if got := out.String(); got != tt.want {
				if len(got) > 200 {
					got = fmt.Sprintf("%d bytes, %d lines", len(got), strings.Count(got, "\n"))
				}
				t.Errorf("out = %q, want %d bytes, %d lines", got, len(tt.want), strings.Count(tt.want, "\n"))
			}
		})
	}
}

func TestRedact(t *testing.T) {
	r := newRedactor([]string{"Bearer abcdef123", "short", "https://h/?k=tok999999"})
	tests := []struct{ in, want string }{
		{"sent Bearer abcdef123", "sent [redacted]"},
		{"token abcdef123 alone", "token [redacted] alone"},
		{`Get "https://h/?k=tok999999": EOF`, `Get "[redacted]": EOF`},
		{"short stays", "short stays"},
		{"Bearer stays", "Bearer stays"}, // a scheme word, not a secret
	}
	for _, tt := range tests {
		if got := r.apply(tt.in); got != tt.want {
			t.Errorf("apply(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}

	var out bytes.Buffer
	log := slog.New(redactHandler{slog.NewTextHandler(&out, nil), r}).With("url", "https://h/?k=tok999999")
	log.Info("failed with abcdef123", "error", errors.New("401 for abcdef123"), "n", 3, slog.Group("g", "h", "abcdef123"))
	if s := out.String(); strings.Contains(s, "abcdef123") || strings.Contains(s, "tok999999") || !strings.Contains(s, "n=3") {
		t.Errorf("log = %s", s)
	}
}

func TestAddErrors(t *testing.T) {
	m, _ := newTestManager(t, Options{Getenv: func(string) string { return "" }})
	ok := ServerConfig{Description: "d", Command: "x"}
	if err := m.Add("a", ok); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, server string
		cfg          ServerConfig
		want         string
	}{
		{"duplicate", "a", ok, "mcpServers.a: a server of that name is already added"},
		{"invalid", "b", ServerConfig{Command: "x"}, "mcpServers.b.description"},
		// An unset variable makes the server unavailable instead; see
		// TestIncompleteConfigIsUnavailable.
		{"malformed variable", "c", ServerConfig{Description: "d", Command: "x", Args: []string{"${NOPE"}}, "mcpServers.c.args[0]: unclosed ${"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := m.Add(tt.server, tt.cfg)
			if apperr.CodeOf(err) != apperr.InvalidArgument || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Add = %v, want invalid_argument containing %q", err, tt.want)
			}
		})
	}
	if err := m.AddTransport("a", "dup", nil); apperr.CodeOf(err) != apperr.InvalidArgument {
		t.Errorf("AddTransport duplicate = %v", err)
	}
}
