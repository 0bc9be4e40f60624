// Package corpusgen writes large document corpora for the scale benchmarks
// (issue 15): a Markdown specification of tens of thousands of sections,
// read by langspec's markdown reader like any user-declared source, a
// manuals folder of thousands of files for manual_find, and API reference
// pages of a few hundred kilobytes each, one section over the whole page,
// for the scans that read a page at a time (manual_excepts). The corpora are
// generated rather than committed (50,000 sections are about 80 MB), and
// are deterministic: a fixed seed, math/rand/v2's PCG, and a random stream
// per file, so the same call writes the same bytes on every machine and a
// smaller corpus is a prefix of a larger one, file for file.
package corpusgen

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Stats is what a Write call wrote.
type Stats struct {
	Sections int   // headings written; each is one section of the reader
	Files    int   // Markdown files written
	Bytes    int64 // bytes written, all of it UTF-8 Markdown text
}

// seed is fixed so every run on every machine writes the same corpus; each
// file draws from its own stream (seed, file number), which keeps a file's
// bytes independent of how many files come before or after it.
const seed = 15

// Streams of one seed that must not share numbers.
const (
	streamSpecFile   = 1 << 40
	streamSpecTitle  = 2 << 40
	streamManualFile = 3 << 40
)

// zipfS is the exponent of the word distribution: a little above 1, as
// measured on English text, so a few words are in nearly every section and
// most words of the vocabulary are in a handful.
const zipfS = 1.1

// newRand is the random stream number stream of the seed.
func newRand(stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, stream))
}

// words draws words of one vocabulary by Zipf rank.
type words struct {
	vocab []string
	zipf  *rand.Zipf
}

func newWords(r *rand.Rand, vocab []string) words {
	return words{vocab: vocab, zipf: rand.NewZipf(r, zipfS, 1, uint64(len(vocab)-1))}
}

func (w words) next() string { return w.vocab[w.zipf.Uint64()] }

// writeFile writes body to dir/rel, making the folders it needs.
func writeFile(dir, rel string, body []byte) error {
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("corpusgen: %w", err)
	}
	f, err := os.Create(p)
	if err != nil {
		return fmt.Errorf("corpusgen: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<16)
	_, err = w.Write(body)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("corpusgen: write %s: %w", p, err)
	}
	return nil
}

// capitalize upper-cases an ASCII first letter; other text is unchanged.
func capitalize(s string) string {
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

// githubSlug is the anchor GitHub and langspec's markdown reader give an
// ASCII heading: lower case, spaces to '-', other punctuation dropped. Only
// what generated headings hold is handled.
func githubSlug(title string) string {
	var b strings.Builder
	for _, c := range []byte(strings.ToLower(title)) {
		switch {
		case c == ' ':
			b.WriteByte('-')
		case c == '-' || c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			b.WriteByte(c)
		}
	}
	return b.String()
}

// SectionsEnv sets the size of the generated specification in the scale
// benchmarks; DefaultSections is issue 15's size, used without it.
const (
	SectionsEnv     = "LANGSPEC_SCALE_SECTIONS"
	DefaultSections = 50_000
)

// SectionsFromEnv is the specification size the scale benchmarks use:
// getenv(SectionsEnv) when set, else DefaultSections. Errors: the value is
// not a positive number.
func SectionsFromEnv(getenv func(string) string) (int, error) {
	s := getenv(SectionsEnv)
	if s == "" {
		return DefaultSections, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s=%q: want a number of sections, such as 10000", SectionsEnv, s)
	}
	return n, nil
}

// SpecConfig is a langspec.json declaring the specification written to
// corpusDir as a user's markdown source, language "scale", doc "spec", the
// way a user adds a document; a fixed version keeps the date out of the
// store.
func SpecConfig(corpusDir string) []byte {
	return fmt.Appendf(nil, `{"sources": [{
  "language": "scale", "doc": "spec", "display_name": "Generated specification (corpusgen)",
  "kind": "markdown", "local": [%q],
  "canonical_url": "https://scale.example/spec/", "source_policy": "full_text", "version": "1"
}]}`, corpusDir)
}
