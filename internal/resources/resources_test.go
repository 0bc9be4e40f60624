package resources_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest"
	"github.com/langspec/langspec/internal/resources"
	"github.com/langspec/langspec/internal/search"
	"github.com/langspec/langspec/internal/tools"
	"github.com/langspec/langspec/internal/tools/toolstest"
)

// openStore is the Go spec plus the Python fixture and the Go spec again
// as "restricted", a document whose licence allows only an excerpt (the
// excerpt_only fixtures' sections are all shorter than an excerpt): three
// documents, so the listing pages.
func openStore(t *testing.T) *db.DB {
	t.Helper()
	s := toolstest.OpenDB(t)
	for _, l := range []struct{ preset, language, policy, from string }{
		{"python", "python", "", filepath.Join("..", "..", "fixtures", "sphinx")},
		{"go", "restricted", db.ExcerptOnly, filepath.Join("..", "..", "fixtures", "gospec", "go_spec.html")},
	} {
		src, err := ingest.Resolve(nil, l.preset, "")
		if err != nil {
			t.Fatal(err)
		}
		src.Language = l.language
		if l.policy != "" {
			src.SourcePolicy = l.policy
		}
		if _, err := ingest.Ingest(context.Background(), s, src, ingest.Options{From: l.from, Now: func() time.Time { return toolstest.Now }}); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// serve registers the resources of d on a server with pageSize and
// connects a client to it.
func serve(t *testing.T, d *tools.Deps, pageSize int) *mcp.ClientSession {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "langspec", Version: "t"}, &mcp.ServerOptions{PageSize: pageSize})
	resources.Register(s, d, resources.Grants{Diff: true})
	return toolstest.Connect(t, s)
}

func fullDeps(t *testing.T) *tools.Deps {
	t.Helper()
	return &tools.Deps{Store: openStore(t), Manuals: toolstest.OpenManuals(t), Vault: toolstest.OpenVault(t)}
}

func TestListPagesDocumentsOnly(t *testing.T) {
	ctx := context.Background()
	cs := serve(t, &tools.Deps{Store: openStore(t)}, 1)
	first, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Resources) != 1 || first.NextCursor == "" {
		t.Fatalf("page size 1: first page %d resources, cursor %q", len(first.Resources), first.NextCursor)
	}
	var uris []string
	for r, err := range cs.Resources(ctx, nil) { // follows the cursor
		if err != nil {
			t.Fatal(err)
		}
		uris = append(uris, r.URI)
		if r.MIMEType != "text/markdown" || r.Title == "" || r.Name == "" {
			t.Errorf("resource %+v", r)
		}
	}
	want := []string{"langspec://go/spec", "langspec://python/reference", "langspec://restricted/spec"}
	if !slices.Equal(uris, want) {
		t.Errorf("listed %v, want %v (documents only, no sections)", uris, want)
	}
}

func TestTemplatesFollowDeps(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	tests := []struct {
		name string
		deps *tools.Deps
		want []string
	}{
		{"store only", &tools.Deps{Store: store}, []string{
			"langspec://{language}/{doc}", "langspec://{language}/{doc}/diff/{from}/{to}", "langspec://{language}/{doc}/sections/{section_id}",
			"langspec://{language}/{doc}/versions/{version}", "langspec://{language}/{doc}/versions/{version}/sections/{section_id}"}},
		{"manuals and vault", &tools.Deps{Manuals: toolstest.OpenManuals(t), Vault: toolstest.OpenVault(t)}, []string{
			"langspec://manuals/{manual_id}/{+path}", "langspec://vault/{+path}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := serve(t, tt.deps, 0).ListResourceTemplates(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, rt := range res.ResourceTemplates {
				got = append(got, rt.URITemplate)
			}
			slices.Sort(got)
			slices.Sort(tt.want)
			if !slices.Equal(got, tt.want) {
				t.Errorf("templates %v, want %v", got, tt.want)
			}
		})
	}
}

