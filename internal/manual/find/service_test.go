package find

import (
	"slices"
	"strings"
	"testing"
)

// The scope a read takes when none is named is one rule, the manual_read
// tool's and `manual read`'s alike.
func TestDefaultScope(t *testing.T) {
	tests := []struct {
		req  ReadRequest
		want string
	}{
		{ReadRequest{}, ScopeFile},
		{ReadRequest{Query: "lag"}, ScopeFile},
		{ReadRequest{NodeID: "n"}, ScopeSection},
		{ReadRequest{NodeID: "n", Query: "lag"}, ScopeSnippet},
		{ReadRequest{NodeIDs: []string{"n", "o"}}, ScopeSections},
		{ReadRequest{NodeIDs: []string{"n", "o"}, Query: "lag"}, ScopeSections},
	}
	for _, tt := range tests {
		if got := tt.req.DefaultScope(); got != tt.want {
			t.Errorf("%+v: scope %s, want %s", tt.req, got, tt.want)
		}
	}
}

func TestTextBlocks(t *testing.T) {
	tests := []struct {
		name string
		text string
		want [][2]int
	}{
		{"paragraphs", "One line\nand its rest.\n\nAnother.", [][2]int{{0, 2}, {3, 4}}},
		{"list items, continued", "* `maxBuffer` {number} allowed on stdout or\nstderr. If exceeded, terminated.\n* `killSignal` {string}", [][2]int{{0, 2}, {2, 3}}},
		{"numbered items", "1. first\n2. second\n   more of it", [][2]int{{0, 1}, {1, 3}}},
		{"a heading alone", "## Title\nText under it.", [][2]int{{0, 1}, {1, 2}}},
		{"a code block whole", "Run:\n```sh\nnode a.js\n\nnode b.js\n```\nDone.", [][2]int{{0, 1}, {1, 6}, {6, 7}}},
		{"an unclosed code block", "```\ncode", [][2]int{{0, 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := textBlocks(strings.Split(tt.text, "\n")); !slices.Equal(got, tt.want) {
				t.Errorf("textBlocks = %v, want %v", got, tt.want)
			}
		})
	}
}
