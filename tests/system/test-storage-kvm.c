/*
 * A storage layout built in band on real libvirt (qemu, TCG), doc/install.md
 * "Storage layouts": an instance with two file disks and an install
 * template of the mirror's steps without a payload (wipe_disks, partition
 * on both disks, RAID1 for /boot and for LVM, vg0 with root and swap,
 * mkfs, mount_target, write_fstab, set_hostname; the OS scripts and the
 * personalization disabled, install_bootloader left out: it needs an
 * installed system). The install appliance (appliance/, built here into
 * the cluster's root) runs them. Then, from the host, on read-only loop
 * devices of the disk files (tests/system/storage-layout-facts.sh): both
 * members of the RAID1 active, vg0 on the array's data area with root and
 * swap, the root's /etc/fstab listing by UUID what the layout made, its
 * /etc/hostname; and gnt-instance info showing the layout the post-step
 * hook recorded. Skipped, saying why, when libvirtd, the kernel, busybox,
 * ganeti-os-noop, the storage tools or root are missing.
 */
#include "gnt-test-cluster.h"

#define JOB_TIMEOUT_S 600
#define TEMPLATE      "CUSTOM_MIRROR_CHECK"
#define INSTANCE      "store.example.com"

#define ROW(step, args, prio)                                                                      \
	"{\"interface\": \"appliance\", \"step\": \"" step "\", \"args\": " args                   \
	", \"priority\": " prio "}"
#define PARTS                                                                                      \
	"[{\"size\": 1, \"type\": \"bios_boot\"}, {\"size\": 128, \"type\": \"raid\"},"            \
	" {\"size\": \"rest\", \"type\": \"raid\"}]"

/* The mirror (CUSTOM_RAID1_LVM) without a payload and its bootloader. */
static const gchar template_steps[] =
	"["
	"{\"interface\": \"deploy\", \"step\": \"run_os_scripts\", \"args\": {}, \"priority\": 0},"
	"{\"interface\": \"deploy\", \"step\": \"personalize\", \"args\": {}, \"priority\": 0}," ROW("wipe_disks", "{}", "99") "," ROW(
		"partition", "{\"disk\": 0, \"partitions\": " PARTS "}",
		"97") "," ROW("partition", "{\"disk\": 1, \"partitions\": " PARTS "}",
			      "97") "," ROW("create_raid",
					    "{\"name\": \"md0\", \"level\": 1, \"devices\": [\"disk0p2\", \"disk1p2\"]}",
					    "95") "," ROW("create_raid",
							  "{\"name\": \"md1\", \"level\": 1, \"devices\": [\"disk0p3\", \"disk1p3\"]}",
							  "95") "," ROW("create_lvm",
									"{\"vg\": \"vg0\", \"pvs\": [\"md1\"], \"lvs\": [{\"name\": \"swap\", \"size\": 128}, {\"name\": \"root\", \"size\": \"rest\"}]}",
									"93") "," ROW("mkfs",
										      "{\"device\": \"md0\", \"fstype\": \"ext4\", \"label\": \"boot\"}",
										      "91") "," ROW("mkfs",
												    "{\"device\": \"vg0/root\", \"fstype\": \"ext4\", \"label\": \"root\"}",
												    "91") "," ROW("mkfs",
														  "{\"device\": \"vg0/swap\", \"fstype\": \"swap\"}",
														  "91") "," ROW("mount_target",
																"{\"mounts\": [{\"device\": \"vg0/root\", \"path\": \"/\"}, {\"device\": \"md0\", \"path\": \"/boot\"}, {\"device\": \"vg0/swap\", \"path\": \"swap\"}]}",
																"89") "," ROW("write_fstab",
																	      "{}",
																	      "78") "," ROW("set_hostname",
																			    "{}",
																			    "77") "]";

typedef struct {
	GntTestCluster cluster;
	gchar *skip;
} StorageFx;

