package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/catalog"
	"github.com/langspec/langspec/internal/tools/toolstest"
)

// The JSON Schema keywords whose value is a schema, and those whose value
// maps names to schemas. additionalProperties is not among them: its
// true and false are what every SDK and validator reads as a switch (an
// object of any further fields, or none), and the MCP schema leaves it
// alone.
var (
	schemaValued = []string{"items", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems"}
	schemaMaps   = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)

// booleanSchemas lists the places in a schema where a boolean stands for a
// schema. JSON Schema allows them; the MCP schema types a property as an
// object, and the TypeScript SDK (1.32.2) refuses a whole tools/list that
// has one, so none may be listed.
func booleanSchemas(v any, at string) []string {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	var out []string
	check := func(x any, where string) {
		if _, isBool := x.(bool); isBool {
			out = append(out, where)
			return
		}
		out = append(out, booleanSchemas(x, where)...)
	}
	for _, k := range schemaValued {
		if x, ok := m[k]; ok {
			check(x, at+"."+k)
		}
	}
	for _, k := range schemaMaps {
		if props, ok := m[k].(map[string]any); ok {
			for name, x := range props {
				check(x, fmt.Sprintf("%s.%s.%s", at, k, name))
			}
		}
	}
	for _, k := range []string{"anyOf", "allOf", "oneOf", "prefixItems"} {
		if list, ok := m[k].([]any); ok {
			for i, x := range list {
				check(x, fmt.Sprintf("%s.%s[%d]", at, k, i))
			}
		}
	}
	return out
}

// TestListingHasNoBooleanSchemas: every schema tools/list shows, in both
// modes, is an object schema all the way down.
func TestListingHasNoBooleanSchemas(t *testing.T) {
	ctx := context.Background()
	d := allToolsDeps(t)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	categories, err := Build(cctx, *d, Options{Mode: ModeCategories, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for mode, cs := range map[string]*mcp.ClientSession{
		"flat":       toolstest.Connect(t, NewFlat(d, "test", catalog.Mask{})),
		"categories": toolstest.Connect(t, categories),
	} {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The client keeps the schemas as the server sent them (any).
		raw, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		var listing struct {
			Tools []map[string]any `json:"tools"`
		}
		if err := json.Unmarshal(raw, &listing); err != nil {
			t.Fatal(err)
		}
		for _, tool := range listing.Tools {
			for _, key := range []string{"inputSchema", "outputSchema"} {
				if s, ok := tool[key]; ok {
					if bad := booleanSchemas(s, fmt.Sprint(tool["name"], ".", key)); len(bad) > 0 {
						t.Errorf("%s: boolean schemas at %v", mode, bad)
					}
				}
			}
		}
	}
	// The test itself: a boolean property is caught.
	if bad := booleanSchemas(map[string]any{"properties": map[string]any{"x": true}}, "s"); len(bad) != 1 {
		t.Errorf("booleanSchemas missed a boolean property: %v", bad)
	}
}
