package main

import (
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/apperr"
)

// workspaceFlags are the folders serve, ingest manuals and eval share:
// WORKSPACE_ROOT and the manuals folder, vault, statistics file and synonym
// dictionary that default to places inside it.
type workspaceFlags struct {
	workspaceRoot string // default: the working directory
	vaultRoot     string // default: WORKSPACE_ROOT/vault
	manualsRoot   string // default: WORKSPACE_ROOT/manuals
	statsPath     string // default: VAULT_ROOT/.system/adaptive_stats.jsonl
	synonymsPath  string // default: MANUALS_ROOT/synonyms.json
}

// addManualFlags adds the flags for the manuals folder and its dictionary.
func (w *workspaceFlags) addManualFlags(cmd *cobra.Command, f *factory) {
	fl := cmd.Flags()
	fl.StringVar(&w.workspaceRoot, "workspace-root", f.getenv("WORKSPACE_ROOT"),
		"folder the vault and manuals live in by default (env WORKSPACE_ROOT; default: the working directory)")
	fl.StringVar(&w.manualsRoot, "manuals-root", f.getenv("MANUALS_ROOT"),
		"folder of manuals, one subfolder per manual id (env MANUALS_ROOT; default WORKSPACE_ROOT/manuals)")
	fl.StringVar(&w.synonymsPath, "synonyms", f.getenv("LANGSPEC_SYNONYMS"),
		`synonym dictionary for manual_find, {"groups": [["a", "b"], …]} (env LANGSPEC_SYNONYMS; default MANUALS_ROOT/synonyms.json)`)
}

// addVaultFlags adds the flags for the vault and the statistics file.
func (w *workspaceFlags) addVaultFlags(cmd *cobra.Command, f *factory) {
	fl := cmd.Flags()
	fl.StringVar(&w.vaultRoot, "vault-root", f.getenv("VAULT_ROOT"),
		"folder the model may write into (env VAULT_ROOT; default WORKSPACE_ROOT/vault, created on first write)")
	fl.StringVar(&w.statsPath, "stats-path", f.getenv("ADAPTIVE_STATS_PATH"),
		"manual_find's statistics, counts and hashes only (env ADAPTIVE_STATS_PATH; default VAULT_ROOT/.system/adaptive_stats.jsonl)")
}

func (w *workspaceFlags) manualsDir() (string, error) { return w.root(w.manualsRoot, "manuals") }
func (w *workspaceFlags) vaultDir() (string, error)   { return w.root(w.vaultRoot, "vault") }

// synonyms is the dictionary path: the flag, else MANUALS_ROOT/synonyms.json.
func (w *workspaceFlags) synonyms(manualsDir string) (string, error) {
	if w.synonymsPath != "" {
		return filepath.Abs(w.synonymsPath)
	}
	return filepath.Join(manualsDir, "synonyms.json"), nil
}

// stats is the statistics path: the flag, else inside the vault's .system.
func (w *workspaceFlags) stats(vaultDir string) (string, error) {
	if w.statsPath != "" {
		return filepath.Abs(w.statsPath)
	}
	return filepath.Join(vaultDir, ".system", "adaptive_stats.jsonl"), nil
}

// root is a root folder: its flag or variable when set, else WORKSPACE_ROOT/name,
// the workspace being --workspace-root or the working directory.
func (w *workspaceFlags) root(set, name string) (string, error) {
	if set != "" {
		return filepath.Abs(set)
	}
	ws := w.workspaceRoot
	if ws == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", apperr.Wrap(err, apperr.Unavailable, "pass --workspace-root", "cannot find the working directory")
		}
		ws = wd
	}
	return filepath.Abs(filepath.Join(ws, name))
}
