/*
 * Kickstart installs end to end on real libvirt (qemu, TCG), the channel on
 * a tap: a catalog image whose liveimg is a root filesystem tarball and
 * whose installer is Gantry's test installer (tests/installer, doc/
 * installer.md), the shipped default template. The job log shows the
 * installer's start then end; disk 0 holds the tarball's files and an
 * fstab (debugfs, from the host); the ks.cfg metad served (captured through
 * the instance's metad socket while the installer runs) passes the vendored
 * ksvalidator for RHEL9; after it ks.cfg and the session are gone, no
 * installer domain, no tap, and the token is in no file of the root. A
 * template whose %pre fails fails the job with the installer's console.
 * Skipped, saying why, when libvirtd, the kernel, busybox or the
 * installer's tools are missing.
 */
#include "gnt-test-cluster.h"

#include <signal.h>

#include <gio/gunixsocketaddress.h>
#include <libsoup/soup.h>

#include "gnt-metad-client.h"
#include "gnt-metad-server.h"

#define JOB_TIMEOUT_S 600
#define IMAGE_NAME    "rocky-test"
#define MARKER	      "installed by a kickstart install\n"

typedef struct {
	GntTestCluster cluster;
	gchar *work;
	gchar *skip;
} KsFx;

static gchar *
source_path(const gchar *top, const gchar *name)
{
	g_autofree gchar *tests = g_canonicalize_filename(g_getenv("GNT_TEST_SRCDIR"), NULL);
	g_autofree gchar *root = g_path_get_dirname(tests);

	return g_build_filename(root, top, name, NULL);
}

static gchar *
sha256_of_file(const gchar *path)
{
	g_autofree gchar *text = NULL;
	gsize len = 0;

	g_assert_true(g_file_get_contents(path, &text, &len, NULL));
	return g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)text, len);
}

/* The liveimg: etc/marker and a static busybox as /bin/sh (the default
 * template's chrooted %post runs in it). */
static gchar *
make_tarball(KsFx *fx)
{
	g_autofree gchar *tree = g_build_filename(fx->work, "root", NULL);
	g_autofree gchar *etc = g_build_filename(tree, "etc", NULL);
	g_autofree gchar *bin = g_build_filename(tree, "bin", NULL);
	g_autofree gchar *busybox = g_build_filename(bin, "busybox", NULL);
	g_autofree gchar *sh = g_build_filename(bin, "sh", NULL);
	gchar *tarball = g_build_filename(fx->work, "root.tar.gz", NULL);
	const gchar *cp[] = {"cp", "/bin/busybox", busybox, NULL};
	const gchar *tar[] = {"tar", "-C", tree, "-czf", tarball, "etc", "bin", NULL};

	g_assert_cmpint(g_mkdir_with_parents(etc, 0755), ==, 0);
	g_assert_cmpint(g_mkdir_with_parents(bin, 0755), ==, 0);
	gnt_test_write_file(etc, "marker", MARKER, 0644);
	gnt_test_run_checked(cp);
	g_assert_cmpint(symlink("busybox", sh), ==, 0);
	gnt_test_run_checked(tar);
	return tarball;
}

