/*
 * gantry-rapi's resources: the route table and what the resource files
 * share. The behaviour is that of Ganeti's lib/rapi/rlib2.py and
 * baserlib.py (3.0): the same paths, bodies, renames, static parameters
 * and answers; see doc/rapi.md.
 */
#include "gnt-rapi-resources-private.h"

#include <string.h>

#include "gnt-error.h"
#include "gnt-job-status.h"
#include "gnt-json.h"
#include "gnt-luxi-codec.h"
#include "gnt-rapi-ganeti.h"

/* Ganeti's reason trail sources (constants.OPCODE_REASON_SRC_*) */
#define REASON_SRC_USER	 "gnt:user"
#define REASON_SRC_RLIB2 "gnt:library:rlib2"

/* The largest body of a template's POST or PATCH: a template is a few
 * kilobytes, and it is stored and copied whole */
#define GNT_RAPI_TEMPLATE_MAX_BODY (1024 * 1024)

/* gnt_rapi_wait_for_job() waits in WaitForJobChange calls of this many seconds */
#define WAIT_STEP_S 30

/* clang-format off */
/* A tags resource: the same three handlers, told the tag kind. */
#define TAG_ROUTES(pattern, kind) \
	{pattern, "GET", GNT_RAPI_ACCESS_NONE, gnt_rapi_get_tags, NULL, kind}, \
	{pattern, "PUT", GNT_RAPI_ACCESS_WRITE, gnt_rapi_put_tags, NULL, kind}, \
	{pattern, "DELETE", GNT_RAPI_ACCESS_WRITE, gnt_rapi_delete_tags, NULL, kind},

