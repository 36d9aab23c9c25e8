/*
 * Cluster verify, as Ganeti's lib/cmdlib/cluster/verify.py: OP_CLUSTER_VERIFY
 * submits one OP_CLUSTER_VERIFY_CONFIG job and one OP_CLUSTER_VERIFY_GROUP
 * job per node group (each depending on the first) and returns their IDs;
 * each of those logs its findings, Ganeti's way, and returns whether it
 * found no error. What a node knows comes from one node_verify call per
 * node (rpc/gnt-node-calls-verify.h). doc/verify.md lists the checks.
 */
#include <string.h>

#include "gnt-records.h"
#include "gnt-config-groups.h"
#include "gnt-device-enums.h"
#include "gnt-config.h"
#include "gnt-disk.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-lu-instance-spec.h"
#include "gnt-lu-verify.h"
#include "gnt-lu.h"
#include "gnt-node-calls-verify.h"
#include "gnt-rpc-protocol.h"
#include "gnt-build-config.h"
#include "gnt-size.h"
#include "gnt-verify-codes.h"

/* ---- groups -------------------------------------------------------------- */

GStrv
gnt_lu_verify_dup_group_names(GntConfig *config)
{
	g_autoptr(GPtrArray) groups = gnt_config_dup_objects(config, GNT_OBJECT_GROUP);
	g_autoptr(GPtrArray) names = g_ptr_array_new();

	for (guint i = 0; i < groups->len; i++)
		g_ptr_array_add(names, g_strdup(json_object_get_string_member(
					       g_ptr_array_index(groups, i), "name")));
	g_ptr_array_add(names, NULL);
	return (GStrv)g_ptr_array_free(g_steal_pointer(&names), FALSE);
}

GPtrArray *
gnt_lu_verify_dup_group_nodes(GntConfig *config, const gchar *group_name, GError **error)
{
	g_autofree gchar *uuid = gnt_config_lookup_group(config, group_name, error);

	if (uuid == NULL)
		return NULL;
	return gnt_config_dup_objects_where(config, GNT_OBJECT_NODE, "group", uuid);
}

GPtrArray *
gnt_lu_verify_dup_instances_of(GntConfig *config, GPtrArray *nodes)
{
	g_autoptr(GPtrArray) all = gnt_config_dup_objects(config, GNT_OBJECT_INSTANCE);
	g_autoptr(GHashTable) uuids = g_hash_table_new(g_str_hash, g_str_equal);
	GPtrArray *mine = g_ptr_array_new_with_free_func((GDestroyNotify)json_object_unref);

	for (guint n = 0; n < nodes->len; n++)
		g_hash_table_add(uuids, (gpointer)json_object_get_string_member(
						g_ptr_array_index(nodes, n), "uuid"));
	for (guint i = 0; i < all->len; i++) {
		JsonObject *instance = g_ptr_array_index(all, i);

		if (g_hash_table_contains(uuids, json_object_get_string_member_with_default(
							 instance, "primary_node", "")))
			g_ptr_array_add(mine, json_object_ref(instance));
	}
	return mine;
}

void
gnt_lu_verify_lock_group(GntLu *lu, GntLockSet *locks)
{
	GntConfig *config = gnt_lu_get_env(lu)->config;
	g_autoptr(GPtrArray) nodes = gnt_lu_verify_dup_group_nodes(
		config, gnt_opcode_get_string(gnt_lu_get_opcode(lu), "group_name"), NULL);
	g_autoptr(GPtrArray) instances = NULL;

	if (nodes == NULL)
		return;
	instances = gnt_lu_verify_dup_instances_of(config, nodes);
	for (guint i = 0; i < nodes->len; i++)
		gnt_lock_set_add(locks, GNT_LOCK_LEVEL_NODE,
				 json_object_get_string_member(g_ptr_array_index(nodes, i), "name"),
				 GNT_LOCK_SHARED);
	for (guint i = 0; i < instances->len; i++)
		gnt_lock_set_add(locks, GNT_LOCK_LEVEL_INSTANCE,
				 json_object_get_string_member(g_ptr_array_index(instances, i),
							       "name"),
				 GNT_LOCK_SHARED);
}

gchar *
gnt_lu_verify_dup_volume_name(JsonObject *instance, guint index, JsonObject *storage)
{
	JsonArray *disks = gnt_json_peek_array(instance, "disks");
	GntDiskStoreParams params = {
		.vg_name = json_object_get_string_member_with_default(storage, "volume_group_name",
								      NULL),
		.file_storage_dir = json_object_get_string_member_with_default(
			storage, "file_storage_dir", NULL),
	};
	g_autoptr(GntDiskStore) store = NULL;
	g_autoptr(GntDiskSpec) spec = NULL;
	GntDiskTemplate template = gnt_record_get_disk_template(instance);
	JsonObject *disk;
	g_autofree gchar *name = NULL;

	if (template == GNT_DISK_TEMPLATE_DISKLESS || disks == NULL ||
	    index >= json_array_get_length(disks) ||
	    (disk = json_array_get_object_element(disks, index)) == NULL ||
	    (store = gnt_disk_store_new(template, &params, NULL)) == NULL)
		return NULL;
	spec = gnt_disk_spec_new(json_object_get_string_member_with_default(disk, "uuid", ""),
				 index, 0, GNT_DISK_FORMAT_RAW);
	name = gnt_disk_store_dup_volume_name(store, spec);
	if (template == GNT_DISK_TEMPLATE_FILE)
		return g_build_filename(json_object_get_string_member(instance, "name"), name,
					NULL);
	return g_steal_pointer(&name);
}

/* ---- reporting (Ganeti's _VerifyErrors) ------------------------------------ */

typedef struct {
	GntLu *lu;
	gboolean bad;
	gboolean error_codes;
	gboolean simulate;
	gboolean verbose;
	JsonArray *ignore; /* borrowed from the opcode */
} Verifier;

static void
verifier_init(Verifier *v, GntLu *lu)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);

	v->lu = lu;
	v->bad = FALSE;
	v->error_codes = gnt_opcode_get_bool(op, "error_codes");
	v->simulate = gnt_opcode_get_bool(op, "debug_simulate_errors");
	v->verbose = gnt_opcode_get_bool(op, "verbose");
	v->ignore = json_node_get_array(gnt_opcode_get_param(op, "ignore_errors"));
}

