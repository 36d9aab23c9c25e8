#pragma once

#include "gnt-cli.h"

G_BEGIN_DECLS

/*
 * What the commands over cluster objects (gnt-instance, gnt-node) share:
 * the name filter of their list commands, Ganeti's list formats and
 * FormatParamsDictInfo for their info commands.
 */

/* qlang.MakeSimpleFilter("name", @names): ["|", ["=", "name", a], ...], or
 * NULL when @names is empty. (transfer full) */
JsonNode *
gnt_cli_name_filter(gchar **names);

/* GenericList for `list`: Query(@resource) of the fields -o selects
 * (@defaults, "+x" appending), the items named by @names (the name filter),
 * printed as a table. Returns the exit code, errors printed. */
gint
gnt_cli_list_objects(GntCli *cli, const gchar *resource, gchar **names,
		     const gchar *const *defaults, const GntCliFormatOverride *overrides);
/* GenericListFields for `list-fields`: the exit code, errors printed. */
gint
gnt_cli_list_object_fields(GntCli *cli, const gchar *resource, gchar **fields);

/* The list override for list fields: ",".join(str(item) for item in value). */
gchar *
gnt_cli_format_comma_list(JsonNode *value);

/* FormatParamsDictInfo: for each key of @actual (the filled parameters), its
 * value in @custom (the object's own) or "default (VALUE)", as str(); nested
 * dictionaries recurse. Either may be NULL. A JSON object of strings for
 * gnt_cli_info_new_json(). (transfer full) */
JsonNode *
gnt_cli_format_params(JsonNode *custom, JsonNode *actual);

/* The value of cell @index of a Query row ([status, value] pairs), or NULL
 * when its status is not normal. (transfer none) */
JsonNode *
gnt_cli_row_value(JsonArray *row, guint index);

G_END_DECLS
