/*
 * The commands and the master daemon as an operator uses them: each test
 * gets its own root (a short temp dir: unix socket paths are limited to
 * 108 bytes), runs the real binaries (paths from the environment, set by
 * meson) and checks their output and exit codes.
 */
#include <gio/gio.h>
#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>

#include "../gnt-test-assert.h"
#include "gnt-build-config.h"
#include "gnt-json.h"
#include "gnt-luxi-codec.h"
#include "gnt-paths.h"

typedef enum {
	TOOL_CLUSTER,
	TOOL_JOB,
	TOOL_DEBUG,
	TOOL_DAEMONS,
	TOOL_MASTERD,
} Tool;

static const gchar *const tool_env[] = {
	[TOOL_CLUSTER] = "GNT_TEST_GNT_CLUSTER", [TOOL_JOB] = "GNT_TEST_GNT_JOB",
	[TOOL_DEBUG] = "GNT_TEST_GNT_DEBUG",	 [TOOL_DAEMONS] = "GNT_TEST_GANTRY_DAEMONS",
	[TOOL_MASTERD] = "GNT_TEST_MASTERD",
};

typedef struct {
	gchar *root;
} ToolsFx;

typedef struct {
	gint status; /* exit status, or 128 + signal */
	gchar *out;
	gchar *err;
} RunResult;

static void
run_result_free(RunResult *self)
{
	g_free(self->out);
	g_free(self->err);
	g_free(self);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(RunResult, run_result_free)

/* Runs @tool with the NULL-terminated arguments in @args, under $GANTRY_ROOT
 * set to the fixture's root. */
static RunResult *
run_argv_flags(ToolsFx *fx, Tool tool, GSubprocessFlags stderr_flag, const gchar *const *args)
{
	g_autoptr(GSubprocessLauncher)
		launcher = g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_STDOUT_PIPE | stderr_flag);
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	g_autoptr(GSubprocess) proc = NULL;
	g_autoptr(GError) error = NULL;
	RunResult *result = g_new0(RunResult, 1);
	const gchar *program = g_getenv(tool_env[tool]);

	g_assert_nonnull(program);
	g_ptr_array_add(argv, (gpointer)program);
	for (guint i = 0; args[i] != NULL; i++)
		g_ptr_array_add(argv, (gpointer)args[i]);
	g_ptr_array_add(argv, NULL);
	g_subprocess_launcher_setenv(launcher, "GANTRY_ROOT", fx->root, TRUE);
	proc = g_subprocess_launcher_spawnv(launcher, (const gchar *const *)argv->pdata, &error);
	g_assert_no_error(error);
	g_subprocess_communicate_utf8(proc, NULL, NULL, &result->out, &result->err, &error);
	g_assert_no_error(error);
	if (g_subprocess_get_if_exited(proc))
		result->status = g_subprocess_get_exit_status(proc);
	else
		result->status = 128 + g_subprocess_get_term_sig(proc);
	if (g_test_verbose())
		g_printerr("# %s %s -> %d\n# out: %s# err: %s\n", tool_env[tool],
			   args[0] != NULL ? args[0] : "", result->status, result->out,
			   result->err);
	return result;
}

static RunResult *
run_argv(ToolsFx *fx, Tool tool, const gchar *const *args)
{
	return run_argv_flags(fx, tool, G_SUBPROCESS_FLAGS_STDERR_PIPE, args);
}

#define run(fx, tool, ...) run_argv(fx, tool, (const gchar *const[]){__VA_ARGS__, NULL})
/* The same with stderr merged into stdout (r->out), to check their order. */
#define run_merged(fx, tool, ...)                                                                  \
	run_argv_flags(fx, tool, G_SUBPROCESS_FLAGS_STDERR_MERGE,                                  \
		       (const gchar *const[]){__VA_ARGS__, NULL})

/* Runs and expects the exit status @expected. */
static RunResult *
run_expect_argv(ToolsFx *fx, gint expected, Tool tool, const gchar *const *args)
{
	RunResult *r = run_argv(fx, tool, args);

	if (r->status != expected)
		g_printerr("unexpected status %d\nout: %s\nerr: %s\n", r->status, r->out, r->err);
	g_assert_cmpint(r->status, ==, expected);
	return r;
}

#define run_expect(fx, expected, tool, ...)                                                        \
	run_expect_argv(fx, expected, tool, (const gchar *const[]){__VA_ARGS__, NULL})

/* Runs, expects the exit status @expected and, unless NULL, exactly @out. */
static void
check_argv(ToolsFx *fx, gint expected, const gchar *out, Tool tool, const gchar *const *args)
{
	g_autoptr(RunResult) r = run_expect_argv(fx, expected, tool, args);

	if (out != NULL)
		g_assert_cmpstr(r->out, ==, out);
}

#define check(fx, expected, out, tool, ...)                                                        \
	check_argv(fx, expected, out, tool, (const gchar *const[]){__VA_ARGS__, NULL})

static void
fx_set_up_empty(ToolsFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;

	fx->root = g_dir_make_tmp("gt-XXXXXX", &error);
	g_assert_no_error(error);
}

static void
fx_set_up(ToolsFx *fx, gconstpointer data)
{
	fx_set_up_empty(fx, data);
	check(fx, 0, NULL, TOOL_CLUSTER, "init", "--noded-port", "0", "test.example.com");
}

static void
fx_tear_down(ToolsFx *fx, gconstpointer data)
{
	g_autoptr(RunResult) stop = run(fx, TOOL_DAEMONS, "stop");
	const gchar *rm[] = {"rm", "-rf", fx->root, NULL};
	gint status = -1;

	g_assert_cmpint(stop->status, ==, 0);
	g_assert_true(g_spawn_sync(NULL, (gchar **)rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL,
				   NULL, &status, NULL));
	g_assert_cmpint(status, ==, 0);
	g_free(fx->root);
}

static gchar *
root_path(ToolsFx *fx, const gchar *relative)
{
	return g_build_filename(fx->root, relative, NULL);
}

