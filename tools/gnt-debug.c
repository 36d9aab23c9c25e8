/* gnt-debug: debugging commands, after Ganeti's lib/client/gnt_debug.py. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gnt-cli.h"
#include "gnt-json.h"

/* How many jobs JobExecutor asks about when picking the next to wait for. */
#define CHOOSE_BATCH 25

static gboolean opt_no_master;
static gchar **opt_nodes;
static gint opt_repeat;
static gboolean opt_interruptible;
static gboolean opt_no_locks;
static gint opt_op_repeat = 1;
static gint opt_job_repeat = 1;
static gboolean opt_timing_stats;
static gboolean opt_each;
static gchar *opt_result;
static gchar **opt_messages;
static gboolean opt_fail;
static gchar *opt_private_value;
static gchar *opt_secret_value;

/* ---- delay ---- */

static const GOptionEntry delay_entries[] = {
	{"no-master", 0, 0, G_OPTION_ARG_NONE, &opt_no_master, "Do not sleep in the master code",
	 NULL},
	{"node", 'n', 0, G_OPTION_ARG_FILENAME_ARRAY, &opt_nodes,
	 "Select nodes to sleep on (repeatable)", "NODE"},
	{"repeat", 'r', 0, G_OPTION_ARG_INT, &opt_repeat, "Number of times to repeat the sleep",
	 "N"},
	{"interruptible", 'i', 0, G_OPTION_ARG_NONE, &opt_interruptible,
	 "Mark the opcode interruptible (accepted for compatibility; Gantry's delay is not)", NULL},
	{"no-locks", 'l', 0, G_OPTION_ARG_NONE, &opt_no_locks,
	 "Don't take locks while performing the delay", NULL},
	{NULL},
};

static gint
delay(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) ops = json_array_new();
	JsonObject *op;
	gchar *end = NULL;
	gdouble duration = g_ascii_strtod(args[0], &end);

	if (end == args[0] || *end != '\0') {
		gnt_cli_set_prereq_error(cli, &error, GNT_ERROR_INVALID,
					 "Invalid duration '%s': not a number of seconds", args[0]);
		return gnt_cli_fail(cli, error);
	}
	if (!isfinite(duration) || duration < 0) {
		gnt_cli_set_prereq_error(
			cli, &error, GNT_ERROR_INVALID,
			"Invalid duration '%s': must be a finite number of seconds, "
			"0 or more",
			args[0]);
		return gnt_cli_fail(cli, error);
	}
	op = gnt_cli_new_opcode(cli, "OP_TEST_DELAY");
	json_object_set_double_member(op, "duration", duration);
	json_object_set_boolean_member(op, "on_master", !opt_no_master);
	json_object_set_array_member(op, "on_nodes", gnt_cli_strv_to_json(opt_nodes));
	json_object_set_int_member(op, "repeat", opt_repeat);
	json_object_set_boolean_member(op, "interruptible", opt_interruptible);
	json_object_set_boolean_member(op, "no_locks", opt_no_locks);
	json_array_add_object_element(ops, op);
	if (!gnt_cli_submit_or_send(cli, g_steal_pointer(&ops), NULL, &error))
		return gnt_cli_fail(cli, error);
	return 0;
}

/* ---- submit-job (GenericOpCodes with JobExecutor) ---- */

static const GOptionEntry submit_job_entries[] = {
	{"op-repeat", 0, 0, G_OPTION_ARG_INT, &opt_op_repeat,
	 "Repeat the opcode sequence this number of times", "N"},
	{"job-repeat", 0, 0, G_OPTION_ARG_INT, &opt_job_repeat,
	 "Repeat the job this number of times", "N"},
	{"timing-stats", 0, 0, G_OPTION_ARG_NONE, &opt_timing_stats, "Show timing stats", NULL},
	{"each", 0, 0, G_OPTION_ARG_NONE, &opt_each, "Submit each job separately", NULL},
	{NULL},
};

