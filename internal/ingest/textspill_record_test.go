package ingest

import (
	"errors"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/spillfile"
)

// TestPackedSectionsReadBack: a packed document gives back every field of
// every section, in order and out of order, whether its path and text were
// held or spilled, across read windows; a record cut short or followed by stray
// bytes is an error, never a panic or a section with a field missing.
func TestPackedSectionsReadBack(t *testing.T) {
	long := strings.Repeat("ü", spillfile.WindowSize) // one text bigger than a window
	sections := []db.Section{
		{SectionID: "a", Level: 1, Title: "Alpha", Path: "Alpha", URL: "https://x.example/a", SourcePolicy: db.FullText, Text: "held"},
		{SectionID: "b", ParentID: "a", Level: 2, Title: "Béta", Path: "Alpha > Béta", URL: "https://x.example/a#b", SourcePolicy: db.FullText, Anchors: "see beta\nbeta"},
		{SectionID: "c", ParentID: "a", Level: 300, Title: "", Path: "Alpha > ", SourcePolicy: db.ExcerptOnly},
		{SectionID: "日本語", Level: 2, Title: "見出し", Path: "見出し", URL: "https://x.example/%E6%97%A5", SourcePolicy: db.FullText},
	}
	texts := []string{"held", "beta's text", "", long}

	spill := newTextSpill(spillConfig{dir: t.TempDir(), held: len("held")})
	defer spill.Close()
	kept := make([]db.Section, len(sections))
	for i, s := range sections {
		kept[i] = s
		kept[i].Path, kept[i].Text = spill.keep(s.Path, texts[i])
	}
	if err := spill.finish(kept); err != nil {
		t.Fatal(err)
	}
	doc := Document{Sections: kept, texts: spill}
	if err := doc.pack(); err != nil {
		t.Fatal(err)
	}
	if doc.Sections != nil || doc.Len() != len(sections) {
		t.Fatalf("packed: %d sections held, Len %d; want none held, %d", len(doc.Sections), doc.Len(), len(sections))
	}
	for _, order := range [][]int{{0, 1, 2, 3}, {3, 1, 0, 2, 2}} {
		for _, i := range order {
			got, err := doc.Section(i)
			want := sections[i]
			want.Text = texts[i]
			if err != nil || got != want {
				t.Errorf("order %v, section %d: %v\n got %+v\nwant %+v", order, i, err, got, want)
			}
		}
	}
	if _, err := doc.Section(len(sections)); err == nil {
		t.Error("a section past the end was read")
	}

	rec := appendSectionRecord(nil, &sections[1])
	for _, bad := range []struct {
		name string
		rec  []byte
	}{
		{"empty", nil},
		{"cut in a length", rec[:1]},
		{"cut in a field", rec[:len(rec)-3]},
		{"stray bytes after", append(append([]byte{}, rec...), 'x')},
		{"a length past the end", []byte{1, 0xff, 0xff, 0x03}},
	} {
		if _, err := sectionRecord(bad.rec); !errors.Is(err, errBadRecord) {
			t.Errorf("%s: err = %v, want errBadRecord", bad.name, err)
		}
	}
}
