/* noded's installer_run and installer_run_status through the master's typed
 * call (rpc/gnt-node-calls-installer.h) over TLS, with the fake hypervisor
 * running tests/rpc/fake-installer.sh as the installer against a real
 * gantry-metad: success with start and end as they come, an error report,
 * a power-off without end, the two clocks, the grace period after end, and
 * after each nothing left: no session, record, channel or work files, and
 * the token in no file of the root. */
#include <glib/gstdio.h>
#include <string.h>

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-metad-client.h"
#include "gnt-metad-server.h"
#include "gnt-node-calls-installer.h"
#include "gnt-node-calls.h"
#include "gnt-noded-appliance.h"
#include "gnt-noded-installer.h"
#include "gnt-noded.h"
#include "rpc-test-server.h"

#define MAC   "52:54:00:ab:cd:01"
#define IP    "169.254.12.35"
#define TOKEN "Zq1tokentokentokentokentokentokentokentok1"

typedef struct {
	TestNode node1;
	GSubprocess *metad;
	gchar *control;
	gchar *work; /* the test's files, outside the root */
	gchar *liveimg;
	gchar *kernel;
} Fx;

static void
fx_set_up(Fx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *log = NULL;
	g_autofree gchar *installer =
		g_build_filename(g_getenv("GNT_TEST_SRCDIR"), "rpc", "fake-installer.sh", NULL);

	test_node_start(&fx->node1, NULL);
	g_assert_true(gnt_paths_ensure_dirs(fx->node1.paths, &error));
	fx->work = g_dir_make_tmp("gnt-installer-rpc-XXXXXX", &error);
	g_assert_no_error(error);
	g_ptr_array_add(fx->node1.dirs, g_strdup(fx->work));
	log = g_build_filename(fx->work, "metad.log", NULL);
	fx->metad = start_metad(fx->node1.paths, log, FALSE, &fx->control);
	g_setenv("GANTRY_FAKE_INSTALLER", installer, TRUE);
	fx->liveimg = g_build_filename(fx->work, "root.tar.gz", NULL);
	g_assert_true(g_file_set_contents(fx->liveimg, "a tarball of 27 bytes.....\n", -1, NULL));
	fx->kernel = g_build_filename(fx->work, "vmlinuz", NULL);
	g_assert_true(g_file_set_contents(fx->kernel, "kernel", -1, NULL));
}

static void
fx_tear_down(Fx *fx, gconstpointer data)
{
	stop_noded(fx->metad);
	g_clear_object(&fx->metad);
	g_free(fx->control);
	test_node_stop(&fx->node1);
	g_free(fx->work);
	g_free(fx->liveimg);
	g_free(fx->kernel);
	g_unsetenv("GANTRY_FAKE_INSTALLER");
}

static JsonObject *
make_spec(Fx *fx, const gchar *name)
{
	g_autofree gchar *uuid = g_uuid_string_random();
	g_autofree gchar *disk_uuid = g_uuid_string_random();
	g_autofree gchar *text = g_strdup_printf(
		"{\"instance\": {\"name\": \"%s\", \"uuid\": \"%s\", \"primary_node\": \"node1-uuid\","
		" \"os\": \"\", \"hypervisor\": \"fake\", \"disk_template\": \"file\","
		" \"disks\": [{\"uuid\": \"%s\", \"name\": \"root\", \"size\": 8, \"mode\": \"rw\"}],"
		" \"nics\": [], \"communication\": false,"
		" \"communication_nic\": {\"mac\": \"" MAC "\", \"ip\": \"" IP "\"}},"
		" \"hvparams\": {}, \"beparams\": {\"maxmem\": 128, \"vcpus\": 1},"
		" \"storage\": {\"volume_group_name\": null, \"file_storage_dir\": \"%s\"},"
		" \"os\": {\"search_path\": []}}",
		name, uuid, disk_uuid, fx->node1.file_dir);
	g_autoptr(JsonNode) root = gnt_json_parse(text, -1, NULL);
	g_autoptr(GError) error = NULL;
	JsonObject *spec = json_object_ref(json_node_get_object(root));

	g_assert_true(
		gnt_node_call_blockdev_create(fx->node1.client, fx->node1.record, spec, &error));
	g_assert_no_error(error);
	return spec;
}