typedef struct {
	gchar *name; /* "file <path>/<repeat>" */
	JsonArray *ops;
	gboolean submitted;
	guint64 job_id;
	gchar *failure; /* why the submission failed */
} PendingJob;

static void
pending_job_free(gpointer data)
{
	PendingJob *job = data;

	g_free(job->name);
	if (job->ops != NULL)
		json_array_unref(job->ops);
	g_free(job->failure);
	g_free(job);
}

/* The opcode list in @path, with the common options applied. */
static JsonArray *
load_opcodes(GntCli *cli, const gchar *path, GError **error)
{
	g_autofree gchar *text = NULL;
	g_autoptr(JsonNode) root = NULL;
	JsonArray *ops;

	if (!g_file_get_contents(path, &text, NULL, error)) {
		gnt_error_convert(error);
		return NULL;
	}
	root = gnt_json_parse(text, -1, error);
	if (root == NULL) {
		g_prefix_error(error, "'%s': ", path);
		return NULL;
	}
	if (!JSON_NODE_HOLDS_ARRAY(root)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "'%s' must hold a JSON list of opcode objects, not a %s", path,
			    gnt_json_node_type_name(root));
		return NULL;
	}
	ops = json_node_get_array(root);
	for (guint i = 0; i < json_array_get_length(ops); i++) {
		JsonNode *op = json_array_get_element(ops, i);

		if (!JSON_NODE_HOLDS_OBJECT(op)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "'%s': opcode %u must be an object, not a %s", path, i,
				    gnt_json_node_type_name(op));
			return NULL;
		}
		gnt_cli_apply_opcode_options(cli, json_node_get_object(op));
	}
	return json_array_ref(ops);
}

/* The jobs to submit: every file, --job-repeat times, each opcode list
 * --op-repeat times. */
static GPtrArray *
queue_jobs(GntCli *cli, gchar **files, guint *n_ops, GError **error)
{
	g_autoptr(GPtrArray) jobs = g_ptr_array_new_with_free_func(pending_job_free);

	*n_ops = 0;
	for (gint r = 0; r < opt_job_repeat; r++) {
		for (guint f = 0; files[f] != NULL; f++) {
			g_autoptr(JsonArray) ops = load_opcodes(cli, files[f], error);
			PendingJob *job;

			if (ops == NULL)
				return NULL;
			job = g_new0(PendingJob, 1);
			job->name = g_strdup_printf("file %s/%d", files[f], r);
			job->ops = json_array_new();
			for (gint o = 0; o < opt_op_repeat; o++) {
				for (guint i = 0; i < json_array_get_length(ops); i++)
					json_array_add_element(
						job->ops,
						json_node_copy(json_array_get_element(ops, i)));
			}
			*n_ops += json_array_get_length(job->ops);
			g_ptr_array_add(jobs, job);
		}
	}
	return g_steal_pointer(&jobs);
}

static gboolean
submit_each(GntCli *cli, GPtrArray *jobs, GError **error)
{
	for (guint i = 0; i < jobs->len; i++) {
		PendingJob *job = g_ptr_array_index(jobs, i);

		if (!gnt_cli_send_job(cli, json_array_ref(job->ops), &job->job_id, error))
			return FALSE;
		job->submitted = TRUE;
	}
	return TRUE;
}

