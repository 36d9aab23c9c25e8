/*
 * Asking the nodes for the live fields of a query (see gnt-live-probe.h).
 * The query engine (gnt-object-query.c) reads the GntLiveData made here;
 * LUXI only decodes the request and encodes the answer.
 */
#include "gnt-live-probe.h"

#include <string.h>

#include "gnt-device-enums.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-node-calls.h"
#include "gnt-records.h"

/* How many nodes a query asks at once. */
#define LIVE_MAX_PARALLEL 16

typedef struct _LiveRequest LiveRequest;

/* One node asked in a worker thread; the records are the probe's own. */
typedef struct {
	LiveRequest *request;
	JsonObject *node;    /* its config record */
	gchar **hypervisors; /* what to ask about */
	JsonObject *answer;  /* for gnt_live_data_set_node(); NULL: failed */
} NodeProbe;

static void
node_probe_free(gpointer data)
{
	NodeProbe *probe = data;

	json_object_unref(probe->node);
	g_strfreev(probe->hypervisors);
	g_clear_pointer(&probe->answer, json_object_unref);
	g_free(probe);
}

/* What the worker threads need; everything is copied out of the config
 * in the main thread first. */
struct _LiveRequest {
	GntRpcClient *rpc;
	GntObjectKind kind;
	JsonObject *storage; /* node_info's storage argument */
	gchar *storage_type; /* the report behind storage_*: "lvm-vg", "file", NULL */
	GPtrArray *probes;   /* NodeProbe */
	gint pending;	     /* probes not done yet (atomic) */
	GTask *task;	     /* returned by the worker finishing the last probe */
};

static void
live_request_free(gpointer data)
{
	LiveRequest *request = data;

	g_object_unref(request->rpc);
	json_object_unref(request->storage);
	g_free(request->storage_type);
	g_ptr_array_unref(request->probes);
	g_free(request);
}

/* node_info's answer as GntLiveData wants it (doc/query.md). */
static JsonObject *
live_node_info(JsonObject *answer, const gchar *storage_type)
{
	JsonObject *info = json_object_new();
	JsonArray *reports = NULL;
	gint64 total = 0;
	gint64 free_mib = 0;
	gint64 cpus = 0;

	if (gnt_json_get_int(answer, "memory_total", &total, NULL) &&
	    gnt_json_get_int(answer, "memory_free", &free_mib, NULL)) {
		json_object_set_int_member(info, "memory_total", total);
		json_object_set_int_member(info, "memory_free", free_mib);
		/* Ganeti reads /proc/meminfo's Active: the memory in use */
		json_object_set_int_member(info, "memory_dom0", MAX(total - free_mib, 0));
	}
	if (gnt_json_get_int(answer, "cpu_count", &cpus, NULL)) {
		json_object_set_int_member(info, "cpu_total", cpus);
		json_object_set_int_member(info, "cpu_dom0", cpus);
		json_object_set_int_member(info, "cpu_nodes", 1);
	}
	if (json_object_has_member(answer, "bootid"))
		json_object_set_member(info, "bootid",
				       json_node_copy(json_object_get_member(answer, "bootid")));
	if (storage_type == NULL) {
		/* a default template without space reporting: Ganeti shows 0 */
		json_object_set_int_member(info, "storage_size", 0);
		json_object_set_int_member(info, "storage_free", 0);
	} else if (gnt_json_get_array(answer, "storage", &reports, NULL)) {
		for (guint i = 0; i < json_array_get_length(reports); i++) {
			JsonNode *element = json_array_get_element(reports, i);
			JsonObject *report = JSON_NODE_HOLDS_OBJECT(element)
						     ? json_node_get_object(element)
						     : NULL;
			const gchar *type = NULL;
			gint64 size = 0;
			gint64 avail = 0;

			/* one that could not be read stays unavailable */
			if (report == NULL || json_object_has_member(report, "error") ||
			    !gnt_json_get_string(report, "type", &type, NULL) ||
			    g_strcmp0(type, storage_type) != 0 ||
			    !gnt_json_get_int(report, "storage_size", &size, NULL) ||
			    !gnt_json_get_int(report, "storage_free", &avail, NULL))
				continue;
			json_object_set_int_member(info, "storage_size", size);
			json_object_set_int_member(info, "storage_free", avail);
			break;
		}
	}
	return info;
}

