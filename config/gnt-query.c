#include "gnt-query.h"

#include <string.h>

#include "gnt-error.h"
#include "gnt-json.h"

#define FILTER_LEVELS_MAX 10

static const gchar *const kind_names[] = {
	[GNT_QUERY_KIND_UNKNOWN] = "unknown",	  [GNT_QUERY_KIND_TEXT] = "text",
	[GNT_QUERY_KIND_BOOL] = "bool",		  [GNT_QUERY_KIND_NUMBER] = "number",
	[GNT_QUERY_KIND_FLOAT] = "float",	  [GNT_QUERY_KIND_UNIT] = "unit",
	[GNT_QUERY_KIND_TIMESTAMP] = "timestamp", [GNT_QUERY_KIND_OTHER] = "other",
};
G_STATIC_ASSERT(G_N_ELEMENTS(kind_names) == GNT_QUERY_KIND_LAST);

const gchar *
gnt_query_kind_to_string(GntQueryKind kind)
{
	g_return_val_if_fail(kind < GNT_QUERY_KIND_LAST, NULL);
	return kind_names[kind];
}

const GntQueryField *
gnt_query_field_lookup(const GntQueryField *table, const gchar *name)
{
	for (const GntQueryField *field = table; field->name != NULL; field++) {
		if (g_strcmp0(field->name, name) == 0)
			return field;
	}
	return NULL;
}

/* {"name", "title", "kind", "doc"}; @field NULL: the unknown field @name. */
static JsonNode *
field_definition(const GntQueryField *field, const gchar *name)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();
	g_autofree gchar *unknown_doc = g_strdup_printf("Unknown field '%s'", name);

	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "name");
	json_builder_add_string_value(builder, name);
	json_builder_set_member_name(builder, "title");
	json_builder_add_string_value(builder, field != NULL ? field->title : name);
	json_builder_set_member_name(builder, "kind");
	json_builder_add_string_value(
		builder, kind_names[field != NULL ? field->kind : GNT_QUERY_KIND_UNKNOWN]);
	json_builder_set_member_name(builder, "doc");
	json_builder_add_string_value(builder, field != NULL ? field->doc : unknown_doc);
	json_builder_end_object(builder);
	return json_builder_get_root(builder);
}

static JsonNode *
fields_object(JsonArray *definitions)
{
	JsonObject *obj = json_object_new();

	json_object_set_array_member(obj, "fields", definitions);
	return gnt_json_node_new_object(obj);
}

/* ------------------------------------------------------------------ */
/* Selected fields */

typedef struct {
	const GntQueryField *field; /* NULL: unknown */
	gchar *name;
} Column;

static void
column_clear(gpointer data)
{
	Column *column = data;

	g_free(column->name);
}

/* Appends the columns named in @names (NULL: all of @table) to @columns. */
static gboolean
columns_add(GArray *columns, const GntQueryField *table, JsonArray *names, GError **error)
{
	if (names == NULL) {
		for (const GntQueryField *field = table; field->name != NULL; field++) {
			Column column = {field, g_strdup(field->name)};
			g_array_append_val(columns, column);
		}
		return TRUE;
	}
	for (guint i = 0; i < json_array_get_length(names); i++) {
		g_autofree gchar *what = g_strdup_printf("field name %u", i);
		const gchar *name = NULL;
		Column column;

		if (!gnt_json_node_get_string(json_array_get_element(names, i), what, &name, error))
			return FALSE;
		column.field = gnt_query_field_lookup(table, name);
		column.name = g_strdup(name);
		g_array_append_val(columns, column);
	}
	return TRUE;
}

static JsonArray *
columns_definitions(GArray *columns)
{
	JsonArray *definitions = json_array_sized_new(columns->len);

	for (guint i = 0; i < columns->len; i++) {
		Column *column = &g_array_index(columns, Column, i);
		json_array_add_element(definitions, field_definition(column->field, column->name));
	}
	return definitions;
}

JsonNode *
gnt_query_fields_response(const GntQueryField *table, JsonArray *names, GError **error)
{
	g_autoptr(GArray) columns = g_array_new(FALSE, FALSE, sizeof(Column));

	g_array_set_clear_func(columns, column_clear);
	if (names != NULL && json_array_get_length(names) == 0)
		names = NULL;
	if (!columns_add(columns, table, names, error))
		return NULL;
	return fields_object(columns_definitions(columns));
}

