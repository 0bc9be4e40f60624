// Package tools declares langspec's MCP tools as values. Inventory is the
// static table of every tool, grouped in families (spec, manual, vault,
// bridge, meta); a tool is bound to its dependencies only when it is
// registered on a server, so the table also feeds the README's tool tables
// and the snapshots without opening anything. A handler checks nothing the
// schema already checks, calls the same function the CLI calls, and returns
// the result twice: as structured content, and as compact text for clients
// that show only text.
package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/catalog"
	"github.com/langspec/langspec/internal/contextnote"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/manual"
	"github.com/langspec/langspec/internal/manual/find"
	"github.com/langspec/langspec/internal/spec"
	"github.com/langspec/langspec/internal/vault"
)

// Deps is what the tools are bound to. Nothing in this package is global:
// every server binds its own Deps, so tests run servers side by side. A nil
// field leaves out the family that needs it.
type Deps struct {
	Store   *db.DB
	Vault   *vault.Vault     // the vault tools, and with Manuals the bridge tools
	Manuals *manual.Library  // the manual tools (with Finder)
	Finder  *find.Finder     // manual_find and manual_hits; the bridge records copies in its traces
	Catalog *catalog.Catalog // the meta tools of categories mode
	// Languages are the languages stored when the server starts; the spec
	// tools name them in their descriptions, so a model knows what it can
	// ask for without a call. Arguments are still checked against the store
	// at call time, so a language ingested later works too.
	Languages []string
	Logger    *slog.Logger
	// ReadOnly leaves out every tool that writes (one without the
	// read-only annotation): `serve --http --read-only`.
	ReadOnly bool
	// Spec is the specification use cases over Store, as the command line
	// runs them (internal/spec: the semantic channel, the notes, the
	// not-stored hint); nil: those use cases over Store with no semantic
	// channel and the built-in sources' hints (Specs).
	Spec *spec.Service
	// Notes are the user's context notes, returned with the answers whose
	// hits they cover; nil: none.
	Notes *contextnote.Source
}

// Specs is the specification use cases d serves: Spec, or for a Deps
// given a store alone (a server built by hand, a test) the same use cases
// over Store with d's notes.
func (d *Deps) Specs() *spec.Service {
	if d.Spec != nil {
		return d.Spec
	}
	return spec.New(spec.Options{Store: d.Store, Notes: d.Notes, Log: d.Logger})
}

// ManualService is the manual use cases over d's library and finder: the
// manual tools' calls, and the team server's page's (mcpserver.ManualsOf).
func (d *Deps) ManualService() *find.Service {
	return &find.Service{Lib: d.Manuals, Finder: d.Finder, Notes: d.Notes, Log: d.Logger}
}

func (d *Deps) logger() *slog.Logger {
	if d.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return d.Logger
}

// Tool families: the category each tool belongs to in categories mode, and
// the unit a deployment turns on or off.
const (
	CategorySpec      = "spec"
	CategoryManual    = "manual"
	CategoryVault     = "vault"
	CategoryBridge    = "bridge"
	CategoryMetaTools = "meta" // get-category-tools, call-category-tool, batch
)

// Tool is one MCP tool: its definition (name, title, description,
// annotations, input schema) and family, and how to bind it.
type Tool struct {
	Def      *mcp.Tool
	Category string
	needs    func(*Deps) bool   // whether d has what the tool needs
	describe func(*Deps) string // the description as served; nil: Def.Description
	register func(s *mcp.Server, def *mcp.Tool, d *Deps)
	out      *jsonschema.Schema // the result's schema, for the docs; nil: the result is passed through
	// resolveIn resolves the input schema, once, for validating arguments.
	resolveIn func() (*jsonschema.Resolved, error)
	// listedIn and listedOut are the schemas as tools/list shows them
	// (listedInput, listedOutput); nil: Def's, as they are.
	listedIn  *jsonschema.Schema
	listedOut json.RawMessage
	// zeroOut is what a handler returning Out's zero value sends (every
	// pointer nil, the slices and maps emptyNils fills empty): the tests
	// check that it, too, keeps the listed schema.
	zeroOut any
}

// Inventory is every tool langspec has, in listing order, unbound.
func Inventory() []Tool { return slices.Clone(inventory()) }

// inventory builds the table once per process. Building it infers and
// resolves 48 JSON schemas by reflection, 2.6 ms that a server paid once or
// twice at every start (the cold-start goal is 15 ms); the table never
// changes after, and nothing changes a Tool's definition or schemas once
// built (Described copies the definition it changes).
var inventory = sync.OnceValue(func() []Tool {
	var all []Tool
	for _, family := range [][]Tool{specToolset(), vaultToolset(), manualToolset(), findToolset(), bridgeToolset(), metaToolset()} {
		all = append(all, family...)
	}
	return all
})

