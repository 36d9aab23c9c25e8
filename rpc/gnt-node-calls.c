#include "gnt-node-calls.h"

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-rpc-protocol.h"

JsonNode *
gnt_node_call(GntRpcClient *client, JsonObject *node, const gchar *procedure, JsonArray *args,
	      guint timeout_s, GError **error)
{
	return gnt_node_call_with_secrets(client, node, procedure, args, NULL, timeout_s, error);
}

JsonNode *
gnt_node_call_with_secrets(GntRpcClient *client, JsonObject *node, const gchar *procedure,
			   JsonArray *args, const GntSecretDict *secrets, guint timeout_s,
			   GError **error)
{
	JsonNode *port_node;
	const gchar *name = NULL;
	const gchar *address = NULL;
	gint64 port = GNT_RPC_DEFAULT_PORT;

	g_return_val_if_fail(GNT_IS_RPC_CLIENT(client), NULL);
	g_return_val_if_fail(node != NULL, NULL);
	g_return_val_if_fail(procedure != NULL, NULL);

	if (!gnt_json_get_string(node, "name", &name, error)) {
		g_prefix_error(error, "node record: ");
		return NULL;
	}
	port_node = json_object_get_member(node, "rpc_port");
	if (!gnt_json_get_string(node, "primary_ip", &address, error) ||
	    (port_node != NULL && !JSON_NODE_HOLDS_NULL(port_node) &&
	     !gnt_json_get_int(node, "rpc_port", &port, error))) {
		g_prefix_error(error, "node '%s': ", name);
		return NULL;
	}
	if (port <= 0 || port > G_MAXUINT16) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "node '%s': 'rpc_port' must be 1 to 65535, not %" G_GINT64_FORMAT, name,
			    port);
		return NULL;
	}
	return gnt_rpc_client_call_with_secrets(client, name, address, (guint)port, procedure, args,
						secrets, timeout_s, error);
}

/* A call whose answer must hold @type; GNT_ERROR_ENVIRONMENT naming the
 * node otherwise. (transfer full) */
static JsonNode *
call_expecting(GntRpcClient *client, JsonObject *node, const gchar *procedure, JsonArray *args,
	       guint timeout_s, JsonNodeType type, GError **error)
{
	g_autoptr(JsonNode) result = gnt_node_call(client, node, procedure, args, timeout_s, error);
	const gchar *name = NULL;

	if (result == NULL || JSON_NODE_TYPE(result) == type)
		return g_steal_pointer(&result);
	gnt_json_get_string(node, "name", &name, NULL);
	g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
		    "node '%s': %s: malformed answer: %s instead of %s", name, procedure,
		    gnt_json_node_type_name(result),
		    type == JSON_NODE_ARRAY ? "a list" : "an object");
	return NULL;
}

static JsonObject *
call_object(GntRpcClient *client, JsonObject *node, const gchar *procedure, JsonArray *args,
	    guint timeout_s, GError **error)
{
	g_autoptr(JsonNode) result =
		call_expecting(client, node, procedure, args, timeout_s, JSON_NODE_OBJECT, error);

	return result != NULL ? json_object_ref(json_node_get_object(result)) : NULL;
}

static gboolean
call_done(GntRpcClient *client, JsonObject *node, const gchar *procedure, JsonArray *args,
	  guint timeout_s, GError **error)
{
	g_autoptr(JsonNode) result = gnt_node_call(client, node, procedure, args, timeout_s, error);

	return result != NULL;
}

static void
add_strv(JsonArray *args, const gchar *const *strv)
{
	JsonArray *array = json_array_new();

	for (guint i = 0; strv != NULL && strv[i] != NULL; i++)
		json_array_add_string_element(array, strv[i]);
	json_array_add_array_element(args, array);
}

static void
add_object_or_null(JsonArray *args, JsonObject *obj)
{
	if (obj != NULL)
		json_array_add_object_element(args, json_object_ref(obj));
	else
		json_array_add_null_element(args);
}