/* Runs a getter; a getter that answers nothing with a normal status is a
 * bug, shown as an unavailable cell. */
static JsonNode *
field_get(const GntQueryField *field, gconstpointer item, gpointer user_data,
	  GntQueryStatus *status)
{
	JsonNode *value;

	*status = GNT_QUERY_STATUS_NORMAL;
	value = field->get != NULL ? field->get(item, user_data, status)
				   : field->get_field(field, item, user_data, status);
	if (value == NULL && *status == GNT_QUERY_STATUS_NORMAL) {
		g_critical("query field '%s' returned no value", field->name);
		*status = GNT_QUERY_STATUS_UNAVAIL;
	}
	if (value != NULL && *status != GNT_QUERY_STATUS_NORMAL)
		g_clear_pointer(&value, json_node_unref);
	return value;
}

/* ------------------------------------------------------------------ */
/* Filters */

typedef enum {
	OP_AND,
	OP_OR,
	OP_NOT,
	OP_TRUE,
	OP_EQUAL,
	OP_NOT_EQUAL,
	OP_LT,
	OP_GT,
	OP_LE,
	OP_GE,
	OP_REGEXP,
	OP_CONTAINS,
} FilterOp;

typedef enum {
	SHAPE_LOGIC,  /* [op, filter...] */
	SHAPE_NOT,    /* [op, filter] */
	SHAPE_FIELD,  /* [op, field] */
	SHAPE_BINARY, /* [op, field, value] */
} FilterShape;

static const struct {
	const gchar *name;
	FilterOp op;
	FilterShape shape;
} filter_ops[] = {
	{"&", OP_AND, SHAPE_LOGIC},	    {"|", OP_OR, SHAPE_LOGIC},
	{"!", OP_NOT, SHAPE_NOT},	    {"?", OP_TRUE, SHAPE_FIELD},
	{"==", OP_EQUAL, SHAPE_BINARY},	    {"=", OP_EQUAL, SHAPE_BINARY},
	{"!=", OP_NOT_EQUAL, SHAPE_BINARY}, {"<", OP_LT, SHAPE_BINARY},
	{">", OP_GT, SHAPE_BINARY},	    {"<=", OP_LE, SHAPE_BINARY},
	{">=", OP_GE, SHAPE_BINARY},	    {"=~", OP_REGEXP, SHAPE_BINARY},
	{"=[]", OP_CONTAINS, SHAPE_BINARY},
};

typedef struct _Filter Filter;
struct _Filter {
	FilterOp op;
	GPtrArray *operands;	    /* Filter *: SHAPE_LOGIC, SHAPE_NOT */
	const GntQueryField *field; /* SHAPE_FIELD, SHAPE_BINARY */
	JsonNode *value;	    /* SHAPE_BINARY: a string or an integer */
	GRegex *regex;		    /* OP_REGEXP */
};

static void
filter_free(Filter *self)
{
	g_clear_pointer(&self->operands, g_ptr_array_unref);
	g_clear_pointer(&self->value, json_node_unref);
	g_clear_pointer(&self->regex, g_regex_unref);
	g_free(self);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(Filter, filter_free)

typedef struct {
	const GntQueryField *table;
	GHashTable *used; /* field names (owned by the table) */
} FilterCompiler;

static Filter *
filter_compile(FilterCompiler *compiler, JsonNode *node, guint level, GError **error);

static const GntQueryField *
filter_compile_field(FilterCompiler *compiler, const gchar *op, JsonNode *node, GError **error)
{
	const GntQueryField *field;
	const gchar *name = NULL;
	g_autofree gchar *what = g_strdup_printf("the field name of operator '%s'", op);

	if (!gnt_json_node_get_string(node, what, &name, error))
		return NULL;
	field = gnt_query_field_lookup(compiler->table, name);
	if (field == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "unknown field '%s' in filter",
			    name);
		return NULL;
	}
	g_hash_table_add(compiler->used, (gpointer)field->name);
	return field;
}

