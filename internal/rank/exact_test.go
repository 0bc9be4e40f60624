package rank

import "testing"

func TestExactTitle(t *testing.T) {
	tests := []struct {
		query, title string
		want         bool
	}{
		// Words: TitleKey's normalisation.
		{"method sets", "Method sets", true},
		{"the yield statement", "7.7. The yield statement", true},
		{"method set", "Method sets and interfaces", false},
		// Code: the name as written, label and arguments aside.
		{"--inspect", "--inspect[=[host:]port]", true},
		{"--inspect", "util.inspect(object[, options])", false},
		{"--inspect", "--inspect-brk[=[host:]port]", false},
		{"Buffer.alloc", "Static method: `Buffer.alloc(size[, fill[, encoding]])`", true},
		{"buffer.alloc", "Static method: Buffer.allocUnsafe(size)", false},
		{"util.inspect", "util.inspect(object[, options])", true},
		{"#[repr(C)]", "#[repr(C)]", true},
		{"#[repr(C)]", "#[repr(C)] Structs", false},
		{"fs::read", "Function: fs::read", true},
		// A query with arguments is compared whole.
		{"util.inspect(object)", "util.inspect(object[, options])", false},
		// Nothing names everything.
		{"", "", false},
		{"  ", "Method sets", false},
	}
	for _, tt := range tests {
		if got := ExactTitle(tt.query, tt.title); got != tt.want {
			t.Errorf("ExactTitle(%q, %q) = %v, want %v", tt.query, tt.title, got, tt.want)
		}
	}
}

// TestFuseNamedSectionFirst: a section whose title is the query comes
// first even when the other channels put others far above it; a title the
// query only starts, or that a phrasing names, does not jump the queue.
func TestFuseNamedSectionFirst(t *testing.T) {
	words := List{Channel: ChannelWords, Postings: []Posting{{ID: 1, Score: 9}, {ID: 2, Score: 8}, {ID: 3, Score: 1}, {ID: 4, Score: 1}}}
	literal := List{Channel: ChannelLiteral, Postings: []Posting{{ID: 1, Score: 5}, {ID: 2, Score: 5}}}
	w := Weights{Channels: map[string]float64{ChannelWords: 1, ChannelLiteral: 1, ChannelHeading: 0.5}}
	tests := []struct {
		name    string
		heading List
		first   int64
	}{
		{"the title is the query", List{Channel: ChannelHeading, Postings: []Posting{{ID: 3, Score: TitleEquals}}}, 3},
		{"the title starts with it", List{Channel: ChannelHeading, Postings: []Posting{{ID: 3, Score: TitleStarts}}}, 1},
		{"a phrasing's title", List{Channel: ChannelHeading, Phrasing: 1, Postings: []Posting{{ID: 4, Score: TitleEquals}}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := New(w).Fuse([]List{words, literal, tt.heading}, 10)
			if hits[0].ID != tt.first {
				t.Errorf("first hit %d, want %d (%+v)", hits[0].ID, tt.first, hits)
			}
		})
	}
}
