#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/*
 * Effective parameters (Ganeti's Cluster.FillHV, FillBE, SimpleFillOS,
 * FillND, FillIPolicy, FillDiskParams): an object's own values over the
 * defaults of the levels above it. The one place both the instance spec a
 * node is sent (cmdlib/gnt-lu-instance-spec.c) and every query (Query,
 * OP_INSTANCE_QUERY_DATA, RAPI) take them from, so that what a query shows
 * is what a node gets.
 *
 * @settings is the cluster's settings object (GntCluster's "settings", or
 * gnt_config_dup_cluster_info()'s answer, which carries the same members:
 * "hvparams", "os_hvp", "beparams", "osparams", "nicparams", "ndparams").
 * Each function returns a new object (transfer full); a missing level
 * counts as empty.
 */

/* Ganeti's FillHV: the hypervisor's own defaults (hypervisor/'s table),
 * then the cluster's hvparams of the instance's "hypervisor", then the
 * cluster's os_hvp of the instance's "os" (its full name, variant
 * included, as Ganeti looks it up), then the instance's "hvparams";
 * typed as the table has them. @skip_globals leaves out Ganeti's
 * HVC_GLOBALS (as queries do). GNT_ERROR_INVALID for an unknown
 * hypervisor or a parameter its table refuses, naming the level. */
JsonObject *
gnt_fill_hvparams(JsonObject *settings, JsonObject *instance, gboolean skip_globals,
		  GError **error);

/* Ganeti's FillBE: the cluster's beparams "default", then the instance's
 * "beparams"; maxmem, minmem, vcpus and spindle_use never missing. */
JsonObject *
gnt_fill_beparams(JsonObject *settings, JsonObject *instance);

/* Ganeti's SimpleFillOS: the cluster's osparams of @os without its
 * variant, then of @os with it, then @own (the instance's public osparams;
 * private ones are the caller's to add). @os may be NULL. */
JsonObject *
gnt_fill_osparams(JsonObject *settings, const gchar *os, JsonObject *own);

/* Ganeti's SimpleFillNIC: the cluster's nicparams "default", then the
 * NIC's "nicparams". */
JsonObject *
gnt_fill_nicparams(JsonObject *settings, JsonObject *nic);

/* Ganeti's FillND: the cluster's ndparams, then the group's @group_ndparams,
 * then the node's own @own (either may be NULL). */
JsonObject *
gnt_fill_ndparams(JsonObject *settings, JsonObject *group_ndparams, JsonObject *own);

/* Ganeti's FillIPolicy: the cluster's @base with the group's @custom over
 * it ("std" key by key, the rest whole). */
JsonObject *
gnt_fill_ipolicy(JsonObject *base, JsonObject *custom);

/* Ganeti's FillDict one level down (diskparams: template -> params):
 * @base's dictionaries with @custom's of the same name merged over them. */
JsonObject *
gnt_fill_diskparams(JsonObject *base, JsonObject *custom);

G_END_DECLS
