package mcpserver

import (
	"slices"

	"github.com/langspec/langspec/internal/catalog"
	"github.com/langspec/langspec/internal/resources"
	"github.com/langspec/langspec/internal/tools"
)

// access is what one client may reach through every MCP method: the tools
// it may list and call, and, derived from them by one rule, what the other
// methods (resources, resource templates, completions, prompts) may show.
//
// The rule: a surface that is not a tool shows only what a tool the client
// may call would show it anyway. Reading a section as a resource is
// get_section; reading a manual file is manual_read; reading a vault note is
// vault_read; completing a manual's file names or a vault's paths is reading
// their listing through the same tools; a prompt is offered only when every
// tool it names is reachable. So a token limited to search_spec and
// get_section (--tools) sees no manual or vault template, reads no manual or
// vault URI, completes no manual id, and is offered no manual prompt —
// whatever the toolsets serve. Everything else derives from this one value;
// nothing checks a subject's tools on its own.
type access struct {
	// tools are langspec's own tools the client can reach: listed (flat
	// mode) or callable through a category (categories mode).
	tools []tools.Tool
	// deps is the server's parts without those no reachable tool reads,
	// for the resources, completions and prompts.
	deps *tools.Deps
	// grants are the resource templates that answer what a tool answers
	// over a part another tool grants (the diff template is spec_diff's,
	// over the store get_section grants).
	grants resources.Grants
}

// surfaceGrants names, for each part of Deps that resources and
// completions read, the tool whose reach grants it.
const (
	grantSpecText   = "get_section" // documents, contents, sections; language, doc, version and section completions
	grantManualText = "manual_read" // manual files; manual id and path completions
	grantVaultText  = "vault_read"  // vault notes; vault path completions
	grantSpecDiff   = "spec_diff"   // the diff template
)

// accessFor is the access of a client of d served the toolsets sets (nil:
// all) under mask. cats are the categories of categories mode (nil in flat
// mode): there a tool is reachable when a category over langspec's own
// server selects and enables it and the mask lets it through under that
// category's name, exactly as call-category-tool decides (catalog.Check).
func accessFor(d *tools.Deps, sets []string, mask catalog.Mask, cats map[string]catalog.Config) access {
	served := inToolsets(tools.Available(d), sets)
	reachable := slices.DeleteFunc(served, func(t tools.Tool) bool {
		if cats == nil {
			return !mask.Visible(catalog.BuiltinServer, t.Category, t.Def.Name)
		}
		for name, c := range cats {
			if c.Server == catalog.BuiltinServer && catalog.Check(name, c, t.Def.Name, mask) == nil {
				return false
			}
		}
		return true
	})
	has := func(name string) bool {
		return slices.ContainsFunc(reachable, func(t tools.Tool) bool { return t.Def.Name == name })
	}
	out := *d
	if !has(grantSpecText) {
		out.Store = nil
	}
	if !has(grantManualText) {
		out.Manuals, out.Finder = nil, nil
	}
	if !has(grantVaultText) {
		out.Vault = nil
	}
	return access{tools: reachable, deps: &out, grants: resources.Grants{Diff: out.Store != nil && has(grantSpecDiff)}}
}
