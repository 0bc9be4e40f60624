package main

import (
	"context"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/langspec/langspec/internal/tools/toolstest"
)

// pageProblems is run in the page: what a reader of a narrow (or wide)
// window would see wrong. Each problem is one line naming the element.
const pageProblems = `(() => {
  const out = [];
  const W = window.innerWidth;
  if (document.documentElement.scrollWidth > W + 1) {
    const wide = [...document.querySelectorAll("body *")].filter(e => e.getBoundingClientRect().right > W + 1)
      .slice(0, 3).map(e => e.tagName.toLowerCase() + (e.className ? "." + e.className : "") + " " + JSON.stringify(e.textContent.slice(0, 40)));
    out.push("the page is " + document.documentElement.scrollWidth + " px wide in a " + W + " px window: " + wide.join(", "));
  }
  // Every menu entry whole and inside the window.
  for (const a of document.querySelectorAll("header nav a, header nav button")) {
    const r = a.getBoundingClientRect();
    if (r.left < -1 || r.right > W + 1) out.push("the menu entry " + JSON.stringify(a.textContent) + " reaches " + Math.round(r.right) + " px");
  }
  // Dates and versions on one line: the tops of their text's boxes agree.
  const lines = (el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    const rects = [...range.getClientRects()].filter(r => r.width > 0).sort((a, b) => a.top - b.top);
    let n = 0, bottom = -Infinity;
    for (const r of rects) {
      if (r.top >= bottom - 2) n++; // below the line so far: a new line
      bottom = Math.max(bottom, r.bottom);
    }
    return n;
  };
  for (const td of document.querySelectorAll("td.date, td.version")) {
    if (td.textContent.trim() !== "" && lines(td) > 1) out.push("the cell " + JSON.stringify(td.textContent.trim()) + " wraps onto " + lines(td) + " lines");
  }
  // Log out is not the loudest thing on the page: no filled button.
  const logout = document.querySelector("header form.logout button");
  if (logout) {
    const bg = getComputedStyle(logout).backgroundColor;
    if (bg !== "rgba(0, 0, 0, 0)" && bg !== "transparent") out.push("Log out is a filled button (" + bg + ")");
  }
  // Code in a snippet is set in a monospace font.
  for (const c of document.querySelectorAll(".snippet code.snip")) {
    if (!/mono/i.test(getComputedStyle(c).fontFamily)) out.push("snippet code " + JSON.stringify(c.textContent) + " is not monospace");
  }
  if (document.body.textContent.includes("embedded:")) out.push("the page shows an embedded: source where people read \"built in\"");
  return out;
})()`

// TestPagesAtThreeWidths opens every page of the team server's management
// page (the manual pages too, over the fixture manuals) as an admin in headless Chromium at 1280, 800 and 400 px and checks
// what issue 50 found wrong at other widths: nothing wider than the
// window, the whole menu inside it, dates and versions on one line, Log
// out no filled button, code in snippets set apart, "built in" where the
// Go spec comes from the binary (pageProblems).
func TestPagesAtThreeWidths(t *testing.T) {
	browser := toolstest.Chromium(t)
	dbPath := seededDB(t)
	admin := makeToken(t, dbPath, "ops", "--admin")
	manuals, err := filepath.Abs(filepath.Join("..", "..", "fixtures", "manuals"))
	if err != nil {
		t.Fatal(err)
	}
	s := startTeamServerEnv(t, dbPath, []string{"MANUALS_ROOT=" + manuals})

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.Flag("disable-gpu", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v\nserver log:\n%s", what, err, s.stderr)
		}
	}
	do("logging in", chromedp.Navigate(s.url+"/ui/"), chromedp.WaitVisible(chromedp.CSS(`#token`)),
		chromedp.SendKeys(chromedp.CSS(`#token`), admin), chromedp.Submit(chromedp.CSS(`#token`)), chromedp.WaitVisible(chromedp.CSS(`#q`)))

	pages := []string{
		"/ui/search?q=" + url.QueryEscape("full slice expressions"),
		"/ui/search?q=zzqqxxv",
		"/ui/section?lang=go&id=Struct_types",
		"/ui/compare?concept=" + url.QueryEscape("integer overflow"),
		"/ui/diff",
		"/ui/sources",
		"/ui/context",
		"/ui/tokens",
		"/ui/upstreams",
		"/ui/",
		"/ui/manuals",
		"/ui/manuals/search?q=EADDRINUSE",
		"/ui/manuals/search?q=zzqqxxv&manual=ops-en",
		"/ui/manuals/read?ref=" + url.QueryEscape("nodejs-en/errors.md#errors/class-systemerror/common-system-errors"),
		"/ui/manuals/read?ref=" + url.QueryEscape("ops-en/runbooks/db/failover.md"),
		"/ui/manuals/read?ref=" + url.QueryEscape("ops-en/../../etc/passwd"),
	}
	for _, width := range []int64{1280, 800, 400} {
		do("the window", chromedp.EmulateViewport(width, 900))
		for _, path := range pages {
			do(path, chromedp.Navigate(s.url+path), chromedp.WaitVisible(chromedp.CSS(`footer`)))
			problems, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](pageProblems))
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range problems {
				t.Errorf("%d px, %s: %s", width, path, p)
			}
		}
	}
	// The checks see what they look for: the search has code in its
	// snippets, the sources page a date, a version and the built-in spec.
	do("the search again", chromedp.Navigate(s.url+pages[0]), chromedp.WaitVisible(chromedp.CSS(`footer`)))
	codes, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll(".snippet code.snip").length`))
	if err != nil || codes == 0 {
		t.Errorf("no code set apart in the snippets of %s (%v)", pages[0], err)
	}
	do("the sources again", chromedp.Navigate(s.url+"/ui/sources"), chromedp.WaitVisible(chromedp.CSS(`footer`)))
	cells, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("td.date, td.version, td.source")].map(td => td.textContent.trim())`))
	if err != nil || len(cells) < 3 || !strings.Contains(strings.Join(cells, "|"), "built in") {
		t.Errorf("the sources table's dates, versions and sources: %q (%v)", cells, err)
	}
}
