package batch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
)

// gate is a Runner that holds every call until the test releases it, so a
// test sees exactly which tasks are in the runner at the same time.
type gate struct {
	mu       sync.Mutex
	held     map[string]chan struct{}
	finished map[string]bool
	maxHeld  int
	early    []string // tasks that started before one of their after-tasks returned
}

func (g *gate) run(_ context.Context, t Task) (Result, error) {
	release := make(chan struct{})
	g.mu.Lock()
	for _, a := range t.After {
		if !g.finished[a] {
			g.early = append(g.early, t.ID)
		}
	}
	g.held[t.ID] = release
	g.maxHeld = max(g.maxHeld, len(g.held))
	g.mu.Unlock()
	<-release
	g.mu.Lock()
	delete(g.held, t.ID)
	g.finished[t.ID] = true
	g.mu.Unlock()
	return Result{Value: t.ID}, nil
}

// waves runs tasks in a synctest bubble. Each time every goroutine is blocked
// it records the held tasks as one wave and releases them all.
func waves(t *testing.T, tasks []Task, opts Options) (got []string, g *gate, rep Report) {
	synctest.Test(t, func(t *testing.T) {
		g = &gate{held: map[string]chan struct{}{}, finished: map[string]bool{}}
		done := make(chan struct{})
		go func() {
			rep = Run(t.Context(), tasks, g.run, opts)
			close(done)
		}()
		for {
			synctest.Wait()
			g.mu.Lock()
			ids := slices.Sorted(func(yield func(string) bool) {
				for id := range g.held {
					if !yield(id) {
						return
					}
				}
			})
			for _, id := range ids {
				close(g.held[id])
			}
			g.mu.Unlock()
			if len(ids) == 0 {
				break
			}
			got = append(got, strings.Join(ids, " "))
		}
		<-done
	})
	return got, g, rep
}

// independent returns n task lines t00, t01, … with no dependencies.
func independent(n int) []string {
	var ls []string
	for i := range n {
		ls = append(ls, tl(fmt.Sprintf("t%02d", i), ""))
	}
	return ls
}

// chunks lists ids t00… in waves of size k, as waves reports them.
func chunks(n, k int) []string {
	var out []string
	for i := 0; i < n; i += k {
		var ids []string
		for j := i; j < min(i+k, n); j++ {
			ids = append(ids, fmt.Sprintf("t%02d", j))
		}
		out = append(out, strings.Join(ids, " "))
	}
	return out
}

func TestRunScheduling(t *testing.T) {
	tests := []struct {
		name    string
		lines   []string
		opts    Options
		want    []string // tasks in the runner together, wave by wave
		wantMax int
	}{
		{name: "independent tasks run together", lines: []string{tl("a", ""), tl("b", "")}, want: []string{"a b"}, wantMax: 2},
		{name: "concurrency 1 serialises", lines: []string{tl("a", ""), tl("b", "")}, opts: Options{Concurrency: 1}, want: []string{"a", "b"}, wantMax: 1},
		{name: "chain", lines: []string{tl("c", `"after":"b"`), tl("b", `"after":"a"`), tl("a", "")}, want: []string{"a", "b", "c"}, wantMax: 1},
		{
			name:  "diamond",
			lines: []string{tl("a", ""), tl("b", `"after":"a"`), tl("c", `"after":"a"`), tl("d", `"after":["b","c"]`)},
			want:  []string{"a", "b c", "d"}, wantMax: 2,
		},
		{
			name:  "a dependant waits only for its own after-tasks",
			lines: []string{tl("a", ""), tl("b", `"after":"a"`), tl("x", ""), tl("y", `"after":"x"`), tl("z", `"after":["b","y"]`)},
			want:  []string{"a x", "b y", "z"}, wantMax: 2,
		},
		{name: "limit of 7 holds with 30 tasks", lines: independent(30), opts: Options{Concurrency: 7}, want: chunks(30, 7), wantMax: 7},
		{name: "default concurrency", lines: independent(12), want: chunks(12, DefaultConcurrency), wantMax: DefaultConcurrency},
		{name: "concurrency is capped", lines: independent(40), opts: Options{Concurrency: 1000}, want: chunks(40, MaxConcurrency), wantMax: MaxConcurrency},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tasks := mustParse(t, tt.lines...)
			got, g, rep := waves(t, tasks, tt.opts)
			if !slices.Equal(got, tt.want) {
				t.Errorf("waves = %q, want %q", got, tt.want)
			}
			if g.maxHeld != tt.wantMax {
				t.Errorf("at most %d tasks in the runner, want %d", g.maxHeld, tt.wantMax)
			}
			if len(g.early) > 0 {
				t.Errorf("started before their after-tasks finished: %v", g.early)
			}
			if rep.Succeeded != len(tasks) || rep.Failed+rep.Skipped != 0 {
				t.Errorf("report = %+v", rep)
			}
		})
	}
}