/* Submits a delay and returns its job ID. */
static guint64
submit_delay(ToolsFx *fx, const gchar *duration, gboolean locks)
{
	g_autoptr(RunResult) r = locks ? run_expect(fx, 0, TOOL_DEBUG, "delay", "--submit",
						    "--print-jobid", duration)
				       : run_expect(fx, 0, TOOL_DEBUG, "delay", "--submit",
						    "--print-jobid", "--no-locks", duration);
	guint64 id = g_ascii_strtoull(r->out, NULL, 10);

	g_assert_cmpuint(id, >, 0);
	gnt_test_assert_contains(r->err, "JobID: ");
	return id;
}

static gchar *
job_status(ToolsFx *fx, guint64 id)
{
	g_autofree gchar *id_text = g_strdup_printf("%" G_GUINT64_FORMAT, id);
	g_autoptr(RunResult)
		r = run_expect(fx, 0, TOOL_JOB, "list", "-o", "status", "--no-headers", id_text);

	return g_strstrip(g_strdup(r->out));
}

/* Polls until job @id has @status (10 s at most). */
static void
wait_for_status(ToolsFx *fx, guint64 id, const gchar *status)
{
	for (guint i = 0; i < 200; i++) {
		g_autofree gchar *now = job_status(fx, id);

		if (g_strcmp0(now, status) == 0)
			return;
		g_usleep(50 * 1000);
	}
	g_printerr("job %" G_GUINT64_FORMAT " never became '%s'\n", id, status);
	g_assert_not_reached();
}

/* masterd's pid from `gantry-daemons status` (one line per daemon), or 0. */
static pid_t
masterd_pid(ToolsFx *fx)
{
	g_autoptr(RunResult) r = run(fx, TOOL_DAEMONS, "status");
	const gchar *line = strstr(r->out, "gantry-masterd: ");

	if (line == NULL) /* not a master (any more): no masterd to run */
		return 0;
	if (g_str_has_prefix(line, "gantry-masterd: stopped\n")) {
		g_assert_cmpint(r->status, ==, 3);
		return 0;
	}
	g_assert_true(g_str_has_prefix(line, "gantry-masterd: running (pid "));
	return (pid_t)g_ascii_strtoll(line + strlen("gantry-masterd: running (pid "), NULL, 10);
}

/* ---- gnt-cluster ---- */

static void
test_cluster_lifecycle(ToolsFx *fx, gconstpointer data)
{
	g_autoptr(RunResult) r = NULL;
	g_autofree gchar *data_dir = root_path(fx, "var/lib/gantry");
	g_autofree gchar *run_dir = root_path(fx, "run/gantry");
	g_autofree gchar *log_dir = root_path(fx, "var/log/gantry");
	g_autofree gchar *master_line = NULL;

	/* nothing there yet */
	r = run_expect(fx, 1, TOOL_JOB, "list");
	gnt_test_assert_contains(
		r->err, "Failure: prerequisites not met for this operation:\n"
			"error type: wrong_input, error details:\n"
			"Cluster not initialized or this machine is not part of a cluster");
	g_clear_pointer(&r, run_result_free);
	/* noded starts first: it has no cluster certificates */
	r = run_expect(fx, 1, TOOL_DAEMONS, "start");
	gnt_test_assert_contains(r->err, "gantry-noded: this node has not joined a cluster");
	g_clear_pointer(&r, run_result_free);

	/* init (with an explicit --root this time) starts masterd */
	check(fx, 0, NULL, TOOL_CLUSTER, "init", "--root", fx->root, "--master-netdev", "eth0",
	      "--noded-port", "0", "test.example.com");
	g_assert_cmpint(masterd_pid(fx), >, 0);
	r = run_expect(fx, 1, TOOL_CLUSTER, "init", "--noded-port", "0", "other.example.com");
	gnt_test_assert_contains(r->err, "Cluster is already initialised");
	g_clear_pointer(&r, run_result_free);

	r = run_expect(fx, 0, TOOL_CLUSTER, "info");
	gnt_test_assert_contains(r->out, "Cluster name: test.example.com\n");
	gnt_test_assert_contains(r->out, "Cluster UUID: ");
	gnt_test_assert_contains(r->out, "Master node: ");
	gnt_test_assert_contains(r->out, "Architecture (this node): ");
	gnt_test_assert_contains(r->out, "Tags: (none)\n");
	gnt_test_assert_contains(r->out, "Cluster parameters: \n  candidate pool size: ");
	/* Ganeti's default search paths, right after "preallocation wipe disks" */
	gnt_test_assert_contains(r->out,
				 "  preallocation wipe disks: False\n"
				 "  OS search path: /srv/ganeti/os, /usr/local/lib/ganeti/os, "
				 "/usr/lib/ganeti/os, /usr/share/ganeti/os\n"
				 "  ExtStorage Providers search path: /srv/ganeti/extstorage, "
				 "/usr/local/lib/ganeti/extstorage, /usr/lib/ganeti/extstorage, "
				 "/usr/share/ganeti/extstorage\n"
				 "  enabled disk templates: ");
	g_clear_pointer(&r, run_result_free);
	r = run_expect(fx, 0, TOOL_CLUSTER, "version");
	gnt_test_assert_contains(r->out, "Software version: " GNT_VERSION "\n");
	g_clear_pointer(&r, run_result_free);
	/* from the ssconf file masterd wrote, as Ganeti's does */
	r = run_expect(fx, 0, TOOL_CLUSTER, "getmaster");
	g_assert_true(g_str_has_suffix(r->out, "\n") && strchr(r->out, '\n')[1] == '\0');
	master_line = g_strdup_printf("Master node: %s", r->out);
	g_clear_pointer(&r, run_result_free);
	r = run_expect(fx, 0, TOOL_CLUSTER, "info");
	gnt_test_assert_contains(r->out, master_line);
	g_clear_pointer(&r, run_result_free);

	/* destroy */
	r = run_expect(fx, 1, TOOL_CLUSTER, "destroy");
	g_assert_cmpstr(r->err, ==,
			"Destroying a cluster is irreversible. If you really want destroy this "
			"cluster, supply the --yes-do-it option.\n");
	g_clear_pointer(&r, run_result_free);
	check(fx, 0, NULL, TOOL_CLUSTER, "destroy", "--yes-do-it");
	g_assert_false(g_file_test(data_dir, G_FILE_TEST_EXISTS));
	g_assert_false(g_file_test(run_dir, G_FILE_TEST_EXISTS));
	g_assert_false(g_file_test(log_dir, G_FILE_TEST_EXISTS));
	g_assert_true(g_file_test(fx->root, G_FILE_TEST_IS_DIR));
	g_assert_cmpint(masterd_pid(fx), ==, 0);
}

