/*
 * Job queue benchmarks: throughput, latency and memory of a real
 * gantry-masterd, driven over LUXI. Prints its figures; asserts nothing.
 *
 *   bench-jobqueue [--masterd PATH] [--jobs N] [--latency-runs N] [--archived N]
 *                  [--template-adds N] [--templates-only]
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gnt-config.h"
#include "gnt-json.h"
#include "gnt-luxi-client.h"
#include "gnt-paths.h"

typedef struct {
	gchar *dir;
	GntPaths *paths;
	GSubprocess *masterd;
	GntLuxiClient *client;
} Bench;

static void
die_on_error(GError *error, const gchar *what)
{
	if (error != NULL) {
		g_printerr("bench-jobqueue: %s: %s\n", what, error->message);
		exit(1);
	}
}

static gint64
proc_cpu_ms(GPid pid)
{
	g_autofree gchar *path = g_strdup_printf("/proc/%d/stat", pid);
	g_autofree gchar *stat = NULL;
	g_auto(GStrv) fields = NULL;
	const gchar *after;

	if (!g_file_get_contents(path, &stat, NULL, NULL))
		return -1;
	after = strrchr(stat, ')'); /* the command name may hold spaces */
	fields = g_strsplit(after + 2, " ", -1);
	/* fields[11], fields[12]: utime and stime in clock ticks */
	return (g_ascii_strtoll(fields[11], NULL, 10) + g_ascii_strtoll(fields[12], NULL, 10)) *
	       1000 / sysconf(_SC_CLK_TCK);
}

static gint64
proc_rss_kib(GPid pid)
{
	g_autofree gchar *path = g_strdup_printf("/proc/%d/status", pid);
	g_autofree gchar *status = NULL;
	const gchar *line;

	if (!g_file_get_contents(path, &status, NULL, NULL))
		return -1;
	line = strstr(status, "VmRSS:");
	return line ? g_ascii_strtoll(line + 6, NULL, 10) : -1;
}

static GPid
masterd_pid(Bench *b)
{
	return (GPid)g_ascii_strtoll(g_subprocess_get_identifier(b->masterd), NULL, 10);
}

static void
bench_start(Bench *b, const gchar *masterd)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntConfig) config = NULL;

	b->dir = g_dir_make_tmp("gnt-bench-XXXXXX", &error);
	die_on_error(error, "temporary root");
	b->paths = gnt_paths_new(b->dir);
	gnt_paths_ensure_dirs(b->paths, &error);
	die_on_error(error, "directories");
	config = gnt_config_create(gnt_paths_get_config_db(b->paths), "bench.example.com", NULL,
				   &error);
	die_on_error(error, "cluster");
	b->masterd = g_subprocess_new(G_SUBPROCESS_FLAGS_NONE, &error, masterd, "--foreground",
				      "--root", b->dir, NULL);
	die_on_error(error, "starting gantry-masterd");
	for (guint i = 0; i < 500 && b->client == NULL; i++) {
		g_clear_error(&error);
		b->client = gnt_luxi_client_new(gnt_paths_get_luxi_socket(b->paths), &error);
		if (b->client == NULL)
			g_usleep(10000); /* start-up only: not part of any figure */
	}
	die_on_error(b->client == NULL ? error : NULL, "connecting");
	gnt_luxi_client_set_timeout(b->client, 600);
}

static void
bench_stop(Bench *b)
{
	g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", b->dir);

	g_clear_object(&b->client);
	g_subprocess_send_signal(b->masterd, SIGTERM);
	g_subprocess_wait(b->masterd, NULL, NULL);
	g_clear_object(&b->masterd);
	if (system(cmd) != 0)
		g_printerr("bench-jobqueue: could not remove '%s'\n", b->dir);
	gnt_paths_free(b->paths);
	g_free(b->dir);
}

static JsonArray *
delay_job(void)
{
	JsonArray *ops = json_array_new();
	JsonObject *op = json_object_new();

	json_object_set_string_member(op, "OP_ID", "OP_TEST_DELAY");
	json_object_set_double_member(op, "duration", 0);
	json_array_add_object_element(ops, op);
	return ops;
}

static JsonNode *
args_of(JsonNode *first, ...)
{
	JsonArray *args = json_array_new();
	va_list ap;

	va_start(ap, first);
	for (JsonNode *n = first; n != NULL; n = va_arg(ap, JsonNode *))
		json_array_add_element(args, n);
	va_end(ap);
	return gnt_json_node_new_array(args);
}

static JsonArray *
string_list(const gchar *first, ...)
{
	JsonArray *arr = json_array_new();
	va_list ap;

	va_start(ap, first);
	for (const gchar *s = first; s != NULL; s = va_arg(ap, const gchar *))
		json_array_add_string_element(arr, s);
	va_end(ap);
	return arr;
}

