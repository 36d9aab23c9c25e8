/*
 * kill -9 during an install appliance session on real libvirt (qemu TCG),
 * through every daemon (issue 15 item 5, issue 18; doc/install.md "Master
 * restarts", doc/appliance.md "noded restarts"). One cluster, one built
 * appliance, three adds in turn whose OS script sleeps inside the
 * appliance:
 *
 * - masterd killed, the job holding no secret: the new masterd takes the
 *   job up at its session and the add succeeds;
 * - masterd killed, the job holding a secret: the job fails with "secret
 *   parameters were lost at master restart", the recovery pass removes the
 *   instance and with it the session on the node;
 * - noded killed: the new noded destroys the appliance domain and tears the
 *   rest down, the job fails saying the node lost the session.
 *
 * After each: no install domain (virsh list --all), not the session's
 * channel tap (ip link), no metad record, no channel state.
 */
#include "gnt-test-installs.h"

#include "gnt-metad-client.h"
#include "gnt-metad-server.h"

#define JOB_TIMEOUT_S 300

typedef struct {
	GntTestCluster cluster;
	gchar *work;
	gchar *skip;
	gchar *tap; /* the channel tap of the session under test */
} KvmFx;

static void
kvm_set_up(KvmFx *fx, gconstpointer data)
{
	g_autofree gchar *kernel = gnt_test_find_cloud_kernel();
	g_autofree gchar *build = gnt_test_source_path("appliance", "build-appliance");
	g_autofree gchar *out = NULL;
	g_autofree gchar *os_dir = NULL;
	g_autoptr(GError) error = NULL;

	fx->skip = gnt_test_dup_libvirt_missing();
	if (fx->skip != NULL)
		return;
	if (kernel == NULL || !g_file_test("/bin/busybox", G_FILE_TEST_IS_EXECUTABLE)) {
		fx->skip = g_strdup("no /boot/vmlinuz-*-cloud-amd64 or /bin/busybox (install "
				    "linux-image-cloud-amd64 busybox-static)");
		return;
	}
	fx->work = g_dir_make_tmp("gtdetach-XXXXXX", &error);
	g_assert_no_error(error);
	os_dir = g_build_filename(fx->work, "os", NULL);
	gnt_test_installs_make_os(os_dir);
	gnt_test_cluster_init_kvm(&fx->cluster, (const gchar *)data, kernel);
	gnt_test_cluster_set_os_search_path(&fx->cluster, os_dir);
	out = g_build_filename(fx->cluster.root, "var", "lib", "gantry", "appliance", NULL);
	{
		const gchar *argv[] = {build, out, NULL};

		gnt_test_run_checked(argv);
	}
}

static void
kvm_tear_down(KvmFx *fx, gconstpointer data)
{
	if (fx->skip == NULL) {
		gnt_test_cluster_clear(&fx->cluster);
		gnt_test_remove_tree(fx->work);
	}
	g_free(fx->work);
	g_free(fx->skip);
	g_free(fx->tap);
}

static gchar *
channel_state_path(KvmFx *fx, const gchar *name)
{
	return g_build_filename(gnt_paths_get_run_dir(fx->cluster.paths), "channel", name, NULL);
}

/* Nothing of @name's session left: no install domain, not its tap (other
 * tests on the machine may have theirs), no channel state, no metad
 * record. */