/* ---- gantry-daemons and gantry-masterd ---- */

static void
test_daemons_restart(ToolsFx *fx, gconstpointer data)
{
	g_autoptr(RunResult) r = NULL;
	g_autofree gchar *pid_file = root_path(fx, "run/gantry/gantry-masterd.pid");
	g_autofree gchar *log_file = root_path(fx, "var/log/gantry/gantry-masterd.log");
	g_autofree gchar *log = NULL;
	pid_t first = masterd_pid(fx);
	pid_t second;
	pid_t third;

	g_assert_cmpint(first, >, 0);
	check(fx, 0, NULL, TOOL_DAEMONS, "stop");
	g_assert_cmpint(masterd_pid(fx), ==, 0);
	g_assert_false(g_file_test(pid_file, G_FILE_TEST_EXISTS));
	r = run_expect(fx, 1, TOOL_JOB, "list");
	gnt_test_assert_contains(r->err, "Cannot communicate with socket '");
	gnt_test_assert_contains(r->err, "Is the process running and listening for connections?");
	g_clear_pointer(&r, run_result_free);

	check(fx, 0, NULL, TOOL_DAEMONS, "start");
	second = masterd_pid(fx);
	g_assert_cmpint(second, >, 0);
	g_assert_cmpint(second, !=, first);
	r = run_expect(fx, 0, TOOL_DAEMONS, "start");
	gnt_test_assert_contains(r->out, "gantry-masterd: already running (pid ");
	g_clear_pointer(&r, run_result_free);
	r = run_expect(fx, 1, TOOL_MASTERD, "--foreground");
	gnt_test_assert_contains(r->err, "gantry-masterd is already running (pid ");
	g_clear_pointer(&r, run_result_free);

	/* kill -9 leaves a stale pid file (and socket) that must not block a restart */
	g_assert_cmpint(kill(second, SIGKILL), ==, 0);
	for (guint i = 0; i < 200 && masterd_pid(fx) != 0; i++)
		g_usleep(20 * 1000);
	g_assert_cmpint(masterd_pid(fx), ==, 0);
	g_assert_true(g_file_test(pid_file, G_FILE_TEST_EXISTS));
	check(fx, 0, NULL, TOOL_DAEMONS, "start");
	third = masterd_pid(fx);
	g_assert_cmpint(third, >, 0);
	g_assert_cmpint(third, !=, second);
	check(fx, 0, NULL, TOOL_JOB, "list");

	g_assert_true(g_file_get_contents(log_file, &log, NULL, NULL));
	gnt_test_assert_contains(log, "gantry-masterd MESSAGE: started (pid ");
}

static void
test_daemons_no_cluster(ToolsFx *fx, gconstpointer data)
{
	g_autoptr(RunResult) r = NULL;
	g_autofree gchar *expected =
		g_strdup_printf("gantry-masterd: no cluster under root '%s': run gnt-cluster init "
				"first\n",
				fx->root);

	r = run_expect(fx, 1, TOOL_MASTERD, "--foreground");
	g_assert_cmpstr(r->err, ==, expected);
	g_clear_pointer(&r, run_result_free);
	r = run_expect(fx, 1, TOOL_DAEMONS, "start");
	gnt_test_assert_contains(r->err, "gantry-noded: this node has not joined a cluster");
	g_clear_pointer(&r, run_result_free);
	check(fx, 2, NULL, TOOL_MASTERD, "--bogus");
	r = run_expect(fx, 0, TOOL_MASTERD, "--help");
	gnt_test_assert_contains(r->out, "--foreground");
	gnt_test_assert_contains(r->out, "--max-running-jobs");
	g_clear_pointer(&r, run_result_free);
	r = run_expect(fx, 3, TOOL_DAEMONS, "status");
}

/* Under systemd (Type=notify): foreground, READY=1 once listening,
 * STOPPING=1 and exit 0 on SIGTERM. */
static void
test_daemons_foreground_notify(ToolsFx *fx, gconstpointer data)
{
	g_autofree gchar *path = root_path(fx, "notify");
	g_autoptr(GSocketAddress) address = g_unix_socket_address_new(path);
	g_autoptr(GSocket) notify = NULL;
	g_autoptr(GSubprocessLauncher)
		launcher = g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_STDERR_PIPE);
	g_autoptr(GSubprocess) masterd = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(RunResult) r = NULL;
	g_autofree gchar *err = NULL;
	gchar buf[64] = {0};

	r = run_expect(fx, 0, TOOL_DAEMONS, "stop");
	notify = g_socket_new(G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_DATAGRAM,
			      G_SOCKET_PROTOCOL_DEFAULT, &error);
	g_assert_no_error(error);
	g_assert_true(g_socket_bind(notify, address, FALSE, &error));
	g_socket_set_timeout(notify, 30);
	g_subprocess_launcher_setenv(launcher, "NOTIFY_SOCKET", path, TRUE);
	masterd = g_subprocess_launcher_spawn(launcher, &error, g_getenv("GNT_TEST_MASTERD"),
					      "--foreground", "--root", fx->root, NULL);
	g_assert_no_error(error);
	g_assert_cmpint(g_socket_receive(notify, buf, sizeof(buf) - 1, NULL, &error), ==, 7);
	g_assert_cmpstr(buf, ==, "READY=1");
	g_assert_cmpint(masterd_pid(fx), ==, atoi(g_subprocess_get_identifier(masterd)));

	g_subprocess_send_signal(masterd, SIGTERM);
	memset(buf, 0, sizeof(buf));
	g_assert_cmpint(g_socket_receive(notify, buf, sizeof(buf) - 1, NULL, &error), ==, 10);
	g_assert_cmpstr(buf, ==, "STOPPING=1");
	g_assert_true(g_subprocess_communicate_utf8(masterd, NULL, NULL, NULL, &err, &error));
	g_assert_true(g_subprocess_get_if_exited(masterd));
	g_assert_cmpint(g_subprocess_get_exit_status(masterd), ==, 0);
	/* the foreground log is stderr */
	gnt_test_assert_contains(err, "gantry-masterd MESSAGE: started (pid ");
	gnt_test_assert_contains(err, "gantry-masterd MESSAGE: stopped\n");
	g_assert_cmpint(masterd_pid(fx), ==, 0);
}

