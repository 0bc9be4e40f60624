package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/vault"
)

// Finding kinds.
const (
	KindNoSource        = "no_source"
	KindBadSource       = "bad_source"
	KindOrphanBranch    = "orphan_branch"
	KindOneWayReference = "one_way_reference"
	KindParseError      = "parse_error"
)

const (
	artifactsPrefix = "artifacts/"
	dailyPrefix     = "artifacts/daily/"
)

// AuditReport is Audit's answer. Findings are ordered by artifact, then as
// met in it; never nil.
type AuditReport struct {
	Artifacts   int       `json:"artifacts" jsonschema:"artifacts audited, unreadable ones included"` // parse errors included
	Findings    []Finding `json:"findings" jsonschema:"problems found, by artifact"`
	NextActions []string  `json:"next_actions" jsonschema:"what to do next: vault_scan to re-read sources, fill_gaps for orphan or one-way elements; empty when clean"`
}

// Finding is one problem in one artifact.
type Finding struct {
	Artifact string `json:"artifact" jsonschema:"the artifact, relative to the vault root"`                                                    // canonical vault path
	Element  string `json:"element" jsonschema:"node id, 'from -> to' for an edge, 'line N' for a Mermaid line; empty for the whole artifact"` // see jsonschema
	Kind     string `json:"kind" jsonschema:"no_source, bad_source, orphan_branch, one_way_reference or parse_error"`
	Detail   string `json:"detail" jsonschema:"what is wrong and where"`
}

// graph is one artifact chart in a form both formats share.
type graph struct {
	nodes    []*gnode
	byID     map[string]*gnode
	edges    []gedge
	problems []Finding // found while parsing; Artifact is filled in later
}

type gnode struct {
	id       string
	declared bool // JSON node, or Mermaid id with a shape
	decision bool
	sources  []sourceRef
	refs     []string
	line     int // Mermaid: file line of first use; 0 for JSON
}

type gedge struct {
	from, to, label string
	line            int
}

// sourceRef is one cited range; bad says why it is malformed, if it is.
type sourceRef struct {
	path       string // canonical when bad == ""
	start, end int
	bad        string
}

func newGraph() *graph { return &graph{byID: map[string]*gnode{}} }

// node returns the node for id, adding it (undeclared) on first use.
func (g *graph) node(id string, line int) *gnode {
	n := g.byID[id]
	if n == nil {
		n = &gnode{id: id, line: line}
		g.byID[id] = n
		g.nodes = append(g.nodes, n)
	}
	return n
}

func (g *graph) isNode(id string) bool {
	n := g.byID[id]
	return n != nil && (n.declared || len(n.sources) > 0)
}

