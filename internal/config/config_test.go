package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/ingest"
)

const goodSource = `{"language": "kotlin", "doc": "spec", "display_name": "Kotlin spec", "kind": "html",
	"url": "https://kotlinlang.org/spec/", "entry": "index.html", "canonical_url": "https://kotlinlang.org/spec/",
	"source_policy": "full_text"}`

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		json string
		want string // substring of the error; "" for success
	}{
		{"empty object", `{}`, ""},
		{"a source", `{"sources": [` + goodSource + `]}`, ""},
		{"schema key allowed", `{"$schema": "./langspec.schema.json"}`, ""},
		{"jwt with a secret variable", `{"auth": {"jwt": {"issuer": "https://id.example", "audience": "langspec", "hs256_secret": "${JWT_SECRET}"}}}`, ""},
		{"jwt with a jwks url", `{"auth": {"jwt": {"issuer": "https://id.example", "audience": "langspec", "jwks_url": "https://id.example/jwks.json"}, "subjects": {"alice": {"tools": ["search_spec"]}}}}`, ""},
		{"jwt secret in the file", `{"auth": {"jwt": {"issuer": "i", "audience": "a", "hs256_secret": "hunter2"}}}`, "the secret itself does not belong in the file"},
		{"jwt without audience", `{"auth": {"jwt": {"issuer": "i", "jwks_url": "https://x/j"}}}`, "issuer and audience are required"},
		{"jwt with both keys", `{"auth": {"jwt": {"issuer": "i", "audience": "a", "jwks_url": "https://x/j", "hs256_secret": "${S}"}}}`, "one of them"},
		{"embeddings", `{"embeddings": {"url": "http://127.0.0.1:11434/v1", "model": "nomic-embed-text", "api_key": "${OPENAI_API_KEY}", "dimensions": 768, "batch": 64}}`, ""},
		{"embeddings without a model", `{"embeddings": {"url": "http://127.0.0.1:11434/v1"}}`, "$.embeddings.model: required"},
		{"embeddings url not http", `{"embeddings": {"url": "127.0.0.1:11434", "model": "m"}}`, "want an http(s) URL"},
		{"origin with a path", `{"auth": {"allowed_origins": ["http://localhost:6274/app"]}}`, "want scheme://host[:port]"},
		{"syntax error with position", "{\n  \"sources\": [,]\n}", "line 2, column"},
		{"unknown top-level key", `{"source": []}`, `$: unknown key "source"; known keys: $schema, auth, categories, context, embeddings, manuals, mcpServers, sources, toolMask`},
		{"unknown nested key", `{"sources": [{"language": "x", "kindd": "html"}]}`, `$.sources[0]: unknown key "kindd"`},
		{"wrong type", `{"sources": [{"language": 3}]}`, `$.sources[0].language: want a string, got a number`},
		{"array expected", `{"sources": {"go": {}}}`, `$.sources: want an array, got an object`},
		{"list of strings", `{"sources": [{"local": "x"}]}`, `$.sources[0].local: want an array, got a string`},
		{"embedded is not configurable", `{"sources": [{"Embedded": "x"}]}`, `unknown key "Embedded"`},
		{"bad kind", `{"sources": [` + strings.Replace(goodSource, `"html"`, `"pdf"`, 1) + `]}`, `$.sources[0].kind "pdf": want one of`},
		{"bad policy", `{"sources": [` + strings.Replace(goodSource, `"full_text"`, `"all"`, 1) + `]}`, `$.sources[0].source_policy "all"`},
		{"bad id", `{"sources": [` + strings.Replace(goodSource, `"kotlin"`, `"Kot lin"`, 1) + `]}`, `$.sources[0].language "Kot lin"`},
		{"bad pattern", `{"sources": [` + strings.Replace(goodSource, `"entry"`, `"chapter_pattern": "(", "entry"`, 1) + `]}`, `$.sources[0].chapter_pattern`},
		{"twice", `{"sources": [` + goodSource + `, ` + goodSource + `]}`, `$.sources[1]: kotlin/spec is already defined at $.sources[0]`},
		{"a server and a category", `{"mcpServers": {"fs": {"description": "files", "command": "npx", "args": ["-y", "x"]}},
			"categories": {"files": {"description": "files", "server": "fs", "tools": {"includeNames": ["read_file"],
			"overrides": {"read_file": {"enabled": false}}}}}, "toolMask": {"deny": ["*/execute_shell_command"]}}`, ""},
		{"server without command", `{"mcpServers": {"fs": {"description": "files"}}}`, `$.mcpServers.fs.command: missing for a stdio server`},
		{"server of unknown type", `{"mcpServers": {"fs": {"description": "files", "type": "grpc", "command": "x"}}}`, `$.mcpServers.fs.type`},
		{"reserved server name", `{"mcpServers": {"langspec": {"description": "x", "command": "x"}}}`, `$.mcpServers.langspec: the name is reserved`},
		{"category over an unknown server", `{"categories": {"fs": {"description": "f", "server": "serena", "tools": {"includeNames": ["a"]}}}}`, `$.categories.fs.server: unknown server "serena"`},
		{"enabled must be boolean", `{"categories": {"fs": {"description": "f", "server": "langspec", "tools": {"includeNames": ["a"], "overrides": {"a": {"enabled": "no"}}}}}}`, `$.categories.fs.tools.overrides.a.enabled: want true or false`},
		{"category key typo", `{"categories": {"fs": {"description": "f", "server": "langspec", "tools": {"include": ["a"]}}}}`, `$.categories.fs.tools: unknown key "include"`},
		{"mask glob without category", `{"toolMask": {"deny": ["execute_shell_command"]}}`, `$.toolMask.deny[0]: bad pattern`},
		{"a manual's encoding", `{"manuals": {"kasai-hoken": {"encoding": "Shift_JIS"}}}`, ""},
		{"context notes", `{"context": {"langspec://go/spec": {"text": "the version we build with"}, "langspec://manuals/kasai-hoken/参考/": {"text": "自動車保険", "aside": true}}}`, ""},
		{"context note on no target", `{"context": {"go/spec": {"text": "x"}}}`, `$.context: invalid_argument: context "go/spec": "go/spec" is not a context target`},
		{"empty context note", `{"context": {"langspec://go": {"text": " "}}}`, "the note is empty"},
		{"context note key typo", `{"context": {"langspec://go": {"txt": "x"}}}`, `$.context.langspec://go: unknown key "txt"`},
		{"an unknown encoding", `{"manuals": {"m": {"encoding": "klingon"}}}`, `$.manuals.m.encoding "klingon": want one of utf-8`},
		{"manual key typo", `{"manuals": {"m": {"encodng": "cp932"}}}`, `$.manuals.m: unknown key "encodng"`},
		{"no location", `{"sources": [` + strings.Replace(goodSource, `"url": "https://kotlinlang.org/spec/",`, ``, 1) + `]}`, `give url or local`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(tt.json), "langspec.json")
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error; got %+v", c)
			}
			if apperr.CodeOf(err) != apperr.InvalidArgument || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want invalid_argument with %q", err, tt.want)
			}
		})
	}
}

