package queryplan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/text/normalize"
)

// Dictionary limits. They keep a hand-edited file within what Expand can
// scan for every term of every query without the user noticing.
const (
	MaxGroups          = 5000
	MaxDictionaryBytes = 1 << 20
)

// dictHint shows the expected format in every error about the file's content.
const dictHint = `the synonym dictionary is JSON like {"description": "optional", "groups": [["failover", "switchover"], ["解約", "契約の解除", "中途解約"]]}`

// Dictionary is a user's synonym groups. It is immutable once loaded, so one
// value can serve concurrent searches. The zero value and nil are empty.
type Dictionary struct {
	groups  [][]string       // members in Normal form, in file order
	byLoose map[string][]int // Loose form of a member → groups holding it
	byStem  map[string][]int // okurigana-free form of a member (引越し → 引越) → groups holding it
	parts   []part           // members for substring expansion, longest first
}

// part is one member that may occur inside a longer term.
type part struct {
	loose string
	group int
}

// dictFile is the file's JSON shape.
type dictFile struct {
	Description string     `json:"description"`
	Groups      [][]string `json:"groups"`
}

// LoadDictionary reads the dictionary at path. An empty path or a missing
// file is an empty dictionary: users need not have one.
// Errors: Unavailable when the file cannot be read; those of ParseDictionary.
func LoadDictionary(path string) (*Dictionary, error) {
	if path == "" {
		return &Dictionary{}, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Dictionary{}, nil
	}
	var b []byte
	if err == nil {
		defer f.Close()
		// One byte over the limit is enough for ParseDictionary to refuse it.
		b, err = io.ReadAll(io.LimitReader(f, MaxDictionaryBytes+1))
	}
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Unavailable, "check the dictionary path and its permissions", "cannot read synonym dictionary %s", path)
	}
	return ParseDictionary(b, path)
}

// ParseDictionary checks and loads the bytes of a dictionary file; name is
// used in messages. Errors: InvalidArgument naming the file and what is
// wrong — JSON syntax (with line and column), an unknown field, a group of
// fewer than 2 terms, an empty term, a term over MaxTermRunes, more than
// MaxGroups groups, or more than MaxDictionaryBytes bytes.
func ParseDictionary(b []byte, name string) (*Dictionary, error) {
	if len(b) > MaxDictionaryBytes {
		return nil, apperr.New(apperr.InvalidArgument, "split the dictionary or remove unused groups",
			"%s: the synonym dictionary is over %d bytes (1 MiB)", name, MaxDictionaryBytes)
	}
	bad := func(format string, args ...any) error {
		return apperr.New(apperr.InvalidArgument, dictHint, "%s: %s", name, fmt.Sprintf(format, args...))
	}
	var f dictFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, apperr.Wrap(err, apperr.InvalidArgument, dictHint, "%s: %s", name, jsonError(b, err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, bad("%s: more data after the top-level object", position(b, dec.InputOffset()))
	}
	if len(f.Groups) > MaxGroups {
		return nil, bad("%d groups; the limit is %d", len(f.Groups), MaxGroups)
	}
	d := &Dictionary{byLoose: map[string][]int{}, byStem: map[string][]int{}}
	for i, g := range f.Groups {
		if len(g) < 2 {
			return nil, bad("groups[%d] has %d term(s); a group needs at least 2", i, len(g))
		}
		members := make([]string, len(g))
		for j, t := range g {
			members[j] = normalize.Normal(t)
			loose := normalize.Loose(t)
			if loose == "" {
				return nil, bad("groups[%d][%d] is empty or only punctuation", i, j)
			}
			if n := utf8.RuneCountInString(members[j]); n > MaxTermRunes {
				return nil, bad("groups[%d][%d] is %d characters long; the limit is %d", i, j, n, MaxTermRunes)
			}
			if stem := okurigana(members[j]); stem != "" && !slices.Contains(d.byStem[stem], i) {
				d.byStem[stem] = append(d.byStem[stem], i)
			}
			if !slices.Contains(d.byLoose[loose], i) {
				d.byLoose[loose] = append(d.byLoose[loose], i)
				if utf8.RuneCountInString(loose) >= 2 {
					d.parts = append(d.parts, part{loose, i})
				}
			}
		}
		d.groups = append(d.groups, members)
	}
	// Longest first, so that 中途解約 is replaced before the 解約 inside it.
	slices.SortStableFunc(d.parts, func(a, b part) int {
		return utf8.RuneCountInString(b.loose) - utf8.RuneCountInString(a.loose)
	})
	return d, nil
}

// jsonError rewrites a decoding error in the user's terms, with the line
// and column where the decoder stopped.
func jsonError(b []byte, err error) string {
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return fmt.Sprintf("%s: %v", position(b, se.Offset), err)
	}
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		kinds := map[reflect.Kind]string{reflect.String: "a string", reflect.Slice: "an array", reflect.Struct: "an object"}
		return fmt.Sprintf("%s: want %s, got JSON %s", position(b, te.Offset), kinds[te.Type.Kind()], te.Value)
	}
	if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return fmt.Sprintf(`unknown field %s; the fields are "description" and "groups"`, field)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "the file is empty or cut short"
	}
	return err.Error()
}

