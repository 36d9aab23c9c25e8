#pragma once

#include "gnt-node-calls.h"

G_BEGIN_DECLS

/*
 * The master's typed calls of noded's export and import procedures
 * (noded/gnt-noded-backup.c, doc/backup.md), in the manner of
 * gnt-node-calls.h: @node is the node record, failures name the node.
 * Exports live on the node under <root>/srv/gantry/export/<instance>; the
 * node refuses a path outside that directory. @compress is "none" or
 * "gzip".
 */

/* Runs the export script of disk @disk_index of the spec's instance into
 * <instance>.new/; *@dump (nullable) gets the dump's file name. */
gboolean
gnt_node_call_export_disk(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			  guint disk_index, const gchar *compress, guint debug_level, gchar **dump,
			  GError **error);
/* Writes config.ini into <instance>.new/, which then replaces any older
 * export of the instance. */
gboolean
gnt_node_call_export_finalize(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			      const gchar *compress, GError **error);
/* The names of the node's finished exports, sorted. (transfer full) */
GStrv
gnt_node_call_export_list(GntRpcClient *client, JsonObject *node, GError **error);
/* The export @path names (its name, or its absolute directory):
 * {"path": its directory, "sections": {section: {key: value}}} from its
 * config.ini. (transfer full) */
JsonObject *
gnt_node_call_export_info(GntRpcClient *client, JsonObject *node, const gchar *path,
			  GError **error);
/* Removes the export @name (or "<name>.new"); *@removed (nullable) says
 * whether there was one. */
gboolean
gnt_node_call_export_remove(GntRpcClient *client, JsonObject *node, const gchar *name,
			    gboolean *removed, GError **error);
/* Runs the import script of disk @disk_index of the spec's instance with
 * the file @dump of the export @src_path on its stdin. */
gboolean
gnt_node_call_import_disk(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			  guint disk_index, const gchar *src_path, const gchar *dump,
			  const gchar *compress, guint debug_level, GError **error);

G_END_DECLS
