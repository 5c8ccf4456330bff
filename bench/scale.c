/*
 * bench/scale: does the work grow linearly with the input? The real binary
 * on a job of 10,000 and of 100,000 keys (`split-job -n`: loaded, merged,
 * expanded, validated, named) and on a compare of 10,000 and of 100,000
 * metrics (two commit directories of 3 runs each: matrix.json read, every
 * row compared and rendered). Linear work takes ~10x as long for 10x the
 * input; the quadratic paths this replaced took ~100x (40,000 job keys
 * took 3.5 s; 16,000 metrics 3.4 s against 0.07 s for 2,000). Best of 3
 * runs each; prints figures, passes no judgement.
 *
 * Then a farm's history: `stats --reindex` of 1,000, 10,000, ... result
 * roots up to max-roots (5 runs a commit; each root a job.yaml and a
 * 200-metric stats.json, hard links of a pair of files for every 50,000
 * roots, as ext4 takes 65,000 links to a file), the largest once, the
 * others best of 3, and the exponent k of time ~ roots^k between sizes
 * (1.0: linear); then in the store each reindex made (a head a commit,
 * against the one before): `compare --db` of two 5-run commits, the commit
 * page of a head (made from the store), `status --json`'s first page and
 * `serve --listen`'s start to its first page — none should grow with the
 * store (k near 0). Targets (issue 35): linear (10x the roots <= 12x the
 * time), at 1,000,000 runs the commit page and compare --db <= 100 ms,
 * serve's start <= 2 s.
 *
 * usage: build/rel/bench/scale [-s] [path/to/lkprobot [max-roots]]
 * (-s: the farm's part alone)
 */
#include "bench.h"
#include "../lib/store/store.h"
#include "../lib/util/strbuf.h"
#include "../web/web.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <math.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

/* The CPU seconds (user + system) of the fastest of best_of's runs: steadier than wall time on a busy machine. */
static double best_cpu;

/* Seconds argv takes (stdout to /dev/null), best of n; -1 when it fails. */
static double best_of(int n, char *const argv[])
{
	double best = -1;

	for (int k = 0; k < n; k++) {
		fflush(stdout);
		double t0 = now();
		pid_t pid = fork();
		int status;
		if (pid == 0) {
			if (!freopen("/dev/null", "w", stdout))
				_exit(127);
			execv(argv[0], argv);
			_exit(127);
		}
		struct rusage ru;
		if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "scale: %s %s failed\n", argv[0], argv[1]);
			return -1;
		}
		double t = now() - t0;
		if (best < 0 || t < best) {
			best = t;
			best_cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
				   (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
		}
	}
	return best;
}

static void write_job(const char *path, long keys)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		exit(1);
	}
	fprintf(f, "suite: fio-basic\ntestcase: fio-basic\nfio-setup-basic:\n  rw: read\n  bs: 4k\nfio:\n");
	for (long i = 0; i < keys; i++)
		fprintf(f, "key%06ld: value %ld\n", i, i);
	fclose(f);
}

/* <dir>/<commit>/matrix.json with `metrics` metrics of 3 runs each, `shift` on every other one. */
static void write_matrix(const char *dir, const char *commit, long metrics, double shift)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, commit);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/matrix.json", dir, commit);
	if (!(f = fopen(path, "w"))) {
		perror(path);
		exit(1);
	}
	fprintf(f, "{\n");
	for (long i = 0; i < metrics; i++) {
		double v = 1000 + (double)(i % 97) * (i % 2 ? shift : 1);
		fprintf(f, "  \"fio.m%06ld\": [%g, %g, %g],\n", i, v, v * 1.01, v * 0.99);
	}
	fprintf(f, "  \"stats_source\": [\"%s/0/stats.json\", \"%s/1/stats.json\", \"%s/2/stats.json\"]\n}\n",
		commit, commit, commit);
	fclose(f);
}

