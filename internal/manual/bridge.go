package manual

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/langspec/langspec/internal/apperr"
)

// SourceRef describes what was copied, for the copied file's metadata and
// the tool result. NodeID is empty for a whole file.
type SourceRef struct {
	ManualID  string `json:"manual_id" jsonschema:"the manual copied from"`
	Path      string `json:"path" jsonschema:"the file within the manual"`
	NodeID    string `json:"node_id,omitempty" jsonschema:"the section copied; absent for a whole file or a line range"`
	LineStart int    `json:"line_start" jsonschema:"first line copied, from 1"`
	LineEnd   int    `json:"line_end" jsonschema:"last line copied"`
	Encoding  string `json:"encoding,omitempty" jsonschema:"what the manual file's bytes were in, when not UTF-8 (cp932, euc-jp, iso-2022-jp, utf-16le, utf-16be); the copy is UTF-8"`
}

// Source renders "manual_id/path#node_id", or "manual_id/path" for a whole
// file: one string a reader can paste into a Section call.
func (r SourceRef) Source() string {
	s := r.ManualID + "/" + r.Path
	if r.NodeID != "" {
		s += "#" + r.NodeID
	}
	return s
}

// Lines renders the line range as "start-end".
func (r SourceRef) Lines() string {
	return strconv.Itoa(r.LineStart) + "-" + strconv.Itoa(r.LineEnd)
}

// SectionCopy returns the bytes to write into the vault for copied Markdown
// text (a section, or a whole .md file): a YAML front matter block recording
// where it came from, then the text unchanged, ending in a newline.
//
// source_manual_ids is a list so that a note built from several manuals can
// name them all under the same key. Values are JSON strings, which are valid
// YAML double-quoted scalars, so no manual name or path can break the block.
// If the text has front matter of its own (a copied preamble), it follows
// ours as plain text; readers take the first block.
func SectionCopy(text string, ref SourceRef, now time.Time) []byte {
	var b bytes.Buffer
	b.WriteString("---\n")
	b.WriteString("source_manual_ids: [" + jsonString(ref.ManualID) + "]\n")
	b.WriteString("source: " + jsonString(ref.Source()) + "\n")
	b.WriteString("source_lines: " + jsonString(ref.Lines()) + "\n")
	b.WriteString("copied_at: " + jsonString(now.UTC().Format(time.RFC3339)) + "\n")
	if ref.Encoding != "" {
		b.WriteString("source_encoding: " + jsonString(ref.Encoding) + "\n")
	}
	b.WriteString("---\n\n")
	b.WriteString(text)
	if !strings.HasSuffix(text, "\n") {
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// jsonCopy is the vault file for a copied JSON manual. Metadata cannot go
// inside arbitrary JSON (the top level may be an array, or already use the
// keys), and a sidecar file could be separated from its data, so the copy
// wraps the original: the metadata keys, then "content" holding the original
// value. Key order and number literals of the original are kept, because it
// is embedded as json.RawMessage and never decoded; only its whitespace is
// re-indented.
type jsonCopy struct {
	SourceManualIDs []string        `json:"source_manual_ids"`
	Source          string          `json:"source"`
	SourceLines     string          `json:"source_lines"`
	CopiedAt        string          `json:"copied_at"`
	SourceEncoding  string          `json:"source_encoding,omitempty"`
	Content         json.RawMessage `json:"content"`
}

// JSONCopy returns the bytes to write into the vault for a whole JSON
// manual file; see jsonCopy for the shape. Errors: invalid_argument if raw is
// not valid JSON.
func JSONCopy(raw []byte, ref SourceRef, now time.Time) ([]byte, error) {
	raw = bytes.TrimPrefix(raw, []byte("\ufeff"))
	if !json.Valid(raw) {
		return nil, apperr.New(apperr.InvalidArgument, "only valid JSON files can be copied as JSON",
			"manual file %s is not valid JSON", apperr.Quote(ref.Source()))
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // "<" in a threshold description stays readable
	enc.SetIndent("", "  ")
	err := enc.Encode(jsonCopy{
		SourceManualIDs: []string{ref.ManualID},
		Source:          ref.Source(),
		SourceLines:     ref.Lines(),
		CopiedAt:        now.UTC().Format(time.RFC3339),
		SourceEncoding:  ref.Encoding,
		Content:         json.RawMessage(raw),
	})
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "", "encode JSON copy of %s: %v", apperr.Quote(ref.Source()), err)
	}
	return b.Bytes(), nil
}

func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}
