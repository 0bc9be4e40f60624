// Package batch runs many tool calls described as JSONL: one task per line,
// ordered by "after" dependencies, with ${id.path} references that feed one
// task's result into another's params. It knows nothing of MCP: the caller
// parses with Parse and hands Run a Runner that performs one call.
//
// References may appear in any string value of params, at any depth:
//
//	${search}                         the whole result value of task "search"
//	${search.results[0].section_id}   a field: dot-separated names and [N] indexes
//	$${                               a literal "${", wherever it appears
//
// A string that is exactly one reference is replaced by the referenced value
// with its JSON type; a reference inside a longer string is written into it
// (strings as they are, other values as compact JSON, object keys sorted). A
// reference is resolved right before its task runs; a path the value does not
// have fails that task. A task may reference only tasks it waits for through
// "after", directly or transitively, because only those are sure to have
// finished.
package batch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/langspec/langspec/internal/apperr"
)

// Limits of one batch. They bound the work one request can start; the tools
// keep their own limits.
const (
	MaxTasks      = 100
	MaxInputBytes = 1 << 20
)

// Task is one tool call of a batch.
type Task struct {
	ID, Category, Tool string
	// Params holds the tool's arguments. From Parse, numbers are json.Number so
	// large integer ids survive; they marshal back to the same literal.
	Params map[string]any
	After  []string // ids this task waits for
	Output bool     // return the result to the caller
	Line   int      // 1-based input line; 0 for tasks not from Parse
}

const (
	hintLine = `write one JSON object per line, fields id, category, tool, params, after, output: {"id":"a","category":"spec","tool":"search_spec","params":{"query":"slices"},"after":["x"],"output":true}`
	hintID   = "ids are 1-64 characters: letters, digits, _ or -"
	hintRef  = `references look like ${id}, ${id.field} or ${id.items[0].name}; write $${ for a literal ${`
)

// taskLine is one input line as written.
type taskLine struct {
	ID       string         `json:"id"`
	Category string         `json:"category"`
	Tool     string         `json:"tool"`
	Params   map[string]any `json:"params"`
	After    idList         `json:"after"`
	Output   bool           `json:"output"`
}

// idList is "after": one id or a list of them.
type idList []string

func (l *idList) UnmarshalJSON(b []byte) error {
	var one string
	switch {
	case string(b) == "null":
		return nil
	case json.Unmarshal(b, &one) == nil:
		*l = idList{one}
	case json.Unmarshal(b, (*[]string)(l)) != nil:
		return errors.New(`"after" must be a task id or a list of task ids`)
	}
	return nil
}

// Parse reads a JSONL batch and checks it whole before anything runs: syntax,
// fields, unique ids, after targets, cycles and references. Blank lines are
// skipped but counted, so line numbers match the input. The error is one
// apperr.InvalidArgument naming the line and task at fault.
func Parse(jsonl string) ([]Task, error) {
	if len(jsonl) > MaxInputBytes {
		return nil, apperr.New(apperr.InvalidArgument, "split the work into several batch calls",
			"batch input is %d bytes; the limit is %d", len(jsonl), MaxInputBytes)
	}
	var tasks []Task
	for n, line := range strings.Split(jsonl, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if len(tasks) == MaxTasks {
			return nil, lineErr(n+1, "", "split the work into several batch calls", "more than %d tasks", MaxTasks)
		}
		t, err := parseLine(n+1, line)
		if err == nil {
			err = checkTask(t) // here too, so errors come in line order
		}
		if err != nil {
			return nil, err
		}
		tasks = append(tasks, t)
	}
	if len(tasks) == 0 {
		return nil, apperr.New(apperr.InvalidArgument, hintLine, "batch has no tasks")
	}
	if err := validate(tasks); err != nil {
		return nil, err
	}
	return tasks, nil
}

func parseLine(n int, line string) (Task, error) {
	if line[0] != '{' {
		return Task{}, lineErr(n, "", hintLine, "a task must be a JSON object")
	}
	var in taskLine
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	err := dec.Decode(&in)
	id := in.ID
	if !validID(id) {
		id = "" // name only a well-formed id in messages
	}
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "json: ")
		if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
			msg = fmt.Sprintf("%q has the wrong type (%s)", te.Field, te.Value)
		} else if _, ok := errors.AsType[*json.SyntaxError](err); ok || errors.Is(err, io.ErrUnexpectedEOF) {
			msg = "invalid JSON: " + msg
		}
		return Task{}, lineErr(n, id, hintLine, "%s", msg)
	}
	if strings.TrimSpace(line[dec.InputOffset():]) != "" {
		return Task{}, lineErr(n, id, hintLine, "text after the task's JSON object; put one task per line")
	}
	t := Task{ID: in.ID, Category: in.Category, Tool: in.Tool, Params: in.Params, Output: in.Output, Line: n}
	if t.Params == nil {
		t.Params = map[string]any{}
	}
	for _, a := range in.After {
		if !slices.Contains(t.After, a) {
			t.After = append(t.After, a)
		}
	}
	return t, nil
}

