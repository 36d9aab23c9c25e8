/* noded's appliance_run and appliance_run_status through the master's
 * typed call (rpc/gnt-node-calls-appliance.h) over TLS: the fake
 * hypervisor running the agent (appliance/agent) as a host process against a real
 * gantry-metad on the same temporary root: success with its progress
 * entries, a failed script, an agent that dies without reporting, a
 * timeout, and nothing left behind after any of them. */
#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <string.h>

#include "gnt-error.h"
#include "gnt-hypervisor.h"
#include "gnt-json.h"
#include "gnt-metad-client.h"
#include "gnt-metad-server.h"
#include "gnt-node-calls-appliance.h"
#include "gnt-node-calls.h"
#include "gnt-noded-appliance.h"
#include "gnt-noded.h"
#include "image-test-server.h"
#include "rpc-test-server.h"
#include "appliance-fixture.h"

/* An install of @name with @script that must fail: the error. */
static GError *
run_failing(ApplFx *fx, const gchar *name, const gchar *script, guint timeout_s,
	    gboolean communication)
{
	g_autoptr(JsonObject) spec = make_spec(fx, name, communication);
	g_autoptr(JsonObject) options = make_options(name, script, timeout_s);
	g_autoptr(JsonObject) result = NULL;
	GError *error = NULL;

	result = gnt_node_call_appliance_run(fx->node1.client, fx->node1.record, spec, options,
					     NULL, NULL, &error);
	g_assert_null(result);
	g_assert_nonnull(error);
	return error;
}

static void
progress_cb(JsonObject *entry, gpointer user_data)
{
	GPtrArray *seen = user_data;

	g_ptr_array_add(seen, g_strdup_printf("%s %s", json_object_get_string_member(entry, "step"),
					      json_object_get_string_member(entry, "state")));
}

/* Nothing of an install of @name is left: no metad record (unless
 * @keep_record), no channel, no files of it under the run directory. */
static void
assert_clean(ApplFx *fx, const gchar *name, gboolean keep_record)
{
	g_autofree gchar *run = g_strdup(gnt_paths_get_run_dir(fx->node1.paths));
	g_autofree gchar *appliance = g_build_filename(run, "appliance", NULL);
	g_autofree gchar *channel = g_build_filename(run, "channel", NULL);
	g_autofree gchar *cmd = g_strdup_printf("find '%s' -mindepth 1 -path '*%s*'", run, name);
	g_autofree gchar *found = NULL;
	g_autoptr(GError) error = NULL;
	gboolean known;

	g_assert_false(g_file_test(channel, G_FILE_TEST_EXISTS));
	if (!keep_record) {
		g_assert_false(g_file_test(appliance, G_FILE_TEST_EXISTS));
		g_assert_true(g_spawn_command_line_sync(cmd, &found, NULL, NULL, &error));
		g_assert_no_error(error);
		g_assert_cmpstr(found, ==, "");
	}
	/* metad forgot it (a second removal finds nothing) or kept it */
	known = gnt_metad_client_remove(fx->control, name, &error);
	g_assert_true(known == keep_record);
	if (!known)
		g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
}

static void
test_success(ApplFx *fx, gconstpointer data)
{
	static const gchar script[] =
		"#!/bin/sh\n"
		"echo \"creating $INSTANCE_NAME on $DISK_0_PATH with $OSP_FILESYSTEM\"\n"
		"env | grep -q '" SECRET_VALUE "' && echo LEAKED\n"
		"exit 0\n";
	g_autoptr(JsonObject) spec = NULL;
	g_autoptr(JsonObject) options = NULL;
	g_autoptr(JsonObject) result = NULL;
	g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GError) error = NULL;
	static const gchar *const expected[] = {
		"appliance start",  "run_os_scripts start", "run_os_scripts done",
		"personalize info", "appliance done",
	};
	JsonArray *steps;
	const gchar *output;

	spec = make_spec(fx, "web1", FALSE);
	options = make_options("web1", script, 60);
	result = gnt_node_call_appliance_run(fx->node1.client, fx->node1.record, spec, options,
					     progress_cb, seen, &error);
	g_assert_no_error(error);
	g_assert_nonnull(result);
	steps = json_object_get_array_member(result, "steps");
	g_assert_cmpuint(json_array_get_length(steps), ==, G_N_ELEMENTS(expected));
	g_assert_cmpuint(seen->len, ==, G_N_ELEMENTS(expected));
	for (guint i = 0; i < G_N_ELEMENTS(expected); i++) {
		JsonObject *entry = json_array_get_object_element(steps, i);
		g_autofree gchar *text =
			g_strdup_printf("%s %s", json_object_get_string_member(entry, "step"),
					json_object_get_string_member(entry, "state"));

		g_assert_cmpstr(text, ==, expected[i]);
		g_assert_cmpstr(seen->pdata[i], ==, expected[i]); /* each once, in order */
		g_assert_cmpint(json_object_get_int_member(entry, "seq"), ==, i);
	}
	output = json_object_get_string_member(json_array_get_object_element(steps, 2), "output");
	g_assert_nonnull(strstr(output, "creating web1 on "));
	g_assert_nonnull(strstr(output, "web1/"));
	g_assert_nonnull(strstr(output, "with ext4"));
	g_assert_null(strstr(output, "LEAKED")); /* the package credentials were stripped */
	g_assert_cmpfloat(json_object_get_double_member(result, "seconds"), >, 0);
	assert_clean(fx, "web1", FALSE);
}

static void
test_failed_script(ApplFx *fx, gconstpointer data)
{
	static const gchar script[] = "#!/bin/sh\n"
				      "echo 'formatting disk 0'\n"
				      "echo 'mkfs: no space left on device' >&2\n"
				      "exit 2\n";
	g_autoptr(GError) error = NULL;

	error = run_failing(fx, "web2", script, 60, FALSE);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	assert_error_has(error, "node 'node1'");
	assert_error_has(error, "install appliance of instance 'web2': step 'run_os_scripts' "
				"failed");
	assert_error_has(error, "its output ended with: mkfs: no space left on device");
	assert_clean(fx, "web2", FALSE);
}

