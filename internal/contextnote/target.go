// Package contextnote keeps context notes: a description a user attaches
// to a specification document, a manual, or a folder or file of a manual,
// returned once with every answer whose hits it covers ("this folder is
// the car-insurance comparison, not the fire-insurance rules"). Notes are
// state (../shared/ARCHITECTURE.md): they live in the user's state folder
// and in the config file, never in the index, so a new index keeps them and
// a note never needs a new index.
//
// A note is the user's text and stays data: it is returned beside hits,
// and an aside note moves the candidates it covers after the others in
// manual_find; it never changes what a tool does otherwise.
package contextnote

import (
	"net/url"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/langspec/langspec/internal/apperr"
)

// Scheme starts every target's canonical form, as it starts the
// resources' URIs (internal/resources): langspec://go/spec is both.
const Scheme = "langspec://"

// manualsHost is the first segment of a manual target.
const manualsHost = "manuals"

// Target is what a note is attached to: a specification document (Language
// and Doc; Doc empty for every document of the language) or a manual
// (Manual, and Path inside it: "" for the whole manual, "dir/" for a
// folder, "dir/file.md" for a file).
type Target struct {
	Language string
	Doc      string
	Manual   string
	Path     string
}

// IsManual reports whether t names a manual or a part of one.
func (t Target) IsManual() bool { return t.Manual != "" }

// String is the target's canonical form: langspec://go/spec,
// langspec://go, langspec://manuals/kasai-hoken/参考/.
func (t Target) String() string {
	if t.IsManual() {
		return Scheme + manualsHost + "/" + t.Manual + "/" + t.Path
	}
	if t.Doc == "" {
		return Scheme + t.Language
	}
	return Scheme + t.Language + "/" + t.Doc
}

// nfc is t with its names in NFC, as notes keep them: a manual's files
// may be named in NFD on disk (a Mac made them).
func (t Target) nfc() Target {
	return Target{Language: t.Language, Doc: t.Doc, Manual: norm.NFC.String(t.Manual), Path: norm.NFC.String(t.Path)}
}

// Covers reports whether a note on t covers o: the same document, every
// document of its language, or a manual path at or under t's.
func (t Target) Covers(o Target) bool {
	if t.IsManual() != o.IsManual() {
		return false
	}
	if t.IsManual() {
		if t.Manual != o.Manual {
			return false
		}
		if t.Path == "" || t.Path == o.Path {
			return true
		}
		return strings.HasSuffix(t.Path, "/") && strings.HasPrefix(o.Path, t.Path)
	}
	return t.Language == o.Language && (t.Doc == "" || t.Doc == o.Doc)
}

// depth orders notes from the widest to the narrowest: a language, a
// document; a manual, its folders, a file.
func (t Target) depth() int {
	if !t.IsManual() {
		if t.Doc == "" {
			return 0
		}
		return 1
	}
	switch {
	case t.Path == "":
		return 1
	case strings.HasSuffix(t.Path, "/"): // "a/" 2, "a/b/" 3
		return strings.Count(t.Path, "/") + 1
	default: // "x.md" 2, "a/x.md" 3: below its folder
		return strings.Count(t.Path, "/") + 2
	}
}

// targetForms is what ParseTarget accepts, for errors.
const targetForms = "langspec://LANGUAGE[/DOC] (a specification: langspec://go/spec), " +
	"langspec://manuals/MANUAL[/FOLDER/][/FILE] (a manual, a folder ending in /, or a file), " +
	"or a file or folder inside MANUALS_ROOT"

// ParseTarget reads a target in its canonical form. A folder ends in "/";
// names are compared in NFC, as manual files' names are (a Mac writes
// them in NFD). Errors: apperr.InvalidArgument saying which forms are
// allowed.
func ParseTarget(s string) (Target, error) {
	raw := strings.TrimSpace(s)
	rest, ok := strings.CutPrefix(raw, Scheme)
	if !ok {
		return Target{}, apperr.New(apperr.InvalidArgument, "write "+targetForms, "%q is not a context target", raw)
	}
	if u, err := url.PathUnescape(rest); err == nil {
		rest = u
	}
	rest = norm.NFC.String(rest)
	if strings.ContainsAny(rest, "\\\x00") {
		return Target{}, apperr.New(apperr.InvalidArgument, "use / between folders", "%q holds a backslash or NUL", raw)
	}
	head, tail, _ := strings.Cut(rest, "/")
	if head == manualsHost {
		id, p, _ := strings.Cut(tail, "/")
		if !validName(id) {
			return Target{}, apperr.New(apperr.InvalidArgument, "name a manual: langspec://manuals/MANUAL/…", "%q names no manual", raw)
		}
		folder := strings.HasSuffix(p, "/")
		if p != "" {
			clean := path.Clean("/" + p)[1:]
			if clean == "" || clean != strings.TrimSuffix(p, "/") || strings.HasPrefix(clean, "..") {
				return Target{}, apperr.New(apperr.InvalidArgument, "write the path inside the manual without ., .. or //", "%q is not a clean path inside manual %q", p, id)
			}
			p = clean
			if folder {
				p += "/"
			}
		}
		return Target{Manual: id, Path: p}, nil
	}
	lang, doc, _ := strings.Cut(rest, "/")
	if !validName(lang) || (doc != "" && !validName(doc)) || strings.Contains(doc, "/") {
		return Target{}, apperr.New(apperr.InvalidArgument, "write "+targetForms, "%q is not a context target", raw)
	}
	return Target{Language: lang, Doc: doc}, nil
}

// validName is a language, document or manual id: one path segment.
func validName(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, "/\\\x00")
}

// ManualTarget is the target of a file or folder on disk inside
// manualsRoot (absolute), isDir saying which. Errors: apperr.InvalidArgument
// when it is outside, or is the root itself.
func ManualTarget(manualsRoot, p string, isDir bool) (Target, error) {
	rel, err := filepath.Rel(manualsRoot, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return Target{}, apperr.New(apperr.InvalidArgument, "name a manual's folder, or a folder or file inside one, under MANUALS_ROOT ("+manualsRoot+")",
			"%s is not inside a manual", p)
	}
	rel = norm.NFC.String(filepath.ToSlash(rel))
	id, inner, _ := strings.Cut(rel, "/")
	if inner != "" && isDir {
		inner += "/"
	}
	return Target{Manual: id, Path: inner}, nil
}
