/*
 * bench-detach: what twenty long installs cost the master (doc/benchmarks.md
 * "Long installs", issue 15 item 5 and issue 18), on a real one-node
 * cluster with the fake hypervisor (tests/system/gnt-test-installs.h):
 *
 * - 20 adds through the install appliance whose OS scripts sleep: while
 *   all 20 wait on their sessions, masterd's CPU from /proc/PID/stat over
 *   a window (target under 1% of a core), and the submit-to-done time of
 *   OP_TEST_DELAY(0) jobs by their own timestamps (target under 100 ms);
 * - 20 kickstart installs at once (the fake installer of tests/rpc, told
 *   to hang after "start"): the same two figures.
 *
 * Asserts nothing but that the delay jobs succeed.
 *
 *	bench-detach [--window S] [--delays N]	(default 10 s, 20 jobs)
 */
#include "gnt-test-installs.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define N_INSTALLS 20

static guint window_s = 10;
static guint n_delays = 20;

/* utime + stime of @pid in seconds. */
static gdouble
cpu_seconds(GPid pid)
{
	g_autofree gchar *path = g_strdup_printf("/proc/%d/stat", (gint)pid);
	g_autofree gchar *stat = NULL;
	g_auto(GStrv) fields = NULL;
	const gchar *end;

	g_assert_true(g_file_get_contents(path, &stat, NULL, NULL));
	end = strrchr(stat, ')');
	g_assert_nonnull(end);
	/* after the name: state is field 3, utime 14 and stime 15 */
	fields = g_strsplit(end + 2, " ", -1);
	return (gdouble)(g_ascii_strtoull(fields[11], NULL, 10) +
			 g_ascii_strtoull(fields[12], NULL, 10)) /
	       (gdouble)sysconf(_SC_CLK_TCK);
}

static gint
cmp_int64(gconstpointer a, gconstpointer b)
{
	gint64 x = *(const gint64 *)a, y = *(const gint64 *)b;

	return x < y ? -1 : (x > y ? 1 : 0);
}

/* QueryNodes with a live field (noded's node_info), n_delays times, in µs,
 * sorted into @out. */
static void
node_calls_usec(GntTestCluster *cluster, GArray *out)
{
	for (guint i = 0; i < n_delays; i++) {
		g_autoptr(GError) error = NULL;
		gint64 start = g_get_monotonic_time();
		g_autoptr(JsonNode) rows = gnt_test_cluster_call(
			cluster, "QueryNodes", "[[], [\"name\", \"mfree\"], false]", &error);
		gint64 usec = g_get_monotonic_time() - start;

		g_assert_no_error(error);
		g_assert_true(JSON_NODE_HOLDS_ARRAY(rows));
		g_array_append_val(out, usec);
	}
	g_array_sort(out, cmp_int64);
}

/* The same with no install running, printed under @what. */
static void
measure_idle(GntTestCluster *cluster, const gchar *what)
{
	g_autoptr(GArray) node_calls = g_array_new(FALSE, FALSE, sizeof(gint64));

	node_calls_usec(cluster, node_calls);
	printf("%s: QueryNodes with live mfree, no install running: median %.1f ms, max %.1f ms\n",
	       what, (gdouble)g_array_index(node_calls, gint64, node_calls->len / 2) / 1000,
	       (gdouble)g_array_index(node_calls, gint64, node_calls->len - 1) / 1000);
}

/* masterd's CPU over the window, then the delay jobs, while the installs
 * wait; printed under @what. */