/* Why the host cannot run the test, or NULL. (transfer full) */
static gchar *
dup_host_missing(void)
{
	const gchar *tools[] = {"mdadm", "lvm", "sgdisk", "partx", "losetup", "debugfs", "blkid"};

	if (geteuid() != 0)
		return g_strdup("needs root (loop devices of the disk files)");
	for (guint i = 0; i < G_N_ELEMENTS(tools); i++) {
		g_autofree gchar *found = g_find_program_in_path(tools[i]);
		g_autofree gchar *in_sbin = g_build_filename("/usr/sbin", tools[i], NULL);

		if (found == NULL && !g_file_test(in_sbin, G_FILE_TEST_IS_EXECUTABLE))
			return g_strdup_printf(
				"no %s (install mdadm lvm2 gdisk xfsprogs dosfstools "
				"e2fsprogs util-linux)",
				tools[i]);
	}
	if (!g_file_test("/usr/share/ganeti/os/noop/create", G_FILE_TEST_IS_EXECUTABLE))
		return g_strdup("no /usr/share/ganeti/os/noop (install ganeti-os-noop)");
	return NULL;
}

static void
storage_set_up(StorageFx *fx, gconstpointer data)
{
	g_autofree gchar *kernel = gnt_test_find_cloud_kernel();
	g_autofree gchar *build = gnt_test_source_path("appliance", "build-appliance");
	g_autofree gchar *name = g_strdup_printf("stor%d.example.com", (gint)getpid());
	g_autofree gchar *out = NULL;

	fx->skip = gnt_test_dup_libvirt_missing();
	if (fx->skip == NULL)
		fx->skip = dup_host_missing();
	if (fx->skip == NULL &&
	    (kernel == NULL || !g_file_test("/bin/busybox", G_FILE_TEST_IS_EXECUTABLE)))
		fx->skip = g_strdup("no /boot/vmlinuz-*-cloud-amd64 or /bin/busybox (install "
				    "linux-image-cloud-amd64 busybox-static)");
	if (fx->skip != NULL)
		return;
	gnt_test_cluster_init_kvm(&fx->cluster, name, kernel);
	/* the node finds its appliance under <root>/var/lib/gantry/appliance */
	out = g_build_filename(fx->cluster.root, "var", "lib", "gantry", "appliance", NULL);
	{
		const gchar *argv[] = {build, out, NULL};

		gnt_test_run_checked(argv);
	}
}

static void
storage_tear_down(StorageFx *fx, gconstpointer data)
{
	if (fx->skip == NULL)
		gnt_test_cluster_clear(&fx->cluster);
	g_free(fx->skip);
}

/* The template, allowed on the master node by its tag. */
static void
add_template(GntTestCluster *cluster)
{
	g_autofree gchar *add = g_strdup_printf("{\"OP_ID\": \"OP_INSTALL_TEMPLATE_ADD\","
						" \"template_name\": \"" TEMPLATE
						"\", \"steps\": %s}",
						template_steps);
	g_autoptr(JsonArray) added = gnt_test_cluster_run_op(cluster, add, JOB_TIMEOUT_S);

	gnt_test_cluster_assert_success(added);
	gnt_test_cluster_tag_master(cluster, TEMPLATE);
}

/* The value of the line "@key VALUE" of @facts whose value starts with
 * @prefix ("" for any), or NULL. (transfer full) */
static gchar *
fact(const gchar *facts, const gchar *key, const gchar *prefix)
{
	g_auto(GStrv) lines = g_strsplit(facts, "\n", -1);
	g_autofree gchar *start = g_strdup_printf("%s %s", key, prefix);

	for (guint i = 0; lines[i] != NULL; i++) {
		if (g_str_has_prefix(lines[i], start))
			return g_strdup(lines[i] + strlen(key) + 1);
	}
	return NULL;
}

static guint
count_facts(const gchar *facts, const gchar *key)
{
	g_auto(GStrv) lines = g_strsplit(facts, "\n", -1);
	g_autofree gchar *start = g_strdup_printf("%s ", key);
	guint n = 0;

	for (guint i = 0; lines[i] != NULL; i++)
		n += g_str_has_prefix(lines[i], start);
	return n;
}

