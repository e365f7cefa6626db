package main

import (
	"context"
	"testing"
	"time"
)

// lateCtx is a context whose deadline has passed while its timer has not
// yet marked it done, as a loaded host leaves it for a moment.
type lateCtx struct{ context.Context }

func (lateCtx) Deadline() (time.Time, bool) { return time.Now().Add(-time.Millisecond), true }

func TestEndedCountsAPassedDeadline(t *testing.T) {
	ctx := lateCtx{context.Background()}
	if ctx.Err() != nil {
		t.Fatal("the fake is done already")
	}
	if !ended(ctx) {
		t.Error("a context past its deadline did not count as ended")
	}
	live, cancel := context.WithTimeout(context.Background(), time.Hour)
	if ended(live) {
		t.Error("a live context counted as ended")
	}
	cancel()
	if !ended(live) {
		t.Error("a cancelled context did not count as ended")
	}
	if ended(context.Background()) {
		t.Error("a context without a deadline counted as ended")
	}
}
