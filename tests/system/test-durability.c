/*
 * What survives kill -9 of gantry-masterd: every acknowledged job, with a
 * truthful end; what a full disk under queue.db does: refuses new jobs
 * with the reason, loses nothing acknowledged, resumes by itself; and what
 * never reaches the disk: secret values.
 */
#define _GNU_SOURCE /* unshare() */
#include "gnt-test-util.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "gnt-error.h"

#include "gnt-json.h"
#include "gnt-luxi-client.h"

typedef struct {
	GntTestRoot root;
	GSubprocess *masterd;
	GntLuxiClient *client;
	guint starts;
	gchar *small; /* a small filesystem holding queue.db, or NULL */
} SysFx;

/* A failed assertion must not leave the daemon running (and the test
 * runner waiting for it): it dies with the test. */
static void
die_with_parent(gpointer user_data)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
}

static void
masterd_start(SysFx *fx)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GSubprocessLauncher)
		launcher = g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_NONE);
	g_autofree gchar *log = g_strdup_printf(
		"%s/masterd-%u.stderr", gnt_paths_get_log_dir(fx->root.paths), fx->starts++);

	/* debug logging on: secrets must not leak even there */
	g_subprocess_launcher_set_stderr_file_path(launcher, log);
	g_subprocess_launcher_set_child_setup(launcher, die_with_parent, NULL, NULL);
	fx->masterd = g_subprocess_launcher_spawn(launcher, &error, g_getenv("GNT_TEST_MASTERD"),
						  "--foreground", "--debug", "--root", fx->root.dir,
						  NULL);
	g_assert_no_error(error);
	for (guint i = 0; i < 1000 && fx->client == NULL; i++) {
		g_clear_error(&error);
		fx->client = gnt_luxi_client_new(gnt_paths_get_luxi_socket(fx->root.paths), &error);
		if (fx->client == NULL)
			g_usleep(5000); /* waiting for the daemon to listen */
	}
	g_assert_no_error(error);
}

static void
masterd_kill9(SysFx *fx)
{
	g_subprocess_send_signal(fx->masterd, SIGKILL);
	g_subprocess_wait(fx->masterd, NULL, NULL);
	g_clear_object(&fx->masterd);
	g_clear_object(&fx->client);
}

static void
sys_set_up(SysFx *fx, gconstpointer data)
{
	gnt_test_root_init(&fx->root, NULL);
	g_clear_object(&fx->root.config); /* masterd owns it */
	masterd_start(fx);
}

/* A tmpfs of @size_kib at @dir, in a mount namespace of this thread (the
 * daemons it starts inherit it; it goes with the process). FALSE with
 * @error where this process may not mount. */
static gboolean
mount_small_fs(const gchar *dir, guint size_kib, GError **error)
{
	g_autofree gchar *options = g_strdup_printf("size=%uk,mode=0700", size_kib);

	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    g_mkdir_with_parents(dir, 0700) != 0 ||
	    mount("gnt-test", dir, "tmpfs", 0, options) != 0) {
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(errno),
			    "cannot mount a small tmpfs at '%s': %s", dir, g_strerror(errno));
		return FALSE;
	}
	return TRUE;
}

/* queue.db on a 2 MiB filesystem of its own (config.db stays where it is):
 * a symbolic link, which SQLite follows for the WAL and its index too. */
static void
sys_set_up_small_queue(SysFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *target = NULL;

	gnt_test_root_init(&fx->root, NULL);
	g_clear_object(&fx->root.config); /* masterd owns it */
	fx->small = g_build_filename(fx->root.dir, "small", NULL);
	if (!mount_small_fs(fx->small, 2048, &error)) {
		g_clear_pointer(&fx->small, g_free);
		g_test_skip(error->message); /* not root: CI runs it as root */
		return;
	}
	target = g_build_filename(fx->small, "queue.db", NULL);
	g_assert_cmpint(symlink(target, gnt_paths_get_queue_db(fx->root.paths)), ==, 0);
	masterd_start(fx);
}

