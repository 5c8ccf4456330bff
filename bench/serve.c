/*
 * bench/serve: the service's store and dashboard under load. Ingests
 * 10,000 runs (100 commits x 100 runs, 40 metrics each) into a fresh store
 * (their metrics 10 % lower from the 51st commit on, a bisection that
 * found it) and 1,000 tested heads, then has 50 concurrent clients fetch
 * the dashboard's overview, /api/heads, a metric's history over the 100
 * commits (SVG) and a commit page (against its base: compare of 2 x 100
 * runs x 40 metrics) for a few seconds each. Prints ingest runs/s and page
 * latency p50/p99 — the first request of each page made from the store,
 * the rest answered from the pages kept while the store is unchanged
 * (web/cache.h), as a dashboard between two commits of the service is.
 * Target (issue 8): the metric history page p99 <= 50 ms.
 */
#include "../lib/util/node.h"
#include "../lib/store/store.h"
#include "../lib/util/strbuf.h"
#include "../web/web.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CLIENTS 50
#define SECONDS 3

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct client {
	int port;
	const char *path;
	double *lat;
	size_t n, alloc;
	int errors;
};

/* One GET over a fresh connection, read to the end; its latency or -1. */
static double get(int port, const char *path)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	char req[256], buf[65536];
	double t0 = now();
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	int n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", path);
	if (write(fd, req, (size_t)n) != n) {
		close(fd);
		return -1;
	}
	ssize_t r;
	bool ok = false;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		ok |= !memcmp(buf, "HTTP/1.1 200", 12);
	close(fd);
	return ok ? now() - t0 : -1;
}

