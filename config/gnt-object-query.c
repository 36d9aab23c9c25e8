/*
 * The "instance", "node" and "group" query resources, after Ganeti's query.py:
 * field names, titles, kinds and docs are Ganeti's. Rows are built while
 * gnt_config_foreach_record() holds the config locked, from the borrowed
 * records (instances typed: the fields a listing shows read the struct,
 * the others the record's JSON, made once per row when asked for):
 * getters copy what they return (gnt_json_node_deep_copy(), as
 * json-glib's reference counts are not atomic) and never call back into
 * the config. What a row needs from other records (node names, instance
 * lists, the cluster's defaults) is collected first, in a QueryContext.
 */
#include "gnt-records.h"
#include "gnt-object-query.h"

#include <string.h>

#include "gnt-config-fill.h"
#include "gnt-config-groups.h"
#include "gnt-config-images.h"
#include "gnt-config-templates.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-query.h"

#define MAX_DISKS 16 /* Ganeti's constants.MAX_DISKS */
#define MAX_NICS  8  /* constants.MAX_NICS */

/* ------------------------------------------------------------------ */
/* Live data */

typedef struct {
	JsonObject *info; /* NULL: the node could not be asked */
} LiveNode;

struct _GntLiveData {
	GHashTable *nodes; /* node UUID or name -> LiveNode */
};

static void
live_node_free(gpointer data)
{
	LiveNode *node = data;

	g_clear_pointer(&node->info, json_object_unref);
	g_free(node);
}

GntLiveData *
gnt_live_data_new(void)
{
	GntLiveData *self = g_new0(GntLiveData, 1);

	self->nodes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, live_node_free);
	return self;
}

void
gnt_live_data_free(GntLiveData *self)
{
	if (self == NULL)
		return;
	g_hash_table_unref(self->nodes);
	g_free(self);
}

void
gnt_live_data_set_node(GntLiveData *self, const gchar *node, JsonObject *info)
{
	g_return_if_fail(self != NULL && node != NULL && info != NULL);

	gnt_live_data_take_node(self, node, gnt_json_object_deep_copy(info));
}

void
gnt_live_data_take_node(GntLiveData *self, const gchar *node, JsonObject *info)
{
	LiveNode *entry;

	g_return_if_fail(self != NULL && node != NULL && info != NULL);

	entry = g_new0(LiveNode, 1);
	entry->info = info;
	g_hash_table_replace(self->nodes, g_strdup(node), entry);
}

void
gnt_live_data_set_node_failed(GntLiveData *self, const gchar *node)
{
	g_return_if_fail(self != NULL && node != NULL);

	g_hash_table_replace(self->nodes, g_strdup(node), g_new0(LiveNode, 1));
}

/* ------------------------------------------------------------------ */
/* Names */

gint
gnt_object_name_compare(const gchar *a, const gchar *b)
{
	/* runs of digits compare as numbers and sort before other text, the
	 * rest byte by byte (Ganeti's NiceSort / Haskell's niceSort) */
	while (*a != '\0' && *b != '\0') {
		gboolean digit_a = g_ascii_isdigit(*a);
		gboolean digit_b = g_ascii_isdigit(*b);

		if (digit_a && digit_b) {
			const gchar *end_a;
			const gchar *end_b;
			gsize len_a;
			gsize len_b;
			gint cmp;

			while (*a == '0' && g_ascii_isdigit(a[1]))
				a++;
			while (*b == '0' && g_ascii_isdigit(b[1]))
				b++;
			for (end_a = a; g_ascii_isdigit(*end_a); end_a++)
				;
			for (end_b = b; g_ascii_isdigit(*end_b); end_b++)
				;
			len_a = (gsize)(end_a - a);
			len_b = (gsize)(end_b - b);
			if (len_a != len_b)
				return len_a < len_b ? -1 : 1;
			cmp = strncmp(a, b, len_a);
			if (cmp != 0)
				return cmp;
			a = end_a;
			b = end_b;
			continue;
		}
		if (digit_a != digit_b)
			return digit_a ? -1 : 1;
		if (*a != *b)
			return (guchar)*a < (guchar)*b ? -1 : 1;
		a++;
		b++;
	}
	return (*a != '\0') - (*b != '\0');
}

/* ------------------------------------------------------------------ */
/* What rows are computed from */

/* A node as instance rows see it. */
typedef struct {
	gchar *uuid;
	gchar *name;
	gchar *group; /* its group's UUID */
	gboolean offline;
	gboolean vm_capable;
	LiveNode *live;		    /* borrowed from the GntLiveData; NULL: not asked */
	JsonObject *live_instances; /* its answer's "instances" (borrowed), or NULL */
} NodeInfo;

static void
node_info_free(gpointer data)
{
	NodeInfo *info = data;

	g_free(info->uuid);
	g_free(info->name);
	g_free(info->group);
	g_free(info);
}

/* A node group as node and instance rows see it. */
typedef struct {
	gchar *name;
	JsonObject *ndparams; /* its own */
} GroupInfo;

static void
group_info_free(gpointer data)
{
	GroupInfo *info = data;

	g_free(info->name);
	g_clear_pointer(&info->ndparams, json_object_unref);
	g_free(info);
}

/* What an instance row's fields share, worked out once per row. */
typedef struct {
	GntConfigRecord *inst; /* the record it is for; NULL: nothing yet */
	const gchar *name;     /* borrowed from the record, as the rest */
	const gchar *pnode_uuid;
	const NodeInfo *pnode; /* NULL: not in the config */
	JsonObject *live;      /* what the primary reports about it; NULL: not running there */
	gboolean bad;	       /* the primary is offline, failed or was not asked */
} InstRow;

typedef struct {
	GntObjectKind kind;
	GntCluster *cluster;
	InstRow row;
	GntLiveData *live;	 /* borrowed; NULL: not collected */
	GHashTable *nodes;	 /* uuid -> NodeInfo */
	GHashTable *groups;	 /* uuid -> GroupInfo */
	GHashTable *group_nodes; /* group uuid -> GPtrArray of node names */
	GHashTable *running_on;	 /* instance name -> GPtrArray of node UUIDs (borrowed) */
	GHashTable *primaries;	 /* node uuid -> GPtrArray of instance names */
	GHashTable *secondaries; /* node uuid -> GPtrArray of instance names */
	JsonObject *empty;	 /* stands in for a missing dictionary */
} QueryContext;

static void
query_context_free(QueryContext *ctx)
{
	g_clear_pointer(&ctx->cluster, gnt_cluster_free);
	g_clear_pointer(&ctx->nodes, g_hash_table_unref);
	g_clear_pointer(&ctx->groups, g_hash_table_unref);
	g_clear_pointer(&ctx->group_nodes, g_hash_table_unref);
	g_clear_pointer(&ctx->running_on, g_hash_table_unref);
	g_clear_pointer(&ctx->primaries, g_hash_table_unref);
	g_clear_pointer(&ctx->secondaries, g_hash_table_unref);
	g_clear_pointer(&ctx->empty, json_object_unref);
	g_free(ctx);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(QueryContext, query_context_free)

/* ---- reading borrowed records (nothing here warns on a wrong type) ---- */

/* Rows are built from the records gnt_config_foreach_record() lends: an
 * instance typed, with its JSON made only when a field asks for it. */
static GntConfigRecord *
item_record(gconstpointer item)
{
	return (GntConfigRecord *)item;
}

static JsonObject *
item_json(gconstpointer item)
{
	return gnt_config_query_item_json(item);
}

/* The typed instance of @item, NULL when it is held as JSON. */
static const GntInstance *
item_instance(gconstpointer item)
{
	return gnt_config_record_peek_instance(item_record(item));
}

static const gchar *
rec_string(JsonObject *rec, const gchar *key)
{
	const gchar *value = NULL;

	return gnt_json_get_string(rec, key, &value, NULL) ? value : NULL;
}

/* The primary node's UUID of instance @rec. */
static const gchar *
inst_pnode_uuid(GntConfigRecord *rec)
{
	const GntInstance *typed = gnt_config_record_peek_instance(rec);

	return typed != NULL ? typed->primary_node
			     : rec_string(gnt_config_record_peek_json(rec), "primary_node");
}

static gboolean
rec_bool(JsonObject *rec, const gchar *key, gboolean fallback)
{
	gboolean value = fallback;

	return gnt_json_get_bool(rec, key, &value, NULL) ? value : fallback;
}

/* The dictionary @key of @rec, or @ctx's empty one. (transfer none) */
static JsonObject *
rec_object(const QueryContext *ctx, JsonObject *rec, const gchar *key)
{
	JsonObject *value = NULL;

	return rec != NULL && gnt_json_get_object(rec, key, &value, NULL) ? value : ctx->empty;
}

static JsonArray *
rec_array(JsonObject *rec, const gchar *key)
{
	JsonArray *value = NULL;

	return gnt_json_get_array(rec, key, &value, NULL) ? value : NULL;
}

static guint
rec_array_length(JsonObject *rec, const gchar *key)
{
	JsonArray *array = rec_array(rec, key);

	return array != NULL ? json_array_get_length(array) : 0;
}

/* Element @index of the list @key when it is an object, else NULL. */
static JsonObject *
rec_array_object(JsonObject *rec, const gchar *key, guint index)
{
	JsonArray *array = rec_array(rec, key);
	JsonNode *node;

	if (array == NULL || index >= json_array_get_length(array))
		return NULL;
	node = json_array_get_element(array, index);
	return JSON_NODE_HOLDS_OBJECT(node) ? json_node_get_object(node) : NULL;
}

/* A copy of member @key; NULL (no status change) when missing. */
static JsonNode *
rec_member_copy(JsonObject *rec, const gchar *key)
{
	JsonNode *node = rec != NULL ? json_object_get_member(rec, key) : NULL;

	return node != NULL ? gnt_json_node_deep_copy(node) : NULL;
}

/* Member @key (borrowed); RS_UNAVAIL when missing or null. */
static JsonNode *
member_peek(JsonObject *rec, const gchar *key, GntQueryStatus *status)
{
	JsonNode *node = rec != NULL ? json_object_get_member(rec, key) : NULL;

	if (node == NULL || JSON_NODE_HOLDS_NULL(node)) {
		*status = GNT_QUERY_STATUS_UNAVAIL;
		return NULL;
	}
	return node;
}

/* Member @key, copied; RS_UNAVAIL when missing or null. */
static JsonNode *
member_or_unavail(JsonObject *rec, const gchar *key, GntQueryStatus *status)
{
	JsonNode *node = member_peek(rec, key, status);

	return node != NULL ? gnt_json_node_deep_copy(node) : NULL;
}

/*
 * The fields a listing shows get a write function too (GntQueryWriteFunc),
 * made with get from one function, so that both answer the same:
 * PEEK_FIELD(stem) from peek_stem(), which returns the value borrowed (or
 * NULL with a status), TEXT_FIELD(stem) from text_stem(), which returns a
 * string (borrowed; NULL: null; or sets a status).
 */
#define PEEK_FIELD(stem)                                                                           \
	static JsonNode *get_##stem(gconstpointer item, gpointer user_data,                        \
				    GntQueryStatus *status)                                        \
	{                                                                                          \
		JsonNode *value = peek_##stem(item, user_data, status);                            \
		return value != NULL ? gnt_json_node_deep_copy(value) : NULL;                      \
	}                                                                                          \
	static void write_##stem(gconstpointer item, gpointer user_data, GString *out,             \
				 GntQueryStatus *status)                                           \
	{                                                                                          \
		JsonNode *value = peek_##stem(item, user_data, status);                            \
		if (value != NULL)                                                                 \
			gnt_json_append(out, value);                                               \
	}
#define TEXT_FIELD(stem)                                                                           \
	static JsonNode *get_##stem(gconstpointer item, gpointer user_data,                        \
				    GntQueryStatus *status)                                        \
	{                                                                                          \
		const gchar *text = text_##stem(item, user_data, status);                          \
		return *status == GNT_QUERY_STATUS_NORMAL ? gnt_json_node_new_string(text) : NULL; \
	}                                                                                          \
	static void write_##stem(gconstpointer item, gpointer user_data, GString *out,             \
				 GntQueryStatus *status)                                           \
	{                                                                                          \
		const gchar *text = text_##stem(item, user_data, status);                          \
		if (*status != GNT_QUERY_STATUS_NORMAL)                                            \
			return;                                                                    \
		if (text != NULL)                                                                  \
			gnt_json_append_string(out, text);                                         \
		else                                                                               \
			g_string_append(out, "null");                                              \
	}

