/*
 * units: strict parsers for lkp-tests' value notations. See units.h.
 * lkp-tests converts with Ruby's to_i, which turns "5x" into 5 without a
 * word; here a value that does not parse is an error the user sees.
 */
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Leading decimal digits; 0 if none or overflow. */
static size_t parse_uint(const char *s, uint64_t *out)
{
	size_t i = 0;
	uint64_t v = 0;

	while (isdigit((unsigned char)s[i])) {
		uint64_t d = (uint64_t)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return 0;
		v = v * 10 + d;
		i++;
	}
	*out = v;
	return i;
}

int units_seconds(const char *s, uint64_t *out, struct strbuf *err)
{
	uint64_t n, mul = 1;
	size_t i = parse_uint(s, &n);

	if (!i)
		goto bad;
	switch (s[i]) {
	case '\0': break;
	case 's': mul = 1; break;
	case 'm': mul = 60; break;
	case 'h': mul = 3600; break;
	case 'd': mul = 86400; break;
	case 'w': mul = 7 * 86400; break;
	case 'y': mul = 365 * 86400; break;
	default: goto bad;
	}
	if (s[i] && s[i + 1])
		goto bad;
	if (mul > 1 && n > UINT64_MAX / mul)
		goto bad;
	*out = n * mul;
	return 0;
bad:
	strbuf_setf(err, "'%s' is not a duration; write whole seconds or minutes like 200s, 5m, 1h or 300", s);
	return -1;
}

static int size_shift(const char *u, int *shift)
{
	char c = (char)toupper((unsigned char)u[0]);

	if (!*u) {
		*shift = 0;
		return 0;
	}
	if (!strcasecmp(u, "B")) {
		*shift = 0;
		return 0;
	}
	switch (c) {
	case 'K': *shift = 10; break;
	case 'M': *shift = 20; break;
	case 'G': *shift = 30; break;
	case 'T': *shift = 40; break;
	case 'P': *shift = 50; break;
	default: return -1;
	}
	if (u[1] && (toupper((unsigned char)u[1]) != 'B' || u[2]))
		return -1;
	return 0;
}

int units_bytes(const char *s, uint64_t *out, struct strbuf *err)
{
	uint64_t n;
	size_t i = parse_uint(s, &n);
	int shift;

	if (!i || size_shift(s + i, &shift) || (shift && n > (UINT64_MAX >> shift))) {
		strbuf_setf(err, "'%s' is not a size; write bytes or binary units like 200G, 96G, 4k, 2M", s);
		return -1;
	}
	*out = n << shift;
	return 0;
}

int units_tasks(const char *s, int nr_cpu, uint64_t *out, struct strbuf *err)
{
	uint64_t n;
	size_t i = parse_uint(s, &n);

	if (!i)
		goto bad;
	if (s[i] == '%' || (s[i] == '.' && isdigit((unsigned char)s[i + 1]))) {
		char *end;
		errno = 0;
		double pct = strtod(s, &end);
		if (errno || *end != '%' || end[1] || !(pct <= 1e6))
			goto bad;	/* (past a million % no machine has the CPUs; and it must fit the integer) */
		*out = (uint64_t)(pct * (nr_cpu > 0 ? nr_cpu : 1) / 100.0);
		return 0;
	}
	/* "16", or lkp-tests' suffixed counts such as "8t" and "2x" */
	for (size_t j = i; s[j]; j++)
		if (!islower((unsigned char)s[j]))
			goto bad;
	*out = n;
	return 0;
bad:
	strbuf_setf(err, "'%s' is not a task count; write a number like 16 or a share of the CPUs like 50%%", s);
	return -1;
}

