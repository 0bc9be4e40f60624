// Package toolsnaps compares what a client sees of a tool with a snapshot
// file, so that any change to a tool's contract (name, description,
// annotations, schemas) shows up in review. Every test that snapshots a tool
// goes through Check, so every snapshot has one format: JSON with sorted keys
// and two-space indentation.
package toolsnaps

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// UpdateEnv is the environment variable that rewrites the snapshots instead
// of comparing: UPDATE_TOOLSNAPS=1 go test ./internal/tools/...
const UpdateEnv = "UPDATE_TOOLSNAPS"

// Check compares v, as JSON with sorted keys, with dir/name.json. With
// UPDATE_TOOLSNAPS set it writes the file instead.
func Check(tb testing.TB, dir, name string, v any) {
	tb.Helper()
	got, err := Marshal(v)
	if err != nil {
		tb.Fatalf("snapshot %s: %v", name, err)
	}
	path := filepath.Join(dir, name+".json")
	if os.Getenv(UpdateEnv) != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (run the test with %s=1 to create it)", err, UpdateEnv)
	}
	if !bytes.Equal(got, want) {
		tb.Errorf("%s differs from %s; if the change is meant, run the test with %s=1\ngot:\n%s", name, path, UpdateEnv, got)
	}
}

// Marshal is v as indented JSON with every object's keys sorted (by
// decoding into maps, which encoding/json writes in key order) and a final
// newline.
func Marshal(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var generic any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // keep numbers exactly as written
	if err := dec.Decode(&generic); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(generic); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