/* A filter value as a string or an integer node. (transfer full) */
static JsonNode *
filter_compile_value(const GntQueryField *field, JsonNode *node, GError **error)
{
	g_autofree gchar *text = NULL;
	guint64 job_id = 0;
	gdouble number;

	if (gnt_json_node_is_int(node))
		return json_node_ref(node);
	if (gnt_json_node_is_number(node)) {
		number = json_node_get_double(node);
		if (!(number > -9.2e18 && number < 9.2e18) || number != (gdouble)(gint64)number) {
			text = gnt_json_to_string(node);
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "filter value %s for field '%s' is not an integer; "
				    "fractions are not allowed",
				    text, field->name);
			return NULL;
		}
		return gnt_json_node_new_int((gint64)number);
	}
	if (!JSON_NODE_HOLDS_VALUE(node) || json_node_get_value_type(node) != G_TYPE_STRING) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "filter value for field '%s' must be a string or an integer, not %s",
			    field->name, gnt_json_node_type_name(node));
		return NULL;
	}
	if ((field->flags & GNT_QUERY_FLAG_JOB_ID) == 0)
		return json_node_ref(node);
	if (!g_ascii_string_to_unsigned(json_node_get_string(node), 10, 0, G_MAXINT64, &job_id,
					NULL)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "filter value '%s' for field '%s' is not a job ID",
			    json_node_get_string(node), field->name);
		return NULL;
	}
	return gnt_json_node_new_int((gint64)job_id);
}

static gboolean
filter_expect_operands(const gchar *op, guint n_operands, guint expected, GError **error)
{
	if (n_operands == expected)
		return TRUE;
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
		    "operator '%s' expects exactly %u operand%s, got %u", op, expected,
		    expected == 1 ? "" : "s", n_operands);
	return FALSE;
}

static gboolean
filter_compile_binary(Filter *filter, FilterCompiler *compiler, const gchar *op, JsonArray *list,
		      GError **error)
{
	const gchar *pattern;
	g_autoptr(GError) error_local = NULL;

	filter->field = filter_compile_field(compiler, op, json_array_get_element(list, 1), error);
	if (filter->field == NULL)
		return FALSE;
	filter->value = filter_compile_value(filter->field, json_array_get_element(list, 2), error);
	if (filter->value == NULL)
		return FALSE;
	if (filter->op != OP_REGEXP)
		return TRUE;
	if (json_node_get_value_type(filter->value) != G_TYPE_STRING) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "the regular expression for field '%s' must be a string",
			    filter->field->name);
		return FALSE;
	}
	pattern = json_node_get_string(filter->value);
	filter->regex = g_regex_new(pattern, G_REGEX_DEFAULT, G_REGEX_MATCH_DEFAULT, &error_local);
	if (filter->regex == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "invalid regular expression '%s' for field '%s': %s", pattern,
			    filter->field->name, error_local->message);
		return FALSE;
	}
	return TRUE;
}

/* The sub-filters of a logic operator or "!". */
static gboolean
filter_compile_operands(Filter *filter, FilterCompiler *compiler, JsonArray *list, guint level,
			GError **error)
{
	filter->operands = g_ptr_array_new_with_free_func((GDestroyNotify)filter_free);
	for (guint n = 1; n < json_array_get_length(list); n++) {
		Filter *operand =
			filter_compile(compiler, json_array_get_element(list, n), level + 1, error);
		if (operand == NULL)
			return FALSE;
		g_ptr_array_add(filter->operands, operand);
	}
	return TRUE;
}

