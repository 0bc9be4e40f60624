package tools

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/apperr"
)

func TestUpdateReadme(t *testing.T) {
	var spec bytes.Buffer
	WriteTable(&spec, CategorySpec)
	fresh := "intro\n<!-- tools:spec -->\n" + spec.String() + "<!-- /tools -->\nafter\n"
	tests := []struct {
		name, in, want string
		code           apperr.Code
	}{
		{"up to date stays", fresh, fresh, ""},
		{"stale block rewritten", "intro\n<!-- tools:spec -->\n| old | table |\n<!-- /tools -->\nafter\n", fresh, ""},
		{"empty block filled", "intro\n<!-- tools:spec -->\n<!-- /tools -->\nafter\n", fresh, ""},
		{"no blocks", "just text\n", "just text\n", ""},
		{"unknown family", "<!-- tools:cobol -->\n<!-- /tools -->\n", "", apperr.InvalidArgument},
		{"no end marker", "<!-- tools:spec -->\n| x |\n", "", apperr.InvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := UpdateReadme([]byte(tt.in))
			if tt.code != "" {
				if apperr.CodeOf(err) != tt.code || err == nil {
					t.Fatalf("error %v, want %s", err, tt.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
	for _, want := range []string{"`search_spec`", "`query`; optional", "`limit` 1–50 (10)", "`results[]`"} {
		if !strings.Contains(spec.String(), want) {
			t.Errorf("spec table lacks %q:\n%s", want, spec.String())
		}
	}
}

// The README's tool tables are what the tool definitions say; CI checks the
// same with "langspec docs --readme README.md --check".
func TestReadmeToolTablesUpToDate(t *testing.T) {
	path := filepath.Join("..", "..", "README.md")
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	updated, err := UpdateReadme(old)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(old, updated) {
		t.Error("README.md's tool tables differ from the tool definitions: run go run ./cmd/langspec docs --readme README.md")
	}
	if n := bytes.Count(old, []byte(docsBegin)); n != 5 {
		t.Errorf("README has %d generated tool tables, want 5 (spec, manual, vault, bridge, meta)", n)
	}
}