/* Member @key, copied; null when missing. */
static JsonNode *
member_or_null(JsonObject *rec, const gchar *key)
{
	JsonNode *node = rec_member_copy(rec, key);

	return node != NULL ? node : gnt_json_node_new_null();
}

/* The cluster setting @key (a dictionary), or the empty one. */
static JsonObject *
cluster_setting(const QueryContext *ctx, const gchar *key)
{
	return rec_object(ctx, ctx->cluster->settings, key);
}

/* ------------------------------------------------------------------ */
/* Instances */

static const NodeInfo *
ctx_node(const QueryContext *ctx, const gchar *uuid)
{
	return uuid != NULL ? g_hash_table_lookup(ctx->nodes, uuid) : NULL;
}

/* The node-info answer of @node; NULL with RS_NODATA when there is none. */
static JsonObject *
node_live_info(const NodeInfo *node, GntQueryStatus *status)
{
	if (node == NULL || node->live == NULL || node->live->info == NULL) {
		*status = GNT_QUERY_STATUS_NODATA;
		return NULL;
	}
	return node->live->info;
}

/* What the fields of @inst's row share, worked out by the first one that
 * asks and kept until another record comes (the collector forgets it
 * before each record). */
static const InstRow *
inst_row(QueryContext *ctx, GntConfigRecord *inst)
{
	InstRow *row = &ctx->row;

	if (row->inst == inst)
		return row;
	row->inst = inst;
	row->name = gnt_config_record_get_name(inst);
	row->pnode_uuid = inst_pnode_uuid(inst);
	row->pnode = ctx_node(ctx, row->pnode_uuid);
	row->live = NULL;
	/* Ganeti's bad_nodes: offline, could not be asked, or not asked */
	row->bad = row->pnode == NULL || row->pnode->offline || row->pnode->live == NULL ||
		   row->pnode->live->info == NULL;
	if (!row->bad && row->name != NULL && row->pnode->live_instances != NULL &&
	    !gnt_json_get_object(row->pnode->live_instances, row->name, &row->live, NULL))
		row->live = NULL;
	return row;
}

static const NodeInfo *
inst_pnode(QueryContext *ctx, GntConfigRecord *inst)
{
	return inst_row(ctx, inst)->pnode;
}

/* Ganeti: the name, or None for a node not in the config. */
static const gchar *
text_inst_pnode(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	const NodeInfo *node = inst_pnode(user_data, item_record(item));

	return node != NULL ? node->name : NULL;
}
TEXT_FIELD(inst_pnode)

/* The name of the group @uuid (may be NULL), or NULL. */
static const gchar *
ctx_group_name(const QueryContext *ctx, const gchar *uuid)
{
	const GroupInfo *group = uuid != NULL ? g_hash_table_lookup(ctx->groups, uuid) : NULL;

	return group != NULL ? group->name : NULL;
}

/* The group of @node (may be NULL): its name, or with @uuid its UUID;
 * RS_UNAVAIL when it has none. */
static JsonNode *
node_group_field(const QueryContext *ctx, const NodeInfo *node, gboolean uuid,
		 GntQueryStatus *status)
{
	const gchar *value = node == NULL ? NULL
			     : uuid	  ? node->group
					  : ctx_group_name(ctx, node->group);

	if (value == NULL) {
		*status = GNT_QUERY_STATUS_UNAVAIL;
		return NULL;
	}
	return gnt_json_node_new_string(value);
}

static JsonNode *
get_inst_pnode_group(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return node_group_field(user_data, inst_pnode(user_data, item_record(item)), FALSE, status);
}

static JsonNode *
get_inst_pnode_group_uuid(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return node_group_field(user_data, inst_pnode(user_data, item_record(item)), TRUE, status);
}

static JsonNode *
get_inst_snodes(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	JsonArray *uuids = rec_array(item_json(item), "secondary_nodes");
	JsonArray *names = json_array_new();

	for (guint i = 0; uuids != NULL && i < json_array_get_length(uuids); i++) {
		JsonNode *uuid = json_array_get_element(uuids, i);
		const NodeInfo *node = json_node_get_value_type(uuid) == G_TYPE_STRING
					       ? ctx_node(user_data, json_node_get_string(uuid))
					       : NULL;

		if (node != NULL)
			json_array_add_string_element(names, node->name);
		else
			json_array_add_null_element(names);
	}
	return gnt_json_node_new_array(names);
}

/* The admin state of @inst: its enum, and its name as stored. */
static GntAdminState
inst_get_admin_state(GntConfigRecord *inst)
{
	const GntInstance *typed = gnt_config_record_peek_instance(inst);

	return typed != NULL ? typed->admin_state
			     : gnt_record_get_admin_state(gnt_config_record_peek_json(inst));
}

static const gchar *
inst_admin_state(GntConfigRecord *inst)
{
	const GntInstance *typed = gnt_config_record_peek_instance(inst);
	const gchar *state;

	if (typed != NULL)
		return gnt_admin_state_to_string(typed->admin_state);
	state = rec_string(gnt_config_record_peek_json(inst), "admin_state");
	return state != NULL ? state : gnt_admin_state_to_string(GNT_ADMIN_STATE_DOWN);
}

static GntAdminStateSource
inst_get_admin_state_source(GntConfigRecord *inst)
{
	const GntInstance *typed = gnt_config_record_peek_instance(inst);

	return typed != NULL ? typed->admin_state_source
			     : gnt_record_get_admin_state_source(gnt_config_record_peek_json(inst));
}

static const gchar *
text_inst_admin_state(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return inst_admin_state(item_record(item));
}
TEXT_FIELD(inst_admin_state)

static JsonNode *
get_inst_admin_up(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return gnt_json_node_new_bool(inst_get_admin_state(item_record(item)) ==
				      GNT_ADMIN_STATE_UP);
}

static JsonNode *
get_inst_admin_state_source(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	const gchar *source = rec_string(item_json(item), "admin_state_source");

	return gnt_json_node_new_string(
		source != NULL ? source
			       : gnt_admin_state_source_to_string(GNT_ADMIN_STATE_SOURCE_ADMIN));
}

static JsonNode *
get_inst_disks_active(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return gnt_json_node_new_bool(rec_bool(item_json(item), "disks_active", FALSE));
}

/* Fields that copy a member of the record as it is. */
static JsonNode *
get_rec_tags(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	JsonNode *tags = rec_member_copy(item_json(item), "tags");

	return tags != NULL ? tags : gnt_json_node_new_array(json_array_new());
}

/* The text of string field @key of the typed @inst (*@text NULL: null);
 * FALSE when @key is not one of its string fields. */
static gboolean
typed_text(const GntInstance *inst, const gchar *key, const gchar **text)
{
	if (strcmp(key, "name") == 0)
		*text = inst->name;
	else if (strcmp(key, "uuid") == 0)
		*text = inst->uuid;
	else if (strcmp(key, "os") == 0)
		*text = inst->os;
	else if (strcmp(key, "hypervisor") == 0)
		*text = inst->hypervisor;
	else if (strcmp(key, "disk_template") == 0)
		*text = gnt_disk_template_to_string(inst->disk_template);
	else
		return FALSE;
	return TRUE;
}

/* Number field @key of the typed @inst as a node; NULL when @key is not
 * one. (transfer full) */
static JsonNode *
typed_number(const GntInstance *inst, const gchar *key)
{
	if (strcmp(key, "serial_no") == 0)
		return gnt_json_node_new_int(inst->serial_no);
	if (strcmp(key, "ctime") == 0)
		return gnt_json_node_new_double(inst->ctime);
	if (strcmp(key, "mtime") == 0)
		return gnt_json_node_new_double(inst->mtime);
	return NULL;
}

/* Member @key as stored (a copy); RS_UNAVAIL when it is not set. */
static JsonNode *
member_field_get(gconstpointer item, const gchar *key, GntQueryStatus *status)
{
	const GntInstance *inst = item_instance(item);
	const gchar *text = NULL;
	JsonNode *node;

	if (inst != NULL && typed_text(inst, key, &text)) {
		if (text == NULL)
			*status = GNT_QUERY_STATUS_UNAVAIL;
		return text != NULL ? gnt_json_node_new_string(text) : NULL;
	}
	if (inst != NULL && (node = typed_number(inst, key)) != NULL)
		return node;
	node = member_peek(item_json(item), key, status);
	return node != NULL ? gnt_json_node_deep_copy(node) : NULL;
}

/* The same, written to @out. */
static void
member_field_write(gconstpointer item, const gchar *key, GString *out, GntQueryStatus *status)
{
	const GntInstance *inst = item_instance(item);
	const gchar *text = NULL;
	JsonNode *node;

	if (inst != NULL && typed_text(inst, key, &text)) {
		if (text == NULL)
			*status = GNT_QUERY_STATUS_UNAVAIL;
		else
			gnt_json_append_string(out, text);
		return;
	}
	if (inst != NULL && (node = typed_number(inst, key)) != NULL) {
		gnt_json_append(out, node);
		json_node_unref(node);
		return;
	}
	node = member_peek(item_json(item), key, status);
	if (node != NULL)
		gnt_json_append(out, node);
}

/* Fields showing member @key as stored; RS_UNAVAIL when it is not set. */
#define MEMBER_FIELD(stem, key)                                                                    \
	static JsonNode *get_##stem(gconstpointer item, gpointer user_data,                        \
				    GntQueryStatus *status)                                        \
	{                                                                                          \
		return member_field_get(item, key, status);                                        \
	}                                                                                          \
	static void write_##stem(gconstpointer item, gpointer user_data, GString *out,             \
				 GntQueryStatus *status)                                           \
	{                                                                                          \
		member_field_write(item, key, out, status);                                        \
	}
MEMBER_FIELD(rec_name, "name")
MEMBER_FIELD(rec_uuid, "uuid")
MEMBER_FIELD(rec_serial_no, "serial_no")
MEMBER_FIELD(rec_ctime, "ctime")
MEMBER_FIELD(rec_mtime, "mtime")
MEMBER_FIELD(inst_os, "os")
MEMBER_FIELD(group_alloc_policy, "alloc_policy")
MEMBER_FIELD(inst_hypervisor, "hypervisor")
MEMBER_FIELD(inst_disk_template, "disk_template")
MEMBER_FIELD(node_pip, "primary_ip")
MEMBER_FIELD(node_sip, "secondary_ip")
#undef MEMBER_FIELD

/* Depending on the hypervisor the port can be null (Ganeti). */
static JsonNode *
get_inst_network_port(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return member_or_null(item_json(item), "network_port");
}

/* Fields Gantry has no data for yet (no node groups, networks or console
 * information): RS_UNAVAIL, as Ganeti answers for a missing item. */
static JsonNode *
get_unavail(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	*status = GNT_QUERY_STATUS_UNAVAIL;
	return NULL;
}

static JsonNode *
get_inst_forthcoming(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return gnt_json_node_new_bool(rec_bool(item_json(item), "forthcoming", FALSE));
}

/* A list with one element per secondary node: its group's name (or with
 * @group_uuid its UUID), or null. */
static JsonNode *
snodes_groups(gconstpointer item, gpointer user_data, gboolean group_uuid)
{
	JsonArray *uuids = rec_array(item_json(item), "secondary_nodes");
	JsonArray *out = json_array_new();

	for (guint i = 0; uuids != NULL && i < json_array_get_length(uuids); i++) {
		JsonNode *uuid = json_array_get_element(uuids, i);
		const NodeInfo *node = json_node_get_value_type(uuid) == G_TYPE_STRING
					       ? ctx_node(user_data, json_node_get_string(uuid))
					       : NULL;

		const gchar *group = node == NULL ? NULL
				     : group_uuid ? node->group
						  : ctx_group_name(user_data, node->group);

		if (group != NULL)
			json_array_add_string_element(out, group);
		else
			json_array_add_null_element(out);
	}
	return gnt_json_node_new_array(out);
}

