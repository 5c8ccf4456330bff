/*
 * perfevent: perf_event_open(2) counting of perf event names encoded by
 * libpfm4, system-wide, one counter per online CPU. See perfevent.h.
 */
#include "perfevent.h"

#include <perfmon/pfmlib_perf_event.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- encoding ---------------------------------------------------------- */

static int pfm_state;	/* 0 not tried, 1 initialised, -1 pfm_initialize failed */

static bool pfm_ready(void)
{
	if (!pfm_state)
		pfm_state = pfm_initialize() == PFM_SUCCESS ? 1 : -1;
	return pfm_state > 0;
}

static bool pfm_encode(const char *name, struct perf_event_attr *attr, char **fstr)
{
	pfm_perf_encode_arg_t arg;
	char *s = NULL;

	memset(attr, 0, sizeof(*attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = attr;
	arg.size = sizeof(arg);
	arg.fstr = &s;
	if (pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT,
				      &arg) != PFM_SUCCESS) {
		free(s);
		memset(attr, 0, sizeof(*attr));
		return false;
	}
	*fstr = s;
	return true;
}

/* The kernel's generic events by perf's names, for what libpfm4 lacks. */
static const struct generic_event {
	const char *name;
	uint32_t type;
	uint64_t config;
} generic_events[] = {
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
	{ "cgroup-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CGROUP_SWITCHES },
};

/* perf's cache event names: <cache>-<op>s and <cache>-<op>-misses */
static const char *const cache_names[] = {
	[PERF_COUNT_HW_CACHE_L1D] = "L1-dcache", [PERF_COUNT_HW_CACHE_L1I] = "L1-icache",
	[PERF_COUNT_HW_CACHE_LL] = "LLC", [PERF_COUNT_HW_CACHE_DTLB] = "dTLB",
	[PERF_COUNT_HW_CACHE_ITLB] = "iTLB", [PERF_COUNT_HW_CACHE_BPU] = "branch",
	[PERF_COUNT_HW_CACHE_NODE] = "node",
};
static const char *const cache_ops[][2] = {
	[PERF_COUNT_HW_CACHE_OP_READ] = { "loads", "load-misses" },
	[PERF_COUNT_HW_CACHE_OP_WRITE] = { "stores", "store-misses" },
	[PERF_COUNT_HW_CACHE_OP_PREFETCH] = { "prefetches", "prefetch-misses" },
};

static bool generic_encode(const char *name, struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	for (size_t i = 0; i < ARRAY_SIZE(generic_events); i++)
		if (!strcasecmp(name, generic_events[i].name)) {
			attr->type = generic_events[i].type;
			attr->config = generic_events[i].config;
			return true;
		}
	for (size_t c = 0; c < ARRAY_SIZE(cache_names); c++) {
		size_t n = strlen(cache_names[c]);

		if (strncasecmp(name, cache_names[c], n) || name[n] != '-')
			continue;
		for (size_t op = 0; op < ARRAY_SIZE(cache_ops); op++)
			for (size_t miss = 0; miss < 2; miss++)
				if (!strcasecmp(name + n + 1, cache_ops[op][miss])) {
					attr->type = PERF_TYPE_HW_CACHE;
					attr->config = c | op << 8 | miss << 16;
					return true;
				}
	}
	return false;
}

/* perf's raw event syntax rNNNN (hex) */
static bool is_raw(const char *name)
{
	if (name[0] != 'r' || !name[1])
		return false;
	for (const char *p = name + 1; *p; p++)
		if (!strchr("0123456789abcdefABCDEF", *p))
			return false;
	return true;
}

int perfevent_encode(const char *name, struct perf_event_attr *attr, bool *libpfm,
		     char **encoding, struct strbuf *err)
{
	char *fstr = NULL;
	bool ok = false;

	if (pfm_ready()) {
		if (strstr(name, "::")) {
			ok = pfm_encode(name, attr, &fstr);
		} else {
			/* perf's generic names first, so that a core PMU's
			 * homonym never shadows them */
			char *s = is_raw(name) ? xasprintf("perf_raw::%s", name)
					       : xasprintf("perf::%s", name);
			ok = pfm_encode(s, attr, &fstr) || pfm_encode(name, attr, &fstr);
			free(s);
		}
	}
	if (ok) {
		*libpfm = true;
	} else if (generic_encode(name, attr)) {
		*libpfm = false;
		fstr = xasprintf("generic %u:%#llx", attr->type, (unsigned long long)attr->config);
	} else {
		strbuf_setf(err, "'%s' is not an event that libpfm4%s or the kernel's generic events know",
			    name, pfm_ready() ? "" : " (not initialised)");
		return -1;
	}
	attr->size = sizeof(*attr);
	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr->disabled = 0;
	attr->inherit = 0;
	if (encoding)
		*encoding = fstr;
	else
		free(fstr);
	return 0;
}

/* ---- the set ----------------------------------------------------------- */

void perfevent_set_init(struct perfevent_set *s)
{
	memset(s, 0, sizeof(*s));
}

static void close_event(struct perfevent_set *s, struct perfevent *e)
{
	if (!e->fd)
		return;
	for (size_t c = 0; c < s->ncpus; c++)
		if (e->fd[c] >= 0) {
			close(e->fd[c]);
			e->fd[c] = -1;
		}
}

void perfevent_set_release(struct perfevent_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct perfevent *e = &s->ev[i];

		close_event(s, e);
		free(e->fd);
		free(e->prev);
		free(e->name);
		free(e->encoding);
	}
	free(s->ev);
	free(s->cpus);
	memset(s, 0, sizeof(*s));
}

static int add_event(struct perfevent_set *s, const char *name, size_t len, int group,
		     struct strbuf *err)
{
	struct perfevent e;
	struct strbuf e2 = STRBUF_INIT;

	while (len && (*name == ' ' || *name == '\t'))
		name++, len--;
	while (len && (name[len - 1] == ' ' || name[len - 1] == '\t'))
		len--;
	if (!len) {
		strbuf_setf(err, "an event name is empty");
		return -1;
	}
	memset(&e, 0, sizeof(e));
	e.name = xstrndup(name, len);
	e.group = group;
	if (strpbrk(e.name, "{} \t")) {
		strbuf_setf(err, "'%s' is not an event name", e.name);
		free(e.name);
		return -1;
	}
	if (perfevent_encode(e.name, &e.attr, &e.libpfm, &e.encoding, &e2)) {
		strbuf_setf(err, "%s", e2.buf);
		strbuf_release(&e2);
		free(e.name);
		return -1;
	}
	strbuf_release(&e2);
	e.is_clock = e.attr.type == PERF_TYPE_SOFTWARE &&
		     (e.attr.config == PERF_COUNT_SW_CPU_CLOCK ||
		      e.attr.config == PERF_COUNT_SW_TASK_CLOCK);
	ALLOC_GROW(s->ev, s->n + 1, s->alloc);
	s->ev[s->n++] = e;
	return 0;
}

int perfevent_parse(struct perfevent_set *s, const char *spec, struct strbuf *err)
{
	const char *p = spec, *start = spec;
	int group = -1;
	bool after_group = false;

	for (;; p++) {
		if (*p == '{') {
			if (group >= 0 || p != start || after_group) {
				strbuf_setf(err, "'%s': a '{' must start an event group, and groups do not nest",
					    spec);
				return -1;
			}
			group = s->ngroups++;
			start = p + 1;
		} else if (*p == ',' || *p == '}' || !*p) {
			if (after_group) {
				/* "{a,b}," or "{a,b}" at the end: nothing between */
				if (p != start && strspn(start, " \t") < (size_t)(p - start)) {
					strbuf_setf(err, "'%s': text after '}'", spec);
					return -1;
				}
				after_group = false;
			} else if (add_event(s, start, (size_t)(p - start), group, err)) {
				return -1;
			}
			if (*p == '}') {
				if (group < 0) {
					strbuf_setf(err, "'%s': '}' without '{'", spec);
					return -1;
				}
				group = -1;
				after_group = true;
			}
			if (!*p)
				break;
			start = p + 1;
		}
	}
	if (group >= 0) {
		strbuf_setf(err, "'%s': '{' without '}'", spec);
		return -1;
	}
	return 0;
}

/* ---- opening and reading ---------------------------------------------- */

static int online_cpus(struct perfevent_set *s)
{
	struct strbuf sb = STRBUF_INIT;
	size_t alloc = 0;

	if (!strbuf_read_file(&sb, "/sys/devices/system/cpu/online")) {
		for (char *p = sb.buf; *p && *p != '\n';) {
			char *end;
			long a = strtol(p, &end, 10), b = a;

			if (end == p || a < 0)
				break;
			if (*end == '-') {
				p = end + 1;
				b = strtol(p, &end, 10);
				if (end == p || b < a)
					break;
			}
			for (long c = a; c <= b; c++) {
				ALLOC_GROW(s->cpus, s->ncpus + 1, alloc);
				s->cpus[s->ncpus++] = (int)c;
			}
			p = *end == ',' ? end + 1 : end;
		}
	}
	strbuf_release(&sb);
	if (!s->ncpus) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		for (long c = 0; c < n; c++) {
			ALLOC_GROW(s->cpus, s->ncpus + 1, alloc);
			s->cpus[s->ncpus++] = (int)c;
		}
	}
	return s->ncpus ? 0 : -1;
}

