package tools

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

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

// listedOutput is an output schema as tools/list shows it: an object, each
// of its fields with its JSON type, and which fields every result has
// (required). A model reads the names (batch's ${id.results[0].section_id})
// and the types; a client's validator (the TypeScript SDK's ajv, the
// Inspector, an SDK's own check of structuredContent) checks that a result
// has every required field and each field's type. What lies below the top
// level stays open (a field typed "object" or "array" says no more) and
// the descriptions stay in the full schema: listing them, or the items'
// types, would take the flat listing past 30 KB (TestListingBytes in
// internal/mcpserver).
//
// A field is written {"type": …} or, untyped, {} — never the boolean schema
// true, which jsonschema-go writes for an empty Schema: the MCP schema
// types a property as an object, and clients built on the TypeScript SDK
// (1.32.2) refuse the whole listing otherwise.
//
// jsonschema-go types a slice or pointer field ["null", T], as Go writes
// nil as null. The listing says T, one type, which every client maps (the
// Inspector warns about a list of types: OpenAPI-style dialects take one)
// and which is what a model should send on, where no result is null: an
// optional field (omitempty or omitzero, which is what makes it optional
// in the inferred schema) is left out when nil, and a required slice or
// map is sent empty instead of nil (nonNil, emptyNils). Only a required
// pointer would keep its null; no result type has one, and
// TestListedOutputSchemas wants one type per field.
//
// Every result valid against the full schema, made non-nil, is valid
// against this one (TestListedOutputSchemas,
// TestResultsMatchListedOutputSchemas).
//
// filled names the required fields that are never null (nonNil).
func listedOutput(s *jsonschema.Schema, filled []string) json.RawMessage {
	listed := listedSchema{Type: schemaType(s, true), Required: s.Required}
	if len(s.Properties) > 0 {
		listed.Properties = make(map[string]listedProperty, len(s.Properties))
		for name, p := range s.Properties {
			nullable := slices.Contains(s.Required, name) && !slices.Contains(filled, name)
			listed.Properties[name] = listedProperty{Type: schemaType(p, nullable)}
		}
	}
	b, err := json.Marshal(listed)
	if err != nil {
		panic(fmt.Sprintf("listing an output schema: %v", err)) // strings and maps of them always marshal
	}
	return b
}

// listedSchema is the top level of a listed output schema.
type listedSchema struct {
	Type       any                       `json:"type,omitempty"`
	Properties map[string]listedProperty `json:"properties,omitempty"`
	Required   []string                  `json:"required,omitempty"`
}

// listedProperty is a field of a listed output schema: its type, or {}.
type listedProperty struct {
	Type any `json:"type,omitempty"`
}

// schemaType is s's type as a listing writes it: a string, a list of
// types, or nil for none. Unless nullable, null is dropped from a list.
func schemaType(s *jsonschema.Schema, nullable bool) any {
	if s.Type != "" {
		return s.Type
	}
	types := s.Types
	if !nullable {
		types = slices.DeleteFunc(slices.Clone(types), func(t string) bool { return t == "null" })
	}
	switch len(types) {
	case 0:
		return nil
	case 1:
		return types[0]
	}
	return types
}

// nilField is a top-level field of a result type that encoding/json
// writes as null when nil: a slice or map without omitempty or omitzero.
type nilField struct {
	index []int  // for reflect.Value.FieldByIndex, through embedded structs
	name  string // its JSON name
}

// nonNil finds the nilFields of a result type, once per tool: the fields
// emptyNils fills, whose null the listing leaves out. A type with its own
// MarshalJSON has none: what it writes is its own.
func nonNil(t reflect.Type) []nilField {
	if t.Kind() != reflect.Struct || t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) {
		return nil
	}
	var out []nilField
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous || len(f.Index) > 1 && !embeddedByValue(t, f.Index) {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch k := f.Type.Kind(); {
		case name == "-" && opts == "", k != reflect.Slice && k != reflect.Map:
			continue
		case k == reflect.Slice && f.Type.Elem().Kind() == reflect.Uint8:
			continue // []byte: encoding/json writes a string, jsonschema-go infers an array
		}
		if slices.ContainsFunc(strings.Split(opts, ","), func(o string) bool { return o == "omitempty" || o == "omitzero" }) {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, nilField{index: f.Index, name: name})
	}
	return out
}

var marshalerType = reflect.TypeFor[json.Marshaler]()

// embeddedByValue reports whether the field at index is reached through
// embedded structs only, never a pointer, so FieldByIndex cannot meet nil.
func embeddedByValue(t reflect.Type, index []int) bool {
	for _, i := range index[:len(index)-1] {
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); !f.Anonymous || f.Type.Kind() != reflect.Struct || name != "" {
			return false // a pointer, or a struct encoding/json writes as one field
		}
		t = f.Type
	}
	return true
}

// emptyNils makes each of fields of *v that is nil empty, so a result
// sends [] or {} where its listing promises an array or an object.
func emptyNils[T any](v *T, fields []nilField) {
	if len(fields) == 0 {
		return
	}
	rv := reflect.ValueOf(v).Elem()
	for _, f := range fields {
		fv := rv.FieldByIndex(f.index)
		if !fv.IsNil() {
			continue
		}
		if fv.Kind() == reflect.Map {
			fv.Set(reflect.MakeMap(fv.Type()))
		} else {
			fv.Set(reflect.MakeSlice(fv.Type(), 0, 0))
		}
	}
}

// nilFieldNames are the JSON names of fields.
func nilFieldNames(fields []nilField) []string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
	}
	return names
}
