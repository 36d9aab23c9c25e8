#pragma once /* noded/gnt-noded-session.h: install sessions that outlive their call */

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "gnt-noded.h"
#include "gnt-rpc-server.h"

G_BEGIN_DECLS

/*
 * An install session (doc/appliance.md "Sessions"): the run of an install
 * appliance or a kickstart installer for one instance, in a thread of its
 * own, named by the token the master chose. The call that starts it
 * answers at once; the master then follows it with session_wait, a long
 * poll that answers as soon as there is a new progress entry or the
 * session ended, and may come from another connection or another masterd
 * (a restarted one reattaching). The final answer carries every entry from
 * the asked seq on, so nothing the polls missed is lost.
 *
 *	session_wait [token, since, wait_s]
 *		{"state": "running", "entries": [entries with seq >= since]}
 *		(answered when there is one, or after wait_s seconds);
 *		{"state": "done", "entries": [...], "result": {...}};
 *		{"state": "failed", "entries": [...], "error": message,
 *		 "ecode": Ganeti's error class}.
 *		GNT_ERROR_NOT_FOUND when this noded has no such session
 *		(noded restarted: it tore down what the old one left).
 *	session_abort [token]
 *		cancels the session and waits for its teardown (TRUE), or
 *		FALSE when it had ended or is unknown.
 *
 * A session that no master has waited on for GNT_NODED_SESSION_ORPHAN_S is
 * cancelled (its master is gone for good), and an ended one is forgotten
 * GNT_NODED_SESSION_LINGER_S after its end.
 */
#define GNT_NODED_SESSION_ORPHAN_S 300
#define GNT_NODED_SESSION_LINGER_S 600
/* How often a waiter asks a session without pushed entries (the
 * appliance's progress lives in metad) for new ones; node-local. */
#define GNT_NODED_SESSION_FETCH_MS 250

typedef struct _GntNodedSession GntNodedSession;

/* The session's work, in its thread: its answer or NULL with @error. It
 * must stop soon once the session's cancellable is cancelled. */
typedef JsonNode *(*GntNodedSessionBody)(GntNodedSession *session, gpointer data, GError **error);
/* Progress entries the session holds elsewhere (metad) with seq >=
 * @since; called from waiters' threads while the body runs. (transfer
 * full) */
typedef JsonArray *(*GntNodedSessionFetch)(gpointer data, guint64 since);

/*
 * Starts session @token for instance @instance: @body(@data) in a new
 * thread; @free_data runs once the body has ended. Refused
 * (GNT_ERROR_EXISTS) while another session of @instance, or one named
 * @token, runs.
 */
gboolean
gnt_noded_session_start(const gchar *token, const gchar *instance, GntNodedSessionBody body,
			GntNodedSessionFetch fetch, gpointer data, GDestroyNotify free_data,
			GError **error);

GCancellable *
gnt_noded_session_get_cancellable(GntNodedSession *self);
/* Entries reached the session (@entries: objects with "seq", not taken):
 * waiters get them at once. */
void
gnt_noded_session_publish(GntNodedSession *self, JsonArray *entries);
/* The session's whole list of entries, taken before its teardown clears
 * them where they were (not taken): what the final answer carries. */
void
gnt_noded_session_set_entries(GntNodedSession *self, JsonArray *entries);

/* Cancels the session of @instance, if one runs, and waits for its end
 * (an instance is removed only once nothing of its install runs). */
void
gnt_noded_session_abort_instance(const gchar *instance);

extern const GntRpcProcedure gnt_rpc_node_session_procedures[];

/*
 * What a killed noded left (doc/appliance.md "noded restarts"): each
 * session writes, into its work directory <run>/<kind>/<instance>, the
 * state file GNT_NODED_SESSION_STATE_FILE {"hypervisor", "keep_record"};
 * the next noded finds the directories (gnt_noded_session_find_left),
 * destroys their domain and tears down the rest (the appliance's and the
 * installer's *_recover()). The master's session_wait then gets
 * GNT_ERROR_NOT_FOUND and fails the job saying so.
 */
#define GNT_NODED_SESSION_STATE_FILE "run.json"

gboolean
gnt_noded_session_write_state(const gchar *work_dir, const gchar *hypervisor, gboolean keep_record,
			      GError **error);

typedef struct {
	gchar *name;	   /* the instance */
	gchar *work_dir;   /* <dir>/<name> */
	gchar *hypervisor; /* NULL when the state file was not written yet */
	gboolean keep_record;
} GntNodedSessionLeft;

/* The work directories below @dir (transfer full: GntNodedSessionLeft). */
GPtrArray *
gnt_noded_session_find_left(const gchar *dir);
/* Destroys the install domain @left's run may have left (logged). */
void
gnt_noded_session_destroy_domain(GntRpcNode *node, const GntNodedSessionLeft *left);

G_END_DECLS
