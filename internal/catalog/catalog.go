package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/catalog/batch"
	"github.com/langspec/langspec/internal/catalog/upstream"
)

// Bounds of the category list in get-category-tools' description: it is
// read on every turn, so it stays short however many categories there are.
const (
	maxCategoryLineChars   = 160
	maxCategoryListChars   = 4000
	settleTimeout          = 30 * time.Second
	defaultBatchConcurrent = 10
)

// Catalog is categories mode at work: the categories, the mask, and the
// servers behind them, langspec's own tools among them (server "langspec").
// The meta tools (package tools) and the servers (package mcpserver) call it.
type Catalog struct {
	Categories map[string]Config
	Mask       Mask
	Upstreams  *upstream.Manager
	Log        *slog.Logger // nil logs nothing
}

func (c *Catalog) log() *slog.Logger {
	if c.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.Log
}

// WithBuiltin returns configured plus builtin, the default categories over
// langspec's own tools, unless configured already has a category over them
// (then the user chose how to group them) or uses the same name.
func WithBuiltin(configured, builtin map[string]Config) map[string]Config {
	cats := maps.Clone(configured)
	if cats == nil {
		cats = map[string]Config{}
	}
	for _, c := range cats {
		if c.Server == BuiltinServer {
			return cats
		}
	}
	for name, c := range builtin {
		if _, taken := cats[name]; !taken {
			cats[name] = c
		}
	}
	return cats
}

