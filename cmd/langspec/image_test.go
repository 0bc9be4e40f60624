package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"debug/elf"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestContainerImage reads back the team server's image that .ci/image
// builds with ko (a tarball in `docker save` form, named by
// LANGSPEC_IMAGE): what a container runtime will run, and as whom, and the
// binary it holds. It cannot run the image itself (no container runtime
// here); it runs the binary taken out of the image's layers instead.
func TestContainerImage(t *testing.T) {
	tarball := os.Getenv("LANGSPEC_IMAGE")
	if tarball == "" {
		t.Skip("LANGSPEC_IMAGE is not set: build the image with .ci/image OUT.tar (needs ko) and name OUT.tar")
	}
	files := readTar(t, tarball, false)
	var manifest []struct {
		Config string
		Layers []string
	}
	if err := json.Unmarshal(files["manifest.json"], &manifest); err != nil || len(manifest) != 1 {
		t.Fatalf("manifest.json: %v (%d images), want one image", err, len(manifest))
	}
	var config struct {
		OS           string `json:"os"`
		Architecture string `json:"architecture"`
		Config       struct {
			Entrypoint []string
			Cmd        []string
			User       string
			Env        []string
		} `json:"config"`
	}
	if err := json.Unmarshal(files[manifest[0].Config], &config); err != nil {
		t.Fatalf("image config: %v", err)
	}
	c := config.Config
	// The deployment gives the arguments (serve --http …): the image runs
	// the binary and nothing else, no shell in between.
	if !slices.Equal(c.Entrypoint, []string{"/ko-app/langspec"}) || len(c.Cmd) != 0 {
		t.Errorf("entrypoint %q, cmd %q; want the binary, /ko-app/langspec, and no default arguments", c.Entrypoint, c.Cmd)
	}
	// Not root, by number, so that Kubernetes' runAsNonRoot can check it
	// without an /etc/passwd.
	if c.User != "65532:65532" {
		t.Errorf("user %q, want 65532:65532 (nonroot)", c.User)
	}
	if config.OS != "linux" {
		t.Errorf("os %q, want linux", config.OS)
	}

	// The filesystem the layers make, later layers over earlier ones.
	fsys := map[string][]byte{}
	for _, layer := range manifest[0].Layers {
		for name, data := range readTar(t, layer, true, files[layer]) {
			fsys[name] = data
		}
	}
	bin, ok := fsys["ko-app/langspec"]
	if !ok {
		t.Fatalf("the image has no /ko-app/langspec; it has %d files", len(fsys))
	}
	// Static: the base has no C library, so a dynamically linked binary
	// would not even start.
	ef, err := elf.NewFile(bytes.NewReader(bin))
	if err != nil {
		t.Fatalf("/ko-app/langspec: %v", err)
	}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("/ko-app/langspec is dynamically linked (it has an ELF interpreter); build with CGO_ENABLED=0")
		}
	}
	if config.Architecture != runtime.GOARCH {
		t.Logf("the image is for %s, this machine %s: the binary is not run", config.Architecture, runtime.GOARCH)
		return
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "langspec")
	if err := os.WriteFile(path, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		cmd := exec.Command(path, args...)
		cmd.Env = []string{"HOME=" + dir}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("langspec %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	// Stamped by .ko.yaml's ldflags with the commit it was built from.
	if out := run("version"); !strings.HasPrefix(out, "langspec v") || !strings.Contains(out, ", 20") {
		t.Errorf("langspec version = %q, want a version, a commit and its date", out)
	}
	if out := run("search", "slice expressions", "--limit", "1", "--db", filepath.Join(dir, "langspec.db")); !strings.Contains(out, "https://go.dev/ref/spec#Slice_expressions") {
		t.Errorf("the image's binary finds no Go spec section:\n%s", out)
	}
}

// readTar returns the regular files of a tar archive, by name without a
// leading "/": the file name, or when data is given, those bytes
// (gzip-compressed when gz).
func readTar(t *testing.T, name string, gz bool, data ...[]byte) map[string][]byte {
	t.Helper()
	var r io.Reader
	if len(data) > 0 {
		r = bytes.NewReader(data[0])
	} else {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r = f
	}
	if gz {
		zr, err := gzip.NewReader(r)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r = zr
	}
	out := map[string][]byte{}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatalf("%s: %s: %v", name, h.Name, err)
		}
		out[strings.TrimPrefix(h.Name, "/")] = b
	}
}