static void
test_timeout(ApplFx *fx, gconstpointer data)
{
	g_autofree gchar *pid_file = g_build_filename(fx->work, "script.pid", NULL);
	g_autofree gchar *script = g_strdup_printf("#!/bin/sh\n"
						   "echo \"$$\" > '%s'\n"
						   "echo 'waiting for a mirror'\n"
						   "sleep 600\n",
						   pid_file);
	g_autoptr(GError) error = NULL;
	g_autofree gchar *pid_text = NULL;
	g_autofree gchar *proc = NULL;
	gint64 started = g_get_monotonic_time();

	error = run_failing(fx, "web3", script, 2, TRUE);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	assert_error_has(error, "install appliance timed out after 2 s; its console ended with: ");
	g_assert_cmpint(g_get_monotonic_time() - started, <, 30 * G_USEC_PER_SEC);
	/* the script's process is gone with the agent */
	g_assert_true(g_file_get_contents(pid_file, &pid_text, NULL, NULL));
	proc = g_strdup_printf("/proc/%s/cmdline", g_strstrip(pid_text));
	if (g_file_test(proc, G_FILE_TEST_EXISTS)) {
		g_autofree gchar *stat = g_strdup_printf("/proc/%s/stat", pid_text);
		g_autofree gchar *text = NULL;

		/* a zombie nobody reaps here (PID 1 does not) is gone enough */
		g_assert_true(g_file_get_contents(stat, &text, NULL, NULL));
		g_assert_nonnull(strstr(text, ") Z "));
	}
	/* communication=yes: the instance's record stays, the channel goes */
	assert_clean(fx, "web3", TRUE);
}

/* A reinstall: the script sees INSTANCE_REINSTALL=1, as on the host. */
static void
test_reinstall(ApplFx *fx, gconstpointer data)
{
	static const gchar script[] = "#!/bin/sh\necho \"reinstall=$INSTANCE_REINSTALL\"\n";
	g_autoptr(JsonObject) spec = make_spec(fx, "web7", FALSE);
	g_autoptr(JsonObject) options = make_options("web7", script, 60);
	g_autoptr(JsonObject) result = NULL;
	g_autoptr(GError) error = NULL;
	JsonArray *steps;
	gboolean seen = FALSE;

	json_object_set_boolean_member(options, "reinstall", TRUE);
	result = gnt_node_call_appliance_run(fx->node1.client, fx->node1.record, spec, options,
					     NULL, NULL, &error);
	g_assert_no_error(error);
	steps = json_object_get_array_member(result, "steps");
	for (guint i = 0; i < json_array_get_length(steps); i++) {
		JsonObject *entry = json_array_get_object_element(steps, i);
		const gchar *output =
			json_object_get_string_member_with_default(entry, "output", "");

		seen = seen || strstr(output, "reinstall=1") != NULL;
	}
	g_assert_true(seen);
	assert_clean(fx, "web7", FALSE);
}

/* An agent that dies after its first report (the appliance crashed or
 * powered off early): a clear error with the console's tail, nothing left. */
static void
test_agent_dies(ApplFx *fx, gconstpointer data)
{
	g_autofree gchar *agent = g_build_filename(fx->work, "dying-agent", NULL);
	g_autofree gchar *real = g_strdup(g_getenv(GNT_APPLIANCE_AGENT_ENV));
	g_autoptr(GError) error = NULL;

	g_assert_true(g_file_set_contents(
		agent,
		"#!/bin/sh\n"
		"curl -s --unix-socket \"$GANTRY_METAD_SOCKET\" -X POST -o /dev/null "
		"'http://metad/gantry/latest/install/progress?step=appliance&state=start'\n"
		"echo 'agent: Segmentation fault' >&2\n"
		"exit 139\n",
		-1, NULL));
	g_assert_cmpint(g_chmod(agent, 0755), ==, 0);
	g_setenv(GNT_APPLIANCE_AGENT_ENV, agent, TRUE);
	error = run_failing(fx, "web6", "#!/bin/sh\nexit 0\n", 30, FALSE);
	g_setenv(GNT_APPLIANCE_AGENT_ENV, real, TRUE);
	assert_error_has(error, "powered off without reporting success");
	assert_error_has(error, "agent: Segmentation fault");
	assert_clean(fx, "web6", FALSE);
}

/* A package from a local HTTP server: fetched, sanitized, given to metad,
 * unpacked by the agent onto disk 0 (which the script formats), gone from
 * metad afterwards. Without package support in the build: refused, clean. */
static void
test_package(ApplFx *fx, gconstpointer data)
{
	static const gchar script[] = "#!/bin/sh\n"
				      "mkfs.ext4 -q -F \"$DISK_0_PATH\" && echo formatted\n";
	g_autoptr(ImageServer) server = image_server_new(NULL);
	g_autofree gchar *tree = g_build_filename(fx->work, "tree", NULL);
	g_autofree gchar *etc = g_build_filename(tree, "etc", NULL);
	g_autofree gchar *motd = g_build_filename(etc, "motd", NULL);
	g_autofree gchar *tarball = g_build_filename(fx->work, "package.tar.gz", NULL);
	g_autofree gchar *tar = g_strdup_printf("tar czf '%s' -C '%s' etc", tarball, tree);
	g_autofree gchar *url = NULL;
	g_autoptr(JsonObject) spec = NULL;
	g_autoptr(JsonObject) options = NULL;
	g_autoptr(JsonObject) result = NULL;
	g_autoptr(GError) error = NULL;
	gint status = -1;

	g_assert_cmpint(g_mkdir_with_parents(etc, 0755), ==, 0);
	g_assert_true(g_file_set_contents(motd, "installed by the package\n", -1, NULL));
	g_assert_true(g_spawn_command_line_sync(tar, NULL, NULL, &status, &error));
	g_assert_no_error(error);
	g_assert_cmpint(status, ==, 0);
	image_server_add_file(server, "/pkg/site.tar.gz", tarball);
	url = g_strconcat(image_server_get_base(server), "/pkg/site.tar.gz", NULL);
	spec = make_spec(fx, "web5", FALSE);
	options = make_options("web5", script, 60);
	json_object_set_string_member(options, "package_url", url);
	result = gnt_node_call_appliance_run(fx->node1.client, fx->node1.record, spec, options,
					     NULL, NULL, &error);
	{
		JsonArray *steps;
		gboolean personalized = FALSE;

		g_assert_no_error(error);
		steps = json_object_get_array_member(result, "steps");
		for (guint i = 0; i < json_array_get_length(steps); i++) {
			JsonObject *entry = json_array_get_object_element(steps, i);

			personalized |=
				g_str_equal(json_object_get_string_member(entry, "step"),
					    "personalize") &&
				g_str_equal(json_object_get_string_member(entry, "state"), "done");
		}
		g_assert_true(personalized);
		g_assert_cmpuint(image_server_get_n_requests(server), ==, 1);
		{
			/* appliance/agent unpacked it onto disk 0's filesystem */
			JsonArray *disks = json_object_get_array_member(
				json_object_get_object_member(spec, "instance"), "disks");
			g_autofree gchar *file = g_strdup_printf(
				"%s.file.disk0",
				json_object_get_string_member(
					json_array_get_object_element(disks, 0), "uuid"));
			g_autofree gchar *disk =
				g_build_filename(fx->node1.file_dir, "web5", file, NULL);
			g_autofree gchar *cmd =
				g_strdup_printf("debugfs -R 'cat /etc/motd' '%s'", disk);
			g_autofree gchar *out = NULL;

			g_assert_true(g_spawn_command_line_sync(cmd, &out, NULL, &status, NULL));
			g_assert_cmpstr(out, ==, "installed by the package\n");
		}
	}
	assert_clean(fx, "web5", FALSE);
}

