#pragma once

#include <json-glib/json-glib.h>

#include "gnt-cmdlib.h"
#include "gnt-config.h"
#include "gnt-lu.h"

G_BEGIN_DECLS

/* The cluster model the unit's master keeps. (transfer none) */
static inline GntConfig *
lu_config(GntLu *lu)
{
	return gnt_lu_get_env(lu)->config;
}

/* The node RPC client of the unit's master; GNT_ERROR_ENVIRONMENT when
 * the master has none (no cluster certificates). (transfer none) */
GntRpcClient *
gnt_lu_get_rpc(GntLu *lu, GError **error);

/* A node record by UUID or name. (transfer full) */
JsonObject *
gnt_lu_dup_node(GntConfig *config, const gchar *uuid_or_name, GError **error);
/* Copies of the nodes that are online and vm-capable (those that run
 * instances and their installs), in the config's order. (transfer full:
 * JsonObject) */
GPtrArray *
gnt_lu_dup_vm_nodes(GntConfig *config);
/* GNT_ERROR_WRONG_STATE "node 'x' is offline" for an offline node. */
gboolean
gnt_lu_check_node_online(JsonObject *node, GError **error);

/* Locks the instance the opcode names (by its full name when it exists)
 * exclusively, and its primary node shared. */
void
gnt_lu_lock_instance(GntLu *lu, GntLockSet *locks);

/* The instance the opcode names, its primary node and the spec the node
 * is sent. */
typedef struct {
	JsonObject *instance;
	JsonObject *node;
	JsonObject *spec;
} GntLuInstanceCtx;

/* Loads them; with @need_online the node must be online. (transfer full) */
GntLuInstanceCtx *
gnt_lu_instance_ctx_new(GntLu *lu, gboolean need_online, GError **error);
void
gnt_lu_instance_ctx_free(GntLuInstanceCtx *ctx);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntLuInstanceCtx, gnt_lu_instance_ctx_free)

/* GNT_ERROR_WRONG_STATE "Instance 'x' is running, @doing" when its node
 * runs it, whatever its record says (Ganeti's CheckInstanceState asks the
 * node too). */
gboolean
gnt_lu_instance_check_not_running(GntRpcClient *rpc, GntLuInstanceCtx *ctx, const gchar *doing,
				  GError **error);

/* The spec a node is sent about @instance (doc/node-rpc.md): the record,
 * filled hvparams and beparams, storage places, the OS search path.
 * Fails when the stored hvparams no longer validate. (transfer full) */
JsonObject *
gnt_lu_instance_spec_new(GntConfig *config, JsonObject *instance, GError **error);
/* The spec's "storage" from the cluster info @info: {"volume_group_name",
 * "file_storage_dir"}. (transfer full) */
JsonObject *
gnt_lu_storage_spec_new(JsonObject *info);
/* An integer of the spec's filled beparams ("maxmem", "vcpus"), 0 if unset. */
gint64
gnt_lu_spec_get_be_int(JsonObject *spec, const gchar *name);

G_END_DECLS
