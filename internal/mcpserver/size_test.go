package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tiktoken-go/tokenizer"

	"github.com/langspec/langspec/internal/catalog"
	"github.com/langspec/langspec/internal/tools"
	"github.com/langspec/langspec/internal/tools/toolstest"
)

// Every byte a server lists or answers is paid for in the model's context
// (issue 16). These tests measure what goes over the wire, as the SDK
// encodes it, and fail above the limits; `go test ./internal/mcpserver -run
// Bytes -v` prints the table README's "Bytes in the model's context" has.
const (
	// tools/list in flat mode, all 26 tools: 24,905 bytes with output
	// schemas as bare field names, 29,036 since they list each field's type
	// and the required ones (issue 46), which validators need to check a
	// result at all.
	maxFlatListingBytes = 30_000
	// A 10-hit search_spec answer, text and structured content together:
	// 5,000 until each hit carried its whole URL in both (issue 49), which
	// saves a model a get_section per hit it cites.
	maxSearchAnswerByte = 5_600
)

// wireBytes is v as JSON on the wire: the SDK escapes no HTML.
func wireBytes(tb testing.TB, v any) int {
	tb.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		tb.Fatal(err)
	}
	return buf.Len() - 1 // Encode's newline
}

// tokens counts o200k_base tokens: not any client's own tokenizer (Claude's
// is not public), but a stand-in that moves with it.
func tokens(tb testing.TB, v any) int {
	tb.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		tb.Fatal(err)
	}
	codec, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		tb.Fatal(err)
	}
	ids, _, err := codec.Encode(buf.String())
	if err != nil {
		tb.Fatal(err)
	}
	return len(ids)
}

// allToolsDeps are the parts that enable all 26 tools.
func allToolsDeps(tb testing.TB) *tools.Deps {
	store := toolstest.OpenDB(tb)
	lib := toolstest.OpenManuals(tb)
	return &tools.Deps{Store: store, Vault: toolstest.OpenVault(tb), Manuals: lib, Finder: toolstest.Finder(store, lib),
		Languages: []string{"go"}, Logger: slog.New(slog.DiscardHandler)}
}

func TestListingBytes(t *testing.T) {
	ctx := context.Background()
	d := allToolsDeps(t)
	flat := toolstest.Connect(t, NewFlat(d, "test", catalog.Mask{}))
	res, err := flat.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 26 {
		t.Fatalf("flat mode lists %d tools, want all 26", len(res.Tools))
	}
	n := wireBytes(t, res)
	t.Logf("| tools/list, flat, 26 tools | %d | %d |", n, tokens(t, res))
	if n > maxFlatListingBytes {
		t.Errorf("flat tools/list is %d bytes, over the %d limit", n, maxFlatListingBytes)
	}

	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	server, err := Build(cctx, *d, Options{Mode: ModeCategories, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	cat := toolstest.Connect(t, server)
	cres, err := cat.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("| tools/list, categories (%d meta tools) | %d | %d |", len(cres.Tools), wireBytes(t, cres), tokens(t, cres))
}

func TestAnswerBytes(t *testing.T) {
	ctx := context.Background()
	d := allToolsDeps(t)
	cs := toolstest.Connect(t, NewFlat(d, "test", catalog.Mask{}))
	if _, err := d.Vault.Create("notes/topic.md", []byte(strings.Repeat("A line about channels and goroutines.\n", 40))); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what  string
		tool  string
		args  map[string]any
		limit int // 0: measured only
	}{
		{"search_spec, 10 hits", "search_spec", map[string]any{"query": "slice expressions"}, maxSearchAnswerByte},
		{"search_spec, 10 hits, a typo", "search_spec", map[string]any{"query": "reciever methd"}, maxSearchAnswerByte},
		{"search_spec, 10 hits, three words", "search_spec", map[string]any{"query": "type conversion rules"}, maxSearchAnswerByte},
		{"get_section, Slice expressions", "get_section", map[string]any{"language": "go", "section_id": "Slice_expressions"}, 0},
		{"manual_find", "manual_find", map[string]any{"query": "水災"}, 0},
		{"manual_hits, 10", "manual_hits", nil, 0},
		{"vault_read, 40 lines", "vault_read", map[string]any{"path": "notes/topic.md"}, 0},
		{"vault_search", "vault_search", map[string]any{"query": "channels"}, 0},
	} {
		args := c.args
		if c.tool == "manual_hits" {
			found := toolstest.Call(t, cs, "manual_find", map[string]any{"query": "水災"})
			var out struct {
				TraceID string `json:"trace_id"`
			}
			toolstest.Remarshal(t, found.StructuredContent, &out)
			args = map[string]any{"trace_id": out.TraceID, "limit": 10}
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %s", c.tool, err, toolstest.Text(res))
		}
		text, structured := wireBytes(t, res.Content), 0
		if res.StructuredContent != nil {
			structured = wireBytes(t, res.StructuredContent)
		}
		t.Logf("| %s | %d | %d | %d | %d |", c.what, text, structured, text+structured,
			tokens(t, res.Content)+map[bool]int{true: tokens(t, res.StructuredContent)}[res.StructuredContent != nil])
		if c.limit > 0 && text+structured > c.limit {
			t.Errorf("%s: %d bytes (text %d, structured %d), over the %d limit", c.what, text+structured, text, structured, c.limit)
		}
	}
}