/* Job @index of OP_INSTALL_TEMPLATE_ADD: a template of one step, as an
 * operator adds one (doc/templates.md). */
static JsonArray *
template_add_job(guint index)
{
	JsonArray *ops = json_array_new();
	JsonObject *op = json_object_new();
	g_autofree gchar *name = g_strdup_printf("CUSTOM_BENCH_%05u", index);
	g_autoptr(JsonNode) steps =
		gnt_json_parse("[{\"interface\": \"deploy\", \"step\": \"resize_disk\","
			       " \"args\": {\"disk\": 0, \"size\": \"10G\"}, \"priority\": 30}]",
			       -1, NULL);

	json_object_set_string_member(op, "OP_ID", "OP_INSTALL_TEMPLATE_ADD");
	json_object_set_string_member(op, "template_name", name);
	json_object_set_member(op, "steps", json_node_ref(steps));
	json_object_set_string_member(op, "description", "bench");
	json_array_add_object_element(ops, op);
	return ops;
}

/* Submits @n jobs made by @job (NULL: delay-0 jobs) in one SubmitManyJobs;
 * returns the last ID. */
static guint64
submit_many(Bench *b, guint n, JsonArray *(*job)(guint index))
{
	g_autoptr(GError) error = NULL;
	JsonArray *jobs = json_array_new();
	g_autoptr(JsonNode) args = NULL;
	g_autoptr(JsonNode) result = NULL;
	JsonArray *res;

	for (guint i = 0; i < n; i++)
		json_array_add_array_element(jobs, job != NULL ? job(i) : delay_job());
	args = args_of(gnt_json_node_new_array(jobs), NULL);
	result = gnt_luxi_client_call(b->client, "SubmitManyJobs", args, &error);
	die_on_error(error, "SubmitManyJobs");
	res = json_node_get_array(result);
	return (guint64)json_array_get_int_element(
		json_array_get_array_element(res, json_array_get_length(res) - 1), 1);
}

static gboolean
status_is_final(const gchar *status)
{
	return g_strcmp0(status, "success") == 0 || g_strcmp0(status, "error") == 0 ||
	       g_strcmp0(status, "canceled") == 0;
}

/* Long-polls until job @id is final; returns its status. */
static gchar *
wait_final(Bench *b, guint64 id)
{
	g_autoptr(JsonArray) fields = string_list("status", NULL);
	g_autoptr(JsonNode) prev = NULL;

	for (;;) {
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonNode) res = gnt_luxi_client_wait_for_job_change(b->client, id, fields,
									      prev, -1, 60, &error);
		const gchar *status;
		die_on_error(error, "WaitForJobChange");
		if (JSON_NODE_HOLDS_VALUE(res)) /* "nochange" */
			continue;
		g_clear_pointer(&prev, json_node_unref);
		prev = json_node_copy(json_array_get_element(json_node_get_array(res), 0));
		status = json_array_get_string_element(json_node_get_array(prev), 0);
		if (status_is_final(status))
			return g_strdup(status);
	}
}

/* Waits until every live job is final; returns how many succeeded. */
static guint
wait_all(Bench *b, guint64 last)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) fields = string_list("id", "status", NULL);
	guint ok = 0;

	g_free(wait_final(b, last));
	for (;;) {
		g_autoptr(JsonNode)
			args = args_of(gnt_json_node_new_null(),
				       gnt_json_node_new_array(json_array_ref(fields)), NULL);
		g_autoptr(JsonNode)
			rows = gnt_luxi_client_call(b->client, "QueryJobs", args, &error);
		JsonArray *arr;
		guint64 pending = 0;
		die_on_error(error, "QueryJobs");
		arr = json_node_get_array(rows);
		ok = 0;
		for (guint i = 0; i < json_array_get_length(arr); i++) {
			JsonArray *row = json_array_get_array_element(arr, i);
			const gchar *status = json_array_get_string_element(row, 1);
			if (g_strcmp0(status, "success") == 0)
				ok++;
			else if (!status_is_final(status))
				pending = (guint64)json_array_get_int_element(row, 0);
		}
		if (pending == 0)
			return ok;
		g_free(wait_final(b, pending));
	}
}

static void
archive_all(Bench *b)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode)
		args = args_of(gnt_json_node_new_int(-1), gnt_json_node_new_int(600), NULL);
	g_autoptr(JsonNode) res = gnt_luxi_client_call(b->client, "AutoArchiveJobs", args, &error);

	die_on_error(res == NULL ? error : NULL, "AutoArchiveJobs");
}

