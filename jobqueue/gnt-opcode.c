#include "gnt-opcode.h"

#include "gnt-error.h"
#include "gnt-job-status.h"
#include "gnt-json.h"
#include "gnt-opcode-private.h"

struct _GntOpcode {
	gatomicrefcount ref;
	const GntOpDef *def;
	JsonObject *params;  /* every parameter; secret ones in their redacted form */
	GHashTable *secrets; /* name -> GntSecret */
	gboolean lost_secrets;
};

/* How an opcode enters: from a client (strict: only submittable
 * priorities, secrets taken) or back from the job store. */
typedef enum {
	OPCODE_SOURCE_CLIENT,
	OPCODE_SOURCE_STORE,
} OpcodeSource;

/* The opcodes jobs may hold (gnt_opcode_register_table()). */
static const GntOpTable *op_table;

void
gnt_opcode_register_table(const GntOpTable *table)
{
	g_return_if_fail(table != NULL);
	op_table = table;
}

const GntOpDef *
gnt_op_def_lookup(const gchar *op_id)
{
	const GntOpDef *const *const *parts = op_table != NULL ? op_table->parts : NULL;

	for (guint t = 0; op_id != NULL && parts != NULL && parts[t] != NULL; t++) {
		for (guint i = 0; parts[t][i] != NULL; i++) {
			if (g_strcmp0(parts[t][i]->id, op_id) == 0)
				return parts[t][i];
		}
	}
	return NULL;
}

gboolean
gnt_op_id_is_unsupported(const gchar *op_id)
{
	return op_id != NULL && op_table != NULL && op_table->ganeti_op_ids != NULL &&
	       g_strv_contains(op_table->ganeti_op_ids, op_id) && gnt_op_def_lookup(op_id) == NULL;
}

const gchar *
gnt_op_def_get_id(const GntOpDef *def)
{
	return def->id;
}

const gchar *
gnt_op_def_get_summary_param(const GntOpDef *def)
{
	return def->summary_param;
}

void
gnt_op_def_get_param_tables(const GntOpDef *def,
			    const GntParamDef *tables[GNT_OP_DEF_N_PARAM_TABLES])
{
	static const GntParamDef none[] = {{NULL}};

	tables[0] = def->params;
	tables[1] = def->more_params != NULL ? def->more_params() : none;
	tables[2] = op_table->common_params;
}

const GntParamDef *
gnt_op_def_find_param(const GntOpDef *def, const gchar *name)
{
	const GntParamDef *tables[GNT_OP_DEF_N_PARAM_TABLES];

	gnt_op_def_get_param_tables(def, tables);
	for (guint t = 0; t < G_N_ELEMENTS(tables); t++) {
		for (const GntParamDef *p = tables[t]; p->name != NULL; p++) {
			if (g_strcmp0(p->name, name) == 0)
				return p;
		}
	}
	return NULL;
}

/* The row of @op_id's parameter @name; unknown ones are a caller's bug. */
static const GntParamDef *
param_def(const gchar *op_id, const gchar *name)
{
	const GntOpDef *def = gnt_op_def_lookup(op_id);
	const GntParamDef *pdef = def != NULL ? gnt_op_def_find_param(def, name) : NULL;

	if (pdef == NULL)
		g_critical("the opcode table has no parameter '%s' of '%s'", name, op_id);
	return pdef;
}

const gchar *
gnt_op_param_get_default(const gchar *op_id, const gchar *name)
{
	const GntParamDef *pdef = param_def(op_id, name);

	return pdef != NULL ? pdef->default_json : NULL;
}

const gchar *
gnt_op_param_get_client_default(const gchar *op_id, const gchar *name)
{
	const GntParamDef *pdef = param_def(op_id, name);

	return pdef != NULL ? pdef->client_default : NULL;
}

const gchar *
gnt_op_param_get_help(const gchar *op_id, const gchar *name)
{
	const GntParamDef *pdef = param_def(op_id, name);

	return pdef != NULL ? pdef->help : NULL;
}

GStrv
gnt_op_param_dup_choices(const gchar *op_id, const gchar *name)
{
	const GntParamDef *pdef = param_def(op_id, name);

	return pdef != NULL && pdef->choices != NULL ? g_strsplit(pdef->choices, "|", -1) : NULL;
}