static void
verifier_vreport(Verifier *v, GntCvCode code, const gchar *item, gboolean warning,
		 const gchar *format, va_list args) G_GNUC_PRINTF(5, 0);

static void
verifier_vreport(Verifier *v, GntCvCode code, const gchar *item, gboolean warning,
		 const gchar *format, va_list args)
{
	const GntCvCodeDef *def = gnt_cv_code_get(code);
	g_autofree gchar *message = g_strdup_vprintf(format, args);

	/* an ignored code is demoted to a warning */
	for (guint i = 0; i < json_array_get_length(v->ignore); i++)
		warning |= g_strcmp0(json_array_get_string_element(v->ignore, i), def->name) == 0;
	if (v->error_codes)
		gnt_lu_feedback(v->lu, "  - %s:%s:%s:%s:%s", warning ? "WARNING" : "ERROR",
				def->name, def->item_type, item != NULL ? item : "None", message);
	else
		gnt_lu_feedback(v->lu, "  - %s: %s %s: %s", warning ? "WARNING" : "ERROR",
				def->item_type, item != NULL ? item : "", message);
	if (!warning)
		v->bad = TRUE;
}

/* Ganeti's _Error */
static void G_GNUC_PRINTF(5, 6) verifier_report(Verifier *v, GntCvCode code, const gchar *item,
						gboolean warning, const gchar *format, ...)
{
	va_list args;

	va_start(args, format);
	verifier_vreport(v, code, item, warning, format, args);
	va_end(args);
}

/* Ganeti's _ErrorIf: also reported when errors are simulated */
static void G_GNUC_PRINTF(6, 7)
	verifier_report_if(Verifier *v, gboolean condition, GntCvCode code, const gchar *item,
			   gboolean warning, const gchar *format, ...)
{
	va_list args;

	if (!condition && !v->simulate)
		return;
	va_start(args, format);
	verifier_vreport(v, code, item, warning, format, args);
	va_end(args);
}

/* time.strftime("%Y-%m-%d %H:%M:%S", localtime), Ganeti's FormatTime */
static gchar *
format_time(gint64 seconds)
{
	g_autoptr(GDateTime) dt = g_date_time_new_from_unix_local(seconds);

	return dt != NULL ? g_date_time_format(dt, "%Y-%m-%d %H:%M:%S") : g_strdup("?");
}

/*
 * Ganeti's VerifyX509Certificate for a certificate valid from @not_before
 * to @not_after: reports "While verifying @what: Certificate expires in
 * about N days" and the like as an error or a warning under @code, or
 * nothing when it is fine.
 */
static void
verify_certificate_validity(Verifier *v, const gchar *what, gint64 not_before, gint64 not_after)
{
	gint64 real_now = g_get_real_time() / G_USEC_PER_SEC;
	gint64 now = real_now + GNT_CV_MAX_CLOCK_SKEW_S;

	if (real_now > not_after) {
		g_autofree gchar *from = format_time(not_before);
		g_autofree gchar *to = format_time(not_after);

		verifier_report(v, GNT_CV_ECLUSTERCERT, NULL, FALSE,
				"While verifying %s: Certificate is expired (valid from %s to %s)",
				what, from, to);
	} else if (not_before > now) {
		g_autofree gchar *from = format_time(not_before);

		verifier_report(v, GNT_CV_ECLUSTERCERT, NULL, TRUE,
				"While verifying %s: Certificate not yet valid (valid from %s)",
				what, from);
	} else {
		gint64 days = (not_after - now) / (24 * 3600);

		if (days <= GNT_CV_CERT_WARN_DAYS || v->simulate)
			verifier_report(
				v, GNT_CV_ECLUSTERCERT, NULL, days > GNT_CV_CERT_ERROR_DAYS,
				"While verifying %s: Certificate expires in about %" G_GINT64_FORMAT
				" days",
				what, days);
	}
}

static void
verify_certificate_file(Verifier *v, const gchar *path)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GTlsCertificate) cert = g_tls_certificate_new_from_file(path, &error);
	g_autoptr(GDateTime) before = NULL;
	g_autoptr(GDateTime) after = NULL;

	if (cert == NULL) {
		verifier_report(v, GNT_CV_ECLUSTERCERT, NULL, FALSE,
				"Failed to load X509 certificate %s: %s", path, error->message);
		return;
	}
	before = g_tls_certificate_get_not_valid_before(cert);
	after = g_tls_certificate_get_not_valid_after(cert);
	verify_certificate_validity(v, path, before != NULL ? g_date_time_to_unix(before) : 0,
				    after != NULL ? g_date_time_to_unix(after) : 0);
}

/* ---- OP_CLUSTER_VERIFY ------------------------------------------------------ */

static GntOpcode *
new_child_opcode(const GntOpcode *parent, const gchar *op_id, const gchar *group,
		 gboolean with_skip_checks, gboolean depends_on_previous)
{
	g_autoptr(JsonObject) input = json_object_new();
	g_autoptr(GError) error = NULL;
	GntOpcode *child;

	json_object_set_string_member(input, "OP_ID", op_id);
	if (group != NULL)
		json_object_set_string_member(input, "group_name", group);
	json_object_set_member(
		input, "ignore_errors",
		gnt_json_node_deep_copy(gnt_opcode_get_param(parent, "ignore_errors")));
	json_object_set_boolean_member(input, "debug_simulate_errors",
				       gnt_opcode_get_bool(parent, "debug_simulate_errors"));
	json_object_set_boolean_member(input, "verbose", gnt_opcode_get_bool(parent, "verbose"));
	json_object_set_boolean_member(input, "error_codes",
				       gnt_opcode_get_bool(parent, "error_codes"));
	json_object_set_member(input, "priority",
			       gnt_json_node_deep_copy(gnt_opcode_get_param(parent, "priority")));
	if (with_skip_checks) {
		json_object_set_member(
			input, "skip_checks",
			gnt_json_node_deep_copy(gnt_opcode_get_param(parent, "skip_checks")));
		json_object_set_boolean_member(input, "verify_clutter",
					       gnt_opcode_get_bool(parent, "verify_clutter"));
	}
	if (depends_on_previous) {
		/* Ganeti's [(-len(jobs), [])]: the config job, any final status */
		JsonArray *dep = json_array_new();
		JsonArray *deps = json_array_new();

		json_array_add_int_element(dep, -1);
		json_array_add_array_element(dep, json_array_new());
		json_array_add_array_element(deps, dep);
		json_object_set_array_member(input, "depends", deps);
	}
	child = gnt_opcode_new_from_json(input, &error);
	g_assert_no_error(error); /* built from a valid parent */
	return child;
}

