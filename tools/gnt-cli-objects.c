#include "gnt-cli-objects.h"

#include <stdio.h>
#include <string.h>

#include "gnt-json.h"

JsonNode *
gnt_cli_name_filter(gchar **names)
{
	JsonArray *filter;

	if (names == NULL || names[0] == NULL)
		return NULL;
	filter = json_array_new();
	json_array_add_string_element(filter, "|");
	for (guint i = 0; names[i] != NULL; i++) {
		JsonArray *cond = json_array_new();

		json_array_add_string_element(cond, "=");
		json_array_add_string_element(cond, "name");
		json_array_add_string_element(cond, names[i]);
		json_array_add_array_element(filter, cond);
	}
	return gnt_json_node_new_array(filter);
}

gint
gnt_cli_list_command(GntCli *cli, gchar **args)
{
	const GntCliListSpec *spec = gnt_cli_get_command_data(cli);
	g_auto(GStrv) fields =
		gnt_cli_parse_fields(gnt_cli_get_options(cli)->output, spec->default_fields);
	g_autoptr(GError) error = NULL;
	gint exit_code = 0;

	if (!gnt_cli_generic_list(cli, spec->resource, fields, gnt_cli_name_filter(args),
				  spec->overrides, &exit_code, &error))
		return gnt_cli_fail(cli, error);
	return exit_code;
}

gint
gnt_cli_list_fields_command(GntCli *cli, gchar **args)
{
	const GntCliListSpec *spec = gnt_cli_get_command_data(cli);
	g_autoptr(GError) error = NULL;
	gint exit_code = 0;

	if (!gnt_cli_generic_list_fields(cli, spec->resource, args, &exit_code, &error))
		return gnt_cli_fail(cli, error);
	return exit_code;
}

gchar *
gnt_cli_format_comma_list(JsonNode *value)
{
	GString *out = g_string_new(NULL);
	JsonArray *items = JSON_NODE_HOLDS_ARRAY(value) ? json_node_get_array(value) : NULL;

	if (items == NULL) {
		g_autofree gchar *text = gnt_cli_py_str(value);

		g_string_append(out, text);
	}
	for (guint i = 0; items != NULL && i < json_array_get_length(items); i++) {
		g_autofree gchar *item = gnt_cli_py_str(json_array_get_element(items, i));

		if (i > 0)
			g_string_append_c(out, ',');
		g_string_append(out, item);
	}
	return g_string_free(out, FALSE);
}

static JsonObject *
object_or_null(JsonNode *node)
{
	return node != NULL && JSON_NODE_HOLDS_OBJECT(node) ? json_node_get_object(node) : NULL;
}

JsonNode *
gnt_cli_format_params(JsonNode *custom, JsonNode *actual)
{
	JsonObject *own = object_or_null(custom);
	JsonObject *filled = object_or_null(actual);
	JsonObject *out = json_object_new();
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *value;

	if (filled == NULL)
		return gnt_json_node_new_object(out);
	json_object_iter_init(&iter, filled);
	while (json_object_iter_next(&iter, &key, &value)) {
		JsonNode *mine = own != NULL ? json_object_get_member(own, key) : NULL;
		g_autofree gchar *text = NULL;

		if (JSON_NODE_HOLDS_OBJECT(value) &&
		    json_object_get_size(json_node_get_object(value)) > 0) {
			json_object_set_member(out, key, gnt_cli_format_params(mine, value));
			continue;
		}
		if (mine != NULL) {
			text = gnt_cli_py_str(mine);
		} else {
			g_autofree gchar *default_text = gnt_cli_py_str(value);

			text = g_strdup_printf("default (%s)", default_text);
		}
		json_object_set_string_member(out, key, text);
	}
	return gnt_json_node_new_object(out);
}

JsonNode *
gnt_cli_row_value(JsonArray *row, guint index)
{
	JsonNode *cell = index < json_array_get_length(row) ? json_array_get_element(row, index)
							    : NULL;
	JsonArray *pair = cell != NULL && JSON_NODE_HOLDS_ARRAY(cell) ? json_node_get_array(cell)
								      : NULL;

	if (pair == NULL || json_array_get_length(pair) != 2 ||
	    !gnt_json_node_is_int(json_array_get_element(pair, 0)) ||
	    json_array_get_int_element(pair, 0) != 0)
		return NULL;
	return json_array_get_element(pair, 1);
}

