/*
 * /2/install-templates and /2/install-templates/NAME (doc/templates.md):
 * Gantry's own resource, after Ironic's deploy templates. Unlike Ganeti's
 * resources, a write answers once its job is done: POST 201 with the
 * template and its Location (409 for a name in use), PATCH 200 with the
 * template (a JSON Patch of /name, /steps, /description; 409 when the
 * template changed since the serial number the patch was made from),
 * DELETE 204. Reads are QueryInstallTemplates.
 */
#include "gnt-rapi-resources-private.h"

#include <string.h>

#include "gnt-error.h"
#include "gnt-json-patch.h"
#include "gnt-json.h"

#define URI_PREFIX "/2/install-templates/"

/* what ?bulk=1 and one template show */
static const gchar *const template_fields[] = {
	"name", "uuid", "description", "steps", "serial_no", "ctime", "mtime", NULL,
};

/* what a PATCH may change */
static const gchar *const patch_roots[] = {"name", "steps", "description", NULL};

/* POST: Ironic's body member names */
static const GntRapiRename add_renames[] = {
	{"name", "template_name"},
	{NULL},
};

JsonNode *
gnt_rapi_get_install_templates(GntRapiRequest *request, GError **error)
{
	return gnt_rapi_list_objects(request, "QueryInstallTemplates", template_fields, URI_PREFIX,
				     "name", NULL, error);
}

JsonNode *
gnt_rapi_get_install_template(GntRapiRequest *request, GError **error)
{
	return gnt_rapi_get_object(request, "QueryInstallTemplates", "Install template",
				   template_fields, NULL, error);
}

/* The template @name (a name or UUID) as stored now, not from the answer
 * cache: a write reads the serial number it is made from. (transfer full) */
static JsonObject *
read_template(GntRapiRequest *request, const gchar *name, GError **error)
{
	g_autoptr(JsonNode) result = NULL;
	JsonArray *args = json_array_new();
	JsonArray *names = json_array_new();
	JsonArray *rows = NULL;

	json_array_add_string_element(names, name);
	json_array_add_array_element(args, names);
	json_array_add_array_element(args, gnt_rapi_strv_to_array(template_fields));
	json_array_add_boolean_element(args, FALSE);
	result = gnt_rapi_call(request, "QueryInstallTemplates", args, error);
	if (result == NULL ||
	    !gnt_rapi_result_get_rows(result, g_strv_length((gchar **)template_fields), &rows,
				      error))
		return NULL;
	if (json_array_get_length(rows) != 1) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND,
			    "Install template '%s' not found", name);
		return NULL;
	}
	return gnt_rapi_row_to_object(template_fields, json_array_get_array_element(rows, 0));
}

/* Runs one opcode of @body and @statics as a job and waits for it. A name
 * in use or a template changed meanwhile is a conflict: 409. */
static gboolean
run_opcode(GntRapiRequest *request, const gchar *op_id, const gchar *resource, JsonObject *body,
	   const GntRapiRename *renames, JsonObject *statics, GError **error)
{
	g_autoptr(JsonNode) job =
		gnt_rapi_submit_opcode(request, op_id, resource, body, renames, statics, error);
	g_autoptr(JsonArray) results = NULL;

	if (job != NULL)
		results = gnt_rapi_wait_for_job(request, (guint64)json_node_get_int(job), error);
	if (results != NULL)
		return TRUE;
	if (error != NULL && *error != NULL &&
	    (g_error_matches(*error, GNT_ERROR, GNT_ERROR_EXISTS) ||
	     g_error_matches(*error, GNT_ERROR, GNT_ERROR_WRONG_STATE)))
		request->status = 409;
	return FALSE;
}