/* dir/job-k.yaml and dir/stats-k.json: what every root links to (a file takes at most 65,000 links on ext4). */
static void write_template(const char *dir, long k, char job[4200], char stats[4200])
{
	FILE *f;

	snprintf(job, 4200, "%.4000s/job-%ld.yaml", dir, k);
	snprintf(stats, 4200, "%.4000s/stats-%ld.json", dir, k);
	if (!(f = fopen(job, "w"))) {
		perror(job);
		exit(1);
	}
	fprintf(f,
		"testcase: fio-basic\ntbox_group: tb\ntestbox: tb-1\nkconfig: kc\ncompiler: gcc-12\n"
		"rootfs: debian\njob_state: finished\n");
	fclose(f);
	if (!(f = fopen(stats, "w"))) {
		perror(stats);
		exit(1);
	}
	fprintf(f, "{\n");
	for (int m = 0; m < 200; m++)
		fprintf(f, "  \"fio.m%03d\": %d,\n", m, 1000 + m);
	fprintf(f, "  \"fio.write_bw_MBps\": 100\n}\n");
	fclose(f);
}

/* <dir>/fio-basic/pp/tb/debian/kc/gcc-12/<commit>/<run> for `roots` runs, 5 a commit. */
static void write_roots(const char *dir, long roots)
{
	char path[4096], job[4200], stats[4200];

	for (long r = 0; r < roots; r++) {
		static const char *const levels[] = { "fio-basic", "pp", "tb", "debian", "kc", "gcc-12" };
		if (r % 50000 == 0)
			write_template(dir, r / 50000, job, stats);
		int len = snprintf(path, sizeof(path), "%s", dir);
		for (int l = 0; l < 6; l++) {
			len += snprintf(path + len, sizeof(path) - len, "/%s", levels[l]);
			mkdir(path, 0755);
		}
		len += snprintf(path + len, sizeof(path) - len, "/%040ld", r / 5);
		mkdir(path, 0755);
		len += snprintf(path + len, sizeof(path) - len, "/%ld", r % 5);
		mkdir(path, 0755);
		snprintf(path + len, sizeof(path) - len, "/job.yaml");
		if (link(job, path))
			perror(path), exit(1);
		snprintf(path + len, sizeof(path) - len, "/stats.json");
		if (link(stats, path))
			perror(path), exit(1);
	}
}

/* k of time ~ size^k between two sizes */
static double exponent(double t0, double t1, long n0, long n1)
{
	return log(t1 / t0) / log((double)n1 / (double)n0);
}

/* argv's stdout (its first line, at most size - 1 bytes) into out; -1 when it fails. */
static int output_of(char *const argv[], char *out, size_t size)
{
	int fd[2], status;

	if (pipe(fd))
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	ssize_t n = pid < 0 ? -1 : read(fd[0], out, size - 1);
	close(fd[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) || n < 0)
		return -1;
	out[n] = '\0';
	out[strcspn(out, "\n")] = '\0';
	return 0;
}

/*
 * A configuration for status and serve on the farm's store: one tree (a
 * git repository of one commit, its head recorded as tested, so that the
 * service has nothing to do), no mail.
 */
