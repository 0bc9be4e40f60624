package toolsnaps

import (
	"testing"
)

func TestMarshalSortsKeysAtEveryDepth(t *testing.T) {
	type inner struct {
		Zeta  int `json:"zeta"`
		Alpha any `json:"alpha"`
	}
	type outer struct {
		Name  string  `json:"name"`
		Inner inner   `json:"inner"`
		Big   float64 `json:"big"`
		HTML  string  `json:"html"`
	}
	got, err := Marshal(outer{Name: "n", Inner: inner{Zeta: 1, Alpha: map[string]int{"b": 2, "a": 1}}, Big: 12345678901234567, HTML: "<a>&"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "big": 12345678901234568,
  "html": "<a>&",
  "inner": {
    "alpha": {
      "a": 1,
      "b": 2
    },
    "zeta": 1
  },
  "name": "n"
}
`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestCheckReportsADifference(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(UpdateEnv, "1")
	Check(t, dir, "tool", map[string]string{"name": "a"})
	t.Setenv(UpdateEnv, "")
	rec := &recorder{TB: t}
	Check(rec, dir, "tool", map[string]string{"name": "a"})
	if rec.failed {
		t.Fatal("the same value differs from its own snapshot")
	}
	Check(rec, dir, "tool", map[string]string{"name": "b"})
	if !rec.failed {
		t.Fatal("a changed value matched the old snapshot")
	}
}

// recorder notes failures instead of failing the test.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Helper()               {}
