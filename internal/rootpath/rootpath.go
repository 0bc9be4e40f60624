// Package rootpath is the one policy for relative paths a user or a model
// names inside a folder langspec serves: the vault and the manuals.
//
// A path is checked as a string before anything touches the disk (Split,
// File): bounded length, valid UTF-8, no control characters, no absolute,
// UNC or drive-letter form, and no ".." segment, even one that would stay
// inside, since nothing is resolved, nothing can be resolved wrongly.
// Backslash is a separator on every host, so `a\..\b` is the ".." it is on
// Windows; a folder may refuse it outright once nothing graver is wrong
// (Policy.BackslashHint), as the vault does. Then, with the folder open as an os.Root, Walk Lstats each
// component so that no symbolic link is followed, inside the folder or out.
// os.Root is what confines every access; the link rule stops links inside
// the folder from routing around the folder's own rules.
//
// A Policy carries what differs between folders: the error codes, the hint
// texts (part of each folder's tool contract) and any extra rule per name.
package rootpath

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/apperr"
)

// MaxBytes bounds a path (or any name CheckChars sees) before work
// proportional to it: a 5000-byte "a/////…" is refused up front.
const MaxBytes = 1024

// Policy says how one folder reports path mistakes. Set every field up to
// ControlHint: a refused path must always come with a hint. The rest are a
// folder's optional further rules; each is off when unset.
type Policy struct {
	// Folder names the folder in messages: "the vault", "the manuals folder".
	Folder string
	// Outside is the code for a path that leaves the folder or goes through a
	// symbolic link: apperr.PathOutsideVault, apperr.PathOutsideManuals.
	Outside apperr.Code
	// Invalid is the code for a name the folder will not take:
	// apperr.InvalidPath (vault), apperr.InvalidArgument (manuals).
	Invalid apperr.Code
	// Example is a path in the folder, shown in "name a file, such as …".
	Example string

	// Hint is the hint for a path that is not a plain relative path
	// (absolute, drive letter, "..") or that os.Root found leaving the folder.
	Hint string
	// SymlinkHint is the hint for a path through a symbolic link.
	SymlinkHint string
	// LongHint is the hint for a string over MaxBytes.
	LongHint string
	// ControlHint is the hint for a string holding a control character.
	ControlHint string

	// Segment, if set, is a further rule for each name between separators
	// (never "", "." or ".."); path is the whole string, for the message.
	// Split goes name by name, so "a*/../x" fails on "a*" and "../a*" on "..".
	Segment func(path, seg string) error

	// Normalize, if set, maps a path that passed CheckChars to the form the
	// folder stores (the vault's NFC) before any other check, so that two
	// spellings of one name are judged, and named, alike. Messages still
	// quote the path as given. Its result is held to MaxBytes again.
	Normalize func(path string) string
	// BackslashHint, if set, refuses a path holding "\" (Invalid) once no
	// other rule has: a folder a model writes into takes "/" only, so that
	// `notes\x.md` never means one file on Windows and another elsewhere.
	// Unset, "\" is a separator like "/" (the manuals, which are only read).
	BackslashHint string
	// TildeHint, if set, refuses a path whose first name starts with "~"
	// (Invalid): a shell would have made it a home folder, and taken
	// literally it makes a folder that only looks like one.
	TildeHint string
}

// CheckChars refuses a string over MaxBytes, invalid UTF-8 and control
// characters (C0, DEL, C1), which no name needs and which make messages and
// logs lie. what names the string in the message: "path", "manual id".
func (p Policy) CheckChars(s, what string) error {
	if len(s) > MaxBytes {
		return apperr.New(p.Invalid, p.LongHint, "%s %s is %d bytes long", what, apperr.Quote(s), len(s))
	}
	if !utf8.ValidString(s) {
		return apperr.New(p.Invalid, "use UTF-8 names", "%s %s is not valid UTF-8", what, apperr.Quote(s))
	}
	for _, r := range s {
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) {
			return apperr.New(p.Invalid, p.ControlHint, "%s %s contains control character U+%04X", what, apperr.Quote(s), r)
		}
	}
	return nil
}

