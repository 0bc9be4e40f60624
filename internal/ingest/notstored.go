package ingest

import (
	"errors"
	"fmt"
	"github.com/langspec/langspec/internal/text/tokenize"
	"strings"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
)

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
