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

/* What a query resource's `list` and `list-fields` commands need: their
 * rows' data. */
typedef struct {
	const gchar *resource;		       /* Query's resource: "node" */
	const gchar *const *default_fields;    /* NULL-terminated; list only */
	const GntCliFormatOverride *overrides; /* may be NULL; list only */
} GntCliListSpec;

/* GenericList for `list`: Query(resource) of the fields -o selects (the
 * default fields, "+x" appending), the items named by @args (the name
 * filter), printed as a table. The exit code, errors printed. */
gint
gnt_cli_list_command(GntCli *cli, gchar **args);
/* GenericListFields for `list-fields` of the fields in @args (all when
 * none): the exit code, errors printed. */
gint
gnt_cli_list_fields_command(GntCli *cli, gchar **args);

/* The list override for list fields: ",".join(str(item) for item in value). */
gchar *
gnt_cli_format_comma_list(JsonNode *value);

/* FormatParamsDictInfo: for each key of @actual (the filled parameters), its
 * value in @custom (the object's own) or "default (VALUE)", as str(); nested
 * dictionaries recurse. Either may be NULL. A JSON object of strings for
 * gnt_cli_info_new_json(). (transfer full) */
JsonNode *
gnt_cli_format_params(JsonNode *custom, JsonNode *actual);

/* One item of an info command, made of a row of its query. (transfer full) */
typedef GntCliInfo *(*GntCliRowInfoFunc)(JsonArray *row);

/* Ganeti's info commands (gnt-node info, gnt-group info): a classic query
 * (@method: QueryNodes, QueryGroups, ...) of @names (all when empty) and
 * @fields; each row that has every field made an item by @row_info, the
 * list printed as PrintGenericInfo does. The exit code, errors printed. */
gint
gnt_cli_show_info(GntCli *cli, const gchar *method, gchar **names, const gchar *const *fields,
		  GntCliRowInfoFunc row_info);

/* What Ganeti's set-params commands print of their opcode's result (a
 * list of [param, value] pairs; @results: the job's results, may be NULL):
 * "Modified @what @name" and " - param -> value" per change, nothing when
 * nothing changed. Returns whether it printed. */
gboolean
gnt_cli_print_changes(const gchar *what, const gchar *name, JsonArray *results);

/* Sets the options of an add or modify command on @op; *@any tells
 * whether one was given. */
typedef gboolean (*GntCliSetOptionsFunc)(GntCli *cli, JsonObject *op, gboolean *any,
					 GError **error);

/* A modify command: opcode @op_id for the object @name (its member
 * @name_key) with the options @set_options sets; none given: Ganeti's
 * "Please give at least one of the parameters." (exit 1). Prints the
 * changes as gnt_cli_print_changes(@what). The exit code. */
gint
gnt_cli_modify_object(GntCli *cli, const gchar *op_id, const gchar *name_key, const gchar *name,
		      const gchar *what, GntCliSetOptionsFunc set_options);

/* Element @index of @list, or NULL when @list is NULL, not a list or
 * shorter. (transfer none) */
JsonNode *
gnt_cli_list_item(JsonNode *list, guint index);
/* The length of @list, 0 when it is NULL or not a list. */
guint
gnt_cli_list_length(JsonNode *list);

/* The value of cell @index of a Query row ([status, value] pairs), or NULL
 * when its status is not normal. (transfer none) */
JsonNode *
gnt_cli_row_value(JsonArray *row, guint index);

/* ---- option values ---- */

/*
 * Ganeti's "key=val,key=val" option values (cli_opts._SplitKeyVal with its
 * prefixes): "k=v" gives the string v, a bare "k" true, "no_k" false and
 * "-k" null; "\," is a comma inside a value. Fails with GNT_ERROR_INVALID
 * naming @option for a duplicate key. NULL or "" give an empty object.
 * (transfer full)
 */
JsonObject *
gnt_cli_parse_keyval(const gchar *option, const gchar *text, GError **error);

/*
 * "ident:key=val,..." (_SplitIdentKeyVal): *@ident and the parameters; for
 * "no_ident" and "-ident" (a removal) *@params is NULL, and passing
 * parameters with a removal fails. (transfer full: both)
 */
gboolean
gnt_cli_parse_ident_keyval(const gchar *option, const gchar *text, gchar **ident,
			   JsonObject **params, GError **error);

/* ---- many jobs ---- */

/*
 * Ganeti's JobExecutor: jobs queued under a name (an instance's), submitted
 * together with SubmitManyJobs, then waited for one by one, each job's log
 * printed; or, with --submit, "ID: name" printed per job.
 */
typedef struct _GntCliJobExecutor GntCliJobExecutor;

/* @verbose: print "Submitted jobs 3, 4" before waiting (Ganeti does when
 * several items were selected). */
GntCliJobExecutor *
gnt_cli_job_executor_new(GntCli *cli, gboolean verbose);
void
gnt_cli_job_executor_free(GntCliJobExecutor *self);
/* Queues one job of @op (transfer full), the common options applied. */
void
gnt_cli_job_executor_queue(GntCliJobExecutor *self, const gchar *name, JsonObject *op);
/* AddJobId: a job submitted already, as an opcode's "jobs" answer lists
 * it (@entry: [true, id] or [false, reason]; transfer none); @name may be
 * NULL. A run with such jobs submits nothing and waits for them. */
void
gnt_cli_job_executor_add_job_id(GntCliJobExecutor *self, const gchar *name, JsonNode *entry);
/* After a run: job @index's opresult list, or NULL when it was not
 * submitted or failed. (transfer none) */
JsonArray *
gnt_cli_job_executor_get_result(GntCliJobExecutor *self, guint index);
guint
gnt_cli_job_executor_get_n_jobs(GntCliJobExecutor *self);
/* After a run: why job @index failed, as printed (NULL: it succeeded). */
const gchar *
gnt_cli_job_executor_get_failure(GntCliJobExecutor *self, guint index);
/*
 * WaitOrShow(wait = not --submit): submits the queued jobs, then waits for
 * each, reporting failures on stderr ("Job 5 for inst1 has failed: ...").
 * Returns FALSE only when submitting failed; *@all_ok says whether every
 * job was submitted and succeeded.
 */
gboolean
gnt_cli_job_executor_run(GntCliJobExecutor *self, gboolean *all_ok, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntCliJobExecutor, gnt_cli_job_executor_free)

G_END_DECLS
