/*
 * Instances on the kvm hypervisor through the whole stack: gnt-cluster
 * init's daemons, LUXI jobs, the node daemon's mutual-TLS RPC, file disks,
 * Debian's ganeti-os-noop, and a real VM under qemu (TCG) through
 * libvirtd at qemu:///system (scripts/libvirt-up starts it). The guest is
 * the Debian cloud kernel with a busybox initramfs that prints a marker on
 * ttyS0 and ignores the power button. Skipped, saying why, only when
 * libvirtd does not answer or the kernel, busybox or ganeti-os-noop are
 * missing.
 */
#include "gnt-test-cluster.h"

#define MARKER	       "GANTRY-KVM-SYSTEM: the instance is up"
#define INSTANCE       "kvm1.example.com"
#define BOOT_TIMEOUT_S 120
#define JOB_TIMEOUT_S  180

typedef struct {
	GntTestCluster cluster;
	gchar *initrd; /* in cluster.boot_dir */
	gchar *skip;
} KvmFx;

static void
kvm_set_up(KvmFx *fx, gconstpointer data)
{
	g_autofree gchar *source = gnt_test_find_cloud_kernel();
	g_autofree gchar *script = g_build_filename(g_getenv("GNT_TEST_SRCDIR"), "hypervisor",
						    "make-test-initramfs", NULL);
	g_autofree gchar *name = g_strdup_printf("kvm%d.example.com", (gint)getpid());

	fx->skip = gnt_test_dup_libvirt_missing();
	if (fx->skip != NULL)
		return;
	if (source == NULL || !g_file_test("/bin/busybox", G_FILE_TEST_IS_EXECUTABLE)) {
		fx->skip = g_strdup("no /boot/vmlinuz-*-cloud-amd64 or /bin/busybox (install "
				    "linux-image-cloud-amd64 busybox-static)");
		return;
	}
	if (!g_file_test("/usr/share/ganeti/os/noop/create", G_FILE_TEST_IS_EXECUTABLE)) {
		fx->skip = g_strdup("no /usr/share/ganeti/os/noop (install ganeti-os-noop)");
		return;
	}
	gnt_test_cluster_init_kvm(&fx->cluster, name, source);
	fx->initrd = g_build_filename(fx->cluster.boot_dir, "initrd.cpio.gz", NULL);
	{
		const gchar *argv[] = {script, fx->initrd, MARKER, NULL};

		gnt_test_run_checked(argv);
	}
}

static void
kvm_tear_down(KvmFx *fx, gconstpointer data)
{
	gnt_test_cluster_clear(&fx->cluster);
	g_free(fx->initrd);
	g_free(fx->skip);
}

/* OP_INSTANCE_CREATE of a started kvm instance with one 64 MiB file disk,
 * no NIC, the noop OS, booting @kernel. */
static gchar *
create_op(const gchar *name, const gchar *kernel, const gchar *initrd)
{
	return g_strdup_printf(
		"{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\": \"%s\", \"mode\": \"create\","
		" \"hypervisor\": \"kvm\", \"disk_template\": \"file\", \"disks\": [{\"size\": 64}],"
		" \"nics\": [], \"os_type\": \"noop\", \"beparams\": {\"memory\": 256},"
		" \"hvparams\": {\"accel\": \"tcg\", \"kernel_path\": \"%s\","
		" \"initrd_path\": \"%s\", \"kernel_args\": \"console=ttyS0\"}}",
		name, kernel, initrd);
}

static guint
count_files(GntTestCluster *cluster)
{
	g_autofree gchar *dir = gnt_test_cluster_dup_file_storage_dir(cluster);
	g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);

	gnt_test_cluster_list_files(dir, files);
	for (guint i = 0; i < files->len; i++)
		g_test_message("file disk: %s", (const gchar *)files->pdata[i]);
	return files->len;
}

