#pragma once

#include <glib.h>

#include "gnt-error.h"

G_BEGIN_DECLS

/*
 * Shared/exclusive locks named by (level, name), Ganeti's lock levels. A job
 * declares everything an opcode needs as one GntLockSet; the manager takes
 * the set in one global order (level, then name), so two jobs can never
 * wait on each other in a cycle.
 */

typedef enum {
	GNT_LOCK_LEVEL_CLUSTER, /* the "big ganeti lock": name "BGL" */
	GNT_LOCK_LEVEL_INSTANCE,
	GNT_LOCK_LEVEL_NODEGROUP,
	GNT_LOCK_LEVEL_NODE,
	GNT_LOCK_LEVEL_NETWORK,
	GNT_LOCK_LEVEL_INSTALL_TEMPLATE, /* by UUID, or the name of a new one */
	GNT_LOCK_LEVEL_LAST
} GntLockLevel;

typedef enum {
	GNT_LOCK_SHARED,
	GNT_LOCK_EXCLUSIVE,
} GntLockMode;

#define GNT_LOCK_BGL "BGL"

typedef struct _GntLockSet GntLockSet;
typedef struct _GntLockManager GntLockManager;

GntLockSet *
gnt_lock_set_new(void);
void
gnt_lock_set_free(GntLockSet *self);
/* Asking twice for one lock keeps the stronger mode. */
void
gnt_lock_set_add(GntLockSet *self, GntLockLevel level, const gchar *name, GntLockMode mode);
guint
gnt_lock_set_get_size(const GntLockSet *self);

GntLockManager *
gnt_lock_manager_new(void);
void
gnt_lock_manager_free(GntLockManager *self);

/* Returns TRUE to give up waiting (job canceled, master stopping). */
typedef gboolean (*GntLockAbortFunc)(gpointer user_data);

/* Takes every lock of @set without waiting, or none of them. */
gboolean
gnt_lock_manager_try_acquire(GntLockManager *self, GntLockSet *set);
/* Takes every lock of @set, waiting as long as needed. When @abort returns
 * TRUE (checked on every wake-up; see gnt_lock_manager_wake), releases what
 * it took and fails with GNT_ERROR_WRONG_STATE. */
gboolean
gnt_lock_manager_acquire(GntLockManager *self, GntLockSet *set, GntLockAbortFunc abort,
			 gpointer user_data, GError **error);
void
gnt_lock_manager_release(GntLockManager *self, GntLockSet *set);
/* Wakes every waiter so it checks its abort function again. */
void
gnt_lock_manager_wake(GntLockManager *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntLockSet, gnt_lock_set_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntLockManager, gnt_lock_manager_free)

G_END_DECLS
