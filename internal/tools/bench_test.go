package tools

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchQueries are the queries of internal/search's BenchmarkSearch, one per
// strategy, so the cost of the MCP layer can be read off by comparison.
var benchQueries = []string{"slice expressions", "goroutine zebra", "x.(T)", "gorutine"}

// BenchmarkSearchSpecRoundTrip is a search_spec call through a real SDK
// client session (in-memory transport): argument validation, search,
// snippets, output validation, JSON both ways. Reports p50 and p95.
func BenchmarkSearchSpecRoundTrip(b *testing.B) {
	cs, _ := connect(b, mustOpenDB(b))
	ctx := context.Background()
	for _, q := range benchQueries {
		b.Run(q, func(b *testing.B) {
			var lat []time.Duration
			for b.Loop() {
				start := time.Now()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_spec", Arguments: map[string]any{"query": q}})
				lat = append(lat, time.Since(start))
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
			reportPercentiles(b, lat)
		})
	}
}

// reportPercentiles adds p50 and p95 latency, in milliseconds, to the
// benchmark's output.
func reportPercentiles(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
}
