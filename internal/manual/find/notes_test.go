package find

import (
	"context"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/contextnote"
)

// TestAsideNotes: over the real Japanese insurance manual, a note marking
// the car-insurance comparison as aside moves its sections off the first
// page for a fire-insurance question — still candidates, recall kept —
// and leaves them where they were when the question is about cars.
// manual_hits carries each covering note once.
func TestAsideNotes(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, fixturesDir, dir)
	const carFile = "参考/自動車保険との違い.md"
	notes := &contextnote.Source{Config: map[string]contextnote.ConfigNote{
		"langspec://manuals/kasai-hoken/":    {Text: "すまいの総合保険（火災保険）の事務マニュアル。"},
		"langspec://manuals/kasai-hoken/参考/": {Text: "自動車保険「ひなたドライブ」との比較資料。自動車・車両のこと。", Aside: true},
	}}
	tests := []struct {
		query     string
		wantAside bool // the car file's sections leave the first page
	}{
		{"水害の定義を教えて", true},
		{"解約の手続きについて全部集めて", true},
		{"自動車保険の車両の水没は補償される？", false},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			plainF := newFinder(t, dir)
			_, plain := find(t, plainF, Request{ManualID: "kasai-hoken", Query: tt.query})
			notedF := newFinder(t, dir)
			notedF.Notes = notes
			sum, noted := find(t, notedF, Request{ManualID: "kasai-hoken", Query: tt.query})
			firstCar := func(cs []Candidate) int {
				for i, c := range cs {
					if c.Path == carFile {
						return i
					}
				}
				return -1
			}
			before, after := firstCar(plain), firstCar(noted)
			if before < 0 || before >= 10 {
				t.Fatalf("without notes the car file is at %d: the case does not test a near miss", before)
			}
			if len(noted) != len(plain) {
				t.Fatalf("notes changed the candidates found: %d, %d without", len(noted), len(plain))
			}
			if tt.wantAside {
				if after < 10 {
					t.Fatalf("with the aside note the car file is still on the first page (at %d)", after)
				}
				for _, c := range noted[after:] {
					if c.Path != carFile {
						t.Fatalf("%s#%s ranks after the aside file: aside candidates go last", c.Path, c.NodeID)
					}
				}
			} else if after != before {
				t.Fatalf("a question about cars moved the car file from %d to %d", before, after)
			}
			page, err := notedF.Hits(context.Background(), HitsRequest{TraceID: sum.TraceID, Limit: 20})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Context) == 0 || page.Context[0].Target != "langspec://manuals/kasai-hoken/" || len(page.Context[0].Hits) != len(page.Candidates) {
				t.Fatalf("manual_hits context = %+v; want the manual's note once, covering all %d candidates", page.Context, len(page.Candidates))
			}
			for _, c := range page.Context[1:] {
				if c.Target != "langspec://manuals/kasai-hoken/参考/" || !c.Aside || strings.Count(c.Text, "ひなたドライブ") != 1 {
					t.Fatalf("unexpected note on the page: %+v", c)
				}
			}
		})
	}
}