gboolean
gnt_op_param_is_choice(const gchar *op_id, const gchar *name, const gchar *value)
{
	g_auto(GStrv) choices = gnt_op_param_dup_choices(op_id, name);

	return choices == NULL || g_strv_contains((const gchar *const *)choices, value);
}

gchar *
gnt_op_param_describe(const gchar *op_id, const gchar *name)
{
	const GntParamDef *pdef = param_def(op_id, name);
	g_autoptr(GString) text = g_string_new(NULL);
	const gchar *dflt;

	if (pdef == NULL)
		return g_strdup(name);
	g_string_append(text, pdef->help != NULL ? pdef->help : pdef->name);
	if (pdef->choices != NULL) {
		g_auto(GStrv) choices = g_strsplit(pdef->choices, "|", -1);
		g_autofree gchar *list = g_strjoinv(", ", choices);
		g_string_append_printf(text, ": %s", list);
	}
	dflt = pdef->client_default;
	if (dflt != NULL)
		g_string_append_printf(text, " (default %s)", dflt);
	else if (pdef->default_json != NULL && g_strcmp0(pdef->default_json, "null") != 0)
		g_string_append_printf(text, " (default %s)", pdef->default_json);
	return g_string_free(g_steal_pointer(&text), FALSE);
}

typedef gboolean (*ParamFunc)(const GntParamDef *pdef, gpointer user_data, GError **error);

/* Runs @func over the opcode's own parameters, then the common ones. */
static gboolean
foreach_param(const GntOpDef *def, ParamFunc func, gpointer user_data, GError **error)
{
	const GntParamDef *tables[GNT_OP_DEF_N_PARAM_TABLES];

	gnt_op_def_get_param_tables(def, tables);
	for (guint t = 0; t < G_N_ELEMENTS(tables); t++) {
		for (const GntParamDef *p = tables[t]; p->name != NULL; p++) {
			if (!func(p, user_data, error))
				return FALSE;
		}
	}
	return TRUE;
}

static const gchar *
param_type_name(GntParamType type)
{
	switch (type) {
	case GNT_PARAM_TYPE_BOOL:
		return "a boolean";
	case GNT_PARAM_TYPE_INT:
		return "an integer";
	case GNT_PARAM_TYPE_NUMBER:
		return "a number";
	case GNT_PARAM_TYPE_STRING:
		return "a string";
	case GNT_PARAM_TYPE_LIST:
		return "a list";
	case GNT_PARAM_TYPE_STRING_LIST:
		return "a list of strings";
	case GNT_PARAM_TYPE_DICT:
		return "an object";
	case GNT_PARAM_TYPE_ANY:
	default:
		return "a value";
	}
}

static gboolean
param_type_matches(GntParamType type, JsonNode *value)
{
	GType vtype = JSON_NODE_HOLDS_VALUE(value) ? json_node_get_value_type(value)
						   : G_TYPE_INVALID;

	switch (type) {
	case GNT_PARAM_TYPE_ANY:
		return TRUE;
	case GNT_PARAM_TYPE_BOOL:
		return vtype == G_TYPE_BOOLEAN;
	case GNT_PARAM_TYPE_INT:
		return vtype == G_TYPE_INT64;
	case GNT_PARAM_TYPE_NUMBER:
		return vtype == G_TYPE_INT64 || vtype == G_TYPE_DOUBLE;
	case GNT_PARAM_TYPE_STRING:
		return vtype == G_TYPE_STRING;
	case GNT_PARAM_TYPE_LIST:
		return JSON_NODE_HOLDS_ARRAY(value);
	case GNT_PARAM_TYPE_DICT:
		return JSON_NODE_HOLDS_OBJECT(value);
	case GNT_PARAM_TYPE_STRING_LIST:
		if (!JSON_NODE_HOLDS_ARRAY(value))
			return FALSE;
		for (guint i = 0; i < json_array_get_length(json_node_get_array(value)); i++) {
			JsonNode *el = json_array_get_element(json_node_get_array(value), i);
			if (!JSON_NODE_HOLDS_VALUE(el) ||
			    json_node_get_value_type(el) != G_TYPE_STRING)
				return FALSE;
		}
		return TRUE;
	default:
		return FALSE;
	}
}