static void
ks_set_up(KsFx *fx, gconstpointer data)
{
	g_autofree gchar *kernel = gnt_test_find_cloud_kernel();
	g_autofree gchar *build = source_path("tests/installer", "build-installer");
	g_autofree gchar *name = g_strdup_printf("ks%d.example.com", (gint)getpid());
	g_autofree gchar *tarball = NULL;
	g_autofree gchar *sha256 = NULL;
	g_autofree gchar *stage2 = NULL;
	g_autofree gchar *op = NULL;
	g_autoptr(JsonArray) row = NULL;
	g_autoptr(GError) error = NULL;
	static const gchar *const tools[] = {"debugfs", "curl", "sfdisk", "mke2fs", "cpio", NULL};

	fx->skip = gnt_test_dup_libvirt_missing();
	if (fx->skip != NULL)
		return;
	if (kernel == NULL || !g_file_test("/bin/busybox", G_FILE_TEST_IS_EXECUTABLE)) {
		fx->skip = g_strdup("no /boot/vmlinuz-*-cloud-amd64 or /bin/busybox");
		return;
	}
	for (guint i = 0; tools[i] != NULL; i++) {
		g_autofree gchar *found = g_find_program_in_path(tools[i]);
		g_autofree gchar *sbin = g_build_filename("/sbin", tools[i], NULL);

		if (found == NULL && !g_file_test(sbin, G_FILE_TEST_IS_EXECUTABLE)) {
			fx->skip = g_strdup_printf("no %s (run scripts/install-deps)", tools[i]);
			return;
		}
	}
	fx->work = g_dir_make_tmp("gtks-XXXXXX", &error);
	g_assert_no_error(error);
	g_assert_cmpint(g_chmod(fx->work, 0755), ==, 0);
	gnt_test_cluster_init_kvm(&fx->cluster, name, kernel);
	{
		/* the installer's kernel and initrd where qemu may read them */
		const gchar *argv[] = {build, fx->cluster.boot_dir, NULL};

		gnt_test_run_checked(argv);
	}
	stage2 = g_build_filename(fx->work, "squashfs.img", NULL);
	g_assert_true(
		g_file_set_contents(stage2, "hsqs: stage 2 of the test installer\n", -1, NULL));
	tarball = make_tarball(fx);
	sha256 = sha256_of_file(tarball);
	op = g_strdup_printf(
		"{\"OP_ID\": \"OP_IMAGE_ADD\", \"image_name\": \"" IMAGE_NAME "\", \"url\": \"%s\","
		" \"format\": \"tarball\", \"sha256\": \"%s\", \"os_distro\": \"Rocky\","
		" \"os_version\": \"9.4\", \"installer_kernel\": \"%s/vmlinuz\","
		" \"installer_initrd\": \"%s/initrd.img\", \"installer_stage2\": \"%s\","
		" \"installer_memory\": 512}",
		tarball, sha256, fx->cluster.boot_dir, fx->cluster.boot_dir, stage2);
	row = gnt_test_cluster_run_op(&fx->cluster, op, 60);
	gnt_test_cluster_assert_success(row);
	g_clear_pointer(&row, json_array_unref);
	g_free(op);
	op = g_strdup_printf("{\"OP_ID\": \"OP_CLUSTER_SET_PARAMS\", \"ksvalidator\": \"%s\","
			     " \"installer_start_timeout\": 300, \"installer_end_timeout\": 300,"
			     " \"installer_poweroff_grace\": 30}",
			     g_getenv("GNT_TEST_KSVALIDATOR"));
	row = gnt_test_cluster_run_op(&fx->cluster, op, 60);
	gnt_test_cluster_assert_success(row);
}

static void
ks_tear_down(KsFx *fx, gconstpointer data)
{
	gnt_test_cluster_clear(&fx->cluster);
	if (fx->work != NULL)
		gnt_test_remove_tree(fx->work);
	g_free(fx->work);
	g_free(fx->skip);
}

static gchar *
disk_cat(const gchar *disk, const gchar *path)
{
	g_autofree gchar *request = g_strdup_printf("cat %s", path);
	g_autofree gchar *partition = g_strdup_printf("%s", disk);
	const gchar *argv[] = {
		"sh", "-c",
		/* the first partition of the disk: sfdisk's start, in bytes */
		"start=$(sfdisk -d \"$1\" | sed -n 's/.*start= *\\([0-9]*\\).*/\\1/p' "
		"| head -n 1); debugfs -R \"$2\" \"$1?offset=$((start * 512))\" "
		"2>/dev/null",
		"sh", partition, request, NULL};
	g_autoptr(GError) error = NULL;
	g_autoptr(GSubprocess)
		proc = g_subprocess_newv(argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error);
	gchar *text = NULL;

	g_assert_no_error(error);
	g_assert_true(g_subprocess_communicate_utf8(proc, NULL, NULL, &text, NULL, &error));
	g_assert_no_error(error);
	return text;
}