/* The layout read from the host (storage-layout-facts.sh). (transfer full) */
static gchar *
read_facts(GntTestCluster *cluster)
{
	g_autofree gchar *script = gnt_test_source_path("tests", "system/storage-layout-facts.sh");
	g_autofree gchar *disk_dir = gnt_test_cluster_dup_file_storage_dir(cluster);
	g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	g_autoptr(GError) error = NULL;
	g_autofree gchar *err = NULL;
	gchar *out = NULL;
	gint status = 0;

	gnt_test_cluster_list_files(disk_dir, files);
	g_assert_cmpuint(files->len, ==, 2);
	g_ptr_array_add(argv, (gpointer) "sh");
	g_ptr_array_add(argv, script);
	g_ptr_array_add(argv, (gpointer) "3");
	g_ptr_array_add(argv, (gpointer) "vg0");
	g_ptr_array_add(argv, (gpointer) "root");
	for (guint i = 0; i < files->len; i++)
		g_ptr_array_add(argv, files->pdata[i]);
	g_ptr_array_add(argv, NULL);
	g_assert_true(g_spawn_sync(NULL, (gchar **)argv->pdata, NULL, G_SPAWN_SEARCH_PATH, NULL,
				   NULL, &out, &err, &status, &error));
	g_assert_no_error(error);
	g_test_message("the layout from the host:\n%s%s", out, err);
	g_assert_true(g_spawn_check_wait_status(status, &error));
	g_assert_no_error(error);
	return out;
}

