/*
 * The safe install end to end on real libvirt (qemu, TCG): an OS whose
 * only create script for the guest is untrusted (<os>/untrusted/create)
 * installs an instance through the read-only install appliance
 * (appliance/, built here into the cluster's root). The script runs inside
 * the appliance, writes an ext2 filesystem onto disk 0 and records the
 * OSP_* values it saw (the secret one as its SHA-256 only); the
 * personalization package, served over HTTP by the test, is unpacked on
 * top. Then, from the host: the disk's files (debugfs, no mount), the job
 * log's steps, nothing left on the node (no domain, no tap, no metad
 * record), and the secret in no file of the root. Skipped, saying why,
 * only when libvirtd, the kernel, busybox or debugfs are missing.
 */
#include "gnt-test-cluster.h"

#include "image-test-server.h"

#define JOB_TIMEOUT_S 300
#define OS_NAME	      "untrusted-fs"
#define PUBLIC_VALUE  "hello-from-the-host"
#define PRIVATE_VALUE "private-7a0c1f2e-value"
#define SECRET_VALUE  "secret-93b1d4e8-value"

typedef struct {
	GntTestCluster cluster;
	gchar *os_dir;
	gchar *work;
	gchar *host_mark; /* made if the host's create script ever runs */
	guint n_taps;	  /* channel taps on the node before the test */
	ImageServer *server;
	gchar *skip;
} ApplianceFx;

/* The untrusted OS: its host scripts must never run (the create one leaves
 * a mark if it does); untrusted/create runs in the appliance. */
static void
make_os(ApplianceFx *fx)
{
	g_autofree gchar *dir = g_build_filename(fx->os_dir, OS_NAME, NULL);
	g_autofree gchar *untrusted = g_build_filename(dir, "untrusted", NULL);
	g_autofree gchar *host_create =
		g_strdup_printf("#!/bin/sh\ntouch '%s'\necho 'must not run on the host' >&2\n"
				"exit 1\n",
				fx->host_mark);
	const gchar *untrusted_create =
		"#!/bin/sh\n"
		"# runs inside the install appliance (busybox)\n"
		"set -e\n"
		"echo \"creating $INSTANCE_NAME on $DISK_0_PATH ($DISK_COUNT disk)\"\n"
		"mke2fs -q -L root \"$DISK_0_PATH\" >/dev/null\n"
		"mkdir -p /tmp/inst\n"
		"mount -t ext2 \"$DISK_0_PATH\" /tmp/inst\n"
		"mkdir -p /tmp/inst/etc\n"
		"{\n"
		"  echo \"greeting=$OSP_GREETING\"\n"
		"  echo \"rootpw=$OSP_ROOTPW\"\n"
		"  echo \"token_sha256=$(printf %s \"$OSP_TOKEN\" | sha256sum | cut -d' ' -f1)\"\n"
		"  echo \"instance=$INSTANCE_NAME\"\n"
		"} > /tmp/inst/osp-values.txt\n"
		"echo 'made by the OS script' > /tmp/inst/etc/motd\n"
		"echo 'made by the OS script' > /tmp/inst/etc/kept\n"
		"sync\n"
		"umount /tmp/inst\n"
		"echo 'filesystem written'\n";
	const gchar *other = "#!/bin/sh\nexit 1\n";

	g_assert_cmpint(g_mkdir_with_parents(untrusted, 0755), ==, 0);
	gnt_test_write_file(dir, "ganeti_api_version", "20\n", 0644);
	gnt_test_write_file(dir, "variants.list", "default\n", 0644);
	gnt_test_write_file(dir, "parameters.list",
			    "greeting a public greeting\nrootpw a private password\n"
			    "token a secret token\n",
			    0644);
	gnt_test_write_file(dir, "create", host_create, 0755);
	gnt_test_write_file(dir, "export", other, 0755);
	gnt_test_write_file(dir, "import", other, 0755);
	gnt_test_write_file(dir, "rename", other, 0755);
	gnt_test_write_file(dir, "verify", "#!/bin/sh\nexit 0\n", 0755);
	gnt_test_write_file(untrusted, "create", untrusted_create, 0755);
}

