package audit

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/vault"
)

// mustOpenVault opens an empty vault in a temp folder.
func mustOpenVault(tb testing.TB) *vault.Vault {
	tb.Helper()
	v, err := vault.Open(filepath.Join(tb.TempDir(), "vault"), vault.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { v.Close() })
	return v
}

// mustPut creates or overwrites a vault file; under .system/, as langspec
// does, since the model's writes may not go there.
func mustPut(tb testing.TB, v *vault.Vault, p, data string) {
	tb.Helper()
	create, overwrite := v.Create, v.Overwrite
	if strings.HasPrefix(p, ".system/") {
		create, overwrite = v.System().Create, v.System().Overwrite
	}
	if _, err := create(p, []byte(data)); apperr.CodeOf(err) == apperr.AlreadyExists {
		_, err = overwrite(p, []byte(data))
		if err != nil {
			tb.Fatal(err)
		}
	} else if err != nil {
		tb.Fatal(err)
	}
}

// numbered returns n lines "line 1\n" … "line n\n".
func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestMergeRanges(t *testing.T) {
	tests := []struct {
		name string
		in   [][2]int
		want [][2]int
	}{
		{"empty", nil, nil},
		{"one", [][2]int{{3, 5}}, [][2]int{{3, 5}}},
		{"unsorted disjoint", [][2]int{{10, 12}, {1, 2}}, [][2]int{{1, 2}, {10, 12}}},
		{"overlap", [][2]int{{1, 5}, {3, 8}}, [][2]int{{1, 8}}},
		{"adjacent", [][2]int{{1, 3}, {4, 5}}, [][2]int{{1, 5}}},
		{"contained", [][2]int{{1, 10}, {2, 3}}, [][2]int{{1, 10}}},
		{"gap of one line stays", [][2]int{{1, 3}, {5, 6}}, [][2]int{{1, 3}, {5, 6}}},
		{"invalid dropped", [][2]int{{5, 4}, {0, 3}, {2, 2}}, [][2]int{{2, 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mergeRanges(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("mergeRanges(%v) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestComplement(t *testing.T) {
	tests := []struct {
		name  string
		in    [][2]int
		total int
		want  [][2]int
	}{
		{"nothing covered", nil, 5, [][2]int{{1, 5}}},
		{"all covered", [][2]int{{1, 5}}, 5, nil},
		{"middle", [][2]int{{2, 3}}, 5, [][2]int{{1, 1}, {4, 5}}},
		{"two holes", [][2]int{{1, 2}, {4, 4}}, 6, [][2]int{{3, 3}, {5, 6}}},
		{"empty file", nil, 0, nil},
		{"range past end", [][2]int{{3, 9}}, 5, [][2]int{{1, 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := complement(tt.in, tt.total); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("complement(%v, %d) = %v, want %v", tt.in, tt.total, got, tt.want)
			}
		})
	}
}

func TestRecordCoverage(t *testing.T) {
	type rec struct{ start, end int }
	tests := []struct {
		name      string
		content   string
		records   []rec
		change    string // if set, the file is overwritten after the records
		after     []rec  // records after the change
		want      Report
		wantError apperr.Code
	}{
		{
			name:    "nothing recorded",
			content: numbered(10),
			want:    Report{TotalLines: 10, Covered: [][2]int{}, Uncovered: [][2]int{{1, 10}}, CoverageRatio: 0, NextActions: []string{"vault_scan"}},
		},
		{
			name:    "ranges merge",
			content: numbered(10),
			records: []rec{{1, 3}, {4, 5}, {8, 9}},
			want:    Report{TotalLines: 10, Covered: [][2]int{{1, 5}, {8, 9}}, Uncovered: [][2]int{{6, 7}, {10, 10}}, CoverageRatio: 0.7, NextActions: []string{"vault_scan"}},
		},
		{
			name:    "at threshold",
			content: numbered(10),
			records: []rec{{2, 10}},
			want:    Report{TotalLines: 10, Covered: [][2]int{{2, 10}}, Uncovered: [][2]int{{1, 1}}, CoverageRatio: 0.9, NextActions: []string{}},
		},
		{
			name:    "all read",
			content: numbered(4),
			records: []rec{{1, 4}},
			want:    Report{TotalLines: 4, Covered: [][2]int{{1, 4}}, Uncovered: [][2]int{}, CoverageRatio: 1, NextActions: []string{}},
		},
		{
			name:    "last line without newline counts",
			content: "a\nb",
			records: []rec{{2, 2}},
			want:    Report{TotalLines: 2, Covered: [][2]int{{2, 2}}, Uncovered: [][2]int{{1, 1}}, CoverageRatio: 0.5, NextActions: []string{"vault_scan"}},
		},
		{
			name:    "content change resets",
			content: numbered(10),
			records: []rec{{1, 10}},
			change:  numbered(10) + "line 11\n",
			want:    Report{TotalLines: 11, Covered: [][2]int{}, Uncovered: [][2]int{{1, 11}}, CoverageRatio: 0, NextActions: []string{"vault_scan"}},
		},
		{
			name:    "same length change resets too",
			content: numbered(4),
			records: []rec{{1, 4}},
			change:  "x\ny\nz\nw\n",
			after:   []rec{{1, 1}},
			want:    Report{TotalLines: 4, Covered: [][2]int{{1, 1}}, Uncovered: [][2]int{{2, 4}}, CoverageRatio: 0.25, NextActions: []string{"vault_scan"}},
		},
		{
			name:    "empty file",
			content: "",
			want:    Report{TotalLines: 0, Covered: [][2]int{}, Uncovered: [][2]int{}, CoverageRatio: 1, NextActions: []string{}},
		},
		{name: "range past end", content: numbered(3), records: []rec{{2, 4}}, wantError: apperr.InvalidArgument},
		{name: "start 0", content: numbered(3), records: []rec{{0, 1}}, wantError: apperr.InvalidArgument},
		{name: "end before start", content: numbered(3), records: []rec{{3, 2}}, wantError: apperr.InvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := mustOpenVault(t)
			mustPut(t, v, "notes/a.md", tt.content)
			var err error
			for _, r := range tt.records {
				if err = Record(v, "notes/a.md", r.start, r.end); err != nil {
					break
				}
			}
			if tt.wantError != "" {
				if apperr.CodeOf(err) != tt.wantError {
					t.Fatalf("Record error = %v, want code %s", err, tt.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.change != "" {
				mustPut(t, v, "notes/a.md", tt.change)
			}
			for _, r := range tt.after {
				if err := Record(v, "notes/a.md", r.start, r.end); err != nil {
					t.Fatal(err)
				}
			}
			got, err := Coverage(context.Background(), v, "notes/a.md")
			if err != nil {
				t.Fatal(err)
			}
			tt.want.Path = "notes/a.md"
			tt.want.CitedByArtifacts = [][2]int{}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Coverage =\n %+v\nwant\n %+v", got, tt.want)
			}
		})
	}
}

func TestCoverageErrors(t *testing.T) {
	v := mustOpenVault(t)
	mustPut(t, v, "notes/a.md", "x\n")
	tests := []struct {
		name string
		path string
		want apperr.Code
	}{
		{"missing", "notes/none.md", apperr.NotFound},
		{"outside", "../x.md", apperr.PathOutsideVault},
		{"folder", "notes", apperr.IsADirectory},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Coverage(context.Background(), v, tt.path); apperr.CodeOf(err) != tt.want {
				t.Errorf("Coverage error = %v, want %s", err, tt.want)
			}
			if err := Record(v, tt.path, 1, 1); apperr.CodeOf(err) != tt.want {
				t.Errorf("Record error = %v, want %s", err, tt.want)
			}
		})
	}
}

// TestCoverageStoreCorrupt: a store someone broke is derived data; it is
// read as empty and rewritten by the next Record.
func TestCoverageStoreCorrupt(t *testing.T) {
	for _, junk := range []string{"not json", `{"version":99,"files":{}}`, ""} {
		t.Run(junk, func(t *testing.T) {
			v := mustOpenVault(t)
			mustPut(t, v, "notes/a.md", numbered(4))
			mustPut(t, v, CoveragePath, junk)
			if r, err := Coverage(context.Background(), v, "notes/a.md"); err != nil || len(r.Covered) != 0 {
				t.Fatalf("Coverage = %+v, %v; want no coverage", r, err)
			}
			if err := Record(v, "notes/a.md", 1, 2); err != nil {
				t.Fatal(err)
			}
			if r, err := Coverage(context.Background(), v, "notes/a.md"); err != nil || !reflect.DeepEqual(r.Covered, [][2]int{{1, 2}}) {
				t.Fatalf("Coverage = %+v, %v; want [[1 2]]", r, err)
			}
		})
	}
}

// TestRecordConcurrent: concurrent Records must not lose each other's
// ranges (updateStore's compare-and-swap).
func TestRecordConcurrent(t *testing.T) {
	v := mustOpenVault(t)
	const n = 6
	mustPut(t, v, "notes/a.md", numbered(2*n))
	mustPut(t, v, "notes/b.md", numbered(2*n))
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := range n {
		for _, p := range []string{"notes/a.md", "notes/b.md"} {
			wg.Go(func() { errs <- Record(v, p, 2*i+1, 2*i+1) })
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"notes/a.md", "notes/b.md"} {
		r, err := Coverage(context.Background(), v, p)
		if err != nil {
			t.Fatal(err)
		}
		if countLines(r.Covered) != n {
			t.Errorf("%s: covered %v, want %d odd lines", p, r.Covered, n)
		}
	}
}