static gboolean
submit_many(GntCli *cli, GPtrArray *jobs, GError **error)
{
	g_autoptr(JsonArray) args = json_array_new();
	JsonArray *all = json_array_new();
	g_autoptr(JsonNode) result = NULL;
	JsonArray *answers;

	for (guint i = 0; i < jobs->len; i++)
		json_array_add_array_element(
			all, json_array_ref(((PendingJob *)g_ptr_array_index(jobs, i))->ops));
	json_array_add_array_element(args, all);
	result = gnt_cli_call_array(cli, "SubmitManyJobs", g_steal_pointer(&args), error);
	if (result == NULL)
		return FALSE;
	answers = JSON_NODE_HOLDS_ARRAY(result) ? json_node_get_array(result) : NULL;
	if (answers == NULL || json_array_get_length(answers) != jobs->len) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "SubmitManyJobs answered a %s, not one [status, id] per job",
			    gnt_json_node_type_name(result));
		return FALSE;
	}
	for (guint i = 0; i < jobs->len; i++) {
		PendingJob *job = g_ptr_array_index(jobs, i);
		JsonNode *answer = json_array_get_element(answers, i);
		JsonArray *pair = JSON_NODE_HOLDS_ARRAY(answer) ? json_node_get_array(answer)
								: NULL;
		gint64 id;

		if (pair == NULL || json_array_get_length(pair) != 2) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "SubmitManyJobs answer %u is a %s, not [status, id]", i,
				    gnt_json_node_type_name(answer));
			return FALSE;
		}
		job->submitted = json_node_get_value_type(json_array_get_element(pair, 0)) ==
					 G_TYPE_BOOLEAN &&
				 json_array_get_boolean_element(pair, 0);
		if (job->submitted &&
		    gnt_json_node_get_int(json_array_get_element(pair, 1), "a job id", &id, NULL))
			job->job_id = (guint64)id;
		else
			job->failure = gnt_cli_py_str(json_array_get_element(pair, 1));
	}
	return TRUE;
}

/* _ChooseJob: the index of a submitted job that is neither queued nor
 * waiting, else the first one still to be waited for; -1 when none is left. */
static gint
choose_job(GntCli *cli, GPtrArray *jobs, const gboolean *done)
{
	g_autoptr(JsonArray) args = json_array_new();
	JsonArray *ids = json_array_new();
	JsonArray *fields = json_array_new();
	g_autoptr(GArray) candidates = g_array_new(FALSE, FALSE, sizeof(guint));
	g_autoptr(JsonNode) result = NULL;
	JsonArray *rows;

	for (guint i = 0; i < jobs->len && candidates->len < CHOOSE_BATCH; i++) {
		PendingJob *job = g_ptr_array_index(jobs, i);

		if (job->submitted && !done[i]) {
			g_array_append_val(candidates, i);
			json_array_add_int_element(ids, (gint64)job->job_id);
		}
	}
	json_array_add_array_element(args, ids);
	json_array_add_string_element(fields, "status");
	json_array_add_array_element(args, fields);
	if (candidates->len == 0)
		return -1;
	result = gnt_cli_call_array(cli, "QueryJobs", g_steal_pointer(&args), NULL);
	rows = result != NULL && JSON_NODE_HOLDS_ARRAY(result) ? json_node_get_array(result) : NULL;
	for (guint c = 0; rows != NULL && c < MIN(candidates->len, json_array_get_length(rows));
	     c++) {
		JsonNode *row = json_array_get_element(rows, c);
		JsonNode *status = JSON_NODE_HOLDS_ARRAY(row) &&
						   json_array_get_length(json_node_get_array(row)) >
							   0
					   ? json_array_get_element(json_node_get_array(row), 0)
					   : NULL;
		const gchar *text = status != NULL && json_node_get_value_type(status) ==
							      G_TYPE_STRING
					    ? json_node_get_string(status)
					    : NULL;

		if (g_strcmp0(text, "queued") != 0 && g_strcmp0(text, "waiting") != 0 &&
		    g_strcmp0(text, "canceling") != 0)
			return (gint)g_array_index(candidates, guint, c);
	}
	return (gint)g_array_index(candidates, guint, 0);
}

/* JobExecutor.GetResults: waits for every submitted job in turn, printing
 * its log; failures are reported, not fatal. */