static JsonObject *
artifact(const gchar *path)
{
	JsonObject *obj = json_object_new();

	json_object_set_string_member(obj, "url", path);
	json_object_set_null_member(obj, "sha256");
	return obj;
}

static JsonObject *
make_options(Fx *fx, const gchar *behaviour, gint64 timeout_start, gint64 timeout_end, gint64 grace)
{
	JsonObject *options = json_object_new();
	g_autofree gchar *ks = g_strdup_printf(
		"# fake: %s\nliveimg --url=http://169.254.169.254/gantry/latest/install/"
		"image.tar.gz\npoweroff\n%%post --nochroot\ncurl -d '{\"agent_token\": \"%s\", "
		"\"agent_status\": \"end\"}'\n%%end\n",
		behaviour, TOKEN);

	json_object_set_string_member(options, "kickstart", ks);
	json_object_set_string_member(options, "agent_token", TOKEN);
	json_object_set_object_member(options, "kernel", artifact(fx->kernel));
	json_object_set_object_member(options, "initrd", artifact(fx->kernel));
	json_object_set_null_member(options, "stage2");
	json_object_set_object_member(options, "liveimg", artifact(fx->liveimg));
	json_object_set_string_member(options, "liveimg_name", "image.tar.gz");
	json_object_set_int_member(options, "timeout_start", timeout_start);
	json_object_set_int_member(options, "timeout_end", timeout_end);
	json_object_set_int_member(options, "grace", grace);
	return options;
}

static void
event_cb(JsonObject *event, gpointer user_data)
{
	GPtrArray *seen = user_data;
	/* from metad taking the callback to the master having it (then the
	 * unit writes it to the job log): doc/benchmarks.md */
	gdouble latency = (gdouble)g_get_real_time() / G_USEC_PER_SEC -
			  json_object_get_double_member(event, "time");

	g_test_message("callback '%s' reached the master after %.1f ms",
		       json_object_get_string_member(event, "status"), latency * 1000);
	g_ptr_array_add(seen, g_strdup(json_object_get_string_member(event, "status")));
}

static gboolean
file_holds(const gchar *path, const gchar *needle)
{
	g_autofree gchar *text = NULL;
	gsize len = 0;

	return g_file_get_contents(path, &text, &len, NULL) &&
	       g_strstr_len(text, (gssize)len, needle) != NULL;
}

static void
assert_token_not_under(const gchar *dir)
{
	g_autoptr(GDir) handle = g_dir_open(dir, 0, NULL);
	const gchar *entry = NULL;

	while (handle != NULL && (entry = g_dir_read_name(handle)) != NULL) {
		g_autofree gchar *path = g_build_filename(dir, entry, NULL);

		if (g_file_test(path, G_FILE_TEST_IS_SYMLINK))
			continue;
		if (g_file_test(path, G_FILE_TEST_IS_DIR))
			assert_token_not_under(path);
		else if (file_holds(path, TOKEN))
			g_error("'%s' holds the token", path);
	}
}

