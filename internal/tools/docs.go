package tools

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/langspec/langspec/internal/apperr"
)

// The README's tool tables are written by WriteTable between these
// markers, one block per family: "<!-- tools:spec -->" … "<!-- /tools -->".
const (
	docsBegin = "<!-- tools:"
	docsEnd   = "<!-- /tools -->"
)

// WriteTable writes the Markdown table of one family's tools: what each
// does (its description's first sentence), its arguments with their bounds
// and defaults, and the fields of its result. The table comes from the tool
// values themselves, so it cannot drift from what a client is served.
func WriteTable(w *bytes.Buffer, category string) {
	w.WriteString("| tool | does | arguments | returns |\n|---|---|---|---|\n")
	for _, t := range Inventory() {
		if t.Category != category {
			continue
		}
		does := firstSentence(t.Def.Description)
		if t.Def.Name == GetCategoryTools {
			does = "Load the tool schemas of one category; its description lists the categories."
		}
		switch a := t.Def.Annotations; {
		case a == nil || a.ReadOnlyHint:
		case t.Category == CategoryMetaTools:
			does += " *Runs other tools, which may write.*"
		default:
			does += " *Writes.*"
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %s |\n", t.Def.Name, cell(does), cell(arguments(t.Def.InputSchema.(*jsonschema.Schema))), cell(returns(t.out)))
	}
}

// UpdateReadme rewrites every generated block of readme with the current
// tables. Errors: invalid_argument for a block without its end marker or
// naming an unknown family.
func UpdateReadme(readme []byte) ([]byte, error) {
	var out bytes.Buffer
	rest := readme
	for {
		i := bytes.Index(rest, []byte(docsBegin))
		if i < 0 {
			out.Write(rest)
			return out.Bytes(), nil
		}
		lineEnd := bytes.IndexByte(rest[i:], '\n')
		if lineEnd < 0 {
			return nil, apperr.New(apperr.InvalidArgument, "end the marker line", "README ends inside a %s marker", docsBegin)
		}
		marker := string(rest[i : i+lineEnd])
		category := strings.TrimSuffix(strings.TrimPrefix(marker, docsBegin), " -->")
		if !slices.Contains([]string{CategorySpec, CategoryManual, CategoryVault, CategoryBridge, CategoryMetaTools}, category) {
			return nil, apperr.New(apperr.InvalidArgument, "families: spec, manual, vault, bridge, meta", "README marker %q names no tool family", marker)
		}
		j := bytes.Index(rest[i:], []byte(docsEnd))
		if j < 0 {
			return nil, apperr.New(apperr.InvalidArgument, "close the block with "+docsEnd, "README block %q has no end marker", marker)
		}
		out.Write(rest[:i+lineEnd+1])
		WriteTable(&out, category)
		out.WriteString(docsEnd)
		rest = rest[i+j+len(docsEnd):]
	}
}

// firstSentence is s up to its first ". " that ends a sentence rather
// than a numbered step ("1. load…"), or all of s.
func firstSentence(s string) string {
	for i := strings.Index(s, ". "); i >= 0; {
		if i > 0 && (s[i-1] < '0' || s[i-1] > '9') {
			return s[:i+1]
		}
		next := strings.Index(s[i+2:], ". ")
		if next < 0 {
			break
		}
		i += 2 + next
	}
	return s
}

// arguments lists a schema's properties: the required ones first, then
// "optional" and the rest, each with its bounds and default.
func arguments(s *jsonschema.Schema) string {
	if len(s.Properties) == 0 {
		return "—"
	}
	var req, opt []string
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		arg := "`" + name + arrayMark(s.Properties[name]) + "`" + bounds(s.Properties[name])
		if slices.Contains(s.Required, name) {
			req = append(req, arg)
		} else {
			opt = append(opt, arg)
		}
	}
	parts := strings.Join(req, ", ")
	if len(opt) > 0 {
		if parts != "" {
			parts += "; "
		}
		parts += "optional " + strings.Join(opt, ", ")
	}
	return parts
}

// bounds renders a property's range, enum and default: " 1–50 (10)".
func bounds(p *jsonschema.Schema) string {
	var b strings.Builder
	if p.Minimum != nil && p.Maximum != nil {
		b.WriteString(" " + strconv.FormatFloat(*p.Minimum, 'f', -1, 64) + "–" + strconv.FormatFloat(*p.Maximum, 'f', -1, 64))
	}
	if len(p.Enum) > 0 {
		var vs []string
		for _, v := range p.Enum {
			vs = append(vs, fmt.Sprint(v))
		}
		b.WriteString(" (" + strings.Join(vs, " | ") + ")")
	}
	if len(p.Default) > 0 {
		b.WriteString(" (" + string(p.Default) + ")")
	}
	return b.String()
}

// returns lists the top-level fields of a result schema.
func returns(s *jsonschema.Schema) string {
	if s == nil {
		return "the called tool's result, as it returned it"
	}
	var fields []string
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		fields = append(fields, "`"+name+arrayMark(s.Properties[name])+"`")
	}
	return strings.Join(fields, ", ")
}

// arrayMark is "[]" for an array property (a Go slice is inferred as
// "array or null"), else "".
func arrayMark(p *jsonschema.Schema) string {
	if p.Type == "array" || slices.Contains(p.Types, "array") {
		return "[]"
	}
	return ""
}

// cell makes text safe inside a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "\n", " ")
}
