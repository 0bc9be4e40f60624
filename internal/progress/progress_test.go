package progress

import (
	"context"
	"testing"
)

type recorder struct{ expected, done int }

func (r *recorder) Expect(n int)         { r.expected += n }
func (r *recorder) Done(n int, _ string) { r.done += n }

func TestFrom(t *testing.T) {
	// No reporter: reporting is safe and goes nowhere.
	From(context.Background()).Expect(3)
	From(context.Background()).Done(3, "x")
	r := &recorder{}
	ctx := NewContext(context.Background(), r)
	From(ctx).Expect(2)
	From(ctx).Done(1, "a")
	if r.expected != 2 || r.done != 1 {
		t.Errorf("recorded %+v", r)
	}
}
