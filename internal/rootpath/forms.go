package rootpath

import (
	"io/fs"
	"os"
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/langspec/langspec/internal/apperr"
)

// Names are compared in one Unicode form. macOS and archives made on Macs
// store 「がん保険.md」 decomposed (NFD: か + ゛); Windows, Linux and every
// keyboard write it composed (NFC). The two look the same to a person and to
// a model, so a lookup in either form finds the file (the vault and the
// manuals both resolve names here), and answers can show the name as it is
// on disk.

// resolveName finds the entry of dir (a "/"-separated path inside the
// root) that name means, in whichever Unicode form it is stored. It returns
// "" when there is none, and name_conflict when two entries differ from
// each other only in form: even an exact match would then be a guess about
// which of two names that look the same was meant.
func (p Policy) resolveName(root *os.Root, dir, name string) (string, error) {
	var found []string
	var infos []fs.FileInfo
	for _, form := range append([]string{name}, formsOf(name)...) {
		fi, err := root.Lstat(join(dir, form))
		if err != nil {
			// Not there, or not reachable (a parent that is a file, a
			// symbolic link the root will not follow): resolving stops,
			// and the caller's own walk reports the path as the user gave it.
			continue
		}
		// A file system that ignores the form (APFS, HFS+) answers every
		// spelling with the one file: that is no conflict.
		if slices.ContainsFunc(infos, func(o fs.FileInfo) bool { return os.SameFile(o, fi) }) {
			continue
		}
		found, infos = append(found, form), append(infos, fi)
	}
	switch len(found) {
	case 0:
		return "", nil
	case 1:
		return found[0], nil
	}
	return "", Conflict(dir, found)
}

// formsOf is name's other Unicode forms, composed and decomposed.
func formsOf(name string) []string {
	var out []string
	for _, f := range []string{norm.NFC.String(name), norm.NFD.String(name)} {
		if f != name && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

func join(dir, name string) string {
	if dir == "" || dir == "." {
		return name
	}
	return dir + "/" + name
}

// Conflict is the error for names that differ only in Unicode form:
// name_conflict, naming them.
func Conflict(dir string, names []string) error {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = apperr.Quote(join(dir, n))
	}
	return apperr.New(apperr.NameConflict, "rename one of them: the names look the same to people and to models",
		"%s differ only in Unicode normalisation (composed and decomposed forms)", strings.Join(quoted, " and "))
}

// Resolve returns rel, a "/"-separated path under dir inside the root, as
// it is on disk: each name in whichever Unicode form it is stored. Names from
// the first one that is not there on are kept as given, so the caller
// reports the missing file as it always does. Errors: name_conflict when two
// entries differ only in form, and those of FSError.
func (p Policy) Resolve(root *os.Root, dir, rel string) (string, error) {
	names := strings.Split(rel, "/")
	for i, name := range names {
		got, err := p.resolveName(root, join(dir, strings.Join(names[:i], "/")), name)
		if err != nil {
			return "", err
		}
		if got == "" {
			return strings.Join(names, "/"), nil
		}
		names[i] = got
	}
	return strings.Join(names, "/"), nil
}

// Conflicts lists the groups of names in names that differ only in
// Unicode form, for a listing's warnings.
func Conflicts(names []string) [][]string {
	byForm := map[string][]string{}
	var order []string
	for _, n := range names {
		k := norm.NFC.String(n)
		if _, seen := byForm[k]; !seen {
			order = append(order, k)
		}
		byForm[k] = append(byForm[k], n)
	}
	var out [][]string
	for _, k := range order {
		if len(byForm[k]) > 1 {
			out = append(out, byForm[k])
		}
	}
	return out
}
