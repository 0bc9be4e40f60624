package batch

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/apperr"
)

// tl writes one task line with the given extra fields.
func tl(id, extra string) string {
	s := fmt.Sprintf(`{"id":%q,"category":"spec","tool":"search_spec"`, id)
	if extra != "" {
		s += "," + extra
	}
	return s + "}"
}

func lines(ls ...string) string { return strings.Join(ls, "\n") }

func mustParse(t *testing.T, ls ...string) []Task {
	t.Helper()
	tasks, err := Parse(lines(ls...))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return tasks
}

func TestParse(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []Task
	}{
		{
			name:  "defaults",
			input: tl("a", ""),
			want:  []Task{{ID: "a", Category: "spec", Tool: "search_spec", Params: map[string]any{}, Line: 1}},
		},
		{
			name: "after as one id or a list, deduplicated; output; null fields",
			input: lines(tl("a", `"output":true`), tl("b", `"after":"a","params":null`),
				tl("c", `"after":["b","a","b"],"output":null`), tl("d", `"after":null`)),
			want: []Task{
				{ID: "a", Category: "spec", Tool: "search_spec", Params: map[string]any{}, Output: true, Line: 1},
				{ID: "b", Category: "spec", Tool: "search_spec", Params: map[string]any{}, After: []string{"a"}, Line: 2},
				{ID: "c", Category: "spec", Tool: "search_spec", Params: map[string]any{}, After: []string{"b", "a"}, Line: 3},
				{ID: "d", Category: "spec", Tool: "search_spec", Params: map[string]any{}, Line: 4},
			},
		},
		{
			name:  "blank lines are counted, CRLF and spaces trimmed",
			input: "\n   \r\n" + tl("a", "") + "\r\n\n  " + tl("b-2_X", "") + "  \n",
			want: []Task{
				{ID: "a", Category: "spec", Tool: "search_spec", Params: map[string]any{}, Line: 3},
				{ID: "b-2_X", Category: "spec", Tool: "search_spec", Params: map[string]any{}, Line: 5},
			},
		},
		{
			name:  "numbers keep their literal",
			input: tl("a", `"params":{"n":12345678901234567890,"f":1.5,"l":[true,null,"x"]}`),
			want: []Task{{ID: "a", Category: "spec", Tool: "search_spec", Line: 1, Params: map[string]any{
				"n": json.Number("12345678901234567890"), "f": json.Number("1.5"), "l": []any{true, nil, "x"}}}},
		},
		{
			name: "references to a transitive ancestor and escaped ${ are allowed",
			input: lines(tl("a", ""), tl("b", `"after":"a"`),
				tl("c", `"after":"b","params":{"q":"${a.x[0]} $${zz} $${"}`)),
			want: []Task{
				{ID: "a", Category: "spec", Tool: "search_spec", Params: map[string]any{}, Line: 1},
				{ID: "b", Category: "spec", Tool: "search_spec", Params: map[string]any{}, After: []string{"a"}, Line: 2},
				{ID: "c", Category: "spec", Tool: "search_spec", Params: map[string]any{"q": "${a.x[0]} $${zz} $${"}, After: []string{"b"}, Line: 3},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.input)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	a, b := tl("a", ""), tl("b", "")
	var many []string
	for i := range MaxTasks + 1 {
		many = append(many, tl(fmt.Sprintf("t%d", i), ""))
	}
	tests := []struct {
		name  string
		input string
		want  []string // substrings of the message
		hint  string   // substring of the hint
	}{
		{name: "empty", input: "\n \n", want: []string{"no tasks"}},
		{name: "too large", input: tl("a", `"params":{"q":"`+strings.Repeat("x", MaxInputBytes)+`"}`), want: []string{"bytes; the limit is 1048576"}},
		{name: "too many tasks", input: lines(many...), want: []string{"line 101:", "more than 100 tasks"}},
		{name: "malformed line names its line", input: lines(a, "", `{"id":"b",`), want: []string{"line 3:", "unexpected EOF"}, hint: "one JSON object per line"},
		{name: "not an object", input: "[1]", want: []string{"line 1:", "must be a JSON object"}},
		{name: "two objects on a line", input: a + " " + b, want: []string{"line 1", "text after"}},
		{name: "unknown field", input: lines(a, `{"id":"b","module":"x","category":"c","tool":"t"}`), want: []string{"line 2", `unknown field "module"`}, hint: "category, tool, params"},
		{name: "id of the wrong type", input: `{"id":1,"category":"c","tool":"t"}`, want: []string{"line 1", `"id" has the wrong type`}},
		{name: "params not an object", input: tl("a", `"params":["x"]`), want: []string{`"params" has the wrong type`}},
		{name: "output not a bool", input: tl("a", `"output":"yes"`), want: []string{`"output" has the wrong type`}},
		{name: "after not ids", input: tl("a", `"after":1`), want: []string{`"after" must be a task id or a list`}},
		{name: "missing id", input: `{"category":"c","tool":"t"}`, want: []string{"line 1", `task id "" is not allowed`}, hint: "1-64 characters"},
		{name: "bad id characters", input: tl("a b", ""), want: []string{`task id "a b" is not allowed`}},
		{name: "id too long", input: tl(strings.Repeat("x", 65), ""), want: []string{"is not allowed"}},
		{name: "missing tool", input: `{"id":"a","category":"c"}`, want: []string{`task "a"`, `"category" and "tool" must be non-empty`}},
		{name: "empty category", input: `{"id":"a","category":"","tool":"t"}`, want: []string{`"category" and "tool" must be non-empty`}},
		{name: "bad id in after", input: tl("a", `"after":["ok","no way"]`), want: []string{`after names "no way", which is not a valid task id`}},
		{name: "duplicate id", input: lines(a, b, tl("a", "")), want: []string{"line 3", `id "a" is already used on line 1`}},
		{name: "self dependency", input: tl("a", `"after":"a"`), want: []string{`task "a"`, "cannot wait for itself"}},
		{name: "unknown after", input: lines(a, tl("b", `"after":["a","zz"]`)), want: []string{"line 2", `after names unknown task "zz"`}},
		{name: "cycle a -> b -> a", input: lines(tl("a", `"after":"b"`), tl("b", `"after":"a"`)), want: []string{"line 1", "cycle through after: a -> b -> a"}},
		{
			name:  "longer cycle behind a free task",
			input: lines(tl("x", ""), tl("a", `"after":["x","c"]`), tl("b", `"after":"a"`), tl("c", `"after":"b"`)),
			want:  []string{"line 2", "a -> c -> b -> a"},
		},
		{name: "reference to unknown task", input: tl("a", `"params":{"q":"${zz.x}"}`), want: []string{`reference ${zz.x} names unknown task "zz"`}},
		{name: "reference to itself", input: tl("a", `"params":{"q":"${a}"}`), want: []string{"own result"}},
		{
			name:  "reference to a task not waited for",
			input: lines(a, b, tl("c", `"after":"b","params":{"deep":[{"q":"x ${a.id}"}]}`)),
			want:  []string{"line 3", `reads task "a"`, "add it to after"}, hint: `"after": ["b","a"]`,
		},
		{name: "reference to a later sibling", input: lines(tl("a", `"params":{"q":"${b}"}`), b), want: []string{"add it to after"}},
	}
	for _, bad := range []string{"${a", "${}", "${a.}", "${a..b}", "${a[x]}", "${a[-1]}", "${a[+1]}", "${a[]}", "${a[0]x}", "${ a }", "${a.b]}", "${a[1}", "${a.${b}}", "${a[99999999999999999999]}"} {
		tests = append(tests, struct {
			name, input string
			want        []string
			hint        string
		}{
			name:  "malformed reference " + bad,
			input: lines(a, tl("b", `"after":"a","params":{"l":[1,{"q":`+fmt.Sprintf("%q", "see "+bad)+`}]}`)),
			want:  []string{"line 2", `task "b"`, "bad reference"}, hint: "${id.items[0].name}",
		})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.input)
			e, ok := errors.AsType[*apperr.Error](err)
			if !ok || e.Code != apperr.InvalidArgument {
				t.Fatalf("err = %v, want an invalid_argument apperr", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(e.Message, w) {
					t.Errorf("message %q does not contain %q", e.Message, w)
				}
			}
			if !strings.Contains(e.Hint, tt.hint) || e.Hint == "" {
				t.Errorf("hint %q does not contain %q", e.Hint, tt.hint)
			}
		})
	}
}
