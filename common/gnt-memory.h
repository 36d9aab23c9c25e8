#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * malloc keeps what a burst freed (a batch of thousands of jobs, a Query
 * answer of 10,000 rows) for reuse, so a daemon stays at its peak size.
 * After such a burst, call this: two seconds later (in the default main
 * context; calls before then share that one trim) malloc_trim() hands
 * every whole free page of every arena back to the system. Thread-safe.
 */
void
gnt_memory_trim_soon(void);

/*
 * Call once at a daemon's start, before it starts threads: a thread's
 * malloc arena then keeps at most 128 KiB of free space at its end (its
 * top) resident, instead of up to twice the largest block it ever freed
 * (gnt-memory.c).
 */
void
gnt_memory_bound_arena_tops(void);

G_END_DECLS
