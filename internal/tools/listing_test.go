package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/catalog"
	"github.com/langspec/langspec/internal/catalog/upstream"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest"
	"github.com/langspec/langspec/internal/tools/toolstest"
)

// TestListedOutputSchemas: every tool's listed output schema is an object
// schema that names each field of the full one with one type, the full
// schema's less null, and the same required fields, each field written as
// an object ({"type": …} or {}), never the boolean true. It resolves as
// JSON Schema 2020-12. A required field's null is left out only where a
// result never has it: the zero result (what a handler returning Out's
// zero value sends) has a value there, and keeps both schemas.
func TestListedOutputSchemas(t *testing.T) {
	checked := 0
	for _, tool := range Inventory() {
		if tool.out == nil {
			continue
		}
		checked++
		t.Run(tool.Def.Name, func(t *testing.T) {
			full := tool.out
			var raw struct {
				Type       any                        `json:"type"`
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			}
			if err := json.Unmarshal(tool.listedOut, &raw); err != nil {
				t.Fatalf("listed %s: %v", tool.listedOut, err)
			}
			if raw.Type != "object" {
				t.Errorf("type %v, want object", raw.Type)
			}
			if got, want := slices.Sorted(maps.Keys(raw.Properties)), slices.Sorted(maps.Keys(full.Properties)); !slices.Equal(got, want) {
				t.Errorf("properties %v, want %v", got, want)
			}
			if !slices.Equal(raw.Required, full.Required) {
				t.Errorf("required %v, want the full schema's %v", raw.Required, full.Required)
			}
			zero, _ := remarshalAny(t, tool.zeroOut).(map[string]any)
			for name, p := range raw.Properties {
				var prop struct {
					Type any `json:"type"`
				}
				if err := json.Unmarshal(p, &prop); err != nil {
					t.Errorf("%s is %s, not an object schema: %v", name, p, err)
					continue
				}
				fp := full.Properties[name]
				if fp == nil {
					continue
				}
				want := fp.Types
				if fp.Type != "" {
					want = []string{fp.Type}
				}
				want = slices.DeleteFunc(slices.Clone(want), func(s string) bool { return s == "null" })
				got, isString := prop.Type.(string)
				if !isString || !slices.Equal([]string{got}, want) {
					t.Errorf("%s: type %v, want one type, %v", name, prop.Type, want)
				}
				if slices.Contains(full.Required, name) && zero[name] == nil {
					t.Errorf("%s is required and null in the zero result, but not listed as nullable", name)
				}
			}
			for what, schema := range map[string]*jsonschema.Resolved{"listed": resolveListed(t, tool.listedOut), "full": resolveFull(t, full)} {
				v := remarshalAny(t, tool.zeroOut)
				if err := schema.Validate(&v); err != nil {
					t.Errorf("the zero result %s breaks the %s schema: %v", mustJSON(t, v), what, err)
				}
			}
		})
	}
	if checked < 25 {
		t.Errorf("only %d tools have an output schema", checked)
	}
}

