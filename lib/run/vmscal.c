/*
 * vmscal: vm-scalability's cases in C — the workers, the start and free
 * barriers between them and the test process, and the lines they print.
 * See vmscal.h for what a case does.
 */
#include "vmscal.h"
#include "../sys/fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* hw_vars: ROTATE_BYTES, AS_LIMIT (47-bit user space / 2) */
#define VMSCAL_ROTATE_BYTES (1ULL << 42)
#define VMSCAL_AS_LIMIT (1ULL << 46)
/* usemem checks the clock every 64Ki accesses; dd-like reads every 64 */
#define VMSCAL_CLOCK_EVERY 0xffff
#define VMSCAL_READ_SIZE 4096

static const struct vmscal_case vmscal_cases[] = {
	{ "anon-r-rand", VMSCAL_ANON, false, true, false },
	{ "anon-r-rand-mt", VMSCAL_ANON, false, true, true },
	{ "anon-r-seq", VMSCAL_ANON, false, false, false },
	{ "anon-r-seq-mt", VMSCAL_ANON, false, false, true },
	{ "anon-w-rand", VMSCAL_ANON, true, true, false },
	{ "anon-w-rand-mt", VMSCAL_ANON, true, true, true },
	{ "anon-w-seq", VMSCAL_ANON, true, false, false },
	{ "anon-w-seq-mt", VMSCAL_ANON, true, false, true },
	{ "lru-file-readonce", VMSCAL_FILE, false, false, false },
	{ "swap-w-rand", VMSCAL_SWAP, true, true, false },
	{ "swap-w-rand-mt", VMSCAL_SWAP, true, true, true },
	{ "swap-w-seq", VMSCAL_SWAP, true, false, false },
	{ "swap-w-seq-mt", VMSCAL_SWAP, true, false, true },
};

const struct vmscal_case *vmscal_find(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(vmscal_cases); i++)
		if (!strcmp(vmscal_cases[i].name, name))
			return &vmscal_cases[i];
	return NULL;
}

void vmscal_list(struct strbuf *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(vmscal_cases); i++)
		strbuf_addf(out, "%s%s", i ? ", " : "", vmscal_cases[i].name);
}

static int vmscal_meminfo_field(const char *text, const char *key, uint64_t *out,
				struct strbuf *err)
{
	size_t klen = strlen(key);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (strncmp(l, key, klen) || l[klen] != ':')
			continue;
		char *end;
		errno = 0;
		unsigned long long kb = strtoull(l + klen + 1, &end, 10);
		if (errno || end == l + klen + 1 || strncmp(end, " kB", 3) || kb > UINT64_MAX / 1024) {
			strbuf_setf(err, "/proc/meminfo: %s: not a number of kB", key);
			return -1;
		}
		*out = kb * 1024;
		return 0;
	}
	strbuf_setf(err, "/proc/meminfo has no %s line", key);
	return -1;
}

int vmscal_meminfo_parse(const char *text, struct vmscal_meminfo *mi, struct strbuf *err)
{
	if (vmscal_meminfo_field(text, "MemTotal", &mi->mem_total, err) ||
	    vmscal_meminfo_field(text, "MemAvailable", &mi->mem_available, err) ||
	    vmscal_meminfo_field(text, "SwapTotal", &mi->swap_total, err))
		return -1;
	return 0;
}

int vmscal_meminfo_read(struct vmscal_meminfo *mi, struct strbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if (strbuf_read_file(&sb, "/proc/meminfo")) {
		strbuf_setf(err, "cannot read /proc/meminfo: %s", strerror(errno));
		return -1;
	}
	ret = vmscal_meminfo_parse(sb.buf, mi, err);
	strbuf_release(&sb);
	return ret;
}

