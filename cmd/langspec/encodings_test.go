package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/japanese"
	xunicode "golang.org/x/text/encoding/unicode"
	"golang.org/x/text/unicode/norm"
)

// peopleFile is one manual file as people have them: its name, its bytes
// on disk, and what langspec must read from it.
type peopleFile struct {
	name     string // as written to disk
	text     string // the text, "\n" line ends
	raw      []byte // the bytes on disk
	encoding string // reported for copies; "" for UTF-8
	term     string // a word only this file holds
}

// peopleManual writes, into a new manuals folder, one file per encoding
// and line-end convention people use, a file named in NFD (as macOS
// stores names), one that no encoding reads, and two names that differ only
// in Unicode form. The texts are real shapes of Japanese insurance manual
// lines, written by the test.
func peopleManual(t *testing.T) (dir string, files []peopleFile) {
	t.Helper()
	enc := func(e encoding.Encoding, s string) []byte {
		b, err := e.NewEncoder().Bytes([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	doc := func(title, line string) string {
		return "# " + title + "\n\n" + line + "\n\n## 注意\n\nただし、事故による場合を除きます。\n"
	}
	crlf := func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
	add := func(name, text string, raw []byte, encoding, term string) {
		files = append(files, peopleFile{name: name, text: text, raw: raw, encoding: encoding, term: term})
	}
	sjis := doc("通院特約", "① 美容整形は対象外です。")
	add("cp932.md", sjis, enc(japanese.ShiftJIS, crlf(sjis)), "cp932", "美容整形")
	euc := doc("入院特約", "入院給付金は日額で支払います。")
	add("eucjp.md", euc, enc(japanese.EUCJP, euc), "euc-jp", "入院給付金")
	jis := doc("手術特約", "手術給付金の倍率を定めます。")
	add("iso2022jp.md", jis, enc(japanese.ISO2022JP, jis), "iso-2022-jp", "手術給付金")
	le := doc("先進医療特約", "先進医療の技術料を支払います。")
	add("utf16le.md", le, enc(xunicode.UTF16(xunicode.LittleEndian, xunicode.UseBOM), crlf(le)), "utf-16le", "技術料")
	be := doc("女性疾病特約", "乳がんの治療を対象とします。")
	add("utf16be.md", be, enc(xunicode.UTF16(xunicode.BigEndian, xunicode.UseBOM), be), "utf-16be", "乳がん")
	bom := doc("三大疾病特約", "三大疾病一時金を支払います。")
	add("bom.md", bom, append([]byte("\ufeff"), crlf(bom)...), "", "一時金")
	cr := doc("保険料の払込", "保険料払込免除の条件を定めます。")
	add("cr.md", cr, []byte(strings.ReplaceAll(cr, "\n", "\r")), "", "払込免除")
	// Named and written on a Mac: the name and the text decomposed; the
	// query is typed composed.
	nfd := norm.NFD.String(doc("がん保険", "がん診断給付金は初めての診断で支払います。"))
	add(norm.NFD.String("がん保険.md"), nfd, []byte(nfd), "", "がん診断")

	dir = filepath.Join(t.TempDir(), "manuals")
	m := filepath.Join(dir, "people")
	if err := os.MkdirAll(filepath.Join(m, "twins"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(m, f.name), f.raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for path, data := range map[string][]byte{
		"broken.md": {0x80, 0xff, 0xfe, 0x00, 0x85, 0xfd, 0xff, '\n'},
		filepath.Join("twins", norm.NFC.String("ぱ.md")): []byte("# composed\n"),
		filepath.Join("twins", norm.NFD.String("ぱ.md")): []byte("# decomposed\n"),
	} {
		if err := os.WriteFile(filepath.Join(m, path), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, files
}

// callJSON calls a tool and decodes its structured result; a tool error
// fails the test unless wantErr, which returns the error text instead.
func callJSON(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, out any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if res.IsError {
		if out != nil {
			t.Fatalf("%s %v: %s", tool, args, text.String())
		}
		return text.String()
	}
	if out != nil {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatal(err)
		}
	}
	return text.String()
}

// Manuals as people have them, through a real MCP client over stdio: every
// encoding is listed, has its table of contents, is found for words it
// holds, reads back as the same text and copies into the vault as UTF-8; a
// name in either Unicode form finds its file; an undecodable file and a
// name conflict are named, never served.
func TestManualsAsPeopleHaveThem(t *testing.T) {
	manuals, files := peopleManual(t)
	dbPath := seededDB(t)
	cmd := serveCmd(langspecBinary(t), dbPath, &lockedBuffer{})
	for i, kv := range cmd.Env {
		if strings.HasPrefix(kv, "MANUALS_ROOT=") {
			cmd.Env[i] = "MANUALS_ROOT=" + manuals
		}
	}
	vault := strings.TrimPrefix(cmd.Env[slices.IndexFunc(cmd.Env, func(s string) bool { return strings.HasPrefix(s, "VAULT_ROOT=") })], "VAULT_ROOT=")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "people", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	var ls struct {
		Files    []string `json:"files"`
		Warnings []string `json:"warnings"`
	}
	callJSON(t, cs, "manual_ls", map[string]any{"manual_id": "people"}, &ls)
	for _, f := range files {
		if !slices.Contains(ls.Files, f.name) {
			t.Errorf("manual_ls lacks %q: %q", f.name, ls.Files)
		}
	}
	if slices.Contains(ls.Files, "broken.md") {
		t.Error("manual_ls lists the undecodable file as readable")
	}
	warnings := strings.Join(ls.Warnings, "\n")
	if !strings.Contains(warnings, "broken.md left out") || !strings.Contains(warnings, "differ only in Unicode normalisation") {
		t.Errorf("manual_ls warnings: %q", ls.Warnings)
	}

	for _, f := range files {
		t.Run(f.name, func(t *testing.T) {
			title := strings.TrimPrefix(strings.SplitN(f.text, "\n", 2)[0], "# ")
			for _, spelled := range []string{norm.NFC.String(f.name), norm.NFD.String(f.name)} {
				var toc struct {
					Nodes []struct {
						NodeID string `json:"node_id"`
						Title  string `json:"title"`
						Start  int    `json:"line_start"`
					} `json:"nodes"`
				}
				callJSON(t, cs, "manual_toc", map[string]any{"manual_id": "people", "path": spelled}, &toc)
				if len(toc.Nodes) != 2 || toc.Nodes[0].Title != title || toc.Nodes[0].NodeID != norm.NFC.String(title) && toc.Nodes[0].NodeID != title || toc.Nodes[1].Start != 5 {
					t.Errorf("toc by %+q: %+v", spelled, toc.Nodes)
				}
				var read struct {
					Path  string `json:"path"`
					Parts []struct {
						Text string `json:"text"`
					} `json:"parts"`
				}
				callJSON(t, cs, "manual_read", map[string]any{"manual_id": "people", "path": spelled, "scope": "file"}, &read)
				if len(read.Parts) != 1 || read.Parts[0].Text != f.text {
					t.Errorf("read by %+q: %q, want %q", spelled, read.Parts, f.text)
				}
				if read.Path != f.name {
					t.Errorf("read answers path %+q, want the name on disk %+q", read.Path, f.name)
				}
			}
			var sum struct {
				TraceID string `json:"trace_id"`
			}
			callJSON(t, cs, "manual_find", map[string]any{"manual_id": "people", "query": f.term}, &sum)
			var hits struct {
				Candidates []struct {
					Path string `json:"path"`
				} `json:"candidates"`
			}
			callJSON(t, cs, "manual_hits", map[string]any{"trace_id": sum.TraceID}, &hits)
			if !slices.ContainsFunc(hits.Candidates, func(c struct {
				Path string `json:"path"`
			}) bool {
				return c.Path == f.name
			}) {
				t.Errorf("manual_find %q did not find %s: %+v", f.term, f.name, hits.Candidates)
			}
			var cp struct {
				Destination string `json:"destination"`
				Source      struct {
					Encoding string `json:"encoding"`
					Path     string `json:"path"`
				} `json:"source"`
			}
			callJSON(t, cs, "bridge_copy_file", map[string]any{"manual_id": "people", "path": norm.NFC.String(f.name)}, &cp)
			copied, err := os.ReadFile(filepath.Join(vault, cp.Destination))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(copied), f.text) || strings.ContainsRune(string(copied), '\ufeff') || strings.Contains(string(copied), "\r") {
				t.Errorf("copy of %s is not the UTF-8 text:\n%q", f.name, copied)
			}
			if cp.Source.Encoding != f.encoding || cp.Source.Path != f.name {
				t.Errorf("copy source %+v, want encoding %q and path %+q", cp.Source, f.encoding, f.name)
			}
		})
	}

	if text := callJSON(t, cs, "manual_read", map[string]any{"manual_id": "people", "path": "broken.md", "scope": "file"}, nil); !strings.Contains(text, "undecodable") || !strings.Contains(text, "broken.md") {
		t.Errorf("reading the undecodable file: %s", text)
	}
	if text := callJSON(t, cs, "manual_read", map[string]any{"manual_id": "people", "path": "twins/ぱ.md", "scope": "file"}, nil); !strings.Contains(text, "name_conflict") {
		t.Errorf("reading a name with a twin: %s", text)
	}
	var sum struct {
		Warnings []string `json:"warnings"`
	}
	callJSON(t, cs, "manual_find", map[string]any{"manual_id": "people", "query": "保険"}, &sum)
	if w := strings.Join(sum.Warnings, "\n"); !strings.Contains(w, "people/broken.md was not searched") || !strings.Contains(w, "name_conflict") {
		t.Errorf("manual_find warnings: %q", sum.Warnings)
	}
}
