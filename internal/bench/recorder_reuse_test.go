package bench

import "testing"

// A phase's recorder takes the histograms of the worker's last phase,
// emptied: the measure phase records into memory the warmup allocated,
// and none of the warmup's operations.
func TestRecorderReusesItsHistograms(t *testing.T) {
	warm := (*recorder)(nil).next(newCollector(1, 0), 0, 64, true)
	warm.record(OpGet, Eager, 1000, KindNone, 10)
	warm.recordSize(OpGet, Eager, 4096, 4096, 1000)
	warm.recordLate(500)
	total, class, late := warm.total[OpGet][Eager], warm.cls.hist[OpGet][Eager][classIndex(4096)], warm.late
	if total == nil || class == nil || late == nil {
		t.Fatal("the warmup allocated no histograms")
	}

	recycle([]*worker{{rec: warm}})
	m := warm.next(newCollector(1, 0), 0, 64, true)
	if m.total[OpGet][Eager] != total || m.cls.hist[OpGet][Eager][classIndex(4096)] != class || m.late != late {
		t.Fatal("the measure phase's recorder did not take the warmup's histograms")
	}
	if n := total.TotalCount() + class.TotalCount() + late.TotalCount(); n != 0 {
		t.Errorf("%d of the warmup's values left in the measure phase's histograms", n)
	}
	if b := m.cls.bytes[OpGet][Eager][classIndex(4096)]; b != 0 {
		t.Errorf("%d of the warmup's bytes left in the measure phase's classes", b)
	}
	if m.errs[OpGet][Eager][KindNone] != 0 {
		t.Error("the measure phase's recorder kept the warmup's counts")
	}
}
