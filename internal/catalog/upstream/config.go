package upstream

import (
	"fmt"
	"maps"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/langspec/langspec/internal/apperr"
)

// Transport types of ServerConfig.Type.
const (
	TypeStdio = "stdio" // a child process speaking JSON-RPC on stdin/stdout
	TypeHTTP  = "http"  // streamable HTTP
	TypeSSE   = "sse"   // the older HTTP+SSE transport
)

// ServerConfig is one entry of langspec.json's mcpServers. It follows the
// mcpServers shape other MCP clients read (command/args/env, url/headers)
// so an entry can be copied between them, plus a description for the model.
//
// Args, env values, url and header values may name environment variables
// as ${VAR}; see Expand. Command and description are taken literally.
//
// A stdio child gets a minimal environment (see baseEnv) plus Env, unless
// InheritEnv asks for langspec's whole environment: langspec usually runs
// with the user's tokens for every service in its environment, and a
// server should see only the ones its entry hands it.
type ServerConfig struct {
	Description string            `json:"description" jsonschema:"what the server offers, shown to the model when it picks a category"`
	Type        string            `json:"type,omitempty" jsonschema:"transport: stdio (the default, a child process), http (streamable HTTP) or sse (HTTP with server-sent events)"`
	Command     string            `json:"command,omitempty" jsonschema:"stdio: the program to run, found on PATH unless it is a path"`
	Args        []string          `json:"args,omitempty" jsonschema:"stdio: arguments of command; ${VAR} is replaced by the environment variable and $$ is a literal $"`
	Env         map[string]string `json:"env,omitempty" jsonschema:"stdio: the child's variables besides PATH, HOME, LANG, LC_ALL, TMPDIR and USER (SYSTEMROOT and the like on Windows), which are all it gets of langspec's environment unless inheritEnv is true; values may use ${VAR}"`
	InheritEnv  bool              `json:"inheritEnv,omitempty" jsonschema:"stdio: pass langspec's whole environment to the child (then env is added on top); by default the child gets only the variables env describes"`
	URL         string            `json:"url,omitempty" jsonschema:"http and sse: the server's endpoint; may use ${VAR}"`
	Headers     map[string]string `json:"headers,omitempty" jsonschema:"http and sse: headers sent with every request, such as Authorization; values may use ${VAR} and are never logged"`
	Retry       *RetryPolicy      `json:"retry,omitempty" jsonschema:"how failed calls are tried again (attempts, exponential backoff with jitter); default: no retry"`
	Cache       *CachePolicy      `json:"cache,omitempty" jsonschema:"keep results of the server's read-only and idempotent tools, by tool and arguments; default: off"`
	OAuth       *OAuthConfig      `json:"oauth,omitempty" jsonschema:"http and sse: log in with OAuth (langspec upstream login NAME) instead of a fixed header"`
}

// transport returns the type with the default filled in.
func (c ServerConfig) transport() string {
	if c.Type == "" {
		return TypeStdio
	}
	return c.Type
}

// Validate checks the shape of the entry named name: a description, a known
// type, a command for stdio and a url for http and sse, no field of the
// other kind, and well-formed ${VAR}s. A url holding ${VAR} is checked once
// expanded (Manager.Add checks the shape again after Expand). Errors:
// apperr.InvalidArgument naming the field, as mcpServers.<name>.<field>.
func (c ServerConfig) Validate(name string) error {
	if err := c.validateShape(name); err != nil {
		return err
	}
	// A malformed ${ is wrong whatever the environment holds, so it is a
	// configuration error here; an unset variable is not (see Manager.Add).
	// Any value stands in for the variables: only the syntax is checked.
	_, _, err := c.expand(name, func(string) string { return "x" })
	return err
}

