package tools

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// A tool's listing is paid for in the model's context on every turn, so
// tools/list shows each schema without what only a validator needs: the
// server still checks every call against the full input schema (decodeArgs)
// and the tests check every result against the full output schema
// (toolstest). What a model reads stays: names, types, descriptions of the
// arguments, defaults and the bounds it must respect.
//
// The listed schemas are made once, when the tool table is built, on the
// schema values themselves: a JSON round trip of 48 schemas cost 5 ms of
// every server start (BenchmarkServeColdStart).

// minListedMaxLength is the shortest maxLength a listing keeps: longer
// limits (200 characters for a name, 1,000 for a query) guard the server,
// and no model writes an argument near them.
const minListedMaxLength = 200

// listedInput is an input schema as tools/list shows it (trimInput).
func listedInput(s *jsonschema.Schema) *jsonschema.Schema {
	c := s.CloneSchemas()
	trimInput(c)
	return c
}

// trimInput trims one input schema and those inside it: the guard rails go
// (additionalProperties: false, long maxLengths, a minLength of 1 on what
// is required anyway), and an optional argument's type is listed without
// the null a Go nil slice or pointer also accepts.
func trimInput(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if isFalseSchema(s.AdditionalProperties) {
		s.AdditionalProperties = nil
	}
	if s.MaxLength != nil && *s.MaxLength >= minListedMaxLength {
		s.MaxLength = nil
	}
	if s.MinLength != nil && *s.MinLength == 1 {
		s.MinLength = nil
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	for _, p := range s.Properties {
		trimInput(p)
	}
	trimInput(s.Items)
}

// isFalseSchema reports whether s is the schema false (nothing matches),
// as jsonschema.For writes additionalProperties: false.
func isFalseSchema(s *jsonschema.Schema) bool {
	if s == nil || s.Not == nil {
		return false
	}
	rest := *s
	rest.Not = nil
	return isEmptySchema(&rest) && isEmptySchema(s.Not)
}

// isEmptySchema reports whether s constrains nothing.
func isEmptySchema(s *jsonschema.Schema) bool {
	b, err := s.MarshalJSON()
	return err == nil && (string(b) == "{}" || string(b) == "true")
}

// listedOutput is an output schema as tools/list shows it: an object and
// the names of its fields, each the empty schema {}. A model needs the
// names to refer to a field (batch's ${id.results[0].section_id}); it reads
// results, not their schema. Each field is written {} (an object that
// allows any value), never the boolean schema true, which jsonschema-go
// writes for an empty Schema: the MCP schema types a property as an
// object, and clients built on the TypeScript SDK (1.32.2) refuse the
// whole listing otherwise. {} is also the shortest schema that says
// nothing, and every result valid against the full schema is valid
// against it.
func listedOutput(s *jsonschema.Schema) json.RawMessage {
	listed := map[string]any{}
	if s.Type != "" {
		listed["type"] = s.Type
	} else if len(s.Types) > 0 {
		listed["type"] = s.Types
	}
	if len(s.Properties) > 0 {
		props := make(map[string]struct{}, len(s.Properties))
		for name := range s.Properties {
			props[name] = struct{}{}
		}
		listed["properties"] = props
	}
	b, err := json.Marshal(listed)
	if err != nil {
		panic(fmt.Sprintf("listing an output schema: %v", err)) // strings and a map of them always marshal
	}
	return b
}
