package specdiff

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestSplitSentences(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"empty", "", nil},
		{"two sentences", "One thing. Another thing!", []string{"One thing.", "Another thing!"}},
		{"question", "Is it? Yes.", []string{"Is it?", "Yes."}},
		{"abbreviation before lower case", "Tools (rustc, cargo, etc.) and the book, e.g. this one.", []string{"Tools (rustc, cargo, etc.) and the book, e.g. this one."}},
		{"decimal and ellipsis", "Version 1.5 is out... Try it.", []string{"Version 1.5 is out...", "Try it."}},
		{"closing quote and bracket", `He said "stop." (Then left.) Done.`, []string{`He said "stop."`, "(Then left.)", "Done."}},
		{"lines are units", "A paragraph. Two.\n\n- item one\n- item two\n", []string{"A paragraph.", "Two.", "- item one", "- item two"}},
		{"code lines", "x := 1\n\ty := 2\n", []string{"x := 1", "y := 2"}},
		{"fenced code is not cut", "```\nfmt.Println(\"A. B\")\n```\nA. B", []string{"```", `fmt.Println("A. B")`, "```", "A.", "B"}},
		{"blank lines dropped", "\n\n  \nA.\n\n", []string{"A."}},
		{"tab after the end", "A.\tB.", []string{"A.", "B."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := splitSentences(tt.text); !slices.Equal(got, tt.want) {
				t.Errorf("splitSentences(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestEqualCollapsed(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"", "", true},
		{"a b", "a b", true},
		{"a  b\n", " a\tb", true},
		{"a\n\nb", "a b", true},
		{"ab", "a b", false},
		{"a b", "a c", false},
		{"a b ", "a b c", false},
		{"a", "", false},
		{"héllo  wörld", "héllo wörld", true},
	}
	for _, tt := range tests {
		if got := equalCollapsed(tt.a, tt.b); got != tt.want || got != (collapseSpace(tt.a) == collapseSpace(tt.b)) {
			t.Errorf("equalCollapsed(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// change is a SentenceChange in one line, for comparing tables.
func change(c SentenceChange) string {
	switch c.Kind {
	case KindChanged:
		return "changed: " + c.Marked
	case KindRemoved:
		return "removed: " + c.Old
	}
	return "added: " + c.New
}

func TestDiffSentences(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		want     []string
	}{
		{
			name: "one sentence reworded",
			old:  "First stays. The bound is low. Last stays.",
			new:  "First stays. The bound is high. Last stays.",
			want: []string{"changed: The bound is [-low-]{+high+}."},
		},
		{
			name: "sentence added",
			old:  "First. Last.",
			new:  "First. Middle one. Last.",
			want: []string{"added: Middle one."},
		},
		{
			name: "sentence removed",
			old:  "First. Middle one. Last.",
			new:  "First. Last.",
			want: []string{"removed: Middle one."},
		},
		{
			name: "unrelated replacement is not paired",
			old:  "First. Cats sleep all day long. Last.",
			new:  "First. Compilers reject such programs. Last.",
			want: []string{"removed: Cats sleep all day long.", "added: Compilers reject such programs."},
		},
		{
			name: "pairs found across an inserted sentence",
			old:  "A value of type int is copied. A pointer is shared.",
			new:  "A value of type uint is copied. Something new entirely here. A pointer is never shared.",
			want: []string{
				"changed: A value of type [-int-]{+uint+} is copied.",
				"added: Something new entirely here.",
				"changed: A pointer is {+never+} shared.",
			},
		},
		{
			name: "code line",
			old:  "the slice t has elements\n\nt[0] == 2\nt[1] == 3",
			new:  "the slice t has elements\n\nt[0] == 2\nt[1] == 4",
			want: []string{"changed: t[1] == [-3-]{+4+}"},
		},
		{
			// Compare never gets here (the texts are equal once white
			// space is collapsed), but lines are units of their own.
			name: "line break removed",
			old:  "One sentence\nwrapped.",
			new:  "One sentence wrapped.",
			want: []string{"changed: One sentence {+wrapped.+}", "removed: wrapped."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			changes, truncated := diffSentences(tt.old, tt.new, Options{}.withDefaults())
			var got []string
			for _, c := range changes {
				got = append(got, change(c))
			}
			if !slices.Equal(got, tt.want) || truncated {
				t.Errorf("got %q (truncated %v)\nwant %q", got, truncated, tt.want)
			}
		})
	}
}

// Vocabularies of longText: texts made of different ones are unrelated.
var (
	specWords  = []string{"value", "type", "slice", "index", "bound", "operand", "array", "string", "pointer", "capacity", "length", "element"}
	otherWords = []string{"river", "stone", "cloud", "apple", "window", "garden", "lamp", "horse", "violin", "candle", "forest", "bridge"}
)

// longText is about size bytes of distinct sentences from a vocabulary,
// five to a line.
func longText(size int, seed uint64, words []string) string {
	rng := rand.New(rand.NewPCG(seed, seed))
	var b strings.Builder
	for n := 0; b.Len() < size; n++ {
		// Capitalised, or the sentences would not be cut apart.
		fmt.Fprintf(&b, "%s %d of %s %d says", strings.ToUpper(words[0][:1])+words[0][1:], n, words[1], seed)
		for range 6 {
			b.WriteString(" " + words[rng.IntN(len(words))])
		}
		b.WriteString(".")
		if n%5 == 4 {
			b.WriteString("\n\n")
		} else {
			b.WriteString(" ")
		}
	}
	return b.String()
}

// The bounds: results, not time. A 50 KB text with one word changed is
// diffed whole and exactly; unrelated 50 KB texts stop at MaxSentences.
func TestDiffSentencesBounds(t *testing.T) {
	opts := Options{}.withDefaults()
	old := longText(50_000, 1, specWords)
	if n := len(splitSentences(old)); n <= opts.MaxSentences+100 {
		t.Fatalf("only %d sentences: the test needs well over MaxSentences", n)
	}

	t.Run("one word in 50 KB", func(t *testing.T) {
		i := strings.Index(old, "Value 500 ")
		j := i + strings.Index(old[i:], ".")
		last := strings.LastIndex(old[i:j], " ") + i + 1
		edited := old[:last] + "nothing" + old[j:]
		changes, truncated := diffSentences(old, edited, opts)
		if truncated || len(changes) != 1 || changes[0].Kind != KindChanged {
			t.Fatalf("got %d changes, truncated %v: %q", len(changes), truncated, changes)
		}
		want := fmt.Sprintf("[-%s-]{+nothing+}.", old[last:j])
		if !strings.HasSuffix(changes[0].Marked, want) || !strings.HasPrefix(changes[0].Marked, "Value 500 of type 1 says") {
			t.Errorf("marked %q, want it to end in %q", changes[0].Marked, want)
		}
	})

	t.Run("one word in a 50 KB line", func(t *testing.T) {
		line := strings.Repeat("word ", 10_000)
		changes, truncated := diffSentences(line+"old "+line, line+"new "+line, opts)
		if truncated || len(changes) != 1 || !strings.Contains(changes[0].Marked, "word [-old-]{+new+} word") {
			t.Fatalf("got %d changes, truncated %v", len(changes), truncated)
		}
	})

	t.Run("unrelated 50 KB texts", func(t *testing.T) {
		unrelated := longText(50_000, 2, otherWords)
		changes, truncated := diffSentences(old, unrelated, opts)
		if !truncated {
			t.Error("not truncated")
		}
		// Nothing in common within the first MaxSentences: only the first
		// differing sentences are reported.
		want := []string{"removed: " + splitSentences(old)[0], "added: " + splitSentences(unrelated)[0]}
		var got []string
		for _, c := range changes {
			got = append(got, change(c))
		}
		if !slices.Equal(got, want) {
			t.Errorf("got %q, want %q", got, want)
		}
	})

	t.Run("changes beyond MaxSentences", func(t *testing.T) {
		sentences := splitSentences(old)
		edited := slices.Clone(sentences)
		edited[10] = strings.Replace(edited[10], "says", "tells", 1)
		edited[len(edited)-10] = strings.Replace(edited[len(edited)-10], "says", "tells", 1)
		changes, truncated := diffSentences(old, strings.Join(edited, "\n"), opts)
		// The first change is within reach, the second is past
		// MaxSentences sentences after it.
		if !truncated || len(changes) != 1 || !strings.Contains(changes[0].Marked, "[-says-]{+tells+}") {
			t.Errorf("got %q, truncated %v", changes, truncated)
		}
	})

	t.Run("long similar sentences past MaxWords", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 6))
		var a, b []string
		for k := range 3000 {
			a = append(a, fmt.Sprint("w", k))
			if rng.IntN(4) > 0 {
				b = append(b, fmt.Sprint("w", k))
			} else {
				b = append(b, fmt.Sprint("x", k))
			}
		}
		oldText := "Start " + strings.Join(a, " ") + " end"
		newText := "Start " + strings.Join(b, " ") + " end"
		changes, truncated := diffSentences(oldText, newText, opts)
		if !truncated || len(changes) != 1 || changes[0].Kind != KindChanged {
			t.Fatalf("got %d changes, truncated %v", len(changes), truncated)
		}
		if m := changes[0].Marked; !strings.HasPrefix(m, "Start [-w0") && !strings.HasPrefix(m, "Start w0") {
			t.Errorf("marked starts %q", m[:40])
		}
		checkRoundTrip(t, oldText, newText, changes[0].Marked)
	})
}

func TestSimilarity(t *testing.T) {
	tests := []struct {
		name     string
		a, b     string
		min, max float64
	}{
		{"same", "the quick brown fox jumps", "the quick brown fox jumps", 1, 1},
		{"case and punctuation aside", "The quick, brown fox.", "the quick brown fox", 1, 1},
		{"both empty", "", "", 1, 1},
		{"one empty", "", "words here", 0, 0},
		{"one word changed in twenty", strings.Repeat("alpha beta gamma delta ", 5), strings.Replace(strings.Repeat("alpha beta gamma delta ", 5), "gamma", "omega", 1), 0.85, 0.95},
		{"same words, other order", "a b c d e f g h", "h g f e d c b a", 0, 0},
	}
	for _, tt := range tests {
		a, _ := shingles(tt.a)
		b, _ := shingles(tt.b)
		if sim := dice(a, b); sim < tt.min || sim > tt.max {
			t.Errorf("%s: similarity %.3f, want %.2f..%.2f", tt.name, sim, tt.min, tt.max)
		}
	}
}
