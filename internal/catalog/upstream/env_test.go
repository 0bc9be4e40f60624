package upstream

import (
	"context"
	"encoding/json"
	"github.com/langspec/langspec/internal/catalog/upstream/upstreamtest"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestChildEnvironment: a stdio child sees PATH and the like and its env
// entries, not the rest of langspec's environment, unless its config sets
// inheritEnv. Issue 13: every child saw every token langspec had.
func TestChildEnvironment(t *testing.T) {
	t.Setenv("LANGSPEC_TEST_SECRET", "parent-only-value")
	t.Setenv("LANG", "C.UTF-8")
	tests := []struct {
		name    string
		inherit bool
		want    []string
		notWant []string
	}{
		{"minimal", false, []string{"LANG=C.UTF-8", "FAKE_TOKEN=given"}, []string{"LANGSPEC_TEST_SECRET="}},
		{"inherited", true, []string{"LANG=C.UTF-8", "FAKE_TOKEN=given", "LANGSPEC_TEST_SECRET=parent-only-value"}, nil},
	}
	m, _ := newTestManager(t, Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := fakeStdio("serve")
			cfg.Env["FAKE_TOKEN"] = "given"
			cfg.InheritEnv = tt.inherit
			if err := m.Add(tt.name, cfg); err != nil {
				t.Fatal(err)
			}
			env := echo(t, m, tt.name, "env").Env
			for _, w := range tt.want {
				if !slices.Contains(env, w) {
					t.Errorf("the child's environment lacks %s", w)
				}
			}
			for _, kv := range env {
				for _, nw := range tt.notWant {
					if strings.HasPrefix(kv, nw) {
						t.Errorf("the child's environment holds %s", kv)
					}
				}
				if name, _, _ := strings.Cut(kv, "="); !tt.inherit && !slices.Contains(baseEnv(runtime.GOOS), name) && cfg.Env[name] == "" {
					t.Errorf("the child got %s, which is neither in baseEnv nor in its env", name)
				}
			}
		})
	}
}

// TestChildEnvironmentEverything: the same through the reference server's
// get-env tool, which prints its environment.
func TestChildEnvironmentEverything(t *testing.T) {
	p, args := upstreamtest.Everything(t)
	t.Setenv("LANGSPEC_TEST_SECRET", "parent-only-value")
	m, _ := newTestManager(t, Options{})
	cfg := ServerConfig{Description: "reference server", Command: p, Args: args, Env: map[string]string{"GIVEN": "given-value"}}
	if err := m.Add("everything", cfg); err != nil {
		t.Fatal(err)
	}
	res, err := m.Call(context.Background(), "everything", "get-env", nil)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	b, _ := json.Marshal(res.Content)
	text.Write(b)
	if s := text.String(); strings.Contains(s, "LANGSPEC_TEST_SECRET") || !strings.Contains(s, "given-value") || !strings.Contains(s, "PATH") {
		t.Errorf("get-env = %.2000s", s)
	}
}

// TestChildEnvTable: childEnv per platform, without starting anything.
func TestChildEnvTable(t *testing.T) {
	parent := map[string]string{"PATH": "/bin", "HOME": "/h", "SYSTEMROOT": `C:\Windows`, "APPDATA": `C:\a`, "GH_TOKEN": "t", "TMPDIR": ""}
	getenv := func(k string) string { return parent[k] }
	environ := func() []string { return []string{"PATH=/bin", "GH_TOKEN=t"} }
	tests := []struct {
		name string
		goos string
		cfg  ServerConfig
		want []string
	}{
		{"unix", "linux", ServerConfig{Env: map[string]string{"B": "2", "A": "1"}}, []string{"PATH=/bin", "HOME=/h", "A=1", "B=2"}},
		{"windows", "windows", ServerConfig{}, []string{"PATH=/bin", "HOME=/h", "SYSTEMROOT=C:\\Windows", "APPDATA=C:\\a"}},
		{"env overrides", "linux", ServerConfig{Env: map[string]string{"PATH": "/opt"}}, []string{"PATH=/bin", "HOME=/h", "PATH=/opt"}},
		{"inherited", "linux", ServerConfig{InheritEnv: true, Env: map[string]string{"A": "1"}}, []string{"PATH=/bin", "GH_TOKEN=t", "A=1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := childEnv(tt.cfg, tt.goos, getenv, environ); !slices.Equal(got, tt.want) {
				t.Errorf("childEnv = %q, want %q", got, tt.want)
			}
		})
	}
}