static void
test_lifecycle(KvmFx *fx, gconstpointer data)
{
	GntTestCluster *cluster = &fx->cluster;
	g_autofree gchar *create = NULL;
	g_autofree gchar *disk_dir = NULL;
	g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(JsonArray) created = NULL;
	g_autoptr(JsonArray) stopped = NULL;
	GStatBuf st;
	g_autofree gchar *stop_text = NULL;
	gint64 t0, t;
	gdouble boot_s;

	if (fx->skip != NULL) {
		g_test_skip(fx->skip);
		return;
	}
	create = create_op(INSTANCE, cluster->kernel, fx->initrd);
	t0 = g_get_monotonic_time();
	created = gnt_test_cluster_run_op(cluster, create, JOB_TIMEOUT_S);
	gnt_test_cluster_assert_success(created);
	g_test_message("create (disk, OS noop, start) took %.2f s",
		       (gdouble)(g_get_monotonic_time() - t0) / G_USEC_PER_SEC);
	g_assert_cmpuint(gnt_test_cluster_count_instances(cluster, INSTANCE), ==, 1);

	/* one 64 MiB file disk under the cluster's file storage directory */
	disk_dir = gnt_test_cluster_dup_file_storage_dir(cluster);
	gnt_test_cluster_list_files(disk_dir, files);
	g_assert_cmpuint(files->len, ==, 1);
	g_assert_cmpint(g_stat(files->pdata[0], &st), ==, 0);
	g_assert_cmpint(st.st_size, ==, 64 * 1024 * 1024);

	boot_s = gnt_test_cluster_wait_console(cluster, INSTANCE, MARKER, BOOT_TIMEOUT_S);
	g_test_message("marker in OP_INSTANCE_CONSOLE's lines after %.2f s", boot_s);
	g_assert_cmpfloat(boot_s, >=, 0);

	/* the tiny init ignores ACPI: the 3 s timeout ends in a destroy */
	t = g_get_monotonic_time();
	stopped = gnt_test_cluster_run_op(
		cluster,
		"{\"OP_ID\": \"OP_INSTANCE_SHUTDOWN\", \"instance_name\": \"" INSTANCE "\","
		" \"timeout\": 3}",
		JOB_TIMEOUT_S);
	gnt_test_cluster_assert_success(stopped);
	g_test_message("shutdown took %.2f s",
		       (gdouble)(g_get_monotonic_time() - t) / G_USEC_PER_SEC);
	stop_text = gnt_test_cluster_row_to_string(stopped);
	g_assert_nonnull(strstr(stop_text, "did not shut down within 3 seconds: destroyed"));
	g_assert_cmpuint(g_get_monotonic_time() - t, >=, 3 * G_USEC_PER_SEC);
	g_assert_cmpuint(gnt_test_cluster_count_domains(cluster), ==, 0);

	gnt_test_cluster_remove_instance(cluster, INSTANCE, files->pdata[0]);
	g_assert_cmpuint(count_files(cluster), ==, 0);
	g_test_message("whole lifecycle %.2f s",
		       (gdouble)(g_get_monotonic_time() - t0) / G_USEC_PER_SEC);
}

static void
test_missing_kernel(KvmFx *fx, gconstpointer data)
{
	GntTestCluster *cluster = &fx->cluster;
	g_autofree gchar *missing = NULL;
	g_autofree gchar *create = NULL;
	g_autofree gchar *text = NULL;
	g_autoptr(JsonArray) row = NULL;

	if (fx->skip != NULL) {
		g_test_skip(fx->skip);
		return;
	}
	missing = g_build_filename(cluster->boot_dir, "no-such-vmlinuz", NULL);
	create = create_op("kvm2.example.com", missing, fx->initrd);
	row = gnt_test_cluster_run_op(cluster, create, JOB_TIMEOUT_S);
	text = gnt_test_cluster_row_to_string(row);
	g_assert_cmpstr(json_array_get_string_element(row, 0), ==, "error");
	/* the message names the instance's culprit: the kernel it could not boot */
	g_assert_nonnull(strstr(text, "no-such-vmlinuz"));
	/* nothing left behind: no record, no disk file, no domain */
	g_assert_cmpuint(gnt_test_cluster_count_instances(cluster, "kvm2.example.com"), ==, 0);
	g_assert_cmpuint(count_files(cluster), ==, 0);
	g_assert_cmpuint(gnt_test_cluster_count_domains(cluster), ==, 0);
}