// Audit checks the artifacts at paths, or every artifact when paths is
// empty, and never stops at a bad artifact: its problem is a finding.
// NextActions holds vault_scan when a node lacks a usable source (re-read
// the sources), fill_gaps for orphan_branch or one_way_reference findings,
// in that order; parse_error alone suggests nothing, the Detail says what to
// fix. docs/artifacts.md is the user-facing copy of what follows.
//
// Audit reads every .json and .md file under artifacts/, recursively, except
// artifacts/daily/ (append-only logs, not artifacts). A .md file without a
// ```mermaid block is prose, not a chart: skipped when enumerating, a
// parse_error when named explicitly.
//
// JSON graph:
//
//	{"nodes": [{"id": "n1", "label": "…", "kind": "decision",
//	            "source_lines": {"path": "notes/a.md", "start": 10, "end": 20},
//	            "refs": ["n2"]}],
//	 "edges": [{"from": "n1", "to": "n2", "label": "yes"}]}
//
// "nodes" is required. source_lines is an object or a list of them; "end"
// defaults to "start". "kind": "decision" marks a branch. "refs" lists nodes
// this node refers to; references are meant to be mutual.
//
// Mermaid flowchart, in one or more ```mermaid blocks of a .md file (each
// block is its own graph):
//
//	flowchart TD
//	  A[text] --> B{decision}
//	  B -- yes --> C((x))
//	  B -->|no| D
//	  %% source A: notes/a.md#L10-L20
//	  %% source B: notes/a.md#L22
//
// Shapes: [..] (..) ((..)) (((..))) ([..]) [[..]] [(..)] {{..}} [/../] >..]
// and {..}, which alone marks a decision. Links: --> --- ==> === -.-> -.-
// --o --x and <--> (both ways), with |label| after or as -- label -->,
// == label ==>, -. label .->; chains (A --> B --> C) and & groups. Lines
// starting with flowchart, graph, subgraph, end, classDef, class, style,
// linkStyle, click or direction are layout and ignored; %% lines other than
// "%% source" are comments. One statement per line; a trailing ";" is
// dropped. An id is a node when it has a shape somewhere or a source line.
//
// Findings (Finding.Kind):
//
//   - no_source: a node without source_lines / "%% source".
//   - bad_source: a source whose path is not a readable vault file, whose
//     range is empty or runs past the file's end, a malformed source, or a
//     Mermaid source for an id the chart never uses.
//   - orphan_branch: a node with no edge at all in a graph that has edges,
//     or a decision node with fewer than two outgoing edges.
//   - one_way_reference: an edge whose endpoint is not a node (dangling);
//     in JSON, a ref to an id that is not a node, or a ref from a to b where
//     b's refs do not list a (reported once, on a).
//   - parse_error: an artifact that cannot be read or parsed (the others are
//     still audited), or a Mermaid line the parser does not understand (the
//     rest of that chart is still audited).
//
// Errors: Clean codes for a bad path; invalid_argument for a path that is
// not a .json or .md file under artifacts/ (outside artifacts/daily/); the
// vault's errors listing artifacts/; ctx.Err() once ctx ends (checked
// before each artifact).
func Audit(ctx context.Context, v *vault.Vault, paths []string) (AuditReport, error) {
	named := len(paths) > 0
	if !named {
		var err error
		if paths, err = listArtifacts(v); err != nil {
			return AuditReport{}, err
		}
	} else {
		var err error
		if paths, err = checkArtifactPaths(paths); err != nil {
			return AuditReport{}, err
		}
	}
	a := &auditor{v: v, lines: map[string]lineCount{}}
	rep := AuditReport{Findings: []Finding{}, NextActions: []string{}}
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return AuditReport{}, err
		}
		graphs, err := loadArtifact(v, p)
		if err != nil {
			rep.Artifacts++
			rep.Findings = append(rep.Findings, Finding{Artifact: p, Kind: KindParseError, Detail: err.Error()})
			continue
		}
		if graphs == nil && !named {
			continue // prose .md, not a chart
		}
		rep.Artifacts++
		if graphs == nil {
			rep.Findings = append(rep.Findings, Finding{Artifact: p, Kind: KindParseError, Detail: "no ```mermaid block"})
		}
		for _, g := range graphs {
			rep.Findings = append(rep.Findings, a.check(p, g)...)
		}
	}
	var scan, fill bool
	for _, f := range rep.Findings {
		switch f.Kind {
		case KindNoSource, KindBadSource:
			scan = true
		case KindOrphanBranch, KindOneWayReference:
			fill = true
		}
	}
	if scan {
		rep.NextActions = append(rep.NextActions, ActionVaultScan)
	}
	if fill {
		rep.NextActions = append(rep.NextActions, ActionFillGaps)
	}
	return rep, nil
}

// listArtifacts returns every .json and .md file under artifacts/ outside
// artifacts/daily/, sorted. No artifacts/ folder means no artifacts.
func listArtifacts(v *vault.Vault) ([]string, error) {
	infos, err := v.List("artifacts", true)
	if apperr.CodeOf(err) == apperr.NotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, in := range infos {
		if !in.IsDir && isArtifactPath(in.Path) {
			out = append(out, in.Path)
		}
	}
	return out, nil
}

func isArtifactPath(canon string) bool {
	ext := strings.ToLower(path.Ext(canon))
	return strings.HasPrefix(canon, artifactsPrefix) && !strings.HasPrefix(canon, dailyPrefix) && (ext == ".json" || ext == ".md")
}

