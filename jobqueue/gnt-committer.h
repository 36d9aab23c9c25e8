#pragma once

#include <gio/gio.h>

#include "gnt-job-store.h"

G_BEGIN_DECLS

/*
 * Group commit: a thread that takes every change pushed since its last
 * commit and writes them as one durable transaction. Concurrent changes
 * share one fsync; a later change of the same job in one batch replaces an
 * earlier one. Each push returns a ticket (a sequence number); waiting for
 * it returns once that change is durable.
 *
 * A change is never lost: when a write fails (a full disk, an I/O error)
 * the batch is kept and written again with what comes next, first after
 * 100 ms, then less often, up to every 2 s, until the store takes it. Only
 * a tentative group (a submission) is dropped when its write fails, whole:
 * it was never accepted. Every ticket up to a durable one is durable (or
 * belonged to a dropped group).
 */

typedef struct _GntCommitter GntCommitter;

/* Tickets @from..@upto that will never be written. */
typedef struct {
	guint64 from, upto;
} GntCommitRange;

/*
 * Runs in the committer thread after each commit attempt. Written: @error
 * NULL, @ids (guint64) the jobs whose changes just became durable, every
 * ticket up to @durable_upto durable. Failed: @error says why, @ids empty,
 * @durable_upto unchanged, @dropped (GntCommitRange) the tickets given up:
 * the attempt's tentative groups, or at the stop everything left.
 */
typedef void (*GntCommitDoneFunc)(GArray *ids, guint64 durable_upto, GArray *dropped,
				  const GError *error, gpointer user_data);

GntCommitter *
gnt_committer_new(GntJobStore *store, GntCommitDoneFunc done, gpointer user_data);
/* Commits what is pending (one more try if the store fails: what it
 * cannot write then is given up with a warning, as in a crash), then
 * stops the thread. */
void
gnt_committer_free(GntCommitter *self);

/* (transfer full: @change) */
guint64
gnt_committer_push(GntCommitter *self, GntJobStoreChange *change);
/* @changes (GntJobStoreChange, transfer full) are written in one
 * transaction, or dropped together if that write fails. One ticket. */
guint64
gnt_committer_push_tentative(GntCommitter *self, GPtrArray *changes);

/* Blocks until ticket @seq is durable: TRUE. FALSE with @error if it
 * never will be (its tentative group was dropped, or the stop gave it up),
 * or once @cancellable (nullable) is cancelled while the store cannot
 * write. */
gboolean
gnt_committer_wait(GntCommitter *self, guint64 seq, GCancellable *cancellable, GError **error);

/* FALSE with the store's error while the last write failed and changes
 * wait for the next try; TRUE once a write went through again. */
gboolean
gnt_committer_check_writing(GntCommitter *self, GError **error);

/* Benchmark counters. */
guint64
gnt_committer_get_n_commits(GntCommitter *self);

G_END_DECLS
