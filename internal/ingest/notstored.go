package ingest

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/text/tokenize"
)

// Known is what langspec knows of the sources it can ingest beyond its
// built-in presets: those the configuration declares, and how to find the
// local toolchains that hold copies. Every front end names the next step
// for a language with nothing stored through Known.NotStored, so that the
// command line, the tools, the page and the resources give one hint for
// one mistake.
type Known struct {
	Sources []SourceSpec // langspec.json's "sources"; the presets are always known
	// Env finds the local toolchains, for the hint that names a local copy
	// (DetectEnv); nil looks only where no toolchain is needed (Debian's
	// python3-doc folder).
	Env func(context.Context) Env
}

// NotStored is NotStored over k's sources and local copies. The
// toolchains are asked only for a language that is not stored, so an
// answer that is not that error costs nothing.
func (k Known) NotStored(ctx context.Context, err error, language string) error {
	if err == nil {
		return nil
	}
	env := Env{}
	if k.Env != nil && errors.Is(err, db.ErrUnknownLanguage) {
		env = k.Env(ctx)
	}
	return NotStored(err, language, k.Sources, &env)
}

// NotStored adds the next step to the store's error for a language with
// nothing stored (db.ErrUnknownLanguage) when langspec has a source for it
// — a preset, or one of sources (the configuration's): run `langspec ingest
// LANGUAGE`, and, when env is given and a local copy is found with it,
// where that copy is. Any other error comes back as it is.
func NotStored(err error, language string, sources []SourceSpec, env *Env) error {
	e, ok := errors.AsType[*apperr.Error](err)
	if !ok || language == "" || !errors.Is(err, db.ErrUnknownLanguage) {
		return err
	}
	var src *SourceSpec
	all := Merge(Presets(), sources)
	for i := range all {
		if all[i].Language == language {
			src = &all[i]
			break
		}
	}
	if src == nil {
		// A language langspec knows of, misspelt: say which.
		if near := nearestLanguage(language, all); near != "" {
			hint := fmt.Sprintf("did you mean %s? (not stored yet: langspec ingest %s adds it); %s", near, near, e.Hint)
			if strings.Contains(e.Hint, ": "+near) || strings.Contains(e.Hint, ", "+near) { // the stored languages' list names it
				hint = fmt.Sprintf("did you mean %s? %s", near, e.Hint)
			}
			return apperr.Wrap(err, apperr.NotFound, hint, "unknown language %q", language)
		}
		return err
	}
	step := fmt.Sprintf("run langspec ingest %s to add %s", language, src.DisplayName)
	if env != nil {
		if local := localCopy(*src, *env); local != "" {
			step += " (a local copy was found: " + local + ")"
		}
	}
	hint := step
	if e.Hint != "" {
		hint += "; " + e.Hint
	}
	return apperr.Wrap(err, apperr.NotFound, hint, "language %q is not stored yet", language)
}

// localCopy is the first local copy of src that env finds, "" when none.
func localCopy(src SourceSpec, env Env) string {
	locs, _ := Candidates(src, "", env)
	for _, l := range locs {
		if l.Kind == AtFolder {
			return l.String()
		}
	}
	return ""
}

// nearestLanguage is the language of sources one or two edits from
// language, "" when none is that near (half the name at most).
func nearestLanguage(language string, sources []SourceSpec) string {
	best, bestD := "", 3
	for _, s := range sources {
		if d := tokenize.EditDistance(language, s.Language); d < bestD && d <= max(1, len(s.Language)/2) {
			best, bestD = s.Language, d
		}
	}
	return best
}