// checkArtifactPaths cleans and de-duplicates named paths, keeping order.
func checkArtifactPaths(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		canon, err := vault.Clean(p)
		if err != nil {
			return nil, err
		}
		if !isArtifactPath(canon) {
			return nil, apperr.New(apperr.InvalidArgument, "name .json or .md files under artifacts/ (not artifacts/daily/), or omit paths to audit all",
				"%s is not an artifact", canon)
		}
		if !slices.Contains(out, canon) {
			out = append(out, canon)
		}
	}
	return out, nil
}

// loadArtifact reads and parses one artifact. A .md file without a Mermaid
// block gives nil graphs and no error.
func loadArtifact(v *vault.Vault, p string) ([]*graph, error) {
	data, err := v.ReadFile(p)
	if err != nil {
		return nil, err
	}
	if strings.EqualFold(path.Ext(p), ".json") {
		g, err := parseJSONArtifact(data)
		if err != nil {
			return nil, err
		}
		return []*graph{g}, nil
	}
	return parseMermaidArtifact(data)
}

// citedRanges returns the ranges of canon that artifacts cite, clamped to
// its total lines. Artifacts that fail to load are Audit's business and
// are skipped here. Errors: listArtifacts's; ctx.Err() once ctx ends
// (checked before each artifact).
func citedRanges(ctx context.Context, v *vault.Vault, canon string, total int) ([][2]int, error) {
	paths, err := listArtifacts(v)
	if err != nil {
		return nil, err
	}
	var out [][2]int
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		graphs, err := loadArtifact(v, p)
		if err != nil {
			continue
		}
		for _, g := range graphs {
			for _, n := range g.nodes {
				for _, s := range n.sources {
					if s.bad == "" && s.path == canon {
						out = append(out, [2]int{s.start, s.end})
					}
				}
			}
		}
	}
	return clampRanges(out, total), nil
}

// --- JSON ---

type jsonArtifact struct {
	Nodes []jsonNode `json:"nodes"`
	Edges []jsonEdge `json:"edges"`
}

type jsonNode struct {
	ID          string          `json:"id"`
	Label       string          `json:"label"`
	Kind        string          `json:"kind"`
	SourceLines json.RawMessage `json:"source_lines"`
	Refs        []string        `json:"refs"`
}

type jsonEdge struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Label string `json:"label"`
}

type jsonSource struct {
	Path  string `json:"path"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

func parseJSONArtifact(data []byte) (*graph, error) {
	var doc jsonArtifact
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	if doc.Nodes == nil {
		return nil, fmt.Errorf(`not a graph artifact: no "nodes" list`)
	}
	g := newGraph()
	for i, jn := range doc.Nodes {
		if jn.ID == "" {
			g.problems = append(g.problems, Finding{Element: fmt.Sprintf("nodes[%d]", i), Kind: KindParseError, Detail: "node without an id"})
			continue
		}
		if g.byID[jn.ID] != nil {
			g.problems = append(g.problems, Finding{Element: jn.ID, Kind: KindParseError, Detail: fmt.Sprintf("nodes[%d] repeats id %q", i, jn.ID)})
			continue
		}
		n := g.node(jn.ID, 0)
		n.declared = true
		n.decision = jn.Kind == "decision"
		n.refs = jn.Refs
		n.sources = parseJSONSources(jn.SourceLines)
	}
	for _, e := range doc.Edges {
		g.edges = append(g.edges, gedge{from: e.From, to: e.To, label: e.Label})
	}
	return g, nil
}

// parseJSONSources accepts absent/null (no source), one object or a list.
func parseJSONSources(raw json.RawMessage) []sourceRef {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var list []jsonSource
	switch raw[0] {
	case '{':
		var one jsonSource
		if err := json.Unmarshal(raw, &one); err != nil {
			return []sourceRef{{bad: "source_lines: " + err.Error()}}
		}
		list = []jsonSource{one}
	case '[':
		if err := json.Unmarshal(raw, &list); err != nil {
			return []sourceRef{{bad: "source_lines: " + err.Error()}}
		}
	default:
		return []sourceRef{{bad: "source_lines must be an object or a list of objects"}}
	}
	var out []sourceRef
	for _, s := range list {
		end := s.End
		if end == 0 {
			end = s.Start
		}
		out = append(out, newSourceRef(s.Path, s.Start, end))
	}
	return out
}

// newSourceRef validates a source's form; whether the file exists and is
// long enough is checked at audit time.
func newSourceRef(p string, start, end int) sourceRef {
	canon, err := vault.Clean(p)
	switch {
	case p == "":
		return sourceRef{start: start, end: end, bad: "source has no path"}
	case err != nil:
		return sourceRef{path: p, start: start, end: end, bad: err.Error()}
	case start < 1 || end < start:
		return sourceRef{path: canon, start: start, end: end, bad: fmt.Sprintf("%s: range %d-%d is empty or before line 1", canon, start, end)}
	}
	return sourceRef{path: canon, start: start, end: end}
}

// --- Mermaid ---

var (
	mermaidSourceRe = regexp.MustCompile(`^%%\s*source\s+([A-Za-z0-9_]+)\s*:\s*(.*?)\s*$`)
	sourceTargetRe  = regexp.MustCompile(`^(.+)#L(\d+)(?:-L?(\d+))?$`)
	// Plain links, longest alternatives first (regexp alternation is
	// leftmost-first): ---> before ---, -.-> before -.-.
	plainLinkRe = regexp.MustCompile(`^(<)?(-{2,}>|-{3,}|={2,}>|={3,}|-\.+->|-\.+-|--[ox]|==[ox])(?:\s*\|([^|]*)\|)?`)
	textLinkRe  = regexp.MustCompile(`^(<)?(--|==|-\.)\s+(.+?)\s+(-{2,}>|-{3,}|={2,}>|={3,}|\.-+>|\.-+)`)
)

