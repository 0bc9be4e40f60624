package app

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/contextnote"
	"github.com/langspec/langspec/internal/manual/find"
)

// GoldFinder is manual_find over the manuals of ws, built as serve builds
// it, for a gold run (eval.RunManualFind): over a throwaway store, since a
// gold run must not leave traces or an index of someone's test folder in
// the user's database; with no statistics file, since it records nothing;
// and with no notes but those of notesFile (contextnote.ReadFile), so its
// figures do not depend on the user's state. The manuals are indexed
// before it returns; done closes it and removes the store.
func GoldFinder(ctx context.Context, ws Workspace, log *slog.Logger, notesFile string) (f *find.Finder, done func(), err error) {
	notes, err := contextnote.ReadFile(notesFile)
	if err != nil {
		return nil, nil, err
	}
	tmp, err := os.MkdirTemp("", "langspec-eval-")
	if err != nil {
		return nil, nil, apperr.Wrap(err, apperr.Unavailable, "check TMPDIR", "cannot create a temporary folder")
	}
	ws.Stats = ""
	a := New(Options{DBPath: filepath.Join(tmp, "eval.db"), Workspace: ws, Logger: log, Notes: notes})
	done = func() {
		a.Close()
		os.RemoveAll(tmp)
	}
	if f, err = a.Finder(ctx); err == nil {
		_, err = f.Index.RefreshAll(ctx)
	}
	if err != nil {
		done()
		return nil, nil, err
	}
	return f, done, nil
}
