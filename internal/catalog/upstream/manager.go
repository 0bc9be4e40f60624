// Package upstream is langspec's client side of MCP: it keeps sessions with
// the upstream servers configured under mcpServers (Serena, GitHub, …) and
// with in-process servers, lists their tools through a cache, and proxies
// tools/call to them. It owns the child processes of stdio servers.
//
// Connections are made in the background by Start or on first use, and
// again on the next use after a session ends, so a crashed upstream comes
// back without a restart of langspec. Failed connection attempts back off
// exponentially, so a crash-looping server is not respawned in a tight loop,
// and no upstream can block another: each has its own connection, lock and
// timeouts.
package upstream

import (
	"cmp"
	"context"
	"errors"
	"io"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/apperr"
)

// protocolVersion is the MCP version langspec asks upstreams for. It is
// pinned to the newest version that still starts with a plain initialize:
// left empty, the SDK asks for 2026-07-28 and first sends a server/discover
// probe, which some stdio servers answer by hanging or exiting. Servers that
// only speak an older version answer with theirs, and the SDK accepts any
// version it supports.
const protocolVersion = "2025-11-25"

// Defaults of Options.
const (
	DefaultCallTimeout    = 60 * time.Second
	DefaultConnectTimeout = 20 * time.Second
	DefaultSchemaTTL      = 10 * time.Minute
)

// Options configures a Manager. The zero value is usable.
type Options struct {
	// Logger receives one Info line per server when it is ready, Warn lines
	// when one fails or ends, and a Debug line per call. nil: no logs.
	Logger *slog.Logger
	// Stderr receives the stderr lines of stdio servers, each prefixed with
	// "[<server>] ". nil: discarded.
	Stderr io.Writer
	// CallTimeout bounds one tools/call or one (paged) tools/list. A
	// server that lets it pass and then does not answer a ping either is
	// stopped; the next call starts it afresh.
	CallTimeout time.Duration
	// ConnectTimeout bounds one connection attempt: starting the process
	// or reaching the URL, and initialize.
	ConnectTimeout time.Duration
	// SchemaTTL is how long a tools/list result is served from the cache
	// when the server does not report a change first.
	SchemaTTL time.Duration
	// Getenv resolves ${VAR} in configs (see ServerConfig.Expand) and the
	// few variables of langspec's environment a stdio child gets besides
	// its env entries (PATH, HOME, …; see ServerConfig.InheritEnv for the
	// whole environment, which is os.Environ). nil: os.Getenv.
	Getenv func(string) string
	// Now is the clock of the schema cache and of connection backoff.
	// nil: time.Now.
	Now func() time.Time
	// Version is reported to upstreams as langspec's version in
	// initialize. Empty: "dev".
	Version string
	// Secrets looks up ${secret:NAME} for subject ("" for the shared
	// value): the subject's own value when it has one (own true), else the
	// shared one; "" when neither is stored. nil: no secrets.
	Secrets func(name, subject string) (value string, own bool, err error)
	// OAuthTokens keeps the tokens of upstreams that log in with OAuth
	// (ServerConfig.OAuth). nil: such servers are unavailable.
	OAuthTokens OAuthTokens
	// OnToolsChanged, if set, is called with the server's name after it
	// sent notifications/tools/list_changed and its cached tools were
	// dropped. It runs on the session's goroutine: it must not block, nor
	// call back into the Manager synchronously.
	OnToolsChanged func(server string)
}

// State is a server's connection state as Status reports it.
type State string

const (
	StateIdle        State = "idle"        // not connected yet, or the session ended; connects on next use
	StateConnecting  State = "connecting"  // a connection attempt is under way
	StateReady       State = "ready"       // a session is open
	StateUnavailable State = "unavailable" // the last connection attempt failed; see LastError and NextAttempt
)

// ServerStatus is one server's line in Status.
type ServerStatus struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Type is stdio, http, sse, or custom for servers added by AddTransport.
	Type  string `json:"type"`
	State State  `json:"state"`
	// LastError is why the last attempt failed or the last session ended,
	// with configured secrets removed; empty once a session is open.
	LastError string `json:"lastError,omitempty"`
	// Tools is the number of tools in the last listing; 0 before the first.
	Tools int `json:"tools"`
	// Reconnects counts sessions opened after the first one.
	Reconnects int `json:"reconnects"`
	// NextAttempt is when a failed server may be tried again; zero when
	// nothing holds it back.
	NextAttempt time.Time `json:"nextAttempt,omitzero"`
}