/* The personalization package: etc/motd replaces the script's, etc/issue
 * is new, and the script's etc/kept stays. (transfer full) */
static GBytes *
make_package(ApplianceFx *fx)
{
	g_autofree gchar *tree = g_build_filename(fx->work, "package", NULL);
	g_autofree gchar *etc = g_build_filename(tree, "etc", NULL);
	g_autofree gchar *tarball = g_build_filename(fx->work, "package.tar.gz", NULL);
	const gchar *argv[] = {"tar", "-C", tree, "-czf", tarball, "etc", NULL};

	g_assert_cmpint(g_mkdir_with_parents(etc, 0755), ==, 0);
	gnt_test_write_file(etc, "motd", "from the personalization package\n", 0644);
	gnt_test_write_file(etc, "issue", "personalized\n", 0644);
	gnt_test_run_checked(argv);
	return image_test_read_file(tarball);
}

static void
appliance_set_up(ApplianceFx *fx, gconstpointer data)
{
	g_autofree gchar *kernel = gnt_test_find_cloud_kernel();
	g_autofree gchar *build = gnt_test_source_path("appliance", "build-appliance");
	g_autofree gchar *name = g_strdup_printf("appl%d.example.com", (gint)getpid());
	g_autofree gchar *out = NULL;
	g_autofree gchar *debugfs = g_find_program_in_path("debugfs");
	g_autoptr(GError) error = NULL;

	fx->skip = gnt_test_dup_libvirt_missing();
	if (fx->skip != NULL)
		return;
	/* @data "slirp": the node's fallback channel (no taps): qemu's user
	 * networking forwards 169.254.169.254:80 to metad's unix socket, all
	 * of the guest's connections on one stream (doc/appliance.md) */
	if (g_strcmp0(data, "slirp") == 0)
		g_setenv("GANTRY_CHANNEL_SLIRP", "1", TRUE);
	if (kernel == NULL || !g_file_test("/bin/busybox", G_FILE_TEST_IS_EXECUTABLE)) {
		fx->skip = g_strdup("no /boot/vmlinuz-*-cloud-amd64 or /bin/busybox (install "
				    "linux-image-cloud-amd64 busybox-static)");
		return;
	}
	if (debugfs == NULL && !g_file_test("/sbin/debugfs", G_FILE_TEST_IS_EXECUTABLE)) {
		fx->skip = g_strdup("no debugfs (install e2fsprogs)");
		return;
	}
	fx->work = g_dir_make_tmp("gtappl-XXXXXX", &error);
	g_assert_no_error(error);
	fx->os_dir = g_build_filename(fx->work, "os", NULL);
	fx->host_mark = g_build_filename(fx->work, "host-create-ran", NULL);
	make_os(fx);
	gnt_test_cluster_init_kvm(&fx->cluster, name, kernel);
	gnt_test_cluster_set_os_search_path(&fx->cluster, fx->os_dir);
	/* the node finds its appliance under <root>/var/lib/gantry/appliance */
	out = g_build_filename(fx->cluster.root, "var", "lib", "gantry", "appliance", NULL);
	{
		const gchar *argv[] = {build, out, NULL};

		gnt_test_run_checked(argv);
	}
	fx->server = image_server_new(NULL);
	fx->n_taps = gnt_test_count_channel_taps();
}

static void
appliance_tear_down(ApplianceFx *fx, gconstpointer data)
{
	g_autofree gchar *cmd = NULL;

	gnt_test_cluster_clear(&fx->cluster);
	g_unsetenv("GANTRY_CHANNEL_SLIRP");
	g_clear_pointer(&fx->server, image_server_free);
	if (fx->work != NULL) {
		cmd = g_strdup_printf("rm -rf '%s'", fx->work);
		g_assert_cmpint(system(cmd), ==, 0);
	}
	g_free(fx->work);
	g_free(fx->os_dir);
	g_free(fx->host_mark);
	g_free(fx->skip);
}

