package main

import (
	"context"
	"time"
)

// ended says whether ctx is done or past its deadline. A dial or an
// operation cut off by the deadline can return (net's "i/o timeout")
// before the context's own timer has marked it done, so ctx.Err() alone
// would count the run's own end as a failure.
func ended(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	d, ok := ctx.Deadline()
	return ok && !time.Now().Before(d)
}
