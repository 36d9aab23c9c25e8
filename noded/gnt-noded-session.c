/*
 * Install sessions (gnt-noded-session.h): a registry of the runs of this
 * noded by token, each in its own thread, followed by long polls.
 */
#include "gnt-noded-session.h"

#include <errno.h>
#include <glib/gstdio.h>

#include "gnt-error.h"
#include "gnt-hypervisor.h"
#include "gnt-json.h"
#include "gnt-noded-private.h"

struct _GntNodedSession {
	gint refs;
	gchar *token;
	gchar *instance;
	GntNodedSessionBody body;
	GntNodedSessionFetch fetch;
	gpointer data;
	GDestroyNotify free_data;
	GCancellable *cancellable;
	/* under sessions_lock */
	JsonArray *entries; /* published, or the final list */
	gboolean done;
	JsonNode *result;
	GError *error;
	gint64 ended_usec;
	guint n_waiters;
	guint n_fetching;      /* waiters in fetch(data): data stays until none */
	gint64 last_wait_usec; /* monotonic: a master was last there */
};

static GMutex sessions_lock;
static GCond sessions_cond;	 /* an entry, an end, a wait */
static GHashTable *sessions;	 /* token -> GntNodedSession */
static gboolean sweeper_running; /* the orphan sweeper's thread */

static GntNodedSession *
session_ref(GntNodedSession *self)
{
	g_atomic_int_inc(&self->refs);
	return self;
}

static void
session_unref(GntNodedSession *self)
{
	if (!g_atomic_int_dec_and_test(&self->refs))
		return;
	g_free(self->token);
	g_free(self->instance);
	g_clear_object(&self->cancellable);
	g_clear_pointer(&self->entries, json_array_unref);
	g_clear_pointer(&self->result, json_node_unref);
	g_clear_error(&self->error);
	g_free(self);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntNodedSession, session_unref)

GCancellable *
gnt_noded_session_get_cancellable(GntNodedSession *self)
{
	return self->cancellable;
}

static guint64
entry_seq(JsonNode *element)
{
	gint64 seq = -1;

	if (!JSON_NODE_HOLDS_OBJECT(element) ||
	    !gnt_json_get_int(json_node_get_object(element), "seq", &seq, NULL) || seq < 0)
		return G_MAXUINT64;
	return (guint64)seq;
}

/* The elements of @entries with seq >= @since. (transfer full) */
static JsonArray *
entries_since(JsonArray *entries, guint64 since)
{
	JsonArray *out = json_array_new();
	guint n = entries != NULL ? json_array_get_length(entries) : 0;

	for (guint i = 0; i < n; i++) {
		JsonNode *element = json_array_get_element(entries, i);
		guint64 seq = entry_seq(element);

		if (seq != G_MAXUINT64 && seq >= since)
			json_array_add_element(out, json_node_copy(element));
	}
	return out;
}

void
gnt_noded_session_publish(GntNodedSession *self, JsonArray *entries)
{
	guint n = json_array_get_length(entries);

	g_mutex_lock(&sessions_lock);
	for (guint i = 0; i < n; i++)
		json_array_add_element(self->entries,
				       json_node_copy(json_array_get_element(entries, i)));
	g_cond_broadcast(&sessions_cond);
	g_mutex_unlock(&sessions_lock);
}

void
gnt_noded_session_set_entries(GntNodedSession *self, JsonArray *entries)
{
	g_mutex_lock(&sessions_lock);
	g_clear_pointer(&self->entries, json_array_unref);
	self->entries = json_array_ref(entries);
	g_cond_broadcast(&sessions_cond);
	g_mutex_unlock(&sessions_lock);
}

