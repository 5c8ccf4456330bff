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
 * Then 1,000 slow clients (slowloris: a request's headers, a line every few
 * seconds, never finished) hold connections — spread over 10 addresses,
 * then all from one — while the 200 clients load the overview and new
 * clients come one at a time: their p99 and the slowest new client.
 * Targets: the metric history page p99 <= 50 ms (issue 8); with the slow
 * clients, every new client answered within 1 s (issue 18). Peak RSS of
 * the whole process (server and clients).
 */
#include "bench.h"
#include "../lib/util/node.h"
#include "../lib/store/store.h"
#include "../lib/util/strbuf.h"
#include "../web/web.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CLIENTS 50		/* on each page */
#define BUSY_CLIENTS 200	/* on the overview while the slow clients hold on */
#define SECONDS 3
#define SLOW 1000		/* slow clients */
#define SLOW_ADDRS 10		/* spread over 127.0.0.2 .. 127.0.0.11 */
#define SLOW_EVERY 5		/* seconds between their header lines (under the idle timeout) */
#define PROBES 30		/* new clients, one at a time, while they hold on */

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

/* `clients` clients on path for SECONDS; prints the figures, returns the p99 in seconds */
static double load(int port, const char *path, int clients)
{
	pthread_t t[BUSY_CLIENTS];
	struct client c[BUSY_CLIENTS];
	double *all = NULL;
	size_t n = 0;
	int errors = 0;

	/* the page made from the store (nothing kept yet), then kept pages under load */
	double cold = get(port, path);
	printf("  %-20.20s made from the store: %.1f ms\n", path, 1000 * cold);
	for (int i = 0; i < clients; i++) {
		c[i] = (struct client){ .port = port, .path = path };
		pthread_create(&t[i], NULL, run_client, &c[i]);
	}
	for (int i = 0; i < clients; i++) {
		pthread_join(t[i], NULL);
		all = realloc(all, (n + c[i].n + 1) * sizeof(double));
		memcpy(all + n, c[i].lat, c[i].n * sizeof(double));
		n += c[i].n;
		errors += c[i].errors;
		free(c[i].lat);
	}
	if (n)
		qsort(all, n, sizeof(double), cmp_double);
	printf("  %-20.20s %d clients, %zu requests in %d s (%.0f/s), %d errors: p50 %.1f ms, p99 %.1f ms\n", path, clients,
	       n, SECONDS, (double)n / SECONDS, errors, n ? 1000 * all[n / 2] : 0,
	       n ? 1000 * all[(size_t)((double)n * 0.99)] : 0);
	double p99 = n && !errors ? all[(size_t)((double)n * 0.99)] : 1e9;
	free(all);
	return p99;
}

/* The slow clients: connected, a request's headers begun and never finished. */
struct slow {
	int port;
	int fds[SLOW];
	size_t n, refused;
	int addrs;			/* how many source addresses they come from */
	volatile int stop;
};

static void *run_slow(void *arg)
{
	struct slow *sl = arg;

	for (size_t i = 0; i < SLOW; i++) {
		struct sockaddr_in src = { .sin_family = AF_INET }, dst = { .sin_family = AF_INET,
									  .sin_port = htons((uint16_t)sl->port) };
		char ip[32];
		snprintf(ip, sizeof(ip), "127.0.0.%zu", 2 + i % (size_t)sl->addrs);
		inet_pton(AF_INET, ip, &src.sin_addr);
		inet_pton(AF_INET, "127.0.0.1", &dst.sin_addr);
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&src, sizeof(src)) ||
		    connect(fd, (struct sockaddr *)&dst, sizeof(dst)) ||
		    write(fd, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n", 33) != 33) {
			if (fd >= 0)
				close(fd);
			sl->refused++;
			continue;
		}
		fcntl(fd, F_SETFL, O_NONBLOCK);
		sl->fds[sl->n++] = fd;
	}
	/* a header line every SLOW_EVERY seconds, each client, never the blank line that ends them */
	while (!sl->stop) {
		for (int t = 0; t < SLOW_EVERY * 10 && !sl->stop; t++)
			usleep(100000);
		for (size_t i = 0; i < sl->n; i++)
			if (sl->fds[i] >= 0 && write(sl->fds[i], "X-Slow: 1\r\n", 11) != 11 && errno != EAGAIN) {
				close(sl->fds[i]);
				sl->fds[i] = -1;
			}
	}
	return NULL;
}

/* How many of the slow connections the server still holds (not closed, not refused). */
static size_t slow_held(const struct slow *sl)
{
	size_t held = 0;
	char c;

	for (size_t i = 0; i < sl->n; i++) {
		if (sl->fds[i] < 0)
			continue;
		ssize_t r = recv(sl->fds[i], &c, 1, MSG_PEEK | MSG_DONTWAIT);
		held += r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
	}
	return held;
}

/* 1,000 slow clients from `addrs` addresses, the 200 clients on the overview, then new clients one at a time. */
static double slowloris(int port, int addrs)
{
	struct slow *sl = calloc(1, sizeof(*sl));
	pthread_t t;
	double worst = 0;
	int lost = 0;

	sl->port = port;
	sl->addrs = addrs;
	pthread_create(&t, NULL, run_slow, sl);
	while (sl->n + sl->refused < SLOW)
		usleep(10000);
	usleep(300000);	/* the server has taken (or refused) them all */
	printf("  %d slow clients from %d address%s: %zu held by the server, %zu refused or closed\n", SLOW, addrs,
	       addrs == 1 ? "" : "es", slow_held(sl), SLOW - slow_held(sl));
	load(port, "/", BUSY_CLIENTS);
	for (int i = 0; i < PROBES; i++) {
		double l = get(port, "/");
		if (l < 0)
			lost++;
		else if (l > worst)
			worst = l;
	}
	printf("  %d new clients one at a time: %d not answered, the slowest %.1f ms; slow clients still held: %zu\n",
	       PROBES, lost, 1000 * worst, slow_held(sl));
	sl->stop = 1;
	pthread_join(t, NULL);
	for (size_t i = 0; i < sl->n; i++)
		if (sl->fds[i] >= 0)
			close(sl->fds[i]);
	free(sl);
	return lost ? 1e9 : worst;
}

int main(void)
{
	char dir[] = "/tmp/lkp-bench-serve-XXXXXX";
	struct strbuf err = STRBUF_INIT;
	struct rusage ru;

	/* a slow client the server closed is written to again: an error, not a signal */
	signal(SIGPIPE, SIG_IGN);
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
	load(port, "/", CLIENTS);
	load(port, "/api/heads", CLIENTS);
	double p99 = load(port, "/history?testcase=fio-basic&path_params=pp&metric=fio.metric_07", CLIENTS);
	char *commit_page = xasprintf("/commit/%040x", 3);
	load(port, commit_page, CLIENTS);
	free(commit_page);
	printf("slowloris:\n");
	double spread = slowloris(port, SLOW_ADDRS), one = slowloris(port, 1);
	web_stop(w);
	getrusage(RUSAGE_SELF, &ru);
	printf("peak RSS %.1f MiB (server and clients); targets: the metric history page p99 <= 50 ms: %s; "
	       "new clients answered within 1 s under 1,000 slow ones: %s\n", (double)ru.ru_maxrss / 1024,
	       p99 <= 0.050 ? "met" : "NOT met", spread <= 1 && one <= 1 ? "met" : "NOT met");
	char *rm = xasprintf("rm -rf '%s'", dir);
	int rc = system(rm);
	free(rm);
	free(db);
	return rc ? 1 : 0;
}
