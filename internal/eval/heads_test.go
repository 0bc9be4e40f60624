package eval

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/rank"
	"github.com/langspec/langspec/internal/search"
	"github.com/langspec/langspec/internal/text/snippet"
)

// TestImpactHeadsAnswerAsEveryPosting runs every question of the Go gold
// set, and the scale benchmark's queries, over a generated specification
// whose common words are in thousands of sections (lists long enough for
// impact heads), twice: answered from the heads, and scoring every posting
// (rank.Engine.EveryPosting). Every answer must be the same: the same sections
// in the same order with the same scores, snippets and channels. It fails too when the heads
// answered no ranking, or every one, since then one path went untested.
func TestImpactHeadsAnswerAsEveryPosting(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and ingests a corpus of 12,000 sections")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "big.db")
	if _, _, err := ingestGenerated(ctx, filepath.Dir(path), path, 12_000); err != nil {
		t.Fatal(err)
	}

	f, err := os.Open(filepath.Join("..", "..", "fixtures", "gold", "spec-go.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	cases, err := ReadSearchGold(f, "spec-go.jsonl")
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	queries := []string{"type value", "pointer receiver method set interface", "reciever methd"}
	for _, c := range cases {
		queries = append(queries, c.Query)
	}

	open := func() *db.DB {
		store, err := db.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { store.Close() })
		return store
	}
	headsStore, everyStore := open(), open()
	heads, every := rank.New(rank.DefaultWeights()), rank.New(rank.DefaultWeights()).EveryPosting()
	for _, q := range queries {
		req := search.Request{Query: q, Language: "scale", Limit: 20, Snippet: snippet.Options{Mark: snippet.Markdown}}
		req.Engine = heads
		got, err := search.Search(ctx, headsStore, req)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		req.Engine = every
		want, err := search.Search(ctx, everyStore, req)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: the heads answered\n%v\nscoring every posting answered\n%v", q, ids(got.Hits), ids(want.Hits))
		}
	}
	all, byHeads := heads.Rankings()
	t.Logf("%d queries: the heads settled %d of %d word rankings", len(queries), byHeads, all)
	if byHeads == 0 || byHeads == all {
		t.Fatalf("the heads settled %d of %d rankings: one path is untested", byHeads, all)
	}
	if _, n := every.Rankings(); n != 0 {
		t.Fatalf("EveryPosting: the heads still settled %d rankings", n)
	}
}

func ids(hits []search.Citation) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.SectionID
	}
	return out
}
