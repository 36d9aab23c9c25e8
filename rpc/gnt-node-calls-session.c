#include "gnt-node-calls-session.h"

#include "gnt-error.h"
#include "gnt-json.h"

/* The session's end in the final answer @answer: its result, or its
 * error. */
static JsonObject *
final_result(JsonObject *answer, const gchar *state, const gchar *name, const gchar *procedure,
	     GError **error)
{
	JsonObject *result = NULL;
	const gchar *message = NULL, *ecode = NULL;

	if (g_str_equal(state, "done")) {
		if (!gnt_json_get_object(answer, "result", &result, error))
			return NULL;
		return json_object_ref(result);
	}
	if (!gnt_json_get_string(answer, "error", &message, NULL))
		message = "the install session failed (no message)";
	if (!gnt_json_get_string(answer, "ecode", &ecode, NULL))
		ecode = NULL;
	g_set_error(error, GNT_ERROR,
		    ecode != NULL ? gnt_error_from_ecode(ecode) : GNT_ERROR_ENVIRONMENT,
		    "node '%s': %s: %s", name, procedure, message);
	return NULL;
}

gchar *
gnt_node_call_session_start(GntRpcClient *client, JsonObject *node, const gchar *procedure,
			    JsonObject *spec, JsonObject *options, GError **error)
{
	g_autofree gchar *token = g_uuid_string_random();
	g_autoptr(JsonNode) answer = NULL;

	g_return_val_if_fail(GNT_IS_RPC_CLIENT(client), NULL);
	g_return_val_if_fail(node != NULL && spec != NULL && options != NULL, NULL);
	answer = gnt_node_call_procedure(
		client, node, procedure,
		GNT_RPC_VALUES({.obj = spec}, {.s = token}, {.obj = options}), NULL, error);
	return answer != NULL ? g_steal_pointer(&token) : NULL;
}

JsonObject *
gnt_node_call_session_follow(GntRpcClient *client, JsonObject *node, const gchar *procedure,
			     const gchar *token, gint64 *next_seq, guint timeout_s,
			     GntNodeCallSessionEntryFunc func, gpointer user_data,
			     GCancellable *stop, GError **error)
{
	gint64 deadline = g_get_monotonic_time() + (gint64)timeout_s * G_USEC_PER_SEC;
	gint64 unreachable_since = 0;
	const gchar *name = NULL;

	g_return_val_if_fail(GNT_IS_RPC_CLIENT(client), NULL);
	(void)gnt_json_get_string(node, "name", &name, NULL);
	for (;;) {
		g_autoptr(GError) local_error = NULL;
		g_autoptr(JsonNode) answer = NULL;
		gint64 now = g_get_monotonic_time();
		guint wait_s = (guint)CLAMP((deadline - now) / G_USEC_PER_SEC, 1,
					    GNT_NODE_CALL_SESSION_WAIT_S);
		JsonArray *entries = NULL;
		const gchar *state = NULL;
		JsonObject *obj;

		if (now >= deadline) {
			gnt_node_call_session_abort(client, node, token);
			g_set_error(
				error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
				"node '%s': install session %s did not end within %u s: aborted",
				name, token, timeout_s);
			return NULL;
		}
		answer = gnt_node_call_procedure(client, node, "session_wait",
						 GNT_RPC_VALUES({.s = token},
								{.u = (guint64)MAX(*next_seq, 0)},
								{.u = wait_s}),
						 NULL, &local_error);
		if (answer == NULL) {
			/* a node that does not answer may be restarting: its new
			 * noded then says the session is gone */
			if (!g_error_matches(local_error, GNT_ERROR, GNT_ERROR_ENVIRONMENT)) {
				g_propagate_error(error, g_steal_pointer(&local_error));
				return NULL;
			}
			if (unreachable_since == 0)
				unreachable_since = now;
			if (now - unreachable_since >
			    GNT_NODE_CALL_SESSION_RETRY_S * G_USEC_PER_SEC) {
				g_propagate_prefixed_error(
					error, g_steal_pointer(&local_error),
					"install session %s: the node did not answer for %d s: ",
					token, GNT_NODE_CALL_SESSION_RETRY_S);
				return NULL;
			}
			g_debug("session_wait: %s (asking again)", local_error->message);
			g_usleep(G_USEC_PER_SEC);
			continue;
		}
		unreachable_since = 0;
		if (!JSON_NODE_HOLDS_OBJECT(answer) ||
		    !gnt_json_get_string(json_node_get_object(answer), "state", &state, NULL)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
				    "node '%s': session_wait: malformed answer", name);
			return NULL;
		}
		obj = json_node_get_object(answer);
		if (gnt_json_get_array(obj, "entries", &entries, NULL))
			gnt_node_call_hand_on_seq(entries, next_seq, func, user_data);
		if (!g_str_equal(state, "running"))
			return final_result(obj, state, name, procedure, error);
		/* the caller wants no more of it (a post-step hook failed) */
		if (g_cancellable_is_cancelled(stop)) {
			gnt_node_call_session_abort(client, node, token);
			g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE,
				    "node '%s': install session %s stopped by the master", name,
				    token);
			return NULL;
		}
	}
}

void
gnt_node_call_session_abort(GntRpcClient *client, JsonObject *node, const gchar *token)
{
	g_autoptr(GError) local_error = NULL;
	g_autoptr(JsonNode) answer = gnt_node_call_procedure(
		client, node, "session_abort", GNT_RPC_VALUES({.s = token}), NULL, &local_error);

	if (answer == NULL)
		g_warning("install session %s: abort: %s", token, local_error->message);
}