static int sys_open(struct perf_event_attr *attr, int cpu, int group_fd)
{
	return (int)syscall(SYS_perf_event_open, attr, -1, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
}

/* Errors that are about us, not about the event: give up. */
static bool hard_error(int e)
{
	return e == EMFILE || e == ENFILE || e == ENOMEM;
}

static void set_hard_error(struct strbuf *err, const struct perfevent *e, int cpu, int errnum)
{
	strbuf_setf(err, "perf_event_open %s on cpu %d: %s", e->name, cpu, strerror(errnum));
}

/* Open events [first, last) as one kernel group on every CPU; all or nothing. */
static int open_group(struct perfevent_set *s, size_t first, size_t last, struct strbuf *err)
{
	for (size_t c = 0; c < s->ncpus; c++) {
		int leader = -1;

		for (size_t i = first; i < last; i++) {
			struct perfevent *e = &s->ev[i];
			int fd = sys_open(&e->attr, s->cpus[c], leader);

			if (fd < 0) {
				int saved = errno;

				for (size_t j = first; j < last; j++)
					close_event(s, &s->ev[j]);
				if (hard_error(saved)) {
					set_hard_error(err, e, s->cpus[c], saved);
					return -1;
				}
				return 1;
			}
			e->fd[c] = fd;
			if (i == first)
				leader = fd;
		}
	}
	for (size_t i = first; i < last; i++)
		s->ev[i].supported = true;
	return 0;
}

static int open_single(struct perfevent_set *s, struct perfevent *e, struct strbuf *err)
{
	for (size_t c = 0; c < s->ncpus; c++) {
		int fd = sys_open(&e->attr, s->cpus[c], -1);

		if (fd < 0) {
			if (hard_error(errno)) {
				set_hard_error(err, e, s->cpus[c], errno);
				return -1;
			}
			if (!e->error)
				e->error = errno;
			continue;
		}
		e->fd[c] = fd;
		e->supported = true;
	}
	if (e->supported)
		e->error = 0;
	return 0;
}

static int read_fd(int fd, uint64_t v[3])
{
	ssize_t n = read(fd, v, 3 * sizeof(uint64_t));

	if (n == (ssize_t)(3 * sizeof(uint64_t)))
		return 0;
	if (n >= 0)
		errno = EIO;
	return -1;
}

static void raise_fd_limit(size_t need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= need)
		return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need ? need : rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
}

