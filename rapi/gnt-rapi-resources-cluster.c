/*
 * The cluster's resources: /, /2, /version, /2/info, /2/features, /2/os,
 * /2/modify and /2/query (rlib2's R_root, R_version, R_2_info,
 * R_2_features, R_2_os, R_2_cluster_modify, R_2_query,
 * R_2_query_fields); /2/tags is the shared tags handlers'
 * (gnt-rapi-resources.c).
 */
#include "gnt-rapi-resources-private.h"

#include "gnt-error.h"
#include "gnt-json.h"

/* constants.RAPI_VERSION */
#define RAPI_VERSION 2

/* The optional features implemented (rlib2.ALL_FEATURES, less node
 * migration and evacuation, which Gantry does not have). */
static const gchar *const features[] = {
	"instance-create-reqv1",    /* POST /2/instances with "__version__": 1 */
	"instance-reinstall-reqv1", /* POST /2/instances/{name}/reinstall with a body */
	/* Gantry's (issue 14): GET /2/install-steps */
	"install-steps",
	"install-templates", /* Gantry's /2/install-templates (doc/templates.md) */
	NULL,
};

/* What /2/os?bulk=1 shows of each OS: OP_OS_DIAGNOSE's fields. */
static const gchar *const os_bulk_fields[] = {
	"name",	       "valid",	 "variants", "parameters",	  "api_versions",
	"blacklisted", "hidden", "trusted",  "untrusted_scripts", NULL,
};
static const gchar *const os_fields[] = {"name", "variants", NULL};

JsonNode *
gnt_rapi_get_root(GntRapiRequest *request, GError **error)
{
	/* "supported for legacy reasons": null */
	return gnt_json_node_new_null();
}

JsonNode *
gnt_rapi_get_version(GntRapiRequest *request, GError **error)
{
	return gnt_json_node_new_int(RAPI_VERSION);
}

JsonNode *
gnt_rapi_get_features(GntRapiRequest *request, GError **error)
{
	return gnt_json_node_new_array(gnt_rapi_strv_to_array(features));
}

/* rlib2's GET_ALIASES of R_2_info: the old names of two keys. */
static void
add_alias(JsonObject *obj, const gchar *name, const gchar *alias)
{
	JsonNode *value = json_object_get_member(obj, name);

	if (value != NULL && !json_object_has_member(obj, alias))
		json_object_set_member(obj, alias, json_node_ref(value));
}

static JsonNode *
fetch_info(GntRapiRequest *request, gpointer user_data, GntRapiCacheVerdict *verdict,
	   GError **error)
{
	g_autoptr(JsonNode)
		info = gnt_rapi_call(request, "QueryClusterInfo", json_array_new(), error);

	if (info == NULL)
		return NULL;
	if (!JSON_NODE_HOLDS_OBJECT(info)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_FAULT,
			    "the master daemon answered QueryClusterInfo with %s, not an object",
			    gnt_json_node_type_name(info));
		return NULL;
	}
	add_alias(json_node_get_object(info), "volume_group_name", "vg_name");
	add_alias(json_node_get_object(info), "drbd_usermode_helper", "drbd_helper");
	return g_steal_pointer(&info);
}

JsonNode *
gnt_rapi_get_info(GntRapiRequest *request, GError **error)
{
	return gnt_rapi_cache_lookup(request, "QueryClusterInfo", fetch_info, NULL, error);
}

/* Ganeti's cli.CalculateOSNames: "name+variant" for each variant, or the
 * bare name when there are none. */
static void
add_os_names(JsonArray *names, JsonArray *row)
{
	const gchar *name = json_array_get_string_element(row, 0);
	JsonNode *node = json_array_get_element(row, 1);
	JsonArray *variants = JSON_NODE_HOLDS_ARRAY(node) ? json_node_get_array(node) : NULL;
	guint n = variants != NULL ? json_array_get_length(variants) : 0;

	if (name == NULL)
		return;
	if (n == 0)
		json_array_add_string_element(names, name);
	for (guint i = 0; i < n; i++) {
		JsonNode *variant = json_array_get_element(variants, i);
		g_autofree gchar *full = NULL;

		if (!JSON_NODE_HOLDS_VALUE(variant) ||
		    json_node_get_value_type(variant) != G_TYPE_STRING)
			continue;
		full = g_strdup_printf("%s+%s", name, json_node_get_string(variant));
		json_array_add_string_element(names, full);
	}
}

/* The node's [name, description] pairs of an OS's parameters as objects. */
static void
os_parameters_to_objects(JsonObject *os)
{
	JsonNode *params = json_object_get_member(os, "parameters");
	JsonArray *list = json_array_new();

	if (params == NULL || !JSON_NODE_HOLDS_ARRAY(params)) {
		json_array_unref(list);
		return;
	}
	for (guint i = 0; i < json_array_get_length(json_node_get_array(params)); i++) {
		JsonNode *param = json_array_get_element(json_node_get_array(params), i);
		JsonArray *pair = JSON_NODE_HOLDS_ARRAY(param) ? json_node_get_array(param) : NULL;
		JsonObject *entry;

		if (pair == NULL || json_array_get_length(pair) != 2) {
			json_array_add_element(list, json_node_ref(param));
			continue;
		}
		entry = json_object_new();
		json_object_set_member(entry, "name",
				       json_node_ref(json_array_get_element(pair, 0)));
		json_object_set_member(entry, "description",
				       json_node_ref(json_array_get_element(pair, 1)));
		json_array_add_object_element(list, entry);
	}
	json_object_set_array_member(os, "parameters", list);
}

