package bench

import "math"

// Codec writes and checks verifiable values.
type Codec interface {
	// Fill writes the value for (key, version) into dst, all of it.
	Fill(dst, key []byte, version uint64)
	// Check inspects a value read for key. wantLen < 0 accepts any length.
	// It returns the version the value carries (0 if the encoding cannot
	// carry one) and KindNone, or the kind of damage: KindVerifyMismatch,
	// KindTorn or KindWrongKey. Versions written start at 1.
	Check(got, key []byte, wantLen int) (version uint64, kind ErrorKind)
}

// Key states in verify mode.
const (
	absent  = 0              // deleted, or never written to a fresh server
	unknown = math.MaxUint64 // an earlier write failed or the server was not fresh
)

// shard is one worker's verify state. In verify mode each worker owns the
// keys with index ≡ worker (mod workers) for every operation, so it knows
// exactly which version each of its keys must hold: no other worker writes
// them and its own operations are sequential. A get must return exactly the
// latest version this worker wrote (with its length), or not_found if the
// key was deleted. Keys whose last write failed (timeout, closed) may hold
// either value and accept any intact value until the next successful write.
// Values shorter than valuegen.HeaderSize carry no version: for them the
// key, length and content are checked, not which version came back.
// Drawing keys this way keeps each distribution's shape (see ownKey) but
// means a verify run never has two workers on one key.
type shard struct {
	ver  []uint64
	size []int32
	next uint64 // next version to write; versions are unique per worker
}

func newShard(keys int64, worker, workers int, fresh bool) *shard {
	n := (keys - int64(worker) + int64(workers) - 1) / int64(workers)
	s := &shard{ver: make([]uint64, n), size: make([]int32, n), next: 1}
	if !fresh {
		for i := range s.ver {
			s.ver[i] = unknown
		}
	}
	return s
}

// ownKey maps a drawn key index into worker w's shard, keeping it close to
// the drawn one so the distribution's shape survives: idx rounded down to a
// multiple of workers, plus w, stepping back one lap past the end.
func ownKey(idx, keys int64, w, workers int) int64 {
	k := idx - idx%int64(workers) + int64(w)
	if k >= keys {
		k -= int64(workers)
	}
	return k
}

// VerifyCounts are verify mode's findings; Checked counts gets compared.
type VerifyCounts struct {
	Checked, Mismatches, Missing, Torn int64
}

func (v *VerifyCounts) add(o VerifyCounts) {
	v.Checked += o.Checked
	v.Mismatches += o.Mismatches
	v.Missing += o.Missing
	v.Torn += o.Torn
}

// Failed reports whether verification found anything wrong.
func (v VerifyCounts) Failed() bool { return v.Mismatches+v.Missing+v.Torn > 0 }