/* A new list of arguments starting with the spec. (transfer full) */
static JsonArray *
spec_args(JsonObject *spec)
{
	JsonArray *args = json_array_new();

	json_array_add_object_element(args, json_object_ref(spec));
	return args;
}

JsonObject *
gnt_node_call_node_info(GntRpcClient *client, JsonObject *node, const gchar *const *hypervisors,
			JsonObject *storage, GError **error)
{
	g_autoptr(JsonArray) args = json_array_new();

	g_return_val_if_fail(storage != NULL, NULL);

	add_strv(args, hypervisors);
	json_array_add_object_element(args, json_object_ref(storage));
	return call_object(client, node, "node_info", args, GNT_NODE_CALL_TIMEOUT_S, error);
}

JsonObject *
gnt_node_call_instance_list(GntRpcClient *client, JsonObject *node, const gchar *const *hypervisors,
			    GError **error)
{
	g_autoptr(JsonArray) args = json_array_new();

	add_strv(args, hypervisors);
	return call_object(client, node, "instance_list", args, GNT_NODE_CALL_TIMEOUT_S, error);
}

gboolean
gnt_node_call_instance_start(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			     gboolean paused, GError **error)
{
	g_autoptr(JsonArray) args = spec_args(spec);

	json_array_add_boolean_element(args, paused);
	return call_done(client, node, "instance_start", args, GNT_NODE_CALL_START_TIMEOUT_S,
			 error);
}

gboolean
gnt_node_call_instance_shutdown(GntRpcClient *client, JsonObject *node, JsonObject *spec,
				guint timeout_s, gboolean *forced, GError **error)
{
	g_autoptr(JsonArray) args = spec_args(spec);
	g_autoptr(JsonObject) result = NULL;

	json_array_add_int_element(args, timeout_s);
	result = call_object(client, node, "instance_shutdown", args,
			     timeout_s + GNT_NODE_CALL_SHUTDOWN_EXTRA_S, error);
	if (result == NULL)
		return FALSE;
	if (forced != NULL && !gnt_json_get_bool(result, "forced", forced, error)) {
		g_prefix_error(error, "instance_shutdown: malformed answer: ");
		return FALSE;
	}
	return TRUE;
}

gboolean
gnt_node_call_instance_reboot(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			      const gchar *reboot_type, guint timeout_s, GError **error)
{
	g_autoptr(JsonArray) args = spec_args(spec);

	g_return_val_if_fail(reboot_type != NULL, FALSE);

	json_array_add_string_element(args, reboot_type);
	json_array_add_int_element(args, timeout_s);
	/* a full reboot is a shutdown, then a start */
	return call_done(client, node, "instance_reboot", args,
			 timeout_s + GNT_NODE_CALL_SHUTDOWN_EXTRA_S + GNT_NODE_CALL_START_TIMEOUT_S,
			 error);
}

JsonObject *
gnt_node_call_instance_console(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			       guint n_lines, GError **error)
{
	g_autoptr(JsonArray) args = spec_args(spec);

	json_array_add_int_element(args, n_lines);
	return call_object(client, node, "instance_console", args, GNT_NODE_CALL_TIMEOUT_S, error);
}

gboolean
gnt_node_call_blockdev_create(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			      GError **error)
{
	g_autoptr(JsonArray) args = spec_args(spec);

	return call_done(client, node, "blockdev_create", args, GNT_NODE_CALL_BLOCKDEV_TIMEOUT_S,
			 error);
}

gboolean
gnt_node_call_blockdev_remove(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			      GError **error)
{
	g_autoptr(JsonArray) args = spec_args(spec);

	return call_done(client, node, "blockdev_remove", args, GNT_NODE_CALL_TIMEOUT_S, error);
}

gboolean
gnt_node_call_blockdev_add(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			   guint disk_index, GError **error)
{
	g_autoptr(JsonArray) args = spec_args(spec);

	json_array_add_int_element(args, disk_index);
	return call_done(client, node, "blockdev_add", args, GNT_NODE_CALL_BLOCKDEV_TIMEOUT_S,
			 error);
}

