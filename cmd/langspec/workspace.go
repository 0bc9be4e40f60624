package main

import (
	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/app"
)

// workspaceFlags are the folders serve, ingest manuals and eval share:
// WORKSPACE_ROOT and the manuals folder, vault, statistics file and synonym
// dictionary that default to places inside it (app.WorkspaceFlags.Resolve).
type workspaceFlags struct {
	app.WorkspaceFlags
}

// addManualFlags adds the flags for the manuals folder and its dictionary.
func (w *workspaceFlags) addManualFlags(cmd *cobra.Command, f *factory) {
	w.addManualFlagsTo(cmd, f, false)
}

// addManualFlagsTo adds the manual flags to cmd, as persistent flags when
// persistent: a group's persistent flags are every subcommand's.
func (w *workspaceFlags) addManualFlagsTo(cmd *cobra.Command, f *factory, persistent bool) {
	fl := cmd.Flags()
	if persistent {
		fl = cmd.PersistentFlags()
	}
	fl.StringVar(&w.Root, "workspace-root", f.getenv("WORKSPACE_ROOT"),
		"folder the vault and manuals live in by default (env WORKSPACE_ROOT; default: the working directory)")
	fl.StringVar(&w.Manuals, "manuals-root", f.getenv("MANUALS_ROOT"),
		"folder of manuals, one subfolder per manual id (env MANUALS_ROOT; default WORKSPACE_ROOT/manuals)")
	fl.StringVar(&w.Synonyms, "synonyms", f.getenv("LANGSPEC_SYNONYMS"),
		`synonym dictionary for manual_find, {"groups": [["a", "b"], …]} (env LANGSPEC_SYNONYMS; default MANUALS_ROOT/synonyms.json)`)
}

// addVaultFlags adds the flags for the vault and the statistics file.
func (w *workspaceFlags) addVaultFlags(cmd *cobra.Command, f *factory) {
	fl := cmd.Flags()
	fl.StringVar(&w.Vault, "vault-root", f.getenv("VAULT_ROOT"),
		"folder the model may write into (env VAULT_ROOT; default WORKSPACE_ROOT/vault, created on first write)")
	stats := f.getenv("ADAPTIVE_STATS_PATH")
	if stats == "" {
		stats = app.DefaultStatsPath(f.getenv)
	}
	fl.StringVar(&w.Stats, "stats-path", stats,
		"manual_find's statistics, counts and hashes only (env ADAPTIVE_STATS_PATH; default $XDG_STATE_HOME/langspec/adaptive_stats.jsonl)")
}
