// Package tools declares langspec's MCP tools as values and builds the server
// that serves them. A handler checks nothing the schema already checks, calls
// the same function the CLI calls (search, plan), and returns the result
// twice: as structured content, and as compact text for clients that show
// only text.
package tools

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/catalog"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/manual"
	"github.com/langspec/langspec/internal/manual/find"
	"github.com/langspec/langspec/internal/vault"
)

// Deps is what the tools need. Nothing in this package is global: every
// server gets its own Deps, so tests run servers side by side.
type Deps struct {
	Store   *db.DB
	Vault   *vault.Vault    // nil serves no vault tools
	Manuals *manual.Library // serves the manual tools, and with Vault the bridge tools
	// Finder runs manual_find; nil builds one over Store and Manuals with
	// no synonym dictionary and fixed thresholds.
	Finder *find.Finder
	// Mask hides built-in tools (as category/tool) from a flat listing; in
	// categories mode the category layer applies it instead.
	Mask    catalog.Mask
	Logger  *slog.Logger
	Version string // reported as the server version in initialize
}

// Tool is one MCP tool: its definition (name, title, description,
// annotations, input schema), the category it belongs to, and a way to add it
// to a server with its typed handler.
type Tool struct {
	Def      *mcp.Tool
	Category string
	add      func(*mcp.Server, *slog.Logger)
}

// Categories of tools.
const (
	CategorySpec = "spec"
)

// handler is a tool's logic: typed arguments in, typed result out.
type handler[In, Out any] func(context.Context, In) (Out, error)

// newTool makes a Tool from a typed handler. The input schema is inferred
// from In, then shape adds what struct tags cannot say (bounds, defaults);
// the output schema is inferred from Out by the SDK. render turns a result
// into the text content.
func newTool[In, Out any](category string, def mcp.Tool, shape func(*jsonschema.Schema), h handler[In, Out], render func(Out) string) Tool {
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
	return Tool{
		Def:      &def,
		Category: category,
		add: func(s *mcp.Server, log *slog.Logger) {
			mcp.AddTool(s, &def, func(ctx context.Context, _ *mcp.CallToolRequest, args In) (*mcp.CallToolResult, Out, error) {
				out, err := h(ctx, args)
				if err != nil {
					var zero Out
					return nil, zero, userError(ctx, log, def.Name, err)
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: render(out)}}}, out, nil
			})
		},
	}
}

// userError turns err into what the model reads: an apperr stays as it is
// ("code: message; hint: next step"); anything else is logged in full and
// reported without internals, so no SQL or file system detail leaks.
func userError(ctx context.Context, log *slog.Logger, tool string, err error) error {
	if _, ok := errors.AsType[*apperr.Error](err); ok {
		return err
	}
	if ctx.Err() != nil {
		return apperr.Wrap(err, apperr.Unavailable, "call the tool again", "the call was cancelled")
	}
	log.Error("tool failed", "tool", tool, "err", err)
	return apperr.Wrap(err, apperr.Internal, "try again; if it persists, report it with the server log",
		"%s failed inside the server", tool)
}

// readOnly is the annotation set of every spec tool: they read the local
// store, so they are safe to call again and never reach the network.
func readOnly(title string) *mcp.ToolAnnotations {
	no := false
	return &mcp.ToolAnnotations{
		Title:           title,
		ReadOnlyHint:    true,
		IdempotentHint:  true,
		DestructiveHint: &no,
		OpenWorldHint:   &no,
	}
}

// logCalls writes one line per tool call: the tool, how long it took, and
// how it ended (ok, error with its code, or a protocol error such as an
// unknown tool).
func logCalls(log *slog.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/call" {
				return next(ctx, method, req)
			}
			start := time.Now()
			res, err := next(ctx, method, req)
			attrs := []any{"tool", toolName(req), "ms", float64(time.Since(start).Microseconds()) / 1000}
			level := slog.LevelInfo
			switch r, _ := res.(*mcp.CallToolResult); {
			case err != nil:
				level = slog.LevelWarn
				attrs = append(attrs, "outcome", "protocol_error", "err", err)
			case r != nil && r.IsError:
				level = slog.LevelWarn
				attrs = append(attrs, "outcome", "error", "code", errorCode(r.GetError()), "err", r.GetError())
			default:
				attrs = append(attrs, "outcome", "ok")
			}
			log.Log(ctx, level, "tool call", attrs...)
			return res, err
		}
	}
}

func toolName(req mcp.Request) string {
	if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil {
		return r.Params.Name
	}
	return ""
}

// errorCode is the apperr code of err; errors the SDK makes itself are all
// argument validation failures.
func errorCode(err error) apperr.Code {
	if _, ok := errors.AsType[*apperr.Error](err); ok {
		return apperr.CodeOf(err)
	}
	return apperr.InvalidArgument
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
