// Package resources serves langspec's stored documents, manual files and
// vault notes as MCP resources, which clients attach to a conversation (an
// "@" mention in Claude Code, "Add context" in VS Code):
//
//   - every stored document is a resource langspec://{language}/{doc}, its
//     text the table of contents in Markdown; resources/list lists these
//     only, never sections, so it stays small;
//   - templates read a section (langspec://{language}/{doc}/sections/{section_id},
//     optionally pinned with /versions/{version} after {doc}), a manual file
//     (langspec://manuals/{manual_id}/{path}) and a vault note
//     (langspec://vault/{path}), the last two only when the server has
//     manuals or a vault.
//
// Every read goes through the same code the tools use: search.Section for
// sections (so source_policy is honoured exactly as get_section does),
// manual.Library and vault.Vault for files (so their path rules, symbolic
// links included, apply unchanged). Resources are read-only: reading a vault
// note records no coverage.
package resources

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/completion"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/search"
	"github.com/langspec/langspec/internal/specdiff"
	"github.com/langspec/langspec/internal/tools"
)

// MIME types of what is served.
const (
	mimeMarkdown = "text/markdown"
	mimeJSON     = "application/json"
	mimeText     = "text/plain"
)

// MaxChars bounds the text of one read: a file or section larger than this
// is cut, with a note saying where and which tool reads on. It is the
// vault_read and get_section page limit, so no resource costs a model more
// than the largest tool answer.
const MaxChars = search.MaxPageChars

// listTimeout bounds reading the document list at registration, which runs
// before the server answers anything.
const listTimeout = 5 * time.Second

// Register adds the resources and templates d can serve to s: the
// documents and section templates when d has a store, the manual template
// when it has manuals, the vault template when it has a vault. The listing
// is of the documents stored now; one ingested later is still read through
// the templates. A store that cannot be listed is logged, and the templates
// are added anyway.
func Register(s *mcp.Server, d *tools.Deps, g Grants) {
	r := &reader{d: d, g: g, log: d.Logger}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	s.AddReceivingMiddleware(r.fallback)
	for _, t := range templates(d, g) {
		s.AddResourceTemplate(t, r.read)
	}
	if d.Store == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), listTimeout)
	defer cancel()
	langs, err := search.Languages(ctx, d.Store)
	if err != nil {
		r.log.Warn("resources: documents not listed; the templates still read them", "err", err)
		return
	}
	for _, l := range langs {
		for _, doc := range l.Docs {
			if doc.LatestVersion == "" {
				continue // nothing complete to read
			}
			s.AddResource(&mcp.Resource{
				URI:         docURI(l.Language, doc.Doc, ""),
				Name:        l.Language + "/" + doc.Doc,
				Title:       doc.DisplayName,
				Description: "Table of contents (section ids and titles) of " + doc.DisplayName + " " + doc.LatestVersion + "; read a section at " + docURI(l.Language, doc.Doc, "") + "/sections/{section_id}",
				MIMEType:    mimeMarkdown,
			}, r.read)
		}
	}
}

// Grants are what a client may read beyond what d's parts give: a template
// that answers what a tool answers is granted by that tool. d's store (the
// documents and sections, get_section's) does not grant the diff template,
// which answers what spec_diff does.
type Grants struct {
	Diff bool // the client may call spec_diff
}

