/*
 * /2/instances and /2/instances/{name}[/...]: rlib2's R_2_instances and
 * R_2_instances_name_* (Ganeti 3.0) but the tags, which are the shared
 * tags handlers' (gnt-rapi-resources.c). GETs are classic queries
 * (QueryInstances); everything else submits one job and answers its ID.
 */
#include "gnt-rapi-resources-private.h"

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-opcode.h"

/* rlib2.I_FIELDS */
static const gchar *const instance_fields[] = {
	"name",
	"admin_state",
	"os",
	"pnode",
	"snodes",
	"disk_template",
	"nic.ips",
	"nic.macs",
	"nic.modes",
	"nic.uuids",
	"nic.names",
	"nic.links",
	"nic.networks",
	"nic.networks.names",
	"nic.bridges",
	"network_port",
	"disk.sizes",
	"disk.spindles",
	"disk_usage",
	"disk.uuids",
	"disk.names",
	"beparams",
	"hvparams",
	"oper_state",
	"oper_ram",
	"oper_vcpus",
	"status",
	"custom_hvparams",
	"custom_beparams",
	"custom_nicparams",
	"custom_osparams",
	"ctime",
	"mtime",
	"uuid",
	"serial_no",
	"tags",
	NULL,
};

/* the request data version of POST /2/instances (rlib2._REQ_DATA_VERSION) */
#define REQ_DATA_VERSION "__version__"

static const GntRapiRename create_renames[] = {
	{"os", "os_type"},
	{"name", "instance_name"},
	{NULL},
};

static const GntRapiRename modify_renames[] = {
	{"custom_beparams", "beparams"},
	{"custom_hvparams", "hvparams"},
	{NULL},
};

/* ---- queries ---- */

/* rlib2's _UpdateBeparams: "memory" is the old name of "maxmem". */
static void
add_memory_alias(JsonObject *instance)
{
	JsonNode *beparams = json_object_get_member(instance, "beparams");
	JsonNode *maxmem;

	if (beparams == NULL || !JSON_NODE_HOLDS_OBJECT(beparams))
		return;
	maxmem = json_object_get_member(json_node_get_object(beparams), "maxmem");
	if (maxmem != NULL)
		json_object_set_member(json_node_get_object(beparams), "memory",
				       json_node_ref(maxmem));
}

JsonNode *
gnt_rapi_get_instances(GntRapiRequest *request, GError **error)
{
	return gnt_rapi_list_objects(request, "QueryInstances", instance_fields, "/2/instances/",
				     "id", add_memory_alias, error);
}

JsonNode *
gnt_rapi_get_instance(GntRapiRequest *request, GError **error)
{
	return gnt_rapi_get_object(request, "QueryInstances", "Instance", instance_fields,
				   add_memory_alias, error);
}

/* ---- jobs of one opcode ---- */

/* hvparams' usb_devices: spaces separate devices since Ganeti 2.8.4,
 * commas before; rlib2 accepts both (_ConvertUsbDevices). The dict is
 * copied: the body stays as the client sent it. */
static void
convert_usb_devices(JsonObject *op)
{
	JsonNode *hvparams = json_object_get_member(op, "hvparams");
	JsonObject *copy;
	const gchar *devices = NULL;
	g_autofree gchar *converted = NULL;

	if (hvparams == NULL || !JSON_NODE_HOLDS_OBJECT(hvparams) ||
	    !gnt_json_get_string(json_node_get_object(hvparams), "usb_devices", &devices, NULL))
		return;
	converted = g_strdelimit(g_strdup(devices), " ", ',');
	copy = gnt_json_object_deep_copy(json_node_get_object(hvparams));
	json_object_set_string_member(copy, "usb_devices", converted);
	json_object_set_object_member(op, "hvparams", copy);
}

/* A query flag that becomes a static parameter: ?dry-run=1 -> dry_run. */
typedef struct {
	const gchar *param;
	const gchar *arg;
} QueryFlag;

/* One of rlib2's OpcodeResource methods: the opcode, whether the body's
 * parameters go into it, and the flags of the query it takes. */