/* communication=yes: instance_start opens the channel (with the fake
 * hypervisor metad's unix socket: a state file, no tap), shutdown closes
 * it, also when the instance no longer runs. */
static void
test_communication_start_stop(ApplFx *fx, gconstpointer data)
{
	g_autoptr(JsonObject) spec = make_spec(fx, "web6", TRUE);
	g_autofree gchar *state =
		g_build_filename(gnt_paths_get_run_dir(fx->node1.paths), "channel", "web6", NULL);
	g_autofree gchar *tap = NULL;
	g_autoptr(GError) error = NULL;
	gboolean forced = TRUE;

	g_assert_true(gnt_node_call_instance_start(fx->node1.client, fx->node1.record, spec, FALSE,
						   &error));
	g_assert_no_error(error);
	g_assert_true(g_file_get_contents(state, &tap, NULL, NULL));
	g_assert_cmpstr(tap, ==, ""); /* no tap: the unix socket is the channel */
	/* a second start fails and leaves the running instance's channel alone */
	g_assert_false(gnt_node_call_instance_start(fx->node1.client, fx->node1.record, spec, FALSE,
						    &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_EXISTS);
	g_clear_error(&error);
	g_assert_true(g_file_test(state, G_FILE_TEST_EXISTS));
	/* a hard reboot restarts it with the same channel */
	g_assert_true(gnt_node_call_instance_reboot(fx->node1.client, fx->node1.record, spec,
						    "hard", 0, &error));
	g_assert_no_error(error);
	g_assert_true(g_file_test(state, G_FILE_TEST_EXISTS));
	g_assert_true(gnt_node_call_instance_shutdown(fx->node1.client, fx->node1.record, spec, 0,
						      &forced, &error));
	g_assert_no_error(error);
	g_assert_false(g_file_test(state, G_FILE_TEST_EXISTS));
	assert_clean(fx, "web6", FALSE);

	/* a bad communication NIC fails the start before anything runs */
	json_object_remove_member(json_object_get_object_member(spec, "instance"),
				  "communication_nic");
	g_assert_false(gnt_node_call_instance_start(fx->node1.client, fx->node1.record, spec, FALSE,
						    &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	assert_error_has(error, "communication_nic");
}

/* The kvm path for real, opt-in: GNT_TEST_APPLIANCE_DIR names a built
 * appliance (appliance/build-appliance DIR), libvirtd runs
 * (scripts/libvirt-up); the appliance boots under TCG with the channel
 * this node can make (a tap as root, else slirp) against gantry-metad. */
static void
test_kvm_real(ApplFx *fx, gconstpointer data)
{
	static const gchar script[] =
		"#!/bin/sh\n"
		"echo \"hello from $INSTANCE_NAME on $DISK_0_PATH\"\n"
		"dd if=/dev/zero of=\"$DISK_0_PATH\" bs=512 count=1 2>/dev/null && echo written\n";
	g_autoptr(JsonObject) spec = NULL;
	g_autoptr(JsonObject) options = NULL;
	g_autoptr(JsonObject) result = NULL;
	g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GError) error = NULL;
	JsonArray *steps;
	gint64 started;

	if (!install_real_appliance(fx))
		return;
	spec = make_spec_for(fx, "real1", "kvm", FALSE);
	options = make_options("real1", script, 120);
	started = g_get_monotonic_time();
	result = gnt_node_call_appliance_run(fx->node1.client, fx->node1.record, spec, options,
					     progress_cb, seen, &error);
	g_assert_no_error(error);
	g_test_message("appliance_run of the real appliance: %.2f s (node: %.2f s)",
		       (gdouble)(g_get_monotonic_time() - started) / G_USEC_PER_SEC,
		       json_object_get_double_member(result, "seconds"));
	steps = json_object_get_array_member(result, "steps");
	for (guint i = 0; i < json_array_get_length(steps); i++) {
		JsonObject *entry = json_array_get_object_element(steps, i);

		g_test_message("  %s %s %s", json_object_get_string_member(entry, "step"),
			       json_object_get_string_member(entry, "state"),
			       json_object_has_member(entry, "output")
				       ? json_object_get_string_member(entry, "output")
				       : "");
	}
	g_assert_cmpuint(seen->len, ==, json_array_get_length(steps));
	g_assert_cmpstr(seen->pdata[seen->len - 1], ==, "appliance done");
	assert_clean(fx, "real1", FALSE);
}

/* ---- the step engine (doc/appliance.md "Steps") ---- */

#define SESSION_STEPS                                                                                 \
	"[{\"id\": \"T#1\", \"step\": \"test_echo\", \"args\": {\"text\": \"it's me\"}, "             \
	"\"timeout\": 60},"                                                                           \
	"{\"id\": \"deploy.run_os_scripts\", \"step\": \"run_os_scripts\", \"args\": {}, "            \
	"\"timeout\": 60},"                                                                           \
	"{\"id\": \"deploy.personalize\", \"step\": \"personalize\", \"args\": {}, \"timeout\": 60}," \
	"{\"id\": \"T#2\", \"step\": \"test_noop\", \"args\": {}, \"timeout\": 60}]"

static const gchar *const session_expected[] = {
	"appliance start",	"catalogue info",      "test_echo start",   "test_echo done",
	"run_os_scripts start", "run_os_scripts done", "personalize start", "personalize done",
	"test_noop start",	"test_noop done",      "appliance done",
};

/* Runs SESSION_STEPS for @name on @hypervisor; checks every step's start
 * and end in order, the echo of its arguments, the start's row id. */
static void
assert_session(ApplFx *fx, const gchar *name, const gchar *hypervisor)
{
	static const gchar script[] = "#!/bin/sh\necho \"script of $INSTANCE_NAME\"\n";
	g_autoptr(JsonObject) spec = make_spec_for(fx, name, hypervisor, FALSE);
	g_autoptr(JsonObject) options = make_session_options(name, script, SESSION_STEPS);
	g_autoptr(JsonObject) result = NULL;
	g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GError) error = NULL;
	JsonArray *steps;

	result = gnt_node_call_appliance_run(fx->node1.client, fx->node1.record, spec, options,
					     progress_cb, seen, &error);
	g_assert_no_error(error);
	steps = json_object_get_array_member(result, "steps");
	g_assert_cmpuint(seen->len, ==, G_N_ELEMENTS(session_expected));
	for (guint i = 0; i < G_N_ELEMENTS(session_expected); i++)
		g_assert_cmpstr(seen->pdata[i], ==, session_expected[i]);
	/* metad's start names the row; the echo saw its arguments */
	g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(steps, 2),
						      "detail"),
			==, "T#1");
	g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(steps, 3),
						      "detail"),
			==, "it's me");
	g_assert_nonnull(strstr(
		json_object_get_string_member(json_array_get_object_element(steps, 3), "output"),
		"args: {\"text\":\"it's me\"}"));
	g_assert_nonnull(strstr(
		json_object_get_string_member(json_array_get_object_element(steps, 5), "output"),
		name));
	g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(steps, 7),
						      "detail"),
			==, "no personalization package");
	assert_clean(fx, name, FALSE);
}

