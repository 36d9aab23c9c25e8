#pragma once

#include "gnt-config.h"

G_BEGIN_DECLS

/*
 * The "instance" and "node" query resources (Ganeti's query2 fields for
 * Query, QueryFields, QueryInstances and QueryNodes) over the records of
 * config.db, iterated in place (gnt_config_foreach_object(): no copies).
 * Fields needing the nodes' live state (instance status, oper_ram, node
 * mfree, ...) read a GntLiveData the caller collected over node RPC; see
 * doc/query.md for its shape.
 */

/* ---- live data ---- */

/* What the caller knows about the nodes right now; a plain value record. */
typedef struct _GntLiveData GntLiveData;

GntLiveData *
gnt_live_data_new(void);
void
gnt_live_data_free(GntLiveData *self);

/*
 * The answer of node @node (its UUID or its name) to the node-info call:
 * {"memory_total", "memory_dom0", "memory_free", "cpu_total", "cpu_nodes",
 *  "cpu_sockets", "cpu_dom0", "bootid", "storage_size", "storage_free",
 *  "spindles_total", "spindles_free",
 *  "instances": {NAME: {"state": "running"|"shutdown"|..., "memory": MiB,
 *                       "vcpus": N}}}.
 * Every key is optional: a missing one makes its field RS_UNAVAIL.
 * (transfer none: @info is deep-copied)
 */
void
gnt_live_data_set_node(GntLiveData *self, const gchar *node, JsonObject *info);
/* The same, keeping @info itself (transfer full): for an answer another
 * thread made and no longer touches (10,000 running instances are 10,000
 * objects to copy). */
void
gnt_live_data_take_node(GntLiveData *self, const gchar *node, JsonObject *info);
/* Node @node (UUID or name) could not be asked (down, timeout, refused):
 * its instances' status is ERROR_nodedown, their live fields and its own
 * RS_NODATA. */
void
gnt_live_data_set_node_failed(GntLiveData *self, const gchar *node);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntLiveData, gnt_live_data_free)

/* ---- queries ---- */

/* QueryFields(@kind, @fields): the definitions; NULL or empty: every field
 * in Ganeti's (natural) name order; unknown names get kind "unknown".
 * GNT_ERROR_INVALID if @fields holds a non-string. (transfer full) */
JsonNode *
gnt_object_query_fields(GntObjectKind kind, JsonArray *fields, GError **error);

/*
 * Whether a query of @fields (NULL: all) filtered by @filter (may be NULL)
 * reads live data, so that the caller asks the nodes only then (as
 * Ganeti does). Instance: status, oper_state, oper_ram, oper_vcpus; node:
 * mtotal, mnode, mfree, dtotal, dfree, sptotal, spfree, ctotal, cnodes,
 * cnos, csockets, bootid. GNT_ERROR_INVALID for a bad field list or filter.
 */
gboolean
gnt_object_query_needs_live_data(GntObjectKind kind, JsonArray *fields, JsonNode *filter,
				 gboolean *needed, GError **error);

/*
 * Query(@kind, @fields, @filter): {"fields", "data"} with [status, value]
 * cells, rows in Ganeti's natural name order. A filter naming items only
 * (["|", ["=", "name", "a"], ...], as the CLI sends) looks them up by name
 * or short name ("inst1" finds "inst1.example.com") instead of scanning,
 * and answers rows in that order. @live: NULL when not collected (live
 * cells are RS_NODATA). Fails with GNT_ERROR_INVALID for a bad field list
 * or filter, GNT_ERROR_NOT_FOUND "Instance name 'x' not found" for a named
 * item that does not exist, GNT_ERROR_INVALID for an ambiguous short name.
 * (transfer full)
 */
JsonNode *
gnt_object_query(GntConfig *config, GntObjectKind kind, JsonArray *fields, JsonNode *filter,
		 GntLiveData *live, GError **error);

/*
 * The same answer as JSON text appended to @out: exactly
 * gnt_json_to_string() of gnt_object_query()'s node, written row by row
 * without building the tree (a 10,000-instance answer is about 1 MB, and
 * its tree's allocations cost more than the rest of the query). On failure
 * (the same errors) @out is left as it was.
 */
gboolean
gnt_object_query_write(GntConfig *config, GntObjectKind kind, JsonArray *fields, JsonNode *filter,
		       GntLiveData *live, GString *out, GError **error);

/*
 * The classic QueryInstances/QueryNodes(@names, @fields): a list of rows of
 * bare values (null where the status is not normal). @names NULL or empty:
 * every item. Fails like gnt_object_query(), and with GNT_ERROR_INVALID
 * "Unknown output fields selected: a, b" for unknown fields. (transfer full)
 */
JsonNode *
gnt_object_query_values(GntConfig *config, GntObjectKind kind, JsonArray *names, JsonArray *fields,
			GntLiveData *live, GError **error);
/* The same as JSON text appended to @out, as gnt_object_query_write(). */
gboolean
gnt_object_query_values_write(GntConfig *config, GntObjectKind kind, JsonArray *names,
			      JsonArray *fields, GntLiveData *live, GString *out, GError **error);

/* Ganeti's NiceSort order: digit runs compare as numbers ("inst2" before
 * "inst10"). A GCompareFunc on strings. */
gint
gnt_object_name_compare(const gchar *a, const gchar *b);

G_END_DECLS
