package manual

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/langspec/langspec/internal/eval/corpusgen"
)

// BenchmarkManualExcepts is manual_excepts over three generated API
// reference pages of 178 KB (533 KB in all, the size of the Node.js fs,
// buffer and process docs), each one top-level section, without a query
// and with one that keeps every page in scope. max_hits is the tool's
// largest, which the pages do not reach: every line is scanned.
//
//	go test ./internal/manual -run '^$' -bench ManualExcepts -benchtime 20x
func BenchmarkManualExcepts(b *testing.B) {
	dir := b.TempDir()
	st, err := corpusgen.WriteReference(filepath.Join(dir, "reference"), 3, 178_000)
	if err != nil {
		b.Fatal(err)
	}
	lib, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { lib.Close() })
	for _, bc := range []struct{ name, query string }{{"no-query", ""}, {"query", "error"}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(st.Bytes)
			hits := 0
			for b.Loop() {
				res, err := lib.Exceptions(context.Background(), "reference", nil, bc.query, 500)
				if err != nil || res.Truncated || res.FilesScanned != 3 {
					b.Fatalf("%v: truncated %v, %d files", err, res.Truncated, res.FilesScanned)
				}
				hits = len(res.Hits)
			}
			b.ReportMetric(float64(hits), "hits")
		})
	}
}
