#include "gnt-cli-format.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gnt-error.h"
#include "gnt-json.h"

/* ---- Python's str() and repr() of decoded JSON ---- */

static void
append_py_repr(GString *out, JsonNode *node);

/* repr(float): the shortest digits that read back as @value, in fixed
 * notation for exponents -4..15 and scientific ("1e-05") otherwise. */
static void
append_py_float(GString *out, gdouble value)
{
	gchar fmt[16];
	gchar buf[G_ASCII_DTOSTR_BUF_SIZE + 32];
	const gchar *e;
	gint digits = 17;
	gint exponent;

	if (isnan(value)) {
		g_string_append(out, "nan");
		return;
	}
	if (isinf(value)) {
		g_string_append(out, value > 0 ? "inf" : "-inf");
		return;
	}
	for (gint p = 1; p <= 17; p++) {
		g_snprintf(fmt, sizeof(fmt), "%%.%de", p - 1);
		g_ascii_formatd(buf, sizeof(buf), fmt, value);
		if (g_ascii_strtod(buf, NULL) == value) {
			digits = p;
			break;
		}
	}
	g_snprintf(fmt, sizeof(fmt), "%%.%de", digits - 1);
	g_ascii_formatd(buf, sizeof(buf), fmt, value);
	e = strchr(buf, 'e');
	exponent = e != NULL ? atoi(e + 1) : 0;
	if (exponent >= -4 && exponent < 16) {
		g_snprintf(fmt, sizeof(fmt), "%%.%df", MAX(digits - 1 - exponent, 0));
		g_ascii_formatd(buf, sizeof(buf), fmt, value);
		g_string_append(out, buf);
		if (strchr(buf, '.') == NULL)
			g_string_append(out, ".0");
		return;
	}
	/* mantissa without trailing zeros, then e±XX */
	{
		g_autofree gchar *mantissa = g_strndup(buf, (gsize)(e - buf));
		gsize len = strlen(mantissa);

		if (strchr(mantissa, '.') != NULL) {
			while (len > 0 && mantissa[len - 1] == '0')
				mantissa[--len] = '\0';
			if (len > 0 && mantissa[len - 1] == '.')
				mantissa[--len] = '\0';
		}
		g_string_append_printf(out, "%se%c%02d", mantissa, exponent < 0 ? '-' : '+',
				       ABS(exponent));
	}
}

static void
append_py_str_repr(GString *out, const gchar *str)
{
	gchar quote = '\'';

	if (strchr(str, '\'') != NULL && strchr(str, '"') == NULL)
		quote = '"';
	g_string_append_c(out, quote);
	for (const gchar *p = str; *p != '\0'; p++) {
		guchar c = (guchar)*p;

		if (c == (guchar)quote || c == '\\')
			g_string_append_printf(out, "\\%c", c);
		else if (c == '\t')
			g_string_append(out, "\\t");
		else if (c == '\n')
			g_string_append(out, "\\n");
		else if (c == '\r')
			g_string_append(out, "\\r");
		else if (c < 0x20 || c == 0x7f)
			g_string_append_printf(out, "\\x%02x", c);
		else
			g_string_append_c(out, (gchar)c);
	}
	g_string_append_c(out, quote);
}

static void
append_py_scalar(GString *out, JsonNode *node, gboolean repr)
{
	GType type = json_node_get_value_type(node);

	if (type == G_TYPE_STRING) {
		if (repr)
			append_py_str_repr(out, json_node_get_string(node));
		else
			g_string_append(out, json_node_get_string(node));
	} else if (type == G_TYPE_BOOLEAN) {
		g_string_append(out, json_node_get_boolean(node) ? "True" : "False");
	} else if (type == G_TYPE_DOUBLE) {
		append_py_float(out, json_node_get_double(node));
	} else {
		g_string_append_printf(out, "%" G_GINT64_FORMAT, json_node_get_int(node));
	}
}