// Available is the tools d can serve, in listing order, the meta tools
// left out: they stand in for the others in categories mode.
func Available(d *Deps) []Tool {
	var out []Tool
	for _, t := range Inventory() {
		if t.Category != CategoryMetaTools && t.needs(d) && (!d.ReadOnly || t.readOnly()) {
			out = append(out, t)
		}
	}
	return out
}

// readOnly says whether t is annotated as not changing anything.
func (t Tool) readOnly() bool {
	return t.Def.Annotations != nil && t.Def.Annotations.ReadOnlyHint
}

// OutputSchemas are the complete output schemas of every tool by name; a
// listing shows only their top level, typed (listedOutput). For tests that check
// results (toolstest.Connect).
func OutputSchemas() map[string]*jsonschema.Schema {
	out := map[string]*jsonschema.Schema{}
	for _, t := range inventory() {
		if t.out != nil {
			out[t.Def.Name] = t.out
		}
	}
	return out
}

// Meta is the tools of categories mode, bound to d.Catalog.
func Meta() []Tool { return metaToolset() }

// Described is the definition as a server bound to d lists it: Def with
// the description d gives it.
func (t Tool) Described(d *Deps) *mcp.Tool {
	def := *t.Def
	if t.describe != nil {
		def.Description = t.describe(d)
	}
	return &def
}

// Register binds t to d and adds it to s, listed with its schemas trimmed
// (listedInput, listedOutput). It returns the full input schema, for the middleware that
// explains argument errors.
func (t Tool) Register(s *mcp.Server, d *Deps) *jsonschema.Schema {
	def := t.Described(d)
	full := def.InputSchema.(*jsonschema.Schema)
	if t.listedIn != nil {
		def.InputSchema = t.listedIn
	}
	if t.listedOut != nil {
		def.OutputSchema = t.listedOut
	}
	t.register(s, def, d)
	return full
}

// Register binds each tool of list to d and adds it to s. It returns the
// input schemas by tool name, for the middleware that explains argument
// errors.
func Register(s *mcp.Server, d *Deps, list []Tool) map[string]*jsonschema.Schema {
	schemas := make(map[string]*jsonschema.Schema, len(list))
	for _, t := range list {
		schemas[t.Def.Name] = t.Register(s, d)
	}
	return schemas
}

// handler is a tool's logic as a method expression: the family's receiver,
// typed arguments in, typed result out.
type handler[R, In, Out any] func(R, context.Context, In) (Out, error)

// newTool makes a Tool from a typed handler. bind makes the family's
// receiver from the dependencies at registration. The input schema is
// inferred from In, then shape adds what struct tags cannot say (bounds,
// defaults); the output schema is inferred from Out. render turns a result
// into the text content.
//
// The tool is added raw rather than through mcp.AddTool, which marshals the
// result, unmarshals it again to validate it against the output schema and
// marshals it a second time on every call — most of a search_spec round
// trip. Here the result is marshalled once; the tests check every result
// against its output schema instead (internal/tools/toolstest).
func newTool[R, In, Out any](category string, bind func(*Deps) R, def mcp.Tool, shape func(*jsonschema.Schema), h handler[R, In, Out], render func(Out) string) Tool {
	in, err := jsonschema.For[In](nil)
	if err != nil {
		// The In types are fixed at compile time; a failure here is a bug
		// that every test run would catch.
		panic(fmt.Sprintf("tool %s: input schema: %v", def.Name, err))
	}
	if shape != nil {
		shape(in)
	}
	def.InputSchema = in
	// Resolving checks the schema and compiles its patterns: for all the
	// tools, a tenth of a server's start (docs/performance.md), while a
	// session calls a few. Each is resolved on its tool's first call;
	// TestInputSchemasResolve resolves every one.
	resolveIn := sync.OnceValues(func() (*jsonschema.Resolved, error) {
		return in.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	})
	out, err := jsonschema.For[Out](nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: output schema: %v", def.Name, err))
	}
	def.OutputSchema = out
	nils := nonNil(reflect.TypeFor[Out]())
	var zero Out
	emptyNils(&zero, nils)
	return Tool{
		Def:       &def,
		Category:  category,
		resolveIn: resolveIn,
		out:       out,
		listedIn:  listedInput(in),
		listedOut: listedOutput(out, nilFieldNames(nils)),
		zeroOut:   zero,
		register: func(s *mcp.Server, def *mcp.Tool, d *Deps) {
			r, log := bind(d), d.logger()
			s.AddTool(def, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				inResolved, err := resolveIn()
				if err != nil {
					return nil, fmt.Errorf("%s: input schema: %w", def.Name, err)
				}
				args, err := decodeArgs[In](req.Params.Arguments, inResolved)
				if err != nil {
					return ErrorResult(err), nil
				}
				res, err := h(r, ctx, args)
				if err != nil {
					return ErrorResult(UserError(ctx, log, def.Name, err)), nil
				}
				emptyNils(&res, nils) // as listed: [] for a nil slice, never null
				// The result goes to the SDK as a value, encoded once as
				// it writes the answer: encoding/json re-reads (compacts)
				// whatever a json.Marshaler returns, so a result encoded
				// here first was scanned twice more (docs/performance.md).
				return &mcp.CallToolResult{
					Content:           []mcp.Content{&mcp.TextContent{Text: render(res)}},
					StructuredContent: res,
				}, nil
			})
		},
	}
}

