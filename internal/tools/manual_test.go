package tools

import (
	"strings"
	"testing"
)

func TestManualTools(t *testing.T) {
	cs, _ := connectDeps(t, Deps{Store: mustOpenDB(t), Manuals: mustOpenManuals(t)})
	policy := "約款/普通保険約款.md"
	steps := []struct {
		name string
		tool string
		args map[string]any
		want []string
		not  []string // must not appear
		err  bool
	}{
		{"manual ids only", "manual_list", map[string]any{}, []string{"insurance-ja\nkasai-hoken\nnodejs-en\nops-en\nops-handbook"}, []string{".md"}, false},
		{"files at any depth, .md and .json only", "manual_ls", map[string]any{"manual_id": "ops-en"},
			[]string{"alerts/thresholds.json", "runbooks/db/failover.md"}, []string{"notes.txt"}, false},
		{"unknown manual", "manual_ls", map[string]any{"manual_id": "medical"}, []string{"not_found", "insurance-ja, kasai-hoken, nodejs-en, ops-en, ops-handbook"}, nil, true},
		{"table of contents", "manual_toc", map[string]any{"manual_id": "insurance-ja", "path": policy},
			[]string{"保険金の支払い (node_id=保険金の支払い, lines 9-42)", "    免責事項 (node_id=保険金の支払い/支払いの対象外/免責事項, lines 22-27)"}, nil, false},
		{"a section with its subsections", "manual_read",
			map[string]any{"manual_id": "insurance-ja", "path": policy, "scope": "section", "node_id": "保険金の支払い/支払いの対象外"},
			[]string{"lines 18-31", "故意もしくは重大な過失", "自動車、通貨、有価証券"}, []string{"賠償責任特約"}, false},
		{"sections, capped", "manual_read",
			map[string]any{"manual_id": "insurance-ja", "path": policy, "scope": "sections",
				"node_ids": []string{"保険金の支払い/保険金を支払う場合", "賠償責任特約", "手続きの流れ"}, "max_sections": 2},
			[]string{"火災、落雷", "## 賠償責任特約", "not read, over max_sections or max_chars: 手続きの流れ"}, nil, false},
		{"max_chars cuts", "manual_read",
			map[string]any{"manual_id": "insurance-ja", "path": policy, "scope": "section", "node_id": "保険金の支払い", "max_chars": 20},
			[]string{"[cut at max_chars in line 11 of 9-42: raise max_chars (at most 100000)"}, []string{"損害保険金"}, false},
		{"JSON by file scope", "manual_read", map[string]any{"manual_id": "ops-en", "path": "alerts/thresholds.json", "scope": "file"},
			[]string{"#file"}, nil, false},
		{"section needs node_id", "manual_read", map[string]any{"manual_id": "ops-en", "path": "README.md", "scope": "section"},
			[]string{"needs node_id"}, nil, true},
		{"unknown scope", "manual_read", map[string]any{"manual_id": "ops-en", "path": "README.md", "scope": "all"},
			[]string{"argument scope"}, nil, true},
		{"exceptions across the manual", "manual_excepts", map[string]any{"manual_id": "insurance-ja"},
			[]string{"約款/普通保険約款.md:", "[保険金の支払い/支払いの対象外/免責事項]", "ただし", "除く"}, nil, false},
		{"exceptions about one topic", "manual_excepts", map[string]any{"manual_id": "insurance-ja", "paths": []string{policy}, "query": "賠償"},
			[]string{"[賠償責任特約/"}, []string{"[保険金の支払い/"}, false},
		{"exceptions in English", "manual_excepts", map[string]any{"manual_id": "ops-en", "max_hits": 1},
			[]string{"[more: raise max_hits"}, nil, false},
		{"escape", "manual_toc", map[string]any{"manual_id": "ops-en", "path": "../insurance-ja/faq/よくある質問.md"},
			[]string{"path_outside_manuals"}, nil, true},
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
		for _, w := range st.not {
			if strings.Contains(got, w) {
				t.Errorf("%s: %q holds %q", st.name, got, w)
			}
		}
	}
}