typedef struct {
	const gchar *op_id;
	const gchar *resource; /* rlib2's name (R_2_...), for the reason trail */
	gboolean with_body;    /* else the body is ignored, as in rlib2 */
	const GntRapiRename *renames;
	gboolean usb_devices; /* hvparams' usb_devices may be space-separated */
	QueryFlag flags[4];   /* ended by a NULL param */
} OpcodeResource;

static const OpcodeResource instance_create = {
	"OP_INSTANCE_CREATE", "instances", TRUE, create_renames, TRUE, {{"dry_run", "dry-run"}},
};
static const OpcodeResource instance_remove = {
	"OP_INSTANCE_REMOVE", "instances_name", TRUE, NULL, FALSE, {{"dry_run", "dry-run"}},
};
static const OpcodeResource instance_query_data = {
	"OP_INSTANCE_QUERY_DATA", "instances_name_info", FALSE, NULL, FALSE, {{"static", "static"}},
};
static const OpcodeResource instance_startup = {
	"OP_INSTANCE_STARTUP",
	"instances_name_startup",
	FALSE,
	NULL,
	FALSE,
	{{"force", "force"}, {"dry_run", "dry-run"}, {"no_remember", "no_remember"}},
};
static const OpcodeResource instance_shutdown = {
	"OP_INSTANCE_SHUTDOWN",
	"instances_name_shutdown",
	TRUE,
	NULL,
	FALSE,
	{{"no_remember", "no_remember"}, {"dry_run", "dry-run"}},
};
static const OpcodeResource instance_reboot = {
	"OP_INSTANCE_REBOOT",
	"instances_name_reboot",
	TRUE,
	NULL,
	FALSE,
	{{"ignore_secondaries", "ignore_secondaries"}, {"dry_run", "dry-run"}},
};
static const OpcodeResource instance_modify = {
	"OP_INSTANCE_SET_PARAMS", "instances_name_modify", TRUE, modify_renames, TRUE, {{NULL}},
};
/* new_name, name_check and ip_check come in the body */
static const OpcodeResource instance_rename = {
	"OP_INSTANCE_RENAME", "instances_name_rename", TRUE, NULL, FALSE, {{NULL}},
};

static const OpcodeResource instance_activate_disks = {
	"OP_INSTANCE_ACTIVATE_DISKS",	  "instances_name_activate_disks", FALSE, NULL, FALSE,
	{{"ignore_size", "ignore_size"}},
};
static const OpcodeResource instance_deactivate_disks = {
	"OP_INSTANCE_DEACTIVATE_DISKS", "instances_name_deactivate_disks", FALSE, NULL, FALSE,
	{{"force", "force"}},
};
/* amount, absolute, wait_for_sync and ignore_ipolicy come in the body */
static const OpcodeResource instance_grow_disk = {
	"OP_INSTANCE_GROW_DISK", "instances_name_disk_grow", TRUE, NULL, FALSE, {{NULL}},
};
static const OpcodeResource instance_console = {
	"OP_INSTANCE_CONSOLE", "instances_name_console", FALSE, NULL, FALSE, {{NULL}},
};

static JsonObject *
statics_new(GntRapiRequest *request)
{
	JsonObject *statics = json_object_new();

	json_object_set_string_member(statics, "instance_name", request->args[0]);
	return statics;
}

/* Submits @res's opcode made of @body (when it takes one; NULL: the
 * request's), @statics and the query's flags. */
static JsonNode *
submit_resource(GntRapiRequest *request, const OpcodeResource *res, JsonObject *body,
		JsonObject *statics, GError **error)
{
	g_autoptr(JsonObject) op = NULL;
	JsonArray *ops;

	if (res->with_body && body == NULL &&
	    !gnt_rapi_request_get_body_object(request, FALSE, &body, error))
		return NULL;
	for (guint i = 0; i < G_N_ELEMENTS(res->flags) && res->flags[i].param != NULL; i++) {
		gboolean value = FALSE;

		if (!gnt_rapi_request_get_flag(request, res->flags[i].arg, &value, error))
			return NULL;
		json_object_set_boolean_member(statics, res->flags[i].param, value);
	}
	op = gnt_rapi_opcode_new(request, res->op_id, res->resource, res->with_body ? body : NULL,
				 res->renames, statics, error);
	if (op == NULL)
		return NULL;
	if (res->usb_devices)
		convert_usb_devices(op);
	ops = json_array_new();
	json_array_add_object_element(ops, g_steal_pointer(&op));
	return gnt_rapi_submit_job(request, ops, error);
}

