package specdiff_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/specdiff"
)

// sec is a section for the tables: id, parent, title, text.
type sec struct{ id, parent, title, text string }

// rows makes the sections of one version, in the order given.
func rows(version string, secs ...sec) []db.SectionRow {
	out := make([]db.SectionRow, len(secs))
	for i, s := range secs {
		out[i] = db.SectionRow{
			Language: "go", Doc: "spec", Version: version,
			SectionID: s.id, ParentID: s.parent, Order: i, Title: s.title, Path: s.title,
			URL: "https://example.com/spec#" + s.id, Text: s.text, CharCount: len(s.text),
		}
		if s.parent != "" {
			out[i].Level = 3
		} else {
			out[i].Level = 2
		}
	}
	return out
}

// compare is specdiff.Compare with the default options, for a call that
// must not fail.
func compare(tb testing.TB, old, newer []db.SectionRow) specdiff.Diff {
	tb.Helper()
	d, err := specdiff.Compare(context.Background(), old, newer, specdiff.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// describe is an item in one line: kind, old>new ids ("-" for none), and
// "+text" when the text changed.
func describe(it specdiff.Item) string {
	id := func(r *specdiff.Ref) string {
		if r == nil {
			return "-"
		}
		return r.SectionID
	}
	s := fmt.Sprintf("%s %s>%s", it.Kind, id(it.Old), id(it.New))
	if it.TextChanged {
		s += " +text"
	}
	return s
}

func describeAll(d specdiff.Diff) []string {
	out := []string{}
	for _, it := range d.Items {
		out = append(out, describe(it))
	}
	return out
}

const (
	para1 = "Slice expressions construct a substring or slice from a string, array, pointer to array, or slice operand."
	para2 = "There are two variants: a simple form that specifies a low and high bound, and a full form that also specifies a bound on the capacity."
	para3 = "For arrays or strings, the indices are in range if 0 <= low <= high <= len(a), otherwise they are out of range."
)

func TestCompareMatching(t *testing.T) {
	base := []sec{
		{"Expressions", "", "Expressions", ""},
		{"Slices", "Expressions", "Slice expressions", para1 + " " + para2},
		{"Bounds", "Expressions", "Bounds", para3},
		{"Empty", "Expressions", "Notes", "See above."},
	}
	with := func(edit func([]sec) []sec) []sec { return edit(slices.Clone(base)) }
	tests := []struct {
		name      string
		new       []sec
		want      []string
		unchanged int
	}{
		{
			name:      "nothing changed",
			new:       base,
			want:      []string{},
			unchanged: 4,
		},
		{
			name: "same id, text changed",
			new: with(func(s []sec) []sec {
				s[1].text = strings.Replace(s[1].text, "low and high", "low and a high", 1)
				return s
			}),
			want:      []string{"changed Slices>Slices +text"},
			unchanged: 3,
		},
		{
			name: "white space is no change",
			new: with(func(s []sec) []sec {
				s[1].text = strings.ReplaceAll(s[1].text, " ", "\n  ")
				return s
			}),
			want:      []string{},
			unchanged: 4,
		},
		{
			name: "same id, new title",
			new: with(func(s []sec) []sec {
				s[2].title = "Index bounds"
				return s
			}),
			want:      []string{"renamed Bounds>Bounds"},
			unchanged: 3,
		},
		{
			name: "same id, title differing in case and punctuation only",
			new: with(func(s []sec) []sec {
				s[1].title = "Slice-Expressions:"
				return s
			}),
			want:      []string{},
			unchanged: 4,
		},
		{
			name: "new id, same title, text half the same",
			new: with(func(s []sec) []sec {
				s[1].id = "Slice_expressions"
				s[1].text = para1 + " Only the simple form exists."
				return s
			}),
			want:      []string{"renamed Slices>Slice_expressions +text"},
			unchanged: 3,
		},
		{
			name: "new id, new title, same text",
			new: with(func(s []sec) []sec {
				s[2].id, s[2].title = "Index_ranges", "Index ranges"
				return s
			}),
			want:      []string{"renamed Bounds>Index_ranges"},
			unchanged: 3,
		},
		{
			name: "new id, new title, nearly the same text",
			new: with(func(s []sec) []sec {
				s[1].id, s[1].title = "Slicing", "Slicing"
				s[1].text = strings.Replace(s[1].text, "a bound on the capacity", "a maximum capacity", 1)
				return s
			}),
			want:      []string{"renamed Slices>Slicing +text"},
			unchanged: 3,
		},
		{
			name: "tiny sections are not paired by text",
			new: with(func(s []sec) []sec {
				s[0].id, s[0].title = "Exprs", "Exprs"     // empty text
				s[3].id, s[3].title = "Remarks", "Remarks" // three words
				return s
			}),
			// Removed ones stand where they stood: the empty chapter
			// first, "Notes" after "Bounds".
			want:      []string{"removed Expressions>-", "added ->Exprs", "removed Empty>-", "added ->Remarks"},
			unchanged: 2,
		},
		{
			name: "new id, same title, different text",
			new: with(func(s []sec) []sec {
				s[2].id = "Bounds2"
				s[2].text = "Nothing of the old text is left in this section at all, none."
				return s
			}),
			want:      []string{"removed Bounds>-", "added ->Bounds2"},
			unchanged: 3,
		},
		{
			name: "added",
			new: with(func(s []sec) []sec {
				return slices.Insert(s, 2, sec{"Conversions", "Expressions", "Conversions", "A conversion changes the type of an expression."})
			}),
			want:      []string{"added ->Conversions"},
			unchanged: 4,
		},
		{
			name: "removed, placed after its old neighbour",
			new: with(func(s []sec) []sec {
				return slices.Delete(s, 2, 3)
			}),
			want:      []string{"removed Bounds>-"},
			unchanged: 3,
		},
		{
			name: "removed before an added one at its place",
			new: with(func(s []sec) []sec {
				s[2] = sec{"Other", "Expressions", "Other", "Completely unrelated words about channels and goroutines here."}
				return s
			}),
			want:      []string{"removed Bounds>-", "added ->Other"},
			unchanged: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := rows("v1", base...)
			d := compare(t, old, rows("v2", tt.new...))
			want := tt.want
			if got := describeAll(d); !slices.Equal(got, want) {
				t.Errorf("items %q, want %q", got, want)
			}
			s := d.Summary
			if s.Unchanged != tt.unchanged {
				t.Errorf("unchanged = %d, want %d", s.Unchanged, tt.unchanged)
			}
			if n := s.Unchanged + s.Changed + s.Renamed + s.Added; n != len(tt.new) {
				t.Errorf("summary %+v accounts for %d new sections of %d", s, n, len(tt.new))
			}
			if n := s.Unchanged + s.Changed + s.Renamed + s.Removed; n != len(base) {
				t.Errorf("summary %+v accounts for %d old sections of %d", s, n, len(base))
			}
			if d.Unchanged() != (len(want) == 0) {
				t.Errorf("Unchanged() = %v", d.Unchanged())
			}
		})
	}
}

// The fields of matched pairs: similarity, refs, sentences.
func TestCompareItemFields(t *testing.T) {
	old := rows("v1", sec{"A", "", "Alpha", para1 + " " + para2})
	edited := strings.Replace(para2, "a bound on the capacity", "a maximum capacity", 1)
	d := compare(t, old, rows("v2", sec{"A", "", "Alpha", para1 + " " + edited}))
	if len(d.Items) != 1 {
		t.Fatalf("items %q", describeAll(d))
	}
	it := d.Items[0]
	if it.Old.Version != "v1" || it.New.Version != "v2" || it.Old.URL != "https://example.com/spec#A" || it.Chapter != "A" {
		t.Errorf("refs %+v %+v, chapter %q", it.Old, it.New, it.Chapter)
	}
	if it.Similarity <= 0.8 || it.Similarity >= 1 {
		t.Errorf("similarity %.3f, want between 0.8 and 1", it.Similarity)
	}
	want := []specdiff.SentenceChange{{
		Kind: specdiff.KindChanged, Class: specdiff.ClassRule, Old: para2, New: edited,
		Marked: "There are two variants: a simple form that specifies a low and high bound, and a full form that also specifies a [-bound on the-]{+maximum+} capacity.",
	}}
	if !slices.Equal(it.Sentences, want) || it.Truncated {
		t.Errorf("sentences %+v, truncated %v", it.Sentences, it.Truncated)
	}
}

// Greedy pairing by text: the most similar pair wins, each section is
// matched once.
func TestCompareBestPairFirst(t *testing.T) {
	text := "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty"
	near := strings.Replace(text, "twenty", "twenty-one", 1)
	old := rows("v1", sec{"Near", "", "Near", near}, sec{"Exact", "", "Exact", text})
	d := compare(t, old, rows("v2", sec{"New", "", "New", text}))
	if got, want := describeAll(d), []string{"removed Near>-", "renamed Exact>New"}; !slices.Equal(got, want) {
		t.Errorf("items %q, want %q", got, want)
	}
}

// Sections without text under one title (chapter headings whose anchors
// all changed) pair up in document order.
func TestCompareEmptySameTitle(t *testing.T) {
	old := rows("v1", sec{"ex", "", "Examples", ""}, sec{"ex-1", "", "Examples", ""}, sec{"ex-2", "", "Examples", ""})
	newer := rows("v2", sec{"examples-a", "", "Examples", ""}, sec{"examples-b", "", "Examples", ""})
	d := compare(t, old, newer)
	want := []string{"renamed ex>examples-a", "renamed ex-1>examples-b", "removed ex-2>-"}
	if got := describeAll(d); !slices.Equal(got, want) {
		t.Errorf("items %q, want %q", got, want)
	}
}

func TestCompareChapters(t *testing.T) {
	old := rows("v1",
		sec{"Types", "", "Types", "Every value has a type."},
		sec{"Slices", "Types", "Slice types", para1},
		sec{"Old", "Slices", "Old detail", "Gone in the new version of the text entirely."},
		sec{"Exprs", "", "Expressions", "An expression computes a value."},
		sec{"Index", "Exprs", "Index expressions", para3},
	)
	newer := rows("v2",
		sec{"Types", "", "Types", "Every value has a type."},
		sec{"Slices", "Types", "Slice types", para1 + " Slices are references."},
		sec{"Exprs", "", "Expressions", "An expression computes a value."},
		sec{"Index", "Exprs", "Indexing", para3},
		sec{"Calls", "Index", "Calls", "A call invokes a function."},
	)
	d := compare(t, old, newer)
	want := []specdiff.Chapter{
		{ID: "Types", Title: "Types", Changed: 1, Removed: 1},
		{ID: "Exprs", Title: "Expressions", Renamed: 1, Added: 1, Editorial: 1}, // the rename alone
	}
	if !slices.Equal(d.Summary.Chapters, want) {
		t.Errorf("chapters %+v, want %+v", d.Summary.Chapters, want)
	}
	var chapters []string
	for _, it := range d.Items {
		chapters = append(chapters, it.Chapter)
	}
	if want := []string{"Types", "Types", "Exprs", "Exprs"}; !slices.Equal(chapters, want) {
		t.Errorf("item chapters %q, want %q", chapters, want)
	}
}

// The JSON the MCP tool and the CLI will send: snake_case names, the
// side that is missing left out.
func TestDiffJSON(t *testing.T) {
	d := compare(t, rows("v1"), rows("v2", sec{"A", "", "Alpha", "text"}))
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"summary":{"added":1,"removed":0,"renamed":0,"changed":0,"unchanged":0,"chapters":[{"id":"A","title":"Alpha","added":1}],"classes":{"rule":1}},` +
		`"items":[{"kind":"added","new":{"section_id":"A","title":"Alpha","path":"Alpha","url":"https://example.com/spec#A","version":"v2"},"chapter":"A","similarity":0,"text_changed":false,` +
		`"sentences":[{"kind":"added","class":"rule","new":"text"}],"class":"rule"}]}`
	if string(b) != want {
		t.Errorf("JSON\n%s\nwant\n%s", b, want)
	}
	b, _ = json.Marshal(compare(t, nil, nil))
	if want := `{"summary":{"added":0,"removed":0,"renamed":0,"changed":0,"unchanged":0,"chapters":[]},"items":[]}`; string(b) != want {
		t.Errorf("empty diff JSON %s, want %s", b, want)
	}
}

// The MCP tool's output schema is inferred from Diff: the inference works,
// every field is described, and a diff with every kind of item validates.
func TestDiffSchema(t *testing.T) {
	schema, err := jsonschema.For[specdiff.Diff](nil)
	if err != nil {
		t.Fatal(err)
	}
	var undescribed func(path string, s *jsonschema.Schema)
	undescribed = func(path string, s *jsonschema.Schema) {
		for name, p := range s.Properties {
			if p.Description == "" {
				t.Errorf("%s.%s has no description", path, name)
			}
			undescribed(path+"."+name, p)
		}
		if s.Items != nil {
			undescribed(path+"[]", s.Items)
		}
	}
	undescribed("diff", schema)
	resolved, err := schema.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	old := rows("v1",
		sec{"A", "", "Alpha", para1 + " " + para2},
		sec{"B", "A", "Beta", para3},
		sec{"C", "A", "Gamma", "Removed text."},
	)
	newer := rows("v2",
		sec{"A", "", "Alpha", para1 + " " + strings.Replace(para2, "low", "lower", 1)},
		sec{"B2", "A", "Beta two", para3},
		sec{"D", "A", "Delta", "Added text."},
	)
	d := compare(t, old, newer)
	if got := describeAll(d); len(got) != 4 {
		t.Fatalf("items %q, want one of each kind", got)
	}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var instance any
	if err := json.Unmarshal(b, &instance); err != nil {
		t.Fatal(err)
	}
	if err := resolved.Validate(instance); err != nil {
		t.Errorf("%s\ndoes not validate: %v", b, err)
	}
}

// endingCtx is a context that ends after its Err has said "go on" a given
// number of times, and counts the looks after that.
type endingCtx struct {
	context.Context
	left, after int
}

func (c *endingCtx) Err() error {
	if c.left <= 0 {
		c.after++
		return context.Canceled
	}
	c.left--
	return nil
}

// A comparison of two large versions (seconds when every section changed)
// stops once its call ends, wherever it stands, and says why.
func TestCompareStopsWhenCancelled(t *testing.T) {
	var olds, news []sec
	for i := range 3000 {
		text := fmt.Sprintf("Section %d says one thing. It says it at length, in words of its own.", i)
		olds = append(olds, sec{fmt.Sprint("s", i), "", fmt.Sprint("Title ", i), text})
		news = append(news, sec{fmt.Sprint("s", i), "", fmt.Sprint("Title ", i), strings.Replace(text, "one", "another", 1)})
	}
	old, newer := rows("v1", olds...), rows("v2", news...)
	for _, left := range []int{0, 10, 150, 200} { // before, in the matching, in the diff
		ctx := &endingCtx{Context: context.Background(), left: left}
		d, err := specdiff.Compare(ctx, old, newer, specdiff.Options{})
		if !errors.Is(err, context.Canceled) || len(d.Items) != 0 {
			t.Errorf("ended after %d looks: err %v, %d items", left, err, len(d.Items))
		}
		// One more look in each of the five passes at most, then the end.
		if ctx.after > 6 {
			t.Errorf("ended after %d looks: Compare looked %d more times, so it went on", left, ctx.after)
		}
	}
	if d := compare(t, old, newer); len(d.Items) != 3000 {
		t.Errorf("not cancelled: %d items, want 3000", len(d.Items))
	}
}
