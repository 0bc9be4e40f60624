package plan

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
)

// outline builds sections from "level:title:chars" triples.
func outline(specs ...string) []db.SectionRow {
	var out []db.SectionRow
	for _, s := range specs {
		var r db.SectionRow
		parts := strings.Split(s, ":")
		r.Level = int(parts[0][0] - '0')
		r.Title = parts[1]
		r.SectionID = strings.ReplaceAll(parts[1], " ", "_")
		for _, c := range parts[2] {
			r.CharCount = r.CharCount*10 + int(c-'0')
		}
		out = append(out, r)
	}
	return out
}

func ids(w Week) string {
	var s []string
	for _, it := range w.Sections {
		s = append(s, it.SectionID)
	}
	return strings.Join(s, " ")
}

func TestSplit(t *testing.T) {
	doc := outline(
		"2:Intro:100", "2:Notation:100",
		"2:Types:100", "3:Slices:900", "3:Maps:900",
		"2:Expressions:100", "3:Calls:900", "3:Conversions:900",
		"2:Statements:100", "3:If:900", "3:For:900",
	)
	tests := []struct {
		name   string
		weeks  int
		focus  []string
		want   []string // section ids per week
		themes []string
	}{
		{
			name: "balanced by size, not count", weeks: 3,
			want:   []string{"Intro Notation Types Slices Maps", "Expressions Calls Conversions", "Statements If For"},
			themes: []string{"Intro, Notation, Types", "Expressions", "Statements"},
		},
		{
			name: "focus moves after the intro", weeks: 3, focus: []string{"statements"},
			want:   []string{"Intro Notation Statements If For", "Types Slices Maps", "Expressions Calls Conversions"},
			themes: []string{"Intro, Notation, Statements", "Types", "Expressions"},
		},
		{
			name: "focus on a subsection by part of its title", weeks: 2, focus: []string{"conver"},
			want: []string{"Intro Notation Conversions Types Slices Maps", "Expressions Calls Statements If For"},
		},
		{
			name: "one week", weeks: 1,
			want: []string{"Intro Notation Types Slices Maps Expressions Calls Conversions Statements If For"},
		},
		{
			name: "continued topic is marked", weeks: 6,
			themes: []string{"Intro, Notation, Types", "Types (cont.)", "Expressions", "Expressions (cont.)", "Statements", "Statements (cont.)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			weeks, err := Split(doc, tt.weeks, tt.focus)
			if err != nil {
				t.Fatal(err)
			}
			if len(weeks) != tt.weeks {
				t.Fatalf("%d weeks, want %d", len(weeks), tt.weeks)
			}
			total := 0
			for i, w := range weeks {
				total += len(w.Sections)
				if tt.want != nil && ids(w) != tt.want[i] {
					t.Errorf("week %d = %s, want %s", i+1, ids(w), tt.want[i])
				}
				if tt.themes != nil && w.Theme != tt.themes[i] {
					t.Errorf("week %d theme = %q, want %q", i+1, w.Theme, tt.themes[i])
				}
				if w.EstimatedMinutes != (w.Chars+CharsPerMinute-1)/CharsPerMinute {
					t.Errorf("week %d: %d minutes for %d chars", i+1, w.EstimatedMinutes, w.Chars)
				}
			}
			if total != len(doc) {
				t.Errorf("plan has %d sections, document %d", total, len(doc))
			}
		})
	}
}

func TestSplitErrors(t *testing.T) {
	doc := outline("2:Intro:10", "2:Types:10")
	tests := []struct {
		name  string
		weeks int
		focus []string
		msg   string
	}{
		{"more weeks than sections", 3, nil, "only 2 sections"},
		{"unknown focus", 1, []string{"Generics"}, `focus area "Generics" matches no section title; hint: top-level topics: Intro, Types`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Split(doc, tt.weeks, tt.focus)
			if apperr.CodeOf(err) != apperr.InvalidArgument || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v, want %q", err, tt.msg)
			}
		})
	}
}

func TestPartitionIsOptimal(t *testing.T) {
	sizes := []int{5, 1, 1, 1, 5, 5, 1, 9}
	got := partition(sizes, 3)
	want := [][2]int{{0, 4}, {4, 6}, {6, 8}} // totals 8, 10, 10 beat 8, 11, 9
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("partition = %v, want %v", got, want)
		}
	}
}

// TestBuildDefaultsToGo: without a language, a plan is of the one stored,
// or of Go's specification once several are stored (the docs show
// plan [--lang go]); a language that is not stored is not_found.
func TestBuildDefaultsToGo(t *testing.T) {
	ctx := context.Background()
	store, err := db.Open(ctx, filepath.Join(t.TempDir(), "p.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	publish := func(language string) {
		t.Helper()
		var secs []db.Section
		for i := range 6 {
			secs = append(secs, db.Section{SectionID: fmt.Sprintf("S%d", i), Level: 2, Title: fmt.Sprintf("%s section %d", language, i),
				Path: "p", URL: "u", Text: strings.Repeat("text ", 50), SourcePolicy: db.FullText})
		}
		snap := db.Snapshot{Language: language, Doc: "spec", DisplayName: language, Version: "v1", SourceURL: "test",
			FetchedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), ContentHash: language}
		if _, err := store.Publish(ctx, snap, secs); err != nil {
			t.Fatal(err)
		}
	}
	publish("rust")
	if p, err := Build(ctx, store, Request{Weeks: 2}); err != nil || p.Language != "rust" {
		t.Fatalf("one language stored: %s, %v; want rust", p.Language, err)
	}
	publish("go")
	if p, err := Build(ctx, store, Request{Weeks: 2}); err != nil || p.Language != "go" {
		t.Fatalf("several stored: %s, %v; want go", p.Language, err)
	}
	if _, err := Build(ctx, store, Request{Weeks: 2, Language: "cobol"}); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("a language not stored: %v", err)
	}
}
