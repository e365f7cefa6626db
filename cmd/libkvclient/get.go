package main

/*
#include <stdlib.h>
#include <string.h>
#include "kv.h"
#include "kvclient.h"
*/
import "C"

import (
	"context"
	"unsafe"

	"github.com/kvbench/kvbench/rdmakv"
)

// kv_get copies the value into malloc'd memory with a NUL after it: the
// registered memory a Value views has no byte of its own to spare for one.
//
//export kv_get
func kv_get(kvHandle unsafe.Pointer, key *C.kvc_cchar, value **C.char) C.int {
	if key == nil || value == nil {
		return C.KV_EINVAL
	}
	*value = nil
	v, r := get(kvHandle, cBytes(unsafe.Pointer(key), C.strlen(key)))
	if r != C.KV_OK {
		return r
	}
	defer v.Release()
	b := v.Bytes()
	p := (*C.char)(C.malloc(C.size_t(len(b) + 1)))
	if p == nil {
		return C.KV_ENOMEM
	}
	dst := unsafe.Slice((*byte)(unsafe.Pointer(p)), len(b)+1)
	dst[copy(dst, b)] = 0
	hold(uintptr(unsafe.Pointer(p)), nil)
	*value = p
	return C.KV_OK
}

// kv_get_bytes is zero-copy: *value points into the registered memory the
// Value views (mmap'd or C-allocated by the transport, never Go's heap)
// until kv_release.
//
//export kv_get_bytes
func kv_get_bytes(kvHandle unsafe.Pointer, key *C.kvc_cvoid, keyLen C.size_t, value **C.char, n *C.size_t) C.int {
	if (key == nil && keyLen > 0) || value == nil || n == nil {
		return C.KV_EINVAL
	}
	*value, *n = nil, 0
	v, r := get(kvHandle, cBytes(unsafe.Pointer(key), keyLen))
	if r != C.KV_OK {
		return r
	}
	b := v.Bytes()
	if len(b) == 0 {
		v.Release()
		*value = &C.kvc_empty[0]
		return C.KV_OK
	}
	p := (*C.char)(unsafe.Pointer(&b[0]))
	hold(uintptr(unsafe.Pointer(p)), v)
	*value, *n = p, C.size_t(len(b))
	return C.KV_OK
}

func get(kvHandle unsafe.Pointer, key []byte) (*rdmakv.Value, C.int) {
	c := client(uintptr(C.kvc_handle_id(kvHandle)))
	if c == nil {
		return nil, C.KV_EINVAL
	}
	v, err := c.Get(context.Background(), key)
	if err != nil {
		return nil, code(err)
	}
	return v, C.KV_OK
}

//export kv_release
func kv_release(value *C.char) {
	if value == nil {
		return
	}
	v, ok := unhold(uintptr(unsafe.Pointer(value)))
	switch {
	case !ok: // released already, or the empty value
	case v != nil:
		v.Release()
	default:
		C.free(unsafe.Pointer(value))
	}
}