static void
wait_for_jobs(GntCli *cli, GPtrArray *jobs)
{
	g_autofree gboolean *done = g_new0(gboolean, MAX(jobs->len, 1));
	g_autoptr(GString) submitted = g_string_new(NULL);
	gint index;

	for (guint i = 0; i < jobs->len; i++) {
		PendingJob *job = g_ptr_array_index(jobs, i);

		if (job->submitted)
			g_string_append_printf(submitted, "%s%" G_GUINT64_FORMAT,
					       submitted->len > 0 ? ", " : "", job->job_id);
	}
	if (gnt_cli_get_options(cli)->verbose && submitted->len > 0)
		g_print("Submitted jobs %s\n", submitted->str);
	for (guint i = 0; i < jobs->len; i++) {
		PendingJob *job = g_ptr_array_index(jobs, i);

		if (!job->submitted)
			g_printerr("Failed to submit job for %s: %s\n", job->name, job->failure);
	}
	while ((index = choose_job(cli, jobs, done)) >= 0) {
		PendingJob *job = g_ptr_array_index(jobs, index);
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonArray) results = NULL;

		done[index] = TRUE;
		g_print("Waiting for job %" G_GUINT64_FORMAT " for %s ...\n", job->job_id,
			job->name);
		fflush(stdout);
		results = gnt_cli_poll_job(cli, job->job_id, GNT_CLI_POLL_STDIO, &error);
		if (results == NULL) {
			gboolean lost = g_strcmp0(gnt_cli_get_exception_class(cli), "JobLost") == 0;
			gint exit_code;
			g_autofree gchar *text = gnt_cli_format_error(cli, error, &exit_code);

			fflush(stdout);
			if (lost)
				g_printerr("Job %" G_GUINT64_FORMAT
					   " for %s has been archived, cannot "
					   "check its result\n",
					   job->job_id, job->name);
			else
				g_printerr("Job %" G_GUINT64_FORMAT " for %s has failed: %s\n",
					   job->job_id, job->name, text);
		}
	}
}

static gint
submit_job(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) jobs = NULL;
	g_autoptr(GTimer) timer = g_timer_new();
	gdouble t_submit;
	gdouble t_exec;
	guint n_ops = 0;

	if (opt_timing_stats)
		g_print("Loading...\n");
	jobs = queue_jobs(cli, args, &n_ops, &error);
	if (jobs == NULL)
		return gnt_cli_fail(cli, error);
	if (opt_timing_stats)
		g_print("Submitting...\n");
	g_timer_start(timer);
	if (!(opt_each ? submit_each(cli, jobs, &error) : submit_many(cli, jobs, &error)))
		return gnt_cli_fail(cli, error);
	t_submit = g_timer_elapsed(timer, NULL);
	if (opt_timing_stats)
		g_print("Executing...\n");
	wait_for_jobs(cli, jobs);
	t_exec = g_timer_elapsed(timer, NULL) - t_submit;
	if (opt_timing_stats) {
		g_print("C:op     %4u\n", n_ops);
		g_print("C:job    %4u\n", jobs->len);
		g_print("T:submit %4.4f\n", t_submit);
		g_print("T:exec   %4.4f\n", t_exec);
		g_print("T:total  %4.4f\n", t_submit + t_exec);
	}
	return 0; /* like Ganeti: failed jobs were reported above */
}

/* ---- test-dummy (Gantry's own) ---- */

static const GOptionEntry test_dummy_entries[] = {
	{"result", 0, 0, G_OPTION_ARG_FILENAME, &opt_result,
	 "The JSON value the opcode returns (default null)", "JSON"},
	{"message", 'm', 0, G_OPTION_ARG_FILENAME_ARRAY, &opt_messages,
	 "A message for the job log (repeatable)", "TEXT"},
	{"fail", 0, 0, G_OPTION_ARG_NONE, &opt_fail, "Make the opcode fail", NULL},
	{"private-value", 0, 0, G_OPTION_ARG_FILENAME, &opt_private_value,
	 "A private parameter value (stored, shown as <redacted>)", "VALUE"},
	{"secret-value", 0, 0, G_OPTION_ARG_FILENAME, &opt_secret_value,
	 "A secret parameter value (kept in memory only)", "VALUE"},
	{NULL},
};