JsonNode *
gnt_rapi_post_instances(GntRapiRequest *request, GError **error)
{
	g_autoptr(JsonObject) statics = json_object_new();
	g_autoptr(JsonObject) data = NULL;
	JsonObject *body = NULL;
	JsonNode *version;
	JsonObjectIter iter;
	const gchar *name;
	JsonNode *value;

	if (!gnt_rapi_request_get_body_object(request, TRUE, &body, error))
		return NULL;
	version = json_object_get_member(body, REQ_DATA_VERSION);
	if (version == NULL || (gnt_json_node_is_int(version) && json_node_get_int(version) == 0)) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "Instance creation request version 0 is no longer supported");
		return NULL;
	}
	if (!gnt_json_node_is_int(version) || json_node_get_int(version) != 1) {
		if (gnt_json_node_is_int(version))
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "Unsupported request data version %" G_GINT64_FORMAT,
				    json_node_get_int(version));
		else
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "Unsupported request data version: '%s' must be 1, not %s",
				    REQ_DATA_VERSION, gnt_json_node_type_name(version));
		return NULL;
	}
	data = json_object_new();
	json_object_iter_init(&iter, body);
	while (json_object_iter_next(&iter, &name, &value)) {
		if (g_strcmp0(name, REQ_DATA_VERSION) != 0)
			json_object_set_member(data, name, json_node_ref(value));
	}
	return submit_resource(request, &instance_create, data, statics, error);
}

JsonNode *
gnt_rapi_delete_instance(GntRapiRequest *request, GError **error)
{
	g_autoptr(JsonObject) statics = statics_new(request);

	json_object_set_boolean_member(statics, "ignore_failures", FALSE);
	return submit_resource(request, &instance_remove, NULL, statics, error);
}

JsonNode *
gnt_rapi_get_instance_info(GntRapiRequest *request, GError **error)
{
	g_autoptr(JsonObject) statics = json_object_new();
	JsonArray *names = json_array_new();

	json_array_add_string_element(names, request->args[0]);
	json_object_set_array_member(statics, "instances", names);
	return submit_resource(request, &instance_query_data, NULL, statics, error);
}

JsonNode *
gnt_rapi_put_instance_startup(GntRapiRequest *request, GError **error)
{
	g_autoptr(JsonObject) statics = statics_new(request);

	return submit_resource(request, &instance_startup, NULL, statics, error);
}

JsonNode *
gnt_rapi_put_instance_shutdown(GntRapiRequest *request, GError **error)
{
	g_autoptr(JsonObject) statics = statics_new(request);

	return submit_resource(request, &instance_shutdown, NULL, statics, error);
}

JsonNode *
gnt_rapi_post_instance_reboot(GntRapiRequest *request, GError **error)
{
	g_autoptr(JsonObject) statics = statics_new(request);
	const gchar *type = gnt_rapi_request_get_query(request, "type");

	/* the opcode table's client default (Ganeti's INSTANCE_REBOOT_HARD);
	 * masterd checks the value */
	json_object_set_string_member(statics, "reboot_type",
				      type != NULL ? type
						   : gnt_op_param_get_client_default(
							     "OP_INSTANCE_REBOOT", "reboot_type"));
	return submit_resource(request, &instance_reboot, NULL, statics, error);
}

JsonNode *
gnt_rapi_put_instance_modify(GntRapiRequest *request, GError **error)
{
	g_autoptr(JsonObject) statics = statics_new(request);

	return submit_resource(request, &instance_modify, NULL, statics, error);
}

JsonNode *
gnt_rapi_put_instance_rename(GntRapiRequest *request, GError **error)
{
	g_autoptr(JsonObject) statics = statics_new(request);

	return submit_resource(request, &instance_rename, NULL, statics, error);
}

/* ---- reinstall: one job of shutdown, reinstall and startup ---- */

