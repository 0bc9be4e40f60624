package tools

import (
	"context"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/ingest/manualfile"
	"github.com/langspec/langspec/internal/manual"
	"github.com/langspec/langspec/internal/manual/find"
	textdecode "github.com/langspec/langspec/internal/text/decode"
	"github.com/langspec/langspec/internal/vault"
)

// bridgeTools copy manual text into the vault inside the server: the text
// never passes through the model, which sees only where it went.
type bridgeTools struct {
	lib    *manual.Library
	v      *vault.Vault
	finder *find.Finder // records copies that follow a manual_find trace
	now    func() time.Time
}

// BridgeCopySectionIn copies a section or a line range.
type BridgeCopySectionIn struct {
	ManualID  string `json:"manual_id" jsonschema:"the manual, a folder name under MANUALS_ROOT"`
	Path      string `json:"path" jsonschema:"the .md file within the manual"`
	NodeID    string `json:"node_id,omitempty" jsonschema:"the section to copy with its subsections; or start_line and end_line"`
	StartLine int    `json:"start_line,omitempty" jsonschema:"first line of a range to copy, from 1"`
	EndLine   int    `json:"end_line,omitempty" jsonschema:"last line of the range"`
	Dest      string `json:"dest,omitempty" jsonschema:"new vault file; default drafts/<manual_id>/<path without .md>/<node_id or lines>.md"`
	TraceID   string `json:"trace_id,omitempty" jsonschema:"the manual_find trace it follows (tunes thresholds)"`
}

// BridgeCopyFileIn copies a whole manual file.
type BridgeCopyFileIn struct {
	ManualID string `json:"manual_id" jsonschema:"the manual, a folder name under MANUALS_ROOT"`
	Path     string `json:"path" jsonschema:"the .md or .json file within the manual"`
	Dest     string `json:"dest,omitempty" jsonschema:"new vault file to write; default drafts/<manual_id>/<path>"`
}

// BridgeOut reports a copy without its text.
type BridgeOut struct {
	Destination     string           `json:"destination" jsonschema:"the vault file written"`
	Bytes           int64            `json:"bytes" jsonschema:"bytes written, metadata included"`
	Lines           int              `json:"lines" jsonschema:"lines written, metadata included"`
	Source          manual.SourceRef `json:"source" jsonschema:"what was copied"`
	SourceManualIDs []string         `json:"source_manual_ids" jsonschema:"recorded in the copied file's metadata"`
}

func bridgeToolset() []Tool {
	no := false
	ann := func() *mcp.ToolAnnotations {
		return &mcp.ToolAnnotations{DestructiveHint: &no, OpenWorldHint: &no}
	}
	return needing(func(d *Deps) bool { return d.Vault != nil && d.Manuals != nil && d.Finder != nil }, []Tool{
		newTool(CategoryBridge, bindBridge, mcp.Tool{
			Name: "bridge_copy_section", Title: "Copy a manual section into the vault",
			Description: "Copy a Markdown manual section (its heading and all under it) or a line range into a new vault file without returning its text; the copy starts with metadata naming its source.",
			Annotations: ann(),
		}, func(s *jsonschema.Schema) {
			nonEmpty(s, "manual_id", maxNameChars)
			nonEmpty(s, "path", maxVaultPathChars)
			maxLen(s, "node_id", maxPathChars)
			maxLen(s, "dest", maxVaultPathChars)
			maxLen(s, "trace_id", find.MaxTraceIDChars)
			s.Properties["start_line"].Minimum = jsonschema.Ptr(1.0)
			s.Properties["end_line"].Minimum = jsonschema.Ptr(1.0)
		}, (*bridgeTools).copySection, renderBridge),
		newTool(CategoryBridge, bindBridge, mcp.Tool{
			Name: "bridge_copy_file", Title: "Copy a manual file into the vault",
			Description: "Copy a whole manual file (.md, or .json wrapped with its source) into a new vault file without returning its text.",
			Annotations: ann(),
		}, func(s *jsonschema.Schema) {
			nonEmpty(s, "manual_id", maxNameChars)
			nonEmpty(s, "path", maxVaultPathChars)
			maxLen(s, "dest", maxVaultPathChars)
		}, (*bridgeTools).copyFile, renderBridge),
	})
}

// bindBridge binds the bridge tools to their dependencies.
func bindBridge(d *Deps) *bridgeTools {
	return &bridgeTools{lib: d.Manuals, v: d.Vault, finder: d.Finder, now: time.Now}
}

