package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
)

// TestToolchainVersions: a rustup toolchain's Reference is stored under its
// release, a nightly or beta under its channel too, and cited where the
// site publishes that channel.
func TestToolchainVersions(t *testing.T) {
	for _, tc := range []struct {
		manifest, version, cited string
	}{
		{"[pkg.rustc]\nversion = \"1.95.0 (59807616e 2026-04-14)\"\n", "1.95.0", "https://doc.rust-lang.org/1.95.0/reference/x.html"},
		{"[pkg.rustc]\nversion = \"1.97.0-nightly (e50aa6fba 2026-05-19)\"\n", "1.97.0-nightly", "https://doc.rust-lang.org/nightly/reference/x.html"},
		{"[pkg.rustc]\nversion = \"1.96.0-beta.3 (abc 2026-05-01)\"\n", "1.96.0-beta.3", "https://doc.rust-lang.org/beta/reference/x.html"},
		{"[pkg.cargo]\nversion = \"1.95.0\"\n", "", ""},
	} {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "lib", "rustlib"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "lib", "rustlib", "multirust-channel-manifest.toml"), []byte(tc.manifest), 0o644); err != nil {
			t.Fatal(err)
		}
		v := rustToolchainVersion(dir)
		if v != tc.version {
			t.Errorf("%q: version %q, want %q", tc.manifest, v, tc.version)
			continue
		}
		if v == "" {
			continue
		}
		secs := []db.Section{{URL: "https://doc.rust-lang.org/" + VersionPlaceholder + "/reference/x.html"}}
		citeVersion(secs, v, true)
		if secs[0].URL != tc.cited {
			t.Errorf("%s cited as %s, want %s", v, secs[0].URL, tc.cited)
		}
	}
}

func TestRustupToolchain(t *testing.T) {
	home := t.TempDir()
	t.Setenv("RUSTUP_HOME", home)
	for _, name := range []string{"stable-x86_64-unknown-linux-gnu", "nightly-x86_64-unknown-linux-gnu", "1.80.0-x86_64-unknown-linux-gnu"} {
		if err := os.MkdirAll(filepath.Join(home, "toolchains", name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]string{"nightly": "nightly-x86_64-unknown-linux-gnu", "1.80.0": "1.80.0-x86_64-unknown-linux-gnu",
		"stable-x86_64-unknown-linux-gnu": "stable-x86_64-unknown-linux-gnu"} {
		if got, err := RustupToolchain(name); err != nil || filepath.Base(got) != want {
			t.Errorf("RustupToolchain(%q) = %s, %v; want %s", name, got, err, want)
		}
	}
	for _, bad := range []string{"1.70.0", "*", "../x", ""} {
		_, err := RustupToolchain(bad)
		if apperr.CodeOf(err) != apperr.NotFound {
			t.Errorf("RustupToolchain(%q) = %v; want not_found", bad, err)
		}
	}
	if _, err := RustupToolchain("beta"); err == nil || !strings.Contains(err.Error(), "installed: 1.80.0-x86_64-unknown-linux-gnu, nightly-x86_64-unknown-linux-gnu, stable-x86_64-unknown-linux-gnu") {
		t.Errorf("the error names what is installed: %v", err)
	}
}
