package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/manual"
	"github.com/langspec/langspec/internal/tools/toolstest"
)

func mustOpenManuals(tb testing.TB) *manual.Library { return toolstest.OpenManuals(tb) }

// Bridging copies manual text into the vault inside the server: the model
// gets where it went and what it came from, never the text.
func TestBridgeTools(t *testing.T) {
	v := mustOpenVault(t)
	cs, _ := connectDeps(t, Deps{Store: mustOpenDB(t), Vault: v, Manuals: mustOpenManuals(t)})
	const secret = "故意もしくは重大な過失" // a line of the copied section
	steps := []struct {
		name string
		tool string
		args map[string]any
		want []string
		err  bool
		dest string // the vault file that must now hold secret
	}{
		{"a section with its subsections", "bridge_copy_section",
			map[string]any{"manual_id": "insurance-ja", "path": "約款/普通保険約款.md", "node_id": "保険金の支払い/支払いの対象外"},
			[]string{"copied insurance-ja/約款/普通保険約款.md#保険金の支払い/支払いの対象外 (lines 18-31) to drafts/insurance-ja/約款/普通保険約款/保険金の支払い/支払いの対象外.md"},
			false, "drafts/insurance-ja/約款/普通保険約款/保険金の支払い/支払いの対象外.md"},
		{"a line range to a chosen file", "bridge_copy_section",
			map[string]any{"manual_id": "insurance-ja", "path": "約款/普通保険約款.md", "start_line": 22, "end_line": 27, "dest": "notes/免責.md"},
			[]string{"(lines 22-27) to notes/免責.md"}, false, "notes/免責.md"},
		{"a whole JSON file, wrapped", "bridge_copy_file", map[string]any{"manual_id": "ops-en", "path": "alerts/thresholds.json"},
			[]string{"to drafts/ops-en/alerts/thresholds.json"}, false, ""},
		{"never replaces", "bridge_copy_section",
			map[string]any{"manual_id": "insurance-ja", "path": "約款/普通保険約款.md", "start_line": 1, "end_line": 2, "dest": "notes/免責.md"},
			[]string{"already_exists"}, true, ""},
		{"unknown manual", "bridge_copy_file", map[string]any{"manual_id": "medical", "path": "a.md"},
			[]string{"not_found", "insurance-ja", "ops-en"}, true, ""},
		{"unknown section", "bridge_copy_section", map[string]any{"manual_id": "insurance-ja", "path": "約款/普通保険約款.md", "node_id": "支払いの対象外"},
			[]string{"not_found", "保険金の支払い/支払いの対象外"}, true, ""},
		{"escape from the manuals", "bridge_copy_file", map[string]any{"manual_id": "ops-en", "path": "../insurance-ja/約款/普通保険約款.md"},
			[]string{"path_outside_manuals"}, true, ""},
		{"escape into the vault's parent", "bridge_copy_file", map[string]any{"manual_id": "ops-en", "path": "README.md", "dest": "../x.md"},
			[]string{"path_outside_vault"}, true, ""},
		{"section and range at once", "bridge_copy_section",
			map[string]any{"manual_id": "ops-en", "path": "README.md", "node_id": "x", "start_line": 1, "end_line": 2},
			[]string{"invalid_argument"}, true, ""},
	}
	for _, st := range steps {
		res := call(t, cs, st.tool, st.args)
		got := text(res)
		if res.IsError != st.err {
			t.Errorf("%s: isError %v: %s", st.name, res.IsError, got)
		}
		for _, w := range st.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", st.name, got, w)
			}
		}
		structured, _ := json.Marshal(res.StructuredContent)
		if strings.Contains(got, secret) || strings.Contains(string(structured), secret) {
			t.Errorf("%s: manual text reached the model", st.name)
		}
		if st.dest != "" {
			data, err := v.ReadFile(st.dest)
			if err != nil || !strings.Contains(string(data), secret) || !strings.Contains(string(data), `source_manual_ids: ["insurance-ja"]`) {
				t.Errorf("%s: vault copy %q, %v", st.name, data, err)
			}
		}
	}
	var out BridgeOut
	decode(t, call(t, cs, "bridge_copy_file", map[string]any{"manual_id": "ops-en", "path": "runbooks/db/failover.md"}), &out)
	if out.Destination != "drafts/ops-en/runbooks/db/failover.md" || out.Source.LineStart != 1 || out.Source.LineEnd < 30 ||
		len(out.SourceManualIDs) != 1 || out.Bytes == 0 {
		t.Errorf("file copy: %+v", out)
	}
	wrapped, err := v.ReadFile("drafts/ops-en/alerts/thresholds.json")
	var doc map[string]any
	if err != nil || json.Unmarshal(wrapped, &doc) != nil || doc["content"] == nil || doc["source"] != "ops-en/alerts/thresholds.json" {
		t.Errorf("wrapped JSON: %s %v", wrapped, err)
	}
}
