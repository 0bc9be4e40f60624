// Package completion answers completion/complete: it suggests values for the
// arguments of langspec's resource templates and prompts (languages,
// documents, versions, section ids and titles, manual ids, manual and vault
// paths) from the store and folders as they are at the time of the request,
// so a language ingested after the server started completes too.
//
// A completion is a convenience, never a failure: an unknown reference or
// argument, an unknown language in the context, or a store that cannot be
// read all give an empty list. The work per request is bounded (value
// length, sections scanned, values returned).
package completion

import (
	"context"
	"log/slog"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/text/unicode/norm"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/manual"
	"github.com/langspec/langspec/internal/plan"
	"github.com/langspec/langspec/internal/search"
	"github.com/langspec/langspec/internal/tools"
	"github.com/langspec/langspec/internal/vault"
)

// Kind is what an argument's values are. The resource and prompt packages
// map each of their arguments to a Kind; the same kind completes the same
// way wherever it appears.
type Kind string

// The kinds langspec completes. An argument with no kind (free text, such
// as a manual topic) completes to an empty list.
const (
	Language   Kind = "language"    // stored language ids
	Languages  Kind = "languages"   // stored language ids; a comma-separated list completes its last item, leaving out those listed
	Doc        Kind = "doc"         // document ids, of the context's language when given
	Version    Kind = "version"     // complete versions, of the context's language and doc when given
	Section    Kind = "section_id"  // section ids, matched by id and title
	Titles     Kind = "titles"      // section titles; a comma-separated list completes its last item
	Weeks      Kind = "weeks"       // 1..plan.MaxWeeks
	Manual     Kind = "manual_id"   // manual ids
	ManualPath Kind = "manual_path" // files of the context's manual_id
	VaultPath  Kind = "vault_path"  // vault files and folders, one folder level at a time
)

// Bounds of one completion.
const (
	// MaxValues is the most values returned, best first: the protocol
	// allows 100, but a client shows a short menu and 20 is a screenful.
	MaxValues = 20
	// maxValueRunes: a longer partial value matches nothing worth showing.
	maxValueRunes = 200
	// maxSectionsScanned bounds a section completion over every stored
	// document (the Go spec has about 170 sections, a large reference a
	// few thousand).
	maxSectionsScanned = 50_000
	// maxListedFiles bounds a manual's file listing.
	maxListedFiles = 20_000
)

// Completer suggests values from one server's dependencies. A nil field
// (no manuals, no vault) completes its kinds to nothing.
type Completer struct {
	store   *db.DB
	manuals *manual.Library
	vault   *vault.Vault
	log     *slog.Logger
}

// New returns a Completer over d's store, manuals and vault.
func New(d *tools.Deps) *Completer {
	log := d.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Completer{store: d.Store, manuals: d.Manuals, vault: d.Vault, log: log}
}

// Result is one completion: the best values, how many matched in all, and
// whether more matched than are returned.
type Result struct {
	Values  []string
	Total   int
	HasMore bool
}

// Lookup says which arguments a completion reference takes, each with its
// kind; nil when the reference is not the caller's (another package's
// prompt or template).
type Lookup func(ref *mcp.CompleteReference) map[string]Kind

// Handler is the server's CompletionHandler: the first lookup that knows
// the reference gives the argument's kind, and c completes it. An unknown
// reference or argument is an empty list, not an error, so a client that
// asks for every argument it shows does not flood its log.
func Handler(c *Completer, lookups ...Lookup) func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	return func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
		res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
		p := req.Params
		if p == nil || p.Ref == nil {
			return res, nil
		}
		var scope map[string]string
		if p.Context != nil {
			scope = p.Context.Arguments
		}
		for _, lookup := range lookups {
			kinds := lookup(p.Ref)
			if kinds == nil {
				continue
			}
			kind, ok := kinds[p.Argument.Name]
			if !ok || kind == "" {
				return res, nil
			}
			r := c.Complete(ctx, kind, p.Argument.Value, scope)
			if r.Values != nil {
				res.Completion.Values = r.Values
			}
			res.Completion.Total, res.Completion.HasMore = r.Total, r.HasMore
			return res, nil
		}
		return res, nil
	}
}

// Complete suggests values of kind that value is the beginning of (or, for
// sections and titles, the beginning of a word in), best first. scope holds
// the other arguments already given (language, doc, version, manual_id),
// which narrow the suggestions.
func (c *Completer) Complete(ctx context.Context, kind Kind, value string, scope map[string]string) Result {
	if len([]rune(value)) > maxValueRunes {
		return Result{Values: []string{}}
	}
	arg := func(name string) string { return strings.TrimSpace(scope[name]) }
	var m matches
	switch kind {
	case Language:
		m = c.languages(ctx, value)
	case Languages:
		m = c.languageList(ctx, value)
	case Doc:
		m = c.docs(ctx, arg("language"), value)
	case Version:
		m = c.versions(ctx, arg("language"), arg("doc"), value)
	case Section:
		m = c.sections(ctx, db.Scope{Language: arg("language"), Doc: arg("doc"), Version: arg("version")}, value)
	case Titles:
		m = c.titles(ctx, db.Scope{Language: arg("language"), Doc: arg("doc"), Version: arg("version")}, value)
	case Weeks:
		for w := 1; w <= plan.MaxWeeks; w++ {
			m.add(strconv.Itoa(w), prefixRank(strconv.Itoa(w), value))
		}
	case Manual:
		m = c.manualIDs(value)
	case ManualPath:
		m = c.manualPaths(arg("manual_id"), value)
	case VaultPath:
		m = c.vaultPaths(value)
	}
	return m.result()
}