static void
measure(GntTestCluster *cluster, const gchar *what)
{
	GPid masterd = gnt_test_cluster_daemon_pid(cluster, "gantry-masterd");
	gdouble before = cpu_seconds(masterd);
	gint64 t0 = g_get_monotonic_time();
	g_autoptr(GArray) delays = g_array_new(FALSE, FALSE, sizeof(gint64));
	g_autoptr(GArray) node_calls = g_array_new(FALSE, FALSE, sizeof(gint64));
	gdouble cpu, wall;

	g_usleep((gulong)window_s * G_USEC_PER_SEC);
	cpu = cpu_seconds(masterd) - before;
	wall = (gdouble)(g_get_monotonic_time() - t0) / G_USEC_PER_SEC;
	for (guint i = 0; i < n_delays; i++) {
		gint64 usec = gnt_test_installs_delay_usec(cluster, 60);

		g_array_append_val(delays, usec);
	}
	g_array_sort(delays, cmp_int64);
	/* and a call that asks the node, while the sessions' long polls are
	 * open on it */
	node_calls_usec(cluster, node_calls);
	printf("%s: masterd CPU while %u installs wait: %.3f s in %.1f s = %.2f%% of a core\n",
	       what, N_INSTALLS, cpu, wall, 100 * cpu / wall);
	printf("%s: OP_TEST_DELAY(0) submit-to-done over %u jobs: median %.1f ms, max %.1f ms\n",
	       what, n_delays, (gdouble)g_array_index(delays, gint64, delays->len / 2) / 1000,
	       (gdouble)g_array_index(delays, gint64, delays->len - 1) / 1000);
	printf("%s: QueryNodes with live mfree (a node call) over %u calls: median %.1f ms, max "
	       "%.1f ms\n",
	       what, n_delays,
	       (gdouble)g_array_index(node_calls, gint64, node_calls->len / 2) / 1000,
	       (gdouble)g_array_index(node_calls, gint64, node_calls->len - 1) / 1000);
	fflush(stdout);
}

static void
bench_appliance(void)
{
	GntTestCluster cluster = {0};
	g_autoptr(GError) error = NULL;
	g_autofree gchar *os_dir = g_dir_make_tmp("gtc-os-XXXXXX", &error);
	guint64 ids[N_INSTALLS];

	g_assert_no_error(error);
	gnt_test_installs_make_os(os_dir);
	gnt_test_cluster_init_with_os(&cluster, "bench-detach.example.com", os_dir,
				      GNT_TEST_INSTALLS_OS);
	measure_idle(&cluster, "appliance");
	for (guint i = 0; i < N_INSTALLS; i++) {
		g_autofree gchar *name = g_strdup_printf("slow%02u.example.com", i);

		ids[i] = gnt_test_installs_submit_add(&cluster, name, "fake", window_s + 120, NULL,
						      NULL);
	}
	gnt_test_installs_wait_in_step(&cluster, ids, N_INSTALLS, 120);
	measure(&cluster, "appliance");
	gnt_test_cluster_clear(&cluster);
	gnt_test_remove_tree(os_dir);
}

static void
bench_kickstart(void)
{
	GntTestCluster cluster = {0};
	g_autoptr(GError) error = NULL;
	g_autofree gchar *work = g_dir_make_tmp("gtc-ks-XXXXXX", &error);
	guint64 ids[N_INSTALLS];

	g_assert_no_error(error);
	gnt_test_cluster_init(&cluster, "bench-ks.example.com", "fake");
	gnt_test_installs_prepare_kickstart(&cluster, work);
	for (guint i = 0; i < N_INSTALLS; i++) {
		g_autofree gchar *name = g_strdup_printf("ks%02u.example.com", i);

		ids[i] = gnt_test_installs_submit_kickstart(&cluster, name);
	}
	for (guint i = 0; i < N_INSTALLS; i++)
		gnt_test_installs_wait_started(&cluster, ids[i], 120);
	measure(&cluster, "kickstart");
	gnt_test_cluster_clear(&cluster);
	gnt_test_remove_tree(work);
}

int
main(int argc, char **argv)
{
	GOptionEntry entries[] = {
		{"window", 0, 0, G_OPTION_ARG_INT, &window_s, "CPU window in seconds", "S"},
		{"delays", 0, 0, G_OPTION_ARG_INT, &n_delays, "OP_TEST_DELAY jobs", "N"},
		{NULL},
	};
	g_autoptr(GOptionContext) context = g_option_context_new("");
	g_autoptr(GError) error = NULL;

	g_option_context_add_main_entries(context, entries, NULL);
	if (!g_option_context_parse(context, &argc, &argv, &error)) {
		fprintf(stderr, "bench-detach: %s\n", error->message);
		return 2;
	}
	{
		/* the cluster helpers log through g_test_message() */
		gchar *test_argv[] = {argv[0], NULL};
		gchar **test_args = test_argv;
		gint test_argc = 1;

		g_test_init(&test_argc, &test_args, NULL);
	}
	bench_appliance();
	bench_kickstart();
	return 0;
}