/* Whether the string @value is one of "a|b|c". */
static gboolean
param_is_choice(const gchar *choices, JsonNode *value)
{
	g_auto(GStrv) allowed = g_strsplit(choices, "|", -1);

	return g_strv_contains((const gchar *const *)allowed, json_node_get_string(value));
}

gboolean
gnt_param_def_check_value(const GntParamDef *pdef, JsonNode *value, GError **error)
{
	g_autoptr(GError) error_local = NULL;

	if (!param_type_matches(pdef->type, value)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "parameter '%s' must be %s, not %s", pdef->name,
			    param_type_name(pdef->type), gnt_json_node_type_name(value));
		return FALSE;
	}
	if (pdef->choices != NULL && !param_is_choice(pdef->choices, value)) {
		g_auto(GStrv) allowed = g_strsplit(pdef->choices, "|", -1);
		g_autofree gchar *list = g_strjoinv(", ", allowed);
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "parameter '%s' must be one of %s",
			    pdef->name, list);
		return FALSE;
	}
	if (pdef->validate != NULL && !pdef->validate(value, &error_local)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "parameter '%s' %s", pdef->name,
			    error_local->message);
		return FALSE;
	}
	return TRUE;
}

/* "<redacted>" in place of a value, or of each value of a dict. */
static JsonNode *
redacted_copy(JsonNode *value)
{
	JsonObject *obj;
	g_autoptr(GList) members = NULL;

	if (value == NULL || JSON_NODE_HOLDS_NULL(value))
		return gnt_json_node_new_null();
	if (!JSON_NODE_HOLDS_OBJECT(value))
		return gnt_json_node_new_string(GNT_SECRET_REDACTED);
	obj = json_object_new();
	members = json_object_get_members(json_node_get_object(value));
	for (GList *l = members; l != NULL; l = l->next)
		json_object_set_string_member(obj, l->data, GNT_SECRET_REDACTED);
	return gnt_json_node_new_object(obj);
}

static GntSecret *
secret_from_node(JsonNode *value)
{
	GntSecret *secret;
	gchar *text;

	if (JSON_NODE_HOLDS_VALUE(value) && json_node_get_value_type(value) == G_TYPE_STRING)
		return gnt_secret_new(json_node_get_string(value), -1);
	text = gnt_json_to_string(value);
	secret = gnt_secret_new(text, -1);
	gnt_secret_wipe_string(text);
	g_free(text);
	return secret;
}

/* A redacted value in a stored opcode means a secret was given, and lost. */
static gboolean
holds_redacted(JsonNode *value)
{
	return value != NULL && !JSON_NODE_HOLDS_NULL(value);
}

typedef struct {
	GntOpcode *op;
	JsonObject *input;
	JsonObject *private_values; /* store source only */
	OpcodeSource source;
} ParseCtx;

static gboolean
parse_param(const GntParamDef *pdef, gpointer user_data, GError **error)
{
	ParseCtx *ctx = user_data;
	JsonNode *given = json_object_get_member(ctx->input, pdef->name);
	g_autoptr(JsonNode) value = NULL;

	if (pdef->visibility == GNT_PARAM_PRIVATE && ctx->source == OPCODE_SOURCE_STORE) {
		/* the stored opcode shows "<redacted>"; the value is kept apart */
		given = ctx->private_values != NULL
				? json_object_get_member(ctx->private_values, pdef->name)
				: NULL;
	}
	if (given == NULL || (JSON_NODE_HOLDS_NULL(given) && !pdef->nullable)) {
		if (pdef->default_json == NULL) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "%s: parameter '%s' is required", ctx->op->def->id, pdef->name);
			return FALSE;
		}
		value = gnt_json_parse(pdef->default_json, -1, NULL);
	} else {
		value = json_node_ref(given);
	}
	g_assert(value != NULL); /* defaults in the table are valid JSON */

	if (!JSON_NODE_HOLDS_NULL(value)) {
		if (pdef->visibility == GNT_PARAM_SECRET && ctx->source == OPCODE_SOURCE_STORE) {
			ctx->op->lost_secrets |= holds_redacted(value);
			json_object_set_member(ctx->op->params, pdef->name, redacted_copy(value));
			return TRUE;
		}
		if (!gnt_param_def_check_value(pdef, value, error)) {
			g_prefix_error(error, "%s: ", ctx->op->def->id);
			return FALSE;
		}
		if (pdef->visibility == GNT_PARAM_SECRET) {
			g_hash_table_insert(ctx->op->secrets, g_strdup(pdef->name),
					    secret_from_node(value));
			json_object_set_member(ctx->op->params, pdef->name, redacted_copy(value));
			gnt_json_node_wipe_strings(value);
			return TRUE;
		}
	}
	json_object_set_member(ctx->op->params, pdef->name, gnt_json_node_deep_copy(value));
	return TRUE;
}

