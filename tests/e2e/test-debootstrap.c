/*
 * End to end: a real Debian system installed with Debian's own
 * ganeti-instance-debootstrap OS definition onto a file disk, through
 * every part of Gantry (LUXI job, masterd, the node daemon's RPC, the OS
 * interface, file storage), then booted under libvirt (qemu TCG) with the
 * Debian cloud kernel and its initrd from /boot until systemd offers a
 * login prompt on the serial console.
 *
 * The OS definition is configured the way it is meant to be: a variant
 * file in /etc/ganeti/instance-debootstrap/variants/ (written for this run
 * and removed after it) sets the machine's own apt mirror and suite, and
 * the partition style. Without device-mapper (kpartx), as on our CI
 * machines, the filesystem goes straight onto the disk
 * (PARTITION_STYLE=none, root=/dev/vda); with it, Debian's default msdos
 * layout (root=/dev/vda1). $GNT_E2E_PARTITION_STYLE forces one.
 *
 * The same run proves cloud-init against metad: the variant's customization
 * hook installs Debian's cloud-init package, the instance is made with the channel
 * (-C yes), user data and an ssh key. cloud-init's ds-identify must pick
 * the OpenStack datasource by itself (from the SMBIOS chassis asset tag),
 * DataSourceOpenStackLocal must reach 169.254.169.254 through the channel
 * (metad's DHCP lease on the tap, then its OpenStack tree), set the host
 * name, install the key for the default user and root, and run the user
 * data's runcmd, which copies ds-identify's result from /run to the disk
 * and says so on the serial console. The disk is read afterwards.
 *
 * Skipped, saying exactly what is missing, when libvirtd does not answer,
 * a package or loop devices are missing, or the mirror cannot be reached.
 */
#include "gnt-test-cluster.h"
#include "gnt-test-mirror.h"

#define INSTANCE "deb1.example.com"
#define SSH_KEY                                                                                    \
	"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJyUrIxQeCgT6bmOIGu7ePEb95q+eRvPqU0bm2jNpBP+ "        \
	"e2e@gantry"
/* runcmd: /run is gone after the shutdown, so what ds-identify and
 * cloud-init wrote there is copied to the disk and synced (the shutdown
 * ends in a destroy); then one line on the console to wait for */
#define CLOUD_INIT_DONE "gantry-e2e: user data ran on "
#define USER_DATA                                                                                  \
	"#cloud-config\n"                                                                          \
	"runcmd:\n"                                                                                \
	"  - [sh, -c, 'cp /run/cloud-init/cloud.cfg /var/tmp/ds-identify.cfg; "                    \
	"cp /run/cloud-init/ds-identify.log /var/tmp/ds-identify.log; "                            \
	"cp /run/cloud-init/status.json /var/tmp/cloud-init-status.json; "                         \
	"hostname > /var/tmp/gantry-e2e-hostname; "                                                \
	"python3 -c \"import urllib.request as u; print(u.urlopen("                                \
	"\\\"http://169.254.169.254/openstack/latest/meta_data.json\\\", "                         \
	"timeout=60).read().decode())\" > /var/tmp/gantry-e2e-meta-data.json; sync; "              \
	"echo \"gantry-e2e: user data\" \"ran on $(hostname)\" > /dev/console']\n"
#define VARIANTS_DIR "/etc/ganeti/instance-debootstrap/variants"
#define OS_DIR	     "/usr/share/ganeti/os/debootstrap"
/* debootstrap from the mirror took 1 min 46 s here; allow for a slow one */
#define INSTALL_TIMEOUT_S 1200
#define LOGIN_TIMEOUT_S	  420
/* cloud-init's four stages under TCG, after the login prompt */
#define CLOUD_INIT_TIMEOUT_S 600
/* the installed system does not power off on the ACPI button: the guest has
 * no modules for the host's kernel (button.ko) and no logind (no dbus) */
#define SHUTDOWN_TIMEOUT_S 10

typedef struct {
	GntTestCluster cluster;
	gchar *initrd; /* in cluster.boot_dir */
	gchar *mirror;
	gchar *suite;
	gchar *partition_style;
	gchar *variant;
	gchar *variant_file;
	GSubprocess *reaper; /* removes the variant file should the test abort */
	gchar *skip;
} E2eFx;

/* Why the test cannot run here, or NULL; fills the fixture's mirror,
 * suite and partition style. */