static void write_conf(const char *tmp, const char *dir, char conf[4200], char head[64], char branch[64])
{
	char repo[4200], job[4200];
	FILE *f;

	snprintf(repo, sizeof(repo), "%.4000s/repo", tmp);
	snprintf(job, sizeof(job), "%.4000s/job-serve.yaml", tmp);
	snprintf(conf, 4200, "%.4000s/serve-%s.yaml", tmp, strrchr(dir, '/') + 1);
	if (access(repo, F_OK)) {
		char *init[] = { "git", "init", "-q", repo, NULL };
		char *commit[] = { "git", "-C",		 repo,	   "-c", "user.email=b@example.org",
				   "-c",  "user.name=b", "commit", "-q", "--allow-empty",
				   "-m",  "base",	 NULL };
		char out[8];
		if (output_of(init, out, sizeof(out)) || output_of(commit, out, sizeof(out)))
			fprintf(stderr, "scale: cannot make a git repository in %s\n", repo), exit(1);
	}
	char *rev[] = { "git", "-C", repo, "rev-parse", "HEAD", NULL };
	char *br[] = { "git", "-C", repo, "symbolic-ref", "--short", "HEAD", NULL };
	if (output_of(rev, head, 64) || output_of(br, branch, 64))
		fprintf(stderr, "scale: cannot read %s's head\n", repo), exit(1);
	if (!(f = fopen(job, "w")))
		perror(job), exit(1);
	fprintf(f, "suite: command\ntestcase: command\ncommand:\n  cmd: \"true\"\n");
	fclose(f);
	if (!(f = fopen(conf, "w")))
		perror(conf), exit(1);
	fprintf(f,
		"serve:\n  result_root: %s\n  cache: %s/cache\n  trees:\n    - name: bench\n      path: %s\n"
		"      branches: [%s]\n      jobs: [%s]\n",
		dir, tmp, repo, branch, job);
	fclose(f);
}

/* A head a commit of the farm (against the commit before), done; and the repository's head, done. */
static void write_heads(const char *db, long commits, const char *head, const char *branch)
{
	struct strbuf err = STRBUF_INIT;
	struct store *s = store_open(db, &err);
	char h[48], b[48];

	if (!s || store_batch_begin(s, &err))
		fprintf(stderr, "scale: %s: %s\n", db, err.buf), exit(1);
	for (long c = 1; c < commits; c++) {
		snprintf(h, sizeof(h), "%040ld", c);
		snprintf(b, sizeof(b), "%040ld", c - 1);
		int64_t id = store_head_add(s, "farm", "master", h, b, 1700000000 + c, &err);
		if (id <= 0 || store_head_set(s, id, "done", "[]", 1700000000 + c, &err) < 0)
			fprintf(stderr, "scale: %s: %s\n", db, err.buf), exit(1);
	}
	int64_t id = store_head_add(s, "bench", branch, head, "", 1700000000, &err);
	if (id <= 0 || store_head_set(s, id, "baseline", "[]", 1700000000, &err) < 0 || store_batch_end(s, true, &err))
		fprintf(stderr, "scale: %s: %s\n", db, err.buf), exit(1);
	store_close(s);
	strbuf_release(&err);
}

/* The first request of the commit page of commit (made from the store: a new site, nothing kept), best of 3. */
static double commit_page(const char *dir, const char *db, const char *commit)
{
	char path[64];
	double best = -1;

	snprintf(path, sizeof(path), "/commit/%s", commit);
	for (int k = 0; k < 3; k++) {
		struct strbuf err = STRBUF_INIT;
		struct web_opts o = { .db = db, .result_root = dir };
		struct web *w = web_new(&o, &err);
		struct web_request rq = { .method = "GET", .path = path, .body = "" };
		struct web_response rs;
		if (!w)
			fprintf(stderr, "scale: %s\n", err.buf), exit(1);
		double t0 = now();
		web_handle(w, &rq, &rs);
		double t = now() - t0;
		if (rs.status != 200)
			fprintf(stderr, "scale: %s: %u\n", path, rs.status), exit(1);
		if (!strstr(rs.body.buf, "<h2>Against its base <"))
			fprintf(stderr, "scale: %s: the head is not compared with its base\n", path), exit(1);
		web_response_release(&rs);
		web_stop(w);
		strbuf_release(&err);
		if (best < 0 || t < best)
			best = t;
	}
	return best;
}

/* Does a GET of / on 127.0.0.1:port answer 200? */
static bool answers(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	char buf[64] = "";
	bool ok = false;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && !connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		static const char rq[] = "GET /api/ HTTP/1.0\r\n\r\n";
		if (write(fd, rq, sizeof(rq) - 1) == (ssize_t)sizeof(rq) - 1 && read(fd, buf, sizeof(buf) - 1) > 12)
			ok = !strncmp(buf + 9, "200", 3);
	}
	if (fd >= 0)
		close(fd);
	return ok;
}