static Filter *
filter_compile(FilterCompiler *compiler, JsonNode *node, guint level, GError **error)
{
	g_autoptr(Filter) filter = g_new0(Filter, 1);
	JsonArray *list;
	const gchar *op = NULL;
	guint n_operands;
	guint i;

	if (level >= FILTER_LEVELS_MAX) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "filter nested too deep: at most %u levels are allowed",
			    (guint)FILTER_LEVELS_MAX);
		return NULL;
	}
	if (!JSON_NODE_HOLDS_ARRAY(node) || json_array_get_length(json_node_get_array(node)) == 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "invalid filter at level %u: expected a non-empty list, not %s", level,
			    gnt_json_node_type_name(node));
		return NULL;
	}
	list = json_node_get_array(node);
	if (!gnt_json_node_get_string(json_array_get_element(list, 0), "a filter operator", &op,
				      error))
		return NULL;
	for (i = 0; i < G_N_ELEMENTS(filter_ops); i++) {
		if (g_strcmp0(filter_ops[i].name, op) == 0)
			break;
	}
	if (i == G_N_ELEMENTS(filter_ops)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "unknown filter operator '%s'",
			    op);
		return NULL;
	}
	filter->op = filter_ops[i].op;
	n_operands = json_array_get_length(list) - 1;
	switch (filter_ops[i].shape) {
	case SHAPE_NOT:
		if (!filter_expect_operands(op, n_operands, 1, error) ||
		    !filter_compile_operands(filter, compiler, list, level, error))
			return NULL;
		break;
	case SHAPE_LOGIC:
		if (!filter_compile_operands(filter, compiler, list, level, error))
			return NULL;
		break;
	case SHAPE_FIELD:
		if (!filter_expect_operands(op, n_operands, 1, error))
			return NULL;
		filter->field =
			filter_compile_field(compiler, op, json_array_get_element(list, 1), error);
		if (filter->field == NULL)
			return NULL;
		break;
	case SHAPE_BINARY:
		if (!filter_expect_operands(op, n_operands, 2, error) ||
		    !filter_compile_binary(filter, compiler, op, list, error))
			return NULL;
		break;
	default:
		g_assert_not_reached();
	}
	return g_steal_pointer(&filter);
}

/* Python's truth: false, 0, "", [], {} and null are false. */
static gboolean
value_is_true(JsonNode *cell)
{
	if (JSON_NODE_HOLDS_ARRAY(cell))
		return json_array_get_length(json_node_get_array(cell)) > 0;
	if (JSON_NODE_HOLDS_OBJECT(cell))
		return json_object_get_size(json_node_get_object(cell)) > 0;
	if (!JSON_NODE_HOLDS_VALUE(cell))
		return FALSE;
	switch (json_node_get_value_type(cell)) {
	case G_TYPE_BOOLEAN:
		return json_node_get_boolean(cell);
	case G_TYPE_INT64:
		return json_node_get_int(cell) != 0;
	case G_TYPE_DOUBLE:
		return json_node_get_double(cell) != 0.0;
	case G_TYPE_STRING:
		return json_node_get_string(cell)[0] != '\0';
	default:
		return FALSE;
	}
}

/* A [sec, usec] cell as seconds; FALSE if @cell is not such a pair. */
static gboolean
split_timestamp_seconds(JsonNode *cell, gdouble *seconds)
{
	JsonArray *pair;

	if (!JSON_NODE_HOLDS_ARRAY(cell))
		return FALSE;
	pair = json_node_get_array(cell);
	if (json_array_get_length(pair) != 2 ||
	    !gnt_json_node_is_int(json_array_get_element(pair, 0)) ||
	    !gnt_json_node_is_int(json_array_get_element(pair, 1)))
		return FALSE;
	*seconds = (gdouble)json_array_get_int_element(pair, 0) +
		   (gdouble)json_array_get_int_element(pair, 1) / G_USEC_PER_SEC;
	return TRUE;
}

static gint
compare_doubles(gdouble a, gdouble b)
{
	return (a > b) - (a < b);
}

/*
 * Orders a cell against a filter value: numbers with numbers, strings with
 * strings (byte order, which is code point order in UTF-8). FALSE when the
 * types differ: such a condition is false.
 */
static gboolean
cell_compare(GntQueryFlags flags, JsonNode *cell, JsonNode *value, gint *order)
{
	gdouble seconds;

	if ((flags & GNT_QUERY_FLAG_SPLIT_TIMESTAMP) != 0 && gnt_json_node_is_number(value) &&
	    split_timestamp_seconds(cell, &seconds)) {
		*order = compare_doubles(seconds, json_node_get_double(value));
		return TRUE;
	}
	if (gnt_json_node_is_int(cell) && gnt_json_node_is_int(value)) {
		gint64 a = json_node_get_int(cell), b = json_node_get_int(value);
		*order = (a > b) - (a < b);
		return TRUE;
	}
	if (gnt_json_node_is_number(cell) && gnt_json_node_is_number(value)) {
		*order = compare_doubles(json_node_get_double(cell), json_node_get_double(value));
		return TRUE;
	}
	if (JSON_NODE_HOLDS_VALUE(cell) && json_node_get_value_type(cell) == G_TYPE_STRING &&
	    json_node_get_value_type(value) == G_TYPE_STRING) {
		*order = g_strcmp0(json_node_get_string(cell), json_node_get_string(value));
		*order = (*order > 0) - (*order < 0);
		return TRUE;
	}
	return FALSE;
}

