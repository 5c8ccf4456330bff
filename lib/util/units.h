/*
 * units: lkp-tests' value notations, parsed strictly.
 *   durations  "200s", "5m", "1h", "300"        -> seconds
 *   sizes      "200G", "96g", "4k", "2MB", "512" -> bytes (binary units)
 *   task counts "50%" of the CPUs, "16", "8t"    -> a count
 *   disks      "2pmem", "1HDD", "1SSD", "1BRD", "4G" (ramdisk)
 *   memmap     "104G!8G"                        -> size and start
 * Each parser returns 0, or -1 with a message saying what notation is
 * expected. Pure functions: no files, no machine probing.
 */
#ifndef LKP_UNITS_H
#define LKP_UNITS_H

#include "strbuf.h"

#include <stdint.h>

int units_seconds(const char *s, uint64_t *out, struct strbuf *err);
int units_bytes(const char *s, uint64_t *out, struct strbuf *err);
/* nr_cpu is the machine's CPU count, used for "N%" (truncated, as lkp-tests). */
int units_tasks(const char *s, int nr_cpu, uint64_t *out, struct strbuf *err);

struct units_disk {
	int nr_pmem, nr_hdd, nr_ssd, nr_brd, nr_srd;
	uint64_t ramdisk_size;
	int scsi_ram;
};
int units_disk(const char *s, struct units_disk *out, struct strbuf *err);
int units_memmap(const char *s, uint64_t *size, uint64_t *start, struct strbuf *err);

/* Which notation a job key uses (NULL if none we check). */
const char *units_kind_of(const char *key);
/* Check `value` against the notation of `key`; 0 if fine or not checked. */
int units_check(const char *key, const char *value, struct strbuf *err);

/* Format bytes the way job files write them ("200G", "4k" stays "4K"). */
void units_format_bytes(uint64_t bytes, struct strbuf *out);

#endif