/* serve --listen's start: from its exec to its first page answered (at most 60 s), best of 3; -1: never. */
static double serve_start(const char *lkprobot, const char *conf, int port)
{
	double best = -1;
	char listen[32];

	snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
	for (int k = 0; k < 3; k++) {
		double t0 = now(), t = -1;
		pid_t pid = fork();
		if (pid == 0) {
			if (!freopen("/dev/null", "w", stderr))
				_exit(127);
			execl(lkprobot, lkprobot, "serve", "-c", conf, "--listen", listen, (char *)NULL);
			_exit(127);
		}
		while (pid > 0 && now() - t0 < 60) {
			if (answers(port)) {
				t = now() - t0;
				break;
			}
			usleep(2000);
		}
		if (pid > 0) {
			int status;
			kill(pid, SIGTERM);
			waitpid(pid, &status, 0);
		}
		if (t >= 0 && (best < 0 || t < best))
			best = t;
	}
	return best;
}

/* One figure of a size: its time, the exponent against the size before, the time beside a target. */
static void figure(const char *what, const double *t, const long *sizes, int s, double target)
{
	printf("%8ld %-38s %8.3f s", sizes[s], what, t[s]);
	if (s)
		printf("  (k = %.2f)", exponent(t[s - 1], t[s], sizes[s - 1], sizes[s]));
	if (target > 0)
		printf("  target <= %g s: %s", target, t[s] <= target ? "met" : "NOT met");
	printf("\n");
}

/*
 * A farm's history of 1k, 10k, ... up to max roots (5 runs a commit, a
 * head a commit): stats --reindex, then in the store it made compare --db
 * of two commits, the commit page (a head, compared with its base),
 * status --json's first page and serve --listen's start; the exponent k
 * of time ~ size^k between sizes (1: linear; 0: independent of the store).
 */
static void farm(const char *lkprobot, const char *tmp, long max)
{
	long sizes[8];
	int nsizes = 0;
	double t[8], cpu[8], ct[8], pt[8], st[8], sv[8];

	for (long n = 1000; n <= (max ? max : 10000) && nsizes < 8; n *= 10)
		sizes[nsizes++] = n;
	for (int s = 0; s < nsizes; s++) {
		char dir[4096], db[4200], conf[4200], head[64], branch[64];
		snprintf(dir, sizeof(dir), "%.4000s/farm%ld", tmp, sizes[s]);
		mkdir(dir, 0755);
		write_roots(dir, sizes[s]);
		snprintf(db, sizeof(db), "%s/lkprobot.db", dir);
		char *reindex[] = { (char *)lkprobot, "stats", "--reindex", dir, "--db", db, NULL };
		t[s] = best_of(sizes[s] > 10000 ? 1 : 3, reindex); /* 100,000 roots and more: once */
		cpu[s] = best_cpu;
		write_conf(tmp, dir, conf, head, branch);
		write_heads(db, sizes[s] / 5, head, branch);
		char c1[48], c2[48];
		snprintf(c1, sizeof(c1), "%040ld", sizes[s] / 10);
		snprintf(c2, sizeof(c2), "%040ld", sizes[s] / 10 + 1);
		char *cmp[] = { (char *)lkprobot, "compare", "--db", db, c1, c2, NULL };
		ct[s] = best_of(3, cmp);
		pt[s] = commit_page(dir, db, c2);
		char *status[] = { (char *)lkprobot, "status", "-c", conf, "--json", NULL };
		st[s] = best_of(3, status);
		sv[s] = serve_start(lkprobot, conf, 20000 + (int)(getpid() % 20000));
		printf("%8ld roots %-32s %8.3f s (cpu %.3f s)", sizes[s], "stats --reindex", t[s], cpu[s]);
		if (s)
			printf("  (k = %.2f, cpu k = %.2f)", exponent(t[s - 1], t[s], sizes[s - 1], sizes[s]),
			       exponent(cpu[s - 1], cpu[s], sizes[s - 1], sizes[s]));
		printf("\n");
		figure("runs: compare --db of two commits", ct, sizes, s, sizes[s] >= 1000000 ? 0.1 : 0);
		figure("runs: the commit page, from the store", pt, sizes, s, sizes[s] >= 1000000 ? 0.1 : 0);
		figure("runs: status --json (first page)", st, sizes, s, 0);
		figure("runs: serve --listen's start", sv, sizes, s, 2);
		fflush(stdout);
		char *rm[] = { "/bin/rm", "-rf", dir, NULL };
		best_of(1, rm);
	}
	/* on the CPU seconds: a shared machine's wall time moves with its load */
	if (nsizes > 1) {
		double k = exponent(cpu[nsizes - 2], cpu[nsizes - 1], sizes[nsizes - 2], sizes[nsizes - 1]);
		printf("linear: 10x the roots <= 12x the reindex's CPU time: %s (k = %.2f; <= %.2f)\n",
		       k <= log(12) / log(10) ? "met" : "NOT met", k, log(12) / log(10));
	}
}

