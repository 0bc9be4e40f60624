package resources

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMarkComplete: a read answered past the SDK's handlers carries the
// resultType a client of protocol 2026-07-28 requires, as the SDK's own
// answers do, and its contents unchanged.
func TestMarkComplete(t *testing.T) {
	res := &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "langspec://go/spec", Text: "# Go"}}}
	wire, err := json.Marshal(markComplete(nil, res))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(wire), `"resultType":"complete"`) || !strings.Contains(string(wire), `"text":"# Go"`) {
		t.Errorf("marked: %s", wire)
	}
}