static gpointer
session_thread(gpointer user_data)
{
	g_autoptr(GntNodedSession) self = user_data;
	g_autoptr(GError) error = NULL;
	JsonNode *result = self->body(self, self->data, &error);
	gpointer data;

	g_mutex_lock(&sessions_lock);
	self->result = result;
	if (result == NULL) {
		self->error = g_steal_pointer(&error);
		if (self->error == NULL)
			self->error = g_error_new(GNT_ERROR, GNT_ERROR_FAULT,
						  "install session '%s' failed", self->token);
	}
	self->done = TRUE;
	self->ended_usec = g_get_monotonic_time();
	g_cond_broadcast(&sessions_cond);
	while (self->n_fetching > 0)
		g_cond_wait(&sessions_cond, &sessions_lock);
	data = g_steal_pointer(&self->data);
	g_mutex_unlock(&sessions_lock);
	if (self->free_data != NULL)
		self->free_data(data);
	g_info("install session of instance '%s' ended: %s", self->instance,
	       result != NULL ? "done" : self->error->message);
	return NULL;
}

/* Cancels sessions no master has waited on for too long and forgets ended
 * ones no master came back for; exits when none is left. Wakes every few
 * seconds only while sessions exist. */
static gpointer
sweeper_thread(gpointer user_data)
{
	(void)user_data;
	g_mutex_lock(&sessions_lock);
	while (g_hash_table_size(sessions) > 0) {
		gint64 now = g_get_monotonic_time();
		GHashTableIter iter;
		GntNodedSession *session;

		g_hash_table_iter_init(&iter, sessions);
		while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&session)) {
			if (session->done && now - session->ended_usec >
						     GNT_NODED_SESSION_LINGER_S * G_USEC_PER_SEC) {
				g_hash_table_iter_remove(&iter);
			} else if (!session->done && session->n_waiters == 0 &&
				   now - session->last_wait_usec >
					   GNT_NODED_SESSION_ORPHAN_S * G_USEC_PER_SEC &&
				   !g_cancellable_is_cancelled(session->cancellable)) {
				g_warning(
					"install session of instance '%s': no master has followed "
					"it for %d s: cancelled",
					session->instance, GNT_NODED_SESSION_ORPHAN_S);
				g_cancellable_cancel(session->cancellable);
			}
		}
		(void)g_cond_wait_until(&sessions_cond, &sessions_lock,
					g_get_monotonic_time() + 10 * G_USEC_PER_SEC);
	}
	sweeper_running = FALSE;
	g_mutex_unlock(&sessions_lock);
	return NULL;
}

gboolean
gnt_noded_session_start(const gchar *token, const gchar *instance, GntNodedSessionBody body,
			GntNodedSessionFetch fetch, gpointer data, GDestroyNotify free_data,
			GError **error)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&sessions_lock);
	GntNodedSession *self;
	GHashTableIter iter;
	GntNodedSession *other;

	if (sessions == NULL)
		sessions = g_hash_table_new_full(g_str_hash, g_str_equal, NULL,
						 (GDestroyNotify)session_unref);
	g_hash_table_iter_init(&iter, sessions);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&other)) {
		if (g_str_equal(other->token, token) ||
		    (!other->done && g_str_equal(other->instance, instance))) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_EXISTS,
				    "an install session runs for instance '%s' already",
				    other->instance);
			if (free_data != NULL)
				free_data(data);
			return FALSE;
		}
	}
	self = g_new0(GntNodedSession, 1);
	self->refs = 1;
	self->token = g_strdup(token);
	self->instance = g_strdup(instance);
	self->body = body;
	self->fetch = fetch;
	self->data = data;
	self->free_data = free_data;
	self->cancellable = g_cancellable_new();
	self->entries = json_array_new();
	self->last_wait_usec = g_get_monotonic_time();
	g_hash_table_insert(sessions, self->token, self);
	g_thread_unref(g_thread_new("gnt-session", session_thread, session_ref(self)));
	if (!sweeper_running) {
		sweeper_running = TRUE;
		g_thread_unref(g_thread_new("gnt-session-sweep", sweeper_thread, NULL));
	}
	return TRUE;
}

/* Session @token with a reference, or NULL. Called with the lock held. */
static GntNodedSession *
session_lookup_locked(const gchar *token)
{
	GntNodedSession *self = sessions != NULL ? g_hash_table_lookup(sessions, token) : NULL;

	return self != NULL ? session_ref(self) : NULL;
}