func TestLoadAndPath(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"HOME": dir}
	getenv := func(k string) string { return env[k] }
	p, explicit := Path("", getenv)
	if p != filepath.Join(dir, ".config", "langspec", "langspec.json") || explicit {
		t.Errorf("default path %s %v", p, explicit)
	}
	if c, err := Load(p, explicit); err != nil || len(c.Sources) != 0 {
		t.Errorf("missing default file: %+v %v", c, err)
	}
	env["LANGSPEC_CONFIG"] = filepath.Join(dir, "named.json")
	p, explicit = Path("", getenv)
	if _, err := Load(p, explicit); apperr.CodeOf(err) != apperr.Unavailable {
		t.Errorf("missing named file: %v", err)
	}
	os.WriteFile(p, []byte(`{"sources": [`+goodSource+`]}`), 0o644)
	c, err := Load(p, explicit)
	if err != nil || len(c.Sources) != 1 || c.Sources[0].Kind != ingest.KindHTML {
		t.Errorf("load: %+v %v", c, err)
	}
	if p, _ := Path("flag.json", getenv); p != "flag.json" {
		t.Errorf("flag loses to env: %s", p)
	}
}

// The published schema accepts what Parse accepts and names the kinds.
func TestJSONSchema(t *testing.T) {
	b, err := JSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"additionalProperties": false`, `"mdbook"`, `"excerpt_only"`, `"canonical_url"`, `"required"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("schema lacks %s", want)
		}
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	for doc, valid := range map[string]bool{
		`{"sources": [` + goodSource + `]}`:                                        true,
		`{"sources": [{"language": "x"}]}`:                                         false, // required fields missing
		`{"sources": [` + strings.Replace(goodSource, `"html"`, `"pdf"`, 1) + `]}`: false,
		`{"source": []}`: false,
	} {
		var instance any
		json.Unmarshal([]byte(doc), &instance)
		if err := resolved.Validate(instance); (err == nil) != valid {
			t.Errorf("schema on %.60s: valid=%v, err %v", doc, valid, err)
		}
	}
}

// TestCategoriesExample parses the example configuration the README shows.
func TestCategoriesExample(t *testing.T) {
	b, err := os.ReadFile("../../fixtures/config/langspec.categories.json")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse(b, "langspec.categories.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.MCPServers) != 2 || len(c.Categories) != 9 || c.Categories["session"].Enabled("execute_shell_command") {
		t.Fatalf("parsed %d servers, %d categories; execute_shell_command enabled: %v", len(c.MCPServers), len(c.Categories), c.Categories["session"].Enabled("execute_shell_command"))
	}
	page, err := os.ReadFile("../../docs/categories.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), string(b)) {
		t.Error("docs/categories.md does not show fixtures/config/langspec.categories.json as it is")
	}
}
