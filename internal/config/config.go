// Package config reads langspec.json. One loader serves every section of the
// file: a section is a field of Config, and both the strict key and type
// checks and the published JSON Schema follow the struct, so adding a
// section (mcpServers, categories) is adding a field.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/catalog"
	"github.com/langspec/langspec/internal/catalog/upstream"
	"github.com/langspec/langspec/internal/contextnote"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest"
	"github.com/langspec/langspec/internal/text/decode"
)

// Config is the whole file.
type Config struct {
	// Schema lets editors find the schema; it is not otherwise read.
	Schema  string              `json:"$schema,omitempty" jsonschema:"URL or path of the JSON Schema (langspec config schema), for editors"`
	Sources []ingest.SourceSpec `json:"sources,omitempty" jsonschema:"documents to ingest; an entry with the language and doc of a built-in source replaces it"`
	// MCPServers, Categories and ToolMask configure serve's categories mode
	// (internal/catalog) and the mask that hides tools from listing and
	// execution alike.
	MCPServers map[string]upstream.ServerConfig `json:"mcpServers,omitempty" jsonschema:"upstream MCP servers whose tools langspec serves through categories; ${VAR} in args, env, url and headers is expanded from the environment"`
	Categories map[string]catalog.Config        `json:"categories,omitempty" jsonschema:"categories of tools: each names a server (an mcpServers entry, or langspec) and selects some of its tools"`
	ToolMask   catalog.Mask                     `json:"toolMask,omitzero" jsonschema:"tools hidden from listing and execution, as category/tool globs"`
	// Manuals holds settings per manual (a folder under MANUALS_ROOT).
	Manuals map[string]Manual `json:"manuals,omitempty" jsonschema:"settings per manual id (a folder under MANUALS_ROOT)"`
	// Auth configures the team server (serve --http).
	Auth Auth `json:"auth,omitzero" jsonschema:"the team server (serve --http): identity provider tokens, subjects' tools, browser origins"`
	// Embeddings switches the optional semantic channel on.
	Embeddings *Embeddings `json:"embeddings,omitempty" jsonschema:"an OpenAI-compatible embeddings endpoint for the optional semantic channel (OpenAI, Ollama, llama.cpp, vLLM, LM Studio); off when left out"`

	Context map[string]contextnote.ConfigNote `json:"context,omitempty" jsonschema:"context notes: a description returned with every answer whose hits it covers, by target (langspec://go/spec, langspec://manuals/MANUAL/FOLDER/ or …/FILE); kept here they cannot be removed with langspec context rm"`
}

// Embeddings is the endpoint of the semantic channel.
type Embeddings struct {
	URL        string `json:"url" jsonschema:"the API base; POST {url}/embeddings, e.g. http://127.0.0.1:11434/v1 for Ollama"`
	Model      string `json:"model" jsonschema:"the embedding model, e.g. nomic-embed-text or text-embedding-3-small"`
	APIKey     string `json:"api_key,omitempty" jsonschema:"sent as a bearer token; write ${VAR} to read it from the environment"`
	Dimensions int    `json:"dimensions,omitempty" jsonschema:"the vectors' length; a vector of another length is an error"`
	Batch      int    `json:"batch,omitempty" jsonschema:"texts per request (default 64)"`
}

// Auth is who may call the team server, besides langspec's own tokens.
type Auth struct {
	AllowedOrigins []string               `json:"allowed_origins,omitempty" jsonschema:"browser origins (scheme://host[:port]) allowed to call; requests from other origins get 403"`
	JWT            *JWT                   `json:"jwt,omitempty" jsonschema:"accept JWTs of an identity provider"`
	Subjects       map[string]AuthSubject `json:"subjects,omitempty" jsonschema:"settings per JWT subject (its sub claim)"`
}

// JWT is an identity provider whose tokens the team server accepts.
type JWT struct {
	Issuer      string `json:"issuer" jsonschema:"the iss a token must carry; named as the authorization server in the protected resource metadata"`
	Audience    string `json:"audience" jsonschema:"the aud a token must carry: this server"`
	HS256Secret string `json:"hs256_secret,omitempty" jsonschema:"for HS256 tokens: the shared secret as ${VAR}, read from the environment (the secret itself never in the file)"`
	JWKSURL     string `json:"jwks_url,omitempty" jsonschema:"for RS256 and ES256 tokens: the issuer's JWK Set, fetched at start and refreshed"`
}