/* instance_list's answer as GntLiveData's "instances". */
static JsonObject *
live_instances(JsonObject *answer)
{
	JsonObject *instances = json_object_new();
	JsonObjectIter iter;
	const gchar *name;
	JsonNode *value;

	json_object_iter_init(&iter, answer);
	while (json_object_iter_next(&iter, &name, &value)) {
		JsonObject *live;
		const gchar *state = NULL;

		if (!JSON_NODE_HOLDS_OBJECT(value))
			continue;
		/* the answer is this thread's and dropped next: take its objects */
		live = json_object_ref(json_node_get_object(value));
		if (gnt_json_get_string(live, "state", &state, NULL) &&
		    g_strcmp0(state, gnt_hv_state_to_string(GNT_HV_STATE_SHUTOFF)) == 0)
			json_object_set_string_member(live, "state", "shutdown");
		json_object_set_object_member(instances, name, live);
	}
	return instances;
}

/* @procedure's answer from @node to @values, encoded as the procedure
 * table says, which must be an object; waiting @timeout_s, 0: the table's.
 * (transfer full) */
static JsonObject *
call_node(GntRpcClient *rpc, JsonObject *node, const gchar *procedure, const GntRpcValue *values,
	  guint n_values, guint timeout_s, GError **error)
{
	const GntRpcProcedureDef *def = gnt_rpc_procedure_def_lookup(procedure);
	g_autoptr(JsonArray) args = gnt_rpc_args_encode(def, values, n_values);
	g_autoptr(JsonNode) result = gnt_node_call(
		rpc, node, procedure, args,
		timeout_s != 0 ? timeout_s
			       : gnt_rpc_procedure_def_get_timeout(def, values, n_values),
		error);

	if (result == NULL)
		return NULL;
	if (!JSON_NODE_HOLDS_OBJECT(result)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "node '%s' answered a %s, not an object",
			    json_object_get_string_member(node, "name"),
			    gnt_json_node_type_name(result));
		return NULL;
	}
	return json_object_ref(json_node_get_object(result));
}

JsonObject *
gnt_live_probe_instances(GntRpcClient *rpc, JsonObject *node, const gchar *const *hypervisors,
			 guint timeout_s, GError **error)
{
	g_autoptr(JsonObject) answer = NULL;

	g_return_val_if_fail(GNT_IS_RPC_CLIENT(rpc), NULL);
	g_return_val_if_fail(node != NULL, NULL);

	answer = call_node(rpc, node, "instance_list", GNT_RPC_VALUES({.strv = hypervisors}),
			   timeout_s, error);
	return answer != NULL ? live_instances(answer) : NULL;
}

/* Asks one node, in a worker thread. */
static void
live_probe_node(NodeProbe *probe)
{
	LiveRequest *request = probe->request;
	g_autoptr(GError) error = NULL;
	const gchar *const *hypervisors = (const gchar *const *)probe->hypervisors;

	if (request->kind == GNT_OBJECT_NODE) {
		g_autoptr(JsonObject) answer =
			call_node(request->rpc, probe->node, "node_info",
				  GNT_RPC_VALUES({.strv = hypervisors}, {.obj = request->storage}),
				  GNT_LIVE_PROBE_TIMEOUT_S, &error);

		if (answer != NULL)
			probe->answer = live_node_info(answer, request->storage_type);
	} else {
		JsonObject *instances = gnt_live_probe_instances(
			request->rpc, probe->node, hypervisors, GNT_LIVE_PROBE_TIMEOUT_S, &error);

		if (instances != NULL) {
			probe->answer = json_object_new();
			json_object_set_object_member(probe->answer, "instances", instances);
		}
	}
	/* a node that is down is a query's answer, not the daemon's problem */
	if (error != NULL)
		g_debug("live data: %s", error->message);
}

