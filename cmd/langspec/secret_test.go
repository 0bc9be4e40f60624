package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runIn is run with stdin.
func runIn(t *testing.T, env map[string]string, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	io := &ioStreams{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut}
	code = Main(context.Background(), args, io, func(k string) string { return env[k] })
	return code, out.String(), errOut.String()
}

// TestSecretCommands: set from stdin, list without values, delete, rotate
// the key; the value is never printed and never in the database file; the
// key file is made with 0600.
func TestSecretCommands(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "s.db")
	env := map[string]string{"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, "conf")}
	const value = "sk-live-0123456789abcdef"
	all := func(args ...string) []string { return append([]string{"--db", dbPath}, args...) }
	if code, out, errOut := runIn(t, env, value+"\n", all("secret", "set", "OPENAI_KEY")...); code != 0 || strings.Contains(out+errOut, value) {
		t.Fatalf("set: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := runIn(t, env, "alice's", all("secret", "set", "OPENAI_KEY", "--subject", "alice")...); code != 0 {
		t.Fatalf("set --subject: %s", errOut)
	}
	keyFile := filepath.Join(dir, "conf", "langspec", "secret.key")
	if fi, err := os.Stat(keyFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file: %v %v", fi, err)
	}
	code, out, _ := run(t, env, all("secret", "list", "--json")...)
	var list []map[string]string
	if err := json.Unmarshal([]byte(out), &list); code != 0 || err != nil || len(list) != 2 || strings.Contains(out, value) || list[1]["subject"] != "alice" {
		t.Errorf("list --json: %s (%v)", out, err)
	}
	for _, tc := range []struct {
		args  []string
		stdin string
		code  int
		want  string
	}{
		{[]string{"secret", "set", "bad name"}, "x", 2, "not a secret name"},
		{[]string{"secret", "set", "EMPTY"}, "", 2, "is empty"},
		{[]string{"secret", "set", "X", "--subject", "../x"}, "x", 2, `"../x" is not a subject`},
		{[]string{"secret", "set", "X", "--subject", "jwt:bob"}, "x", 2, "no identity provider is configured"},
		{[]string{"secret", "delete", "NOPE"}, "", 1, `no shared secret named "NOPE"`},
		{[]string{"secret", "delete", "OPENAI_KEY", "--subject", "alice"}, "", 0, "deleted for alice"},
		{[]string{"secret", "rotate-key"}, "", 0, "1 secrets re-encrypted"},
	} {
		code, _, errOut := runIn(t, env, tc.stdin, all(tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: %d %q; want %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
	// With the key in the environment, rotation needs the new one there too.
	envKey := map[string]string{"HOME": dir, "LANGSPEC_SECRET_KEY": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="}
	if code, _, errOut := runIn(t, envKey, "x", all("secret", "set", "OTHER")...); code != 0 {
		t.Fatal(errOut)
	}
	if code, _, errOut := run(t, envKey, all("secret", "rotate-key")...); code != 1 && code != 2 || !strings.Contains(errOut, "LANGSPEC_SECRET_KEY_NEW") {
		t.Errorf("rotate-key without the new key: %d %q", code, errOut)
	}
	raw, _ := os.ReadFile(dbPath)
	wal, _ := os.ReadFile(dbPath + "-wal")
	if bytes.Contains(raw, []byte(value)) || bytes.Contains(wal, []byte(value)) {
		t.Error("the value is in the database file")
	}
}
