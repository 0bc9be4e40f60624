package webui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/langspec/langspec/internal/contextnote"
	"github.com/langspec/langspec/internal/tools/toolstest"
)

// TestReadingPagesInBrowser drives the compare, diff and context pages in
// headless Chromium over a store holding go1.25 and go1.26 of the Go
// specification, a second language and context notes: log in with an
// admin's token; compare a concept typed in the form across both
// languages, then with one language unticked, and open a hit's section;
// diff the two versions from the form (counts, a reworded sentence's words
// struck and inserted), follow a removed section's link to its older
// version and a page of changes to the next; list the notes. The pages
// write nothing to the console: no error, no exception, nothing the
// Content-Security-Policy refused. Screenshots of the compare, diff and
// context pages go to docs/ui/ with LANGSPEC_UI_SCREENSHOTS=1, else to a
// temporary folder (cmd/langspec's TestManagementPageInBrowser takes the
// others).
func TestReadingPagesInBrowser(t *testing.T) {
	browser := toolstest.Chromium(t)
	// Notes as a user writes them, one in langspec.json and one added
	// with langspec context add (the screenshots show them).
	state := &contextnote.Store{Path: filepath.Join(t.TempDir(), "context.jsonl")}
	if _, err := state.Add(contextnote.Target{Language: "go", Doc: "spec"}, "The Go version our services build with: rules newer than go1.26 do not apply to them yet.", false); err != nil {
		t.Fatal(err)
	}
	srv, store, admin, _ := newDiffUI(t, func(o *Options) {
		o.Notes = &contextnote.Source{Store: state, Config: map[string]contextnote.ConfigNote{
			"langspec://demo": {Text: "A toy language for examples; none of our code is written in it.", Aside: true}}}
	})
	publishDemo(t, store.DB)

	shots := t.TempDir()
	if os.Getenv("LANGSPEC_UI_SCREENSHOTS") != "" {
		shots = filepath.Join("..", "..", "docs", "ui")
		os.MkdirAll(shots, 0o755)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox,
		chromedp.WindowSize(1100, 800), chromedp.Flag("disable-gpu", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 120*time.Second)
	defer cancel()

	// Everything the pages write to the console, from the first one on.
	var mu sync.Mutex
	var console []string
	messages := chromedp.Console(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			// The browser's own request for /favicon.ico, which the team
			// server does not serve either, is not the pages'.
			if (m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleWarning || m.IsException()) && !strings.HasSuffix(m.URL, "/favicon.ico") {
				mu.Lock()
				console = append(console, m.String()+" ("+m.URL+")")
				mu.Unlock()
			}
		}
	}()

	shot := func(name string) {
		t.Helper()
		buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(shots, name+".png"), buf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("reading %s: %v", sel, err)
		}
		return v
	}
	count := func(sel string) int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll(`+"`"+sel+"`"+`).length`))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}

	do("logging in", chromedp.Navigate(srv.URL+"/ui/"), chromedp.WaitVisible(chromedp.CSS(`#token`)),
		chromedp.SendKeys(chromedp.CSS(`#token`), admin), chromedp.Submit(chromedp.CSS(`#token`)), chromedp.WaitVisible(chromedp.CSS(`#q`)))
	nav := text(`header nav`)
	for _, w := range []string{"Search", "Compare", "Diff", "Sources", "Context", "Tokens"} {
		if !strings.Contains(nav, w) {
			t.Errorf("an admin's navigation lacks %s: %q", w, nav)
		}
	}

	// The login page answers 401 until a token is given, which the console
	// reports: what counts is from here on.
	mu.Lock()
	console = nil
	mu.Unlock()

	// Compare, from the form.
	do("the compare page", chromedp.Click(chromedp.CSS(`header nav a[href="/ui/compare"]`)), chromedp.WaitVisible(chromedp.CSS(`#concept`)))
	do("comparing", chromedp.SendKeys(chromedp.CSS(`#concept`), "slice expressions"), chromedp.Submit(chromedp.CSS(`#concept`)),
		chromedp.WaitVisible(chromedp.CSS(`section.column li.hit a`)))
	if n := count(`section.column`); n != 2 {
		t.Errorf("comparing two languages: %d columns", n)
	}
	columns := text(`div.columns`)
	for _, w := range []string{"The Go Programming Language Specification", "go · spec · go1.26", "The Demo Manual", "Slice expressions", "cite: https://go.dev/ref/spec#Slice_expressions"} {
		if !strings.Contains(columns, w) {
			t.Errorf("the compared columns lack %q: %.400q", w, columns)
		}
	}
	if n := count(`section.column mark`); n == 0 {
		t.Error("the compared snippets mark nothing")
	}
	if notes := text(`section.notes`); !strings.Contains(notes, "langspec://go/spec (column go/spec)\nThe Go version our services build with") ||
		!strings.Contains(notes, "langspec://demo (column demo/manual) aside\nA toy language") {
		t.Errorf("the compare page's notes: %q", notes)
	}
	shot("compare")
	do("comparing in Go only", chromedp.Click(chromedp.CSS(`input[name=lang][value=demo]`)), chromedp.Submit(chromedp.CSS(`#concept`)),
		chromedp.WaitNotPresent(chromedp.CSS(`section.column[aria-label="demo manual"]`)), chromedp.WaitVisible(chromedp.CSS(`section.column li.hit a`)))
	if n := count(`section.column`); n != 1 {
		t.Errorf("comparing in Go only: %d columns", n)
	}
	do("opening a compared section", chromedp.Click(chromedp.CSS(`section.column li.hit a`)), chromedp.WaitVisible(chromedp.CSS(`div.text`)))
	if h := text(`h2`); h != "Slice expressions" {
		t.Errorf("the compared hit opened %q", h)
	}

	// Diff, from the form with its defaults.
	do("the diff page", chromedp.Click(chromedp.CSS(`header nav a[href="/ui/diff"]`)), chromedp.WaitVisible(chromedp.CSS(`#doc`)))
	do("diffing", chromedp.Submit(chromedp.CSS(`#section`)), chromedp.WaitVisible(chromedp.CSS(`article.change`)))
	summary, reworded := text(`p.summary`), text(`li.changed`)
	if !strings.HasPrefix(summary, "1 added, 1 removed, 1 renamed, 1 changed,") {
		t.Errorf("the diff's summary: %q", summary)
	}
	if del, ins := text(`li.changed del`), text(`li.changed ins`); del != "Besides the" || ins != "In addition to" {
		t.Errorf("the reworded sentence %q: struck %q, inserted %q", reworded, del, ins)
	}
	decoration, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector('li.changed del')).textDecorationLine`))
	if err != nil || decoration != "line-through" {
		t.Errorf("removed words are not struck through: %q, %v", decoration, err)
	}
	if notes := text(`section.notes`); !strings.Contains(notes, "The Go version our services build with") || strings.Contains(notes, "toy language") {
		t.Errorf("the diff page's notes: %q", notes)
	}
	if n := count(`article.change`); n != 4 {
		t.Errorf("the diff shows %d changed sections, want 4", n)
	}
	shot("diff")
	do("a removed section in its version", chromedp.Click(chromedp.CSS(`article.removed a[href*="version=go1.25"]`)), chromedp.WaitVisible(chromedp.CSS(`div.text`)))
	if h, path := text(`h2`), text(`nav.path`); h != "An old rule" || !strings.Contains(path, "go1.25") {
		t.Errorf("the removed section's link opened %q (%q)", h, path)
	}
	do("a page of two", chromedp.Navigate(srv.URL+"/ui/diff?doc=go%2Fspec&limit=2"), chromedp.WaitVisible(chromedp.CSS(`a[rel=next]`)),
		chromedp.Click(chromedp.CSS(`a[rel=next]`)), chromedp.WaitVisible(chromedp.CSS(`a[rel=prev]`)))
	if h := text(`main h3`); h != "Sections 3–4 of 4 that differ, rule changes first" {
		t.Errorf("the next page is %q", h)
	}
	do("nothing changed", chromedp.Navigate(srv.URL+"/ui/diff?doc=go%2Fspec&section=Introduction"), chromedp.WaitVisible(chromedp.CSS(`p.nothing`)))
	if got := text(`p.nothing`); got != "Nothing changed between go1.25 and go1.26 (section Introduction)." {
		t.Errorf("an unchanged section: %q", got)
	}

	// The context notes, for an admin.
	do("the context page", chromedp.Click(chromedp.CSS(`header nav a[href="/ui/context"]`)), chromedp.WaitVisible(chromedp.CSS(`table`)))
	if notes := text(`table`); !strings.Contains(notes, "langspec://go/spec\tThe Go version our services build with") || !strings.Contains(notes, "langspec context add") ||
		!strings.Contains(notes, "langspec://demo\tA toy language for examples; none of our code is written in it.\tyes\tlangspec.json") {
		t.Errorf("the context page: %q", notes)
	}
	shot("context")

	// A last page, so that what the others wrote has arrived.
	do("the search page", chromedp.Navigate(srv.URL+"/ui/search?q=slices"), chromedp.WaitVisible(chromedp.CSS(`footer`)))
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	for _, m := range console {
		t.Errorf("the console: %s", m)
	}
}

// TestManualPagesInBrowser drives the manual pages in headless Chromium
// as a person would from the first page: log in, read what is stored, go
// to Manuals from the menu, search from the form, open the best hit, go
// back to the search, and follow the specification search's empty state
// to the manuals for the same words. The pages write nothing to the
// console.
func TestManualPagesInBrowser(t *testing.T) {
	browser := toolstest.Chromium(t)
	srv, _, admin, _, _ := newManualUI(t, nil)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox,
		chromedp.WindowSize(1100, 800), chromedp.Flag("disable-gpu", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 120*time.Second)
	defer cancel()
	var mu sync.Mutex
	var console []string
	messages := chromedp.Console(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if (m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleWarning || m.IsException()) && !strings.HasSuffix(m.URL, "/favicon.ico") {
				mu.Lock()
				console = append(console, m.String()+" ("+m.URL+")")
				mu.Unlock()
			}
		}
	}()
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("reading %s: %v", sel, err)
		}
		return v
	}
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}

	do("logging in", chromedp.Navigate(srv.URL+"/ui/"), chromedp.WaitVisible(chromedp.CSS(`#token`)),
		chromedp.SendKeys(chromedp.CSS(`#token`), admin), chromedp.Submit(chromedp.CSS(`#token`)), chromedp.WaitVisible(chromedp.CSS(`section.stored`)))
	mu.Lock()
	console = nil // the login page's 401 before the token
	mu.Unlock()
	if stored := text(`section.stored`); !strings.Contains(stored, "What is stored") || !strings.Contains(stored, "The Go Programming Language Specification") ||
		!strings.Contains(stored, "5 manuals: insurance-ja") {
		t.Errorf("the first page's stored list: %q", stored)
	}

	do("the manuals page", chromedp.Click(chromedp.CSS(`header nav a[href="/ui/manuals"]`)), chromedp.WaitVisible(chromedp.CSS(`table`)))
	do("searching the manuals", chromedp.SendKeys(chromedp.CSS(`#q`), "replication lag"), chromedp.Submit(chromedp.CSS(`#q`)),
		chromedp.WaitVisible(chromedp.CSS(`li.hit a`)))
	first := text(`li.hit a`)
	do("opening the best hit", chromedp.Click(chromedp.CSS(`li.hit a`)), chromedp.WaitVisible(chromedp.CSS(`div.text`)))
	if h := text(`main h2`); h != first {
		t.Errorf("the best hit %q opened %q", first, h)
	}
	do("back to the search", chromedp.Click(chromedp.CSS(`a[href^="/ui/manuals/search?"]`)), chromedp.WaitVisible(chromedp.CSS(`li.hit a`)))
	if got := text(`li.hit a`); got != first {
		t.Errorf("back to the search: the best hit is %q, was %q", got, first)
	}

	do("a specification search that finds nothing", chromedp.Navigate(srv.URL+"/ui/search?q=EADDRINUSE"), chromedp.WaitVisible(chromedp.CSS(`section.nothing`)))
	do("the same words in the manuals", chromedp.Click(chromedp.CSS(`section.nothing a[href^="/ui/manuals/search"]`)), chromedp.WaitVisible(chromedp.CSS(`li.hit a`)))
	if got := text(`li.hit .path`); !strings.Contains(got, "net.md#") && !strings.Contains(got, "errors.md#") {
		t.Errorf("EADDRINUSE in the manuals: the best hit is in %q", got)
	}
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	for _, m := range console {
		t.Errorf("the console: %s", m)
	}
}