// layoutKeywords start Mermaid lines that shape the drawing, not the graph.
var layoutKeywords = []string{"flowchart", "graph", "subgraph", "end", "classdef", "class", "style", "linkstyle", "click", "direction"}

// shapes are node shape delimiters, longest opening first so "((" wins
// over "(".
var shapes = []struct {
	open, close string
	decision    bool
}{
	{"(((", ")))", false}, {"((", "))", false}, {"([", "])", false}, {"[[", "]]", false},
	{"[(", ")]", false}, {"{{", "}}", false}, {"[/", "]", false}, {`[\`, "]", false},
	{"[", "]", false}, {"(", ")", false}, {"{", "}", true}, {">", "]", false},
}

type mermaidSource struct {
	id   string
	ref  sourceRef
	line int
}

// parseMermaidArtifact parses each ```mermaid block of a Markdown file into
// its own graph; nil when there is none.
func parseMermaidArtifact(data []byte) ([]*graph, error) {
	var graphs []*graph
	var block []string
	inBlock, startLine := false, 0
	for i, l := range splitLines(data) {
		t := strings.TrimSpace(l)
		if !inBlock {
			if strings.HasPrefix(t, "```") && strings.TrimSpace(strings.TrimLeft(t, "`")) == "mermaid" {
				inBlock, startLine, block = true, i+2, nil
			}
			continue
		}
		if strings.HasPrefix(t, "```") && strings.Trim(t, "`") == "" {
			graphs = append(graphs, parseMermaid(block, startLine))
			inBlock = false
			continue
		}
		block = append(block, t)
	}
	if inBlock {
		return nil, fmt.Errorf("the ```mermaid block at line %d is not closed", startLine-1)
	}
	return graphs, nil
}

// parseMermaid parses one block; first is the file line of lines[0].
func parseMermaid(lines []string, first int) *graph {
	g := newGraph()
	var sources []mermaidSource
	for i, l := range lines {
		ln := first + i
		l = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(l), ";"))
		switch {
		case l == "":
			continue
		case strings.HasPrefix(l, "%%"):
			if s, ok, err := parseSourceComment(l, ln); err != nil {
				g.problems = append(g.problems, Finding{Element: "line " + strconv.Itoa(ln), Kind: KindParseError, Detail: err.Error()})
			} else if ok {
				sources = append(sources, s)
			}
			continue
		case isLayoutLine(l):
			continue
		}
		if err := parseStatement(g, l, ln); err != nil {
			g.problems = append(g.problems, Finding{Element: "line " + strconv.Itoa(ln), Kind: KindParseError, Detail: err.Error()})
		}
	}
	// Sources last: a "%% source" line may come before the node it names.
	for _, s := range sources {
		n := g.byID[s.id]
		if n == nil {
			g.problems = append(g.problems, Finding{Element: s.id, Kind: KindBadSource,
				Detail: fmt.Sprintf("line %d: source for %s, which the chart never uses", s.line, s.id)})
			continue
		}
		n.sources = append(n.sources, s.ref)
	}
	return g
}

