#pragma once

#include "gnt-job-store.h"

G_BEGIN_DECLS

/*
 * Group commit: a thread that takes every change pushed since its last
 * commit and writes them as one durable transaction. Concurrent changes
 * share one fsync; a later change of the same job in one batch replaces an
 * earlier one. Each push returns a ticket (a sequence number); waiting for
 * it returns once that change is durable.
 */

typedef struct _GntCommitter GntCommitter;

/* Runs in the committer thread after each commit attempt: @ids (guint64)
 * are the jobs whose changes just became durable (or failed, with @error),
 * @upto the highest ticket of the batch. */
typedef void (*GntCommitDoneFunc)(GArray *ids, guint64 upto, const GError *error,
				  gpointer user_data);

GntCommitter *
gnt_committer_new(GntJobStore *store, GntCommitDoneFunc done, gpointer user_data);
/* Commits what is pending, then stops the thread. */
void
gnt_committer_free(GntCommitter *self);

/* (transfer full: @change) */
guint64
gnt_committer_push(GntCommitter *self, GntJobStoreChange *change);
/* Blocks until ticket @seq is durable; FALSE (with @error) if its batch
 * failed to commit. */
gboolean
gnt_committer_wait(GntCommitter *self, guint64 seq, GError **error);

/* Benchmark counters. */
guint64
gnt_committer_get_n_commits(GntCommitter *self);

G_END_DECLS
