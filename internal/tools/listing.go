package tools

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// A tool's listing is paid for in the model's context on every turn, so
// tools/list shows each schema without what only a validator needs: the
// server still checks every call against the full input schema (decodeArgs)
// and the tests check every result against the output schema as listed
// (toolstest). What a model reads stays: names, types, descriptions of the
// arguments, defaults and the bounds it must respect.

// minListedMaxLength is the shortest maxLength a listing keeps: longer
// limits (200 characters for a name, 1,000 for a query) guard the server,
// and no model writes an argument near them.
const minListedMaxLength = 200

// listedSchema is s as tools/list shows it. For an input schema it drops
// guard rails (trimSchema); an output schema is listed as an object and
// the names of its fields, which a model needs to refer to a field (batch's
// ${id.results[0].section_id}). The model reads results, not their schema,
// and the full schema is what the tests check every result against
// (toolstest).
func listedSchema(s *jsonschema.Schema, output bool) json.RawMessage {
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("listing a schema: %v", err)) // schemas are built at init from Go types
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		panic(fmt.Sprintf("listing a schema: %v", err))
	}
	if output {
		m = topLevel(m)
	} else {
		trimSchema(m)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		panic(fmt.Sprintf("listing a schema: %v", err))
	}
	return json.RawMessage(bytes.TrimRight(buf.Bytes(), "\n"))
}

// topLevel is an output schema's object with its properties' names, each
// allowing any value.
func topLevel(m map[string]any) map[string]any {
	out := map[string]any{"type": m["type"]}
	if props, ok := m["properties"].(map[string]any); ok {
		listed := map[string]any{}
		for name := range props {
			listed[name] = map[string]any{}
		}
		out["properties"] = listed
	}
	return out
}

// trimSchema trims one input schema object and those inside it: the
// guard rails go (additionalProperties: false, long maxLengths, a minLength
// of 1 on what is required anyway), and an optional argument's type is
// listed without the null a Go nil slice or pointer also accepts.
func trimSchema(m map[string]any) {
	if ap, ok := m["additionalProperties"].(bool); ok && !ap {
		delete(m, "additionalProperties")
	}
	if n, ok := m["maxLength"].(float64); ok && n >= minListedMaxLength {
		delete(m, "maxLength")
	}
	if n, ok := m["minLength"].(float64); ok && n == 1 {
		delete(m, "minLength")
	}
	if types, ok := m["type"].([]any); ok && len(types) == 2 && types[0] == "null" {
		m["type"] = types[1]
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for _, p := range props {
			if pm, ok := p.(map[string]any); ok {
				trimSchema(pm)
			}
		}
	}
	if sub, ok := m["items"].(map[string]any); ok {
		trimSchema(sub)
	}
}
