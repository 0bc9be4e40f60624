package tools

import (
	"strings"
	"testing"
)

// TestCompareSaysAbsent calls compare over the Go spec for a feature Go
// lacks and one it has: the absent column says so in the text, in the
// structured notices, and as a field; the present one does not.
func TestCompareSaysAbsent(t *testing.T) {
	cs, _ := connect(t, mustOpenDB(t))
	tests := []struct {
		concept string
		absent  bool
	}{
		{"build a list with a comprehension", true},
		{"defer statement", false},
	}
	for _, tt := range tests {
		t.Run(tt.concept, func(t *testing.T) {
			res := call(t, cs, "compare", map[string]any{"concept": tt.concept, "languages": []string{"go"}})
			var out CompareOut
			decode(t, res, &out)
			if len(out.Columns) != 1 || out.Columns[0].Absent != tt.absent || len(out.Columns[0].Results) == 0 {
				t.Fatalf("columns %+v, want one with results, absent %v", out.Columns, tt.absent)
			}
			sentence := `The Go Programming Language Specification has no section that clearly matches "` + tt.concept + `"; nearest: `
			notices := strings.Join(out.Notices, "\n")
			body := text(res)
			if got := strings.Contains(notices, sentence) && strings.Contains(body, sentence) &&
				strings.Contains(body, "(no section is about the concept; the nearest:)"); got != tt.absent {
				t.Errorf("says absent: %v, want %v\nnotices %q\ntext:\n%s", got, tt.absent, out.Notices, body)
			}
		})
	}
}