/* The keys of a new-style reinstall body: rlib2's
 * _ParseInstanceReinstallRequest reads os, start and osparams; Gantry also
 * takes the private and secret parameters and the disk image, which
 * OP_INSTANCE_REINSTALL has (the secrets must be given at every
 * reinstall). */
static const gchar *const reinstall_keys[] = {
	"os",
	"start",
	"osparams",
	"osparams_private",
	"osparams_secret",
	"os_image",
	"os_image_sha256",
	"enable_safe_install",
	/* kickstart installs (doc/kickstart.md) */
	"ks_template",
	"print_kickstart",
	NULL,
};
/* The body keys that go into OP_INSTANCE_REINSTALL as they are. */
static const gchar *const reinstall_dicts[] = {"osparams", "osparams_private", "osparams_secret",
					       NULL};
/* Query arguments that may come with a body: they are not reinstall's own. */
static const gchar *const reinstall_common_args[] = {"reason", NULL};

/* Whether @body holds reinstall parameters (Python's truth: {} is none). */
static gboolean
body_is_given(JsonNode *body)
{
	if (body == NULL || JSON_NODE_HOLDS_NULL(body))
		return FALSE;
	if (JSON_NODE_HOLDS_OBJECT(body))
		return json_object_get_size(json_node_get_object(body)) > 0;
	if (JSON_NODE_HOLDS_ARRAY(body))
		return json_array_get_length(json_node_get_array(body)) > 0;
	return TRUE;
}

/* A string member of the body (null allowed), or FALSE naming it. */
static gboolean
body_string(JsonObject *body, const gchar *key, JsonNode **out, GError **error)
{
	JsonNode *value = json_object_get_member(body, key);

	if (value != NULL && !JSON_NODE_HOLDS_NULL(value) &&
	    (!JSON_NODE_HOLDS_VALUE(value) || json_node_get_value_type(value) != G_TYPE_STRING)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "'%s' parameter must be a string, not %s", key,
			    gnt_json_node_type_name(value));
		return FALSE;
	}
	*out = value;
	return TRUE;
}

/* A boolean member of the body copied into @op when given (null or
 * missing: left out), or FALSE naming it. */
static gboolean
body_copy_boolean(JsonObject *body, const gchar *key, JsonObject *op, GError **error)
{
	JsonNode *value = json_object_get_member(body, key);

	if (value == NULL || JSON_NODE_HOLDS_NULL(value))
		return TRUE;
	if (!JSON_NODE_HOLDS_VALUE(value) || json_node_get_value_type(value) != G_TYPE_BOOLEAN) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "'%s' parameter must be a boolean, not %s", key,
			    gnt_json_node_type_name(value));
		return FALSE;
	}
	json_object_set_member(op, key, json_node_ref(value));
	return TRUE;
}

/* The body form {os, start, osparams, osparams_private, osparams_secret,
 * os_image, ks_template, ...}, checked; the opcode's members set in @reinstall. Messages name
 * keys, never values. */