// TestResultsMatchListedOutputSchemas calls every tool once on the fixtures
// (the flat listing's, then the meta tools over a catalog of them) and
// checks its structured result against the output schema as the client
// received it in tools/list, as a strict client (an SDK, ajv, the
// Inspector) does. The listed schema must check something: the result less
// a required field, or with a field of a type the full schema does not
// allow, must fail it.
func TestResultsMatchListedOutputSchemas(t *testing.T) {
	store, lib := mustOpenDB(t), mustOpenManuals(t)
	ingestOlderGoSpec(t, store) // for spec_diff
	d := Deps{Store: store, Vault: mustOpenVault(t), Manuals: lib, Finder: toolstest.Finder(store, lib)}
	flat, _ := connectDeps(t, d)
	const note = "notes/probe.md"
	var traceID string
	called := map[string]bool{}
	calls := []struct {
		tool string
		args func() map[string]any
	}{
		{"list_languages", nil},
		{"list_versions", func() map[string]any { return map[string]any{"language": "go"} }},
		{"search_spec", func() map[string]any { return map[string]any{"query": "slice expressions"} }},
		{"get_section", func() map[string]any { return map[string]any{"language": "go", "section_id": "Slice_expressions"} }},
		{"build_learning_plan", func() map[string]any { return map[string]any{"language": "go"} }},
		{"compare", func() map[string]any {
			return map[string]any{"concept": "integer overflow", "also": []string{"wrap around"}}
		}},
		{"spec_diff", func() map[string]any { return map[string]any{"language": "go"} }},
		{"vault_create", func() map[string]any {
			return map[string]any{"path": note, "content": "# Probe\nslice expressions, a note\n"}
		}},
		{"vault_write", func() map[string]any {
			return map[string]any{"path": note, "content": "Maps are references.\n", "mode": "append"}
		}},
		{"vault_replace", func() map[string]any { return map[string]any{"path": note, "old": "Probe", "new": "Sample"} }},
		{"vault_ls", nil},
		{"vault_read", func() map[string]any { return map[string]any{"path": note} }},
		{"vault_scan", func() map[string]any { return map[string]any{"path": note} }},
		{"vault_coverage", func() map[string]any { return map[string]any{"path": note} }},
		{"vault_search", func() map[string]any { return map[string]any{"query": "slice"} }},
		{"vault_find", func() map[string]any { return map[string]any{"query": "slice expressions"} }},
		{"artifact_audit", nil},
		{"manual_list", nil},
		{"manual_ls", func() map[string]any { return map[string]any{"manual_id": "ops-en"} }},
		{"manual_toc", func() map[string]any { return map[string]any{"manual_id": "ops-en", "path": "runbooks/db/failover.md"} }},
		{"manual_read", func() map[string]any {
			return map[string]any{"manual_id": "ops-en", "path": "runbooks/db/failover.md", "scope": "file"}
		}},
		{"manual_excepts", func() map[string]any { return map[string]any{"manual_id": "ops-en", "query": "failover"} }},
		{"manual_find", func() map[string]any { return map[string]any{"manual_id": "ops-en", "query": "failover"} }},
		{"manual_hits", func() map[string]any { return map[string]any{"trace_id": traceID} }},
		{"bridge_copy_section", func() map[string]any {
			return map[string]any{"manual_id": "insurance-ja", "path": "約款/普通保険約款.md", "node_id": "保険金の支払い/支払いの対象外"}
		}},
		{"bridge_copy_file", func() map[string]any { return map[string]any{"manual_id": "ops-en", "path": "runbooks/db/failover.md"} }},
	}
	listed := listedOutputs(t, flat)
	for _, c := range calls {
		args := map[string]any{}
		if c.args != nil {
			args = c.args()
		}
		res := checkListedResult(t, flat, listed, c.tool, args)
		called[c.tool] = true
		if c.tool == "manual_find" && res != nil {
			var out struct {
				TraceID string `json:"trace_id"`
			}
			remarshal(t, res.StructuredContent, &out)
			traceID = out.TraceID
		}
	}

	// The meta tools, over a catalog whose server "langspec" is the flat
	// server, in process, as package mcpserver builds it.
	mgr := upstream.NewManager(upstream.Options{})
	t.Cleanup(func() { mgr.Close() })
	d.Logger = slog.New(slog.DiscardHandler)
	builtin := newServer(&d)
	if err := mgr.AddTransport(catalog.BuiltinServer, "langspec's own tools", func(ctx context.Context) (mcp.Transport, error) {
		st, ct := mcp.NewInMemoryTransports()
		if _, err := builtin.Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}); err != nil {
		t.Fatal(err)
	}
	md := d
	md.Catalog = &catalog.Catalog{Categories: BuiltinCategories(Available(&d)), Upstreams: mgr}
	ms := mcp.NewServer(&mcp.Implementation{Name: "langspec", Version: "test"}, nil)
	Register(ms, &md, Meta())
	meta := toolstest.Connect(t, ms, OutputSchemas())
	listed = listedOutputs(t, meta)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{GetCategoryTools, map[string]any{"category": CategorySpec}},
		{Batch, map[string]any{"tasks": `{"id":"s","category":"spec","tool":"search_spec","params":{"query":"slices"},"output":true}`}},
	} {
		checkListedResult(t, meta, listed, c.tool, c.args)
		called[c.tool] = true
	}

	for _, tool := range Inventory() {
		if tool.out != nil && !called[tool.Def.Name] {
			t.Errorf("%s: no call in this test; add one", tool.Def.Name)
		}
	}
}

// listedOutputs are the output schemas cs's server lists, resolved as a
// client resolves them.
func listedOutputs(tb testing.TB, cs *mcp.ClientSession) map[string]*jsonschema.Resolved {
	tb.Helper()
	listed := map[string]*jsonschema.Resolved{}
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			tb.Fatal(err)
		}
		if tool.OutputSchema != nil {
			b, err := json.Marshal(tool.OutputSchema)
			if err != nil {
				tb.Fatal(err)
			}
			listed[tool.Name] = resolveListed(tb, b)
		}
	}
	return listed
}

// checkListedResult calls tool and checks its structured result against
// the listed output schema, which must also refuse the result broken
// (brokenResults). It returns the result, nil on an error.
func checkListedResult(t *testing.T, cs *mcp.ClientSession, listed map[string]*jsonschema.Resolved, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res := call(t, cs, tool, args)
	if res.IsError {
		t.Errorf("%s: %s", tool, text(res))
		return nil
	}
	schema := listed[tool]
	if schema == nil {
		t.Errorf("%s: listed without an output schema", tool)
		return res
	}
	result := remarshalAny(t, res.StructuredContent)
	if err := schema.Validate(&result); err != nil {
		t.Errorf("%s: result %.300s does not match the listed output schema: %v", tool, mustJSON(t, result), err)
	}
	broken := brokenResults(result, OutputSchemas()[tool])
	for _, bad := range broken {
		v := any(bad.result)
		if schema.Validate(&v) == nil {
			t.Errorf("%s: the listed output schema accepts a result %s", tool, bad.what)
		}
	}
	if len(broken) == 0 {
		t.Errorf("%s: a result with nothing to break", tool)
	}
	return res
}