/* The ks.cfg metad serves @instance, fetched through its unix socket
 * (what the installer gets through the tap) as soon as there is one. */
typedef struct {
	gchar *socket;
	gchar *ks;
	gint stop; /* atomic */
} Capture;

static gpointer
capture_thread(gpointer data)
{
	Capture *capture = data;

	while (!g_atomic_int_get(&capture->stop) && capture->ks == NULL) {
		g_autoptr(GSocketAddress) address = g_unix_socket_address_new(capture->socket);
		g_autoptr(SoupSession) session = soup_session_new_with_options(
			"remote-connectable", address, "proxy-resolver", NULL, "timeout", 5, NULL);
		g_autoptr(SoupMessage) msg = soup_message_new(
			"GET", "http://169.254.169.254/gantry/latest/install/ks.cfg");
		g_autoptr(GBytes) body = NULL;

		if (g_file_test(capture->socket, G_FILE_TEST_EXISTS))
			body = soup_session_send_and_read(session, msg, NULL, NULL);
		if (body != NULL && soup_message_get_status(msg) == 200)
			capture->ks =
				g_strndup(g_bytes_get_data(body, NULL), g_bytes_get_size(body));
		else
			g_usleep(50 * 1000);
	}
	return NULL;
}

/* ksvalidator -v RHEL9 on @text: status 0 and nothing after its banner
 * (its exit status wraps at 256, doc/kickstart.md) */
static void
assert_ksvalidator_passes(KsFx *fx, const gchar *text)
{
	g_autofree gchar *path = g_build_filename(fx->work, "served-ks.cfg", NULL);
	const gchar *argv[] = {g_getenv("GNT_TEST_KSVALIDATOR"), "-v", "RHEL9", path, NULL};
	g_autofree gchar *out = NULL;
	g_autofree gchar *err = NULL;
	g_auto(GStrv) lines = NULL;
	gint status = 0;

	g_assert_true(g_file_set_contents(path, text, -1, NULL));
	g_assert_true(
		g_spawn_sync(NULL, (gchar **)argv, NULL, 0, NULL, NULL, &out, &err, &status, NULL));
	g_unlink(path);
	g_test_message("ksvalidator -v RHEL9 on the served ks.cfg: %s%s", out, err);
	g_assert_cmpint(status, ==, 0);
	g_assert_cmpstr(err, ==, "");
	lines = g_strsplit(g_strstrip(out), "\n", -1);
	g_assert_cmpuint(g_strv_length(lines), <=, 1);
}

/* Nothing of the install left on the node (metad still running); then,
 * the cluster stopped, @token in no file of the root */
static void
assert_nothing_left(KsFx *fx, const gchar *instance, const gchar *token)
{
	g_autofree gchar *control = gnt_metad_dup_control_socket(fx->cluster.paths);
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) session = gnt_metad_client_get_install(control, instance, 0, 0, &error);
	const gchar *nowhere[] = {token, NULL};
	g_autofree gchar *channel = g_build_filename(gnt_paths_get_run_dir(fx->cluster.paths),
						     "channel", instance, NULL);

	g_assert_null(session);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	g_assert_false(gnt_test_cluster_install_domain_left(&fx->cluster));
	g_assert_cmpuint(gnt_test_cluster_count_domains(&fx->cluster), ==, 0);
	/* its tap is gone, and no channel state */
	g_assert_cmpuint(gnt_test_cluster_count_taps(&fx->cluster), ==, 0);
	g_assert_false(g_file_test(channel, G_FILE_TEST_EXISTS));
	gnt_test_cluster_stop(&fx->cluster);
	if (token != NULL)
		g_test_message("scanned %u files: none holds the token",
			       gnt_test_scan_tree(fx->cluster.root, nowhere, NULL, NULL));
}

/* The token in a served kickstart (its agent_token). (transfer full) */
static gchar *
token_of(const gchar *ks)
{
	const gchar *at = strstr(ks, "\"agent_token\": \"");

	g_assert_nonnull(at);
	at += strlen("\"agent_token\": \"");
	return g_strndup(at, strcspn(at, "\""));
}

