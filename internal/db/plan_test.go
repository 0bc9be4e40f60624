package db

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestSectionByIDUsesTheIndex: get_section's usual lookup, an id as search
// results give it, seeks the (snapshot, section_id) index instead of
// reading every section of the scope.
func TestSectionByIDUsesTheIndex(t *testing.T) {
	ctx := context.Background()
	d, err := Open(ctx, filepath.Join(t.TempDir(), "langspec.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rows, err := d.sql.QueryContext(ctx, `EXPLAIN QUERY PLAN `+sectionsQuery(byExactID), "[1]", "Slice_expressions")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	got := strings.Join(plan, "; ")
	if !strings.Contains(got, "SEARCH sec USING INDEX") || !strings.Contains(got, "section_id=?") {
		t.Errorf("plan: %s", got)
	}
}
