#include "gnt-rpc-protocol.h"

#include "gnt-error.h"
#include "gnt-json.h"

static gchar *
encode_answer(gboolean success, JsonNode *result)
{
	g_autoptr(JsonObject) answer = json_object_new();
	g_autoptr(JsonNode) root = NULL;

	json_object_set_member(answer, "success", gnt_json_node_new_bool(success));
	json_object_set_member(answer, "result", result);
	root = gnt_json_node_new_object(g_steal_pointer(&answer));
	return gnt_json_to_string(root);
}

gchar *
gnt_rpc_encode_success(JsonNode *result)
{
	return encode_answer(TRUE, json_node_ref(result));
}

gchar *
gnt_rpc_encode_error_literal(gint code, const gchar *message)
{
	JsonObject *body = json_object_new();

	if (code < 0 || code >= GNT_ERROR_LAST)
		code = GNT_ERROR_FAULT;
	json_object_set_member(body, "message", gnt_json_node_new_string(message));
	json_object_set_member(body, "ecode", gnt_json_node_new_string(gnt_error_to_ecode(code)));
	return encode_answer(FALSE, gnt_json_node_new_object(body));
}

gchar *
gnt_rpc_encode_error(const GError *error)
{
	return gnt_rpc_encode_error_literal(
		error->domain == GNT_ERROR ? error->code : GNT_ERROR_FAULT, error->message);
}

static void
set_malformed(GError **error, const gchar *reason)
{
	g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "malformed answer: %s", reason);
}

JsonNode *
gnt_rpc_decode_answer(const gchar *data, gsize len, GError **error)
{
	g_autoptr(GError) local_error = NULL;
	g_autoptr(JsonNode) root = gnt_json_parse(data, (gssize)len, &local_error);
	JsonObject *answer;
	JsonObject *failure = NULL;
	JsonNode *result;
	const gchar *message = NULL;
	const gchar *ecode = NULL;
	gboolean success = FALSE;

	if (root == NULL) {
		set_malformed(error, local_error->message);
		return NULL;
	}
	if (!JSON_NODE_HOLDS_OBJECT(root)) {
		set_malformed(error, "not a JSON object");
		return NULL;
	}
	answer = json_node_get_object(root);
	result = json_object_get_member(answer, "result");
	if (!gnt_json_get_bool(answer, "success", &success, &local_error) || result == NULL) {
		set_malformed(error,
			      local_error != NULL ? local_error->message : "'result' is missing");
		return NULL;
	}
	if (success)
		return json_node_ref(result);
	if (!gnt_json_get_object(answer, "result", &failure, &local_error) ||
	    !gnt_json_get_string(failure, "message", &message, &local_error) ||
	    !gnt_json_get_string(failure, "ecode", &ecode, &local_error)) {
		set_malformed(error, local_error->message);
		return NULL;
	}
	g_set_error_literal(error, GNT_ERROR, gnt_error_from_ecode(ecode), message);
	return NULL;
}
