/*
 * Kickstart installs end to end on real libvirt (qemu, TCG), the channel on
 * a tap: a catalog image whose liveimg is the test payload (tests/installer/
 * build-payload: a tiny bootable system) and whose installer is Gantry's
 * test installer (tests/installer, doc/installer.md), the shipped default
 * template. The job log shows the installer's start then end; disk 0 holds
 * the tarball's files and an fstab (debugfs, from the host) and the boot
 * loader the installer put on it for the firmware (BIOS, UEFI); the
 * instance, started by the install's boot step, boots from that disk to
 * the payload's marker on its serial console. A reinstall gets a new token;
 * the old one gets the same 404 as an unknown path. The ks.cfg metad served (captured through
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
#include "image-test-server.h"

#define JOB_TIMEOUT_S 600
#define IMAGE_NAME    "rocky-test"
#define PACKAGE_LINE  "from the personalization package"

typedef struct {
	GntTestCluster cluster;
	gchar *work;
	gchar *skip;
	gchar *marker; /* the payload's line, with its newline */
} KsFx;

static gchar *
sha256_of_file(const gchar *path)
{
	g_autofree gchar *text = NULL;
	gsize len = 0;

	g_assert_true(g_file_get_contents(path, &text, &len, NULL));
	return g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)text, len);
}

/* The liveimg: the test payload (tests/installer/build-payload, cached in
 * GNT_TEST_PAYLOAD_DIR): this machine's kernel and an initramfs printing
 * the marker in /boot, /etc/marker, busybox as /bin/sh (the default
 * template's chrooted %post runs in it). Its path; *@marker the line. */
static gchar *
build_payload(gchar **marker)
{
	g_autofree gchar *build = gnt_test_source_path("tests/installer", "build-payload");
	const gchar *dir = g_getenv("GNT_TEST_PAYLOAD_DIR");
	const gchar *argv[] = {build, dir, NULL};
	g_autofree gchar *marker_path = g_build_filename(dir, "marker", NULL);

	g_assert_nonnull(dir);
	gnt_test_run_checked(argv);
	g_assert_true(g_file_get_contents(marker_path, marker, NULL, NULL));
	return g_build_filename(dir, "payload.tar.gz", NULL);
}

static void
ks_set_up(KsFx *fx, gconstpointer data)
{
	g_autofree gchar *kernel = gnt_test_find_cloud_kernel();
	g_autofree gchar *build = gnt_test_source_path("tests/installer", "build-installer");
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
	tarball = build_payload(&fx->marker);
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
	g_free(fx->marker);
}

/* What @argv printed on its standard output. (transfer full) */
static gchar *
command_output(const gchar *const *argv)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GSubprocess)
		proc = g_subprocess_newv(argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error);
	gchar *text = NULL;

	g_assert_no_error(error);
	g_assert_true(g_subprocess_communicate_utf8(proc, NULL, NULL, &text, NULL, &error));
	g_assert_no_error(error);
	return text;
}

static gchar *
disk_cat(const gchar *disk, const gchar *path)
{
	g_autofree gchar *request = g_strdup_printf("cat %s", path);
	g_autofree gchar *partition = g_strdup_printf("%s", disk);
	const gchar *argv[] = {
		"sh", "-c",
		/* the last partition of the disk (/, after the ones the
		 * firmware needs): sfdisk's start, in bytes */
		"start=$(sfdisk -d \"$1\" | sed -n 's/.*start= *\\([0-9]*\\).*/\\1/p' "
		"| tail -n 1); debugfs -R \"$2\" \"$1?offset=$((start * 512))\" "
		"2>/dev/null",
		"sh", partition, request, NULL};

	return command_output(argv);
}

/* @body POSTed to @path through @socket (what the installer reaches
 * through the tap): the whole answer as sent, its Date line dropped (the
 * clock may tick between two). */
