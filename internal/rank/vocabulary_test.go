package rank

import (
	"slices"
	"testing"
)

// TestVocabularyASCIIWords: the words of one length that start with one
// letter, whatever letters sort around them, and nothing else.
func TestVocabularyASCIIWords(t *testing.T) {
	v := NewVocabulary(map[string]int{
		"apple": 1, "arrow": 2, "azure": 1, "bison": 3, "bytes": 1, "zebra": 1, "map": 4, "méthode": 1,
	})
	tests := []struct {
		n     int
		first byte
		want  []string
	}{
		{5, 'a', []string{"apple", "arrow", "azure"}},
		{5, 'b', []string{"bison", "bytes"}},
		{5, 'z', []string{"zebra"}},
		{5, 'c', nil},
		{5, 'A', nil}, // the vocabulary is folded
		{3, 'm', []string{"map"}},
		{8, 'm', nil}, // "méthode" is not ASCII
		{0, 'a', nil},
		{99, 'a', nil},
	}
	for _, tt := range tests {
		got := v.ASCIIWords(tt.n, tt.first)
		if !slices.Equal(got, tt.want) {
			t.Errorf("ASCIIWords(%d, %q) = %q, want %q", tt.n, tt.first, got, tt.want)
		}
	}
}
