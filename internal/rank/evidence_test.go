package rank

import (
	"slices"
	"testing"
)

func TestEvidenceWords(t *testing.T) {
	tests := []struct {
		query string
		want  [][]string // each content word's index terms: its stem, then its related words'
	}{
		{"goto", [][]string{{"goto"}}},
		{"how do I jump to a label", [][]string{{"jump", "break", "goto", "continu", "label"}, {"label"}}},
		{"destroyed objects", [][]string{{"destroi", "drop", "destructor"}, {"object"}}},
		{`"type assertion" type`, [][]string{{"type"}, {"assert"}}}, // a phrase's words one by one, each once
	}
	for _, tt := range tests {
		var p [][]string
		for _, w := range evidenceWords(Analyze(parse(t, tt.query))) {
			p = append(p, w)
		}
		if !slices.EqualFunc(p, tt.want, slices.Equal) {
			t.Errorf("%q: %q, want %q", tt.query, p, tt.want)
		}
	}
}

func TestWordDF(t *testing.T) {
	set := func(ords ...int) Bits {
		b := NewBits(128)
		for _, o := range ords {
			b.Add(o)
		}
		return b
	}
	const doc = 7
	held := map[string]map[int64]Bits{
		"goto":  {doc: set(3)},
		"jump":  {doc: set(1, 2, 3, 4, 5)},
		"label": {doc: set(3, 9)},
		"break": {doc: set(2, 3, 4, 5, 6, 7, 8)},
		"async": {doc + 1: set(1)}, // another document's
	}
	tests := []struct {
		stems []string
		want  int
	}{
		{[]string{"goto"}, 1},
		{[]string{"jump", "label"}, 5},          // its own count, not its related words'
		{[]string{"leap", "break", "label"}, 2}, // never written: the rarest word for it
		{[]string{"async"}, 0},                  // only in another document
		{[]string{"zebra", "quagga"}, 0},
	}
	for _, tt := range tests {
		if got := wordDF(tt.stems, held, doc); got != tt.want {
			t.Errorf("wordDF(%q) = %d, want %d", tt.stems, got, tt.want)
		}
	}
}

func TestFits(t *testing.T) {
	for _, tt := range []struct {
		evidence     float64
		alternatives int
		want         bool
	}{
		{0, 0, false}, {FitEvidence - 0.001, 0, false}, {FitEvidence, 0, true}, {1, 0, true},
		{FitEvidenceWithPhrasings - 0.001, 3, false}, {FitEvidenceWithPhrasings, 1, true},
		{FitEvidenceWithPhrasings, 0, false}, // the question alone needs more
	} {
		if got := Fits(tt.evidence, tt.alternatives); got != tt.want {
			t.Errorf("Fits(%v, %d) = %v, want %v", tt.evidence, tt.alternatives, got, tt.want)
		}
	}
}