func (bt *bridgeTools) copySection(_ context.Context, in BridgeCopySectionIn) (BridgeOut, error) {
	if in.TraceID != "" {
		if err := find.CheckTraceID(in.TraceID); err != nil {
			return BridgeOut{}, err
		}
	}
	r, err := bt.lib.ResolveRef("", in.ManualID, in.Path, in.NodeID)
	if err != nil {
		return BridgeOut{}, err
	}
	in.ManualID, in.Path, in.NodeID = r.ManualID, r.Path, r.NodeID
	ref, _, err := bt.source(in.ManualID, in.Path)
	if err != nil {
		return BridgeOut{}, err
	}
	var text, label string
	switch {
	case in.NodeID != "" && (in.StartLine != 0 || in.EndLine != 0):
		return BridgeOut{}, apperr.New(apperr.InvalidArgument, "give node_id, or start_line and end_line", "both a section and a line range")
	case in.NodeID != "":
		t, n, err := bt.lib.Section(in.ManualID, in.Path, in.NodeID)
		if err != nil {
			return BridgeOut{}, err
		}
		text, label = t, n.NodeID
		ref.NodeID, ref.LineStart, ref.LineEnd = n.NodeID, n.LineStart, n.LineEnd
	case in.StartLine > 0 && in.EndLine >= in.StartLine:
		t, err := bt.lib.Lines(in.ManualID, in.Path, in.StartLine, in.EndLine)
		if err != nil {
			return BridgeOut{}, err
		}
		text, label = t, fmt.Sprintf("L%d-L%d", in.StartLine, in.EndLine)
		ref.LineStart, ref.LineEnd = in.StartLine, in.EndLine
	default:
		return BridgeOut{}, apperr.New(apperr.InvalidArgument, "give node_id (see the manual's table of contents), or start_line <= end_line",
			"nothing to copy")
	}
	dest := in.Dest
	if dest == "" {
		dest = path.Join("drafts", ref.ManualID, strings.TrimSuffix(ref.Path, path.Ext(ref.Path)), label+".md")
	}
	out, err := bt.write(dest, manual.SectionCopy(text, ref, bt.now()), ref)
	if err == nil && ref.NodeID != "" {
		bt.finder.RecordUse(in.TraceID, ref.ManualID, ref.Path, ref.NodeID)
	}
	return out, err
}

func (bt *bridgeTools) copyFile(_ context.Context, in BridgeCopyFileIn) (BridgeOut, error) {
	r, err := bt.lib.ResolveRef("", in.ManualID, in.Path, "")
	if err != nil {
		return BridgeOut{}, err
	}
	in.ManualID, in.Path = r.ManualID, r.Path
	ref, raw, err := bt.source(in.ManualID, in.Path)
	if err != nil {
		return BridgeOut{}, err
	}
	src := manualfile.NewSource(raw) // UTF-8 text, "\n" line ends
	ref.LineStart, ref.LineEnd = 1, src.LineCount()
	var data []byte
	if strings.EqualFold(path.Ext(in.Path), ".json") {
		if data, err = manual.JSONCopy(raw, ref, bt.now()); err != nil {
			return BridgeOut{}, err
		}
	} else {
		data = manual.SectionCopy(src.Text(), ref, bt.now())
	}
	dest := in.Dest
	if dest == "" {
		dest = path.Join("drafts", ref.ManualID, ref.Path)
	}
	return bt.write(dest, data, ref)
}

// source reads the file a copy comes from: its text, and the manual and
// file named as on disk, with the file's encoding when it was not UTF-8
// (the copy always is).
func (bt *bridgeTools) source(manualID, rel string) (manual.SourceRef, []byte, error) {
	f, err := bt.lib.ReadFile(manualID, rel)
	if err != nil {
		return manual.SourceRef{}, nil, err
	}
	ref := manual.SourceRef{ManualID: f.ManualID, Path: f.Path}
	if f.Encoding != textdecode.UTF8 && f.Encoding != textdecode.UTF8BOM {
		ref.Encoding = f.Encoding
	}
	return ref, f.Text, nil
}

// write creates dest; a copy never replaces a vault file.
func (bt *bridgeTools) write(dest string, data []byte, ref manual.SourceRef) (BridgeOut, error) {
	res, err := bt.v.Create(dest, data)
	if err != nil {
		return BridgeOut{}, err
	}
	return BridgeOut{Destination: res.Path, Bytes: res.Bytes, Lines: res.Lines, Source: ref,
		SourceManualIDs: []string{ref.ManualID}}, nil
}

func renderBridge(o BridgeOut) string {
	return fmt.Sprintf("copied %s (lines %s) to %s: %d bytes, %d lines", o.Source.Source(), o.Source.Lines(), o.Destination, o.Bytes, o.Lines)
}