func TestReadSpec(t *testing.T) {
	ctx := context.Background()
	d := fullDeps(t)
	cs := serve(t, d, 0)
	// What get_section returns for the same section: the resource must carry
	// the same text, withheld the same way.
	_, rows, err := d.Store.Outline(ctx, db.Scope{Language: "restricted"})
	if err != nil {
		t.Fatal(err)
	}
	long := slices.IndexFunc(rows, func(r db.SectionRow) bool { return r.CharCount > 2*search.ExcerptChars })
	if long < 0 {
		t.Fatal("no section is longer than an excerpt")
	}
	longURI := "langspec://restricted/spec/sections/" + rows[long].SectionID
	restricted, err := search.Section(ctx, d.Store, search.SectionRequest{Language: "restricted", SectionID: rows[long].SectionID, MaxChars: search.MaxPageChars})
	if err != nil {
		t.Fatal(err)
	}
	if restricted.SourcePolicy != db.ExcerptOnly || restricted.Notice == "" || restricted.AvailableChars >= restricted.TotalChars {
		t.Fatalf("the restricted copy should be excerpt_only, cut, with a notice: %+v", restricted)
	}
	slice, err := search.Section(ctx, d.Store, search.SectionRequest{Language: "go", SectionID: "Slice_expressions", MaxChars: search.MaxPageChars})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		uri, wantURI string
		want         []string
	}{
		{"langspec://go/spec/sections/Slice_expressions", "", []string{"# Slice expressions", "- Cite: https://go.dev/ref/spec#Slice_expressions",
			"version go1.26", "source_policy full_text", strings.TrimSpace(slice.Text), "## Subsections", "langspec://go/spec/sections/Full_slice_expressions"}},
		// A title works as get_section's section_id does; the content's URI is the id's.
		{"langspec://go/spec/sections/slice%20expressions", "langspec://go/spec/sections/Slice_expressions", []string{"# Slice expressions"}},
		{"langspec://go/spec/versions/go1.26/sections/Slice_expressions", "", []string{"version go1.26",
			"langspec://go/spec/versions/go1.26/sections/Full_slice_expressions"}},
		{longURI, "", []string{"source_policy excerpt_only", strings.TrimSpace(restricted.Text), restricted.Notice}},
		{"langspec://go/spec", "", []string{"# The Go Programming Language Specification — contents", "go/spec, version go1.26",
			"- Introduction `Introduction`", "\n  - Slice expressions `Slice_expressions`", "langspec://go/spec/sections/{section_id}"}},
		{"langspec://go/spec/versions/go1.26", "", []string{"langspec://go/spec/versions/go1.26/sections/{section_id}"}},
	}
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			c := readOne(t, cs, tt.uri, tt.wantURI, "text/markdown")
			for _, w := range tt.want {
				if !strings.Contains(c.Text, w) {
					t.Errorf("text lacks %q:\n%s", w, head(c.Text))
				}
			}
		})
	}
	// The excerpt is all that is served, as get_section serves it.
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: longURI})
	if err != nil {
		t.Fatal(err)
	}
	if n := len([]rune(res.Contents[0].Text)); n > search.ExcerptChars+1000 || n >= restricted.TotalChars {
		t.Errorf("excerpt_only section served %d characters", n)
	}
}

func TestReadFiles(t *testing.T) {
	d := fullDeps(t)
	if _, err := d.Vault.Create("notes/plan.md", []byte("# Plan\nread the spec\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Vault.Create("notes/計画.md", []byte("# 計画\n")); err != nil {
		t.Fatal(err)
	}
	cs := serve(t, d, 0)
	tests := []struct {
		uri, wantURI, mime, want string
	}{
		{"langspec://manuals/ops-en/runbooks/db/failover.md", "", "text/markdown", "# "},
		{"langspec://manuals/ops-en/alerts/thresholds.json", "", "application/json", "{"},
		// Raw UTF-8, as a client building the URI by hand sends it, and encoded.
		{"langspec://manuals/insurance-ja/約款/普通保険約款.md", "langspec://manuals/insurance-ja/%E7%B4%84%E6%AC%BE/%E6%99%AE%E9%80%9A%E4%BF%9D%E9%99%BA%E7%B4%84%E6%AC%BE.md", "text/markdown", "支払"},
		{"langspec://manuals/insurance-ja/%E7%B4%84%E6%AC%BE/%E6%99%AE%E9%80%9A%E4%BF%9D%E9%99%BA%E7%B4%84%E6%AC%BE.md", "", "text/markdown", "支払"},
		{"langspec://vault/notes/plan.md", "", "text/markdown", "read the spec"},
		{"langspec://vault/notes/計画.md", "langspec://vault/notes/%E8%A8%88%E7%94%BB.md", "text/markdown", "# 計画"},
	}
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			c := readOne(t, cs, tt.uri, tt.wantURI, tt.mime)
			if !strings.Contains(c.Text, tt.want) {
				t.Errorf("text %q; want it to contain %q", head(c.Text), tt.want)
			}
		})
	}
}