int units_disk(const char *s, struct units_disk *d, struct strbuf *err)
{
	static const struct {
		const char *suffix;
		size_t off;
	} kinds[] = {
		{ "pmem", offsetof(struct units_disk, nr_pmem) },
		{ "HDD", offsetof(struct units_disk, nr_hdd) },
		{ "SSD", offsetof(struct units_disk, nr_ssd) },
		{ "BRD", offsetof(struct units_disk, nr_brd) },
		{ "SRD", offsetof(struct units_disk, nr_srd) },
	};
	uint64_t n;
	size_t i = parse_uint(s, &n);

	memset(d, 0, sizeof(*d));
	if (!strcmp(s, "SCSI_RAM")) {
		d->scsi_ram = 1;
		return 0;
	}
	if (i && n <= 4096) {
		for (size_t k = 0; k < ARRAY_SIZE(kinds); k++)
			if (!strcmp(s + i, kinds[k].suffix)) {
				*(int *)((char *)d + kinds[k].off) = (int)n;
				return 0;
			}
		if (!strcmp(s + i, "G")) {
			d->ramdisk_size = n << 30;
			return 0;
		}
	}
	strbuf_setf(err, "'%s' is not a disk; write a count and kind like 2pmem, 1HDD, 1SSD, 1BRD or a ramdisk size like 4G", s);
	return -1;
}

int units_memmap(const char *s, uint64_t *size, uint64_t *start, struct strbuf *err)
{
	const char *bang = strchr(s, '!');
	struct strbuf tmp = STRBUF_INIT, e = STRBUF_INIT;
	int ret = -1;

	if (!bang)
		goto out;
	strbuf_add(&tmp, s, (size_t)(bang - s));
	if (units_bytes(tmp.buf, size, &e) || units_bytes(bang + 1, start, &e))
		goto out;
	ret = 0;
out:
	if (ret)
		strbuf_setf(err, "'%s' is not a memmap reservation; write SIZE!START like 104G!8G", s);
	strbuf_release(&tmp);
	strbuf_release(&e);
	return ret;
}

const char *units_kind_of(const char *key)
{
	static const char *const seconds[] = { "runtime", "testtime", NULL };
	static const char *const bytes[] = {
		"test_size", "size", "unit_size", "ramdisk_size", "eatmem_size",
		"filesize", "io_size", NULL,
	};
	static const char *const tasks[] = {
		"nr_task", "nr_threads", "nr_processes", "nr_instances",
		"agent_threads", "master_threads", "message_threads",
		"worker_threads", NULL,
	};

	for (const char *const *k = seconds; *k; k++)
		if (!strcmp(key, *k))
			return "seconds";
	for (const char *const *k = bytes; *k; k++)
		if (!strcmp(key, *k))
			return "bytes";
	for (const char *const *k = tasks; *k; k++)
		if (!strcmp(key, *k))
			return "tasks";
	if (!strcmp(key, "disk"))
		return "disk";
	if (!strncmp(key, "bp", 2) && strstr(key, "_memmap") &&
	    strlen(strstr(key, "_memmap")) == strlen("_memmap"))
		return "memmap";
	return NULL;
}

int units_check(const char *key, const char *value, struct strbuf *err)
{
	const char *kind = units_kind_of(key);
	uint64_t a, b;
	struct units_disk d;

	if (!kind || !value)
		return 0;
	if (!strcmp(kind, "seconds"))
		return units_seconds(value, &a, err);
	if (!strcmp(kind, "bytes"))
		return units_bytes(value, &a, err);
	if (!strcmp(kind, "tasks"))
		return units_tasks(value, 1, &a, err);
	if (!strcmp(kind, "disk"))
		return units_disk(value, &d, err);
	return units_memmap(value, &a, &b, err);
}

void units_format_bytes(uint64_t bytes, struct strbuf *out)
{
	static const char units[] = "KMGTP";
	int u = -1;

	while (bytes && !(bytes & 1023) && u < 4) {
		bytes >>= 10;
		u++;
	}
	if (u < 0)
		strbuf_addf(out, "%llu", (unsigned long long)bytes);
	else
		strbuf_addf(out, "%llu%c", (unsigned long long)bytes, units[u]);
}