static void
test_steps(ApplFx *fx, gconstpointer data)
{
	g_setenv(GNT_HV_APPLIANCE_TEST_STEPS_ENV, "1", TRUE);
	assert_session(fx, "steps1", "fake");
	g_unsetenv(GNT_HV_APPLIANCE_TEST_STEPS_ENV);
}

/* A failing step ends the session: the next one never starts, the error
 * names the step and its reason, nothing is left. */
static void
test_steps_fail(ApplFx *fx, gconstpointer data)
{
	g_autoptr(JsonObject) spec = make_spec(fx, "steps2", FALSE);
	g_autoptr(JsonObject) options = make_session_options(
		"steps2", "#!/bin/sh\n",
		"[{\"id\": \"T#1\", \"step\": \"test_noop\", \"args\": {}, \"timeout\": 60},"
		"{\"id\": \"T#2\", \"step\": \"test_fail\", \"args\": {\"message\": \"boom\"}, "
		"\"timeout\": 60},"
		"{\"id\": \"T#3\", \"step\": \"test_noop\", \"args\": {}, \"timeout\": 60}]");
	g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(JsonObject) result = NULL;
	g_autoptr(GError) error = NULL;

	g_setenv(GNT_HV_APPLIANCE_TEST_STEPS_ENV, "1", TRUE);
	result = gnt_node_call_appliance_run(fx->node1.client, fx->node1.record, spec, options,
					     progress_cb, seen, &error);
	g_unsetenv(GNT_HV_APPLIANCE_TEST_STEPS_ENV);
	g_assert_null(result);
	assert_error_has(error, "step 'test_fail' failed: boom; its output ended with: test_fail "
				"was asked to fail");
	/* every entry, the failed session's last ones too (the final answer
	 * carries them); never the third step */
	g_assert_cmpuint(seen->len, ==, 7);
	g_assert_cmpstr(seen->pdata[4], ==, "test_fail start");
	g_assert_cmpstr(seen->pdata[5], ==, "test_fail failed");
	g_assert_cmpstr(seen->pdata[6], ==, "appliance failed");
	assert_clean(fx, "steps2", FALSE);
}

/* Without the tests' switch the agent has no test steps. */
static void
test_steps_test_only(ApplFx *fx, gconstpointer data)
{
	g_autoptr(JsonObject) spec = make_spec(fx, "steps3", FALSE);
	g_autoptr(JsonObject) options = make_session_options(
		"steps3", "#!/bin/sh\n",
		"[{\"id\": \"T#1\", \"step\": \"test_noop\", \"args\": {}, \"timeout\": 60}]");
	g_autoptr(JsonObject) result = NULL;
	g_autoptr(GError) error = NULL;

	g_unsetenv(GNT_HV_APPLIANCE_TEST_STEPS_ENV);
	result = gnt_node_call_appliance_run(fx->node1.client, fx->node1.record, spec, options,
					     NULL, NULL, &error);
	g_assert_null(result);
	assert_error_has(error, "step 'test_noop' failed: unknown step (no such step here)");
	assert_clean(fx, "steps3", FALSE);
}

/* A step's result carries data for the master's post-step hook:
 * find_root's root device, as metad's "info" entry before its "done". */
static void
test_step_data(ApplFx *fx, gconstpointer data)
{
	g_autoptr(JsonObject) spec = make_spec(fx, "data1", FALSE);
	g_autoptr(JsonObject) options = make_session_options(
		"data1", "#!/bin/sh\n",
		"[{\"id\": \"R#1\", \"step\": \"find_root\", \"args\": {}, \"timeout\": 60}]");
	g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(JsonObject) result = NULL;
	g_autoptr(GError) error = NULL;
	JsonObject *info;

	result = gnt_node_call_appliance_run(fx->node1.client, fx->node1.record, spec, options,
					     progress_cb, seen, &error);
	g_assert_no_error(error);
	g_assert_cmpstr(seen->pdata[2], ==, "find_root start");
	g_assert_cmpstr(seen->pdata[3], ==, "find_root info");
	g_assert_cmpstr(seen->pdata[4], ==, "find_root done");
	info = json_array_get_object_element(json_object_get_array_member(result, "steps"), 3);
	g_assert_true(g_str_has_prefix(json_object_get_string_member(info, "detail"),
				       "data {\"root_device\":\"/"));
	assert_clean(fx, "data1", FALSE);
}

/* ---- reboots (doc/appliance.md "Reboots") ---- */

/* The answer to GET @path on metad's unix socket @socket_path, without
 * its Date header (the rest is what the guest sees). (transfer full) */
