package webui

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/ingest"
)

// loginTTL is how long an upstream login started on the page may take.
const loginTTL = 10 * time.Minute

// upstreamLogin starts an upstream's OAuth login and sends the browser to
// the authorization server; its redirect comes back to /ui/oauth/callback.
// A link, not a form: a form's redirect to another site is what the page's
// form-action policy forbids.
func (u *UI) upstreamLogin(w http.ResponseWriter, r *http.Request, s *session) {
	if u.o.Upstreams == nil {
		http.NotFound(w, r)
		return
	}
	p, err := u.o.Upstreams.BeginLogin(r.Context(), r.FormValue("name"), "", u.o.BaseURL+"/ui/oauth/callback")
	if err != nil {
		u.upstreamsWith(w, r, s, http.StatusBadRequest, err.Error(), "")
		return
	}
	u.mu.Lock()
	for state, l := range u.logins {
		if u.o.Now().After(l.expires) {
			delete(u.logins, state)
		}
	}
	u.logins[p.State()] = &pendingLogin{p: p, session: s, expires: u.o.Now().Add(loginTTL)}
	u.mu.Unlock()
	http.Redirect(w, r, p.AuthURL, http.StatusSeeOther)
}

// oauthCallback finishes a login the same admin started.
func (u *UI) oauthCallback(w http.ResponseWriter, r *http.Request, s *session) {
	state := r.FormValue("state")
	u.mu.Lock()
	l := u.logins[state]
	delete(u.logins, state)
	u.mu.Unlock()
	if l == nil || l.session.csrf != s.csrf || u.o.Now().After(l.expires) {
		u.upstreamsWith(w, r, s, http.StatusBadRequest, "This login was not started here, or took too long; start it again.", "")
		return
	}
	if err := l.p.Complete(r.Context(), r.URL.Query()); err != nil {
		u.upstreamsWith(w, r, s, http.StatusBadRequest, err.Error(), "")
		return
	}
	http.Redirect(w, r, "/ui/upstreams?done=login", http.StatusSeeOther)
}

func (u *UI) upstreamLogout(w http.ResponseWriter, r *http.Request, s *session) {
	if u.o.Upstreams == nil {
		http.NotFound(w, r)
		return
	}
	if err := u.o.Upstreams.Logout(r.PostFormValue("name"), ""); err != nil {
		u.upstreamsWith(w, r, s, http.StatusBadRequest, err.Error(), "")
		return
	}
	http.Redirect(w, r, "/ui/upstreams?done=logout", http.StatusSeeOther)
}

// ingestJob is an ingest started on the page.
type ingestJob struct {
	ID            int
	Language, Doc string
	Started       time.Time
	DBPath        string // the database it ingests into, for the command a failure suggests
	mu            sync.Mutex
	pages, failed int
	last          string
	done          bool
	finished      time.Time
	report        ingest.Report
	err           error
}

type ingestView struct {
	ID                  int
	Language, Doc, Last string
	Pages, Failed       int
	Done                bool
	Report              ingest.Report
	// Error is what failed, without the command-line advice of its hint
	// (a flag the page has no field for); Hint is the rest of the hint,
	// and Command the command to run where the database is instead.
	Error, Hint, Command string
	// Elapsed is how long the job ran: until it finished, once it has,
	// else until now.
	Elapsed time.Duration
}

// progress counts one page read.
func (j *ingestJob) progress(page string, failed bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.pages++
	if failed {
		j.failed++
	}
	j.last = page
}

// finish records the job's outcome and when it came.
func (j *ingestJob) finish(rep ingest.Report, err error, at time.Time) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.done, j.report, j.err, j.finished = true, rep, err, at
}

func (j *ingestJob) view(now time.Time) ingestView {
	j.mu.Lock()
	defer j.mu.Unlock()
	end := now
	if j.done {
		end = j.finished
	}
	v := ingestView{ID: j.ID, Language: j.Language, Doc: j.Doc, Last: j.last, Pages: j.pages, Failed: j.failed, Done: j.done,
		Report: j.report, Elapsed: end.Sub(j.Started).Round(time.Millisecond)}
	if j.err != nil {
		v.Error, v.Hint = j.err.Error(), ""
		if ae, ok := errors.AsType[*apperr.Error](j.err); ok {
			v.Error = string(ae.Code) + ": " + ae.Message
			// A hint names the command line's flags (--from): the page
			// says instead what to do from it, or where the command runs.
			if !strings.Contains(ae.Hint, "--") {
				v.Hint = ae.Hint
			}
		}
		v.Command = "langspec --db " + shellQuote(j.DBPath) + " ingest " + shellQuote(j.Language) + " --doc " + shellQuote(j.Doc) + " --from PATH"
	}
	return v
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=+@%,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// startIngest runs an ingest of a configured source in the background and
// sends the browser to its progress page.
func (u *UI) startIngest(w http.ResponseWriter, r *http.Request, s *session) {
	if u.o.Ingest == nil {
		http.Error(w, "this server is read-only: ingest where the index is built", http.StatusForbidden)
		return
	}
	lang, doc := r.PostFormValue("language"), r.PostFormValue("doc")
	known := false
	for _, src := range u.o.Sources {
		known = known || src.Language == lang && src.Doc == doc
	}
	if !known {
		http.Error(w, "not a source this server knows: "+lang+"/"+doc, http.StatusBadRequest)
		return
	}
	u.mu.Lock()
	j := &ingestJob{ID: len(u.jobs) + 1, Language: lang, Doc: doc, Started: u.o.Now(), DBPath: u.o.SpecOf(r.Context()).Store().Path()}
	u.jobs = append(u.jobs, j)
	u.mu.Unlock()
	u.o.Logger.Info("ingest started on the management page", "language", lang, "doc", doc, "by", s.subject.Name)
	go func() {
		// Not the request's context: the ingest goes on after the answer.
		rep, err := u.o.Ingest(context.WithoutCancel(r.Context()), lang, doc, j.progress)
		j.finish(rep, err, u.o.Now())
		if err != nil {
			u.o.Logger.Warn("ingest started on the management page failed", "language", lang, "doc", doc, "err", err)
		}
	}()
	http.Redirect(w, r, "/ui/ingest?id="+strconv.Itoa(j.ID), http.StatusSeeOther)
}

type ingestPage struct {
	page
	Job ingestView
}

// ingestStatus shows a job's progress, the page refreshing itself (an
// http-equiv refresh, no script) until it ends.
func (u *UI) ingestStatus(w http.ResponseWriter, r *http.Request, s *session) {
	id, _ := strconv.Atoi(r.FormValue("id"))
	u.mu.Lock()
	var j *ingestJob
	if id >= 1 && id <= len(u.jobs) {
		j = u.jobs[id-1]
	}
	u.mu.Unlock()
	if j == nil {
		http.NotFound(w, r)
		return
	}
	p := ingestPage{page: newPage(fmt.Sprintf("Ingest %s %s", j.Language, j.Doc), s), Job: j.view(u.o.Now())}
	p.Refresh = !p.Job.Done
	u.render(w, "ingest", p)
}

// upstreamsWith renders the upstreams page with a status and message.
func (u *UI) upstreamsWith(w http.ResponseWriter, r *http.Request, s *session, status int, errMsg, notice string) {
	p := u.upstreamsData(r, s)
	p.Error, p.Notice = errMsg, notice
	u.renderStatus(w, status, "upstreams", p)
}
