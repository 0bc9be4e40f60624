// Package webui is the team server's management page at /ui: search and
// section reading with citations, one concept compared across languages,
// what changed between two stored versions of a document, the user's
// context notes with the answers they cover, the stored sources and
// versions, the manuals searched and read through the manual tools' own
// calls, tokens (made and revoked there), and upstream servers with their
// state and the names of the secrets. Server-rendered html/template
// pages without any JavaScript, behind a token (a bearer header, or
// entered once in a login form that sets an HTTP-only session cookie),
// every form carrying a CSRF token, a strict Content-Security-Policy, and
// no secret rendered. An admin's token opens every page; any other token
// the reading pages its tools allow (search_spec, get_section, compare,
// spec_diff, manual_find, manual_read), the others answering 403.
package webui

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"html/template"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/catalog/upstream"
	"github.com/langspec/langspec/internal/contextnote"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest"
	"github.com/langspec/langspec/internal/manual/find"
	"github.com/langspec/langspec/internal/spec"
	"github.com/langspec/langspec/internal/teamauth"
	"github.com/langspec/langspec/internal/text/shape"
	"github.com/langspec/langspec/internal/text/snippet"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static/app.css
var appCSS []byte

// Options are what the pages show and who may see them.
type Options struct {
	// SpecOf is the specification use cases a request runs (search,
	// section, compare, diff: the tools' calls, internal/spec) over the
	// index that answers it: the team server's current one, which a
	// read-only replica replaces under it.
	SpecOf func(context.Context) *spec.Service
	// ManualsOf is the manual use cases a request runs (list, ls, toc,
	// read, find, hits: the manual tools' calls, find.Service) over the
	// index that answers it; nil, or a nil answer: the server serves no
	// manuals, and the page offers none.
	ManualsOf func(context.Context) *find.Service
	// StateOf is the state file tokens and secrets are read from and
	// written to (db.State), apart from the index.
	StateOf func(context.Context) *db.State
	// Verifier checks a token (bearer header or login form); nil serves
	// the page without a login, as an admin (a loopback server without
	// auth).
	Verifier auth.TokenVerifier
	// Upstreams, when set, are shown with their state.
	Upstreams *upstream.Manager
	Logger    *slog.Logger
	Now       func() time.Time
	// BaseURL is where browsers reach the server (http://host:port): the
	// redirect of an upstream's OAuth login started on the page.
	BaseURL string
	// Sources are what can be ingested, and Ingest ingests one of them
	// (nil on a read-only server: the page offers no ingest).
	Sources []ingest.SourceSpec
	Ingest  func(ctx context.Context, language, doc string, progress func(page string, failed bool)) (ingest.Report, error)
	// Subjects are the identity provider's subjects the configuration
	// names, with their tools (nil: every tool) and whether each is an
	// admin, to show beside the tokens.
	Subjects map[string]SubjectInfo
	// Tokens is the rule a token made on the tokens page follows, the
	// command line's; its Store is set per request (StateOf).
	Tokens teamauth.Tokens
	// Limiter is the team server's rate limit, the one /mcp passes too;
	// nil: no limit.
	Limiter Limiter
	// SessionsPerSubject caps each subject's logins, its oldest ended to
	// make room; 0 is DefaultSessionsPerSubject.
	SessionsPerSubject int
	// Notes are the user's context notes, shown with the answers whose
	// hits they cover and listed for admins; nil: none.
	Notes *contextnote.Source
}

// SubjectInfo is a configured subject as the tokens page shows it.
type SubjectInfo struct {
	Tools []string
	Admin bool
}

// Limiter is the team server's rate limit as the page uses it. Each
// method that refuses has answered 429 itself.
type Limiter interface {
	// Allow says whether a request of sub may go on; the zero Subject
	// (before a login) is counted by address.
	Allow(w http.ResponseWriter, r *http.Request, sub teamauth.Subject) bool
	// AllowCredential says whether a token from r's address may be
	// checked at all: not while its refused tokens have used up its
	// share.
	AllowCredential(w http.ResponseWriter, r *http.Request) bool
	// CredentialFailed counts a refused token against r's address.
	CredentialFailed(r *http.Request)
}

