package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/catalog"
)

// Meta tool names: the tools categories mode lists in place of every tool.
const (
	GetCategoryTools = "get-category-tools"
	CallCategoryTool = "call-category-tool"
	Batch            = "batch"
)

// GetCategoryToolsIn asks for a category's tool schemas.
type GetCategoryToolsIn struct {
	Category  string   `json:"category" jsonschema:"a category from this tool's description"`
	ToolNames []string `json:"toolNames,omitempty" jsonschema:"only these tools; omit for all of the category"`
}

// ToolSchema is one tool as get-category-tools returns it.
type ToolSchema struct {
	Description  string               `json:"description,omitempty" jsonschema:"what the tool does"`
	InputSchema  any                  `json:"inputSchema" jsonschema:"JSON Schema of args for call-category-tool"`
	OutputSchema any                  `json:"outputSchema,omitempty" jsonschema:"JSON Schema of the structured result, when the tool has one"`
	Annotations  *mcp.ToolAnnotations `json:"annotations,omitempty" jsonschema:"hints: read-only, destructive, idempotent, open world"`
}

// CategoryMeta says where a category's tools come from.
type CategoryMeta struct {
	Category         string   `json:"category" jsonschema:"the category"`
	SourceServer     string   `json:"sourceServer" jsonschema:"the server that runs its tools"`
	UnavailableTools []string `json:"unavailableTools,omitempty" jsonschema:"tools configured for the category that cannot be used now: disabled, hidden, unknown to the server, or asked for and not in the category"`
}

// GetCategoryToolsOut is a category's tools.
type GetCategoryToolsOut struct {
	Tools map[string]ToolSchema `json:"tools" jsonschema:"tool name to its schema"`
	Meta  CategoryMeta          `json:"meta" jsonschema:"where the tools come from"`
}

// CallCategoryToolIn runs one tool of a category.
type CallCategoryToolIn struct {
	Category string         `json:"category" jsonschema:"the tool's category"`
	Name     string         `json:"name" jsonschema:"the tool's name, as get-category-tools lists it"`
	Args     map[string]any `json:"args" jsonschema:"the tool's arguments, as its inputSchema describes"`
}

// BatchIn runs several tools in one call.
type BatchIn struct {
	Tasks string `json:"tasks" jsonschema:"JSON Lines, one task per line: {id, category, tool, params, after (an id or a list), output (true to return the result)}; params may use ${id.path} to insert a field of an earlier task's result"`
}

// BatchTaskResult is one task of a batch as returned.
type BatchTaskResult struct {
	ID         string  `json:"id" jsonschema:"the task id"`
	Status     string  `json:"status" jsonschema:"ok, error or skipped"`
	Error      string  `json:"error,omitempty" jsonschema:"why it failed or was skipped"`
	Result     any     `json:"result,omitempty" jsonschema:"the tool's structured result, or its text, for output:true tasks"`
	DurationMS float64 `json:"duration_ms" jsonschema:"time the task ran"`
}

// BatchOut is a batch's outcome.
type BatchOut struct {
	Tasks     []BatchTaskResult `json:"tasks" jsonschema:"output:true tasks, and every task that failed or was skipped, in input order"`
	Succeeded int               `json:"succeeded" jsonschema:"tasks that ran and succeeded"`
	Failed    int               `json:"failed" jsonschema:"tasks that failed"`
	Skipped   int               `json:"skipped" jsonschema:"tasks not run because one they depend on failed"`
}

// metaToolset is the three tools of categories mode. get-category-tools'
// description is the catalog's list of categories, made when it is
// registered (and again once the upstream servers have settled).
func metaToolset() []Tool {
	bind := func(d *Deps) *catalog.Catalog { return d.Catalog }
	getTools := newTool(CategoryMetaTools, bind, mcp.Tool{
		Name: GetCategoryTools, Title: "Load a category's tool schemas",
		Annotations: readOnly(),
	}, func(s *jsonschema.Schema) {
		nonEmpty(s, "category", 64)
		s.Properties["toolNames"].MaxItems = jsonschema.Ptr(200)
	}, getCategoryTools, renderJSON[GetCategoryToolsOut])
	getTools.describe = func(d *Deps) string { return d.Catalog.Describe() }
	return needing(func(d *Deps) bool { return d.Catalog != nil }, []Tool{
		getTools,
		callCategoryTool(),
		newTool(CategoryMetaTools, bind, mcp.Tool{
			Name: Batch, Title: "Run several category tools",
			Description: `Run several category tools in one call. tasks is JSON Lines, one task per line: {"id":"s","category":"spec","tool":"search_spec","params":{"query":"slices"}} then {"id":"r","category":"spec","tool":"get_section","params":{"language":"go","section_id":"${s.results[0].section_id}"},"after":"s","output":true}. Tasks without after run in parallel; only output:true results come back; a failed task skips the tasks after it.`,
			Annotations: &mcp.ToolAnnotations{DestructiveHint: jsonschema.Ptr(true), OpenWorldHint: jsonschema.Ptr(true)},
		}, func(s *jsonschema.Schema) {
			nonEmpty(s, "tasks", 1<<20)
		}, runBatch, renderJSON[BatchOut]),
	})
}