/* ---- option values ---- */

/* utils.UnescapeAndSplit(@text, ","): an odd run of backslashes before a
 * comma escapes it; then every "\x" becomes "x". (transfer full) */
static GStrv
unescape_and_split(const gchar *text)
{
	g_auto(GStrv) parts = g_strsplit(text, ",", -1);
	g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func(g_free);
	g_autofree gchar *pending = NULL;

	for (guint i = 0; parts[i] != NULL; i++) {
		gchar *element = pending != NULL ? g_strconcat(pending, ",", parts[i], NULL)
						 : g_strdup(parts[i]);
		gsize len = strlen(element);
		gsize n_backslashes = 0;

		g_clear_pointer(&pending, g_free);
		while (n_backslashes < len && element[len - 1 - n_backslashes] == '\\')
			n_backslashes++;
		if (n_backslashes % 2 == 1 && parts[i + 1] != NULL) {
			element[len - 1] = '\0'; /* the escaping backslash */
			pending = element;
			continue;
		}
		g_ptr_array_add(out, element);
	}
	for (guint i = 0; i < out->len; i++) {
		gchar *element = g_ptr_array_index(out, i);
		gchar *to = element;

		for (const gchar *from = element; *from != '\0'; from++) {
			if (*from == '\\' && from[1] != '\0')
				from++;
			*to++ = *from;
		}
		*to = '\0';
	}
	g_ptr_array_add(out, NULL);
	return (GStrv)g_ptr_array_free(g_steal_pointer(&out), FALSE);
}

gint
gnt_cli_show_info(GntCli *cli, const gchar *method, gchar **names, const gchar *const *fields,
		  GntCliRowInfoFunc row_info)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) args = json_array_new();
	g_autoptr(JsonNode) result = NULL;
	g_autoptr(GntCliInfo) container = gnt_cli_info_new_list();
	g_autofree gchar *text = NULL;
	guint n_fields = g_strv_length((gchar **)fields);
	JsonArray *rows;

	json_array_add_array_element(args, gnt_cli_strv_to_json(names));
	json_array_add_array_element(args, gnt_cli_strv_to_json((gchar **)fields));
	json_array_add_boolean_element(args, FALSE);
	result = gnt_cli_call_array(cli, method, g_steal_pointer(&args), &error);
	if (result == NULL)
		return gnt_cli_fail(cli, error);
	if (!JSON_NODE_HOLDS_ARRAY(result)) {
		g_set_error(&error, GNT_ERROR, GNT_ERROR_INVALID, "%s answered a %s, not a list",
			    method, gnt_json_node_type_name(result));
		return gnt_cli_fail(cli, error);
	}
	rows = json_node_get_array(result);
	for (guint r = 0; r < json_array_get_length(rows); r++) {
		JsonNode *row = json_array_get_element(rows, r);

		if (JSON_NODE_HOLDS_ARRAY(row) &&
		    json_array_get_length(json_node_get_array(row)) == n_fields)
			gnt_cli_info_append(container, row_info(json_node_get_array(row)));
	}
	text = gnt_cli_info_format(container);
	g_print("%s\n", text);
	return 0;
}

gint
gnt_cli_modify_object(GntCli *cli, const gchar *op_id, const gchar *name_key, const gchar *name,
		      const gchar *what, GntCliSetOptionsFunc set_options)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) op = gnt_cli_new_opcode(cli, op_id);
	g_autoptr(JsonArray) results = NULL;
	gboolean any = FALSE;
	gint status;

	json_object_set_string_member(op, name_key, name);
	if (!set_options(cli, op, &any, &error))
		return gnt_cli_fail(cli, error);
	if (!any) {
		g_printerr("Please give at least one of the parameters.\n");
		return 1;
	}
	status = gnt_cli_submit_opcode(cli, g_steal_pointer(&op), &results);
	if (status == 0)
		gnt_cli_print_changes(what, name, results);
	return status;
}

