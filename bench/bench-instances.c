/*
 * Instance benchmarks: a real cluster (gnt-cluster init, masterd, noded)
 * on a temporary root, driven over LUXI. Prints its figures; asserts nothing.
 *
 *   bench-instances --gnt-cluster PATH [--gnt-instance PATH] [--parallel N] [--total N]
 *                   [--repeat N] [--keep]
 *   bench-instances --root DIR [--gnt-instance PATH] [--repeat N]
 *
 * With --root it only times the queries, on a cluster left running by an
 * earlier --keep (restart its daemons with gantry-daemons to try new ones).
 */
#include <signal.h>
#include <sys/resource.h>
#include <string.h>
#include <unistd.h>

#include "gnt-json.h"
#include "gnt-luxi-client.h"
#include "gnt-paths.h"

typedef struct {
	gchar *dir;
	GntPaths *paths;
	gchar *gnt_cluster;
	GntLuxiClient *client;
} Bench;

static void
die(GError *error, const gchar *what)
{
	if (error != NULL) {
		g_printerr("bench-instances: %s: %s\n", what, error->message);
		exit(1);
	}
}

/* Runs @tool (gnt-cluster's path, or a program beside it) on the cluster. */
static void
run_tool(Bench *b, const gchar *tool, const gchar *a1, const gchar *a2, const gchar *a3,
	 const gchar *a4)
{
	g_autofree gchar *dir = g_path_get_dirname(b->gnt_cluster);
	g_autofree gchar *program = tool == NULL ? g_strdup(b->gnt_cluster)
						 : g_build_filename(dir, tool, NULL);
	const gchar *argv[] = {program, a1, a2, a3, a4, NULL};
	g_auto(GStrv) env = g_environ_setenv(g_get_environ(), "GANTRY_ROOT", b->dir, TRUE);
	g_autoptr(GError) error = NULL;
	gint status = -1;

	if (!g_spawn_sync(NULL, (gchar **)argv, env, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL,
			  &status, &error) ||
	    status != 0) {
		g_printerr("bench-instances: %s %s failed\n", program, a1);
		exit(1);
	}
}

static void
run_cluster_tool(Bench *b, const gchar *a1, const gchar *a2, const gchar *a3, const gchar *a4)
{
	run_tool(b, NULL, a1, a2, a3, a4);
}

static JsonNode *
call(Bench *b, const gchar *method, JsonNode *args)
{
	g_autoptr(GError) error = NULL;
	JsonNode *res = gnt_luxi_client_call(b->client, method, args, &error);

	die(res == NULL ? error : NULL, method);
	json_node_unref(args);
	return res;
}

static JsonNode *
parse(const gchar *text)
{
	return gnt_json_parse(text, -1, NULL);
}

/* Submits @n creates (diskless, no install, no start, fake) in one
 * SubmitManyJobs; returns the job IDs. */
static GArray *
submit_creates(Bench *b, guint first, guint n)
{
	GString *text = g_string_new("[[");
	g_autoptr(JsonNode) res = NULL;
	GArray *ids = g_array_new(FALSE, FALSE, sizeof(guint64));

	for (guint i = 0; i < n; i++)
		g_string_append_printf(
			text,
			"%s[{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\":"
			" \"inst%05u.example.com\", \"mode\": \"create\","
			" \"disk_template\": \"diskless\", \"disks\": [], \"nics\": [],"
			" \"no_install\": true, \"start\": false, \"hypervisor\": \"fake\"}]",
			i ? "," : "", first + i);
	g_string_append(text, "]]");
	res = call(b, "SubmitManyJobs", parse(text->str));
	g_string_free(text, TRUE);
	for (guint i = 0; i < json_array_get_length(json_node_get_array(res)); i++) {
		guint64 id = (guint64)json_array_get_int_element(
			json_array_get_array_element(json_node_get_array(res), i), 1);
		g_array_append_val(ids, id);
	}
	return ids;
}

/* Waits until every job of @ids is final; returns how many succeeded. Each
 * wait passes what it saw last (status, log serial), as Ganeti's clients do,
 * so masterd answers on a change and not at once (no busy polling). */