static const GntRapiRoute routes[] = {
	{"/", "GET", GNT_RAPI_ACCESS_NONE, gnt_rapi_get_root},
	{"/2", "GET", GNT_RAPI_ACCESS_NONE, gnt_rapi_get_root},
	{"/version", "GET", GNT_RAPI_ACCESS_NONE, gnt_rapi_get_version},
	{"/2/info", "GET", GNT_RAPI_ACCESS_NONE, gnt_rapi_get_info},
	{"/2/features", "GET", GNT_RAPI_ACCESS_NONE, gnt_rapi_get_features},
	{"/2/os", "GET", GNT_RAPI_ACCESS_NONE, gnt_rapi_get_os},
	{"/2/modify", "PUT", GNT_RAPI_ACCESS_WRITE, gnt_rapi_put_cluster_modify},
	TAG_ROUTES("/2/tags", "cluster")

	{"/2/instances", "GET", GNT_RAPI_ACCESS_NONE, gnt_rapi_get_instances},
	{"/2/instances", "POST", GNT_RAPI_ACCESS_WRITE, gnt_rapi_post_instances},
	{"/2/instances/{name}", "GET", GNT_RAPI_ACCESS_NONE, gnt_rapi_get_instance},
	{"/2/instances/{name}", "DELETE", GNT_RAPI_ACCESS_WRITE, gnt_rapi_delete_instance},
	{"/2/instances/{name}/info", "GET", GNT_RAPI_ACCESS_NONE, gnt_rapi_get_instance_info},
	{"/2/instances/{name}/startup", "PUT", GNT_RAPI_ACCESS_WRITE, gnt_rapi_put_instance_startup},
	{"/2/instances/{name}/shutdown", "PUT", GNT_RAPI_ACCESS_WRITE, gnt_rapi_put_instance_shutdown},
	{"/2/instances/{name}/reboot", "POST", GNT_RAPI_ACCESS_WRITE, gnt_rapi_post_instance_reboot},
	{"/2/instances/{name}/reinstall", "POST", GNT_RAPI_ACCESS_WRITE, gnt_rapi_post_instance_reinstall},
	{"/2/instances/{name}/modify", "PUT", GNT_RAPI_ACCESS_WRITE, gnt_rapi_put_instance_modify},
	{"/2/instances/{name}/rename", "PUT", GNT_RAPI_ACCESS_WRITE, gnt_rapi_put_instance_rename},
	{"/2/instances/{name}/activate-disks", "PUT", GNT_RAPI_ACCESS_WRITE, gnt_rapi_put_instance_activate_disks},
	{"/2/instances/{name}/deactivate-disks", "PUT", GNT_RAPI_ACCESS_WRITE, gnt_rapi_put_instance_deactivate_disks},
	{"/2/instances/{name}/disk/{index}/grow", "POST", GNT_RAPI_ACCESS_WRITE, gnt_rapi_post_instance_disk_grow},
	/* it starts a job: any user, as in Ganeti */
	{"/2/instances/{name}/console", "GET", GNT_RAPI_ACCESS_READ, gnt_rapi_get_instance_console},
	TAG_ROUTES("/2/instances/{name}/tags", "instance")

	{"/2/nodes", "GET", GNT_RAPI_ACCESS_NONE, gnt_rapi_get_nodes},
	{"/2/nodes/{name}", "GET", GNT_RAPI_ACCESS_NONE, gnt_rapi_get_node},
	TAG_ROUTES("/2/nodes/{name}/tags", "node")

	{"/2/groups", "GET", GNT_RAPI_ACCESS_NONE, gnt_rapi_get_groups},
	{"/2/groups", "POST", GNT_RAPI_ACCESS_WRITE, gnt_rapi_post_groups},
	{"/2/groups/{name}", "GET", GNT_RAPI_ACCESS_NONE, gnt_rapi_get_group},
	{"/2/groups/{name}", "DELETE", GNT_RAPI_ACCESS_WRITE, gnt_rapi_delete_group},
	{"/2/groups/{name}/modify", "PUT", GNT_RAPI_ACCESS_WRITE, gnt_rapi_put_group_modify},
	{"/2/groups/{name}/rename", "PUT", GNT_RAPI_ACCESS_WRITE, gnt_rapi_put_group_rename},
	{"/2/groups/{name}/assign-nodes", "PUT", GNT_RAPI_ACCESS_WRITE, gnt_rapi_put_group_assign_nodes},
	TAG_ROUTES("/2/groups/{name}/tags", "nodegroup")

	/* Gantry's image catalog (gnt-rapi-resources-images.c) */
	{"/2/images", "GET", GNT_RAPI_ACCESS_NONE, gnt_rapi_get_images},
	{"/2/images", "POST", GNT_RAPI_ACCESS_WRITE, gnt_rapi_post_images},
	{"/2/images/{name}", "GET", GNT_RAPI_ACCESS_NONE, gnt_rapi_get_image},
	{"/2/images/{name}", "PUT", GNT_RAPI_ACCESS_WRITE, gnt_rapi_put_image},
	{"/2/images/{name}", "DELETE", GNT_RAPI_ACCESS_WRITE, gnt_rapi_delete_image},
	/* Gantry's install templates: bodies of a template's size */
	{"/2/install-templates", "GET", GNT_RAPI_ACCESS_NONE, gnt_rapi_get_install_templates},
	{"/2/install-templates", "POST", GNT_RAPI_ACCESS_WRITE, gnt_rapi_post_install_templates,
	 .max_body = GNT_RAPI_TEMPLATE_MAX_BODY},
	{"/2/install-templates/{tag}", "GET", GNT_RAPI_ACCESS_NONE, gnt_rapi_get_install_template},
	{"/2/install-templates/{tag}", "PATCH", GNT_RAPI_ACCESS_WRITE, gnt_rapi_patch_install_template,
	 .content_type = "application/json-patch+json", .max_body = GNT_RAPI_TEMPLATE_MAX_BODY},
	{"/2/install-templates/{tag}", "DELETE", GNT_RAPI_ACCESS_WRITE, gnt_rapi_delete_install_template},

	{"/2/jobs", "GET", GNT_RAPI_ACCESS_NONE, gnt_rapi_get_jobs},
	{"/2/jobs/{id}", "GET", GNT_RAPI_ACCESS_NONE, gnt_rapi_get_job},
	{"/2/jobs/{id}", "DELETE", GNT_RAPI_ACCESS_WRITE, gnt_rapi_delete_job},
	/* it blocks and shows the job's log: writers only, as in Ganeti */
	{"/2/jobs/{id}/wait", "GET", GNT_RAPI_ACCESS_WRITE, gnt_rapi_get_job_wait},

	/* Gantry's install steps (issue 14): the registry, for anyone */
	{"/2/install-steps", "GET", GNT_RAPI_ACCESS_NONE, gnt_rapi_get_install_steps},
	{"/2/install-steps/{name}", "GET", GNT_RAPI_ACCESS_NONE, gnt_rapi_get_install_step},

	/* results may hold sensitive data: any user, not anyone */
	{"/2/query/{resource}", "GET", GNT_RAPI_ACCESS_READ, gnt_rapi_get_query},
	{"/2/query/{resource}", "PUT", GNT_RAPI_ACCESS_READ, gnt_rapi_put_query},
	{"/2/query/{resource}/fields", "GET", GNT_RAPI_ACCESS_READ, gnt_rapi_get_query_fields},
	{NULL},
};
/* clang-format on */

const GntRapiRoute *
gnt_rapi_routes(void)
{
	static gsize all = 0;

	if (g_once_init_enter(&all))
		g_once_init_leave(&all, (gsize)gnt_rapi_ganeti_routes_new(routes));
	return (const GntRapiRoute *)all;
}

/* ---- query arguments ---- */

