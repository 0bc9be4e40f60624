package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest"
	"github.com/langspec/langspec/internal/specdiff"
)

// historySpec is the file of the Go spec of release v in the history
// fixture; the newest is the spec langspec has built in, not a second copy.
func historySpec(v string) string {
	if v == "go1.26" {
		return filepath.Join("..", "..", "fixtures", "gospec", "go_spec.html")
	}
	return filepath.Join("..", "..", "fixtures", "gospec-history", v+".html")
}

// expectedChange is one language change of fixtures/gospec-history/expected.json,
// written from the release notes before the classifier was run.
type expectedChange struct {
	Release, From, To, What, Section, Query string
	Removed                                 bool   `json:"removed"`
	RemovedSentence                         bool   `json:"removed_sentence"`
	SinceWords                              string `json:"since_words"`
}

// historyStore ingests the Go spec of every release of the fixture, each
// under its version (1.19's and 1.21's state a date only, so the label is
// given as a user would).
func historyStore(t *testing.T) (*db.DB, []string, []expectedChange) {
	t.Helper()
	dir := filepath.Join("..", "..", "fixtures", "gospec-history")
	raw, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var exp struct {
		Versions []string
		Changes  []expectedChange
	}
	if err := json.Unmarshal(raw, &exp); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	store, err := db.Open(ctx, filepath.Join(t.TempDir(), "langspec.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	src, err := ingest.Resolve(nil, "go", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range exp.Versions {
		if _, err := ingest.Ingest(ctx, store, src, ingest.Options{From: historySpec(v), Version: v}); err != nil {
			t.Fatalf("ingest %s: %v", v, err)
		}
	}
	return store, exp.Versions, exp.Changes
}

// TestDiffGoHistory holds spec_diff to the release notes on the real Go
// spec of 1.19 and 1.21–1.26: every language change of each release on
// the first page of its pair, as a rule; every page over MCP (text and
// structured content) under 8 KB; the sentences Go 1.26 moved out of
// Composite literals into its new subsections shown as moved; a diff
// over the whole range naming each change's release; and since dating
// every change to its release.
func TestDiffGoHistory(t *testing.T) {
	store, versions, changes := historyStore(t)
	ctx := context.Background()
	for i := 1; i < len(versions); i++ {
		from, to := versions[i-1], versions[i]
		ans, err := specdiff.Run(ctx, store, specdiff.Request{Language: "go", From: from, To: to})
		if err != nil {
			t.Fatal(err)
		}
		out := SpecDiffOut{Answer: ans}
		structured, _ := json.Marshal(out)
		text := RenderSpecDiff(out)
		if n := len(structured) + len(text); n > 8000 {
			t.Errorf("%s → %s: the first page is %d bytes over MCP (text %d, structured %d), want ≤ 8,000", from, to, n, len(text), len(structured))
		}
		onPage := map[string]string{}
		for _, it := range ans.Items {
			onPage[it.SectionID] = it.Class
		}
		for _, c := range changes {
			if c.From != from || c.To != to {
				continue
			}
			if class, ok := onPage[c.Section]; !ok || class != specdiff.ClassRule {
				t.Errorf("%s → %s: %s (%s) is not a rule change on the first page (class %q)\n%s", from, to, c.What, c.Section, class, text)
			}
		}
	}

	// Go 1.26 split Composite literals into subsections: the sentences that
	// went there are moved, not removed and added.
	ans, err := specdiff.Run(ctx, store, specdiff.Request{Language: "go", From: "go1.25", To: "go1.26", SectionID: "Composite_literals"})
	if err != nil {
		t.Fatal(err)
	}
	moved, removed := 0, 0
	for _, it := range ans.Items {
		for _, m := range it.MovedOut {
			moved += m.Sentences
		}
		for _, s := range it.Sentences {
			if s.Kind == specdiff.KindRemoved {
				removed++
			}
		}
	}
	if moved < 40 || removed > 20 {
		t.Errorf("Composite_literals 1.25 → 1.26: %d sentences moved out, %d removed; want most of the 63 moved", moved, removed)
	}
	structLits, err := specdiff.Run(ctx, store, specdiff.Request{Language: "go", From: "go1.25", To: "go1.26", SectionID: "Struct_literals"})
	if err != nil {
		t.Fatal(err)
	}
	if len(structLits.Items) != 1 || !slices.ContainsFunc(structLits.Items[0].Sentences, func(s specdiff.Sentence) bool {
		return s.Kind == specdiff.KindMoved && s.From == "Composite_literals"
	}) {
		t.Errorf("Struct_literals shows no sentence moved from Composite_literals: %+v", structLits.Items)
	}

	// Over the whole range, each change says its release.
	rng, err := specdiff.Run(ctx, store, specdiff.Request{Language: "go", From: "1.21", To: "go1.26.0", Class: specdiff.ClassRule, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(rng.Steps) != 5 {
		t.Errorf("steps %+v, want one per release from go1.22 to go1.26", rng.Steps)
	}
	for _, c := range changes {
		if c.From == "go1.19" {
			continue
		}
		if !slices.ContainsFunc(rng.Items, func(it specdiff.PageItem) bool { return it.SectionID == c.Section && it.Release == c.To }) {
			t.Errorf("go1.21 → go1.26: %s (%s) is not attributed to %s", c.What, c.Section, c.To)
		}
	}

	// since dates each change to the release that made it (for go1.20's,
	// the first stored version that has it).
	for _, c := range changes {
		sa, err := specdiff.Since(ctx, store, specdiff.SinceRequest{Language: "go", SectionID: c.Section})
		if err != nil {
			t.Errorf("since %s: %v", c.Section, err)
			continue
		}
		if len(sa.Sections) != 1 {
			t.Errorf("since %s: %d sections", c.Section, len(sa.Sections))
			continue
		}
		s := sa.Sections[0]
		dated := false
		switch {
		case c.Removed:
			dated = s.Removed == c.To
		default:
			for _, r := range s.Rules {
				if !strings.Contains(strings.ToLower(r.Text), strings.ToLower(c.SinceWords)) {
					continue
				}
				if c.RemovedSentence && r.Removed == c.To || !c.RemovedSentence && r.Removed == "" && (r.Since == c.To || s.Since == c.To) {
					dated = true
				}
			}
			if s.Since == c.To && s.SinceID == "" {
				dated = true // the section itself is new
			}
		}
		if !dated {
			t.Errorf("since %s: %s is not dated %s\n%s", c.Section, c.What, c.To, specdiff.SinceText(sa))
		}
	}
}
