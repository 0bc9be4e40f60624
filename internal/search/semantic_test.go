package search_test

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/search"
	"github.com/langspec/langspec/internal/semantic"
	"github.com/langspec/langspec/internal/text/snippet"
)

// bagOfWords is a deterministic stand-in for an embeddings endpoint: each
// word adds one to a slot (the hashing trick).
func bagOfWords(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Input []string }
		json.NewDecoder(r.Body).Decode(&req)
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []item
		for i, text := range req.Input {
			v := make([]float32, 64)
			for _, word := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return r < 'a' || r > 'z' }) {
				h := fnv.New32a()
				h.Write([]byte(word))
				v[h.Sum32()%64]++
			}
			data = append(data, item{Index: i, Embedding: v})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestSemanticChannel: with the semantic channel, hits name it among their
// channels; with its endpoint down, search answers from the lexical
// channels, the same hits as without it, and says so in a notice.
func TestSemanticChannel(t *testing.T) {
	ctx := context.Background()
	store := search.GoSpecStore(t)
	srv := bagOfWords(t)
	client := semantic.New(semantic.Options{URL: srv.URL, Model: "bag", Dimensions: 64})
	vs, _ := store.Versions(ctx, "go")
	if _, err := semantic.EmbedSnapshot(ctx, store, client, "go", "spec", vs[0].Version, nil); err != nil {
		t.Fatal(err)
	}
	ch := semantic.NewChannel(client)
	req := search.Request{Query: "slice expressions", Snippet: snippet.Options{Mark: snippet.Markdown}, Semantic: ch}
	res, err := search.Search(ctx, store, req)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.Channels, "semantic") || len(res.Notices) != 0 {
		t.Fatalf("channels %v, notices %v", res.Channels, res.Notices)
	}
	named := 0
	for _, h := range res.Hits {
		if slices.Contains(h.Matched, "semantic") {
			named++
		}
	}
	var top []string
	for _, h := range res.Hits[:3] {
		top = append(top, h.SectionID)
	}
	if named == 0 || !slices.Contains(top, "Slice_expressions") {
		t.Errorf("%d of %d hits name the semantic channel; top three %v", named, len(res.Hits), top)
	}

	lexical, err := search.Search(ctx, store, search.Request{Query: "defer statements", Snippet: req.Snippet})
	if err != nil {
		t.Fatal(err)
	}
	srv.Close()
	down, err := search.Search(ctx, store, search.Request{Query: "defer statements", Snippet: req.Snippet, Semantic: ch})
	if err != nil {
		t.Fatalf("with the endpoint down: %v", err)
	}
	if len(down.Notices) != 1 || !strings.Contains(down.Notices[0], "semantic channel is off") {
		t.Errorf("notices with the endpoint down: %v", down.Notices)
	}
	if len(down.Hits) != len(lexical.Hits) || down.Hits[0].SectionID != lexical.Hits[0].SectionID {
		t.Errorf("with the endpoint down: %d hits, first %s; lexical alone: %d, first %s",
			len(down.Hits), down.Hits[0].SectionID, len(lexical.Hits), lexical.Hits[0].SectionID)
	}
}

// BenchmarkSemanticSearch puts a search with the semantic channel (the
// fake endpoint on loopback; each query's vector cached after its first
// call) beside the same search without it, alternating, over the Go spec.
//
//	go test ./internal/search -run '^$' -bench SemanticSearch -benchtime 2000x
func BenchmarkSemanticSearch(b *testing.B) {
	ctx := context.Background()
	store := search.GoSpecStore(b)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Input []string }
		json.NewDecoder(r.Body).Decode(&req)
		data := []map[string]any{}
		for i, text := range req.Input {
			v := make([]float32, 768)
			for _, word := range strings.Fields(strings.ToLower(text)) {
				h := fnv.New32a()
				h.Write([]byte(word))
				v[h.Sum32()%768]++
			}
			data = append(data, map[string]any{"index": i, "embedding": v})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	defer srv.Close()
	client := semantic.New(semantic.Options{URL: srv.URL, Model: "bag", Dimensions: 768})
	vs, _ := store.Versions(ctx, "go")
	if _, err := semantic.EmbedSnapshot(ctx, store, client, "go", "spec", vs[0].Version, nil); err != nil {
		b.Fatal(err)
	}
	ch := semantic.NewChannel(client)
	queries := []string{"slice expressions", "defer statements", "method sets", "type assertions"}
	var with, without []time.Duration
	i := 0
	for b.Loop() {
		q := queries[i%len(queries)]
		i++
		start := time.Now()
		if _, err := search.Search(ctx, store, search.Request{Query: q, Semantic: ch}); err != nil {
			b.Fatal(err)
		}
		with = append(with, time.Since(start))
		start = time.Now()
		if _, err := search.Search(ctx, store, search.Request{Query: q}); err != nil {
			b.Fatal(err)
		}
		without = append(without, time.Since(start))
	}
	med := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	w, wo := med(with), med(without)
	b.ReportMetric(float64(w.Microseconds())/1000, "semantic-p50-ms")
	b.ReportMetric(float64(wo.Microseconds())/1000, "lexical-p50-ms")
	b.ReportMetric(float64(w)/float64(wo), "ratio")
}
