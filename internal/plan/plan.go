// Package plan turns a document's outline into a reading plan: weeks of
// roughly equal reading, in document order, with chosen focus areas moved up.
//
// It knows nothing of any particular document. "Introductory material" and
// "topics" come from the structure: a topic is a top-level section with
// everything under it; the introduction is the run of leading topics that
// together hold at most IntroShare of the text.
package plan

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
)

// Bounds and constants of a plan.
const (
	DefaultWeeks = 4
	MaxWeeks     = 12
	// CharsPerMinute is a careful reading pace for specification prose
	// (about 160 words a minute), the pace the design seed used.
	CharsPerMinute = 800
	// IntroShare is the most of a document the introduction may take.
	IntroShare = 0.10
	maxThemes  = 3
)

// Request asks for a plan.
type Request struct {
	Language string
	Doc      string
	Version  string
	Weeks    int      // 1..MaxWeeks; 0 means DefaultWeeks
	Focus    []string // section titles (or parts of them) to read early
}

// Plan is a reading plan.
type Plan struct {
	Language     string   `json:"language" jsonschema:"language id"`
	Doc          string   `json:"doc" jsonschema:"document id within the language"`
	Version      string   `json:"version" jsonschema:"version the plan covers"`
	TotalWeeks   int      `json:"total_weeks" jsonschema:"number of weeks"`
	FocusAreas   []string `json:"focus_areas" jsonschema:"the focus areas moved forward, as given"`
	TotalChars   int      `json:"total_chars" jsonschema:"characters of text in the whole plan"`
	TotalMinutes int      `json:"total_minutes" jsonschema:"estimated reading time of the whole plan"`
	Weeks        []Week   `json:"weeks" jsonschema:"the weeks, in reading order"`
}

// Week is one week of a plan.
type Week struct {
	Week             int    `json:"week" jsonschema:"week number, from 1"`
	Theme            string `json:"theme" jsonschema:"the main topics of the week"`
	Chars            int    `json:"chars" jsonschema:"characters of text to read this week"`
	EstimatedMinutes int    `json:"estimated_minutes" jsonschema:"reading time at 800 characters a minute"`
	Sections         []Item `json:"sections" jsonschema:"sections to read, in order"`
}

// Item is one section to read.
type Item struct {
	SectionID   string `json:"section_id" jsonschema:"id to pass to get_section"`
	Title       string `json:"title" jsonschema:"the section heading"`
	SectionPath string `json:"section_path" jsonschema:"headings from the top of the document"`
	URL         string `json:"url" jsonschema:"canonical URL of the section"`
	Chars       int    `json:"chars" jsonschema:"characters of text in the section"`
	Focus       bool   `json:"focus,omitempty" jsonschema:"true when moved forward because of a focus area"`
}

// defaultLanguage is the plan's language when none is named and several
// are stored: the one built into langspec.
const defaultLanguage = "go"

// Build makes a plan for one document version. Errors: apperr.InvalidArgument
// for bad weeks or a focus area that matches no section, apperr.NotFound for
// an unknown language or version.
func Build(ctx context.Context, store *db.DB, req Request) (Plan, error) {
	if req.Weeks == 0 {
		req.Weeks = DefaultWeeks
	}
	if req.Weeks < 1 || req.Weeks > MaxWeeks {
		return Plan{}, apperr.New(apperr.InvalidArgument, fmt.Sprintf("use 1 to %d weeks", MaxWeeks),
			"%d weeks is out of range", req.Weeks)
	}
	if req.Language == "" {
		// One language stored: that one; several: Go's, the one built in,
		// as the docs show it (plan [--lang go]).
		vs, err := store.Versions(ctx, "")
		if err != nil {
			return Plan{}, err
		}
		langs := map[string]bool{}
		for _, v := range vs {
			langs[v.Language] = true
		}
		if len(langs) > 1 && langs[defaultLanguage] {
			req.Language = defaultLanguage
		}
	}
	v, outline, err := store.Outline(ctx, db.Scope{Language: req.Language, Doc: req.Doc, Version: req.Version})
	if err != nil {
		return Plan{}, err
	}
	focus := cleanFocus(req.Focus)
	weeks, err := Split(outline, req.Weeks, focus)
	if err != nil {
		return Plan{}, err
	}
	p := Plan{Language: v.Language, Doc: v.Doc, Version: v.Version, TotalWeeks: req.Weeks, FocusAreas: focus, Weeks: weeks}
	for _, w := range weeks {
		p.TotalChars += w.Chars
		p.TotalMinutes += w.EstimatedMinutes
	}
	return p, nil
}

