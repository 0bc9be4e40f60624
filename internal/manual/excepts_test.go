package manual

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/eval/corpusgen"
)

func TestExceptions(t *testing.T) {
	lib := openFixtures(t)
	policy := "約款/普通保険約款.md"
	tests := []struct {
		name      string
		id        string
		paths     []string
		query     string
		max       int
		wantHas   []string // "node_id:term" pairs that must be found
		wantNot   []string // node ids that must not appear
		truncated bool
	}{
		{"exclusions and provisos", "insurance-ja", []string{policy}, "", 100,
			[]string{"保険金の支払い/支払いの対象外/免責事項:ただし", "保険金の支払い/支払いの対象外/支払いの対象外となる家財:除く"}, nil, false},
		{"a topic keeps its subsections' exceptions", "insurance-ja", []string{policy}, "賠償", 100,
			[]string{"賠償責任特約/支払いの対象外:対象外"}, []string{"保険金の支払い/支払いの対象外/免責事項"}, false},
		{"full-width query", "insurance-ja", []string{policy}, "ＺＺＺＺ", 100, nil, []string{"保険金の支払い/支払いの対象外/免責事項"}, false},
		{"English, every file", "ops-en", nil, "", 100, []string{"file:unless", "file:except", "file:excluded"}, nil, false},
		{"capped", "ops-en", nil, "", 1, nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := lib.Exceptions(context.Background(), tt.id, tt.paths, tt.query, tt.max)
			if err != nil {
				t.Fatal(err)
			}
			var got, ids []string
			for _, h := range res.Hits {
				ids = append(ids, h.NodeID)
				for _, term := range h.Terms {
					got = append(got, fmt.Sprintf("%s:%s", h.NodeID, term))
				}
			}
			for _, w := range tt.wantHas {
				if !slices.Contains(got, w) {
					t.Errorf("missing %s in %v", w, got)
				}
			}
			for _, w := range tt.wantNot {
				if slices.Contains(ids, w) {
					t.Errorf("%s should be out of scope", w)
				}
			}
			if res.Truncated != tt.truncated || tt.truncated && len(res.Hits) != tt.max {
				t.Errorf("truncated %v with %d hits", res.Truncated, len(res.Hits))
			}
		})
	}
	if _, err := lib.Exceptions(context.Background(), "nope", nil, "", 10); err == nil {
		t.Error("unknown manual: no error")
	}
}

// One broken .json file must not break the scan of its manual: its lines
// are still scanned as text, and the answer names it in a warning.
func TestExceptionsSurviveABrokenJSONFile(t *testing.T) {
	e := newEnv(t)
	mustWrite(t, filepath.Join(e.dir, "ops-en", "alerts", "broken.json"), "{\"note\": \"applies unless the pager is down\",\n")
	res, err := e.lib.Exceptions(context.Background(), "ops-en", nil, "", 100)
	if err != nil {
		t.Fatalf("one broken file broke the manual: %v", err)
	}
	var inBroken, elsewhere bool
	for _, h := range res.Hits {
		if h.Path == "alerts/broken.json" {
			inBroken = slices.Contains(h.Terms, "unless") && h.NodeID == "file" && h.Line == 1
		} else {
			elsewhere = true
		}
	}
	if !inBroken || !elsewhere {
		t.Errorf("hits in the broken file %v, elsewhere %v: %+v", inBroken, elsewhere, res.Hits)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "alerts/broken.json scanned as plain text") {
		t.Errorf("warnings %q", res.Warnings)
	}
}

// endingCtx is a context that ends after its Err has said "go on" a given
// number of times: a scan is cancelled at a known point of its work, with
// no clock in the test.
type endingCtx struct {
	context.Context
	left int
}

func (c *endingCtx) Err() error {
	if c.left <= 0 {
		return context.Canceled
	}
	c.left--
	return nil
}

// A cancelled scan stops where it stands, within a few hundred lines, and
// says why: context.Canceled, which the tools turn into an error the model
// reads. Without the checks, a query over a large top-level section ran to
// its end (minutes on a 530 KB manual) after the client had given up.
func TestExceptionsStopWhenCancelled(t *testing.T) {
	e := newEnv(t)
	if _, err := corpusgen.WriteReference(filepath.Join(e.dir, "reference"), 3, 60_000); err != nil {
		t.Fatal(err)
	}
	full, err := e.lib.Exceptions(context.Background(), "reference", nil, "error", 500)
	if err != nil || full.FilesScanned != 3 || len(full.Hits) < 10 {
		t.Fatalf("the whole scan: %v, %d files, %d hits", err, full.FilesScanned, len(full.Hits))
	}
	first := full.Hits[0].Path

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := e.lib.Exceptions(ctx, "reference", nil, "error", 500)
	if !errors.Is(err, context.Canceled) || res.FilesScanned != 0 {
		t.Errorf("cancelled before the call: %v after %d files", err, res.FilesScanned)
	}

	// Cancelled some way into the first page (after a dozen looks; the
	// page takes about twenty): what was found is the start of the whole
	// answer, and nothing of the rest of the page or of the pages after.
	res, err = e.lib.Exceptions(&endingCtx{Context: context.Background(), left: 12}, "reference", nil, "error", 500)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled during the scan: err %v", err)
	}
	onFirst := 0
	for _, h := range full.Hits {
		if h.Path == first {
			onFirst++
		}
	}
	if res.FilesScanned != 1 || len(res.Hits) >= onFirst || !reflect.DeepEqual(res.Hits, full.Hits[:len(res.Hits)]) {
		t.Errorf("cancelled in the first page, yet %d files scanned and %d of its %d hits found (a prefix of the whole answer: %v)",
			res.FilesScanned, len(res.Hits), onFirst, reflect.DeepEqual(res.Hits, full.Hits[:len(res.Hits)]))
	}
	t.Logf("%d of the first page's %d hits before the cancellation", len(res.Hits), onFirst)
}

// TestExceptionsNameASection: every hit names the section holding its
// line, for manual_read to take; a link definition after a file's last
// section ("[unless]: …") is no section's text, and no exception.
func TestExceptionsNameASection(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "m", "guide.md"), "# Guide\n\n## Refunds\n\nRefunds are paid unless the [order][unless] was used.\n\n"+
		"[unless]: https://example.com/unless\n[except]: #except\n")
	lib, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	for _, query := range []string{"", "refunds"} {
		res, err := lib.Exceptions(context.Background(), "m", nil, query, 100)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range res.Hits {
			got = append(got, fmt.Sprintf("%s:%d", h.NodeID, h.Line))
		}
		if want := []string{"guide/refunds:5"}; !slices.Equal(got, want) {
			t.Errorf("query %q: hits %v, want %v", query, got, want)
		}
	}
}