gboolean
gnt_cli_print_changes(const gchar *what, const gchar *name, JsonArray *results)
{
	JsonArray *changes = NULL;

	if (results != NULL && json_array_get_length(results) > 0 &&
	    JSON_NODE_HOLDS_ARRAY(json_array_get_element(results, 0)))
		changes = json_array_get_array_element(results, 0);
	if (changes == NULL || json_array_get_length(changes) == 0)
		return FALSE;
	g_print("Modified %s %s\n", what, name);
	for (guint i = 0; i < json_array_get_length(changes); i++) {
		JsonNode *pair = json_array_get_element(changes, i);
		g_autofree gchar *param = NULL;
		g_autofree gchar *data = NULL;

		if (!JSON_NODE_HOLDS_ARRAY(pair) ||
		    json_array_get_length(json_node_get_array(pair)) != 2)
			continue;
		param = gnt_cli_py_str(json_array_get_element(json_node_get_array(pair), 0));
		data = gnt_cli_py_str(json_array_get_element(json_node_get_array(pair), 1));
		g_print(" - %-5s -> %s\n", param, data);
	}
	return TRUE;
}

JsonObject *
gnt_cli_parse_keyval(const gchar *option, const gchar *text, GError **error)
{
	g_autoptr(JsonObject) params = json_object_new();
	g_auto(GStrv) elements = NULL;

	if (text == NULL || text[0] == '\0')
		return g_steal_pointer(&params);
	elements = unescape_and_split(text);
	for (guint i = 0; elements[i] != NULL; i++) {
		const gchar *element = elements[i];
		const gchar *equals = strchr(element, '=');
		g_autofree gchar *key = NULL;
		JsonNode *value;

		if (equals != NULL) {
			key = g_strndup(element, (gsize)(equals - element));
			value = gnt_json_node_new_string(equals + 1);
		} else if (g_str_has_prefix(element, "no_")) {
			key = g_strdup(element + 3);
			value = gnt_json_node_new_bool(FALSE);
		} else if (g_str_has_prefix(element, "-")) {
			key = g_strdup(element + 1);
			value = gnt_json_node_new_null();
		} else {
			key = g_strdup(element);
			value = gnt_json_node_new_bool(TRUE);
		}
		if (json_object_has_member(params, key)) {
			json_node_unref(value);
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "Duplicate key '%s' in option %s", key, option);
			return NULL;
		}
		json_object_set_member(params, key, value);
	}
	return g_steal_pointer(&params);
}

gboolean
gnt_cli_parse_ident_keyval(const gchar *option, const gchar *text, gchar **ident,
			   JsonObject **params, GError **error)
{
	const gchar *colon = strchr(text, ':');
	g_autofree gchar *name = colon != NULL ? g_strndup(text, (gsize)(colon - text))
					       : g_strdup(text);
	const gchar *rest = colon != NULL ? colon + 1 : "";
	gboolean removal = g_str_has_prefix(name, "no_") ||
			   (g_str_has_prefix(name, "-") && !g_ascii_isdigit(name[1]));

	if (removal) {
		if (rest[0] != '\0') {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "Cannot pass options when removing parameter groups: %s", text);
			return FALSE;
		}
		*ident = g_strdup(name + (name[0] == '-' ? 1 : 3));
		*params = NULL;
		return TRUE;
	}
	*params = gnt_cli_parse_keyval(option, rest, error);
	if (*params == NULL)
		return FALSE;
	*ident = g_steal_pointer(&name);
	return TRUE;
}

/* ---- many jobs ---- */

typedef struct {
	gchar *name;
	JsonObject *op;
	gboolean submitted;
	guint64 job_id;
	gchar *failure;	    /* why it was not submitted, or failed */
	JsonArray *results; /* once it succeeded */
} ExecutorJob;

static void
executor_job_free(gpointer data)
{
	ExecutorJob *job = data;

	g_free(job->name);
	if (job->op != NULL)
		json_object_unref(job->op);
	g_free(job->failure);
	if (job->results != NULL)
		json_array_unref(job->results);
	g_free(job);
}

struct _GntCliJobExecutor {
	GntCli *cli;
	gboolean verbose;
	gboolean added;	 /* the jobs were submitted elsewhere (AddJobId) */
	GPtrArray *jobs; /* ExecutorJob */
};