static JsonNode *
get_inst_snodes_group(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return snodes_groups(item, user_data, FALSE);
}

static JsonNode *
get_inst_snodes_group_uuid(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return snodes_groups(item, user_data, TRUE);
}

/* nic.networks.names: null for each NIC (no networks yet). */
static JsonNode *
get_inst_nic_network_names(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	JsonArray *out = json_array_new();

	for (guint i = 0; i < rec_array_length(item_json(item), "nics"); i++)
		json_array_add_null_element(out);
	return gnt_json_node_new_array(out);
}

/* ---- live state ---- */

static JsonNode *
get_inst_oper_state(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	const InstRow *row = inst_row(user_data, item_record(item));

	if (row->bad) {
		/* not RS_OFFLINE: that would describe the instance (Ganeti) */
		*status = GNT_QUERY_STATUS_NODATA;
		return NULL;
	}
	return gnt_json_node_new_bool(row->live != NULL && json_object_get_size(row->live) > 0);
}

/* Member @key of what the primary reports about the instance (borrowed);
 * RS_NODATA without a report from it, RS_UNAVAIL when the member is not
 * there (or it does not run there). */
static JsonNode *
inst_live_member(gconstpointer item, gpointer user_data, GntQueryStatus *status, const gchar *key)
{
	const InstRow *row = inst_row(user_data, item_record(item));
	JsonNode *node;

	if (row->bad) {
		*status = GNT_QUERY_STATUS_NODATA;
		return NULL;
	}
	node = row->live != NULL ? json_object_get_member(row->live, key) : NULL;
	if (node == NULL || JSON_NODE_HOLDS_NULL(node)) {
		*status = GNT_QUERY_STATUS_UNAVAIL;
		return NULL;
	}
	return node;
}

static JsonNode *
peek_inst_oper_ram(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return inst_live_member(item, user_data, status, "memory");
}

static JsonNode *
peek_inst_oper_vcpus(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return inst_live_member(item, user_data, status, "vcpus");
}
PEEK_FIELD(inst_oper_ram)
PEEK_FIELD(inst_oper_vcpus)

/* Whether the instance of @row runs on a node other than its primary
 * (Ganeti's wrongnode_inst). */
static gboolean
inst_runs_elsewhere(const QueryContext *ctx, const InstRow *row)
{
	GPtrArray *nodes = row->name != NULL && ctx->running_on != NULL
				   ? g_hash_table_lookup(ctx->running_on, row->name)
				   : NULL;

	for (guint i = 0; nodes != NULL && i < nodes->len; i++) {
		if (g_strcmp0(g_ptr_array_index(nodes, i), row->pnode_uuid) != 0)
			return TRUE;
	}
	return FALSE;
}

/* The instance's effective hvparams (skip_globals): a new object, NULL
 * when they cannot be filled. */
static JsonObject *
inst_filled_hvparams(const QueryContext *ctx, JsonObject *inst);

/* Ganeti's _GetLiveInstStatus. */
static const gchar *
inst_live_status(const QueryContext *ctx, const InstRow *row)
{
	gboolean up = inst_get_admin_state(row->inst) == GNT_ADMIN_STATE_UP;
	const gchar *state = rec_string(row->live, "state");

	if (inst_runs_elsewhere(ctx, row))
		return "ERROR_wrongnode";
	if (g_strcmp0(state, "shutdown") == 0) {
		gboolean allow_userdown = FALSE;

		if (up && rec_bool(ctx->cluster->settings, "enabled_user_shutdown", FALSE)) {
			JsonObject *inst = gnt_config_record_peek_json(row->inst);
			g_autoptr(JsonObject) hvparams = inst_filled_hvparams(ctx, inst);

			allow_userdown =
				g_strcmp0(rec_string(inst, "hypervisor"), "kvm") != 0 ||
				(hvparams != NULL && rec_bool(hvparams, "user_shutdown", FALSE));
		}
		if (up)
			return allow_userdown ? "USER_down" : "ERROR_down";
		return "ADMIN_down";
	}
	return up ? "running" : "ERROR_up";
}

/* Ganeti's _GetDeadInstStatus. */
static const gchar *
inst_dead_status(GntConfigRecord *inst)
{
	switch (inst_get_admin_state(inst)) {
	case GNT_ADMIN_STATE_UP:
		return "ERROR_down";
	case GNT_ADMIN_STATE_DOWN:
		return inst_get_admin_state_source(inst) == GNT_ADMIN_STATE_SOURCE_USER
			       ? "USER_down"
			       : "ADMIN_down";
	case GNT_ADMIN_STATE_OFFLINE:
	case GNT_ADMIN_STATE_LAST:
	default:
		return "ADMIN_offline";
	}
}

static const gchar *
text_inst_status(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	const InstRow *row = inst_row(user_data, item_record(item));
	const NodeInfo *node = row->pnode;

	if (node != NULL && node->offline)
		return "ERROR_nodeoffline";
	if (node != NULL && node->live != NULL && node->live->info == NULL)
		return "ERROR_nodedown";
	if (row->bad) {
		/* nothing collected from that node (or no such node) */
		*status = GNT_QUERY_STATUS_NODATA;
		return NULL;
	}
	if (row->live != NULL && json_object_get_size(row->live) > 0)
		return inst_live_status(user_data, row);
	return inst_dead_status(row->inst);
}
TEXT_FIELD(inst_status)

/* ---- parameters ---- */

/* Ganeti's FillHV(skip_globals=True), as the node is sent it without the
 * globals; NULL (RS_UNAVAIL) when the stored parameters do not fit the
 * hypervisor's table. */
static JsonObject *
inst_filled_hvparams(const QueryContext *ctx, JsonObject *inst)
{
	g_autoptr(GError) error = NULL;
	JsonObject *out = gnt_fill_hvparams(ctx->cluster->settings, inst, TRUE, &error);

	if (out == NULL)
		g_debug("instance '%s': %s", rec_string(inst, "name"), error->message);
	return out;
}

/* Private OS parameters show as "<redacted>", never their value. */
static void
overlay_redacted(JsonObject *out, JsonObject *private_params)
{
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *value;

	json_object_iter_init(&iter, private_params);
	while (json_object_iter_next(&iter, &key, &value))
		json_object_set_string_member(out, key, "<redacted>");
}

/* SimpleFillOS: the cluster's values for the OS, then for OS+variant, then
 * the instance's (private ones redacted). */
static JsonObject *
inst_filled_osparams(const QueryContext *ctx, JsonObject *inst)
{
	JsonObject *out = gnt_fill_osparams(ctx->cluster->settings, rec_string(inst, "os"),
					    rec_object(ctx, inst, "osparams"));

	overlay_redacted(out, rec_object(ctx, inst, "osparams_private"));
	return out;
}

static JsonNode *
get_inst_hvparams(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	JsonObject *params = inst_filled_hvparams(user_data, item_json(item));

	if (params == NULL) {
		*status = GNT_QUERY_STATUS_UNAVAIL;
		return NULL;
	}
	return gnt_json_node_new_object(params);
}

static JsonNode *
get_inst_beparams(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	const QueryContext *ctx = user_data;

	return gnt_json_node_new_object(gnt_fill_beparams(ctx->cluster->settings, item_json(item)));
}

static JsonNode *
get_inst_osparams(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return gnt_json_node_new_object(inst_filled_osparams(user_data, item_json(item)));
}

static JsonNode *
custom_params(gconstpointer item, gpointer user_data, const gchar *key)
{
	return gnt_json_node_new_object(
		gnt_json_object_deep_copy(rec_object(user_data, item_json(item), key)));
}

/* custom_hvparams, custom_ndparams, custom_ipolicy, ...: the record's own
 * dictionary of the row's key. */
static JsonNode *
get_custom_params(const GntQueryField *field, gconstpointer item, gpointer user_data,
		  GntQueryStatus *status)
{
	return custom_params(item, user_data, field->key);
}

static JsonNode *
get_inst_custom_osparams(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	JsonNode *node = custom_params(item, user_data, "osparams");

	overlay_redacted(json_node_get_object(node),
			 rec_object(user_data, item_json(item), "osparams_private"));
	return node;
}

static JsonNode *
get_inst_custom_nicparams(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	JsonObject *inst = item_json(item);
	JsonArray *out = json_array_new();

	for (guint i = 0; i < rec_array_length(inst, "nics"); i++) {
		JsonObject *nic = rec_array_object(inst, "nics", i);

		json_array_add_object_element(
			out, gnt_json_object_deep_copy(rec_object(user_data, nic, "nicparams")));
	}
	return gnt_json_node_new_array(out);
}

/* hv/NAME: the filled value; RS_UNAVAIL when the hypervisor has no such
 * parameter. */
static JsonNode *
get_hv_param(const GntQueryField *field, gconstpointer item, gpointer user_data,
	     GntQueryStatus *status)
{
	g_autoptr(JsonObject) params = inst_filled_hvparams(user_data, item_json(item));

	return member_or_unavail(params, field->key, status);
}

/* be/NAME: the filled value, null if unset (Ganeti). */
static JsonNode *
get_be_param(const GntQueryField *field, gconstpointer item, gpointer user_data,
	     GntQueryStatus *status)
{
	const QueryContext *ctx = user_data;
	g_autoptr(JsonObject) params = gnt_fill_beparams(ctx->cluster->settings, item_json(item));

	return member_or_null(params, field->key);
}

/* Ganeti's HVS_PARAMETER_TYPES without HVC_GLOBALS: name, title (NULL:
 * "hv/NAME") and kind (strings are "other" in Ganeti, as they may be
 * empty). */
#define HV_PARAMS(X)                                                                               \
	X(acpi, "ACPI", BOOL)                                                                      \
	X(blockdev_prefix, NULL, OTHER)                                                            \
	X(boot_order, "Boot_order", OTHER)                                                         \
	X(bootloader_args, NULL, OTHER)                                                            \
	X(bootloader_path, NULL, OTHER)                                                            \
	X(cdrom2_image_path, NULL, OTHER)                                                          \
	X(cdrom_disk_type, NULL, OTHER)                                                            \
	X(cdrom_image_path, "CDROM_image_path", OTHER)                                             \
	X(cpu_cap, NULL, NUMBER)                                                                   \
	X(cpu_cores, NULL, NUMBER)                                                                 \
	X(cpu_mask, NULL, OTHER)                                                                   \
	X(cpu_sockets, NULL, NUMBER)                                                               \
	X(cpu_threads, NULL, NUMBER)                                                               \
	X(cpu_type, "cpu_type", OTHER)                                                             \
	X(cpu_weight, NULL, NUMBER)                                                                \
	X(cpuid, NULL, OTHER)                                                                      \
	X(device_model, NULL, OTHER)                                                               \
	X(devices, NULL, OTHER)                                                                    \
	X(disk_aio, NULL, OTHER)                                                                   \
	X(disk_cache, NULL, OTHER)                                                                 \
	X(disk_discard, NULL, OTHER)                                                               \
	X(disk_type, "Disk_type", OTHER)                                                           \
	X(drop_capabilities, NULL, OTHER)                                                          \
	X(extra_cgroups, NULL, OTHER)                                                              \
	X(extra_config, NULL, OTHER)                                                               \
	X(floppy_image_path, NULL, OTHER)                                                          \
	X(init_script, NULL, OTHER)                                                                \
	X(initrd_path, "Initrd_path", OTHER)                                                       \
	X(kernel_args, NULL, OTHER)                                                                \
	X(kernel_path, "Kernel_path", OTHER)                                                       \
	X(keymap, NULL, OTHER)                                                                     \
	X(kvm_extra, NULL, OTHER)                                                                  \
	X(kvm_flag, NULL, OTHER)                                                                   \
	X(kvm_path, NULL, OTHER)                                                                   \
	X(kvm_pci_reservations, NULL, NUMBER)                                                      \
	X(machine_version, NULL, OTHER)                                                            \
	X(mem_path, NULL, OTHER)                                                                   \
	X(migration_caps, NULL, OTHER)                                                             \
	X(migration_downtime, NULL, NUMBER)                                                        \
	X(nic_type, "NIC_type", OTHER)                                                             \
	X(num_ttys, NULL, NUMBER)                                                                  \
	X(pae, "PAE", BOOL)                                                                        \
	X(pci_pass, "pci_pass", OTHER)                                                             \
	X(reboot_behavior, NULL, OTHER)                                                            \
	X(root_path, NULL, OTHER)                                                                  \
	X(scsi_controller_type, NULL, OTHER)                                                       \
	X(security_domain, NULL, OTHER)                                                            \
	X(security_model, NULL, OTHER)                                                             \
	X(serial_console, NULL, BOOL)                                                              \
	X(serial_speed, NULL, NUMBER)                                                              \
	X(soundhw, NULL, OTHER)                                                                    \
	X(spice_bind, NULL, OTHER)                                                                 \
	X(spice_image_compression, NULL, OTHER)                                                    \
	X(spice_ip_version, NULL, NUMBER)                                                          \
	X(spice_jpeg_wan_compression, NULL, OTHER)                                                 \
	X(spice_password_file, NULL, OTHER)                                                        \
	X(spice_playback_compression, NULL, BOOL)                                                  \
	X(spice_streaming_video, NULL, OTHER)                                                      \
	X(spice_tls_ciphers, NULL, OTHER)                                                          \
	X(spice_use_tls, NULL, BOOL)                                                               \
	X(spice_use_vdagent, NULL, BOOL)                                                           \
	X(spice_zlib_glz_wan_compression, NULL, OTHER)                                             \
	X(startup_timeout, NULL, NUMBER)                                                           \
	X(usb_devices, NULL, OTHER)                                                                \
	X(usb_mouse, NULL, OTHER)                                                                  \
	X(use_bootloader, NULL, BOOL)                                                              \
	X(use_chroot, NULL, BOOL)                                                                  \
	X(use_guest_agent, NULL, BOOL)                                                             \
	X(use_localtime, NULL, BOOL)                                                               \
	X(user_shutdown, NULL, BOOL)                                                               \
	X(vga, NULL, OTHER)                                                                        \
	X(vhost_net, NULL, BOOL)                                                                   \
	X(vif_script, NULL, OTHER)                                                                 \
	X(vif_type, NULL, OTHER)                                                                   \
	X(viridian, NULL, BOOL)                                                                    \
	X(virtio_net_queues, NULL, NUMBER)                                                         \
	X(vnc_bind_address, "VNC_bind_address", OTHER)                                             \
	X(vnc_password_file, NULL, OTHER)                                                          \
	X(vnc_tls, NULL, BOOL)                                                                     \
	X(vnc_x509_path, NULL, OTHER)                                                              \
	X(vnc_x509_verify, NULL, BOOL)                                                             \
	X(vnet_hdr, NULL, BOOL)

