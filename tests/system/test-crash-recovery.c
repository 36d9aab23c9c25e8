/*
 * kill -9 in the middle of an instance's create (issue 12): what a killed
 * daemon leaves is finished or undone, never left behind.
 *
 * - noded killed while the OS create script runs: the script dies with it
 *   (its parent-death signal), what the script started in turn dies when
 *   noded starts again (the recorded process group), the job fails, and
 *   the half-made instance (its record, its disk file) is removed by
 *   masterd's recovery pass once the node answers again.
 * - masterd killed while the create runs: at its next start the job ends
 *   in error and the recovery pass removes the instance and its disk.
 *
 * The create script of the test OS records its pid and starts a
 * grandchild (a sleep), then waits for a file the test makes.
 */
#include "gnt-test-cluster.h"

#include <signal.h>

#define OS_NAME	      "crashy"
#define JOB_TIMEOUT_S 120
#define WAIT_STEP_US  (50 * 1000)
#define WAIT_LIMIT_S  30

typedef struct {
	GntTestCluster cluster;
	gchar *os_dir;	/* the OS search path */
	gchar *scratch; /* where the script writes its pids and waits for "go" */
} CrashFx;

#define CREATE_SCRIPT                                                                              \
	"#!/bin/sh\n"                                                                              \
	"sleep 600 &\n"                                                                            \
	"echo $! > \"$OSP_DIR/grandchild.pid.new\"\n"                                              \
	"mv \"$OSP_DIR/grandchild.pid.new\" \"$OSP_DIR/grandchild.pid\"\n"                         \
	"echo $$ > \"$OSP_DIR/script.pid.new\"\n"                                                  \
	"mv \"$OSP_DIR/script.pid.new\" \"$OSP_DIR/script.pid\"\n"                                 \
	"while [ ! -e \"$OSP_DIR/go\" ]; do sleep 0.05; done\n"                                    \
	"exit 0\n"

static void
crash_set_up(CrashFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;

	fx->os_dir = g_dir_make_tmp("gtc-os-XXXXXX", &error);
	g_assert_no_error(error);
	fx->scratch = g_dir_make_tmp("gtc-meet-XXXXXX", &error);
	g_assert_no_error(error);
	/* its create script writes $OSP_DIR/script.pid and
	 * $OSP_DIR/grandchild.pid, then waits until $OSP_DIR/go exists */
	gnt_test_make_os(fx->os_dir, OS_NAME, "dir where to meet the test\n", CREATE_SCRIPT);
	gnt_test_cluster_init_with_os(&fx->cluster, (const gchar *)data, fx->os_dir, OS_NAME);
}

static void
crash_tear_down(CrashFx *fx, gconstpointer data)
{
	g_autofree gchar *go = g_build_filename(fx->scratch, "go", NULL);

	/* a script still waiting ends, so that noded stops at once */
	gnt_test_write_file(NULL, go, "", 0644);
	gnt_test_cluster_clear(&fx->cluster);
	gnt_test_remove_tree(fx->os_dir);
	gnt_test_remove_tree(fx->scratch);
	g_free(fx->os_dir);
	g_free(fx->scratch);
}

/* The pid in @name under the scratch directory, waiting for it to appear. */
static GPid
wait_pid_file(CrashFx *fx, const gchar *name)
{
	g_autofree gchar *path = g_build_filename(fx->scratch, name, NULL);
	g_autofree gchar *text = gnt_test_wait_file(path, WAIT_LIMIT_S);

	return (GPid)g_ascii_strtoll(text, NULL, 10);
}

/* Alive: running, not a zombie that nobody reaped yet. */
static gboolean
process_alive(GPid pid)
{
	g_autofree gchar *status_path = g_strdup_printf("/proc/%d/status", (gint)pid);
	g_autofree gchar *status = NULL;

	if (kill(pid, 0) != 0)
		return FALSE;
	return g_file_get_contents(status_path, &status, NULL, NULL) &&
	       strstr(status, "\nState:\tZ") == NULL;
}

static gboolean
wait_gone(GPid pid)
{
	for (guint i = 0; i < WAIT_LIMIT_S * G_USEC_PER_SEC / WAIT_STEP_US; i++) {
		if (!process_alive(pid))
			return TRUE;
		g_usleep(WAIT_STEP_US);
	}
	return FALSE;
}

static void
kill9(CrashFx *fx, const gchar *daemon)
{
	GPid pid = gnt_test_cluster_daemon_pid(&fx->cluster, daemon);

	g_assert_cmpint(kill(pid, SIGKILL), ==, 0);
	g_assert_true(wait_gone(pid));
}

/* gantry-daemons start: the daemons not running start again. */
static void
start_daemons(CrashFx *fx)
{
	gnt_test_cluster_start_daemons(&fx->cluster);
}

