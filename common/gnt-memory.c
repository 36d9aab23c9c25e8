/* Handing freed memory back to the system after bursts (gnt-memory.h). */
#include "gnt-memory.h"

#include <malloc.h>

#define TRIM_DELAY_S 2

static GMutex trim_lock;
static GSource *trim_source; /* the pending trim, under trim_lock */

static gboolean
trim_cb(G_GNUC_UNUSED gpointer user_data)
{
	g_mutex_lock(&trim_lock);
	g_clear_pointer(&trim_source, g_source_unref);
	g_mutex_unlock(&trim_lock);
	malloc_trim(0);
	return G_SOURCE_REMOVE;
}

void
gnt_memory_trim_soon(void)
{
	g_mutex_lock(&trim_lock);
	if (trim_source == NULL) {
		trim_source = g_timeout_source_new_seconds(TRIM_DELAY_S);
		g_source_set_callback(trim_source, trim_cb, NULL, NULL);
		g_source_attach(trim_source, NULL);
	}
	g_mutex_unlock(&trim_lock);
}

/*
 * malloc_trim() gives back the free space at the end (the top) of the main
 * arena only; a thread's arena gives back its top when a free() leaves it
 * larger than the trim threshold, which glibc raises to twice the largest
 * mmapped block freed so far (a Query answer of some MiB made it 0.5 MiB).
 * So each job worker thread that ended left up to that much of its arena
 * resident (measured: 0.13-0.52 MiB in each of 12 such arenas after 10,000
 * adds). Setting the threshold fixes it (and the mmap threshold with it:
 * blocks of 128 KiB or more are mapped and unmapped each time).
 */
#define ARENA_TOP_MAX (128 * 1024)

void
gnt_memory_bound_arena_tops(void)
{
	(void)mallopt(M_TRIM_THRESHOLD, ARENA_TOP_MAX);
}