static GPtrArray *
job_of(GntOpcode *op)
{
	GPtrArray *ops = g_ptr_array_new_with_free_func((GDestroyNotify)gnt_opcode_unref);

	g_ptr_array_add(ops, op);
	return ops;
}

gboolean
gnt_lu_verify_check_group(GntLu *lu, GError **error)
{
	const gchar *group = gnt_opcode_get_string(gnt_lu_get_opcode(lu), "group_name");
	g_autoptr(GPtrArray) nodes = NULL;

	if (group == NULL)
		return TRUE;
	nodes = gnt_lu_verify_dup_group_nodes(gnt_lu_get_env(lu)->config, group, error);
	return nodes != NULL;
}

static JsonNode *
cluster_verify_exec(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	const gchar *group = gnt_opcode_get_string(op, "group_name");
	g_autoptr(GPtrArray)
		jobs = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
	g_auto(GStrv) groups = NULL;
	JsonObject *result = json_object_new();

	if (group != NULL) {
		groups = g_new0(gchar *, 2);
		groups[0] = g_strdup(group);
	} else {
		groups = gnt_lu_verify_dup_group_names(gnt_lu_get_env(lu)->config);
		g_ptr_array_add(jobs, job_of(new_child_opcode(op, "OP_CLUSTER_VERIFY_CONFIG", NULL,
							      FALSE, FALSE)));
	}
	for (guint i = 0; groups[i] != NULL; i++)
		g_ptr_array_add(jobs, job_of(new_child_opcode(op, "OP_CLUSTER_VERIFY_GROUP",
							      groups[i], TRUE, group == NULL)));
	json_object_set_array_member(result, "jobs",
				     gnt_lu_submit_jobs(lu, g_steal_pointer(&jobs)));
	return gnt_json_node_new_object(result);
}

const GntLuClass gnt_lu_cluster_verify = {
	.check_prereq = gnt_lu_verify_check_group,
	.exec = cluster_verify_exec,
};

/* ---- OP_CLUSTER_VERIFY_CONFIG ------------------------------------------------ */

static JsonNode *
cluster_verify_config_exec(GntLu *lu, GError **error)
{
	GntLuEnv *env = gnt_lu_get_env(lu);
	g_autoptr(GPtrArray) nodes = gnt_config_dup_objects(env->config, GNT_OBJECT_NODE);
	g_autoptr(GPtrArray) instances = gnt_config_dup_objects(env->config, GNT_OBJECT_INSTANCE);
	g_autoptr(GString) dangling = g_string_new(NULL);
	const gchar *cert_files[] = {
		gnt_paths_get_ca_cert(env->paths),
		gnt_paths_get_node_cert(env->paths),
		gnt_paths_get_master_cert(env->paths),
		gnt_paths_get_rapi_cert(env->paths),
	};
	Verifier v;

	verifier_init(&v, lu);
	/* config.db checks every record as it is written and loaded */
	gnt_lu_feedback(lu, "* Verifying cluster config");
	gnt_lu_feedback(lu, "* Verifying cluster certificate files");
	for (guint i = 0; i < G_N_ELEMENTS(cert_files); i++) {
		/* gantry-rapi's certificate is made by gnt-cluster init only */
		if (i == 3 && !g_file_test(cert_files[i], G_FILE_TEST_EXISTS))
			continue;
		verify_certificate_file(&v, cert_files[i]);
	}
	gnt_lu_feedback(lu, "* Verifying hypervisor parameters");
	for (guint i = 0; i < instances->len; i++) {
		JsonObject *instance = g_ptr_array_index(instances, i);
		g_autoptr(GError) spec_error = NULL;
		g_autoptr(JsonObject)
			spec = gnt_lu_instance_spec_new(env->config, instance, &spec_error);

		verifier_report_if(&v, spec == NULL, GNT_CV_ECLUSTERCFG, NULL, FALSE,
				   "hypervisor %s parameters syntax check (source instance %s): %s",
				   json_object_get_string_member_with_default(instance,
									      "hypervisor", "?"),
				   json_object_get_string_member(instance, "name"),
				   spec_error != NULL ? spec_error->message : "no error");
	}
	gnt_lu_feedback(lu, "* Verifying all nodes belong to an existing group");
	for (guint i = 0; i < instances->len; i++) {
		JsonObject *instance = g_ptr_array_index(instances, i);
		const gchar *pnode =
			json_object_get_string_member_with_default(instance, "primary_node", "");
		gboolean found = FALSE;

		for (guint n = 0; n < nodes->len && !found; n++)
			found = g_strcmp0(pnode, json_object_get_string_member(
							 g_ptr_array_index(nodes, n), "uuid")) == 0;
		if (!found)
			g_string_append_printf(dangling, "%s%s", dangling->len > 0 ? ", " : "",
					       json_object_get_string_member(instance, "name"));
	}
	verifier_report_if(&v, dangling->len > 0, GNT_CV_ECLUSTERDANGLINGINST, NULL, FALSE,
			   "the following instances have a non-existing primary-node: %s",
			   dangling->str);
	return gnt_json_node_new_bool(!v.bad);
}

const GntLuClass gnt_lu_cluster_verify_config = {
	.exec = cluster_verify_config_exec,
};

/* ---- OP_CLUSTER_VERIFY_GROUP --------------------------------------------------- */

/* What one node said (Ganeti's NodeImage): its record and node_verify's
 * answer, NULL when it could not be asked. */
typedef struct {
	JsonObject *node;
	JsonObject *answer;
	gboolean rpc_fail;
	gchar *rpc_error;
} NodeImage;

static void
node_image_free(NodeImage *img)
{
	g_free(img->rpc_error);
	json_object_unref(img->node);
	if (img->answer != NULL)
		json_object_unref(img->answer);
	g_free(img);
}