static guint
wait_jobs(Bench *b, GArray *ids)
{
	guint ok = 0;

	for (guint i = 0; i < ids->len; i++) {
		guint64 id = g_array_index(ids, guint64, i);
		g_autoptr(JsonNode) prev_info = json_node_new(JSON_NODE_NULL);
		gint64 prev_serial = -1;

		for (;;) {
			g_autoptr(GError) error = NULL;
			g_autoptr(JsonArray) fields = json_array_new();
			g_autoptr(JsonNode) res = NULL;
			JsonArray *pair;
			JsonArray *log;
			const gchar *st;

			json_array_add_string_element(fields, "status");
			res = gnt_luxi_client_wait_for_job_change(b->client, id, fields, prev_info,
								  prev_serial, 60, &error);
			die(res == NULL ? error : NULL, "WaitForJobChange");
			if (!JSON_NODE_HOLDS_ARRAY(res))
				continue;
			pair = json_node_get_array(res);
			log = json_array_get_array_element(pair, 1);
			for (guint e = 0; e < json_array_get_length(log); e++)
				prev_serial = MAX(prev_serial,
						  json_array_get_int_element(
							  json_array_get_array_element(log, e), 0));
			json_node_unref(prev_info);
			prev_info = json_node_copy(json_array_get_element(pair, 0));
			st = json_array_get_string_element(json_node_get_array(prev_info), 0);
			if (g_strcmp0(st, "success") == 0) {
				ok++;
				break;
			}
			if (g_strcmp0(st, "error") == 0 || g_strcmp0(st, "canceled") == 0)
				break;
		}
	}
	return ok;
}

/* /proc/PID/@file of @daemon's process; NULL if it does not run. */
static gchar *
daemon_proc_file(Bench *b, const gchar *daemon, const gchar *file)
{
	g_autofree gchar *pid_file = gnt_paths_dup_pid_file(b->paths, daemon);
	g_autofree gchar *pid = NULL;
	g_autofree gchar *path = NULL;
	gchar *contents = NULL;

	if (!g_file_get_contents(pid_file, &pid, NULL, NULL))
		return NULL;
	g_strstrip(pid);
	path = g_strdup_printf("/proc/%s/%s", pid, file);
	if (!g_file_get_contents(path, &contents, NULL, NULL))
		return NULL;
	return contents;
}

static gint64
rss_kib(const gchar *daemon, Bench *b)
{
	g_autofree gchar *status = daemon_proc_file(b, daemon, "status");
	const gchar *line = status != NULL ? strstr(status, "VmRSS:") : NULL;

	return line ? g_ascii_strtoll(line + 6, NULL, 10) : -1;
}

/* Prints "@what: masterd X MiB + noded Y MiB = Z MiB (target: at most 64)";
 * the target is issue 13's, for both daemons together. */
static void
print_rss(Bench *b, const gchar *what)
{
	gdouble masterd = rss_kib("gantry-masterd", b) / 1024.0;
	gdouble noded = rss_kib("gantry-noded", b) / 1024.0;

	g_print("%s: masterd %.1f MiB + noded %.1f MiB = %.1f MiB (target: at most 64)\n", what,
		masterd, noded, masterd + noded);
}

/* @daemon's number of threads, -1 if unknown. */
static gint64
threads_of(const gchar *daemon, Bench *b)
{
	g_autofree gchar *status = daemon_proc_file(b, daemon, "status");
	const gchar *line = status != NULL ? strstr(status, "Threads:") : NULL;

	return line ? g_ascii_strtoll(line + 8, NULL, 10) : -1;
}

/* Waits (at most a minute) until @daemon's idle threads are gone: its
 * thread count unchanged for 5 s. The seconds waited. */
static guint
wait_threads_settled(const gchar *daemon, Bench *b)
{
	gint64 last = threads_of(daemon, b);
	guint stable = 0;
	guint waited = 0;

	while (stable < 5 && waited < 60) {
		gint64 now;

		g_usleep(G_USEC_PER_SEC);
		waited++;
		now = threads_of(daemon, b);
		stable = now == last ? stable + 1 : 0;
		last = now;
	}
	return waited;
}