/* The live domain XML of @instance, as libvirt has it. (transfer full) */
static gchar *
dup_domain_xml(GntTestCluster *cluster, const gchar *instance)
{
	g_autofree gchar *domain =
		g_strdup_printf("%s%s-%s", GNT_HV_DEFAULT_PREFIX, cluster->name, instance);
	const gchar *argv[] = {"virsh", "-q", "-c", GNT_HV_DEFAULT_URI, "dumpxml", domain, NULL};
	g_autoptr(GError) error = NULL;
	gchar *xml = NULL;
	gint status = 0;

	g_assert_true(g_spawn_sync(NULL, (gchar **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
				   &xml, NULL, &status, &error));
	g_assert_no_error(error);
	g_assert_true(g_spawn_check_wait_status(status, &error));
	g_assert_no_error(error);
	return xml;
}

static void
assert_contains(const gchar *text, const gchar *needle, gboolean wanted)
{
	if ((strstr(text, needle) != NULL) != wanted)
		g_error("'%s' is %s in:\n%s", needle, wanted ? "missing" : "present", text);
}

/*
 * firmware=uefi through the whole stack: the instance's disk 0 gets a
 * UEFI-bootable image (write_image; tests/hypervisor/make-uefi-disk), OVMF
 * boots it (the kernel says it saw EFI), the node keeps the instance's
 * UEFI variables under <data>/instances/<uuid>, and the instance's removal
 * takes them away.
 * @data "template": the instance's hvparams leave the firmware out; an
 * install template's hypervisor.apply_settings gives it (doc/install.md),
 * selected by the instance's tag, which its node carries: the add is
 * refused until the node has the tag, the domain libvirt runs has OVMF and
 * the instance's variables, and gnt-instance info names the template with
 * the serial number it had at the install, not a later one.
 */
#define UEFI_TEMPLATE "CUSTOM_UEFI"

/* The install template UEFI_TEMPLATE (serial 2: added, then described). */
static void
add_uefi_template(GntTestCluster *cluster)
{
	g_autoptr(JsonArray) added = gnt_test_cluster_run_op(
		cluster,
		"{\"OP_ID\": \"OP_INSTALL_TEMPLATE_ADD\", \"template_name\": \"" UEFI_TEMPLATE "\","
		" \"steps\": [{\"interface\": \"hypervisor\", \"step\": \"apply_settings\","
		" \"args\": {\"hvparams\": {\"firmware\": \"uefi\"}}, \"priority\": 30}]}",
		JOB_TIMEOUT_S);
	g_autoptr(JsonArray) described = NULL;

	gnt_test_cluster_assert_success(added);
	described = gnt_test_cluster_run_op(
		cluster,
		"{\"OP_ID\": \"OP_INSTALL_TEMPLATE_SET_PARAMS\", \"template_name\": "
		"\"" UEFI_TEMPLATE "\", \"description\": \"boot firmware: UEFI\"}",
		JOB_TIMEOUT_S);
	gnt_test_cluster_assert_success(described);
}

/* What the template gave shows: in libvirt's domain, in gnt-instance info
 * (with the serial the install saw, after the template changed again). */
static void
assert_uefi_by_template(GntTestCluster *cluster, const gchar *name, JsonArray *created)
{
	g_autofree gchar *log = gnt_test_cluster_row_to_string(created);
	g_autofree gchar *xml = dup_domain_xml(cluster, name);
	g_autofree gchar *info = NULL;
	g_autoptr(JsonArray) changed = NULL;

	assert_contains(log, "install step hypervisor.apply_settings [" UEFI_TEMPLATE "#1] (30)",
			TRUE);
	assert_contains(xml, "<loader readonly='yes' type='pflash'>", TRUE);
	assert_contains(xml, "OVMF", TRUE);
	assert_contains(xml, "<nvram", TRUE);
	changed = gnt_test_cluster_run_op(
		cluster,
		"{\"OP_ID\": \"OP_INSTALL_TEMPLATE_SET_PARAMS\", \"template_name\": "
		"\"" UEFI_TEMPLATE "\", \"description\": \"changed after the install\"}",
		JOB_TIMEOUT_S);
	gnt_test_cluster_assert_success(changed);
	g_assert_cmpint(gnt_test_cluster_run_full(cluster, "GNT_TEST_GNT_INSTANCE",
						  (const gchar *const[]){"info", name, NULL},
						  &info),
			==, 0);
	assert_contains(info, "templates: " UEFI_TEMPLATE " (serial 2)", TRUE);
	assert_contains(info, "hypervisor.apply_settings", TRUE);
	assert_contains(info, "firmware: uefi", TRUE);
}

static void
test_uefi(KvmFx *fx, gconstpointer data)
{
	GntTestCluster *cluster = &fx->cluster;
	gboolean by_template = g_strcmp0(data, "template") == 0;
	const gchar *name = by_template ? "uefi2.example.com" : "uefi1.example.com";
	g_autofree gchar *missing = gnt_test_dup_uefi_missing();
	g_autofree gchar *image = NULL;
	g_autofree gchar *create = NULL;
	g_autofree gchar *disk_dir = NULL;
	g_autoptr(GPtrArray) disks = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) state = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) after = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(JsonArray) created = NULL;
	gint64 t0;
	gdouble boot_s;

	if (fx->skip != NULL) {
		g_test_skip(fx->skip);
		return;
	}
	if (missing != NULL) {
		g_test_skip(missing);
		return;
	}
	image = g_build_filename(cluster->boot_dir, "uefi.img", NULL);
	gnt_test_make_uefi_disk(image, cluster->kernel, fx->initrd);
	create = g_strdup_printf(
		"{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\": \"%s\","
		" \"mode\": \"create\", \"hypervisor\": \"kvm\", \"disk_template\": \"file\","
		" \"disks\": [{\"size\": 64}], \"nics\": [], \"os_type\": \"noop\","
		" \"os_image\": \"%s\", \"beparams\": {\"memory\": 256},"
		" \"hvparams\": {\"accel\": \"tcg\"%s}%s}",
		name, image, by_template ? "" : ", \"firmware\": \"uefi\"",
		by_template ? ", \"tags\": [\"" UEFI_TEMPLATE "\"]" : "");
	if (by_template) {
		g_autoptr(JsonArray) refused = NULL;
		g_autofree gchar *text = NULL;

		add_uefi_template(cluster);
		refused = gnt_test_cluster_run_op(cluster, create, JOB_TIMEOUT_S);
		text = gnt_test_cluster_row_to_string(refused);
		g_assert_cmpstr(json_array_get_string_element(refused, 0), ==, "error");
		assert_contains(text, "lacks the tag '" UEFI_TEMPLATE "'", TRUE);
		g_assert_cmpuint(gnt_test_cluster_count_instances(cluster, name), ==, 0);
		gnt_test_cluster_tag_master(cluster, UEFI_TEMPLATE);
	}
	t0 = g_get_monotonic_time();
	created = gnt_test_cluster_run_op(cluster, create, JOB_TIMEOUT_S);
	gnt_test_cluster_assert_success(created);
	boot_s = gnt_test_cluster_wait_console(cluster, name, MARKER " (firmware: uefi)",
					       BOOT_TIMEOUT_S);
	g_test_message("uefi: create to marker %.2f s (marker %.2f s after the job)",
		       (gdouble)(g_get_monotonic_time() - t0) / G_USEC_PER_SEC, boot_s);
	g_assert_cmpfloat(boot_s, >=, 0);

	/* the instance's own variables, made by libvirt from OVMF's template */
	gnt_test_list_uefi_vars(cluster->paths, state);
	g_assert_cmpuint(state->len, ==, 1);
	if (by_template)
		assert_uefi_by_template(cluster, name, created);

	disk_dir = gnt_test_cluster_dup_file_storage_dir(cluster);
	gnt_test_cluster_list_files(disk_dir, disks);
	g_assert_cmpuint(disks->len, ==, 1);
	gnt_test_cluster_remove_instance(cluster, name, disks->pdata[0]);
	gnt_test_list_uefi_vars(cluster->paths, after);
	g_assert_cmpuint(after->len, ==, 0);
	g_assert_false(g_file_test(state->pdata[0], G_FILE_TEST_EXISTS));
	g_assert_cmpuint(gnt_test_cluster_count_domains(cluster), ==, 0);
}