func TestReadRefuses(t *testing.T) {
	ctx := context.Background()
	d := fullDeps(t)
	// A link inside the vault to a file outside it, and one to a note
	// inside: the vault follows neither.
	outside := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(outside, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Vault.Create("notes/plan.md", []byte("plan\n")); err != nil {
		t.Fatal(err)
	}
	for name, to := range map[string]string{"out.md": outside, "in.md": filepath.Join(d.Vault.Dir(), "notes", "plan.md")} {
		if err := os.Symlink(to, filepath.Join(d.Vault.Dir(), "notes", name)); err != nil {
			t.Skip("no symbolic links here:", err)
		}
	}
	cs := serve(t, d, 0)
	tests := []struct {
		uri  string
		code int64
		want string // in the message
	}{
		{"langspec://vault/../secret.md", jsonrpc.CodeInvalidParams, "path_outside_vault"},
		{"langspec://vault/%2e%2e/secret.md", jsonrpc.CodeInvalidParams, "path_outside_vault"},
		{"langspec://vault/notes/..%2f..%2fsecret.md", jsonrpc.CodeInvalidParams, "path_outside_vault"},
		{"langspec://vault/%2Fetc%2Fpasswd", jsonrpc.CodeInvalidParams, "path_outside_vault"},
		{"langspec://vault/notes/out.md", jsonrpc.CodeInvalidParams, "path_outside_vault"},
		{"langspec://vault/notes/in.md", jsonrpc.CodeInvalidParams, "path_outside_vault"},
		{"langspec://vault/notes/none.md", jsonrpc.CodeInvalidParams, "not_found"},
		{"langspec://manuals/ops-en/../../etc/passwd.md", jsonrpc.CodeInvalidParams, "path_outside_manuals"},
		{"langspec://manuals/..%2F..%2Fetc/passwd.md", jsonrpc.CodeInvalidParams, "path_outside_manuals"},
		{"langspec://manuals/ops-en/%5C..%5Csecret.md", jsonrpc.CodeInvalidParams, "path_outside_manuals"},
		{"langspec://manuals/nosuch/a.md", jsonrpc.CodeInvalidParams, "manual ids: "},
		{"langspec://go/spec/sections/Slice_expresions", jsonrpc.CodeInvalidParams, "nearest ids: Slice_expressions"},
		{"langspec://cobol/spec", jsonrpc.CodeInvalidParams, "available languages: go, python, restricted"},
		{"langspec://go/nosuch", jsonrpc.CodeInvalidParams, "available documents: spec"},
		{"langspec://go/spec/versions/go0.1", jsonrpc.CodeInvalidParams, "available versions: go1.26"},
		{"langspec://go/spec/chapters/x", jsonrpc.CodeInvalidParams, "resources/templates/list"},
		{"langspec://go/spec/sections/Slice_expressions?x=1", jsonrpc.CodeInvalidParams, "query or fragment"},
	}
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: tt.uri})
			var rpc *jsonrpc.Error
			if !errors.As(err, &rpc) {
				t.Fatalf("got %v, want a JSON-RPC error", err)
			}
			if rpc.Code != tt.code || !strings.Contains(rpc.Message, tt.want) {
				t.Errorf("got %d %q, want %d containing %q", rpc.Code, rpc.Message, tt.code, tt.want)
			}
			if strings.Contains(rpc.Message, "secret") && !strings.Contains(tt.uri, "secret") {
				t.Errorf("message leaks: %s", rpc.Message)
			}
		})
	}
}

// Without manuals or a vault their hosts are not languages: the error says
// what the server lacks.
func TestReadWithoutFolders(t *testing.T) {
	cs := serve(t, &tools.Deps{Store: openStore(t)}, 0)
	for uri, want := range map[string]string{
		"langspec://vault/notes/plan.md":      "no vault",
		"langspec://manuals/ops-en/README.md": "no manuals folder",
	} {
		_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", uri, err, want)
		}
	}
}

func head(s string) string {
	if len(s) > 600 {
		return s[:600] + "…"
	}
	return s
}

// readOne reads uri and checks the content's URI (wantURI, or uri itself
// when empty) and MIME type.
func readOne(t *testing.T, cs *mcp.ClientSession, uri, wantURI, mime string) *mcp.ResourceContents {
	t.Helper()
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Contents[0]
	if wantURI == "" {
		wantURI = uri
	}
	if c.URI != wantURI || c.MIMEType != mime {
		t.Errorf("uri %q mime %q, want %q %s", c.URI, c.MIMEType, wantURI, mime)
	}
	return c
}
