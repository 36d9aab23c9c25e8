/*
 * What survives kill -9 of gantry-masterd: every acknowledged job, with a
 * truthful end; and what never reaches the disk: secret values.
 */
#include "gnt-test-util.h"

#include <signal.h>

#include "gnt-json.h"
#include "gnt-luxi-client.h"

typedef struct {
	GntTestRoot root;
	GSubprocess *masterd;
	GntLuxiClient *client;
	guint starts;
} SysFx;

static void
masterd_start(SysFx *fx)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_NONE);
	g_autofree gchar *log = g_strdup_printf("%s/masterd-%u.stderr", gnt_paths_get_log_dir(fx->root.paths),
						fx->starts++);

	/* debug logging on: secrets must not leak even there */
	g_subprocess_launcher_set_stderr_file_path(launcher, log);
	fx->masterd = g_subprocess_launcher_spawn(launcher, &error, g_getenv("GNT_TEST_MASTERD"),
						  "--foreground", "--debug", "--root", fx->root.dir, NULL);
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

static void
sys_tear_down(SysFx *fx, gconstpointer data)
{
	g_clear_object(&fx->client);
	if (fx->masterd != NULL) {
		g_subprocess_send_signal(fx->masterd, SIGTERM);
		g_assert_true(g_subprocess_wait_check(fx->masterd, NULL, NULL));
		g_clear_object(&fx->masterd);
	}
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
					   "[[{\"OP_ID\":\"OP_TEST_DELAY\",\"duration\":0.01}]]", &error);
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
				g_assert_cmpstr(json_array_get_string_element(exc, 0), ==, "OpExecError");
				g_assert_cmpstr(json_array_get_string_element(
							json_array_get_array_element(exc, 1), 0),
						==, "the master daemon stopped while the job was running");
			}
			n_stopped++;
		}
		g_test_message("%u succeeded, %u were running at a kill", n_success, n_stopped);
		/* job IDs are never reused */
		next = call(fx, "SubmitJob", "[[{\"OP_ID\":\"OP_TEST_DELAY\",\"duration\":0}]]", &error);
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
	g_autoptr(JsonNode) blocker = call(fx, "SubmitJob", "[[{\"OP_ID\":\"OP_TEST_DELAY\",\"duration\":60}]]", &error);
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
	g_assert_cmpstr(json_array_get_string_element(json_array_get_array_element(first, 0), 1), ==,
			"success");

	/* what LUXI shows: redacted */
	query = g_strdup_printf("[\"job\", [\"ops\", \"oplog\"], [\"|\", [\"==\", \"id\", %" G_GINT64_FORMAT
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

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/system/kill9-keeps-acknowledged-jobs", SysFx, NULL, sys_set_up,
		   test_kill9_keeps_acknowledged_jobs, sys_tear_down);
	g_test_add("/system/secrets-never-reach-disk", SysFx, NULL, sys_set_up,
		   test_secrets_never_reach_disk, sys_tear_down);
	return g_test_run();
}
