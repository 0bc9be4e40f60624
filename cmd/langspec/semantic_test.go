package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestIngestEmbeds: with "embeddings" in langspec.json, the first ingest
// embeds the sections, an unchanged re-ingest sends nothing, and with the
// endpoint down the ingest still succeeds and says the semantic channel
// is off.
func TestIngestEmbeds(t *testing.T) {
	var texts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Input []string }
		json.NewDecoder(r.Body).Decode(&req)
		texts.Add(int32(len(req.Input)))
		data := []map[string]any{}
		for i := range req.Input {
			data = append(data, map[string]any{"index": i, "embedding": []float32{1, float32(i), 0}})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	defer srv.Close()
	dir := t.TempDir()
	write := func(url, model string) string {
		p := filepath.Join(dir, "langspec.json")
		b, _ := json.Marshal(map[string]any{"embeddings": map[string]any{"url": url, "model": model, "api_key": "${EMBED_KEY}", "dimensions": 3}})
		os.WriteFile(p, b, 0o600)
		return p
	}
	cfg := write(srv.URL, "fake")
	env := map[string]string{"HOME": dir, "EMBED_KEY": "k"}
	args := []string{"--db", filepath.Join(dir, "l.db"), "--config", cfg, "ingest", "go"}
	code, out, errOut := run(t, env, args...)
	if code != 0 || !strings.Contains(out, "semantic channel:") || strings.Contains(out, "off") || texts.Load() == 0 {
		t.Fatalf("first ingest: %d\n%s%s", code, out, errOut)
	}
	first := texts.Load()
	code, out, _ = run(t, env, args...)
	if code != 0 || texts.Load() != first || !strings.Contains(out, "semantic channel: 0 sections embedded") {
		t.Errorf("unchanged re-ingest sent %d more texts:\n%s", texts.Load()-first, out)
	}
	// eval search reports each part with and without the channel.
	gold, _ := filepath.Abs(filepath.Join("..", "..", "fixtures", "gold", "spec-go.jsonl"))
	code, out, errOut = run(t, env, args[0], args[1], args[2], args[3], "eval", "search", "--gold", gold, "--part", "tune")
	if code != 0 || !strings.Contains(out, "tune+semantic") {
		t.Errorf("eval search with an endpoint: %d\n%s%s", code, out, errOut)
	}
	srv.Close()
	// Another model needs every vector again, and the endpoint is down: the
	// ingest succeeds all the same.
	write(srv.URL, "fake-2")
	code, out, errOut = run(t, env, args...)
	if code != 0 || !strings.Contains(out, "semantic channel: off") {
		t.Errorf("with the endpoint down: %d\n%s%s", code, out, errOut)
	}
	delete(env, "EMBED_KEY")
	code, out, _ = run(t, env, args...)
	if code != 0 || !strings.Contains(out, "semantic channel: off") || !strings.Contains(out, "EMBED_KEY") {
		t.Errorf("without the key's variable: %d\n%s", code, out)
	}
}
