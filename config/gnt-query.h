#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/*
 * The query2 engine (Ganeti's Query/QueryFields, and the classic Query*
 * calls): a resource describes its fields in a table, a request selects
 * fields and an optional filter, and the engine builds the rows. It knows
 * nothing about jobs, nodes or instances; see doc/query.md.
 */

/* A cell's status, Ganeti's RS_* values (they go on the wire). */
typedef enum {
	GNT_QUERY_STATUS_NORMAL = 0,  /* RS_NORMAL */
	GNT_QUERY_STATUS_UNKNOWN = 1, /* RS_UNKNOWN: the field does not exist */
	GNT_QUERY_STATUS_NODATA = 2,  /* RS_NODATA: no data (yet) */
	GNT_QUERY_STATUS_UNAVAIL = 3, /* RS_UNAVAIL: not available for this item */
	GNT_QUERY_STATUS_OFFLINE = 4, /* RS_OFFLINE: the item's node is offline */
} GntQueryStatus;

/* A field's kind, Ganeti's QFT_* strings (see gnt_query_kind_to_string()). */
typedef enum {
	GNT_QUERY_KIND_UNKNOWN,	  /* "unknown" */
	GNT_QUERY_KIND_TEXT,	  /* "text" */
	GNT_QUERY_KIND_BOOL,	  /* "bool" */
	GNT_QUERY_KIND_NUMBER,	  /* "number" */
	GNT_QUERY_KIND_FLOAT,	  /* "float" */
	GNT_QUERY_KIND_UNIT,	  /* "unit" (MiB) */
	GNT_QUERY_KIND_TIMESTAMP, /* "timestamp" */
	GNT_QUERY_KIND_OTHER,	  /* "other" */
	GNT_QUERY_KIND_LAST
} GntQueryKind;

/* How filter conditions treat a field (Ganeti's QFF_* flags). */
typedef enum {
	GNT_QUERY_FLAG_NONE = 0,
	/* == and != match a name or its first components, ignoring case:
	 * "inst1" matches "inst1.example.com" (QFF_HOSTNAME). */
	GNT_QUERY_FLAG_HOSTNAME = 1 << 0,
	/* The cell is a [sec, usec] pair; comparisons use sec + usec / 1e6
	 * (QFF_SPLIT_TIMESTAMP). */
	GNT_QUERY_FLAG_SPLIT_TIMESTAMP = 1 << 1,
	/* A decimal string in a filter value is read as an integer, so that
	 * ["==", "id", "7"] matches job 7 (QFF_JOB_ID). */
	GNT_QUERY_FLAG_JOB_ID = 1 << 2,
} GntQueryFlags;

/*
 * Returns the value of one field of @item (transfer full), or NULL after
 * setting *@status to a status other than GNT_QUERY_STATUS_NORMAL. *@status
 * is GNT_QUERY_STATUS_NORMAL on entry. @user_data is the caller's context,
 * the same for every item of one query.
 */
typedef JsonNode *(*GntQueryGetFunc)(gconstpointer item, gpointer user_data,
				     GntQueryStatus *status);

/*
 * Optional, for the fields every listing shows: appends the JSON text of
 * the value get() would return to @out, or appends nothing and sets
 * *@status (GNT_QUERY_STATUS_NORMAL on entry) to what get() would set. It
 * lets a Query answer be written without building a node per cell; the
 * text must be exactly gnt_json_to_string() of get()'s value.
 */
typedef void (*GntQueryWriteFunc)(gconstpointer item, gpointer user_data, GString *out,
				  GntQueryStatus *status);

typedef struct _GntQueryField GntQueryField;

/*
 * A getter several rows share (every hv/ parameter, every disk.size/N):
 * as GntQueryGetFunc, told the row, whose key and index say what to read.
 */
typedef JsonNode *(*GntQueryFieldGetFunc)(const GntQueryField *field, gconstpointer item,
					  gpointer user_data, GntQueryStatus *status);

/* One row of a resource's field table; a table ends with a row whose name
 * is NULL. Tables are static and outlive every query using them. */