// noLimit is the Limiter of a page without one.
type noLimit struct{}

func (noLimit) Allow(http.ResponseWriter, *http.Request, teamauth.Subject) bool { return true }
func (noLimit) AllowCredential(http.ResponseWriter, *http.Request) bool         { return true }
func (noLimit) CredentialFailed(*http.Request)                                  {}

// sessionTTL is how long a login lasts without use.
const sessionTTL = 8 * time.Hour

// DefaultSessionsPerSubject caps the logins one subject holds at once:
// a person's browsers and devices, with room to spare. A login past it ends
// the subject's oldest, so a token that logs in without end holds this
// many sessions, not one per login.
const DefaultSessionsPerSubject = 16

// sweepEvery is how often sessions and upstream logins past their time are
// dropped (Run), so that the ones never used again do not stay in memory.
const sweepEvery = 10 * time.Minute

// contentSecurityPolicy allows the page's own stylesheet and nothing else:
// no script at all, no frames, forms only to itself.
const contentSecurityPolicy = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// challenge is the WWW-Authenticate of the page's 401s (RFC 9110 section
// 11.6.1 wants one on every 401): a bearer token, or the login form.
const challenge = `Bearer realm="langspec management page"`

// cookie names: the session, and the login form's CSRF token (double
// submit, before there is a session).
const (
	sessionCookie = "langspec_session"
	loginCookie   = "langspec_login_csrf"
)

// UI is the management page's handler.
type UI struct {
	o     Options
	pages map[string]*template.Template

	mu       sync.Mutex
	sessions map[string]*session
	logins   map[string]*pendingLogin // by OAuth state
	jobs     []*ingestJob
}

type pendingLogin struct {
	p       *upstream.PendingLogin
	session *session
	expires time.Time
}

type session struct {
	subject teamauth.Subject
	// token is the credential the session was opened with, kept in memory
	// only: every request checks it again (authenticate), so a session
	// ends with its token's revocation or expiry, and what it may see is
	// its token's role on that request (subject), never the role it had at
	// login.
	token   string
	csrf    string
	created time.Time
	expires time.Time
	// bearer: the request carried its token in an Authorization header,
	// which a browser never adds by itself, so no other site can forge
	// it; such a request needs no CSRF token.
	bearer bool
	// manuals: the index that answers the request serves manuals
	// (Options.ManualsOf); set on the request's copy.
	manuals bool
}

// New builds the page.
func New(o Options) (*UI, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.SessionsPerSubject <= 0 {
		o.SessionsPerSubject = DefaultSessionsPerSubject
	}
	if o.Limiter == nil {
		o.Limiter = noLimit{}
	}
	funcs := template.FuncMap{"join": strings.Join, "snippet": markSnippet, "worddiff": WordDiffHTML, "source": ingest.SourceLabel}
	u := &UI{o: o, pages: map[string]*template.Template{}, sessions: map[string]*session{}, logins: map[string]*pendingLogin{}}
	for _, name := range pageNames {
		t, err := template.New(name).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return nil, err
		}
		u.pages[name] = t
	}
	return u, nil
}

// pageNames are the templates, each a page in the layout.
var pageNames = []string{"login", "search", "section", "compare", "diff", "manuals", "manualread", "context", "sources", "tokens", "upstreams", "ingest", "denied"}

// htmlMark marks matched words in the page's snippets with two private-use
// characters no specification holds, where "**" would be ambiguous in a
// text about Python's **kwargs, and line breaks with a third, so that code
// lines can be set apart from the prose (markSnippet).
var htmlMark = snippet.Marker{Before: "\ue000", After: "\ue001", Break: "\ue002"}

// markSnippet renders a snippet's htmlMark marks as <mark>, escaping the
// rest; a line of it that reads as code (codeLike) is set in <code>, so
// that `a[low : high : max]` no longer runs into the sentence beside it.
func markSnippet(s string) template.HTML {
	var b strings.Builder
	lines := strings.Split(s, htmlMark.Break)
	for i, line := range lines {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if i > 0 && b.Len() > 0 {
			b.WriteByte(' ')
		}
		// Only whole lines are judged: a snippet with no line break is a
		// window inside one paragraph.
		if len(lines) > 1 && codeLike(strings.NewReplacer(htmlMark.Before, "", htmlMark.After, "").Replace(line)) {
			b.WriteString(`<code class="snip">`)
			writeMarked(&b, line)
			b.WriteString(`</code>`)
			continue
		}
		writeMarked(&b, line)
	}
	return template.HTML(b.String())
}