JsonNode *
gnt_rapi_get_os(GntRapiRequest *request, GError **error)
{
	g_autoptr(JsonObject) statics = json_object_new();
	g_autoptr(JsonNode) job = NULL;
	g_autoptr(JsonArray) results = NULL;
	const gchar *const *fields;
	JsonNode *data;
	JsonArray *rows = NULL;
	JsonArray *answer;
	gboolean bulk = FALSE;

	if (!gnt_rapi_request_get_flag(request, "bulk", &bulk, error))
		return NULL;
	fields = bulk ? os_bulk_fields : os_fields;
	json_object_set_array_member(statics, "output_fields", gnt_rapi_strv_to_array(fields));
	json_object_set_array_member(statics, "names", json_array_new());
	job = gnt_rapi_submit_opcode(request, "OP_OS_DIAGNOSE", "os", NULL, NULL, statics, error);
	if (job == NULL)
		return NULL;
	results = gnt_rapi_wait_for_job(request, (guint64)json_node_get_int(job), error);
	if (results == NULL)
		return NULL;
	data = json_array_get_length(results) == 1 ? json_array_get_element(results, 0) : NULL;
	if (data == NULL ||
	    !gnt_rapi_result_get_rows(data, g_strv_length((gchar **)fields), &rows, NULL)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_FAULT,
			    "Can't get OS list: job %" G_GINT64_FORMAT " answered %s",
			    json_node_get_int(job), gnt_json_node_type_name(data));
		return NULL;
	}
	answer = json_array_new();
	for (guint i = 0; i < json_array_get_length(rows); i++) {
		JsonArray *row = json_array_get_array_element(rows, i);

		if (bulk) {
			JsonObject *os = gnt_rapi_row_to_object(fields, row);

			os_parameters_to_objects(os);
			json_array_add_object_element(answer, os);
		} else {
			add_os_names(answer, row);
		}
	}
	return gnt_json_node_new_array(answer);
}

/* ---- /2/query/{resource} ---- */

static JsonNode *
run_query(GntRapiRequest *request, JsonArray *fields, JsonNode *filter, GError **error)
{
	JsonArray *args = json_array_new();

	json_array_add_string_element(args, request->args[0]);
	json_array_add_array_element(args, fields);
	json_array_add_element(args,
			       filter != NULL ? json_node_ref(filter) : gnt_json_node_new_null());
	return gnt_rapi_call(request, "Query", args, error);
}

static JsonArray *
query_fields_from_args(GntRapiRequest *request, GError **error)
{
	g_auto(GStrv) fields = NULL;

	if (gnt_rapi_request_get_query(request, "fields") == NULL) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "Missing 'fields' query argument");
		return NULL;
	}
	fields = gnt_rapi_request_get_fields(request, NULL);
	return gnt_rapi_strv_to_array((const gchar *const *)fields);
}

JsonNode *
gnt_rapi_get_query(GntRapiRequest *request, GError **error)
{
	JsonArray *fields = query_fields_from_args(request, error);

	if (fields == NULL)
		return NULL;
	return run_query(request, fields, NULL, error);
}

JsonNode *
gnt_rapi_put_query(GntRapiRequest *request, GError **error)
{
	JsonObject *body = NULL;
	JsonNode *given;
	JsonNode *filter;
	JsonArray *fields;

	if (!gnt_rapi_request_get_body_object(request, TRUE, &body, error))
		return NULL;
	given = json_object_get_member(body, "fields");
	if (given == NULL) {
		fields = query_fields_from_args(request, error);
		if (fields == NULL)
			return NULL;
	} else if (!gnt_rapi_node_is_string_list(given)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "'fields' must be a list of strings, not %s",
			    gnt_json_node_type_name(given));
		return NULL;
	} else {
		fields = json_array_ref(json_node_get_array(given));
	}
	/* "filter" is the name before Ganeti 2.7 */
	filter = json_object_get_member(body, "qfilter");
	if (filter == NULL || JSON_NODE_HOLDS_NULL(filter))
		filter = json_object_get_member(body, "filter");
	if (filter != NULL && JSON_NODE_HOLDS_NULL(filter))
		filter = NULL;
	return run_query(request, fields, filter, error);
}

JsonNode *
gnt_rapi_get_query_fields(GntRapiRequest *request, GError **error)
{
	JsonArray *args = json_array_new();

	json_array_add_string_element(args, request->args[0]);
	if (gnt_rapi_request_get_query(request, "fields") != NULL) {
		g_auto(GStrv) fields = gnt_rapi_request_get_fields(request, NULL);

		json_array_add_array_element(args,
					     gnt_rapi_strv_to_array((const gchar *const *)fields));
	} else {
		json_array_add_null_element(args);
	}
	return gnt_rapi_call(request, "QueryFields", args, error);
}

/* rlib2's R_2_cluster_modify: OP_CLUSTER_SET_PARAMS from the body. Its
 * PUT_FORBIDDEN compression_tools is not a parameter of Gantry's opcode,
 * so masterd refuses it as unknown. */
JsonNode *
gnt_rapi_put_cluster_modify(GntRapiRequest *request, GError **error)
{
	g_autoptr(JsonObject) statics = json_object_new();
	JsonObject *body = NULL;

	if (!gnt_rapi_request_get_body_object(request, FALSE, &body, error))
		return NULL;
	return gnt_rapi_submit_opcode(request, "OP_CLUSTER_SET_PARAMS", "cluster_modify", body,
				      NULL, statics, error);
}