static JsonNode *
answer_new(const gchar *state, JsonArray *entries /* taken */)
{
	JsonObject *obj = json_object_new();
	JsonNode *node = json_node_new(JSON_NODE_OBJECT);

	json_object_set_string_member(obj, "state", state);
	json_object_set_array_member(obj, "entries", entries);
	json_node_take_object(node, obj);
	return node;
}

/* The final answer of an ended session. Called with the lock held. */
static JsonNode *
final_answer_locked(GntNodedSession *self, guint64 since)
{
	JsonNode *node = answer_new(self->result != NULL ? "done" : "failed",
				    entries_since(self->entries, since));
	JsonObject *obj = json_node_get_object(node);

	if (self->result != NULL) {
		json_object_set_member(obj, "result", json_node_copy(self->result));
	} else {
		json_object_set_string_member(obj, "error", self->error->message);
		json_object_set_string_member(obj, "ecode",
					      gnt_error_to_ecode(self->error->domain == GNT_ERROR
									 ? self->error->code
									 : GNT_ERROR_FAULT));
	}
	return node;
}

/* Waits up to @wait_s for an entry from @since or the end. */
static JsonNode *
session_wait(GntNodedSession *self, guint64 since, guint wait_s)
{
	gint64 deadline = g_get_monotonic_time() + (gint64)wait_s * G_USEC_PER_SEC;
	JsonNode *answer = NULL;

	g_mutex_lock(&sessions_lock);
	self->n_waiters++;
	while (answer == NULL) {
		g_autoptr(JsonArray) found = NULL;
		gint64 now = g_get_monotonic_time();

		if (self->done) {
			answer = final_answer_locked(self, since);
			break;
		}
		found = entries_since(self->entries, since);
		if (json_array_get_length(found) == 0 && self->fetch != NULL) {
			self->n_fetching++;
			g_mutex_unlock(&sessions_lock);
			g_clear_pointer(&found, json_array_unref);
			found = self->fetch(self->data, since);
			g_mutex_lock(&sessions_lock);
			self->n_fetching--;
			g_cond_broadcast(&sessions_cond);
			if (self->done)
				continue; /* the final answer holds them all */
		}
		if (json_array_get_length(found) > 0 || now >= deadline) {
			answer = answer_new("running", g_steal_pointer(&found));
			break;
		}
		(void)g_cond_wait_until(
			&sessions_cond, &sessions_lock,
			self->fetch != NULL ? MIN(deadline, now + GNT_NODED_SESSION_FETCH_MS * 1000)
					    : deadline);
	}
	self->n_waiters--;
	self->last_wait_usec = g_get_monotonic_time();
	g_mutex_unlock(&sessions_lock);
	return answer;
}

static JsonNode *
session_wait_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	const gchar *token = gnt_rpc_args_get_string(args, "token");
	g_autoptr(GntNodedSession) self = NULL;

	(void)user_data;
	g_mutex_lock(&sessions_lock);
	self = session_lookup_locked(token);
	g_mutex_unlock(&sessions_lock);
	if (self == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND,
			    "no install session '%s' on this node: noded restarted during the "
			    "install and tore down what it left, or the session ended long ago",
			    token);
		return NULL;
	}
	return session_wait(self, gnt_rpc_args_get_uint(args, "since"),
			    (guint)gnt_rpc_args_get_uint(args, "wait_s"));
}

/* Cancels @self and waits for its end. */
static gboolean
session_abort(GntNodedSession *self)
{
	gboolean was_running;

	g_mutex_lock(&sessions_lock);
	was_running = !self->done;
	g_cancellable_cancel(self->cancellable);
	while (!self->done)
		g_cond_wait(&sessions_cond, &sessions_lock);
	g_mutex_unlock(&sessions_lock);
	return was_running;
}

static JsonNode *
session_abort_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	g_autoptr(GntNodedSession) self = NULL;

	(void)user_data;
	(void)error;
	g_mutex_lock(&sessions_lock);
	self = session_lookup_locked(gnt_rpc_args_get_string(args, "token"));
	g_mutex_unlock(&sessions_lock);
	return json_node_init_boolean(json_node_alloc(), self != NULL && session_abort(self));
}