static gboolean
check_no_unknown_keys(const GntOpDef *def, JsonObject *input, GError **error)
{
	g_autoptr(GList) members = json_object_get_members(input);

	for (GList *l = members; l != NULL; l = l->next) {
		if (g_strcmp0(l->data, "OP_ID") == 0)
			continue;
		if (gnt_op_def_find_param(def, l->data) == NULL) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "%s: unknown parameter '%s'", def->id, (const gchar *)l->data);
			return FALSE;
		}
	}
	return TRUE;
}

static GntOpcode *
opcode_new(const GntOpDef *def)
{
	GntOpcode *self = g_new0(GntOpcode, 1);

	g_atomic_ref_count_init(&self->ref);
	self->def = def;
	self->params = json_object_new();
	self->secrets = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					      (GDestroyNotify)gnt_secret_free);
	return self;
}

static GntOpcode *
opcode_parse(JsonObject *input, JsonObject *private_values, OpcodeSource source, GError **error)
{
	g_autoptr(GntOpcode) self = NULL;
	const gchar *op_id = NULL;
	const GntOpDef *def;
	ParseCtx ctx;

	if (!gnt_json_get_string(input, "OP_ID", &op_id, error)) {
		g_prefix_error(error, "opcode: ");
		return NULL;
	}
	def = gnt_op_def_lookup(op_id);
	if (def == NULL && gnt_op_id_is_unsupported(op_id)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "opcode '%s' is not supported by Gantry", op_id);
		return NULL;
	}
	if (def == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "unknown opcode '%s'", op_id);
		return NULL;
	}
	if (!check_no_unknown_keys(def, input, error))
		return NULL;
	self = opcode_new(def);
	ctx = (ParseCtx){self, input, private_values, source};
	if (!foreach_param(def, parse_param, &ctx, error))
		return NULL;
	if (source == OPCODE_SOURCE_CLIENT) {
		gint prio = gnt_opcode_get_priority(self);
		if (prio != GNT_OP_PRIO_HIGH && prio != GNT_OP_PRIO_NORMAL &&
		    prio != GNT_OP_PRIO_LOW) {
			g_set_error(
				error, GNT_ERROR, GNT_ERROR_INVALID,
				"%s: parameter 'priority' must be one of -10, 0 or 10 at submission",
				def->id);
			return NULL;
		}
	}
	return g_steal_pointer(&self);
}

GntOpcode *
gnt_opcode_new_from_json(JsonObject *input, GError **error)
{
	g_return_val_if_fail(input != NULL, NULL);
	return opcode_parse(input, NULL, OPCODE_SOURCE_CLIENT, error);
}

GntOpcode *
gnt_opcode_new_from_store(JsonObject *shown, JsonObject *private_values, GError **error)
{
	g_return_val_if_fail(shown != NULL, NULL);
	return opcode_parse(shown, private_values, OPCODE_SOURCE_STORE, error);
}

GntOpcode *
gnt_opcode_new_from_string(const gchar *op_id, const gchar *params_json, GError **error)
{
	g_autoptr(JsonNode) root = gnt_json_parse(params_json ? params_json : "{}", -1, error);

	if (root == NULL)
		return NULL;
	if (!JSON_NODE_HOLDS_OBJECT(root)) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "opcode parameters must be a JSON object");
		return NULL;
	}
	json_object_set_string_member(json_node_get_object(root), "OP_ID", op_id);
	return gnt_opcode_new_from_json(json_node_get_object(root), error);
}

GntOpcode *
gnt_opcode_ref(GntOpcode *self)
{
	g_return_val_if_fail(self != NULL, NULL);
	g_atomic_ref_count_inc(&self->ref);
	return self;
}

void
gnt_opcode_unref(GntOpcode *self)
{
	if (self == NULL || !g_atomic_ref_count_dec(&self->ref))
		return;
	json_object_unref(self->params);
	g_hash_table_unref(self->secrets);
	g_free(self);
}