static const gchar *
node_name(JsonObject *node)
{
	return json_object_get_string_member_with_default(node, "name", "?");
}

/* The group's data: the cluster settings, its nodes and instances. */
typedef struct {
	Verifier v;
	GntLuEnv *env;
	JsonObject *info;
	JsonObject *storage;
	GPtrArray *images;	  /* NodeImage, the group's nodes by name */
	GPtrArray *instances;	  /* JsonObject, the group's */
	GPtrArray *all_instances; /* JsonObject, the cluster's */
	GHashTable *by_name;	  /* name -> JsonObject of all_instances */
	gint64 start_s, end_s;
} GroupCheck;

static NodeImage *
group_find_image(GroupCheck *gc, const gchar *uuid)
{
	for (guint i = 0; i < gc->images->len; i++) {
		NodeImage *img = g_ptr_array_index(gc->images, i);
		if (g_strcmp0(json_object_get_string_member(img->node, "uuid"), uuid) == 0)
			return img;
	}
	return NULL;
}

/* Any instance of the cluster by name, or NULL. (transfer full) */
static JsonObject *
group_find_instance(GroupCheck *gc, const gchar *name)
{
	JsonObject *instance = g_hash_table_lookup(gc->by_name, name);

	return instance != NULL ? json_object_ref(instance) : NULL;
}

static GStrv
info_strv(JsonObject *info, const gchar *key)
{
	JsonArray *array = gnt_json_peek_array(info, key);
	GStrv strv = g_new0(gchar *, (array != NULL ? json_array_get_length(array) : 0) + 1);

	for (guint i = 0; array != NULL && i < json_array_get_length(array); i++)
		strv[i] = g_strdup(json_array_get_string_element(array, i));
	return strv;
}

/* At most this many nodes are asked at once. */
#define GATHER_MAX_THREADS 16

typedef struct {
	GntRpcClient *rpc;
	JsonObject *storage;
	GStrv hypervisors;
	GStrv search_path;
} GatherArgs;

/* In a pool thread: one node's answer, written to its own image only. */
static void
gather_one(gpointer data, gpointer user_data)
{
	NodeImage *img = data;
	GatherArgs *args = user_data;
	g_autoptr(GError) error = NULL;

	img->answer = gnt_node_call_node_verify(args->rpc, img->node,
						(const gchar *const *)args->hypervisors,
						args->storage,
						(const gchar *const *)args->search_path, &error);
	img->rpc_fail = img->answer == NULL;
	if (img->rpc_fail)
		img->rpc_error = g_strdup(error->message);
}

/* Asks every online node of the group at once: a node that does not answer
 * costs one timeout, not one per node. */
static void
group_gather(GroupCheck *gc, GntRpcClient *rpc)
{
	g_auto(GStrv) hypervisors = info_strv(gc->info, "enabled_hypervisors");
	g_auto(GStrv) search_path = info_strv(gc->info, "os_search_path");
	GatherArgs args = {rpc, gc->storage, hypervisors, search_path};
	GThreadPool *pool = g_thread_pool_new(gather_one, &args, GATHER_MAX_THREADS, FALSE, NULL);

	gc->start_s = g_get_real_time() / G_USEC_PER_SEC;
	for (guint i = 0; i < gc->images->len; i++) {
		NodeImage *img = g_ptr_array_index(gc->images, i);

		if (!gnt_record_get_flag(img->node, "offline", FALSE))
			g_thread_pool_push(pool, img, NULL);
	}
	g_thread_pool_free(pool, FALSE, TRUE);
	gc->end_s = g_get_real_time() / G_USEC_PER_SEC;
}

/* Ganeti's _VerifyNode (version) and _VerifyNodeTime. */
static gboolean
verify_node_version_time(GroupCheck *gc, NodeImage *img)
{
	const gchar *name = node_name(img->node);
	JsonArray *version = gnt_json_peek_array(img->answer, "version");
	JsonArray *time = gnt_json_peek_array(img->answer, "time");
	gint64 protocol, ntime;
	const gchar *software;

	if (version == NULL || json_array_get_length(version) != 2) {
		verifier_report(&gc->v, GNT_CV_ENODERPC, name, FALSE,
				"connection to node returned invalid data");
		return FALSE;
	}
	protocol = json_array_get_int_element(version, 0);
	software = json_array_get_string_element(version, 1);
	if (protocol != GNT_RPC_PROTOCOL_VERSION || gc->v.simulate) {
		verifier_report(&gc->v, GNT_CV_ENODEVERSION, name, FALSE,
				"incompatible protocol versions: master %d, node %" G_GINT64_FORMAT,
				GNT_RPC_PROTOCOL_VERSION, protocol);
		if (protocol != GNT_RPC_PROTOCOL_VERSION)
			return FALSE;
	}
	verifier_report_if(&gc->v, g_strcmp0(software, GNT_VERSION) != 0, GNT_CV_ENODEVERSION, name,
			   TRUE, "software version mismatch: master %s, node %s", GNT_VERSION,
			   software);
	if (time == NULL || json_array_get_length(time) != 2) {
		verifier_report(&gc->v, GNT_CV_ENODETIME, name, FALSE,
				"Node returned invalid time");
		return TRUE;
	}
	ntime = json_array_get_int_element(time, 0);
	if (ntime < gc->start_s - GNT_CV_MAX_CLOCK_SKEW_S)
		verifier_report(&gc->v, GNT_CV_ENODETIME, name, FALSE,
				"Node time diverges by at least %.01fs from master node time",
				(gdouble)(gc->start_s - ntime));
	else if (ntime > gc->end_s + GNT_CV_MAX_CLOCK_SKEW_S)
		verifier_report(&gc->v, GNT_CV_ENODETIME, name, FALSE,
				"Node time diverges by at least %.01fs from master node time",
				(gdouble)(ntime - gc->end_s));
	return TRUE;
}

