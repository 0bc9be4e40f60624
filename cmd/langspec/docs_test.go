package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDocs(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, "README.md")
	if err := os.WriteFile(stale, []byte("# x\n<!-- tools:vault -->\n| old |\n<!-- /tools -->\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		code     int
		out, err string
	}{
		{"tables to stdout", []string{"docs"}, 0, "| `search_spec` |", ""},
		{"check needs a file", []string{"docs", "--check"}, 2, "", "--check needs --readme FILE"},
		{"check finds a stale table", []string{"docs", "--readme", stale, "--check"}, 2, "", "differ from the tool definitions (first at line 3)"},
		{"rewrite", []string{"docs", "--readme", stale}, 0, "tool tables rewritten", ""},
		{"then the check passes", []string{"docs", "--readme", stale, "--check"}, 0, "up to date", ""},
		{"missing file", []string{"docs", "--readme", filepath.Join(dir, "nope.md")}, 1, "", "cannot read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := run(t, map[string]string{"HOME": dir}, tt.args...)
			if code != tt.code || !strings.Contains(out, tt.out) || !strings.Contains(errOut, tt.err) {
				t.Errorf("code %d, stdout %.300q, stderr %q; want code %d, %q, %q", code, out, errOut, tt.code, tt.out, tt.err)
			}
		})
	}
	b, _ := os.ReadFile(stale)
	if !strings.Contains(string(b), "| `vault_write` |") || strings.Contains(string(b), "| old |") {
		t.Errorf("rewritten README:\n%s", b)
	}
}
