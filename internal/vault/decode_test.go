package vault

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/text/encoding/japanese"

	"github.com/langspec/langspec/internal/apperr"
)

// People drop their own files into the vault: ReadFile decodes them as the
// manuals are decoded, drops a BOM and reads "\r\n" and a lone "\r" as line
// ends; a file that is not text is undecodable, and vault_find names it
// instead of failing.
func TestReadFileDecodes(t *testing.T) {
	e := newEnv(t, Options{})
	sjis, err := japanese.ShiftJIS.NewEncoder().String("# 通院特約\r\n美容整形は対象外です。\r\n")
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		"notes/sjis.md":  sjis,
		"notes/bom.md":   "\ufeff# 見出し\r\n本文\r\n",
		"notes/cr.md":    "a\rb\rc",
		"notes/plain.md": "# x\n",
		"notes/pic.md":   "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\xff\xfe\x80\x81",
	} {
		mustWrite(t, filepath.Join(e.dir, filepath.FromSlash(name)), content)
	}
	for _, tt := range []struct{ path, want string }{
		{"notes/sjis.md", "# 通院特約\n美容整形は対象外です。\n"},
		{"notes/bom.md", "# 見出し\n本文\n"},
		{"notes/cr.md", "a\nb\nc"},
		{"notes/plain.md", "# x\n"},
	} {
		got, err := e.v.ReadFile(tt.path)
		if err != nil || string(got) != tt.want {
			t.Errorf("ReadFile(%s) = %q, %v; want %q", tt.path, got, err, tt.want)
		}
	}
	if _, err := e.v.ReadFile("notes/pic.md"); apperr.CodeOf(err) != apperr.Undecodable || !strings.Contains(err.Error(), "notes/pic.md") {
		t.Errorf("binary file: %v, want undecodable naming it", err)
	}
	res, err := e.v.Find(context.Background(), FindRequest{Query: "美容整形"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Candidates) == 0 || res.Candidates[0].Path != "notes/sjis.md" {
		t.Errorf("vault_find in a Shift_JIS note: %+v", res.Candidates)
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, "notes/pic.md not searched") {
		t.Errorf("warnings %q", res.Warnings)
	}
}
