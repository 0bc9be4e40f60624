// Package upstreamtest finds the reference upstream server the end-to-end
// tests run against: @modelcontextprotocol/server-everything, pinned. It is
// imported by tests only.
package upstreamtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// EverythingVersion is the @modelcontextprotocol/server-everything release
// the end-to-end tests run; .ci/run installs the same one.
const EverythingVersion = "2026.8.31"

// Offline reports LANGSPEC_OFFLINE set (to anything but "" or "0"): no
// test step reaches a network, and what would need one skips saying so.
func Offline() bool {
	v := os.Getenv("LANGSPEC_OFFLINE")
	return v != "" && v != "0"
}

// Everything returns how to start the reference server: the copy .ci/run
// installed (LANGSPEC_EVERYTHING), else the copy in the user's cache
// folder, else — unless offline — one installed there now with npm,
// pinned, once per test process and before any test times anything. When
// none can be had, t skips, saying what to install.
func Everything(t testing.TB) (command string, args []string) {
	t.Helper()
	if p := os.Getenv("LANGSPEC_EVERYTHING"); p != "" {
		if _, err := os.Stat(p); err == nil {
			return p, []string{"stdio"}
		}
	}
	found.once.Do(find)
	if found.skip != "" {
		t.Skip(found.skip)
	}
	return found.path, []string{"stdio"}
}

// found is the copy Everything found or installed in this process.
var found struct {
	once sync.Once
	path string // its mcp-server-everything
	skip string // why the tests that need it skip
}

// CacheDir is where a test run keeps its copy: the user cache, kept
// between runs (npm skips what is there).
func CacheDir() string {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	return filepath.Join(cache, "langspec-test", "server-everything-"+EverythingVersion)
}

func find() {
	const why = "skipping the end-to-end tests against @modelcontextprotocol/server-everything: "
	dir := CacheDir()
	bin := filepath.Join(dir, "node_modules", ".bin", "mcp-server-everything")
	if _, err := os.Stat(bin); err == nil {
		found.path = bin
		return
	}
	if Offline() {
		found.skip = why + "LANGSPEC_OFFLINE is set and no copy is cached in " + dir
		return
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		found.skip = why + "npm is not installed (install Node.js, or set LANGSPEC_EVERYTHING to its mcp-server-everything; .ci/run does)"
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	fmt.Fprintf(os.Stderr, "installing @modelcontextprotocol/server-everything@%s into %s (about 32 MB, once; LANGSPEC_OFFLINE=1 skips)\n", EverythingVersion, dir)
	out, err := exec.CommandContext(ctx, npm, "install", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error",
		"@modelcontextprotocol/server-everything@"+EverythingVersion).CombinedOutput()
	if _, statErr := os.Stat(bin); err != nil || statErr != nil {
		found.skip = fmt.Sprintf("%snpm install failed (%v): %.500s", why, err, out)
		return
	}
	found.path = bin
}