gboolean
gnt_node_call_blockdev_grow(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			    guint disk_index, guint64 new_size_mib, GError **error)
{
	g_autoptr(JsonArray) args = spec_args(spec);

	json_array_add_int_element(args, disk_index);
	json_array_add_int_element(args, (gint64)new_size_mib);
	return call_done(client, node, "blockdev_grow", args, GNT_NODE_CALL_BLOCKDEV_TIMEOUT_S,
			 error);
}

JsonArray *
gnt_node_call_blockdev_assemble(GntRpcClient *client, JsonObject *node, JsonObject *spec,
				GError **error)
{
	g_autoptr(JsonArray) args = spec_args(spec);
	g_autoptr(JsonNode)
		result = call_expecting(client, node, "blockdev_assemble", args,
					GNT_NODE_CALL_TIMEOUT_S, JSON_NODE_ARRAY, error);

	return result != NULL ? json_array_ref(json_node_get_array(result)) : NULL;
}

gboolean
gnt_node_call_blockdev_rename(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			      const gchar *old_name, GError **error)
{
	g_autoptr(JsonArray) args = spec_args(spec);

	g_return_val_if_fail(old_name != NULL, FALSE);

	json_array_add_string_element(args, old_name);
	return call_done(client, node, "blockdev_rename", args, GNT_NODE_CALL_TIMEOUT_S, error);
}

JsonArray *
gnt_node_call_os_diagnose(GntRpcClient *client, JsonObject *node, const gchar *const *search_path,
			  GError **error)
{
	g_autoptr(JsonArray) args = json_array_new();
	g_autoptr(JsonNode) result = NULL;

	add_strv(args, search_path);
	result = call_expecting(client, node, "os_diagnose", args, GNT_NODE_CALL_TIMEOUT_S,
				JSON_NODE_ARRAY, error);
	return result != NULL ? json_array_ref(json_node_get_array(result)) : NULL;
}

static gboolean
call_os_create(GntRpcClient *client, JsonObject *node, JsonObject *spec,
	       const GntSecretDict *osparams_secret, guint debug_level, gboolean reinstall,
	       GError **error)
{
	g_autoptr(JsonArray) args = spec_args(spec);
	g_autoptr(JsonNode) result = NULL;

	json_array_add_element(args, osparams_secret != NULL ? gnt_secret_dict_placeholder_all()
							     : json_node_new(JSON_NODE_NULL));
	json_array_add_int_element(args, debug_level);
	json_array_add_boolean_element(args, reinstall);
	result = gnt_node_call_with_secrets(client, node, "os_create", args, osparams_secret,
					    GNT_NODE_CALL_OS_CREATE_TIMEOUT_S, error);
	return result != NULL;
}

gboolean
gnt_node_call_os_create(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			const GntSecretDict *osparams_secret, guint debug_level, GError **error)
{
	return call_os_create(client, node, spec, osparams_secret, debug_level, FALSE, error);
}

gboolean
gnt_node_call_os_reinstall(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			   const GntSecretDict *osparams_secret, guint debug_level, GError **error)
{
	return call_os_create(client, node, spec, osparams_secret, debug_level, TRUE, error);
}

gboolean
gnt_node_call_os_rename(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			const gchar *old_name, guint debug_level, GError **error)
{
	g_autoptr(JsonArray) args = spec_args(spec);

	g_return_val_if_fail(old_name != NULL, FALSE);

	json_array_add_string_element(args, old_name);
	json_array_add_int_element(args, debug_level);
	return call_done(client, node, "os_rename", args, GNT_NODE_CALL_OS_RENAME_TIMEOUT_S, error);
}