static gchar *
post_raw(const gchar *socket, const gchar *path, const gchar *body)
{
	g_autoptr(GSocketAddress) address = g_unix_socket_address_new(socket);
	g_autoptr(GSocketClient) client = g_socket_client_new();
	g_autoptr(GSocketConnection) conn = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *request = g_strdup_printf(
		"POST %s HTTP/1.1\r\nHost: 169.254.169.254\r\nContent-Type: application/json"
		"\r\nContent-Length: %zu\r\n\r\n%s",
		path, strlen(body), body);
	g_autoptr(GString) answer = g_string_new(NULL);
	gchar buf[4096];
	gssize n;
	gchar *date;

	/* metad may be making the instance's socket again (a record pushed
	 * meanwhile): a few tries; the job's row says why when the session
	 * is gone */
	for (guint i = 0; i < 100 && conn == NULL; i++) {
		g_clear_error(&error);
		conn = g_socket_client_connect(client, G_SOCKET_CONNECTABLE(address), NULL, &error);
		if (conn == NULL)
			g_usleep(50 * 1000);
	}
	if (conn == NULL ||
	    !g_output_stream_write_all(g_io_stream_get_output_stream(G_IO_STREAM(conn)), request,
				       strlen(request), NULL, NULL, &error)) {
		g_test_message("POST %s: %s", path, error->message);
		return NULL;
	}
	/* until the answer's Content-Length is in: the instance's socket is
	 * a stream metad never closes (doc/metad.md, the slirp fallback) */
	while ((n = g_input_stream_read(g_io_stream_get_input_stream(G_IO_STREAM(conn)), buf,
					sizeof(buf), NULL, &error)) > 0) {
		const gchar *end;
		const gchar *length;

		g_string_append_len(answer, buf, n);
		end = strstr(answer->str, "\r\n\r\n");
		length = strstr(answer->str, "\r\nContent-Length: ");
		if (end != NULL && length != NULL && length < end &&
		    answer->len >= (gsize)(end + 4 - answer->str) +
					   g_ascii_strtoull(length + 18, NULL, 10))
			break;
	}
	date = strstr(answer->str, "\r\nDate: ");
	if (date != NULL)
		g_string_erase(answer, date - answer->str + 2,
			       strstr(date + 2, "\r\n") + 2 - (date + 2));
	return g_string_free(g_steal_pointer(&answer), FALSE);
}

/* The ks.cfg metad serves @instance, fetched through its unix socket
 * (what the installer gets through the tap) as soon as there is one.
 * With @old_token (a reinstall's), once the new session is there: the
 * answers to a start report with the old token and to the same report
 * on an unknown path. */