// Manager holds the upstream servers. It is safe for concurrent use.
type Manager struct {
	opts     Options
	log      *slog.Logger
	stderrMu sync.Mutex // one line at a time on opts.Stderr, from any child

	// ctx ends when Close is called. Every connection attempt and session
	// lives under it, so Close stops them all.
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	servers map[string]*server
	configs map[string]ServerConfig // as configured, before expansion: what ForkFor expands again

	// subject is whose secrets Add expands (ForkFor); "" for the shared.
	subject string

	// goMu guards closed and wg.Add, so Close's wg.Wait never races a new
	// goroutine. It is a leaf lock: nothing is locked while it is held.
	goMu   sync.Mutex
	closed bool
	wg     sync.WaitGroup
	// closeDone is closed when Close has finished, for a second Close to
	// wait on: the owner's Close must not return while a Close started
	// elsewhere (mcpserver.Build's, on a signal) is still ending children.
	closeDone chan struct{}

	spawn *spawner // starts stdio children; see spawner
}

// NewManager returns a Manager with no servers.
func NewManager(opts Options) *Manager {
	opts.CallTimeout = cmp.Or(opts.CallTimeout, DefaultCallTimeout)
	opts.ConnectTimeout = cmp.Or(opts.ConnectTimeout, DefaultConnectTimeout)
	opts.SchemaTTL = cmp.Or(opts.SchemaTTL, DefaultSchemaTTL)
	opts.Version = cmp.Or(opts.Version, "dev")
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Manager{opts: opts, log: log, ctx: ctx, cancel: cancel, servers: map[string]*server{}, configs: map[string]ServerConfig{},
		closeDone: make(chan struct{}), spawn: newSpawner()}
}

// Fork returns a Manager that serves m's servers, sharing their
// connections, and the servers added to it later, which are its own: the
// team server gives each subject a fork with that subject's langspec tools
// in it, while every subject shares one process per upstream. The shared
// servers stay m's — Fork's Close ends only its own — and a server added
// to m after Fork is not in the fork.
func (m *Manager) Fork() *Manager {
	f := NewManager(m.opts)
	m.mu.Lock()
	maps.Copy(f.servers, m.servers)
	m.mu.Unlock()
	return f
}

