// Package catalog groups tools into categories, so a server can list a
// handful of meta tools instead of every tool it can reach and let the model
// load one category's schemas when it needs them: what a model pays for in
// its context stays a handful of tools, however many the servers have.
//
// A category names one server (an upstream MCP server, or langspec itself)
// and selects some of its tools by name or glob, with per-tool overrides
// (enabled, description). A mask hides tools from listing and execution
// alike, across categories: a masked tool is reached by no path, listed,
// called or batched. The package decides
// membership only; it neither lists nor calls tools.
package catalog

import (
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/langspec/langspec/internal/apperr"
)

// BuiltinServer is the server name of langspec's own tools.
const BuiltinServer = "langspec"

// Config is one entry of langspec.json's categories.
type Config struct {
	Description string    `json:"description" jsonschema:"what the category is for, shown to the model in the list of categories"`
	Server      string    `json:"server" jsonschema:"the mcpServers entry whose tools it holds, or langspec for the built-in tools"`
	Tools       Selection `json:"tools" jsonschema:"which of the server's tools belong to the category"`
}

// Selection picks a server's tools. A tool belongs when includeNames lists
// it or an includePatterns glob matches it, and no excludePatterns glob
// matches it.
type Selection struct {
	IncludeNames    []string            `json:"includeNames,omitempty" jsonschema:"tool names, each once"`
	IncludePatterns []string            `json:"includePatterns,omitempty" jsonschema:"globs over tool names (* and ?), such as find_*"`
	ExcludePatterns []string            `json:"excludePatterns,omitempty" jsonschema:"globs over tool names to leave out"`
	Overrides       map[string]Override `json:"overrides,omitempty" jsonschema:"per tool: enabled false to disable it, description to replace the server's"`
}

// Override changes one tool of a category.
type Override struct {
	Enabled     *bool  `json:"enabled,omitempty" jsonschema:"false disables the tool: it is neither listed nor run (default true)"`
	Description string `json:"description,omitempty" jsonschema:"replaces the tool's description"`
}

// Mask hides tools everywhere: a tool is visible when it passes the
// allow-list (Allow and Own; none set lets every tool pass) and no deny glob
// matches. Globs match "category/tool" (path.Match: * does not cross the /).
type Mask struct {
	Allow []string `json:"allow,omitempty" jsonschema:"globs over category/tool; when set, only matching tools are visible"`
	Deny  []string `json:"deny,omitempty" jsonschema:"globs over category/tool that are never listed nor run, such as */execute_shell_command"`
	// Own are langspec's own tools by name, allowed in whatever category
	// serves them — but only a category of BuiltinServer: a token's bare
	// tool name must never reach an upstream tool that happens to share it
	// (an upstream tool is allowed only by its category, in Allow). Set by
	// a team server subject's tools, never by the configuration.
	Own []string `json:"-"`
	// and are further masks a tool must pass too (Both).
	and []Mask
}

// Both returns a mask that lets a tool through only when m and other both
// do: a team server subject's own tools over the configured mask.
func (m Mask) Both(other Mask) Mask {
	m.and = append(slices.Clone(m.and), other)
	return m
}

var namePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Validate checks every category against the configured server names.
// Errors: invalid_argument naming the JSON path of the first problem.
func Validate(cats map[string]Config, servers []string) error {
	for _, name := range slices.Sorted(maps.Keys(cats)) {
		c := cats[name]
		at := "categories." + name
		bad := func(field, hint, format string, args ...any) error {
			return apperr.New(apperr.InvalidArgument, hint, "%s%s: %s", at, field, fmt.Sprintf(format, args...))
		}
		if !namePattern.MatchString(name) {
			return bad("", "use letters, digits, - and _ (at most 64)", "not a category name")
		}
		if strings.TrimSpace(c.Description) == "" {
			return bad(".description", "say in a few words what the category is for; the model chooses by it", "missing")
		}
		if c.Server != BuiltinServer && !slices.Contains(servers, c.Server) {
			return bad(".server", fmt.Sprintf("use %s or a name under mcpServers (%s)", BuiltinServer, strings.Join(servers, ", ")), "unknown server %q", c.Server)
		}
		sel := c.Tools
		if len(sel.IncludeNames) == 0 && len(sel.IncludePatterns) == 0 {
			return bad(".tools", "list tools in includeNames or match them with includePatterns", "selects no tools")
		}
		seen := map[string]bool{}
		for i, n := range sel.IncludeNames {
			if strings.TrimSpace(n) == "" {
				return bad(fmt.Sprintf(".tools.includeNames[%d]", i), "give a tool name", "empty")
			}
			if seen[n] {
				return bad(fmt.Sprintf(".tools.includeNames[%d]", i), "list each tool once", "%q is listed twice", n)
			}
			seen[n] = true
		}
		for field, pats := range map[string][]string{"includePatterns": sel.IncludePatterns, "excludePatterns": sel.ExcludePatterns} {
			for i, p := range pats {
				if _, err := path.Match(p, ""); err != nil || p == "" {
					return bad(fmt.Sprintf(".tools.%s[%d]", field, i), "use * and ? globs, such as find_*", "bad pattern %q", p)
				}
			}
		}
	}
	return nil
}