static gint
cmp_double(gconstpointer a, gconstpointer b)
{
	gdouble da = *(const gdouble *)a, db = *(const gdouble *)b;

	return da < db ? -1 : (da > db ? 1 : 0);
}

static void
bench_throughput(Bench *b, guint n_jobs)
{
	gint64 cpu0 = proc_cpu_ms(masterd_pid(b));
	gint64 t0 = g_get_monotonic_time();
	guint64 last = submit_many(b, n_jobs, NULL);
	gint64 t_ack = g_get_monotonic_time();
	guint ok = wait_all(b, last);
	gint64 t1 = g_get_monotonic_time();
	gint64 cpu1 = proc_cpu_ms(masterd_pid(b));
	gdouble secs = (gdouble)(t1 - t0) / G_USEC_PER_SEC;

	g_print("throughput: %u OP_TEST_DELAY(duration=0) jobs in one SubmitManyJobs\n", n_jobs);
	g_print("  acknowledged (durable) after  %.1f ms\n", (t_ack - t0) / 1000.0);
	g_print("  all %u success after          %.1f ms\n", ok, (t1 - t0) / 1000.0);
	g_print("  jobs/s                        %.0f\n", n_jobs / secs);
	g_print("  masterd CPU per job           %.3f ms\n", (gdouble)(cpu1 - cpu0) / n_jobs);
	archive_all(b);
}

/* Issue 14: template adds through LUXI, all at once as a client that adds
 * many does it, then each waited for in turn, as gnt-template add does. */
static void
bench_template_adds(Bench *b, guint n)
{
	g_autoptr(GArray) samples = g_array_new(FALSE, FALSE, sizeof(gdouble));
	gint64 cpu0 = proc_cpu_ms(masterd_pid(b));
	gint64 t0 = g_get_monotonic_time();
	guint64 last = submit_many(b, n, template_add_job);
	guint ok = wait_all(b, last);
	gint64 t1 = g_get_monotonic_time();
	gint64 cpu1 = proc_cpu_ms(masterd_pid(b));
	gint64 t2;

	g_print("template adds: %u OP_INSTALL_TEMPLATE_ADD jobs in one SubmitManyJobs\n", n);
	g_print("  all %u success after          %.1f ms\n", ok, (t1 - t0) / 1000.0);
	g_print("  adds/s                        %.0f\n",
		n / ((gdouble)(t1 - t0) / G_USEC_PER_SEC));
	g_print("  masterd CPU per add           %.3f ms\n", (gdouble)(cpu1 - cpu0) / n);
	archive_all(b);
	t2 = g_get_monotonic_time();
	for (guint i = 0; i < n; i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonArray) ops = template_add_job(n + i);
		guint64 id = 0;
		gint64 start = g_get_monotonic_time();
		g_autofree gchar *status = NULL;
		gdouble ms;

		gnt_luxi_client_submit_job(b->client, ops, &id, &error);
		die_on_error(error, "SubmitJob");
		status = wait_final(b, id);
		if (g_strcmp0(status, "success") != 0) {
			g_printerr("bench-jobqueue: template add %u: %s\n", n + i, status);
			exit(1);
		}
		ms = (g_get_monotonic_time() - start) / 1000.0;
		g_array_append_val(samples, ms);
	}
	g_array_sort(samples, cmp_double);
	g_print("template adds one after the other: %u SubmitJob + WaitForJobChange\n", n);
	g_print("  adds/s                        %.0f\n",
		n / ((gdouble)(g_get_monotonic_time() - t2) / G_USEC_PER_SEC));
	g_print("  median %.2f ms, p90 %.2f ms, max %.2f ms\n",
		g_array_index(samples, gdouble, n / 2), g_array_index(samples, gdouble, n * 9 / 10),
		g_array_index(samples, gdouble, n - 1));
	archive_all(b);
}

static void
bench_latency(Bench *b, guint runs)
{
	g_autoptr(GArray) samples = g_array_new(FALSE, FALSE, sizeof(gdouble));

	for (guint i = 0; i < runs; i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonArray) ops = delay_job();
		guint64 id = 0;
		gint64 t0 = g_get_monotonic_time();
		g_autofree gchar *status = NULL;
		gdouble ms;

		gnt_luxi_client_submit_job(b->client, ops, &id, &error);
		die_on_error(error, "SubmitJob");
		status = wait_final(b, id);
		ms = (g_get_monotonic_time() - t0) / 1000.0;
		g_array_append_val(samples, ms);
	}
	g_array_sort(samples, cmp_double);
	g_print("latency: SubmitJob + WaitForJobChange until success, %u runs\n", runs);
	g_print("  median %.2f ms, p90 %.2f ms, max %.2f ms\n",
		g_array_index(samples, gdouble, runs / 2),
		g_array_index(samples, gdouble, runs * 9 / 10),
		g_array_index(samples, gdouble, runs - 1));
	archive_all(b);
}

