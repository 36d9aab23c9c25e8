#include "gnt-locks.h"

typedef struct {
	GntLockLevel level;
	gchar *name;
	GntLockMode mode;
} GntLockRequest;

struct _GntLockSet {
	GArray *requests; /* GntLockRequest, sorted and unique once acquired */
	gboolean sorted;
};

typedef struct {
	guint shared;
	gboolean exclusive;
} GntLockState;

struct _GntLockManager {
	GMutex mutex;
	GCond cond;
	GHashTable *locks; /* "level\x1fname" -> GntLockState */
};

static void
lock_request_clear(gpointer data)
{
	GntLockRequest *req = data;
	g_free(req->name);
}

GntLockSet *
gnt_lock_set_new(void)
{
	GntLockSet *self = g_new0(GntLockSet, 1);

	self->requests = g_array_new(FALSE, FALSE, sizeof(GntLockRequest));
	g_array_set_clear_func(self->requests, lock_request_clear);
	return self;
}

void
gnt_lock_set_free(GntLockSet *self)
{
	if (self == NULL)
		return;
	g_array_unref(self->requests);
	g_free(self);
}

void
gnt_lock_set_add(GntLockSet *self, GntLockLevel level, const gchar *name, GntLockMode mode)
{
	GntLockRequest req = {level, g_strdup(name), mode};

	g_return_if_fail(level < GNT_LOCK_LEVEL_LAST && name != NULL);
	for (guint i = 0; i < self->requests->len; i++) {
		GntLockRequest *old = &g_array_index(self->requests, GntLockRequest, i);
		if (old->level == level && g_strcmp0(old->name, name) == 0) {
			old->mode = MAX(old->mode, mode);
			g_free(req.name);
			return;
		}
	}
	g_array_append_val(self->requests, req);
	self->sorted = FALSE;
}

guint
gnt_lock_set_get_size(const GntLockSet *self)
{
	return self->requests->len;
}

/* The one global order every acquirer follows. */
static gint
lock_request_cmp(gconstpointer a, gconstpointer b)
{
	const GntLockRequest *ra = a, *rb = b;

	if (ra->level != rb->level)
		return ra->level < rb->level ? -1 : 1;
	return g_strcmp0(ra->name, rb->name);
}

static void
lock_set_sort(GntLockSet *self)
{
	if (!self->sorted)
		g_array_sort(self->requests, lock_request_cmp);
	self->sorted = TRUE;
}

GntLockManager *
gnt_lock_manager_new(void)
{
	GntLockManager *self = g_new0(GntLockManager, 1);

	g_mutex_init(&self->mutex);
	g_cond_init(&self->cond);
	self->locks = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	return self;
}

void
gnt_lock_manager_free(GntLockManager *self)
{
	if (self == NULL)
		return;
	g_hash_table_unref(self->locks);
	g_cond_clear(&self->cond);
	g_mutex_clear(&self->mutex);
	g_free(self);
}

static gchar *
lock_key(const GntLockRequest *req)
{
	return g_strdup_printf("%d\x1f%s", req->level, req->name);
}

/* Called with the mutex held. */
static gboolean
lock_take(GntLockManager *self, const GntLockRequest *req)
{
	g_autofree gchar *key = lock_key(req);
	GntLockState *state = g_hash_table_lookup(self->locks, key);

	if (state == NULL) {
		state = g_new0(GntLockState, 1);
		g_hash_table_insert(self->locks, g_steal_pointer(&key), state);
	}
	if (state->exclusive || (req->mode == GNT_LOCK_EXCLUSIVE && state->shared > 0))
		return FALSE;
	if (req->mode == GNT_LOCK_EXCLUSIVE)
		state->exclusive = TRUE;
	else
		state->shared++;
	return TRUE;
}

/* Called with the mutex held. */
static void
lock_drop(GntLockManager *self, const GntLockRequest *req)
{
	g_autofree gchar *key = lock_key(req);
	GntLockState *state = g_hash_table_lookup(self->locks, key);

	g_return_if_fail(state != NULL);
	if (req->mode == GNT_LOCK_EXCLUSIVE)
		state->exclusive = FALSE;
	else if (state->shared > 0)
		state->shared--;
	if (!state->exclusive && state->shared == 0)
		g_hash_table_remove(self->locks, key);
}

static void
lock_drop_first(GntLockManager *self, GntLockSet *set, guint n)
{
	for (guint i = 0; i < n; i++)
		lock_drop(self, &g_array_index(set->requests, GntLockRequest, i));
}

gboolean
gnt_lock_manager_try_acquire(GntLockManager *self, GntLockSet *set)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->mutex);

	lock_set_sort(set);
	for (guint i = 0; i < set->requests->len; i++) {
		if (!lock_take(self, &g_array_index(set->requests, GntLockRequest, i))) {
			lock_drop_first(self, set, i);
			return FALSE;
		}
	}
	return TRUE;
}

gboolean
gnt_lock_manager_acquire(GntLockManager *self, GntLockSet *set, GntLockAbortFunc abort,
			 gpointer user_data, GError **error)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->mutex);

	lock_set_sort(set);
	for (guint i = 0; i < set->requests->len; i++) {
		GntLockRequest *req = &g_array_index(set->requests, GntLockRequest, i);
		while (!lock_take(self, req)) {
			if (abort != NULL && abort(user_data)) {
				lock_drop_first(self, set, i);
				g_cond_broadcast(&self->cond);
				g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE,
					    "gave up waiting for lock '%s'", req->name);
				return FALSE;
			}
			g_cond_wait(&self->cond, &self->mutex);
		}
	}
	return TRUE;
}

void
gnt_lock_manager_release(GntLockManager *self, GntLockSet *set)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->mutex);

	lock_drop_first(self, set, set->requests->len);
	g_cond_broadcast(&self->cond);
}

void
gnt_lock_manager_wake(GntLockManager *self)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->mutex);

	g_cond_broadcast(&self->cond);
}