func isLayoutLine(l string) bool {
	f := strings.Fields(l)
	return len(f) > 0 && slices.Contains(layoutKeywords, strings.ToLower(f[0]))
}

// parseSourceComment reads "%% source ID: path#L10-L20"; ok is false for
// any other comment.
func parseSourceComment(l string, line int) (mermaidSource, bool, error) {
	rest := strings.TrimSpace(strings.TrimPrefix(l, "%%"))
	if f := strings.Fields(rest); len(f) == 0 || f[0] != "source" {
		return mermaidSource{}, false, nil
	}
	m := mermaidSourceRe.FindStringSubmatch(l)
	if m == nil {
		return mermaidSource{}, false, fmt.Errorf("malformed source line; write %%%% source ID: path#L10-L20")
	}
	s := mermaidSource{id: m[1], line: line}
	t := sourceTargetRe.FindStringSubmatch(m[2])
	if t == nil {
		s.ref = sourceRef{path: m[2], bad: fmt.Sprintf("line %d: source %q has no #L line range", line, m[2])}
		return s, true, nil
	}
	start, err1 := strconv.Atoi(t[2])
	end := start
	var err2 error
	if t[3] != "" {
		end, err2 = strconv.Atoi(t[3])
	}
	if err1 != nil || err2 != nil {
		s.ref = sourceRef{path: t[1], bad: fmt.Sprintf("line %d: line number out of range", line)}
		return s, true, nil
	}
	s.ref = newSourceRef(t[1], start, end)
	return s, true, nil
}

// parseStatement reads "group (link group)*", where a group is
// "node (& node)*", and adds its nodes and edges to g.
func parseStatement(g *graph, s string, line int) error {
	prev, rest, err := parseGroup(g, s, line)
	if err != nil {
		return err
	}
	for {
		rest = strings.TrimSpace(rest)
		if rest == "" {
			return nil
		}
		label, both, n, ok := parseLink(rest)
		if !ok {
			return fmt.Errorf("expected a link such as --> at %q", rest)
		}
		var next []string
		if next, rest, err = parseGroup(g, rest[n:], line); err != nil {
			return err
		}
		for _, a := range prev {
			for _, b := range next {
				g.edges = append(g.edges, gedge{from: a, to: b, label: label, line: line})
				if both {
					g.edges = append(g.edges, gedge{from: b, to: a, label: label, line: line})
				}
			}
		}
		prev = next
	}
}

func parseLink(s string) (label string, both bool, n int, ok bool) {
	if m := plainLinkRe.FindStringSubmatch(s); m != nil {
		return strings.TrimSpace(m[3]), m[1] != "", len(m[0]), true
	}
	if m := textLinkRe.FindStringSubmatch(s); m != nil {
		return strings.TrimSpace(m[3]), m[1] != "", len(m[0]), true
	}
	return "", false, 0, false
}

func parseGroup(g *graph, s string, line int) (ids []string, rest string, err error) {
	rest = s
	for {
		var id string
		if id, rest, err = parseNode(g, strings.TrimSpace(rest), line); err != nil {
			return nil, "", err
		}
		ids = append(ids, id)
		t := strings.TrimSpace(rest)
		if !strings.HasPrefix(t, "&") {
			return ids, rest, nil
		}
		rest = t[1:]
	}
}