// templates are the resource templates d can serve under g, in listing
// order.
func templates(d *tools.Deps, g Grants) []*mcp.ResourceTemplate {
	var out []*mcp.ResourceTemplate
	if d.Store != nil {
		out = append(out,
			&mcp.ResourceTemplate{URITemplate: tmplDoc, Name: "document", Title: "Document contents",
				Description: "Table of contents of a stored document (section ids, titles, depth), latest version.", MIMEType: mimeMarkdown},
			&mcp.ResourceTemplate{URITemplate: tmplSection, Name: "section", Title: "Specification section",
				Description: "One section as Markdown with its canonical URL and version (latest); excerpt_only documents give an excerpt, as get_section does.", MIMEType: mimeMarkdown},
			&mcp.ResourceTemplate{URITemplate: tmplVersionDoc, Name: "document-version", Title: "Document contents at a version",
				Description: "Table of contents of a stored document at one stored version.", MIMEType: mimeMarkdown},
			&mcp.ResourceTemplate{URITemplate: tmplVersionSection, Name: "section-version", Title: "Specification section at a version",
				Description: "One section of one stored version as Markdown with its canonical URL.", MIMEType: mimeMarkdown},
		)
		if g.Diff {
			out = append(out, &mcp.ResourceTemplate{URITemplate: tmplDiff, Name: "diff", Title: "What changed between two versions",
				Description: "What changed in a document between two stored versions, as spec_diff answers it: counts by chapter, then the first page of changed sections.", MIMEType: mimeMarkdown})
		}
	}
	if d.Manuals != nil {
		out = append(out, &mcp.ResourceTemplate{URITemplate: tmplManual, Name: "manual-file", Title: "Manual file",
			Description: "A .md or .json file of a manual (MANUALS_ROOT), read-only; path is relative to the manual's folder."})
	}
	if d.Vault != nil {
		out = append(out, &mcp.ResourceTemplate{URITemplate: tmplVault, Name: "vault-note", Title: "Vault note",
			Description: "A file of the vault, read-only; path is relative to the vault root."})
	}
	return out
}

// Arguments is the completion lookup of the templates: each template's
// variables with what they complete to. Only the template strings matter,
// so a reference to a template this server does not offer completes from
// whatever d has (nothing, for missing manuals or vault).
func Arguments(ref *mcp.CompleteReference) map[string]completion.Kind {
	if ref == nil || ref.Type != "ref/resource" {
		return nil
	}
	doc := map[string]completion.Kind{"language": completion.Language, "doc": completion.Doc}
	with := func(extra map[string]completion.Kind) map[string]completion.Kind {
		for k, v := range doc {
			extra[k] = v
		}
		return extra
	}
	switch ref.URI {
	case tmplDoc:
		return doc
	case tmplSection:
		return with(map[string]completion.Kind{"section_id": completion.Section})
	case tmplVersionDoc:
		return with(map[string]completion.Kind{"version": completion.Version})
	case tmplVersionSection:
		return with(map[string]completion.Kind{"version": completion.Version, "section_id": completion.Section})
	case tmplDiff:
		return with(map[string]completion.Kind{"from": completion.Version, "to": completion.Version})
	case tmplManual:
		return map[string]completion.Kind{"manual_id": completion.Manual, "path": completion.ManualPath}
	case tmplVault:
		return map[string]completion.Kind{"path": completion.VaultPath}
	}
	return nil
}

// fallback is a receiving middleware around resources/read of langspec
// URIs. It percent-encodes what a client left raw in the URI (escapeRaw)
// before the SDK matches it against the templates; and when the URI
// matches none, so that the SDK could only answer "Resource not found", it
// lets the reader say what is wrong (a malformed URI, a folder this server
// lacks) and what exists instead. The reader checks every URI itself, so
// answering one no template matched opens nothing the templates do not.
func (r *reader) fallback(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		rr, ok := req.(*mcp.ReadResourceRequest)
		if !ok || method != "resources/read" || rr.Params == nil || !strings.HasPrefix(rr.Params.URI, Scheme) {
			return next(ctx, method, req)
		}
		rr.Params.URI = escapeRaw(rr.Params.URI)
		res, err := next(ctx, method, req)
		if isSDKNotFound(err) {
			res, err := r.read(ctx, rr)
			if err != nil {
				return nil, err
			}
			return markComplete(rr.Session, res), nil
		}
		return res, err
	}
}