/* Ganeti's BES_PARAMETER_TYPES and BES_PARAMETER_TITLES. */
#define BE_PARAMS(X)                                                                               \
	X(always_failover, NULL, BOOL)                                                             \
	X(auto_balance, "Auto_balance", BOOL)                                                      \
	X(maxmem, "ConfigMaxMem", UNIT)                                                            \
	X(minmem, "ConfigMinMem", UNIT)                                                            \
	X(spindle_use, NULL, NUMBER)                                                               \
	X(vcpus, "ConfigVCPUs", NUMBER)

/* A parameter's field, read by its prefix's getter (get_hv_param(), ...). */
typedef struct {
	const gchar *name;
	const gchar *title; /* NULL: PREFIX/NAME */
	GntQueryKind kind;
} ParamField;

#define PARAM_ROW(name, title, kind) {#name, title, GNT_QUERY_KIND_##kind},
static const ParamField hv_fields[] = {HV_PARAMS(PARAM_ROW)};
static const ParamField be_fields[] = {BE_PARAMS(PARAM_ROW)};

/* ---- disks ---- */

static guint64
disk_usage_of(JsonObject *inst)
{
	guint64 total = 0;

	/* Ganeti's ComputeDiskSize: diskless 0, else the disks' sizes (its
	 * drbd metadata does not exist here: the config has no drbd) */
	if (gnt_record_get_disk_template(inst) == GNT_DISK_TEMPLATE_DISKLESS)
		return 0;
	for (guint i = 0; i < rec_array_length(inst, "disks"); i++) {
		JsonObject *disk = rec_array_object(inst, "disks", i);
		gint64 size = 0;

		if (disk != NULL && gnt_json_get_int(disk, "size", &size, NULL) && size > 0)
			total += (guint64)size;
	}
	return total;
}

static JsonNode *
get_inst_disk_usage(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return gnt_json_node_new_int((gint64)disk_usage_of(item_json(item)));
}

static JsonNode *
get_inst_disk_count(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return gnt_json_node_new_int(rec_array_length(item_json(item), "disks"));
}

static JsonNode *
get_inst_nic_count(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return gnt_json_node_new_int(rec_array_length(item_json(item), "nics"));
}

/* A list with member @key of each element of the list @list_key (null when
 * missing). */
static JsonNode *
per_element(JsonObject *inst, const gchar *list_key, const gchar *key)
{
	JsonArray *out = json_array_new();

	for (guint i = 0; i < rec_array_length(inst, list_key); i++)
		json_array_add_element(out,
				       member_or_null(rec_array_object(inst, list_key, i), key));
	return gnt_json_node_new_array(out);
}

/* disk.sizes, nic.macs, ...: the row's key of each disk, of each NIC. */
static JsonNode *
get_disks_member(const GntQueryField *field, gconstpointer item, gpointer user_data,
		 GntQueryStatus *status)
{
	return per_element(item_json(item), "disks", field->key);
}

static JsonNode *
get_nics_member(const GntQueryField *field, gconstpointer item, gpointer user_data,
		GntQueryStatus *status)
{
	return per_element(item_json(item), "nics", field->key);
}

/* disk.ATTR/N: the row's key of disk N; RS_UNAVAIL when there is no such
 * disk or the member is unset. */
static JsonNode *
get_disk_field(const GntQueryField *field, gconstpointer item, gpointer user_data,
	       GntQueryStatus *status)
{
	JsonObject *disk = rec_array_object(item_json(item), "disks", field->index);

	return member_or_unavail(disk, field->key, status);
}

/* ---- NICs ---- */

/* The NIC's nicparams filled from the cluster's defaults: a new object. */
static JsonObject *
nic_filled_params(const QueryContext *ctx, JsonObject *nic)
{
	return gnt_fill_nicparams(ctx->cluster->settings, nic);
}

/* The bit of a NIC mode in a set of modes. */
#define NIC_MODE_BIT(mode) (1u << (mode))

/* Whether filled nicparams @params have a mode in @modes. */
static gboolean
nic_mode_in(JsonObject *params, guint modes)
{
	GntNicMode mode = GNT_NIC_MODE_LAST;
	const gchar *name = rec_string(params, "mode");

	return name != NULL && gnt_nic_mode_from_string(name, &mode, NULL) &&
	       (modes & NIC_MODE_BIT(mode)) != 0;
}

/* The filled nicparams of each NIC: member @key, or null when the mode is
 * not one of @modes (0: any). */
static JsonNode *
per_nic_param(const QueryContext *ctx, JsonObject *inst, const gchar *key, guint modes)
{
	JsonArray *out = json_array_new();

	for (guint i = 0; i < rec_array_length(inst, "nics"); i++) {
		g_autoptr(JsonObject)
			params = nic_filled_params(ctx, rec_array_object(inst, "nics", i));

		if (modes != 0 && !nic_mode_in(params, modes))
			json_array_add_null_element(out);
		else
			json_array_add_element(out, member_or_null(params, key));
	}
	return gnt_json_node_new_array(out);
}

#define BRIDGED_MODES NIC_MODE_BIT(GNT_NIC_MODE_BRIDGED)
#define VLAN_MODES    (NIC_MODE_BIT(GNT_NIC_MODE_BRIDGED) | NIC_MODE_BIT(GNT_NIC_MODE_OPENVSWITCH))
#define OVS_MODES     NIC_MODE_BIT(GNT_NIC_MODE_OPENVSWITCH)

/* nic.modes, nic.links, nic.vlans, nic.bridges: the row's key of each
 * NIC's filled parameters; a bridge is the link of a bridged NIC, a VLAN
 * only shown for the modes that have one. */
static JsonNode *
get_nics_param(const GntQueryField *field, gconstpointer item, gpointer user_data,
	       GntQueryStatus *status)
{
	if (strcmp(field->key, "bridge") == 0)
		return per_nic_param(user_data, item_json(item), "link", BRIDGED_MODES);
	return per_nic_param(user_data, item_json(item), field->key,
			     strcmp(field->key, "vlan") == 0 ? VLAN_MODES : 0);
}

/* nic.ATTR/N. The row's key: a member of the NIC, or "mode", "link",
 * "bridge", "vlan" for its filled parameters. */
static JsonNode *
get_nic_field(const GntQueryField *field, gconstpointer item, gpointer user_data,
	      GntQueryStatus *status)
{
	const gchar *key = field->key;
	JsonObject *nic = rec_array_object(item_json(item), "nics", field->index);
	g_autoptr(JsonObject) params = NULL;

	if (nic == NULL) {
		*status = GNT_QUERY_STATUS_UNAVAIL;
		return NULL;
	}
	if (strcmp(key, "network_name") == 0) {
		/* no networks yet: a NIC's network has no name to show */
		*status = GNT_QUERY_STATUS_UNAVAIL;
		return NULL;
	}
	if (strcmp(key, "mode") != 0 && strcmp(key, "link") != 0 && strcmp(key, "bridge") != 0 &&
	    strcmp(key, "vlan") != 0)
		return strcmp(key, "mac") == 0 ? member_or_null(nic, key)
					       : member_or_unavail(nic, key, status);
	params = nic_filled_params(user_data, nic);
	if (strcmp(key, "bridge") == 0) {
		if (!nic_mode_in(params, BRIDGED_MODES)) {
			*status = GNT_QUERY_STATUS_UNAVAIL;
			return NULL;
		}
		key = "link";
	} else if (strcmp(key, "vlan") == 0 && !nic_mode_in(params, OVS_MODES)) {
		*status = GNT_QUERY_STATUS_UNAVAIL;
		return NULL;
	}
	return member_or_null(params, key);
}

/* A numbered field: NAME/N with the title TITLE/N and the doc
 * "DOC_HEAD <ordinal> DOC_TAIL". */
typedef struct {
	const gchar *name;
	const gchar *title;
	GntQueryKind kind;
	const gchar *doc_head;
	const gchar *doc_tail;
	GntQueryFieldGetFunc get_field;
	const gchar *key;
	guint count;
} IndexedField;

#define DISK_ROW(name, title, kind, head, key)                                                     \
	{                                                                                          \
		name, title, GNT_QUERY_KIND_##kind, head, "disk", get_disk_field, key, MAX_DISKS   \
	}
#define NIC_ROW(name, title, kind, head, key)                                                      \
	{                                                                                          \
		name, title, GNT_QUERY_KIND_##kind, head, "network interface", get_nic_field, key, \
			MAX_NICS                                                                   \
	}
static const IndexedField indexed_fields[] = {
	NIC_ROW("nic.ip", "NicIP", TEXT, "IP address of", "ip"),
	NIC_ROW("nic.mac", "NicMAC", TEXT, "MAC address of", "mac"),
	NIC_ROW("nic.name", "NicName", TEXT, "Name address of", "name"),
	NIC_ROW("nic.uuid", "NicUUID", TEXT, "UUID address of", "uuid"),
	NIC_ROW("nic.mode", "NicMode", TEXT, "Mode of", "mode"),
	NIC_ROW("nic.link", "NicLink", TEXT, "Link of", "link"),
	NIC_ROW("nic.bridge", "NicBridge", TEXT, "Bridge of", "bridge"),
	NIC_ROW("nic.vlan", "NicVLAN", TEXT, "VLAN of", "vlan"),
	NIC_ROW("nic.network", "NicNetwork", TEXT, "Network of", "network"),
	NIC_ROW("nic.network.name", "NicNetworkName", TEXT, "Network name of", "network_name"),
	DISK_ROW("disk.size", "Disk", UNIT, "Disk size of", "size"),
	DISK_ROW("disk.spindles", "DiskSpindles", NUMBER, "Spindles of", "spindles"),
	DISK_ROW("disk.name", "DiskName", TEXT, "Name of", "name"),
	DISK_ROW("disk.uuid", "DiskUUID", TEXT, "UUID of", "uuid"),
};
#undef DISK_ROW
#undef NIC_ROW

