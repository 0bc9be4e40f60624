package semantic

import (
	"cmp"
	"context"
	"encoding/json"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest"
)

// fakeEndpoint is an OpenAI-compatible embeddings endpoint on httptest
// with hashing-trick vectors: deterministic, the same text the same
// vector. It counts requests and texts, and can fail the first requests
// with 429.
type fakeEndpoint struct {
	*httptest.Server
	dims int

	mu       sync.Mutex
	requests int
	texts    int
	fail     int // requests still to answer 429
	models   map[string]int
	auth     string
}

func newFakeEndpoint(t *testing.T, dims int) *fakeEndpoint {
	f := &fakeEndpoint{dims: dims, models: map[string]int{}}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		f.mu.Lock()
		f.requests++
		f.auth = r.Header.Get("Authorization")
		if f.fail > 0 {
			f.fail--
			f.mu.Unlock()
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return
		}
		f.texts += len(req.Input)
		f.models[req.Model] += len(req.Input)
		f.mu.Unlock()
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []item
		for i, text := range req.Input {
			data = append(data, item{Index: i, Embedding: hashVector(text, f.dims)})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	t.Cleanup(f.Close)
	return f
}

// hashVector is the hashing trick: each word adds to one of dims slots.
func hashVector(text string, dims int) []float32 {
	v := make([]float32, dims)
	for _, w := range strings.Fields(strings.ToLower(text)) {
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%uint32(dims)]++
	}
	return v
}

func (f *fakeEndpoint) counts() (requests, texts int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests, f.texts
}

func TestBatchingAndOrder(t *testing.T) {
	f := newFakeEndpoint(t, 16)
	c := New(Options{URL: f.URL, Model: "m", Batch: 4, APIKey: "k-123"})
	texts := []string{"a", "b c", "d", "e", "f f", "g", "h", "i", "j", "k"}
	var progress []int
	var mu sync.Mutex
	vecs, err := c.Embed(context.Background(), texts, func(done int) { mu.Lock(); progress = append(progress, done); mu.Unlock() })
	if err != nil {
		t.Fatal(err)
	}
	if req, n := f.counts(); req != 3 || n != 10 {
		t.Errorf("%d requests for %d texts, want 3 for 10 (batches of 4)", req, n)
	}
	for i, text := range texts {
		want := hashVector(text, 16)
		for j := range want {
			if vecs[i][j] != want[j] {
				t.Fatalf("vector %d is not %q's", i, text)
			}
		}
	}
	if len(progress) != 3 || progress[len(progress)-1] != 10 {
		t.Errorf("progress %v", progress)
	}
	if f.auth != "Bearer k-123" {
		t.Errorf("Authorization %q", f.auth)
	}
}

func TestRetriesDownAndDimensions(t *testing.T) {
	f := newFakeEndpoint(t, 8)
	f.fail = 2
	c := New(Options{URL: f.URL, Model: "m", Backoff: time.Millisecond})
	if _, err := c.Embed(context.Background(), []string{"x"}, nil); err != nil {
		t.Errorf("after two 429s: %v", err)
	}
	if req, _ := f.counts(); req != 3 {
		t.Errorf("%d requests, want 3 (two refused, one answered)", req)
	}
	if _, err := New(Options{URL: f.URL, Model: "m", Dimensions: 16}).Embed(context.Background(), []string{"x"}, nil); apperr.CodeOf(err) != apperr.InvalidArgument ||
		!strings.Contains(err.Error(), "8 dimensions") {
		t.Errorf("dimensions that do not match: %v", err)
	}
	down := httptest.NewServer(http.NotFoundHandler())
	url := down.URL
	down.Close()
	start := time.Now()
	if _, err := New(Options{URL: url, Model: "m", Backoff: time.Millisecond, Attempts: 3}).Embed(context.Background(), []string{"x"}, nil); apperr.CodeOf(err) != apperr.Unavailable {
		t.Errorf("an endpoint that is down: %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Error("giving up on a down endpoint took too long")
	}
	slow := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { time.Sleep(300 * time.Millisecond) }))
	defer slow.Close()
	if _, err := New(Options{URL: slow.URL, Model: "m", Timeout: 50 * time.Millisecond, Attempts: 2, Backoff: time.Millisecond}).Embed(context.Background(), []string{"x"}, nil); apperr.CodeOf(err) != apperr.Unavailable {
		t.Errorf("a slow endpoint: %v", err)
	}
}

// TestEmbedSnapshot: the first run embeds every distinct section text of
// the Go spec, an unchanged one sends nothing, and another model embeds
// everything again.
func TestEmbedSnapshot(t *testing.T) {
	ctx := context.Background()
	store, err := db.Open(ctx, filepath.Join(t.TempDir(), "e.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, err := ingest.EnsureDefault(ctx, store, time.Now()); err != nil {
		t.Fatal(err)
	}
	vs, _ := store.Versions(ctx, "go")
	f := newFakeEndpoint(t, 32)
	c := New(Options{URL: f.URL, Model: "m1", Batch: 16})
	rep, err := EmbedSnapshot(ctx, store, c, "go", "spec", vs[0].Version, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sections != vs[0].SectionCount || rep.Embedded == 0 || rep.Cached != 0 {
		t.Fatalf("first run: %+v (sections %d)", rep, vs[0].SectionCount)
	}
	if _, n := f.counts(); n != rep.Embedded {
		t.Errorf("%d texts sent, report says %d", n, rep.Embedded)
	}
	again, err := EmbedSnapshot(ctx, store, c, "go", "spec", vs[0].Version, nil)
	if err != nil || again.Embedded != 0 || again.Cached != rep.Embedded {
		t.Errorf("unchanged: %+v, %v", again, err)
	}
	other, err := EmbedSnapshot(ctx, store, New(Options{URL: f.URL, Model: "m2", Batch: 16}), "go", "spec", vs[0].Version, nil)
	if err != nil || other.Embedded != rep.Embedded {
		t.Errorf("another model: %+v, %v", other, err)
	}
	if n, _ := store.VectorCount(ctx, "m1"); n != rep.Embedded {
		t.Errorf("%d vectors of m1 stored, want %d", n, rep.Embedded)
	}
}

// TestRealEndpoint embeds against a real Ollama-compatible server when
// LANGSPEC_TEST_EMBEDDINGS_URL (and LANGSPEC_TEST_EMBEDDINGS_MODEL,
// default nomic-embed-text) name one; skipped otherwise.
func TestRealEndpoint(t *testing.T) {
	url := os.Getenv("LANGSPEC_TEST_EMBEDDINGS_URL")
	if url == "" {
		t.Skip("set LANGSPEC_TEST_EMBEDDINGS_URL to an OpenAI-compatible endpoint (e.g. http://127.0.0.1:11434/v1) to run")
	}
	model := cmp.Or(os.Getenv("LANGSPEC_TEST_EMBEDDINGS_MODEL"), "nomic-embed-text")
	vecs, err := New(Options{URL: url, Model: model, Batch: 2}).Embed(context.Background(),
		[]string{"slice expressions", "cut a piece out of an array", "defer statements"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := normalize(vecs[0]), normalize(vecs[1]), normalize(vecs[2])
	if !(dot(a, b) > dot(b, c)) {
		t.Errorf("the paraphrase is not nearer: slice/cut %.3f, cut/defer %.3f", dot(a, b), dot(b, c))
	}
}

// dot is the cosine of two normalised vectors.
func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}
