package find

import (
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/ingest/manualfile"
)

// nodeTree is a manual snapshot's nodes as a search walks them: linked to
// their parents, roots and subsections once per snapshot rather than per
// search, where building a workNode and two map entries for every node was
// a tenth of a manual_find over thousands of files.
type nodeTree struct {
	// nodes are the snapshot's nodes in its order, linked. A search over
	// the whole manual uses them as they are and only reads them; a search
	// over part of it (only_unscanned, the hard limit) builds its own.
	nodes []*workNode
	rows  map[int64]int32 // store row id -> node
	exc   []int32         // the nodes holding exception vocabulary, ascending
}

// nodeTree returns the snapshot's linked nodes, building them on first use.
func (sn *manualSnapshot) nodeTree() *nodeTree {
	sn.treeOnce.Do(func() {
		t := &nodeTree{rows: make(map[int64]int32, len(sn.nodes))}
		work := make([]workNode, len(sn.nodes))
		t.nodes = make([]*workNode, len(sn.nodes))
		for i := range sn.nodes {
			work[i] = workNode{ManualNode: sn.nodes[i], snap: sn, idx: int32(i), manual: sn.manual, nodeTraits: sn.traits[i]}
			t.nodes[i] = &work[i]
			t.rows[sn.nodes[i].RowID] = int32(i)
			if sn.traits[i].hasExc {
				t.exc = append(t.exc, int32(i))
			}
		}
		link(t.nodes)
		sn.tree = t
	})
	return sn.tree
}

// ordered reports whether the snapshot's nodes are strictly in path, then
// document order, as the store lists them, compared as Go compares
// strings: then a node's place says where it sorts among candidates of
// equal score (stageRun.inDocumentOrder).
func (sn *manualSnapshot) ordered() bool {
	sn.orderOnce.Do(func() {
		sn.inOrder = true
		for i := 1; i < len(sn.nodes) && sn.inOrder; i++ {
			a, b := &sn.nodes[i-1], &sn.nodes[i]
			c := strings.Compare(a.Path, b.Path)
			sn.inOrder = c < 0 || c == 0 && a.Ord < b.Ord
		}
	})
	return sn.inOrder
}

// link sets the parent, root and subsections of nodes, the nodes of one
// manual a search takes, in document order: a parent is the node of the
// same file with the parent's id (the last such, should two share it), when
// the search took it.
func link(nodes []*workNode) {
	byID := make(map[string]*workNode, len(nodes))
	for _, n := range nodes {
		byID[n.Path+"#"+n.NodeID] = n
	}
	for _, n := range nodes {
		if n.ParentID != "" {
			n.parent = byID[n.Path+"#"+n.ParentID]
		}
		if n.parent != nil {
			n.parent.kids = append(n.parent.kids, n)
		}
	}
	for _, n := range nodes {
		r := n
		for r.parent != nil {
			r = r.parent
		}
		n.root = r
	}
}

// hay is the text of a node a needle is looked for in.
type hay uint8

const (
	hayNorm    hay = iota // the normal text
	hayLoose              // the loose text
	hayTitle              // the normal title
	hayTitleIn            // a heading's loose title of minTitleInTerm runes or more, within the needle
)

// textIndex is a manual snapshot's substring index: which nodes' texts or
// titles hold, or may hold, a needle.
type textIndex struct {
	words  *wordIndex // the words of the nodes' normal texts
	loose  *gramIndex // over the nodes' loose texts
	titles *gramIndex // over the nodes' normal titles
	// normOut are the nodes whose loose text is not their normal text
	// without separators: neither their words nor the loose index can
	// vouch for a normal-form needle's absence or a loose one's presence,
	// so lookups check them.
	normOut []int32
	// headings are the headings of minTitleInTerm runes or more
	// (separators removed) by loose title, for hayTitleIn; oddTitles those
	// of them that are not valid UTF-8, checked directly.
	headings           map[string][]int32
	minTitle, maxTitle int // shortest and longest key of headings, in bytes
	oddTitles          []int32
}

