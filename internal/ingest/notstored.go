package ingest

import (
	"errors"
	"fmt"

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