// scripted is a Runner whose behaviour is chosen by task id: "fail…" returns
// an error, "toolerr…" an IsError result, "panic…" panics; the rest succeed
// with values[id] and payload "p:"+id.
func scripted(values map[string]any) Runner {
	return func(_ context.Context, t Task) (Result, error) {
		switch {
		case strings.HasPrefix(t.ID, "fail"):
			return Result{}, errors.New("boom")
		case strings.HasPrefix(t.ID, "toolerr"):
			return Result{Value: "no section 6.5", Payload: "p:" + t.ID, IsError: true}, nil
		case strings.HasPrefix(t.ID, "panic"):
			panic("oops")
		}
		return Result{Value: values[t.ID], Payload: "p:" + t.ID}, nil
	}
}

// summary renders reports one per line: "id status error payload".
func summary(rs []TaskReport) []string {
	var out []string
	for _, r := range rs {
		out = append(out, strings.TrimSpace(fmt.Sprintf("%s %s %s %v", r.ID, r.Status, r.Error, r.Payload)))
	}
	return out
}

func TestRunFailures(t *testing.T) {
	values := map[string]any{"a": map[string]any{"items": []any{"x"}, "n": 1}}
	tests := []struct {
		name                     string
		lines                    []string
		want                     []string
		succeeded, failed, skips int
	}{
		{
			name: "an error skips dependants transitively; independent tasks finish",
			lines: []string{tl("fail", ""), tl("b", `"after":"fail"`), tl("c", `"after":"b"`),
				tl("d", `"output":true`), tl("e", `"after":"d"`), tl("f", `"after":["d","fail"]`)},
			want: []string{
				"fail error boom <nil>",
				`b skipped skipped: task "fail" failed: boom <nil>`,
				`c skipped skipped: task "fail" failed: boom <nil>`,
				"d ok  p:d",
				`f skipped skipped: task "fail" failed: boom <nil>`,
			},
			succeeded: 2, failed: 1, skips: 3,
		},
		{
			name:  "a tool error result keeps its message and payload",
			lines: []string{tl("toolerr", ""), tl("b", `"after":"toolerr"`)},
			want: []string{
				"toolerr error no section 6.5 p:toolerr",
				`b skipped skipped: task "toolerr" failed: no section 6.5 <nil>`,
			},
			failed: 1, skips: 1,
		},
		{
			name:      "a panic is the task's error",
			lines:     []string{tl("panic", ""), tl("b", "")},
			want:      []string{"panic error internal: the tool panicked: oops <nil>"},
			succeeded: 1, failed: 1,
		},
		{
			name:  "missing field",
			lines: []string{tl("a", ""), tl("b", `"after":"a","params":{"q":"${a.nope}"}`), tl("c", `"after":"b"`)},
			want: []string{
				`b error reference ${a.nope}: a has no field "nope" (fields: items, n) <nil>`,
				`c skipped skipped: task "b" failed: reference ${a.nope}: a has no field "nope" (fields: items, n) <nil>`,
			},
			succeeded: 1, failed: 1, skips: 1,
		},
		{
			name:      "index out of range",
			lines:     []string{tl("a", ""), tl("b", `"after":"a","params":{"q":"x ${a.items[1]}"}`)},
			want:      []string{"b error reference ${a.items[1]}: a.items has 1 items, so [1] is out of range <nil>"},
			succeeded: 1, failed: 1,
		},
		{
			name:      "indexing a non-array",
			lines:     []string{tl("a", ""), tl("b", `"after":"a","params":{"q":"${a.n[0]}"}`)},
			want:      []string{"b error reference ${a.n[0]}: a.n is a number, so it has no [0] <nil>"},
			succeeded: 1, failed: 1,
		},
		{
			name:      "a field of an array",
			lines:     []string{tl("a", ""), tl("b", `"after":"a","params":{"q":"${a.items.x}"}`)},
			want:      []string{"b error reference ${a.items.x}: a.items is an array, so it has no .x <nil>"},
			succeeded: 1, failed: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := Run(t.Context(), mustParse(t, tt.lines...), scripted(values), Options{})
			if got := summary(rep.Tasks); !slices.Equal(got, tt.want) {
				t.Errorf("reports:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if rep.Succeeded != tt.succeeded || rep.Failed != tt.failed || rep.Skipped != tt.skips {
				t.Errorf("counts = %d/%d/%d, want %d/%d/%d", rep.Succeeded, rep.Failed, rep.Skipped, tt.succeeded, tt.failed, tt.skips)
			}
		})
	}
}