static void
sys_tear_down(SysFx *fx, gconstpointer data)
{
	g_clear_object(&fx->client);
	if (fx->masterd != NULL) {
		g_subprocess_send_signal(fx->masterd, SIGTERM);
		g_assert_true(g_subprocess_wait_check(fx->masterd, NULL, NULL));
		g_clear_object(&fx->masterd);
	}
	if (fx->small != NULL)
		g_assert_cmpint(umount2(fx->small, MNT_DETACH), ==, 0);
	g_clear_pointer(&fx->small, g_free);
	gnt_test_root_clear(&fx->root);
}

static JsonNode *
call(SysFx *fx, const gchar *method, const gchar *args_json, GError **error)
{
	g_autoptr(JsonNode) args = gnt_json_parse(args_json, -1, NULL);

	g_assert_nonnull(args);
	return gnt_luxi_client_call(fx->client, method, args, error);
}

static gboolean
is_final(const gchar *status)
{
	return g_strcmp0(status, "success") == 0 || g_strcmp0(status, "error") == 0 ||
	       g_strcmp0(status, "canceled") == 0;
}

/* Rows of [id, status, opresult] for @ids, once all are final. */
static JsonArray *
wait_jobs_final(SysFx *fx, GArray *ids)
{
	gint64 deadline = g_get_monotonic_time() + 60 * G_USEC_PER_SEC;
	GString *args = g_string_new("[[");

	for (guint i = 0; i < ids->len; i++)
		g_string_append_printf(args, "%s%" G_GUINT64_FORMAT, i ? "," : "",
				       g_array_index(ids, guint64, i));
	g_string_append(args, "], [\"id\", \"status\", \"opresult\"]]");
	for (;;) {
		g_autoptr(GError) error = NULL;
		JsonNode *rows = call(fx, "QueryJobs", args->str, &error);
		JsonArray *arr;
		gboolean all_final = TRUE;

		g_assert_no_error(error);
		arr = json_node_get_array(rows);
		for (guint i = 0; i < json_array_get_length(arr); i++) {
			JsonArray *row = json_array_get_array_element(arr, i);
			JsonNode *st = json_array_get_element(row, 1);
			/* an acknowledged job is never lost */
			g_assert_false(JSON_NODE_HOLDS_NULL(st));
			all_final &= is_final(json_node_get_string(st));
		}
		if (all_final) {
			JsonArray *out = json_array_ref(arr);
			json_node_unref(rows);
			g_string_free(args, TRUE);
			return out;
		}
		json_node_unref(rows);
		g_assert_cmpint(g_get_monotonic_time(), <, deadline);
		g_usleep(20000); /* polling a few jobs in a test */
	}
}

typedef struct {
	GSubprocess *victim;
	guint delay_ms;
} Killer;

static gpointer
killer_thread(gpointer data)
{
	Killer *k = data;

	g_usleep(k->delay_ms * 1000);
	g_subprocess_send_signal(k->victim, SIGKILL);
	return NULL;
}

