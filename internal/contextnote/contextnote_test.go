package contextnote

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/langspec/langspec/internal/apperr"
)

func TestParseTarget(t *testing.T) {
	tests := []struct {
		in      string
		want    Target
		canon   string
		invalid bool
	}{
		{in: "langspec://go/spec", want: Target{Language: "go", Doc: "spec"}, canon: "langspec://go/spec"},
		{in: "langspec://go", want: Target{Language: "go"}, canon: "langspec://go"},
		{in: "langspec://manuals/kasai-hoken", want: Target{Manual: "kasai-hoken"}, canon: "langspec://manuals/kasai-hoken/"},
		{in: "langspec://manuals/kasai-hoken/", want: Target{Manual: "kasai-hoken"}, canon: "langspec://manuals/kasai-hoken/"},
		{in: "langspec://manuals/kasai-hoken/参考/", want: Target{Manual: "kasai-hoken", Path: "参考/"}, canon: "langspec://manuals/kasai-hoken/参考/"},
		{in: "langspec://manuals/m/a/b.md", want: Target{Manual: "m", Path: "a/b.md"}, canon: "langspec://manuals/m/a/b.md"},
		// A Mac writes names in NFD; notes compare them in NFC.
		{in: "langspec://manuals/m/\u30ab\u3099\u30a4\u30c8\u3099.md", want: Target{Manual: "m", Path: "\u30ac\u30a4\u30c9.md"}, canon: "langspec://manuals/m/\u30ac\u30a4\u30c9.md"},
		{in: "langspec://manuals/m/%E5%8F%82%E8%80%83/", want: Target{Manual: "m", Path: "参考/"}, canon: "langspec://manuals/m/参考/"},
		{in: "go/spec", invalid: true},
		{in: "https://go.dev/ref/spec", invalid: true},
		{in: "langspec://", invalid: true},
		{in: "langspec://manuals/", invalid: true},
		{in: "langspec://manuals/m/../x.md", invalid: true},
		{in: "langspec://manuals/m/a//b.md", invalid: true},
		{in: "langspec://manuals/m/./a.md", invalid: true},
		{in: "langspec://manuals/m/a\\b.md", invalid: true},
		{in: "langspec://go/spec/extra", invalid: true},
		{in: "langspec://../etc", invalid: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseTarget(tt.in)
			if tt.invalid {
				if apperr.CodeOf(err) != apperr.InvalidArgument {
					t.Fatalf("ParseTarget(%q) = %+v, %v; want invalid_argument", tt.in, got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want || got.String() != tt.canon {
				t.Fatalf("ParseTarget(%q) = %+v (%s); want %+v (%s)", tt.in, got, got, tt.want, tt.canon)
			}
			again, err := ParseTarget(got.String())
			if err != nil || again != got {
				t.Fatalf("the canonical form %s reads back as %+v, %v", got, again, err)
			}
		})
	}
}

func TestManualTarget(t *testing.T) {
	root := filepath.Join(t.TempDir(), "manuals")
	tests := []struct {
		p     string
		dir   bool
		want  string
		error bool
	}{
		{p: filepath.Join(root, "kasai"), dir: true, want: "langspec://manuals/kasai/"},
		{p: filepath.Join(root, "kasai", "参考"), dir: true, want: "langspec://manuals/kasai/参考/"},
		{p: filepath.Join(root, "kasai", "参考", "x.md"), want: "langspec://manuals/kasai/参考/x.md"},
		{p: root, dir: true, error: true},
		{p: filepath.Dir(root), dir: true, error: true},
		{p: filepath.Join(filepath.Dir(root), "elsewhere", "x.md"), error: true},
	}
	for _, tt := range tests {
		got, err := ManualTarget(root, tt.p, tt.dir)
		if tt.error {
			if apperr.CodeOf(err) != apperr.InvalidArgument {
				t.Errorf("ManualTarget(%s) = %s, %v; want invalid_argument", tt.p, got, err)
			}
			continue
		}
		if err != nil || got.String() != tt.want {
			t.Errorf("ManualTarget(%s) = %s, %v; want %s", tt.p, got, err, tt.want)
		}
	}
}

func TestCovers(t *testing.T) {
	tests := []struct {
		note, hit string
		want      bool
	}{
		{"langspec://go", "langspec://go/spec", true},
		{"langspec://go/spec", "langspec://go/spec", true},
		{"langspec://go/spec", "langspec://go/memory-model", false},
		{"langspec://go", "langspec://rust/reference", false},
		{"langspec://manuals/m/", "langspec://manuals/m/a/b.md", true},
		{"langspec://manuals/m/a/", "langspec://manuals/m/a/b.md", true},
		{"langspec://manuals/m/a/", "langspec://manuals/m/ab/b.md", false},
		{"langspec://manuals/m/a/b.md", "langspec://manuals/m/a/b.md", true},
		{"langspec://manuals/m/a/b.md", "langspec://manuals/m/a/b.mdx", false},
		{"langspec://manuals/m/", "langspec://manuals/m2/a.md", false},
		{"langspec://manuals/m/", "langspec://m/spec", false},
	}
	for _, tt := range tests {
		n, _ := ParseTarget(tt.note)
		h, _ := ParseTarget(tt.hit)
		if got := n.Covers(h); got != tt.want {
			t.Errorf("%s covers %s = %v, want %v", tt.note, tt.hit, got, tt.want)
		}
	}
}

func TestCheckText(t *testing.T) {
	for _, bad := range []string{"", "  \n", strings.Repeat("あ", MaxTextRunes+1), "bell\a", "\xff\xfe"} {
		if err := CheckText(bad); apperr.CodeOf(err) != apperr.InvalidArgument {
			t.Errorf("CheckText(%q) = %v; want invalid_argument", bad, err)
		}
	}
	for _, good := range []string{"one line", "two\nlines\twith a tab", strings.Repeat("あ", MaxTextRunes)} {
		if err := CheckText(good); err != nil {
			t.Errorf("CheckText(%q) = %v", good, err)
		}
	}
}

// TestCoverEachNoteOnce: an answer carries each covering note once, with
// the hits it covers, the widest first — never a note per hit.
func TestCoverEachNoteOnce(t *testing.T) {
	set, err := NewSet(map[string]ConfigNote{
		"langspec://manuals/m/":         {Text: "the manual"},
		"langspec://manuals/m/ref/":     {Text: "another product", Aside: true},
		"langspec://manuals/m/ref/x.md": {Text: "the old edition"},
		"langspec://manuals/other/":     {Text: "not in the answer"},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := set.Cover([]Target{{Manual: "m", Path: "a.md"}, {Manual: "m", Path: "ref/x.md"}, {Manual: "m", Path: "ref/y.md"}, {Manual: "z", Path: "a.md"}})
	want := []string{
		"langspec://manuals/m/ [1 2 3] false the manual",
		"langspec://manuals/m/ref/ [2 3] true another product",
		"langspec://manuals/m/ref/x.md [2] false the old edition",
	}
	if len(got) != len(want) {
		t.Fatalf("Cover = %+v; want %d notes", got, len(want))
	}
	for i, c := range got {
		if s := fmt.Sprintf("%s %v %v %s", c.Target, c.Hits, c.Aside, c.Text); s != want[i] {
			t.Errorf("note %d = %s; want %s", i, s, want[i])
		}
	}
	if set.Cover([]Target{{Language: "go", Doc: "spec"}}) != nil {
		t.Error("notes on manuals covered a spec hit")
	}
	nfc, err := NewSet(map[string]ConfigNote{"langspec://manuals/m/\u30ac\u30a4\u30c9/": {Text: "guides"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := nfc.Cover([]Target{{Manual: "m", Path: "\u30ab\u3099\u30a4\u30c8\u3099/a.md"}}); len(c) != 1 {
		t.Error("a note did not cover a file whose folder is named in NFD on disk")
	}
	var none *Set
	if none.Cover([]Target{{Manual: "m"}}) != nil || none.For(Target{Manual: "m"}) != nil {
		t.Error("a nil set covered something")
	}
}

func TestConfigNoteWinsAndBadConfig(t *testing.T) {
	set, err := NewSet(map[string]ConfigNote{"langspec://go/spec": {Text: "from the config"}},
		[]Note{{Target: "langspec://go/spec", Text: "from state", From: FromState}, {Target: "langspec://rust", Text: "rust", From: FromState}})
	if err != nil {
		t.Fatal(err)
	}
	notes := set.All()
	if len(notes) != 2 || notes[0].Target != "langspec://rust" || notes[1].Text != "from the config" || notes[1].From != FromConfig {
		t.Fatalf("All = %+v; want rust's (wider) first, then the config's note on go/spec", notes)
	}
	for _, bad := range []map[string]ConfigNote{
		{"go/spec": {Text: "x"}},
		{"langspec://go/spec": {Text: ""}},
		{"langspec://manuals/m/../etc/": {Text: "x"}},
	} {
		if _, err := NewSet(bad, nil); apperr.CodeOf(err) != apperr.InvalidArgument {
			t.Errorf("NewSet(%v) = %v; want invalid_argument", bad, err)
		}
	}
}

func TestStore(t *testing.T) {
	s := &Store{Path: filepath.Join(t.TempDir(), "state", "context.jsonl")}
	if notes, err := s.Notes(); err != nil || len(notes) != 0 {
		t.Fatalf("a missing file holds %v, %v", notes, err)
	}
	goSpec := Target{Language: "go", Doc: "spec"}
	if replaced, err := s.Add(goSpec, "first", false); err != nil || replaced {
		t.Fatalf("Add = %v, %v", replaced, err)
	}
	if replaced, err := s.Add(goSpec, "second", true); err != nil || !replaced {
		t.Fatalf("Add again = %v, %v; want replaced", replaced, err)
	}
	folder := Target{Manual: "m", Path: "ref/"}
	if _, err := s.Add(folder, "a folder", false); err != nil {
		t.Fatal(err)
	}
	notes, err := s.Notes()
	if err != nil || len(notes) != 2 || notes[0].Text != "second" || !notes[0].Aside || notes[1].Target != folder.String() {
		t.Fatalf("Notes = %+v, %v", notes, err)
	}
	if err := s.Remove(goSpec); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(goSpec); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("removing twice = %v; want not_found", err)
	}
	if _, err := s.Add(folder, "", false); apperr.CodeOf(err) != apperr.InvalidArgument {
		t.Fatalf("an empty note = %v; want invalid_argument", err)
	}
	// A line cut short (a full disk) loses that line only.
	f, err := os.OpenFile(s.Path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"op":"add","target":"langspec://py`)
	f.Close()
	if notes, err := s.Notes(); err != nil || len(notes) != 1 || notes[0].Text != "a folder" {
		t.Fatalf("after a torn line Notes = %+v, %v", notes, err)
	}
	if fi, err := os.Stat(s.Path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the state file's mode = %v, %v; want 0600", fi.Mode(), err)
	}
}

// TestStoreConcurrentAdds: writers in parallel (two `langspec context add`
// at once, or a run beside a server) lose nothing: each add is one
// appended line.
func TestStoreConcurrentAdds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "context.jsonl")
	const n = 40
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			s := &Store{Path: path} // each its own, as separate processes are
			if _, err := s.Add(Target{Manual: "m", Path: fmt.Sprintf("f%02d.md", i)}, strings.Repeat("note ", 90), false); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	notes, err := (&Store{Path: path}).Notes()
	if err != nil || len(notes) != n {
		t.Fatalf("%d notes after %d concurrent adds (%v)", len(notes), n, err)
	}
}

func TestSourceSeesNewNotes(t *testing.T) {
	store := &Store{Path: filepath.Join(t.TempDir(), "context.jsonl")}
	src := &Source{Config: map[string]ConfigNote{"langspec://go": {Text: "config"}}, Store: store}
	set, err := src.Set()
	if err != nil || set.Len() != 1 {
		t.Fatalf("Set = %v, %v", set.All(), err)
	}
	if _, err := (&Store{Path: store.Path}).Add(Target{Manual: "m"}, "added by another process", false); err != nil {
		t.Fatal(err)
	}
	set, err = src.Set()
	if err != nil || set.Len() != 2 {
		t.Fatalf("after an add elsewhere Set = %v, %v; want 2 notes", set.All(), err)
	}
	var nilSrc *Source
	if set, err := nilSrc.Set(); set != nil || err != nil {
		t.Fatalf("a nil source = %v, %v", set, err)
	}
}
