package ingest

import (
	"context"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
)

// LocationKind says how a document is read.
type LocationKind string

const (
	AtFolder   LocationKind = "folder"   // a local folder; Entry is inside it
	AtURL      LocationKind = "url"      // a base URL; Entry is relative to it
	AtEmbedded LocationKind = "embedded" // compiled into langspec
)

// Location is one place a document can be read from.
type Location struct {
	Kind  LocationKind `json:"kind"`
	Base  string       `json:"base"`  // folder path or base URL (ending in "/")
	Entry string       `json:"entry"` // the page to start from, relative to Base
	// Version is known from the place itself: the rustup toolchain the
	// Reference came with. "" otherwise.
	Version string `json:"version,omitempty"`
}

// String is the entry's full location, for messages and source_url.
func (l Location) String() string {
	switch l.Kind {
	case AtFolder:
		return filepath.Join(l.Base, filepath.FromSlash(l.Entry))
	case AtEmbedded:
		return "embedded:" + path.Join(l.Base, l.Entry)
	}
	return l.Base + l.Entry
}

// Env is what local sources are found with.
type Env struct {
	Goroot string // GOROOT of the local Go toolchain, "" when none
	// RustupToolchain is the folder of the active rustup toolchain
	// (rustc --print sysroot), "" when none.
	RustupToolchain string
}

// DetectEnv asks the local toolchains where they live. Each probe is
// bounded, and a missing tool just leaves its field empty.
func DetectEnv(ctx context.Context) Env {
	return Env{Goroot: Goroot(ctx), RustupToolchain: rustSysroot(ctx)}
}

func rustSysroot(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "rustc", "--print", "sysroot").Output()
	if err == nil {
		return strings.TrimSpace(string(out))
	}
	// No rustc on PATH: rustup's default place, stable first.
	home := os.Getenv("RUSTUP_HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		home = filepath.Join(h, ".rustup")
	}
	matches, _ := filepath.Glob(filepath.Join(home, "toolchains", "stable-*"))
	if len(matches) == 0 {
		matches, _ = filepath.Glob(filepath.Join(home, "toolchains", "*"))
	}
	if len(matches) == 0 {
		return ""
	}
	return matches[0]
}

// RustupToolchain finds the folder of rustup toolchain name (stable,
// nightly, 1.80.0, or a full name such as nightly-x86_64-unknown-linux-gnu)
// under RUSTUP_HOME (default ~/.rustup). Errors: apperr.NotFound naming the
// toolchains installed and how to add one.
func RustupToolchain(name string) (string, error) {
	home := os.Getenv("RUSTUP_HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", apperr.Wrap(err, apperr.NotFound, "set RUSTUP_HOME", "cannot find rustup's folder")
		}
		home = filepath.Join(h, ".rustup")
	}
	dir := filepath.Join(home, "toolchains")
	if name != "" && !strings.ContainsAny(name, `/\*?[`) && name != "." && name != ".." {
		for _, p := range []string{filepath.Join(dir, name), filepath.Join(dir, name+"-*")} {
			if m, _ := filepath.Glob(p); len(m) > 0 {
				return m[0], nil
			}
		}
	}
	var installed []string
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.IsDir() {
			installed = append(installed, e.Name())
		}
	}
	hint := "install it with its docs: rustup toolchain install " + name + " --component rust-docs"
	if len(installed) > 0 {
		hint = "installed: " + strings.Join(installed, ", ") + "; or " + hint
	}
	return "", apperr.New(apperr.NotFound, hint, "no rustup toolchain %q in %s", name, dir)
}

// FromEmbedded is the --from value that picks the copy built into langspec.
const FromEmbedded = "embedded"

// Candidates lists where src can be read from, in the order to try: from
// alone when it is given (a file, folder or URL, or FromEmbedded); otherwise
// each local copy that exists, then the network, then a built-in copy.
func Candidates(src SourceSpec, from string, env Env) ([]Location, error) {
	if from == FromEmbedded {
		if src.Embedded == "" {
			return nil, apperr.New(apperr.InvalidArgument, "pass a file, folder or URL", "%s/%s has no built-in copy", src.Language, src.Doc)
		}
		return []Location{embeddedAt(src.Embedded)}, nil
	}
	if from != "" {
		loc, err := locationOf(from, src)
		if err != nil {
			return nil, err
		}
		return []Location{loc}, nil
	}
	var out []Location
	for _, l := range src.Local {
		p, ok := expand(l, env)
		if !ok {
			continue
		}
		if strings.ContainsAny(p, "*?[") {
			// A pattern picks the last match: python3.13 over python3.11.
			matches, _ := filepath.Glob(p)
			if len(matches) == 0 {
				continue
			}
			slices.SortFunc(matches, db.CompareVersionStrings)
			p = matches[len(matches)-1]
		}
		st, err := os.Stat(p)
		if err != nil {
			continue
		}
		loc := Location{Kind: AtFolder, Base: p, Entry: src.Entry}
		if !st.IsDir() {
			loc.Base, loc.Entry = filepath.Dir(p), filepath.Base(p)
		} else if _, err := os.Stat(filepath.Join(p, filepath.FromSlash(src.Entry))); err != nil {
			continue // a folder without the entry page is not a copy
		}
		if strings.Contains(l, "${RUSTUP_TOOLCHAIN}") {
			loc.Version = rustToolchainVersion(env.RustupToolchain)
		}
		out = append(out, loc)
	}
	if src.URL != "" {
		loc, err := locationOf(src.URL, src)
		if err != nil {
			return nil, err
		}
		out = append(out, loc)
	}
	if src.Embedded != "" {
		out = append(out, embeddedAt(src.Embedded))
	}
	if len(out) == 0 {
		return nil, apperr.New(apperr.NotFound, "pass --from PATH|URL",
			"no local copy of %s/%s found and it has no URL", src.Language, src.Doc)
	}
	return out, nil
}