JsonNode *
gnt_rapi_post_install_templates(GntRapiRequest *request, GError **error)
{
	JsonObject *body = NULL;
	const gchar *name = NULL;
	JsonObject *stored;

	if (!gnt_rapi_request_get_body_object(request, TRUE, &body, error))
		return NULL;
	if (!gnt_json_get_string(body, "name", &name, error)) {
		g_prefix_error(error, "Body contents: ");
		return NULL;
	}
	if (!run_opcode(request, "OP_INSTALL_TEMPLATE_ADD", "install_templates", body, add_renames,
			NULL, error))
		return NULL;
	stored = read_template(request, name, error);
	if (stored == NULL)
		return NULL;
	request->status = 201;
	/* a name with '/' is no path segment: its UUID is */
	request->location = g_strconcat(
		URI_PREFIX,
		strchr(name, '/') == NULL ? name : json_object_get_string_member(stored, "uuid"),
		NULL);
	return gnt_json_node_new_object(stored);
}

/* Whether members @key of @a and @b are equal JSON. */
static gboolean
member_equal(JsonObject *a, JsonObject *b, const gchar *key)
{
	JsonNode *x = json_object_get_member(a, key);
	JsonNode *y = json_object_get_member(b, key);

	return x != NULL && y != NULL && json_node_equal(x, y);
}

JsonNode *
gnt_rapi_patch_install_template(GntRapiRequest *request, GError **error)
{
	g_autoptr(JsonObject) stored = read_template(request, request->args[0], error);
	g_autoptr(JsonObject) statics = json_object_new();
	g_autoptr(JsonNode) doc = NULL;
	g_autoptr(JsonNode) patched = NULL;
	JsonObject *wanted;
	gint64 serial = 0;
	gboolean changed = FALSE;

	if (stored == NULL)
		return NULL;
	if (request->body == NULL) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "the body must be a JSON patch (a list of operations)");
		return NULL;
	}
	/* the serial number the client read, or the one just read */
	if (!gnt_rapi_request_get_int(request, "serial_no",
				      json_object_get_int_member(stored, "serial_no"), &serial,
				      error))
		return NULL;
	doc = gnt_json_node_new_object(json_object_ref(stored));
	patched = gnt_json_patch_apply(doc, request->body, patch_roots, error);
	if (patched == NULL)
		return NULL;
	wanted = json_node_get_object(patched);
	json_object_set_string_member(statics, "template_name",
				      json_object_get_string_member(stored, "uuid"));
	json_object_set_int_member(statics, "serial_no", serial);
	for (guint i = 0; patch_roots[i] != NULL; i++) {
		const gchar *key = patch_roots[i];
		JsonNode *value = json_object_get_member(wanted, key);

		if (member_equal(stored, wanted, key))
			continue;
		if (value == NULL && g_strcmp0(key, "description") == 0)
			value = gnt_json_node_new_string(""); /* removed: none */
		else if (value == NULL) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "an install template cannot be without %s", key);
			return NULL;
		} else
			value = json_node_ref(value);
		json_object_set_member(statics, g_strcmp0(key, "name") == 0 ? "new_name" : key,
				       value);
		changed = TRUE;
	}
	if (!changed && serial == json_object_get_int_member(stored, "serial_no"))
		return gnt_json_node_new_object(g_steal_pointer(&stored));
	/* by UUID: the name may be what changes */
	if (!run_opcode(request, "OP_INSTALL_TEMPLATE_SET_PARAMS", "install_templates_name", NULL,
			NULL, statics, error))
		return NULL;
	wanted = read_template(request, json_object_get_string_member(stored, "uuid"), error);
	return wanted != NULL ? gnt_json_node_new_object(wanted) : NULL;
}

JsonNode *
gnt_rapi_delete_install_template(GntRapiRequest *request, GError **error)
{
	g_autoptr(JsonObject) statics = json_object_new();

	json_object_set_string_member(statics, "template_name", request->args[0]);
	if (!run_opcode(request, "OP_INSTALL_TEMPLATE_REMOVE", "install_templates_name", NULL, NULL,
			statics, error))
		return NULL;
	request->status = 204;
	return gnt_json_node_new_null();
}