static gchar *
raw_get(const gchar *socket_path, const gchar *path)
{
	g_autoptr(GSocketClient) client = g_socket_client_new();
	g_autoptr(GSocketAddress) address = g_unix_socket_address_new(socket_path);
	g_autoptr(GSocketConnection) conn = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *request = g_strdup_printf("GET %s HTTP/1.1\r\nHost: metad\r\n\r\n", path);
	g_autoptr(GString) answer = g_string_new(NULL);
	GInputStream *in;
	gchar buf[4096];
	const gchar *head_end = NULL;
	const gchar *length = NULL;
	g_auto(GStrv) lines = NULL;
	GString *shown = g_string_new(NULL);

	conn = g_socket_client_connect(client, G_SOCKET_CONNECTABLE(address), NULL, &error);
	g_assert_no_error(error);
	g_assert_true(g_output_stream_write_all(g_io_stream_get_output_stream(G_IO_STREAM(conn)),
						request, strlen(request), NULL, NULL, &error));
	g_assert_no_error(error);
	in = g_io_stream_get_input_stream(G_IO_STREAM(conn));
	/* the head, then Content-Length bytes: the stream stays open */
	for (;;) {
		gssize n = g_input_stream_read(in, buf, sizeof(buf), NULL, &error);

		g_assert_no_error(error);
		g_assert_cmpint(n, >, 0);
		g_string_append_len(answer, buf, n);
		head_end = strstr(answer->str, "\r\n\r\n");
		length = strstr(answer->str, "Content-Length: ");
		if (head_end != NULL && length != NULL &&
		    answer->len >= (gsize)(head_end + 4 - answer->str) +
					   g_ascii_strtoull(length + 16, NULL, 10))
			break;
	}
	lines = g_strsplit(answer->str, "\r\n", -1);
	for (guint i = 0; lines[i] != NULL; i++) {
		if (!g_str_has_prefix(lines[i], "Date: "))
			g_string_append_printf(shown, "%s\n", lines[i]);
	}
	return g_string_free(shown, FALSE);
}

typedef struct {
	ApplFx *fx;
	const gchar *name;
	GPtrArray *seen;
	gchar *old_token; /* the first boot's, from test_echo's output */
	gchar *replayed;  /* metad's answer to it during the second boot */
	gchar *unknown;	  /* and to an unknown path */
} RebootWatch;

static gchar *
dup_token_of(const gchar *output)
{
	const gchar *at = output != NULL ? strstr(output, "token: ") : NULL;

	return at != NULL ? g_strndup(at + 7, strcspn(at + 7, "\n")) : NULL;
}

static void
reboot_progress_cb(JsonObject *entry, gpointer user_data)
{
	RebootWatch *w = user_data;
	const gchar *step = json_object_get_string_member(entry, "step");
	const gchar *state = json_object_get_string_member(entry, "state");

	progress_cb(entry, w->seen);
	if (g_str_equal(step, "test_echo") && g_str_equal(state, "done") && w->old_token == NULL)
		w->old_token = dup_token_of(json_object_get_string_member(entry, "output"));
	/* the second boot is running its step: replay the first's token */
	if (g_str_equal(step, "test_sleep") && g_str_equal(state, "start") &&
	    w->old_token != NULL && w->replayed == NULL) {
		g_autofree gchar *sock = gnt_metad_dup_instance_socket(w->fx->node1.paths, w->name);
		g_autofree gchar *path =
			g_strdup_printf("/gantry/latest/install/next-step?token=%s", w->old_token);

		w->replayed = raw_get(sock, path);
		w->unknown = raw_get(sock, "/gantry/latest/install/no-such-path");
	}
}

/* A step asking for a reboot: the appliance boots twice, the next step
 * runs on the second boot with a new token, and the first boot's token
 * gets the same 404 as an unknown path. */
static void
test_reboot(ApplFx *fx, gconstpointer data)
{
	const gchar *hypervisor = data;
	g_autoptr(JsonObject) spec = NULL;
	g_autoptr(JsonObject) options = make_session_options(
		"boot1", "#!/bin/sh\n",
		"[{\"id\": \"T#1\", \"step\": \"test_echo\", \"args\": {\"text\": \"one\"}, "
		"\"timeout\": 60},"
		"{\"id\": \"T#2\", \"step\": \"test_reboot\", \"args\": {}, \"timeout\": 60},"
		"{\"id\": \"T#3\", \"step\": \"test_sleep\", \"args\": {\"seconds\": 2}, "
		"\"timeout\": 60},"
		"{\"id\": \"T#4\", \"step\": \"test_echo\", \"args\": {\"text\": \"two\"}, "
		"\"timeout\": 60}]");
	g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func(g_free);
	RebootWatch w = {.fx = fx, .name = "boot1", .seen = seen};
	g_autoptr(JsonObject) result = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *new_token = NULL;
	JsonArray *steps;
	guint starts = 0;

	if (g_str_equal(hypervisor, "kvm") && !install_real_appliance(fx))
		return;
	spec = make_spec_for(fx, "boot1", hypervisor, FALSE);
	g_setenv(GNT_HV_APPLIANCE_TEST_STEPS_ENV, "1", TRUE);
	result = gnt_node_call_appliance_run(fx->node1.client, fx->node1.record, spec, options,
					     reboot_progress_cb, &w, &error);
	g_unsetenv(GNT_HV_APPLIANCE_TEST_STEPS_ENV);
	g_assert_no_error(error);
	steps = json_object_get_array_member(result, "steps");
	/* two boots: the agent started twice, the steps in order across them */
	for (guint i = 0; i < seen->len; i++)
		starts += g_str_equal(seen->pdata[i], "appliance start");
	g_assert_cmpuint(starts, ==, 2);
	g_assert_cmpstr(seen->pdata[5], ==, "test_reboot done");
	g_assert_cmpstr(seen->pdata[6], ==, "appliance info");
	g_assert_cmpstr(seen->pdata[7], ==, "appliance start");
	g_assert_cmpstr(seen->pdata[seen->len - 1], ==, "appliance done");
	g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(steps, 6),
						      "detail"),
			==, "reboot requested by step 'test_reboot'");
	/* a new token at the second boot; the old one is as unknown as a path
	 * that does not exist, byte for byte */
	new_token = dup_token_of(json_object_get_string_member(
		json_array_get_object_element(steps, json_array_get_length(steps) - 2), "output"));
	g_assert_nonnull(w.old_token);
	g_assert_nonnull(new_token);
	g_assert_cmpuint(strlen(w.old_token), ==, 32);
	g_assert_cmpstr(w.old_token, !=, new_token);
	g_assert_nonnull(w.replayed);
	g_assert_true(g_str_has_prefix(w.replayed, "HTTP/1.1 404 "));
	g_assert_cmpstr(w.replayed, ==, w.unknown);
	assert_clean(fx, "boot1", FALSE);
	g_free(w.old_token);
	g_free(w.replayed);
	g_free(w.unknown);
}

