/*
 * kv.h: the C API of rdmakv's client (libkvclient).
 *
 * Link with -lkvclient (lib/libkvclient.so or lib/libkvclient.a, built by
 * `make lib`; the static archive also needs -lpthread -libverbs -lrdmacm).
 *
 * A handle is a connection to one kvserver. Every function may be called
 * from several threads on one handle. Nothing prints to stdout and nothing
 * aborts the process: each function returns 0 on success or one of the
 * negative KV_E* codes below, which kv_strerror names.
 *
 * Environment, read at kv_open:
 *   KVBENCH_TRANSPORT        tcp (the default), verbs, or auto (verbs where
 *                            an RDMA device is usable, else tcp)
 *   KVBENCH_EAGER_THRESHOLD  bytes of key + value at which requests switch
 *                            from eager to rendezvous (default 4096)
 *   KVBENCH_PROFILE          a threshold profile (profile.json, as kvbench
 *                            tune writes it): a threshold for gets and one
 *                            for sets by load; excludes
 *                            KVBENCH_EAGER_THRESHOLD
 *   KVBENCH_CONNECTIONS      the application's connections, which times the
 *                            handle's depth choose the profile's load
 *                            band (default 1)
 *   KVBENCH_DEPTH            the requests a handle keeps in flight at once,
 *                            from all its threads (default 64)
 *   KVBENCH_AUTH_FILE        the server's secret, for a kvserver started
 *                            with --auth-file
 *   KVBENCH_TIMEOUT          how long one request may take, as a Go
 *                            duration ("10s", "250ms"; default 5s)
 *   KVBENCH_TOS              the IP type-of-service byte of the traffic,
 *                            DSCP << 2 | ECN ("104" or "0x68"): the RoCE
 *                            traffic class on verbs (default 0)
 */
#ifndef KV_H
#define KV_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
	KV_OK = 0,
	KV_EINVAL = -1,         /* a NULL or unknown handle, key or value pointer, or bad environment */
	KV_ENOTFOUND = -2,      /* no such key */
	KV_EKEYTOOLONG = -3,    /* key longer than the server allows */
	KV_EVALUETOOLARGE = -4, /* value larger than the server allows */
	KV_ENOSPACE = -5,       /* the server's value pool is full */
	KV_ECLOSED = -6,        /* the connection is closed or was lost */
	KV_ETIMEDOUT = -7,      /* no answer within the timeout */
	KV_EPROTO = -8,         /* the server broke the protocol */
	KV_ECONNECT = -9,       /* kv_open could not connect (unreachable, refused, no device) */
	KV_EAUTH = -10,         /* the server refused the secret, or wants one */
	KV_ETHRESHOLD = -11,    /* KVBENCH_EAGER_THRESHOLD or KVBENCH_PROFILE above the server's maximum */
	KV_ENOMEM = -12,        /* the library could not allocate the copy of a value */
};

/* kv_open connects to servername, "host" (port 7471) or "host:port", and
 * stores the handle in *kv_handle. */
int kv_open(char *servername, void **kv_handle);

/* kv_set stores the NUL-terminated value under the NUL-terminated key. */
int kv_set(void *kv_handle, const char *key, const char *value);

/* kv_get stores in *value a NUL-terminated copy of the key's value, which
 * the library owns until kv_release(*value); *value is NULL on failure. */
int kv_get(void *kv_handle, const char *key, char **value);

/* kv_release hands back what kv_get or kv_get_bytes returned. NULL, and a
 * pointer already released, are ignored. */
void kv_release(char *value);

/* kv_close closes the handle; operations in flight on other threads fail
 * with KV_ECLOSED. Closing an unknown or closed handle returns KV_EINVAL. */
int kv_close(void *kv_handle);

/* kv_delete removes the key. */
int kv_delete(void *kv_handle, const char *key);

/* Binary-safe variants: key and value are byte ranges that may hold NUL
 * bytes. kv_get_bytes stores the value's address in *value and its length
 * in *len without copying: the bytes are the client's registered memory,
 * valid until kv_release(*value) or kv_close of the handle. */
int kv_set_bytes(void *kv_handle, const void *key, size_t key_len, const void *value, size_t value_len);
int kv_get_bytes(void *kv_handle, const void *key, size_t key_len, char **value, size_t *len);

/* kv_strerror describes a return code; the string is static. */
const char *kv_strerror(int code);

#ifdef __cplusplus
}
#endif

#endif /* KV_H */