func TestRunOutputInInputOrder(t *testing.T) {
	tasks := mustParse(t,
		tl("a", `"output":true`), // finishes last: it waits for b's runner to return
		tl("b", `"output":true`),
		tl("quiet", ""),
		tl("toolerr", `"output":true`),
		tl("d", `"after":"toolerr"`),
	)
	bDone := make(chan struct{})
	base := scripted(nil)
	run := func(ctx context.Context, t Task) (Result, error) {
		switch t.ID {
		case "a":
			<-bDone
		case "b":
			defer close(bDone)
		}
		return base(ctx, t)
	}
	rep := Run(t.Context(), tasks, run, Options{})
	want := []string{"a ok  p:a", "b ok  p:b", "toolerr error no section 6.5 p:toolerr", `d skipped skipped: task "toolerr" failed: no section 6.5 <nil>`}
	if got := summary(rep.Tasks); !slices.Equal(got, want) {
		t.Errorf("reports = %q, want %q", got, want)
	}
	if rep.Succeeded != 3 || rep.Failed != 1 || rep.Skipped != 1 {
		t.Errorf("counts = %+v", rep)
	}
	for _, r := range rep.Tasks[:2] {
		if r.DurationMS < 0 {
			t.Errorf("%s: DurationMS = %v", r.ID, r.DurationMS)
		}
	}
}

