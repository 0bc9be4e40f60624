package corpusgen

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readTree returns every file under dir by its slash path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// headings counts the Markdown heading lines of the files; generated code
// blocks hold no line starting with '#', so no fence tracking is needed.
func headings(files map[string][]byte) int {
	n := 0
	for _, b := range files {
		for line := range strings.SplitSeq(string(b), "\n") {
			if strings.HasPrefix(line, "# ") || strings.HasPrefix(line, "## ") || strings.HasPrefix(line, "### ") {
				n++
			}
		}
	}
	return n
}

func totalBytes(files map[string][]byte) int64 {
	var n int64
	for _, b := range files {
		n += int64(len(b))
	}
	return n
}

func sameTrees(t *testing.T, a, b map[string][]byte) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%d files, then %d", len(a), len(b))
	}
	for name, body := range a {
		if !bytes.Equal(body, b[name]) {
			t.Fatalf("%s differs between two runs", name)
		}
	}
}

func TestWriteSpec(t *testing.T) {
	for _, tc := range []struct {
		sections, files int
	}{
		{1, 1},
		{SectionsPerFile - 1, 1},
		{SectionsPerFile, 1},
		{SectionsPerFile + 1, 2},
		{1234, 3},
	} {
		dir1, dir2 := t.TempDir(), t.TempDir()
		st, err := WriteSpec(dir1, tc.sections)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := WriteSpec(dir2, tc.sections); err != nil {
			t.Fatal(err)
		}
		a, b := readTree(t, dir1), readTree(t, dir2)
		sameTrees(t, a, b)
		if st.Sections != tc.sections || st.Files != tc.files || len(a) != tc.files {
			t.Errorf("WriteSpec(%d): stats %+v, %d files on disk; want %d sections in %d files", tc.sections, st, len(a), tc.sections, tc.files)
		}
		if h := headings(a); h != tc.sections {
			t.Errorf("WriteSpec(%d): %d headings", tc.sections, h)
		}
		if n := totalBytes(a); n != st.Bytes {
			t.Errorf("WriteSpec(%d): stats say %d bytes, files hold %d", tc.sections, st.Bytes, n)
		}
	}
}

// TestWriteSpecPrefix: a smaller corpus is a prefix of a larger one, file
// for file, so figures at 10,000 and 50,000 sections describe one corpus.
func TestWriteSpecPrefix(t *testing.T) {
	small, big := t.TempDir(), t.TempDir()
	if _, err := WriteSpec(small, SectionsPerFile+10); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteSpec(big, 3*SectionsPerFile); err != nil {
		t.Fatal(err)
	}
	a, b := readTree(t, small), readTree(t, big)
	first := specFileName(0)
	if !bytes.Equal(a[first], b[first]) {
		t.Errorf("%s differs between a corpus of 2 files and one of 3", first)
	}
}

// TestWriteSpecShape checks what the benchmarks rely on: about 1.6 KB a
// section, code blocks and links present, and the query words in the text.
func TestWriteSpecShape(t *testing.T) {
	dir := t.TempDir()
	st, err := WriteSpec(dir, 2*SectionsPerFile)
	if err != nil {
		t.Fatal(err)
	}
	if per := st.Bytes / int64(st.Sections); per < 1400 || per > 1800 {
		t.Errorf("%d bytes a section, want about 1600", per)
	}
	text := string(bytes.Join(func() [][]byte {
		var out [][]byte
		for _, b := range readTree(t, dir) {
			out = append(out, b)
		}
		return out
	}(), nil))
	for _, want := range []string{"```go\n", "](#", "](chapter-00001.md#", " receiver ", " method ", " value "} {
		if !strings.Contains(text, want) {
			t.Errorf("the corpus holds no %q", want)
		}
	}
}

