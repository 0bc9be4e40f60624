package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"

	"github.com/langspec/langspec/internal/apperr"
)

// maxGoldBytes bounds one gold line and maxGoldCases the file.
const (
	maxGoldBytes = 1 << 20
	maxGoldCases = 10_000
)

// goldLine is what every gold case has: an id unique in its file.
type goldLine interface{ id() string }

func (c GoldCase) id() string   { return c.CaseID }
func (c SearchCase) id() string { return c.CaseID }

// readGold parses a gold file of T (JSON Lines; blank lines skipped, unknown
// fields refused). check returns the fields a case lacks or a problem with
// it, "" when it is good; fix may complete a case (a default facet). hint
// says what a line looks like. Errors: invalid_argument naming the file,
// the line and what was wrong.
func readGold[T goldLine](r io.Reader, name, hint string, check func(*T) string) ([]T, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxGoldBytes)
	var out []T
	seen := map[string]int{}
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var c T
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			return nil, apperr.Wrap(err, apperr.InvalidArgument, hint, "%s line %d: %v", name, line, err)
		}
		if problem := check(&c); problem != "" {
			return nil, apperr.New(apperr.InvalidArgument, hint, "%s line %d: %s", name, line, problem)
		}
		if prev, ok := seen[c.id()]; ok {
			return nil, apperr.New(apperr.InvalidArgument, "give every case its own case_id",
				"%s line %d: case_id %q already used on line %d", name, line, c.id(), prev)
		}
		seen[c.id()] = line
		if len(out) == maxGoldCases {
			return nil, apperr.New(apperr.InvalidArgument, "split the gold set", "%s has more than %d cases", name, maxGoldCases)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		return nil, apperr.Wrap(err, apperr.InvalidArgument, "keep each gold line under 1 MiB", "read %s: %v", name, err)
	}
	if len(out) == 0 {
		return nil, apperr.New(apperr.InvalidArgument, hint, "%s has no cases", name)
	}
	return out, nil
}

// field is a gold field's name and whether a case left it empty.
type field struct {
	name  string
	empty bool
}

// missing is "missing a, b" for the fields that are empty, or "".
func missing(fields ...field) string {
	var names []string
	for _, f := range fields {
		if f.empty {
			names = append(names, f.name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "missing " + strings.Join(names, ", ")
}
