package find

import (
	"testing"

	"github.com/langspec/langspec/internal/db"
)

func TestConflicting(t *testing.T) {
	node := func(path, norm string) *workNode {
		n := db.ManualNode{Path: path, NodeID: "n", Norm: norm}
		return &workNode{ManualNode: n, manual: "m", nodeTraits: traitsOf([]db.ManualNode{n})[0]}
	}
	tests := []struct {
		name  string
		nodes []*workNode
		want  bool
	}{
		{"different figures in two files", []*workNode{node("a.md", "within 30 days"), node("b.md", "within 60 days")}, true},
		{"same figures", []*workNode{node("a.md", "within 30 days"), node("b.md", "30 days at most")}, false},
		{"no figures on one side", []*workNode{node("a.md", "within 30 days"), node("b.md", "soon")}, false},
		{"same file", []*workNode{node("a.md", "within 30 days"), node("a.md", "within 60 days")}, false},
		{"full-width digits are normalised before", []*workNode{node("a.md", "30日以内"), node("b.md", "30日以内")}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := conflicting(tt.nodes) != nil; got != tt.want {
				t.Fatalf("conflicting = %v, want %v", got, tt.want)
			}
		})
	}
}
