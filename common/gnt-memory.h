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

G_END_DECLS
