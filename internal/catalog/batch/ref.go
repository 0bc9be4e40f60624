package batch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/langspec/langspec/internal/apperr"
)

// ref is one ${id.path} reference.
type ref struct {
	raw  string // as written, for messages
	id   string
	path []step
}

// step is one ".key" or "[index]" of a reference path.
type step struct {
	key   string
	index int // when key is ""
}

func (s step) String() string {
	if s.key == "" {
		return fmt.Sprintf("[%d]", s.index)
	}
	return "." + s.key
}

// part is literal text or one reference; a params string is a list of them.
type part struct {
	lit string
	ref *ref
}

// parseTemplate splits a params string into text and references. "$${" is
// matched first so it is always the escape, never "$" and a reference.
func parseTemplate(s string) ([]part, error) {
	var parts []part
	var lit strings.Builder
	for i := 0; i < len(s); {
		switch {
		case strings.HasPrefix(s[i:], "$${"):
			lit.WriteString("${")
			i += 3
		case strings.HasPrefix(s[i:], "${"):
			end := strings.IndexByte(s[i:], '}') + 1
			if end == 0 {
				return nil, fmt.Errorf("bad reference %.40q: no closing }", s[i:])
			}
			r, ok := parseRef(s[i : i+end])
			if !ok {
				return nil, fmt.Errorf("bad reference %.80q", s[i:i+end])
			}
			if lit.Len() > 0 {
				parts = append(parts, part{lit: lit.String()})
				lit.Reset()
			}
			parts = append(parts, part{ref: r})
			i += end
		default:
			lit.WriteByte(s[i])
			i++
		}
	}
	if lit.Len() > 0 || len(parts) == 0 {
		parts = append(parts, part{lit: lit.String()})
	}
	return parts, nil
}

// parseRef parses "${id.key[0]...}". Keys may hold any character but . [ ] { }.
func parseRef(raw string) (*ref, bool) {
	if len(raw) < 3 {
		return nil, false
	}
	body := raw[2 : len(raw)-1]
	n := strings.IndexAny(body, ".[")
	if n < 0 {
		n = len(body)
	}
	r := &ref{raw: raw, id: body[:n]}
	if !validID(r.id) {
		return nil, false
	}
	for rest := body[n:]; rest != ""; {
		end := strings.IndexAny(rest[1:], ".[") + 1
		if end == 0 {
			end = len(rest)
		}
		seg := rest[:end]
		rest = rest[end:]
		if seg[0] == '.' && len(seg) > 1 && !strings.ContainsAny(seg, "]{") {
			r.path = append(r.path, step{key: seg[1:]})
			continue
		}
		digits, closed := strings.CutSuffix(seg[1:], "]")
		i, err := strconv.Atoi(digits)
		if seg[0] != '[' || !closed || err != nil || digits[0] < '0' || digits[0] > '9' {
			return nil, false
		}
		r.path = append(r.path, step{index: i})
	}
	return r, true
}

// refsOf returns every reference in t's params, in a stable order.
func refsOf(t Task) ([]*ref, error) {
	var refs []*ref
	_, err := rewrite(t.Params, func(s string) (any, error) {
		parts, err := parseTemplate(s)
		for _, p := range parts {
			if p.ref != nil {
				refs = append(refs, p.ref)
			}
		}
		return s, err
	})
	if err != nil {
		return nil, lineErr(t.Line, t.ID, hintRef, "%v", err)
	}
	return refs, nil
}

// rewrite copies a params tree, replacing each string by f's result. Keys are
// visited in sorted order so the first error is the same every time.
func rewrite(v any, f func(string) (any, error)) (any, error) {
	var err error
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if out[k], err = rewrite(v[k], f); err != nil {
				return nil, err
			}
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			if out[i], err = rewrite(x, f); err != nil {
				return nil, err
			}
		}
		return out, nil
	case string:
		return f(v)
	}
	return v, nil
}

// resolve returns a copy of params with every reference replaced. values holds
// the JSON of finished tasks' result values; each reference decodes its own
// copy, so tasks running in parallel never share a params tree.
func resolve(params map[string]any, values map[string][]byte) (map[string]any, error) {
	out, err := rewrite(params, func(s string) (any, error) {
		parts, err := parseTemplate(s)
		if err != nil {
			return nil, err
		}
		if len(parts) == 1 && parts[0].ref != nil {
			return lookup(parts[0].ref, values)
		}
		var b strings.Builder
		for _, p := range parts {
			if p.ref == nil {
				b.WriteString(p.lit)
				continue
			}
			v, err := lookup(p.ref, values)
			if err != nil {
				return nil, err
			}
			if s, ok := v.(string); ok {
				b.WriteString(s)
				continue
			}
			// Compact JSON without HTML escaping: the text goes to a tool, not a page.
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(v) // v was decoded from JSON, so it encodes
			b.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		}
		return b.String(), nil
	})
	m, _ := out.(map[string]any)
	return m, err
}

// lookup follows a reference's path through a result value.
func lookup(r *ref, values map[string][]byte) (any, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(values[r.id]))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("reference %s: the result of task %q is not JSON", r.raw, r.id)
	}
	at := r.id
	for _, st := range r.path {
		arr, isArr := v.([]any)
		obj, isObj := v.(map[string]any)
		switch {
		case st.key == "" && isArr && st.index >= len(arr):
			return nil, fmt.Errorf("reference %s: %s has %d items, so %s is out of range", r.raw, at, len(arr), st)
		case st.key == "" && isArr:
			v = arr[st.index]
		case isObj && st.key != "":
			var ok bool
			if v, ok = obj[st.key]; !ok {
				keys := slices.Sorted(maps.Keys(obj))
				if len(keys) > 10 {
					keys = append(keys[:10], "…")
				}
				return nil, fmt.Errorf("reference %s: %s has no field %q (fields: %s)", r.raw, at, st.key, strings.Join(keys, ", "))
			}
		default:
			return nil, fmt.Errorf("reference %s: %s is %s, so it has no %s", r.raw, at, apperr.JSONKind(v), st)
		}
		at += st.String()
	}
	return v, nil
}
