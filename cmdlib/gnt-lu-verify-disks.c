/*
 * gnt-cluster verify-disks, as Ganeti's LUClusterVerifyDisks and
 * LUGroupVerifyDisks: OP_CLUSTER_VERIFY_DISKS submits one
 * OP_GROUP_VERIFY_DISKS job per node group; each answers Ganeti's
 * [{node: error}, [instances whose disks need activating], {instance:
 * [[node, volume], ...] missing}]. Gantry's file and plain disks are always
 * active (there is no DRBD to bring up), so every instance with disks is
 * checked and the middle list stays empty.
 */
#include "gnt-records.h"
#include "gnt-config.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-lu-instance-spec.h"
#include "gnt-lu-verify.h"
#include "gnt-lu.h"
#include "gnt-node-calls-verify.h"

static JsonNode *
cluster_verify_disks_exec(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	const gchar *group = gnt_opcode_get_string(op, "group_name");
	g_auto(GStrv) groups = NULL;
	g_autoptr(GPtrArray)
		jobs = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
	JsonObject *result = json_object_new();

	if (group != NULL) {
		groups = g_new0(gchar *, 2);
		groups[0] = g_strdup(group);
	} else {
		groups = gnt_lu_verify_dup_group_names(gnt_lu_get_env(lu)->config);
	}
	for (guint i = 0; groups[i] != NULL; i++) {
		g_autoptr(JsonObject) input = json_object_new();
		GPtrArray *ops = g_ptr_array_new_with_free_func((GDestroyNotify)gnt_opcode_unref);
		GntOpcode *child;

		json_object_set_string_member(input, "OP_ID", "OP_GROUP_VERIFY_DISKS");
		json_object_set_string_member(input, "group_name", groups[i]);
		json_object_set_boolean_member(input, "is_strict",
					       gnt_opcode_get_bool(op, "is_strict"));
		json_object_set_member(
			input, "priority",
			gnt_json_node_deep_copy(gnt_opcode_get_param(op, "priority")));
		child = gnt_opcode_new_from_json(input, error);
		if (child == NULL) {
			g_ptr_array_unref(ops);
			json_object_unref(result);
			return NULL;
		}
		g_ptr_array_add(ops, child);
		g_ptr_array_add(jobs, ops);
	}
	json_object_set_array_member(result, "jobs",
				     gnt_lu_submit_jobs(lu, g_steal_pointer(&jobs)));
	return gnt_json_node_new_object(result);
}

const GntLuClass gnt_lu_cluster_verify_disks = {
	.check_prereq = gnt_lu_verify_check_group,
	.exec = cluster_verify_disks_exec,
};

static gboolean
group_verify_disks_check_prereq(GntLu *lu, GError **error)
{
	g_autoptr(GPtrArray) nodes = gnt_lu_verify_dup_group_nodes(
		gnt_lu_get_env(lu)->config,
		gnt_opcode_get_string(gnt_lu_get_opcode(lu), "group_name"), error);

	return nodes != NULL;
}

static JsonNode *
group_verify_disks_exec(GntLu *lu, GError **error)
{
	GntLuEnv *env = gnt_lu_get_env(lu);
	g_autoptr(GPtrArray) nodes = gnt_lu_verify_dup_group_nodes(
		env->config, gnt_opcode_get_string(gnt_lu_get_opcode(lu), "group_name"), error);
	g_autoptr(GPtrArray) instances = NULL;
	g_autoptr(JsonObject) info = NULL;
	g_autoptr(JsonObject) storage = NULL;
	JsonObject *node_errors = json_object_new();
	JsonObject *missing = json_object_new();
	JsonArray *result = json_array_new();
	GntRpcClient *rpc;

	rpc = nodes != NULL ? gnt_lu_get_rpc(lu, error) : NULL;
	if (rpc == NULL) {
		json_object_unref(node_errors);
		json_object_unref(missing);
		json_array_unref(result);
		return NULL;
	}
	info = gnt_config_dup_cluster_info(env->config);
	storage = gnt_lu_storage_spec_new(info);
	instances = gnt_lu_verify_dup_instances_of(env->config, nodes);
	for (guint n = 0; n < nodes->len; n++) {
		JsonObject *node = g_ptr_array_index(nodes, n);
		const gchar *node_name = json_object_get_string_member(node, "name");
		g_autoptr(GError) node_error = NULL;
		g_autoptr(JsonObject) answer = NULL;
		JsonObject *volumes;

		if (gnt_record_get_flag(node, "offline", FALSE) ||
		    !gnt_record_get_flag(node, "vm_capable", TRUE))
			continue;
		answer = gnt_node_call_node_verify(rpc, node, NULL, storage, NULL, &node_error);
		if (answer == NULL) {
			json_object_set_string_member(node_errors, node_name, node_error->message);
			continue;
		}
		volumes = gnt_json_peek_object(answer, "volumes");
		for (guint i = 0; i < instances->len; i++) {
			JsonObject *instance = g_ptr_array_index(instances, i);
			const gchar *template = json_object_get_string_member_with_default(
				instance, "disk_template", "");
			JsonObject *listing =
				volumes != NULL ? gnt_json_peek_object(volumes, template) : NULL;
			JsonArray *disks = gnt_json_peek_array(instance, "disks");
			g_autofree gchar *list_error = g_strconcat(template, "_error", NULL);

			if (g_strcmp0(json_object_get_string_member(instance, "primary_node"),
				      json_object_get_string_member(node, "uuid")) != 0)
				continue;
			if (volumes != NULL && json_object_has_member(volumes, list_error)) {
				json_object_set_string_member(
					node_errors, node_name,
					json_object_get_string_member(volumes, list_error));
				continue;
			}
			for (guint d = 0; disks != NULL && d < json_array_get_length(disks); d++) {
				g_autofree gchar *volume =
					gnt_lu_verify_dup_volume_name(instance, d, storage);
				const gchar *name = json_object_get_string_member(instance, "name");
				g_autofree gchar *where = NULL;
				JsonArray *pair;

				if (volume == NULL ||
				    (listing != NULL && json_object_has_member(listing, volume)))
					continue;
				if (!json_object_has_member(missing, name))
					json_object_set_array_member(missing, name,
								     json_array_new());
				pair = json_array_new();
				json_array_add_string_element(pair, node_name);
				/* Ganeti's volumes are "vg/lv"; file disks get their path */
				if (gnt_record_get_disk_template(instance) ==
				    GNT_DISK_TEMPLATE_FILE)
					where = g_build_filename(
						json_object_get_string_member(storage,
									      "file_storage_dir"),
						volume, NULL);
				else
					where = g_strdup_printf(
						"%s/%s",
						json_object_get_string_member(storage,
									      "volume_group_name"),
						volume);
				json_array_add_string_element(pair, where);
				json_array_add_array_element(gnt_json_peek_array(missing, name),
							     pair);
			}
		}
	}
	json_array_add_object_element(result, node_errors);
	json_array_add_array_element(result, json_array_new());
	json_array_add_object_element(result, missing);
	return gnt_json_node_new_array(result);
}

const GntLuClass gnt_lu_group_verify_disks = {
	.declare_locks = gnt_lu_verify_lock_group,
	.check_prereq = group_verify_disks_check_prereq,
	.exec = group_verify_disks_exec,
};
