#pragma once /* bench/bench-stats.h: what the C benchmarks share */

#include <glib.h>

static inline gint
bench_compare_doubles(gconstpointer a, gconstpointer b)
{
	gdouble x = *(const gdouble *)a, y = *(const gdouble *)b;

	return x < y ? -1 : x > y;
}

/* The median of @values (gdouble), which are left as they are. */
static inline gdouble
bench_median(GArray *values)
{
	g_autoptr(GArray) sorted = g_array_copy(values);

	g_array_sort(sorted, bench_compare_doubles);
	return g_array_index(sorted, gdouble, sorted->len / 2);
}
