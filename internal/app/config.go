package app

import (
	"time"

	"github.com/langspec/langspec/internal/config"
	"github.com/langspec/langspec/internal/contextnote"
)

// ConfigFile is the configuration file langspec reads: the one flag names
// (--config), else LANGSPEC_CONFIG, else $XDG_CONFIG_HOME/langspec/
// langspec.json; explicit says one was named, so it must exist.
func ConfigFile(flag string, getenv func(string) string) (path string, explicit bool) {
	return config.Path(flag, getenv)
}

// LoadConfig reads the configuration ConfigFile names; a missing default
// file is an empty configuration, and so is one that does not read, beside
// its error (those of config.Load: the JSON path of a wrong key, and where
// to find the schema), for a command that can do without.
func LoadConfig(flag string, getenv func(string) string) (config.Config, error) {
	cfg, err := config.Load(config.Path(flag, getenv))
	if err != nil {
		return config.Config{}, err
	}
	return cfg, nil
}

// ConfigSchema is the JSON Schema of langspec.json.
func ConfigSchema() ([]byte, error) { return config.JSONSchema() }

// ContextNotes are the notes a running langspec reads: cfg's ("context",
// the operator's, which win) and the state file's (`langspec context
// add`), read again when that file changes.
func ContextNotes(cfg config.Config, getenv func(string) string, now func() time.Time) *contextnote.Source {
	return &contextnote.Source{Config: cfg.Context, Store: noteStore(getenv, now)}
}

// noteStore is the state file `langspec context add` writes.
func noteStore(getenv func(string) string, now func() time.Time) *contextnote.Store {
	return &contextnote.Store{Path: contextnote.DefaultStatePath(getenv), Now: now}
}