static void
append_py_repr(GString *out, JsonNode *node)
{
	if (node == NULL || JSON_NODE_HOLDS_NULL(node)) {
		g_string_append(out, "None");
	} else if (JSON_NODE_HOLDS_ARRAY(node)) {
		JsonArray *array = json_node_get_array(node);

		g_string_append_c(out, '[');
		for (guint i = 0; i < json_array_get_length(array); i++) {
			if (i > 0)
				g_string_append(out, ", ");
			append_py_repr(out, json_array_get_element(array, i));
		}
		g_string_append_c(out, ']');
	} else if (JSON_NODE_HOLDS_OBJECT(node)) {
		JsonObject *object = json_node_get_object(node);
		g_autoptr(GList) members = json_object_get_members(object);

		g_string_append_c(out, '{');
		for (GList *l = members; l != NULL; l = l->next) {
			if (l != members)
				g_string_append(out, ", ");
			append_py_str_repr(out, l->data);
			g_string_append(out, ": ");
			append_py_repr(out, json_object_get_member(object, l->data));
		}
		g_string_append_c(out, '}');
	} else {
		append_py_scalar(out, node, TRUE);
	}
}

gchar *
gnt_cli_py_str(JsonNode *node)
{
	GString *out;

	/* a listing formats a cell or more per row: the common ones directly */
	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return g_strdup("None");
	if (JSON_NODE_HOLDS_VALUE(node)) {
		switch (json_node_get_value_type(node)) {
		case G_TYPE_STRING:
			return g_strdup(json_node_get_string(node));
		case G_TYPE_INT64:
			return g_strdup_printf("%" G_GINT64_FORMAT, json_node_get_int(node));
		case G_TYPE_BOOLEAN:
			return g_strdup(json_node_get_boolean(node) ? "True" : "False");
		default:
			break;
		}
	}
	out = g_string_new(NULL);
	if (JSON_NODE_HOLDS_VALUE(node))
		append_py_scalar(out, node, FALSE);
	else
		append_py_repr(out, node);
	return g_string_free(out, FALSE);
}

/* ---- time ---- */

gchar *
gnt_cli_format_time(gint64 sec, gint usec)
{
	g_autoptr(GDateTime) when = g_date_time_new_from_unix_local(sec);
	g_autofree gchar *text = NULL;

	if (when == NULL)
		return g_strdup("N/A");
	text = g_date_time_format(when, "%Y-%m-%d %H:%M:%S");
	if (usec < 0)
		return g_steal_pointer(&text);
	return g_strdup_printf("%s.%06d", text, usec);
}

/* A [sec, usec] pair of integers. */
static gboolean
get_timestamp(JsonNode *node, gint64 *sec, gint64 *usec)
{
	JsonArray *array;

	if (node == NULL || !JSON_NODE_HOLDS_ARRAY(node))
		return FALSE;
	array = json_node_get_array(node);
	if (json_array_get_length(array) != 2 ||
	    !gnt_json_node_is_number(json_array_get_element(array, 0)) ||
	    !gnt_json_node_is_number(json_array_get_element(array, 1)))
		return FALSE;
	*sec = (gint64)json_node_get_double(json_array_get_element(array, 0));
	*usec = (gint64)json_node_get_double(json_array_get_element(array, 1));
	return TRUE;
}

gchar *
gnt_cli_format_timestamp(JsonNode *node)
{
	gint64 sec;
	gint64 usec;

	if (!get_timestamp(node, &sec, &usec))
		return g_strdup("?");
	return gnt_cli_format_time(sec, (gint)usec);
}

gchar *
gnt_cli_format_ctime(JsonNode *node)
{
	static const gchar *const days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
	static const gchar *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
					      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
	gint64 sec = 0;
	gint64 usec = 0;
	time_t t;
	struct tm tm;

	if (!get_timestamp(node, &sec, &usec))
		return g_strdup("?");
	t = (time_t)sec;
	if (localtime_r(&t, &tm) == NULL)
		return g_strdup("?");
	return g_strdup_printf("%s %s %2d %02d:%02d:%02d %d", days[tm.tm_wday % 7],
			       months[tm.tm_mon % 12], tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
			       tm.tm_year + 1900);
}

/* ---- job log lines ---- */