static gchar *
e2e_dup_missing(E2eFx *fx, const gchar *kernel, const gchar *initrd)
{
	const gchar *losetup[] = {"losetup", "-f", NULL};
	const gchar *dmsetup[] = {"dmsetup", "version", NULL};
	g_autoptr(GError) error = NULL;
	gchar *missing = gnt_test_dup_libvirt_missing();

	if (missing != NULL)
		return missing;
	if (kernel == NULL || !g_file_test(initrd, G_FILE_TEST_IS_REGULAR))
		return g_strdup("no /boot/vmlinuz-*-cloud-amd64 with its /boot/initrd.img-* "
				"(install linux-image-cloud-amd64)");
	if (!g_file_test(OS_DIR "/create", G_FILE_TEST_IS_EXECUTABLE))
		return g_strdup("no " OS_DIR " (install ganeti-instance-debootstrap)");
	if (!g_file_test("/usr/sbin/debootstrap", G_FILE_TEST_IS_EXECUTABLE))
		return g_strdup("no /usr/sbin/debootstrap (install debootstrap)");
	if (!g_file_test(VARIANTS_DIR, G_FILE_TEST_IS_DIR) || access(VARIANTS_DIR, W_OK) != 0)
		return g_strdup("cannot write a variant into " VARIANTS_DIR " (run as root)");
	if (!gnt_test_command_succeeds(losetup))
		return g_strdup("no free loop device ('losetup -f' fails): the OS definition "
				"losetup's file disks");
	fx->suite = gnt_test_dup_codename();
	if (fx->suite == NULL)
		return g_strdup("no VERSION_CODENAME in /etc/os-release: which Debian is this?");
	fx->mirror = gnt_test_find_apt_mirror(fx->suite);
	if (fx->mirror == NULL)
		return g_strdup_printf(
			"no http(s) apt source for suite '%s' in /etc/apt/sources.list "
			"or /etc/apt/sources.list.d",
			fx->suite);
	if (!gnt_test_mirror_reachable(fx->mirror, fx->suite, &error))
		return g_strdup_printf("the apt mirror is not reachable: %s", error->message);
	if (g_getenv("GNT_E2E_PARTITION_STYLE") != NULL)
		fx->partition_style = g_strdup(g_getenv("GNT_E2E_PARTITION_STYLE"));
	else
		/* kpartx maps the msdos partition through device-mapper */
		fx->partition_style =
			g_strdup(gnt_test_command_succeeds(dmsetup) ? "msdos" : "none");
	return NULL;
}

/* The variant's customization hook (run-parts of CUSTOMIZE_DIR, with the
 * new system at $TARGET): Debian's cloud-init installed into it with apt,
 * the rest made as in Debian's cloud images.
 * Not debootstrap's --include (the variant's EXTRA_PKGS): debootstrap fails
 * configuring cloud-init's Python dependencies among the base packages. */
static gchar *
e2e_write_hooks(E2eFx *fx)
{
	static const gchar hook[] =
		"#!/bin/sh\n"
		"# written by Gantry's e2e test (tests/e2e/test-debootstrap.c)\n"
		"set -e\n"
		"export PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive\n"
		"mount -t proc proc \"$TARGET/proc\"\n"
		"trap 'umount \"$TARGET/proc\"' EXIT\n"
		"chroot \"$TARGET\" apt-get -q update\n"
		"chroot \"$TARGET\" apt-get -q -y --no-install-recommends install cloud-init\n"
		"chroot \"$TARGET\" apt-get clean\n"
		/* as Debian's cloud images: cloud-init's default locale exists, and
		 * ifupdown reads the network config cloud-init writes (the
		 * definition's /etc/network/interfaces has only lo) */
		"sed -i 's/^# *en_US.UTF-8/en_US.UTF-8/' \"$TARGET/etc/locale.gen\"\n"
		"chroot \"$TARGET\" locale-gen\n"
		"echo 'source /etc/network/interfaces.d/*' >> \"$TARGET/etc/network/interfaces\"\n";
	g_autoptr(GError) error = NULL;
	gchar *dir = g_build_filename(fx->cluster.boot_dir, "hooks", NULL);
	g_autofree gchar *path = g_build_filename(dir, "50-cloud-init", NULL);

	g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
	g_assert_true(g_file_set_contents(path, hook, -1, &error));
	g_assert_no_error(error);
	g_assert_cmpint(g_chmod(path, 0755), ==, 0);
	return dir;
}

/* The variant's configuration, sourced by the definition's common.sh
 * after /etc/default/ganeti-instance-debootstrap. */
