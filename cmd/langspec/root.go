package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/langspec/langspec/internal/app"
	"github.com/langspec/langspec/internal/apperr"
)

// factory carries what commands need. Fields that cost something to make are
// funcs, so a command pays only for what it uses and tests can swap them.
// Commands take from it the narrow functions their options carry (an app,
// the streams), never the factory itself.
type factory struct {
	io         *ioStreams
	getenv     func(string) string
	dbPath     string // from --db, LANGSPEC_DB, or the XDG default
	dbNamedBy  string // "--db" or "LANGSPEC_DB" when one named dbPath; "" for the default
	statePath  string // --state or LANGSPEC_STATE: tokens and secrets; "" for app.DefaultStatePath
	configFlag string // --config; see app.ConfigFile for the fallbacks
	now        func() time.Time
	logger     *slog.Logger
}

// options are the app's options over the database and the workspace ws,
// with the configuration read: the one preamble of every command that
// needs more than its flags. A configuration that does not read is an
// error, unless lenient: then it is logged, and the command goes on
// without it (a search needs no configuration).
func (f *factory) options(ws app.Workspace, lenient bool) (app.Options, error) {
	cfg, err := app.LoadConfig(f.configFlag, f.getenv)
	if err != nil && !lenient {
		return app.Options{}, err
	}
	if err != nil {
		f.logger.Warn("config not read: its context notes are left out", "err", err)
	}
	cfgFile, _ := app.ConfigFile(f.configFlag, f.getenv)
	return app.Options{DBPath: f.dbPath, DBNamedBy: f.dbNamedBy, StatePath: f.statePath, Workspace: ws, Config: cfg, ConfigFile: cfgFile,
		Logger: f.logger, Now: f.now, Seeding: f.tellSeeding, Stderr: f.io.ErrOut, Getenv: f.getenv, Version: buildVersion(),
		Notes: app.ContextNotes(cfg, f.getenv, f.now)}, nil
}

// newApp is the app over the workspace ws (options).
func (f *factory) newApp(ws app.Workspace) (*app.App, error) {
	o, err := f.options(ws, false)
	if err != nil {
		return nil, err
	}
	return app.New(o), nil
}

// appFor is newApp as a command's options carry it: over the workspace
// its flags resolve to when it runs (without a statistics file: only
// serve keeps one).
func (f *factory) appFor(ws *workspaceFlags) func() (*app.App, error) {
	return func() (*app.App, error) {
		w, err := ws.Resolve(false)
		if err != nil {
			return nil, err
		}
		return f.newApp(w)
	}
}

// serveOptions are the options serve builds its app from: strict about
// the configuration (a server must not start on half of it), with its log
// going to stderr at serve's level (app.Serve makes the logger).
func (f *factory) serveOptions(ws app.Workspace) (app.Options, error) { return f.options(ws, false) }

// plainApp is the app without a workspace, the configuration read:
// sources, ingest, upstream logins, eval search.
func (f *factory) plainApp() (*app.App, error) { return f.newApp(app.Workspace{}) }

// specApp is the app for the commands that read the store or the state
// only (search, section, plan, versions, prune, tokens, secrets): no
// workspace. An empty database first gets the Go specification built into
// langspec, and the user is told (tellSeeding).
//
// The context notes still come with its answers: the state file's, and the
// config's when the config file reads; one that does not is logged and
// left out, since a search needs no config.
func (f *factory) specApp() (*app.App, error) {
	o, err := f.options(app.Workspace{}, true)
	return app.New(o), err
}

// tellSeeding says once, on stderr, what a first run creates and where:
// even when stderr is not a terminal, since a database appearing unasked
// is worth a line in a log, and never on stdout, which may be JSON or the
// MCP protocol.
func (f *factory) tellSeeding(dbPath string, created bool) {
	if created {
		fmt.Fprintf(f.io.ErrOut, "langspec: first run: creating %s with the Go specification built in\n", dbPath)
		return
	}
	fmt.Fprintf(f.io.ErrOut, "langspec: %s holds no specification yet: loading the Go specification built into langspec\n", dbPath)
}