static void
test_kill9_keeps_acknowledged_jobs(SysFx *fx, gconstpointer data)
{
	g_autoptr(GArray) acked = g_array_new(FALSE, FALSE, sizeof(guint64));
	g_autoptr(GRand) rand = g_rand_new_with_seed(4711);
	guint64 max_acked = 0;

	for (guint round = 0; round < 6; round++) {
		Killer k = {fx->masterd, g_rand_int_range(rand, 5, 120)};
		GThread *killer = g_thread_new("killer", killer_thread, &k);

		/* submit as fast as possible until the master dies under us */
		for (guint n = 0;; n++) {
			g_autoptr(GError) error = NULL;
			g_autoptr(JsonNode) res = NULL;
			if (n % 3 == 0) {
				res = call(fx, "SubmitManyJobs",
					   "[[[{\"OP_ID\":\"OP_TEST_DELAY\",\"duration\":0}],"
					   "[{\"OP_ID\":\"OP_TEST_DELAY\",\"duration\":0.02}]]]",
					   &error);
			} else {
				res = call(fx, "SubmitJob",
					   "[[{\"OP_ID\":\"OP_TEST_DELAY\",\"duration\":0.01}]]",
					   &error);
			}
			if (res == NULL)
				break; /* not acknowledged: either outcome is allowed */
			if (JSON_NODE_HOLDS_ARRAY(res)) {
				JsonArray *arr = json_node_get_array(res);
				for (guint i = 0; i < json_array_get_length(arr); i++) {
					guint64 id = (guint64)json_array_get_int_element(
						json_array_get_array_element(arr, i), 1);
					g_array_append_val(acked, id);
					max_acked = MAX(max_acked, id);
				}
			} else {
				guint64 id = (guint64)json_node_get_int(res);
				g_array_append_val(acked, id);
				max_acked = MAX(max_acked, id);
			}
		}
		g_thread_join(killer);
		masterd_kill9(fx);
		masterd_start(fx);
	}
	g_test_message("%u jobs acknowledged across 6 kills", acked->len);
	g_assert_cmpuint(acked->len, >, 0);
	{
		g_autoptr(JsonArray) rows = wait_jobs_final(fx, acked);
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonNode) next = NULL;
		guint n_success = 0, n_stopped = 0;

		for (guint i = 0; i < json_array_get_length(rows); i++) {
			JsonArray *row = json_array_get_array_element(rows, i);
			const gchar *status = json_array_get_string_element(row, 1);
			if (g_strcmp0(status, "success") == 0) {
				n_success++;
				continue;
			}
			/* the only other truthful end: it was running at the kill */
			g_assert_cmpstr(status, ==, "error");
			{
				JsonArray *exc = json_array_get_array_element(
					json_array_get_array_element(row, 2), 0);
				g_assert_cmpstr(json_array_get_string_element(exc, 0), ==,
						"OpExecError");
				g_assert_cmpstr(
					json_array_get_string_element(
						json_array_get_array_element(exc, 1), 0),
					==, "the master daemon stopped while the job was running");
			}
			n_stopped++;
		}
		g_test_message("%u succeeded, %u were running at a kill", n_success, n_stopped);
		/* job IDs are never reused */
		next = call(fx, "SubmitJob", "[[{\"OP_ID\":\"OP_TEST_DELAY\",\"duration\":0}]]",
			    &error);
		g_assert_no_error(error);
		g_assert_cmpint(json_node_get_int(next), >, (gint64)max_acked);
	}
}

/* The job store keeps a private value to run its job after a restart. */
static gboolean
is_job_store(const gchar *name)
{
	return g_str_has_prefix(name, "queue.db");
}

/* Every regular file under @dir; checks @secret is in none and @private_value
 * only in the job store. */
static guint
scan_tree(const gchar *dir, const gchar *secret, const gchar *private_value)
{
	const gchar *nowhere[] = {secret, NULL};
	const gchar *restricted[] = {private_value, NULL};

	return gnt_test_scan_tree(dir, nowhere, restricted, is_job_store);
}

