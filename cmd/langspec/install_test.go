// The race detector adds nothing to a test that runs the go command, and the
// suite's -race run is the long one: this test runs in the plain run only.

//go:build !race

package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// modulePath is the path people type after `go install`.
const modulePath = "github.com/langspec/langspec"

// TestInstallFromModuleProxy installs langspec the way README tells people
// to, `go install github.com/langspec/langspec/cmd/langspec@latest`, from a
// module proxy instead of a clone: the work tree is packed as a module zip
// under a pseudo-version into a file-based GOPROXY, beside the module
// cache for the dependencies, and the go command fetches, verifies,
// unpacks and builds it in an empty GOPATH. That is what proxy.golang.org
// and a user's go command do with a pushed commit, so it fails where they
// would: a replace or exclude directive in go.mod, a file name the module
// zip format refuses (names that differ only in case, characters outside
// its allow-list), a go:embed of a file outside the module. The binary it
// installs must then say its version and answer a search from the
// embedded Go specification, with no clone and no network.
//
// The build is CGO_ENABLED=0 with -trimpath, as the release archives are,
// so that it reuses the compiled dependencies of the release build that
// .ci/run makes before the tests; -trimpath changes no file of the module.
func TestInstallFromModuleProxy(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the install from a module proxy (it builds langspec again)")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH: it is what installs the module")
	}
	gitTool, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not on PATH: it lists the module's files and names the commit")
	}
	root := filepath.Join("..", "..")
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skipf("not a git work tree (%v): the module's files are the ones git tracks", err)
	}
	goEnv := func(name string) string {
		out, err := exec.Command(goTool, "env", name).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", name, err)
		}
		return strings.TrimSpace(string(out))
	}
	modCache := goEnv("GOMODCACHE")

	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	// go install pkg@version refuses these too, in a sentence that names
	// neither the line nor the fix.
	if m := regexp.MustCompile(`(?m)^\s*(replace|exclude)\b`).Find(gomod); m != nil {
		t.Fatalf("go.mod has a %q directive: `go install %s/cmd/langspec@latest` refuses a module whose go.mod replaces or excludes modules", strings.TrimSpace(string(m)), modulePath)
	}
	if !bytes.HasPrefix(gomod, []byte("module "+modulePath+"\n")) {
		t.Fatalf("go.mod does not start with `module %s`", modulePath)
	}

	git := func(args ...string) string {
		cmd := exec.Command(gitTool, args...)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return string(out)
	}
	// The pseudo-version of HEAD, as the go command names an untagged
	// commit: v0.0.0-<commit time, UTC>-<12 hex digits of the hash>.
	hash := strings.TrimSpace(git("rev-parse", "HEAD"))[:12]
	secs, err := strconv.ParseInt(strings.TrimSpace(git("log", "-1", "--format=%ct", "HEAD")), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	when := time.Unix(secs, 0).UTC()
	version := "v0.0.0-" + when.Format("20060102150405") + "-" + hash

	// The module's files: what git tracks, plus new files not ignored, as
	// they are in the work tree, so the test checks the change being made.
	var files []string
	for _, name := range strings.Split(git("ls-files", "-z", "--cached", "--others", "--exclude-standard"), "\x00") {
		if name == "" {
			continue
		}
		if fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(name))); err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the work tree, or a symbolic link (the zip format has none)
		}
		files = append(files, name)
	}

	proxy := t.TempDir()
	dir := filepath.Join(proxy, modulePath, "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]string{"Version": version, "Time": when.Format(time.RFC3339)})
	for name, data := range map[string][]byte{
		filepath.Join(dir, version+".info"):         info,
		filepath.Join(dir, version+".mod"):          gomod,
		filepath.Join(dir, "list"):                  nil, // no tagged version: @latest asks for …/@latest
		filepath.Join(proxy, modulePath, "@latest"): info,
	} {
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	zipPath := filepath.Join(dir, version+".zip")
	if err := writeModuleZip(zipPath, root, modulePath+"@"+version, files); err != nil {
		t.Fatal(err)
	}

	// An empty GOPATH and module cache; the go command may reach nothing
	// but the two file proxies, so a dependency missing from the module
	// cache fails here rather than coming from the network.
	home := t.TempDir()
	gopath := filepath.Join(home, "go")
	gobin := filepath.Join(home, "bin")
	env := append(os.Environ(),
		"GOPATH="+gopath,
		"GOMODCACHE="+filepath.Join(gopath, "pkg", "mod"),
		"GOBIN="+gobin,
		"GOPROXY="+fileURL(proxy)+","+fileURL(filepath.Join(modCache, "cache", "download")),
		"GOSUMDB=off", // the pseudo-version is nowhere but here; go.sum still checks every dependency
		"GONOPROXY=", "GOPRIVATE=", "GONOSUMDB=", "GOINSECURE=",
		"GOFLAGS=-modcacherw -trimpath", // -modcacherw: t.TempDir can remove the module cache
		"GOWORK=off",
		"GOTOOLCHAIN=local",
		"CGO_ENABLED=0",
		"HOME="+home,
	)
	install := exec.Command(goTool, "install", modulePath+"/cmd/langspec@latest")
	install.Dir = home // outside any module, as for a user
	install.Env = env
	start := time.Now()
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install %s/cmd/langspec@latest from the module proxy: %v\n%s", modulePath, err, out)
	}
	t.Logf("go install …@latest (%s, %d files) took %s", version, len(files), time.Since(start).Round(time.Second))

	bin := filepath.Join(gobin, "langspec")
	run := func(args ...string) string {
		cmd := exec.Command(bin, args...)
		cmd.Dir = home
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("langspec %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
		}
		return string(out)
	}
	// The go command records the pseudo-version; `langspec version` reads
	// the commit and its date from it.
	got := run("version")
	want := "langspec " + version + " (" + hash + ", " + when.Format(time.RFC3339) + ", "
	if !strings.HasPrefix(got, want) {
		t.Errorf("langspec version = %q, want it to start %q", got, want)
	}
	// The Go specification is embedded: the first search fills a new
	// database from it, with no file of the clone at hand.
	got = run("search", "slice expressions", "--limit", "1", "--db", filepath.Join(home, "langspec.db"))
	for _, w := range []string{"Slice expressions", "https://go.dev/ref/spec#Slice_expressions"} {
		if !strings.Contains(got, w) {
			t.Errorf("langspec search \"slice expressions\" lacks %q:\n%s", w, got)
		}
	}
}