GPtrArray *
gnt_rapi_request_get_query_all(GntRapiRequest *request, const gchar *name)
{
	GPtrArray *values;

	g_return_val_if_fail(request != NULL && name != NULL, NULL);

	if (request->query == NULL)
		return NULL;
	values = g_hash_table_lookup(request->query, name);
	return values != NULL && values->len > 0 ? values : NULL;
}

const gchar *
gnt_rapi_request_get_query(GntRapiRequest *request, const gchar *name)
{
	GPtrArray *values = gnt_rapi_request_get_query_all(request, name);

	return values != NULL ? g_ptr_array_index(values, 0) : NULL;
}

gboolean
gnt_rapi_request_get_int(GntRapiRequest *request, const gchar *name, gint64 fallback, gint64 *out,
			 GError **error)
{
	const gchar *value = gnt_rapi_request_get_query(request, name);
	g_autofree gchar *text = NULL;

	if (value == NULL) {
		*out = fallback;
		return TRUE;
	}
	/* Python's int(): surrounding blanks and a sign are fine */
	text = g_strstrip(g_strdup(value));
	if (text[0] == '+')
		memmove(text, text + 1, strlen(text));
	if (!g_ascii_string_to_signed(text, 10, G_MININT64, G_MAXINT64, out, NULL)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "Invalid value for the '%s' parameter", name);
		return FALSE;
	}
	return TRUE;
}

gboolean
gnt_rapi_request_get_flag(GntRapiRequest *request, const gchar *name, gboolean *out, GError **error)
{
	gint64 value = 0;

	if (!gnt_rapi_request_get_int(request, name, 0, &value, error))
		return FALSE;
	*out = value != 0;
	return TRUE;
}

GStrv
gnt_rapi_request_get_fields(GntRapiRequest *request, const gchar *const *fallback)
{
	const gchar *value = gnt_rapi_request_get_query(request, "fields");
	GStrv fields;

	if (value == NULL)
		return g_strdupv((gchar **)fallback);
	fields = g_strsplit(value, ",", -1);
	for (guint i = 0; fields[i] != NULL; i++)
		g_strstrip(fields[i]);
	return fields;
}

gboolean
gnt_rapi_request_has_query(GntRapiRequest *request, const gchar *const *except)
{
	GHashTableIter iter;
	gpointer key;
	gpointer value;

	if (request->query == NULL)
		return FALSE;
	g_hash_table_iter_init(&iter, request->query);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		if (except != NULL && g_strv_contains(except, key))
			continue;
		if (value != NULL && ((GPtrArray *)value)->len > 0)
			return TRUE;
	}
	return FALSE;
}

/* ---- bodies ---- */

gboolean
gnt_rapi_request_get_body_object(GntRapiRequest *request, gboolean required, JsonObject **out,
				 GError **error)
{
	JsonNode *body = request->body;

	*out = NULL;
	if (body == NULL || (JSON_NODE_HOLDS_NULL(body) && !required))
		body = NULL;
	if (body == NULL && !required)
		return TRUE;
	if (body == NULL || !JSON_NODE_HOLDS_OBJECT(body)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "Body contents: the request body must be a JSON object, not %s",
			    body != NULL ? gnt_json_node_type_name(body) : "empty");
		return FALSE;
	}
	*out = json_node_get_object(body);
	return TRUE;
}

/* ---- LUXI ---- */

gboolean
gnt_rapi_node_is_string_list(JsonNode *node)
{
	JsonArray *list;

	if (node == NULL || !JSON_NODE_HOLDS_ARRAY(node))
		return FALSE;
	list = json_node_get_array(node);
	for (guint i = 0; i < json_array_get_length(list); i++) {
		JsonNode *item = json_array_get_element(list, i);

		if (!JSON_NODE_HOLDS_VALUE(item) || json_node_get_value_type(item) != G_TYPE_STRING)
			return FALSE;
	}
	return TRUE;
}

JsonArray *
gnt_rapi_strv_to_array(const gchar *const *strv)
{
	JsonArray *array = json_array_new();

	for (guint i = 0; strv != NULL && strv[i] != NULL; i++)
		json_array_add_string_element(array, strv[i]);
	return array;
}

/* A request masterd refused as malformed: the message without LUXI's
 * "Failed to parse request: ", the method's name and, for a job's first
 * opcode, "opcode 0: ". */
static const gchar *
request_error_text(const gchar *message, const gchar *method)
{
	gsize len = strlen(method);

	if (g_str_has_prefix(message, GNT_LUXI_REQUEST_ERROR_PREFIX))
		message += strlen(GNT_LUXI_REQUEST_ERROR_PREFIX);
	if (strncmp(message, method, len) == 0 && strncmp(message + len, ": ", 2) == 0)
		message += len + 2;
	if (g_str_has_prefix(message, "opcode 0: "))
		message += strlen("opcode 0: ");
	return message;
}

