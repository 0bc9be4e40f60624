package upstream

import (
	"cmp"
	"context"
	"log/slog"
	"regexp"
	"slices"
	"strings"
)

// minSecretLen keeps short values ("1", "true") from being cut out of
// every message; tokens and passwords are longer.
const minSecretLen = 6

// redacted replaces what a redactor removes.
const redacted = "[redacted]"

// authSchemes are the words before a token in an Authorization value. They
// are no secret, so "Bearer <token>" does not make every "Bearer" vanish.
var authSchemes = map[string]bool{"bearer": true, "basic": true, "token": true, "digest": true, "negotiate": true}

// credentialPatterns find credentials by their shape, for text langspec
// did not write and whose secrets it may not know: an error quoting a URL,
// an upstream's stderr. Each keeps what names the credential and replaces
// the value, so the text still says what was there. Together they err
// towards redacting: a false match costs a word of a log line.
var credentialPatterns = []struct {
	re   *regexp.Regexp
	repl string
}{
	// The userinfo of a URL: https://user:password@host, https://token@host.
	{regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://)[^\s/?#@"'<>]+@`), "${1}" + redacted + "@"},
	// An Authorization or Proxy-Authorization value, with or without its
	// scheme word, as a header line, an assignment or a JSON member.
	{regexp.MustCompile(`(?i)\b((?:proxy-)?authorization"?\s*[:=]\s*"?(?:[a-z]+\s+)?)[^\s"',;]+`), "${1}" + redacted},
	// API key headers (X-Api-Key, X-Auth-Token, …) as header lines or
	// YAML; a plain "key:" is too common in prose to go.
	{regexp.MustCompile(`(?i)\b((?:x-)?(?:api[-_]?key|auth[-_]?token|access[-_]?token|amz-security-token|goog-api-key)"?\s*:\s*"?)[^\s"',;]+`), "${1}" + redacted},
	// A bearer token anywhere.
	{regexp.MustCompile(`(?i)\b(bearer\s+)[a-z0-9._~+/=-]{6,}`), "${1}" + redacted},
	// name=value where the name ends in a credential word: URL query
	// parameters (?api_key=, &X-Amz-Signature=), flags (--token=) and
	// environment dumps (GITHUB_TOKEN=).
	{regexp.MustCompile(`(?i)([a-z0-9_.-]*(?:key|token|secret|passw(?:or)?d|auth|signature|credentials?)=)[^&\s"'#<>,;]+`), "${1}" + redacted},
	// The same as a JSON member: "api_key": "value".
	{regexp.MustCompile(`(?i)("[a-z0-9_.-]*(?:key|token|secret|passw(?:or)?d|auth|signature|credentials?)"\s*:\s*")[^"]+`), "${1}" + redacted},
	// Well-known token formats: OpenAI and Anthropic (sk-), GitHub (ghp_,
	// gho_, ghu_, ghs_, ghr_, github_pat_), Slack (xox?-), AWS access keys.
	{regexp.MustCompile(`\b(?:sk-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16})`), redacted},
}

// redactor removes credentials from text bound for errors, logs and
// langspec's stderr: the values it was given (env and header values, what
// ${VAR}s expanded to, credentials written into the url or args; see
// literalSecrets), and anything shaped like a credential
// (credentialPatterns), wherever it came from. Messages are built without
// secrets in the first place; this catches causes quoted from elsewhere,
// such as a Go HTTP error that quotes a URL with a token in it, and what
// an upstream prints about itself. The zero value applies the patterns
// only.
type redactor struct{ r *strings.Replacer }

func newRedactor(secrets []string) redactor {
	var pairs []string
	seen := map[string]bool{}
	add := func(s string) {
		if len(s) >= minSecretLen && !seen[s] && !authSchemes[strings.ToLower(s)] {
			seen[s] = true
			pairs = append(pairs, s, redacted)
		}
	}
	for _, s := range secrets {
		add(s)
		// "Bearer <token>": the token alone is secret too.
		for _, f := range strings.Fields(s) {
			add(f)
		}
	}
	if len(pairs) == 0 {
		return redactor{}
	}
	// strings.Replacer tries the pairs in argument order at each position:
	// the longer secret first, so one that contains another goes whole.
	return redactor{strings.NewReplacer(sortLongestFirst(pairs)...)}
}

// sortLongestFirst orders (secret, replacement) pairs by decreasing length
// of the secret.
func sortLongestFirst(pairs []string) []string {
	ps := make([][2]string, 0, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		ps = append(ps, [2]string{pairs[i], pairs[i+1]})
	}
	slices.SortStableFunc(ps, func(a, b [2]string) int { return cmp.Compare(len(b[0]), len(a[0])) })
	out := make([]string, 0, len(pairs))
	for _, p := range ps {
		out = append(out, p[0], p[1])
	}
	return out
}

func (r redactor) apply(s string) string {
	if r.r != nil {
		s = r.r.Replace(s)
	}
	for _, p := range credentialPatterns {
		s = p.re.ReplaceAllString(s, p.repl)
	}
	return s
}

// redactHandler applies a redactor to the message and attributes of every
// record, for the SDK's log lines, whose text langspec does not control.
type redactHandler struct {
	slog.Handler
	red redactor
}

func (h redactHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, h.red.apply(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.Handler.Handle(ctx, out)
}

func (h redactHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.red.apply(v.String()))
	case slog.KindGroup:
		attrs := v.Group()
		out := make([]any, len(attrs))
		for i, g := range attrs {
			out[i] = h.attr(g)
		}
		return slog.Group(a.Key, out...)
	case slog.KindAny:
		if s := v.String(); h.red.apply(s) != s {
			return slog.String(a.Key, h.red.apply(s))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}

func (h redactHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	out := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		out[i] = h.attr(a)
	}
	return redactHandler{h.Handler.WithAttrs(out), h.red}
}

func (h redactHandler) WithGroup(name string) slog.Handler {
	return redactHandler{h.Handler.WithGroup(name), h.red}
}