/* A probe is done: the last one of its request answers the query, in the
 * task's (the main) context. */
static void
live_probe_done(NodeProbe *probe)
{
	LiveRequest *request = probe->request;

	if (g_atomic_int_dec_and_test(&request->pending)) {
		g_autoptr(GTask) task = g_steal_pointer(&request->task);

		g_task_return_boolean(task, TRUE);
	}
}

/*
 * The threads that ask the nodes live as long as the process, and a node is
 * asked by the same one each time (its UUID's hash picks it): the RPC
 * client keeps one session per thread and node, so a query reuses the
 * connection the last one opened instead of loading the CA and making a TLS
 * handshake on a thread of its own (30 ms, more than the rest of a
 * 10,000-instance query). There are at most LIVE_MAX_PARALLEL workers,
 * started when first needed; a worker asks its nodes one after the other.
 * A worker busy with another query's probes (a node that is down holds it
 * for the timeout) is not waited for: the probe goes to a shared pool of
 * threads instead, without the kept session.
 */
typedef struct {
	GAsyncQueue *queue; /* NodeProbe */
	LiveRequest *owner; /* whose probes it has; NULL: none */
	guint pending;	    /* probes queued or being asked */
} LiveWorker;

static LiveWorker live_workers[LIVE_MAX_PARALLEL];
static GThreadPool *live_overflow;
static GMutex live_workers_lock;

static gpointer
live_worker(gpointer data)
{
	LiveWorker *worker = data;

	for (;;) {
		NodeProbe *probe = g_async_queue_pop(worker->queue);

		live_probe_node(probe);
		g_mutex_lock(&live_workers_lock);
		if (--worker->pending == 0)
			worker->owner = NULL;
		g_mutex_unlock(&live_workers_lock);
		live_probe_done(probe);
	}
	return NULL;
}

/* GThreadPool function of the overflow pool. */
static void
live_overflow_probe(gpointer data, gpointer user_data)
{
	live_probe_node(data);
	live_probe_done(data);
}

static void
live_data_free_func(gpointer data, gpointer user_data)
{
	gnt_live_data_free(data);
}

/* What the nodes said about 10,000 running instances takes 20 ms to free:
 * not on the main loop, once answered. Nothing else refers to it. */
void
gnt_live_data_free_later(GntLiveData *live)
{
	static GThreadPool *freer;

	g_mutex_lock(&live_workers_lock);
	if (freer == NULL)
		freer = g_thread_pool_new(live_data_free_func, NULL, 1, FALSE, NULL);
	g_mutex_unlock(&live_workers_lock);
	g_thread_pool_push(freer, live, NULL);
}

/* Hands @probe to the worker of its node, or to the overflow pool. */
static void
live_dispatch(NodeProbe *probe)
{
	guint index =
		g_str_hash(json_object_get_string_member(probe->node, "uuid")) % LIVE_MAX_PARALLEL;
	LiveWorker *worker = &live_workers[index];
	gboolean own = FALSE;

	g_mutex_lock(&live_workers_lock);
	if (worker->queue == NULL) {
		g_autofree gchar *name = g_strdup_printf("gnt-live-%u", index);

		worker->queue = g_async_queue_new();
		g_thread_unref(g_thread_new(name, live_worker, worker));
	}
	if (worker->pending == 0 || worker->owner == probe->request) {
		worker->owner = probe->request;
		worker->pending++;
		own = TRUE;
	} else if (live_overflow == NULL) {
		live_overflow = g_thread_pool_new(live_overflow_probe, NULL, LIVE_MAX_PARALLEL,
						  FALSE, NULL);
	}
	g_mutex_unlock(&live_workers_lock);
	if (own)
		g_async_queue_push(worker->queue, probe);
	else
		g_thread_pool_push(live_overflow, probe, NULL);
}

static gboolean
node_is_askable(JsonObject *node)
{
	gboolean offline = FALSE;
	gboolean vm_capable = TRUE;

	/* the query engine knows offline nodes from the config */
	gnt_json_get_bool(node, "offline", &offline, NULL);
	gnt_json_get_bool(node, "vm_capable", &vm_capable, NULL);
	return !offline && vm_capable;
}

