// Command libkvclient is rdmakv's client as a C library, libkvclient.so
// and libkvclient.a (make lib), with the API of include/kv.h: kv_open,
// kv_set, kv_get, kv_release, kv_close, and the binary-safe kv_set_bytes,
// kv_get_bytes and kv_delete. C programs written against that API link
// with -lkvclient unchanged.
//
// No Go pointer reaches C: handles are numbers the library hands out, and
// the values it returns live in memory the transports registered (mmap or
// C) or in malloc'd copies.
package main

import (
	_ "github.com/kvbench/kvbench/rdmakv/tcp"   // the TCP transport
	_ "github.com/kvbench/kvbench/rdmakv/verbs" // the RDMA verbs transport
)

func main() {}
