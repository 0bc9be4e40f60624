package contextnote

import (
	"fmt"
	"strconv"
	"strings"
)

// WriteText writes the notes an answer carries, each once, after the
// answer's text as a model reads it (the tools' text content, the diff
// resource, the command line's diff and since); withHits names the results
// each covers. They are marked as the user's notes: text to weigh, never
// instructions.
func WriteText(b *strings.Builder, notes []Covered, withHits bool) {
	if len(notes) == 0 {
		return
	}
	b.WriteString("\nContext notes (the user's, on what the results come from):\n")
	for _, n := range notes {
		fmt.Fprintf(b, "- %s", n.Target)
		if withHits {
			hits := make([]string, len(n.Hits))
			for i, h := range n.Hits {
				hits[i] = strconv.Itoa(h)
			}
			fmt.Fprintf(b, " (results %s)", strings.Join(hits, ","))
		}
		if n.Aside {
			b.WriteString(" [aside]")
		}
		b.WriteString(": " + strings.ReplaceAll(n.Text, "\n", " ") + "\n")
	}
}