/* ---- gnt-debug ---- */

static void
test_debug_delay(ToolsFx *fx, gconstpointer data)
{
	static const gchar *const bad_durations[] = {"inf", "nan", "-1", "1e999"};
	g_autoptr(RunResult) r = NULL;
	g_autoptr(GRegex) log_line = g_regex_new(
		"^[A-Z][a-z]{2} [A-Z][a-z]{2} [ 123]\\d \\d\\d:\\d\\d:\\d\\d \\d{4} hello$",
		G_REGEX_MULTILINE, 0, NULL);
	g_autofree gchar *watch_header = NULL;
	guint64 id;

	check(fx, 0, NULL, TOOL_DEBUG, "delay", "0.1");

	r = run_expect(fx, 0, TOOL_DEBUG, "delay", "--submit", "0.3");
	g_assert_true(g_str_has_prefix(r->err, "JobID: "));
	id = g_ascii_strtoull(r->err + strlen("JobID: "), NULL, 10);
	g_assert_cmpuint(id, ==, 2);
	g_clear_pointer(&r, run_result_free);
	r = run_expect(fx, 0, TOOL_JOB, "watch", "2");
	g_assert_true(g_str_has_prefix(r->out, "Output from job 2 follows\n"
					       "-------------------------\n"));
	g_clear_pointer(&r, run_result_free);

	id = submit_delay(fx, "0.1", TRUE);
	watch_header = g_strdup_printf("%" G_GUINT64_FORMAT, id);
	check(fx, 0, "", TOOL_JOB, "wait", watch_header);

	/* the job log, printed as Ganeti does: "<ctime> <message>" */
	r = run_expect(fx, 0, TOOL_DEBUG, "test-dummy", "-m", "hello", "--result", "[1, \"two\"]");
	g_assert_true(g_regex_match(log_line, r->out, 0, NULL));
	gnt_test_assert_contains(r->out, "\n[1,\"two\"]\n");
	g_clear_pointer(&r, run_result_free);

	r = run_expect(fx, 1, TOOL_DEBUG, "test-dummy", "--fail");
	g_assert_true(g_str_has_prefix(r->err, "Failure: "));
	g_clear_pointer(&r, run_result_free);
	r = run_expect(fx, 1, TOOL_DEBUG, "delay", "soon");
	gnt_test_assert_contains(r->err, "Invalid duration 'soon'");
	for (guint i = 0; i < G_N_ELEMENTS(bad_durations); i++) {
		g_autofree gchar *expected = g_strdup_printf(
			"Invalid duration '%s': must be a finite number of seconds, 0 or more",
			bad_durations[i]);

		g_clear_pointer(&r, run_result_free);
		r = run_expect(fx, 1, TOOL_DEBUG, "delay", "--", bad_durations[i]);
		gnt_test_assert_contains(r->err, expected);
	}
}

static void
test_debug_submit_job(ToolsFx *fx, gconstpointer data)
{
	g_autoptr(RunResult) r = NULL;
	g_autofree gchar *ops = root_path(fx, "ops.json");
	g_autofree gchar *fail = root_path(fx, "fail.json");
	g_autofree gchar *bad = root_path(fx, "bad.json");
	g_autofree gchar *missing = root_path(fx, "missing.json");
	g_autofree gchar *waiting = g_strdup_printf("Waiting for job 1 for file %s/0 ...\n", ops);

	g_assert_true(g_file_set_contents(ops, "[{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": 0}]",
					  -1, NULL));
	g_assert_true(g_file_set_contents(fail, "[{\"OP_ID\": \"OP_TEST_DUMMY\", \"fail\": true}]",
					  -1, NULL));
	g_assert_true(g_file_set_contents(bad, "{}", -1, NULL));

	r = run_expect(fx, 0, TOOL_DEBUG, "submit-job", ops, ops);
	gnt_test_assert_contains(r->out, waiting);
	gnt_test_assert_contains(r->out, "Waiting for job 2 for file ");
	g_clear_pointer(&r, run_result_free);
	r = run_expect(fx, 0, TOOL_DEBUG, "submit-job", "--each", "-v", "--op-repeat", "2", ops);
	gnt_test_assert_contains(r->out, "Submitted jobs 3\n");
	g_clear_pointer(&r, run_result_free);
	r = run_expect(fx, 0, TOOL_DEBUG, "submit-job", fail);
	gnt_test_assert_contains(r->err, "Job 4 for file ");
	gnt_test_assert_contains(r->err, " has failed: Failure: ");
	g_clear_pointer(&r, run_result_free);
	check(fx, 1, NULL, TOOL_DEBUG, "submit-job", missing);
	r = run_expect(fx, 1, TOOL_DEBUG, "submit-job", bad);
	gnt_test_assert_contains(r->err, "must hold a JSON list of opcode objects");
	g_clear_pointer(&r, run_result_free);

	r = run_expect(fx, 0, TOOL_JOB, "list", "-o", "id,status", "--no-headers", "--separator",
		       ":");
	g_assert_cmpstr(r->out, ==, "1:success\n2:success\n3:success\n4:error\n");
}

/* ---- a scripted master daemon ---- */

/* Listens on the root's LUXI socket (in a thread) and answers every request
 * with the answer text set for its method, so a test can make the commands
 * meet any answer Ganeti's luxid may give. */
typedef struct {
	GntPaths *paths;
	GSocket *listener;
	GCancellable *cancel;
	GThread *thread;
	GMutex mutex;
	GHashTable *answers; /* method -> whole answer, JSON text */
} FakeMaster;

