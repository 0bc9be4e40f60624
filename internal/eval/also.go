package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/langspec/langspec/internal/apperr"
)

// ReadAlso reads a phrasings file, JSON Lines of {"case_id", "also":
// [phrasings]}: what a calling model sends beside each gold question
// (fixtures/gold/also/README.md says how the project's were written).
// name is used in errors. Errors: invalid_argument naming the line, for
// a malformed line, a case named twice or an empty phrasing.
func ReadAlso(r io.Reader, name string) (map[string][]string, error) {
	hint := `each line is {"case_id": "...", "also": ["another phrasing", ...]}`
	out := map[string][]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var l struct {
			CaseID string   `json:"case_id"`
			Also   []string `json:"also"`
		}
		bad := func(format string, args ...any) error {
			return apperr.New(apperr.InvalidArgument, hint, "%s:%d: %s", name, n, fmt.Sprintf(format, args...))
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			return nil, bad("%v", err)
		}
		if l.CaseID == "" {
			return nil, bad("no case_id")
		}
		if _, dup := out[l.CaseID]; dup {
			return nil, bad("case %q is named twice", l.CaseID)
		}
		for i, a := range l.Also {
			if strings.TrimSpace(a) == "" {
				return nil, bad("also[%d] of %q is empty", i, l.CaseID)
			}
		}
		out[l.CaseID] = l.Also
	}
	if err := sc.Err(); err != nil {
		return nil, apperr.Wrap(err, apperr.Unavailable, "", "read %s: %v", name, err)
	}
	return out, nil
}

// UnknownAlso lists the case ids of also that no case of ids names: a
// phrasings file written for another gold set, or out of date.
func UnknownAlso(also map[string][]string, ids map[string]bool) []string {
	var out []string
	for id := range also {
		if !ids[id] {
			out = append(out, id)
		}
	}
	return out
}