/* self_install (doc/install.md): the first boot runs with the install
 * hvparams (a CD-ROM, booted first, no kernel), the boot after its first
 * shutdown with the instance's own (the direct kernel boot, no CD-ROM). */
static void
test_self_install(KvmFx *fx, gconstpointer data)
{
	GntTestCluster *cluster = &fx->cluster;
	g_autofree gchar *iso = NULL;
	g_autofree gchar *create = NULL;
	g_autofree gchar *first_xml = NULL;
	g_autofree gchar *later_xml = NULL;
	g_autofree gchar *iso_source = NULL;
	g_autofree gchar *kernel = NULL;
	g_autoptr(JsonArray) created = NULL;
	g_autoptr(JsonArray) stopped = NULL;
	g_autoptr(JsonArray) started = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *zeros = g_malloc0(1024 * 1024);

	if (fx->skip != NULL) {
		g_test_skip(fx->skip);
		return;
	}
	/* an "installer" medium: qemu only opens it */
	iso = g_build_filename(cluster->boot_dir, "installer.iso", NULL);
	g_assert_true(g_file_set_contents(iso, zeros, 1024 * 1024, &error));
	g_assert_no_error(error);
	g_assert_cmpint(g_chmod(iso, 0644), ==, 0);
	create = g_strdup_printf(
		"{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\": \"kvm3.example.com\","
		" \"mode\": \"create\", \"hypervisor\": \"kvm\", \"disk_template\": \"file\","
		" \"disks\": [{\"size\": 16}], \"nics\": [], \"beparams\": {\"memory\": 128},"
		" \"hvparams\": {\"accel\": \"tcg\", \"kernel_path\": \"%s\", \"initrd_path\": \"%s\","
		" \"kernel_args\": \"console=ttyS0\"}, \"install_mode\": \"self_install\","
		" \"install_hvparams\": {\"kernel_path\": \"\", \"initrd_path\": \"\","
		" \"boot_order\": \"cdrom\", \"cdrom_image_path\": \"%s\"}}",
		cluster->kernel, fx->initrd, iso);
	created = gnt_test_cluster_run_op(cluster, create, JOB_TIMEOUT_S);
	gnt_test_cluster_assert_success(created);

	iso_source = g_strdup_printf("<source file='%s'", iso);
	kernel = g_strdup_printf("<kernel>%s</kernel>", cluster->kernel);
	first_xml = dup_domain_xml(cluster, "kvm3.example.com");
	assert_contains(first_xml, "<boot dev='cdrom'/>", TRUE);
	assert_contains(first_xml, "device='cdrom'", TRUE);
	assert_contains(first_xml, iso_source, TRUE);
	assert_contains(first_xml, "<kernel>", FALSE);

	/* the first shutdown (a destroy: nothing in the guest answers ACPI) */
	stopped = gnt_test_cluster_run_op(cluster,
					  "{\"OP_ID\": \"OP_INSTANCE_SHUTDOWN\", \"instance_name\":"
					  " \"kvm3.example.com\", \"timeout\": 0}",
					  JOB_TIMEOUT_S);
	gnt_test_cluster_assert_success(stopped);
	started = gnt_test_cluster_run_op(cluster,
					  "{\"OP_ID\": \"OP_INSTANCE_STARTUP\", \"instance_name\":"
					  " \"kvm3.example.com\"}",
					  JOB_TIMEOUT_S);
	gnt_test_cluster_assert_success(started);
	later_xml = dup_domain_xml(cluster, "kvm3.example.com");
	assert_contains(later_xml, kernel, TRUE);
	assert_contains(later_xml, "device='cdrom'", FALSE);
	assert_contains(later_xml, iso_source, FALSE);
	assert_contains(later_xml, "<boot dev='cdrom'/>", FALSE);

	{
		g_autofree gchar *dir = gnt_test_cluster_dup_file_storage_dir(cluster);
		g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);

		gnt_test_cluster_list_files(dir, files);
		g_assert_cmpuint(files->len, ==, 1);
		gnt_test_cluster_remove_instance(cluster, "kvm3.example.com", files->pdata[0]);
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/system/instances-kvm/lifecycle", KvmFx, NULL, kvm_set_up, test_lifecycle,
		   kvm_tear_down);
	g_test_add("/system/instances-kvm/missing-kernel", KvmFx, NULL, kvm_set_up,
		   test_missing_kernel, kvm_tear_down);
	g_test_add("/system/instances-kvm/uefi", KvmFx, NULL, kvm_set_up, test_uefi, kvm_tear_down);
	g_test_add("/system/instances-kvm/uefi-by-template", KvmFx, "template", kvm_set_up,
		   test_uefi, kvm_tear_down);
	g_test_add("/system/instances-kvm/self-install", KvmFx, NULL, kvm_set_up, test_self_install,
		   kvm_tear_down);
	return g_test_run();
}