static void
test_secrets_never_reach_disk(SysFx *fx, gconstpointer data)
{
	const gchar *secret = "Zs3cr3t-8b1f0c";
	const gchar *private_value = "Zpr1v4te-77aa1e";
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) blocker =
		call(fx, "SubmitJob", "[[{\"OP_ID\":\"OP_TEST_DELAY\",\"duration\":60}]]", &error);
	g_autofree gchar *held_args = g_strdup_printf(
		"[[{\"OP_ID\":\"OP_TEST_DUMMY\",\"secret_value\":\"%s\",\"private_value\":\"%s\","
		"\"depends\":[[%" G_GINT64_FORMAT ",[]]]}]]",
		secret, private_value, json_node_get_int(blocker));
	g_autofree gchar *done_args = g_strdup_printf(
		"[[{\"OP_ID\":\"OP_TEST_DUMMY\",\"secret_value\":\"%s\",\"private_value\":\"%s\"}]]",
		secret, private_value);
	g_autoptr(JsonNode) held = call(fx, "SubmitJob", held_args, &error);
	g_autoptr(JsonNode) done = call(fx, "SubmitJob", done_args, &error);
	g_autoptr(GArray) ids = g_array_new(FALSE, FALSE, sizeof(guint64));
	g_autoptr(JsonArray) rows = NULL;
	g_autofree gchar *query = NULL;
	g_autoptr(JsonNode) shown = NULL;
	g_autofree gchar *shown_text = NULL;
	JsonArray *exc;
	guint64 id;

	g_assert_no_error(error);
	id = (guint64)json_node_get_int(done);
	g_array_append_val(ids, id);
	g_autoptr(JsonArray) first = wait_jobs_final(fx, ids);
	g_assert_cmpstr(json_array_get_string_element(json_array_get_array_element(first, 0), 1),
			==, "success");

	/* what LUXI shows: redacted */
	query = g_strdup_printf(
		"[\"job\", [\"ops\", \"oplog\"], [\"|\", [\"==\", \"id\", %" G_GINT64_FORMAT
		"], [\"==\", \"id\", %" G_GINT64_FORMAT "]]]",
		json_node_get_int(held), json_node_get_int(done));
	shown = call(fx, "Query", query, &error);
	g_assert_no_error(error);
	shown_text = gnt_json_to_string(shown);
	g_assert_null(strstr(shown_text, secret));
	g_assert_null(strstr(shown_text, private_value));
	g_assert_nonnull(strstr(shown_text, "\"secret_value\":\"<redacted>\""));
	g_assert_nonnull(strstr(shown_text, "\"private_value\":\"<redacted>\""));

	/* the held job had not finished: after kill -9 it must be resubmitted */
	masterd_kill9(fx);
	masterd_start(fx);
	g_array_set_size(ids, 0);
	id = (guint64)json_node_get_int(held);
	g_array_append_val(ids, id);
	rows = wait_jobs_final(fx, ids);
	g_assert_cmpstr(json_array_get_string_element(json_array_get_array_element(rows, 0), 1), ==,
			"error");
	exc = json_array_get_array_element(
		json_array_get_array_element(json_array_get_array_element(rows, 0), 2), 0);
	g_assert_cmpstr(json_array_get_string_element(exc, 0), ==, "OpPrereqError");
	g_assert_cmpstr(json_array_get_string_element(json_array_get_array_element(exc, 1), 0), ==,
			"secret parameters were lost at master restart; resubmit the job");

	/* every byte under the root, the daemon's debug logs included */
	masterd_kill9(fx);
	g_assert_cmpuint(scan_tree(fx->root.dir, secret, private_value), >=, 4);
	masterd_start(fx);
}

/* Writes @path until its filesystem is full. */
static void
fill_fs(const gchar *path)
{
	static const gchar block[4096];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	gsize chunk = sizeof(block);
	guint64 total = 0;

	g_assert_cmpint(fd, >=, 0);
	while (chunk > 0) {
		gssize n = write(fd, block, chunk);
		if (n > 0) {
			total += (guint64)n;
			continue;
		}
		g_assert_cmpint(errno, ==, ENOSPC);
		chunk /= 2;
	}
	g_assert_cmpint(fsync(fd), ==, 0);
	g_assert_cmpint(close(fd), ==, 0);
	g_test_message("filled the queue's filesystem with %" G_GUINT64_FORMAT " bytes", total);
}

typedef struct {
	const gchar *socket;
	guint64 job_id;
	gchar *final_status; /* what WaitForJobChange showed last */
} Waiter;

/* A client waiting for a job's end as Ganeti's CLI does (its own
 * connection). */
static gpointer
waiter_thread(gpointer data)
{
	Waiter *w = data;
	g_autoptr(GError) error = NULL;
	g_autoptr(GntLuxiClient) client = gnt_luxi_client_new(w->socket, &error);
	g_autoptr(JsonArray) fields = json_array_new();
	g_autoptr(JsonNode) prev = NULL;
	gint64 deadline = g_get_monotonic_time() + 120 * G_USEC_PER_SEC;

	g_assert_no_error(error);
	json_array_add_string_element(fields, "status");
	while (w->final_status == NULL && g_get_monotonic_time() < deadline) {
		g_autoptr(JsonNode) answer = gnt_luxi_client_wait_for_job_change(
			client, w->job_id, fields, prev, -1, 5, &error);
		const gchar *status;

		g_assert_no_error(error);
		if (JSON_NODE_HOLDS_VALUE(answer))
			continue; /* "nochange" */
		status = json_array_get_string_element(
			json_array_get_array_element(json_node_get_array(answer), 0), 0);
		if (is_final(status))
			w->final_status = g_strdup(status);
		g_clear_pointer(&prev, json_node_unref);
		prev = json_node_copy(json_array_get_element(json_node_get_array(answer), 0));
	}
	return NULL;
}