#define FAKE_NO_ANSWER "{\"success\": false, \"result\": \"Failed to parse request: no answer\"}"

static void
fake_master_answer(FakeMaster *self, GSocket *conn, const gchar *msg, gsize len)
{
	g_autofree gchar *method = NULL;
	g_autoptr(JsonArray) args = NULL;
	g_autofree gchar *answer = NULL;

	g_assert_true(gnt_luxi_parse_request(msg, len, &method, &args, NULL));
	g_mutex_lock(&self->mutex);
	answer = g_strdup(g_hash_table_lookup(self->answers, method));
	g_mutex_unlock(&self->mutex);
	if (answer == NULL)
		answer = g_strdup(FAKE_NO_ANSWER);
	for (gsize done = 0, total = strlen(answer) + 1; done < total;) {
		/* the answer and its terminator (the NUL, replaced) */
		gssize n;

		answer[total - 1] = GNT_LUXI_EOM;
		n = g_socket_send(conn, answer + done, total - done, self->cancel, NULL);
		if (n <= 0)
			return;
		done += (gsize)n;
	}
}

static gpointer
fake_master_thread(gpointer data)
{
	FakeMaster *self = data;

	for (;;) {
		g_autoptr(GSocket) conn = g_socket_accept(self->listener, self->cancel, NULL);
		g_autoptr(GntLuxiFramer) framer = gnt_luxi_framer_new(0);
		guint8 buf[4096];
		gssize n;

		if (conn == NULL)
			return NULL;
		while ((n = g_socket_receive(conn, (gchar *)buf, sizeof(buf), self->cancel, NULL)) >
		       0) {
			const gchar *msg = NULL;
			gsize len = 0;

			gnt_luxi_framer_feed(framer, buf, (gsize)n);
			while (gnt_luxi_framer_next(framer, &msg, &len, NULL) && msg != NULL) {
				fake_master_answer(self, conn, msg, len);
				gnt_luxi_framer_release(framer);
			}
		}
	}
}

/* Makes the fixture's root look like a cluster whose master is @self. */
static void
fake_master_start(FakeMaster *self, ToolsFx *fx)
{
	g_autoptr(GSocketAddress) address = NULL;
	g_autoptr(GError) error = NULL;

	self->paths = gnt_paths_new(fx->root);
	g_assert_true(gnt_paths_ensure_dirs(self->paths, &error));
	g_assert_true(g_file_set_contents(gnt_paths_get_config_db(self->paths), "", 0, &error));
	self->listener = g_socket_new(G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM,
				      G_SOCKET_PROTOCOL_DEFAULT, &error);
	g_assert_no_error(error);
	address = g_unix_socket_address_new(gnt_paths_get_luxi_socket(self->paths));
	g_assert_true(g_socket_bind(self->listener, address, FALSE, &error));
	g_assert_true(g_socket_listen(self->listener, &error));
	self->cancel = g_cancellable_new();
	g_mutex_init(&self->mutex);
	self->answers = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	self->thread = g_thread_new("fake-master", fake_master_thread, self);
}

static void
fake_master_set(FakeMaster *self, const gchar *method, const gchar *answer)
{
	g_mutex_lock(&self->mutex);
	g_hash_table_replace(self->answers, g_strdup(method), g_strdup(answer));
	g_mutex_unlock(&self->mutex);
}

static void
fake_master_stop(FakeMaster *self)
{
	g_cancellable_cancel(self->cancel);
	g_thread_join(self->thread);
	g_socket_close(self->listener, NULL);
	g_object_unref(self->listener);
	g_object_unref(self->cancel);
	g_hash_table_unref(self->answers);
	g_mutex_clear(&self->mutex);
	g_assert_cmpint(g_unlink(gnt_paths_get_luxi_socket(self->paths)), ==, 0);
	g_assert_cmpint(g_unlink(gnt_paths_get_config_db(self->paths)), ==, 0);
	gnt_paths_free(self->paths);
}

/* Runs @tool expecting failure and exactly @err on stderr. */
static void
check_fails_argv(ToolsFx *fx, const gchar *err, Tool tool, const gchar *const *args)
{
	g_autoptr(RunResult) r = run_expect_argv(fx, 1, tool, args);

	g_assert_cmpstr(r->err, ==, err);
}

#define check_fails(fx, err, tool, ...)                                                            \
	check_fails_argv(fx, err, tool, (const gchar *const[]){__VA_ARGS__, NULL})

/* The exception the master sends is printed as cli.FormatError prints it,
 * arguments and all. */
static void
test_errors_as_sent(ToolsFx *fx, gconstpointer data)
{
	FakeMaster master = {0};

	fake_master_start(&master, fx);
	fake_master_set(&master, "Query",
			"{\"success\": false, \"result\": [\"OpPrereqError\", "
			"[\"Name 'a' is not unique\", \"resource_not_unique\"]]}");
	check_fails(fx,
		    "Failure: prerequisites not met for this operation:\n"
		    "error type: resource_not_unique, error details:\nName 'a' is not unique\n",
		    TOOL_JOB, "list");
	/* one argument: no "error type" */
	fake_master_set(&master, "QueryClusterInfo",
			"{\"success\": false, \"result\": [\"OpPrereqError\", [\"Only this\"]]}");
	check_fails(fx, "Failure: prerequisites not met for this operation:\nOnly this\n",
		    TOOL_CLUSTER, "info");
	fake_master_set(&master, "QueryFields",
			"{\"success\": false, \"result\": [\"ResolverError\", "
			"[\"nohost.invalid\", -2, \"Name or service not known\"]]}");
	check_fails(fx, "Failure: can't resolve hostname 'nohost.invalid'\n", TOOL_JOB,
		    "list-fields");
	/* not a Ganeti class: rpc/client.py raises RequestError(answer) */
	fake_master_set(&master, "QueryFields",
			"{\"success\": false, \"result\": [\"NoSuchError\", [\"x\", 1]]}");
	check_fails(fx,
		    "Unhandled protocol error while talking to the master daemon:\n"
		    "['NoSuchError', ['x', 1]]\n",
		    TOOL_JOB, "list-fields");
	fake_master_set(&master, "QueryFields",
			"{\"success\": false, \"result\": \"Failed to parse request: bad\"}");
	check_fails(fx,
		    "Unhandled protocol error while talking to the master daemon:\n"
		    "Failed to parse request: bad\n",
		    TOOL_JOB, "list-fields");
	fake_master_stop(&master);
}