static void
e2e_write_variant(E2eFx *fx)
{
	g_autoptr(GError) error = NULL;
	const gchar *cache = g_getenv("GNT_E2E_DEBOOTSTRAP_CACHE");
	g_autofree gchar *cache_dir = NULL;
	g_autofree gchar *conf = NULL;
	g_autofree gchar *reap = NULL;
	g_autofree gchar *hooks = e2e_write_hooks(fx);

	/* a private, empty cache directory: every run installs from the mirror
	 * (the definition's own cache would skip debootstrap on a second run);
	 * $GNT_E2E_DEBOOTSTRAP_CACHE names a directory to reuse instead */
	cache_dir = cache != NULL ? g_strdup(cache)
				  : g_build_filename(fx->cluster.boot_dir, "cache", NULL);
	conf = g_strdup_printf("# written by Gantry's e2e test (tests/e2e/test-debootstrap.c)\n"
			       "MIRROR=\"%s\"\n"
			       "SUITE=\"%s\"\n"
			       "PARTITION_STYLE=\"%s\"\n"
			       "CUSTOMIZE_DIR=\"%s\"\n"
			       "CACHE_DIR=\"%s\"\n"
			       "GENERATE_CACHE=\"%s\"\n"
			       "CLEAN_CACHE=\"\"\n",
			       fx->mirror, fx->suite, fx->partition_style, hooks, cache_dir,
			       cache != NULL ? "yes" : "no");
	fx->variant = g_strdup_printf("gantry-e2e-%d", (gint)getpid());
	fx->variant_file = g_strdup_printf(VARIANTS_DIR "/%s.conf", fx->variant);
	reap = g_strdup_printf("rm -f '%s'", fx->variant_file);
	fx->reaper = gnt_test_reaper_new(reap);
	g_assert_true(g_file_set_contents(fx->variant_file, conf, -1, &error));
	g_assert_no_error(error);
	g_assert_cmpint(g_chmod(fx->variant_file, 0644), ==, 0);
	g_test_message("variant %s: %s", fx->variant_file, conf);
}

static void
e2e_set_up(E2eFx *fx, gconstpointer data)
{
	g_autofree gchar *kernel = gnt_test_find_cloud_kernel();
	g_autofree gchar *initrd = NULL;
	g_autofree gchar *name = g_strdup_printf("e2e%d.example.com", (gint)getpid());

	if (kernel != NULL) {
		g_autofree gchar *base = g_path_get_basename(kernel);
		initrd = g_strconcat("/boot/initrd.img-", base + strlen("vmlinuz-"), NULL);
	}
	fx->skip = e2e_dup_missing(fx, kernel, initrd);
	if (fx->skip != NULL)
		return;
	gnt_test_cluster_init_kvm(&fx->cluster, name, kernel);
	fx->initrd = g_build_filename(fx->cluster.boot_dir, "initrd.img", NULL);
	gnt_test_install_0644(initrd, fx->initrd);
	e2e_write_variant(fx);
}

static void
e2e_tear_down(E2eFx *fx, gconstpointer data)
{
	gnt_test_cluster_clear(&fx->cluster);
	if (fx->variant_file != NULL)
		g_unlink(fx->variant_file);
	gnt_test_reaper_finish(&fx->reaper);
	g_free(fx->initrd);
	g_free(fx->mirror);
	g_free(fx->suite);
	g_free(fx->partition_style);
	g_free(fx->variant);
	g_free(fx->variant_file);
	g_free(fx->skip);
}

/* The OS log's last lines, for a failed install. */
static void
print_os_logs(GntTestCluster *cluster)
{
	g_autofree gchar *dir = g_build_filename(cluster->root, "var", "log", "gantry", "os", NULL);
	g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);

	gnt_test_cluster_list_files(dir, files);
	for (guint i = 0; i < files->len; i++) {
		g_autofree gchar *text = NULL;

		if (g_file_get_contents(files->pdata[i], &text, NULL, NULL))
			g_test_message("%s:\n%s", (const gchar *)files->pdata[i],
				       strlen(text) > 4000 ? text + strlen(text) - 4000 : text);
	}
}

/* A file of the installed root filesystem, read from the disk image
 * without mounting it (debugfs); NULL when that cannot be done. */
