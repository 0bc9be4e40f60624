// Package app builds langspec's parts once, for every command: the store,
// the vault, the manuals library with its index and finder, the adaptive
// statistics, the upstream servers of the configuration, and the background
// refresh of the manuals index. Parts open lazily, on first use, so a command
// pays only for what it asks for; Close closes what was opened, in reverse.
// It is the one place that knows how the parts fit together (cli/cli's
// factory is the model).
package app

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/catalog/upstream"
	"github.com/langspec/langspec/internal/config"
	"github.com/langspec/langspec/internal/contextnote"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest"
	"github.com/langspec/langspec/internal/manual"
	"github.com/langspec/langspec/internal/manual/find"
	"github.com/langspec/langspec/internal/manual/find/adaptive"
	"github.com/langspec/langspec/internal/search"
	"github.com/langspec/langspec/internal/semantic"
	"github.com/langspec/langspec/internal/spec"
	"github.com/langspec/langspec/internal/tools"
	"github.com/langspec/langspec/internal/vault"
)

// Options say where the parts live.
type Options struct {
	DBPath string
	// DBNamedBy is the flag or variable that named DBPath ("--db",
	// "LANGSPEC_DB"), "" for the default place. Only the default place is
	// made when it is missing: a database named in a folder that does not
	// exist is a typo to report, not a new database to make in silence.
	DBNamedBy string
	Workspace Workspace
	Config    config.Config
	// ConfigFile is where Config was read from, for the hints that send
	// a person there (ConfigFile); "" when none was.
	ConfigFile string
	Logger     *slog.Logger     // nil discards
	Now        func() time.Time // nil: time.Now
	// Stderr and Getenv are handed to upstream servers (their stderr,
	// prefixed with their name; ${VAR} expansion and their environment).
	Stderr  io.Writer
	Getenv  func(string) string
	Version string
	// Seeding is told when the Go specification built into langspec is
	// about to be loaded into an empty database (a first run), before the
	// load: created says the database file did not exist before this run.
	// nil tells no one.
	Seeding func(dbPath string, created bool)
	// Env finds the local toolchains: where an ingest reads a local copy
	// first, and the hint that names one for a language not stored
	// (ingest.Known); nil: ingest.DetectEnv.
	Env func(context.Context) ingest.Env
	// Getter fetches what an ingest reads from the network; nil: the
	// fetcher with its HTTP cache (NetworkGetter).
	Getter ingest.Getter
	// StatePath is the state file (tokens, secrets: db.State); "" is
	// DefaultStatePath.
	StatePath string
	// ReadOnly opens the database read-only (db.OpenReadOnly): it must
	// exist, and nothing is written to it, not even the built-in Go spec.
	ReadOnly bool
	// ReadPool, when above zero, has the store's reads go through a pool
	// of that many read-only connections (db.DB.UseReadPool): for a
	// server whose requests share the store.
	ReadPool int
	// Notes are the user's context notes (contextnote.Source: the config's
	// and the state file's); nil: none.
	Notes *contextnote.Source
}

// App is langspec's parts, opened on first use.
type App struct {
	opts    Options
	log     *slog.Logger
	store   *db.DB
	state   *db.StateFile
	vault   *vault.Vault
	manuals *manual.Library
	index   *find.Index
	finder  *find.Finder
	closers []func() error

	spec *spec.Service

	semanticOnce sync.Once
	semantic     *semantic.Channel

	created bool // Store made the database file
}

// getenv is Getenv, or the process's environment.
func (o Options) getenv() func(string) string {
	if o.Getenv == nil {
		return os.Getenv
	}
	return o.Getenv
}

// New returns an App that opens nothing yet.
func New(opts Options) *App {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &App{opts: opts, log: opts.Logger}
}

// Config is the configuration the app was built with.
func (a *App) Config() config.Config { return a.opts.Config }

// Close closes every part that was opened, the last opened first, and
// returns the first error.
func (a *App) Close() error {
	var first error
	for i := len(a.closers) - 1; i >= 0; i-- {
		if err := a.closers[i](); err != nil && first == nil {
			first = err
		}
	}
	a.closers = nil
	return first
}

func (a *App) onClose(f func() error) { a.closers = append(a.closers, f) }