static uint64_t vmscal_min(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

uint64_t vmscal_default_bytes(const struct vmscal_case *c, const struct vmscal_meminfo *mi,
			      unsigned nr_task)
{
	/* PTE_LIMIT: keep page tables (one 4K page maps 2M) within half of MemAvailable */
	uint64_t pte_limit = mi->mem_available > (UINT64_MAX >> 8) ? UINT64_MAX : mi->mem_available << 8;

	switch (c->kind) {
	case VMSCAL_SWAP:
		return (mi->mem_available + mi->swap_total) / 4 * 3;
	case VMSCAL_FILE:
		return vmscal_min(VMSCAL_ROTATE_BYTES, pte_limit);
	case VMSCAL_ANON:
		break;
	}
	if (c->write)
		return mi->mem_total / 2;
	if (c->random)
		return vmscal_min(VMSCAL_ROTATE_BYTES, pte_limit);
	/* anon-r-seq: at most AS_LIMIT per process; the -mt threads share one */
	return vmscal_min(pte_limit, c->threads ? VMSCAL_AS_LIMIT : VMSCAL_AS_LIMIT * (nr_task ? nr_task : 1));
}

int vmscal_check(const struct vmscal_case *c, const struct vmscal_meminfo *mi, struct strbuf *err)
{
	if (c->kind == VMSCAL_SWAP && !mi->swap_total) {
		strbuf_setf(err, "%s needs active swap and there is none (SwapTotal: 0 kB); add 'swap:' and a disk for it to the job",
			    c->name);
		return -1;
	}
	return 0;
}

uint64_t vmscal_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---- workers ------------------------------------------------------------ */

/* Pipes between the test process and its workers (read end [0], write end [1]). */
struct vmscal_sync {
	int ready[2];		/* a byte per worker: mapped, waiting for go */
	int go[2];		/* one byte from the test process starts everybody */
	int free_ready[2];	/* sync_free: done, waiting to free */
	int free_go[2];
	int errs[2];		/* "worker N: why" lines of failed workers */
	int *cut;		/* shared page: set by a worker the deadline stopped */
};

struct vmscal_worker {
	const struct vmscal_params *p;
	const struct vmscal_sync *s;
	unsigned idx;
	int out_fd;
	uint64_t start_ns;
	const char *file;	/* file case: the sparse file */
	pthread_t thread;
	int status;
};

static bool vmscal_free_sync(const struct vmscal_params *p)
{
	return p->sync_free && p->c->kind != VMSCAL_FILE;
}

/* One line to the test process: why this worker failed (dropped if the pipe is full). */
__attribute__((format(printf, 2, 3)))
static void vmscal_fail(const struct vmscal_worker *w, const char *fmt, ...)
{
	char line[512];
	int n = snprintf(line, sizeof(line), "worker %u: ", w->idx);
	va_list ap;

	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if ((size_t)n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if (write(w->s->errs[1], line, (size_t)n) < 0) {
		/* full pipe: enough other workers have said why already */
	}
}

static void vmscal_arrive(int fd)
{
	char c = 1;

	while (write(fd, &c, 1) < 0 && errno == EINTR)
		;
}

/* Wait for the test process's byte (never consumed, so it wakes everybody). */
static bool vmscal_wait(int fd)
{
	struct pollfd pf = { .fd = fd, .events = POLLIN };

	for (;;) {
		int n = poll(&pf, 1, -1);
		if (n < 0 && errno == EINTR)
			continue;
		return n == 1 && (pf.revents & POLLIN);
	}
}

static int vmscal_print(const struct vmscal_worker *w, const char *line, int len)
{
	if (len <= 0 || fsutil_write_all(w->out_fd, line, (size_t)len)) {
		char e[128];
		vmscal_fail(w, "cannot write the result line: %s", strerror_r(errno, e, sizeof(e)));
		return -1;
	}
	return 0;
}

/* usemem's output_statistics(): bytes over the usecs since the workers were forked. */
static int vmscal_report(const struct vmscal_worker *w, uint64_t bytes)
{
	uint64_t usecs = (vmscal_now_ns() - w->start_ns) / 1000;
	char line[128];

	if (!usecs)
		usecs = 1;
	unsigned __int128 kbps = (((unsigned __int128)bytes * 1000000) >> 10) / usecs;
	int n = snprintf(line, sizeof(line), "%" PRIu64 " bytes / %" PRIu64 " usecs = %" PRIu64 " KB/s\n",
			 bytes, usecs, (uint64_t)kbps);
	return vmscal_print(w, line, n);
}

/* splitmix64: a fast generator per worker; quality is not the point */
static uint64_t vmscal_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A word index in [0, max), scaled as usemem's os_random_long(). */
static uint64_t vmscal_random_below(uint64_t *state, uint64_t max)
{
	return (uint64_t)((double)max * (double)(vmscal_random(state) >> 11) * 0x1.0p-53);
}

/*
 * One pass over the words (usemem's do_rw_once). Counts the accesses made
 * in *done; stops at the deadline. -1 when a later sequential write pass
 * finds a word that does not hold what the earlier pass wrote.
 */
static int vmscal_pass(const struct vmscal_worker *w, volatile unsigned long *mem, uint64_t words,
		       bool verify, uint64_t *rng, uint64_t *done, bool *stop)
{
	const struct vmscal_case *c = w->p->c;
	uint64_t deadline = w->p->deadline_ns, i;

	for (i = 0; i < words; i++) {
		uint64_t idx = c->random ? vmscal_random_below(rng, words - 1) : i;

		if (!c->write) {
			(void)mem[idx];
		} else {
			if (verify && mem[idx] != (unsigned long)idx) {
				vmscal_fail(w, "data wrong at offset 0x%" PRIx64 ": expected 0x%" PRIx64 ", got 0x%lx",
					    idx * sizeof(unsigned long), idx, mem[idx]);
				return -1;
			}
			mem[idx] = (unsigned long)idx;
		}
		if (!(i & VMSCAL_CLOCK_EVERY) && deadline && vmscal_now_ns() >= deadline) {
			*stop = true;
			i++;
			break;
		}
	}
	*done = i;
	return 0;
}

/* Where a worker is, for the barriers a failed thread still owes. */
enum { VMSCAL_SETTING_UP, VMSCAL_STARTED, VMSCAL_FREEING };

static int vmscal_anon(struct vmscal_worker *w, int *stage)
{
	const struct vmscal_params *p = w->p;
	size_t len = (size_t)p->worker_bytes;
	uint64_t words = p->worker_bytes / sizeof(unsigned long);
	uint64_t rng = vmscal_now_ns() ^ ((uint64_t)getpid() << 32) ^ ((uint64_t)w->idx << 48);
	unsigned repeat = p->repeat ? p->repeat : 1;
	bool stop = false;
	char e[128];
	unsigned long *mem = mmap(NULL, len, p->c->write ? PROT_READ | PROT_WRITE : PROT_READ,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED) {
		vmscal_fail(w, "mmap of %" PRIu64 " bytes: %s", p->worker_bytes, strerror_r(errno, e, sizeof(e)));
		return -1;
	}
	/* usemem counts the allocation as an eighth of the mapping */
	uint64_t bytes = p->worker_bytes / 8;

	vmscal_arrive(w->s->ready[1]);
	*stage = VMSCAL_STARTED;
	if (!vmscal_wait(w->s->go[0])) {
		vmscal_fail(w, "the test process went away before the start");
		munmap(mem, len);
		return -1;
	}
	for (unsigned rep = 0; rep < repeat && !stop; rep++) {
		uint64_t done = 0;
		if (vmscal_pass(w, mem, words, rep > 0 && !p->c->random, &rng, &done, &stop)) {
			munmap(mem, len);
			return -1;
		}
		bytes += done * sizeof(unsigned long);
	}
	if (stop)
		__atomic_store_n(w->s->cut, 1, __ATOMIC_RELAXED);
	if (vmscal_report(w, bytes)) {
		munmap(mem, len);
		return -1;
	}
	if (vmscal_free_sync(p)) {
		vmscal_arrive(w->s->free_ready[1]);
		*stage = VMSCAL_FREEING;
		vmscal_wait(w->s->free_go[0]);
	}

	uint64_t t0 = vmscal_now_ns();
	munmap(mem, len);
	uint64_t usecs = (vmscal_now_ns() - t0) / 1000;
	char line[64];
	int n = snprintf(line, sizeof(line), "%" PRIu64 " usecs to free memory\n", usecs);
	return vmscal_print(w, line, n);
}

/* lru-file-readonce: `dd bs=4k if=<sparse file> of=/dev/null`, stopped at the deadline. */
static int vmscal_file(struct vmscal_worker *w, int *stage)
{
	char e[128];
	int fd = open(w->file, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		vmscal_fail(w, "cannot open '%s': %s", w->file, strerror_r(errno, e, sizeof(e)));
		return -1;
	}
	char *buf = malloc(VMSCAL_READ_SIZE);
	if (!buf) {
		vmscal_fail(w, "out of memory");
		close(fd);
		return -1;
	}
	vmscal_arrive(w->s->ready[1]);
	*stage = VMSCAL_STARTED;
	if (!vmscal_wait(w->s->go[0])) {
		vmscal_fail(w, "the test process went away before the start");
		goto fail;
	}

	uint64_t bytes = 0;
	for (unsigned n = 1;; n++) {
		ssize_t r = read(fd, buf, VMSCAL_READ_SIZE);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			vmscal_fail(w, "reading '%s': %s", w->file, strerror_r(errno, e, sizeof(e)));
			goto fail;
		}
		if (!r)
			break;
		bytes += (uint64_t)r;
		if (!(n & 63) && w->p->deadline_ns && vmscal_now_ns() >= w->p->deadline_ns) {
			__atomic_store_n(w->s->cut, 1, __ATOMIC_RELAXED);
			break;
		}
	}
	free(buf);
	close(fd);
	return vmscal_report(w, bytes);
fail:
	free(buf);
	close(fd);
	return -1;
}

/* One worker, in its own process or thread. */
static int vmscal_work(struct vmscal_worker *w, bool thread)
{
	const struct vmscal_params *p = w->p;
	int stage = VMSCAL_SETTING_UP, rc;

	if (p->bind_interval) {
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET((int)(((uint64_t)w->idx * p->bind_interval) % (uint64_t)(ncpu > 0 ? ncpu : 1)), &set);
		sched_setaffinity(0, sizeof(set), &set);	/* best effort, as usemem */
	}
	rc = p->c->kind == VMSCAL_FILE ? vmscal_file(w, &stage) : vmscal_anon(w, &stage);
	/*
	 * A failed thread still checks in at the barriers it skipped, or its
	 * process would wait forever; the test process counts dead processes.
	 */
	if (rc && thread) {
		if (stage < VMSCAL_STARTED)
			vmscal_arrive(w->s->ready[1]);
		if (vmscal_free_sync(p) && stage < VMSCAL_FREEING)
			vmscal_arrive(w->s->free_ready[1]);
	}
	return rc;
}

static void *vmscal_thread(void *arg)
{
	struct vmscal_worker *w = arg;

	w->status = vmscal_work(w, true);
	return NULL;
}

/* The -mt cases: one process, nr_task threads (usemem -t). */
static void vmscal_threads_main(struct vmscal_worker *ws, unsigned n)
{
	unsigned started;
	int failed = 0;

	for (started = 0; started < n; started++) {
		int e = pthread_create(&ws[started].thread, NULL, vmscal_thread, &ws[started]);
		if (e) {
			char buf[128];
			vmscal_fail(&ws[started], "cannot create a thread: %s", strerror_r(e, buf, sizeof(buf)));
			break;
		}
	}
	for (unsigned i = started; i < n; i++) {
		vmscal_arrive(ws[i].s->ready[1]);
		if (vmscal_free_sync(ws[i].p))
			vmscal_arrive(ws[i].s->free_ready[1]);
		failed = 1;
	}
	for (unsigned i = 0; i < started; i++) {
		pthread_join(ws[i].thread, NULL);
		failed |= ws[i].status != 0;
	}
	_exit(failed);
}

/* ---- the test process's side -------------------------------------------- */

struct vmscal_kids {
	pid_t *pid;
	int *status;
	bool *done;
	unsigned n;		/* processes forked */
	unsigned per_kid;	/* workers in each */
	unsigned dead;		/* workers known gone without checking in */
};

static void vmscal_reap(struct vmscal_kids *k, bool block)
{
	for (unsigned i = 0; i < k->n; i++) {
		pid_t r;

		if (k->done[i])
			continue;
		do
			r = waitpid(k->pid[i], &k->status[i], block ? 0 : WNOHANG);
		while (r < 0 && errno == EINTR);
		if (r == 0)
			continue;
		k->done[i] = true;
		if (r < 0)
			k->status[i] = -1;
		if (r < 0 || !WIFEXITED(k->status[i]) || WEXITSTATUS(k->status[i]))
			k->dead += k->per_kid;
	}
}

/* Wait until every worker has checked in on fd, or is known dead. */
static void vmscal_gather(int fd, unsigned want, struct vmscal_kids *k)
{
	unsigned got = 0;

	while (got + k->dead < want) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		if (poll(&pf, 1, 100) > 0) {
			char buf[512];
			ssize_t n = read(fd, buf, sizeof(buf));
			if (n > 0)
				got += (unsigned)n;
			else if (n == 0)
				return;		/* nobody left to check in */
		}
		vmscal_reap(k, false);
	}
}

