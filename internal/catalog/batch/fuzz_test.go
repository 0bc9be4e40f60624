package batch

import (
	"context"
	"errors"
	"testing"

	"github.com/langspec/langspec/internal/apperr"
)

// FuzzParse checks that Parse never panics and fails only with
// invalid_argument, and that Run copes with whatever Parse accepts. Plain
// go test runs the seeds; run it longer with
//
//	go test -run '^$' -fuzz FuzzParse -fuzztime 20s ./internal/batch
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"",
		tl("a", ""),
		lines(tl("a", `"output":true`), tl("b", `"after":"a","params":{"q":"${a.results[0].id} $${x}","n":"${a}"}`)),
		lines(tl("a", `"after":"b"`), tl("b", `"after":["a"]`)),
		tl("a", `"params":{"l":[{"q":"${a[1}"}]}`),
		`{"id":"a","module":"m","tool":"t"}`,
		"{\"id\":\"a\",\"category\":\"c\",\"tool\":\"t\"}\r\n\n{",
		`[1]`, `null`, `{"id":"\u00e9"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tasks, err := Parse(s)
		if err != nil {
			if e, ok := errors.AsType[*apperr.Error](err); !ok || e.Code != apperr.InvalidArgument {
				t.Fatalf("Parse error %v is not invalid_argument", err)
			}
			return
		}
		run := func(context.Context, Task) (Result, error) {
			return Result{Value: map[string]any{"results": []any{map[string]any{"id": 1}}, "x": "s"}}, nil
		}
		rep := Run(context.Background(), tasks, run, Options{})
		if rep.Succeeded+rep.Failed+rep.Skipped != len(tasks) {
			t.Fatalf("report %+v does not account for %d tasks", rep, len(tasks))
		}
	})
}