// Describe is get-category-tools' description: the categories, each with
// its short description, marked when its server is unavailable.
func (c *Catalog) Describe() string {
	var b strings.Builder
	b.WriteString("Load the tool schemas of one category, then run its tools with call-category-tool (or several with batch). Categories:\n")
	down := map[string]bool{}
	for _, st := range c.Upstreams.Status() {
		down[st.Name] = st.State == upstream.StateUnavailable
	}
	names := slices.Sorted(maps.Keys(c.Categories))
	for i, name := range names {
		cfg := c.Categories[name]
		line := fmt.Sprintf("- %s: %s", name, strings.Join(strings.Fields(cfg.Description), " "))
		if utf8.RuneCountInString(line) > maxCategoryLineChars {
			line = string([]rune(line)[:maxCategoryLineChars-1]) + "…"
		}
		if down[cfg.Server] {
			line += " [unavailable: server " + cfg.Server + " is not running]"
		}
		if b.Len()+len(line) > maxCategoryListChars {
			rest := strings.Join(names[i:], ", ")
			if len(rest) > maxCategoryLineChars*2 {
				rest = rest[:strings.LastIndex(rest[:maxCategoryLineChars*2], ", ")] + ", …"
			}
			fmt.Fprintf(&b, "- and %d more: %s\n", len(names)-i, rest)
			break
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// Lookup returns a category's config. Errors: unknown_category listing them.
func (c *Catalog) Lookup(name string) (Config, error) {
	cfg, ok := c.Categories[name]
	if !ok {
		return cfg, apperr.New(apperr.UnknownCategory, "categories: "+strings.Join(slices.Sorted(maps.Keys(c.Categories)), ", "),
			"no category %q", name)
	}
	return cfg, nil
}

// Listed returns the server's tools, by name and as a list. Errors:
// upstream_unavailable, schema_fetch_error.
func (c *Catalog) Listed(ctx context.Context, server string) (map[string]*mcp.Tool, []Listed, error) {
	tools, err := c.Upstreams.Tools(ctx, server)
	if err != nil {
		return nil, nil, err
	}
	byName := make(map[string]*mcp.Tool, len(tools))
	list := make([]Listed, len(tools))
	for i, t := range tools {
		byName[t.Name] = t
		list[i] = Listed{Name: t.Name, Description: t.Description}
	}
	return byName, list, nil
}

// Call runs one tool of a category and returns its result whole, logging
// one line. A tool the category does not select, or one disabled or masked,
// is refused before anything is sent to its server.
func (c *Catalog) Call(ctx context.Context, category, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	start := time.Now()
	res, err := c.callChecked(ctx, category, tool, args)
	outcome := "ok"
	switch {
	case err != nil:
		outcome = string(apperr.CodeOf(err))
	case res.IsError:
		outcome = "tool_error"
	}
	c.log().InfoContext(ctx, "category call", "category", category, "tool", tool, "ms", float64(time.Since(start).Microseconds())/1000, "outcome", outcome)
	return res, err
}

func (c *Catalog) callChecked(ctx context.Context, category, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	cfg, err := c.Lookup(category)
	if err != nil {
		return nil, err
	}
	if err := Check(category, cfg, tool, c.Mask); err != nil {
		return nil, err
	}
	byName, _, err := c.Listed(ctx, cfg.Server)
	if err != nil {
		return nil, err
	}
	if byName[tool] == nil {
		return nil, apperr.New(apperr.UnknownTool, fmt.Sprintf("the configuration names it, but server %q does not list it; call get-category-tools with category %q", cfg.Server, category),
			"server %q has no tool %q", cfg.Server, tool)
	}
	if args == nil {
		args = map[string]any{}
	}
	return c.Upstreams.Call(ctx, cfg.Server, tool, args)
}

// Batch parses a JSON Lines batch and runs it: tasks without "after" in
// parallel, each through Call. Errors: those of batch.Parse, and
// unknown_category naming the line of the first task with an unknown one.
func (c *Catalog) Batch(ctx context.Context, tasks string) (batch.Report, error) {
	parsed, err := batch.Parse(tasks)
	if err != nil {
		return batch.Report{}, err
	}
	for _, t := range parsed {
		if _, err := c.Lookup(t.Category); err != nil {
			return batch.Report{}, apperr.New(apperr.UnknownCategory, "categories: "+strings.Join(slices.Sorted(maps.Keys(c.Categories)), ", "),
				"line %d, task %q: no category %q", t.Line, t.ID, t.Category)
		}
	}
	return batch.Run(ctx, parsed, func(ctx context.Context, t batch.Task) (batch.Result, error) {
		res, err := c.Call(ctx, t.Category, t.Tool, t.Params)
		if err != nil {
			return batch.Result{}, err
		}
		v := ResultValue(res)
		out := batch.Result{Value: v, Payload: v, IsError: res.IsError}
		if res.IsError {
			return out, fmt.Errorf("%s", ResultText(res))
		}
		return out, nil
	}, batch.Options{Concurrency: defaultBatchConcurrent}), nil
}

// ResultValue is what ${id.path} reads in a result: its structured
// content, else its text parsed as JSON, else the text.
func ResultValue(r *mcp.CallToolResult) any {
	if r.StructuredContent != nil {
		var v any
		if b, err := json.Marshal(r.StructuredContent); err == nil && json.Unmarshal(b, &v) == nil {
			return v
		}
	}
	text := ResultText(r)
	var v any
	if json.Unmarshal([]byte(text), &v) == nil {
		return v
	}
	return text
}

// ResultText is the text content of a result, parts joined by newlines.
func ResultText(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Settle waits, at most 30 seconds, until every server behind a category
// has connected or failed. It reports false when ctx ended first (the server
// is stopping), true otherwise, a timeout included.
func (c *Catalog) Settle(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, settleTimeout)
	defer cancel()
	servers := map[string]bool{}
	for _, cfg := range c.Categories {
		servers[cfg.Server] = true
	}
	var wg sync.WaitGroup
	for srv := range servers {
		wg.Go(func() { _, _ = c.Upstreams.Tools(ctx, srv) })
	}
	wg.Wait()
	return ctx.Err() == nil || errors.Is(ctx.Err(), context.DeadlineExceeded)
}

// LogSummary logs, per category, its tools, disabled tools and names the
// configuration gives that the server does not list.
func (c *Catalog) LogSummary(ctx context.Context) {
	log := c.log()
	for _, name := range slices.Sorted(maps.Keys(c.Categories)) {
		cfg := c.Categories[name]
		_, list, err := c.Listed(ctx, cfg.Server)
		if err != nil {
			log.Warn("category unavailable", "category", name, "server", cfg.Server, "err", err)
			continue
		}
		r := Resolve(name, cfg, list, c.Mask)
		attrs := []any{"category", name, "server", cfg.Server, "tools", len(r.Tools), "disabled", len(r.Disabled)}
		if len(r.Unknown) > 0 {
			log.Warn("category names tools its server does not list", append(attrs, "unresolved", strings.Join(r.Unknown, ","))...)
			continue
		}
		log.Info("category ready", attrs...)
	}
}