JsonNode *
gnt_rapi_call(GntRapiRequest *request, const gchar *method, JsonArray *args, GError **error)
{
	g_autoptr(JsonNode) node = NULL;
	g_autoptr(GError) error_local = NULL;
	JsonNode *result;
	const gchar *klass;

	g_return_val_if_fail(request != NULL && request->luxi != NULL, NULL);
	g_return_val_if_fail(args != NULL, NULL);

	node = gnt_json_node_new_array(args);
	result = gnt_luxi_client_call(request->luxi, method, node, &error_local);
	if (result != NULL)
		return result;
	klass = gnt_luxi_client_get_error_class(request->luxi);
	if (klass == NULL && g_error_matches(error_local, GNT_ERROR, GNT_ERROR_INVALID)) {
		/* masterd could not parse it: for a job, a bad opcode parameter */
		const gchar *text = request_error_text(error_local->message, method);

		/* OP_ID is static: an opcode masterd does not know is ours, not the client's */
		if (g_strcmp0(method, "SubmitJob") == 0 && strstr(text, "unknown opcode '") != NULL)
			g_set_error(error, GNT_ERROR, GNT_ERROR_FAULT,
				    "the master daemon does not support this resource: %s", text);
		else if (g_strcmp0(method, "SubmitJob") == 0)
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "Invalid body parameters: %s", text);
		else
			g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID, text);
		return NULL;
	}
	if (g_strcmp0(klass, GNT_LUXI_EXC_GENERIC) == 0 &&
	    g_strcmp0(error_local->message, "Queue drained") == 0) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_TEMP_NO_RESOURCES,
				    "Job queue is drained, cannot submit");
		return NULL;
	}
	g_propagate_error(error, g_steal_pointer(&error_local));
	return NULL;
}

gboolean
gnt_rapi_result_get_rows(JsonNode *result, guint n_fields, JsonArray **rows, GError **error)
{
	JsonArray *list;

	*rows = NULL;
	if (result == NULL || !JSON_NODE_HOLDS_ARRAY(result)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_FAULT,
			    "the master daemon answered a query with %s, not a list",
			    gnt_json_node_type_name(result));
		return FALSE;
	}
	list = json_node_get_array(result);
	for (guint i = 0; i < json_array_get_length(list); i++) {
		JsonNode *row = json_array_get_element(list, i);

		if (!JSON_NODE_HOLDS_ARRAY(row) ||
		    json_array_get_length(json_node_get_array(row)) != n_fields) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_FAULT,
				    "the master daemon answered a query with a row of %s, not of "
				    "%u values",
				    gnt_json_node_type_name(row), n_fields);
			return FALSE;
		}
	}
	*rows = list;
	return TRUE;
}

/* ---- answers ---- */

JsonObject *
gnt_rapi_row_to_object(const gchar *const *fields, JsonArray *row)
{
	JsonObject *obj = json_object_new();

	for (guint i = 0; fields[i] != NULL && i < json_array_get_length(row); i++) {
		JsonNode *value = json_array_get_element(row, i);

		json_object_set_member(obj, fields[i], json_node_ref(value));
	}
	return obj;
}

static gint
compare_ids(gconstpointer a, gconstpointer b)
{
	JsonNode *x = *(JsonNode *const *)a;
	JsonNode *y = *(JsonNode *const *)b;

	if (gnt_json_node_is_int(x) && gnt_json_node_is_int(y)) {
		gint64 i = json_node_get_int(x);
		gint64 j = json_node_get_int(y);

		return i < j ? -1 : i > j;
	}
	return g_strcmp0(JSON_NODE_HOLDS_VALUE(x) ? json_node_get_string(x) : NULL,
			 JSON_NODE_HOLDS_VALUE(y) ? json_node_get_string(y) : NULL);
}

JsonNode *
gnt_rapi_uri_list(JsonArray *rows, const gchar *prefix, const gchar *id_key)
{
	g_autoptr(GPtrArray) ids = g_ptr_array_new();
	JsonArray *list = json_array_new();

	for (guint i = 0; i < json_array_get_length(rows); i++) {
		JsonArray *row = json_array_get_array_element(rows, i);

		if (row != NULL && json_array_get_length(row) > 0)
			g_ptr_array_add(ids, json_array_get_element(row, 0));
	}
	g_ptr_array_sort(ids, compare_ids);
	for (guint i = 0; i < ids->len; i++) {
		JsonNode *id = g_ptr_array_index(ids, i);
		JsonObject *entry = json_object_new();
		g_autofree gchar *uri = NULL;

		if (gnt_json_node_is_int(id))
			uri = g_strdup_printf("%s%" G_GINT64_FORMAT, prefix, json_node_get_int(id));
		else
			uri = g_strconcat(prefix,
					  JSON_NODE_HOLDS_VALUE(id) ? json_node_get_string(id) : "",
					  NULL);
		json_object_set_member(entry, id_key, json_node_ref(id));
		json_object_set_string_member(entry, "uri", uri);
		json_array_add_object_element(list, entry);
	}
	return gnt_json_node_new_array(list);
}