/* "inst1" and "INST1.example.com" match "inst1.example.com". */
static gboolean
hostname_matches(const gchar *name, const gchar *wanted)
{
	gsize len = strlen(wanted);

	return g_ascii_strncasecmp(name, wanted, len) == 0 &&
	       (name[len] == '\0' || name[len] == '.');
}

static gboolean
cell_equals(GntQueryFlags flags, JsonNode *cell, JsonNode *value)
{
	gint order = 0;

	if ((flags & GNT_QUERY_FLAG_HOSTNAME) != 0 && JSON_NODE_HOLDS_VALUE(cell) &&
	    json_node_get_value_type(cell) == G_TYPE_STRING &&
	    json_node_get_value_type(value) == G_TYPE_STRING)
		return hostname_matches(json_node_get_string(cell), json_node_get_string(value));
	return cell_compare(flags, cell, value, &order) && order == 0;
}

static gboolean
list_contains(JsonNode *cell, JsonNode *value)
{
	JsonArray *list;

	if (!JSON_NODE_HOLDS_ARRAY(cell))
		return FALSE;
	list = json_node_get_array(cell);
	for (guint i = 0; i < json_array_get_length(list); i++) {
		if (cell_equals(GNT_QUERY_FLAG_NONE, json_array_get_element(list, i), value))
			return TRUE;
	}
	return FALSE;
}

static gboolean
filter_eval_cell(const Filter *filter, JsonNode *cell)
{
	GntQueryFlags flags = filter->field->flags;
	gint order = 0;

	switch (filter->op) {
	case OP_TRUE:
		return value_is_true(cell);
	case OP_EQUAL:
		return cell_equals(flags, cell, filter->value);
	case OP_NOT_EQUAL:
		return !cell_equals(flags, cell, filter->value);
	case OP_LT:
		return cell_compare(flags, cell, filter->value, &order) && order < 0;
	case OP_GT:
		return cell_compare(flags, cell, filter->value, &order) && order > 0;
	case OP_LE:
		return cell_compare(flags, cell, filter->value, &order) && order <= 0;
	case OP_GE:
		return cell_compare(flags, cell, filter->value, &order) && order >= 0;
	case OP_REGEXP:
		return JSON_NODE_HOLDS_VALUE(cell) &&
		       json_node_get_value_type(cell) == G_TYPE_STRING &&
		       g_regex_match(filter->regex, json_node_get_string(cell), 0, NULL);
	case OP_CONTAINS:
		return list_contains(cell, filter->value);
	case OP_AND:
	case OP_OR:
	case OP_NOT:
	default:
		g_assert_not_reached();
	}
}

static gboolean
filter_eval(const Filter *filter, gconstpointer item, gpointer user_data)
{
	g_autoptr(JsonNode) cell = NULL;
	GntQueryStatus status;

	switch (filter->op) {
	case OP_AND:
		for (guint i = 0; i < filter->operands->len; i++) {
			if (!filter_eval(g_ptr_array_index(filter->operands, i), item, user_data))
				return FALSE;
		}
		return TRUE;
	case OP_OR:
		for (guint i = 0; i < filter->operands->len; i++) {
			if (filter_eval(g_ptr_array_index(filter->operands, i), item, user_data))
				return TRUE;
		}
		return FALSE;
	case OP_NOT:
		return !filter_eval(g_ptr_array_index(filter->operands, 0), item, user_data);
	case OP_TRUE:
	case OP_EQUAL:
	case OP_NOT_EQUAL:
	case OP_LT:
	case OP_GT:
	case OP_LE:
	case OP_GE:
	case OP_REGEXP:
	case OP_CONTAINS:
	default:
		/* a condition on a cell without data is false */
		cell = field_get(filter->field, item, user_data, &status);
		return cell != NULL && filter_eval_cell(filter, cell);
	}
}