// validateShape is Validate without the ${VAR} syntax, for a config that
// is expanded already (where "$${" has become a literal "${").
func (c ServerConfig) validateShape(name string) error {
	if err := validateName(name); err != nil {
		return err
	}
	field := func(f string) string { return "mcpServers." + name + "." + f }
	bad := func(f, hint, format string, args ...any) error {
		return apperr.New(apperr.InvalidArgument, hint, "%s: %s", field(f), fmt.Sprintf(format, args...))
	}
	if strings.TrimSpace(c.Description) == "" {
		return bad("description", "say in a sentence what the server offers; the model reads it", "missing")
	}
	if err := c.Retry.validate(field); err != nil {
		return err
	}
	if err := c.Cache.validate(field); err != nil {
		return err
	}
	if o := c.OAuth; o != nil {
		if c.transport() == TypeStdio {
			return apperr.New(apperr.InvalidArgument, `OAuth goes with "type": "http" or "sse"`, "%s: set on a stdio server", field("oauth"))
		}
		if o.ClientID == "" {
			return apperr.New(apperr.InvalidArgument, "give the client id registered for langspec", "%s: missing", field("oauth.clientId"))
		}
		for _, u := range []struct{ f, v string }{{"authorizationUrl", o.AuthorizationURL}, {"tokenUrl", o.TokenURL}} {
			if u.v != "" {
				if err := checkURL(u.v); err != nil {
					return apperr.New(apperr.InvalidArgument, "give an absolute http or https URL", "%s: %v", field("oauth."+u.f), err)
				}
			}
		}
	}
	switch c.transport() {
	case TypeStdio:
		if c.Command == "" {
			return bad("command", `name the program to run, e.g. "npx", or set "type": "http" with a "url"`, "missing for a stdio server")
		}
		if c.URL != "" {
			return bad("url", `a stdio server is a command: remove "url", or set "type": "http" or "sse" and remove "command"`, "set on a stdio server")
		}
		if len(c.Headers) > 0 {
			return bad("headers", `headers go with "type": "http" or "sse"; pass a stdio server's secrets in "env"`, "set on a stdio server")
		}
	case TypeHTTP, TypeSSE:
		if c.URL == "" {
			return bad("url", "give the server's endpoint, e.g. https://example.com/mcp", "missing for type %q", c.Type)
		}
		if !strings.Contains(c.URL, "${") {
			if err := checkURL(c.URL); err != nil {
				return bad("url", "give an absolute http or https URL", "%v", err)
			}
		}
		if c.Command != "" {
			return bad("command", `this server is reached by "url": remove "command", or remove "type" to run it as stdio`, "set with type %q", c.Type)
		}
		if len(c.Args) > 0 {
			return bad("args", `"args" belong to a stdio "command"; remove them`, "set with type %q", c.Type)
		}
		if len(c.Env) > 0 {
			return bad("env", `"env" belongs to a stdio "command"; pass secrets to this server in "headers"`, "set with type %q", c.Type)
		}
		if c.InheritEnv {
			return bad("inheritEnv", `"inheritEnv" belongs to a stdio "command"; remove it`, "set with type %q", c.Type)
		}
	default:
		return bad("type", `use "stdio", "http" or "sse"`, "unknown type %q", c.Type)
	}
	for k := range c.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return bad("env", "use variable names without = or NUL", "bad variable name %q", k)
		}
	}
	for k := range c.Headers {
		if k == "" || strings.ContainsAny(k, " \t\r\n:") {
			return bad("headers", "use header names such as Authorization", "bad header name %q", k)
		}
	}
	return nil
}

// validateName keeps server names to characters that read well in the
// "[name] " stderr prefix, in log lines and in JSON paths of errors.
func validateName(name string) error {
	if name == "" {
		return apperr.New(apperr.InvalidArgument, "give the server a name such as serena", "mcpServers: empty server name")
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return apperr.New(apperr.InvalidArgument, "use letters, digits, '-', '_' and '.'", "mcpServers: bad server name %q", name)
		}
	}
	return nil
}

func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		// url.Parse errors quote the URL, which may hold an expanded
		// secret; say only what kind of problem it is.
		return fmt.Errorf("not a URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("scheme %q, want http or https", u.Scheme)
	}
	if u.Host == "" {
		return fmt.Errorf("no host")
	}
	return nil
}

// Expand replaces ${VAR} in args, env values, url and header values by
// getenv(VAR). "$$" stands for a literal "$" (write "$${X}" to pass "${X}"
// through); a "$" followed by anything else is kept as it is, so regular
// expressions and shell snippets in args rarely need escaping. A variable
// that getenv reports as empty counts as undefined, because getenv cannot
// tell the two apart and an empty token is a misconfiguration either way.
// A nil getenv is os.Getenv. Errors: apperr.InvalidArgument naming the
// variable and the field, e.g. mcpServers.github.headers.Authorization;
// values are never included.
func (c ServerConfig) Expand(name string, getenv func(string) string) (ServerConfig, error) {
	out, _, err := c.expand(name, getenv)
	return out, err
}

