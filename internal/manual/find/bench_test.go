package find

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// goldQueries are the queries of gold files in fixtures/gold, in order.
func goldQueries(tb testing.TB, names ...string) []string {
	tb.Helper()
	var out []string
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(goldDir, name))
		if err != nil {
			tb.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var c struct{ Query string }
			if err := json.Unmarshal([]byte(line), &c); err != nil {
				tb.Fatal(err)
			}
			out = append(out, c.Query)
		}
	}
	return out
}

// BenchmarkManualFind100Files runs the gold queries over a manual of 100
// files (the two fixture manuals copied until there are 100) and reports
// the median manual_find time.
func BenchmarkManualFind100Files(b *testing.B) {
	f := newFinder(b, fixtureCopies(b, 100))
	if _, err := f.Index.RefreshAll(context.Background()); err != nil {
		b.Fatal(err)
	}
	queries := goldQueries(b, "ops-handbook.jsonl", "kasai-hoken.jsonl")
	ms := make([]float64, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := nowMS()
		if _, err := f.Find(context.Background(), Request{ManualID: "big", Query: queries[i%len(queries)]}); err != nil {
			b.Fatal(err)
		}
		ms = append(ms, nowMS()-start)
	}
	b.StopTimer()
	slices.Sort(ms)
	b.ReportMetric(ms[len(ms)/2], "p50-ms")
	b.ReportMetric(ms[min(len(ms)-1, len(ms)*95/100)], "p95-ms")
}

// fixtureCopies returns a manuals folder whose manual "big" holds n files:
// the files of the two gold-set fixture manuals, copied round after round
// into copy0/, copy1/, … until there are n, and the fixtures' synonyms.
func fixtureCopies(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	var files []string
	for _, m := range []string{"ops-handbook", "kasai-hoken"} {
		src := filepath.Join(fixturesDir, m)
		_ = filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".json")) {
				files = append(files, p)
			}
			return nil
		})
	}
	for i := 0; i < n; i++ {
		src := files[i%len(files)]
		body, err := os.ReadFile(src)
		if err != nil {
			b.Fatal(err)
		}
		p := filepath.Join(dir, "big", fmt.Sprintf("copy%d", i/len(files)), filepath.Base(src))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	syn, _ := os.ReadFile(filepath.Join(fixturesDir, "synonyms.json"))
	if err := os.WriteFile(filepath.Join(dir, "synonyms.json"), syn, 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

func nowMS() float64 { return float64(time.Now().UnixNano()) / 1e6 }
