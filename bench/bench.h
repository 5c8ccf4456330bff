/*
 * bench.h: what the benchmark programs of bench/ share — the monotonic
 * clock in seconds and the median of a sample. Header-only: each program
 * is built alone from its .c (the Makefile's bench/%).
 */
#ifndef LKPROBOT_BENCH_H
#define LKPROBOT_BENCH_H

#include <stdlib.h>
#include <time.h>

static inline double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of v[n] (n > 0), sorting v. */
static inline double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
