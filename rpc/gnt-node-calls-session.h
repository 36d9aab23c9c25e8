#pragma once

#include "gnt-node-calls.h"

G_BEGIN_DECLS

/*
 * The master's side of an install session (noded/gnt-noded-session.h,
 * doc/appliance.md "Sessions"): noded runs the session in a thread of its
 * own, and the master follows it with long polls (session_wait), each
 * answered at once when a new entry arrives or the session ends. The
 * waiting thread sleeps in a socket read meanwhile: no CPU, no polling.
 */

/* how long one session_wait may wait on the node */
#define GNT_NODE_CALL_SESSION_WAIT_S 25
/* how long the master keeps asking a node that does not answer (noded
 * restarting) before it gives the session up */
#define GNT_NODE_CALL_SESSION_RETRY_S 60

/* One entry of the session ({"seq", ...}, borrowed), in order, each once,
 * in the calling thread. */
typedef void (*GntNodeCallSessionEntryFunc)(JsonObject *entry, gpointer user_data);

/* Starts a session with @procedure [spec, token, options] (appliance_start,
 * installer_start) under a new random token; returns the token (transfer
 * full). */
gchar *
gnt_node_call_session_start(GntRpcClient *client, JsonObject *node, const gchar *procedure,
			    JsonObject *spec, JsonObject *options, GError **error);

/*
 * Follows session @token on @node (started by @procedure, which its
 * failure names after the node) from entry *@next_seq on to its end,
 * handing each entry to @func (nullable) and moving *@next_seq past it,
 * the final answer's too (it carries every entry the polls had not
 * delivered). Gives up after @timeout_s (then aborts the session), and
 * once @stop (nullable) is cancelled, which @func may do: it aborts the
 * session and fails with GNT_ERROR_WRONG_STATE. Returns
 * the session's result (transfer full), or NULL with its error: the
 * node's message and class, or GNT_ERROR_NOT_FOUND when the node no longer
 * knows the session (noded restarted and tore it down).
 */
JsonObject *
gnt_node_call_session_follow(GntRpcClient *client, JsonObject *node, const gchar *procedure,
			     const gchar *token, gint64 *next_seq, guint timeout_s,
			     GntNodeCallSessionEntryFunc func, gpointer user_data,
			     GCancellable *stop, GError **error);

/* Cancels session @token on @node and waits for its teardown; failures
 * are logged (the node's sweeper ends it anyway). */
void
gnt_node_call_session_abort(GntRpcClient *client, JsonObject *node, const gchar *token);

G_END_DECLS
