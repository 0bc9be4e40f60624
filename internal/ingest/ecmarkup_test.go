package ingest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
)

func ecmaSource() SourceSpec {
	return SourceSpec{
		Language: "javascript", Doc: "ecma262", Kind: KindEcmarkup, Entry: "index.html",
		CanonicalURL: "https://tc39.es/ecma262/",
		SourcePolicy: db.ExcerptOnly,
	}
}

var ecmarkupDir = filepath.Join("..", "..", "fixtures", "ecmarkup")

func TestReadEcmarkup(t *testing.T) {
	doc, err := readEcmarkup(context.Background(), ecmaSource(), chaptersDirReader{dir: ecmarkupDir})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Version != "draft-2026-11-20" {
		t.Errorf("version = %q, want draft-2026-11-20", doc.Version)
	}
	if len(doc.Failed) != 0 {
		t.Errorf("failed = %v", doc.Failed)
	}
	const base = "https://tc39.es/ecma262/#"
	want := []struct {
		id, parent, title string
		level             int
	}{
		{"sec-intro", "", "Introduction", 1},
		{"sec-scope", "", "1 Scope", 1},
		{"sec-conformance", "", "2 Conformance", 1},
		{"sec-normative-references", "", "3 Normative References", 1},
		{"sec-overview", "", "4 Overview", 1},
		{"sec-notational-conventions", "", "5 Notational Conventions", 1},
		{"sec-ecmascript-data-types-and-values", "", "6 ECMAScript Data Types and Values", 1},
		{"sec-abstract-operations", "", "7 Abstract Operations", 1},
		{"sec-type-conversion", "sec-abstract-operations", "7.1 Type Conversion", 2},
		{"sec-toprimitive", "sec-type-conversion", "7.1.1 ToPrimitive ( input [ , preferredType ] )", 3},
		{"sec-ordinarytoprimitive", "sec-toprimitive", "7.1.1.1 OrdinaryToPrimitive ( obj, hint )", 4},
		{"sec-toboolean", "sec-type-conversion", "7.1.2 ToBoolean ( arg )", 3},
		{"sec-tonumeric", "sec-type-conversion", "7.1.3 ToNumeric ( value )", 3},
		{"sec-tonumber", "sec-type-conversion", "7.1.4 ToNumber ( argument )", 3},
		{"sec-tonumber-applied-to-the-string-type", "sec-tonumber", "7.1.4.1 ToNumber Applied to the String Type", 4},
		{"sec-stringtonumber", "sec-tonumber-applied-to-the-string-type", "7.1.4.1.1 StringToNumber ( str )", 5},
		{"sec-grammar-summary", "", "Annex A (informative) Grammar Summary", 1},
		{"sec-additional-ecmascript-features-for-web-browsers", "", "Annex B (normative) Additional ECMAScript Features for Web Browsers", 1},
		{"sec-additional-syntax", "sec-additional-ecmascript-features-for-web-browsers", "B.1 Additional Syntax", 2},
		{"sec-html-like-comments", "sec-additional-syntax", "B.1.1 HTML-like Comments", 3},
	}
	if len(doc.Sections) != len(want) {
		for _, s := range doc.Sections {
			t.Logf("%s %q", s.SectionID, s.Title)
		}
		t.Fatalf("got %d sections, want %d", len(doc.Sections), len(want))
	}
	byID := map[string]db.Section{}
	for i, w := range want {
		s := doc.Sections[i]
		byID[s.SectionID] = s
		if s.SectionID != w.id || s.ParentID != w.parent || s.Title != w.title || s.Level != w.level || s.URL != base+w.id {
			t.Errorf("section %d = {%s %s %q %d %s}, want {%s %s %q %d %s}", i,
				s.SectionID, s.ParentID, s.Title, s.Level, s.URL, w.id, w.parent, w.title, w.level, base+w.id)
		}
		if s.SourcePolicy != db.ExcerptOnly {
			t.Errorf("%s policy = %q", s.SectionID, s.SourcePolicy)
		}
	}
	if p := byID["sec-ordinarytoprimitive"].Path; p != "7 Abstract Operations > 7.1 Type Conversion > "+
		"7.1.1 ToPrimitive ( input [ , preferredType ] ) > 7.1.1.1 OrdinaryToPrimitive ( obj, hint )" {
		t.Errorf("path = %q", p)
	}

	texts := []struct {
		id      string
		has     []string
		hasNot  []string
		comment string
	}{
		{id: "sec-toprimitive", comment: "steps keep their numbers and nesting; a note is text",
			has: []string{
				"It performs the following steps when called:\n\n1. If input is an Object, then\n" +
					"  a. Let converter be ? GetMethod(input, @@toPrimitive).\n" +
					"  b. If converter is not undefined, then\n" +
					"    i. Let hint be \"default\" when preferredType is absent,",
				"    iv. Throw a TypeError exception.\n  c. If preferredType is absent",
				"  d. Return ? OrdinaryToPrimitive(input, preferredType).\n2. Return input.",
				"Objects may change that by defining a @@toPrimitive method.",
			},
			hasNot: []string{"OrdinaryToPrimitive takes arguments"}}, // the subclause's text
		{id: "sec-toboolean", comment: "table rows are lines, cells split by tabs",
			has: []string{"Table 1: Sample of ToBoolean results", "Argument\tResult\n", "any Object\ttrue"}},
		{id: "sec-tonumber", comment: "code in a note keeps its lines",
			has: []string{"9. Assert: prim is a primitive value.\n10. Return ? ToNumber(prim).", "Number(\"  42  \");  // 42\nNumber(\"0x1F\");"}},
		{id: "sec-tonumber-applied-to-the-string-type", comment: "productions: optional symbols as in the source",
			has: []string{"Syntax\n\nStringNumericLiteral :::\n  StrWhiteSpace?\n  StrWhiteSpace? StrNumericLiteral StrWhiteSpace?\n",
				"StrNumericLiteral :::\n  StrDecimalLiteral\n  NonDecimalIntegerLiteral[~Sep]"}},
		{id: "sec-html-like-comments", has: []string{"SingleLineHTMLOpenComment ::\n  <!-- SingleLineCommentChars?"}},
		{id: "sec-additional-syntax", comment: "a clause with no text of its own is empty, not its child's"},
	}
	for _, tt := range texts {
		s := byID[tt.id]
		for _, h := range tt.has {
			if !strings.Contains(s.Text, h) {
				t.Errorf("%s (%s): text lacks %q:\n%s", tt.id, tt.comment, h, s.Text)
			}
		}
		for _, h := range tt.hasNot {
			if strings.Contains(s.Text, h) {
				t.Errorf("%s (%s): text holds %q:\n%s", tt.id, tt.comment, h, s.Text)
			}
		}
		if tt.has == nil && s.Text != "" {
			t.Errorf("%s: text = %q, want none", tt.id, s.Text)
		}
	}
	// The menu, its table of contents, the shortcut help and the title lines
	// are not in any clause.
	for _, s := range doc.Sections {
		for _, chrome := range []string{"Toggle shortcuts help", "Table of Contents", "Pins", "Search...", "Draft ECMA-262", "Language Specification"} {
			if strings.Contains(s.Text, chrome) {
				t.Errorf("%s text holds chrome %q", s.SectionID, chrome)
			}
		}
	}
}