static void vmscal_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void vmscal_sync_close(struct vmscal_sync *s)
{
	int *fds[] = { &s->ready[0], &s->ready[1], &s->go[0], &s->go[1], &s->free_ready[0],
		       &s->free_ready[1], &s->free_go[0], &s->free_go[1], &s->errs[0], &s->errs[1] };

	for (size_t i = 0; i < ARRAY_SIZE(fds); i++)
		vmscal_close(fds[i]);
	if (s->cut)
		munmap(s->cut, sizeof(*s->cut));
	s->cut = NULL;
}

static int vmscal_sync_open(struct vmscal_sync *s, struct strbuf *err)
{
	int *pairs[] = { s->ready, s->go, s->free_ready, s->free_go, s->errs };

	for (size_t i = 0; i < ARRAY_SIZE(pairs); i++)
		pairs[i][0] = pairs[i][1] = -1;
	s->cut = mmap(NULL, sizeof(*s->cut), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s->cut == MAP_FAILED) {
		s->cut = NULL;
		strbuf_setf(err, "mmap: %s", strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < ARRAY_SIZE(pairs); i++)
		if (pipe2(pairs[i], O_CLOEXEC)) {
			strbuf_setf(err, "pipe: %s", strerror(errno));
			vmscal_sync_close(s);
			return -1;
		}
	/* a failing worker must never block on its message */
	fcntl(s->errs[1], F_SETFL, O_NONBLOCK);
	return 0;
}

static void vmscal_unlink_files(char **files, unsigned n)
{
	for (unsigned i = 0; files && i < n; i++) {
		if (files[i])
			unlink(files[i]);
		free(files[i]);
	}
	free(files);
}

/* lru-file-readonce: sparse files sparse-<case>-1..N in p->dir, as upstream names them. */
static char **vmscal_make_files(const struct vmscal_params *p, struct strbuf *err)
{
	char **files = xcalloc(p->nr_task, sizeof(*files));

	if (!p->dir) {
		strbuf_setf(err, "%s needs a directory for its sparse files", p->c->name);
		free(files);
		return NULL;
	}
	for (unsigned i = 0; i < p->nr_task; i++) {
		char *path = xasprintf("%s/sparse-%s-%u", p->dir, p->c->name, i + 1);
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);

		if (fd < 0 || ftruncate(fd, (off_t)p->worker_bytes)) {
			strbuf_setf(err, "cannot make the sparse file '%s' of %" PRIu64 " bytes: %s",
				    path, p->worker_bytes, strerror(errno));
			if (fd >= 0) {
				close(fd);
				unlink(path);
			}
			free(path);
			vmscal_unlink_files(files, p->nr_task);
			return NULL;
		}
		close(fd);
		files[i] = path;
	}
	return files;
}