/* "sha256:<hex>", the digest form OP_TEST_DUMMY checks. */
static gchar *
sha256_tag(const gchar *value)
{
	g_autofree gchar *hex = g_compute_checksum_for_string(G_CHECKSUM_SHA256, value, -1);

	return g_strconcat("sha256:", hex, NULL);
}

static gint
test_dummy(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) ops = json_array_new();
	g_autoptr(JsonArray) results = NULL;
	g_autoptr(JsonNode) result = NULL;
	JsonObject *op;

	if (opt_result != NULL) {
		result = gnt_json_parse(opt_result, -1, &error);
		if (result == NULL) {
			gnt_cli_set_prereq_error(cli, &error, GNT_ERROR_INVALID,
						 "--result '%s' is not JSON", opt_result);
			return gnt_cli_fail(cli, error);
		}
	}
	op = gnt_cli_new_opcode(cli, "OP_TEST_DUMMY");
	json_object_set_member(op, "result",
			       result != NULL ? json_node_copy(result) : gnt_json_node_new_null());
	if (opt_messages != NULL)
		json_object_set_array_member(op, "messages", gnt_cli_strv_to_json(opt_messages));
	json_object_set_boolean_member(op, "fail", opt_fail);
	/* the digests let the logical unit prove the values arrived intact */
	if (opt_private_value != NULL) {
		g_autofree gchar *digest = sha256_tag(opt_private_value);

		json_object_set_string_member(op, "private_value", opt_private_value);
		json_object_set_string_member(op, "private_sha256", digest);
	}
	if (opt_secret_value != NULL) {
		g_autofree gchar *digest = sha256_tag(opt_secret_value);

		json_object_set_string_member(op, "secret_value", opt_secret_value);
		json_object_set_string_member(op, "secret_sha256", digest);
	}
	json_array_add_object_element(ops, op);
	if (!gnt_cli_submit_or_send(cli, g_steal_pointer(&ops), &results, &error))
		return gnt_cli_fail(cli, error);
	if (results != NULL && json_array_get_length(results) > 0) {
		g_autofree gchar *text = gnt_json_to_string(json_array_get_element(results, 0));

		g_print("%s\n", text);
	}
	return 0;
}

static const GntCliCommand commands[] = {
	{"delay", delay, 1, 1, GNT_CLI_OPT_SUBMIT | GNT_CLI_OPT_PRIORITY | GNT_CLI_OPT_DRY_RUN,
	 delay_entries, "[<opts>...] <duration>", "Executes a TestDelay OpCode",
	 "Submits OP_TEST_DELAY sleeping <duration> seconds (a float) and waits for it, "
	 "printing its log, unless --submit. Without --no-locks the delay holds the locks of "
	 "the nodes it sleeps on (the master's included) exclusively."},
	{"submit-job", submit_job, 1, -1,
	 GNT_CLI_OPT_VERBOSE | GNT_CLI_OPT_PRIORITY | GNT_CLI_OPT_DRY_RUN, submit_job_entries,
	 "<op-list-file>...",
	 "Submits jobs built from json files containing a list of serialized opcodes",
	 "Each file holds a JSON list of opcode objects ([{\"OP_ID\": \"OP_TEST_DELAY\", "
	 "\"duration\": 0}]) and becomes one job; all are submitted with SubmitManyJobs "
	 "(SubmitJob each with --each), then waited for in turn. Failed jobs are reported on "
	 "stderr; the exit code is 0 as in Ganeti."},
	{"test-dummy", test_dummy, 0, 0,
	 GNT_CLI_OPT_SUBMIT | GNT_CLI_OPT_PRIORITY | GNT_CLI_OPT_DRY_RUN, test_dummy_entries, "",
	 "Executes a TestDummy OpCode (Gantry)",
	 "Submits OP_TEST_DUMMY and prints its result as JSON. --private-value and "
	 "--secret-value travel with their SHA-256 digests, which the opcode checks; job "
	 "listings show both values as \"<redacted>\"."},
	{NULL},
};

int
main(int argc, char **argv)
{
	return gnt_cli_main(commands, argc, argv);
}