/* QueryInstances or QueryNodes of @name (NULL: all) with @fields: the
 * answer, whose rows *@rows points to. (transfer full) */
static JsonNode *
classic_query(GntRapiRequest *request, const gchar *method, const gchar *name,
	      const gchar *const *fields, gboolean lock, JsonArray **rows, GError **error)
{
	g_autoptr(JsonNode) result = NULL;
	JsonArray *args = json_array_new();
	JsonArray *names = json_array_new();

	if (name != NULL)
		json_array_add_string_element(names, name);
	json_array_add_array_element(args, names);
	json_array_add_array_element(args, gnt_rapi_strv_to_array(fields));
	json_array_add_boolean_element(args, lock);
	result = gnt_rapi_call(request, method, args, error);
	if (result == NULL ||
	    !gnt_rapi_result_get_rows(result, g_strv_length((gchar **)fields), rows, error))
		return NULL;
	return g_steal_pointer(&result);
}

/* What a list or item resource asks masterd. */
typedef struct {
	const gchar *method;
	const gchar *name; /* NULL: all */
	const gchar *const *fields;
	gboolean bulk;
	gboolean lock;		 /* passed on: masterd refuses it, as luxid does */
	const gchar *uri_prefix; /* of a list: "/2/instances/" */
	const gchar *id_key;	 /* of a list's entries: "id", or "name" for groups */
	const gchar *what;	 /* of an item, for messages: "Instance" */
	GntRapiFixupFunc fixup;
} ObjectQuery;

static JsonNode *
fetch_objects(GntRapiRequest *request, gpointer user_data, GntRapiCacheVerdict *verdict,
	      GError **error)
{
	static const gchar *const name_field[] = {"name", NULL};
	ObjectQuery *q = user_data;
	g_autoptr(JsonNode) result = NULL;
	JsonArray *rows = NULL;
	JsonArray *list;
	JsonObject *obj;

	if (q->name == NULL && !q->bulk) {
		result = classic_query(request, q->method, NULL, name_field, q->lock, &rows, error);
		return result != NULL ? gnt_rapi_uri_list(rows, q->uri_prefix, q->id_key) : NULL;
	}
	result = classic_query(request, q->method, q->name, q->fields, q->lock, &rows, error);
	if (result == NULL)
		return NULL;
	if (q->name != NULL) {
		if (json_array_get_length(rows) == 0) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND, "%s '%s' not found",
				    q->what, q->name);
			return NULL;
		}
		obj = gnt_rapi_row_to_object(q->fields, json_array_get_array_element(rows, 0));
		if (q->fixup != NULL)
			q->fixup(obj);
		return gnt_json_node_new_object(obj);
	}
	list = json_array_sized_new(json_array_get_length(rows));
	for (guint i = 0; i < json_array_get_length(rows); i++) {
		obj = gnt_rapi_row_to_object(q->fields, json_array_get_array_element(rows, i));
		if (q->fixup != NULL)
			q->fixup(obj);
		json_array_add_object_element(list, obj);
	}
	return gnt_json_node_new_array(list);
}

/* The cache key of @q: everything that makes its answer. */
static gchar *
object_query_key(ObjectQuery *q)
{
	g_autofree gchar *fields = g_strjoinv(",", (gchar **)q->fields);

	return g_strdup_printf("%s\n%s\n%d\n%d\n%s", q->method, q->name != NULL ? q->name : "",
			       q->bulk, q->lock, q->bulk || q->name != NULL ? fields : "");
}

static JsonNode *
lookup_objects(GntRapiRequest *request, ObjectQuery *q, GError **error)
{
	g_autofree gchar *key = NULL;

	if (!gnt_rapi_request_get_flag(request, "lock", &q->lock, error))
		return NULL;
	key = object_query_key(q);
	return gnt_rapi_cache_lookup(request, key, fetch_objects, q, error);
}

JsonNode *
gnt_rapi_list_objects(GntRapiRequest *request, const gchar *method, const gchar *const *fields,
		      const gchar *uri_prefix, const gchar *id_key, GntRapiFixupFunc fixup,
		      GError **error)
{
	g_auto(GStrv) selected = gnt_rapi_request_get_fields(request, fields);
	ObjectQuery q = {method, NULL,	(const gchar *const *)selected,
			 FALSE,	 FALSE, uri_prefix,
			 id_key, NULL,	fixup};

	if (!gnt_rapi_request_get_flag(request, "bulk", &q.bulk, error))
		return NULL;
	return lookup_objects(request, &q, error);
}