static void
verify_node_certificate(GroupCheck *gc, NodeImage *img)
{
	JsonObject *cert = gnt_json_peek_object(img->answer, "certificate");
	g_autofree gchar *what = NULL;

	if (cert == NULL)
		return;
	what = g_strdup_printf("%s on node %s",
			       json_object_get_string_member_with_default(cert, "path", "?"),
			       node_name(img->node));
	if (json_object_has_member(cert, "error"))
		verifier_report(&gc->v, GNT_CV_ECLUSTERCERT, NULL, FALSE,
				"Failed to load X509 certificate %s: %s", what,
				json_object_get_string_member(cert, "error"));
	else
		verify_certificate_validity(
			&gc->v, what,
			json_object_get_int_member_with_default(cert, "not_before", 0),
			json_object_get_int_member_with_default(cert, "not_after", 0));
}

/* Memory and storage: Ganeti's _UpdateNodeInfo and the storage paths. */
static void
verify_node_resources(GroupCheck *gc, NodeImage *img)
{
	const gchar *name = node_name(img->node);
	JsonObject *info = gnt_json_peek_object(img->answer, "node_info");
	JsonArray *storage;

	verifier_report_if(&gc->v, info == NULL || !json_object_has_member(info, "memory_free"),
			   GNT_CV_ENODEHV, name, FALSE, "rpc call to node failed (hvinfo)");
	if (info == NULL)
		return;
	storage = gnt_json_peek_array(info, "storage");
	for (guint i = 0; storage != NULL && i < json_array_get_length(storage); i++) {
		JsonObject *report = json_array_get_object_element(storage, i);
		const gchar *type = json_object_get_string_member_with_default(report, "type", "");
		const gchar *where = json_object_get_string_member_with_default(report, "name", "");
		const gchar *problem =
			json_object_get_string_member_with_default(report, "error", NULL);

		if (g_strcmp0(type, "lvm-vg") == 0)
			verifier_report_if(&gc->v, problem != NULL, GNT_CV_ENODELVM, name, FALSE,
					   "node didn't return data for the volume group '%s' - it "
					   "is either missing or broken",
					   where);
		else
			verifier_report_if(&gc->v, problem != NULL,
					   GNT_CV_ENODEFILESTORAGEPATHUNUSABLE, name, FALSE,
					   "The configured file storage path is unusable: %s",
					   problem != NULL ? problem : where);
		if (gc->v.verbose && problem == NULL)
			gnt_lu_feedback(
				gc->v.lu,
				"  - node %s: %s %s: %" G_GINT64_FORMAT
				" MiB free of %" G_GINT64_FORMAT " MiB",
				name, type, where,
				json_object_get_int_member_with_default(report, "storage_free", 0),
				json_object_get_int_member_with_default(report, "storage_size", 0));
	}
	if (gc->v.verbose)
		gnt_lu_feedback(gc->v.lu,
				"  - node %s: %" G_GINT64_FORMAT
				" MiB memory free of %" G_GINT64_FORMAT " MiB",
				name,
				json_object_get_int_member_with_default(info, "memory_free", 0),
				json_object_get_int_member_with_default(info, "memory_total", 0));
}

static gint
compare_strings(gconstpointer a, gconstpointer b)
{
	return g_strcmp0(*(const gchar *const *)a, *(const gchar *const *)b);
}

/* A set as Ganeti prints it: sorted, comma-joined. */
static gchar *
joined_set(JsonNode *value)
{
	g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func(g_free);
	JsonArray *array =
		value != NULL && JSON_NODE_HOLDS_ARRAY(value) ? json_node_get_array(value) : NULL;

	for (guint i = 0; array != NULL && i < json_array_get_length(array); i++) {
		JsonNode *item = json_array_get_element(array, i);
		JsonArray *pair = JSON_NODE_HOLDS_ARRAY(item) ? json_node_get_array(item) : NULL;

		if (pair != NULL && json_array_get_length(pair) == 2) /* parameters: [name, doc] */
			g_ptr_array_add(items,
					g_strdup_printf("%s: %s",
							json_array_get_string_element(pair, 0),
							json_array_get_string_element(pair, 1)));
		else
			g_ptr_array_add(items, gnt_json_to_string(item));
	}
	g_ptr_array_sort(items, compare_strings);
	g_ptr_array_add(items, NULL);
	return g_strjoinv(", ", (gchar **)items->pdata);
}

/* The first definition of @os_name in a node's os_diagnose list. */
static JsonObject *
find_os(JsonArray *list, const gchar *os_name, guint *count)
{
	JsonObject *first = NULL;

	*count = 0;
	for (guint i = 0; list != NULL && i < json_array_get_length(list); i++) {
		JsonObject *os = json_array_get_object_element(list, i);
		if (g_strcmp0(json_object_get_string_member_with_default(os, "name", NULL),
			      os_name) == 0) {
			if (first == NULL)
				first = os;
			(*count)++;
		}
	}
	return first;
}

/* Ganeti's _VerifyNodeOS against the reference node @base. */
static void
verify_node_os(GroupCheck *gc, NodeImage *img, NodeImage *base)
{
	const gchar *name = node_name(img->node);
	JsonArray *list = gnt_json_peek_array(img->answer, "os_diagnose");
	JsonArray *base_list = gnt_json_peek_array(base->answer, "os_diagnose");
	g_autoptr(GString) missing = g_string_new(NULL);
	static const gchar *const kinds[][2] = {
		{"API version", "api_versions"},
		{"variants list", "variants"},
		{"parameters", "parameters"},
	};

	for (guint i = 0; i < json_array_get_length(list); i++) {
		JsonObject *os = json_array_get_object_element(list, i);
		const gchar *os_name = json_object_get_string_member_with_default(os, "name", "?");
		guint count = 0, base_count = 0;
		JsonObject *b;

		if (find_os(list, os_name, &count) != os)
			continue; /* a later, shadowed definition */
		verifier_report_if(&gc->v,
				   !json_object_get_boolean_member_with_default(os, "valid", FALSE),
				   GNT_CV_ENODEOS, name, FALSE, "Invalid OS %s (located at %s): %s",
				   os_name,
				   json_object_get_string_member_with_default(os, "path", ""),
				   json_object_get_string_member_with_default(os, "diagnose", ""));
		verifier_report_if(&gc->v, count > 1, GNT_CV_ENODEOS, name, FALSE,
				   "OS '%s' has multiple entries (first one shadows the rest)",
				   os_name);
		b = find_os(base_list, os_name, &base_count);
		verifier_report_if(&gc->v, b == NULL, GNT_CV_ENODEOS, name, FALSE,
				   "Extra OS %s not present on reference node (%s)", os_name,
				   node_name(base->node));
		if (b == NULL || !json_object_get_boolean_member_with_default(b, "valid", FALSE))
			continue;
		for (guint k = 0; k < G_N_ELEMENTS(kinds); k++) {
			g_autofree gchar *a = joined_set(json_object_get_member(os, kinds[k][1]));
			g_autofree gchar *c = joined_set(json_object_get_member(b, kinds[k][1]));

			verifier_report_if(
				&gc->v, g_strcmp0(a, c) != 0, GNT_CV_ENODEOS, name, FALSE,
				"OS %s for %s differs from reference node %s: [%s] vs. [%s]",
				kinds[k][0], os_name, node_name(base->node), a, c);
		}
	}
	for (guint i = 0; i < json_array_get_length(base_list); i++) {
		const gchar *os_name = json_object_get_string_member_with_default(
			json_array_get_object_element(base_list, i), "name", "?");
		guint count = 0;

		if (find_os(list, os_name, &count) == NULL && strstr(missing->str, os_name) == NULL)
			g_string_append_printf(missing, "%s%s", missing->len > 0 ? ", " : "",
					       os_name);
	}
	verifier_report_if(&gc->v, missing->len > 0, GNT_CV_ENODEOS, name, FALSE,
			   "OSes present on reference node %s but missing on this node: %s",
			   node_name(base->node), missing->str);
}