static JsonArray *
create(KsFx *fx, const gchar *instance, guint disk_mib, const gchar *firmware, const gchar *extra,
       gchar **ks_out)
{
	g_autofree gchar *op = g_strdup_printf(
		"{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\": \"%s\","
		" \"mode\": \"create\", \"hypervisor\": \"kvm\", \"disk_template\": \"file\","
		" \"disks\": [{\"size\": %u}], \"nics\": [], \"os_image\": \"" IMAGE_NAME "\","
		" \"start\": false, \"hvparams\": {\"accel\": \"tcg\", \"firmware\": \"%s\"}%s}",
		instance, disk_mib, firmware, extra != NULL ? extra : "");
	Capture capture = {.socket = gnt_metad_dup_instance_socket(fx->cluster.paths, instance)};
	GThread *thread = g_thread_new("capture", capture_thread, &capture);
	JsonArray *row = gnt_test_cluster_run_op(&fx->cluster, op, JOB_TIMEOUT_S);

	g_atomic_int_set(&capture.stop, 1);
	g_thread_join(thread);
	g_free(capture.socket);
	*ks_out = capture.ks;
	return row;
}

/* Creates @instance with the kickstart template @content, written as
 * @file under the cluster's kickstart directory: the job's row; *@ks as
 * create() gives it. */
static JsonArray *
create_with_template(KsFx *fx, const gchar *instance, const gchar *file, const gchar *content,
		     gchar **ks)
{
	g_autofree gchar *dir =
		g_build_filename(fx->cluster.root, "etc", "gantry", "kickstart", NULL);
	g_autofree gchar *extra = NULL;

	g_assert_cmpint(g_mkdir_with_parents(dir, 0700), ==, 0);
	gnt_test_write_file(dir, file, content, 0644);
	extra = g_strdup_printf(", \"ks_template\": \"file://%s/%s\"", dir, file);
	return create(fx, instance, 256, "bios", extra, ks);
}

static void
test_tarball(KsFx *fx, gconstpointer data)
{
	/* @data "uefi": the installer under OVMF with the instance's UEFI
	 * variables, the kickstart rendered for UEFI */
	gboolean uefi = g_strcmp0(data, "uefi") == 0;
	g_autoptr(JsonArray) row = NULL;
	g_autofree gchar *ks = NULL;
	g_autofree gchar *token = NULL;
	g_autofree gchar *log = NULL;
	g_autofree gchar *marker = NULL;
	g_autofree gchar *fstab = NULL;
	g_autofree gchar *disk_dir = NULL;
	g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);
	gint64 t0 = g_get_monotonic_time();
	const gchar *start = NULL;
	const gchar *end = NULL;

	if (fx->skip != NULL) {
		g_test_skip(fx->skip);
		return;
	}
	if (uefi && !g_file_test("/usr/share/OVMF/OVMF_CODE_4M.fd", G_FILE_TEST_EXISTS)) {
		g_test_skip("no OVMF (install ovmf)");
		return;
	}
	/* the shipped default wants 2 GiB for / (a sparse file) */
	row = create(fx, "ks1.example.com", 2560, uefi ? "uefi" : "bios", NULL, &ks);
	gnt_test_cluster_assert_success(row);
	g_test_message("kickstart install took %.1f s",
		       (gdouble)(g_get_monotonic_time() - t0) / G_USEC_PER_SEC);
	log = gnt_test_job_log_text(row);
	g_test_message("job log:\n%s", log);
	start = strstr(log, "installer: start");
	end = strstr(log, "installer: end");
	g_assert_nonnull(start);
	g_assert_nonnull(end);
	g_assert_true(start < end);
	gnt_test_assert_contains(log, "the kickstart installer installs the OS");
	/* the file served, as served */
	g_assert_nonnull(ks);
	assert_ksvalidator_passes(fx, ks);
	token = token_of(ks);
	g_assert_cmpuint(strlen(token), ==, 43);
	/* disk 0: the tarball's files and an fstab */
	disk_dir = gnt_test_cluster_dup_file_storage_dir(&fx->cluster);
	gnt_test_cluster_list_files(disk_dir, files);
	g_assert_cmpuint(files->len, ==, 1);
	marker = disk_cat(files->pdata[0], "/etc/marker");
	g_assert_cmpstr(marker, ==, MARKER);
	fstab = disk_cat(files->pdata[0], "/etc/fstab");
	gnt_test_assert_contains(fstab, " / ext4 defaults 1 1");
	assert_nothing_left(fx, "ks1.example.com", token);
}