/* utils.SafeEncode: ASCII with backslash escapes. */
static gchar *
safe_encode(const gchar *text)
{
	GString *out = g_string_new(NULL);
	const gchar *p = text;

	while (*p != '\0') {
		gunichar c = g_utf8_get_char_validated(p, -1);

		if (c == (gunichar)-1 || c == (gunichar)-2) {
			g_string_append_printf(out, "\\x%02x", (guchar)*p);
			p++;
			continue;
		}
		if (c == '\t')
			g_string_append(out, "\\t");
		else if (c == '\n')
			g_string_append(out, "\\n");
		else if (c == '\r')
			g_string_append(out, "\\'r"); /* sic: Ganeti writes r'\'r' */
		else if (c < 32 || c == 127)
			g_string_append_printf(out, "\\x%02x", c);
		else if (c < 127)
			g_string_append_c(out, (gchar)c);
		else if (c <= 0xff)
			g_string_append_printf(out, "\\x%02x", c);
		else if (c <= 0xffff)
			g_string_append_printf(out, "\\u%04x", c);
		else
			g_string_append_printf(out, "\\U%08x", c);
		p = g_utf8_next_char(p);
	}
	return g_string_free(out, FALSE);
}

gchar *
gnt_cli_format_log_message(const gchar *log_type, JsonNode *message)
{
	g_autofree gchar *text = gnt_cli_py_str(message);

	/* a "message" entry is a string already; others go through str() */
	(void)log_type;
	return safe_encode(text);
}

/* ---- units, time specs, field lists ---- */

gchar *
gnt_cli_format_unit(gdouble mib, gchar unit)
{
	gboolean human = unit == 'h';

	if (unit == 'm' || (human && mib < 1024))
		return g_strdup_printf("%.0f%s", mib, human ? "M" : "");
	if (unit == 'g' || (human && mib < 1024 * 1024))
		return g_strdup_printf("%.1f%s", mib / 1024, human ? "G" : "");
	return g_strdup_printf("%.1f%s", mib / 1024 / 1024, human ? "T" : "");
}

gboolean
gnt_cli_parse_timespec(const gchar *value, gint64 *seconds, GError **error)
{
	static const struct {
		gchar suffix;
		gint64 multiplier;
	} suffixes[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}, {'w', 604800}};
	g_autofree gchar *number = g_strdup(value);
	gsize len = strlen(value);
	gint64 multiplier = 1;
	gint64 n;

	if (len == 0) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "Empty time specification passed");
		return FALSE;
	}
	for (guint i = 0; i < G_N_ELEMENTS(suffixes); i++) {
		if (value[len - 1] == suffixes[i].suffix) {
			multiplier = suffixes[i].multiplier;
			number[len - 1] = '\0';
			if (len == 1) {
				g_set_error_literal(
					error, GNT_ERROR, GNT_ERROR_INVALID,
					"Invalid time specification (only suffix passed)");
				return FALSE;
			}
		}
	}
	g_strstrip(number);
	if (!g_ascii_string_to_signed(number, 10, G_MININT64 / 604800, G_MAXINT64 / 604800, &n,
				      NULL)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "Invalid time specification '%s'",
			    value);
		return FALSE;
	}
	*seconds = n * multiplier;
	return TRUE;
}

gchar **
gnt_cli_parse_fields(const gchar *selected, const gchar *const *defaults)
{
	g_autoptr(GStrvBuilder) fields = g_strv_builder_new();
	g_auto(GStrv) parts = NULL;

	if (selected == NULL)
		return g_strdupv((gchar **)defaults);
	if (selected[0] == '+') {
		g_strv_builder_addv(fields, (const gchar **)defaults);
		selected++;
	}
	parts = g_strsplit(selected, ",", -1);
	g_strv_builder_addv(fields, (const gchar **)parts);
	return g_strv_builder_end(fields);
}

/* ---- tables ---- */

static void
append_blanks(GString *line, glong n)
{
	static const gchar blanks[] = "                                ";

	for (; n > 0; n -= (glong)sizeof(blanks) - 1)
		g_string_append_len(line, blanks, MIN(n, (glong)sizeof(blanks) - 1));
}

static void
append_padded(GString *line, const gchar *cell, glong length, glong width, gboolean align_right)
{
	glong pad = width - length;

	if (align_right)
		append_blanks(line, pad);
	g_string_append(line, cell);
	if (!align_right)
		append_blanks(line, pad);
}

