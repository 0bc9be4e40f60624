package find

import "testing"

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