// matches collects candidate values with a rank (lower is better; -1 is no
// match), keeping the first rank of a value seen twice.
type matches struct {
	values []ranked
	seen   map[string]bool
}

type ranked struct {
	value string
	rank  int
}

func (m *matches) add(value string, rank int) {
	if rank < 0 || m.seen[value] {
		return
	}
	if m.seen == nil {
		m.seen = map[string]bool{}
	}
	m.seen[value] = true
	m.values = append(m.values, ranked{value, rank})
}

// result sorts by rank, stable so that equal ranks keep the order they were
// added in (document order, newest version first), and keeps MaxValues.
func (m *matches) result() Result {
	slices.SortStableFunc(m.values, func(a, b ranked) int { return a.rank - b.rank })
	r := Result{Values: []string{}, Total: len(m.values), HasMore: len(m.values) > MaxValues}
	for _, v := range m.values[:min(len(m.values), MaxValues)] {
		r.Values = append(r.Values, v.value)
	}
	return r
}

// fold is the form values are compared in: NFC (a Mac's decomposed
// Japanese file names match what the user types) and lower case.
func fold(s string) string { return strings.ToLower(norm.NFC.String(s)) }

// prefixRank is 0 when candidate begins with value, ignoring case, and -1
// otherwise.
func prefixRank(candidate, value string) int {
	if strings.HasPrefix(fold(candidate), fold(value)) {
		return 0
	}
	return -1
}

func (c *Completer) languages(ctx context.Context, value string) matches {
	var m matches
	if c.store == nil {
		return m
	}
	ids, err := search.LanguageIDs(ctx, c.store)
	if err != nil {
		c.log.Debug("completion: languages", "err", err)
	}
	for _, id := range ids {
		m.add(id, prefixRank(id, value))
	}
	return m
}

// languageList completes the last item of a comma-separated list of
// languages with those not listed yet.
func (c *Completer) languageList(ctx context.Context, value string) matches {
	head, last := "", value
	var listed []string
	if i := strings.LastIndexByte(value, ','); i >= 0 {
		head, last = strings.TrimSpace(value[:i])+", ", value[i+1:]
		for _, l := range strings.Split(value[:i], ",") {
			listed = append(listed, strings.TrimSpace(l))
		}
	}
	var m matches
	for _, r := range c.languages(ctx, strings.TrimSpace(last)).values {
		if !slices.Contains(listed, r.value) {
			m.add(head+r.value, r.rank)
		}
	}
	return m
}

func (c *Completer) docs(ctx context.Context, language, value string) matches {
	var m matches
	if c.store == nil {
		return m
	}
	langs, err := search.Languages(ctx, c.store)
	if err != nil {
		c.log.Debug("completion: docs", "err", err)
	}
	for _, l := range langs {
		if language != "" && l.Language != language {
			continue
		}
		for _, d := range l.Docs {
			m.add(d.Doc, prefixRank(d.Doc, value))
		}
	}
	return m
}

// versions lists complete versions only: an incomplete one cannot be read
// by name (the store reads complete versions).
func (c *Completer) versions(ctx context.Context, language, doc, value string) matches {
	var m matches
	if c.store == nil {
		return m
	}
	vs, err := c.store.Versions(ctx, language)
	if err != nil {
		c.log.Debug("completion: versions", "err", err)
	}
	for _, v := range vs {
		if v.Complete && (doc == "" || v.Doc == doc) {
			m.add(v.Version, prefixRank(v.Version, value))
		}
	}
	return m
}

func (c *Completer) manualIDs(value string) matches {
	var m matches
	if c.manuals == nil {
		return m
	}
	ids, err := c.manuals.Manuals()
	if err != nil {
		c.log.Debug("completion: manuals", "err", err)
	}
	for _, id := range ids {
		m.add(id, prefixRank(id, value))
	}
	return m
}

// manualPaths suggests the files of one manual: paths that begin with
// value first, then paths whose file name does.
func (c *Completer) manualPaths(manualID, value string) matches {
	var m matches
	if c.manuals == nil || manualID == "" {
		return m
	}
	files, err := c.manuals.Files(manualID)
	if err != nil {
		c.log.Debug("completion: manual files", "manual", manualID, "err", err)
	}
	for _, f := range files[:min(len(files), maxListedFiles)] {
		rank := prefixRank(f, value)
		if rank < 0 && strings.HasPrefix(fold(f[strings.LastIndexByte(f, '/')+1:]), fold(value)) {
			rank = 1
		}
		m.add(f, rank)
	}
	return m
}

// vaultPaths lists one folder of the vault, the one value is in, so the
// work is one directory read however large the vault is; folders end in
// "/" so that choosing one completes into it.
func (c *Completer) vaultPaths(value string) matches {
	var m matches
	if c.vault == nil {
		return m
	}
	dir := ""
	if i := strings.LastIndexByte(value, '/'); i >= 0 {
		dir = value[:i]
	}
	entries, err := c.vault.List(dir, false)
	if err != nil {
		c.log.Debug("completion: vault", "dir", dir, "err", err)
	}
	for _, e := range entries {
		p := e.Path
		if e.IsDir {
			p += "/"
		}
		m.add(p, prefixRank(p, value))
	}
	return m
}
