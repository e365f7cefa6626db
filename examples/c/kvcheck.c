/*
 * kvcheck: exercises libkvclient against a running kvserver.
 *
 *   cc -Iinclude examples/c/kvcheck.c -Llib -lkvclient -lpthread -o kvcheck
 *   ./kvcheck HOST[:PORT] [CODE]
 *
 * Sets and gets values on both sides of the eager threshold, overwrites,
 * reads a missing key, deletes, hammers one handle from four threads, and
 * checks that bad arguments come back as error codes. Exits 0 when every
 * check passed, 1 otherwise, naming the first that failed. With CODE, a
 * kv.h return code such as -9, only checks that kv_open fails with it.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv.h"

static int failed;

#define CHECK(cond, ...)                                     \
	do {                                                 \
		if (!(cond)) {                               \
			fprintf(stderr, "kvcheck: FAIL: ");  \
			fprintf(stderr, __VA_ARGS__);        \
			fprintf(stderr, "\n");               \
			failed = 1;                          \
			return;                              \
		}                                            \
	} while (0)

/* pattern fills a NUL-terminated string of n characters that depends on seed. */
static char *pattern(size_t n, int seed)
{
	char *s = malloc(n + 1);
	for (size_t i = 0; i < n; i++)
		s[i] = 'a' + (char)((i * 7 + (size_t)seed) % 26);
	s[n] = 0;
	return s;
}

static void roundtrip(void *h, const char *key, size_t n, int seed)
{
	char *want = pattern(n, seed), *got = NULL;
	int r = kv_set(h, key, want);
	if (r != KV_OK) {
		free(want);
		CHECK(0, "kv_set %s (%zu bytes): %s", key, n, kv_strerror(r));
	}
	r = kv_get(h, key, &got);
	int same = r == KV_OK && got && strlen(got) == n && memcmp(got, want, n) == 0;
	kv_release(got);
	free(want);
	CHECK(same, "kv_get %s (%zu bytes): %s, %s", key, n, kv_strerror(r), r == KV_OK ? "wrong bytes" : "");
}

static void sizes(void *h)
{
	/* Both sides of the default 4 KiB threshold, and well into rendezvous. */
	size_t ns[] = {0, 1, 100, 4000, 4096, 5000, 65536, 1 << 20};
	char key[32];
	for (size_t i = 0; i < sizeof ns / sizeof ns[0] && !failed; i++) {
		snprintf(key, sizeof key, "kvcheck-size-%zu", ns[i]);
		roundtrip(h, key, ns[i], (int)i);
	}
}

static void overwrite_missing_delete(void *h)
{
	roundtrip(h, "kvcheck-ow", 10, 1);
	roundtrip(h, "kvcheck-ow", 70000, 2); /* eager to rendezvous */
	roundtrip(h, "kvcheck-ow", 3, 3);     /* and back */
	if (failed)
		return;
	char *v = (char *)"untouched";
	int r = kv_get(h, "kvcheck-never-set", &v);
	CHECK(r == KV_ENOTFOUND, "kv_get of a missing key returned %d (%s), want KV_ENOTFOUND", r, kv_strerror(r));
	CHECK(v == NULL, "kv_get of a missing key left *value set");
	r = kv_delete(h, "kvcheck-ow");
	CHECK(r == KV_OK, "kv_delete: %s", kv_strerror(r));
	r = kv_get(h, "kvcheck-ow", &v);
	CHECK(r == KV_ENOTFOUND, "kv_get after kv_delete returned %d, want KV_ENOTFOUND", r);
}

static void binary(void *h)
{
	const char key[] = {'b', 0, 'k'};
	const char val[] = {0, 1, 0, 2, 0};
	char *got;
	size_t n;
	int r = kv_set_bytes(h, key, sizeof key, val, sizeof val);
	CHECK(r == KV_OK, "kv_set_bytes: %s", kv_strerror(r));
	r = kv_get_bytes(h, key, sizeof key, &got, &n);
	CHECK(r == KV_OK && n == sizeof val && memcmp(got, val, n) == 0, "kv_get_bytes: %s", kv_strerror(r));
	kv_release(got);
	kv_release(got); /* a second release is ignored */
}