// writeModuleZip packs files (slash-separated, relative to root) into a
// module zip at name: every file under prefix ("path@version/"), as the
// go command and the module proxies make it, leaving out what they leave
// out: folders with a go.mod of their own (other modules) and vendor
// folders. Names are not checked here: the go command checks them when it
// unpacks the zip, as it does a zip from proxy.golang.org.
func writeModuleZip(name, root, prefix string, files []string) (err error) {
	var nested []string
	for _, file := range files {
		if path.Base(file) == "go.mod" && file != "go.mod" {
			nested = append(nested, path.Dir(file)+"/")
		}
	}
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	zw := zip.NewWriter(f)
	for _, file := range files {
		if strings.HasPrefix(file, "vendor/") || strings.Contains(file, "/vendor/") ||
			slices.ContainsFunc(nested, func(dir string) bool { return strings.HasPrefix(file, dir) }) {
			continue
		}
		w, err := zw.Create(prefix + "/" + file)
		if err != nil {
			return err
		}
		src, err := os.Open(filepath.Join(root, filepath.FromSlash(file)))
		if err != nil {
			return err
		}
		_, err = io.Copy(w, src)
		src.Close()
		if err != nil {
			return err
		}
	}
	return zw.Close()
}

// fileURL is a file:// URL for a local folder, as GOPROXY takes it.
func fileURL(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	return "file://" + filepath.ToSlash(abs)
}