// expand is Expand that also returns the values it substituted, so the
// manager can keep them out of errors and logs.
func (c ServerConfig) expand(name string, getenv func(string) string) (ServerConfig, []string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	var secrets []string
	one := func(field, s string) (string, error) {
		v, used, err := expandString(s, getenv)
		if err != nil {
			return "", apperr.New(apperr.InvalidArgument, err.hint, "mcpServers.%s.%s: %s", name, field, err.msg)
		}
		secrets = append(secrets, used...)
		return v, nil
	}
	out := c
	out.Args = slices.Clone(c.Args)
	for i, a := range c.Args {
		v, err := one(fmt.Sprintf("args[%d]", i), a)
		if err != nil {
			return ServerConfig{}, nil, err
		}
		out.Args[i] = v
	}
	if c.URL != "" {
		v, err := one("url", c.URL)
		if err != nil {
			return ServerConfig{}, nil, err
		}
		out.URL = v
	}
	if c.OAuth != nil {
		o := *c.OAuth
		if o.ClientSecret != "" {
			v, err := one("oauth.clientSecret", o.ClientSecret)
			if err != nil {
				return ServerConfig{}, nil, err
			}
			o.ClientSecret = v
		}
		out.OAuth = &o
	}
	var err error
	if out.Env, err = expandMap(c.Env, "env", one); err != nil {
		return ServerConfig{}, nil, err
	}
	if out.Headers, err = expandMap(c.Headers, "headers", one); err != nil {
		return ServerConfig{}, nil, err
	}
	return out, secrets, nil
}

// expandMap expands values in key order, so the first error reported is
// the same on every run.
func expandMap(m map[string]string, field string, one func(field, s string) (string, error)) (map[string]string, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[string]string, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v, err := one(field+"."+k, m[k])
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}

type expandError struct{ msg, hint string }

// expandString substitutes ${VAR} and $$ in s and returns the substituted
// values.
func expandString(s string, getenv func(string) string) (string, []string, *expandError) {
	if !strings.Contains(s, "$") {
		return s, nil, nil
	}
	var b strings.Builder
	var used []string
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '{':
			end := strings.IndexByte(s[i+2:], '}')
			if end < 0 {
				return "", nil, &expandError{"unclosed ${", "close it with }, or write $$ for a literal $"}
			}
			v := s[i+2 : i+2+end]
			secret, isSecret := strings.CutPrefix(v, SecretPrefix)
			if isSecret && !validSecretName(secret) || !isSecret && !validVarName(v) {
				return "", nil, &expandError{fmt.Sprintf("bad variable name %q", v), "use ${NAME} with letters, digits and _, ${secret:NAME} for a stored secret, or $$ for a literal $"}
			}
			val := getenv(v)
			if val == "" && isSecret {
				return "", nil, &expandError{fmt.Sprintf("secret %s is not stored", secret), "store it with: langspec secret set " + secret}
			}
			if val == "" {
				return "", nil, &expandError{fmt.Sprintf("environment variable %s is not set", v), "export " + v + " before starting langspec, or write $$ for a literal $"}
			}
			b.WriteString(val)
			used = append(used, val)
			i += 2 + end
		default:
			b.WriteByte('$')
		}
	}
	return b.String(), used, nil
}

// secretRefs are the names of the secrets c's args, env, url and headers
// name as ${secret:NAME}.
func (c ServerConfig) secretRefs() []string {
	var out []string
	texts := slices.Concat(c.Args, slices.Collect(maps.Values(c.Env)), slices.Collect(maps.Values(c.Headers)), []string{c.URL})
	for _, t := range texts {
		for {
			i := strings.Index(t, "${"+SecretPrefix)
			if i < 0 {
				break
			}
			t = t[i+2+len(SecretPrefix):]
			end := strings.IndexByte(t, '}')
			if end < 0 {
				break
			}
			if name := t[:end]; !slices.Contains(out, name) {
				out = append(out, name)
			}
			t = t[end:]
		}
	}
	return out
}