static gchar *
job_status(SysFx *fx, guint64 id)
{
	g_autofree gchar *args = g_strdup_printf("[[%" G_GUINT64_FORMAT "], [\"status\"]]", id);
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) rows = call(fx, "QueryJobs", args, &error);

	g_assert_no_error(error);
	return g_strdup(json_array_get_string_element(
		json_array_get_array_element(json_node_get_array(rows), 0), 0));
}

/* The IDs, statuses and end times of @ids, once all are final. */
static gchar *
jobs_ends(SysFx *fx, GArray *ids)
{
	g_autoptr(JsonNode) node = NULL;
	GString *args = g_string_new("[[");

	for (guint i = 0; i < ids->len; i++)
		g_string_append_printf(args, "%s%" G_GUINT64_FORMAT, i ? "," : "",
				       g_array_index(ids, guint64, i));
	g_string_append(args, "], [\"id\", \"status\", \"end_ts\", \"oplog\"]]");
	wait_jobs_final(fx, ids);
	{
		g_autoptr(GError) error = NULL;
		node = call(fx, "QueryJobs", args->str, &error);
		g_assert_no_error(error);
	}
	g_string_free(args, TRUE);
	return gnt_json_to_string(node);
}

/* A tag job: the tag is its proof of having run. */
static gchar *
tag_job_args(const gchar *tag)
{
	return g_strdup_printf("[[{\"OP_ID\":\"OP_TAGS_SET\",\"kind\":\"cluster\","
			       "\"tags\":[\"%s\"]}]]",
			       tag);
}

/*
 * queue.db's filesystem fills up while jobs are submitted and run: the
 * submission that meets the full disk and every one after it are refused
 * through LUXI with the reason; every acknowledged job is found and ends,
 * once; a job that ended while nothing could be written ends for its
 * waiting client once there is space again; after kill -9 and a restart
 * everything acknowledged is there and nothing runs again.
 */