// Split validates a relative path and returns its names, without empty or
// "." segments. The checks run in this order, so a path with several faults
// gets one stable answer: CheckChars (Invalid; "a\x00/../x" is a bad name
// first), then Normalize, absolute including UNC and `\x` (Outside), drive
// letter (Outside), name by name a ".." (Outside) or the Segment rule, and
// last the folder's own refusals: TildeHint, then BackslashHint (Invalid).
// Leaving the folder is always reported as such, however else it is spelled.
//
// A path that names the folder itself ("", ".", "./") is no error here: it
// returns no names, and the caller decides whether the root will do (File
// refuses it).
func (p Policy) Split(s string) ([]string, error) {
	if err := p.CheckChars(s, "path"); err != nil {
		return nil, err
	}
	n := s // the form checked and returned; messages quote s
	if p.Normalize != nil {
		if n = p.Normalize(s); len(n) > MaxBytes {
			return nil, apperr.New(p.Invalid, p.LongHint, "path %s is %d bytes long in normal form", apperr.Quote(s), len(n))
		}
	}
	if n == "" {
		return nil, nil
	}
	if n[0] == '/' || n[0] == '\\' {
		// Also catches UNC (\\server\share) and Windows root-relative (\x) paths.
		return nil, apperr.New(p.Outside, p.Hint, "path %s is absolute", apperr.Quote(s))
	}
	if HasDriveLetter(n) {
		return nil, apperr.New(p.Outside, p.Hint, "path %s starts with a drive letter", apperr.Quote(s))
	}
	var segs []string
	// "\" splits here even where BackslashHint refuses it, so that `a\..\b`
	// is reported as leaving the folder, which it would on Windows.
	for _, seg := range strings.Split(strings.ReplaceAll(n, `\`, "/"), "/") {
		switch seg {
		case "", ".":
			continue
		case "..":
			return nil, apperr.New(p.Outside, p.Hint, "path %s contains a \"..\" segment", apperr.Quote(s))
		}
		if p.Segment != nil {
			if err := p.Segment(s, seg); err != nil {
				return nil, err
			}
		}
		segs = append(segs, seg)
	}
	if p.TildeHint != "" && len(segs) > 0 && strings.HasPrefix(segs[0], "~") {
		return nil, apperr.New(p.Invalid, p.TildeHint, "path %s starts with %s", apperr.Quote(s), apperr.Quote(segs[0]))
	}
	if p.BackslashHint != "" && strings.Contains(n, `\`) {
		return nil, apperr.New(p.Invalid, p.BackslashHint, "path %s contains a backslash", apperr.Quote(s))
	}
	return segs, nil
}

// File is Split for a path that must name something inside the folder: one
// that names the folder itself is Invalid ("empty path", "names no file").
func (p Policy) File(s string) ([]string, error) {
	segs, err := p.Split(s)
	if err != nil || len(segs) > 0 {
		return segs, err
	}
	hint := "name a file, such as " + p.Example
	if s == "" {
		return nil, apperr.New(p.Invalid, hint, "empty path")
	}
	return nil, apperr.New(p.Invalid, hint, "path %s names no file", apperr.Quote(s))
}

// HasDriveLetter reports whether s starts with a Windows drive: an ASCII
// letter and a colon ("C:\x", "c:x").
func HasDriveLetter(s string) bool {
	return len(s) >= 2 && s[1] == ':' && ('a' <= s[0] && s[0] <= 'z' || 'A' <= s[0] && s[0] <= 'Z')
}

// Walk Lstats each component of full, a clean "/"-separated path in root,
// after byte offset from, never following a symbolic link. from is 0, or the
// index of a "/" in full: the components before it are the caller's to have
// checked (the manuals check the manual's folder themselves). name is the
// path as the user gave it, for messages.
//
// It returns the leaf's info; nil, "", nil when the leaf or a parent does not
// exist; nil, prefix, nil when prefix, a parent of the leaf, is not a folder
// (prefix as full[from:] spells it, without a leading "/"). A symbolic link at
// any component, the leaf included, is an Outside error naming it; any other
// error from the root is FSError's.
func (p Policy) Walk(root *os.Root, name, full string, from int) (fi fs.FileInfo, notDir string, err error) {
	for end := from; end < len(full); {
		next := strings.IndexByte(full[end+1:], '/')
		if next < 0 {
			end = len(full)
		} else {
			end += 1 + next
		}
		fi, err := root.Lstat(full[:end])
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			// ENOTDIR: a parent became a file since it was checked.
			return nil, "", nil
		}
		if err != nil {
			return nil, "", p.FSError(err, name, "inspect")
		}
		shown := strings.TrimPrefix(full[from:end], "/")
		if fi.Mode()&fs.ModeSymlink != 0 {
			return nil, "", apperr.New(p.Outside, p.SymlinkHint,
				"path %s goes through symbolic link %s", apperr.Quote(name), apperr.Quote(shown))
		}
		if end == len(full) {
			return fi, "", nil
		}
		if !fi.IsDir() {
			return nil, shown, nil
		}
	}
	return nil, "", nil
}

// FSError turns an error from the root that no folder-specific case covers
// into an apperr.Error naming the user's path: a path os.Root found leaving
// the folder, or a symbolic link loop, is Outside; anything else is internal,
// with op ("read", "list") saying what failed. Callers map fs.ErrNotExist and
// the like to their own codes and hints first.
func (p Policy) FSError(err error, name, op string) error {
	if escapes(err) {
		return apperr.Wrap(err, p.Outside, p.Hint, "path %s resolves outside %s", apperr.Quote(name), p.Folder)
	}
	return apperr.Wrap(err, apperr.Internal, "", "%s %s: %v", op, apperr.Quote(name), err)
}

// escapes reports an error from os.Root that means the path, or a link in
// it, leads outside the root, or loops.
func escapes(err error) bool {
	// os.Root's escape error is unexported; its text is all there is.
	return errors.Is(err, syscall.ELOOP) || strings.Contains(err.Error(), "path escapes from parent")
}