// decodeArgs checks a call's arguments against the input schema, fills in
// its defaults and decodes them, as mcp.AddTool would. Its errors read as
// the SDK's ("validating \"arguments\": …"), which the middleware that
// explains argument errors rewrites for the model.
func decodeArgs[In any](raw json.RawMessage, schema *jsonschema.Resolved) (In, error) {
	var args In
	m := map[string]any{}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &m); err != nil {
			return args, fmt.Errorf("validating \"arguments\": unmarshaling arguments: %w", err)
		}
	}
	var v any = m
	if err := schema.ApplyDefaults(&v); err != nil {
		return args, fmt.Errorf("validating \"arguments\": applying schema defaults: %w", err)
	}
	if err := schema.Validate(&v); err != nil {
		return args, fmt.Errorf("validating \"arguments\": %v", err)
	}
	b, err := json.Marshal(v)
	if err == nil {
		err = json.Unmarshal(b, &args)
	}
	return args, err
}

// UserError turns err into what the model reads: a call whose context
// ended says so (unavailable: cancelled, or out of time), whatever the
// work it stopped returned (SQLite reports a statement it was told to
// stop as an error of its own); otherwise an apperr stays as it is
// ("code: message; hint: next step"), and anything else is logged in full
// and reported without internals, so no SQL or file system detail leaks.
func UserError(ctx context.Context, log *slog.Logger, tool string, err error) error {
	switch ctxErr := ctx.Err(); {
	case errors.Is(ctxErr, context.DeadlineExceeded):
		return apperr.Wrap(err, apperr.Unavailable, "call again with a narrower request, or a longer timeout", "the call ran out of time")
	case ctxErr != nil:
		return apperr.Wrap(err, apperr.Unavailable, "call the tool again", "the call was cancelled")
	}
	if _, ok := errors.AsType[*apperr.Error](err); ok {
		return err
	}
	log.ErrorContext(ctx, "tool failed", "tool", tool, "err", err)
	return apperr.Wrap(err, apperr.Internal, "try again; if it persists, report it with the server log",
		"%s failed inside the server", tool)
}

// ErrorResult is a tool result carrying err, for handlers added raw.
func ErrorResult(err error) *mcp.CallToolResult {
	var r mcp.CallToolResult
	r.SetError(err)
	return &r
}

// readOnly is the annotation set of every tool that only reads: they read
// the local store or files, so they are safe to call again and never reach
// the network.
func readOnly() *mcp.ToolAnnotations {
	// The title is the tool's own, and destructive means nothing for a tool
	// that only reads (MCP says so), so both are left out.
	no := false
	return &mcp.ToolAnnotations{
		ReadOnlyHint:   true,
		IdempotentHint: true,
		OpenWorldHint:  &no,
	}
}

// intRange bounds an integer property and gives it a default.
func intRange(s *jsonschema.Schema, prop string, lo, hi, def int) {
	p := s.Properties[prop]
	p.Minimum, p.Maximum = jsonschema.Ptr(float64(lo)), jsonschema.Ptr(float64(hi))
	if def != 0 {
		p.Default = fmt.Appendf(nil, "%d", def)
	}
}

// nonEmpty requires a string property to have between 1 and max characters.
func nonEmpty(s *jsonschema.Schema, prop string, max int) {
	p := s.Properties[prop]
	p.MinLength, p.MaxLength = jsonschema.Ptr(1), jsonschema.Ptr(max)
}

// maxLen bounds an optional string property.
func maxLen(s *jsonschema.Schema, prop string, max int) {
	s.Properties[prop].MaxLength = jsonschema.Ptr(max)
}

// needing marks every tool of a family with what it needs from Deps.
func needing(needs func(*Deps) bool, tools []Tool) []Tool {
	for i := range tools {
		tools[i].needs = needs
	}
	return tools
}