static void
test_full_disk_keeps_acknowledged_jobs(SysFx *fx, gconstpointer data)
{
	g_autoptr(GArray) acked = g_array_new(FALSE, FALSE, sizeof(guint64));
	g_autoptr(GPtrArray) tags = g_ptr_array_new_with_free_func(g_free);
	g_autofree gchar *filler = NULL;
	g_autofree gchar *wal = NULL;
	g_autofree gchar *ends = NULL;
	g_autofree gchar *ends_after = NULL;
	g_autofree gchar *during = NULL;
	Waiter waiter = {gnt_paths_get_luxi_socket(fx->root.paths), 0, NULL};
	GThread *waiting;
	gint64 long_start;
	guint n_refused = 0;

	if (fx->small == NULL)
		return; /* skipped */
	wal = g_build_filename(fx->small, "queue.db-wal", NULL);
	g_assert_true(g_file_test(wal, G_FILE_TEST_EXISTS));

	/* a job that ends while the disk is full, its second opcode (which
	 * changes the cluster) starting then too; and a client waiting for it */
	{
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonNode) id = call(fx, "SubmitJob",
					      "[[{\"OP_ID\":\"OP_TEST_DELAY\",\"duration\":3},"
					      "{\"OP_ID\":\"OP_TAGS_SET\",\"kind\":\"cluster\","
					      "\"tags\":[\"late\"]}]]",
					      &error);
		g_assert_no_error(error);
		waiter.job_id = (guint64)json_node_get_int(id);
		g_array_append_val(acked, waiter.job_id);
		long_start = g_get_monotonic_time();
	}
	waiting = g_thread_new("waiter", waiter_thread, &waiter);
	for (gint64 deadline = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;;) {
		g_autofree gchar *status = job_status(fx, waiter.job_id);
		if (g_str_equal(status, "running"))
			break;
		g_assert_cmpint(g_get_monotonic_time(), <, deadline);
		g_usleep(20 * 1000);
	}

	/* jobs that change the cluster, running or queued when the disk fills */
	for (guint n = 0; n < 30; n++) {
		g_autofree gchar *tag = g_strdup_printf("pre%u", n);
		g_autofree gchar *args = tag_job_args(tag);
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonNode) id = call(fx, "SubmitJob", args, &error);
		guint64 job_id;

		g_assert_no_error(error);
		job_id = (guint64)json_node_get_int(id);
		g_array_append_val(acked, job_id);
		g_ptr_array_add(tags, g_steal_pointer(&tag));
	}
	filler = g_build_filename(fx->small, "filler", NULL);
	fill_fs(filler);
	/* submit until the full disk answers; each submission that is
	 * acknowledged must be whole */
	for (guint n = 0; n < 20000; n++) {
		g_autofree gchar *tag = g_strdup_printf("t%u", n);
		g_autofree gchar *args = tag_job_args(tag);
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonNode) id = call(fx, "SubmitJob", args, &error);
		JsonArray *exc_args;

		if (id != NULL) {
			guint64 job_id = (guint64)json_node_get_int(id);
			g_array_append_val(acked, job_id);
			g_ptr_array_add(tags, g_steal_pointer(&tag));
			continue;
		}
		g_assert_error(error, GNT_ERROR, GNT_ERROR_TEMP_NO_RESOURCES);
		g_assert_nonnull(strstr(error->message, "the job queue's disk is full"));
		g_assert_cmpstr(gnt_luxi_client_get_error_class(fx->client), ==, "OpPrereqError");
		exc_args = json_node_get_array(gnt_luxi_client_get_error_args(fx->client));
		g_assert_cmpstr(json_array_get_string_element(exc_args, 1), ==,
				"temp_insufficient_resources");
		if (++n_refused == 3)
			break;
	}
	g_test_message("%u jobs acknowledged before the disk was full", acked->len);
	g_assert_cmpuint(n_refused, ==, 3);

	/* the long job ended meanwhile, but nothing says so yet */
	while (g_get_monotonic_time() < long_start + 5 * G_USEC_PER_SEC)
		g_usleep(100 * 1000);
	during = job_status(fx, waiter.job_id);
	g_assert_cmpstr(during, ==, "running");
	g_assert_null(waiter.final_status);

	/* space again: the queue takes jobs again by itself */
	g_assert_cmpint(g_unlink(filler), ==, 0);
	for (gint64 deadline = g_get_monotonic_time() + 15 * G_USEC_PER_SEC;;) {
		g_autofree gchar *args = tag_job_args("after");
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonNode) id = call(fx, "SubmitJob", args, &error);

		if (id != NULL) {
			guint64 job_id = (guint64)json_node_get_int(id);
			g_array_append_val(acked, job_id);
			g_ptr_array_add(tags, g_strdup("after"));
			break;
		}
		g_assert_error(error, GNT_ERROR, GNT_ERROR_TEMP_NO_RESOURCES);
		g_assert_cmpint(g_get_monotonic_time(), <, deadline);
		g_usleep(100 * 1000);
	}
	g_thread_join(waiting);
	g_assert_cmpstr(waiter.final_status, ==, "success");
	g_free(waiter.final_status);
	g_ptr_array_add(tags, g_strdup("late"));

	/* everything acknowledged ended, and ran: its tag is there */
	ends = jobs_ends(fx, acked);
	g_assert_null(strstr(ends, "\"error\""));
	{
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonNode) shown = call(fx, "QueryTags", "[\"cluster\", null]", &error);
		JsonArray *list;

		g_assert_no_error(error);
		list = json_node_get_array(shown);
		for (guint i = 0; i < tags->len; i++) {
			gboolean found = FALSE;
			for (guint j = 0; j < json_array_get_length(list) && !found; j++)
				found = g_str_equal(json_array_get_string_element(list, j),
						    g_ptr_array_index(tags, i));
			g_assert_true(found);
		}
	}

	/* kill -9: all of it is durable, and nothing runs again */
	masterd_kill9(fx);
	masterd_start(fx);
	ends_after = jobs_ends(fx, acked);
	g_assert_cmpstr(ends_after, ==, ends);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/system/kill9-keeps-acknowledged-jobs", SysFx, NULL, sys_set_up,
		   test_kill9_keeps_acknowledged_jobs, sys_tear_down);
	g_test_add("/system/secrets-never-reach-disk", SysFx, NULL, sys_set_up,
		   test_secrets_never_reach_disk, sys_tear_down);
	g_test_add("/system/full-disk-keeps-acknowledged-jobs", SysFx, NULL, sys_set_up_small_queue,
		   test_full_disk_keeps_acknowledged_jobs, sys_tear_down);
	return g_test_run();
}
