package middleware

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

type budget struct {
	TimeMS int `json:"time_ms,omitempty"`
	Max    int `json:"max,omitempty"`
}

type findIn struct {
	Query  string   `json:"query"`
	Scope  string   `json:"scope,omitempty"`
	Also   []string `json:"also,omitempty"`
	Limit  int      `json:"limit,omitempty"`
	Budget budget   `json:"budget,omitzero"`
}

// findSchema is a tool's input schema with what the validator checks:
// an enum, bounds, an object argument.
func findSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	s, err := jsonschema.For[findIn](nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Properties["scope"].Enum = []any{"file", "section"}
	s.Properties["limit"].Minimum, s.Properties["limit"].Maximum = jsonschema.Ptr(1.0), jsonschema.Ptr(1000000.0)
	s.Properties["limit"].Default = json.RawMessage("10")
	s.Properties["also"].MaxItems = jsonschema.Ptr(4)
	b := s.Properties["budget"]
	b.Properties["time_ms"].Minimum, b.Properties["time_ms"].Maximum = jsonschema.Ptr(1.0), jsonschema.Ptr(600000.0)
	return s
}

// validationError is what the SDK reports for args, as the tools' own
// check words it (tools.decodeArgs).
func validationError(t *testing.T, s *jsonschema.Schema, args string) error {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(args), &v); err != nil {
		t.Fatal(err)
	}
	if _, ok := v.(map[string]any); !ok {
		return fmt.Errorf(`validating "arguments": unmarshaling arguments: json: cannot unmarshal into Go value of type map[string]interface {}`)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Validate(&v); err != nil {
		return fmt.Errorf(`validating "arguments": %v`, err)
	}
	t.Fatalf("%s passed validation", args)
	return nil
}

// TestArgumentError: each failure names the argument (nested ones by
// their path) and says in words what it takes.
func TestArgumentError(t *testing.T) {
	s := findSchema(t)
	for _, tc := range []struct{ args, want string }{
		{`{}`, `invalid_argument: missing required argument "query"; hint: arguments: query (required), also, budget, limit, scope`},
		{`{"query":"x","lang":"go"}`, `invalid_argument: unknown argument "lang"; hint: arguments: query (required), also, budget, limit, scope`},
		{`["x"]`, `invalid_argument: arguments must be a JSON object; hint: arguments: query (required)`},
		{`{"query":"x","scope":"all"}`, `invalid_argument: argument scope: got "all"; hint: scope must be one of "file", "section"`},
		{`{"query":"x","limit":0}`, `invalid_argument: argument limit: got 0; hint: limit must be an integer from 1 to 1000000 (default 10)`},
		{`{"query":"x","also":["a",5]}`, `invalid_argument: argument also: got ["a",5]; hint: also must be an array of at most 4 items, each a string`},
		{`{"query":"x","budget":{"time_ms":0}}`, `invalid_argument: argument budget.time_ms: got 0; hint: budget.time_ms must be an integer from 1 to 600000`},
		{`{"query":"x","budget":{"minutes":1}}`, `invalid_argument: unknown field "budget.minutes" in argument budget; hint: budget must be an object of max, time_ms`},
		{`{"query":"x","budget":5}`, `invalid_argument: argument budget: got 5; hint: budget must be an object of max, time_ms`},
	} {
		got := argumentError("find", s, json.RawMessage(tc.args), validationError(t, s, tc.args)).Error()
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s:\n got %s\nwant %s…", tc.args, got, tc.want)
		}
		if strings.Contains(got, "validating") {
			t.Errorf("%s: the validator's words reach the model: %s", tc.args, got)
		}
	}
}

// TestArgumentErrorNoArguments: a tool without arguments says so, rather
// than listing nothing.
func TestArgumentErrorNoArguments(t *testing.T) {
	s := &jsonschema.Schema{Type: "object", AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
	for _, tc := range []struct{ args, want string }{
		{`{"verbose":true}`, `invalid_argument: unknown argument "verbose"; hint: list_languages takes no arguments: send {} or leave arguments out`},
		{`[1]`, `invalid_argument: arguments must be a JSON object; hint: list_languages takes no arguments: send {} or leave arguments out`},
	} {
		if got := argumentError("list_languages", s, json.RawMessage(tc.args), validationError(t, s, tc.args)).Error(); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.args, got, tc.want)
		}
	}
}