static gboolean
instance_is_running(JsonObject *running, const gchar *name)
{
	JsonObject *entry = running != NULL ? gnt_json_peek_object(running, name) : NULL;

	return entry != NULL &&
	       g_strcmp0(json_object_get_string_member_with_default(entry, "state", ""),
			 gnt_hv_state_to_string(GNT_HV_STATE_SHUTOFF)) != 0;
}

/* What runs on the node that should not: Ganeti's EINSTANCEWRONGNODE and
 * ENODEORPHANINSTANCE; taps of no communicating instance. */
static void
verify_node_running(GroupCheck *gc, NodeImage *img)
{
	const gchar *name = node_name(img->node);
	const gchar *uuid = json_object_get_string_member(img->node, "uuid");
	JsonObject *running = gnt_json_peek_object(img->answer, "instance_list");
	JsonArray *taps = gnt_json_peek_array(img->answer, "taps");
	g_autoptr(GList) names = NULL;

	if (running == NULL) {
		verifier_report(&gc->v, GNT_CV_ENODEHV, name, FALSE,
				"rpc call to node failed (instancelist): %s",
				json_object_get_string_member_with_default(
					img->answer, "instance_list_error", "no data"));
		return;
	}
	names = json_object_get_members(running);
	for (GList *l = names; l != NULL; l = l->next) {
		g_autoptr(JsonObject) instance = group_find_instance(gc, l->data);

		if (instance != NULL &&
		    g_strcmp0(json_object_get_string_member(instance, "primary_node"), uuid) == 0)
			continue;
		verifier_report_if(&gc->v, instance != NULL, GNT_CV_EINSTANCEWRONGNODE, l->data,
				   FALSE, "instance should not run on node %s", name);
		verifier_report_if(&gc->v, instance == NULL, GNT_CV_ENODEORPHANINSTANCE, name,
				   FALSE, "node is running unknown instance %s",
				   (const gchar *)l->data);
	}
	for (guint i = 0; taps != NULL && i < json_array_get_length(taps); i++) {
		JsonObject *tap = json_array_get_object_element(taps, i);
		const gchar *owner =
			json_object_get_string_member_with_default(tap, "instance", NULL);
		g_autoptr(JsonObject) instance = owner != NULL ? group_find_instance(gc, owner)
							       : NULL;
		gboolean ok = instance != NULL &&
			      json_object_get_boolean_member_with_default(instance, "communication",
									  FALSE) &&
			      instance_is_running(running, owner);

		verifier_report_if(&gc->v, !ok, GNT_CV_ENODENET, name, TRUE,
				   "tap %s belongs to no running instance with a channel%s%s",
				   json_object_get_string_member_with_default(tap, "name", "?"),
				   owner != NULL ? ": its channel names " : "",
				   owner != NULL ? owner : "");
	}
}