#define STATUS_DOC                                                                                 \
	"Instance status; \"running\" if instance is set to be running and actually is,"           \
	" \"ADMIN_down\" if instance is stopped and is not running, \"ERROR_wrongnode\" if"        \
	" instance running, but not on its designated primary node, \"ERROR_up\" if instance"      \
	" should be stopped, but is actually running, \"ERROR_down\" if instance should run,"      \
	" but doesn't, \"ERROR_nodedown\" if instance's primary node is down,"                     \
	" \"ERROR_nodeoffline\" if instance's primary node is marked offline, \"ADMIN_offline\""   \
	" if instance is offline and does not use dynamic, \"USER_down\" if the user shutdown"     \
	" the instance resources"
#define SERIAL_DOC(what) what " object serial number, incremented on each modification"

#define F(name, title, kind, doc, get)                                                             \
	{                                                                                          \
		name, title, GNT_QUERY_KIND_##kind, GNT_QUERY_FLAG_NONE, doc, get, NULL            \
	}
#define F_HOSTNAME(name, title, kind, doc, get)                                                    \
	{                                                                                          \
		name, title, GNT_QUERY_KIND_##kind, GNT_QUERY_FLAG_HOSTNAME, doc, get, NULL        \
	}
/* with a getter several rows share, told the row's @key */
#define FK(name, title, kind, doc, get_field, key)                                                 \
	{                                                                                          \
		name, title, GNT_QUERY_KIND_##kind, GNT_QUERY_FLAG_NONE, doc, NULL, NULL,          \
			get_field, key                                                             \
	}
/* with a write function: get_STEM and write_STEM */
#define FW(name, title, kind, doc, stem)                                                           \
	{                                                                                          \
		name, title, GNT_QUERY_KIND_##kind, GNT_QUERY_FLAG_NONE, doc, get_##stem,          \
			write_##stem                                                               \
	}
#define FW_HOSTNAME(name, title, kind, doc, stem)                                                  \
	{                                                                                          \
		name, title, GNT_QUERY_KIND_##kind, GNT_QUERY_FLAG_HOSTNAME, doc, get_##stem,      \
			write_##stem                                                               \
	}

static const GntQueryField instance_static_fields[] = {
	FW_HOSTNAME("pnode", "Primary_node", TEXT, "Primary node", inst_pnode),
	F("pnode.group", "PrimaryNodeGroup", TEXT, "Primary node's group", get_inst_pnode_group),
	F("pnode.group.uuid", "PrimaryNodeGroupUUID", TEXT, "Primary node's group UUID",
	  get_inst_pnode_group_uuid),
	F("snodes", "Secondary_Nodes", OTHER, "Secondary nodes; usually this will just be one node",
	  get_inst_snodes),
	F("snodes.group", "SecondaryNodesGroups", OTHER, "Node groups of secondary nodes",
	  get_inst_snodes_group),
	F("snodes.group.uuid", "SecondaryNodesGroupsUUID", OTHER,
	  "Node group UUIDs of secondary nodes", get_inst_snodes_group_uuid),
	FW("admin_state", "InstanceState", TEXT, "Desired state of the instance", inst_admin_state),
	F("admin_up", "Autostart", BOOL, "Desired state of the instance", get_inst_admin_up),
	F("admin_state_source", "InstanceStateSource", TEXT,
	  "Who last changed the desired state of the instance", get_inst_admin_state_source),
	F("disks_active", "DisksActive", BOOL, "Desired state of the instance disks",
	  get_inst_disks_active),
	F("tags", "Tags", OTHER, "Tags", get_rec_tags),
	F("console", "Console", OTHER, "Instance console information", get_unavail),
	F("forthcoming", "Forthcoming", BOOL, "Whether the Instance is forthcoming",
	  get_inst_forthcoming),
	FW("disk_template", "Disk_template", TEXT, "Instance disk template", inst_disk_template),
	FW("hypervisor", "Hypervisor", TEXT, "Hypervisor name", inst_hypervisor),
	FW_HOSTNAME("name", "Instance", TEXT, "Instance name", rec_name),
	F("network_port", "Network_port", OTHER,
	  "Instance network port if available (e.g. for VNC console)", get_inst_network_port),
	FW("os", "OS", TEXT, "Operating system", inst_os),
	FW("serial_no", "SerialNo", NUMBER, SERIAL_DOC("Instance"), rec_serial_no),
	FW("uuid", "UUID", TEXT, "Instance UUID", rec_uuid),
	F("oper_state", "Running", BOOL, "Actual state of instance", get_inst_oper_state),
	FW("oper_ram", "Memory", UNIT, "Actual memory usage as seen by hypervisor", inst_oper_ram),
	FW("oper_vcpus", "VCPUs", NUMBER, "Actual number of VCPUs as seen by hypervisor",
	   inst_oper_vcpus),
	FW("status", "Status", TEXT, STATUS_DOC, inst_status),
	F("nic.count", "NICs", NUMBER, "Number of network interfaces", get_inst_nic_count),
	FK("nic.macs", "NIC_MACs", OTHER, "List containing each network interface's MAC address",
	   get_nics_member, "mac"),
	FK("nic.ips", "NIC_IPs", OTHER, "List containing each network interface's IP address",
	   get_nics_member, "ip"),
	FK("nic.names", "NIC_Names", OTHER, "List containing each network interface's name",
	   get_nics_member, "name"),
	FK("nic.uuids", "NIC_UUIDs", OTHER, "List containing each network interface's UUID",
	   get_nics_member, "uuid"),
	FK("nic.modes", "NIC_modes", OTHER, "List containing each network interface's mode",
	   get_nics_param, "mode"),
	FK("nic.links", "NIC_links", OTHER, "List containing each network interface's link",
	   get_nics_param, "link"),
	FK("nic.vlans", "NIC_VLANs", OTHER, "List containing each network interface's VLAN",
	   get_nics_param, "vlan"),
	FK("nic.bridges", "NIC_bridges", OTHER, "List containing each network interface's bridge",
	   get_nics_param, "bridge"),
	FK("nic.networks", "NIC_networks", OTHER, "List containing each interface's network",
	   get_nics_member, "network"),
	F("nic.networks.names", "NIC_networks_names", OTHER,
	  "List containing each interface's network", get_inst_nic_network_names),
	F("hvparams", "HypervisorParameters", OTHER, "Hypervisor parameters (merged)",
	  get_inst_hvparams),
	F("beparams", "BackendParameters", OTHER, "Backend parameters (merged)", get_inst_beparams),
	F("osparams", "OpSysParameters", OTHER, "Operating system parameters (merged)",
	  get_inst_osparams),
	FK("custom_hvparams", "CustomHypervisorParameters", OTHER, "Custom hypervisor parameters",
	   get_custom_params, "hvparams"),
	FK("custom_beparams", "CustomBackendParameters", OTHER, "Custom backend parameters",
	   get_custom_params, "beparams"),
	F("custom_osparams", "CustomOpSysParameters", OTHER, "Custom operating system parameters",
	  get_inst_custom_osparams),
	F("custom_nicparams", "CustomNicParameters", OTHER, "Custom network interface parameters",
	  get_inst_custom_nicparams),
	F("disk_usage", "DiskUsage", UNIT,
	  "Total disk space used by instance on each of its nodes; this is not the disk size"
	  " visible to the instance, but the usage on the node",
	  get_inst_disk_usage),
	F("disk.count", "Disks", NUMBER, "Number of disks", get_inst_disk_count),
	FK("disk.sizes", "Disk_sizes", OTHER, "List of disk sizes", get_disks_member, "size"),
	FK("disk.spindles", "Disk_spindles", OTHER, "List of disk spindles", get_disks_member,
	   "spindles"),
	FK("disk.names", "Disk_names", OTHER, "List of disk names", get_disks_member, "name"),
	FK("disk.uuids", "Disk_UUIDs", OTHER, "List of disk UUIDs", get_disks_member, "uuid"),
	FW("ctime", "CTime", TIMESTAMP, "Creation timestamp", rec_ctime),
	FW("mtime", "MTime", TIMESTAMP, "Modification timestamp", rec_mtime),
};

/* Ganeti's aliases: a copy of the target's definition under another name. */
static const struct {
	const gchar *alias;
	const gchar *target;
} instance_aliases[] = {
	{"vcpus", "be/vcpus"},	     {"be/memory", "be/maxmem"},
	{"sda_size", "disk.size/0"}, {"sdb_size", "disk.size/1"},
	{"ip", "nic.ip/0"},	     {"mac", "nic.mac/0"},
	{"bridge", "nic.bridge/0"},  {"nic_mode", "nic.mode/0"},
	{"nic_link", "nic.link/0"},  {"nic_network", "nic.network/0"},
};

static const gchar *const instance_live_fields[] = {
	"status", "oper_state", "oper_ram", "oper_vcpus", NULL,
};

/* ------------------------------------------------------------------ */
/* Nodes */

static JsonNode *
get_node_master(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	const QueryContext *ctx = user_data;
	JsonObject *node = item_json(item);
	const gchar *master = ctx->cluster->master_node;

	return gnt_json_node_new_bool(master != NULL &&
				      (g_strcmp0(rec_string(node, "name"), master) == 0 ||
				       g_strcmp0(rec_string(node, "uuid"), master) == 0));
}

static JsonNode *
get_node_role(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	JsonObject *node = item_json(item);
	g_autoptr(JsonNode) master = get_node_master(item, user_data, status);
	const gchar *role = "R";

	if (json_node_get_boolean(master))
		role = "M";
	else if (rec_bool(node, "master_candidate", FALSE))
		role = "C";
	else if (rec_bool(node, "drained", FALSE))
		role = "D";
	else if (rec_bool(node, "offline", FALSE))
		role = "O";
	return gnt_json_node_new_string(role);
}

static JsonNode *
get_node_group(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return node_group_field(user_data, ctx_node(user_data, rec_string(item_json(item), "uuid")),
				FALSE, status);
}

static JsonNode *
get_node_group_uuid(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return node_group_field(user_data, ctx_node(user_data, rec_string(item_json(item), "uuid")),
				TRUE, status);
}

static JsonNode *
get_node_powered(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	/* no out-of-band management: Ganeti answers RS_UNAVAIL then */
	*status = GNT_QUERY_STATUS_UNAVAIL;
	return NULL;
}

/* Ganeti's filled node parameters: the cluster's, then the group's, then
 * (for a node) the node's own. @item is a node or a group record. */
static JsonNode *
get_node_ndparams(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	const QueryContext *ctx = user_data;
	const GroupInfo *group = NULL;

	if (ctx->kind == GNT_OBJECT_NODE) {
		const NodeInfo *node = ctx_node(ctx, rec_string(item_json(item), "uuid"));

		if (node != NULL && node->group != NULL)
			group = g_hash_table_lookup(ctx->groups, node->group);
	}
	return gnt_json_node_new_object(
		gnt_fill_ndparams(ctx->cluster->settings, group != NULL ? group->ndparams : NULL,
				  rec_object(ctx, item_json(item), "ndparams")));
}

/* ndp/NAME: the filled value, null if unset (Ganeti). */
static JsonNode *
get_nd_param(const GntQueryField *field, gconstpointer item, gpointer user_data,
	     GntQueryStatus *status)
{
	g_autoptr(JsonNode) params = get_node_ndparams(item, user_data, status);

	return member_or_null(json_node_get_object(params), field->key);
}

/* Ganeti's NDS_PARAMETER_TYPES and NDS_PARAMETER_TITLES. */
#define ND_PARAMS(X)                                                                               \
	X(cpu_speed, NULL, FLOAT)                                                                  \
	X(exclusive_storage, "ExclusiveStorage", BOOL)                                             \
	X(oob_program, "OutOfBandProgram", OTHER)                                                  \
	X(ovs, "OpenvSwitch", BOOL)                                                                \
	X(ovs_link, "OpenvSwitchLink", OTHER)                                                      \
	X(ovs_name, "OpenvSwitchName", OTHER)                                                      \
	X(spindle_count, "SpindleCount", NUMBER)                                                   \
	X(ssh_port, NULL, NUMBER)