/* The appliance rebuilt between two boots (the test hook swaps its
 * manifest): the install aborts, nothing is left. */
static void
test_reboot_swapped(ApplFx *fx, gconstpointer data)
{
	const gchar *hypervisor = data;
	g_autoptr(JsonObject) spec = NULL;
	g_autoptr(JsonObject) options = make_session_options(
		"boot2", "#!/bin/sh\n",
		"[{\"id\": \"T#1\", \"step\": \"test_reboot\", \"args\": {}, \"timeout\": 60},"
		"{\"id\": \"T#2\", \"step\": \"test_noop\", \"args\": {}, \"timeout\": 60}]");
	g_autofree gchar *dir = gnt_rpc_node_dup_appliance_dir(fx->node1.rpc_node);
	g_autofree gchar *manifest = g_build_filename(dir, "manifest.json", NULL);
	g_autofree gchar *other = g_build_filename(fx->work, "other-manifest.json", NULL);
	g_autoptr(JsonObject) result = NULL;
	g_autoptr(GError) error = NULL;

	if (g_str_equal(hypervisor, "kvm") && !install_real_appliance(fx))
		return;
	spec = make_spec_for(fx, "boot2", hypervisor, FALSE);
	g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
	if (!g_str_equal(hypervisor, "kvm"))
		g_assert_true(g_file_set_contents(
			manifest, "{\"sha256\": {\"appliance.img\": \"aa\"}}", -1, NULL));
	g_assert_true(
		g_file_set_contents(other, "{\"sha256\": {\"appliance.img\": \"bb\"}}", -1, NULL));
	g_setenv(GNT_HV_APPLIANCE_TEST_STEPS_ENV, "1", TRUE);
	g_setenv(GNT_APPLIANCE_SWAP_TEST_ENV, other, TRUE);
	result = gnt_node_call_appliance_run(fx->node1.client, fx->node1.record, spec, options,
					     NULL, NULL, &error);
	g_unsetenv(GNT_APPLIANCE_SWAP_TEST_ENV);
	g_unsetenv(GNT_HV_APPLIANCE_TEST_STEPS_ENV);
	g_assert_null(result);
	assert_error_has(error, "install appliance changed across a reboot: aborting");
	assert_clean(fx, "boot2", FALSE);
}

/* A step's own timeout, in the real appliance (@data "kvm") and in fake
 * mode (the agent on the host): the OS script that hangs is stopped after
 * its step's 3 s, long before the session's, and nothing of it is left. */
static void
test_step_timeout(ApplFx *fx, gconstpointer data)
{
	const gchar *hypervisor = data;
	g_autoptr(JsonObject) spec = NULL;
	g_autoptr(JsonObject) options = NULL;
	g_autoptr(JsonObject) result = NULL;
	g_autoptr(GError) error = NULL;
	gint64 t0 = g_get_monotonic_time();

	if (g_str_equal(hypervisor, "kvm") && !install_real_appliance(fx))
		return;
	spec = make_spec_for(fx, "slow1", hypervisor, FALSE);
	options = make_session_options("slow1", "#!/bin/sh\necho hanging\nsleep 617\n",
				       "[{\"id\": \"deploy.run_os_scripts\", \"step\": "
				       "\"run_os_scripts\", \"args\": {}, \"timeout\": 3}]");
	result = gnt_node_call_appliance_run(fx->node1.client, fx->node1.record, spec, options,
					     NULL, NULL, &error);
	g_assert_null(result);
	assert_error_has(error, "step 'run_os_scripts' failed: the create script timed out after 3 "
				"s; its output ended with: hanging");
	/* the step's 3 s, not the session's */
	g_assert_cmpint(g_get_monotonic_time() - t0, <, 60 * G_USEC_PER_SEC);
	assert_clean(fx, "slow1", FALSE);
	/* the script's own child (sleep 600) went with the agent */
	if (g_str_equal(hypervisor, "fake"))
		g_assert_cmpint(system("pgrep -x -f 'sleep 617' >/dev/null"), !=, 0);
}

/* The same session in the real appliance (opt-in as kvm-real). */
static void
test_kvm_real_steps(ApplFx *fx, gconstpointer data)
{
	if (!install_real_appliance(fx))
		return;
	g_setenv(GNT_HV_APPLIANCE_TEST_STEPS_ENV, "1", TRUE);
	assert_session(fx, "real2", "kvm");
	g_unsetenv(GNT_HV_APPLIANCE_TEST_STEPS_ENV);
}

/* appliance_catalogue: with no built appliance the agent's steps.json
 * (the source tree's here), then the built appliance's (its manifest's
 * "steps") with the manifest's checksum, then a manifest of an appliance
 * built before steps and a broken catalogue, each refused naming the
 * file. */