/* A QueryJobs failure nobody reports (choosing the next job to wait for)
 * leaves no exception behind for the next failure. */
static void
test_debug_unreported_failure(ToolsFx *fx, gconstpointer data)
{
	FakeMaster master = {0};
	g_autoptr(RunResult) r = NULL;
	g_autofree gchar *ops = root_path(fx, "ops.json");

	g_assert_true(g_file_set_contents(ops, "[{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": 0}]",
					  -1, NULL));
	fake_master_start(&master, fx);
	fake_master_set(&master, "SubmitManyJobs", "{\"success\": true, \"result\": [[true, 1]]}");
	fake_master_set(&master, "QueryJobs",
			"{\"success\": false, \"result\": [\"JobLost\", [\"gone\"]]}");
	fake_master_set(&master, "WaitForJobChange", "{\"success\": true, \"result\": 42}");
	r = run(fx, TOOL_DEBUG, "submit-job", ops);
	gnt_test_assert_contains(r->err, " has failed: ");
	gnt_test_assert_contains(r->err, "WaitForJobChange answered a ");
	gnt_test_assert_lacks(r->err, "archived");
	fake_master_stop(&master);
}

/* ---- gnt-job ---- */

static void
test_job_list(ToolsFx *fx, gconstpointer data)
{
	g_autoptr(RunResult) r = NULL;
	g_auto(GStrv) lines = NULL;

	check(fx, 0, NULL, TOOL_DEBUG, "delay", "0");
	check(fx, 0, NULL, TOOL_DEBUG, "delay", "0");
	check(fx, 1, NULL, TOOL_DEBUG, "test-dummy", "--fail");

	r = run_expect(fx, 0, TOOL_JOB, "list");
	lines = g_strsplit(r->out, "\n", -1);
	g_assert_cmpuint(g_strv_length(lines), ==, 5);
	g_assert_cmpstr(lines[0], ==, "ID Status  Summary");
	g_assert_true(g_str_has_prefix(lines[1], " 1 success TEST_DELAY("));
	g_assert_cmpstr(lines[3], ==, " 3 error   TEST_DUMMY");
	g_clear_pointer(&r, run_result_free);

	check(fx, 0, "1:success\n2:success\n3:error\n", TOOL_JOB, "list", "-o", "id,status",
	      "--no-headers", "--separator=:");
	check(fx, 0, "2\n", TOOL_JOB, "list", "-o", "id", "--no-headers", "2");
	check(fx, 0, "3\n", TOOL_JOB, "list", "--error", "-o", "id", "--no-headers");
	check(fx, 0, "1\n3\n", TOOL_JOB, "list", "--finished", "-o", "id", "--no-headers", "1",
	      "3");
	r = run_expect(fx, 0, TOOL_JOB, "list", "-o", "+priority", "1");
	g_assert_true(g_str_has_prefix(r->out, "ID Status  Summary"));
	gnt_test_assert_contains(r->out, "Priority\n");
	g_clear_pointer(&r, run_result_free);

	r = run_expect(fx, 14, TOOL_JOB, "list", "-o", "id,bogus");
	gnt_test_assert_contains(r->err, "Warning: Queried for unknown fields bogus\n");
	g_clear_pointer(&r, run_result_free);
	r = run_expect(fx, 1, TOOL_JOB, "list", "x");
	gnt_test_assert_contains(r->err, "Invalid job ID passed: 'x'");
	g_clear_pointer(&r, run_result_free);

	r = run_expect(fx, 0, TOOL_JOB, "list-fields");
	g_assert_true(g_str_has_prefix(r->out, "Name"));
	gnt_test_assert_contains(r->out, "Description\n");
	g_clear_pointer(&r, run_result_free);
	r = run_expect(fx, 0, TOOL_JOB, "list-fields", "--no-headers", "--separator", "|", "id");
	g_assert_true(g_str_has_prefix(r->out, "id|Number|ID|"));
	g_clear_pointer(&r, run_result_free);
	/* GenericListFields warns before the table */
	r = run_merged(fx, TOOL_JOB, "list-fields", "--no-headers", "--separator", "|", "bogus",
		       "id");
	g_assert_cmpint(r->status, ==, 14);
	g_assert_true(g_str_has_prefix(r->out, "Warning: Queried for unknown fields bogus\n"
					       "bogus|Unknown|"));
}

static void
test_job_info(ToolsFx *fx, gconstpointer data)
{
	g_autoptr(RunResult) r = NULL;

	r = run_expect(fx, 0, TOOL_DEBUG, "test-dummy", "-m", "hi", "--private-value",
		       "p-value-123", "--secret-value", "s-value-456");
	gnt_test_assert_contains(r->out, "private value received and verified\n");
	gnt_test_assert_contains(r->out, "secret value received and verified\n");
	g_clear_pointer(&r, run_result_free);

	r = run_expect(fx, 0, TOOL_JOB, "info", "1", "99");
	g_assert_true(
		g_str_has_prefix(r->out, "- Job ID: 1\n  Status: success\n  Received:         "));
	gnt_test_assert_contains(r->out, "  Processing start: ");
	gnt_test_assert_contains(r->out, "  Total processing time: ");
	gnt_test_assert_contains(
		r->out, "  Opcodes: \n    - Opcode: OP_TEST_DUMMY\n      Status: success\n");
	gnt_test_assert_contains(r->out, "      Input fields: \n        OP_ID: OP_TEST_DUMMY\n");
	gnt_test_assert_contains(r->out, "        private_value: <redacted>\n");
	gnt_test_assert_contains(r->out, "        secret_value: <redacted>\n");
	gnt_test_assert_contains(r->out, "      Execution log: \n        - Time: ");
	gnt_test_assert_contains(r->out, "          Content: [1, message, hi]\n");
	gnt_test_assert_contains(r->out, "- Job ID 99 not found\n");
	gnt_test_assert_lacks(r->out, "p-value-123");
	gnt_test_assert_lacks(r->out, "s-value-456");
	g_clear_pointer(&r, run_result_free);

	r = run_expect(fx, 0, TOOL_JOB, "list", "-o", "ops", "--no-headers");
	gnt_test_assert_contains(r->out, "'private_value': '<redacted>'");
	gnt_test_assert_lacks(r->out, "p-value-123");
	gnt_test_assert_lacks(r->out, "s-value-456");
}