/* Appends the values of an "==" / "|" filter on @name; FALSE for any other
 * shape. */
static gboolean
filter_collect_hint(const Filter *filter, const gchar *name, JsonArray *values)
{
	if (filter->op == OP_OR) {
		for (guint i = 0; i < filter->operands->len; i++) {
			if (!filter_collect_hint(g_ptr_array_index(filter->operands, i), name,
						 values))
				return FALSE;
		}
		return TRUE;
	}
	if (filter->op != OP_EQUAL || g_strcmp0(filter->field->name, name) != 0)
		return FALSE;
	for (guint i = 0; i < json_array_get_length(values); i++) {
		if (json_node_equal(json_array_get_element(values, i), filter->value))
			return TRUE;
	}
	json_array_add_element(values, json_node_ref(filter->value));
	return TRUE;
}

/* ------------------------------------------------------------------ */
/* Queries */

struct _GntQuery {
	const GntQueryField *table;
	GArray *columns; /* Column */
	Filter *filter;	 /* NULL: everything matches */
	GHashTable *filter_fields;
};

void
gnt_query_free(GntQuery *self)
{
	g_clear_pointer(&self->columns, g_array_unref);
	g_clear_pointer(&self->filter, filter_free);
	g_clear_pointer(&self->filter_fields, g_hash_table_unref);
	g_free(self);
}

GntQuery *
gnt_query_new(const GntQueryField *table, JsonArray *fields, JsonNode *filter, GError **error)
{
	g_autoptr(GntQuery) self = g_new0(GntQuery, 1);
	FilterCompiler compiler;

	g_return_val_if_fail(table != NULL, NULL);

	self->table = table;
	self->columns = g_array_new(FALSE, FALSE, sizeof(Column));
	g_array_set_clear_func(self->columns, column_clear);
	self->filter_fields = g_hash_table_new(g_str_hash, g_str_equal);
	if (!columns_add(self->columns, table, fields, error)) {
		g_prefix_error(error, "query fields: ");
		return NULL;
	}
	if (filter == NULL || JSON_NODE_HOLDS_NULL(filter))
		return g_steal_pointer(&self);
	compiler.table = table;
	compiler.used = self->filter_fields;
	self->filter = filter_compile(&compiler, filter, 0, error);
	if (self->filter == NULL)
		return NULL;
	return g_steal_pointer(&self);
}

gboolean
gnt_query_check_known_fields(GntQuery *self, GError **error)
{
	g_autoptr(GString) unknown = g_string_new(NULL);

	for (guint i = 0; i < self->columns->len; i++) {
		Column *column = &g_array_index(self->columns, Column, i);
		if (column->field != NULL)
			continue;
		if (unknown->len > 0)
			g_string_append(unknown, ", ");
		g_string_append(unknown, column->name);
	}
	if (unknown->len == 0)
		return TRUE;
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "Unknown output fields selected: %s",
		    unknown->str);
	return FALSE;
}

gboolean
gnt_query_uses_field(GntQuery *self, const gchar *name)
{
	for (guint i = 0; i < self->columns->len; i++) {
		Column *column = &g_array_index(self->columns, Column, i);
		if (column->field != NULL && g_strcmp0(column->name, name) == 0)
			return TRUE;
	}
	return g_hash_table_contains(self->filter_fields, name);
}

JsonArray *
gnt_query_dup_name_hint(GntQuery *self, const gchar *name)
{
	g_autoptr(JsonArray) values = json_array_new();

	if (self->filter == NULL || !filter_collect_hint(self->filter, name, values))
		return NULL;
	return g_steal_pointer(&values);
}

gboolean
gnt_query_matches(GntQuery *self, gconstpointer item, gpointer user_data)
{
	return self->filter == NULL || filter_eval(self->filter, item, user_data);
}

