//go:build linux && cgo

package verbs

import (
	"errors"
	"syscall"
	"testing"
)

// A post fails whichever sign the provider gives its errno: the API's
// positive one, or the negative one siw and qedr return.
func TestPostErrorsEitherSign(t *testing.T) {
	for _, ret := range []int{int(syscall.EINVAL), -int(syscall.EINVAL), int(syscall.ENOMEM), -int(syscall.ENOMEM)} {
		p := newFakeProvider(ret, 256, 0)
		want := syscall.Errno(max(ret, -ret))
		for name, post := range map[string]func() error{
			"send":       p.send,
			"write+send": p.writeSend,
			"recv":       func() error { return p.recv(false) },
			"srq recv":   func() error { return p.recv(true) },
		} {
			if err := post(); !errors.Is(err, want) {
				t.Errorf("%s returning %d: error %v, want %v", name, ret, err, want)
			}
		}
		p.close()
	}
	p := newFakeProvider(0, 256, 0)
	defer p.close()
	if err := p.send(); err != nil {
		t.Errorf("send returning 0: %v", err)
	}
	if err := p.recv(true); err != nil {
		t.Errorf("srq recv returning 0: %v", err)
	}
}

// The inline ladder steps down on any failure, however the provider
// reports it, and a NULL that sets no errno never reads as a stale one.
func TestInlineLadder(t *testing.T) {
	cases := []struct {
		name        string
		inlineMax   int
		createErrno syscall.Errno
		want        int
		wantErr     error
	}{
		{"EINVAL above 96 (bnxt_re's inline)", 96, syscall.EINVAL, 96, nil},
		{"NULL without errno above 96", 96, 0, 96, nil},
		{"ENOMEM above 128", 128, syscall.ENOMEM, 128, nil},
		{"everything fits", 1 << 20, 0, 256, nil},
		{"no inline at all", 0, syscall.EINVAL, 0, nil},
		{"always ENOMEM", -1, syscall.ENOMEM, 0, syscall.ENOMEM},
		{"always NULL without errno", -1, 0, 0, syscall.EIO},
	}
	for _, c := range cases {
		p := newFakeProvider(0, c.inlineMax, c.createErrno)
		got, creates, err := p.create(256, syscall.ENOENT)
		p.close()
		switch {
		case c.wantErr != nil && !errors.Is(err, c.wantErr):
			t.Errorf("%s: error %v, want %v", c.name, err, c.wantErr)
		case c.wantErr == nil && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.wantErr == nil && got != c.want:
			t.Errorf("%s: settled on %d bytes inline, want %d", c.name, got, c.want)
		}
		if c.wantErr != nil && creates != 7 {
			t.Errorf("%s: %d creates tried, want every step of the ladder (7)", c.name, creates)
		}
	}
	p := newFakeProvider(0, 1<<20, 0)
	defer p.close()
	if got, _, err := p.create(100, 0); err != nil || got != 96 {
		t.Errorf("asking 100 bytes: settled on %d (%v), want the ladder's 96", got, err)
	}
}
