package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareSaysAbsent: over the seeded Go spec, a column for a feature
// Go lacks says so under its heading, before its nearest sections, and its
// JSON marks it absent; a present feature's column does neither.
func TestCompareSaysAbsent(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home}
	db := filepath.Join(home, "langspec.db")
	tests := []struct {
		concept string
		absent  bool
	}{
		{"build a list with a comprehension", true},
		{"defer statement", false},
	}
	for _, tt := range tests {
		t.Run(tt.concept, func(t *testing.T) {
			code, stdout, stderr := run(t, env, "--db", db, "compare", tt.concept, "-n", "2")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			sentence := `   The Go Programming Language Specification has no section that clearly matches "` + tt.concept + `"; nearest: `
			head, rest, _ := strings.Cut(stdout, "\n")
			if !strings.HasPrefix(head, "== The Go Programming Language Specification") ||
				strings.HasPrefix(rest, sentence) != tt.absent || !strings.Contains("\n"+rest, "\n1. ") {
				t.Errorf("absent %v, got:\n%s", tt.absent, stdout)
			}
			code, stdout, stderr = run(t, env, "--db", db, "compare", tt.concept, "--json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var out struct {
				Columns []struct {
					Absent   bool    `json:"absent"`
					Evidence float64 `json:"evidence"`
				} `json:"columns"`
				Notices []string `json:"notices"`
			}
			if err := json.Unmarshal([]byte(stdout), &out); err != nil {
				t.Fatal(err)
			}
			if len(out.Columns) != 1 || out.Columns[0].Absent != tt.absent ||
				strings.Contains(strings.Join(out.Notices, "\n"), "has no section that clearly matches") != tt.absent {
				t.Errorf("JSON: %s", stdout)
			}
		})
	}
}
