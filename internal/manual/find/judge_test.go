package find

import (
	"testing"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/text/normalize"
)

func TestConflicting(t *testing.T) {
	node := func(path, body string) *workNode {
		n := db.ManualNode{Path: path, NodeID: "n", Body: body, Norm: normalize.Normal(body), LineStart: 3}
		return &workNode{ManualNode: n, manual: "m", nodeTraits: traitsOf([]db.ManualNode{n})[0]}
	}
	tests := []struct {
		name  string
		nodes []*workNode
		want  bool
	}{
		{"different figures in two files", []*workNode{node("a.md", "within 30 days"), node("b.md", "within 60 days")}, true},
		{"different figures for the same words, Japanese", []*workNode{
			node("約款.md", "保険金のご請求は、損害が生じた日から30日以内に行ってください。"),
			node("FAQ.md", "損害が生じた日から６０日以内にご請求ください。"),
		}, true},
		{"emphasis around a figure changes nothing", []*workNode{node("a.md", "within **30** days"), node("b.md", "within 60 days")}, true},
		{"one heading, two classes: figures of different things", []*workNode{
			node("https.md", "* `maxCachedSessions` {number} maximum number of TLS cached sessions. Use `0` to disable TLS session caching. **Default:** `100`."),
			node("http.md", "* `keepAliveMsecs` {number} When using the `keepAlive` option, specifies the initial delay for TCP Keep-Alive packets. **Default:** `1000`.\n* `maxSockets` {number} Maximum number of sockets to allow per host. **Default:** `Infinity`."),
		}, false},
		{"same figures", []*workNode{node("a.md", "within 30 days"), node("b.md", "30 days at most")}, false},
		{"no figures on one side", []*workNode{node("a.md", "within 30 days"), node("b.md", "soon")}, false},
		{"same file", []*workNode{node("a.md", "within 30 days"), node("a.md", "within 60 days")}, false},
		{"full-width digits are normalised before", []*workNode{node("a.md", "３０日以内"), node("b.md", "30日以内")}, false},
		{"one restates the other with fewer figures", []*workNode{
			node("https.md", "* {number} **Default:** `5000` (5 seconds)"),
			node("http.md", "* {number} Timeout in milliseconds. **Default:** `5000` (5 seconds).\n\nA value of `0` disables it; Node.js before 8.0.0 had none."),
		}, false},
		{"a version history states no rule", []*workNode{
			node("a.md", "<!-- YAML\nadded: v8.0.0\n-->\n\nWithin 30 days."),
			node("b.md", "<!-- YAML\nadded: v9.1.0\n-->\n\nWithin 30 days."),
		}, false},
		{"nor do link definitions", []*workNode{
			node("a.md", "Within 30 days.\n\n[v8]: https://example.com/8.0"),
			node("b.md", "Within 30 days. Renewed after 90 days."),
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := conflicting(tt.nodes) != nil; got != tt.want {
				t.Fatalf("conflicting = %v, want %v", got, tt.want)
			}
		})
	}
}
