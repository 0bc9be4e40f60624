package rank

import (
	"testing"

	"github.com/langspec/langspec/internal/text/ftsquery"
)

// FuzzAnalyze checks that no query, once ftsquery accepts it, makes the
// analysis panic, and that every shape and code word it keeps is non-empty.
//
//	go test -run '^$' -fuzz FuzzAnalyze -fuzztime 20s ./internal/rank
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{"slice expressions", "s[i:j:k]", `c"hello"`, "**kwargs", "-2**2", "保険金の支払手順", `"a b" c*`, "r#", "#[", "'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ftsquery.Parse(s)
		if err != nil {
			return
		}
		a := Analyze(q)
		for _, sh := range a.Shapes {
			if sh == "" {
				t.Errorf("%q: empty shape", s)
			}
		}
		for _, w := range a.Content {
			if w.Text == "" {
				t.Errorf("%q: empty content word", s)
			}
		}
		operatorNames(s)
	})
}
