#pragma once

#include "gnt-config.h"

G_BEGIN_DECLS

/*
 * Node groups (Ganeti's objects.NodeGroup), records of GNT_OBJECT_GROUP:
 * {"uuid", "name", "serial_no", "ctime", "mtime", "alloc_policy",
 *  "ndparams", "diskparams", "ipolicy" (each the group's own values, filled
 *  from the cluster's when queried), "hv_state_static",
 *  "disk_state_static", "networks", "tags"}.
 * Every node's record has "group": its group's UUID. doc/groups.md.
 */

/* The group gnt-cluster init makes (Ganeti's INITIAL_NODE_GROUP_NAME). */
#define GNT_GROUP_DEFAULT_NAME "default"

/* A new group record named @name with Ganeti's defaults (alloc_policy
 * "preferred", no parameters of its own, no tags); no UUID yet.
 * (transfer full) */
JsonObject *
gnt_group_record_new(const gchar *name);

/*
 * Makes the config's groups whole: the group "default" when there is none
 * (a new cluster, or a database from before groups), and every node's
 * "group" a group's UUID (a group name, as older records have, becomes its
 * group's UUID; none or an unknown one the first group's). Each change is
 * committed. Called by gnt_config_create() and gnt_config_open().
 */
gboolean
gnt_config_ensure_groups(GntConfig *self, GError **error);

/*
 * Ganeti's LookupNodeGroup: the UUID of the group @name names (a name or a
 * UUID); NULL @name: the only group, GNT_ERROR_INVALID when there are
 * several ("More than one node group exists. Target group must be
 * specified explicitly."). GNT_ERROR_NOT_FOUND "Node group 'x' not found".
 * (transfer full)
 */
gchar *
gnt_config_lookup_group(GntConfig *self, const gchar *name, GError **error);

/*
 * Checks an instance policy given for a group (Ganeti's ipolicy keys:
 * "minmax" a list of {"min", "max"} specs, "std" a spec, "disk-templates"
 * a list of names, "vcpu-ratio" and "spindle-ratio" positive numbers; a
 * spec maps "cpu-count", "disk-count", "disk-size", "memory-size",
 * "nic-count", "spindle-use" to integers >= 0). GNT_ERROR_INVALID naming
 * the bad key.
 */
gboolean
gnt_group_check_ipolicy(JsonObject *ipolicy, GError **error);

/*
 * Ganeti's ForceDictType for node or disk parameters: @given (a group's
 * ndparams, or its diskparams of one template) checked against @defaults
 * (the cluster's, which name every parameter with a value of its type);
 * strings are converted to the parameter's type ("2222" for ssh_port,
 * "yes" for exclusive_storage), as the command line gives them, and null
 * or "default" stays (it removes the value). GNT_ERROR_INVALID naming the
 * parameter, @what in the message ("node parameter"). (transfer full)
 */
JsonObject *
gnt_group_coerce_params(JsonObject *defaults, JsonObject *given, const gchar *what, GError **error);

G_END_DECLS
