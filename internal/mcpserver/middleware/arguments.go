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
	"strconv"
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
//
// The answer is the SDK's result with its content replaced, never a new
// one: the SDK marks a result for a client of protocol 2026-07-28 in a
// field only it can set (resultType, which such clients require), and a
// copy keeps the mark.
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
			tool := toolName(req)
			schema := schemas[tool]
			if schema == nil {
				return res, err
			}
			var args json.RawMessage
			if c, ok := req.(*mcp.CallToolRequest); ok {
				args = c.Params.Arguments
			}
			out := *r
			out.Content, out.StructuredContent = nil, nil
			out.SetError(argumentError(tool, schema, args, r.GetError()))
			return &out, nil
		}
	}
}

var (
	// location is a schema location the validator names; the last one
	// is the deepest, where the value failed.
	location    = regexp.MustCompile(`validating (/[^:]*):`)
	quotedNames = regexp.MustCompile(`"([^"]*)"`)
)

// argumentError turns a validation failure of args, a call of tool, into
// an invalid_argument error that names the argument and what it takes.
// The validator's own words stay in the error's cause, for the log.
func argumentError(tool string, schema *jsonschema.Schema, args json.RawMessage, err error) error {
	msg := err.Error()
	hint := argumentsHint(tool, schema)
	if strings.Contains(msg, "unmarshaling arguments") {
		return apperr.Wrap(err, apperr.InvalidArgument, hint, "arguments must be a JSON object")
	}
	var got any
	json.Unmarshal(args, &got) // it parsed before validation failed
	var path string
	if m := location.FindAllStringSubmatch(msg, -1); m != nil {
		path = m[len(m)-1][1]
	}
	name, prop, value := locate(schema, path, got)
	switch {
	case strings.Contains(msg, "unexpected additional properties"):
		if name == "" {
			return apperr.Wrap(err, apperr.InvalidArgument, hint, "unknown argument %s", quotedList(msg, ""))
		}
		return apperr.Wrap(err, apperr.InvalidArgument, name+" must be "+describe(prop), "unknown field %s in argument %s", quotedList(msg, name+"."), name)
	case strings.Contains(msg, "missing properties"):
		if name == "" {
			return apperr.Wrap(err, apperr.InvalidArgument, hint, "missing required argument %s", quotedList(msg, ""))
		}
		return apperr.Wrap(err, apperr.InvalidArgument, name+" must be "+describe(prop), "missing required field %s in argument %s", quotedList(msg, name+"."), name)
	case name == "":
		return apperr.Wrap(err, apperr.InvalidArgument, hint, "the arguments do not match the tool's input schema")
	}
	return apperr.Wrap(err, apperr.InvalidArgument, name+" must be "+describe(prop), "argument %s: got %s", name, sent(value))
}

// locate follows a schema location ("/properties/budget/properties/time_ms")
// through schema and the arguments sent: the argument's dotted name
// ("budget.time_ms"), its schema and the value sent. It stops at an array's
// items, so a bad item is reported as its array. name is "" for the
// arguments as a whole.
func locate(schema *jsonschema.Schema, path string, args any) (name string, prop *jsonschema.Schema, value any) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	prop, value = schema, args
	for i := 0; i+1 < len(segs) && segs[i] == "properties"; i += 2 {
		next := prop.Properties[segs[i+1]]
		if next == nil {
			break
		}
		if name != "" {
			name += "."
		}
		name, prop = name+segs[i+1], next
		obj, _ := value.(map[string]any)
		value = obj[segs[i+1]]
	}
	return name, prop, value
}

// argumentsHint lists a tool's arguments: "arguments: query (required),
// limit, …", or says it takes none.
func argumentsHint(tool string, s *jsonschema.Schema) string {
	if len(s.Properties) == 0 {
		return tool + " takes no arguments: send {} or leave arguments out"
	}
	return "arguments: " + describeArgs(s)
}

// sent shows a value a caller sent, short: a 1 MB argument is measured, not
// echoed.
func sent(v any) string {
	const show = 40
	if str, ok := v.(string); ok {
		if r := []rune(str); len(r) > show {
			return fmt.Sprintf("a string of %d characters (%q…)", len(r), string(r[:show]))
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "a value that is not JSON"
	}
	if r := []rune(string(b)); len(r) > show {
		return string(r[:show]) + "…"
	}
	return string(b)
}

// quotedList is the names a validator message quotes, each with prefix:
// `"budget.bogus"`.
func quotedList(msg, prefix string) string {
	var names []string
	for _, m := range quotedNames.FindAllStringSubmatch(msg, -1) {
		if m[1] != "arguments" {
			names = append(names, strconv.Quote(prefix+m[1]))
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
	switch {
	case len(p.Enum) > 0:
		b.WriteString("one of ")
		for i, v := range p.Enum {
			if i > 0 {
				b.WriteString(", ")
			}
			e, _ := json.Marshal(v)
			b.Write(e)
		}
	case typ == "integer" || typ == "number":
		b.WriteString("an " + typ)
		switch {
		case p.Minimum != nil && p.Maximum != nil:
			fmt.Fprintf(&b, " from %s to %s", number(*p.Minimum), number(*p.Maximum))
		case p.Minimum != nil:
			fmt.Fprintf(&b, " of at least %s", number(*p.Minimum))
		case p.Maximum != nil:
			fmt.Fprintf(&b, " of at most %s", number(*p.Maximum))
		}
	case typ == "string":
		b.WriteString("a string")
		b.WriteString(lengths(p, "character"))
	case typ == "array":
		b.WriteString("an array")
		if p.MaxItems != nil {
			fmt.Fprintf(&b, " of at most %d", *p.MaxItems)
		}
		if p.Items != nil {
			b.WriteString(" items, each " + describe(p.Items))
		}
	case typ == "boolean":
		b.WriteString("true or false")
	case typ == "object" && len(p.Properties) > 0:
		b.WriteString("an object of " + describeArgs(p))
	case typ == "object":
		b.WriteString("an object")
	case typ == "":
		b.WriteString("any JSON value")
	default:
		b.WriteString("a " + typ)
	}
	if len(p.Default) > 0 {
		fmt.Fprintf(&b, " (default %s)", p.Default)
	}
	return b.String()
}

// number writes a bound as a person would: 600000, not 6e+05.
func number(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func lengths(p *jsonschema.Schema, unit string) string {
	switch {
	case p.MinLength != nil && p.MaxLength != nil:
		return fmt.Sprintf(" of %d to %d %ss", *p.MinLength, *p.MaxLength, unit)
	case p.MaxLength != nil:
		return fmt.Sprintf(" of at most %d %ss", *p.MaxLength, unit)
	case p.MinLength != nil:
		return fmt.Sprintf(" of at least %d %ss", *p.MinLength, unit)
	}
	return ""
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