/* Nothing of the install of @name is left on the node */
static void
assert_clean(Fx *fx, const gchar *name)
{
	g_autofree gchar *run = g_strdup(gnt_paths_get_run_dir(fx->node1.paths));
	g_autofree gchar *installer = g_build_filename(run, "installer", NULL);
	g_autofree gchar *channel = g_build_filename(run, "channel", NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) session = NULL;

	g_assert_false(g_file_test(installer, G_FILE_TEST_EXISTS));
	g_assert_false(g_file_test(channel, G_FILE_TEST_EXISTS));
	session = gnt_metad_client_get_install(fx->control, name, 0, 0, &error);
	g_assert_null(session);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	g_clear_error(&error);
	g_assert_false(gnt_metad_client_remove(fx->control, name, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	assert_token_not_under(gnt_paths_get_root(fx->node1.paths));
}

/* An install of @name with @options (taken) that must fail: its error;
 * @seen the events */
static GError *
run_failing(Fx *fx, const gchar *name, JsonObject *options, GPtrArray *seen)
{
	G_GNUC_UNUSED g_autoptr(JsonObject) owned = options;
	g_autoptr(JsonObject) spec = make_spec(fx, name);
	g_autoptr(JsonObject) result = NULL;
	GError *error = NULL;

	result = gnt_node_call_installer_run(fx->node1.client, fx->node1.record, spec, options,
					     event_cb, seen, &error);
	g_assert_null(result);
	g_assert_nonnull(error);
	g_test_message("%s: %s", name, error->message);
	assert_clean(fx, name);
	return error;
}

static void
test_success(Fx *fx, gconstpointer data)
{
	g_autoptr(JsonObject) spec = make_spec(fx, "web1");
	g_autoptr(JsonObject) options = make_options(fx, "ok", 30, 30, 30);
	g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(JsonObject) result = NULL;
	g_autoptr(GError) error = NULL;
	JsonArray *events = NULL;

	result = gnt_node_call_installer_run(fx->node1.client, fx->node1.record, spec, options,
					     event_cb, seen, &error);
	g_assert_no_error(error);
	g_assert_nonnull(result);
	g_assert_cmpuint(seen->len, ==, 2);
	g_assert_cmpstr(seen->pdata[0], ==, "start");
	g_assert_cmpstr(seen->pdata[1], ==, "end");
	events = json_object_get_array_member(result, "events");
	g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(events, 1),
						      "message"),
			==, "done after 27 bytes");
	g_assert_nonnull(
		strstr(json_object_get_string_member(result, "console_tail"), "powering off"));
	assert_clean(fx, "web1");
}

static void
test_error(Fx *fx, gconstpointer data)
{
	g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GError)
		error = run_failing(fx, "web2", make_options(fx, "error", 30, 30, 30), seen);

	g_assert_nonnull(strstr(error->message, "reported an error: disk on fire: %pre failed"));
	g_assert_nonnull(strstr(error->message, "FAILED: %pre"));
	/* start came through a poll; the error, when the installer powers
	 * off before the next poll, only in the failure's message above */
	g_assert_cmpuint(seen->len, >=, 1);
	g_assert_cmpstr(seen->pdata[0], ==, "start");
}

static void
test_poweroff_without_end(Fx *fx, gconstpointer data)
{
	g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GError)
		error = run_failing(fx, "web3", make_options(fx, "poweroff", 30, 30, 30), seen);

	g_assert_nonnull(strstr(error->message, "powered off without reporting end"));
	g_assert_nonnull(strstr(error->message, "the last words before the power went"));
}

static void
test_clocks(Fx *fx, gconstpointer data)
{
	g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GError)
		silent = run_failing(fx, "web4", make_options(fx, "silent", 2, 30, 30), seen);
	g_autoptr(GError) hang = NULL;

	g_assert_nonnull(strstr(silent->message, "did not report start within 2 s"));
	hang = run_failing(fx, "web5", make_options(fx, "hang", 30, 2, 30), seen);
	g_assert_nonnull(strstr(hang->message, "did not report end within 2 s of start"));
	g_assert_nonnull(strstr(hang->message, "behaviour: hang"));
}

/* end, then no power-off: destroyed after the grace period, a success */
static void
test_grace(Fx *fx, gconstpointer data)
{
	g_autoptr(JsonObject) spec = make_spec(fx, "web6");
	g_autoptr(JsonObject) options = make_options(fx, "linger", 30, 30, 2);
	g_autoptr(JsonObject) result = NULL;
	g_autoptr(GError) error = NULL;

	result = gnt_node_call_installer_run(fx->node1.client, fx->node1.record, spec, options,
					     NULL, NULL, &error);
	g_assert_no_error(error);
	g_assert_cmpfloat(json_object_get_double_member(result, "seconds"), >=, 2.0);
	assert_clean(fx, "web6");
}