static void
assert_nothing_left(KvmFx *fx, const gchar *name)
{
	g_autofree gchar *control = gnt_metad_dup_control_socket(fx->cluster.paths);
	g_autofree gchar *channel = channel_state_path(fx, name);
	g_autofree gchar *sys = g_build_filename("/sys/class/net", fx->tap, NULL);
	g_autoptr(GError) error = NULL;

	g_assert_false(gnt_test_cluster_install_domain_left(&fx->cluster));
	g_assert_false(g_file_test(sys, G_FILE_TEST_EXISTS));
	g_assert_false(g_file_test(channel, G_FILE_TEST_EXISTS));
	g_assert_false(gnt_metad_client_remove(control, name, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
}

/* The add of @name on kvm under TCG, its OS script sleeping @seconds in
 * the appliance, waited for until the script runs. */
static guint64
add_in_session(KvmFx *fx, const gchar *name, guint seconds, const gchar *extra)
{
	g_autofree gchar *more = g_strdup_printf(", \"beparams\": {\"memory\": 256},"
						 " \"hvparams\": {\"accel\": \"tcg\"}%s",
						 extra != NULL ? extra : "");
	guint64 id = gnt_test_installs_submit_add(&fx->cluster, name, "kvm", seconds, NULL, more);
	g_autofree gchar *channel = channel_state_path(fx, name);
	g_autofree gchar *sys = NULL;

	gnt_test_installs_wait_in_step(&fx->cluster, &id, 1, 120);
	/* the session's tap, named in the channel's state file */
	g_free(fx->tap);
	g_assert_true(g_file_get_contents(channel, &fx->tap, NULL, NULL));
	g_strstrip(fx->tap);
	sys = g_build_filename("/sys/class/net", fx->tap, NULL);
	g_assert_cmpstr(fx->tap, !=, "");
	g_assert_true(g_file_test(sys, G_FILE_TEST_EXISTS));
	return id;
}

static void
test_kill9(KvmFx *fx, gconstpointer data)
{
	g_autoptr(JsonArray) row = NULL;
	g_autofree gchar *text = NULL;
	gint64 t0 = g_get_monotonic_time();
	guint64 id;

	if (fx->skip != NULL) {
		g_test_skip(fx->skip);
		return;
	}
	/* masterd, no secret: resumed to success */
	id = add_in_session(fx, "resume.example.com", 5, NULL);
	row = gnt_test_installs_kill9_and_wait(&fx->cluster, "gantry-masterd", id, JOB_TIMEOUT_S);
	gnt_test_cluster_assert_success(row);
	text = gnt_test_job_log_text(row);
	gnt_test_assert_contains(text, "the master restarted while the job waited on a node");
	gnt_test_assert_contains(text, "install step run_os_scripts (70): done");
	g_assert_cmpuint(gnt_test_cluster_count_instances(&fx->cluster, "resume.example.com"), ==,
			 1);
	assert_nothing_left(fx, "resume.example.com");
	g_test_message("masterd killed, resumed: %.1f s",
		       (gdouble)(g_get_monotonic_time() - t0) / G_USEC_PER_SEC);

	/* masterd, a secret: fails, the recovery removes it all */
	t0 = g_get_monotonic_time();
	g_clear_pointer(&text, g_free);
	id = add_in_session(fx, "secret.example.com", 600,
			    ", \"osparams_secret\": {\"token\": \"s3cr3t\"}");
	text = gnt_test_installs_kill9_job_fails(&fx->cluster, "gantry-masterd", id, JOB_TIMEOUT_S,
						 "secret.example.com",
						 "secret parameters were lost at master restart",
						 120);
	assert_nothing_left(fx, "secret.example.com");
	g_test_message("masterd killed, a secret: %.1f s",
		       (gdouble)(g_get_monotonic_time() - t0) / G_USEC_PER_SEC);

	/* noded: torn down by the next noded, the job fails saying so */
	t0 = g_get_monotonic_time();
	g_clear_pointer(&text, g_free);
	id = add_in_session(fx, "lost.example.com", 600, NULL);
	text = gnt_test_installs_kill9_job_fails(
		&fx->cluster, "gantry-noded", id, JOB_TIMEOUT_S, "lost.example.com",
		"noded restarted during the install and tore down what it left", 0);
	assert_nothing_left(fx, "lost.example.com");
	g_test_message("noded killed: %.1f s",
		       (gdouble)(g_get_monotonic_time() - t0) / G_USEC_PER_SEC);
}

int
main(int argc, char **argv)
{
	g_autofree gchar *name = NULL;

	g_test_init(&argc, &argv, NULL);
	name = g_strdup_printf("detach%d.example.com", (gint)getpid());
	g_test_add("/detach-kvm/kill9", KvmFx, name, kvm_set_up, test_kill9, kvm_tear_down);
	return g_test_run();
}
