/*
 * mcget: a small reference client for memcached, to hold kvbench's
 * memcached figures against (test/baselines/distortion.sh). It does the
 * least a client can: N threads, one blocking TCP socket each, memcached's
 * text protocol, one `get KEY\r\n` in flight per socket, each timed with
 * clock_gettime(CLOCK_MONOTONIC) around its write and the read of its
 * reply. Keys are kvbench's ("k" and zero-padded digits, 16 bytes), drawn
 * uniformly; -P first stores every key with a value of -s bytes.
 *
 * It prints one line: ops=N misses=M seconds=S ops_per_s=R p50_ns=P
 * p99_ns=Q cpu_ns_per_op=C, the last the process's user and system time
 * over the measure phase (getrusage), as kvbench's cpu_c.
 *
 * Build: gcc -O2 -Wall -pthread -o mcget mcget.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define KEYSIZE 16

static const char *host = "127.0.0.1", *port = "11211";
static int threads = 1, keys = 1000, vsize = 64, preload;
static double warmup = 1, measure = 5;
static int64_t t_start, t_end; /* the measure phase, monotonic ns */

/* A thread's latencies (ns) in the measure phase; sorted together at the end. */
struct worker {
	pthread_t tid;
	uint32_t *lat;
	size_t n, cap, misses;
	uint64_t rng;
};

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t cpu_ns(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
	       ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static int dial(void)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai;
	int rc = getaddrinfo(host, port, &hints, &ai);
	if (rc != 0) {
		fprintf(stderr, "mcget: %s:%s: %s\n", host, port, gai_strerror(rc));
		exit(1);
	}
	int fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
	if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen) < 0)
		die("mcget: connect");
	freeaddrinfo(ai);
	/* Go's net package sets TCP_NODELAY on every TCP socket; so does this. */
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	return fd;
}

static void key(char *dst, long idx)
{
	snprintf(dst, KEYSIZE + 1, "k%0*ld", KEYSIZE - 1, idx);
}

static void writeall(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			die("mcget: write");
		p += w;
		n -= w;
	}
}

/* readuntil reads until buf ends with tail; the reply is the whole read. */
static void readuntil(int fd, char *buf, size_t size, const char *tail)
{
	size_t n = 0, t = strlen(tail);
	for (;;) {
		ssize_t r = read(fd, buf + n, size - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die("mcget: read");
		n += r;
		if (n >= t && memcmp(buf + n - t, tail, t) == 0)
			return;
		if (n == size) {
			fprintf(stderr, "mcget: reply larger than %zu bytes\n", size);
			exit(1);
		}
	}
}

static void do_preload(void)
{
	int fd = dial();
	char *req = malloc(64 + KEYSIZE + vsize), reply[64], k[KEYSIZE + 1];
	for (long i = 0; i < keys; i++) {
		key(k, i);
		int h = snprintf(req, 64 + KEYSIZE, "set %s 0 0 %d\r\n", k, vsize);
		memset(req + h, 'v', vsize);
		memcpy(req + h + vsize, "\r\n", 2);
		writeall(fd, req, h + vsize + 2);
		readuntil(fd, reply, sizeof reply, "\r\n");
		if (strncmp(reply, "STORED", 6) != 0) {
			fprintf(stderr, "mcget: set %s: %.*s\n", k, 40, reply);
			exit(1);
		}
	}
	free(req);
	close(fd);
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void *run(void *arg)
{
	struct worker *w = arg;
	int fd = dial();
	char req[8 + KEYSIZE], reply[4096];
	memcpy(req, "get ", 4);
	for (;;) {
		key(req + 4, (long)(xorshift(&w->rng) % (uint64_t)keys));
		memcpy(req + 4 + KEYSIZE, "\r\n", 2);
		int64_t t0 = now_ns();
		if (t0 >= t_end)
			break;
		writeall(fd, req, 6 + KEYSIZE);
		readuntil(fd, reply, sizeof reply, "END\r\n");
		int64_t t1 = now_ns();
		if (t0 < t_start || t1 > t_end)
			continue;
		if (reply[0] != 'V')
			w->misses++; /* a bare END: the key is not there */
		if (w->n == w->cap) {
			w->cap = w->cap ? 2 * w->cap : 1 << 16;
			if (!(w->lat = realloc(w->lat, w->cap * sizeof *w->lat)))
				die("mcget: realloc");
		}
		w->lat[w->n++] = (uint32_t)(t1 - t0 > UINT32_MAX ? UINT32_MAX : t1 - t0);
	}
	close(fd);
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int c;
	while ((c = getopt(argc, argv, "h:p:t:k:s:w:d:P")) != -1) {
		switch (c) {
		case 'h': host = optarg; break;
		case 'p': port = optarg; break;
		case 't': threads = atoi(optarg); break;
		case 'k': keys = atoi(optarg); break;
		case 's': vsize = atoi(optarg); break;
		case 'w': warmup = atof(optarg); break;
		case 'd': measure = atof(optarg); break;
		case 'P': preload = 1; break;
		default:
			fprintf(stderr, "usage: mcget [-h host] [-p port] [-t threads] [-k keys] "
					"[-s value bytes] [-w warmup s] [-d measure s] [-P]\n");
			return 2;
		}
	}
	if (threads < 1 || keys < 1 || vsize < 1 || measure <= 0) {
		fprintf(stderr, "mcget: -t, -k, -s and -d must be positive\n");
		return 2;
	}
	if (preload)
		do_preload();
	t_start = now_ns() + (int64_t)(warmup * 1e9);
	t_end = t_start + (int64_t)(measure * 1e9);
	struct worker *ws = calloc(threads, sizeof *ws);
	for (int i = 0; i < threads; i++) {
		ws[i].rng = 0x9e3779b97f4a7c15ULL * (i + 1);
		if (pthread_create(&ws[i].tid, NULL, run, &ws[i]) != 0)
			die("mcget: pthread_create");
	}
	struct timespec start = {.tv_sec = t_start / 1000000000, .tv_nsec = t_start % 1000000000};
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &start, NULL) == EINTR)
		;
	int64_t cpu0 = cpu_ns();
	size_t total = 0, misses = 0;
	for (int i = 0; i < threads; i++) {
		pthread_join(ws[i].tid, NULL);
		total += ws[i].n;
		misses += ws[i].misses;
	}
	int64_t cpu = cpu_ns() - cpu0;
	if (total == 0) {
		fprintf(stderr, "mcget: no request completed in the measure phase\n");
		return 1;
	}
	uint32_t *all = malloc(total * sizeof *all);
	size_t n = 0;
	for (int i = 0; i < threads; i++) {
		memcpy(all + n, ws[i].lat, ws[i].n * sizeof *all);
		n += ws[i].n;
		free(ws[i].lat);
	}
	qsort(all, total, sizeof *all, cmp);
	printf("ops=%zu misses=%zu seconds=%.3f ops_per_s=%.1f p50_ns=%u p99_ns=%u cpu_ns_per_op=%.0f\n",
	       total, misses, measure, total / measure, all[total / 2], all[(size_t)(total * 0.99)],
	       (double)cpu / total);
	free(all);
	free(ws);
	return 0;
}
