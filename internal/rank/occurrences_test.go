package rank_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/rank"
)

// TestOccurrencesRankAsTheStoreDid holds the literal and symbol channels,
// which count occurrences in the store and score them here, to the SQL that
// scored and ordered them in the store before (issue 47): the same
// sections, scores and order, ties included, over three documents at once.
func TestOccurrencesRankAsTheStoreDid(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 47))
	s := openStore(t, doc{"go", "spec", genSections(r, 600, "g")}, doc{"gen", "a", genSections(r, 300, "a")}, doc{"gen", "b", genSections(r, 300, "b")})
	ctx := context.Background()
	sc := s.scope(t, db.Filter{})
	scopeJSON := "[" + strings.Join(func() []string {
		var ids []string
		layouts, err := sc.Layouts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for id := range layouts {
			ids = append(ids, strconv.FormatInt(id, 10))
		}
		return ids
	}(), ",") + "]"
	// before runs the store's SQL of before on the same rows.
	before := func(query string, args ...any) []rank.Posting {
		t.Helper()
		rows, err := s.raw.Query(query, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []rank.Posting
		for rows.Next() {
			var p rank.Posting
			if err := rows.Scan(&p.ID, &p.Score); err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
		}
		return out
	}
	compared, ties := 0, 0
	for _, needles := range [][]string{{"a[i:j]"}, {"x.(t)"}, {"map[string]int", "x.(t)"}, {"[i:"}, {"(t)"}, {"int"}, {"テキスト"}, {"café", "naï"}} {
		for _, limit := range []int{1, 5, 50, 1000} {
			got, err := rank.LiteralChannel(ctx, sc, needles, rank.DefaultWeights(), limit)
			if err != nil {
				t.Fatal(err)
			}
			var trigrams []string
			args := []any{"", scopeJSON, "", limit}
			var score []string
			for _, n := range needles {
				var grams []string
				rs := []rune(n)
				for i := 0; i+3 <= len(rs); i++ {
					grams = append(grams, `"`+strings.ReplaceAll(string(rs[i:i+3]), `"`, `""`)+`"`)
				}
				trigrams = append(trigrams, "("+strings.Join(grams, " AND ")+")")
				args = append(args, n)
				p := "?" + strconv.Itoa(len(args))
				count := func(col string) string {
					return "(length(lower(" + col + ")) - length(replace(lower(" + col + "), " + p + ", ''))) / length(" + p + ")"
				}
				score = append(score, "10 * "+count("sec.title")+" + 4 * "+count("sec.section_path")+" + "+count("sec.body"))
			}
			args[0] = strings.Join(trigrams, " OR ")
			want := before(`SELECT id, score FROM (
				SELECT sec.id AS id, sec.ord AS ord, (`+strings.Join(score, " + ")+`) AS score
				FROM sections_trigram JOIN sections sec ON sec.id = sections_trigram.rowid
				WHERE sections_trigram MATCH ?1 AND sec.snapshot_id IN (SELECT value FROM json_each(?2))
				  AND (?3 = '' OR lower(substr(sec.section_path, 1, length(?3))) = lower(?3)))
				WHERE score > 0 ORDER BY score DESC, ord LIMIT ?4`, args...)
			if !slices.Equal(got, want) {
				t.Fatalf("literal %q, limit %d:\n got %v\nwant %v", needles, limit, got, want)
			}
			compared += len(want)
		}
	}
	for _, needles := range [][]string{{"x[x:x]"}, {"x.(x)"}, {"x[x]x", "x.(x)"}, {"x[x:x]", "x[x]x"}} {
		for _, limit := range []int{1, 5, 50, 1000} {
			got, err := rank.ShapeChannel(ctx, sc, needles, limit)
			if err != nil {
				t.Fatal(err)
			}
			var trigrams, count, holds []string
			args := []any{"", scopeJSON, "", limit}
			for _, n := range needles {
				var grams []string
				rs := []rune(n)
				for i := 0; i+3 <= len(rs); i++ {
					grams = append(grams, `"`+string(rs[i:i+3])+`"`)
				}
				trigrams = append(trigrams, "("+strings.Join(grams, " AND ")+")")
				args = append(args, n)
				p := "?" + strconv.Itoa(len(args))
				count = append(count, "(length(sec.shapes) - length(replace(sec.shapes, "+p+", ''))) / length("+p+")")
				holds = append(holds, "instr(sec.shapes, "+p+") > 0")
			}
			args[0] = strings.Join(trigrams, " OR ")
			want := before(`SELECT sec.id, (`+strings.Join(count, " + ")+`) AS score
				FROM sections_shapes JOIN sections sec ON sec.id = sections_shapes.rowid
				WHERE sections_shapes MATCH ?1 AND sec.snapshot_id IN (SELECT value FROM json_each(?2))
				  AND (?3 = '' OR lower(substr(sec.section_path, 1, length(?3))) = lower(?3))
				  AND (`+strings.Join(holds, " OR ")+`)
				ORDER BY score DESC, sec.ord LIMIT ?4`, args...)
			if !slices.Equal(got, want) {
				t.Fatalf("shapes %q, limit %d:\n got %v\nwant %v", needles, limit, got, want)
			}
			compared += len(want)
		}
	}
	for _, needles := range [][]string{{":"}, {"x."}, {"[x"}, {"x", ":"}} {
		for _, limit := range []int{1, 5, 50, 1000} {
			got, err := rank.ScanShapeChannel(ctx, sc, needles, limit)
			if err != nil {
				t.Fatal(err)
			}
			args := []any{scopeJSON, "", limit}
			var where, count []string
			for _, n := range needles {
				args = append(args, n)
				p := "?" + strconv.Itoa(len(args))
				where = append(where, "instr(sec.shapes, "+p+") > 0")
				count = append(count, "(length(sec.shapes) - length(replace(sec.shapes, "+p+", ''))) / length("+p+")")
			}
			want := before(`SELECT sec.id, (`+strings.Join(count, " + ")+`) AS score
				FROM sections sec
				WHERE sec.snapshot_id IN (SELECT value FROM json_each(?1))
				  AND (?2 = '' OR lower(substr(sec.section_path, 1, length(?2))) = lower(?2))
				  AND `+strings.Join(where, " AND ")+`
				ORDER BY score DESC, sec.ord LIMIT ?3`, args...)
			for i := 1; i < len(want); i++ {
				if want[i].Score == want[i-1].Score {
					ties++
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("scanned shapes %q, limit %d:\n got %v\nwant %v", needles, limit, got, want)
			}
			compared += len(want)
		}
	}
	if compared < 500 || ties < 100 {
		t.Fatalf("only %d hits compared, %d ties among the scanned: the corpus does not exercise the channels", compared, ties)
	}
}
