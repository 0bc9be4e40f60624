package app

import (
	"os"
	"path/filepath"

	"github.com/langspec/langspec/internal/apperr"
)

// Workspace is the folders serve, ingest manuals and eval share, as
// absolute paths.
type Workspace struct {
	Vault    string // VAULT_ROOT: the folder the model may write into
	Manuals  string // MANUALS_ROOT: one folder per manual
	Stats    string // manual_find's statistics file (state, never in the vault); "" keeps none
	Synonyms string // manual_find's synonym dictionary
	// VaultNamed: the user named the vault's place (VAULT_ROOT, or
	// WORKSPACE_ROOT it defaults into), rather than leaving it to the
	// working directory, so serving the vault tools is what they asked for.
	VaultNamed bool
}

// WorkspaceFlags are the workspace as a user gives it: each folder may be
// empty, and then defaults to a place inside another.
type WorkspaceFlags struct {
	Root     string // WORKSPACE_ROOT; default: the working directory
	Vault    string // default: Root/vault
	Manuals  string // default: Root/manuals
	Stats    string // the statistics file; "" keeps none (the command gives DefaultStatsPath)
	Synonyms string // default: Manuals/synonyms.json
}

// Resolve applies the defaults and makes every path absolute. Without
// stats, Stats stays empty: a gold run records nothing. Errors: unavailable
// when the working directory cannot be found.
func (w WorkspaceFlags) Resolve(stats bool) (Workspace, error) {
	var ws Workspace
	var err error
	if ws.Manuals, err = w.root(w.Manuals, "manuals"); err != nil {
		return ws, err
	}
	if ws.Vault, err = w.root(w.Vault, "vault"); err != nil {
		return ws, err
	}
	ws.VaultNamed = w.Vault != "" || w.Root != ""
	ws.Synonyms = filepath.Join(ws.Manuals, "synonyms.json")
	if w.Synonyms != "" {
		if ws.Synonyms, err = filepath.Abs(w.Synonyms); err != nil {
			return ws, err
		}
	}
	if stats && w.Stats != "" {
		if ws.Stats, err = filepath.Abs(w.Stats); err != nil {
			return ws, err
		}
	}
	return ws, nil
}

// DefaultStatsPath is where manual_find keeps its statistics unless told
// otherwise: $XDG_STATE_HOME/langspec/adaptive_stats.jsonl, else
// ~/.local/state/langspec/; "" (none kept) without either. They are state
// written while serving, so they live with the user's state, never in the
// vault: a search must not create the folder whose presence turns the
// vault's writing tools on (app.Workspace.Toolsets), nor write into an
// index (../shared/ARCHITECTURE.md).
func DefaultStatsPath(getenv func(string) string) string {
	if d := getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "langspec", "adaptive_stats.jsonl")
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".local", "state", "langspec", "adaptive_stats.jsonl")
	}
	return ""
}

// root is a root folder: set when given, else Root/name, Root being the
// working directory when unset.
func (w WorkspaceFlags) root(set, name string) (string, error) {
	if set != "" {
		return filepath.Abs(set)
	}
	ws := w.Root
	if ws == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", apperr.Wrap(err, apperr.Unavailable, "pass --workspace-root", "cannot find the working directory")
		}
		ws = wd
	}
	return filepath.Abs(filepath.Join(ws, name))
}
