package search_test

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest"
	"github.com/langspec/langspec/internal/search"
)

// TestSearchThroughAReadPoolOfOne runs searches of every kind — words,
// phrases, prefixes, code, typos, alternatives, a path filter — sixteen at
// a time on a store whose reads go through one connection
// (db.DB.UseReadPool, as a team server's go through as many as the
// cores), and holds each answer to the same search on a store without the
// pool. A read query that held its connection while waiting for another
// would hang here: the context's deadline turns that into a failure.
func TestSearchThroughAReadPoolOfOne(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pooled, err := db.Open(ctx, filepath.Join(t.TempDir(), "langspec.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer pooled.Close()
	if err := pooled.UseReadPool(1); err != nil {
		t.Fatal(err)
	}
	// The built-in Go spec, written through the store's own pool while
	// its reads go through the read pool.
	if _, err := ingest.EnsureDefault(ctx, pooled, time.Now()); err != nil {
		t.Fatal(err)
	}
	plain := search.GoSpecStore(t)

	requests := []search.Request{
		{Query: "slice expressions"},
		{Query: `"type assertion"`},
		{Query: "assert*"},
		{Query: "x.(T)"},
		{Query: "<-chan"},
		{Query: "recieve operatr"},
		{Query: "what is a goroutine?", Also: []string{"go statement", "start a goroutine"}},
		{Query: "method sets", PathPrefix: "Types"},
		{Query: "defer", Language: "go", Limit: 3},
	}
	want := make([]search.Result, len(requests))
	for i, req := range requests {
		if want[i], err = search.Search(ctx, plain, req); err != nil {
			t.Fatalf("%q without the pool: %v", req.Query, err)
		}
	}
	const workers, rounds = 16, 4
	errs := make(chan error, workers*rounds*len(requests))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for r := range rounds {
				for j := range requests {
					i := (j + w + r) % len(requests) // each worker in another order
					got, err := search.Search(ctx, pooled, requests[i])
					switch {
					case err != nil:
						errs <- fmt.Errorf("%q through the pool: %w", requests[i].Query, err)
					case !reflect.DeepEqual(got, want[i]):
						errs <- fmt.Errorf("%q through the pool answers differently:\n got %+v\nwant %+v", requests[i].Query, got.Hits, want[i].Hits)
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