func cleanFocus(in []string) []string {
	out := []string{}
	for _, f := range in {
		if f = strings.TrimSpace(f); f != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// Split orders the outline (intro, then focus areas, then the rest in
// document order) and cuts it into weeks of balanced reading size.
func Split(outline []db.SectionRow, weeks int, focus []string) ([]Week, error) {
	if len(outline) < weeks {
		return nil, apperr.New(apperr.InvalidArgument, fmt.Sprintf("use at most %d weeks", len(outline)),
			"the document has only %d sections for %d weeks", len(outline), weeks)
	}
	topic := topicOf(outline)
	ordered, err := order(outline, topic, focus)
	if err != nil {
		return nil, err
	}
	sizes := make([]int, len(ordered))
	for i, k := range ordered {
		sizes[i] = outline[k.index].CharCount
	}
	var out []Week
	lastTopic := -1 // topic of the previous week's last section
	for w, r := range partition(sizes, weeks) {
		week := Week{Week: w + 1}
		var topics []int
		for _, k := range ordered[r[0]:r[1]] {
			s := outline[k.index]
			week.Sections = append(week.Sections, Item{SectionID: s.SectionID, Title: s.Title, SectionPath: s.Path,
				URL: s.URL, Chars: s.CharCount, Focus: k.focus})
			week.Chars += s.CharCount
			if t := topic[k.index]; !slices.Contains(topics, t) {
				topics = append(topics, t)
			}
		}
		var names []string
		for i, t := range topics {
			name := outline[t].Title
			if i == 0 && t == lastTopic {
				name += " (cont.)"
			}
			names = append(names, name)
		}
		lastTopic = topic[ordered[r[1]-1].index]
		week.Theme = theme(names)
		week.EstimatedMinutes = int(math.Ceil(float64(week.Chars) / CharsPerMinute))
		out = append(out, week)
	}
	return out, nil
}

func theme(names []string) string {
	if len(names) > maxThemes {
		return strings.Join(names[:maxThemes], ", ") + fmt.Sprintf(" and %d more", len(names)-maxThemes)
	}
	return strings.Join(names, ", ")
}

// topicOf maps each section to the index of its top-level section: the
// nearest section at or before it with the outline's smallest level.
func topicOf(outline []db.SectionRow) []int {
	top := outline[0].Level
	for _, s := range outline {
		top = min(top, s.Level)
	}
	out := make([]int, len(outline))
	cur := 0
	for i, s := range outline {
		if s.Level == top {
			cur = i
		}
		out[i] = cur
	}
	return out
}

type placed struct {
	index int
	focus bool
}

// order returns the reading order: the introduction, the subtrees matched by
// focus (in the order the focus areas were given), then everything else.
func order(outline []db.SectionRow, topic []int, focus []string) ([]placed, error) {
	moved := make([]bool, len(outline))
	var focused []placed
	for _, f := range focus {
		roots := matchFocus(outline, f)
		if len(roots) == 0 {
			return nil, apperr.New(apperr.InvalidArgument, "top-level topics: "+strings.Join(topTitles(outline, topic), ", "),
				"focus area %q matches no section title", f)
		}
		for _, r := range roots {
			for _, i := range subtree(outline, r) {
				if !moved[i] {
					moved[i] = true
					focused = append(focused, placed{i, true})
				}
			}
		}
	}
	total := 0
	for _, s := range outline {
		total += s.CharCount
	}
	// The introduction: leading topics within IntroShare of the text, stopping
	// at the first topic a focus area touches, and always the first topic.
	introEnd, introChars := 0, 0
	for i := 0; i < len(outline); {
		end := i + 1
		for end < len(outline) && topic[end] == topic[i] {
			end++
		}
		size, touched := 0, false
		for k := i; k < end; k++ {
			size += outline[k].CharCount
			touched = touched || moved[k]
		}
		if touched || i > 0 && float64(introChars+size) > IntroShare*float64(total) {
			break
		}
		introChars += size
		introEnd, i = end, end
	}
	var out []placed
	for i := 0; i < introEnd; i++ {
		out = append(out, placed{i, false})
	}
	out = append(out, focused...)
	for i := introEnd; i < len(outline); i++ {
		if !moved[i] {
			out = append(out, placed{i, false})
		}
	}
	return out, nil
}

// matchFocus finds the sections a focus area names: titles equal to it
// (ignoring case), else titles containing it; only the shallowest matches,
// since their subtrees include the deeper ones.
func matchFocus(outline []db.SectionRow, f string) []int {
	want := strings.ToLower(f)
	for _, exact := range []bool{true, false} {
		var hits []int
		level := math.MaxInt
		for i, s := range outline {
			title := strings.ToLower(s.Title)
			if exact && title == want || !exact && strings.Contains(title, want) {
				hits = append(hits, i)
				level = min(level, s.Level)
			}
		}
		hits = slices.DeleteFunc(hits, func(i int) bool { return outline[i].Level != level })
		if len(hits) > 0 {
			return hits
		}
	}
	return nil
}

// subtree lists r and every following section deeper than it.
func subtree(outline []db.SectionRow, r int) []int {
	out := []int{r}
	for i := r + 1; i < len(outline) && outline[i].Level > outline[r].Level; i++ {
		out = append(out, i)
	}
	return out
}

func topTitles(outline []db.SectionRow, topic []int) []string {
	var out []string
	for i, t := range topic {
		if t == i {
			out = append(out, outline[i].Title)
		}
	}
	return out
}

// partition cuts sizes into k contiguous, non-empty runs whose totals are as
// even as possible (least sum of squared totals, which for a fixed grand
// total is least variance), by dynamic programming over cut points.
func partition(sizes []int, k int) [][2]int {
	n := len(sizes)
	prefix := make([]int64, n+1)
	for i, s := range sizes {
		prefix[i+1] = prefix[i] + int64(s)
	}
	const inf = math.MaxInt64
	// cost[j][i]: best cost of the first i items in j runs; cut[j][i]: where
	// the last of those runs starts.
	cost := make([][]int64, k+1)
	cut := make([][]int, k+1)
	for j := range cost {
		cost[j] = make([]int64, n+1)
		cut[j] = make([]int, n+1)
		for i := range cost[j] {
			cost[j][i] = inf
		}
	}
	cost[0][0] = 0
	for j := 1; j <= k; j++ {
		for i := j; i <= n-(k-j); i++ {
			for s := j - 1; s < i; s++ {
				if cost[j-1][s] == inf {
					continue
				}
				run := prefix[i] - prefix[s]
				if c := cost[j-1][s] + run*run; c < cost[j][i] {
					cost[j][i], cut[j][i] = c, s
				}
			}
		}
	}
	runs := make([][2]int, k)
	end := n
	for j := k; j >= 1; j-- {
		start := cut[j][end]
		runs[j-1] = [2]int{start, end}
		end = start
	}
	return runs
}
