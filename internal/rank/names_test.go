package rank

import (
	"slices"
	"testing"
)

func TestNearestNames(t *testing.T) {
	names := []Name{
		{ID: "Slice_expressions", Title: "Slice expressions", Label: "Slice_expressions"},
		{ID: "Full_slice_expressions", Title: "Full slice expressions", Label: "Full_slice_expressions"},
		{ID: "Method_sets", Title: "Method sets", Label: "Method_sets"},
		{ID: "yield", Title: "7.7. The yield statement", Label: "yield (7.7. The yield statement)"},
		{ID: "Slice_expressions", Title: "Slice expressions", Label: "Slice_expressions"}, // another version
	}
	tests := []struct {
		name string
		n    int
		want []string
	}{
		{"Slice_expresions", 5, []string{"Slice_expressions", "Full_slice_expressions"}}, // a slip, then the one holding it
		{"slice expression", 1, []string{"Slice_expressions"}},                           // by title key
		{"yield statements", 5, []string{"yield (7.7. The yield statement)"}},            // a title as typed
		{"zebra crossing", 5, nil}, // nothing close
	}
	for _, tt := range tests {
		if got := Nearest(names, tt.name, tt.n); !slices.Equal(got, tt.want) {
			t.Errorf("Nearest(%q, %d) = %q, want %q", tt.name, tt.n, got, tt.want)
		}
	}
}
