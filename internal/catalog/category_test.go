package catalog

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/catalog/upstream"
)

func off() *bool { f := false; return &f }

var serena = []Listed{
	{"read_file", "Reads a file."}, {"list_dir", "Lists."}, {"find_symbol", "Finds."},
	{"find_referencing_symbols", "Refs."}, {"execute_shell_command", "Runs a shell."}, {"replace_regex", "Regex."},
}

func TestResolve(t *testing.T) {
	tests := []struct {
		name     string
		cfg      Config
		mask     Mask
		tools    []string
		disabled []string
		unknown  []string
	}{
		{"names, in the server's order", Config{Tools: Selection{IncludeNames: []string{"list_dir", "read_file"}}}, Mask{},
			[]string{"read_file", "list_dir"}, nil, nil},
		{"patterns minus excludes", Config{Tools: Selection{IncludePatterns: []string{"find_*"}, ExcludePatterns: []string{"*referencing*"}}}, Mask{},
			[]string{"find_symbol"}, nil, nil},
		{"override disables", Config{Tools: Selection{IncludeNames: []string{"read_file", "execute_shell_command"},
			Overrides: map[string]Override{"execute_shell_command": {Enabled: off()}}}}, Mask{},
			[]string{"read_file"}, []string{"execute_shell_command"}, nil},
		{"mask denies", Config{Tools: Selection{IncludePatterns: []string{"*"}}}, Mask{Deny: []string{"fs/execute_*", "fs/replace_*"}},
			[]string{"read_file", "list_dir", "find_symbol", "find_referencing_symbols"}, []string{"execute_shell_command", "replace_regex"}, nil},
		{"mask allows", Config{Tools: Selection{IncludePatterns: []string{"*"}}}, Mask{Allow: []string{"fs/read_*"}},
			[]string{"read_file"}, []string{"list_dir", "find_symbol", "find_referencing_symbols", "execute_shell_command", "replace_regex"}, nil},
		{"unknown names", Config{Tools: Selection{IncludeNames: []string{"read_file", "read_memory"},
			Overrides: map[string]Override{"rename_symbol": {Description: "x"}}}}, Mask{},
			[]string{"read_file"}, nil, []string{"read_memory", "rename_symbol"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Resolve("fs", tt.cfg, serena, tt.mask)
			var names []string
			for _, x := range r.Tools {
				names = append(names, x.Name)
			}
			if !slices.Equal(names, tt.tools) || !slices.Equal(r.Disabled, tt.disabled) || !slices.Equal(r.Unknown, tt.unknown) {
				t.Fatalf("tools %v disabled %v unknown %v; want %v %v %v", names, r.Disabled, r.Unknown, tt.tools, tt.disabled, tt.unknown)
			}
		})
	}
	r := Resolve("fs", Config{Tools: Selection{IncludeNames: []string{"read_file"}, Overrides: map[string]Override{"read_file": {Description: "Read a range."}}}}, serena, Mask{})
	if r.Tools[0].Description != "Read a range." {
		t.Errorf("description not overridden: %+v", r.Tools)
	}
}

func TestCheck(t *testing.T) {
	cfg := Config{Tools: Selection{IncludeNames: []string{"read_file", "execute_shell_command"},
		Overrides: map[string]Override{"execute_shell_command": {Enabled: off()}}}}
	tests := []struct {
		tool string
		mask Mask
		code apperr.Code
	}{
		{"read_file", Mask{}, ""},
		{"execute_shell_command", Mask{}, apperr.ToolDisabled},
		{"read_file", Mask{Deny: []string{"*/read_file"}}, apperr.ToolDisabled},
		{"list_dir", Mask{}, apperr.UnknownTool},
	}
	for _, tt := range tests {
		err := Check("fs", cfg, tt.tool, tt.mask)
		if tt.code == "" && err != nil || tt.code != "" && apperr.CodeOf(err) != tt.code {
			t.Errorf("Check(%s, %+v) = %v, want %q", tt.tool, tt.mask, err, tt.code)
		}
	}
}

func TestValidate(t *testing.T) {
	ok := Config{Description: "files", Server: "serena", Tools: Selection{IncludeNames: []string{"read_file"}}}
	with := func(f func(*Config)) map[string]Config { c := ok; f(&c); return map[string]Config{"fs": c} }
	tests := []struct {
		name string
		cats map[string]Config
		msg  string
	}{
		{"valid", map[string]Config{"fs": ok}, ""},
		{"built-in server", with(func(c *Config) { c.Server = BuiltinServer }), ""},
		{"unknown server", with(func(c *Config) { c.Server = "github" }), `categories.fs.server: unknown server "github"`},
		{"no description", with(func(c *Config) { c.Description = " " }), "categories.fs.description: missing"},
		{"no tools", with(func(c *Config) { c.Tools = Selection{} }), "categories.fs.tools: selects no tools"},
		{"duplicate name", with(func(c *Config) { c.Tools.IncludeNames = []string{"a", "b", "a"} }), `includeNames[2]: "a" is listed twice`},
		{"bad pattern", with(func(c *Config) { c.Tools.IncludePatterns = []string{"[x"} }), "includePatterns[0]: bad pattern"},
		{"bad name", map[string]Config{"file system": ok}, "not a category name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.cats, []string{"serena"})
			if tt.msg == "" && err != nil || tt.msg != "" && (apperr.CodeOf(err) != apperr.InvalidArgument || !strings.Contains(err.Error(), tt.msg)) {
				t.Fatalf("err = %v, want %q", err, tt.msg)
			}
		})
	}
	if err := (Mask{Deny: []string{"execute_shell_command"}}).Validate(); err == nil {
		t.Error("a mask glob without category/ accepted")
	}
}

// The category list is read on every turn: it stays short however many
// categories there are.
func TestDescribeStaysShort(t *testing.T) {
	many := map[string]Config{}
	for i := range 500 {
		many[fmt.Sprintf("c%03d", i)] = Config{Description: strings.Repeat("long words ", 40), Server: "x"}
	}
	c := &Catalog{Categories: many, Upstreams: upstream.NewManager(upstream.Options{})}
	defer c.Upstreams.Close()
	if d := c.Describe(); len(d) > maxCategoryListChars+400 || !strings.Contains(d, "more: ") {
		t.Errorf("category list of 500 categories is %d bytes", len(d))
	}
}