// locationOf reads a --from argument or a source URL: an http(s) URL, a
// file, or a folder holding the entry (a markdown folder needs none: it is
// read whole).
func locationOf(s string, src SourceSpec) (Location, error) {
	entry := src.Entry
	if strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") {
		if strings.HasSuffix(s, "/") {
			return Location{Kind: AtURL, Base: s, Entry: entry}, nil
		}
		i := strings.LastIndex(s, "/")
		return Location{Kind: AtURL, Base: s[:i+1], Entry: s[i+1:]}, nil
	}
	st, err := os.Stat(s)
	if err != nil {
		return Location{}, apperr.Wrap(err, apperr.Unavailable, "check the path, or pass a URL", "cannot read %s", s)
	}
	if dir, ok := docInBuild(s, st, src); ok {
		return Location{Kind: AtFolder, Base: dir, Entry: entry}, nil
	}
	if st.IsDir() {
		if src.Kind == KindMarkdown {
			return Location{Kind: AtFolder, Base: s}, nil
		}
		if entry == "" {
			return Location{}, apperr.New(apperr.InvalidArgument, "pass the file itself", "%s is a folder", s)
		}
		return Location{Kind: AtFolder, Base: s, Entry: entry}, nil
	}
	return Location{Kind: AtFolder, Base: filepath.Dir(s), Entry: filepath.Base(s)}, nil
}

// docInBuild finds a Sphinx document inside a whole Sphinx build: when s
// is the build's folder, or its entry page (index.html), and the build has
// a folder named after the document holding its own entry page (Debian's
// python3-doc installs /usr/share/doc/python3/html, whose reference/ is the
// Language Reference), that folder is the document.
func docInBuild(s string, st os.FileInfo, src SourceSpec) (string, bool) {
	if src.Kind != KindSphinx || src.Doc == "" || src.Entry == "" {
		return "", false
	}
	build := s
	if !st.IsDir() {
		if filepath.Base(s) != src.Entry {
			return "", false
		}
		build = filepath.Dir(s)
	}
	dir := filepath.Join(build, src.Doc)
	if fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(src.Entry))); err != nil || fi.IsDir() {
		return "", false
	}
	return dir, true
}

// expand replaces ${GOROOT} and ${RUSTUP_TOOLCHAIN}; it reports false when
// the toolchain named is not installed.
func expand(p string, env Env) (string, bool) {
	for name, val := range map[string]string{"${GOROOT}": env.Goroot, "${RUSTUP_TOOLCHAIN}": env.RustupToolchain} {
		if strings.Contains(p, name) {
			if val == "" {
				return "", false
			}
			p = strings.ReplaceAll(p, name, val)
		}
	}
	return filepath.FromSlash(p), true
}

var rustcVersionRE = regexp.MustCompile(`(?m)^\[pkg\.rustc\]\s*\nversion = "(\d+\.\d+\.\d+(?:-(?:nightly|beta(?:\.\d+)?))?)`)

// rustToolchainVersion is the rustc version of a rustup toolchain, from its
// channel manifest: the Reference it ships is the one for that release.
// A nightly or beta keeps its channel (1.97.0-nightly), so it never takes
// the place of the release of that number.
func rustToolchainVersion(toolchain string) string {
	b, err := os.ReadFile(filepath.Join(toolchain, "lib", "rustlib", "multirust-channel-manifest.toml"))
	if err != nil {
		return ""
	}
	if m := rustcVersionRE.FindSubmatch(b); m != nil {
		return string(m[1])
	}
	return ""
}

func embeddedAt(name string) Location {
	return Location{Kind: AtEmbedded, Base: path.Dir(name), Entry: path.Base(name)}
}
