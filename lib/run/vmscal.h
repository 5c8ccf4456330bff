/*
 * vmscal: vm-scalability's test cases written in C — what upstream's
 * case-* scripts do with usemem and dd, printing the lines usemem prints
 * ("N bytes / U usecs = K KB/s", "U usecs to free memory"). It knows
 * nothing about jobs or result roots: programs/vm_scalability.c turns a
 * job into a struct vmscal_params and parses what the workers print.
 *
 * Semantics (usemem's, wfg/vm-scalability): every worker maps its own
 * memory (MAP_PRIVATE|MAP_ANONYMOUS, PROT_READ for the read cases) and
 * accesses every 8-byte word of it once — in order, or as many accesses
 * as words at uniformly random words — then frees it, timing the free.
 * The bytes it reports are the bytes it accessed plus 1/8 of the mapping
 * (usemem counts the allocation that way), over the microseconds since
 * the workers were forked. Workers stop early at the deadline (usemem
 * --runtime). The file case reads a sparse file once, 4 KiB at a time
 * (dd bs=4k), through the page cache.
 */
#ifndef LKP_VMSCAL_H
#define LKP_VMSCAL_H

#include "../util/strbuf.h"

#include <stdbool.h>
#include <stdint.h>

enum vmscal_kind {
	VMSCAL_ANON,		/* anonymous memory within RAM */
	VMSCAL_SWAP,		/* anonymous memory beyond RAM: needs swap */
	VMSCAL_FILE,		/* page cache reads of a sparse file */
};

struct vmscal_case {
	const char *name;	/* upstream's case-<name> */
	enum vmscal_kind kind;
	bool write;		/* write every word (else read it) */
	bool random;		/* random words (else sequential) */
	bool threads;		/* the -mt cases: threads of one process */
};

/* The case called `name` (upstream's spelling), NULL if not implemented. */
const struct vmscal_case *vmscal_find(const char *name);
/* "anon-r-rand, anon-r-rand-mt, ..." for messages. */
void vmscal_list(struct strbuf *out);

/* The /proc/meminfo fields the cases size themselves by, in bytes. */
struct vmscal_meminfo {
	uint64_t mem_total, mem_available, swap_total;
};

int vmscal_meminfo_parse(const char *text, struct vmscal_meminfo *mi, struct strbuf *err);
int vmscal_meminfo_read(struct vmscal_meminfo *mi, struct strbuf *err);

/*
 * Upstream's default for the bytes of one run of a case, all workers
 * together (hw_vars and the case script): anon-w-* MemTotal/2; anon-r-seq
 * 256 x MemAvailable (at most 2^46 per worker, or in all for -mt);
 * anon-r-rand and lru-file-readonce min(2^42, 256 x MemAvailable);
 * swap-* (MemAvailable + SwapTotal) x 3/4.
 */
uint64_t vmscal_default_bytes(const struct vmscal_case *c, const struct vmscal_meminfo *mi,
			      unsigned nr_task);

/*
 * Can the case run here? The swap cases need active swap (upstream's
 * "No swap space" check). 0, or -1 with one line in err.
 */
int vmscal_check(const struct vmscal_case *c, const struct vmscal_meminfo *mi,
		 struct strbuf *err);

struct vmscal_params {
	const struct vmscal_case *c;
	unsigned nr_task;		/* workers: processes, or threads of one process (-mt) */
	uint64_t worker_bytes;		/* each worker's memory, or file size */
	unsigned repeat;		/* passes over it (usemem -r; 0 means 1) */
	unsigned bind_interval;		/* usemem -b: worker i on CPU i*k mod CPUs; 0: anywhere */
	bool sync_free;			/* usemem -x: free only once every worker is done */
	uint64_t deadline_ns;		/* vmscal_now_ns() at which workers stop; 0: never */
	const char *dir;		/* file case: where the sparse files go */
};

/* CLOCK_MONOTONIC in nanoseconds: the clock of deadlines and usecs. */
uint64_t vmscal_now_ns(void);

/*
 * One run of the case: fork the workers (or one process of threads),
 * start them together, wait for them. Each worker appends its lines to
 * out_fd (opened O_APPEND) with one write(2) per line. *cut (may be NULL)
 * says whether the deadline stopped a worker before it was through.
 * Returns 0, or -1 with one line in err: a worker failed (its own reason,
 * and how many failed) or could not be started. Workers leave with _exit().
 */
int vmscal_run(const struct vmscal_params *p, int out_fd, bool *cut, struct strbuf *err);

#endif