static void
test_catalogue(ApplFx *fx, gconstpointer data)
{
	g_autofree gchar *dir = gnt_rpc_node_dup_appliance_dir(fx->node1.rpc_node);
	g_autofree gchar *manifest = g_build_filename(dir, "manifest.json", NULL);
	g_autofree gchar *manifest_text = NULL;
	g_autofree gchar *manifest_sha = NULL;
	g_autoptr(JsonArray) args = json_array_new();
	g_autoptr(JsonNode) answer = NULL;
	g_autoptr(GError) error = NULL;
	const gchar *small = "{\"version\": \"9\", \"steps\": [{\"name\": \"only_this\", "
			     "\"priority\": 50, \"args\": [], \"reboot_requested\": false, "
			     "\"for_operators\": true, \"core\": false, \"description\": \"x\"}]}";
	JsonObject *obj;
	JsonArray *steps;
	gboolean found = FALSE;

	answer = gnt_node_call(fx->node1.client, fx->node1.record, "appliance_catalogue", args, 10,
			       &error);
	g_assert_no_error(error);
	obj = json_node_get_object(answer);
	g_assert_true(g_str_has_suffix(json_object_get_string_member(obj, "path"),
				       "/appliance/steps.json"));
	g_assert_true(json_object_get_null_member(obj, "manifest_sha256"));
	steps = json_object_get_array_member(json_object_get_object_member(obj, "catalogue"),
					     "steps");
	for (guint i = 0; i < json_array_get_length(steps); i++)
		found |= g_str_equal(json_object_get_string_member(
					     json_array_get_object_element(steps, i), "name"),
				     "zero_disk_start");
	g_assert_true(found);
	g_clear_pointer(&answer, json_node_unref);

	/* the built appliance's own */
	g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
	manifest_text = g_strdup_printf("{\"sha256\": {}, \"steps\": %s}", small);
	g_assert_true(g_file_set_contents(manifest, manifest_text, -1, NULL));
	manifest_sha = g_compute_checksum_for_string(G_CHECKSUM_SHA256, manifest_text, -1);
	answer = gnt_node_call(fx->node1.client, fx->node1.record, "appliance_catalogue", args, 10,
			       &error);
	g_assert_no_error(error);
	obj = json_node_get_object(answer);
	g_assert_cmpstr(json_object_get_string_member(obj, "path"), ==, manifest);
	g_assert_cmpstr(json_object_get_string_member(obj, "manifest_sha256"), ==, manifest_sha);
	g_assert_cmpstr(json_object_get_string_member(
				json_object_get_object_member(obj, "catalogue"), "version"),
			==, "9");
	g_clear_pointer(&answer, json_node_unref);

	/* an appliance built before steps, then a broken catalogue */
	g_assert_true(g_file_set_contents(manifest, "{\"sha256\": {}}", -1, NULL));
	answer = gnt_node_call(fx->node1.client, fx->node1.record, "appliance_catalogue", args, 10,
			       &error);
	g_assert_null(answer);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	assert_error_has(error, "holds no catalogue of steps");
	g_clear_error(&error);
	g_assert_true(g_file_set_contents(
		manifest, "{\"steps\": {\"version\": \"9\", \"steps\": 3}}", -1, NULL));
	answer = gnt_node_call(fx->node1.client, fx->node1.record, "appliance_catalogue", args, 10,
			       &error);
	g_assert_null(answer);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	assert_error_has(error, manifest);
}

/* A session the node does not know (a restarted noded's answer): not
 * found, saying why. */
static void
test_session_unknown(ApplFx *fx, gconstpointer data)
{
	g_autoptr(JsonNode) answer = NULL;
	g_autoptr(GError) error = NULL;

	answer = gnt_node_call_procedure(
		fx->node1.client, fx->node1.record, "session_wait",
		GNT_RPC_VALUES({.s = "0b6b2c7e-no-such-run"}, {.u = 0}, {.u = 1}), NULL, &error);
	g_assert_null(answer);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	assert_error_has(error, "no install session '0b6b2c7e-no-such-run' on this node: noded "
				"restarted during the install");
}

/* One session_wait of @token from @since; the answer. (transfer full) */
static JsonObject *
session_wait(ApplFx *fx, const gchar *token, guint64 since, guint wait_s)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) answer = gnt_node_call_procedure(
		fx->node1.client, fx->node1.record, "session_wait",
		GNT_RPC_VALUES({.s = token}, {.u = since}, {.u = wait_s}), NULL, &error);

	g_assert_no_error(error);
	g_assert_true(JSON_NODE_HOLDS_OBJECT(answer));
	return json_object_ref(json_node_get_object(answer));
}

/* A session that fails fast, asked only after its end: the final answer
 * carries every entry from the seq asked, to the failing step's "failed",
 * with the error and its class. */
static void
test_session_final_entries(ApplFx *fx, gconstpointer data)
{
	g_autoptr(JsonObject) spec = make_spec(fx, "final1", FALSE);
	g_autoptr(JsonObject) options = make_session_options(
		"final1", "#!/bin/sh\n",
		"[{\"id\": \"T#1\", \"step\": \"test_fail\", \"args\": {\"message\": \"fast\"}, "
		"\"timeout\": 60}]");
	g_autoptr(JsonObject) answer = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *token = NULL;
	g_autoptr(GString) seen = g_string_new(NULL);
	JsonArray *entries;
	guint n;

	g_setenv(GNT_HV_APPLIANCE_TEST_STEPS_ENV, "1", TRUE);
	token = gnt_node_call_appliance_start(fx->node1.client, fx->node1.record, spec, options,
					      &error);
	g_assert_no_error(error);
	/* no entry is asked for (a seq far ahead) until the session ended */
	do {
		g_clear_pointer(&answer, json_object_unref);
		answer = session_wait(fx, token, G_MAXINT32, 5);
		g_assert_cmpuint(
			json_array_get_length(json_object_get_array_member(answer, "entries")), ==,
			0);
	} while (g_str_equal(json_object_get_string_member(answer, "state"), "running"));
	g_unsetenv(GNT_HV_APPLIANCE_TEST_STEPS_ENV);
	g_clear_pointer(&answer, json_object_unref);
	answer = session_wait(fx, token, 0, 5);
	g_assert_cmpstr(json_object_get_string_member(answer, "state"), ==, "failed");
	g_assert_cmpstr(json_object_get_string_member(answer, "ecode"), ==, "environment_error");
	g_assert_nonnull(strstr(json_object_get_string_member(answer, "error"),
				"step 'test_fail' failed: fast"));
	entries = json_object_get_array_member(answer, "entries");
	for (guint i = 0; i < json_array_get_length(entries); i++) {
		JsonObject *entry = json_array_get_object_element(entries, i);

		g_assert_cmpint(json_object_get_int_member(entry, "seq"), ==, i);
		g_string_append_printf(seen, "%s %s; ",
				       json_object_get_string_member(entry, "step"),
				       json_object_get_string_member(entry, "state"));
	}
	g_assert_cmpstr(seen->str, ==,
			"appliance start; catalogue info; test_fail start; test_fail failed; "
			"appliance failed; ");
	/* from a later seq: only the rest */
	n = json_array_get_length(entries);
	g_clear_pointer(&answer, json_object_unref);
	answer = session_wait(fx, token, n - 1, 5);
	g_assert_cmpuint(json_array_get_length(json_object_get_array_member(answer, "entries")), ==,
			 1);
	assert_clean(fx, "final1", FALSE);
}