// writeMarked writes s escaped, its htmlMark marks as <mark>.
func writeMarked(b *strings.Builder, s string) {
	for i, part := range strings.Split(s, htmlMark.Before) {
		if i == 0 {
			b.WriteString(template.HTMLEscapeString(part))
			continue
		}
		marked, rest, ok := strings.Cut(part, htmlMark.After)
		if !ok {
			b.WriteString(template.HTMLEscapeString(part))
			continue
		}
		b.WriteString("<mark>" + template.HTMLEscapeString(marked) + "</mark>" + template.HTMLEscapeString(rest))
	}
}

// cutAny is w without its last byte when that byte is one of set.
func cutAny(w, set string) (string, bool) {
	if w != "" && strings.IndexByte(set, w[len(w)-1]) >= 0 {
		return w[:len(w)-1], true
	}
	return w, false
}

// codeLike reports a line of a snippet that reads as code: none of its
// words ends a sentence, and half of them or more hold code punctuation
// (shape.HasCode) once the punctuation of a sentence around them is left
// off, or no letter at all (2, ==).
func codeLike(line string) bool {
	words := strings.Fields(line)
	if len(words) == 0 {
		return false
	}
	code := 0
	for _, w := range words {
		if before, ok := cutAny(w, ".!?"); ok {
			if r, _ := utf8.DecodeLastRuneInString(before); unicode.IsLetter(r) {
				return false // prose: a word ends a sentence
			}
		}
		bare := strings.TrimRight(strings.TrimLeft(w, "(\"'“"), ",;:)\"'”")
		if bare == "" || shape.HasCode(bare) || !strings.ContainsFunc(bare, unicode.IsLetter) {
			code++
		}
	}
	return code*2 >= len(words)
}

// ServeHTTP routes /ui/….
func (u *UI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	// same-origin, not no-referrer: with no-referrer a browser sends
	// "Origin: null" with the page's own forms.
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	switch r.URL.Path {
	case "/ui/static/app.css":
		h.Set("Content-Type", "text/css; charset=utf-8")
		h.Set("Cache-Control", "max-age=3600")
		w.Write(appCSS)
		return
	case "/ui/login":
		// Counted by address: nobody is known yet.
		if u.o.Limiter.Allow(w, r, teamauth.Subject{}) {
			u.login(w, r)
		}
		return
	}
	sess, ok := u.authenticate(w, r)
	if !ok || !u.o.Limiter.Allow(w, r, sess.subject) {
		return
	}
	sess.manuals = u.manualService(r.Context()) != nil
	if r.Method == http.MethodPost && !sess.bearer && !u.checkCSRF(r, sess) {
		http.Error(w, "the form is stale or was not sent by this page (CSRF token missing or wrong); reload the page", http.StatusForbidden)
		return
	}
	if r.URL.Path == "/ui/logout" && r.Method == http.MethodPost {
		u.logout(w, r)
		return
	}
	switch r.URL.Path {
	case "/ui/", "/ui":
		// The first page: search, or for a token that may not search
		// the first reading page it may use (the login lands here).
		if to := firstPage(sess.subject); to != "" {
			http.Redirect(w, r, to, http.StatusSeeOther)
			return
		}
		if u.mayRead(w, sess, searchTool, "search") {
			u.search(w, r, sess)
		}
		return
	case "/ui/search":
		if u.mayRead(w, sess, searchTool, "search") {
			u.search(w, r, sess)
		}
		return
	case "/ui/section":
		if u.mayRead(w, sess, sectionTool, "read sections") {
			u.section(w, r, sess)
		}
		return
	case "/ui/compare":
		if u.mayRead(w, sess, compareTool, "compare languages") {
			u.compare(w, r, sess)
		}
		return
	case "/ui/diff":
		if u.mayRead(w, sess, diffTool, "compare versions") {
			u.diff(w, r, sess)
		}
		return
	case "/ui/manuals", "/ui/manuals/search":
		if u.mayRead(w, sess, manualFindTool, "search the manuals") {
			u.manuals(w, r, sess)
		}
		return
	case "/ui/manuals/read":
		if u.mayRead(w, sess, manualReadTool, "read the manuals") {
			u.manualRead(w, r, sess)
		}
		return
	}
	if purpose, ok := adminPages[r.URL.Path]; ok && !sess.subject.Admin {
		u.deny(w, sess, purpose)
		return
	}
	switch {
	case r.URL.Path == "/ui/sources":
		u.sources(w, r, sess)
	case r.URL.Path == "/ui/context":
		u.contextNotes(w, r, sess)
	case r.URL.Path == "/ui/tokens":
		u.tokens(w, r, sess)
	case r.URL.Path == "/ui/tokens/revoke" && r.Method == http.MethodPost:
		u.revoke(w, r, sess)
	case r.URL.Path == "/ui/upstreams":
		u.upstreams(w, r, sess)
	case r.URL.Path == "/ui/upstreams/login" && r.Method == http.MethodGet:
		u.upstreamLogin(w, r, sess)
	case r.URL.Path == "/ui/oauth/callback" && r.Method == http.MethodGet:
		u.oauthCallback(w, r, sess)
	case r.URL.Path == "/ui/upstreams/logout" && r.Method == http.MethodPost:
		u.upstreamLogout(w, r, sess)
	case r.URL.Path == "/ui/ingest" && r.Method == http.MethodPost:
		u.startIngest(w, r, sess)
	case r.URL.Path == "/ui/ingest":
		u.ingestStatus(w, r, sess)
	default:
		http.NotFound(w, r)
	}
}

