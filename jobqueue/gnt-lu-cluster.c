/*
 * OP_CLUSTER_DESTROY: the master agrees to end the cluster. It runs under
 * the cluster lock held exclusively, so no other job is running; the caller
 * (gnt-cluster destroy) then stops the daemons and removes the state.
 */
#include "gnt-config.h"
#include "gnt-json.h"
#include "gnt-lu.h"

static JsonNode *
cluster_destroy_exec(GntLu *lu, GError **error)
{
	g_autofree gchar *master = gnt_config_dup_master_node(gnt_lu_get_env(lu)->config);

	gnt_lu_feedback(lu, "Cluster is ready to be destroyed");
	return gnt_json_node_new_string(master);
}

const GntLuClass gnt_lu_cluster_destroy = {
	.exec = cluster_destroy_exec,
};