// Store opens the database. Errors: those of db.Open.
func (a *App) Store(ctx context.Context) (*db.DB, error) {
	if a.store != nil {
		return a.store, nil
	}
	open := db.Open
	if a.opts.ReadOnly {
		open = db.OpenReadOnly
	}
	_, statErr := os.Stat(a.opts.DBPath)
	if dir := filepath.Dir(a.opts.DBPath); a.opts.DBNamedBy != "" && errors.Is(statErr, fs.ErrNotExist) {
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			return nil, apperr.New(apperr.InvalidArgument, "check the path, or make the folder first (mkdir -p "+dir+"); only the default database is made where it is missing",
				"%s %s: the folder %s does not exist", a.opts.DBNamedBy, a.opts.DBPath, dir)
		}
	}
	store, err := open(ctx, a.opts.DBPath)
	if err != nil {
		return nil, err
	}
	if n := a.opts.ReadPool; n > 0 {
		if err := store.UseReadPool(n); err != nil {
			store.Close()
			return nil, err
		}
	}
	a.store = store
	a.created = errors.Is(statErr, fs.ErrNotExist)
	a.onClose(store.Close)
	return store, nil
}

// DefaultStatePath is where the state file lives unless told otherwise:
// $XDG_STATE_HOME/langspec/state.db, else ~/.local/state/langspec/state.db;
// "" without either.
func DefaultStatePath(getenv func(string) string) string {
	if d := getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "langspec", "state.db")
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".local", "state", "langspec", "state.db")
	}
	return ""
}

// State is the state file as it is now: tokens and secrets, apart from
// the index (db.State). Opened once, followed when it is replaced (a
// replica's shipped copy: db.StateFile). On its first open beside an
// index made by an older langspec, the tokens and secrets that index held
// move into it (db.State.Adopt). Errors: invalid_argument when no place
// for it is known; those of db.OpenState.
func (a *App) State(ctx context.Context) (*db.State, error) {
	if a.state != nil {
		return a.state.Current(ctx), nil
	}
	path := a.opts.StatePath
	if path == "" {
		path = DefaultStatePath(a.opts.getenv())
	}
	if path == "" {
		return nil, apperr.New(apperr.InvalidArgument, "pass --state PATH, or set LANGSPEC_STATE, XDG_STATE_HOME or HOME",
			"no place for the state file (tokens and secrets)")
	}
	f, err := db.FollowState(ctx, path, a.opts.ReadOnly)
	if err != nil {
		return nil, err
	}
	a.state = f
	a.onClose(f.Close)
	state := f.Current(ctx)
	if _, err := os.Stat(a.opts.DBPath); a.opts.DBPath != "" && err == nil && !a.opts.ReadOnly {
		index, err := a.Store(ctx)
		if err != nil {
			return nil, err
		}
		rep, err := state.Adopt(ctx, index)
		if err != nil {
			return nil, err
		}
		if rep.Tokens+rep.Secrets > 0 {
			a.log.Info("moved the tokens and secrets of the index into the state file", "tokens", rep.Tokens, "secrets", rep.Secrets,
				"index", index.Path(), "state", state.Path())
		}
	}
	return state, nil
}

// SeededStore is Store, with the Go specification built into langspec
// loaded first into an empty database, so a first search works with no
// set-up. loaded reports that it was.
func (a *App) SeededStore(ctx context.Context) (store *db.DB, loaded bool, err error) {
	store, err = a.Store(ctx)
	if err != nil || store.ReadOnly() {
		return store, false, err
	}
	if a.opts.Seeding != nil {
		if empty, err := store.Empty(ctx); err == nil && empty {
			a.opts.Seeding(store.Path(), a.created)
		}
	}
	loaded, err = ingest.EnsureDefault(ctx, store, a.opts.Now())
	return store, loaded, err
}

// Vault opens the vault folder (created on first write).
func (a *App) Vault() (*vault.Vault, error) {
	if a.vault != nil {
		return a.vault, nil
	}
	v, err := vault.Open(a.opts.Workspace.Vault, vault.Options{Logger: a.log})
	if err != nil {
		return nil, err
	}
	a.vault = v
	a.onClose(v.Close)
	return v, nil
}

// Manuals opens the manuals folder.
func (a *App) Manuals() (*manual.Library, error) {
	if a.manuals != nil {
		return a.manuals, nil
	}
	lib, err := manual.OpenWith(a.opts.Workspace.Manuals, manual.Options{Encodings: a.opts.Config.ManualEncodings()})
	if err != nil {
		return nil, err
	}
	a.manuals = lib
	a.onClose(lib.Close)
	return lib, nil
}