// AuthSubject is the settings of one JWT subject.
type AuthSubject struct {
	Tools []string `json:"tools,omitempty" jsonschema:"the only tools the subject may list and call (an upstream tool as category__tool); all when left out"`
	Admin bool     `json:"admin,omitempty" jsonschema:"the subject may read the server's /metrics"`
}

// secretRef matches hs256_secret: one ${VAR}.
var secretRef = regexp.MustCompile(`^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$`)

// SecretVar is the environment variable hs256_secret names.
func (j JWT) SecretVar() string {
	if m := secretRef.FindStringSubmatch(j.HS256Secret); m != nil {
		return m[1]
	}
	return ""
}

// Manual is the settings of one manual.
type Manual struct {
	Encoding string `json:"encoding,omitempty" jsonschema:"the encoding of the manual's files when detection reads them wrong: utf-8, utf-16le, utf-16be, cp932 (Shift_JIS), euc-jp or iso-2022-jp; a byte order mark still wins"`
}

// ManualEncodings is the encoding override of each manual that has one.
func (c Config) ManualEncodings() map[string]string {
	out := map[string]string{}
	for id, m := range c.Manuals {
		if m.Encoding != "" {
			out[id] = m.Encoding
		}
	}
	return out
}

// Path picks the file: the --config flag, else LANGSPEC_CONFIG, else
// $XDG_CONFIG_HOME/langspec/langspec.json (~/.config when unset). explicit
// reports whether the user named it: only then is a missing file an error.
func Path(flag string, getenv func(string) string) (path string, explicit bool) {
	if flag != "" {
		return flag, true
	}
	if p := getenv("LANGSPEC_CONFIG"); p != "" {
		return p, true
	}
	dir := getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(dir) {
		home := getenv("HOME")
		if home == "" {
			return "", false
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "langspec", "langspec.json"), false
}

// Load reads and checks the file at path. A missing file is an empty Config
// unless explicit. Errors: apperr.InvalidArgument naming the JSON path of
// an unknown key, a wrong type or an invalid value; apperr.Unavailable when
// the file cannot be read.
func Load(path string, explicit bool) (Config, error) {
	if path == "" {
		return Config{}, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && !explicit {
		return Config{}, nil
	}
	if err != nil {
		return Config{}, apperr.Wrap(err, apperr.Unavailable, "check --config or LANGSPEC_CONFIG", "cannot read config %s", path)
	}
	return Parse(b, path)
}

// Parse checks and decodes the bytes of a config file named name.
func Parse(b []byte, name string) (Config, error) {
	// Windows editors and shells start a file with a byte order mark:
	// Notepad and PowerShell 5's Set-Content -Encoding UTF8 a UTF-8 one,
	// PowerShell 5's ">" a UTF-16 one. JSON text has none (RFC 8259 section
	// 8.1), so encoding/json would refuse the file at its first byte: read
	// it as the text it is. Line ends need nothing: "\r" is JSON white space.
	if bytes.HasPrefix(b, []byte("\xef\xbb\xbf")) || bytes.HasPrefix(b, []byte("\xff\xfe")) || bytes.HasPrefix(b, []byte("\xfe\xff")) {
		text, _, err := decode.Text(b, "")
		if err != nil {
			return Config{}, apperr.Wrap(err, apperr.InvalidArgument, "save the file as UTF-8", "%s: %v", name, err)
		}
		b = []byte(text)
	}
	var raw any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return Config{}, apperr.Wrap(err, apperr.InvalidArgument, "fix the JSON syntax", "%s: %s", name, jsonError(b, err))
	}
	if err := checkShape(raw, reflect.TypeFor[Config](), "$"); err != nil {
		return Config{}, apperr.New(apperr.InvalidArgument, "see: langspec config schema", "%s: %v", name, err)
	}
	var c Config
	if err := json.Unmarshal(b, &c); err != nil { // the shape is checked, so this cannot fail but on overflow
		return Config{}, apperr.Wrap(err, apperr.InvalidArgument, "see: langspec config schema", "%s: %v", name, err)
	}
	if err := c.validate(); err != nil {
		return Config{}, apperr.New(apperr.InvalidArgument, "see: langspec config schema", "%s: %v", name, err)
	}
	return c, nil
}

// jsonError adds the line and column to a syntax error.
func jsonError(b []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := 1 + bytes.Count(b[:se.Offset], []byte("\n"))
		col := int(se.Offset) - bytes.LastIndexByte(b[:se.Offset], '\n') - 1
		return fmt.Sprintf("line %d, column %d: %v", line, col, err)
	}
	return err.Error()
}

