// Package middleware holds what langspec wraps around every MCP request it
// receives: argument errors rewritten in our words, and one log line per tool
// call. Both servers (flat and categories) use them.
package middleware

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/apperr"
)

// The SDK checks arguments against the input schema before a handler runs and
// reports failures in the validator's words ("validating root: validating
// /properties/limit: maximum: 99/1 is greater than 50.000000"). ExplainArgs
// rewrites those results as our errors: which argument was wrong, and what
// the schema allows.
func ExplainArgs(schemas map[string]*jsonschema.Schema) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			r, ok := res.(*mcp.CallToolResult)
			if err != nil || !ok || !r.IsError || r.GetError() == nil {
				return res, err
			}
			if _, ours := errors.AsType[*apperr.Error](r.GetError()); ours {
				return res, err
			}
			schema := schemas[toolName(req)]
			if schema == nil {
				return res, err
			}
			var out mcp.CallToolResult
			var args json.RawMessage
			if c, ok := req.(*mcp.CallToolRequest); ok {
				args = c.Params.Arguments
			}
			out.SetError(argumentError(schema, args, r.GetError()))
			return &out, nil
		}
	}
}

var (
	propertyPath = regexp.MustCompile(`/properties/([A-Za-z0-9_]+)`)
	quotedNames  = regexp.MustCompile(`"([^"]*)"`)
)

// argumentError turns a validation failure of args into an invalid_argument
// error.
func argumentError(schema *jsonschema.Schema, args json.RawMessage, err error) error {
	msg := err.Error()
	hint := "arguments: " + describeArgs(schema)
	switch {
	case strings.Contains(msg, "unexpected additional properties"):
		return apperr.Wrap(err, apperr.InvalidArgument, hint, "unknown argument %s", quotedList(msg))
	case strings.Contains(msg, "missing properties"):
		return apperr.Wrap(err, apperr.InvalidArgument, hint, "missing required argument %s", quotedList(msg))
	case strings.Contains(msg, "unmarshaling arguments"):
		return apperr.Wrap(err, apperr.InvalidArgument, hint, "arguments must be a JSON object")
	}
	m := propertyPath.FindStringSubmatch(msg)
	if m == nil || schema.Properties[m[1]] == nil {
		return apperr.Wrap(err, apperr.InvalidArgument, hint, "invalid arguments: %s", msg)
	}
	name := m[1]
	var got map[string]json.RawMessage
	json.Unmarshal(args, &got) // it parsed before validation failed
	return apperr.Wrap(err, apperr.InvalidArgument, name+" must be "+describe(schema.Properties[name]),
		"argument %s: got %s", name, sent(got[name]))
}

// sent shows a value a caller sent, short: a 1 MB argument is measured, not
// echoed.
func sent(v json.RawMessage) string {
	const show = 40
	var str string
	if json.Unmarshal(v, &str) == nil {
		if r := []rune(str); len(r) > show {
			return fmt.Sprintf("a string of %d characters (%q…)", len(r), string(r[:show]))
		}
		return string(v)
	}
	if r := []rune(string(v)); len(r) > show {
		return string(r[:show]) + "…"
	}
	return string(v)
}

func quotedList(msg string) string {
	var names []string
	for _, m := range quotedNames.FindAllStringSubmatch(msg, -1) {
		if m[1] != "arguments" {
			names = append(names, `"`+m[1]+`"`)
		}
	}
	return strings.Join(names, ", ")
}

// describeArgs lists a tool's arguments: "query (required), limit, …".
func describeArgs(s *jsonschema.Schema) string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		if slices.Contains(s.Required, name) {
			name += " (required)"
		}
		parts = append(parts, name)
	}
	// Required first: they are what a caller must not forget.
	slices.SortStableFunc(parts, func(a, b string) int {
		return boolInt(strings.HasSuffix(b, "(required)")) - boolInt(strings.HasSuffix(a, "(required)"))
	})
	return strings.Join(parts, ", ")
}

// describe says in words what a property's schema allows.
func describe(p *jsonschema.Schema) string {
	var b strings.Builder
	typ := p.Type
	if typ == "" {
		for _, t := range p.Types {
			if t != "null" {
				typ = t
			}
		}
	}
	switch typ {
	case "integer", "number":
		b.WriteString("an " + typ)
		switch {
		case p.Minimum != nil && p.Maximum != nil:
			fmt.Fprintf(&b, " from %g to %g", *p.Minimum, *p.Maximum)
		case p.Minimum != nil:
			fmt.Fprintf(&b, " of at least %g", *p.Minimum)
		}
	case "string":
		b.WriteString("a string")
		b.WriteString(lengths(p, "character"))
	case "array":
		b.WriteString("an array")
		if p.MaxItems != nil {
			fmt.Fprintf(&b, " of at most %d", *p.MaxItems)
		}
		if p.Items != nil {
			b.WriteString(" items, each " + describe(p.Items))
		}
	case "boolean":
		b.WriteString("true or false")
	default:
		b.WriteString("a " + typ)
	}
	if len(p.Default) > 0 {
		fmt.Fprintf(&b, " (default %s)", p.Default)
	}
	return b.String()
}

func lengths(p *jsonschema.Schema, unit string) string {
	switch {
	case p.MinLength != nil && p.MaxLength != nil:
		return fmt.Sprintf(" of %d to %d %ss", *p.MinLength, *p.MaxLength, unit)
	case p.MaxLength != nil:
		return fmt.Sprintf(" of at most %d %ss", *p.MaxLength, unit)
	}
	return ""
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