JsonNode *
gnt_rapi_get_object(GntRapiRequest *request, const gchar *method, const gchar *what,
		    const gchar *const *fields, GntRapiFixupFunc fixup, GError **error)
{
	g_auto(GStrv) selected = gnt_rapi_request_get_fields(request, fields);
	ObjectQuery q = {method,
			 request->args[0],
			 (const gchar *const *)selected,
			 FALSE,
			 FALSE,
			 NULL,
			 NULL,
			 what,
			 fixup};

	/* an unknown name is OpPrereqError unknown_entity: 404 */
	return lookup_objects(request, &q, error);
}

/* ---- opcodes and jobs ---- */

gboolean
gnt_rapi_job_status_is_final(const gchar *status)
{
	GntJobStatus value = GNT_JOB_STATUS_QUEUED;

	return status != NULL && gnt_job_status_from_string(status, &value) &&
	       gnt_job_status_is_finalized(value);
}

static JsonNode *
reason_entry(const gchar *source, const gchar *text, gint64 ts_ns)
{
	JsonArray *entry = json_array_new();

	json_array_add_string_element(entry, source);
	json_array_add_string_element(entry, text);
	json_array_add_int_element(entry, ts_ns);
	return gnt_json_node_new_array(entry);
}

/* Ganeti's _GetCommonStatic: the user's reason, then this library. */
static JsonNode *
reason_trail(GntRapiRequest *request, const gchar *resource)
{
	const gchar *user_reason = gnt_rapi_request_get_query(request, "reason");
	g_autofree gchar *source = g_strdup_printf("%s:%s", REASON_SRC_RLIB2, resource);
	gint64 now_ns = g_get_real_time() * 1000;
	JsonArray *trail = json_array_new();

	if (user_reason != NULL && user_reason[0] != '\0')
		json_array_add_element(trail, reason_entry(REASON_SRC_USER, user_reason, now_ns));
	json_array_add_element(trail, reason_entry(source, "", now_ns));
	return gnt_json_node_new_array(trail);
}

static const gchar *
rename_of(const GntRapiRename *renames, const gchar *name)
{
	for (guint i = 0; renames != NULL && renames[i].from != NULL; i++) {
		if (g_strcmp0(renames[i].from, name) == 0)
			return renames[i].to;
	}
	return name;
}

JsonObject *
gnt_rapi_opcode_new(GntRapiRequest *request, const gchar *op_id, const gchar *resource,
		    JsonObject *body, const GntRapiRename *renames, JsonObject *statics,
		    GError **error)
{
	g_autoptr(JsonObject) op = json_object_new();
	g_autoptr(JsonObject) fixed = json_object_new();
	g_autoptr(GString) overwritten = g_string_new(NULL);
	JsonObjectIter iter;
	const gchar *name;
	JsonNode *value;

	g_return_val_if_fail(request != NULL && op_id != NULL && resource != NULL, NULL);

	if (body != NULL) {
		for (guint i = 0; renames != NULL && renames[i].from != NULL; i++) {
			if (json_object_has_member(body, renames[i].from) &&
			    json_object_has_member(body, renames[i].to)) {
				g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "Parameter '%s' was renamed to '%s', but both are "
					    "specified",
					    renames[i].from, renames[i].to);
				return NULL;
			}
		}
		/* shared, not copied: a secret value stays in one place */
		json_object_iter_init(&iter, body);
		while (json_object_iter_next(&iter, &name, &value))
			json_object_set_member(op, rename_of(renames, name), json_node_ref(value));
	}

	json_object_set_string_member(fixed, "OP_ID", op_id);
	json_object_set_member(fixed, "reason", reason_trail(request, resource));
	if (statics != NULL) {
		json_object_iter_init(&iter, statics);
		while (json_object_iter_next(&iter, &name, &value))
			json_object_set_member(fixed, name, json_node_copy(value));
	}
	json_object_iter_init(&iter, fixed);
	while (json_object_iter_next(&iter, &name, &value)) {
		if (json_object_has_member(op, name))
			g_string_append_printf(overwritten, "%s'%s'",
					       overwritten->len > 0 ? ", " : "", name);
	}
	if (overwritten->len > 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "Can't overwrite static parameters %s", overwritten->str);
		return NULL;
	}
	json_object_iter_init(&iter, fixed);
	while (json_object_iter_next(&iter, &name, &value))
		json_object_set_member(op, name, json_node_ref(value));
	return g_steal_pointer(&op);
}