typedef struct {
	gchar *socket;
	const gchar *old_token;
	gchar *ks;
	gchar *old_token_answer, *unknown_path_answer;
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
	if (capture->ks != NULL && capture->old_token != NULL) {
		g_autofree gchar *report = g_strdup_printf(
			"{\"agent_status\": \"start\", \"agent_status_message\": \"stale\","
			" \"agent_token\": \"%s\"}",
			capture->old_token);

		capture->old_token_answer =
			post_raw(capture->socket, "/gantry/latest/install/callback", report);
		capture->unknown_path_answer =
			post_raw(capture->socket, "/gantry/latest/install/nothing-here", report);
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
assert_nothing_left(KsFx *fx, const gchar *instance, const gchar *token, const gchar *old_token)
{
	g_autofree gchar *control = gnt_metad_dup_control_socket(fx->cluster.paths);
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) session = gnt_metad_client_get_install(control, instance, 0, 0, &error);
	const gchar *nowhere[] = {token, old_token, NULL};
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
		g_test_message("scanned %u files: none holds the token%s",
			       gnt_test_scan_tree(fx->cluster.root, nowhere, NULL, NULL),
			       old_token != NULL ? "s" : "");
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

/* Runs @op (a create or reinstall of @instance), capturing what the
 * installer is served (Capture, @old_token as there); the job's row. */
static JsonArray *
run_install(KsFx *fx, const gchar *instance, const gchar *op, Capture *capture)
{
	GThread *thread;
	JsonArray *row;

	capture->socket = gnt_metad_dup_instance_socket(fx->cluster.paths, instance);
	thread = g_thread_new("capture", capture_thread, capture);
	row = gnt_test_cluster_run_op(&fx->cluster, op, JOB_TIMEOUT_S);
	g_atomic_int_set(&capture->stop, 1);
	g_thread_join(thread);
	g_clear_pointer(&capture->socket, g_free);
	return row;
}

static void
capture_clear(Capture *capture)
{
	g_free(capture->ks);
	g_free(capture->old_token_answer);
	g_free(capture->unknown_path_answer);
}

static JsonArray *
create(KsFx *fx, const gchar *instance, guint disk_mib, const gchar *firmware, gboolean start,
       const gchar *extra, gchar **ks_out)
{
	g_autofree gchar *op = g_strdup_printf(
		"{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\": \"%s\","
		" \"mode\": \"create\", \"hypervisor\": \"kvm\", \"disk_template\": \"file\","
		" \"disks\": [{\"size\": %u}], \"nics\": [], \"os_image\": \"" IMAGE_NAME "\","
		/* GRUB's EFI loader runs out of memory for the kernel in less */
		" \"beparams\": {\"memory\": 512},"
		" \"start\": %s, \"hvparams\": {\"accel\": \"tcg\", \"firmware\": \"%s\"}%s}",
		instance, disk_mib, start ? "true" : "false", firmware, extra != NULL ? extra : "");
	Capture capture = {0};
	JsonArray *row = run_install(fx, instance, op, &capture);

	*ks_out = g_steal_pointer(&capture.ks);
	capture_clear(&capture);
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
	return create(fx, instance, 256, "bios", FALSE, extra, ks);
}

/* The disk's partition table as sfdisk -d prints it. (transfer full) */
static gchar *
partition_table(const gchar *disk)
{
	const gchar *argv[] = {"sfdisk", "-d", disk, NULL};

	return command_output(argv);
}

/* Waits for @needle in @instance's serial console log (the node's, on
 * this machine); the seconds it took. */
static gdouble
wait_console_log(KsFx *fx, const gchar *instance, const gchar *needle, guint timeout_s)
{
	g_autofree gchar *name = g_strconcat(instance, ".log", NULL);
	g_autofree gchar *log =
		g_build_filename(gnt_paths_get_log_dir(fx->cluster.paths), "console", name, NULL);
	gint64 start = g_get_monotonic_time();

	while (g_get_monotonic_time() - start < (gint64)timeout_s * G_USEC_PER_SEC) {
		if (gnt_test_file_contains(log, needle))
			return (gdouble)(g_get_monotonic_time() - start) / G_USEC_PER_SEC;
		g_usleep(200 * 1000);
	}
	{
		g_autofree gchar *text = NULL;

		g_file_get_contents(log, &text, NULL, NULL);
		g_test_message("console log %s:\n%s", log, text != NULL ? text : "(none)");
	}
	return -1;
}

/* The instance's domain ended (its system powered off), waited for. */
static void
wait_no_domain(KsFx *fx, guint timeout_s)
{
	for (guint i = 0; i < timeout_s * 5 && gnt_test_cluster_count_domains(&fx->cluster) > 0;
	     i++)
		g_usleep(200 * 1000);
	g_assert_cmpuint(gnt_test_cluster_count_domains(&fx->cluster), ==, 0);
}

static void
assert_start_then_end(JsonArray *row)
{
	g_autofree gchar *log = gnt_test_job_log_text(row);
	const gchar *start = strstr(log, "installer: start");
	const gchar *end = strstr(log, "installer: end");

	g_test_message("job log:\n%s", log);
	g_assert_nonnull(start);
	g_assert_nonnull(end);
	g_assert_true(start < end);
	gnt_test_assert_contains(log, "the kickstart installer installs the OS");
}

/* The personalization package, served over plain HTTP by @server:
 * etc/personalized and srv/app/settings. */
static void
serve_package(KsFx *fx, ImageServer *server)
{
	g_autofree gchar *tree = g_build_filename(fx->work, "package", NULL);
	g_autofree gchar *etc = g_build_filename(tree, "etc", NULL);
	g_autofree gchar *app = g_build_filename(tree, "srv", "app", NULL);
	g_autofree gchar *tarball = g_build_filename(fx->work, "package.tar.gz", NULL);
	const gchar *argv[] = {"tar", "-C", tree, "-czf", tarball, "etc", "srv", NULL};

	g_assert_cmpint(g_mkdir_with_parents(etc, 0755), ==, 0);
	g_assert_cmpint(g_mkdir_with_parents(app, 0755), ==, 0);
	gnt_test_write_file(etc, "personalized", PACKAGE_LINE "\n", 0644);
	gnt_test_write_file(app, "settings", "x=1\n", 0600);
	gnt_test_run_checked(argv);
	image_server_add_file(server, "/personal/web.tar.gz", tarball);
}

/* A reinstall of ks1 (its disk holds a system, its own shut itself off)
 * with a personalization package: a new token, with which the installer
 * reports start and end; the old one, posted meanwhile, gets the same 404
 * as an unknown path, byte for byte; the package's files are on disk 0
 * (the kickstart's %post --nochroot fetched it from metad with the new
 * token). The new token. */
static gchar *
reinstall_with_new_token(KsFx *fx, const gchar *old_token, const gchar *disk)
{
	Capture capture = {.old_token = old_token};
	g_autoptr(ImageServer) server = image_server_new(NULL);
	g_autoptr(JsonArray) row = NULL;
	g_autofree gchar *op = NULL;
	g_autofree gchar *log = NULL;
	g_autofree gchar *personalized = NULL;
	g_autofree gchar *settings = NULL;
	gint64 t0;
	gchar *token;

	serve_package(fx, server);
	/* marked down (the system powered itself off) */
	row = gnt_test_cluster_run_op(&fx->cluster,
				      "{\"OP_ID\": \"OP_INSTANCE_SHUTDOWN\","
				      " \"instance_name\": \"ks1.example.com\", \"timeout\": 0}",
				      60);
	gnt_test_cluster_assert_success(row);
	g_clear_pointer(&row, json_array_unref);
	op = g_strdup_printf("{\"OP_ID\": \"OP_INSTANCE_REINSTALL\","
			     " \"instance_name\": \"ks1.example.com\","
			     " \"osparams\": {\"os-package\": \"%s/personal/web.tar.gz\"}}",
			     image_server_get_base(server));
	t0 = g_get_monotonic_time();
	row = run_install(fx, "ks1.example.com", op, &capture);
	{
		g_autofree gchar *text = gnt_test_cluster_row_to_string(row);

		g_test_message("reinstall: %s", text);
	}
	gnt_test_cluster_assert_success(row);
	log = gnt_test_job_log_text(row);
	gnt_test_assert_contains(log, "%post --nochroot unpacking the personalization package");
	gnt_test_assert_contains(log, "the kickstart's %post --nochroot unpacked it");
	personalized = disk_cat(disk, "/etc/personalized");
	g_assert_cmpstr(personalized, ==, PACKAGE_LINE "\n");
	settings = disk_cat(disk, "/srv/app/settings");
	g_assert_cmpstr(settings, ==, "x=1\n");
	g_test_message("kickstart reinstall took %.1f s",
		       (gdouble)(g_get_monotonic_time() - t0) / G_USEC_PER_SEC);
	assert_start_then_end(row);
	g_assert_nonnull(capture.ks);
	token = token_of(capture.ks);
	g_assert_cmpuint(strlen(token), ==, 43);
	g_assert_cmpstr(token, !=, old_token);
	g_test_message("the old token's report got:\n%s", capture.old_token_answer);
	g_assert_nonnull(capture.old_token_answer);
	g_assert_true(g_str_has_prefix(capture.old_token_answer, "HTTP/1.1 404 "));
	g_assert_cmpstr(capture.old_token_answer, ==, capture.unknown_path_answer);
	capture_clear(&capture);
	return token;
}

static void
test_tarball(KsFx *fx, gconstpointer data)
{
	/* @data "uefi": the installer and then the instance under OVMF with
	 * the instance's UEFI variables, the kickstart rendered for UEFI */
	gboolean uefi = g_strcmp0(data, "uefi") == 0;
	g_autoptr(JsonArray) row = NULL;
	g_autofree gchar *ks = NULL;
	g_autofree gchar *token = NULL;
	g_autofree gchar *old_token = NULL;
	g_autofree gchar *marker = NULL;
	g_autofree gchar *fstab = NULL;
	g_autofree gchar *table = NULL;
	g_autofree gchar *grub_cfg = NULL;
	g_autofree gchar *disk_dir = NULL;
	g_autofree gchar *booted = NULL;
	g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);
	gint64 t0 = g_get_monotonic_time();
	gdouble boot_s;

	if (fx->skip != NULL) {
		g_test_skip(fx->skip);
		return;
	}
	if (uefi && !g_file_test("/usr/share/OVMF/OVMF_CODE_4M.fd", G_FILE_TEST_EXISTS)) {
		g_test_skip("no OVMF (install ovmf)");
		return;
	}
	/* the shipped default wants 2 GiB for / (a sparse file); the
	 * install's boot step starts the instance */
	row = create(fx, "ks1.example.com", 2560, uefi ? "uefi" : "bios", TRUE, NULL, &ks);
	gnt_test_cluster_assert_success(row);
	g_test_message("kickstart install and start took %.1f s",
		       (gdouble)(g_get_monotonic_time() - t0) / G_USEC_PER_SEC);
	assert_start_then_end(row);
	/* the file served, as served */
	g_assert_nonnull(ks);
	assert_ksvalidator_passes(fx, ks);
	token = token_of(ks);
	g_assert_cmpuint(strlen(token), ==, 43);
	/* the instance boots from its disk, with its normal parameters (no
	 * kernel_path: the firmware's disk boot, then the boot loader the
	 * installer wrote from the kickstart's bootloader line, whose
	 * --append gives the serial console) */
	g_strchomp(fx->marker);
	booted = g_strdup_printf("%s (firmware: %s", fx->marker, uefi ? "uefi" : "bios");
	boot_s = wait_console_log(fx, "ks1.example.com", booted, 300);
	g_test_message("'%s' on the instance's console %.1f s after the job", booted, boot_s);
	g_assert_cmpfloat(boot_s, >=, 0);
	wait_no_domain(fx, 60);
	/* disk 0: the partitions for the firmware (the template's reqpart),
	 * the tarball's files, an fstab, GRUB's configuration */
	disk_dir = gnt_test_cluster_dup_file_storage_dir(&fx->cluster);
	gnt_test_cluster_list_files(disk_dir, files);
	g_assert_cmpuint(files->len, ==, 1);
	table = partition_table(files->pdata[0]);
	g_test_message("disk 0:\n%s", table);
	if (uefi) {
		gnt_test_assert_contains(table, "label: gpt");
		/* an EFI system partition first */
		gnt_test_assert_contains(table, "type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B");
	} else {
		gnt_test_assert_contains(table, "label: dos");
		gnt_test_assert_contains(table, "bootable");
	}
	marker = disk_cat(files->pdata[0], "/etc/marker");
	g_assert_cmpstr(g_strchomp(marker), ==, fx->marker);
	fstab = disk_cat(files->pdata[0], "/etc/fstab");
	gnt_test_assert_contains(fstab, " / ext4 defaults 1 1");
	if (uefi)
		gnt_test_assert_contains(fstab, " /boot/efi vfat ");
	grub_cfg = disk_cat(files->pdata[0], "/boot/grub/grub.cfg");
	gnt_test_assert_contains(grub_cfg, "console=ttyS0,115200n8");
	if (!uefi) {
		/* BIOS only, to keep the suite short: a reinstall */
		old_token = g_steal_pointer(&token);
		token = reinstall_with_new_token(fx, old_token, files->pdata[0]);
	}
	assert_nothing_left(fx, "ks1.example.com", token, old_token);
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
	assert_nothing_left(fx, "ks2.example.com", token, NULL);
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
	assert_nothing_left(fx, "ks3.example.com", token, NULL);
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
