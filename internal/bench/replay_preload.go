package bench

import (
	"fmt"
	"io"

	"github.com/kvbench/kvbench/internal/trace"
	"github.com/kvbench/kvbench/rdmakv"
)

// preloadCell readies the store for a cell's measuring: every key, or
// those a replay's window touches.
func (r *runner) preloadCell(ws []*worker, th, size int) error {
	if r.cfg.Trace == nil {
		return r.preload(ws, th, size)
	}
	items, err := r.replayPreload()
	if err != nil {
		return err
	}
	return r.preloadBy(ws, r.status(th, size, "preload"), int64(len(items)), func(w *worker, i int64) error {
		if err := w.preloadItem(items[i]); err != nil {
			return fmt.Errorf("preload threshold %d: %w", th, err)
		}
		return nil
	})
}

// preloadItem is a key of the window and what the store should hold of
// it before the replay: a value of size bytes, or (size < 0) nothing.
type preloadItem struct {
	key  string
	size int
}

// replayPreload lists what the replay's preload writes: each key whose
// first request in the window is a get the trace recorded as a hit, at
// the size it found, so that it hits; and, on a server this run has
// written to before, each other key, deleted, so that recorded misses
// and keys written before they are read start absent in every cell.
func (r *runner) replayPreload() ([]preloadItem, error) {
	src, err := openSource(r.cfg.Trace, false)
	if err != nil {
		return nil, err
	}
	defer src.close()
	seen := map[string]int{}
	var items []preloadItem
	deletes := r.cell > 0 || !r.cfg.FreshServer
	var key []byte
	var rec trace.Record
	for {
		err := src.next(&rec)
		if err == io.EOF {
			return items, nil
		}
		if err != nil {
			return nil, err
		}
		key = appendKey(key[:0], rec.Key, r.cfg.Keys.Size)
		if _, ok := seen[string(key)]; ok {
			continue
		}
		it := preloadItem{key: string(key), size: -1}
		if rec.Op == rdmakv.OpGet && rec.ValueSize > 0 {
			it.size = rec.ValueSize
		}
		seen[it.key] = it.size
		if it.size >= 0 || deletes {
			items = append(items, it)
		}
	}
}

// preloadItem writes or deletes one key of a replay's preload, untimed.
func (w *worker) preloadItem(it preloadItem) error {
	w.key = append(w.key[:0], it.key...)
	if it.size < 0 {
		if _, err := w.t.Delete(w.ctx, w.key); Classify(err) != KindNone && Classify(err) != KindNotFound {
			kind := Classify(err)
			return fmt.Errorf("delete %s: %s", w.key, kind)
		}
		return nil
	}
	w.replayValue(it.size)
	if _, err := w.t.Set(w.ctx, w.key, w.val); err != nil {
		return fmt.Errorf("set %s (%d bytes): %s", w.key, it.size, Classify(err))
	}
	return nil
}