// checkShape walks a decoded JSON value against the Go type it will fill,
// reporting the first unknown key or wrong type with its JSON path.
func checkShape(v any, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: want an object, got %s", path, apperr.JSONKind(v))
		}
		fields := jsonFields(t)
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			f, ok := fields[k]
			if !ok {
				return fmt.Errorf("%s: unknown key %q; known keys: %s", path, k, strings.Join(slices.Sorted(maps.Keys(fields)), ", "))
			}
			if err := checkShape(obj[k], f.Type, path+"."+k); err != nil {
				return err
			}
		}
	case reflect.Slice:
		arr, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: want an array, got %s", path, apperr.JSONKind(v))
		}
		for i, e := range arr {
			if err := checkShape(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: want an object, got %s", path, apperr.JSONKind(v))
		}
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			if err := checkShape(obj[k], t.Elem(), path+"."+k); err != nil {
				return err
			}
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			return fmt.Errorf("%s: want a string, got %s", path, apperr.JSONKind(v))
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s: want true or false, got %s", path, apperr.JSONKind(v))
		}
	case reflect.Int, reflect.Int64, reflect.Float64:
		if _, ok := v.(json.Number); !ok {
			return fmt.Errorf("%s: want a number, got %s", path, apperr.JSONKind(v))
		}
	}
	return nil
}

