/*
 * Long installs do not hold the master (issue 15 item 5, doc/jobqueue.md
 * "Waiting jobs", doc/appliance.md "Sessions"), with the fake hypervisor
 * through every daemon:
 *
 * - twenty adds whose appliance sessions sleep: an OP_TEST_DELAY(0) job
 *   submitted while all twenty wait completes before any of them (they
 *   hold no worker; max_running_jobs is 20);
 * - noded killed while a session runs: the new noded tears down what the
 *   old one left, the job fails saying the node lost the session, nothing
 *   of the session is left on the node;
 * - masterd killed while a session runs: the new masterd takes the job up
 *   at the session (reattaches) and the job succeeds;
 * - masterd killed while a session of a job holding a secret runs: the job
 *   fails with "secret parameters were lost at master restart", the
 *   recovery pass removes the instance, which ends the session on the node
 *   first: nothing is left.
 */
#include "gnt-test-installs.h"

#include "gnt-metad-client.h"
#include "gnt-metad-server.h"

#define N_INSTALLS    20
#define JOB_TIMEOUT_S 300

typedef struct {
	GntTestCluster cluster;
	gchar *os_dir;
} DetachFx;

static void
detach_set_up(DetachFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;

	fx->os_dir = g_dir_make_tmp("gtc-os-XXXXXX", &error);
	g_assert_no_error(error);
	gnt_test_installs_make_os(fx->os_dir);
	gnt_test_cluster_init_with_os(&fx->cluster, (const gchar *)data, fx->os_dir,
				      GNT_TEST_INSTALLS_OS);
}

static void
detach_tear_down(DetachFx *fx, gconstpointer data)
{
	gnt_test_cluster_clear(&fx->cluster);
	gnt_test_remove_tree(fx->os_dir);
	g_free(fx->os_dir);
}

/* Nothing of an install session is left on the node: no work directory,
 * no channel, no metad record of @name. */
static void
assert_node_clean(DetachFx *fx, const gchar *name)
{
	const gchar *run = gnt_paths_get_run_dir(fx->cluster.paths);
	g_autofree gchar *appliance = g_build_filename(run, "appliance", name, NULL);
	g_autofree gchar *channel = g_build_filename(run, "channel", name, NULL);

	g_assert_false(g_file_test(appliance, G_FILE_TEST_EXISTS));
	g_assert_false(g_file_test(channel, G_FILE_TEST_EXISTS));
}

static void
test_twenty_installs(DetachFx *fx, gconstpointer data)
{
	g_autofree gchar *go = g_build_filename(fx->os_dir, "go", NULL);
	guint64 ids[N_INSTALLS];
	gint64 delay_usec;

	for (guint i = 0; i < N_INSTALLS; i++) {
		g_autofree gchar *name = g_strdup_printf("slow%02u.example.com", i);

		ids[i] = gnt_test_installs_submit_add(&fx->cluster, name, "fake", 600, go, NULL);
	}
	gnt_test_installs_wait_in_step(&fx->cluster, ids, N_INSTALLS, 240);
	delay_usec = gnt_test_installs_delay_usec(&fx->cluster, 25);
	g_test_message("OP_TEST_DELAY(0) while %u installs wait: %.1f ms from submit to done",
		       N_INSTALLS, (gdouble)delay_usec / 1000);
	/* it ran while every install still waited on the node */
	for (guint i = 0; i < N_INSTALLS; i++) {
		g_autofree gchar *status = gnt_test_installs_job_status(&fx->cluster, ids[i]);

		g_assert_cmpstr(status, ==, "running");
	}
	/* their scripts end now */
	gnt_test_write_file(NULL, go, "", 0644);
	for (guint i = 0; i < N_INSTALLS; i++) {
		g_autoptr(JsonArray)
			row = gnt_test_cluster_wait_job(&fx->cluster, ids[i], JOB_TIMEOUT_S);
		g_autofree gchar *name = g_strdup_printf("slow%02u.example.com", i);

		gnt_test_cluster_assert_success(row);
		assert_node_clean(fx, name);
	}
}

/* The add of @name in its session (a sleep of 10 minutes). */
static guint64
add_in_session(DetachFx *fx, const gchar *name, const gchar *extra)
{
	guint64 id = gnt_test_installs_submit_add(&fx->cluster, name, "fake", 600, NULL, extra);

	gnt_test_installs_wait_in_step(&fx->cluster, &id, 1, 60);
	return id;
}

static void
test_noded_killed(DetachFx *fx, gconstpointer data)
{
	const gchar *name = "lost1.example.com";
	guint64 id = add_in_session(fx, name, NULL);
	/* the failed add removed what it made (at once: no wait) */
	g_autofree gchar *text = gnt_test_installs_kill9_job_fails(
		&fx->cluster, "gantry-noded", id, JOB_TIMEOUT_S, name,
		"noded restarted during the install and tore down what it left", 0);

	gnt_test_assert_contains(text, "no install session");
	assert_node_clean(fx, name);
}

/* masterd killed while a job without secrets waits on its session: the
 * new masterd takes the job up at the session, which goes on to its end;
 * the job succeeds. */