/* Ganeti's _VerifyInstance: disks, where it runs, its node. */
static void
verify_instance(GroupCheck *gc, JsonObject *instance, GHashTable *expected)
{
	const gchar *name = json_object_get_string_member(instance, "name");
	NodeImage *img =
		group_find_image(gc, json_object_get_string_member(instance, "primary_node"));
	JsonArray *disks = gnt_json_peek_array(instance, "disks");
	JsonObject *volumes = img != NULL && img->answer != NULL
				      ? gnt_json_peek_object(img->answer, "volumes")
				      : NULL;
	const gchar *pname = img != NULL ? node_name(img->node) : "?";
	gboolean offline = img != NULL && gnt_record_get_flag(img->node, "offline", FALSE);

	if (img == NULL)
		return; /* a dangling instance: OP_CLUSTER_VERIFY_CONFIG reports it */
	for (guint i = 0; disks != NULL && i < json_array_get_length(disks); i++) {
		JsonObject *disk = json_array_get_object_element(disks, i);
		g_autofree gchar *volume = gnt_lu_verify_dup_volume_name(instance, i, gc->storage);
		const gchar *template =
			json_object_get_string_member_with_default(instance, "disk_template", "");
		JsonObject *listing = volumes != NULL ? gnt_json_peek_object(volumes, template)
						      : NULL;
		gint64 want_mib = json_object_get_int_member_with_default(disk, "size", 0);
		gint64 have;

		if (volume == NULL)
			continue;
		g_hash_table_add(expected, g_strdup_printf("%s\n%s", pname, volume));
		/* missing volumes on offline or broken nodes are not reported */
		if (offline || img->rpc_fail || listing == NULL)
			continue;
		verifier_report_if(&gc->v, !json_object_has_member(listing, volume),
				   GNT_CV_EINSTANCEMISSINGDISK, name, FALSE,
				   "volume %s missing on node %s", volume, pname);
		if (!json_object_has_member(listing, volume))
			continue;
		have = json_object_get_int_member(listing, volume);
		/* logical volumes are rounded up to whole extents */
		if (have == want_mib * 1024 * 1024 ||
		    (gnt_record_get_disk_template(instance) == GNT_DISK_TEMPLATE_PLAIN &&
		     have > want_mib * 1024 * 1024))
			continue;
		{
			g_autofree gchar *have_text =
				gnt_size_format(have / (1024 * 1024), GNT_SIZE_UNIT_AUTO);
			g_autofree gchar *want_text = gnt_size_format(want_mib, GNT_SIZE_UNIT_AUTO);

			verifier_report(&gc->v, GNT_CV_EINSTANCEFAULTYDISK, name, FALSE,
					"disk/%u on %s has size %s (%" G_GINT64_FORMAT
					" bytes), the configuration says %s",
					i, pname, have_text, have, want_text);
		}
	}
	if (gnt_record_get_admin_state(instance) == GNT_ADMIN_STATE_UP) {
		JsonObject *running = img->answer != NULL
					      ? gnt_json_peek_object(img->answer, "instance_list")
					      : NULL;

		verifier_report_if(
			&gc->v, !offline && running != NULL && !instance_is_running(running, name),
			GNT_CV_EINSTANCEDOWN, name, FALSE,
			"instance not running on its primary node %s", pname);
		verifier_report_if(&gc->v, offline, GNT_CV_EINSTANCEBADNODE, name, FALSE,
				   "instance is marked as running and lives on offline node %s",
				   pname);
	}
	verifier_report_if(&gc->v, img->rpc_fail && !offline, GNT_CV_ENODERPC, pname, FALSE,
			   "instance %s, connection to primary node failed", name);
	if (img->answer != NULL && json_object_has_member(img->answer, "os_diagnose")) {
		g_auto(GStrv) os_parts = g_strsplit(
			json_object_get_string_member_with_default(instance, "os", ""), "+", 2);
		guint count = 0;
		gboolean has_os = os_parts[0] == NULL || os_parts[0][0] == '\0' ||
				  find_os(gnt_json_peek_array(img->answer, "os_diagnose"),
					  os_parts[0], &count) != NULL;

		verifier_report_if(&gc->v, !has_os, GNT_CV_ENODEOS, pname, FALSE,
				   "OS %s of instance %s is missing on this node", os_parts[0],
				   name);
	}
}

/* Ganeti's _VerifyOrphanVolumes (warnings): volumes of no instance. */
static void
verify_orphan_volumes(GroupCheck *gc, GHashTable *expected)
{
	for (guint i = 0; i < gc->images->len; i++) {
		NodeImage *img = g_ptr_array_index(gc->images, i);
		JsonObject *volumes =
			img->answer != NULL ? gnt_json_peek_object(img->answer, "volumes") : NULL;
		static const GntDiskTemplate with_volumes[] = {GNT_DISK_TEMPLATE_PLAIN,
							       GNT_DISK_TEMPLATE_FILE};

		for (guint t = 0; volumes != NULL && t < G_N_ELEMENTS(with_volumes); t++) {
			const gchar *template = gnt_disk_template_to_string(with_volumes[t]);
			JsonObject *listing = gnt_json_peek_object(volumes, template);
			g_autoptr(GList) names = listing != NULL ? json_object_get_members(listing)
								 : NULL;
			g_autofree gchar *key = g_strconcat(template, "_error", NULL);

			verifier_report_if(&gc->v, json_object_has_member(volumes, key),
					   GNT_CV_ENODELVM, node_name(img->node), FALSE,
					   "%s volumes could not be listed: %s", template,
					   json_object_get_string_member_with_default(volumes, key,
										      ""));
			names = g_list_sort(names, (GCompareFunc)g_strcmp0);
			for (GList *l = names; l != NULL; l = l->next) {
				g_autofree gchar *want = g_strdup_printf(
					"%s\n%s", node_name(img->node), (gchar *)l->data);

				verifier_report_if(&gc->v, !g_hash_table_contains(expected, want),
						   GNT_CV_ENODEORPHANLV, node_name(img->node), TRUE,
						   "volume %s is unknown", (gchar *)l->data);
			}
		}
	}
}

static gboolean
cluster_verify_group_check_prereq(GntLu *lu, GError **error)
{
	g_autoptr(GPtrArray) nodes = gnt_lu_verify_dup_group_nodes(
		gnt_lu_get_env(lu)->config,
		gnt_opcode_get_string(gnt_lu_get_opcode(lu), "group_name"), error);

	return nodes != NULL;
}

static void
node_verify_status(GroupCheck *gc, guint *n_offline, guint *n_drained)
{
	const gchar *master = NULL;
	g_autofree gchar *master_name = gnt_config_dup_master_node(gc->env->config);
	NodeImage *base = NULL;

	for (guint i = 0; i < gc->images->len; i++) {
		NodeImage *img = g_ptr_array_index(gc->images, i);
		const gchar *name = node_name(img->node);
		const gchar *ntype = "regular";

		if (gnt_record_get_flag(img->node, "offline", FALSE)) {
			if (gc->v.verbose)
				gnt_lu_feedback(gc->v.lu, "* Skipping offline node %s", name);
			(*n_offline)++;
			continue;
		}
		master = master_name;
		if (g_strcmp0(name, master) == 0)
			ntype = "master";
		else if (gnt_record_get_flag(img->node, "master_candidate", FALSE))
			ntype = "master candidate";
		else if (gnt_record_get_flag(img->node, "drained", FALSE)) {
			ntype = "drained";
			(*n_drained)++;
		}
		if (gc->v.verbose)
			gnt_lu_feedback(gc->v.lu, "* Verifying node %s (%s)", name, ntype);
		verifier_report_if(&gc->v, img->rpc_fail, GNT_CV_ENODERPC, name, FALSE,
				   "while contacting node: %s",
				   img->rpc_error != NULL ? img->rpc_error : "no error");
		if (img->rpc_fail || !verify_node_version_time(gc, img))
			continue;
		verify_node_resources(gc, img);
		if (json_object_has_member(img->answer, "os_diagnose")) {
			if (base == NULL)
				base = img;
			verify_node_os(gc, img, base);
		} else {
			verifier_report(&gc->v, GNT_CV_ENODEOS, name, FALSE,
					"node hasn't returned valid OS data");
		}
		verify_node_running(gc, img);
	}
}