GPtrArray *
gnt_cli_format_table(const GntCliColumn *columns, guint n_columns, GPtrArray *rows, gboolean header,
		     const gchar *separator)
{
	GPtrArray *lines = g_ptr_array_new_full(rows->len + 1, g_free);
	g_autoptr(GPtrArray) data = g_ptr_array_sized_new(rows->len + 1); /* borrowed GStrv rows */
	g_autofree glong *width = g_new0(glong, MAX(n_columns, 1));
	g_autofree gchar **titles = g_new0(gchar *, n_columns + 1);
	g_autofree glong *lengths = NULL; /* of each cell, in characters */
	gsize line_size = 1;

	for (guint c = 0; c < n_columns; c++)
		titles[c] = (gchar *)columns[c].title;
	if (header)
		g_ptr_array_add(data, titles);
	for (guint r = 0; r < rows->len; r++)
		g_ptr_array_add(data, g_ptr_array_index(rows, r));
	if (separator == NULL) {
		/* a listing may have 10,000 rows: measure each cell once */
		lengths = g_new(glong, (gsize)data->len * n_columns + 1);
		for (guint r = 0; r < data->len; r++) {
			gchar **row = g_ptr_array_index(data, r);

			for (guint c = 0; c < n_columns; c++) {
				glong length = g_utf8_strlen(row[c], -1);

				lengths[(gsize)r * n_columns + c] = length;
				width[c] = MAX(width[c], length);
			}
		}
		for (guint c = 0; c < n_columns; c++)
			line_size += (gsize)width[c] + 1;
		if (n_columns > 0 && !columns[n_columns - 1].align_right)
			width[n_columns - 1] = 0; /* no trailing blanks */
	}

	for (guint r = 0; r < data->len; r++) {
		gchar **row = g_ptr_array_index(data, r);
		GString *line = g_string_sized_new(line_size);

		for (guint c = 0; c < n_columns; c++) {
			if (separator != NULL) {
				if (c > 0)
					g_string_append(line, separator);
				g_string_append(line, row[c]);
				continue;
			}
			if (c > 0)
				g_string_append_c(line, ' ');
			append_padded(line, row[c], lengths[(gsize)r * n_columns + c], width[c],
				      columns[c].align_right);
		}
		g_ptr_array_add(lines, g_string_free(line, FALSE));
	}
	return lines;
}

/* ---- PrintGenericInfo ---- */

typedef enum {
	INFO_TEXT,
	INFO_DICT,
	INFO_LIST,
} InfoKind;

typedef struct {
	gchar *key;
	gchar *align_group;
	GntCliInfo *value;
} InfoEntry;

struct _GntCliInfo {
	InfoKind kind;
	gchar *text;
	GPtrArray *items; /* InfoEntry for a dict, GntCliInfo for a list */
};

static void
info_entry_free(gpointer data)
{
	InfoEntry *entry = data;

	g_free(entry->key);
	g_free(entry->align_group);
	gnt_cli_info_free(entry->value);
	g_free(entry);
}

static GntCliInfo *
info_new(InfoKind kind)
{
	GntCliInfo *self = g_new0(GntCliInfo, 1);

	self->kind = kind;
	if (kind == INFO_DICT)
		self->items = g_ptr_array_new_with_free_func(info_entry_free);
	else if (kind == INFO_LIST)
		self->items = g_ptr_array_new_with_free_func((GDestroyNotify)gnt_cli_info_free);
	return self;
}

GntCliInfo *
gnt_cli_info_new_dict(void)
{
	return info_new(INFO_DICT);
}

GntCliInfo *
gnt_cli_info_new_list(void)
{
	return info_new(INFO_LIST);
}

GntCliInfo *
gnt_cli_info_new_text(const gchar *text)
{
	GntCliInfo *self = info_new(INFO_TEXT);

	self->text = g_strdup(text);
	return self;
}

static gint
compare_keys(gconstpointer a, gconstpointer b)
{
	return g_strcmp0(*(const gchar *const *)a, *(const gchar *const *)b);
}

GntCliInfo *
gnt_cli_info_new_json(JsonNode *node)
{
	GntCliInfo *self;

	if (node != NULL && JSON_NODE_HOLDS_OBJECT(node)) {
		JsonObject *object = json_node_get_object(node);
		g_autoptr(GList) members = json_object_get_members(object);
		g_autoptr(GPtrArray) keys = g_ptr_array_new();

		for (GList *l = members; l != NULL; l = l->next)
			g_ptr_array_add(keys, l->data);
		g_ptr_array_sort(keys, compare_keys); /* Python prints dicts sorted */
		self = gnt_cli_info_new_dict();
		for (guint i = 0; i < keys->len; i++) {
			const gchar *key = g_ptr_array_index(keys, i);
			gnt_cli_info_add(
				self, key, NULL,
				gnt_cli_info_new_json(json_object_get_member(object, key)));
		}
		return self;
	}
	if (node != NULL && JSON_NODE_HOLDS_ARRAY(node)) {
		JsonArray *array = json_node_get_array(node);

		self = gnt_cli_info_new_list();
		for (guint i = 0; i < json_array_get_length(array); i++)
			gnt_cli_info_append(
				self, gnt_cli_info_new_json(json_array_get_element(array, i)));
		return self;
	}
	self = info_new(INFO_TEXT);
	self->text = gnt_cli_py_str(node);
	return self;
}