/* An aborted session tears everything down; its final answer says so. */
static void
test_session_abort(ApplFx *fx, gconstpointer data)
{
	g_autoptr(JsonObject) spec = make_spec(fx, "abort1", FALSE);
	g_autoptr(JsonObject) options = make_session_options(
		"abort1", "#!/bin/sh\n",
		"[{\"id\": \"T#1\", \"step\": \"test_sleep\", \"args\": {\"seconds\": 60}, "
		"\"timeout\": 120}]");
	g_autoptr(JsonObject) answer = NULL;
	g_autoptr(JsonNode) aborted = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *token = NULL;
	gint64 started = g_get_monotonic_time();

	g_setenv(GNT_HV_APPLIANCE_TEST_STEPS_ENV, "1", TRUE);
	token = gnt_node_call_appliance_start(fx->node1.client, fx->node1.record, spec, options,
					      &error);
	g_assert_no_error(error);
	/* the sleep started */
	for (;;) {
		g_autofree gchar *text = NULL;

		g_clear_pointer(&answer, json_object_unref);
		answer = session_wait(fx, token, 0, 5);
		text = gnt_json_to_string(json_object_get_member(answer, "entries"));
		if (strstr(text, "\"test_sleep\"") != NULL)
			break;
		g_assert_cmpstr(json_object_get_string_member(answer, "state"), ==, "running");
	}
	g_unsetenv(GNT_HV_APPLIANCE_TEST_STEPS_ENV);
	aborted = gnt_node_call_procedure(fx->node1.client, fx->node1.record, "session_abort",
					  GNT_RPC_VALUES({.s = token}), NULL, &error);
	g_assert_no_error(error);
	g_assert_true(json_node_get_boolean(aborted));
	g_assert_cmpint(g_get_monotonic_time() - started, <, 50 * G_USEC_PER_SEC);
	g_clear_pointer(&answer, json_object_unref);
	answer = session_wait(fx, token, 0, 5);
	g_assert_cmpstr(json_object_get_string_member(answer, "state"), ==, "failed");
	assert_clean(fx, "abort1", FALSE);
}

static void
test_bad_options(ApplFx *fx, gconstpointer data)
{
	g_autoptr(JsonObject) spec = make_spec(fx, "web4", FALSE);
	g_autoptr(JsonObject) options = make_options("web4", "#!/bin/sh\n", 0);
	g_autoptr(JsonObject) result = NULL;
	g_autoptr(GError) error = NULL;

	result = gnt_node_call_appliance_run(fx->node1.client, fx->node1.record, spec, options,
					     NULL, NULL, &error);
	g_assert_null(result);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	assert_error_has(error, "'timeout' must be 1..");
	g_clear_error(&error);

	json_object_set_int_member(options, "timeout", 10);
	json_object_remove_member(json_object_get_object_member(spec, "instance"),
				  "communication_nic");
	result = gnt_node_call_appliance_run(fx->node1.client, fx->node1.record, spec, options,
					     NULL, NULL, &error);
	g_assert_null(result);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	assert_error_has(error, "instance 'web4': ");
	assert_error_has(error, "communication_nic");
	assert_clean(fx, "web4", FALSE);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/appliance-rpc/success", ApplFx, NULL, appl_set_up, test_success,
		   appl_tear_down);
	g_test_add("/appliance-rpc/failed-script", ApplFx, NULL, appl_set_up, test_failed_script,
		   appl_tear_down);
	g_test_add("/appliance-rpc/timeout", ApplFx, NULL, appl_set_up, test_timeout,
		   appl_tear_down);
	g_test_add("/appliance-rpc/reinstall", ApplFx, NULL, appl_set_up, test_reinstall,
		   appl_tear_down);
	g_test_add("/appliance-rpc/agent-dies", ApplFx, NULL, appl_set_up, test_agent_dies,
		   appl_tear_down);
	g_test_add("/appliance-rpc/package", ApplFx, NULL, appl_set_up, test_package,
		   appl_tear_down);
	g_test_add("/appliance-rpc/communication-start-stop", ApplFx, NULL, appl_set_up,
		   test_communication_start_stop, appl_tear_down);
	g_test_add("/appliance-rpc/kvm-real", ApplFx, NULL, appl_set_up, test_kvm_real,
		   appl_tear_down);
	g_test_add("/appliance-rpc/steps", ApplFx, NULL, appl_set_up, test_steps, appl_tear_down);
	g_test_add("/appliance-rpc/steps-fail", ApplFx, NULL, appl_set_up, test_steps_fail,
		   appl_tear_down);
	g_test_add("/appliance-rpc/steps-test-only", ApplFx, NULL, appl_set_up,
		   test_steps_test_only, appl_tear_down);
	g_test_add("/appliance-rpc/step-data", ApplFx, NULL, appl_set_up, test_step_data,
		   appl_tear_down);
	g_test_add("/appliance-rpc/reboot", ApplFx, "fake", appl_set_up, test_reboot,
		   appl_tear_down);
	g_test_add("/appliance-rpc/reboot-swapped", ApplFx, "fake", appl_set_up,
		   test_reboot_swapped, appl_tear_down);
	g_test_add("/appliance-rpc/kvm-real-reboot", ApplFx, "kvm", appl_set_up, test_reboot,
		   appl_tear_down);
	g_test_add("/appliance-rpc/kvm-real-reboot-swapped", ApplFx, "kvm", appl_set_up,
		   test_reboot_swapped, appl_tear_down);
	g_test_add("/appliance-rpc/kvm-real-step-timeout", ApplFx, "kvm", appl_set_up,
		   test_step_timeout, appl_tear_down);
	g_test_add("/appliance-rpc/catalogue", ApplFx, NULL, appl_set_up, test_catalogue,
		   appl_tear_down);
	g_test_add("/appliance-rpc/step-timeout", ApplFx, "fake", appl_set_up, test_step_timeout,
		   appl_tear_down);
	g_test_add("/appliance-rpc/kvm-real-steps", ApplFx, NULL, appl_set_up, test_kvm_real_steps,
		   appl_tear_down);
	g_test_add("/appliance-rpc/session-final-entries", ApplFx, NULL, appl_set_up,
		   test_session_final_entries, appl_tear_down);
	g_test_add("/appliance-rpc/session-abort", ApplFx, NULL, appl_set_up, test_session_abort,
		   appl_tear_down);
	g_test_add("/appliance-rpc/session-unknown", ApplFx, NULL, appl_set_up,
		   test_session_unknown, appl_tear_down);
	g_test_add("/appliance-rpc/bad-options", ApplFx, NULL, appl_set_up, test_bad_options,
		   appl_tear_down);
	return g_test_run();
}