int perfevent_open(struct perfevent_set *s, struct strbuf *err)
{
	int opened = 0;

	if (!s->ncpus && online_cpus(s)) {
		strbuf_setf(err, "cannot tell which CPUs are online");
		return -1;
	}
	raise_fd_limit(s->n * s->ncpus + 64);
	for (size_t i = 0; i < s->n; i++) {
		struct perfevent *e = &s->ev[i];

		e->fd = xmalloc(s->ncpus * sizeof(*e->fd));
		e->prev = xcalloc(s->ncpus, sizeof(*e->prev));
		for (size_t c = 0; c < s->ncpus; c++)
			e->fd[c] = -1;
	}
	for (size_t i = 0; i < s->n;) {
		size_t j = i + 1;
		int rc = 1;

		if (s->ev[i].group >= 0)
			while (j < s->n && s->ev[j].group == s->ev[i].group)
				j++;
		if (j - i > 1)
			rc = open_group(s, i, j, err);
		if (rc < 0)
			return -1;
		/* alone, or a group the kernel refused whole: event by event */
		for (size_t k = i; rc && k < j; k++)
			if (open_single(s, &s->ev[k], err))
				return -1;
		i = j;
	}
	for (size_t i = 0; i < s->n; i++) {
		struct perfevent *e = &s->ev[i];

		if (!e->supported)
			continue;
		opened++;
		for (size_t c = 0; c < s->ncpus; c++)
			if (e->fd[c] >= 0 && read_fd(e->fd[c], e->prev[c])) {
				strbuf_setf(err, "cannot read %s on cpu %d: %s", e->name, s->cpus[c],
					    strerror(errno));
				return -1;
			}
	}
	return opened;
}

int perfevent_read(struct perfevent_set *s, struct strbuf *err)
{
	for (size_t i = 0; i < s->n; i++) {
		struct perfevent *e = &s->ev[i];
		struct perfevent_count *n = &e->last;

		memset(n, 0, sizeof(*n));
		if (!e->supported)
			continue;
		for (size_t c = 0; c < s->ncpus; c++) {
			uint64_t v[3], d[3];

			if (e->fd[c] < 0)
				continue;
			if (read_fd(e->fd[c], v)) {
				strbuf_setf(err, "cannot read %s on cpu %d: %s", e->name, s->cpus[c],
					    strerror(errno));
				return -1;
			}
			for (int k = 0; k < 3; k++) {
				d[k] = v[k] - e->prev[c][k];
				e->prev[c][k] = v[k];
			}
			n->enabled += d[1];
			n->running += d[2];
			if (!d[2])
				continue;
			/* perf stat --scale: what it would have counted all along */
			n->value += d[2] < d[1] ? (double)d[0] * (double)d[1] / (double)d[2]
						: (double)d[0];
		}
		n->counted = n->running > 0;
	}
	return 0;
}