// jsonFields maps the JSON names of t's fields to the fields; fields tagged
// "-" are not part of the file.
func jsonFields(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f
	}
	return out
}

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// validate checks values the shape cannot: required fields, known kinds and
// policies, usable patterns, no two sources with one name.
func (c Config) validate() error {
	if _, err := contextnote.NewSet(c.Context, nil); err != nil {
		return fmt.Errorf("$.context: %v", err)
	}
	seen := map[string]int{}
	kinds := ingest.Kinds()
	for i, s := range c.Sources {
		p := fmt.Sprintf("$.sources[%d]", i)
		switch {
		case !idPattern.MatchString(s.Language):
			return fmt.Errorf("%s.language %q: use lower-case letters, digits, '.', '_' or '-'", p, s.Language)
		case !idPattern.MatchString(s.Doc):
			return fmt.Errorf("%s.doc %q: use lower-case letters, digits, '.', '_' or '-'", p, s.Doc)
		case !slices.Contains(kinds, s.Kind):
			return fmt.Errorf("%s.kind %q: want one of %v", p, s.Kind, kinds)
		case s.SourcePolicy != db.FullText && s.SourcePolicy != db.ExcerptOnly:
			return fmt.Errorf("%s.source_policy %q: want %s or %s", p, s.SourcePolicy, db.FullText, db.ExcerptOnly)
		case s.CanonicalURL == "":
			return fmt.Errorf("%s.canonical_url: required, the public address sections are cited by", p)
		case s.URL == "" && len(s.Local) == 0:
			return fmt.Errorf("%s: give url or local (or both)", p)
		}
		if s.ChapterPattern != "" {
			if _, err := regexp.Compile(s.ChapterPattern); err != nil {
				return fmt.Errorf("%s.chapter_pattern: %v", p, err)
			}
		}
		key := s.Language + "/" + s.Doc
		if j, dup := seen[key]; dup {
			return fmt.Errorf("%s: %s is already defined at $.sources[%d]", p, key, j)
		}
		seen[key] = i
	}
	if j := c.Auth.JWT; j != nil {
		switch {
		case j.Issuer == "" || j.Audience == "":
			return fmt.Errorf("$.auth.jwt: issuer and audience are required: a token must name both")
		case (j.HS256Secret == "") == (j.JWKSURL == ""):
			return fmt.Errorf("$.auth.jwt: give hs256_secret or jwks_url, one of them")
		case j.HS256Secret != "" && j.SecretVar() == "":
			return fmt.Errorf("$.auth.jwt.hs256_secret: write it as ${VAR} and export VAR; the secret itself does not belong in the file")
		case j.JWKSURL != "" && !strings.HasPrefix(j.JWKSURL, "https://") && !strings.HasPrefix(j.JWKSURL, "http://"):
			return fmt.Errorf("$.auth.jwt.jwks_url %q: want an http(s) URL", j.JWKSURL)
		}
	}
	if e := c.Embeddings; e != nil {
		switch {
		case !strings.HasPrefix(e.URL, "http://") && !strings.HasPrefix(e.URL, "https://"):
			return fmt.Errorf("$.embeddings.url %q: want an http(s) URL, e.g. http://127.0.0.1:11434/v1", e.URL)
		case e.Model == "":
			return fmt.Errorf("$.embeddings.model: required, e.g. nomic-embed-text")
		case e.Dimensions < 0 || e.Dimensions > 65536:
			return fmt.Errorf("$.embeddings.dimensions %d: want 1 to 65536, or leave it out", e.Dimensions)
		case e.Batch < 0 || e.Batch > 2048:
			return fmt.Errorf("$.embeddings.batch %d: want 1 to 2048, or leave it out", e.Batch)
		}
	}
	for i, o := range c.Auth.AllowedOrigins {
		if u, err := url.Parse(o); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return fmt.Errorf("$.auth.allowed_origins[%d] %q: want scheme://host[:port], as a browser sends it", i, o)
		}
	}
	servers := slices.Sorted(maps.Keys(c.MCPServers))
	for _, name := range servers {
		if name == catalog.BuiltinServer {
			return fmt.Errorf("$.mcpServers.%s: the name is reserved for langspec's own tools; choose another", name)
		}
		if err := c.MCPServers[name].Validate(name); err != nil {
			return plain(err)
		}
	}
	if err := catalog.Validate(c.Categories, servers); err != nil {
		return plain(err)
	}
	for _, id := range slices.Sorted(maps.Keys(c.Manuals)) {
		if e := c.Manuals[id].Encoding; e != "" {
			if _, err := decode.Canonical(e); err != nil {
				return fmt.Errorf("$.manuals.%s.encoding %q: want one of %s", id, e, strings.Join(decode.Names(), ", "))
			}
		}
	}
	return plain(c.ToolMask.Validate())
}

// plain renders an apperr from another package as "$.path: message (hint)",
// the form of this file's other errors.
func plain(err error) error {
	if e, ok := errors.AsType[*apperr.Error](err); ok {
		if e.Hint != "" {
			return fmt.Errorf("$.%s (%s)", e.Message, e.Hint)
		}
		return fmt.Errorf("$.%s", e.Message)
	}
	return err
}

// JSONSchema is the schema of the file, for `langspec config schema` and
// editors.
func JSONSchema() ([]byte, error) {
	s, err := jsonschema.For[Config](nil)
	if err != nil {
		return nil, err
	}
	s.Schema = "https://json-schema.org/draft/2020-12/schema"
	s.Title = "langspec.json"
	if src := s.Properties["sources"]; src != nil && src.Items != nil {
		item := src.Items
		item.Required = []string{"language", "doc", "kind", "canonical_url", "source_policy"}
		var kinds []any
		for _, k := range ingest.Kinds() {
			kinds = append(kinds, string(k))
		}
		item.Properties["kind"].Enum = kinds
		item.Properties["source_policy"].Enum = []any{db.FullText, db.ExcerptOnly}
	}
	if ms := s.Properties["mcpServers"]; ms != nil && ms.AdditionalProperties != nil && ms.AdditionalProperties.Properties["type"] != nil {
		ms.AdditionalProperties.Properties["type"].Enum = []any{upstream.TypeStdio, upstream.TypeHTTP, upstream.TypeSSE}
	}
	// Not escaped for HTML: patterns and descriptions keep their < and >.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