struct worker {
	void *h;
	int id, failures;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	char key[32];
	for (int i = 0; i < 200; i++) {
		size_t n = (i % 4 == 3) ? 20000 : (size_t)(i % 50) * 10; /* every fourth rendezvous */
		char *want = pattern(n, w->id * 1000 + i), *got = NULL;
		snprintf(key, sizeof key, "kvcheck-t%d-%d", w->id, i % 8);
		int ok = kv_set(w->h, key, want) == KV_OK && kv_get(w->h, key, &got) == KV_OK &&
			 strlen(got) == n && memcmp(got, want, n) == 0;
		kv_release(got);
		free(want);
		if (!ok)
			w->failures++;
	}
	return NULL;
}

static void threads(void *h)
{
	pthread_t t[4];
	struct worker w[4];
	for (int i = 0; i < 4; i++) {
		w[i] = (struct worker){.h = h, .id = i};
		pthread_create(&t[i], NULL, work, &w[i]);
	}
	int failures = 0;
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		failures += w[i].failures;
	}
	CHECK(failures == 0, "%d of 800 set+get pairs from 4 threads on one handle failed", failures);
}

static void bad_arguments(void *h)
{
	char *v;
	CHECK(kv_set(NULL, "k", "v") == KV_EINVAL, "kv_set on a NULL handle");
	CHECK(kv_set(h, NULL, "v") == KV_EINVAL, "kv_set with a NULL key");
	CHECK(kv_set(h, "k", NULL) == KV_EINVAL, "kv_set with a NULL value");
	CHECK(kv_get(h, "k", NULL) == KV_EINVAL, "kv_get with a NULL value pointer");
	CHECK(kv_get(h, NULL, &v) == KV_EINVAL, "kv_get with a NULL key");
	CHECK(kv_open(NULL, &h) == KV_EINVAL, "kv_open of a NULL server name");
	kv_release(NULL);
	CHECK(strcmp(kv_strerror(KV_ENOTFOUND), "key not found") == 0, "kv_strerror(KV_ENOTFOUND)");
}

int main(int argc, char **argv)
{
	void *h;
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: kvcheck HOST[:PORT] [CODE]\n");
		return 2;
	}
	int r = kv_open(argv[1], &h);
	if (argc == 3) {
		int want = atoi(argv[2]);
		if (r == want) {
			printf("kvcheck: PASS: kv_open returned %d (%s)\n", r, kv_strerror(r));
			return 0;
		}
		fprintf(stderr, "kvcheck: FAIL: kv_open returned %d (%s), want %d (%s)\n", r, kv_strerror(r), want,
			kv_strerror(want));
		if (r == KV_OK)
			kv_close(h);
		return 1;
	}
	if (r != KV_OK) {
		fprintf(stderr, "kvcheck: FAIL: kv_open %s: %s\n", argv[1], kv_strerror(r));
		return 1;
	}
	void (*checks[])(void *) = {sizes, overwrite_missing_delete, binary, threads, bad_arguments};
	for (size_t i = 0; i < sizeof checks / sizeof checks[0] && !failed; i++)
		checks[i](h);
	r = kv_close(h);
	if (!failed && r != KV_OK) {
		fprintf(stderr, "kvcheck: FAIL: kv_close: %s\n", kv_strerror(r));
		failed = 1;
	}
	if (!failed && kv_close(h) != KV_EINVAL) {
		fprintf(stderr, "kvcheck: FAIL: a second kv_close did not return KV_EINVAL\n");
		failed = 1;
	}
	if (!failed && kv_set(h, "k", "v") != KV_EINVAL) {
		fprintf(stderr, "kvcheck: FAIL: kv_set on a closed handle did not return KV_EINVAL\n");
		failed = 1;
	}
	if (!failed)
		printf("kvcheck: PASS\n");
	return failed;
}