JsonNode *
gnt_rapi_submit_job(GntRapiRequest *request, JsonArray *ops, GError **error)
{
	g_autoptr(JsonNode) result = NULL;
	JsonArray *args = json_array_new();
	gint64 job_id = 0;

	json_array_add_array_element(args, ops);
	result = gnt_rapi_call(request, "SubmitJob", args, error);
	/* even a failed call may have queued the job before the connection broke */
	gnt_rapi_cache_changed();
	if (result == NULL)
		return NULL;
	if (!gnt_json_node_get_int(result, "the job ID SubmitJob returned", &job_id, error)) {
		g_prefix_error(error, "master daemon: ");
		return NULL;
	}
	return gnt_json_node_new_int(job_id);
}

JsonNode *
gnt_rapi_submit_opcode(GntRapiRequest *request, const gchar *op_id, const gchar *resource,
		       JsonObject *body, const GntRapiRename *renames, JsonObject *statics,
		       GError **error)
{
	JsonObject *op =
		gnt_rapi_opcode_new(request, op_id, resource, body, renames, statics, error);
	JsonArray *ops;

	if (op == NULL)
		return NULL;
	ops = json_array_new();
	json_array_add_object_element(ops, op);
	return gnt_rapi_submit_job(request, ops, error);
}

/* The highest log serial in @entries ([serial, ts, type, message] each),
 * or @serial if there is none higher. */
static gint64
last_log_serial(JsonArray *entries, gint64 serial)
{
	for (guint i = 0; entries != NULL && i < json_array_get_length(entries); i++) {
		JsonArray *entry = json_array_get_array_element(entries, i);
		JsonNode *first = entry != NULL && json_array_get_length(entry) > 0
					  ? json_array_get_element(entry, 0)
					  : NULL;

		if (first != NULL && gnt_json_node_is_int(first))
			serial = MAX(serial, json_node_get_int(first));
	}
	return serial;
}

/* The error of the first opcode that did not succeed. */
static void
set_job_error(guint64 job_id, const gchar *status, JsonArray *opstatus, JsonArray *opresult,
	      GError **error)
{
	for (guint i = 0; opstatus != NULL && i < json_array_get_length(opstatus); i++) {
		JsonNode *result = opresult != NULL && i < json_array_get_length(opresult)
					   ? json_array_get_element(opresult, i)
					   : NULL;

		if (g_strcmp0(json_array_get_string_element(opstatus, i), "error") != 0)
			continue;
		if (result != NULL && JSON_NODE_HOLDS_ARRAY(result)) {
			GError *decoded = gnt_luxi_decode_error(result, NULL);

			g_propagate_prefixed_error(error, decoded, "job %" G_GUINT64_FORMAT ": ",
						   job_id);
			return;
		}
		break;
	}
	g_set_error(error, GNT_ERROR, GNT_ERROR_FAULT, "job %" G_GUINT64_FORMAT " ended '%s'",
		    job_id, status);
}

JsonArray *
gnt_rapi_wait_for_job(GntRapiRequest *request, guint64 job_id, GError **error)
{
	g_autoptr(JsonArray) fields = json_array_new();
	g_autoptr(JsonNode) prev_info = NULL;
	g_autoptr(JsonNode) rows = NULL;
	JsonArray *args;
	JsonArray *table = NULL;
	JsonArray *row;
	gint64 serial = -1;
	const gchar *status = NULL;

	json_array_add_string_element(fields, "status");
	for (;;) {
		g_autoptr(JsonNode) change = gnt_luxi_client_wait_for_job_change(
			request->luxi, job_id, fields, prev_info, serial, WAIT_STEP_S, error);
		JsonArray *pair;
		JsonArray *info;

		if (change == NULL)
			return NULL;
		if (!JSON_NODE_HOLDS_ARRAY(change))
			continue; /* "nochange" */
		pair = json_node_get_array(change);
		info = json_array_get_length(pair) == 2 ? json_array_get_array_element(pair, 0)
							: NULL;
		if (info == NULL || json_array_get_length(info) != 1) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_FAULT,
				    "the master daemon answered WaitForJobChange of job "
				    "%" G_GUINT64_FORMAT " with no status",
				    job_id);
			return NULL;
		}
		serial = last_log_serial(json_array_get_array_element(pair, 1), serial);
		g_clear_pointer(&prev_info, json_node_unref);
		prev_info = json_node_ref(json_array_get_element(pair, 0));
		status = json_array_get_string_element(info, 0);
		if (gnt_rapi_job_status_is_final(status))
			break;
	}

	args = json_array_new();
	json_array_add_array_element(args, json_array_new());
	json_array_add_int_element(json_array_get_array_element(args, 0), (gint64)job_id);
	json_array_add_array_element(args, gnt_rapi_strv_to_array((const gchar *const[]){
						   "status", "opstatus", "opresult", NULL}));
	rows = gnt_rapi_call(request, "QueryJobs", args, error);
	if (rows == NULL || !gnt_rapi_result_get_rows(rows, 3, &table, error))
		return NULL;
	row = json_array_get_length(table) == 1 ? json_array_get_array_element(table, 0) : NULL;
	status = row != NULL && JSON_NODE_HOLDS_VALUE(json_array_get_element(row, 0))
			 ? json_array_get_string_element(row, 0)
			 : NULL;
	if (g_strcmp0(status, "success") != 0) {
		JsonNode *opstatus = row != NULL ? json_array_get_element(row, 1) : NULL;
		JsonNode *opresult = row != NULL ? json_array_get_element(row, 2) : NULL;

		set_job_error(job_id, status != NULL ? status : "lost",
			      opstatus != NULL && JSON_NODE_HOLDS_ARRAY(opstatus)
				      ? json_node_get_array(opstatus)
				      : NULL,
			      opresult != NULL && JSON_NODE_HOLDS_ARRAY(opresult)
				      ? json_node_get_array(opresult)
				      : NULL,
			      error);
		return NULL;
	}
	if (!JSON_NODE_HOLDS_ARRAY(json_array_get_element(row, 2))) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_FAULT,
			    "job %" G_GUINT64_FORMAT " has no opcode results", job_id);
		return NULL;
	}
	return json_array_ref(json_array_get_array_element(row, 2));
}