/* debugfs -R "cat PATH" of the ext2 filesystem in @disk. (transfer full) */
static gchar *
disk_cat(const gchar *disk, const gchar *path)
{
	g_autofree gchar *request = g_strdup_printf("cat %s", path);
	const gchar *argv[] = {"debugfs", "-R", request, disk, NULL};
	g_autoptr(GError) error = NULL;
	g_autoptr(GSubprocess) proc = g_subprocess_newv(
		argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_SILENCE, &error);
	gchar *text = NULL;

	g_assert_no_error(error);
	g_assert_true(g_subprocess_communicate_utf8(proc, NULL, NULL, &text, NULL, &error));
	g_assert_no_error(error);
	return text;
}

static gboolean
may_hold_private(const gchar *name)
{
	/* the config store, and the instance's disk (the script recorded it) */
	return g_str_has_prefix(name, "config.db") || strstr(name, "disk") != NULL;
}

static void
test_untrusted_install(ApplianceFx *fx, gconstpointer data)
{
	GntTestCluster *cluster = &fx->cluster;
	g_autoptr(GBytes) package = NULL;
	g_autofree gchar *op = NULL;
	g_autofree gchar *log = NULL;
	g_autofree gchar *values = NULL;
	g_autofree gchar *token_line = NULL;
	g_autofree gchar *motd = NULL;
	g_autofree gchar *issue = NULL;
	g_autofree gchar *kept = NULL;
	g_autofree gchar *disk_dir = NULL;
	g_autofree gchar *token_sha = NULL;
	g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(JsonArray) row = NULL;
	const gchar *nowhere[] = {SECRET_VALUE, NULL};
	const gchar *restricted[] = {PRIVATE_VALUE, NULL};
	/* @data "uefi": the appliance boots under OVMF with the instance's own
	 * UEFI variables (doc/hypervisors.md "The install appliance") */
	gboolean uefi = g_strcmp0(data, "uefi") == 0;
	gint64 t0;

	if (fx->skip != NULL) {
		g_test_skip(fx->skip);
		return;
	}
	if (uefi && !g_file_test("/usr/share/OVMF/OVMF_CODE_4M.fd", G_FILE_TEST_EXISTS)) {
		g_test_skip("no OVMF (install ovmf)");
		return;
	}
	package = make_package(fx);
	image_server_add(fx->server, "/personal/web.tar.gz", 200, package, 0);
	op = g_strdup_printf(
		"{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\": \"web.example.com\","
		" \"mode\": \"create\", \"hypervisor\": \"kvm\", \"disk_template\": \"file\","
		" \"disks\": [{\"size\": 32}], \"nics\": [], \"os_type\": \"" OS_NAME "+default\","
		" \"start\": false, \"enable_safe_install\": true, \"beparams\": {\"memory\": 256},"
		" \"hvparams\": {\"accel\": \"tcg\"%s},"
		" \"osparams\": {\"greeting\": \"" PUBLIC_VALUE "\","
		" \"os-package\": \"%s/personal/web.tar.gz\"},"
		" \"osparams_private\": {\"rootpw\": \"" PRIVATE_VALUE "\"},"
		" \"osparams_secret\": {\"token\": \"" SECRET_VALUE "\"}}",
		uefi ? ", \"firmware\": \"uefi\"" : "", image_server_get_base(fx->server));
	t0 = g_get_monotonic_time();
	row = gnt_test_cluster_run_op(cluster, op, JOB_TIMEOUT_S);
	gnt_test_cluster_assert_success(row);
	g_test_message("install through the appliance (%s) took %.2f s", uefi ? "uefi" : "bios",
		       (gdouble)(g_get_monotonic_time() - t0) / G_USEC_PER_SEC);
	if (uefi) {
		/* the instance is not started: its variables were the appliance's */
		g_autofree gchar *state_root =
			g_build_filename(gnt_paths_get_data_dir(cluster->paths), "instances", NULL);
		g_autoptr(GPtrArray) state = g_ptr_array_new_with_free_func(g_free);

		gnt_test_cluster_list_files(state_root, state);
		g_assert_cmpuint(state->len, ==, 1);
		g_assert_true(g_str_has_suffix(state->pdata[0], "/" GNT_HV_UEFI_VARS_FILE));
	}

	/* the host's create script never ran: the untrusted one, in the VM */
	g_assert_false(g_file_test(fx->host_mark, G_FILE_TEST_EXISTS));

	/* the job log shows every step, the in-band ones with their output */
	log = gnt_test_job_log_text(row);
	gnt_test_assert_contains(log, "install step prepare (100): done");
	gnt_test_assert_contains(log, "install step run_os_scripts (70): started");
	gnt_test_assert_contains(log, "install appliance");
	gnt_test_assert_contains(log, "filesystem written");
	gnt_test_assert_contains(log, "install step run_os_scripts (70): done");
	gnt_test_assert_contains(log, "install step personalize (65): done");
	gnt_test_assert_contains(log, "install step tear_down_appliance (40): done");
	g_assert_null(strstr(log, SECRET_VALUE));
	g_assert_null(strstr(log, PRIVATE_VALUE));

	/* the disk, read from the host */
	disk_dir = gnt_test_cluster_dup_file_storage_dir(cluster);
	gnt_test_cluster_list_files(disk_dir, files);
	g_assert_cmpuint(files->len, ==, 1);
	values = disk_cat(files->pdata[0], "/osp-values.txt");
	gnt_test_assert_contains(values, "greeting=" PUBLIC_VALUE "\n");
	gnt_test_assert_contains(values, "rootpw=" PRIVATE_VALUE "\n");
	gnt_test_assert_contains(values, "instance=web.example.com\n");
	token_sha = g_compute_checksum_for_string(G_CHECKSUM_SHA256, SECRET_VALUE, -1);
	token_line = g_strdup_printf("token_sha256=%s\n", token_sha);
	gnt_test_assert_contains(values, token_line);
	motd = disk_cat(files->pdata[0], "/etc/motd");
	g_assert_cmpstr(motd, ==, "from the personalization package\n");
	issue = disk_cat(files->pdata[0], "/etc/issue");
	g_assert_cmpstr(issue, ==, "personalized\n");
	kept = disk_cat(files->pdata[0], "/etc/kept");
	g_assert_cmpstr(kept, ==, "made by the OS script\n");

	/* nothing of the appliance is left: no domain, no tap */
	g_assert_cmpuint(gnt_test_cluster_count_domains(cluster), ==, 0);
	g_assert_false(gnt_test_cluster_install_domain_left(cluster));
	g_assert_cmpuint(gnt_test_count_channel_taps(), ==, fx->n_taps);

	/* the secret is in no file of the root or of the test's own files; the
	 * private value only in the config store and the instance's disk */
	gnt_test_cluster_stop(cluster);
	g_test_message("scanned %u files under %s",
		       gnt_test_scan_tree(cluster->root, nowhere, restricted, may_hold_private),
		       cluster->root);
	gnt_test_scan_tree(fx->work, nowhere, NULL, NULL);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/system/appliance-kvm/untrusted-install", ApplianceFx, NULL, appliance_set_up,
		   test_untrusted_install, appliance_tear_down);
	g_test_add("/system/appliance-kvm/slirp-fallback", ApplianceFx, "slirp", appliance_set_up,
		   test_untrusted_install, appliance_tear_down);
	g_test_add("/system/appliance-kvm/uefi", ApplianceFx, "uefi", appliance_set_up,
		   test_untrusted_install, appliance_tear_down);
	return g_test_run();
}
