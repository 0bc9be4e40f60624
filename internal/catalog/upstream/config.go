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
type ServerConfig struct {
	Description string            `json:"description" jsonschema:"what the server offers, shown to the model when it picks a category"`
	Type        string            `json:"type,omitempty" jsonschema:"transport: stdio (the default, a child process), http (streamable HTTP) or sse (HTTP with server-sent events)"`
	Command     string            `json:"command,omitempty" jsonschema:"stdio: the program to run, found on PATH unless it is a path"`
	Args        []string          `json:"args,omitempty" jsonschema:"stdio: arguments of command; ${VAR} is replaced by the environment variable and $$ is a literal $"`
	Env         map[string]string `json:"env,omitempty" jsonschema:"stdio: variables added to langspec's environment for the child; values may use ${VAR}"`
	URL         string            `json:"url,omitempty" jsonschema:"http and sse: the server's endpoint; may use ${VAR}"`
	Headers     map[string]string `json:"headers,omitempty" jsonschema:"http and sse: headers sent with every request, such as Authorization; values may use ${VAR} and are never logged"`
}

// transport returns the type with the default filled in.
func (c ServerConfig) transport() string {
	if c.Type == "" {
		return TypeStdio
	}
	return c.Type
}

// Validate checks the shape of the entry named name: a description, a known
// type, a command for stdio and a url for http and sse, and no field of the
// other kind. A url holding ${VAR} is checked once expanded (Manager.Add
// validates again after Expand). Errors: apperr.InvalidArgument naming the
// field, as mcpServers.<name>.<field>.
func (c ServerConfig) Validate(name string) error {
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
			if !validVarName(v) {
				return "", nil, &expandError{fmt.Sprintf("bad variable name %q", v), "use ${NAME} with letters, digits and _, or $$ for a literal $"}
			}
			val := getenv(v)
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
