package mcpserver

import (
	"bufio"
	"strings"
	"testing"
)

// readLine must keep lines up to the limit whole, however the buffer splits
// them, and skip longer ones entirely.
func TestReadLine(t *testing.T) {
	long := strings.Repeat("x", 100)
	tests := []struct {
		name  string
		input string
		limit int
		want  []string // lines kept; "!" marks a line reported too long
	}{
		{"short lines", "a\nbb\n", 10, []string{"a", "bb"}},
		{"CRLF", "a\r\nb\r\n", 10, []string{"a", "b"}},
		{"at the limit, split by the buffer", long + "\n" + "y\n", 100, []string{long, "y"}},
		{"over the limit is skipped to its end", long + "\n" + "y\n", 99, []string{"!", "y"}},
		{"last line without newline", "a\nb", 10, []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := bufio.NewReaderSize(strings.NewReader(tt.input), 16)
			var got []string
			for {
				line, tooLong, err := readLine(r, tt.limit)
				switch {
				case tooLong:
					got = append(got, "!")
				case len(line) > 0:
					got = append(got, string(line))
				}
				if err != nil {
					break
				}
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
