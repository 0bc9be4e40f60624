package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/langspec/langspec/"

// layers is every package of the module by layer, lowest first. A package
// may import only packages of a lower layer. A new package must be placed
// here, which is the point: its place in the tree is a decision.
var layers = [][]string{
	{"internal/apperr", "migrations", "fixtures", "internal/layout", "internal/progress"},
	{"internal/text/tokenize", "internal/text/normalize", "internal/text/decode", "internal/text/shape", "internal/rootpath", "internal/eval/corpusgen", "internal/contextnote", "internal/spillfile"},
	{"internal/text/ftsquery", "internal/text/snippet", "internal/rank/wordindex"},
	{"internal/rank"},
	{"internal/db"},
	{"internal/ingest/fetch", "internal/ingest/manualfile"},
	{"internal/ingest"},
	{"internal/search", "internal/plan", "internal/manual", "internal/vault", "internal/catalog/batch", "internal/catalog/upstream", "internal/catalog/upstream/upstreamtest", "internal/semantic"},
	{"internal/vault/audit", "internal/manual/find/queryplan", "internal/manual/find/adaptive", "internal/catalog", "internal/specdiff"},
	{"internal/manual/find", "internal/teamauth", "internal/secrets", "internal/spec"},
	{"internal/eval", "internal/config"},
	{"internal/tools", "internal/tools/toolsnaps", "internal/tools/toolstest"},
	{"internal/completion"},
	{"internal/resources", "internal/prompts", "internal/webui"},
	{"internal/mcpserver/middleware"},
	{"internal/mcpserver"},
	{"internal/app"},
	{"cmd/langspec"},
}

// cmdMay is what cmd/langspec may import (its files that are not tests):
// the rule that keeps it a thin front end that parses flags and prints.
//
//   - internal/app, which runs every use case over the parts it builds,
//     and internal/apperr, whose codes decide exit codes;
//   - the packages whose request and result types the commands fill and
//     print, with their bounds and their renderings: search (a search, a
//     section, a comparison), specdiff (a diff, since), plan, manual/find
//     (a manual's list, files, toc, read, find and hits), contextnote (the
//     notes an answer carries), text/snippet (how a snippet is marked),
//     eval (gold runs, their reports and tables: its runs take the parts
//     app builds, since app cannot import eval, whose tests build apps).
//
// Never the store (db), the index readers (ingest, rank), the wiring
// (config, secrets, teamauth, catalog/..., tools, mcpserver, webui,
// resources) or anything else: a type the commands print from such a
// package is re-exported by app as an alias (app.Version, app.Token,
// app.IngestReport, ...). docs/architecture.md states the same rule.
var cmdMay = []string{
	"internal/app", "internal/apperr",
	"internal/search", "internal/specdiff", "internal/plan", "internal/manual/find", "internal/contextnote", "internal/text/snippet", "internal/eval",
}

// named are the packages the design card fixes by name and job.
var named = []string{"internal/db", "internal/ingest", "internal/tools"}

