package manual

import (
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/langspec/langspec/internal/apperr"
)

// Ref names a manual's file or section the one way every manual tool
// prints it, manual_id/path#node_id ("nodejs/fs.md#file-system/fswatch"),
// and every manual tool takes it back: whole, or in parts, in any of its
// arguments.
type Ref struct {
	ManualID, Path, NodeID string
}

// FormatRef is the ref of a section (nodeID "" for the whole file).
func FormatRef(manualID, path, nodeID string) string {
	r := manualID + "/" + path
	if nodeID != "" {
		r += "#" + nodeID
	}
	return r
}

// String is the ref as the tools print it.
func (r Ref) String() string { return FormatRef(r.ManualID, r.Path, r.NodeID) }

// ResolveRef reads how a caller named a section: ref, and the manual_id,
// path and node_id arguments, each of which may hold the whole ref a tool
// printed or a part of it — "nodejs/fs.md#x" as ref, manual_id or node_id;
// "fs.md#x" as path or node_id; "nodejs/fs.md" as manual_id or path. A part
// given twice must be the same. What is still missing is left empty, for
// the tool to say which argument it needs. Errors: invalid_argument naming
// the two values that disagree.
func (l *Library) ResolveRef(ref, manualID, path, nodeID string) (Ref, error) {
	var r Ref
	set := func(field *string, v, what string) error {
		v = strings.TrimSpace(v)
		if v == "" {
			return nil
		}
		if *field != "" && norm.NFC.String(*field) != norm.NFC.String(v) {
			return apperr.New(apperr.InvalidArgument, "give the section once: as ref (manual_id/path#node_id), or as manual_id, path and node_id",
				"the arguments name two %ss: %s and %s", what, apperr.Quote(*field), apperr.Quote(v))
		}
		*field = v
		return nil
	}
	// node splits a value at its "#": the node, and what stands before it.
	node := func(v string) (string, error) {
		before, n, ok := strings.Cut(v, "#")
		if !ok {
			return v, nil
		}
		return before, set(&r.NodeID, n, "section")
	}
	// whole reads "manual/path": its first name is the manual's.
	whole := func(v string) error {
		m, p, ok := strings.Cut(v, "/")
		if err := set(&r.ManualID, m, "manual"); err != nil || !ok {
			return err
		}
		return set(&r.Path, p, "file")
	}
	// file reads a path that may start with the manual's name (a ref
	// without its node, or a path copied whole).
	file := func(v string) error {
		if v == "" {
			return nil
		}
		if m, p, ok := strings.Cut(v, "/"); ok && p != "" {
			switch {
			case r.ManualID != "" && norm.NFC.String(m) == norm.NFC.String(r.ManualID):
				return set(&r.Path, p, "file")
			case r.ManualID == "" && l.isManual(m):
				return whole(v)
			}
		}
		return set(&r.Path, v, "file")
	}
	if v, err := node(strings.TrimSpace(ref)); err != nil {
		return r, err
	} else if v != "" {
		if err := whole(v); err != nil {
			return r, err
		}
	}
	if v, err := node(strings.TrimSpace(manualID)); err != nil {
		return r, err
	} else if strings.Contains(v, "/") {
		if err := whole(v); err != nil {
			return r, err
		}
	} else if err := set(&r.ManualID, v, "manual"); err != nil {
		return r, err
	}
	v, err := node(strings.TrimSpace(path))
	if err != nil {
		return r, err
	}
	if err := file(v); err != nil {
		return r, err
	}
	v, err = node(strings.TrimSpace(nodeID))
	if err != nil {
		return r, err
	}
	if v != "" && strings.Contains(nodeID, "#") {
		// "manual/path#node" or "path#node" given as the node.
		if err := file(v); err != nil {
			return r, err
		}
	} else if err := set(&r.NodeID, v, "section"); err != nil {
		return r, err
	}
	return r, nil
}

// isManual says whether name is one of the library's manuals.
func (l *Library) isManual(name string) bool {
	ids, err := l.Manuals()
	return err == nil && slices.Contains(ids, norm.NFC.String(name))
}
