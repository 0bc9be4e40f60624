package contextnote

import (
	"encoding/json"
	"os"

	"github.com/langspec/langspec/internal/apperr"
)

// ReadFile reads notes from a file of their own, a JSON object as
// langspec.json's "context" writes them (what a gold run searches with);
// nil without a name. Errors: the
// file cannot be read, or is not notes.
func ReadFile(name string) (*Source, error) {
	if name == "" {
		return nil, nil
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.NotFound, "pass --context with an existing JSON file", "cannot read context notes %s", name)
	}
	var notes map[string]ConfigNote
	if err := json.Unmarshal(b, &notes); err != nil {
		return nil, apperr.Wrap(err, apperr.InvalidArgument, `write {"TARGET": {"text": "…", "aside": true}, …}`, "context notes %s", name)
	}
	src := &Source{Config: notes}
	if _, err := src.Set(); err != nil {
		return nil, apperr.Wrap(err, apperr.InvalidArgument, `write {"TARGET": {"text": "…", "aside": true}, …}`, "context notes %s", name)
	}
	return src, nil
}