// root is the module's root, two folders up.
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// imports reads every package under the module (test files left out: a
// test may reach up to build what it checks) and returns each one's
// imports within the module.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	dir := root(t)
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != dir && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, filepath.Dir(p))
		pkg := filepath.ToSlash(rel)
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if dep, ok := strings.CutPrefix(path, module); ok && !slices.Contains(out[pkg], dep) {
				out[pkg] = append(out[pkg], dep)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestImportsRunDownward(t *testing.T) {
	layerOf := map[string]int{}
	for i, l := range layers {
		for _, p := range l {
			layerOf[p] = i
		}
	}
	found := imports(t)
	for pkg, deps := range found {
		from, ok := layerOf[pkg]
		if !ok {
			t.Errorf("package %s is in no layer: add it to layers in %s, below everything that imports it", pkg, "internal/layout/layout_test.go")
			continue
		}
		for _, dep := range deps {
			if to, ok := layerOf[dep]; ok && to >= from {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports run from cmd down to db, text and apperr only", pkg, from, dep, to)
			}
		}
	}
	for p := range layerOf {
		if _, ok := found[p]; !ok {
			t.Errorf("layers names %s, which has no Go files: remove it", p)
		}
	}
}

func TestNamedPackagesStay(t *testing.T) {
	found := imports(t)
	for _, p := range named {
		if _, ok := found[p]; !ok {
			t.Errorf("%s is gone: the design card names it, and readers of the card look for it there", p)
		}
	}
	for _, p := range []string{"cmd/langspec", "migrations", "fixtures"} {
		if _, err := os.Stat(filepath.Join(root(t), p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// The engine is the only place that scores (issue 47): the store stores and
// reads, typed terms in, rows and postings out. The layers put rank below
// db; these rules say what the layers cannot.

// forbidden are imports the layers allow and a package's job does not.
var forbidden = []struct{ pkg, dep, why string }{
	{"internal/db", "internal/text/tokenize", "the store never tokenizes or stems: query words come to it as rank.Terms, stemmed once by the engine"},
	{"internal/rank", "internal/db", "the engine declares what it reads (rank.Source) and the store implements it"},
	{"internal/rank/wordindex", "internal/db", "the postings are the engine's; the store only keeps them"},
}

// importedOnlyBy names the only packages that may import a package.
var importedOnlyBy = map[string][]string{
	// The postings: scored by the engine, built and kept by the store.
	"internal/rank/wordindex": {"internal/rank", "internal/db"},
}

// storeUses is all internal/db may use of the engine's packages: the types
// it implements rank's sources with and fills, the postings' encoding it
// writes at ingest and reads back (with the shortest word a vocabulary
// keeps), and the keys it looks a section's name up by. No weight, no
// scorer, no score.
var storeUses = map[string][]string{
	"internal/rank": {
		"SectionFields",
		"WordCounts", "Vocabulary", "NewVocabulary", "VocabularyWords", "Title", "Occurrences", "Term", "Bits", "NewBits",
		"TitleKey", "Name", "Nearest",
	},
	"internal/rank/wordindex": {
		"Builder", "NewBuilder", "Term", "Columns", "SkipEvery", "Skips",
		"List", "Impacts", "ImpactFrom", "Snapshot", "DecodeLayout", "InColumns",
	},
}

func TestForbiddenImports(t *testing.T) {
	found := imports(t)
	for _, f := range forbidden {
		if slices.Contains(found[f.pkg], f.dep) {
			t.Errorf("%s imports %s: %s", f.pkg, f.dep, f.why)
		}
	}
	for dep, allowed := range importedOnlyBy {
		for pkg, deps := range found {
			if slices.Contains(deps, dep) && !slices.Contains(allowed, pkg) {
				t.Errorf("%s imports %s, which only %v may", pkg, dep, allowed)
			}
		}
	}
}

// TestStoreNeverScores reads every use internal/db's code makes of the
// engine's packages and fails on any storeUses does not name.
func TestStoreNeverScores(t *testing.T) {
	dir := filepath.Join(root(t), "internal", "db")
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	used := 0
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		// The name each engine package goes by in this file.
		names := map[string]string{}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			dep, ok := strings.CutPrefix(p, module)
			if _, watched := storeUses[dep]; !ok || !watched {
				continue
			}
			name := filepath.Base(dep)
			if imp.Name != nil {
				name = imp.Name.Name
			}
			names[name] = dep
		}
		ast.Inspect(f, func(n ast.Node) bool {
			// Nor does it hand scoring to SQLite: no query it runs asks
			// FTS5 for bm25().
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && strings.Contains(strings.ToLower(lit.Value), "bm25(") {
				t.Errorf("%s: a query of the store asks SQLite for bm25(): the store stores and reads; scores are internal/rank's", fset.Position(lit.Pos()))
			}
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			x, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			if dep, ok := names[x.Name]; ok {
				used++
				if !slices.Contains(storeUses[dep], sel.Sel.Name) {
					t.Errorf("%s uses %s.%s: the store stores and reads; scoring, weights and scorers are internal/rank's (storeUses in %s)",
						fset.Position(sel.Pos()), dep, sel.Sel.Name, "internal/layout/layout_test.go")
				}
			}
			return true
		})
	}
	if used == 0 {
		t.Fatal("internal/db uses nothing of the engine: the test reads the wrong files")
	}
}

func TestCmdImportsOnlyTheAllowList(t *testing.T) {
	for _, dep := range imports(t)["cmd/langspec"] {
		if !slices.Contains(cmdMay, dep) {
			t.Errorf("cmd/langspec imports %s: a command parses flags and prints, and reaches everything else through internal/app (cmdMay in %s)",
				dep, "internal/layout/layout_test.go")
		}
	}
}

// scorersOnce are the packages that ranked with weights of their own before
// the engine did it all (issue 47): the store, spec search and manual_find.
// A floating-point literal in their code is a weight or a score, which is
// internal/rank's; what they keep is counting, budgets and bookkeeping.
var scorersOnce = []string{"internal/db", "internal/search", "internal/manual/find"}

// TestNoWeightsOutsideRank fails on a floating-point literal other than 0
// in the code (not tests) of scorersOnce.
func TestNoWeightsOutsideRank(t *testing.T) {
	fset := token.NewFileSet()
	for _, pkg := range scorersOnce {
		files, err := filepath.Glob(filepath.Join(root(t), filepath.FromSlash(pkg), "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no files (%v)", pkg, err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.FLOAT {
					return true
				}
				if v, err := strconv.ParseFloat(lit.Value, 64); err == nil && v == 0 {
					return true
				}
				t.Errorf("%s: %s is a weight or a score: scoring is internal/rank's (scorersOnce in %s)",
					fset.Position(lit.Pos()), lit.Value, "internal/layout/layout_test.go")
				return true
			})
		}
	}
}