static gdouble
time_call_ms(Bench *b, const gchar *method, JsonNode *args, guint *rows)
{
	g_autoptr(GError) error = NULL;
	gint64 t0 = g_get_monotonic_time();
	g_autoptr(JsonNode) res = gnt_luxi_client_call(b->client, method, args, &error);
	gdouble ms = (g_get_monotonic_time() - t0) / 1000.0;

	die_on_error(error, method);
	if (JSON_NODE_HOLDS_ARRAY(res))
		*rows = json_array_get_length(json_node_get_array(res));
	else
		*rows = json_array_get_length(
			json_object_get_array_member(json_node_get_object(res), "data"));
	return ms;
}

static void
bench_memory(Bench *b, gint64 idle, guint n_archived)
{
	guint done = 0, rows = 0;
	gdouble list_ms, query_ms;

	g_print("memory: masterd RSS\n");
	g_print("  idle                          %.1f MiB\n", idle / 1024.0);
	while (done < n_archived) {
		guint batch = MIN(5000, n_archived - done);
		wait_all(b, submit_many(b, batch, NULL));
		archive_all(b);
		done += batch;
	}
	wait_all(b, submit_many(b, 100, NULL)); /* some live jobs to list */
	g_print("  right after the last batch     %.1f MiB\n",
		proc_rss_kib(masterd_pid(b)) / 1024.0);
	/* the queue hands burst memory back after 2 s of idleness */
	g_usleep(3 * G_USEC_PER_SEC);
	g_print("  idle, after %u archived jobs %.1f MiB\n", n_archived,
		proc_rss_kib(masterd_pid(b)) / 1024.0);
	list_ms = time_call_ms(
		b, "QueryJobs",
		args_of(gnt_json_node_new_null(),
			gnt_json_node_new_array(string_list("id", "status", "summary", NULL)),
			NULL),
		&rows);
	g_print("  QueryJobs of the %u live jobs  %.2f ms\n", rows, list_ms);
	query_ms = time_call_ms(
		b, "Query",
		args_of(gnt_json_node_new_string("job"),
			gnt_json_node_new_array(string_list("id", "status", "summary", NULL)),
			gnt_json_node_new_null(), NULL),
		&rows);
	g_print("  Query(job) of the %u live jobs %.2f ms\n", rows, query_ms);
}

int
main(int argc, char **argv)
{
	g_autofree gchar *masterd = g_strdup(g_getenv("GNT_MASTERD"));
	gint n_jobs = 2000, runs = 200, archived = 100000, template_adds = 1000;
	gboolean templates_only = FALSE;
	GOptionEntry entries[] = {
		{"masterd", 0, 0, G_OPTION_ARG_FILENAME, &masterd, "gantry-masterd to run", "PATH"},
		{"jobs", 0, 0, G_OPTION_ARG_INT, &n_jobs, "Jobs in the throughput run (2000)", "N"},
		{"latency-runs", 0, 0, G_OPTION_ARG_INT, &runs, "Latency samples (200)", "N"},
		{"archived", 0, 0, G_OPTION_ARG_INT, &archived,
		 "Archived jobs for the memory run (100000)", "N"},
		{"template-adds", 0, 0, G_OPTION_ARG_INT, &template_adds,
		 "Install templates added in the template run (1000; 0: none)", "N"},
		{"templates-only", 0, 0, G_OPTION_ARG_NONE, &templates_only,
		 "Run the template run only", NULL},
		{NULL},
	};
	g_autoptr(GOptionContext) ctx = g_option_context_new("- job queue benchmarks");
	g_autoptr(GError) error = NULL;
	Bench b = {0};
	gint64 idle;

	g_option_context_add_main_entries(ctx, entries, NULL);
	if (!g_option_context_parse(ctx, &argc, &argv, &error) || masterd == NULL) {
		g_printerr("bench-jobqueue: %s\n",
			   error ? error->message : "--masterd is required");
		return 2;
	}
	bench_start(&b, masterd);
	g_print("machine: %u CPUs; queue.db under %s\n", g_get_num_processors(), b.dir);
	idle = proc_rss_kib(masterd_pid(&b));
	if (template_adds > 0)
		bench_template_adds(&b, (guint)template_adds);
	if (!templates_only) {
		bench_throughput(&b, (guint)n_jobs);
		bench_latency(&b, (guint)runs);
		bench_memory(&b, idle, (guint)archived);
	}
	bench_stop(&b);
	return 0;
}