// SecretPrefix marks a stored secret in ${…}: ${secret:NAME} is the value
// `langspec secret set NAME` stored (Options.Secrets), not a variable.
const SecretPrefix = "secret:"

// validSecretName is a secret name as internal/secrets takes it.
func validSecretName(s string) bool {
	if s == "" || len(s) > 128 || !(s[0] == '_' || s[0] >= 'A' && s[0] <= 'Z' || s[0] >= 'a' && s[0] <= 'z') {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c == '.' || c == '-' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
			return false
		}
	}
	return true
}

func validVarName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// baseEnv names the variables of langspec's environment a stdio child gets
// without inheritEnv: what a program needs to find executables and its
// home, pick a language and make temporary files. On Windows programs also
// need SYSTEMROOT (Winsock does not start without it), COMSPEC, PATHEXT
// (npx is npx.cmd), TEMP/TMP and the profile folders (npm keeps its cache
// in LOCALAPPDATA). None of them holds a credential.
func baseEnv(goos string) []string {
	names := []string{"PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "USER"}
	if goos == "windows" {
		names = append(names, "SYSTEMROOT", "COMSPEC", "PATHEXT", "TEMP", "TMP", "USERPROFILE", "APPDATA", "LOCALAPPDATA")
	}
	return names
}

// childEnv is the environment of a stdio child of cfg (expanded): the
// names of baseEnv looked up with getenv, or environ() whole with
// inheritEnv, and then cfg.Env, which wins (exec keeps the last of
// duplicate names).
func childEnv(cfg ServerConfig, goos string, getenv func(string) string, environ func() []string) []string {
	var env []string
	if cfg.InheritEnv {
		env = environ()
	} else {
		for _, k := range baseEnv(goos) {
			if v := getenv(k); v != "" {
				env = append(env, k+"="+v)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(cfg.Env)) {
		env = append(env, k+"="+cfg.Env[k])
	}
	return env
}

// credentialWords mark a name (of a URL query parameter, a command-line
// flag, a header) whose value is a credential. The list errs towards
// redacting: "author" matches "auth", and an author's name cut from an
// error costs little.
var credentialWords = []string{"key", "token", "secret", "passw", "auth", "signature", "credential", "cookie", "session"}

// credentialName reports whether name looks like it holds a credential.
func credentialName(name string) bool {
	name = strings.ToLower(name)
	for _, w := range credentialWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// literalSecrets returns the credentials an expanded config holds however
// they were written, literally or through ${VAR}: every env and header
// value, the userinfo of the url and the values of its query parameters
// whose name looks like a credential (raw and decoded, since errors quote
// URLs either way), and the values of credential-like flags in args
// (--api-key=X, --token X).
func literalSecrets(cfg ServerConfig) []string {
	secrets := slices.Concat(slices.Collect(maps.Values(cfg.Env)), slices.Collect(maps.Values(cfg.Headers)))
	if u, err := url.Parse(cfg.URL); err == nil && cfg.URL != "" {
		if u.User != nil {
			secrets = append(secrets, u.User.String(), u.User.Username())
			if p, ok := u.User.Password(); ok {
				secrets = append(secrets, p)
			}
		}
		for _, kv := range strings.FieldsFunc(u.RawQuery, func(r rune) bool { return r == '&' || r == ';' }) {
			k, v, _ := strings.Cut(kv, "=")
			if dk, err := url.QueryUnescape(k); err == nil {
				k = dk
			}
			if !credentialName(k) {
				continue
			}
			secrets = append(secrets, v)
			if dv, err := url.QueryUnescape(v); err == nil {
				secrets = append(secrets, dv)
			}
		}
	}
	for i, a := range cfg.Args {
		flag, ok := strings.CutPrefix(a, "-")
		if !ok {
			continue
		}
		flag = strings.TrimPrefix(flag, "-")
		if k, v, ok := strings.Cut(flag, "="); ok {
			if credentialName(k) {
				secrets = append(secrets, v)
			}
		} else if credentialName(flag) && i+1 < len(cfg.Args) {
			secrets = append(secrets, cfg.Args[i+1])
		}
	}
	return secrets
}