// checkTask checks what one task can get wrong on its own.
func checkTask(t Task) error {
	if !validID(t.ID) {
		return lineErr(t.Line, "", hintID, "task id %q is not allowed", t.ID)
	}
	if t.Category == "" || t.Tool == "" {
		return lineErr(t.Line, t.ID, hintLine, `"category" and "tool" must be non-empty strings`)
	}
	for _, a := range t.After {
		if !validID(a) {
			return lineErr(t.Line, t.ID, hintID, "after names %q, which is not a valid task id", a)
		}
	}
	_, err := refsOf(t)
	return err
}

// validate checks a whole batch: each task, unique ids, after targets, cycles
// and that every reference reads a task that has surely finished.
func validate(tasks []Task) error {
	if len(tasks) > MaxTasks {
		return apperr.New(apperr.InvalidArgument, "split the work into several batches", "batch has %d tasks; the limit is %d", len(tasks), MaxTasks)
	}
	byID := make(map[string]int, len(tasks))
	for i, t := range tasks {
		if err := checkTask(t); err != nil {
			return err
		}
		if j, dup := byID[t.ID]; dup {
			return lineErr(t.Line, t.ID, "give every task its own id", "id %q is already used on line %d", t.ID, tasks[j].Line)
		}
		byID[t.ID] = i
	}
	for _, t := range tasks {
		for _, a := range t.After {
			if a == t.ID {
				return lineErr(t.Line, t.ID, "remove the task's own id from after", "a task cannot wait for itself")
			}
			if _, ok := byID[a]; !ok {
				return lineErr(t.Line, t.ID, "after takes ids of tasks in this batch", "after names unknown task %q", a)
			}
		}
	}
	anc, err := ancestors(tasks, byID)
	if err != nil {
		return err
	}
	for i, t := range tasks {
		refs, _ := refsOf(t) // syntax was checked above
		for _, r := range refs {
			switch _, known := byID[r.id]; {
			case !known:
				return lineErr(t.Line, t.ID, hintRef, "reference %s names unknown task %q", r.raw, r.id)
			case r.id == t.ID:
				return lineErr(t.Line, t.ID, hintRef, "reference %s reads the task's own result", r.raw)
			case !anc[i][r.id]:
				after, _ := json.Marshal(append(slices.Clone(t.After), r.id))
				return lineErr(t.Line, t.ID, fmt.Sprintf(`"after": %s`, after),
					"reference %s reads task %q, which this task does not wait for, so it may not have finished; add it to after", r.raw, r.id)
			}
		}
	}
	return nil
}

// ancestors returns, per task, the ids it waits for directly or transitively,
// or an error naming the first dependency cycle met in input order.
func ancestors(tasks []Task, byID map[string]int) ([]map[string]bool, error) {
	anc := make([]map[string]bool, len(tasks))
	var path []int // tasks being visited: a task met again on it closes a cycle
	var visit func(i int) error
	visit = func(i int) error {
		if k := slices.Index(path, i); k >= 0 {
			var ids []string
			for _, j := range append(path[k:], i) {
				ids = append(ids, tasks[j].ID)
			}
			first := tasks[path[k]]
			return lineErr(first.Line, first.ID, "remove one of these after entries so the tasks can run in order",
				"dependency cycle through after: %s", strings.Join(ids, " -> "))
		}
		if anc[i] != nil {
			return nil
		}
		path = append(path, i)
		set := map[string]bool{}
		for _, a := range tasks[i].After {
			j := byID[a]
			if err := visit(j); err != nil {
				return err
			}
			set[a] = true
			maps.Copy(set, anc[j])
		}
		path = path[:len(path)-1]
		anc[i] = set
		return nil
	}
	for i := range tasks {
		if err := visit(i); err != nil {
			return nil, err
		}
	}
	return anc, nil
}

func validID(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// lineErr prefixes a message with where it happened. The message is formatted
// before apperr.New so input text can never act as a format string.
func lineErr(line int, id, hint, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	switch {
	case line > 0 && id != "":
		msg = fmt.Sprintf("line %d, task %q: %s", line, id, msg)
	case line > 0:
		msg = fmt.Sprintf("line %d: %s", line, msg)
	case id != "":
		msg = fmt.Sprintf("task %q: %s", id, msg)
	}
	return apperr.New(apperr.InvalidArgument, hint, "%s", msg)
}
