package batch

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/langspec/langspec/internal/progress"
)

// Concurrency bounds.
const (
	DefaultConcurrency = 10
	MaxConcurrency     = 32
)

// Task statuses in a TaskReport.
const (
	StatusOK      = "ok"
	StatusError   = "error"
	StatusSkipped = "skipped"
)

// Result is what a Runner returns for one call.
type Result struct {
	// Value is the result's structured value, which references read. Any Go
	// value works: references walk its JSON form. When IsError is set and
	// Value is a string, it becomes the task's error message.
	Value any
	// Payload is returned to the caller for output:true tasks and for tasks
	// whose tool reported an error. It is opaque here.
	Payload any
	// IsError means the tool reported an error result: dependants do not run.
	IsError bool
}

// Runner performs one call. It gets the task with its references resolved in
// a Params tree of its own. It should return soon after ctx is cancelled.
type Runner func(ctx context.Context, t Task) (Result, error)

// Options tunes Run.
type Options struct {
	Concurrency int // tasks in the runner at once; 0 means DefaultConcurrency, capped at MaxConcurrency
}

// TaskReport is the outcome of one task.
type TaskReport struct {
	ID         string  `json:"id"`
	Status     string  `json:"status"`          // StatusOK, StatusError or StatusSkipped
	Error      string  `json:"error,omitempty"` // why the task failed or was skipped
	Payload    any     `json:"payload,omitempty"`
	DurationMS float64 `json:"duration_ms"` // time in the runner; 0 if it never ran
}

// Report is the outcome of a batch. Tasks holds, in input order, the
// output:true tasks and every task that failed or was skipped, so the caller
// learns what went wrong without paying for results it did not ask for.
type Report struct {
	Tasks     []TaskReport `json:"tasks"`
	Succeeded int          `json:"succeeded"`
	Failed    int          `json:"failed"`
	Skipped   int          `json:"skipped"`
}

// done is a runner's answer, sent back to the scheduling loop.
type done struct {
	i   int
	res Result
	err error
	dur time.Duration
}

// Run runs tasks as their after-tasks finish, at most opts.Concurrency at a
// time, and waits for every call it started. A failed task skips its
// dependants; others go on. Cancelling ctx starts nothing new. Tasks that are
// not valid as Parse would check them are all reported as errors, unrun.
func Run(ctx context.Context, tasks []Task, run Runner, opts Options) Report {
	reports := make([]TaskReport, len(tasks))
	for i, t := range tasks {
		reports[i].ID = t.ID
	}
	if err := validate(tasks); err != nil {
		for i := range reports {
			reports[i].Status, reports[i].Error = StatusError, err.Error()
		}
		return summarise(tasks, reports)
	}
	// One unit of progress per task: run, failed or skipped.
	prog := progress.From(ctx)
	prog.Expect(len(tasks))
	ran := 0
	limit := opts.Concurrency
	if limit <= 0 {
		limit = DefaultConcurrency
	}
	limit = min(limit, MaxConcurrency)

	byID := make(map[string]int, len(tasks))
	for i, t := range tasks {
		byID[t.ID] = i
	}
	dependants := make([][]int, len(tasks))
	waiting := make([]int, len(tasks)) // unfinished after-tasks
	var ready []int
	for i, t := range tasks {
		after := slices.Compact(slices.Sorted(slices.Values(t.After))) // hand-built tasks may repeat ids
		waiting[i] = len(after)
		for _, a := range after {
			dependants[byID[a]] = append(dependants[byID[a]], i)
		}
		if waiting[i] == 0 {
			ready = append(ready, i)
		}
	}
	values := map[string][]byte{} // result values as JSON, which references read

	// fail records a failure and skips every transitive dependant, naming
	// this task: it is the reason none of them ran.
	fail := func(i int, msg string, payload any) {
		reports[i].Status, reports[i].Error, reports[i].Payload = StatusError, msg, payload
		why := fmt.Sprintf("skipped: task %q failed: %s", tasks[i].ID, msg)
		stack := slices.Clone(dependants[i])
		for len(stack) > 0 {
			j := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if reports[j].Status == "" {
				reports[j].Status, reports[j].Error = StatusSkipped, why
				stack = append(stack, dependants[j]...)
			}
		}
	}

	// One loop owns all state; runners only send on results. Counting
	// running tasks here is the semaphore, and starting ready tasks in input
	// order keeps scheduling as deterministic as the dependencies allow.
	results := make(chan done)
	running := 0
	for {
		for running < limit && len(ready) > 0 && ctx.Err() == nil {
			i := ready[0]
			ready = ready[1:]
			// References are resolved only now, when every task they read has
			// finished: validation made them ancestors.
			params, err := resolve(tasks[i].Params, values)
			if err != nil {
				fail(i, err.Error(), nil)
				continue
			}
			t := tasks[i]
			t.Params = params
			running++
			go func() {
				start := time.Now()
				res, err := call(ctx, run, t)
				results <- done{i: i, res: res, err: err, dur: time.Since(start)}
			}()
		}
		if running == 0 {
			break
		}
		d := <-results
		running--
		reports[d.i].DurationMS = float64(d.dur.Microseconds()) / 1000
		ran++
		prog.Done(1, "task "+tasks[d.i].ID+" finished")
		switch {
		case d.err != nil:
			fail(d.i, d.err.Error(), nil)
		case d.res.IsError:
			msg := "the tool reported an error"
			if s, ok := d.res.Value.(string); ok && s != "" {
				msg = s
			}
			fail(d.i, msg, d.res.Payload)
		default:
			reports[d.i].Status, reports[d.i].Payload = StatusOK, d.res.Payload
			// A value that does not marshal stays nil; a reference to it fails.
			values[tasks[d.i].ID], _ = json.Marshal(d.res.Value)
			for _, j := range dependants[d.i] {
				if waiting[j]--; waiting[j] == 0 && reports[j].Status == "" {
					ready = append(ready, j)
				}
			}
			slices.Sort(ready)
		}
	}
	// The tasks that never ran (skipped, or a reference that did not
	// resolve) are done too.
	prog.Done(len(tasks)-ran, "tasks that did not run")
	// Only cancellation leaves tasks unfinished: validation ruled out cycles.
	for i := range reports {
		if reports[i].Status == "" {
			reports[i].Status = StatusSkipped
			reports[i].Error = fmt.Sprintf("skipped: the batch was cancelled before the task started: %v", context.Cause(ctx))
		}
	}
	return summarise(tasks, reports)
}

// call runs one task, turning a panic into the task's error: it happens on a
// goroutine of ours, where it would otherwise end the whole server.
func call(ctx context.Context, run Runner, t Task) (res Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = Result{}, fmt.Errorf("internal: the tool panicked: %v", r)
		}
	}()
	return run(ctx, t)
}

func summarise(tasks []Task, reports []TaskReport) Report {
	var r Report
	for i, tr := range reports {
		switch tr.Status {
		case StatusOK:
			r.Succeeded++
		case StatusError:
			r.Failed++
		default:
			r.Skipped++
		}
		if tasks[i].Output || tr.Status != StatusOK {
			r.Tasks = append(r.Tasks, tr)
		}
	}
	return r
}