static gboolean
reinstall_from_body(JsonNode *node, JsonObject *reinstall, gboolean *start, GError **error)
{
	JsonObject *body;
	JsonObjectIter iter;
	const gchar *name;
	JsonNode *value;
	JsonNode *os = NULL;
	JsonNode *image = NULL;
	JsonNode *image_sha256 = NULL;
	JsonNode *ks_template = NULL;

	if (!JSON_NODE_HOLDS_OBJECT(node)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "Invalid body contents, not a dictionary but %s",
			    gnt_json_node_type_name(node));
		return FALSE;
	}
	body = json_node_get_object(node);
	json_object_iter_init(&iter, body);
	while (json_object_iter_next(&iter, &name, &value)) {
		if (!g_strv_contains(reinstall_keys, name)) {
			g_autofree gchar *known = g_strjoinv("', '", (gchar **)reinstall_keys);

			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "Invalid body parameters: reinstall takes '%s', not '%s'",
				    known, name);
			return FALSE;
		}
	}
	if (!body_string(body, "os", &os, error) || !body_string(body, "os_image", &image, error) ||
	    !body_string(body, "os_image_sha256", &image_sha256, error) ||
	    !body_string(body, "ks_template", &ks_template, error))
		return FALSE;
	value = json_object_get_member(body, "start");
	if (value != NULL &&
	    (!JSON_NODE_HOLDS_VALUE(value) || json_node_get_value_type(value) != G_TYPE_BOOLEAN)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "'start' parameter must be a boolean, not %s",
			    gnt_json_node_type_name(value));
		return FALSE;
	}
	*start = value != NULL ? json_node_get_boolean(value) : TRUE;
	for (guint i = 0; reinstall_dicts[i] != NULL; i++) {
		value = json_object_get_member(body, reinstall_dicts[i]);
		if (value != NULL && !JSON_NODE_HOLDS_NULL(value) &&
		    !JSON_NODE_HOLDS_OBJECT(value)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "'%s' parameter must be an object, not %s", reinstall_dicts[i],
				    gnt_json_node_type_name(value));
			return FALSE;
		}
		/* shared, not copied: a secret exists once in this process */
		json_object_set_member(reinstall, reinstall_dicts[i],
				       value != NULL ? json_node_ref(value)
						     : gnt_json_node_new_null());
	}
	json_object_set_member(reinstall, "os_type",
			       os != NULL ? json_node_ref(os) : gnt_json_node_new_null());
	if (image != NULL && !JSON_NODE_HOLDS_NULL(image))
		json_object_set_member(reinstall, "os_image", json_node_ref(image));
	if (image_sha256 != NULL && !JSON_NODE_HOLDS_NULL(image_sha256))
		json_object_set_member(reinstall, "os_image_sha256", json_node_ref(image_sha256));
	if (ks_template != NULL && !JSON_NODE_HOLDS_NULL(ks_template))
		json_object_set_member(reinstall, "ks_template", json_node_ref(ks_template));
	/* Gantry's: null or missing takes the cluster's, or false */
	return body_copy_boolean(body, "enable_safe_install", reinstall, error) &&
	       body_copy_boolean(body, "print_kickstart", reinstall, error);
}

static gboolean
add_op(GntRapiRequest *request, JsonArray *ops, const gchar *op_id, JsonObject *statics,
       GError **error)
{
	JsonObject *op = gnt_rapi_opcode_new(request, op_id, "instances_name_reinstall", NULL, NULL,
					     statics, error);

	if (op == NULL)
		return FALSE;
	json_array_add_object_element(ops, op);
	return TRUE;
}

JsonNode *
gnt_rapi_post_instance_reinstall(GntRapiRequest *request, GError **error)
{
	g_autoptr(JsonObject) shutdown = statics_new(request);
	g_autoptr(JsonObject) reinstall = statics_new(request);
	g_autoptr(JsonObject) startup = statics_new(request);
	g_autoptr(JsonArray) ops = json_array_new();
	gboolean start = TRUE;

	if (body_is_given(request->body)) {
		if (gnt_rapi_request_has_query(request, reinstall_common_args)) {
			g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "Can't combine query and body parameters");
			return NULL;
		}
		if (!reinstall_from_body(request->body, reinstall, &start, error))
			return NULL;
	} else {
		/* the legacy form: ?os=NAME&nostartup=1 */
		const gchar *name = gnt_rapi_request_get_query(request, "os");
		gboolean nostartup = FALSE;

		if (!gnt_rapi_request_get_flag(request, "nostartup", &nostartup, error))
			return NULL;
		if (name != NULL)
			json_object_set_string_member(reinstall, "os_type", name);
		else
			json_object_set_null_member(reinstall, "os_type");
		json_object_set_null_member(reinstall, "osparams");
		start = !nostartup;
	}
	json_object_set_boolean_member(startup, "force", FALSE);
	if (!add_op(request, ops, "OP_INSTANCE_SHUTDOWN", shutdown, error) ||
	    !add_op(request, ops, "OP_INSTANCE_REINSTALL", reinstall, error) ||
	    (start && !add_op(request, ops, "OP_INSTANCE_STARTUP", startup, error)))
		return NULL;
	return gnt_rapi_submit_job(request, g_steal_pointer(&ops), error);
}

/* ---- disks ---- */

JsonNode *
gnt_rapi_put_instance_activate_disks(GntRapiRequest *request, GError **error)
{
	g_autoptr(JsonObject) statics = statics_new(request);

	return submit_resource(request, &instance_activate_disks, NULL, statics, error);
}

