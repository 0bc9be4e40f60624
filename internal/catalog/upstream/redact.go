package upstream

import (
	"context"
	"log/slog"
	"strings"
)

// minSecretLen keeps short values ("1", "true") from being cut out of
// every message; tokens and passwords are longer.
const minSecretLen = 6

// redactor removes configured secrets (env and header values, and what
// ${VAR}s expanded to) from text bound for errors and logs. Messages are
// built without them in the first place; this catches causes quoted from
// elsewhere, such as a Go HTTP error that quotes a URL with a token in it.
type redactor struct{ r *strings.Replacer }

func newRedactor(secrets []string) redactor {
	var pairs []string
	seen := map[string]bool{}
	add := func(s string) {
		if len(s) >= minSecretLen && !seen[s] {
			seen[s] = true
			pairs = append(pairs, s, "[redacted]")
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
	return redactor{strings.NewReplacer(pairs...)}
}

func (r redactor) apply(s string) string {
	if r.r == nil {
		return s
	}
	return r.r.Replace(s)
}

// redactHandler applies a redactor to the message and attributes of every
// record, for the SDK's log lines, whose text langspec does not control.
type redactHandler struct {
	slog.Handler
	red redactor
}

func (h redactHandler) Handle(ctx context.Context, rec slog.Record) error {
	if h.red.r == nil {
		return h.Handler.Handle(ctx, rec)
	}
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