// markComplete gives a result read here, past the SDK's handlers, the mark
// the SDK gives theirs: for a client of protocol 2026-07-28 or later, which
// requires it, resultType "complete". The field is unexported; only the
// SDK's decoder sets it, so the mark is decoded from JSON.
func markComplete(ss *mcp.ServerSession, res *mcp.ReadResourceResult) *mcp.ReadResourceResult {
	if ss != nil {
		if p := ss.InitializeParams(); p != nil && p.ProtocolVersion < multiRoundTripVersion {
			return res // the SDK leaves older clients' results unmarked
		}
	}
	var marked mcp.ReadResourceResult
	if err := json.Unmarshal([]byte(`{"contents":[],"resultType":"complete"}`), &marked); err != nil {
		return res
	}
	marked.Contents = res.Contents
	return &marked
}

// multiRoundTripVersion is the first protocol version whose results carry
// resultType (SEP-2322); versions are dates, so they compare as strings.
const multiRoundTripVersion = "2026-07-28"

// isSDKNotFound reports mcp.ResourceNotFoundError itself, which the SDK
// sends for a URI no resource or template matches. The reader's own
// not-found errors share its code but always carry a message of their own.
func isSDKNotFound(err error) bool {
	e, ok := errors.AsType[*jsonrpc.Error](err)
	sdk, _ := errors.AsType[*jsonrpc.Error](mcp.ResourceNotFoundError(""))
	return ok && sdk != nil && e.Code == sdk.Code && e.Message == sdk.Message
}

// reader reads every langspec URI. All templates share it: it parses the
// URI itself, so which template the SDK matched does not matter.
type reader struct {
	d   *tools.Deps
	g   Grants
	log *slog.Logger
}