// Validate checks the mask's globs. Errors: invalid_argument.
func (m Mask) Validate() error {
	for field, pats := range map[string][]string{"allow": m.Allow, "deny": m.Deny} {
		for i, p := range pats {
			if _, err := path.Match(p, ""); err != nil || !strings.Contains(p, "/") {
				return apperr.New(apperr.InvalidArgument, "write category/tool globs, such as vault/* or */execute_shell_command",
					"toolMask.%s[%d]: bad pattern %q", field, i, p)
			}
		}
	}
	return nil
}

// Visible reports whether the mask lets category/tool, a tool of server,
// be listed and run.
func (m Mask) Visible(server, category, tool string) bool {
	name := category + "/" + tool
	match := func(pats []string) bool {
		return slices.ContainsFunc(pats, func(p string) bool { ok, _ := path.Match(p, name); return ok })
	}
	allowList := len(m.Allow) > 0 || len(m.Own) > 0
	own := server == BuiltinServer && slices.Contains(m.Own, tool)
	if (allowList && !own && !match(m.Allow)) || match(m.Deny) {
		return false
	}
	for _, o := range m.and {
		if !o.Visible(server, category, tool) {
			return false
		}
	}
	return true
}

// Selects reports whether the category's selection takes tool, before
// overrides and masks.
func (c Config) Selects(tool string) bool {
	match := func(pats []string) bool {
		return slices.ContainsFunc(pats, func(p string) bool { ok, _ := path.Match(p, tool); return ok })
	}
	in := slices.Contains(c.Tools.IncludeNames, tool) || match(c.Tools.IncludePatterns)
	return in && !match(c.Tools.ExcludePatterns)
}

// Enabled reports whether no override disables tool.
func (c Config) Enabled(tool string) bool {
	o, ok := c.Tools.Overrides[tool]
	return !ok || o.Enabled == nil || *o.Enabled
}

// Listed is a tool as its server lists it.
type Listed struct {
	Name        string
	Description string
}

// Resolved is a category applied to its server's tool list.
type Resolved struct {
	Name        string
	Description string
	Server      string
	Tools       []Listed // enabled and visible, in the server's order, descriptions overridden
	Disabled    []string // selected but disabled by an override or hidden by the mask
	Unknown     []string // named in includeNames or overrides but not listed by the server
}

// Resolve applies category name (config c) to the tools its server lists.
func Resolve(name string, c Config, listed []Listed, mask Mask) Resolved {
	r := Resolved{Name: name, Description: c.Description, Server: c.Server}
	have := map[string]bool{}
	for _, t := range listed {
		have[t.Name] = true
		if !c.Selects(t.Name) {
			continue
		}
		if !c.Enabled(t.Name) || !mask.Visible(c.Server, name, t.Name) {
			r.Disabled = append(r.Disabled, t.Name)
			continue
		}
		if o := c.Tools.Overrides[t.Name]; o.Description != "" {
			t.Description = o.Description
		}
		r.Tools = append(r.Tools, t)
	}
	named := append(slices.Clone(c.Tools.IncludeNames), slices.Collect(maps.Keys(c.Tools.Overrides))...)
	for _, n := range named {
		if !have[n] && !slices.Contains(r.Unknown, n) {
			r.Unknown = append(r.Unknown, n)
		}
	}
	sort.Strings(r.Unknown)
	return r
}

// Check decides whether category (config c) may run tool, without the
// server's tool list: call-category-tool works before any schema is
// loaded. Errors: unknown_tool when the category does not select it,
// tool_disabled when an override or the mask turns it off.
func Check(name string, c Config, tool string, mask Mask) error {
	if !c.Selects(tool) {
		return apperr.New(apperr.UnknownTool, fmt.Sprintf("call get-category-tools with category %q to see its tools", name),
			"category %q has no tool %q", name, tool)
	}
	if !c.Enabled(tool) || !mask.Visible(c.Server, name, tool) {
		return apperr.New(apperr.ToolDisabled, "the configuration or your token's tools leave it out; use another tool",
			"tool %q of category %q is disabled", tool, name)
	}
	return nil
}