static const ParamField nd_fields[] = {ND_PARAMS(PARAM_ROW)};
#undef PARAM_ROW

/* drained, offline, master_candidate: a node's flag of the row's key,
 * false when unset. */
static JsonNode *
get_node_flag(const GntQueryField *field, gconstpointer item, gpointer user_data,
	      GntQueryStatus *status)
{
	return gnt_json_node_new_bool(rec_bool(item_json(item), field->key, FALSE));
}

/* master_capable, vm_capable: what a node can be, true when unset. */
static JsonNode *
get_node_capability(const GntQueryField *field, gconstpointer item, gpointer user_data,
		    GntQueryStatus *status)
{
	return gnt_json_node_new_bool(rec_bool(item_json(item), field->key, TRUE));
}

/* The instance names of @map for the node @item, natural order. */
static GPtrArray *
node_instances(GHashTable *map, gconstpointer item)
{
	const gchar *uuid = rec_string(item_json(item), "uuid");

	return map != NULL && uuid != NULL ? g_hash_table_lookup(map, uuid) : NULL;
}

static JsonNode *
instance_count(GHashTable *map, gconstpointer item)
{
	GPtrArray *names = node_instances(map, item);

	return gnt_json_node_new_int(names != NULL ? names->len : 0);
}

static JsonNode *
instance_list(GHashTable *map, gconstpointer item)
{
	GPtrArray *names = node_instances(map, item);
	JsonArray *out = json_array_new();

	for (guint i = 0; names != NULL && i < names->len; i++)
		json_array_add_string_element(out, g_ptr_array_index(names, i));
	return gnt_json_node_new_array(out);
}

static JsonNode *
get_node_pinst_cnt(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return instance_count(((const QueryContext *)user_data)->primaries, item);
}

static JsonNode *
get_node_pinst_list(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return instance_list(((const QueryContext *)user_data)->primaries, item);
}

static JsonNode *
get_node_sinst_cnt(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return instance_count(((const QueryContext *)user_data)->secondaries, item);
}

static JsonNode *
get_node_sinst_list(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return instance_list(((const QueryContext *)user_data)->secondaries, item);
}

/* Ganeti's _GetLiveNodeField: offline nodes RS_OFFLINE, nodes that host
 * no instances RS_UNAVAIL, nodes not asked or not answering RS_NODATA,
 * then the value (numbers must be integers) or RS_UNAVAIL. */
static JsonNode *
node_live_field(gconstpointer item, gpointer user_data, GntQueryStatus *status, const gchar *key,
		gboolean numeric)
{
	const QueryContext *ctx = user_data;
	JsonObject *rec = item_json(item);
	const gchar *uuid = rec_string(rec, "uuid");
	const NodeInfo *node = ctx_node(ctx, uuid);
	JsonObject *info;
	JsonNode *value;
	gdouble number = 0;

	if (rec_bool(rec, "offline", FALSE)) {
		*status = GNT_QUERY_STATUS_OFFLINE;
		return NULL;
	}
	if (!rec_bool(rec, "vm_capable", TRUE)) {
		*status = GNT_QUERY_STATUS_UNAVAIL;
		return NULL;
	}
	info = node_live_info(node, status);
	if (info == NULL)
		return NULL;
	value = json_object_get_member(info, key);
	if (value == NULL || JSON_NODE_HOLDS_NULL(value)) {
		*status = GNT_QUERY_STATUS_UNAVAIL;
		return NULL;
	}
	if (!numeric)
		return gnt_json_node_deep_copy(value);
	if (!gnt_json_node_get_number(value, key, &number, NULL)) {
		*status = GNT_QUERY_STATUS_UNAVAIL;
		return NULL;
	}
	return gnt_json_node_new_int((gint64)number);
}

/* mfree, dtotal, ...: the live number of the row's key (doc/query.md). */
static JsonNode *
get_node_live_number(const GntQueryField *field, gconstpointer item, gpointer user_data,
		     GntQueryStatus *status)
{
	return node_live_field(item, user_data, status, field->key, TRUE);
}

/* bootid: the live value of the row's key as the node says it. */
static JsonNode *
get_node_live_value(const GntQueryField *field, gconstpointer item, gpointer user_data,
		    GntQueryStatus *status)
{
	return node_live_field(item, user_data, status, field->key, FALSE);
}

#define ROLE_DOC                                                                                   \
	"Node role; \"M\" for master, \"C\" for master candidate, \"R\" for regular, \"D\" for"    \
	" drained, \"O\" for offline"

static const GntQueryField node_static_fields[] = {
	FW("pip", "PrimaryIP", TEXT, "Primary IP address", node_pip),
	FW("sip", "SecondaryIP", TEXT, "Secondary IP address", node_sip),
	F("tags", "Tags", OTHER, "Tags", get_rec_tags),
	F("master", "IsMaster", BOOL, "Whether node is master", get_node_master),
	F("group", "Group", TEXT, "Node group", get_node_group),
	F("group.uuid", "GroupUUID", TEXT, "UUID of node group", get_node_group_uuid),
	F("powered", "Powered", BOOL, "Whether node is thought to be powered on", get_node_powered),
	F("ndparams", "NodeParameters", OTHER, "Merged node parameters", get_node_ndparams),
	FK("custom_ndparams", "CustomNodeParameters", OTHER, "Custom node parameters",
	   get_custom_params, "ndparams"),
	F("hv_state", "HypervisorState", OTHER, "Hypervisor state", get_unavail),
	F("disk_state", "DiskState", OTHER, "Disk state", get_unavail),
	F("role", "Role", TEXT, ROLE_DOC, get_node_role),
	F("pinst_cnt", "Pinst", NUMBER, "Number of instances with this node as primary",
	  get_node_pinst_cnt),
	F("pinst_list", "PriInstances", OTHER, "List of instances with this node as primary",
	  get_node_pinst_list),
	F("sinst_cnt", "Sinst", NUMBER, "Number of instances with this node as secondary",
	  get_node_sinst_cnt),
	F("sinst_list", "SecInstances", OTHER, "List of instances with this node as secondary",
	  get_node_sinst_list),
	FK("drained", "Drained", BOOL, "Whether node is drained", get_node_flag, "drained"),
	FK("master_candidate", "MasterC", BOOL, "Whether node is a master candidate", get_node_flag,
	   "master_candidate"),
	FK("master_capable", "MasterCapable", BOOL, "Whether node can become a master candidate",
	   get_node_capability, "master_capable"),
	FW_HOSTNAME("name", "Node", TEXT, "Node name", rec_name),
	FK("offline", "Offline", BOOL, "Whether node is marked offline", get_node_flag, "offline"),
	FW("serial_no", "SerialNo", NUMBER, SERIAL_DOC("Node"), rec_serial_no),
	FW("uuid", "UUID", TEXT, "Node UUID", rec_uuid),
	FK("vm_capable", "VMCapable", BOOL, "Whether node can host instances", get_node_capability,
	   "vm_capable"),
	FK("bootid", "BootID", TEXT,
	   "Random UUID renewed for each system reboot, can be used for detecting reboots by"
	   " tracking changes",
	   get_node_live_value, "bootid"),
	FK("cnodes", "CNodes", NUMBER, "Number of NUMA domains on node (if exported by hypervisor)",
	   get_node_live_number, "cpu_nodes"),
	FK("cnos", "CNOs", NUMBER,
	   "Number of logical processors used by the node OS (dom0 for Xen)", get_node_live_number,
	   "cpu_dom0"),
	FK("csockets", "CSockets", NUMBER,
	   "Number of physical CPU sockets (if exported by hypervisor)", get_node_live_number,
	   "cpu_sockets"),
	FK("ctotal", "CTotal", NUMBER, "Number of logical processors", get_node_live_number,
	   "cpu_total"),
	FK("dfree", "DFree", UNIT, "Available storage space in storage unit", get_node_live_number,
	   "storage_free"),
	FK("dtotal", "DTotal", UNIT,
	   "Total storage space in storage unit used for instance disk allocation",
	   get_node_live_number, "storage_size"),
	FK("spfree", "SpFree", NUMBER,
	   "Available spindles in volume group (exclusive storage only)", get_node_live_number,
	   "spindles_free"),
	FK("sptotal", "SpTotal", NUMBER, "Total spindles in volume group (exclusive storage only)",
	   get_node_live_number, "spindles_total"),
	FK("mfree", "MFree", UNIT, "Memory available for instance allocations",
	   get_node_live_number, "memory_free"),
	FK("mnode", "MNode", UNIT, "Amount of memory used by node (dom0 for Xen)",
	   get_node_live_number, "memory_dom0"),
	FK("mtotal", "MTotal", UNIT, "Total amount of memory of physical machine",
	   get_node_live_number, "memory_total"),
	FW("ctime", "CTime", TIMESTAMP, "Creation timestamp", rec_ctime),
	FW("mtime", "MTime", TIMESTAMP, "Modification timestamp", rec_mtime),
};

static const gchar *const node_live_fields[] = {
	"mtotal", "mnode",  "mfree", "dtotal",	 "dfree",  "sptotal", "spfree",
	"ctotal", "cnodes", "cnos",  "csockets", "bootid", NULL,
};

/* ------------------------------------------------------------------ */
/* Node groups (query.py's _BuildGroupFields) */

/* node_cnt, node_list: the group's nodes; pinst_cnt, pinst_list: the
 * instances whose primary node is in it (keyed by the group's UUID) */
static JsonNode *
get_group_node_cnt(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return instance_count(((const QueryContext *)user_data)->group_nodes, item);
}

static JsonNode *
get_group_node_list(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return instance_list(((const QueryContext *)user_data)->group_nodes, item);
}

static JsonNode *
get_group_ipolicy(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return gnt_json_node_new_object(
		gnt_fill_ipolicy(cluster_setting(user_data, "ipolicy"),
				 rec_object(user_data, item_json(item), "ipolicy")));
}

static JsonNode *
get_group_diskparams(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	return gnt_json_node_new_object(
		gnt_fill_diskparams(cluster_setting(user_data, "diskparams"),
				    rec_object(user_data, item_json(item), "diskparams")));
}

static const GntQueryField group_static_fields[] = {
	FW("alloc_policy", "AllocPolicy", TEXT, "Allocation policy for group", group_alloc_policy),
	FW("name", "Group", TEXT, "Group name", rec_name),
	FW("serial_no", "SerialNo", NUMBER, SERIAL_DOC("Group"), rec_serial_no),
	FW("uuid", "UUID", TEXT, "Group UUID", rec_uuid),
	F("node_cnt", "Nodes", NUMBER, "Number of nodes", get_group_node_cnt),
	F("node_list", "NodeList", OTHER, "List of nodes", get_group_node_list),
	F("pinst_cnt", "Instances", NUMBER, "Number of primary instances", get_node_pinst_cnt),
	F("pinst_list", "InstanceList", OTHER, "List of primary instances", get_node_pinst_list),
	F("tags", "Tags", OTHER, "Tags", get_rec_tags),
	F("ipolicy", "InstancePolicy", OTHER, "Instance policy limitations (merged)",
	  get_group_ipolicy),
	FK("custom_ipolicy", "CustomInstancePolicy", OTHER, "Custom instance policy limitations",
	   get_custom_params, "ipolicy"),
	FK("custom_ndparams", "CustomNDParams", OTHER, "Custom node parameters", get_custom_params,
	   "ndparams"),
	F("ndparams", "NDParams", OTHER, "Node parameters", get_node_ndparams),
	F("diskparams", "DiskParameters", OTHER, "Disk parameters (merged)", get_group_diskparams),
	FK("custom_diskparams", "CustomDiskParameters", OTHER, "Custom disk parameters",
	   get_custom_params, "diskparams"),
	FW("ctime", "CTime", TIMESTAMP, "Creation timestamp", rec_ctime),
	FW("mtime", "MTime", TIMESTAMP, "Modification timestamp", rec_mtime),
};
#undef F
#undef FK
#undef F_HOSTNAME
#undef FW
#undef FW_HOSTNAME

/* ------------------------------------------------------------------ */
/* The tables, built once, in natural name order as Ganeti lists them */

static gint
field_compare(gconstpointer a, gconstpointer b)
{
	return gnt_object_name_compare(((const GntQueryField *)a)->name,
				       ((const GntQueryField *)b)->name);
}

