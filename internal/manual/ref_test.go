package manual

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/langspec/langspec/internal/apperr"
)

// TestResolveRef: every manual tool takes back the ref any of them printed,
// whole or in parts, in whichever argument it is put.
func TestResolveRef(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"nodejs/fs.md", "nodejs/api/events.md", "ops/runbooks/db.md"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte("# x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lib, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	fs := Ref{ManualID: "nodejs", Path: "fs.md", NodeID: "file-system/fswatch"}
	for _, tc := range []struct {
		name                        string
		ref, manualID, path, nodeID string
		want                        Ref
		code                        apperr.Code
	}{
		{name: "parts", manualID: "nodejs", path: "fs.md", nodeID: "file-system/fswatch", want: fs},
		{name: "ref", ref: "nodejs/fs.md#file-system/fswatch", want: fs},
		{name: "ref as node_id", manualID: "nodejs", path: "fs.md", nodeID: "nodejs/fs.md#file-system/fswatch", want: fs},
		{name: "ref as node_id alone", nodeID: "nodejs/fs.md#file-system/fswatch", want: fs},
		{name: "ref as manual_id", manualID: "nodejs/fs.md#file-system/fswatch", want: fs},
		{name: "path#node as path", manualID: "nodejs", path: "fs.md#file-system/fswatch", want: fs},
		{name: "path#node as node_id", manualID: "nodejs", nodeID: "fs.md#file-system/fswatch", want: fs},
		{name: "manual/path as path", path: "nodejs/fs.md", nodeID: "file-system/fswatch", want: fs},
		{name: "manual/path as path, manual given", manualID: "nodejs", path: "nodejs/fs.md", nodeID: "file-system/fswatch", want: fs},
		{name: "a folder of the manual, not another manual", manualID: "nodejs", path: "api/events.md", want: Ref{ManualID: "nodejs", Path: "api/events.md"}},
		{name: "a file ref", ref: "ops/runbooks/db.md", want: Ref{ManualID: "ops", Path: "runbooks/db.md"}},
		{name: "the same part twice", ref: "nodejs/fs.md#file-system/fswatch", manualID: "nodejs", path: "fs.md", want: fs},
		{name: "two manuals", ref: "nodejs/fs.md", manualID: "ops", code: apperr.InvalidArgument},
		{name: "two sections", ref: "nodejs/fs.md#a", nodeID: "b", code: apperr.InvalidArgument},
		{name: "manual only", manualID: "ops", want: Ref{ManualID: "ops"}},
	} {
		got, err := lib.ResolveRef(tc.ref, tc.manualID, tc.path, tc.nodeID)
		if apperr.CodeOf(err) != tc.code && !(tc.code == "" && err == nil) {
			t.Errorf("%s: %v, want code %q", tc.name, err, tc.code)
			continue
		}
		if err == nil && got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	if s := fs.String(); s != "nodejs/fs.md#file-system/fswatch" {
		t.Errorf("String() = %q", s)
	}
}