// ingestOlderGoSpec stores go1.25 beside the embedded go1.26
// (toolstest.OlderGoSpec), ingested as a user's copy is.
func ingestOlderGoSpec(tb testing.TB, store *db.DB) {
	tb.Helper()
	src, err := ingest.Resolve(nil, "go", "spec")
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := ingest.Ingest(context.Background(), store, src, ingest.Options{From: toolstest.OlderGoSpec(tb, tb.TempDir())}); err != nil {
		tb.Fatal(err)
	}
}

// A brokenResult is a real result made wrong in one way.
type brokenResult struct {
	what   string
	result map[string]any
}

// brokenResults are result with each of its fields in turn replaced by a
// value of a type the full schema s does not allow, then less each field s
// requires in turn: what the full schema rejects at the top level.
func brokenResults(result any, s *jsonschema.Schema) []brokenResult {
	obj, ok := result.(map[string]any)
	if !ok {
		return nil
	}
	var out []brokenResult
	for name := range obj {
		p := s.Properties[name]
		if p == nil {
			continue
		}
		types := p.Types
		if p.Type != "" {
			types = []string{p.Type}
		}
		wrong, ok := wrongValue(types)
		if !ok {
			continue
		}
		m := maps.Clone(obj)
		m[name] = wrong
		out = append(out, brokenResult{fmt.Sprintf("with %s: %#v", name, wrong), m})
	}
	for _, name := range s.Required {
		if _, ok := obj[name]; ok {
			m := maps.Clone(obj)
			delete(m, name)
			out = append(out, brokenResult{"without the required " + name, m})
		}
	}
	return out
}

// wrongValue is a JSON value of none of types; false for a field of any
// type.
func wrongValue(types []string) (any, bool) {
	if len(types) == 0 {
		return nil, false
	}
	for _, c := range []struct {
		v    any
		kind string
	}{{"x", "string"}, {true, "boolean"}, {1.5, "number"}, {[]any{}, "array"}, {map[string]any{}, "object"}, {nil, "null"}} {
		if !slices.Contains(types, c.kind) {
			return c.v, true
		}
	}
	return nil, false
}

// resolveListed resolves a listed output schema as a client would.
func resolveListed(tb testing.TB, raw []byte) *jsonschema.Resolved {
	tb.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		tb.Fatalf("listed schema %s: %v", raw, err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		tb.Fatalf("listed schema %s: %v", raw, err)
	}
	return r
}

// resolveFull resolves a full output schema.
func resolveFull(tb testing.TB, s *jsonschema.Schema) *jsonschema.Resolved {
	tb.Helper()
	r, err := s.Resolve(nil)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// remarshalAny is v as a client decodes it: maps, slices and float64s.
func remarshalAny(tb testing.TB, v any) any {
	tb.Helper()
	var out any
	remarshal(tb, v, &out)
	return out
}

// TestNilsSentEmpty: a handler's nil slices and maps go out as [] and {}
// where the listing types them array and object without null, and
// optional ones are left out; the listing says so.
func TestNilsSentEmpty(t *testing.T) {
	type Inner struct {
		Promoted []string `json:"promoted" jsonschema:"a slice of an embedded struct"`
	}
	type Out struct {
		Inner
		List     []int          `json:"list" jsonschema:"required slice"`
		Map      map[string]int `json:"map" jsonschema:"required map"`
		Optional []int          `json:"optional,omitempty" jsonschema:"optional slice"`
		Zero     []int          `json:"zero,omitzero" jsonschema:"optional slice"`
		Pointer  *Inner         `json:"pointer" jsonschema:"required pointer"`
	}
	type In struct{}
	tool := newTool(CategorySpec, func(*Deps) struct{} { return struct{}{} }, mcp.Tool{Name: "nils", Annotations: readOnly()}, nil,
		func(struct{}, context.Context, In) (Out, error) { return Out{}, nil }, func(Out) string { return "" })
	var listed struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(tool.listedOut, &listed); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]any{"promoted": "array", "list": "array", "map": "object",
		"optional": "array", "zero": "array", "pointer": []any{"null", "object"}} {
		if got := listed.Properties[name]["type"]; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s listed as %v, want %v", name, got, want)
		}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	Register(s, &Deps{}, []Tool{tool})
	cs := toolstest.Connect(t, s) // checks the result against the listed schema
	res := call(t, cs, "nils", map[string]any{})
	if got, want := mustJSON(t, res.StructuredContent), `{"list":[],"map":{},"pointer":null,"promoted":[]}`; got != want {
		t.Errorf("sent %s, want %s", got, want)
	}
}