GntCliJobExecutor *
gnt_cli_job_executor_new(GntCli *cli, gboolean verbose)
{
	GntCliJobExecutor *self = g_new0(GntCliJobExecutor, 1);

	self->cli = cli;
	self->verbose = verbose;
	self->jobs = g_ptr_array_new_with_free_func(executor_job_free);
	return self;
}

void
gnt_cli_job_executor_free(GntCliJobExecutor *self)
{
	if (self == NULL)
		return;
	g_ptr_array_unref(self->jobs);
	g_free(self);
}

void
gnt_cli_job_executor_queue(GntCliJobExecutor *self, const gchar *name, JsonObject *op)
{
	ExecutorJob *job = g_new0(ExecutorJob, 1);

	gnt_cli_apply_opcode_options(self->cli, op);
	job->name = g_strdup(name);
	job->op = op;
	g_ptr_array_add(self->jobs, job);
}

/* Ganeti's _IfName(name, " for %s") */
static const gchar *
executor_for(const ExecutorJob *job, gchar **buffer)
{
	*buffer = job->name != NULL ? g_strdup_printf(" for %s", job->name) : g_strdup("");
	return *buffer;
}

/* [ok, id or reason] of SubmitManyJobs, or of an opcode's "jobs" list */
static void
executor_job_set_status(ExecutorJob *job, JsonNode *answer)
{
	JsonArray *pair = JSON_NODE_HOLDS_ARRAY(answer) ? json_node_get_array(answer) : NULL;
	JsonNode *ok = pair != NULL && json_array_get_length(pair) == 2
			       ? json_array_get_element(pair, 0)
			       : NULL;
	gint64 id = 0;

	job->submitted =
		ok != NULL && json_node_get_value_type(ok) == G_TYPE_BOOLEAN &&
		json_node_get_boolean(ok) &&
		gnt_json_node_get_int(json_array_get_element(pair, 1), "a job ID", &id, NULL);
	job->job_id = (guint64)id;
	if (!job->submitted)
		job->failure = pair != NULL && json_array_get_length(pair) == 2
				       ? gnt_cli_py_str(json_array_get_element(pair, 1))
				       : gnt_cli_py_str(answer);
}

void
gnt_cli_job_executor_add_job_id(GntCliJobExecutor *self, const gchar *name, JsonNode *entry)
{
	ExecutorJob *job = g_new0(ExecutorJob, 1);

	job->name = g_strdup(name);
	executor_job_set_status(job, entry);
	self->added = TRUE;
	g_ptr_array_add(self->jobs, job);
}

guint
gnt_cli_job_executor_get_n_jobs(GntCliJobExecutor *self)
{
	return self->jobs->len;
}

JsonArray *
gnt_cli_job_executor_get_result(GntCliJobExecutor *self, guint index)
{
	g_return_val_if_fail(index < self->jobs->len, NULL);
	return ((ExecutorJob *)g_ptr_array_index(self->jobs, index))->results;
}

const gchar *
gnt_cli_job_executor_get_failure(GntCliJobExecutor *self, guint index)
{
	g_return_val_if_fail(index < self->jobs->len, NULL);
	return ((ExecutorJob *)g_ptr_array_index(self->jobs, index))->failure;
}

/* SubmitManyJobs of one job per queued opcode: [[ok, id or reason], ...]. */
static gboolean
executor_submit(GntCliJobExecutor *self, GError **error)
{
	g_autoptr(JsonArray) args = json_array_new();
	JsonArray *jobs = json_array_new();
	g_autoptr(JsonNode) result = NULL;
	JsonArray *answers;

	for (guint i = 0; i < self->jobs->len; i++) {
		ExecutorJob *job = g_ptr_array_index(self->jobs, i);
		JsonArray *ops = json_array_new();

		json_array_add_object_element(ops, json_object_ref(job->op));
		json_array_add_array_element(jobs, ops);
	}
	json_array_add_array_element(args, jobs);
	result = gnt_cli_call_array(self->cli, "SubmitManyJobs", g_steal_pointer(&args), error);
	if (result == NULL)
		return FALSE;
	answers = JSON_NODE_HOLDS_ARRAY(result) ? json_node_get_array(result) : NULL;
	if (answers == NULL || json_array_get_length(answers) != self->jobs->len) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "SubmitManyJobs answered a %s, not one [status, id] per job",
			    gnt_json_node_type_name(result));
		return FALSE;
	}
	for (guint i = 0; i < self->jobs->len; i++)
		executor_job_set_status(g_ptr_array_index(self->jobs, i),
					json_array_get_element(answers, i));
	return TRUE;
}