func TestRunReferences(t *testing.T) {
	type hit struct {
		SectionID string `json:"section_id"`
		Rank      int    `json:"rank"`
	}
	values := map[string]any{
		"a": map[string]any{
			"results": []any{map[string]any{"section_id": "6.5", "score": 2.5}},
			"count":   3, "title": "Go <spec> & more", "ok": true, "none": nil,
			"meta": map[string]any{"tag": "<b>"},
		},
		"b": []hit{{"6.5", 1}, {"7.1", 2}}, // any Go value: references walk its JSON form
	}
	tests := []struct {
		name   string
		params string
		want   string // c's params as JSON
	}{
		{name: "typed number", params: `{"n":"${a.count}"}`, want: `{"n":3}`},
		{name: "typed object", params: `{"o":"${a.results[0]}"}`, want: `{"o":{"score":2.5,"section_id":"6.5"}}`},
		{name: "typed null and bool", params: `{"v":"${a.none}","ok":"${a.ok}"}`, want: `{"ok":true,"v":null}`},
		{name: "whole value", params: `{"all":"${b}"}`, want: `{"all":[{"rank":1,"section_id":"6.5"},{"rank":2,"section_id":"7.1"}]}`},
		{name: "nested path in a Go value", params: `{"id":"${b[1].section_id}"}`, want: `{"id":"7.1"}`},
		{name: "string embedded as is", params: `{"q":"see ${a.results[0].section_id}: ${a.title}!"}`, want: `{"q":"see 6.5: Go <spec> & more!"}`},
		{name: "values embedded as compact JSON", params: `{"q":"n=${a.count} r=${b[0]} m=${a.meta}"}`, want: `{"q":"n=3 r={\"rank\":1,\"section_id\":\"6.5\"} m={\"tag\":\"<b>\"}"}`},
		{name: "references at any depth", params: `{"o":{"l":["${a.count}",{"k":"${b[0].rank}"}]}}`, want: `{"o":{"l":[3,{"k":1}]}}`},
		{name: "$${ is a literal ${", params: `{"q":"$${a.count} is ${a.count}","r":"$${a"}`, want: `{"q":"${a.count} is 3","r":"${a"}`},
		{name: "other values untouched", params: `{"n":12345678901234567890,"s":"plain $ {x}"}`, want: `{"n":12345678901234567890,"s":"plain $ {x}"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tasks := mustParse(t, tl("a", ""), tl("b", ""), tl("c", `"after":["a","b"],"params":`+tt.params))
			var got bytes.Buffer
			base := scripted(values)
			run := func(ctx context.Context, t Task) (Result, error) {
				if t.ID == "c" {
					// c runs alone, after a and b. No HTML escaping, to show
					// that none was added to embedded values.
					enc := json.NewEncoder(&got)
					enc.SetEscapeHTML(false)
					_ = enc.Encode(t.Params)
				}
				return base(ctx, t)
			}
			if rep := Run(t.Context(), tasks, run, Options{}); rep.Succeeded != 3 {
				t.Fatalf("report = %+v", rep)
			}
			if got := strings.TrimSpace(got.String()); got != tt.want {
				t.Errorf("params = %s, want %s", got, tt.want)
			}
			if p := tasks[2].Params; !strings.Contains(fmt.Sprint(p), "${") && strings.Contains(tt.params, "${") {
				t.Errorf("Run changed the caller's params: %v", p)
			}
		})
	}
}

func TestRunCancel(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		opts  Options
		run   func(cancel context.CancelFunc, started chan struct{}) Runner
		want  []string
	}{
		{
			name:  "cancelled before the start",
			lines: []string{tl("a", ""), tl("b", `"after":"a"`)},
			run: func(cancel context.CancelFunc, _ chan struct{}) Runner {
				cancel()
				return func(context.Context, Task) (Result, error) { panic("must not run") }
			},
			want: []string{
				"a skipped skipped: the batch was cancelled before the task started: context canceled <nil>",
				"b skipped skipped: the batch was cancelled before the task started: context canceled <nil>",
			},
		},
		{
			name:  "nothing new starts after cancel",
			lines: []string{tl("a", `"output":true`), tl("b", ""), tl("c", "")},
			opts:  Options{Concurrency: 1},
			run: func(cancel context.CancelFunc, _ chan struct{}) Runner {
				return func(context.Context, Task) (Result, error) { cancel(); return Result{Payload: 1}, nil }
			},
			want: []string{
				"a ok  1",
				"b skipped skipped: the batch was cancelled before the task started: context canceled <nil>",
				"c skipped skipped: the batch was cancelled before the task started: context canceled <nil>",
			},
		},
		{
			name:  "running tasks see the cancelled context",
			lines: []string{tl("a", ""), tl("b", ""), tl("c", `"after":"a"`), tl("d", "")},
			opts:  Options{Concurrency: 2},
			run: func(cancel context.CancelFunc, started chan struct{}) Runner {
				return func(ctx context.Context, t Task) (Result, error) {
					if t.ID == "a" {
						close(started)
						<-ctx.Done()
						return Result{}, ctx.Err()
					}
					<-started
					cancel()
					return Result{}, nil
				}
			},
			want: []string{
				"a error context canceled <nil>",
				`c skipped skipped: task "a" failed: context canceled <nil>`,
				"d skipped skipped: the batch was cancelled before the task started: context canceled <nil>",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			rep := Run(ctx, mustParse(t, tt.lines...), tt.run(cancel, make(chan struct{})), tt.opts)
			if got := summary(rep.Tasks); !slices.Equal(got, tt.want) {
				t.Errorf("reports:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// Run checks tasks built by hand as Parse would, so a cycle cannot hang it.
func TestRunInvalidTasks(t *testing.T) {
	tests := []struct {
		name  string
		tasks []Task
		want  string
	}{
		{
			name:  "cycle",
			tasks: []Task{{ID: "a", Category: "c", Tool: "t", After: []string{"b"}}, {ID: "b", Category: "c", Tool: "t", After: []string{"a"}}},
			want:  `task "a": dependency cycle through after: a -> b -> a`,
		},
		{name: "duplicate", tasks: []Task{{ID: "a", Category: "c", Tool: "t"}, {ID: "a", Category: "c", Tool: "t"}}, want: `id "a" is already used`},
		{name: "bad reference", tasks: []Task{{ID: "a", Category: "c", Tool: "t", Params: map[string]any{"q": "${"}}}, want: "bad reference"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ran := false
			rep := Run(t.Context(), tt.tasks, func(context.Context, Task) (Result, error) { ran = true; return Result{}, nil }, Options{})
			if ran || rep.Failed != len(tt.tasks) || len(rep.Tasks) != len(tt.tasks) {
				t.Fatalf("ran = %v, report = %+v", ran, rep)
			}
			for _, r := range rep.Tasks {
				if r.Status != StatusError || !strings.Contains(r.Error, tt.want) {
					t.Errorf("%s: %s %q, want error containing %q", r.ID, r.Status, r.Error, tt.want)
				}
			}
		})
	}
	// Hand-built tasks may leave Params nil and repeat after ids.
	tasks := []Task{{ID: "a", Category: "c", Tool: "t"}, {ID: "b", Category: "c", Tool: "t", After: []string{"a", "a"}, Output: true}}
	rep := Run(t.Context(), tasks, scripted(nil), Options{})
	if got := summary(rep.Tasks); rep.Succeeded != 2 || !slices.Equal(got, []string{"b ok  p:b"}) {
		t.Errorf("report = %+v", rep)
	}
}
