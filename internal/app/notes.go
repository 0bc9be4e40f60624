package app

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/config"
	"github.com/langspec/langspec/internal/contextnote"
	"github.com/langspec/langspec/internal/ingest"
)

// ContextTargetHelp says what a note's TARGET may be, for the context
// commands' help and the errors that refuse one.
const ContextTargetHelp = `TARGET is a specification (go, go/spec, langspec://go/spec), or a manual,
a folder or a file inside MANUALS_ROOT (manuals/kasai-hoken/参考/, or
langspec://manuals/kasai-hoken/参考/自動車保険との違い.md).`

// Note is a context note as the context commands list it.
type Note = contextnote.Note

// AddNote attaches text to the target raw names (resolveContextTarget:
// it must exist), replacing the note it had, in the state file; target is
// the target as stored. Errors: invalid_argument or not_found for a target
// that is not one, invalid_argument when the configuration holds the note
// on it (edited there), and those of contextnote.Store.Add.
func (a *App) AddNote(raw, text string, aside bool) (target string, replaced bool, err error) {
	t, err := resolveContextTarget(raw, a.opts.Workspace, a.opts.Config, true)
	if err != nil {
		return "", false, err
	}
	if _, ok := a.opts.Config.Context[t.String()]; ok {
		return "", false, apperr.New(apperr.InvalidArgument, "edit it in "+a.opts.ConfigFile, "the note on %s is in the config file", t)
	}
	replaced, err = noteStore(a.opts.getenv(), a.opts.Now).Add(t, text, aside)
	return t.String(), replaced, err
}

// RemoveNote removes the note AddNote attached to raw's target, which need
// not exist any more: a note may outlive its file. Errors: as AddNote's.
func (a *App) RemoveNote(raw string) (target string, err error) {
	t, err := resolveContextTarget(raw, a.opts.Workspace, a.opts.Config, false)
	if err != nil {
		return "", err
	}
	if _, ok := a.opts.Config.Context[t.String()]; ok {
		return "", apperr.New(apperr.InvalidArgument, "remove it from "+a.opts.ConfigFile, "the note on %s is in the config file", t)
	}
	return t.String(), noteStore(a.opts.getenv(), a.opts.Now).Remove(t)
}

// ListNotes lists the notes in force, the widest targets first, never nil.
// Errors: a configuration entry that is not a note, or a state file that
// cannot be read.
func (a *App) ListNotes() ([]Note, error) {
	set, err := a.opts.Notes.Set()
	if err != nil {
		return nil, err
	}
	notes := set.All()
	if notes == nil {
		notes = []Note{}
	}
	return notes, nil
}

// specName is a language, or language/doc, as typed: go, rust/reference.
var specName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*)?$`)

// resolveContextTarget reads TARGET: a langspec:// target, a file or
// folder on disk inside MANUALS_ROOT, or a specification's name. With
// mustExist, the manual path must be on disk and the specification a
// source langspec knows. Errors: apperr.InvalidArgument or NotFound,
// saying what TARGET may be.
func resolveContextTarget(raw string, ws Workspace, cfg config.Config, mustExist bool) (contextnote.Target, error) {
	var t contextnote.Target
	var err error
	if strings.HasPrefix(raw, contextnote.Scheme) {
		if t, err = contextnote.ParseTarget(raw); err != nil {
			return t, err
		}
	} else if fi, statErr := os.Stat(raw); statErr == nil {
		// On disk: a manual's folder or a file in one. A folder that is
		// not ("go" in the working directory) may still name a spec.
		abs, err := filepath.Abs(raw)
		if err != nil {
			return t, apperr.Wrap(err, apperr.InvalidArgument, ContextTargetHelp, "cannot resolve %s", raw)
		}
		t, err = contextnote.ManualTarget(ws.Manuals, abs, fi.IsDir())
		if err == nil {
			return t, nil
		}
		if !specName.MatchString(raw) {
			return t, err
		}
		t, err = contextnote.ParseTarget(contextnote.Scheme + raw)
		if err != nil {
			return t, err
		}
	} else if specName.MatchString(raw) {
		if t, err = contextnote.ParseTarget(contextnote.Scheme + raw); err != nil {
			return t, err
		}
	} else {
		return t, apperr.New(apperr.InvalidArgument, ContextTargetHelp, "%q is neither a specification nor a file or folder on disk", raw)
	}
	if !mustExist {
		return t, nil
	}
	if t.IsManual() {
		p := filepath.Join(ws.Manuals, t.Manual, filepath.FromSlash(t.Path))
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return t, apperr.New(apperr.NotFound, "name a manual folder, a folder or a file under MANUALS_ROOT ("+ws.Manuals+")", "%s does not exist", p)
		}
		return t, nil
	}
	if _, err := ingest.Resolve(cfg.Sources, t.Language, t.Doc); err != nil && apperr.CodeOf(err) == apperr.NotFound {
		return t, err
	}
	return t, nil
}
