#pragma once

/*
 * Fault injection for SQLite, for tests only: a VFS that wraps the
 * platform's and becomes the default, so the stores open their databases
 * through it with no code of their own. Writes or fsyncs of the files whose
 * path contains a given text fail on demand, at a chosen point: after
 * @skip more calls pass, the next @count fail (-1: until cleared).
 * Everything else passes through.
 */

#include <glib.h>

typedef enum {
	GNT_FAULT_WRITE, /* xWrite answers SQLITE_FULL, as with ENOSPC */
	GNT_FAULT_SYNC,	 /* xSync answers SQLITE_IOERR_FSYNC */
} GntFaultOp;

/* Registers the VFS as the default (once per process); @path_part picks
 * the files it may fail, e.g. "queue.db" (its -wal and -journal too). */
void
gnt_fault_vfs_install(const gchar *path_part);
void
gnt_fault_vfs_fail(GntFaultOp op, guint skip, gint count);
/* No more failures from now on. */
void
gnt_fault_vfs_clear(void);
/* How many calls of @op on the chosen files failed so far. */
guint
gnt_fault_vfs_get_n_failed(GntFaultOp op);
