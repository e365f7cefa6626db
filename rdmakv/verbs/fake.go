//go:build linux && cgo

package verbs

/*
#include "verbs.h"

struct kv_fake;
struct kv_fake *kv_fake_open(int post_ret, int inline_max, int create_errno);
void kv_fake_close(struct kv_fake *f);
int kv_fake_send(struct kv_fake *f);
int kv_fake_write_send(struct kv_fake *f);
int kv_fake_recv(struct kv_fake *f, int shared);
int kv_fake_create(struct kv_fake *f, int want, int stale, int *got, int *creates);
*/
import "C"

import "syscall"

// fakeProvider is a provider that lives only in memory (fake.c), so the
// tests can hold the shim to what real providers return without a device:
// posts that fail with a negative errno as siw's and qedr's do, and QP
// creation that fails without setting errno as bnxt_re's does.
type fakeProvider struct{ f *C.struct_kv_fake }

// newFakeProvider makes a provider whose posts all return postRet and
// whose QP creation fails above inlineMax bytes of inline data, setting
// errno to createErrno (0: leaving it untouched).
func newFakeProvider(postRet, inlineMax int, createErrno syscall.Errno) *fakeProvider {
	return &fakeProvider{C.kv_fake_open(C.int(postRet), C.int(inlineMax), C.int(createErrno))}
}

func (p *fakeProvider) close() { C.kv_fake_close(p.f) }

func (p *fakeProvider) send() error      { return errno(C.kv_fake_send(p.f)) }
func (p *fakeProvider) writeSend() error { return errno(C.kv_fake_write_send(p.f)) }

func (p *fakeProvider) recv(shared bool) error {
	s := C.int(0)
	if shared {
		s = 1
	}
	return errno(C.kv_fake_recv(p.f, s))
}

// create runs the inline ladder asking want bytes, with errno stale
// beforehand; it returns the inline size settled on and the creates tried.
func (p *fakeProvider) create(want int, stale syscall.Errno) (inline, creates int, err error) {
	var got, n C.int
	r := C.kv_fake_create(p.f, C.int(want), C.int(stale), &got, &n)
	return int(got), int(n), errno(r)
}
