#pragma once /* config/gnt-cluster-settings-params.h */

#include "gnt-config.h"

G_BEGIN_DECLS

/*
 * OP_CLUSTER_SET_PARAMS' values (@params: Ganeti's names, as the opcode has
 * them; null or missing leaves a setting alone) as the complete new values
 * of the settings they change, for gnt_config_set_cluster_settings(): each
 * merged as the settings table says (-H and -B into the current ones),
 * hypervisor names and parameters checked against hypervisor/, every
 * setting checked by the config on a copy, the settings that stay as they
 * were left out, disk templates in use kept, and LVM kept while plain
 * instances exist. GNT_ERROR_INVALID naming the setting. (transfer full)
 *
 * @vg_to_find (out, *NULL on entry) receives the volume group the change
 * starts using (plain newly enabled, or another volume group named), or
 * stays NULL: the caller looks for it on the master node, which the model
 * cannot do (the logical unit over node RPC, gnt-cluster init on its host).
 */
JsonObject *
gnt_cluster_settings_from_params(GntConfig *config, JsonObject *params, gchar **vg_to_find,
				 GError **error);

/* Ganeti's -B values (OP_CLUSTER_SET_PARAMS, instance create and modify),
 * typed: sizes (with units) in MiB, vcpus and spindle_use as numbers,
 * auto_balance and always_failover as booleans (JSON or the CLI's text);
 * "memory" sets maxmem and minmem. With @allow_default, "default" is kept
 * as it is (for gnt_lu_params_update()). GNT_ERROR_INVALID naming the
 * parameter. (transfer full) */
JsonObject *
gnt_beparams_parse(JsonObject *given, gboolean allow_default, GError **error);

G_END_DECLS