static void
test_job_cancel(ToolsFx *fx, gconstpointer data)
{
	g_autoptr(RunResult) r = NULL;
	g_autofree gchar *b_text = NULL;
	guint64 a = submit_delay(fx, "30", TRUE); /* holds the cluster lock */
	guint64 b;
	guint64 c;

	wait_for_status(fx, a, "running");
	b = submit_delay(fx, "30", TRUE);
	wait_for_status(fx, b, "waiting");
	b_text = g_strdup_printf("%" G_GUINT64_FORMAT, b);

	r = run_expect(fx, 0, TOOL_JOB, "cancel", b_text);
	g_assert_cmpstr(r->out, !=, "");
	g_clear_pointer(&r, run_result_free);
	wait_for_status(fx, b, "canceled");
	check(fx, 1, NULL, TOOL_JOB, "cancel", "1");
	r = run_expect(fx, 1, TOOL_JOB, "cancel");
	gnt_test_assert_contains(r->err,
				 "Either a status filter or job ID(s) must be specified and never "
				 "both");
	g_clear_pointer(&r, run_result_free);
	r = run_expect(fx, 1, TOOL_JOB, "cancel", "--pending");
	gnt_test_assert_contains(r->err, "No jobs with the requested status have been found");
	g_clear_pointer(&r, run_result_free);

	/* by status: without --force and without a terminal the answer is no */
	c = submit_delay(fx, "30", TRUE);
	wait_for_status(fx, c, "waiting");
	r = run_expect(fx, 13, TOOL_JOB, "cancel", "--pending");
	gnt_test_assert_contains(r->out, "ID Status  Summary\n");
	g_clear_pointer(&r, run_result_free);
	wait_for_status(fx, c, "waiting");
	check(fx, 0, NULL, TOOL_JOB, "cancel", "--pending", "--force");
	wait_for_status(fx, c, "canceled");

	r = run_expect(fx, 1, TOOL_JOB, "wait", b_text);
	gnt_test_assert_contains(r->err, "failed: Unhandled Ganeti error: Job was canceled");
	g_clear_pointer(&r, run_result_free);
	r = run_expect(fx, 1, TOOL_JOB, "cancel", "--kill", "1");
	gnt_test_assert_contains(r->err, "The --kill option must be confirmed with --yes-do-it");
}

static void
test_job_max_running(ToolsFx *fx, gconstpointer data)
{
	guint64 a;
	guint64 b;
	g_autofree gchar *canceled = NULL;
	g_autofree gchar *b_status = NULL;
	g_autofree gchar *a_status = NULL;

	check(fx, 0, NULL, TOOL_DAEMONS, "restart", "--", "--max-running-jobs", "1");
	a = submit_delay(fx, "30", FALSE);
	wait_for_status(fx, a, "running");
	/* The queue decides whether a job may start before it answers the
	 * submission (its place is taken once durable, then the reply goes
	 * out), so when this returns a free slot would already have given B
	 * to a worker. Canceling tells the two apart: a job no worker holds is
	 * "canceled" at once, one a worker took would be "will be canceled"
	 * or "is no longer waiting in the queue". No lock, no dependency: only
	 * the limit can hold B back. */
	b = submit_delay(fx, "0", FALSE);
	b_status = job_status(fx, b);
	g_assert_cmpstr(b_status, ==, "queued");
	canceled = g_strdup_printf("Job %" G_GUINT64_FORMAT " canceled\n", b);
	check(fx, 0, canceled, TOOL_JOB, "cancel", "--queued", "--force");
	wait_for_status(fx, b, "canceled");
	a_status = job_status(fx, a);
	g_assert_cmpstr(a_status, ==, "running");
}

static void
test_job_archive(ToolsFx *fx, gconstpointer data)
{
	g_autoptr(RunResult) r = NULL;

	check(fx, 0, NULL, TOOL_DEBUG, "delay", "0");
	check(fx, 0, NULL, TOOL_DEBUG, "delay", "0");

	check(fx, 0, NULL, TOOL_JOB, "archive", "1");
	check(fx, 0, "2\n", TOOL_JOB, "list", "-o", "id", "--no-headers");
	r = run_expect(fx, 0, TOOL_JOB, "list", "--archived", "-o", "id", "--no-headers",
		       "--separator", ":");
	gnt_test_assert_contains(r->out, "1:Y\n");
	gnt_test_assert_contains(r->out, "2:N\n");
	g_clear_pointer(&r, run_result_free);
	r = run_expect(fx, 1, TOOL_JOB, "archive", "99");
	g_assert_cmpstr(r->err, ==, "Failed to archive job with ID '99'\n");
	g_clear_pointer(&r, run_result_free);

	check(fx, 0, "Archived 0 jobs, 0 unchecked left\n", TOOL_JOB, "autoarchive", "1w");
	check(fx, 0, "Archived 1 jobs, 0 unchecked left\n", TOOL_JOB, "autoarchive", "all");
	check(fx, 0, "", TOOL_JOB, "list", "--no-headers");
	r = run_expect(fx, 1, TOOL_JOB, "autoarchive", "5x");
	gnt_test_assert_contains(r->err, "Invalid time specification '5x'");
	g_clear_pointer(&r, run_result_free);
	/* like Ganeti, info looks at live jobs only */
	r = run_expect(fx, 0, TOOL_JOB, "info", "1");
	g_assert_cmpstr(r->out, ==, "- Job ID 1 not found\n");
}

/* ---- usage and options ---- */

