// Package progress carries a long call's progress reporter in its context,
// so that code deep inside the call (a batch's scheduler, a manual's
// re-index) can say how far it has got without knowing who listens, or
// whether anyone does. The MCP server puts a reporter in the context of a
// tool call whose client asked for progress; everywhere else From returns
// one that does nothing, so reporting costs a context lookup.
package progress

import "context"

// Reporter hears how far a call has got. Work is counted in units the
// reporter adds up over the whole call: one call may run several phases
// (a manual_find that re-indexes two manuals), and the total it reports
// only grows. Implementations must not block: the caller may hold locks.
type Reporter interface {
	// Expect says n more units of work lie ahead.
	Expect(n int)
	// Done says n units have finished; message says what, in a few words.
	Done(n int, message string)
}

type key struct{}

// NewContext returns ctx carrying r.
func NewContext(ctx context.Context, r Reporter) context.Context {
	return context.WithValue(ctx, key{}, r)
}

// From returns the reporter of ctx, or one that does nothing.
func From(ctx context.Context) Reporter {
	if r, ok := ctx.Value(key{}).(Reporter); ok && r != nil {
		return r
	}
	return nobody{}
}

// nobody is the reporter of a call no one follows.
type nobody struct{}

func (nobody) Expect(int)       {}
func (nobody) Done(int, string) {}