func (r *reader) read(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	t, err := parse(uri, r.d.Manuals != nil, r.d.Vault != nil)
	if err != nil {
		return nil, r.rpcError(ctx, uri, err)
	}
	var c *mcp.ResourceContents
	switch t.kind {
	case targetDoc:
		c, err = r.contents(ctx, t)
	case targetSection:
		c, err = r.section(ctx, t)
	case targetDiff:
		if !r.g.Diff {
			err = apperr.New(apperr.NotFound, "call search_spec or get_section, or ask an admin for a token that allows spec_diff",
				"this client may not read what spec_diff answers (its token's tools leave spec_diff out)")
			break
		}
		c, err = r.diff(ctx, t)
	case targetManual:
		c, err = r.manualFile(t)
	case targetVault:
		c, err = r.vaultFile(t)
	}
	if err != nil {
		return nil, r.rpcError(ctx, uri, err)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
}

// store is d's store, or the error a URI naming a document gets without
// one. "manuals" and "vault" without those folders land here too, and are
// told what is missing rather than that no such language is stored.
func (r *reader) store(t target) (*db.DB, error) {
	switch {
	case t.language == hostManuals && r.d.Manuals == nil:
		return nil, apperr.New(apperr.NotFound, "set MANUALS_ROOT (or WORKSPACE_ROOT) to a folder of manuals and restart the server", "this server has no manuals folder")
	case t.language == hostVault && r.d.Vault == nil:
		return nil, apperr.New(apperr.NotFound, "set VAULT_ROOT (or WORKSPACE_ROOT) and restart the server", "this server has no vault")
	case r.d.Store == nil:
		return nil, apperr.New(apperr.NotFound, "", "this server serves no specifications")
	}
	return r.d.Store, nil
}

func (r *reader) contents(ctx context.Context, t target) (*mcp.ResourceContents, error) {
	store, err := r.store(t)
	if err != nil {
		return nil, err
	}
	v, rows, err := store.Outline(ctx, db.Scope{Language: t.language, Doc: t.doc, Version: t.version})
	if err != nil {
		return nil, err
	}
	return &mcp.ResourceContents{URI: docURI(v.Language, v.Doc, t.version), MIMEType: mimeMarkdown, Text: renderContents(v, rows, t.version != "")}, nil
}

func (r *reader) section(ctx context.Context, t target) (*mcp.ResourceContents, error) {
	if _, err := r.store(t); err != nil {
		return nil, err
	}
	// get_section's call, MaxChars as a page bound: it returns what the
	// source policy allows, and says what it withheld.
	res, err := r.d.Specs().Section(ctx, search.SectionRequest{
		Language: t.language, Doc: t.doc, Version: t.version, SectionID: t.sectionID, MaxChars: MaxChars,
	})
	if err != nil {
		return nil, err
	}
	c := res.Citation
	return &mcp.ResourceContents{URI: sectionURI(c.Language, c.Doc, t.version, c.SectionID), MIMEType: mimeMarkdown,
		Text: renderSection(res, t.version)}, nil
}

// diff is what spec_diff answers for the two versions, its text content:
// the counts and the first page, never the whole document.
func (r *reader) diff(ctx context.Context, t target) (*mcp.ResourceContents, error) {
	if _, err := r.store(t); err != nil {
		return nil, err
	}
	ans, err := r.d.Specs().Diff(ctx, specdiff.Request{Language: t.language, Doc: t.doc, From: t.from, To: t.to})
	if err != nil {
		return nil, err
	}
	uri := Scheme + escape(ans.Language, false) + "/" + escape(ans.Doc, false) + "/diff/" + escape(ans.From.Version, false) + "/" + escape(ans.To.Version, false)
	return &mcp.ResourceContents{URI: uri, MIMEType: mimeMarkdown, Text: specdiff.Text(ans)}, nil
}

func (r *reader) manualFile(t target) (*mcp.ResourceContents, error) {
	f, err := r.d.Manuals.ReadFile(t.manualID, t.path)
	if err != nil {
		return nil, err
	}
	text, mime := capped(string(f.Text), f.Path, "read on with manual_read (manual_id "+f.ManualID+", path "+f.Path+")")
	return &mcp.ResourceContents{URI: manualURI(f.ManualID, f.Path), MIMEType: mime, Text: text}, nil
}

func (r *reader) vaultFile(t target) (*mcp.ResourceContents, error) {
	data, err := r.d.Vault.ReadFile(t.path)
	if err != nil {
		return nil, err
	}
	canon, err := r.d.Vault.Clean(t.path)
	if err != nil {
		return nil, err
	}
	text, mime := capped(string(data), canon, "read on with vault_read (path "+canon+", start_line)")
	return &mcp.ResourceContents{URI: vaultURI(canon), MIMEType: mime, Text: text}, nil
}

// capped returns a file's text for a resource, cut at MaxChars at a line
// end with a note naming the tool that reads on, and its MIME type by
// extension. JSON that had to be cut is no longer JSON, so it is served as
// plain text.
func capped(text, name, readOn string) (string, string) {
	mime := mimeText
	switch strings.ToLower(path.Ext(name)) {
	case ".md", ".markdown":
		mime = mimeMarkdown
	case ".json":
		mime = mimeJSON
	}
	total := utf8.RuneCountInString(text)
	if total <= MaxChars {
		return text, mime
	}
	runes := []rune(text)[:MaxChars]
	cut := len(runes)
	for i := len(runes) - 1; i > len(runes)*4/5; i-- {
		if runes[i] == '\n' {
			cut = i + 1
			break
		}
	}
	if mime == mimeJSON {
		mime = mimeText
	}
	return string(runes[:cut]) + "\n\n[langspec: cut at character " + itoa(cut) + " of " + itoa(total) + "; " + readOn + "]\n", mime
}

// rpcError turns a read's error into the JSON-RPC error the client gets:
// not found is invalid params, the code MCP gives a resource not found
// (SEP-2164), with the message and hint that say what exists; so is a bad
// URI or path; anything else is reported without internals
// (tools.UserError logs it in full).
func (r *reader) rpcError(ctx context.Context, uri string, err error) error {
	err = tools.UserError(ctx, r.log, "resources/read", err)
	data, _ := json.Marshal(map[string]string{"uri": uri})
	switch apperr.CodeOf(err) {
	case apperr.NotFound:
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error(), Data: data}
	case apperr.Internal, apperr.Unavailable, apperr.CorruptDatabase:
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error(), Data: data}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error(), Data: data}
}