/* A template whose %pre fails: the job fails with the installer's error
 * and its console; nothing is left */
static void
test_failing_pre(KsFx *fx, gconstpointer data)
{
	g_autoptr(JsonArray) row = NULL;
	g_autofree gchar *ks = NULL;
	g_autofree gchar *token = NULL;
	g_autofree gchar *text = NULL;

	if (fx->skip != NULL) {
		g_test_skip(fx->skip);
		return;
	}
	row = create_with_template(
		fx, "ks2.example.com", "fail.ks",
		"cmdline\nzerombr\nclearpart --all --initlabel\nreqpart\n"
		"part / --fstype=xfs --size=100 --grow\n"
		"%pre --erroronfail\necho 'the disk is on fire' >&2\nexit 3\n%end\n",
		&ks);
	text = gnt_test_cluster_row_to_string(row);
	g_test_message("%s", text);
	g_assert_cmpstr(json_array_get_string_element(row, 0), ==, "error");
	gnt_test_assert_contains(
		text, "reported an error: the installer failed: see the instance console");
	gnt_test_assert_contains(text, "the disk is on fire");
	g_assert_cmpuint(gnt_test_cluster_count_instances(&fx->cluster, "ks2.example.com"), ==, 0);
	token = ks != NULL ? token_of(ks) : NULL;
	assert_nothing_left(fx, "ks2.example.com", token);
}

/* An installer that powers off after start without reporting end (a
 * %post --nochroot of the template, before Gantry's end report): the job
 * fails saying so, with the console; nothing is left */
static void
test_poweroff_without_end(KsFx *fx, gconstpointer data)
{
	g_autoptr(JsonArray) row = NULL;
	g_autofree gchar *ks = NULL;
	g_autofree gchar *token = NULL;
	g_autofree gchar *text = NULL;
	g_autofree gchar *log = NULL;

	if (fx->skip != NULL) {
		g_test_skip(fx->skip);
		return;
	}
	row = create_with_template(fx, "ks3.example.com", "off.ks",
				   "cmdline\nzerombr\nclearpart --all --initlabel\nreqpart\n"
				   "part / --fstype=xfs --size=100 --grow\n"
				   "%post --nochroot\necho 'pulling the plug'\npoweroff -f\n%end\n",
				   &ks);
	text = gnt_test_cluster_row_to_string(row);
	log = gnt_test_job_log_text(row);
	g_test_message("%s", text);
	g_assert_cmpstr(json_array_get_string_element(row, 0), ==, "error");
	gnt_test_assert_contains(log, "installer: start");
	g_assert_null(strstr(log, "installer: end"));
	gnt_test_assert_contains(text,
				 "powered off without reporting end; its console ended with: ");
	gnt_test_assert_contains(text, "pulling the plug");
	token = ks != NULL ? token_of(ks) : NULL;
	assert_nothing_left(fx, "ks3.example.com", token);
}

/* noded killed with SIGKILL while the installer runs (after its start):
 * the job fails, and the noded started again removes what the run left:
 * the installer domain, its tap, metad's session */