static gchar *
read_guest_file(const gchar *image, const gchar *path)
{
	g_autofree gchar *request = g_strdup_printf("cat %s", path);
	const gchar *argv[] = {"debugfs", "-R", request, image, NULL};
	g_autoptr(GSubprocess) proc = g_subprocess_newv(
		argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_SILENCE, NULL);
	gchar *out = NULL;

	if (proc == NULL || !g_subprocess_communicate_utf8(proc, NULL, NULL, &out, NULL, NULL))
		return NULL;
	return out;
}

/* @path on the guest's disk holds @needle. */
static void
assert_guest_file_contains(const gchar *image, const gchar *path, const gchar *needle)
{
	g_autofree gchar *text = read_guest_file(image, path);

	g_test_message("%s:\n%s", path, text != NULL ? text : "(unreadable)");
	g_assert_nonnull(text);
	if (strstr(text, needle) == NULL)
		g_error("%s on the guest's disk does not hold '%s'", path, needle);
}

/* What cloud-init did, read from the disk after the shutdown. */
static void
assert_cloud_init_done(const gchar *image)
{
	g_autofree gchar *status = NULL;
	g_autofree gchar *hostname = NULL;

	/* ds-identify found the datasource by itself, from the SMBIOS tables */
	assert_guest_file_contains(image, "/var/tmp/ds-identify.cfg",
				   "datasource_list: [ OpenStack, None ]");
	assert_guest_file_contains(image, "/var/tmp/ds-identify.log",
				   "DMI_CHASSIS_ASSET_TAG=OpenStack Compute");
	assert_guest_file_contains(image, "/var/tmp/ds-identify.log",
				   "Found single datasource: OpenStack");
	/* the datasource read metad in the local stage; no stage had errors */
	assert_guest_file_contains(image, "/var/tmp/cloud-init-status.json",
				   "\"datasource\": \"DataSourceOpenStackLocal [net,ver=2]\"");
	status = read_guest_file(image, "/var/tmp/cloud-init-status.json");
	g_assert_null(strstr(status, "\"errors\": [\n"));
	/* the host name from meta_data.json, the key for the default user and root */
	assert_guest_file_contains(image, "/var/lib/cloud/data/set-hostname",
				   "\"fqdn\": \"" INSTANCE "\"");
	/* set: the OS definition wrote the full name, cloud-init (Debian's
	 * prefer_fqdn_over_hostname: false) the short one */
	hostname = read_guest_file(image, "/var/tmp/gantry-e2e-hostname");
	g_assert_nonnull(hostname);
	g_assert_cmpstr(g_strstrip(hostname), ==, "deb1");
	assert_guest_file_contains(image, "/home/debian/.ssh/authorized_keys", SSH_KEY);
	assert_guest_file_contains(image, "/root/.ssh/authorized_keys", SSH_KEY);
	/* after the boot, through the network config cloud-init made of
	 * network_data.json (the channel NIC's link-local address) */
	assert_guest_file_contains(image, "/var/tmp/gantry-e2e-meta-data.json",
				   "\"name\":\"" INSTANCE "\"");
}