static void
test_refused(Fx *fx, gconstpointer data)
{
	JsonObject *options = make_options(fx, "ok", 30, 30, 30);
	g_autoptr(JsonObject) spec = make_spec(fx, "web7");
	g_autoptr(JsonObject) result = NULL;
	g_autoptr(GError) error = NULL;

	json_object_set_object_member(options, "liveimg", artifact("/nonexistent/root.tar.gz"));
	result = gnt_node_call_installer_run(fx->node1.client, fx->node1.record, spec, options,
					     NULL, NULL, &error);
	json_object_unref(options);
	g_assert_null(result);
	g_assert_nonnull(strstr(error->message,
				"installer liveimg '/nonexistent/root.tar.gz' is not a file"));
	g_clear_error(&error);
	options = make_options(fx, "ok", 0, 30, 30);
	result = gnt_node_call_installer_run(fx->node1.client, fx->node1.record, spec, options,
					     NULL, NULL, &error);
	json_object_unref(options);
	g_assert_null(result);
	g_assert_nonnull(strstr(error->message, "'timeout_start' must be 1 to"));
	assert_clean(fx, "web7");
}

/* What a killed noded left (its work directory, metad's record and
 * session, the channel) is removed by the recovery noded runs at start */
static void
test_recover(Fx *fx, gconstpointer data)
{
	g_autofree gchar *work =
		g_build_filename(gnt_paths_get_run_dir(fx->node1.paths), "installer", "web8", NULL);
	g_autoptr(JsonObject) record = json_object_new();
	g_autoptr(JsonObject) session = json_object_new();
	g_autoptr(GntHvChannelNic) channel = NULL;
	g_autoptr(GError) error = NULL;

	g_assert_cmpint(g_mkdir_with_parents(work, 0700), ==, 0);
	{
		g_autofree gchar *state = g_build_filename(work, "run.json", NULL);
		g_autofree gchar *console = g_build_filename(work, "console.log", NULL);

		g_assert_true(g_file_set_contents(
			state, "{\"hypervisor\": \"fake\", \"keep_record\": false}", -1, NULL));
		g_assert_true(g_file_set_contents(console, "half an install\n", -1, NULL));
	}
	json_object_set_string_member(record, "name", "web8");
	g_assert_true(gnt_metad_client_push(fx->control, "web8", record, &error));
	channel = gnt_rpc_node_channel_open(fx->node1.rpc_node, "fake", "web8", MAC, IP, &error);
	g_assert_no_error(error);
	json_object_set_string_member(session, "token", TOKEN);
	json_object_set_string_member(session, "kickstart", "text\n");
	g_assert_true(gnt_metad_client_put_install(fx->control, "web8", session, &error));
	g_assert_no_error(error);

	gnt_rpc_node_installer_recover(fx->node1.rpc_node);
	assert_clean(fx, "web8");
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/installer-rpc/success", Fx, NULL, fx_set_up, test_success, fx_tear_down);
	g_test_add("/installer-rpc/error", Fx, NULL, fx_set_up, test_error, fx_tear_down);
	g_test_add("/installer-rpc/poweroff-without-end", Fx, NULL, fx_set_up,
		   test_poweroff_without_end, fx_tear_down);
	g_test_add("/installer-rpc/clocks", Fx, NULL, fx_set_up, test_clocks, fx_tear_down);
	g_test_add("/installer-rpc/grace", Fx, NULL, fx_set_up, test_grace, fx_tear_down);
	g_test_add("/installer-rpc/refused", Fx, NULL, fx_set_up, test_refused, fx_tear_down);
	g_test_add("/installer-rpc/recover", Fx, NULL, fx_set_up, test_recover, fx_tear_down);
	return g_test_run();
}
