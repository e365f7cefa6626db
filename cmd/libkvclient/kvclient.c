/* The C half of libkvclient: what needs no Go. */
#include <stdint.h>
#include "kv.h"
#include "kvclient.h"

/* Handles are the library's own numbers, never addresses, so a handle
 * that was closed or never opened is refused rather than followed. */
void kvc_store_handle(void **out, uintptr_t id) { *out = (void *)id; }

uintptr_t kvc_handle_id(void *h) { return (uintptr_t)h; }

char kvc_empty[1];

const char *kv_strerror(int code)
{
	switch (code) {
	case KV_OK: return "success";
	case KV_EINVAL: return "invalid argument: a NULL or unknown handle, key or value, or a bad KVBENCH_* setting";
	case KV_ENOTFOUND: return "key not found";
	case KV_EKEYTOOLONG: return "key longer than the server allows";
	case KV_EVALUETOOLARGE: return "value larger than the server allows";
	case KV_ENOSPACE: return "the server's value pool is full";
	case KV_ECLOSED: return "connection closed";
	case KV_ETIMEDOUT: return "request timed out";
	case KV_EPROTO: return "protocol error";
	case KV_ECONNECT: return "cannot connect to the server";
	case KV_EAUTH: return "authentication failed";
	case KV_ETHRESHOLD: return "eager threshold above the server's maximum";
	case KV_ENOMEM: return "out of memory";
	}
	return "unknown kv error code";
}
