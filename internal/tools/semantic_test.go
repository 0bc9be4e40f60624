package tools

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/semantic"
	"github.com/langspec/langspec/internal/spec"
)

// TestSearchSpecSemantic: search_spec with the semantic channel names it
// among a hit's channels; with its endpoint down it answers all the same,
// with a notice in the text.
func TestSearchSpecSemantic(t *testing.T) {
	ctx := context.Background()
	store := mustOpenDB(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Input []string }
		json.NewDecoder(r.Body).Decode(&req)
		data := []map[string]any{}
		for i, text := range req.Input {
			v := make([]float32, 8)
			for j, c := range strings.ToLower(text) {
				v[(int(c)+j)%8]++
			}
			data = append(data, map[string]any{"index": i, "embedding": v})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	defer srv.Close()
	client := semantic.New(semantic.Options{URL: srv.URL, Model: "chars", Dimensions: 8})
	vs, _ := store.Versions(ctx, "go")
	if _, err := semantic.EmbedSnapshot(ctx, store, client, "go", "spec", vs[0].Version, nil); err != nil {
		t.Fatal(err)
	}
	cs, _ := connectDeps(t, Deps{Store: store, Spec: spec.New(spec.Options{Store: store, Semantic: semantic.NewChannel(client)})})
	call := func(query string) (string, SearchSpecOut) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_spec", Arguments: map[string]any{"query": query, "verbose": true}})
		if err != nil || res.IsError {
			t.Fatalf("search_spec %q: %v %v", query, err, res)
		}
		var out SearchSpecOut
		remarshal(t, res.StructuredContent, &out)
		return res.Content[0].(*mcp.TextContent).Text, out
	}
	_, out := call("slice expressions")
	semantic := false
	for _, h := range out.Results {
		for _, m := range h.Matched {
			semantic = semantic || m == "semantic"
		}
	}
	if !semantic {
		t.Errorf("no hit names the semantic channel: %+v", out.Results)
	}
	srv.Close()
	text, out := call("defer statements") // a new query: its vector must be asked for
	if len(out.Results) == 0 || len(out.Notices) != 1 || !strings.Contains(text, "semantic channel is off") {
		t.Errorf("with the endpoint down: %d results, notices %v", len(out.Results), out.Notices)
	}
}