static void
test_usage(ToolsFx *fx, gconstpointer data)
{
	g_autoptr(RunResult) r = NULL;

	check(fx, 1, NULL, TOOL_JOB, "");
	r = run_argv(fx, TOOL_JOB, (const gchar *const[]){NULL});
	g_assert_cmpint(r->status, ==, 1);
	g_assert_true(g_str_has_prefix(r->out, "Usage: gnt-job {command} [options...] "
					       "[argument...]\n"));
	gnt_test_assert_contains(r->out, "\nCommands:\n archive ");
	g_clear_pointer(&r, run_result_free);
	check(fx, 0, NULL, TOOL_JOB, "--help");
	check(fx, 1, NULL, TOOL_JOB, "frobnicate");
	check(fx, 0, "gnt-job (gantry) " GNT_VERSION "\n", TOOL_JOB, "--version");

	r = run_expect(fx, 2, TOOL_JOB, "list", "--bogus");
	gnt_test_assert_contains(r->err, "--bogus");
	g_clear_pointer(&r, run_result_free);
	r = run_expect(fx, 1, TOOL_JOB, "wait");
	g_assert_cmpstr(r->err, ==, "Error: Command wait expects 1 argument(s)\n");
	g_clear_pointer(&r, run_result_free);
	r = run_expect(fx, 1, TOOL_JOB, "info");
	g_assert_cmpstr(r->err, ==, "Error: Command info expects at least 1 argument(s)\n");
	g_clear_pointer(&r, run_result_free);
	r = run_expect(fx, 1, TOOL_CLUSTER, "info", "extra");
	g_assert_cmpstr(r->err, ==, "Error: Command info expects no arguments\n");
	g_clear_pointer(&r, run_result_free);
	r = run_expect(fx, 2, TOOL_DEBUG, "delay", "--priority", "urgent", "1");
	gnt_test_assert_contains(r->err, "invalid choice: 'urgent'");
	g_clear_pointer(&r, run_result_free);

	/* every command documents itself */
	r = run_expect(fx, 0, TOOL_JOB, "list", "--help");
	gnt_test_assert_contains(r->out, "--no-headers");
	gnt_test_assert_contains(r->out, "--separator");
	gnt_test_assert_contains(r->out, "--output");
	g_clear_pointer(&r, run_result_free);
	r = run_expect(fx, 0, TOOL_DEBUG, "delay", "--help");
	gnt_test_assert_contains(r->out, "--submit");
	gnt_test_assert_contains(r->out, "--print-jobid");
	gnt_test_assert_contains(r->out, "--priority");
	g_clear_pointer(&r, run_result_free);
	r = run_expect(fx, 0, TOOL_DAEMONS, "status", "--help");
	gnt_test_assert_contains(r->out, "3 (LSB) when one is stopped");
}

/* Two clusters on one machine, each under its own root, never see each
 * other's jobs. */
static void
test_side_by_side(ToolsFx *fx, gconstpointer data)
{
	ToolsFx other = {0};
	g_autoptr(RunResult) mine = NULL;
	g_autoptr(RunResult) theirs = NULL;
	g_autoptr(RunResult) info = NULL;

	fx_set_up_empty(&other, NULL);
	check(&other, 0, NULL, TOOL_CLUSTER, "init", "--noded-port", "0", "other.example.com");
	check(fx, 0, NULL, TOOL_DEBUG, "delay", "0");
	check(fx, 0, NULL, TOOL_DEBUG, "delay", "0");
	check(&other, 0, NULL, TOOL_DEBUG, "delay", "0.1");
	mine = run_expect(fx, 0, TOOL_JOB, "list", "--no-headers", "-o", "id,summary");
	theirs = run_expect(&other, 0, TOOL_JOB, "list", "--no-headers", "-o", "id,summary");
	g_assert_cmpstr(mine->out, ==, "1 TEST_DELAY(0.0)\n2 TEST_DELAY(0.0)\n");
	g_assert_cmpstr(theirs->out, ==, "1 TEST_DELAY(0.1)\n");
	info = run_expect(&other, 0, TOOL_CLUSTER, "info");
	gnt_test_assert_contains(info->out, "Cluster name: other.example.com");
	fx_tear_down(&other, NULL);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/tools/cluster/lifecycle", ToolsFx, NULL, fx_set_up_empty,
		   test_cluster_lifecycle, fx_tear_down);
	g_test_add("/tools/daemons/restart", ToolsFx, NULL, fx_set_up, test_daemons_restart,
		   fx_tear_down);
	g_test_add("/tools/daemons/foreground-notify", ToolsFx, NULL, fx_set_up,
		   test_daemons_foreground_notify, fx_tear_down);
	g_test_add("/tools/daemons/no-cluster", ToolsFx, NULL, fx_set_up_empty,
		   test_daemons_no_cluster, fx_tear_down);
	g_test_add("/tools/debug/delay", ToolsFx, NULL, fx_set_up, test_debug_delay, fx_tear_down);
	g_test_add("/tools/debug/submit-job", ToolsFx, NULL, fx_set_up, test_debug_submit_job,
		   fx_tear_down);
	g_test_add("/tools/job/list", ToolsFx, NULL, fx_set_up, test_job_list, fx_tear_down);
	g_test_add("/tools/job/info", ToolsFx, NULL, fx_set_up, test_job_info, fx_tear_down);
	g_test_add("/tools/job/cancel", ToolsFx, NULL, fx_set_up, test_job_cancel, fx_tear_down);
	g_test_add("/tools/job/max-running", ToolsFx, NULL, fx_set_up, test_job_max_running,
		   fx_tear_down);
	g_test_add("/tools/job/archive", ToolsFx, NULL, fx_set_up, test_job_archive, fx_tear_down);
	g_test_add("/tools/cluster/side-by-side", ToolsFx, NULL, fx_set_up, test_side_by_side,
		   fx_tear_down);
	g_test_add("/tools/usage", ToolsFx, NULL, fx_set_up_empty, test_usage, fx_tear_down);
	g_test_add("/tools/errors/as-sent", ToolsFx, NULL, fx_set_up_empty, test_errors_as_sent,
		   fx_tear_down);
	g_test_add("/tools/debug/unreported-failure", ToolsFx, NULL, fx_set_up_empty,
		   test_debug_unreported_failure, fx_tear_down);
	return g_test_run();
}