// callCategoryTool is added raw: its result is the called tool's, whatever
// its shape (images, structured content), so it has no output schema.
func callCategoryTool() Tool {
	s, err := jsonschema.For[CallCategoryToolIn](nil)
	if err != nil {
		panic("call-category-tool schema: " + err.Error()) // fixed at compile time
	}
	nonEmpty(s, "category", 64)
	nonEmpty(s, "name", 128)
	resolved := sync.OnceValues(func() (*jsonschema.Resolved, error) { return s.Resolve(nil) })
	return Tool{
		Def: &mcp.Tool{
			Name: CallCategoryTool, Title: "Run a tool of a category",
			Description: "Run one tool of a category: 1. load the category's schemas with get-category-tools (once), 2. call this with category, name and args. The tool's result comes back as the tool returned it. batch runs several at once.",
			Annotations: &mcp.ToolAnnotations{DestructiveHint: jsonschema.Ptr(true), OpenWorldHint: jsonschema.Ptr(true)},
			InputSchema: s,
		},
		Category: CategoryMetaTools,
		register: func(s *mcp.Server, def *mcp.Tool, d *Deps) {
			cat, log := d.Catalog, d.logger()
			s.AddTool(def, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var in CallCategoryToolIn
				if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
					return ErrorResult(schemaError(req.Params.Arguments, resolved, err)), nil
				}
				res, err := cat.Call(ctx, in.Category, in.Name, in.Args)
				if err != nil {
					return ErrorResult(UserError(ctx, log, CallCategoryTool, err)), nil
				}
				return res, nil
			})
		},
	}
}

// schemaError is why arguments that did not decode fail the input schema,
// in the validator's words as the SDK reports them, for the middleware
// that explains argument errors to rewrite (which argument, what it
// takes): never the decoder's words, which speak of Go types.
func schemaError(args json.RawMessage, schema func() (*jsonschema.Resolved, error), decodeErr error) error {
	r, err := schema()
	if err != nil {
		return fmt.Errorf("input schema: %w", err)
	}
	var v any
	if json.Unmarshal(args, &v) != nil {
		return fmt.Errorf("validating \"arguments\": unmarshaling arguments: %w", decodeErr)
	}
	if _, isObject := v.(map[string]any); !isObject {
		return fmt.Errorf("validating \"arguments\": unmarshaling arguments: %w", decodeErr)
	}
	if err := r.Validate(&v); err != nil {
		return fmt.Errorf("validating \"arguments\": %v", err)
	}
	return fmt.Errorf("validating \"arguments\": unmarshaling arguments: %w", decodeErr)
}

func getCategoryTools(cat *catalog.Catalog, ctx context.Context, in GetCategoryToolsIn) (GetCategoryToolsOut, error) {
	out := GetCategoryToolsOut{Tools: map[string]ToolSchema{}}
	c, err := cat.Lookup(in.Category)
	if err != nil {
		return out, err
	}
	out.Meta = CategoryMeta{Category: in.Category, SourceServer: c.Server}
	byName, list, err := cat.Listed(ctx, c.Server)
	if err != nil {
		return out, err
	}
	r := catalog.Resolve(in.Category, c, list, cat.Mask)
	for _, t := range r.Tools {
		if len(in.ToolNames) > 0 && !slices.Contains(in.ToolNames, t.Name) {
			continue
		}
		src := byName[t.Name]
		out.Tools[t.Name] = ToolSchema{Description: t.Description, InputSchema: src.InputSchema, OutputSchema: src.OutputSchema, Annotations: src.Annotations}
	}
	out.Meta.UnavailableTools = append(append(out.Meta.UnavailableTools, r.Disabled...), r.Unknown...)
	for _, n := range in.ToolNames {
		if _, ok := out.Tools[n]; !ok && !slices.Contains(out.Meta.UnavailableTools, n) {
			out.Meta.UnavailableTools = append(out.Meta.UnavailableTools, n)
		}
	}
	return out, nil
}

func runBatch(cat *catalog.Catalog, ctx context.Context, in BatchIn) (BatchOut, error) {
	rep, err := cat.Batch(ctx, in.Tasks)
	if err != nil {
		return BatchOut{}, err
	}
	out := BatchOut{Tasks: []BatchTaskResult{}, Succeeded: rep.Succeeded, Failed: rep.Failed, Skipped: rep.Skipped}
	for _, t := range rep.Tasks {
		out.Tasks = append(out.Tasks, BatchTaskResult{ID: t.ID, Status: t.Status, Error: t.Error, Result: t.Payload, DurationMS: t.DurationMS})
	}
	return out, nil
}

// renderJSON is the text content of a result that is data for a program:
// its compact JSON.
func renderJSON[T any](v T) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// BuiltinCategories are the default categories over tools, one per family
// (spec, manual, vault, bridge), for a configuration that defines none over
// langspec's own tools.
func BuiltinCategories(tools []Tool) map[string]catalog.Config {
	descriptions := map[string]string{
		CategorySpec:   "language specifications: search, read sections with citations, reading plans, languages and versions",
		CategoryManual: "your manuals (MANUALS_ROOT): list, table of contents, the thorough manual_find search, reading, exceptions",
		CategoryVault:  "the vault folder the model may write into: list, read, search, find, scan, coverage, create, write, replace, artifact audit",
		CategoryBridge: "copy manual sections or files into the vault without returning their text",
	}
	out := map[string]catalog.Config{}
	for _, t := range tools {
		c := out[t.Category]
		c.Server = catalog.BuiltinServer
		c.Description = descriptions[t.Category]
		if c.Description == "" {
			c.Description = t.Category + " tools"
		}
		c.Tools.IncludeNames = append(c.Tools.IncludeNames, t.Def.Name)
		out[t.Category] = c
	}
	return out
}