JsonNode *
gnt_rapi_put_instance_deactivate_disks(GntRapiRequest *request, GError **error)
{
	g_autoptr(JsonObject) statics = statics_new(request);

	return submit_resource(request, &instance_deactivate_disks, NULL, statics, error);
}

JsonNode *
gnt_rapi_post_instance_disk_grow(GntRapiRequest *request, GError **error)
{
	g_autoptr(JsonObject) statics = statics_new(request);
	gint64 index = 0;

	/* the route's {index} is digits: only its range can be wrong */
	if (!g_ascii_string_to_signed(request->args[1], 10, 0, G_MAXINT, &index, NULL)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "Invalid disk index '%s'",
			    request->args[1]);
		return NULL;
	}
	json_object_set_int_member(statics, "disk", index);
	return submit_resource(request, &instance_grow_disk, NULL, statics, error);
}

/* ---- console ---- */

/* Ganeti's objects.InstanceConsole from OP_INSTANCE_CONSOLE's answer: an
 * interactive console is "ssh" to the instance's node as root, running
 * the command there (virsh console); without one, a "message". */
static JsonNode *
console_to_ganeti(const gchar *name, JsonObject *console)
{
	JsonObject *answer = json_object_new();
	JsonArray *command = NULL;
	const gchar *node = NULL;
	const gchar *log = NULL;

	gnt_json_get_array(console, "command", &command, NULL);
	gnt_json_get_string(console, "node", &node, NULL);
	gnt_json_get_string(console, "log", &log, NULL);
	json_object_set_string_member(answer, "instance", name);
	if (command != NULL && json_array_get_length(command) > 0 && node != NULL) {
		json_object_set_string_member(answer, "kind", "ssh");
		json_object_set_string_member(answer, "host", node);
		json_object_set_string_member(answer, "user", "root");
		json_object_set_array_member(answer, "command", json_array_ref(command));
	} else {
		g_autofree gchar *message =
			log != NULL
				? g_strdup_printf("Instance %s has no interactive console; its "
						  "console log is %s on node %s",
						  name, log, node != NULL ? node : "?")
				: g_strdup_printf("Instance %s has no interactive console", name);

		json_object_set_string_member(answer, "kind", "message");
		json_object_set_string_member(answer, "message", message);
	}
	return gnt_json_node_new_object(answer);
}

/* rlib2's R_2_instances_name_console: 503 unless the instance runs; else
 * how to reach its console. */
JsonNode *
gnt_rapi_get_instance_console(GntRapiRequest *request, GError **error)
{
	const gchar *const fields[] = {"name", "oper_state", NULL};
	g_autoptr(JsonObject) statics = statics_new(request);
	g_autoptr(JsonNode) instance =
		gnt_rapi_get_object(request, "QueryInstances", "Instance", fields, NULL, error);
	g_autoptr(JsonNode) job = NULL;
	g_autoptr(JsonArray) results = NULL;
	JsonNode *console;
	const gchar *name = NULL;
	gboolean running = FALSE;

	if (instance == NULL)
		return NULL;
	gnt_json_get_string(json_node_get_object(instance), "name", &name, NULL);
	gnt_json_get_bool(json_node_get_object(instance), "oper_state", &running, NULL);
	if (!running) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_TEMP_NO_RESOURCES,
				    "Instance console unavailable");
		return NULL;
	}
	job = submit_resource(request, &instance_console, NULL, statics, error);
	if (job == NULL)
		return NULL;
	results = gnt_rapi_wait_for_job(request, (guint64)json_node_get_int(job), error);
	if (results == NULL)
		return NULL;
	console = json_array_get_length(results) == 1 ? json_array_get_element(results, 0) : NULL;
	if (console == NULL || !JSON_NODE_HOLDS_OBJECT(console)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_FAULT,
			    "the console job %" G_GINT64_FORMAT " answered %s, not an object",
			    json_node_get_int(job), gnt_json_node_type_name(console));
		return NULL;
	}
	return console_to_ganeti(name != NULL ? name : request->args[0],
				 json_node_get_object(console));
}
