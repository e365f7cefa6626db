#include <stdio.h>
#include "kv.h"

int main(int argc, char **argv)
{
	void *kv;
	char *value;
	int r = kv_open(argc > 1 ? argv[1] : "localhost", &kv); /* "host" (port 7471) or "host:port" */
	if (r != KV_OK)
		return fprintf(stderr, "%s\n", kv_strerror(r)), 1;
	if ((r = kv_set(kv, "greeting", "hello")) == KV_OK && (r = kv_get(kv, "greeting", &value)) == KV_OK) {
		printf("%s\n", value);
		kv_release(value); /* the library owns what kv_get returns */
	}
	kv_close(kv);
	return r != KV_OK;
}