// position turns a byte offset into "line L, column C", counting from 1.
func position(b []byte, off int64) string {
	b = b[:min(max(off, 0), int64(len(b)))]
	line := b[bytes.LastIndexByte(b, '\n')+1:]
	return fmt.Sprintf("line %d, column %d", 1+bytes.Count(b, []byte("\n")), max(utf8.RuneCount(line), 1))
}

// Len returns the number of synonym groups.
func (d *Dictionary) Len() int {
	if d == nil {
		return 0
	}
	return len(d.groups)
}

// Expand returns synonyms of term (cut to MaxTermRunes) in Normal form,
// never term itself, deduplicated, at most MaxExpansions:
//  1. when term is a member (compared by normalize.Loose), the other members
//     of every group holding it;
//  2. when term contains a member of at least 2 runes (Loose comparison,
//     common in Japanese compounds), term with that part replaced by each
//     other member of its group: 解約手続き → 契約の解除手続き, 中途解約手続き.
//     Longer members go first; a part inside one already replaced, or
//     inside a term that is itself a member, is skipped (中途解約 does not
//     also give 中途契約の解除); and a member starting or ending with a Latin
//     letter or digit must do so at a word boundary ("log" is not in
//     "catalog").
func (d *Dictionary) Expand(term string) []string {
	if d == nil || len(d.groups) == 0 {
		return nil
	}
	n := clip(normalize.Normal(term))
	loose, start, end := looseIndex(n)
	l := &list{max: MaxExpansions, skip: n}
	groups := d.byLoose[loose]
	if len(groups) == 0 {
		// 引っ越す finds the group of 引越し: the same word with other okurigana.
		groups = d.byStem[okurigana(n)]
	}
	for _, g := range groups {
		for _, m := range d.groups[g] {
			if normalize.Loose(m) != loose {
				l.add(m)
			}
		}
	}
	var used [][2]int // spans of loose already replaced
	if len(d.byLoose[loose]) > 0 {
		used = append(used, [2]int{0, len(loose)}) // the whole term was a member
	}
	for _, p := range d.parts {
		if len(l.items) >= MaxExpansions {
			break
		} else if len(p.loose) >= len(loose) {
			continue // the whole term: step 1
		}
		for off := 0; ; {
			i := strings.Index(loose[off:], p.loose)
			if i < 0 {
				break
			}
			s, e := off+i, off+i+len(p.loose)
			off = s + 1
			if overlaps(used, s, e) || !boundary(n, start[s], end[e]) {
				continue
			}
			used = append(used, [2]int{s, e})
			for _, m := range d.groups[p.group] {
				if normalize.Loose(m) != p.loose {
					l.add(n[:start[s]] + m + n[end[e]:])
				}
			}
			break
		}
	}
	return l.items
}

// looseIndex returns the Loose form of the Normal string n, with maps from
// byte offsets in it to byte offsets in n: start[i] where the rune at loose
// offset i starts, end[i] where the rune ending at loose offset i ends.
// A separator is any rune that normalize.Loose removes, so the two cannot
// disagree about what a separator is.
func looseIndex(n string) (loose string, start, end []int) {
	var b strings.Builder
	start, end = make([]int, len(n)+1), make([]int, len(n)+1)
	for i, r := range n {
		if normalize.Loose(string(r)) == "" {
			continue
		}
		start[b.Len()] = i
		b.WriteRune(r)
		end[b.Len()] = i + utf8.RuneLen(r)
	}
	return b.String(), start, end
}

// overlaps reports whether [s, e) overlaps a used span other than itself:
// the same part may be replaced by members of several groups.
func overlaps(used [][2]int, s, e int) bool {
	return slices.ContainsFunc(used, func(u [2]int) bool { return s < u[1] && u[0] < e && u != [2]int{s, e} })
}

// boundary reports whether n[s:e] does not cut a Latin word in two.
func boundary(n string, s, e int) bool {
	first, _ := utf8.DecodeRuneInString(n[s:])
	last, _ := utf8.DecodeLastRuneInString(n[:e])
	before, _ := utf8.DecodeLastRuneInString(n[:s])
	after, _ := utf8.DecodeRuneInString(n[e:])
	return !(classOf(first) == latin && classOf(before) == latin || classOf(last) == latin && classOf(after) == latin)
}
