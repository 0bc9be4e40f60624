package tools

import (
	"context"

	"github.com/langspec/langspec/internal/manual"
	"github.com/langspec/langspec/internal/manual/find"
)

// ManualCalls are the manual tools' handlers, for `langspec manual`: each
// method is what manual_list, manual_ls, manual_toc, manual_read,
// manual_find or manual_hits runs, so the command and the tool cannot
// drift. The tools' input schemas check bounds before a handler runs; a
// caller of these checks them itself (the command's flags do).
type ManualCalls struct {
	mt *manualTools
	ft *findTools
}

// NewManualCalls binds the calls to a library and to a finder. finder may
// be nil when neither Find nor Hits is called: reads then record nothing
// (as with a finder that keeps no statistics).
func NewManualCalls(lib *manual.Library, finder *find.Finder) ManualCalls {
	if finder == nil {
		finder = &find.Finder{}
	}
	return ManualCalls{mt: &manualTools{lib: lib, finder: finder}, ft: &findTools{finder: finder}}
}

// List is manual_list.
func (c ManualCalls) List(ctx context.Context) (ManualListOut, error) {
	return c.mt.list(ctx, ManualListIn{})
}

// Ls is manual_ls.
func (c ManualCalls) Ls(ctx context.Context, in ManualLsIn) (ManualLsOut, error) {
	return c.mt.ls(ctx, in)
}

// Toc is manual_toc.
func (c ManualCalls) Toc(ctx context.Context, in ManualTocIn) (ManualTocOut, error) {
	return c.mt.toc(ctx, in)
}

// Read is manual_read.
func (c ManualCalls) Read(ctx context.Context, in ManualReadIn) (ManualReadOut, error) {
	return c.mt.read(ctx, in)
}

// Find is manual_find.
func (c ManualCalls) Find(ctx context.Context, in ManualFindIn) (find.Summary, error) {
	return c.ft.finder.Find(ctx, findRequest(in))
}

// Hits is manual_hits. The snippets are in the candidates only with
// in.Verbose, as in the tool's structured result.
func (c ManualCalls) Hits(ctx context.Context, in ManualHitsIn) (find.HitsPage, error) {
	out, err := c.ft.hits(ctx, in)
	return out.HitsPage, err
}

// Bounds of manual_read's arguments, for callers that are not checked by
// its input schema.
const (
	ManualReadMaxChars        = maxVaultReadChars
	ManualReadDefaultChars    = defaultPageChars
	ManualReadMaxSections     = maxMaxSections
	ManualReadDefaultSections = defaultMaxSections
	ManualSnippetDefaultChars = defaultSnippetChars
)

// ManualReadScopes are manual_read's scopes, narrowest first, for the same
// callers.
func ManualReadScopes() []string {
	return []string{scopeSnippet, scopeSection, scopeSections, scopeFile}
}