static void
test_noded_killed(KsFx *fx, gconstpointer data)
{
	g_autofree gchar *dir =
		g_build_filename(fx->cluster.root, "etc", "gantry", "kickstart", NULL);
	g_autofree gchar *op = NULL;
	g_autofree gchar *control = gnt_metad_dup_control_socket(fx->cluster.paths);
	g_autofree gchar *channel = g_build_filename(gnt_paths_get_run_dir(fx->cluster.paths),
						     "channel", "ks4.example.com", NULL);
	g_autoptr(JsonArray) ops = json_array_new();
	g_autoptr(JsonNode) parsed = NULL;
	g_autoptr(JsonArray) row = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) session = NULL;
	gboolean started = FALSE;
	guint64 id = 0;
	GPid pid;

	if (fx->skip != NULL) {
		g_test_skip(fx->skip);
		return;
	}
	g_assert_cmpint(g_mkdir_with_parents(dir, 0700), ==, 0);
	gnt_test_write_file(dir, "slow.ks",
			    "cmdline\nzerombr\nclearpart --all --initlabel\nreqpart\n"
			    "part / --fstype=xfs --size=100 --grow\n"
			    "%post --nochroot\nsleep 600\n%end\n",
			    0644);
	op = g_strdup_printf(
		"{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\": \"ks4.example.com\","
		" \"mode\": \"create\", \"hypervisor\": \"kvm\", \"disk_template\": \"file\","
		" \"disks\": [{\"size\": 256}], \"nics\": [], \"os_image\": \"" IMAGE_NAME "\","
		" \"start\": false, \"hvparams\": {\"accel\": \"tcg\"},"
		" \"ks_template\": \"file://%s/slow.ks\"}",
		dir);
	parsed = gnt_json_parse(op, -1, &error);
	g_assert_no_error(error);
	json_array_add_element(ops, g_steal_pointer(&parsed));
	g_assert_true(gnt_luxi_client_submit_job(fx->cluster.client, ops, &id, &error));
	g_assert_no_error(error);
	/* until the installer reported start (metad's session says so) */
	for (guint i = 0; i < 1200 && !started; i++) {
		g_autoptr(GError) local = NULL;
		g_autoptr(JsonNode) state =
			gnt_metad_client_get_install(control, "ks4.example.com", 0, 0, &local);

		started = state != NULL && g_strcmp0(json_object_get_string_member(
							     json_node_get_object(state), "state"),
						     "started") == 0;
		if (!started)
			g_usleep(100 * 1000);
	}
	g_assert_true(started);
	pid = gnt_test_cluster_daemon_pid(&fx->cluster, "gantry-noded");
	g_assert_cmpint(kill(pid, SIGKILL), ==, 0);
	row = gnt_test_cluster_wait_job(&fx->cluster, id, 120);
	g_assert_cmpstr(json_array_get_string_element(row, 0), ==, "error");
	/* the installer still runs: nobody else ends it */
	g_assert_true(g_file_test(channel, G_FILE_TEST_EXISTS));
	gnt_test_cluster_start_daemons(&fx->cluster);
	/* noded's start removed it all */
	session = gnt_metad_client_get_install(control, "ks4.example.com", 0, 0, &error);
	g_assert_null(session);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	g_assert_false(gnt_test_cluster_install_domain_left(&fx->cluster));
	g_assert_false(g_file_test(channel, G_FILE_TEST_EXISTS));
	g_assert_cmpuint(gnt_test_cluster_count_taps(&fx->cluster), ==, 0);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/system/kickstart-kvm/tarball", KsFx, NULL, ks_set_up, test_tarball,
		   ks_tear_down);
	g_test_add("/system/kickstart-kvm/failing-pre", KsFx, NULL, ks_set_up, test_failing_pre,
		   ks_tear_down);
	g_test_add("/system/kickstart-kvm/poweroff-without-end", KsFx, NULL, ks_set_up,
		   test_poweroff_without_end, ks_tear_down);
	g_test_add("/system/kickstart-kvm/uefi", KsFx, "uefi", ks_set_up, test_tarball,
		   ks_tear_down);
	g_test_add("/system/kickstart-kvm/noded-killed", KsFx, NULL, ks_set_up, test_noded_killed,
		   ks_tear_down);
	return g_test_run();
}