/* ---- tags ---- */

/* QueryTags(@kind, @name): the list of tags. (transfer full) */
static JsonNode *
tags_get(GntRapiRequest *request, const gchar *kind, const gchar *name, GError **error)
{
	g_autoptr(JsonNode) tags = NULL;
	JsonArray *args = json_array_new();

	json_array_add_string_element(args, kind);
	json_array_add_string_element(args, name != NULL ? name : "");
	tags = gnt_rapi_call(request, "QueryTags", args, error);
	if (tags == NULL)
		return NULL;
	if (!JSON_NODE_HOLDS_ARRAY(tags)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_FAULT,
			    "the master daemon answered QueryTags with %s, not a list",
			    gnt_json_node_type_name(tags));
		return NULL;
	}
	return g_steal_pointer(&tags);
}

/* OP_TAGS_SET or OP_TAGS_DEL (@op_id) of the "tag" query arguments, with
 * dry-run: the job ID. (transfer full) */
static JsonNode *
tags_change(GntRapiRequest *request, const gchar *op_id, const gchar *kind, const gchar *name,
	    GError **error)
{
	g_autoptr(JsonObject) statics = json_object_new();
	g_autofree gchar *resource = NULL;
	GPtrArray *tags = gnt_rapi_request_get_query_all(request, "tag");
	JsonArray *list = json_array_new();
	gboolean dry_run = FALSE;

	if (!gnt_rapi_request_get_flag(request, "dry-run", &dry_run, error)) {
		json_array_unref(list);
		return NULL;
	}
	for (guint i = 0; tags != NULL && i < tags->len; i++)
		json_array_add_string_element(list, g_ptr_array_index(tags, i));
	json_object_set_string_member(statics, "kind", kind);
	if (name != NULL)
		json_object_set_string_member(statics, "name", name);
	else
		json_object_set_null_member(statics, "name");
	json_object_set_array_member(statics, "tags", list);
	json_object_set_boolean_member(statics, "dry_run", dry_run);
	/* rlib2's resource names: R_2_tags, R_2_instances_name_tags, ... */
	resource = g_strcmp0(kind, "cluster") == 0     ? g_strdup("tags")
		   : g_strcmp0(kind, "nodegroup") == 0 ? g_strdup("groups_name_tags")
						       : g_strdup_printf("%ss_name_tags", kind);
	/* Ganeti ignores the body of a tag request */
	return gnt_rapi_submit_opcode(request, op_id, resource, NULL, NULL, statics, error);
}

/* The tagged object's name: the route's {name}, none for the cluster. */
static const gchar *
tags_object_name(GntRapiRequest *request)
{
	return request->args != NULL ? request->args[0] : NULL;
}

JsonNode *
gnt_rapi_get_tags(GntRapiRequest *request, GError **error)
{
	return tags_get(request, request->data, tags_object_name(request), error);
}

JsonNode *
gnt_rapi_put_tags(GntRapiRequest *request, GError **error)
{
	return tags_change(request, "OP_TAGS_SET", request->data, tags_object_name(request), error);
}

JsonNode *
gnt_rapi_delete_tags(GntRapiRequest *request, GError **error)
{
	return tags_change(request, "OP_TAGS_DEL", request->data, tags_object_name(request), error);
}