// The tools a token that is not an admin's must allow (teamauth.Subject
// Tools) to use the reading pages: the page is those tools in a browser.
const (
	searchTool  = "search_spec"
	sectionTool = "get_section"
	compareTool = "compare"
	diffTool    = "spec_diff"
	// The manual pages are manual_find (the list and the search) and
	// manual_read (a section), the tools whose calls they make.
	manualFindTool = "manual_find"
	manualReadTool = "manual_read"
)

// readingTools are the tools of the reading pages, in the navigation's
// order.
var readingTools = []string{searchTool, sectionTool, compareTool, diffTool, manualFindTool, manualReadTool}

// firstPage is where /ui/ sends a token that may not search but may use
// another page listed in the navigation; "" to search (or to answer 403).
func firstPage(sub teamauth.Subject) string {
	switch {
	case allows(sub, searchTool):
		return ""
	case allows(sub, compareTool):
		return "/ui/compare"
	case allows(sub, diffTool):
		return "/ui/diff"
	case allows(sub, manualFindTool):
		return "/ui/manuals"
	}
	return ""
}

// adminPages are the pages only an admin's token opens, each with what it
// is for (the 403 says it).
var adminPages = map[string]string{
	"/ui/sources":          "The sources page shows the stored versions and ingests documents",
	"/ui/context":          "The context page lists the user's context notes",
	"/ui/ingest":           "The ingest page ingests documents into the server's database",
	"/ui/tokens":           "The tokens page makes and revokes the server's tokens",
	"/ui/tokens/revoke":    "The tokens page makes and revokes the server's tokens",
	"/ui/upstreams":        "The upstreams page shows the upstream servers and logs in to them",
	"/ui/upstreams/login":  "The upstreams page shows the upstream servers and logs in to them",
	"/ui/upstreams/logout": "The upstreams page shows the upstream servers and logs in to them",
	"/ui/oauth/callback":   "The upstreams page shows the upstream servers and logs in to them",
}

// allows says whether a subject may use a tool's page: an admin every
// one, anyone else when the token's tools allow the tool (nil: all).
func allows(sub teamauth.Subject, tool string) bool {
	return sub.Admin || sub.Tools == nil || slices.Contains(sub.Tools, tool)
}