// parseNode reads "id", "id[shape]" or either with ":::class".
func parseNode(g *graph, s string, line int) (id, rest string, err error) {
	i := 0
	for i < len(s) {
		r := rune(s[i])
		if r >= 0x80 || !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_') {
			break
		}
		i++
	}
	if i == 0 {
		return "", "", fmt.Errorf("expected a node id at %q", s)
	}
	id, rest = s[:i], s[i:]
	n := g.node(id, line)
	for _, sh := range shapes {
		if !strings.HasPrefix(rest, sh.open) {
			continue
		}
		body := rest[len(sh.open):]
		from := 0
		if strings.HasPrefix(body, `"`) { // a quoted label may hold the closing delimiter
			q := strings.IndexByte(body[1:], '"')
			if q < 0 {
				return "", "", fmt.Errorf("node %s: unclosed quote", id)
			}
			from = q + 2
		}
		end := strings.Index(body[from:], sh.close)
		if end < 0 {
			return "", "", fmt.Errorf("node %s: %q is not closed by %q", id, sh.open, sh.close)
		}
		rest = body[from+end+len(sh.close):]
		n.declared = true
		n.decision = n.decision || sh.decision
		break
	}
	if strings.HasPrefix(rest, ":::") {
		j := 3
		for j < len(rest) && (rest[j] == '_' || rest[j] == '-' || rest[j] < 0x80 && (unicode.IsLetter(rune(rest[j])) || unicode.IsDigit(rune(rest[j])))) {
			j++
		}
		rest = rest[j:]
	}
	return id, rest, nil
}

// --- checks ---

type lineCount struct {
	n   int
	err error
}

// auditor checks graphs, reading each cited file once per Audit.
type auditor struct {
	v     *vault.Vault
	lines map[string]lineCount
}

func (a *auditor) fileLines(canon string) (int, error) {
	lc, ok := a.lines[canon]
	if !ok {
		data, err := a.v.ReadFile(canon)
		lc = lineCount{n: len(splitLines(data)), err: err}
		a.lines[canon] = lc
	}
	return lc.n, lc.err
}

// check returns g's findings for artifact: parse problems, then per node,
// then per edge.
func (a *auditor) check(artifact string, g *graph) []Finding {
	var out []Finding
	add := func(el, kind, detail string) {
		out = append(out, Finding{Artifact: artifact, Element: el, Kind: kind, Detail: detail})
	}
	for _, p := range g.problems {
		add(p.Element, p.Kind, p.Detail)
	}
	in, outDeg := map[string]int{}, map[string]int{}
	for _, e := range g.edges {
		outDeg[e.from]++
		in[e.to]++
	}
	for _, n := range g.nodes {
		if !g.isNode(n.id) {
			continue // used only as an edge endpoint: reported with the edge
		}
		where := ""
		if n.line > 0 {
			where = fmt.Sprintf(" (line %d)", n.line)
		}
		if len(n.sources) == 0 {
			add(n.id, KindNoSource, "node has no source_lines"+where)
		}
		for _, s := range n.sources {
			if s.bad != "" {
				add(n.id, KindBadSource, s.bad)
				continue
			}
			total, err := a.fileLines(s.path)
			switch {
			case err != nil:
				add(n.id, KindBadSource, fmt.Sprintf("source %s#L%d-L%d: %v", s.path, s.start, s.end, err))
			case s.end > total:
				add(n.id, KindBadSource, fmt.Sprintf("source %s#L%d-L%d: the file has %d lines", s.path, s.start, s.end, total))
			}
		}
		switch {
		case len(g.edges) > 0 && in[n.id] == 0 && outDeg[n.id] == 0:
			add(n.id, KindOrphanBranch, "node has no incoming or outgoing edge"+where)
		case n.decision && outDeg[n.id] < 2:
			add(n.id, KindOrphanBranch, fmt.Sprintf("decision has %d outgoing edge(s), needs at least 2%s", outDeg[n.id], where))
		}
		for _, r := range n.refs {
			switch {
			case r == n.id:
			case !g.isNode(r):
				add(n.id, KindOneWayReference, fmt.Sprintf("refs %q, which is not a node", r))
			case !slices.Contains(g.byID[r].refs, n.id):
				add(n.id, KindOneWayReference, fmt.Sprintf("refs %q, but %q does not ref %q back", r, r, n.id))
			}
		}
	}
	for _, e := range g.edges {
		for _, end := range []string{e.from, e.to} {
			if !g.isNode(end) {
				where := ""
				if e.line > 0 {
					where = fmt.Sprintf(" (line %d)", e.line)
				}
				add(e.from+" -> "+e.to, KindOneWayReference, fmt.Sprintf("edge endpoint %q is not a node%s", end, where))
				break
			}
		}
	}
	return out
}