static guint64
submit_create(CrashFx *fx, const gchar *name)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *op_json = g_strdup_printf(
		"{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\": \"%s\", \"mode\": \"create\","
		" \"disk_template\": \"file\", \"disks\": [{\"size\": 4}], \"nics\": [],"
		" \"os_type\": \"" OS_NAME "\", \"hypervisor\": \"fake\", \"start\": false,"
		" \"osparams\": {\"dir\": \"%s\"}}",
		name, fx->scratch);
	g_autoptr(JsonNode) op = gnt_json_parse(op_json, -1, &error);
	g_autoptr(JsonArray) ops = json_array_new();
	guint64 id = 0;

	g_assert_no_error(error);
	json_array_add_element(ops, g_steal_pointer(&op));
	g_assert_true(gnt_luxi_client_submit_job(fx->cluster.client, ops, &id, &error));
	g_assert_no_error(error);
	return id;
}

/* The job that removed @name, found by its log; waits for its end. */
static void
assert_recovered(CrashFx *fx, const gchar *name, guint64 create_job)
{
	g_autofree gchar *needle = g_strdup_printf(
		"Instance %s was left half created by job %" G_GUINT64_FORMAT, name, create_job);
	g_autofree gchar *dir = gnt_test_cluster_dup_file_storage_dir(&fx->cluster);

	/* the recovery job is submitted at start-up: it follows the create */
	for (guint64 id = create_job + 1; id < create_job + 20; id++) {
		g_autoptr(JsonArray) row = NULL;
		g_autofree gchar *text = NULL;
		g_autofree gchar *args =
			g_strdup_printf("[[%" G_GUINT64_FORMAT "], [\"status\"]]", id);
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonNode)
			rows = gnt_test_cluster_call(&fx->cluster, "QueryJobs", args, &error);

		g_assert_no_error(error);
		if (JSON_NODE_HOLDS_NULL(json_array_get_element(json_node_get_array(rows), 0)))
			continue;
		row = gnt_test_cluster_wait_job(&fx->cluster, id, JOB_TIMEOUT_S);
		text = gnt_test_cluster_row_to_string(row);
		if (strstr(text, needle) == NULL)
			continue;
		gnt_test_cluster_assert_success(row);
		g_assert_cmpuint(gnt_test_cluster_count_instances(&fx->cluster, name), ==, 0);
		{
			g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);

			gnt_test_cluster_list_files(dir, files);
			g_assert_cmpuint(files->len, ==, 0);
		}
		return;
	}
	g_error("no job removed the half-made instance %s", name);
}

/* noded killed while the OS create script runs */
static void
test_noded_killed(CrashFx *fx, gconstpointer data)
{
	const gchar *name = "crash1.example.com";
	guint64 job = submit_create(fx, name);
	g_autoptr(JsonArray) row = NULL;
	g_autofree gchar *text = NULL;
	g_autofree gchar *dir = gnt_test_cluster_dup_file_storage_dir(&fx->cluster);
	g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);
	GPid script = wait_pid_file(fx, "script.pid");
	GPid grandchild = wait_pid_file(fx, "grandchild.pid");

	kill9(fx, "gantry-noded");
	/* the script dies with noded; what it started lives on until noded
	 * starts again */
	g_assert_true(wait_gone(script));
	g_assert_true(process_alive(grandchild));
	row = gnt_test_cluster_wait_job(&fx->cluster, job, JOB_TIMEOUT_S);
	text = gnt_test_cluster_row_to_string(row);
	g_test_message("the create: %s", text);
	g_assert_cmpstr(json_array_get_string_element(row, 0), ==, "error");
	g_assert_nonnull(strstr(text, "the instance stays in the configuration, marked as half "
				      "created by job"));
	/* half made: the record and its disk file are still there */
	g_assert_cmpuint(gnt_test_cluster_count_instances(&fx->cluster, name), ==, 1);
	gnt_test_cluster_list_files(dir, files);
	g_assert_cmpuint(files->len, ==, 1);

	/* noded back: the leftover group is killed. Then masterd's next pass
	 * (at its start) removes the instance */
	start_daemons(fx);
	g_assert_true(wait_gone(grandchild));
	kill9(fx, "gantry-masterd");
	start_daemons(fx);
	assert_recovered(fx, name, job);
}

/* masterd killed while the create runs on the node */
static void
test_masterd_killed(CrashFx *fx, gconstpointer data)
{
	const gchar *name = "crash2.example.com";
	guint64 job = submit_create(fx, name);
	g_autofree gchar *go = g_build_filename(fx->scratch, "go", NULL);
	g_autoptr(JsonArray) row = NULL;
	g_autofree gchar *text = NULL;

	wait_pid_file(fx, "script.pid");
	kill9(fx, "gantry-masterd");
	/* the node finishes its part, and answers nobody */
	gnt_test_write_file(NULL, go, "", 0644);
	start_daemons(fx);
	row = gnt_test_cluster_wait_job(&fx->cluster, job, JOB_TIMEOUT_S);
	text = gnt_test_cluster_row_to_string(row);
	g_assert_cmpstr(json_array_get_string_element(row, 0), ==, "error");
	g_assert_nonnull(strstr(text, "the master daemon stopped while the job was running"));
	assert_recovered(fx, name, job);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/crash-recovery/noded-killed", CrashFx, "crash-noded.example.com", crash_set_up,
		   test_noded_killed, crash_tear_down);
	g_test_add("/crash-recovery/masterd-killed", CrashFx, "crash-masterd.example.com",
		   crash_set_up, test_masterd_killed, crash_tear_down);
	return g_test_run();
}
