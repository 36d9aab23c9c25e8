#pragma once /* cmdlib/gnt-lu-verify.h: for the verify units only */

#include "gnt-config.h"
#include "gnt-lu.h"

G_BEGIN_DECLS

/* Node groups as the verify units see them (config/gnt-config-groups.h). */

/* check_prereq of the opcodes with an optional "group_name": a group
 * given must exist (Ganeti's "Node group 'x' not found"). */
gboolean
gnt_lu_verify_check_group(GntLu *lu, GError **error);

/* Every group's name, sorted. (transfer full) */
GStrv
gnt_lu_verify_dup_group_names(GntConfig *config);
/* The node records of group @group_name (transfer full: JsonObject, by
 * name); GNT_ERROR_NOT_FOUND "Node group 'x' not found" (Ganeti's
 * LookupNodeGroup). */
GPtrArray *
gnt_lu_verify_dup_group_nodes(GntConfig *config, const gchar *group_name, GError **error);

/* The instances whose primary node is one of @nodes (transfer full:
 * JsonObject, by name). */
GPtrArray *
gnt_lu_verify_dup_instances_of(GntConfig *config, GPtrArray *nodes);

/* Ganeti's share-all locks of a group's verify: every node of the
 * opcode's group and every instance whose primary node it is, shared, so
 * that no instance changes while its group is looked at. Nothing for an
 * unknown group (check_prereq says so). */
void
gnt_lu_verify_lock_group(GntLu *lu, GntLockSet *locks);

/* The volume disk @index of @instance has in its node's listing
 * (node_verify's "volumes"): "<instance>/<uuid>.file.disk<N>" (file),
 * "<uuid>.disk<N>" (plain); NULL for diskless or a record that does not
 * say. (transfer full) */
gchar *
gnt_lu_verify_dup_volume_name(JsonObject *instance, guint index, JsonObject *storage);

G_END_DECLS