func TestReadEcmarkupSkipsAndCollisions(t *testing.T) {
	page := `<div id="menu"><emu-clause id="sec-ghost"><h1>Ghost</h1></emu-clause></div>
<div id="spec-container"><h1 class="version">ECMA-262, 16<sup>th</sup> edition / June 2025</h1>
<emu-clause id="sec-a"><h1><span class="secnum">1</span> A</h1><p>First.</p><div class="aside">Aside.</div>
  <emu-clause id="sec-a"><h1><span class="secnum">1.1</span> Again A</h1><p>Second.</p></emu-clause>
  <p>After the subclause.</p>
</emu-clause>
<emu-clause id="sec-b"><h1><span class="secnum">2</span></h1>
  <emu-clause><h1>   </h1><p>No title: this text joins the clause around it.</p></emu-clause>
</emu-clause>
<p>Outside every clause.</p>
</div>`
	src := ecmaSource()
	src.Skip = []string{"div.aside", "[[bad selector"}
	doc, err := readEcmarkup(context.Background(), src, memPages{"index.html": page})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range doc.Sections {
		got = append(got, s.SectionID+"|"+s.Title+"|"+s.Text)
	}
	want := []string{
		"sec-a|1 A|First.\n\nAfter the subclause.",
		// A repeated id gets a unique one made from the title; the link
		// goes to the anchor the source has.
		"11_Again_A|1.1 Again A|Second.",
		"sec-b|2|No title: this text joins the clause around it.",
	}
	if strings.Join(got, "\n---\n") != strings.Join(want, "\n---\n") {
		t.Errorf("sections:\n%s\nwant:\n%s", strings.Join(got, "\n---\n"), strings.Join(want, "\n---\n"))
	}
	if doc.Version != "es2025" {
		t.Errorf("version = %q, want es2025", doc.Version)
	}

	if _, err := readEcmarkup(context.Background(), src, memPages{"index.html": "<p>not a spec</p>"}); apperr.CodeOf(err) != apperr.InvalidArgument {
		t.Errorf("page without clauses: err = %v, want invalid_argument", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := readEcmarkup(ctx, src, memPages{"index.html": page}); err != context.Canceled {
		t.Errorf("cancelled: err = %v", err)
	}
}

func TestEcmarkupVersion(t *testing.T) {
	tests := []struct{ versionLine, title, want string }{
		{"Draft ECMA-262 / November 20, 2026", "ECMAScript® 2027 Language Specification", "draft-2026-11-20"},
		{"Draft ECMA-262 / March 3, 2025", "", "draft-2025-03-03"},
		{"Draft ECMA-262", "ECMAScript® 2027 Language Specification", ""}, // a draft is never its title's edition
		{"ECMA-262, 16th edition / June 2025", "ECMAScript® 2025 Language Specification", "es2025"},
		{"", "ECMAScript® 2024 Language Specification", "es2024"},
		{"", "ECMAScript 2016 Language Specification", "es2016"},
		{"ECMA-262, 6th edition / June 2015", "", "es2015"},
		{"ECMA-262, 15th Edition / June 2024", "", "es2024"},
		{"", "Temporal proposal", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		if got := ecmarkupVersion(tt.versionLine, tt.title); got != tt.want {
			t.Errorf("ecmarkupVersion(%q, %q) = %q, want %q", tt.versionLine, tt.title, got, tt.want)
		}
	}
}

func TestStepNumber(t *testing.T) {
	tests := []struct {
		i, depth int
		want     string
	}{
		{1, 0, "1"}, {12, 0, "12"}, {1, 1, "a"}, {26, 1, "z"}, {27, 1, "aa"}, {1, 2, "i"}, {4, 2, "iv"},
		{14, 2, "xiv"}, {3, 3, "3"}, {2, 4, "b"},
	}
	for _, tt := range tests {
		if got := stepNumber(tt.i, tt.depth); got != tt.want {
			t.Errorf("stepNumber(%d, %d) = %q, want %q", tt.i, tt.depth, got, tt.want)
		}
	}
}