const GntOpDef *
gnt_opcode_get_def(const GntOpcode *self)
{
	return self->def;
}

const gchar *
gnt_opcode_get_id(const GntOpcode *self)
{
	return self->def->id;
}

JsonNode *
gnt_opcode_get_param(const GntOpcode *self, const gchar *name)
{
	const GntParamDef *pdef = gnt_op_def_find_param(self->def, name);

	if (pdef == NULL || pdef->visibility == GNT_PARAM_SECRET)
		return NULL;
	return json_object_get_member(self->params, name);
}

/* The value of @name for a typed getter: a critical for a parameter the
 * opcode lacks, of another type, or null where @nullable says it cannot
 * be; NULL for a null value. */
static JsonNode *
typed_param(const GntOpcode *self, const gchar *name, GntParamType type, gboolean nullable)
{
	const GntParamDef *pdef = gnt_op_def_find_param(self->def, name);
	JsonNode *node;

	if (pdef == NULL || pdef->visibility == GNT_PARAM_SECRET ||
	    !(pdef->type == type ||
	      (type == GNT_PARAM_TYPE_NUMBER && pdef->type == GNT_PARAM_TYPE_INT)) ||
	    pdef->nullable != nullable) {
		g_critical("%s has no %s parameter '%s' of that type", self->def->id,
			   nullable ? "optional" : "non-null", name);
		return NULL;
	}
	node = json_object_get_member(self->params, name);
	return node != NULL && !JSON_NODE_HOLDS_NULL(node) ? node : NULL;
}

gboolean
gnt_opcode_has_param(const GntOpcode *self, const gchar *name)
{
	return gnt_op_def_find_param(self->def, name) != NULL;
}

gboolean
gnt_opcode_get_bool(const GntOpcode *self, const gchar *name)
{
	JsonNode *node = typed_param(self, name, GNT_PARAM_TYPE_BOOL, FALSE);

	return node != NULL && json_node_get_boolean(node);
}

gint64
gnt_opcode_get_int(const GntOpcode *self, const gchar *name)
{
	JsonNode *node = typed_param(self, name, GNT_PARAM_TYPE_INT, FALSE);

	return node != NULL ? json_node_get_int(node) : 0;
}

gdouble
gnt_opcode_get_number(const GntOpcode *self, const gchar *name)
{
	JsonNode *node = typed_param(self, name, GNT_PARAM_TYPE_NUMBER, FALSE);

	return node != NULL ? json_node_get_double(node) : 0;
}

gboolean
gnt_opcode_lookup_bool(const GntOpcode *self, const gchar *name, gboolean *out)
{
	JsonNode *node = typed_param(self, name, GNT_PARAM_TYPE_BOOL, TRUE);

	if (node == NULL)
		return FALSE;
	*out = json_node_get_boolean(node);
	return TRUE;
}

gboolean
gnt_opcode_get_flag(const GntOpcode *self, const gchar *name)
{
	gboolean value = FALSE;

	return gnt_opcode_lookup_bool(self, name, &value) && value;
}

guint
gnt_opcode_get_debug_level(const GntOpcode *self)
{
	gint64 level = 0;

	gnt_opcode_lookup_int(self, "debug_level", &level);
	return (guint)level;
}

gboolean
gnt_opcode_lookup_int(const GntOpcode *self, const gchar *name, gint64 *out)
{
	JsonNode *node = typed_param(self, name, GNT_PARAM_TYPE_INT, TRUE);

	if (node == NULL)
		return FALSE;
	*out = json_node_get_int(node);
	return TRUE;
}

const gchar *
gnt_opcode_get_string(const GntOpcode *self, const gchar *name)
{
	JsonNode *node = gnt_opcode_get_param(self, name);

	if (node == NULL || !JSON_NODE_HOLDS_VALUE(node) ||
	    json_node_get_value_type(node) != G_TYPE_STRING)
		return NULL;
	return json_node_get_string(node);
}

const GntSecret *
gnt_opcode_get_secret(const GntOpcode *self, const gchar *name)
{
	return g_hash_table_lookup(self->secrets, name);
}

gboolean
gnt_opcode_has_secrets(const GntOpcode *self)
{
	return g_hash_table_size(self->secrets) > 0;
}

