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

JsonNode *
gnt_node_call_procedure(GntRpcClient *client, JsonObject *node, const gchar *procedure,
			const GntRpcValue *values, guint n_values, const GntSecretDict *secrets,
			GError **error)
{
	const GntRpcProcedureDef *def = gnt_rpc_procedure_def_lookup(procedure);
	g_autoptr(JsonArray) args = NULL;

	g_return_val_if_fail(def != NULL, NULL);

	args = gnt_rpc_args_encode(def, values, n_values);
	if (secrets == NULL)
		secrets = gnt_rpc_values_get_secrets(def, values, n_values);
	return gnt_node_call_with_secrets(client, node, procedure, args, secrets,
					  gnt_rpc_procedure_def_get_timeout(def, values, n_values),
					  error);
}

/* A call whose answer must hold @type; GNT_ERROR_ENVIRONMENT naming the
 * node otherwise. (transfer full) */
static JsonNode *
call_expecting(GntRpcClient *client, JsonObject *node, const gchar *procedure,
	       const GntRpcValue *values, guint n_values, JsonNodeType type, GError **error)
{
	g_autoptr(JsonNode) result =
		gnt_node_call_procedure(client, node, procedure, values, n_values, NULL, error);
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
call_object(GntRpcClient *client, JsonObject *node, const gchar *procedure,
	    const GntRpcValue *values, guint n_values, GError **error)
{
	g_autoptr(JsonNode) result =
		call_expecting(client, node, procedure, values, n_values, JSON_NODE_OBJECT, error);

	return result != NULL ? json_object_ref(json_node_get_object(result)) : NULL;
}

static JsonArray *
call_array(GntRpcClient *client, JsonObject *node, const gchar *procedure,
	   const GntRpcValue *values, guint n_values, GError **error)
{
	g_autoptr(JsonNode) result =
		call_expecting(client, node, procedure, values, n_values, JSON_NODE_ARRAY, error);

	return result != NULL ? json_array_ref(json_node_get_array(result)) : NULL;
}

static gboolean
call_done(GntRpcClient *client, JsonObject *node, const gchar *procedure, const GntRpcValue *values,
	  guint n_values, GError **error)
{
	g_autoptr(JsonNode) result =
		gnt_node_call_procedure(client, node, procedure, values, n_values, NULL, error);

	return result != NULL;
}

JsonObject *
gnt_node_call_node_info(GntRpcClient *client, JsonObject *node, const gchar *const *hypervisors,
			JsonObject *storage, GError **error)
{
	g_return_val_if_fail(storage != NULL, NULL);

	return call_object(client, node, "node_info",
			   GNT_RPC_VALUES({.strv = hypervisors}, {.obj = storage}), error);
}

JsonObject *
gnt_node_call_instance_list(GntRpcClient *client, JsonObject *node, const gchar *const *hypervisors,
			    GError **error)
{
	return call_object(client, node, "instance_list", GNT_RPC_VALUES({.strv = hypervisors}),
			   error);
}

gboolean
gnt_node_call_instance_start(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			     gboolean paused, GError **error)
{
	return call_done(client, node, "instance_start",
			 GNT_RPC_VALUES({.obj = spec}, {.b = paused}), error);
}

gboolean
gnt_node_call_instance_shutdown(GntRpcClient *client, JsonObject *node, JsonObject *spec,
				guint timeout_s, gboolean *forced, GError **error)
{
	g_autoptr(JsonObject)
		result = call_object(client, node, "instance_shutdown",
				     GNT_RPC_VALUES({.obj = spec}, {.u = timeout_s}), error);

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
	g_return_val_if_fail(reboot_type != NULL, FALSE);

	return call_done(client, node, "instance_reboot",
			 GNT_RPC_VALUES({.obj = spec}, {.s = reboot_type}, {.u = timeout_s}),
			 error);
}

JsonObject *
gnt_node_call_instance_console(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			       guint n_lines, GError **error)
{
	return call_object(client, node, "instance_console",
			   GNT_RPC_VALUES({.obj = spec}, {.u = n_lines}), error);
}

gboolean
gnt_node_call_blockdev_create(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			      GError **error)
{
	return call_done(client, node, "blockdev_create", GNT_RPC_VALUES({.obj = spec}), error);
}

gboolean
gnt_node_call_blockdev_remove(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			      GError **error)
{
	return call_done(client, node, "blockdev_remove", GNT_RPC_VALUES({.obj = spec}), error);
}

gboolean
gnt_node_call_blockdev_add(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			   guint disk_index, GError **error)
{
	return call_done(client, node, "blockdev_add",
			 GNT_RPC_VALUES({.obj = spec}, {.u = disk_index}), error);
}

gboolean
gnt_node_call_blockdev_grow(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			    guint disk_index, guint64 new_size_mib, GError **error)
{
	return call_done(client, node, "blockdev_grow",
			 GNT_RPC_VALUES({.obj = spec}, {.u = disk_index}, {.u = new_size_mib}),
			 error);
}

JsonArray *
gnt_node_call_blockdev_assemble(GntRpcClient *client, JsonObject *node, JsonObject *spec,
				GError **error)
{
	return call_array(client, node, "blockdev_assemble", GNT_RPC_VALUES({.obj = spec}), error);
}

gboolean
gnt_node_call_blockdev_rename(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			      const gchar *old_name, GError **error)
{
	g_return_val_if_fail(old_name != NULL, FALSE);

	return call_done(client, node, "blockdev_rename",
			 GNT_RPC_VALUES({.obj = spec}, {.s = old_name}), error);
}

JsonArray *
gnt_node_call_os_diagnose(GntRpcClient *client, JsonObject *node, const gchar *const *search_path,
			  GError **error)
{
	return call_array(client, node, "os_diagnose", GNT_RPC_VALUES({.strv = search_path}),
			  error);
}

static gboolean
call_os_create(GntRpcClient *client, JsonObject *node, JsonObject *spec,
	       const GntSecretDict *osparams_secret, guint debug_level, gboolean reinstall,
	       GError **error)
{
	return call_done(client, node, "os_create",
			 GNT_RPC_VALUES({.obj = spec}, {.secrets = osparams_secret},
					{.u = debug_level}, {.b = reinstall}),
			 error);
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
	g_return_val_if_fail(old_name != NULL, FALSE);

	return call_done(client, node, "os_rename",
			 GNT_RPC_VALUES({.obj = spec}, {.s = old_name}, {.u = debug_level}), error);
}

gboolean
gnt_node_call_os_validate(GntRpcClient *client, JsonObject *node, const gchar *const *search_path,
			  const gchar *os_name, JsonObject *osparams, const GntSecretDict *secrets,
			  gboolean force_variant, GError **error)
{
	g_autoptr(JsonObject) merged = osparams != NULL ? gnt_json_object_deep_copy(osparams)
							: json_object_new();
	g_autoptr(GPtrArray) names = secrets != NULL ? gnt_secret_dict_dup_names(secrets) : NULL;
	g_autoptr(JsonNode) result = NULL;

	g_return_val_if_fail(os_name != NULL, FALSE);

	for (guint i = 0; names != NULL && i < names->len; i++)
		json_object_set_member(merged, names->pdata[i],
				       gnt_secret_dict_placeholder_value(names->pdata[i]));
	result = gnt_node_call_procedure(
		client, node, "os_validate",
		GNT_RPC_VALUES({.strv = search_path}, {.s = os_name},
			       {.obj = osparams != NULL || names != NULL ? merged : NULL},
			       {.b = force_variant}),
		secrets, error);
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

void
gnt_node_call_hand_on_seq(JsonArray *entries, gint64 *next_seq,
			  void (*func)(JsonObject *entry, gpointer user_data), gpointer user_data)
{
	guint n = entries != NULL ? json_array_get_length(entries) : 0;

	for (guint i = 0; i < n; i++) {
		JsonNode *element = json_array_get_element(entries, i);
		JsonObject *entry = JSON_NODE_HOLDS_OBJECT(element) ? json_node_get_object(element)
								    : NULL;
		gint64 seq = -1;

		if (entry == NULL || !gnt_json_get_int(entry, "seq", &seq, NULL) || seq < *next_seq)
			continue;
		*next_seq = seq + 1;
		if (func != NULL)
			func(entry, user_data);
	}
}