// mayRead answers 403 unless the session's token allows tool.
func (u *UI) mayRead(w http.ResponseWriter, s *session, tool, what string) bool {
	if allows(s.subject, tool) {
		return true
	}
	p := newPage("Not for this token", s)
	p.Error = "This token may not " + what + " here: its tools do not include " + tool + " (see langspec token list)."
	u.renderStatus(w, http.StatusForbidden, "denied", p)
	return false
}

// deny answers a token that is not an admin's on an admin's page.
func (u *UI) deny(w http.ResponseWriter, s *session, purpose string) {
	p := newPage("Admins only", s)
	p.Error = purpose + ": it is for admin tokens (langspec token create NAME --admin)."
	u.renderStatus(w, http.StatusForbidden, "denied", p)
}

// page is what every template gets.
type page struct {
	Title, Error, Notice, CSRF string
	Subject                    string
	// Admin: the session's token is an admin's, and the navigation links
	// the admin's pages.
	Admin bool
	// CanSearch, CanRead, CanCompare, CanDiff: the token may use the
	// search, section, compare and diff pages.
	CanSearch, CanRead, CanCompare, CanDiff bool
	// CanFindManuals, CanReadManuals: the server serves manuals and the
	// token may search them (the manuals page) and read their sections.
	CanFindManuals, CanReadManuals bool
	// Refresh: the page reloads itself every second (a job under way).
	Refresh bool
}

func (u *UI) render(w http.ResponseWriter, name string, data any) {
	u.renderStatus(w, http.StatusOK, name, data)
}

