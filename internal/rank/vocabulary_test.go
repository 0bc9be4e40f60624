package rank

import (
	"context"
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

// TestMemorySourceVocabulary: in a MemorySource's vocabulary a word
// counts once per section, however often and in however many fields it
// occurs, folded as the word index folds it; words under
// VocabularyMinRunes are not kept.
func TestMemorySourceVocabulary(t *testing.T) {
	src, err := NewMemorySource(context.Background(), []MemorySection{
		{ID: 1, Title: "Event: 'uncaughtException'", Body: "An uncaughtException, and another uncaughtException.", Path: "process"},
		{ID: 2, Title: "Exit", Body: "The process exits; Café is an ID.", Path: "process"},
		{ID: 3},
	})
	if err != nil {
		t.Fatal(err)
	}
	v, _ := src.Vocabulary(context.Background())
	tests := []struct {
		word string
		df   int
	}{
		{"uncaughtexception", 1},
		{"process", 2},
		{"exit", 1},
		{"exits", 1},
		{"cafe", 1}, // folded, diacritics removed
		{"an", 0},   // too short to correct
		{"id", 0},
		{"missing", 0},
	}
	for _, tt := range tests {
		if got := v.DF(tt.word); got != tt.df {
			t.Errorf("DF(%q) = %d, want %d", tt.word, got, tt.df)
		}
	}
}