struct _GntQueryField {
	const gchar *name;
	const gchar *title;
	GntQueryKind kind;
	GntQueryFlags flags;
	const gchar *doc;
	GntQueryGetFunc get;	 /* NULL: get_field */
	GntQueryWriteFunc write; /* NULL: get()'s value is serialized */
	GntQueryFieldGetFunc get_field;
	const gchar *key; /* for get_field: the member, parameter, ... to read */
	guint index;	  /* for get_field: which disk, NIC, ... */
};

const gchar *
gnt_query_kind_to_string(GntQueryKind kind);

/* The row of @table named @name, or NULL. */
const GntQueryField *
gnt_query_field_lookup(const GntQueryField *table, const gchar *name);

/*
 * QueryFields: {"fields": [{"name", "title", "kind", "doc"}, ...]} for the
 * fields named in @names (strings), in that order; NULL or empty: every
 * field of @table. A name not in @table gets kind "unknown" and the doc
 * "Unknown field 'NAME'". Fails with GNT_ERROR_INVALID only when @names
 * holds something other than strings. (transfer full)
 */
JsonNode *
gnt_query_fields_response(const GntQueryField *table, JsonArray *names, GError **error);

/* A compiled request: the selected fields and the filter. */
typedef struct _GntQuery GntQuery;

/*
 * Compiles a request against @table. @fields: the selected field names,
 * NULL for every field of @table (an empty list selects none); names not in
 * the table are kept as unknown fields. @filter: NULL, JSON null or a
 * filter in Ganeti's query language (doc/query.md). Fails with
 * GNT_ERROR_INVALID, naming the culprit, on a malformed field list or
 * filter: unknown operator or field, wrong number of operands, a value that
 * is not a string or an integer, a bad regular expression, nesting deeper
 * than 10 levels.
 */
GntQuery *
gnt_query_new(const GntQueryField *table, JsonArray *fields, JsonNode *filter, GError **error);
void
gnt_query_free(GntQuery *self);

/* The classic Query* calls reject unknown fields: GNT_ERROR_INVALID
 * "Unknown output fields selected: a, b". */
gboolean
gnt_query_check_known_fields(GntQuery *self, GError **error);

/* Whether the field @name is selected or used by the filter (a resource
 * may then fetch more data, e.g. archived jobs). */
gboolean
gnt_query_uses_field(GntQuery *self, const gchar *name);

/*
 * The name hint: when the filter is ["==", @name, v] or an "|" of such
 * conditions only (nested "|" allowed), the values v in order without
 * duplicates (transfer full), so that a resource can look its items up
 * instead of scanning; an empty list means no item can match. NULL when
 * there is no filter or it has any other shape: scan everything.
 * Values are strings or integers (GNT_QUERY_FLAG_JOB_ID: integers).
 */
JsonArray *
gnt_query_dup_name_hint(GntQuery *self, const gchar *name);

/* Whether @item passes the filter (TRUE without a filter). */
gboolean
gnt_query_matches(GntQuery *self, gconstpointer item, gpointer user_data);

/* One Query row: a [status, value] pair per selected field. (transfer full) */
JsonArray *
gnt_query_build_row(GntQuery *self, gconstpointer item, gpointer user_data);

/* One classic row: bare values, null where the status is not normal.
 * (transfer full) */
JsonArray *
gnt_query_build_values(GntQuery *self, gconstpointer item, gpointer user_data);

/* {"fields": [definitions of the selected fields], "data": @rows}.
 * Takes ownership of @rows. (transfer full) */
JsonNode *
gnt_query_build_response(GntQuery *self, JsonArray *rows);

/*
 * The same as text, for answers too big to build as a tree first: each
 * appends to @out exactly what gnt_json_to_string() gives for the node
 * above (fields' write functions used where there are). A response is
 * gnt_query_write_response_start(), the rows separated by ",", then
 * gnt_query_write_response_end().
 */
void
gnt_query_write_row(GntQuery *self, gconstpointer item, gpointer user_data, GString *out);
void
gnt_query_write_values(GntQuery *self, gconstpointer item, gpointer user_data, GString *out);
/* {"fields":[...],"data":[ */
void
gnt_query_write_response_start(GntQuery *self, GString *out);
/* ]} */
void
gnt_query_write_response_end(GntQuery *self, GString *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntQuery, gnt_query_free)

G_END_DECLS