func TestWriteManuals(t *testing.T) {
	for _, files := range []int{1, 3, FilesPerFolder + 1, 120} {
		dir1, dir2 := t.TempDir(), t.TempDir()
		st, err := WriteManuals(dir1, files)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := WriteManuals(dir2, files); err != nil {
			t.Fatal(err)
		}
		a, b := readTree(t, dir1), readTree(t, dir2)
		sameTrees(t, a, b)
		if st.Files != files || len(a) != files {
			t.Errorf("WriteManuals(%d): stats %+v, %d files on disk", files, st, len(a))
		}
		if h := headings(a); h != st.Sections {
			t.Errorf("WriteManuals(%d): stats say %d sections, files hold %d headings", files, st.Sections, h)
		}
		if n := totalBytes(a); n != st.Bytes {
			t.Errorf("WriteManuals(%d): stats say %d bytes, files hold %d", files, st.Bytes, n)
		}
	}
}

func TestWriteRejectsNothing(t *testing.T) {
	if _, err := WriteSpec(t.TempDir(), 0); err == nil {
		t.Error("WriteSpec(0) succeeded")
	}
	if _, err := WriteManuals(t.TempDir(), 0); err == nil {
		t.Error("WriteManuals(0) succeeded")
	}
}

func TestVocabularyUnique(t *testing.T) {
	for name, head := range map[string][]string{"specHead": specHead, "manualHeadEN": manualHeadEN, "manualHeadJA": manualHeadJA, "referenceHead": referenceHead} {
		seen := map[string]bool{}
		for _, w := range head {
			if seen[w] {
				t.Errorf("%s lists %q twice: a word's rank is its frequency", name, w)
			}
			seen[w] = true
		}
	}
	seen := map[string]bool{}
	for i := range specTail {
		w := tailWord(i)
		if seen[w] {
			t.Fatalf("tailWord(%d) = %q repeats", i, w)
		}
		seen[w] = true
	}
}

// BenchmarkWriteSpec is the generator's own speed: it must not dominate
// the benchmarks that use it.
func BenchmarkWriteSpec(b *testing.B) {
	for b.Loop() {
		st, err := WriteSpec(b.TempDir(), 5000)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(st.Bytes)
	}
}

func TestSectionsFromEnv(t *testing.T) {
	tests := []struct {
		value   string
		want    int
		wantErr bool
	}{
		{"", DefaultSections, false},
		{"5000", 5000, false},
		{"0", 0, true},
		{"-3", 0, true},
		{"many", 0, true},
	}
	for _, tt := range tests {
		got, err := SectionsFromEnv(func(k string) string {
			if k == SectionsEnv {
				return tt.value
			}
			return ""
		})
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("%s=%q: %d, %v; want %d, error %v", SectionsEnv, tt.value, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestWriteReference(t *testing.T) {
	const size = 20_000
	dir1, dir2 := t.TempDir(), t.TempDir()
	st, err := WriteReference(dir1, 3, size)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteReference(dir2, 3, size); err != nil {
		t.Fatal(err)
	}
	a, b := readTree(t, dir1), readTree(t, dir2)
	sameTrees(t, a, b)
	if st.Files != 3 || len(a) != 3 || totalBytes(a) != st.Bytes || headings(a) != st.Sections {
		t.Errorf("stats %+v; on disk %d files, %d bytes, %d headings", st, len(a), totalBytes(a), headings(a))
	}
	for name, body := range a {
		page := string(body)
		// One top-level section per page, the whole page: the shape that
		// puts a page in a query's scope at once.
		if !strings.HasPrefix(page, "# ") || strings.Count(page, "\n# ") != 0 {
			t.Errorf("%s: want one leading top-level heading", name)
		}
		if len(body) < size || len(body) > 2*size {
			t.Errorf("%s: %d bytes, want about %d", name, len(body), size)
		}
		exceptions := 0
		for _, w := range []string{"unless", "Warning:", "except", "Caution:", "excluded", "does not apply", "ただし"} {
			exceptions += strings.Count(page, w)
		}
		if !strings.Contains(page, "error") || exceptions < 3 {
			t.Errorf("%s: %d exception sentences, error named %d times", name, exceptions, strings.Count(page, "error"))
		}
	}
	if _, err := WriteReference(t.TempDir(), 0, size); err == nil {
		t.Error("no files: no error")
	}
}
