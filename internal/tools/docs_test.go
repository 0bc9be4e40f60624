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

// The tool tables in docs/ are what the tool definitions say, every
// family once; CI checks the same with "langspec docs --readme FILE
// --check" for each file.
func TestDocsToolTablesUpToDate(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	tables := 0
	for _, path := range files {
		old, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		updated, err := UpdateReadme(old)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(old, updated) {
			t.Errorf("%s: the tool tables differ from the tool definitions: run go run ./cmd/langspec docs --readme %s", path, path)
		}
		tables += bytes.Count(old, []byte(docsBegin))
	}
	if tables != 5 {
		t.Errorf("docs/ has %d generated tool tables, want 5 (spec, manual, vault, bridge, meta)", tables)
	}
}
