#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/*
 * Ganeti's output formats, so that scripts written against gnt-* commands
 * keep working: Python's str() of decoded JSON, FormatTime, the job log
 * line, GenerateTable/FormatTable and PrintGenericInfo. Pure functions; the
 * callers print.
 */

/* Python's str() of the value @node decodes to: "None", "True", "2.5",
 * "['a', 1]", "{'k': 'v'}"; a string is itself. NULL gives "None". */
gchar *
gnt_cli_py_str(JsonNode *node);

/* utils.FormatTime: "2026-11-21 10:00:00" in local time, with
 * ".123456" appended when @usec >= 0. */
gchar *
gnt_cli_format_time(gint64 sec, gint usec);
/* FormatTimestamp for a [sec, usec] node; "?" for anything else. */
gchar *
gnt_cli_format_timestamp(JsonNode *node);
/* time.ctime() of a [sec, usec] node: "Sat Nov 21 10:00:00 2026". */
gchar *
gnt_cli_format_ctime(JsonNode *node);

/* FormatLogMessage: a "message" entry is shown as is, anything else as
 * Python's str(); then SafeEncode escapes control and non-ASCII
 * characters ("\n", "\x07", "\u20ac"). */
gchar *
gnt_cli_format_log_message(const gchar *log_type, JsonNode *message);

/* utils.FormatUnit for @mib with unit 'h' (human: "512M", "1.5G"), 'm', 'g'
 * or 't'. */
gchar *
gnt_cli_format_unit(gdouble mib, gchar unit);

/* ParseTimespec: "30" or "30s", "5m", "2h", "1d", "1w" in seconds. Fails
 * with GNT_ERROR_INVALID naming the value. */
gboolean
gnt_cli_parse_timespec(const gchar *value, gint64 *seconds, GError **error);

/* ParseFields for -o: NULL gives @defaults, "+a,b" appends to them, "a,b"
 * replaces them. (transfer full) */
gchar **
gnt_cli_parse_fields(const gchar *selected, const gchar *const *defaults);

/* One column of FormatTable. */
typedef struct {
	const gchar *title;
	gboolean align_right;
} GntCliColumn;

/*
 * FormatTable: @rows is a GPtrArray of GStrv, each with @n_columns cells
 * already formatted. With @separator, cells are joined by it; without,
 * columns are padded to their widest cell (numbers right-aligned) and the
 * last left-aligned column is not padded. Returns the lines, header first
 * when @header. (transfer full)
 */
GPtrArray *
gnt_cli_format_table(const GntCliColumn *columns, guint n_columns, GPtrArray *rows, gboolean header,
		     const gchar *separator);

/*
 * PrintGenericInfo's YAML-like layout. A tree of ordered dictionaries
 * (keys in insertion order, optionally aligned in groups), lists and text
 * leaves; JSON values become sorted dictionaries, lists and Python str()
 * leaves.
 */
typedef struct _GntCliInfo GntCliInfo;

GntCliInfo *
gnt_cli_info_new_dict(void);
GntCliInfo *
gnt_cli_info_new_list(void);
GntCliInfo *
gnt_cli_info_new_text(const gchar *text);
/* @node: (transfer none); NULL is Python's None. */
GntCliInfo *
gnt_cli_info_new_json(JsonNode *node);
void
gnt_cli_info_free(GntCliInfo *self);

/* Adds @key with @value (transfer full) to a dictionary. Entries sharing a
 * non-NULL @align_group have their values aligned. */
void
gnt_cli_info_add(GntCliInfo *dict, const gchar *key, const gchar *align_group, GntCliInfo *value);
/* Shortcuts for a text and a printf-formatted value. */
void
gnt_cli_info_add_text(GntCliInfo *dict, const gchar *key, const gchar *text);
void
gnt_cli_info_add_printf(GntCliInfo *dict, const gchar *key, const gchar *format, ...)
	G_GNUC_PRINTF(3, 4);
/* Appends @item (transfer full) to a list. */
void
gnt_cli_info_append(GntCliInfo *list, GntCliInfo *item);
/* The text PrintGenericInfo prints, without its final newline. */
gchar *
gnt_cli_info_format(GntCliInfo *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntCliInfo, gnt_cli_info_free)

G_END_DECLS
