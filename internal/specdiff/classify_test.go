package specdiff

import (
	"strings"
	"testing"
)

// TestClassifySentence: what an edit means, one case for each way the
// Go spec changed between 1.19 and 1.26 (fixtures/gospec-history).
func TestClassifySentence(t *testing.T) {
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"a version link added", "An alias declaration binds an identifier to the given type.", "An alias declaration binds an identifier to the given type [Go 1.9].", ClassEditorial},
		{"a version link alone", "", "[Go 1.18]", ClassEditorial},
		{"a hyphen", "the set of all IEEE-754 32-bit floating-point numbers", "the set of all IEEE 754 32-bit floating-point numbers", ClassEditorial},
		{"a comma", "complex128 or string respectively.", "complex128, or string respectively.", ClassEditorial},
		{"a typo", "acts as a place holder for an unknown type.", "acts as a placeholder for an unknown type.", ClassEditorial},
		{"a link's host", "For more information and other documents, see golang.org.", "For more information and other documents, see go.dev.", ClassEditorial},
		{"an example's comment", "s1 := append(s0, 2) // append a single element s1 == []int{0, 0, 2}", "s1 := append(s0, 2) // append a single element s1 is []int{0, 0, 2}", ClassEditorial},
		{"a comment added to an example", "+x", "+x // x", ClassEditorial},
		{"an example's code", "func f[T any]() {", "func f[P any]() {", ClassExample},
		{"an example added", "", "for i := range 10 {", ClassExample},
		{"grammar", `Index = "[" Expression "]" .`, `Index = "[" Expression [ "," ] "]" .`, ClassRule},
		{"a word that changes the rule", "The right operand is evaluated conditionally.", "The left operand is evaluated first.", ClassRule},
		{"a negation is no typo", "The value is signed.", "The value is unsigned.", ClassRule},
		{"a rule added", "", "Each iteration has its own separate declared variable (or variables) [Go 1.22].", ClassRule},
		{"a rule removed", "In this case their scope is the block of the for statement.", "", ClassRule},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := classifySentence(tc.old, tc.new); got != tc.want {
				t.Errorf("classifySentence(%q, %q) = %s, want %s", tc.old, tc.new, got, tc.want)
			}
		})
	}
}

// TestMarkMoved: a sentence that leaves one section for another is
// moved, listed once at its new place and counted at its old one; one
// that stays in its section, or is too short to recognise, is not.
func TestMarkMoved(t *testing.T) {
	long := "A literal may omit the element list; such a literal evaluates to the zero value for its type."
	items := []Item{
		{Kind: KindChanged, Old: &Ref{SectionID: "Composite_literals"}, New: &Ref{SectionID: "Composite_literals"}, Sentences: []SentenceChange{
			{Kind: KindRemoved, Class: ClassRule, Old: long},
			{Kind: KindRemoved, Class: ClassExample, Old: "}"},
		}},
		{Kind: KindAdded, New: &Ref{SectionID: "Struct_literals", Title: "Struct literals"}, Sentences: []SentenceChange{
			{Kind: KindAdded, Class: ClassRule, New: long + " [Go 1.26]"},
			{Kind: KindAdded, Class: ClassExample, New: "}"},
		}},
	}
	markMoved(items)
	if got := items[0].Sentences; len(got) != 1 || got[0].Old != "}" {
		t.Errorf("the old section keeps %+v, want only the short line", got)
	}
	if m := items[0].MovedOut; len(m) != 1 || m[0].To != "Struct_literals" || m[0].Sentences != 1 {
		t.Errorf("moved out %+v", m)
	}
	if s := items[1].Sentences[0]; s.Kind != KindMoved || s.From != "Composite_literals" || s.Class != ClassMoved {
		t.Errorf("the new section's sentence %+v, want moved from Composite_literals", s)
	}
	if s := items[1].Sentences[1]; s.Kind != KindAdded {
		t.Errorf("a short line %+v is taken for moved", s)
	}
}

// TestClipMarked: a long sentence is cut around its changes, never inside
// a mark, and what is left reads back.
func TestClipMarked(t *testing.T) {
	long := "The range expression x is evaluated before beginning the loop, with one exception: if at most one iteration variable is present and [-len(x)-]{+x or len(x)+} is constant, the range expression is not evaluated, and then nothing else happens at all here."
	got, clipped := clipMarked(long, 80)
	if !clipped || len(got) >= len(long) {
		t.Fatalf("not clipped: %q", got)
	}
	if _, _, err := unmark(got); err != nil {
		t.Errorf("%q does not read back: %v", got, err)
	}
	for _, w := range []string{"[-len(x)-]", "{+x or len(x)+}", "…"} {
		if !strings.Contains(got, w) {
			t.Errorf("%q lacks %q", got, w)
		}
	}
	if same, clipped := clipMarked("short [-a-]{+b+}", 80); clipped || same != "short [-a-]{+b+}" {
		t.Errorf("a short sentence was clipped: %q", same)
	}
}

func TestCanonicalVersion(t *testing.T) {
	for in, want := range map[string]string{"go1.22": "1.22", "1.22": "1.22", "go1.22.0": "1.22", "v1.80.0": "1.80", "1.80.1": "1.80.1", "se21": "se21", "3.11": "3.11"} {
		if got := CanonicalVersion(in); got != want {
			t.Errorf("CanonicalVersion(%q) = %q, want %q", in, got, want)
		}
	}
}
