package manual

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/eval/corpusgen"
	"github.com/langspec/langspec/internal/ingest/manualfile"
	"github.com/langspec/langspec/internal/text/normalize"
)

// exceptionsBefore is Exceptions as it was before it went linear, kept
// word for word as the reference the fast one must agree with: every
// line looked for its nodes among all of the file's nodes, and normalised
// its whole top-level section again (quadratic in a section's size).
func exceptionsBefore(l *Library, manualID string, paths []string, query string, maxHits int) (ExceptionResult, error) {
	res := ExceptionResult{ManualID: manualID, Hits: []ExceptionHit{}}
	if len(paths) == 0 {
		var err error
		if paths, err = l.Files(manualID); err != nil {
			return res, err
		}
	}
	vocabulary := ExceptionTerms()
	terms := make([]string, len(vocabulary))
	for i, t := range vocabulary {
		terms[i] = normalize.Normal(t)
	}
	q := normalize.Normal(query)
	for _, p := range paths {
		raw, err := l.Read(manualID, p)
		if apperr.CodeOf(err) == apperr.FileTooLarge {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s skipped: %s", p, err))
			continue
		}
		if err != nil {
			return res, err
		}
		lines := strings.Split(manualfile.NewSource(raw).Text(), "\n")
		nodes, err := l.Nodes(manualID, p)
		if err != nil {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s scanned as plain text: %s", p, err))
			nodes = []manualfile.Node{{Kind: manualfile.KindFile, NodeID: manualfile.FileID, Path: p, Title: path.Base(p), LineStart: 1, LineEnd: len(lines)}}
		}
		res.FilesScanned++
		for i, line := range lines {
			n, top := containingNodesBefore(nodes, i+1)
			if q != "" && !sectionHasBefore(lines, top, q) {
				continue
			}
			norm := normalize.Normal(line)
			var found []string
			for j, t := range terms {
				if strings.Contains(norm, t) {
					found = append(found, vocabulary[j])
				}
			}
			if len(found) == 0 {
				continue
			}
			if len(res.Hits) == maxHits {
				res.Truncated = true
				return res, nil
			}
			if r := []rune(line); len(r) > 200 {
				line = string(r[:200]) + "…"
			}
			res.Hits = append(res.Hits, ExceptionHit{Path: p, NodeID: n.NodeID, Title: n.Title, Line: i + 1, Terms: found, Text: line})
		}
	}
	return res, nil
}

func containingNodesBefore(nodes []manualfile.Node, line int) (deepest, outermost manualfile.Node) {
	for _, n := range nodes {
		if n.LineStart > line || line > n.LineEnd {
			continue
		}
		if deepest.NodeID == "" || n.Level >= deepest.Level {
			deepest = n
		}
		if outermost.NodeID == "" || n.Level < outermost.Level {
			outermost = n
		}
	}
	return deepest, outermost
}

func sectionHasBefore(lines []string, n manualfile.Node, q string) bool {
	if n.NodeID == "" {
		return false
	}
	end := min(n.LineEnd, len(lines))
	return strings.Contains(normalize.Normal(strings.Join(lines[n.LineStart-1:end], "\n")), q)
}

// sameExceptions runs both versions on one request and fails on any
// difference in the answer.
func sameExceptions(t *testing.T, lib *Library, manualID string, query string, maxHits int) {
	t.Helper()
	want, wantErr := exceptionsBefore(lib, manualID, nil, query, maxHits)
	got, err := lib.Exceptions(context.Background(), manualID, nil, query, maxHits)
	if fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("%s %q: error %v, before %v", manualID, query, err, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s %q max %d: the answer changed\n got %d hits %+v\nwant %d hits %+v", manualID, query, maxHits, len(got.Hits), got, len(want.Hits), want)
	}
}

// TestExceptionsAsBefore: the linear scan answers exactly as the quadratic
// one did, on the fixture manuals (Japanese and English, a broken JSON
// file), on generated API reference pages, and on random Markdown whose
// headings skip levels, repeat, and come after a preamble or front matter.
func TestExceptionsAsBefore(t *testing.T) {
	e := newEnv(t)
	mustWrite(t, filepath.Join(e.dir, "ops-en", "alerts", "broken.json"), "{\"note\": \"applies unless the pager is down\",\n")
	for _, id := range []string{"insurance-ja", "ops-en"} {
		for _, q := range []string{"", "保険金", "賠償", "pager is", "ＺＺＺＺ"} {
			for _, maxHits := range []int{3, 500} {
				sameExceptions(t, e.lib, id, q, maxHits)
			}
		}
	}
	// The larger two with fewer queries: the reference is quadratic.
	sameExceptions(t, e.lib, "kasai-hoken", "", 500)
	sameExceptions(t, e.lib, "kasai-hoken", "保険金", 500)
	sameExceptions(t, e.lib, "ops-handbook", "", 500)
	sameExceptions(t, e.lib, "ops-handbook", "failover", 500)

	if _, err := corpusgen.WriteReference(filepath.Join(e.dir, "reference"), 2, 4_000); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"", "error", "module 2"} {
		sameExceptions(t, e.lib, "reference", q, 500)
	}

	r := rand.New(rand.NewPCG(46, 10))
	for i := range 30 {
		dir := filepath.Join(e.dir, fmt.Sprintf("random-%02d", i))
		for f := range 1 + r.IntN(3) {
			mustWrite(t, filepath.Join(dir, fmt.Sprintf("f%d.md", f)), randomMarkdown(r))
		}
		for _, q := range []string{"", "alpha", "beta gamma", "gamma alpha", "対象", "ガ", "ss"} {
			sameExceptions(t, e.lib, fmt.Sprintf("random-%02d", i), q, 1+r.IntN(60))
		}
	}
}

// randomMarkdown is a small Markdown file of random headings (levels 1–6
// in any order, titles that repeat), lines with and without exception
// terms and query words, characters normalisation changes (half-width kana
// and voiced marks, ¨, marks, ß, spaces of all kinds), blank lines, CRLF
// line ends now and then, and a preamble or YAML front matter sometimes.
func randomMarkdown(r *rand.Rand) string {
	words := []string{"alpha", "beta", "gamma", "unless", "except", "Warning", "ただし", "対象外", "ALPHA", "ｂｅｔａ", "gamma\tbeta", "x", "対象",
		"ｶ", "ﾞ", "¨", "\u00a0", "\u0301", "ß", "  "}
	var b strings.Builder
	switch r.IntN(4) {
	case 0:
		b.WriteString("---\ntitle: alpha\n---\n")
	case 1:
		b.WriteString("A preamble line, except here.\n\n")
	}
	eol := "\n"
	if r.IntN(5) == 0 {
		eol = "\r\n"
	}
	for range r.IntN(40) {
		switch r.IntN(6) {
		case 0:
			b.WriteString(strings.Repeat("#", 1+r.IntN(6)) + " " + words[r.IntN(len(words))] + eol)
		case 1:
			b.WriteString(eol)
		default:
			for k := range 1 + r.IntN(6) {
				if k > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(words[r.IntN(len(words))])
			}
			b.WriteString(eol)
		}
	}
	return b.String()
}