void
gnt_noded_session_abort_instance(const gchar *instance)
{
	g_autoptr(GntNodedSession) found = NULL;
	GHashTableIter iter;
	GntNodedSession *session;

	g_mutex_lock(&sessions_lock);
	if (sessions != NULL) {
		g_hash_table_iter_init(&iter, sessions);
		while (found == NULL && g_hash_table_iter_next(&iter, NULL, (gpointer *)&session)) {
			if (!session->done && g_str_equal(session->instance, instance))
				found = session_ref(session);
		}
	}
	g_mutex_unlock(&sessions_lock);
	if (found != NULL && session_abort(found))
		g_info("install session of instance '%s' cancelled: the instance is removed",
		       instance);
}

/* --- what a killed noded left ------------------------------------------- */

gboolean
gnt_noded_session_write_state(const gchar *work_dir, const gchar *hypervisor, gboolean keep_record,
			      GError **error)
{
	g_autofree gchar *path = g_build_filename(work_dir, GNT_NODED_SESSION_STATE_FILE, NULL);
	g_autoptr(GString) text = g_string_new("{\"hypervisor\": ");

	if (g_mkdir_with_parents(work_dir, 0700) != 0) {
		gnt_error_set_errno(error, errno, work_dir);
		return FALSE;
	}
	gnt_json_append_string(text, hypervisor);
	g_string_append_printf(text, ", \"keep_record\": %s}\n", keep_record ? "true" : "false");
	if (!g_file_set_contents(path, text->str, (gssize)text->len, error)) {
		gnt_error_convert(error);
		return FALSE;
	}
	return TRUE;
}

static void
session_left_free(gpointer data)
{
	GntNodedSessionLeft *left = data;

	g_free(left->name);
	g_free(left->work_dir);
	g_free(left->hypervisor);
	g_free(left);
}

GPtrArray *
gnt_noded_session_find_left(const gchar *dir)
{
	GPtrArray *found = g_ptr_array_new_with_free_func(session_left_free);
	g_autoptr(GDir) handle = g_dir_open(dir, 0, NULL);
	const gchar *name = NULL;

	while (handle != NULL && (name = g_dir_read_name(handle)) != NULL) {
		GntNodedSessionLeft *left = g_new0(GntNodedSessionLeft, 1);
		g_autofree gchar *state = NULL;
		g_autofree gchar *text = NULL;
		g_autoptr(JsonNode) parsed = NULL;
		const gchar *hypervisor = NULL;

		left->name = g_strdup(name);
		left->work_dir = g_build_filename(dir, name, NULL);
		state = g_build_filename(left->work_dir, GNT_NODED_SESSION_STATE_FILE, NULL);
		if (g_file_get_contents(state, &text, NULL, NULL))
			parsed = gnt_json_parse(text, -1, NULL);
		if (parsed != NULL && JSON_NODE_HOLDS_OBJECT(parsed)) {
			JsonObject *obj = json_node_get_object(parsed);

			if (gnt_json_get_string(obj, "hypervisor", &hypervisor, NULL))
				left->hypervisor = g_strdup(hypervisor);
			(void)gnt_json_get_bool(obj, "keep_record", &left->keep_record, NULL);
		}
		g_ptr_array_add(found, left);
	}
	return found;
}

void
gnt_noded_session_destroy_domain(GntRpcNode *node, const GntNodedSessionLeft *left)
{
	g_autoptr(GntHypervisor) hv = NULL;
	g_autoptr(GError) local_error = NULL;

	if (left->hypervisor == NULL)
		return;
	hv = gnt_rpc_node_get_hypervisor(node, left->hypervisor, &local_error);
	if (hv == NULL || !gnt_hypervisor_destroy_appliance(hv, left->name, &local_error))
		g_warning("install domain of instance '%s': %s", left->name, local_error->message);
}

const GntRpcProcedure gnt_rpc_node_session_procedures[] = {
	{"session_wait", session_wait_procedure},
	{"session_abort", session_abort_procedure},
	{NULL},
};