/* No loop device of the test's disk files is left. */
static void
assert_no_loops(GntTestCluster *cluster)
{
	g_autofree gchar *out = NULL;
	g_autofree gchar *disk_dir = gnt_test_cluster_dup_file_storage_dir(cluster);
	const gchar *argv[] = {"losetup", "-a", NULL};
	g_autoptr(GError) error = NULL;

	g_assert_true(g_spawn_sync(NULL, (gchar **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
				   &out, NULL, NULL, &error));
	g_assert_no_error(error);
	g_assert_null(strstr(out, disk_dir));
}

static void
test_mirror_layout(StorageFx *fx, gconstpointer data)
{
	GntTestCluster *cluster = &fx->cluster;
	g_autoptr(JsonArray) row = NULL;
	g_autofree gchar *log = NULL;
	g_autofree gchar *facts = NULL;
	g_autofree gchar *info = NULL;
	g_autofree gchar *root_uuid = NULL;
	g_autofree gchar *root_line = NULL;
	g_autofree gchar *root_shown = NULL;
	g_autofree gchar *hostname = NULL;
	g_autofree gchar *pv = NULL;
	g_autofree gchar *root_lv = NULL;
	g_autofree gchar *swap_lv = NULL;
	g_autofree gchar *fstab_root = NULL;
	g_autofree gchar *op = NULL;
	gint64 t0;

	if (fx->skip != NULL) {
		g_test_skip(fx->skip);
		return;
	}
	add_template(cluster);
	op = g_strdup("{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\": \"" INSTANCE "\","
		      " \"mode\": \"create\", \"hypervisor\": \"kvm\", \"disk_template\": \"file\","
		      " \"disks\": [{\"size\": 640}, {\"size\": 640}], \"nics\": [],"
		      " \"os_type\": \"noop\", \"start\": false, \"beparams\": {\"memory\": 512},"
		      " \"hvparams\": {\"accel\": \"tcg\"}, \"tags\": [\"" TEMPLATE "\"]}");
	t0 = g_get_monotonic_time();
	row = gnt_test_cluster_run_op(cluster, op, JOB_TIMEOUT_S);
	gnt_test_cluster_assert_success(row);
	g_test_message("the mirror layout on 2 x 640 MiB (TCG) took %.2f s",
		       (gdouble)(g_get_monotonic_time() - t0) / G_USEC_PER_SEC);

	/* every step ran in the appliance, in its order */
	log = gnt_test_job_log_text(row);
	gnt_test_assert_contains(log,
				 "install step appliance.wipe_disks [" TEMPLATE "#3] (99): done");
	gnt_test_assert_contains(log,
				 "install step appliance.create_raid [" TEMPLATE "#7] (95): done");
	gnt_test_assert_contains(log,
				 "install step appliance.create_lvm [" TEMPLATE "#8] (93): done");
	gnt_test_assert_contains(log, "install step appliance.mount_target [" TEMPLATE
				      "#12] (89): done");
	gnt_test_assert_contains(log, "the install record's root device: /dev/vg0/root");
	gnt_test_assert_contains(log, "install step appliance.set_hostname [" TEMPLATE
				      "#14] (77): done");

	/* from the host: RAID1 with both members active on partition 3 of
	 * each disk, vg0 on it with root and swap, the root's fstab by UUID */
	facts = read_facts(cluster);
	assert_no_loops(cluster);
	g_assert_cmpuint(count_facts(facts, "member"), ==, 2);
	g_assert_cmpuint(count_facts(facts, "fstab"), ==, 3);
	{
		g_auto(GStrv) lines = g_strsplit(facts, "\n", -1);

		for (guint i = 0; lines[i] != NULL; i++) {
			if (g_str_has_prefix(lines[i], "member "))
				g_assert_true(g_str_has_suffix(lines[i], " 3 raid1 2 AA"));
		}
	}
	pv = fact(facts, "pv", "");
	g_assert_cmpstr(pv, ==, "vg0");
	root_lv = fact(facts, "lv", "vg0/root ");
	g_assert_nonnull(root_lv);
	swap_lv = fact(facts, "lv", "vg0/swap ");
	g_assert_cmpstr(swap_lv, ==, "vg0/swap 134217728");
	root_uuid = fact(facts, "uuid", "vg0/root ");
	g_assert_nonnull(root_uuid);
	root_line = g_strdup_printf("UUID=%s / ext4 ", root_uuid + strlen("vg0/root "));
	fstab_root = fact(facts, "fstab", root_line);
	g_assert_nonnull(fstab_root);
	hostname = fact(facts, "hostname", "");
	g_assert_cmpstr(hostname, ==, "store");

	/* the layout the post-step hook recorded */
	g_assert_cmpint(gnt_test_cluster_run_full(cluster, "GNT_TEST_GNT_INSTANCE",
						  (const gchar *const[]){"info", INSTANCE, NULL},
						  &info),
			==, 0);
	gnt_test_assert_contains(info, "root device: /dev/vg0/root");
	root_shown = g_strdup_printf("vg0/root (/dev/vg0/root): ext4 on /, UUID %s, root",
				     root_uuid + strlen("vg0/root "));
	gnt_test_assert_contains(info, root_shown);
	gnt_test_assert_contains(info, "md0 (/dev/md0): ext4 on /boot, UUID ");
	gnt_test_assert_contains(info, "vg0/swap (/dev/vg0/swap): swap on swap, UUID ");
	gnt_test_assert_contains(info, "md0 (/dev/md0): RAID1 of disk0p2, disk1p2");
	gnt_test_assert_contains(info, "md1 (/dev/md1): RAID1 of disk0p3, disk1p3");
	/* every fstab UUID is one the layout shows */
	{
		g_auto(GStrv) lines = g_strsplit(facts, "\n", -1);

		for (guint i = 0; lines[i] != NULL; i++) {
			g_autofree gchar *uuid = NULL;

			if (!g_str_has_prefix(lines[i], "fstab UUID="))
				continue;
			uuid = g_strndup(lines[i] + strlen("fstab UUID="), 36);
			gnt_test_assert_contains(info, uuid);
		}
	}
	/* nothing of the appliance is left */
	g_assert_cmpuint(gnt_test_cluster_count_domains(cluster), ==, 0);
	g_assert_false(gnt_test_cluster_install_domain_left(cluster));
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/system/storage-kvm/mirror-layout", StorageFx, NULL, storage_set_up,
		   test_mirror_layout, storage_tear_down);
	return g_test_run();
}