gboolean
gnt_node_call_os_validate(GntRpcClient *client, JsonObject *node, const gchar *const *search_path,
			  const gchar *os_name, JsonObject *osparams, const GntSecretDict *secrets,
			  gboolean force_variant, GError **error)
{
	g_autoptr(JsonArray) args = json_array_new();
	g_autoptr(JsonObject) merged = osparams != NULL ? gnt_json_object_deep_copy(osparams)
							: json_object_new();
	g_autoptr(GPtrArray) names = secrets != NULL ? gnt_secret_dict_dup_names(secrets) : NULL;
	g_autoptr(JsonNode) result = NULL;

	g_return_val_if_fail(os_name != NULL, FALSE);

	for (guint i = 0; names != NULL && i < names->len; i++)
		json_object_set_member(merged, names->pdata[i],
				       gnt_secret_dict_placeholder_value(names->pdata[i]));
	add_strv(args, search_path);
	json_array_add_string_element(args, os_name);
	if (osparams != NULL || names != NULL)
		add_object_or_null(args, merged);
	else
		json_array_add_null_element(args);
	json_array_add_boolean_element(args, force_variant);
	result = gnt_node_call_with_secrets(client, node, "os_validate", args, secrets,
					    GNT_NODE_CALL_TIMEOUT_S, error);
	return result != NULL;
}

/* One call, made in a thread of its own so that the calling thread can ask
 * for the progress meanwhile. */
typedef struct {
	GntRpcClient *client;
	JsonObject *node;
	const gchar *procedure;
	JsonArray *args;
	guint timeout_s;
	GMutex lock;
	GCond cond;
	gboolean done;
	JsonNode *result;
	GError *error;
} PollingCall;

static gpointer
polling_call_thread(gpointer data)
{
	PollingCall *call = data;
	GError *local_error = NULL;
	JsonNode *result = gnt_node_call(call->client, call->node, call->procedure, call->args,
					 call->timeout_s, &local_error);

	g_mutex_lock(&call->lock);
	call->result = result;
	call->error = local_error;
	call->done = TRUE;
	g_cond_signal(&call->cond);
	g_mutex_unlock(&call->lock);
	return NULL;
}

/* Waits up to @poll_ms for the call; whether it is done. */
static gboolean
polling_call_wait(PollingCall *call, guint poll_ms)
{
	gint64 deadline = g_get_monotonic_time() + (gint64)poll_ms * 1000;
	gboolean done;

	g_mutex_lock(&call->lock);
	while (!call->done && g_cond_wait_until(&call->cond, &call->lock, deadline))
		;
	done = call->done;
	g_mutex_unlock(&call->lock);
	return done;
}

JsonObject *
gnt_node_call_polling(GntRpcClient *client, JsonObject *node, const gchar *procedure,
		      JsonArray *args, guint timeout_s, guint poll_ms, GntNodeCallPollFunc poll,
		      gpointer user_data, GError **error)
{
	g_autoptr(JsonNode) result = NULL;
	PollingCall call = {.client = client,
			    .node = node,
			    .procedure = procedure,
			    .args = args,
			    .timeout_s = timeout_s};
	GThread *thread;
	const gchar *name = NULL;

	g_return_val_if_fail(GNT_IS_RPC_CLIENT(client), NULL);
	g_return_val_if_fail(node != NULL && procedure != NULL && args != NULL, NULL);

	g_mutex_init(&call.lock);
	g_cond_init(&call.cond);
	/* the node record and the arguments are only read, by both threads */
	thread = g_thread_new("gnt-polling-call", polling_call_thread, &call);
	while (!polling_call_wait(&call, poll_ms)) {
		if (poll != NULL)
			poll(user_data);
	}
	g_thread_join(thread);
	g_mutex_clear(&call.lock);
	g_cond_clear(&call.cond);
	result = call.result;
	if (result == NULL) {
		g_propagate_error(error, call.error);
		return NULL;
	}
	if (!JSON_NODE_HOLDS_OBJECT(result)) {
		(void)gnt_json_get_string(node, "name", &name, NULL);
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "node '%s': %s: malformed answer: %s", name, procedure,
			    gnt_json_node_type_name(result));
		return NULL;
	}
	return json_object_ref(json_node_get_object(result));
}