/* Why the run failed, in one line: the first worker's reason and how many failed. */
static void vmscal_explain(const struct vmscal_kids *k, const char *msgs, unsigned total,
			   struct strbuf *err)
{
	unsigned failed = 0, first_sig_kid = 0;
	int sig = 0;

	for (const char *l = msgs; *l; l++)
		failed += *l == '\n';
	for (unsigned i = 0; i < k->n; i++) {
		if (k->status[i] >= 0 && WIFSIGNALED(k->status[i])) {
			failed += k->per_kid;
			if (!sig) {
				sig = WTERMSIG(k->status[i]);
				first_sig_kid = i;
			}
		}
	}
	if (*msgs) {
		strbuf_add(err, msgs, strcspn(msgs, "\n"));
	} else if (sig) {
		if (k->per_kid > 1)
			strbuf_addf(err, "the process of the %u worker threads", k->per_kid);
		else
			strbuf_addf(err, "worker %u", first_sig_kid);
		strbuf_addf(err, " (pid %d) was killed by signal %d (%s%s)", (int)k->pid[first_sig_kid],
			    sig, strsignal(sig), sig == SIGKILL ? "; the OOM killer?" : "");
	} else {
		for (unsigned i = 0; i < k->n; i++)
			if (k->status[i] < 0 || (WIFEXITED(k->status[i]) && WEXITSTATUS(k->status[i]))) {
				strbuf_addf(err, "worker process %d exited with status %d", (int)k->pid[i],
					    k->status[i] < 0 ? -1 : WEXITSTATUS(k->status[i]));
				break;
			}
		if (!failed)
			failed = 1;
	}
	if (failed > 1)
		strbuf_addf(err, " (%u of %u workers failed)", failed > total ? total : failed, total);
}