// renderStatus is render with another status than 200. The page is
// rendered whole before anything is sent: a template that fails (a field
// the data lacks) answers 500, not half a page with 200.
func (u *UI) renderStatus(w http.ResponseWriter, status int, name string, data any) {
	var b bytes.Buffer
	if err := u.pages[name].ExecuteTemplate(&b, name+".html", data); err != nil {
		u.o.Logger.Error("rendering a page", "page", name, "err", err)
		http.Error(w, "this page could not be rendered (the server's log says why)", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b.Bytes())
}

// statusOf is the status of a page whose answer failed: the request's
// fault (400, 404) for the errors a user can make, 500 for the rest,
// logged; the page is rendered either way, its error shown.
func (u *UI) statusOf(err error) int {
	switch apperr.CodeOf(err) {
	case apperr.InvalidArgument, apperr.PathOutsideManuals, apperr.InvalidPath, apperr.IsADirectory, apperr.NameConflict:
		return http.StatusBadRequest
	case apperr.NotFound:
		return http.StatusNotFound
	}
	u.o.Logger.Error("answering a page", "err", err)
	return http.StatusInternalServerError
}

func newPage(title string, s *session) page {
	p := page{Title: title}
	if s != nil {
		p.CSRF, p.Subject = s.csrf, s.subject.Name
		if p.Subject == "" {
			p.Subject = "local"
		}
		p.Admin = s.subject.Admin
		p.CanSearch, p.CanRead = allows(s.subject, searchTool), allows(s.subject, sectionTool)
		p.CanCompare, p.CanDiff = allows(s.subject, compareTool), allows(s.subject, diffTool)
		p.CanFindManuals = s.manuals && allows(s.subject, manualFindTool)
		p.CanReadManuals = s.manuals && allows(s.subject, manualReadTool)
	}
	return p
}

func randomID() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// authenticate finds who the request comes from: a session cookie, or a
// bearer token (a session is made for it, so its forms get a CSRF token).
// Without a verifier everyone is the local admin. It answers 401 (with the
// login page for a browser) itself when there is no one. The session it
// returns is the request's own copy, holding the role its token has now:
// the routes decide what that role may see.
func (u *UI) authenticate(w http.ResponseWriter, r *http.Request) (*session, bool) {
	if u.o.Verifier == nil {
		return u.localSession(), true
	}
	if c, err := r.Cookie(sessionCookie); err == nil {
		u.mu.Lock()
		s := u.sessions[c.Value]
		if s != nil && !u.o.Now().Before(s.expires) {
			s = nil
		}
		if s == nil {
			delete(u.sessions, c.Value)
		}
		u.mu.Unlock()
		if s != nil {
			// The credential behind the session, checked again on every
			// request against the index that answers it: a revoked or
			// expired token's session ends here, and the role is the
			// token's now (an admin's page refuses a demoted subject).
			sub, err := u.verify(r.Context(), s.token, r)
			if err != nil || !mayLogIn(sub) {
				u.o.Limiter.CredentialFailed(r)
				u.endSession(c.Value)
				u.o.Logger.Info("management page session ended: its token was revoked or expired, or may use no page", "subject", s.subject.Name)
				u.renderLogin(w, r, http.StatusUnauthorized, "Your session ended: its token was revoked or expired, or may no longer use this page. Log in again.")
				return nil, false
			}
			u.mu.Lock()
			s.subject = sub
			s.expires = u.o.Now().Add(sessionTTL)
			req := *s
			u.mu.Unlock()
			return &req, true
		}
	}
	if authz := r.Header.Get("Authorization"); authz != "" {
		// The scheme is case-insensitive (RFC 9110 section 11.1), as on /mcp.
		scheme, token, _ := strings.Cut(strings.TrimSpace(authz), " ")
		token = strings.TrimSpace(token)
		if !strings.EqualFold(scheme, "Bearer") || token == "" {
			w.Header().Set("WWW-Authenticate", challenge)
			http.Error(w, "use Authorization: Bearer TOKEN", http.StatusUnauthorized)
			return nil, false
		}
		if !u.o.Limiter.AllowCredential(w, r) {
			return nil, false
		}
		sub, err := u.verify(r.Context(), token, r)
		if err != nil {
			u.o.Limiter.CredentialFailed(r)
			w.Header().Set("WWW-Authenticate", challenge+`, error="invalid_token"`)
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return nil, false
		}
		return &session{subject: sub, csrf: randomID(), bearer: true}, true
	}
	u.renderLogin(w, r, http.StatusUnauthorized, "")
	return nil, false
}

// makeRoom keeps the subject of key under the cap before a login adds a
// session: its oldest sessions end, and so does every expired session of
// anyone. It returns how many of the subject's ended. The caller holds
// u.mu.
func (u *UI) makeRoom(key string) int {
	now := u.o.Now()
	var mine []string
	for id, s := range u.sessions {
		switch {
		case id == "":
		case !now.Before(s.expires):
			delete(u.sessions, id) // logins that were never logged out of
		case s.subject.Key() == key:
			mine = append(mine, id)
		}
	}
	over := len(mine) - u.o.SessionsPerSubject + 1
	if over <= 0 {
		return 0
	}
	slices.SortFunc(mine, func(a, b string) int { return u.sessions[a].created.Compare(u.sessions[b].created) })
	for _, id := range mine[:over] {
		delete(u.sessions, id)
	}
	return over
}

// Run drops the sessions and upstream logins past their time every
// sweepEvery until ctx ends.
func (u *UI) Run(ctx context.Context) {
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			u.sweep()
		}
	}
}

// sweep drops the sessions and upstream logins past their time.
func (u *UI) sweep() {
	now := u.o.Now()
	u.mu.Lock()
	defer u.mu.Unlock()
	for id, s := range u.sessions {
		if id != "" && !now.Before(s.expires) {
			delete(u.sessions, id)
		}
	}
	for state, l := range u.logins {
		if now.After(l.expires) {
			delete(u.logins, state)
		}
	}
}

// sessionCount is how many page sessions are held, for tests.
func (u *UI) sessionCount() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.sessions)
}

// endSession forgets a page session.
func (u *UI) endSession(id string) {
	u.mu.Lock()
	delete(u.sessions, id)
	u.mu.Unlock()
}

func (u *UI) localSession() *session {
	u.mu.Lock()
	defer u.mu.Unlock()
	s := u.sessions[""]
	if s == nil {
		s = &session{subject: teamauth.Subject{Admin: true}, csrf: randomID()}
		u.sessions[""] = s
	}
	req := *s
	return &req
}

// mayLogIn says whether a subject may use any page: an admin, or a token
// that allows the tool of a reading page.
func mayLogIn(sub teamauth.Subject) bool {
	return slices.ContainsFunc(readingTools, func(tool string) bool { return allows(sub, tool) })
}