/* utils.FormatOrdinal */
static const gchar *
ordinal_suffix(guint value)
{
	if (value > 10 && value < 20)
		return "th";
	switch (value % 10) {
	case 1:
		return "st";
	case 2:
		return "nd";
	case 3:
		return "rd";
	default:
		return "th";
	}
}

/* The strings of the built tables live as long as the process. */
static void
add_param_fields(GArray *fields, const ParamField *params, guint n, const gchar *prefix,
		 const gchar *what, GntQueryFieldGetFunc get_field)
{
	for (guint i = 0; i < n; i++) {
		GntQueryField field = {
			.name = g_strconcat(prefix, "/", params[i].name, NULL),
			.title = params[i].title,
			.kind = params[i].kind,
			.flags = GNT_QUERY_FLAG_NONE,
			.doc = g_strdup_printf("The \"%s\" %s parameter", params[i].name, what),
			.get_field = get_field,
			.key = params[i].name,
		};

		if (field.title == NULL)
			field.title = field.name;
		g_array_append_val(fields, field);
	}
}

static void
add_indexed_fields(GArray *fields)
{
	for (guint f = 0; f < G_N_ELEMENTS(indexed_fields); f++) {
		const IndexedField *def = &indexed_fields[f];

		for (guint i = 0; i < def->count; i++) {
			GntQueryField field = {
				.name = g_strdup_printf("%s/%u", def->name, i),
				.title = g_strdup_printf("%s/%u", def->title, i),
				.kind = def->kind,
				.flags = GNT_QUERY_FLAG_NONE,
				.doc = g_strdup_printf("%s %u%s %s", def->doc_head, i + 1,
						       ordinal_suffix(i + 1), def->doc_tail),
				.get_field = def->get_field,
				.key = def->key,
				.index = i,
			};
			g_array_append_val(fields, field);
		}
	}
}

static const GntQueryField *
find_field(GArray *fields, const gchar *name)
{
	for (guint i = 0; i < fields->len; i++) {
		if (strcmp(g_array_index(fields, GntQueryField, i).name, name) == 0)
			return &g_array_index(fields, GntQueryField, i);
	}
	return NULL;
}

static const GntQueryField *
build_instance_table(void)
{
	GArray *fields = g_array_new(TRUE, TRUE, sizeof(GntQueryField));

	g_array_append_vals(fields, instance_static_fields, G_N_ELEMENTS(instance_static_fields));
	add_param_fields(fields, hv_fields, G_N_ELEMENTS(hv_fields), "hv", "hypervisor",
			 get_hv_param);
	add_param_fields(fields, be_fields, G_N_ELEMENTS(be_fields), "be", "backend", get_be_param);
	add_indexed_fields(fields);
	for (guint i = 0; i < G_N_ELEMENTS(instance_aliases); i++) {
		const GntQueryField *target = find_field(fields, instance_aliases[i].target);
		GntQueryField alias;

		g_assert(target != NULL);
		alias = *target;
		alias.name = instance_aliases[i].alias;
		g_array_append_val(fields, alias);
	}
	g_array_sort(fields, field_compare);
	/* the zero-terminated array ends with {NULL} */
	return (const GntQueryField *)(gpointer)g_array_free(fields, FALSE);
}

static const GntQueryField *
build_node_table(void)
{
	GArray *fields = g_array_new(TRUE, TRUE, sizeof(GntQueryField));

	g_array_append_vals(fields, node_static_fields, G_N_ELEMENTS(node_static_fields));
	add_param_fields(fields, nd_fields, G_N_ELEMENTS(nd_fields), "ndp", "node", get_nd_param);
	g_array_sort(fields, field_compare);
	return (const GntQueryField *)(gpointer)g_array_free(fields, FALSE);
}

static const GntQueryField *
build_group_table(void)
{
	GArray *fields = g_array_new(TRUE, TRUE, sizeof(GntQueryField));

	g_array_append_vals(fields, group_static_fields, G_N_ELEMENTS(group_static_fields));
	add_param_fields(fields, nd_fields, G_N_ELEMENTS(nd_fields), "ndp", "node", get_nd_param);
	g_array_sort(fields, field_compare);
	return (const GntQueryField *)(gpointer)g_array_free(fields, FALSE);
}

static const GntQueryField *
object_table(GntObjectKind kind)
{
	static const GntQueryField *tables[GNT_OBJECT_LAST];
	static gsize initialized = 0;

	if (g_once_init_enter(&initialized)) {
		tables[GNT_OBJECT_INSTANCE] = build_instance_table();
		tables[GNT_OBJECT_NODE] = build_node_table();
		tables[GNT_OBJECT_GROUP] = build_group_table();
		tables[GNT_OBJECT_IMAGE] = gnt_image_query_table();
		tables[GNT_OBJECT_INSTALL_TEMPLATE] = gnt_install_template_query_fields();
		g_once_init_leave(&initialized, 1);
	}
	return tables[kind];
}

static const gchar *const *
live_fields(GntObjectKind kind)
{
	static const gchar *const none[] = {NULL};

	switch (kind) {
	case GNT_OBJECT_INSTANCE:
		return instance_live_fields;
	case GNT_OBJECT_NODE:
		return node_live_fields;
	case GNT_OBJECT_GROUP:
	case GNT_OBJECT_IMAGE:
	case GNT_OBJECT_INSTALL_TEMPLATE:
	case GNT_OBJECT_LAST:
	default:
		return none;
	}
}

/* ------------------------------------------------------------------ */
/* Queries */

JsonNode *
gnt_object_query_fields(GntObjectKind kind, JsonArray *fields, GError **error)
{
	g_return_val_if_fail(kind < GNT_OBJECT_LAST, NULL);

	return gnt_query_fields_response(object_table(kind), fields, error);
}

static gboolean
query_uses_live_data(GntQuery *query, GntObjectKind kind)
{
	const gchar *const *names = live_fields(kind);

	for (guint i = 0; names[i] != NULL; i++) {
		if (gnt_query_uses_field(query, names[i]))
			return TRUE;
	}
	return FALSE;
}

gboolean
gnt_object_query_needs_live_data(GntObjectKind kind, JsonArray *fields, JsonNode *filter,
				 gboolean *needed, GError **error)
{
	g_autoptr(GntQuery) query = NULL;

	g_return_val_if_fail(kind < GNT_OBJECT_LAST && needed != NULL, FALSE);

	query = gnt_query_new(object_table(kind), fields, filter, error);
	if (query == NULL)
		return FALSE;
	*needed = query_uses_live_data(query, kind);
	return TRUE;
}

static gboolean
collect_node_cb(JsonObject *rec, gpointer user_data)
{
	QueryContext *ctx = user_data;
	NodeInfo *info = g_new0(NodeInfo, 1);

	info->uuid = g_strdup(rec_string(rec, "uuid"));
	info->name = g_strdup(rec_string(rec, "name"));
	info->group = g_strdup(rec_string(rec, "group"));
	info->offline = rec_bool(rec, "offline", FALSE);
	info->vm_capable = rec_bool(rec, "vm_capable", TRUE);
	if (info->uuid == NULL || info->name == NULL) {
		node_info_free(info);
		return TRUE;
	}
	if (ctx->live != NULL) {
		info->live = g_hash_table_lookup(ctx->live->nodes, info->uuid);
		if (info->live == NULL)
			info->live = g_hash_table_lookup(ctx->live->nodes, info->name);
		if (info->live != NULL && info->live->info != NULL &&
		    !gnt_json_get_object(info->live->info, "instances", &info->live_instances,
					 NULL))
			info->live_instances = NULL;
	}
	g_hash_table_replace(ctx->nodes, info->uuid, info);
	return TRUE;
}

static gboolean
collect_group_cb(JsonObject *rec, gpointer user_data)
{
	QueryContext *ctx = user_data;
	const gchar *uuid = rec_string(rec, "uuid");
	GroupInfo *info;

	if (uuid == NULL)
		return TRUE;
	info = g_new0(GroupInfo, 1);
	info->name = g_strdup(rec_string(rec, "name"));
	info->ndparams = gnt_json_object_deep_copy(rec_object(ctx, rec, "ndparams"));
	g_hash_table_replace(ctx->groups, g_strdup(uuid), info);
	return TRUE;
}

static void
name_list_add(GHashTable *map, const gchar *node_uuid, const gchar *name)
{
	GPtrArray *names = g_hash_table_lookup(map, node_uuid);

	if (names == NULL) {
		names = g_ptr_array_new_with_free_func(g_free);
		g_hash_table_insert(map, g_strdup(node_uuid), names);
	}
	g_ptr_array_add(names, g_strdup(name));
}

static gboolean
collect_instance_nodes_cb(GntConfigRecord *rec, gpointer user_data)
{
	QueryContext *ctx = user_data;
	const gchar *name = gnt_config_record_get_name(rec);
	const gchar *pnode = inst_pnode_uuid(rec);
	JsonNode *snodes_node = gnt_config_record_peek_other(rec, "secondary_nodes");
	JsonArray *snodes = snodes_node != NULL && JSON_NODE_HOLDS_ARRAY(snodes_node)
				    ? json_node_get_array(snodes_node)
				    : NULL;

	if (name == NULL)
		return TRUE;
	if (pnode != NULL)
		name_list_add(ctx->primaries, pnode, name);
	for (guint i = 0; snodes != NULL && i < json_array_get_length(snodes); i++) {
		JsonNode *uuid = json_array_get_element(snodes, i);

		if (json_node_get_value_type(uuid) == G_TYPE_STRING)
			name_list_add(ctx->secondaries, json_node_get_string(uuid), name);
	}
	return TRUE;
}

static gint
name_ptr_compare(gconstpointer a, gconstpointer b)
{
	return gnt_object_name_compare(*(const gchar *const *)a, *(const gchar *const *)b);
}

/* For groups: a group's instances are those of its nodes as primaries. */
static gboolean
collect_group_instances_cb(GntConfigRecord *rec, gpointer user_data)
{
	QueryContext *ctx = user_data;
	const gchar *name = gnt_config_record_get_name(rec);
	const NodeInfo *pnode = ctx_node(ctx, inst_pnode_uuid(rec));

	if (name != NULL && pnode != NULL && pnode->group != NULL)
		name_list_add(ctx->primaries, pnode->group, name);
	return TRUE;
}

static void
name_lists_sort(GHashTable *map)
{
	GHashTableIter iter;
	GPtrArray *names;

	g_hash_table_iter_init(&iter, map);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&names))
		g_ptr_array_sort(names, name_ptr_compare);
}

/* The group query's members: nodes and primary instances by group. */
static void
collect_group_members(QueryContext *ctx, GntConfig *config)
{
	GHashTableIter iter;
	NodeInfo *node;

	ctx->group_nodes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
						 (GDestroyNotify)g_ptr_array_unref);
	ctx->primaries = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					       (GDestroyNotify)g_ptr_array_unref);
	g_hash_table_iter_init(&iter, ctx->nodes);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&node)) {
		if (node->group != NULL)
			name_list_add(ctx->group_nodes, node->group, node->name);
	}
	gnt_config_foreach_record(config, GNT_OBJECT_INSTANCE, collect_group_instances_cb, ctx);
	name_lists_sort(ctx->group_nodes);
	name_lists_sort(ctx->primaries);
}

/* Which nodes report each instance running: for ERROR_wrongnode. */
static void
collect_running_on(QueryContext *ctx)
{
	GHashTableIter iter;
	NodeInfo *node;

	ctx->running_on = g_hash_table_new_full(g_str_hash, g_str_equal, NULL,
						(GDestroyNotify)g_ptr_array_unref);
	g_hash_table_iter_init(&iter, ctx->nodes);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&node)) {
		JsonObject *instances = NULL;
		JsonObjectIter members;
		const gchar *name;
		JsonNode *value;

		if (node->offline || node->live == NULL || node->live->info == NULL ||
		    !gnt_json_get_object(node->live->info, "instances", &instances, NULL))
			continue;
		json_object_iter_init(&members, instances);
		while (json_object_iter_next(&members, &name, &value)) {
			GPtrArray *nodes = g_hash_table_lookup(ctx->running_on, name);

			if (!JSON_NODE_HOLDS_OBJECT(value) ||
			    json_object_get_size(json_node_get_object(value)) == 0)
				continue;
			if (nodes == NULL) {
				nodes = g_ptr_array_new();
				/* the key is owned by the live data, which outlives ctx */
				g_hash_table_insert(ctx->running_on, (gpointer)name, nodes);
			}
			g_ptr_array_add(nodes, node->uuid);
		}
	}
}