int main(int argc, char **argv)
{
	char exe[4096], tmp[] = "/tmp/lkprobot-scale.XXXXXX";
	bool farm_only = argc > 1 && !strcmp(argv[1], "-s");
	if (farm_only)
		argc--, argv++;
	const char *lkprobot = argc > 1 ? argv[1] : NULL;
	long max = argc > 2 ? atol(argv[2]) : 0;
	const long sizes[] = { 10000, 100000 };
	double job_t[2], cmp_t[2];

	if (!lkprobot) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 32);
		if (n <= 0)
			return 1;
		exe[n] = '\0';
		/* <tree>/build/rel/bench/scale -> <tree>/lkprobot */
		for (int up = 0; up < 4; up++)
			*strrchr(exe, '/') = '\0';
		snprintf(exe + strlen(exe), sizeof(exe) - strlen(exe), "/lkprobot");
		lkprobot = exe;
	}
	if (!mkdtemp(tmp)) {
		perror(tmp);
		return 1;
	}
	for (int s = 0; s < 2 && !farm_only; s++) {
		char job[4200], base[4200], newc[4200];
		snprintf(job, sizeof(job), "%s/job-%ld.yaml", tmp, sizes[s]);
		write_job(job, sizes[s]);
		char *split[] = { (char *)lkprobot, "split-job", "-n", job, NULL };
		job_t[s] = best_of(3, split);

		char dir[4096];
		snprintf(dir, sizeof(dir), "%.4000s/m%ld", tmp, sizes[s]);
		mkdir(dir, 0755);
		write_matrix(dir, "aaaa", sizes[s], 1.0);
		write_matrix(dir, "bbbb", sizes[s], 1.3);
		snprintf(base, sizeof(base), "%s/aaaa", dir);
		snprintf(newc, sizeof(newc), "%s/bbbb", dir);
		char *cmp[] = { (char *)lkprobot, "compare", base, newc, NULL };
		cmp_t[s] = best_of(3, cmp);
		printf("%6ld job keys:  split-job -n %.3f s     %6ld metrics: compare %.3f s\n", sizes[s], job_t[s],
		       sizes[s], cmp_t[s]);
	}
	if (!farm_only)
		printf("10x the input: job keys %.1fx the time, metrics %.1fx (linear: ~10x; quadratic: ~100x)\n",
		       job_t[1] / job_t[0], cmp_t[1] / cmp_t[0]);
	farm(lkprobot, tmp, max);
	char *rm[] = { "/bin/rm", "-rf", tmp, NULL };
	best_of(1, rm);
	return 0;
}