func (u *UI) verify(ctx context.Context, token string, r *http.Request) (teamauth.Subject, error) {
	info, err := u.o.Verifier(ctx, token, r)
	if err != nil {
		return teamauth.Subject{}, err
	}
	sub, _ := teamauth.FromInfo(info)
	return sub, nil
}

func (u *UI) checkCSRF(r *http.Request, s *session) bool {
	got := r.PostFormValue("csrf")
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.csrf)) == 1
}

// secureCookies says whether cookies get Secure: over HTTPS (directly, or
// behind a proxy that says X-Forwarded-Proto: https) and on localhost,
// whose plain-HTTP Secure cookies browsers keep. Plain HTTP to an IP
// address goes without, as a browser would drop a Secure cookie there;
// the cookie is HTTP-only and SameSite=Strict either way.
func secureCookies(r *http.Request) bool {
	if r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https" {
		return true
	}
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = r.Host
	}
	return host == "localhost"
}

// renderLogin answers with the login form and status, the form's CSRF
// token in a cookie beside it (set before the status is written).
func (u *UI) renderLogin(w http.ResponseWriter, r *http.Request, status int, msg string) {
	csrf := randomID()
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", challenge)
	}
	http.SetCookie(w, &http.Cookie{Name: loginCookie, Value: csrf, Path: "/ui/login", HttpOnly: true, Secure: secureCookies(r),
		SameSite: http.SameSiteStrictMode, MaxAge: 600})
	p := newPage("Log in", nil)
	p.CSRF, p.Error = csrf, msg
	u.renderStatus(w, status, "login", p)
}

func (u *UI) login(w http.ResponseWriter, r *http.Request) {
	if u.o.Verifier == nil {
		http.Redirect(w, r, "/ui/", http.StatusSeeOther)
		return
	}
	if r.Method != http.MethodPost {
		u.renderLogin(w, r, http.StatusOK, "")
		return
	}
	c, err := r.Cookie(loginCookie)
	if err != nil || c.Value == "" || subtle.ConstantTimeCompare([]byte(c.Value), []byte(r.PostFormValue("csrf"))) != 1 {
		http.Error(w, "the login form is stale or was not sent by this page (CSRF token missing or wrong); reload it", http.StatusForbidden)
		return
	}
	if !u.o.Limiter.AllowCredential(w, r) {
		return
	}
	sub, err := u.verify(r.Context(), strings.TrimSpace(r.PostFormValue("token")), r)
	if err != nil {
		u.o.Limiter.CredentialFailed(r)
		u.renderLogin(w, r, http.StatusUnauthorized, "That is not a valid token: it is unknown, revoked or expired.")
		return
	}
	if !mayLogIn(sub) {
		u.renderLogin(w, r, http.StatusForbidden, "This token may use no page here: it is not an admin's, and its tools include none of "+strings.Join(readingTools, ", ")+".")
		return
	}
	id := randomID()
	u.mu.Lock()
	ended := u.makeRoom(sub.Key())
	u.sessions[id] = &session{subject: sub, token: strings.TrimSpace(r.PostFormValue("token")), csrf: randomID(),
		created: u.o.Now(), expires: u.o.Now().Add(sessionTTL)}
	u.mu.Unlock()
	if ended > 0 {
		u.o.Logger.Info("management page login ended the subject's oldest session to make room", "subject", sub.Name, "session_cap", u.o.SessionsPerSubject)
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: id, Path: "/ui", HttpOnly: true, Secure: secureCookies(r),
		SameSite: http.SameSiteStrictMode})
	u.o.Logger.Info("management page login", "subject", sub.Name, "admin", sub.Admin)
	http.Redirect(w, r, "/ui/", http.StatusSeeOther)
}

func (u *UI) logout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil {
		u.mu.Lock()
		delete(u.sessions, c.Value)
		u.mu.Unlock()
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/ui", MaxAge: -1, HttpOnly: true, Secure: secureCookies(r)})
	http.Redirect(w, r, "/ui/login", http.StatusSeeOther)
}
