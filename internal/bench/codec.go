package bench

import "github.com/kvbench/kvbench/internal/valuegen"

// Values is the Codec of internal/valuegen: values are a pure function of
// key, version and length, so checking needs no copy of what was written.
type Values struct{}

// Fill implements Codec.
func (Values) Fill(dst, key []byte, version uint64) { valuegen.Fill(dst, key, version) }

// Check implements Codec. Values shorter than valuegen.HeaderSize carry no
// version; Check then returns version 0, which the worker takes as "any".
func (Values) Check(got, key []byte, wantLen int) (uint64, ErrorKind) {
	r := valuegen.Check(got, key, wantLen)
	switch {
	case r.OK:
		return r.Version, KindNone
	case r.Kind == valuegen.KindTorn:
		return r.Version, KindTorn
	case r.Kind == valuegen.KindWrongKey:
		return r.Version, KindWrongKey
	}
	return r.Version, KindVerifyMismatch
}