static QueryContext *
query_context_new(GntConfig *config, GntObjectKind kind, GntQuery *query, GntLiveData *live)
{
	QueryContext *ctx = g_new0(QueryContext, 1);

	ctx->kind = kind;
	ctx->live = live;
	ctx->cluster = gnt_config_dup_cluster(config);
	ctx->empty = json_object_new();
	ctx->nodes = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, node_info_free);
	ctx->groups = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, group_info_free);
	gnt_config_foreach_object(config, GNT_OBJECT_NODE, collect_node_cb, ctx);
	gnt_config_foreach_object(config, GNT_OBJECT_GROUP, collect_group_cb, ctx);
	if (kind == GNT_OBJECT_GROUP)
		collect_group_members(ctx, config);
	if (kind == GNT_OBJECT_NODE && (gnt_query_uses_field(query, "pinst_cnt") ||
					gnt_query_uses_field(query, "pinst_list") ||
					gnt_query_uses_field(query, "sinst_cnt") ||
					gnt_query_uses_field(query, "sinst_list"))) {
		ctx->primaries = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
						       (GDestroyNotify)g_ptr_array_unref);
		ctx->secondaries = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
							 (GDestroyNotify)g_ptr_array_unref);
		gnt_config_foreach_record(config, GNT_OBJECT_INSTANCE, collect_instance_nodes_cb,
					  ctx);
		name_lists_sort(ctx->primaries);
		name_lists_sort(ctx->secondaries);
	}
	if (kind == GNT_OBJECT_INSTANCE && live != NULL && gnt_query_uses_field(query, "status"))
		collect_running_on(ctx);
	return ctx;
}

/* A row and the name it sorts by: built (a JsonArray) or written (a
 * stretch of the collector's text). */
typedef struct {
	gchar *name;
	JsonArray *row;
	gsize start;
	gsize len;
} Row;

typedef struct {
	GntQuery *query;
	QueryContext *ctx;
	gboolean bare;	 /* bare values (the classic calls), not [status, value] */
	GString *text;	 /* NULL: build rows; else write them here, "," before each */
	GArray *rows;	 /* Row */
	gboolean sorted; /* the rows came in natural order so far */
} Collector;

static void
row_clear(gpointer data)
{
	Row *row = data;

	g_free(row->name);
	if (row->row != NULL)
		json_array_unref(row->row);
}

static void
collector_add(Collector *collector, GntConfigRecord *rec)
{
	GntQuery *query = collector->query;
	Row row = {NULL, NULL, 0, 0};

	/* what the last record's fields shared is not this one's */
	collector->ctx->row.inst = NULL;
	if (!gnt_query_matches(query, rec, collector->ctx))
		return;
	row.name = g_strdup(gnt_config_record_get_name(rec));
	if (collector->text != NULL) {
		if (collector->rows->len > 0)
			g_string_append_c(collector->text, ',');
		row.start = collector->text->len;
		if (collector->bare)
			gnt_query_write_values(query, rec, collector->ctx, collector->text);
		else
			gnt_query_write_row(query, rec, collector->ctx, collector->text);
		row.len = collector->text->len - row.start;
	} else {
		row.row = collector->bare ? gnt_query_build_values(query, rec, collector->ctx)
					  : gnt_query_build_row(query, rec, collector->ctx);
	}
	if (collector->rows->len > 0 &&
	    gnt_object_name_compare(
		    g_array_index(collector->rows, Row, collector->rows->len - 1).name, row.name) >
		    0)
		collector->sorted = FALSE;
	g_array_append_val(collector->rows, row);
}

static gboolean
collect_cb(GntConfigRecord *rec, gpointer user_data)
{
	collector_add(user_data, rec);
	return TRUE;
}

static gint
row_compare(gconstpointer a, gconstpointer b)
{
	return gnt_object_name_compare(((const Row *)a)->name, ((const Row *)b)->name);
}

/* "Instance", "Node", "Group" */
static const gchar *
kind_title(GntObjectKind kind)
{
	static const gchar *const titles[] = {
		[GNT_OBJECT_NODE] = "Node",
		[GNT_OBJECT_INSTANCE] = "Instance",
		[GNT_OBJECT_GROUP] = "Group",
		[GNT_OBJECT_IMAGE] = "Image",
		[GNT_OBJECT_INSTALL_TEMPLATE] = "Install template",
	};
	G_STATIC_ASSERT(G_N_ELEMENTS(titles) == GNT_OBJECT_LAST);

	return titles[kind];
}

/* Looks the named items up (names or short names), in order, without
 * duplicates. */
static gboolean
collect_names(GntConfig *config, GntObjectKind kind, Collector *collector, JsonArray *names,
	      GError **error)
{
	g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

	for (guint i = 0; i < json_array_get_length(names); i++) {
		JsonNode *node = json_array_get_element(names, i);
		g_autoptr(GError) error_local = NULL;
		g_autoptr(JsonObject) rec = NULL;
		g_autofree gchar *text = NULL;
		GntConfigRecord record;

		if (json_node_get_value_type(node) == G_TYPE_STRING)
			rec = gnt_config_dup_object(config, kind, json_node_get_string(node),
						    &error_local);
		if (rec == NULL) {
			text = json_node_get_value_type(node) == G_TYPE_STRING
				       ? g_strdup(json_node_get_string(node))
				       : gnt_json_to_string(node);
			if (error_local != NULL &&
			    !g_error_matches(error_local, GNT_ERROR, GNT_ERROR_NOT_FOUND)) {
				g_propagate_error(error, g_steal_pointer(&error_local));
				return FALSE;
			}
			g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND, "%s name '%s' not found",
				    kind_title(kind), text);
			return FALSE;
		}
		if (!g_hash_table_add(seen, g_strdup(rec_string(rec, "uuid"))))
			continue;
		gnt_config_record_init_json(&record, rec);
		collector_add(collector, &record);
	}
	return TRUE;
}

/* Collects the rows of @query over the items of @kind (or the named
 * ones), in Ganeti's order. */
static gboolean
run_query(GntConfig *config, GntObjectKind kind, GntQuery *query, JsonArray *names,
	  Collector *collector, GntLiveData *live, GError **error)
{
	g_autoptr(QueryContext) ctx = query_context_new(config, kind, query, live);
	gboolean ok = TRUE;

	collector->query = query;
	collector->ctx = ctx;
	collector->rows = g_array_new(FALSE, FALSE, sizeof(Row));
	collector->sorted = TRUE;
	g_array_set_clear_func(collector->rows, row_clear);
	if (names != NULL) {
		/* in the order asked for */
		ok = collect_names(config, kind, collector, names, error);
	} else {
		gnt_config_foreach_record(config, kind, collect_cb, collector);
		if (!collector->sorted)
			g_array_sort(collector->rows, row_compare);
	}
	collector->ctx = NULL;
	return ok;
}

/* The built rows as one list. (transfer full) */
static JsonArray *
collector_steal_array(Collector *collector)
{
	JsonArray *out = json_array_sized_new(collector->rows->len);

	for (guint i = 0; i < collector->rows->len; i++) {
		Row *row = &g_array_index(collector->rows, Row, i);

		json_array_add_array_element(out, g_steal_pointer(&row->row));
	}
	return out;
}

/* Puts the rows written to collector->text since @start in the order of
 * collector->rows (they were written in the order they came). */
static void
collector_order_text(Collector *collector, gsize start)
{
	GString *text = collector->text;
	g_autofree gchar *written = NULL;

	if (collector->sorted || collector->rows->len == 0)
		return; /* the common case: they came in order */
	written = g_strndup(text->str, text->len);
	g_string_truncate(text, start);
	for (guint i = 0; i < collector->rows->len; i++) {
		Row *row = &g_array_index(collector->rows, Row, i);

		if (i > 0)
			g_string_append_c(text, ',');
		g_string_append_len(text, written + row->start, row->len);
	}
}

static void
collector_clear(Collector *collector)
{
	g_clear_pointer(&collector->rows, g_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Collector, collector_clear)

JsonNode *
gnt_object_query(GntConfig *config, GntObjectKind kind, JsonArray *fields, JsonNode *filter,
		 GntLiveData *live, GError **error)
{
	g_autoptr(GntQuery) query = NULL;
	g_autoptr(JsonArray) names = NULL;
	g_auto(Collector) collector = {0};

	g_return_val_if_fail(GNT_IS_CONFIG(config) && kind < GNT_OBJECT_LAST, NULL);

	query = gnt_query_new(object_table(kind), fields, filter, error);
	if (query == NULL)
		return NULL;
	names = gnt_query_dup_name_hint(query, "name");
	if (!run_query(config, kind, query, names, &collector, live, error))
		return NULL;
	return gnt_query_build_response(query, collector_steal_array(&collector));
}

gboolean
gnt_object_query_write(GntConfig *config, GntObjectKind kind, JsonArray *fields, JsonNode *filter,
		       GntLiveData *live, GString *out, GError **error)
{
	g_autoptr(GntQuery) query = NULL;
	g_autoptr(JsonArray) names = NULL;
	g_auto(Collector) collector = {0};
	gsize mark = out->len;
	gsize start;

	g_return_val_if_fail(GNT_IS_CONFIG(config) && kind < GNT_OBJECT_LAST, FALSE);
	g_return_val_if_fail(out != NULL, FALSE);

	query = gnt_query_new(object_table(kind), fields, filter, error);
	if (query == NULL)
		return FALSE;
	names = gnt_query_dup_name_hint(query, "name");
	gnt_query_write_response_start(query, out);
	start = out->len;
	collector.text = out;
	if (!run_query(config, kind, query, names, &collector, live, error)) {
		g_string_truncate(out, mark);
		return FALSE;
	}
	collector_order_text(&collector, start);
	gnt_query_write_response_end(query, out);
	return TRUE;
}

/* The query of the classic calls; NULL names for none. */
static GntQuery *
values_query(GntObjectKind kind, JsonArray **names, JsonArray *fields, GError **error)
{
	g_autoptr(GntQuery) query = gnt_query_new(object_table(kind), fields, NULL, error);

	if (query == NULL || !gnt_query_check_known_fields(query, error))
		return NULL;
	if (*names != NULL && json_array_get_length(*names) == 0)
		*names = NULL;
	return g_steal_pointer(&query);
}

JsonNode *
gnt_object_query_values(GntConfig *config, GntObjectKind kind, JsonArray *names, JsonArray *fields,
			GntLiveData *live, GError **error)
{
	g_autoptr(GntQuery) query = NULL;
	g_auto(Collector) collector = {0};

	g_return_val_if_fail(GNT_IS_CONFIG(config) && kind < GNT_OBJECT_LAST, NULL);

	query = values_query(kind, &names, fields, error);
	collector.bare = TRUE;
	if (query == NULL || !run_query(config, kind, query, names, &collector, live, error))
		return NULL;
	return gnt_json_node_new_array(collector_steal_array(&collector));
}

gboolean
gnt_object_query_values_write(GntConfig *config, GntObjectKind kind, JsonArray *names,
			      JsonArray *fields, GntLiveData *live, GString *out, GError **error)
{
	g_autoptr(GntQuery) query = NULL;
	g_auto(Collector) collector = {0};
	gsize mark = out->len;

	g_return_val_if_fail(GNT_IS_CONFIG(config) && kind < GNT_OBJECT_LAST, FALSE);
	g_return_val_if_fail(out != NULL, FALSE);

	query = values_query(kind, &names, fields, error);
	if (query == NULL)
		return FALSE;
	collector.bare = TRUE;
	collector.text = out;
	g_string_append_c(out, '[');
	if (!run_query(config, kind, query, names, &collector, live, error)) {
		g_string_truncate(out, mark);
		return FALSE;
	}
	collector_order_text(&collector, mark + 1);
	g_string_append_c(out, ']');
	return TRUE;
}