static void
test_masterd_killed(DetachFx *fx, gconstpointer data)
{
	const gchar *name = "resumed1.example.com";
	guint64 id = gnt_test_installs_submit_add(&fx->cluster, name, "fake", 8, NULL, NULL);
	g_autoptr(JsonArray) row = NULL;
	g_autofree gchar *log = NULL;

	gnt_test_installs_wait_in_step(&fx->cluster, &id, 1, 60);
	row = gnt_test_installs_kill9_and_wait(&fx->cluster, "gantry-masterd", id, JOB_TIMEOUT_S);
	gnt_test_cluster_assert_success(row);
	log = gnt_test_job_log_text(row);
	gnt_test_assert_contains(log, "the master restarted while the job waited on a node: it "
				      "goes on from there");
	gnt_test_assert_contains(log, "taking the install of resumed1.example.com up again");
	/* the session's steps after the restart, from its start (replayed) */
	gnt_test_assert_contains(log, "install step run_os_scripts (70): done");
	gnt_test_assert_contains(log, "install step tear_down_appliance (40): done");
	g_assert_cmpuint(gnt_test_cluster_count_instances(&fx->cluster, name), ==, 1);
	assert_node_clean(fx, name);
}

/* masterd killed while job @id (of instance @name) waits on the node: at
 * the restart the job fails with @message, and the recovery pass removes
 * the instance (its disks go once the session on them has ended). */
static void
masterd_killed_job_fails(DetachFx *fx, guint64 id, const gchar *name, const gchar *message)
{
	g_free(gnt_test_installs_kill9_job_fails(&fx->cluster, "gantry-masterd", id, JOB_TIMEOUT_S,
						 name, message, 60));
}

/* The same for a reinstall: the new masterd checks it again, takes its
 * install up at the session, and the job succeeds. */
static void
test_masterd_killed_reinstall(DetachFx *fx, gconstpointer data)
{
	const gchar *name = "again1.example.com";
	guint64 id = gnt_test_installs_submit_add(&fx->cluster, name, "fake", 0, NULL, NULL);
	g_autoptr(JsonArray) added = gnt_test_cluster_wait_job(&fx->cluster, id, JOB_TIMEOUT_S);
	g_autofree gchar *op = g_strdup_printf(
		"{\"OP_ID\": \"OP_INSTANCE_REINSTALL\", \"instance_name\": \"%s\","
		" \"enable_safe_install\": true, \"osparams\": {\"seconds\": \"8\"}}",
		name);
	g_autoptr(JsonArray) row = NULL;
	g_autofree gchar *log = NULL;

	gnt_test_cluster_assert_success(added);
	id = gnt_test_installs_submit(&fx->cluster, op);
	gnt_test_installs_wait_in_step(&fx->cluster, &id, 1, 60);
	row = gnt_test_installs_kill9_and_wait(&fx->cluster, "gantry-masterd", id, JOB_TIMEOUT_S);
	gnt_test_cluster_assert_success(row);
	log = gnt_test_job_log_text(row);
	gnt_test_assert_contains(log, "taking the reinstall of again1.example.com up again");
	gnt_test_assert_contains(log, "install step tear_down_appliance (40): done");
	assert_node_clean(fx, name);
}

static void
test_masterd_killed_secret(DetachFx *fx, gconstpointer data)
{
	const gchar *name = "secret1.example.com";
	guint64 id = add_in_session(fx, name, ", \"osparams_secret\": {\"token\": \"s3cr3t\"}");

	masterd_killed_job_fails(fx, id, name, "secret parameters were lost at master restart");
	assert_node_clean(fx, name);
}

/* masterd killed during a kickstart install (no resume there): the job
 * fails, the recovery pass removes the instance, whose removal ends the
 * installer's session on the node first: no metad session, no channel. */
static void
test_kickstart_masterd_killed(DetachFx *fx, gconstpointer data)
{
	const gchar *name = "ks1.example.com";
	g_autofree gchar *control = gnt_metad_dup_control_socket(fx->cluster.paths);
	g_autoptr(JsonNode) session = NULL;
	g_autoptr(GError) error = NULL;
	guint64 id;

	gnt_test_installs_prepare_kickstart(&fx->cluster, fx->os_dir);
	id = gnt_test_installs_submit_kickstart(&fx->cluster, name);
	gnt_test_installs_wait_started(&fx->cluster, id, 60);
	masterd_killed_job_fails(fx, id, name,
				 "the master daemon stopped while the job was running");
	session = gnt_metad_client_get_install(control, name, 0, 0, &error);
	g_assert_null(session);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	assert_node_clean(fx, name);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/detach/twenty-installs", DetachFx, "detach-twenty.example.com", detach_set_up,
		   test_twenty_installs, detach_tear_down);
	g_test_add("/detach/noded-killed", DetachFx, "detach-noded.example.com", detach_set_up,
		   test_noded_killed, detach_tear_down);
	g_test_add("/detach/masterd-killed", DetachFx, "detach-masterd.example.com", detach_set_up,
		   test_masterd_killed, detach_tear_down);
	g_test_add("/detach/masterd-killed-reinstall", DetachFx, "detach-again.example.com",
		   detach_set_up, test_masterd_killed_reinstall, detach_tear_down);
	g_test_add("/detach/masterd-killed-secret", DetachFx, "detach-secret.example.com",
		   detach_set_up, test_masterd_killed_secret, detach_tear_down);
	g_test_add("/detach/kickstart-masterd-killed", DetachFx, "detach-ks.example.com",
		   detach_set_up, test_kickstart_masterd_killed, detach_tear_down);
	return g_test_run();
}