// textIndex returns the snapshot's substring index, building it on first
// use (under a second for 5,000 files, once per change of the manual).
func (sn *manualSnapshot) textIndex() *textIndex {
	sn.textOnce.Do(func() {
		t := &textIndex{headings: map[string][]int32{}, minTitle: -1}
		// The word index beside the others: the first search after a
		// change waits for the longer of the two, not their sum.
		var wg sync.WaitGroup
		wg.Go(func() { t.words = newWordIndex(len(sn.nodes), func(i int) string { return sn.nodes[i].Norm }) })
		t.loose = newGramIndex(len(sn.nodes), func(i int) string { return sn.nodes[i].Loose })
		t.titles = newGramIndex(len(sn.nodes), func(i int) string { return sn.traits[i].normTitle })
		for i, n := range sn.nodes {
			tr := &sn.traits[i]
			if !looseOfNorm(n.Norm, n.Loose) {
				t.normOut = append(t.normOut, int32(i))
			}
			if n.Kind != manualfile.KindHeading || utf8.RuneCountInString(tr.looseTitle) < minTitleInTerm {
				continue
			}
			if !utf8.ValidString(tr.looseTitle) {
				t.oddTitles = append(t.oddTitles, int32(i))
				continue
			}
			t.headings[tr.looseTitle] = append(t.headings[tr.looseTitle], int32(i))
			if l := len(tr.looseTitle); t.minTitle < 0 || l < t.minTitle {
				t.minTitle = l
			}
			t.maxTitle = max(t.maxTitle, len(tr.looseTitle))
		}
		wg.Wait()
		sn.text = t
	})
	return sn.text
}

// lookup returns, ascending, the nodes whose h surely holds needle and
// those that may (for the caller to check, when not sure); all says that
// every node may.
func (t *textIndex) lookup(h hay, needle string) (sure, maybe []int32, all bool) {
	switch h {
	case hayTitle:
		maybe, all = t.titles.candidates(needle)
		return nil, maybe, all
	case hayTitleIn:
		return t.titlesIn(needle), t.oddTitles, false
	case hayNorm:
		if wordly(needle) {
			// Within one word: the words holding it say which nodes do.
			return t.words.holding(needle), t.words.odd, false
		}
		// A normal text holding the needle holds it without separators
		// once both lose them.
		key, ok := stripSeparators(needle)
		if !ok {
			return nil, nil, true
		}
		maybe, all = t.loose.candidates(key)
		if all {
			return nil, nil, true
		}
		return nil, mergeAsc(maybe, t.normOut), false
	case hayLoose:
		maybe, all = t.loose.candidates(needle)
		if all || !wordly(needle) {
			return nil, maybe, all
		}
		// A word of the normal text is in the loose text too: only the
		// matches across words (and normOut) are left to check.
		sure = t.words.holding(needle)
		if len(t.normOut) > 0 {
			sure = slices.DeleteFunc(sure, func(i int32) bool {
				_, out := slices.BinarySearch(t.normOut, i)
				return out
			})
		}
		return sure, maybe, false
	}
	panic("unknown hay")
}

// titlesIn returns, ascending, the headings whose loose title (a key of
// headings) is within needle: every piece of needle between rune boundaries
// of a title's length is looked up. A valid title found in a string starts
// where a range over the string stops: no valid sequence swallows a byte
// that begins one.
func (t *textIndex) titlesIn(needle string) []int32 {
	var out []int32
	// In valid UTF-8 a piece ends before a rune start or at the end; in
	// anything else every end is tried.
	valid := utf8.ValidString(needle)
	if t.minTitle >= 0 && len(needle) >= t.minTitle {
		for i := range needle {
			for j := i + t.minTitle; j <= len(needle) && j-i <= t.maxTitle; j++ {
				if valid && j < len(needle) && !utf8.RuneStart(needle[j]) {
					continue
				}
				out = append(out, t.headings[needle[i:j]]...)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// mergeAsc returns the union of two ascending lists, reusing a when b is
// empty.
func mergeAsc(a, b []int32) []int32 {
	if len(b) == 0 {
		return a
	}
	out := make([]int32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// holds reports whether node i's h holds needle, the test candidates
// stand in for.
func (sn *manualSnapshot) holds(h hay, i int32, needle string) bool {
	switch h {
	case hayNorm:
		return strings.Contains(sn.nodes[i].Norm, needle)
	case hayLoose:
		return strings.Contains(sn.nodes[i].Loose, needle)
	case hayTitle:
		return strings.Contains(sn.traits[i].normTitle, needle)
	case hayTitleIn:
		lt := sn.traits[i].looseTitle
		return sn.nodes[i].Kind == manualfile.KindHeading && utf8.RuneCountInString(lt) >= minTitleInTerm && strings.Contains(needle, lt)
	}
	panic("unknown hay")
}