static void *run_client(void *arg)
{
	struct client *c = arg;
	double end = now() + SECONDS;

	while (now() < end) {
		double l = get(c->port, c->path);
		if (l < 0) {
			c->errors++;
			continue;
		}
		if (c->n == c->alloc) {
			c->alloc = c->alloc ? 2 * c->alloc : 256;
			c->lat = realloc(c->lat, c->alloc * sizeof(double));
		}
		c->lat[c->n++] = l;
	}
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* 50 clients on path for SECONDS; prints the figures, returns the p99 in seconds */
static double load(int port, const char *path)
{
	pthread_t t[CLIENTS];
	struct client c[CLIENTS];
	double *all = NULL;
	size_t n = 0;
	int errors = 0;

	/* the page made from the store (nothing kept yet), then kept pages under load */
	double cold = get(port, path);
	printf("  %-20.20s made from the store: %.1f ms\n", path, 1000 * cold);
	for (int i = 0; i < CLIENTS; i++) {
		c[i] = (struct client){ .port = port, .path = path };
		pthread_create(&t[i], NULL, run_client, &c[i]);
	}
	for (int i = 0; i < CLIENTS; i++) {
		pthread_join(t[i], NULL);
		all = realloc(all, (n + c[i].n + 1) * sizeof(double));
		memcpy(all + n, c[i].lat, c[i].n * sizeof(double));
		n += c[i].n;
		errors += c[i].errors;
		free(c[i].lat);
	}
	qsort(all, n, sizeof(double), cmp_double);
	printf("  %-20.20s %d clients, %zu requests in %d s (%.0f/s), %d errors: p50 %.1f ms, p99 %.1f ms\n", path, CLIENTS,
	       n, SECONDS, (double)n / SECONDS, errors, n ? 1000 * all[n / 2] : 0,
	       n ? 1000 * all[(size_t)((double)n * 0.99)] : 0);
	double p99 = n && !errors ? all[(size_t)((double)n * 0.99)] : 1e9;
	free(all);
	return p99;
}

int main(void)
{
	char dir[] = "/tmp/lkp-bench-serve-XXXXXX";
	struct strbuf err = STRBUF_INIT;
	struct rusage ru;

	if (!mkdtemp(dir))
		return 1;
	char *db = xasprintf("%s/lkprobot.db", dir);
	struct store *s = store_open(db, &err);
	if (!s) {
		fprintf(stderr, "bench/serve: %s\n", err.buf);
		return 1;
	}
	double t0 = now();
	for (int commit = 0; commit < 100; commit++)
		for (int run = 0; run < 100; run++) {
			struct node *stats = node_new(NODE_MAP);
			for (int k = 0; k < 40; k++) {
				char key[64], val[32];
				snprintf(key, sizeof(key), "fio.metric_%02d", k);
				snprintf(val, sizeof(val), "%.1f", (1000 + k) * (commit >= 50 ? 0.9 : 1.0) + (run % 7) - 3);
				node_set(stats, key, node_new_scalar(val));
			}
			char root[256], sha[41];
			snprintf(sha, sizeof(sha), "%040x", commit + 1);
			snprintf(root, sizeof(root), "/lkp/result/fio-basic/pp/box/debian/kc/gcc-12/%s/%d", sha, run);
			struct store_run r = { .result_root = root, .run_no = run, .testcase = "fio-basic",
					       .path_params = "pp", .job_yaml = "testcase: fio-basic\n", .commit = sha,
					       .kconfig = "kc", .compiler = "gcc-12", .rootfs = "debian",
					       .tbox_group = "box", .machine = "box-1", .job_state = "finished",
					       .stats = stats };
			if (store_record_run(s, &r, &err)) {
				fprintf(stderr, "bench/serve: %s\n", err.buf);
				return 1;
			}
			node_free(stats);
		}
	double ingest = now() - t0;
	for (int h = 0; h < 1000; h++) {
		char head[41], base[41];
		snprintf(head, sizeof(head), "%040x", h + 2);
		snprintf(base, sizeof(base), "%040x", h + 1);
		int64_t id = store_head_add(s, "linux", "master", head, base, 1700000000 + h, &err);
		store_head_set(s, id, "done", "[{\"job\": \"fio-basic.yaml\", \"bisect\": \"not-reproduced\"}]", 1700000000 + h,
			       &err);
	}
	char good[41], bad[41], culprit[41];
	snprintf(good, sizeof(good), "%040x", 1);
	snprintf(bad, sizeof(bad), "%040x", 100);
	snprintf(culprit, sizeof(culprit), "%040x", 51);
	struct store_bisection b = { .tree = "/srv/git/linux", .good = good, .bad = bad, .job = "fio-basic.yaml",
				     .overrides = "", .provider = "local" };
	int64_t bid = store_bisection_add(s, &b, &err);
	if (bid < 0 || store_bisection_end(s, bid, "fio.metric_07", "found", culprit, NULL, &err)) {
		fprintf(stderr, "bench/serve: %s\n", err.buf);
		return 1;
	}
	store_close(s);
	printf("ingest: 10000 runs x 40 metrics in %.2f s = %.0f runs/s\n", ingest, 10000 / ingest);

	int port = 30000 + getpid() % 20000;
	char addr[64];
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
	struct web_opts wo = { .addr = addr, .db = db, .result_root = dir };
	struct web *w = web_start(&wo, &err);
	if (!w) {
		fprintf(stderr, "bench/serve: %s\n", err.buf);
		return 1;
	}
	load(port, "/");
	load(port, "/api/heads");
	double p99 = load(port, "/history?testcase=fio-basic&path_params=pp&metric=fio.metric_07");
	char *commit_page = xasprintf("/commit/%040x", 3);
	load(port, commit_page);
	free(commit_page);
	web_stop(w);
	getrusage(RUSAGE_SELF, &ru);
	printf("peak RSS %.1f MiB; target: the metric history page p99 <= 50 ms: %s\n", (double)ru.ru_maxrss / 1024,
	       p99 <= 0.050 ? "met" : "NOT met");
	char *rm = xasprintf("rm -rf '%s'", dir);
	int rc = system(rm);
	free(rm);
	free(db);
	return rc ? 1 : 0;
}