// usageError marks a mistake in the command line: exit code 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// flagError is a flag mistake in words, with the flag meant when one of
// the command's is near: "unknown flag: --limt; did you mean --limit?".
func flagError(cmd *cobra.Command, err error) error {
	if near := nearFlag(cmd, err); near != "" {
		return usageErrorf("%v; did you mean %s?", err, near)
	}
	return usageError{err}
}

// nearFlag is the command's flag nearest to the unknown one err names, as
// typed ("--limit"), or "".
func nearFlag(cmd *cobra.Command, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return ""
	}
	name, _, _ = strings.Cut(name, "=")
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	if near := app.NearestName(name, names); near != "" {
		return "--" + near
	}
	return ""
}

// Main runs langspec with args and returns the exit code: 0 on success, 2 for
// a usage mistake or invalid argument, 1 for anything else. Errors are one
// line on ErrOut.
func Main(ctx context.Context, args []string, io *ioStreams, getenv func(string) string) int {
	f := &factory{
		io:     io,
		getenv: getenv,
		now:    time.Now,
		logger: slog.New(slog.NewTextHandler(io.ErrOut, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	root := newCmdRoot(f)
	root.SetArgs(args)
	root.SetIn(io.In)
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return 0
	}
	msg, hint := humanError(err)
	fmt.Fprintln(io.ErrOut, "langspec: "+msg)
	if hint != "" {
		fmt.Fprintln(io.ErrOut, "hint: "+hint)
	}
	var ue usageError
	switch {
	case errors.As(err, &ue):
		fmt.Fprintf(io.ErrOut, "Run '%s --help' for usage.\n", cmd.CommandPath())
		return 2
	case apperr.CodeOf(err) == apperr.InvalidArgument:
		return 2
	case apperr.CodeOf(err) == apperr.Internal:
		f.logger.Error("internal error", "err", err)
	}
	return 1
}

// humanError is err as a person at a terminal reads it: what went wrong,
// and what to do next, each in a line. The code (not_found, …) and the
// argument names of the MCP tools are what a model reads in the same
// error; here they become words.
func humanError(err error) (msg, hint string) {
	e, ok := errors.AsType[*apperr.Error](err)
	if !ok {
		return humanWords.Replace(err.Error()), ""
	}
	return humanWords.Replace(e.Message), humanWords.Replace(e.Hint)
}

// humanWords are the MCP argument names that errors shared with the tools
// name, in words. (Field names of files a person writes, such as a gold
// file's manual_id, stay: they are what the person types.)
var humanWords = strings.NewReplacer("section_id", "section id", "node_ids", "node ids", "node_id", "node id")

func newCmdRoot(f *factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "langspec",
		Short: "Look things up in language specifications, offline",
		Long: `langspec searches language specifications with ranked results, snippets and
canonical links. The Go specification is built in: the first search works
with no set-up and no network. 'langspec manual' finds and reads in your
manuals (MANUALS_ROOT), and 'langspec serve' offers both to MCP clients.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		// --version prints what `langspec version` prints.
		Version: readVersion().String(),
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if err := flagsAfterDash(cmd, args); err != nil {
				return err
			}
			switch {
			case cmd.Flags().Changed("db"):
				f.dbNamedBy = "--db"
			case f.dbPath != "":
				f.dbNamedBy = "LANGSPEC_DB"
			}
			if f.dbPath == "" {
				p, err := defaultDBPath(f.getenv)
				if err != nil {
					return err
				}
				f.dbPath = p
			}
			return nil
		},
	}
	root.PersistentFlags().StringVar(&f.dbPath, "db", f.getenv("LANGSPEC_DB"),
		"database file (env LANGSPEC_DB; default $XDG_DATA_HOME/langspec/langspec.db)")
	root.PersistentFlags().StringVar(&f.statePath, "state", f.getenv("LANGSPEC_STATE"),
		"state file: the team server's tokens and secrets, apart from the index (env LANGSPEC_STATE; default $XDG_STATE_HOME/langspec/state.db)")
	root.PersistentFlags().StringVar(&f.configFlag, "config", "",
		"config file (env LANGSPEC_CONFIG; default $XDG_CONFIG_HOME/langspec/langspec.json, optional)")
	root.SetFlagErrorFunc(flagError)
	root.SetVersionTemplate("{{.Version}}\n")
	root.Flags().BoolP("version", "v", false, "print langspec's version (what 'langspec version' prints)")
	asGroup(root)
	root.AddCommand(
		newCmdSearch(f, nil),
		newCmdCompare(f),
		newCmdDiff(f),
		newCmdSince(f),
		newCmdSection(f),
		newCmdPlan(f),
		newCmdIngest(f),
		newCmdServe(f),
		newCmdSources(f),
		newCmdVersions(f),
		newCmdPrune(f),
		newCmdConfig(f),
		newCmdEval(f),
		newCmdDocs(f),
		newCmdToken(f),
		newCmdContext(f),
		newCmdSecret(f),
		newCmdUpstream(f),
		newCmdUI(f),
		newCmdVersion(f),
		newCmdManual(f),
	)
	return root
}

// flagsAfterDash refuses a flag of the command written after "--": it
// would be taken as a query word in silence ("manual find -- "-r flag" -n
// 2" searching for "-n" and "2"). A word after "--" that starts with "-"
// and is no flag of the command is what "--" is for.
func flagsAfterDash(cmd *cobra.Command, args []string) error {
	dash := cmd.ArgsLenAtDash()
	if dash < 0 {
		return nil
	}
	var flags, words []string
	after := args[dash:]
	for i := 0; i < len(after); i++ {
		a := after[i]
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		var f *pflag.Flag
		switch {
		case strings.HasPrefix(a, "--") && name != "":
			f = cmd.Flags().Lookup(name)
		case strings.HasPrefix(a, "-") && len(name) == 1:
			f = cmd.Flags().ShorthandLookup(name)
		}
		if f == nil {
			words = append(words, a)
			continue
		}
		flags = append(flags, a)
		if !hasValue && f.NoOptDefVal == "" && i+1 < len(after) {
			i++
			flags = append(flags, after[i])
		}
	}
	if len(flags) == 0 {
		return nil
	}
	quote := func(ws []string) []string {
		out := make([]string, len(ws))
		for i, w := range ws {
			out[i] = w
			if strings.ContainsAny(w, " \t\"'*?$") {
				out[i] = strconv.Quote(w)
			}
		}
		return out
	}
	line := append(append([]string{cmd.CommandPath()}, quote(flags)...), quote(args[:dash])...)
	line = append(append(line, "--"), quote(words)...)
	return usageErrorf("%s after -- would be searched for as words; put the flags before --: %s", strings.Join(flags, " "), strings.Join(line, " "))
}

// defaultDBPath follows the XDG base directory spec: $XDG_DATA_HOME, else
// ~/.local/share.
func defaultDBPath(getenv func(string) string) (string, error) {
	if d := getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "langspec", "langspec.db"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", apperr.New(apperr.InvalidArgument, "pass --db PATH or set LANGSPEC_DB",
			"cannot find a home directory for the default database")
	}
	return filepath.Join(home, ".local", "share", "langspec", "langspec.db"), nil
}

// asGroup makes a command that only groups others answer an unknown
// subcommand with a usage error (exit 2) and cobra's suggestions, and print
// its help when run alone. Without it cobra reports the unknown command as
// an ordinary error or prints the help and exits 0.
func asGroup(cmd *cobra.Command) *cobra.Command {
	cmd.Args = cobra.ArbitraryArgs
	cmd.SuggestionsMinimumDistance = 2
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "; did you mean " + strings.Join(s, " or ") + "?"
		}
		return usageErrorf("%s", msg)
	}
	return cmd
}

// someArgs is cobra.MinimumNArgs(1) with an error that counts as a usage
// mistake: "<command> needs <what>".
func someArgs(command, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return usageErrorf("%s needs %s", command, what)
		}
		return nil
	}
}

// limitInRange says, as a usage mistake, when a --limit flag of n is
// outside 1 to most.
func limitInRange(n, most int) error {
	if n < 1 || n > most {
		return usageErrorf("--limit %d is out of range; use 1 to %d", n, most)
	}
	return nil
}

// exactArgs is cobra.ExactArgs with an error that counts as a usage mistake.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErrorf("%s takes %s (got %d arguments)", cmd.CommandPath(), what, len(args))
		}
		return nil
	}
}