static void
test_install_and_boot(E2eFx *fx, gconstpointer data)
{
	GntTestCluster *cluster = &fx->cluster;
	g_autofree gchar *create = NULL;
	g_autofree gchar *storage = NULL;
	g_autofree gchar *stop_text = NULL;
	g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(JsonArray) created = NULL;
	g_autoptr(JsonArray) started = NULL;
	g_autoptr(JsonArray) stopped = NULL;
	g_autoptr(GString) user_data = g_string_new(NULL);
	gboolean partitioned;
	gint64 t0, t;
	gdouble login_s, cloud_init_s;

	if (fx->skip != NULL) {
		g_test_skip(fx->skip);
		return;
	}
	partitioned = g_strcmp0(fx->partition_style, "none") != 0;
	g_test_message("mirror %s, suite %s, partition style %s", fx->mirror, fx->suite,
		       fx->partition_style);

	/* install only: the disk is looked at before the first boot; with the
	 * channel, user data and a key (gnt-instance add -C yes --user-data
	 * FILE --ssh-key FILE) */
	gnt_json_append_string(user_data, USER_DATA);
	create = g_strdup_printf(
		"{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\": \"" INSTANCE "\","
		" \"mode\": \"create\", \"hypervisor\": \"kvm\", \"disk_template\": \"file\","
		" \"disks\": [{\"size\": \"1G\"}], \"nics\": [],"
		" \"instance_communication\": true, \"user_data\": %s,"
		" \"ssh_keys\": [\"" SSH_KEY "\"],"
		" \"os_type\": \"debootstrap+%s\", \"force_variant\": true,"
		" \"osparams\": {\"filesystem\": \"ext4\"}, \"beparams\": {\"memory\": 512},"
		" \"hvparams\": {\"accel\": \"tcg\", \"kernel_path\": \"%s\", \"initrd_path\": \"%s\","
		" \"root_path\": \"%s\", \"kernel_args\": \"ro console=ttyS0\"},"
		" \"start\": false}",
		user_data->str, fx->variant, cluster->kernel, fx->initrd,
		partitioned ? "/dev/vda1" : "/dev/vda");
	t0 = g_get_monotonic_time();
	created = gnt_test_cluster_run_op(cluster, create, INSTALL_TIMEOUT_S);
	if (g_strcmp0(json_array_get_string_element(created, 0), "success") != 0)
		print_os_logs(cluster);
	gnt_test_cluster_assert_success(created);
	g_test_message("install (1 GiB file disk, debootstrap from %s) took %.1f s", fx->mirror,
		       (gdouble)(g_get_monotonic_time() - t0) / G_USEC_PER_SEC);

	storage = gnt_test_cluster_dup_file_storage_dir(cluster);
	gnt_test_cluster_list_files(storage, files);
	g_assert_cmpuint(files->len, ==, 1);
	if (!partitioned) {
		g_autofree gchar *hostname = read_guest_file(files->pdata[0], "/etc/hostname");
		g_autofree gchar *version = read_guest_file(files->pdata[0], "/etc/debian_version");

		/* the definition wrote the instance's name; debootstrap a Debian */
		g_assert_nonnull(hostname);
		g_assert_cmpstr(g_strstrip(hostname), ==, INSTANCE);
		g_assert_nonnull(version);
		g_test_message("installed Debian %s", g_strstrip(version));
	}

	started = gnt_test_cluster_run_op(
		cluster,
		"{\"OP_ID\": \"OP_INSTANCE_STARTUP\", \"instance_name\": \"" INSTANCE "\"}", 300);
	gnt_test_cluster_assert_success(started);
	login_s = gnt_test_cluster_wait_console(cluster, INSTANCE, "login:", LOGIN_TIMEOUT_S);
	g_test_message("login prompt on the serial console %.1f s after the start", login_s);
	if (login_s < 0)
		gnt_test_cluster_print_console(cluster, INSTANCE);
	g_assert_cmpfloat(login_s, >=, 0);
	/* cloud-init's final stage may end after the prompt */
	cloud_init_s = gnt_test_cluster_wait_console(cluster, INSTANCE, CLOUD_INIT_DONE,
						     CLOUD_INIT_TIMEOUT_S);
	g_test_message("cloud-init's user data ran %.1f s after the start",
		       cloud_init_s < 0 ? -1.0 : login_s + cloud_init_s);
	if (cloud_init_s < 0)
		gnt_test_cluster_print_console(cluster, INSTANCE);
	g_assert_cmpfloat(cloud_init_s, >=, 0);

	/* ACPI first, then the destroy (see SHUTDOWN_TIMEOUT_S) */
	t = g_get_monotonic_time();
	{
		g_autofree gchar *op = g_strdup_printf(
			"{\"OP_ID\": \"OP_INSTANCE_SHUTDOWN\", \"instance_name\": \"" INSTANCE "\","
			" \"timeout\": %d}",
			SHUTDOWN_TIMEOUT_S);
		stopped = gnt_test_cluster_run_op(cluster, op, SHUTDOWN_TIMEOUT_S + 120);
	}
	gnt_test_cluster_assert_success(stopped);
	stop_text = gnt_test_cluster_row_to_string(stopped);
	g_test_message("shutdown took %.1f s (%s)",
		       (gdouble)(g_get_monotonic_time() - t) / G_USEC_PER_SEC,
		       strstr(stop_text, "destroyed") != NULL ? "ACPI ignored: destroyed"
							      : "the guest powered off");
	g_assert_cmpuint(gnt_test_cluster_count_domains(cluster), ==, 0);
	if (!partitioned)
		assert_cloud_init_done(files->pdata[0]);

	gnt_test_cluster_remove_instance(cluster, INSTANCE, files->pdata[0]);
	g_test_message("whole test %.1f s",
		       (gdouble)(g_get_monotonic_time() - t0) / G_USEC_PER_SEC);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/e2e/debootstrap/install-and-boot", E2eFx, NULL, e2e_set_up,
		   test_install_and_boot, e2e_tear_down);
	return g_test_run();
}
