package db_test

import (
	"database/sql"
	"encoding/json"
	"math"
	"testing"

	"github.com/langspec/langspec/internal/rank/wordindex"
)

// TestIDFIsSQLites holds the ranking engine's IDF to the one SQLite's ln()
// — the logarithm bm25() takes — gives, bit for bit, for every frequency in
// documents of a range of sizes. On Linux modernc.org/sqlite's C library is
// musl translated to Go, and the engine takes a Go port of musl's log
// (rank/wordindex/ln_musl.go); elsewhere both take math.Log.
func TestIDFIsSQLites(t *testing.T) {
	conn, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, rows := range []int64{1, 2, 3, 7, 165, 756, 1000, 4096, 12_000, 50_000} {
		hits := make([]int64, rows)
		for i := range hits {
			hits[i] = int64(i) + 1
		}
		list, _ := json.Marshal(hits)
		rs, err := conn.Query(`SELECT value, ln(((?1 - value) + 0.5) / (value + 0.5)) FROM json_each(?2) ORDER BY key`, rows, string(list))
		if err != nil {
			t.Fatal(err)
		}
		for rs.Next() {
			var h int64
			var want float64
			if err := rs.Scan(&h, &want); err != nil {
				t.Fatal(err)
			}
			if want <= 0 {
				want = 1e-6 // FTS5's floor
			}
			if got := wordindex.IDF(rows, h); math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("IDF(%d, %d) = %.17g, SQLite's ln gives %.17g", rows, h, got, want)
			}
		}
		if err := rs.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