/* CPU time (user + system) @daemon used so far, in ms; -1 if unknown. */
static gdouble
cpu_ms(const gchar *daemon, Bench *b)
{
	g_autofree gchar *stat = daemon_proc_file(b, daemon, "stat");
	const gchar *end = stat != NULL ? strrchr(stat, ')') : NULL;
	g_auto(GStrv) fields = NULL;

	if (end == NULL)
		return -1;
	/* after "pid (comm) ": state is field 3, utime 14, stime 15 */
	fields = g_strsplit(end + 2, " ", 0);
	if (g_strv_length(fields) < 13)
		return -1;
	return (g_ascii_strtod(fields[11], NULL) + g_ascii_strtod(fields[12], NULL)) * 1000.0 /
	       (gdouble)sysconf(_SC_CLK_TCK);
}

/* CPU time of the children waited for so far, in ms. */
static gdouble
children_cpu_ms(void)
{
	struct rusage usage;

	getrusage(RUSAGE_CHILDREN, &usage);
	return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000.0 +
	       (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000.0;
}

static gdouble
time_ms(gint64 since)
{
	return (g_get_monotonic_time() - since) / 1000.0;
}

static gint
compare_doubles(gconstpointer a, gconstpointer b)
{
	gdouble x = *(const gdouble *)a, y = *(const gdouble *)b;

	return (x > y) - (x < y);
}

/* "min 81.2, median 84.0, max 97.5 ms (5 runs)" of @times, which it sorts. */
static gchar *
format_times(GArray *times)
{
	g_array_sort(times, compare_doubles);
	return g_strdup_printf("min %.1f, median %.1f, max %.1f ms (%u runs)",
			       g_array_index(times, gdouble, 0),
			       g_array_index(times, gdouble, times->len / 2),
			       g_array_index(times, gdouble, times->len - 1), times->len);
}

/* Repeated measurements of one thing: wall clock, and the CPU time of the
 * daemons and of the client programs run meanwhile. */
typedef struct {
	GArray *wall;
	GArray *masterd;
	GArray *noded;
	GArray *client;
	gint64 start;
	gdouble masterd_start;
	gdouble noded_start;
	gdouble client_start;
} Timing;

static void
timing_init(Timing *t)
{
	t->wall = g_array_new(FALSE, FALSE, sizeof(gdouble));
	t->masterd = g_array_new(FALSE, FALSE, sizeof(gdouble));
	t->noded = g_array_new(FALSE, FALSE, sizeof(gdouble));
	t->client = g_array_new(FALSE, FALSE, sizeof(gdouble));
}

static void
timing_clear(Timing *t)
{
	g_array_unref(t->wall);
	g_array_unref(t->masterd);
	g_array_unref(t->noded);
	g_array_unref(t->client);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Timing, timing_clear)

static void
timing_start(Timing *t, Bench *b)
{
	t->masterd_start = cpu_ms("gantry-masterd", b);
	t->noded_start = cpu_ms("gantry-noded", b);
	t->client_start = children_cpu_ms();
	t->start = g_get_monotonic_time();
}

static void
timing_stop(Timing *t, Bench *b)
{
	gdouble ms = time_ms(t->start);

	g_array_append_val(t->wall, ms);
	ms = cpu_ms("gantry-masterd", b) - t->masterd_start;
	g_array_append_val(t->masterd, ms);
	ms = cpu_ms("gantry-noded", b) - t->noded_start;
	g_array_append_val(t->noded, ms);
	ms = children_cpu_ms() - t->client_start;
	g_array_append_val(t->client, ms);
}

/* Prints the figures under @what; @client names the client program whose
 * CPU time counts, NULL for none. */
static void
timing_print(Timing *t, const gchar *what, const gchar *client)
{
	g_autofree gchar *wall = format_times(t->wall);
	g_autofree gchar *masterd = format_times(t->masterd);
	g_autofree gchar *noded = format_times(t->noded);

	g_print("%s:\n  %s\n  masterd CPU: %s\n  noded CPU: %s\n", what, wall, masterd, noded);
	if (client != NULL) {
		g_autofree gchar *client_cpu = format_times(t->client);

		g_print("  %s CPU: %s\n", client, client_cpu);
	}
}

/* Times a LUXI Query of all instances with the fields gnt-instance list
 * shows (status asks the nodes), as a client sees it: answer parsed. */
static void
time_query(Bench *b, guint repeat)
{
	g_auto(Timing) timing = {0};
	g_autofree gchar *what = NULL;
	guint n_rows = 0;

	timing_init(&timing);
	for (guint i = 0; i < repeat; i++) {
		g_autoptr(JsonNode) res = NULL;

		timing_start(&timing, b);
		res = call(b, "Query",
			   parse("[\"instance\", [\"name\", \"hypervisor\", \"os\", \"pnode\","
				 " \"status\", \"oper_ram\"], null]"));
		timing_stop(&timing, b);
		n_rows = json_array_get_length(
			json_object_get_array_member(json_node_get_object(res), "data"));
	}
	what = g_strdup_printf("LUXI Query of all %u instances (gnt-instance list's fields, "
			       "live status)",
			       n_rows);
	timing_print(&timing, what, NULL);
}

/* Times `gnt-instance list` of everything, its output read from a pipe. */
static void
time_list(Bench *b, const gchar *gnt_instance, guint repeat)
{
	const gchar *argv[] = {gnt_instance, "list", NULL};
	g_auto(GStrv) env = g_environ_setenv(g_get_environ(), "GANTRY_ROOT", b->dir, TRUE);
	g_auto(Timing) timing = {0};
	g_autofree gchar *what = NULL;
	guint n_lines = 0;

	timing_init(&timing);
	for (guint i = 0; i < repeat; i++) {
		g_autofree gchar *out = NULL;
		g_autoptr(GError) error = NULL;
		gint status = -1;

		timing_start(&timing, b);
		if (!g_spawn_sync(NULL, (gchar **)argv, env, G_SPAWN_DEFAULT, NULL, NULL, &out,
				  NULL, &status, &error) ||
		    !g_spawn_check_wait_status(status, &error))
			die(error, "gnt-instance list");
		timing_stop(&timing, b);
		n_lines = 0;
		for (const gchar *p = out; (p = strchr(p, '\n')) != NULL; p++)
			n_lines++;
	}
	what = g_strdup_printf("gnt-instance list of all instances (%u lines)", n_lines);
	timing_print(&timing, what, "gnt-instance");
}

int
main(int argc, char **argv)
{
	gint parallel = 1000, total = 10000, repeat = 5;
	gboolean keep = FALSE;
	g_autofree gchar *root = NULL;
	g_autofree gchar *gnt_cluster = g_strdup(g_getenv("GNT_GNT_CLUSTER"));
	g_autofree gchar *gnt_instance = NULL;
	GOptionEntry entries[] = {
		{"gnt-cluster", 0, 0, G_OPTION_ARG_FILENAME, &gnt_cluster, "gnt-cluster to run",
		 "PATH"},
		{"gnt-instance", 0, 0, G_OPTION_ARG_FILENAME, &gnt_instance, "gnt-instance to time",
		 "PATH"},
		{"parallel", 0, 0, G_OPTION_ARG_INT, &parallel,
		 "Instances added as parallel jobs (1000)", "N"},
		{"total", 0, 0, G_OPTION_ARG_INT, &total, "Instances for the list figures (10000)",
		 "N"},
		{"repeat", 0, 0, G_OPTION_ARG_INT, &repeat, "Times each query this often (5)", "N"},
		{"keep", 0, 0, G_OPTION_ARG_NONE, &keep,
		 "Leave the cluster running (to profile it)", NULL},
		{"root", 0, 0, G_OPTION_ARG_FILENAME, &root,
		 "Only time the queries, on the running cluster under DIR (from --keep)", "DIR"},
		{NULL},
	};
	g_autoptr(GOptionContext) ctx = g_option_context_new("- instance benchmarks");
	g_autoptr(GError) error = NULL;
	g_autoptr(GArray) ids = NULL;
	Bench b = {0};
	gint64 t0;
	guint ok;
	gdouble secs;

	g_option_context_add_main_entries(ctx, entries, NULL);
	if (!g_option_context_parse(ctx, &argc, &argv, &error) ||
	    (gnt_cluster == NULL && root == NULL) || repeat < 1) {
		g_printerr("bench-instances: %s\n",
			   error != NULL ? error->message
			   : repeat < 1	 ? "--repeat must be at least 1"
					 : "--gnt-cluster or --root is required");
		return 2;
	}
	if (root != NULL) {
		b.dir = g_steal_pointer(&root);
		b.paths = gnt_paths_new(b.dir);
		b.client = gnt_luxi_client_new(gnt_paths_get_luxi_socket(b.paths), &error);
		die(error, "connecting");
		gnt_luxi_client_set_timeout(b.client, 600);
		g_print("machine: %u CPUs; cluster under %s\n", g_get_num_processors(), b.dir);
		time_query(&b, (guint)repeat);
		if (gnt_instance != NULL)
			time_list(&b, gnt_instance, (guint)repeat);
		g_clear_object(&b.client);
		gnt_paths_free(b.paths);
		g_free(b.dir);
		return 0;
	}
	b.gnt_cluster = gnt_cluster;
	b.dir = g_dir_make_tmp("gnt-bi-XXXXXX", &error);
	die(error, "temporary root");
	b.paths = gnt_paths_new(b.dir);
	run_cluster_tool(&b, "init", "--noded-port", "0", "bench.example.com");
	b.client = gnt_luxi_client_new(gnt_paths_get_luxi_socket(b.paths), &error);
	die(error, "connecting");
	gnt_luxi_client_set_timeout(b.client, 600);
	g_print("machine: %u CPUs; cluster under %s\n", g_get_num_processors(), b.dir);
	g_print("idle RSS: masterd %.1f MiB, noded %.1f MiB\n",
		rss_kib("gantry-masterd", &b) / 1024.0, rss_kib("gantry-noded", &b) / 1024.0);

	t0 = g_get_monotonic_time();
	ids = submit_creates(&b, 0, (guint)parallel);
	ok = wait_jobs(&b, ids);
	secs = time_ms(t0) / 1000.0;
	g_print("add: %u instances (fake, diskless, --no-install, --no-start) as parallel jobs:\n"
		"  %u succeeded in %.2f s, %.0f instances/s\n",
		(guint)parallel, ok, secs, ok / secs);

	for (guint done = (guint)parallel; done < (guint)total;) {
		guint batch = MIN(2000, (guint)total - done);
		g_autoptr(GArray) more = submit_creates(&b, done, batch);
		wait_jobs(&b, more);
		done += batch;
	}
	time_query(&b, (guint)repeat);
	if (gnt_instance != NULL)
		time_list(&b, gnt_instance, (guint)repeat);
	g_usleep(3 * G_USEC_PER_SEC); /* the queue trims its memory once idle */
	{
		g_autofree gchar *what = g_strdup_printf("RSS with %d instances", total);

		print_rss(&b, what);
	}
	/* the job workers' threads end once idle (GLib's pools), and with
	 * them their stacks and what their malloc arenas kept */
	{
		guint waited = wait_threads_settled("gantry-masterd", &b);

		g_autofree gchar *what = g_strdup_printf(
			"RSS once masterd's idle threads ended (%u s later, %" G_GINT64_FORMAT
			" threads)",
			waited, threads_of("gantry-masterd", &b));

		print_rss(&b, what);
	}
	/* the same cluster in its steady state: daemons started on it, no
	 * burst of adds behind them (one list, as an operator would) */
	g_clear_object(&b.client);
	run_tool(&b, "gantry-daemons", "stop", NULL, NULL, NULL);
	run_tool(&b, "gantry-daemons", "start", NULL, NULL, NULL);
	b.client = gnt_luxi_client_new(gnt_paths_get_luxi_socket(b.paths), &error);
	die(error, "connecting again");
	gnt_luxi_client_set_timeout(b.client, 600);
	if (gnt_instance != NULL)
		time_list(&b, gnt_instance, 1);
	g_usleep(3 * G_USEC_PER_SEC);
	print_rss(&b, "RSS restarted on them");

	g_clear_object(&b.client);
	if (keep) {
		g_print("left running: GANTRY_ROOT=%s\n", b.dir);
		gnt_paths_free(b.paths);
		g_free(b.dir);
		return 0;
	}
	run_cluster_tool(&b, "destroy", "--yes-do-it", NULL, NULL);
	{
		g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", b.dir);
		if (system(cmd) != 0)
			g_printerr("bench-instances: could not remove '%s'\n", b.dir);
	}
	gnt_paths_free(b.paths);
	g_free(b.dir);
	return 0;
}