// ManualIndex is the manuals' index in the store.
func (a *App) ManualIndex(ctx context.Context) (*find.Index, error) {
	if a.index != nil {
		return a.index, nil
	}
	store, err := a.Store(ctx)
	if err != nil {
		return nil, err
	}
	lib, err := a.Manuals()
	if err != nil {
		return nil, err
	}
	a.index = find.NewIndex(store, lib, a.log)
	return a.index, nil
}

// Finder is manual_find over the index, with the synonym dictionary and,
// when the workspace names a statistics file, the adaptive thresholds.
func (a *App) Finder(ctx context.Context) (*find.Finder, error) {
	if a.finder != nil {
		return a.finder, nil
	}
	index, err := a.ManualIndex(ctx)
	if err != nil {
		return nil, err
	}
	f := &find.Finder{Index: index, Synonyms: find.NewSynonymFile(a.opts.Workspace.Synonyms), Log: a.log, Traces: find.NewTraces(0, 0), Notes: a.opts.Notes}
	if a.opts.Workspace.Stats != "" {
		stats, err := adaptive.Open(adaptive.Options{Path: a.opts.Workspace.Stats, Logger: a.log})
		if err != nil {
			return nil, err
		}
		a.onClose(stats.Close)
		f.Stats = stats
	}
	a.finder = f
	return f, nil
}

// RefreshManualsInBackground indexes the manuals without making the caller
// wait: the first tool call that needs a manual refreshes it anyway (one at
// a time), so start-up never waits. Close stops it and waits for it.
func (a *App) RefreshManualsInBackground(ctx context.Context) error {
	index, err := a.ManualIndex(ctx)
	if err != nil {
		return err
	}
	ctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := index.RefreshAll(ctx); err != nil && ctx.Err() == nil {
			a.log.Warn("manual index refresh failed", "err", err)
		}
	}()
	a.onClose(func() error { stop(); <-done; return nil })
	return nil
}

// ToolDeps opens what the tools need: the seeded store, the vault, the
// manuals and their finder, and the languages stored now.
func (a *App) ToolDeps(ctx context.Context) (tools.Deps, error) {
	svc, err := a.Spec(ctx)
	if err != nil {
		return tools.Deps{}, err
	}
	v, err := a.Vault()
	if err != nil {
		return tools.Deps{}, err
	}
	lib, err := a.Manuals()
	if err != nil {
		return tools.Deps{}, err
	}
	finder, err := a.Finder(ctx)
	if err != nil {
		return tools.Deps{}, err
	}
	langs, err := svc.LanguageIDs(ctx)
	if err != nil {
		return tools.Deps{}, err
	}
	return tools.Deps{Store: svc.Store(), Spec: svc, Vault: v, Manuals: lib, Finder: finder, Languages: langs, Logger: a.log, Notes: a.opts.Notes}, nil
}

// Semantic is the semantic channel when langspec.json configures an
// embeddings endpoint (made once); nil otherwise, or when its api_key's
// variable is not set (logged).
func (a *App) Semantic() search.Semantic {
	a.semanticOnce.Do(func() {
		if a.opts.Config.Embeddings == nil {
			return
		}
		c, err := a.Embedder()
		if err != nil {
			a.log.Warn("semantic channel off", "err", err)
			return
		}
		a.semantic = semantic.NewChannel(c)
	})
	if a.semantic == nil {
		return nil // not a typed nil in the interface
	}
	return a.semantic
}

// Upstreams is a manager over the configuration's mcpServers, not started;
// nil when there are none. A server whose ${VAR} is not set is added
// unavailable, naming the variable, and the others serve (see
// upstream.Manager.Add): the error is only for entries config.Load rejects
// already.
func (a *App) Upstreams() (*upstream.Manager, error) {
	servers := a.opts.Config.MCPServers
	if len(servers) == 0 {
		return nil, nil
	}
	mgr := upstream.NewManager(upstream.Options{Logger: a.log, Stderr: a.opts.Stderr, Getenv: a.opts.Getenv, Version: a.opts.Version,
		Secrets: a.secretLookup(), OAuthTokens: oauthTokens{a}})
	a.onClose(mgr.Close)
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		if err := mgr.Add(name, servers[name]); err != nil {
			return nil, err
		}
	}
	return mgr, nil
}
