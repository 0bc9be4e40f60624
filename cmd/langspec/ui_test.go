package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/langspec/langspec/internal/tools/toolstest"
)

// TestManagementPageInBrowser drives the team server's /ui in headless
// Chromium: log in with an admin token; search with a query for each
// channel, a typo, nothing to find and a CJK query, each page rendered to
// its end; open a section (its text rendered from Markdown, its path and
// previous and next sections linked); create a token (shown once) and
// revoke it; see an upstream's status and log in to it; ingest from the
// page, once done and once failing; then log in with a token that is not
// an admin's, which searches but is refused the tokens page. Screenshots
// of each page go to docs/ui/ with LANGSPEC_UI_SCREENSHOTS=1 (README shows
// them), else to a temporary folder.
func TestManagementPageInBrowser(t *testing.T) {
	browser := toolstest.Chromium(t)
	dbPath := seededDB(t)
	dir := filepath.Dir(dbPath)
	cfg := filepath.Join(dir, "langspec.json")
	// An authorization server for the upstream that logs in with OAuth.
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/authorize":
			q := r.URL.Query()
			http.Redirect(w, r, q.Get("redirect_uri")+"?code=c1&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
		case "/token":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"access_token":"a1","refresh_token":"r1","token_type":"Bearer","expires_in":3600}`)
		}
	}))
	defer as.Close()
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"tracker": map[string]any{"description": "an issue tracker that is down", "type": "http", "url": "http://127.0.0.1:9/mcp"},
		"wiki": map[string]any{"description": "a wiki that logs in with OAuth", "type": "http", "url": "http://127.0.0.1:9/wiki/mcp",
			"oauth": map[string]any{"clientId": "langspec", "authorizationUrl": as.URL + "/authorize", "tokenUrl": as.URL + "/token"}},
	}, "sources": []any{map[string]any{"language": "demo", "doc": "broken", "display_name": "A source that is down", "kind": "html",
		"url": "http://127.0.0.1:9/spec.html", "canonical_url": "http://127.0.0.1:9/spec.html", "source_policy": "full_text"}}})
	os.WriteFile(cfg, b, 0o600)
	admin := makeToken(t, dbPath, "ops", "--admin")
	reader := makeToken(t, dbPath, "reader")
	s := startTeamServer(t, dbPath, "--config", cfg)

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

	shot := func(name string) error {
		buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(shots, name+".png"), buf, 0o644)
	}
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("reading %s: %v\nserver log:\n%s", sel, err, s.stderr)
		}
		return v
	}
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v\nserver log:\n%s", what, err, s.stderr)
		}
	}
	do("the login page", chromedp.Navigate(s.url+"/ui/"), chromedp.WaitVisible(chromedp.CSS(`#token`)))
	loginText := text(`main`)
	shot("login")
	do("logging in", chromedp.SendKeys(chromedp.CSS(`#token`), admin), chromedp.Submit(chromedp.CSS(`#token`)),
		chromedp.WaitVisible(chromedp.CSS(`#q`)))
	do("searching", chromedp.SendKeys(chromedp.CSS(`#q`), "slice expressions"), chromedp.Submit(chromedp.CSS(`#q`)),
		chromedp.WaitVisible(chromedp.CSS(`.hit a`)))
	firstHit := text(`.hit a`)
	shot("search")
	// Every channel, a typo, nothing to find, a CJK query: each page
	// whole (its footer there), with hits or "Nothing found".
	searches := map[string]string{}
	for _, q := range []string{"methd reciever", "zzqqxxv", "型", "goroutine", "<-chan", "s[i:j:k]", "x.(T)"} {
		do("searching for "+q, chromedp.Navigate(s.url+"/ui/search?q="+url.QueryEscape(q)), chromedp.WaitVisible(chromedp.CSS(`footer`)))
		hits, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('li.hit').length`))
		if err != nil {
			t.Fatal(err)
		}
		page := text(`main`)
		if hits == 0 && !strings.Contains(page, "Nothing found.") {
			t.Errorf("searching for %q: neither hits nor \"Nothing found\": %q", q, page)
		}
		if footer := text(`footer`); !strings.Contains(footer, "ops (admin)") {
			t.Errorf("searching for %q: the footer reads %q", q, footer)
		}
		if q == "methd reciever" {
			searches["correction"] = text(`p.correction`)
		}
		searches[q] = page
	}
	if got := searches["correction"]; got != "Also searched “method” for “methd”." {
		t.Errorf("the corrections line reads %q", got)
	}
	for q, want := range map[string]string{"methd reciever": "Also searched “receiver” for “reciever”.", "zzqqxxv": "Nothing found.",
		"goroutine": "found by", "<-chan": "Channel types", "s[i:j:k]": "Full slice expressions", "x.(T)": "Type assertions"} {
		if !strings.Contains(searches[q], want) {
			t.Errorf("searching for %q: the page lacks %q: %.300q", q, want, searches[q])
		}
	}
	for q, channel := range map[string]string{"<-chan": "literal", "s[i:j:k]": "symbol", "methd reciever": "typo:method"} {
		if !strings.Contains(searches[q], channel) {
			t.Errorf("searching for %q: no hit found by %s: %.300q", q, channel, searches[q])
		}
	}
	do("back to the first search", chromedp.Navigate(s.url+"/ui/search?q="+url.QueryEscape("slice expressions")),
		chromedp.WaitVisible(chromedp.CSS(`.hit a`)))
	do("opening a section", chromedp.Click(chromedp.CSS(`.hit a`)), chromedp.WaitVisible(chromedp.CSS(`div.text p`)))
	title, _ := chromedp.Run(ctx, chromedp.Title())
	sectionText := text(`div.text`)
	prevText, nextText, pathText := text(`a[rel=prev]`), text(`a[rel=next]`), text(`nav.path`)
	shot("section")
	do("following the path", chromedp.Click(chromedp.CSS(`nav.path a`)), chromedp.WaitVisible(chromedp.CSS(`a[rel=next]`)))
	parentTitle := text(`h2`)
	do("a section with a list and code", chromedp.Navigate(s.url+"/ui/section?lang=go&id=Struct_types"), chromedp.WaitVisible(chromedp.CSS(`div.text ul li`)))
	listItem, codeBlock := text(`div.text ul li`), text(`div.text pre`)
	font, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[getComputedStyle(document.querySelector('div.text p')).fontFamily, getComputedStyle(document.querySelector('div.text pre')).fontFamily]`))
	if err != nil {
		t.Fatal(err)
	}
	do("the next section", chromedp.Click(chromedp.CSS(`a[rel=next]`)), chromedp.WaitVisible(chromedp.CSS(`a[rel=prev]`)))
	afterStruct := text(`h2`)
	do("making a token", chromedp.Navigate(s.url+"/ui/tokens"), chromedp.WaitVisible(chromedp.CSS(`#name`)),
		chromedp.SendKeys(chromedp.CSS(`#name`), "temp"), chromedp.SendKeys(chromedp.CSS(`#tools`), "search_spec"),
		chromedp.Submit(chromedp.CSS(`#name`)), chromedp.WaitVisible(chromedp.CSS(`#new-token`)))
	newToken := text(`#new-token`)
	shot("tokens")
	do("revoking it", chromedp.Click(chromedp.CSS(`button[aria-label="revoke temp"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`button[aria-label="revoke temp"]`)))
	tokensText := text(`table`)
	do("the upstreams", chromedp.Navigate(s.url+"/ui/upstreams"), chromedp.WaitVisible(chromedp.CSS(`h2`)))
	upstreamsText := text(`main`)
	do("logging in to an OAuth upstream", chromedp.Click(chromedp.CSS(`a[href="/ui/upstreams/login?name=wiki"]`)),
		chromedp.WaitVisible(chromedp.CSS(`p.notice`)))
	oauthText := text(`main`)
	shot("upstreams")
	do("ingesting from the page", chromedp.Navigate(s.url+"/ui/sources"),
		chromedp.Click(chromedp.CSS(`button[aria-label="ingest go spec"]`)), chromedp.WaitVisible(chromedp.CSS(`p.notice`)))
	ingestText := text(`main`)
	shot("ingest")
	do("an ingest that fails", chromedp.Navigate(s.url+"/ui/sources"),
		chromedp.Click(chromedp.CSS(`button[aria-label="ingest demo broken"]`)), chromedp.WaitVisible(chromedp.CSS(`p.error`)))
	failedText := text(`main`)

	// A token that is not an admin's: search and sections, nothing else.
	do("logging out", chromedp.Click(chromedp.CSS(`header form button`)), chromedp.WaitVisible(chromedp.CSS(`#token`)))
	do("logging in as a reader", chromedp.SendKeys(chromedp.CSS(`#token`), reader), chromedp.Submit(chromedp.CSS(`#token`)),
		chromedp.WaitVisible(chromedp.CSS(`#q`)))
	readerNav := text(`header nav`)
	do("a reader searching", chromedp.SendKeys(chromedp.CSS(`#q`), "methd reciever"), chromedp.Submit(chromedp.CSS(`#q`)),
		chromedp.WaitVisible(chromedp.CSS(`p.correction`)))
	readerCorrection := text(`p.correction`)
	do("a reader reading", chromedp.Click(chromedp.CSS(`.hit a`)), chromedp.WaitVisible(chromedp.CSS(`div.text`)))
	tokensResp, err := chromedp.Run(ctx, chromedp.NavigateResponse(s.url+"/ui/tokens"))
	if err != nil {
		t.Fatal(err)
	}
	readerTokens := text(`main`)
	if !strings.Contains(loginText, "admin token") {
		t.Errorf("login page: %q", loginText)
	}
	if firstHit != "Slice expressions" || !strings.Contains(title, "Slice expressions") || !strings.Contains(sectionText, "construct a substring or slice") {
		t.Errorf("search and section: first hit %q, title %q, text %.80q", firstHit, title, sectionText)
	}
	if !strings.Contains(prevText, "Index expressions") || !strings.Contains(nextText, "Simple slice expressions") ||
		!strings.HasPrefix(pathText, "Expressions › Slice expressions") || parentTitle != "Expressions" {
		t.Errorf("Slice expressions: previous %q, next %q, path %q, the path's link led to %q", prevText, nextText, pathText, parentTitle)
	}
	if !strings.HasPrefix(listItem, "If S contains an embedded field T,") || !strings.Contains(codeBlock, "StructType") ||
		font[0] == font[1] || !strings.Contains(font[1], "monospace") || afterStruct != "Pointer types" {
		t.Errorf("Struct types: list item %q, code %.40q, fonts %q (prose, code), next %q", listItem, codeBlock, font, afterStruct)
	}
	if !strings.HasPrefix(strings.TrimSpace(newToken), "lsp_") {
		t.Errorf("the new token shown: %q", newToken)
	}
	if !strings.Contains(tokensText, "temp") || strings.Contains(tokensText, strings.TrimSpace(newToken)) {
		t.Errorf("tokens after the revoke: %q", tokensText)
	}
	if !strings.Contains(upstreamsText, "tracker") || !strings.Contains(upstreamsText, "unavailable") && !strings.Contains(upstreamsText, "connecting") && !strings.Contains(upstreamsText, "idle") {
		t.Errorf("upstreams page: %q", upstreamsText)
	}
	if !strings.Contains(oauthText, "Logged in.") || !strings.Contains(oauthText, "oauth.wiki") {
		t.Errorf("after the OAuth login: %q", oauthText)
	}
	if !strings.Contains(ingestText, "Done in") {
		t.Errorf("ingest page: %q", ingestText)
	}
	if !strings.Contains(failedText, "Failed after") || !strings.Contains(failedText, "on the Sources page") ||
		!strings.Contains(failedText, "ingest demo --doc broken --from PATH") || strings.Contains(failedText, "with --from") {
		t.Errorf("the failed ingest's page: %q", failedText)
	}
	if strings.Contains(readerNav, "Tokens") || strings.Contains(readerNav, "Sources") || !strings.Contains(readerNav, "Search") {
		t.Errorf("a reader's navigation: %q", readerNav)
	}
	if readerCorrection != "Also searched “method” for “methd”." {
		t.Errorf("a reader's corrections line: %q", readerCorrection)
	}
	if tokensResp.Status != http.StatusForbidden || !strings.Contains(readerTokens, "makes and revokes the server's tokens") {
		t.Errorf("a reader on the tokens page: %d %q", tokensResp.Status, readerTokens)
	}
	// The revoked token no longer opens anything.
	if code, _, _ := run(t, homeOf(dbPath), "--db", dbPath, "token", "list", "--json"); code != 0 {
		t.Error("token list failed")
	}
	cs, err := s.connect(t, strings.TrimSpace(newToken))
	if err == nil {
		cs.Close()
		t.Error("the token revoked on the page still connects")
	}
}