void
gnt_cli_info_free(GntCliInfo *self)
{
	if (self == NULL)
		return;
	g_free(self->text);
	if (self->items != NULL)
		g_ptr_array_unref(self->items);
	g_free(self);
}

void
gnt_cli_info_add(GntCliInfo *dict, const gchar *key, const gchar *align_group, GntCliInfo *value)
{
	InfoEntry *entry;

	g_return_if_fail(dict != NULL && dict->kind == INFO_DICT && key != NULL && value != NULL);
	entry = g_new0(InfoEntry, 1);
	entry->key = g_strdup(key);
	entry->align_group = g_strdup(align_group);
	entry->value = value;
	g_ptr_array_add(dict->items, entry);
}

void
gnt_cli_info_add_text(GntCliInfo *dict, const gchar *key, const gchar *text)
{
	gnt_cli_info_add(dict, key, NULL, gnt_cli_info_new_text(text));
}

void
gnt_cli_info_add_printf(GntCliInfo *dict, const gchar *key, const gchar *format, ...)
{
	va_list args;
	g_autofree gchar *text = NULL;

	va_start(args, format);
	text = g_strdup_vprintf(format, args);
	va_end(args);
	gnt_cli_info_add_text(dict, key, text);
}

void
gnt_cli_info_append(GntCliInfo *list, GntCliInfo *item)
{
	g_return_if_fail(list != NULL && list->kind == INFO_LIST && item != NULL);
	g_ptr_array_add(list->items, item);
}

static void
append_indent(GString *buf, guint level)
{
	for (guint i = 0; i < level; i++)
		g_string_append(buf, "  ");
}

/* _SerializeGenericInfo */
static void
serialize_info(GString *buf, const GntCliInfo *data, guint level, gboolean afterkey)
{
	gboolean doindent = afterkey;

	if (data->kind == INFO_TEXT) {
		g_string_append(buf, data->text);
		g_string_append_c(buf, '\n');
		return;
	}
	if (data->items->len == 0) {
		g_string_append_c(buf, '\n');
		return;
	}
	if (afterkey)
		g_string_append_c(buf, '\n');
	if (data->kind == INFO_LIST) {
		for (guint i = 0; i < data->items->len; i++) {
			if (doindent)
				append_indent(buf, level);
			doindent = TRUE;
			g_string_append(buf, "- ");
			serialize_info(buf, g_ptr_array_index(data->items, i), level + 1, FALSE);
		}
		return;
	}
	for (guint i = 0; i < data->items->len; i++) {
		const InfoEntry *entry = g_ptr_array_index(data->items, i);

		if (doindent)
			append_indent(buf, level);
		doindent = TRUE;
		g_string_append(buf, entry->key);
		g_string_append(buf, ": ");
		if (entry->align_group != NULL) {
			glong width = 0;

			for (guint j = 0; j < data->items->len; j++) {
				const InfoEntry *other = g_ptr_array_index(data->items, j);

				if (g_strcmp0(other->align_group, entry->align_group) == 0)
					width = MAX(width, g_utf8_strlen(other->key, -1));
			}
			for (glong pad = g_utf8_strlen(entry->key, -1); pad < width; pad++)
				g_string_append_c(buf, ' ');
		}
		serialize_info(buf, entry->value, level + 1, TRUE);
	}
}

gchar *
gnt_cli_info_format(GntCliInfo *self)
{
	GString *buf = g_string_new(NULL);

	g_return_val_if_fail(self != NULL, NULL);
	serialize_info(buf, self, 0, FALSE);
	while (buf->len > 0 && buf->str[buf->len - 1] == '\n')
		g_string_truncate(buf, buf->len - 1);
	return g_string_free(buf, FALSE);
}