static JsonNode *
cluster_verify_group_exec(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	const gchar *group = gnt_opcode_get_string(op, "group_name");
	JsonArray *skip = json_node_get_array(gnt_opcode_get_param(op, "skip_checks"));
	g_autoptr(GPtrArray) nodes = NULL;
	g_autoptr(GHashTable)
		expected = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	GntRpcClient *rpc;
	GroupCheck gc = {{0}};
	guint n_offline = 0, n_drained = 0, n_offline_instances = 0, n_non_balanced = 0;
	gboolean skip_n1 = FALSE, skip_hv = FALSE;

	gc.env = gnt_lu_get_env(lu);
	verifier_init(&gc.v, lu);
	gnt_lu_feedback(lu, "* Verifying group '%s'", group);
	nodes = gnt_lu_verify_dup_group_nodes(gc.env->config, group, error);
	if (nodes == NULL)
		return NULL;
	if (nodes->len == 0) {
		gnt_lu_feedback(lu, "* Empty node group, skipping verification");
		return gnt_json_node_new_bool(TRUE);
	}
	rpc = gnt_lu_get_rpc(lu, error);
	if (rpc == NULL)
		return NULL;
	gc.info = gnt_config_dup_cluster_info(gc.env->config);
	gc.storage = gnt_lu_storage_spec_new(gc.info);
	gc.images = g_ptr_array_new_with_free_func((GDestroyNotify)node_image_free);
	for (guint i = 0; i < nodes->len; i++) {
		NodeImage *img = g_new0(NodeImage, 1);
		img->node = json_object_ref(g_ptr_array_index(nodes, i));
		g_ptr_array_add(gc.images, img);
	}
	gc.instances = gnt_lu_verify_dup_instances_of(gc.env->config, nodes);
	gc.all_instances = gnt_config_dup_objects(gc.env->config, GNT_OBJECT_INSTANCE);
	gc.by_name = g_hash_table_new(g_str_hash, g_str_equal);
	for (guint i = 0; i < gc.all_instances->len; i++) {
		JsonObject *instance = g_ptr_array_index(gc.all_instances, i);
		g_hash_table_insert(gc.by_name,
				    (gpointer)json_object_get_string_member(instance, "name"),
				    instance);
	}
	gnt_lu_feedback(lu, "* Gathering data (%u nodes)", nodes->len);
	gnt_lu_feedback(lu, "* Gathering information about nodes (%u nodes)", nodes->len);
	group_gather(&gc, rpc);
	gnt_lu_feedback(lu, "* Verifying configuration file consistency");
	for (guint i = 0; i < gc.images->len; i++) {
		NodeImage *img = g_ptr_array_index(gc.images, i);
		if (img->answer != NULL)
			verify_node_certificate(&gc, img);
	}
	gnt_lu_feedback(lu, "* Verifying node status");
	node_verify_status(&gc, &n_offline, &n_drained);
	gnt_lu_feedback(lu, "* Verifying instance status");
	for (guint i = 0; i < gc.instances->len; i++) {
		JsonObject *instance = g_ptr_array_index(gc.instances, i);
		g_autoptr(JsonObject)
			spec = gnt_lu_instance_spec_new(gc.env->config, instance, NULL);
		JsonObject *be = spec != NULL ? gnt_json_peek_object(spec, "beparams") : NULL;

		if (gc.v.verbose)
			gnt_lu_feedback(lu, "* Verifying instance %s",
					json_object_get_string_member(instance, "name"));
		verify_instance(&gc, instance, expected);
		if (json_object_has_member(instance, "admin_state") &&
		    gnt_record_get_admin_state(instance) == GNT_ADMIN_STATE_OFFLINE)
			n_offline_instances++;
		if (be != NULL &&
		    !json_object_get_boolean_member_with_default(be, "auto_balance", TRUE))
			n_non_balanced++;
	}
	gnt_lu_feedback(lu, "* Verifying orphan volumes");
	verify_orphan_volumes(&gc, expected);
	for (guint i = 0; i < json_array_get_length(skip); i++) {
		skip_n1 |= g_strcmp0(json_array_get_string_element(skip, i),
				     GNT_CV_SKIP_NPLUSONE_MEM) == 0;
		skip_hv |= g_strcmp0(json_array_get_string_element(skip, i),
				     GNT_CV_SKIP_HVPARAM_ASSESSMENT) == 0;
	}
	/* file and plain disks have no secondary node to fail over to: N+1 has
	 * nothing to check (Ganeti's loop over secondaries finds none either) */
	if (!skip_n1)
		gnt_lu_feedback(lu, "* Verifying N+1 Memory redundancy");
	if (!skip_hv)
		gnt_lu_feedback(lu, "* Assessing cluster hypervisor parameters");
	gnt_lu_feedback(lu, "* Other Notes");
	if (gc.instances->len > 0)
		gnt_lu_feedback(lu, "  - NOTICE: %u non-redundant instance(s) found.",
				gc.instances->len);
	if (n_non_balanced > 0)
		gnt_lu_feedback(lu, "  - NOTICE: %u non-auto-balanced instance(s) found.",
				n_non_balanced);
	if (n_offline_instances > 0)
		gnt_lu_feedback(lu, "  - NOTICE: %u offline instance(s) found.",
				n_offline_instances);
	if (n_offline > 0)
		gnt_lu_feedback(lu, "  - NOTICE: %u offline node(s) found.", n_offline);
	if (n_drained > 0)
		gnt_lu_feedback(lu, "  - NOTICE: %u drained node(s) found.", n_drained);
	json_object_unref(gc.info);
	json_object_unref(gc.storage);
	g_ptr_array_unref(gc.images);
	g_ptr_array_unref(gc.instances);
	g_hash_table_unref(gc.by_name);
	g_ptr_array_unref(gc.all_instances);
	return gnt_json_node_new_bool(!gc.v.bad);
}

const GntLuClass gnt_lu_cluster_verify_group = {
	.declare_locks = gnt_lu_verify_lock_group,
	.check_prereq = cluster_verify_group_check_prereq,
	.exec = cluster_verify_group_exec,
};