// ForkFor is Fork for one subject of the team server: a server whose
// configuration names a secret the subject has a value of its own for
// (`langspec secret set NAME --subject S`) is not shared but started
// afresh in the fork with the subject's values, so that the subject's
// calls carry its own credentials. The others are shared as Fork shares
// them.
func (m *Manager) ForkFor(subject string) (*Manager, error) {
	f := m.Fork()
	if subject == "" || m.opts.Secrets == nil && m.opts.OAuthTokens == nil {
		return f, nil
	}
	f.subject = subject
	m.mu.Lock()
	configs := maps.Clone(m.configs)
	m.mu.Unlock()
	for _, name := range slices.Sorted(maps.Keys(configs)) {
		cfg := configs[name]
		own := false
		for _, ref := range cfg.secretRefs() {
			if m.opts.Secrets == nil {
				break
			}
			if _, o, err := m.opts.Secrets(ref, subject); err == nil && o {
				own = true
			}
		}
		if cfg.OAuth != nil && m.opts.OAuthTokens != nil {
			if t, err := m.opts.OAuthTokens.LoadToken(name, subject); err == nil && t != nil {
				own = true // the subject logged in itself
			}
		}
		if !own {
			continue
		}
		f.mu.Lock()
		delete(f.servers, name)
		f.mu.Unlock()
		if err := f.Add(name, cfg); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// lookup resolves ${VAR} from the environment and ${secret:NAME} from the
// secrets of m's subject.
func (m *Manager) lookup(k string) string { return m.lookupFor(m.subject)(k) }

// lookupFor is lookup for subject. A secret that cannot be read (the wrong
// key) is logged without its value and left unset.
func (m *Manager) lookupFor(subject string) func(string) string {
	return func(k string) string {
		name, ok := strings.CutPrefix(k, SecretPrefix)
		if !ok {
			return m.opts.Getenv(k)
		}
		if m.opts.Secrets == nil {
			return ""
		}
		v, _, err := m.opts.Secrets(name, subject)
		if err != nil {
			m.log.Warn("a secret could not be read", "secret", name, "err", err)
			return ""
		}
		return v
	}
}

// Add validates cfg, expands its ${VAR}s with Options.Getenv and adds the
// server under name. It does not connect: Start or the first Tools or Call
// does.
//
// A config that cannot be completed from the environment (a ${VAR} that is
// not set, a url that is no URL once expanded) does not fail Add: the
// server is added unavailable, Status and every call report why, naming the
// variable, and the other servers work. One missing token must not keep
// langspec and every other upstream from starting. Errors:
// apperr.InvalidArgument from Validate (including a malformed ${), or when
// name is taken or the Manager is closed.
func (m *Manager) Add(name string, cfg ServerConfig) error {
	if err := cfg.Validate(name); err != nil {
		return err
	}
	m.mu.Lock()
	m.configs[name] = cfg
	m.mu.Unlock()
	exp, used, err := cfg.expand(name, m.lookup)
	if err == nil && exp.validateShape(name) != nil {
		// Only the url can fail once expanded (nothing else that Validate
		// checks holds variables), and its message would quote the
		// scheme, which a variable's value may have supplied.
		err = apperr.New(apperr.InvalidArgument, "make the variables give an absolute http or https URL",
			"mcpServers.%s.url: not an absolute http or https URL once its ${VAR}s are expanded", name)
	}
	if err != nil {
		return m.addUnavailable(name, cfg, err)
	}
	// Whatever a variable put anywhere is secret, and so are credentials
	// written literally: env and header values, the url's userinfo and
	// credential-like query values, credential-like flags in args.
	red := newRedactor(slices.Concat(used, literalSecrets(exp)))
	var dial dialFunc
	var holder *oauthHolder
	switch exp.transport() {
	case TypeStdio:
		dial = m.stdioDial(name, exp, red)
	case TypeHTTP, TypeSSE:
		if exp.OAuth != nil {
			holder = &oauthHolder{}
			dial = m.oauthDial(name, exp, holder)
		} else {
			dial = httpDial(exp)
		}
	default:
		dial = httpDial(exp)
	}
	s := newServer(m, name, exp.Description, exp.transport(), dial, red)
	s.caller = newCaller(exp.Retry, exp.Cache, m.opts.Now)
	s.oauth = holder
	return m.add(s)
}

// addUnavailable adds a server whose config could not be completed, with
// cause (an apperr that quotes no value) as the reason of its
// unavailability.
func (m *Manager) addUnavailable(name string, cfg ServerConfig, cause error) error {
	msg, hint := cause.Error(), "fix the configuration"
	if e, ok := errors.AsType[*apperr.Error](cause); ok {
		msg, hint = e.Message, e.Hint
	}
	s := newServer(m, name, cfg.Description, cfg.transport(), nil, redactor{})
	s.configErr = apperr.Wrap(cause, apperr.UpstreamUnavailable, hint+"; then restart langspec",
		"server %q is not configured: %s", name, msg)
	if err := m.add(s); err != nil {
		return err
	}
	m.log.Warn("upstream unavailable: its configuration is incomplete; the other servers start", "server", name, "error", msg)
	return nil
}

// AddTransport adds a server reached through transports that connect
// makes, one per connection attempt: langspec's own tools through
// mcp.NewInMemoryTransports, or a test server. Errors: as Add.
func (m *Manager) AddTransport(name, description string, connect func(ctx context.Context) (mcp.Transport, error)) error {
	if err := validateName(name); err != nil {
		return err
	}
	dial := func(ctx context.Context) (dialed, error) {
		t, err := connect(ctx)
		return dialed{t: t, cleanup: func() {}}, err
	}
	return m.add(newServer(m, name, description, "custom", dial, redactor{}))
}

func (m *Manager) add(s *server) error {
	name := s.name
	if m.isClosed() {
		return apperr.New(apperr.InvalidArgument, "add servers before Close", "mcpServers.%s: the upstream manager is closed", name)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.servers[name]; ok {
		return apperr.New(apperr.InvalidArgument, "give each server its own name", "mcpServers.%s: a server of that name is already added", name)
	}
	m.servers[name] = s
	return nil
}

// Start begins connecting every server that is neither connected nor
// backing off, each in its own goroutine, and returns at once; a server
// added later connects on first use. The context is not kept: connections
// live until Close.
func (m *Manager) Start(context.Context) {
	for _, s := range m.list() {
		s.mu.Lock()
		if s.conn == nil && s.configErr == nil && !m.opts.Now().Before(s.nextAttempt) {
			s.startConnectLocked()
		}
		s.mu.Unlock()
	}
}

// Tools returns the tools of server, from the cache when it is younger than
// SchemaTTL and the server has not reported a change since, else by listing
// all pages. Every InputSchema is an object schema (see normalizeSchema).
// The slice and the tools are shared with the cache: copy a tool before
// changing it. Errors: apperr.NotFound for an unknown server,
// UpstreamUnavailable, SchemaFetchError.
func (m *Manager) Tools(ctx context.Context, server string) ([]*mcp.Tool, error) {
	tl, err := m.ToolList(ctx, server)
	if err != nil {
		return nil, err
	}
	return tl.Tools, nil
}

// ToolList is Tools with the listing's cache key; an unchanged listing
// keeps its *ToolList across refreshes.
func (m *Manager) ToolList(ctx context.Context, server string) (*ToolList, error) {
	s, err := m.server(server)
	if err != nil {
		return nil, err
	}
	return s.toolList(ctx)
}

// Call calls tool on server with args and returns the server's result
// unchanged: content (images included), structuredContent and isError. A
// tool's own failure is a result with IsError, not an error. Errors:
// apperr.NotFound for an unknown server; UpstreamUnavailable when it cannot
// be reached; UpstreamCallError on timeout, when the server ends during the
// call (the next call reconnects), or when it rejects the request.
func (m *Manager) Call(ctx context.Context, server, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	s, err := m.server(server)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	res, err := s.callWithPolicy(ctx, tool, args)
	outcome := "ok"
	switch {
	case err != nil:
		outcome = string(apperr.CodeOf(err))
	case res.IsError:
		outcome = "tool_error"
	}
	m.log.Debug("upstream call", "server", server, "tool", tool, "ms", time.Since(start).Milliseconds(), "outcome", outcome)
	return res, err
}

// Status reports every server, sorted by name.
func (m *Manager) Status() []ServerStatus {
	servers := m.list()
	out := make([]ServerStatus, 0, len(servers))
	now := m.opts.Now()
	for _, s := range servers {
		out = append(out, s.status(now))
	}
	return out
}

// Description returns the configured description of server, or "" when
// there is no such server.
func (m *Manager) Description(server string) string {
	s, err := m.server(server)
	if err != nil {
		return ""
	}
	return s.description
}

// Close ends every request in flight (it fails with "langspec is shutting
// down"), every session and connection attempt, ends the child processes
// of stdio servers (and what they started, on Unix), and waits for the
// Manager's goroutines. A child gets stdioGrace to exit once its stdin is
// closed, then its process group is killed, all children in parallel, so
// Close takes about half a second at most. Tools and Call fail afterwards.
// A second Close waits for the first to finish. It always returns nil: how
// a child exited is logged at Debug, not reported.
func (m *Manager) Close() error {
	m.goMu.Lock()
	if m.closed {
		m.goMu.Unlock()
		<-m.closeDone
		return nil
	}
	m.closed = true
	m.goMu.Unlock()
	defer close(m.closeDone)

	m.cancel() // ends requests in flight, so no session waits for them
	var wg sync.WaitGroup
	for _, s := range m.list() {
		if s.m != m {
			continue // a server shared by Fork: its own Manager ends it
		}
		s.mu.Lock()
		c := s.conn
		s.conn = nil
		s.mu.Unlock()
		if c != nil {
			wg.Go(func() { s.closeConn(c, stdioGrace) })
		}
	}
	wg.Wait()
	m.wg.Wait()
	// Last: its thread's end is what Pdeathsig reacts to.
	m.spawn.stop()
	return nil
}

// goTrack runs f in a goroutine Close waits for, unless Close has begun.
func (m *Manager) goTrack(f func()) bool {
	m.goMu.Lock()
	defer m.goMu.Unlock()
	if m.closed {
		return false
	}
	m.wg.Go(f)
	return true
}

func (m *Manager) isClosed() bool {
	m.goMu.Lock()
	defer m.goMu.Unlock()
	return m.closed
}

func (m *Manager) server(name string) (*server, error) {
	m.mu.Lock()
	s, ok := m.servers[name]
	m.mu.Unlock()
	if !ok {
		return nil, apperr.New(apperr.NotFound, "use a server from Status", "no upstream server %q", name)
	}
	return s, nil
}

// list returns the servers sorted by name.
func (m *Manager) list() []*server {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := slices.Collect(maps.Values(m.servers))
	slices.SortFunc(out, func(a, b *server) int { return cmp.Compare(a.name, b.name) })
	return out
}