/* The hypervisors of each node's primary instances. */
typedef struct {
	GHashTable *by_node;	/* node UUID -> GHashTable set of names */
	const gchar *last_node; /* borrowed from the last record seen */
	GHashTable *last_set;	/* its set: the next record is most often on it too */
} HypervisorsByNode;

static gboolean
collect_hypervisors_cb(GntConfigRecord *record, gpointer user_data)
{
	HypervisorsByNode *collected = user_data;
	const GntInstance *instance = gnt_config_record_peek_instance(record);
	const gchar *node = NULL;
	const gchar *hv = NULL;
	GHashTable *set;

	if (instance != NULL) {
		node = instance->primary_node;
		hv = instance->hypervisor;
	} else if (!gnt_json_get_string(gnt_config_record_peek_json(record), "primary_node", &node,
					NULL) ||
		   !gnt_json_get_string(gnt_config_record_peek_json(record), "hypervisor", &hv,
					NULL)) {
		return TRUE;
	}
	if (node == NULL || hv == NULL)
		return TRUE;
	if (collected->last_node != NULL && strcmp(collected->last_node, node) == 0) {
		set = collected->last_set;
	} else {
		set = g_hash_table_lookup(collected->by_node, node);
		if (set == NULL) {
			set = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
			g_hash_table_insert(collected->by_node, g_strdup(node), set);
		}
		collected->last_node = node;
		collected->last_set = set;
	}
	if (!g_hash_table_contains(set, hv))
		g_hash_table_add(set, g_strdup(hv));
	return TRUE;
}

static gchar **
strv_from_set(GHashTable *set)
{
	g_autoptr(GPtrArray) names = g_ptr_array_new();
	GHashTableIter iter;
	gpointer key;

	g_hash_table_iter_init(&iter, set);
	while (g_hash_table_iter_next(&iter, &key, NULL))
		g_ptr_array_add(names, g_strdup(key));
	g_ptr_array_sort(names, (GCompareFunc)g_strcmp0);
	g_ptr_array_add(names, NULL);
	return (gchar **)g_ptr_array_free(g_steal_pointer(&names), FALSE);
}

static gchar **
strv_from_json(JsonArray *array)
{
	g_autoptr(GPtrArray) names = g_ptr_array_new();

	for (guint i = 0; array != NULL && i < json_array_get_length(array); i++) {
		JsonNode *element = json_array_get_element(array, i);

		if (json_node_get_value_type(element) == G_TYPE_STRING)
			g_ptr_array_add(names, g_strdup(json_node_get_string(element)));
	}
	g_ptr_array_add(names, NULL);
	return (gchar **)g_ptr_array_free(g_steal_pointer(&names), FALSE);
}

/* The nodes to ask and what to ask them: for instances, the nodes that are
 * primary of one, about their instances' hypervisors; for nodes, every
 * node, about the enabled hypervisors and the default template's storage.
 * Offline nodes and nodes that run no instances are left out. */