/* Each selected field's value of @item, with @add turning it into a cell. */
static JsonArray *
build_cells(GntQuery *self, gconstpointer item, gpointer user_data,
	    void (*add)(JsonArray *row, GntQueryStatus status, JsonNode *value))
{
	JsonArray *row = json_array_sized_new(self->columns->len);

	for (guint i = 0; i < self->columns->len; i++) {
		Column *column = &g_array_index(self->columns, Column, i);
		GntQueryStatus status = GNT_QUERY_STATUS_UNKNOWN;
		JsonNode *value = NULL;

		if (column->field != NULL)
			value = field_get(column->field, item, user_data, &status);
		add(row, status, value != NULL ? value : gnt_json_node_new_null());
	}
	return row;
}

static void
add_pair(JsonArray *row, GntQueryStatus status, JsonNode *value)
{
	JsonArray *pair = json_array_sized_new(2);

	json_array_add_int_element(pair, status);
	json_array_add_element(pair, value);
	json_array_add_array_element(row, pair);
}

static void
add_bare(JsonArray *row, GntQueryStatus status, JsonNode *value)
{
	json_array_add_element(row, value);
}

JsonArray *
gnt_query_build_row(GntQuery *self, gconstpointer item, gpointer user_data)
{
	return build_cells(self, item, user_data, add_pair);
}

JsonArray *
gnt_query_build_values(GntQuery *self, gconstpointer item, gpointer user_data)
{
	return build_cells(self, item, user_data, add_bare);
}

JsonNode *
gnt_query_build_response(GntQuery *self, JsonArray *rows)
{
	JsonNode *response = fields_object(columns_definitions(self->columns));

	json_object_set_array_member(json_node_get_object(response), "data", rows);
	return response;
}

/* Appends the value of @column for @item, as a [status, value] pair when
 * @pair, else bare (null unless the status is normal). */
static void
write_cell(const Column *column, gconstpointer item, gpointer user_data, GString *out,
	   gboolean pair)
{
	const GntQueryField *field = column->field;
	GntQueryStatus status = GNT_QUERY_STATUS_UNKNOWN;
	g_autoptr(JsonNode) value = NULL;

	if (field != NULL && field->write != NULL) {
		gsize mark = out->len;

		/* most cells are normal: write as if, undo if not */
		if (pair)
			g_string_append_len(out, "[0,", 3);
		status = GNT_QUERY_STATUS_NORMAL;
		field->write(item, user_data, out, &status);
		if (status == GNT_QUERY_STATUS_NORMAL && out->len == mark + (pair ? 3 : 0)) {
			/* as field_get() treats a getter answering nothing */
			g_critical("query field '%s' wrote no value", field->name);
			status = GNT_QUERY_STATUS_UNAVAIL;
		}
		if (status == GNT_QUERY_STATUS_NORMAL) {
			if (pair)
				g_string_append_c(out, ']');
			return;
		}
		g_string_truncate(out, mark);
	} else if (field != NULL) {
		value = field_get(field, item, user_data, &status);
	}
	if (pair) {
		g_string_append_c(out, '[');
		gnt_json_append_int(out, status);
		g_string_append_c(out, ',');
	}
	gnt_json_append(out, value);
	if (pair)
		g_string_append_c(out, ']');
}

static void
write_cells(GntQuery *self, gconstpointer item, gpointer user_data, GString *out, gboolean pair)
{
	g_string_append_c(out, '[');
	for (guint i = 0; i < self->columns->len; i++) {
		if (i > 0)
			g_string_append_c(out, ',');
		write_cell(&g_array_index(self->columns, Column, i), item, user_data, out, pair);
	}
	g_string_append_c(out, ']');
}

void
gnt_query_write_row(GntQuery *self, gconstpointer item, gpointer user_data, GString *out)
{
	write_cells(self, item, user_data, out, TRUE);
}

void
gnt_query_write_values(GntQuery *self, gconstpointer item, gpointer user_data, GString *out)
{
	write_cells(self, item, user_data, out, FALSE);
}

void
gnt_query_write_response_start(GntQuery *self, GString *out)
{
	g_autoptr(JsonNode)
		definitions = gnt_json_node_new_array(columns_definitions(self->columns));

	g_string_append(out, "{\"fields\":");
	gnt_json_append(out, definitions);
	g_string_append(out, ",\"data\":[");
}

void
gnt_query_write_response_end(GntQuery *self, GString *out)
{
	g_string_append(out, "]}");
}