int vmscal_run(const struct vmscal_params *p, int out_fd, bool *cut, struct strbuf *err)
{
	unsigned n = p->nr_task, nkids = p->c->threads ? 1 : n;
	struct vmscal_sync s;
	struct vmscal_kids k = { 0 };
	struct vmscal_worker *ws;
	struct strbuf msgs = STRBUF_INIT;
	char **files = NULL;
	bool failed = false;

	if (cut)
		*cut = false;
	if (!n || p->worker_bytes < sizeof(unsigned long)) {
		strbuf_setf(err, "%s: nothing to do (%u workers of %" PRIu64 " bytes)", p->c->name, n,
			    p->worker_bytes);
		return -1;
	}
	if (p->c->kind == VMSCAL_FILE && !(files = vmscal_make_files(p, err)))
		return -1;
	if (vmscal_sync_open(&s, err)) {
		vmscal_unlink_files(files, n);
		return -1;
	}
	ws = xcalloc(n, sizeof(*ws));
	k.pid = xcalloc(nkids, sizeof(*k.pid));
	k.status = xcalloc(nkids, sizeof(*k.status));
	k.done = xcalloc(nkids, sizeof(*k.done));
	k.per_kid = p->c->threads ? n : 1;

	/* usemem starts the clock before it forks */
	uint64_t start = vmscal_now_ns();
	for (unsigned i = 0; i < n; i++) {
		ws[i] = (struct vmscal_worker){ .p = p, .s = &s, .idx = i, .out_fd = out_fd,
						.start_ns = start, .file = files ? files[i] : NULL };
	}
	for (k.n = 0; k.n < nkids; k.n++) {
		pid_t pid = fork();
		if (pid < 0) {
			strbuf_setf(err, "cannot fork worker %u of %u: %s", k.n, nkids, strerror(errno));
			failed = true;
			k.dead += (nkids - k.n) * k.per_kid;
			break;
		}
		if (!pid) {
			close(s.ready[0]);
			close(s.go[1]);
			close(s.free_ready[0]);
			close(s.free_go[1]);
			close(s.errs[0]);
			if (p->c->threads)
				vmscal_threads_main(ws, n);
			_exit(vmscal_work(&ws[k.n], false) ? 1 : 0);
		}
		k.pid[k.n] = pid;
	}
	/* only the workers hold these ends now: EOF means they are all gone */
	vmscal_close(&s.ready[1]);
	vmscal_close(&s.free_ready[1]);
	vmscal_close(&s.errs[1]);

	vmscal_gather(s.ready[0], n, &k);
	vmscal_arrive(s.go[1]);
	if (vmscal_free_sync(p)) {
		vmscal_gather(s.free_ready[0], n, &k);
		vmscal_arrive(s.free_go[1]);
	}
	vmscal_reap(&k, true);

	for (;;) {
		char buf[4096];
		ssize_t r = read(s.errs[0], buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		strbuf_add(&msgs, buf, (size_t)r);
	}
	for (unsigned i = 0; i < k.n; i++)
		if (k.status[i] < 0 || !WIFEXITED(k.status[i]) || WEXITSTATUS(k.status[i]))
			failed = true;
	if (failed && !err->len)
		vmscal_explain(&k, msgs.buf, n, err);
	if (cut)
		*cut = __atomic_load_n(s.cut, __ATOMIC_RELAXED) != 0;

	vmscal_sync_close(&s);
	vmscal_unlink_files(files, n);
	strbuf_release(&msgs);
	free(ws);
	free(k.pid);
	free(k.status);
	free(k.done);
	return failed ? -1 : 0;
}
