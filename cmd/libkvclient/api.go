package main

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#include <stdlib.h>
#include <string.h>
#include "kv.h"
#include "kvclient.h"
*/
import "C"

import (
	"context"
	"fmt"
	"os"
	"unsafe"

	"github.com/kvbench/kvbench/rdmakv"
)

//export kv_open
func kv_open(servername *C.char, kvHandle *unsafe.Pointer) C.int {
	if servername == nil || kvHandle == nil {
		return C.KV_EINVAL
	}
	addr, err := dialTarget(C.GoString(servername))
	if err != nil {
		return C.KV_EINVAL
	}
	opts, timeout, err := envOptions()
	if err != nil {
		fmt.Fprintf(os.Stderr, "libkvclient: kv_open: %v\n", err)
		return C.KV_EINVAL
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c, err := rdmakv.Dial(ctx, addr, opts...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "libkvclient: kv_open %s: %v\n", addr, err)
		if r := code(err); r != C.KV_EPROTO && r != C.KV_ECLOSED {
			return r
		}
		return C.KV_ECONNECT
	}
	C.kvc_store_handle(kvHandle, C.uintptr_t(addClient(c)))
	return C.KV_OK
}

//export kv_close
func kv_close(kvHandle unsafe.Pointer) C.int {
	c := removeClient(uintptr(C.kvc_handle_id(kvHandle)))
	if c == nil {
		return C.KV_EINVAL
	}
	c.Close()
	return C.KV_OK
}

//export kv_set
func kv_set(kvHandle unsafe.Pointer, key, value *C.kvc_cchar) C.int {
	if key == nil || value == nil {
		return C.KV_EINVAL
	}
	return set(kvHandle, cBytes(unsafe.Pointer(key), C.strlen(key)), cBytes(unsafe.Pointer(value), C.strlen(value)))
}

//export kv_set_bytes
func kv_set_bytes(kvHandle unsafe.Pointer, key *C.kvc_cvoid, keyLen C.size_t, value *C.kvc_cvoid, valueLen C.size_t) C.int {
	if (key == nil && keyLen > 0) || (value == nil && valueLen > 0) {
		return C.KV_EINVAL
	}
	return set(kvHandle, cBytes(unsafe.Pointer(key), keyLen), cBytes(unsafe.Pointer(value), valueLen))
}

func set(kvHandle unsafe.Pointer, key, value []byte) C.int {
	c := client(uintptr(C.kvc_handle_id(kvHandle)))
	if c == nil {
		return C.KV_EINVAL
	}
	return code(c.Set(context.Background(), key, value))
}

//export kv_delete
func kv_delete(kvHandle unsafe.Pointer, key *C.kvc_cchar) C.int {
	c := client(uintptr(C.kvc_handle_id(kvHandle)))
	if c == nil || key == nil {
		return C.KV_EINVAL
	}
	return code(c.Delete(context.Background(), cBytes(unsafe.Pointer(key), C.strlen(key))))
}

// cBytes views n bytes of C memory at p as a slice; rdmakv copies what it
// sends before returning, so the view does not outlive the call.
func cBytes(p unsafe.Pointer, n C.size_t) []byte {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(p), int(n))
}