static LiveRequest *
live_request_new(GntConfig *config, GntRpcClient *rpc, GntObjectKind kind)
{
	LiveRequest *request = g_new0(LiveRequest, 1);
	g_autoptr(JsonObject) info = gnt_config_dup_cluster_info(config);
	g_autoptr(GPtrArray) nodes = gnt_config_dup_objects(config, GNT_OBJECT_NODE);
	g_autoptr(GHashTable) by_node = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
							      (GDestroyNotify)g_hash_table_unref);
	g_auto(GStrv) enabled = NULL;
	JsonArray *list = NULL;
	const gchar *template = NULL;
	GntDiskTemplate template_value = GNT_DISK_TEMPLATE_DISKLESS;
	JsonNode *vg = json_object_get_member(info, "volume_group_name");
	JsonNode *dir = json_object_get_member(info, "file_storage_dir");

	request->rpc = g_object_ref(rpc);
	request->kind = kind;
	request->probes = g_ptr_array_new_with_free_func(node_probe_free);
	request->storage = json_object_new();
	json_object_set_member(request->storage, "volume_group_name",
			       vg != NULL ? json_node_copy(vg) : json_node_new(JSON_NODE_NULL));
	json_object_set_member(request->storage, "file_storage_dir",
			       dir != NULL ? json_node_copy(dir) : json_node_new(JSON_NODE_NULL));
	if (gnt_json_get_array(info, "enabled_disk_templates", &list, NULL) &&
	    json_array_get_length(list) > 0)
		template = json_array_get_string_element(list, 0);
	if (template != NULL && gnt_disk_template_from_string(template, &template_value, NULL)) {
		if (template_value == GNT_DISK_TEMPLATE_PLAIN)
			request->storage_type = g_strdup("lvm-vg");
		else if (template_value == GNT_DISK_TEMPLATE_FILE)
			request->storage_type = g_strdup("file");
	}
	list = NULL;
	gnt_json_get_array(info, "enabled_hypervisors", &list, NULL);
	enabled = strv_from_json(list);
	if (kind == GNT_OBJECT_INSTANCE) {
		HypervisorsByNode collected = {by_node, NULL, NULL};

		gnt_config_foreach_record(config, GNT_OBJECT_INSTANCE, collect_hypervisors_cb,
					  &collected);
	}
	for (guint i = 0; i < nodes->len; i++) {
		JsonObject *node = g_ptr_array_index(nodes, i);
		GHashTable *hypervisors =
			g_hash_table_lookup(by_node, json_object_get_string_member(node, "uuid"));
		NodeProbe *probe;

		if (!node_is_askable(node) || (kind == GNT_OBJECT_INSTANCE && hypervisors == NULL))
			continue;
		probe = g_new0(NodeProbe, 1);
		probe->request = request;
		probe->node = json_object_ref(node);
		probe->hypervisors = hypervisors != NULL ? strv_from_set(hypervisors)
							 : g_strdupv(enabled);
		g_ptr_array_add(request->probes, probe);
	}
	return request;
}

static GntLiveData *
live_request_to_data(LiveRequest *request)
{
	GntLiveData *live = gnt_live_data_new();

	for (guint i = 0; i < request->probes->len; i++) {
		NodeProbe *probe = g_ptr_array_index(request->probes, i);
		const gchar *uuid = json_object_get_string_member(probe->node, "uuid");

		if (probe->answer != NULL)
			gnt_live_data_take_node(live, uuid, g_steal_pointer(&probe->answer));
		else
			gnt_live_data_set_node_failed(live, uuid);
	}
	return live;
}

void
gnt_live_probe_collect_async(GntConfig *config, GntRpcClient *rpc, GntObjectKind kind,
			     GAsyncReadyCallback callback, gpointer user_data)
{
	g_autoptr(GTask) task = NULL;
	LiveRequest *request;

	g_return_if_fail(config != NULL);
	g_return_if_fail(GNT_IS_RPC_CLIENT(rpc));

	task = g_task_new(NULL, NULL, callback, user_data);
	g_task_set_source_tag(task, gnt_live_probe_collect_async);
	request = live_request_new(config, rpc, kind);
	g_task_set_task_data(task, request, live_request_free);
	if (request->probes->len == 0) {
		/* nobody to ask (no instances, or every node offline) */
		g_task_return_boolean(task, TRUE);
		return;
	}
	/* the workers hold a reference until the last probe returns it */
	request->task = g_object_ref(task);
	request->pending = (gint)request->probes->len;
	for (guint i = 0; i < request->probes->len; i++)
		live_dispatch(g_ptr_array_index(request->probes, i));
}

GntLiveData *
gnt_live_probe_collect_finish(GAsyncResult *result, GError **error)
{
	g_return_val_if_fail(g_task_is_valid(result, NULL), NULL);
	g_return_val_if_fail(g_async_result_is_tagged(result, gnt_live_probe_collect_async), NULL);

	if (!g_task_propagate_boolean(G_TASK(result), error))
		return NULL;
	return live_request_to_data(g_task_get_task_data(G_TASK(result)));
}
