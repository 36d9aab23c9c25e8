#include "gnt-rpc-node.h"

#include <string.h>

#include "gnt-build-config.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-tls.h"

#define TEST_DELAY_MAX_S (24.0 * 3600)

static JsonNode *
version_procedure(JsonArray *args, gpointer user_data, GError **error)
{
	JsonObject *result = json_object_new();

	json_object_set_member(result, "protocol", gnt_json_node_new_int(GNT_RPC_PROTOCOL_VERSION));
	json_object_set_member(result, "software", gnt_json_node_new_string(GNT_VERSION));
	return gnt_json_node_new_object(result);
}

static JsonNode *
test_delay_procedure(JsonArray *args, gpointer user_data, GError **error)
{
	gdouble duration = 0;

	if (json_array_get_length(args) != 1) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "test_delay takes one argument (seconds), not %u",
			    json_array_get_length(args));
		return NULL;
	}
	if (!gnt_json_node_get_number(json_array_get_element(args, 0), "'duration'", &duration,
				      error))
		return NULL;
	if (duration < 0 || duration > TEST_DELAY_MAX_S) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "'duration' must be 0 to %.0f seconds, not %g", TEST_DELAY_MAX_S,
			    duration);
		return NULL;
	}
	g_usleep((gulong)(duration * G_USEC_PER_SEC));
	return gnt_json_node_new_null();
}

static JsonNode *
join_status_procedure(JsonArray *args, gpointer user_data, GError **error)
{
	const GntPaths *paths = user_data;
	g_autoptr(GTlsCertificate) ca = NULL;
	g_autoptr(GTlsCertificate) node = NULL;
	g_autofree gchar *ca_cn = NULL;
	g_autofree gchar *node_cn = NULL;
	g_autofree gchar *fingerprint = NULL;
	JsonObject *result;

	ca = gnt_tls_load_ca_certificate(gnt_paths_get_ca_cert(paths), error);
	if (ca == NULL)
		return NULL;
	node = gnt_tls_load_ca_certificate(gnt_paths_get_node_cert(paths), error);
	if (node == NULL)
		return NULL;
	ca_cn = gnt_tls_certificate_dup_cn(ca, error);
	node_cn = ca_cn != NULL ? gnt_tls_certificate_dup_cn(node, error) : NULL;
	if (node_cn == NULL)
		return NULL;
	fingerprint = gnt_tls_certificate_dup_fingerprint(ca);
	result = json_object_new();
	json_object_set_member(result, "node", gnt_json_node_new_string(node_cn));
	json_object_set_member(
		result, "cluster",
		gnt_json_node_new_string(g_str_has_prefix(ca_cn, GNT_TLS_CA_CN_PREFIX)
						 ? ca_cn + strlen(GNT_TLS_CA_CN_PREFIX)
						 : ca_cn));
	json_object_set_member(result, "ca_fingerprint",
			       gnt_json_node_new_string(fingerprint));
	json_object_set_member(
		result, "join_endpoint",
		gnt_json_node_new_bool(g_file_test(gnt_paths_get_ca_key(paths), G_FILE_TEST_EXISTS)));
	return gnt_json_node_new_object(result);
}

void
gnt_rpc_node_add_procedures(GntRpcServer *server, const GntPaths *paths)
{
	static const GntRpcProcedure procedures[] = {
		{"version", version_procedure, GNT_RPC_PROCEDURE_FLAGS_NONE},
		{"test_delay", test_delay_procedure, GNT_RPC_PROCEDURE_FLAGS_NONE},
		{"join_status", join_status_procedure, GNT_RPC_PROCEDURE_FLAGS_NONE},
		{NULL},
	};

	gnt_rpc_server_add_procedures(server, procedures, (gpointer)paths);
}