void
gnt_opcode_forget_secrets(GntOpcode *self)
{
	g_hash_table_remove_all(self->secrets);
}

gboolean
gnt_opcode_lost_secrets(const GntOpcode *self)
{
	return self->lost_secrets;
}

gint
gnt_opcode_get_priority(const GntOpcode *self)
{
	return (gint)gnt_opcode_get_int(self, "priority");
}

void
gnt_opcode_add_reason(GntOpcode *self, const gchar *source, const gchar *text, gint64 ts_ns)
{
	JsonArray *trail = json_object_get_array_member(self->params, "reason");
	JsonArray *entry = json_array_sized_new(3);

	json_array_add_string_element(entry, source);
	json_array_add_string_element(entry, text);
	json_array_add_int_element(entry, ts_ns);
	json_array_add_array_element(trail, entry);
}

gboolean
gnt_opcode_resolve_depends(GntOpcode *self, guint64 own_id, GError **error)
{
	JsonArray *deps = gnt_opcode_get_depends(self);
	JsonArray *resolved;

	if (deps == NULL)
		return TRUE;
	resolved = json_array_sized_new(json_array_get_length(deps));
	for (guint i = 0; i < json_array_get_length(deps); i++) {
		JsonArray *dep = json_array_get_array_element(deps, i);
		JsonNode *id_node = json_array_get_element(dep, 0);
		JsonArray *pair;
		gint64 id;

		if (gnt_json_node_is_int(id_node)) {
			id = json_node_get_int(id_node);
		} else if (!g_ascii_string_to_signed(json_node_get_string(id_node), 10, G_MININT64,
						     G_MAXINT64, &id, NULL)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "%s: dependency %u: '%s' is not a job ID", self->def->id, i,
				    json_node_get_string(id_node));
			json_array_unref(resolved);
			return FALSE;
		}
		if (id < 0)
			id = (gint64)own_id + id;
		if (id <= 0 || (guint64)id >= own_id) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "%s: dependency %u must name an earlier job", self->def->id, i);
			json_array_unref(resolved);
			return FALSE;
		}
		pair = json_array_sized_new(2);
		json_array_add_int_element(pair, id);
		json_array_add_element(pair,
				       gnt_json_node_deep_copy(json_array_get_element(dep, 1)));
		json_array_add_array_element(resolved, pair);
	}
	json_object_set_array_member(self->params, "depends", resolved);
	return TRUE;
}

JsonArray *
gnt_opcode_get_depends(const GntOpcode *self)
{
	JsonNode *node = json_object_get_member(self->params, "depends");

	return node != NULL && JSON_NODE_HOLDS_ARRAY(node) ? json_node_get_array(node) : NULL;
}

typedef struct {
	const GntOpcode *op;
	JsonObject *out;
	gboolean private_only;
} ShowCtx;

static gboolean
show_param(const GntParamDef *pdef, gpointer user_data, GError **error)
{
	ShowCtx *ctx = user_data;
	JsonNode *value = json_object_get_member(ctx->op->params, pdef->name);

	if (ctx->private_only) {
		if (pdef->visibility == GNT_PARAM_PRIVATE && !JSON_NODE_HOLDS_NULL(value))
			json_object_set_member(ctx->out, pdef->name,
					       gnt_json_node_deep_copy(value));
	} else if (pdef->visibility == GNT_PARAM_PRIVATE) {
		json_object_set_member(ctx->out, pdef->name, redacted_copy(value));
	} else {
		/* secrets are already held in redacted form */
		json_object_set_member(ctx->out, pdef->name, gnt_json_node_deep_copy(value));
	}
	return TRUE;
}

JsonObject *
gnt_opcode_to_json(const GntOpcode *self)
{
	ShowCtx ctx = {self, json_object_new(), FALSE};

	foreach_param(self->def, show_param, &ctx, NULL);
	json_object_set_string_member(ctx.out, "OP_ID", self->def->id);
	return ctx.out;
}

JsonObject *
gnt_opcode_dup_private(const GntOpcode *self)
{
	ShowCtx ctx = {self, json_object_new(), TRUE};

	foreach_param(self->def, show_param, &ctx, NULL);
	if (json_object_get_size(ctx.out) == 0) {
		json_object_unref(ctx.out);
		return NULL;
	}
	return ctx.out;
}