/* GetResults: waits for each submitted job in turn. */
static gboolean
executor_wait(GntCliJobExecutor *self)
{
	g_autoptr(GString) submitted = g_string_new(NULL);
	gboolean all_ok = TRUE;

	for (guint i = 0; i < self->jobs->len; i++) {
		ExecutorJob *job = g_ptr_array_index(self->jobs, i);

		if (job->submitted)
			g_string_append_printf(submitted, "%s%" G_GUINT64_FORMAT,
					       submitted->len > 0 ? ", " : "", job->job_id);
	}
	if (self->verbose && submitted->len > 0)
		g_print("Submitted jobs %s\n", submitted->str);
	for (guint i = 0; i < self->jobs->len; i++) {
		ExecutorJob *job = g_ptr_array_index(self->jobs, i);

		g_autofree gchar *for_name = NULL;

		if (!job->submitted) {
			g_printerr("Failed to submit job%s: %s\n", executor_for(job, &for_name),
				   job->failure);
			all_ok = FALSE;
		}
	}
	for (guint i = 0; i < self->jobs->len; i++) {
		ExecutorJob *job = g_ptr_array_index(self->jobs, i);
		g_autoptr(GError) error = NULL;
		g_autofree gchar *for_name = NULL;
		g_autofree gchar *text = NULL;
		gint exit_code;

		if (!job->submitted)
			continue;
		g_print("Waiting for job %" G_GUINT64_FORMAT "%s ...\n", job->job_id,
			executor_for(job, &for_name));
		fflush(stdout);
		job->results = gnt_cli_poll_job(self->cli, job->job_id, GNT_CLI_POLL_STDIO, &error);
		if (job->results != NULL)
			continue;
		all_ok = FALSE;
		fflush(stdout);
		if (g_strcmp0(gnt_cli_get_exception_class(self->cli), "JobLost") == 0) {
			g_printerr("Job %" G_GUINT64_FORMAT "%s has been archived, cannot check "
				   "its result\n",
				   job->job_id, for_name);
			job->failure = g_strdup(error->message);
			continue;
		}
		text = gnt_cli_format_error(self->cli, error, &exit_code);
		g_printerr("Job %" G_GUINT64_FORMAT "%s has failed: %s\n", job->job_id, for_name,
			   text);
		job->failure = g_steal_pointer(&text);
	}
	return all_ok;
}

gboolean
gnt_cli_job_executor_run(GntCliJobExecutor *self, gboolean *all_ok, GError **error)
{
	*all_ok = FALSE;
	if (!self->added && !executor_submit(self, error))
		return FALSE;
	if (!gnt_cli_get_options(self->cli)->submit_only) {
		*all_ok = executor_wait(self);
		return TRUE;
	}
	*all_ok = TRUE;
	for (guint i = 0; i < self->jobs->len; i++) {
		ExecutorJob *job = g_ptr_array_index(self->jobs, i);

		if (job->submitted) {
			g_print("%" G_GUINT64_FORMAT ": %s\n", job->job_id, job->name);
		} else {
			g_printerr("Failure for %s: %s\n", job->name, job->failure);
			*all_ok = FALSE;
		}
	}
	return TRUE;
}

JsonNode *
gnt_cli_list_item(JsonNode *list, guint index)
{
	JsonArray *array = list != NULL && JSON_NODE_HOLDS_ARRAY(list) ? json_node_get_array(list)
								       : NULL;

	return array != NULL && index < json_array_get_length(array)
		       ? json_array_get_element(array, index)
		       : NULL;
}

guint
gnt_cli_list_length(JsonNode *list)
{
	return list != NULL && JSON_NODE_HOLDS_ARRAY(list)
		       ? json_array_get_length(json_node_get_array(list))
		       : 0;
}
