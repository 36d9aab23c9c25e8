/* The kvm backend: domain XML against golden files, and the lifecycle on
 * libvirt's test:///default driver (no guest, in-process). */
#include <string.h>

#include <glib/gstdio.h>

#include "gnt-error.h"
#include "gnt-hypervisor-private.h"
#include "hv-golden.h"

#define UUID1	"6c1c6e58-4d3c-4bc4-8a8e-2f4f3b0c9a01"
#define UUID2	"6c1c6e58-4d3c-4bc4-8a8e-2f4f3b0c9a02"
#define STARTED 1700000000

/* --- golden XML --------------------------------------------------------- */

/* OVMF as Debian installs it, and an instance's variables under its
 * state directory */
static const GntHvUefi test_uefi = {
	.code = (gchar *)"/usr/share/OVMF/OVMF_CODE_4M.fd",
	.vars_template = (gchar *)"/usr/share/OVMF/OVMF_VARS_4M.fd",
	.vars = (gchar *)"/var/lib/gantry/instances/" UUID2 "/uefi-vars.fd",
};

static gchar *
build_xml_with(const GntHvInstance *inst, const GntHvUefi *uefi, GError **error)
{
	g_autoptr(GHashTable) filled = gnt_hv_params_fill("kvm", NULL, inst->hvparams, error);

	if (filled == NULL)
		return NULL;
	return gnt_hv_kvm_build_xml(inst, filled, "gnt-test-vm", STARTED, uefi, error);
}

static gchar *
build_xml(const GntHvInstance *inst, GError **error)
{
	return build_xml_with(inst, NULL, error);
}

static GntHvInstance *
kernel_instance(const gchar *name, const gchar *uuid)
{
	GntHvInstance *inst = gnt_hv_instance_new(name, uuid);

	inst->memory_mib = 256;
	inst->console_log = g_strdup_printf("/var/log/gantry/console/%s.log", name);
	gnt_hv_instance_set_hvparam(inst, "kernel_path", "/srv/gantry/vmlinuz");
	gnt_hv_instance_set_hvparam(inst, "initrd_path", "/srv/gantry/initrd.gz");
	gnt_hv_instance_set_hvparam(inst, "root_path", "");
	gnt_hv_instance_set_hvparam(inst, "kernel_args", "quiet panic=-1");
	return inst;
}

static void
test_xml_minimal(void)
{
	g_autoptr(GntHvInstance) inst = kernel_instance("vm1.example.com", UUID1);
	g_autoptr(GError) error = NULL;
	g_autofree gchar *xml = build_xml(inst, &error);

	g_assert_no_error(error);
	assert_golden(xml, "hypervisor-kvm-minimal.xml");
	/* bios, the default: SeaBIOS, which libvirt picks when nothing is named */
	g_assert_null(strstr(xml, "<loader"));
	g_assert_null(strstr(xml, "<nvram"));
}

/* firmware=uefi from the disk: OVMF read-only, the instance's own
 * variables; the same with a direct kernel boot (OVMF starts the kernel's
 * EFI stub) */
static void
test_xml_uefi(void)
{
	g_autoptr(GntHvInstance) inst = gnt_hv_instance_new("efi1", UUID2);
	g_autoptr(GntHvInstance) direct = kernel_instance("efi2", UUID2);
	g_autoptr(GError) error = NULL;
	g_autofree gchar *xml = NULL;
	g_autofree gchar *direct_xml = NULL;

	gnt_hv_instance_add_disk(inst,
				 gnt_hv_disk_new("/srv/disks/efi1.img", GNT_HV_DISK_FORMAT_RAW));
	gnt_hv_instance_set_hvparam(inst, "firmware", "uefi");
	xml = build_xml_with(inst, &test_uefi, &error);
	g_assert_no_error(error);
	assert_golden(xml, "hypervisor-kvm-uefi.xml");

	gnt_hv_instance_set_hvparam(direct, "firmware", "uefi");
	direct_xml = build_xml_with(direct, &test_uefi, &error);
	g_assert_no_error(error);
	g_assert_nonnull(strstr(direct_xml, "<loader readonly='yes' type='pflash'>"
					    "/usr/share/OVMF/OVMF_CODE_4M.fd</loader>"));
	g_assert_nonnull(strstr(direct_xml, "<kernel>/srv/gantry/vmlinuz</kernel>"));
}

/* the backend resolves OVMF before building: a mismatch is a bug */
static void
test_xml_firmware_mismatch(void)
{
	g_autoptr(GntHvInstance) inst = kernel_instance("efi3", UUID1);
	g_autoptr(GError) error = NULL;
	g_autofree gchar *xml = NULL;

	gnt_hv_instance_set_hvparam(inst, "firmware", "uefi");
	xml = build_xml(inst, &error);
	g_assert_null(xml);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_FAULT);
	g_clear_error(&error);
	gnt_hv_instance_set_hvparam(inst, "firmware", "bios");
	g_assert_null(build_xml_with(inst, &test_uefi, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_FAULT);
}

static void
touch(const gchar *dir, const gchar *name)
{
	g_autofree gchar *path = g_build_filename(dir, name, NULL);

	g_assert_true(g_file_set_contents(path, "", 0, NULL));
}

/* OVMF found on the node, 4 MiB build first; none: a message that says
 * what to install; the state directory made for the variables */
static void
test_uefi_prepare(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *dir = g_dir_make_tmp("gnt-hv-uefi-XXXXXX", &error);
	g_autofree gchar *ovmf = g_build_filename(dir, "OVMF", NULL);
	g_autofree gchar *state = g_build_filename(dir, "instances", UUID1, NULL);
	g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", dir);
	g_autoptr(GntHvUefi) none = NULL;
	g_autoptr(GntHvUefi) small = NULL;
	g_autoptr(GntHvUefi) big = NULL;
	g_autoptr(GntHvUefi) no_state = NULL;
	g_autofree gchar *expected = NULL;

	g_assert_no_error(error);
	g_assert_cmpint(g_mkdir(ovmf, 0755), ==, 0);
	none = gnt_hv_uefi_prepare(ovmf, state, "instance 'efi1'", &error);
	g_assert_null(none);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	expected = g_strdup_printf(
		"instance 'efi1': hypervisor parameter 'firmware' is 'uefi' but this node has no "
		"OVMF firmware (none of %s/OVMF_CODE_4M.fd, %s/OVMF_CODE.fd with its variables "
		"file; install Debian's 'ovmf' package)",
		ovmf, ovmf);
	g_assert_cmpstr(error->message, ==, expected);
	g_assert_false(g_file_test(state, G_FILE_TEST_EXISTS)); /* nothing made */
	g_clear_error(&error);

	/* a code file without its variables template does not count */
	touch(ovmf, "OVMF_CODE_4M.fd");
	touch(ovmf, "OVMF_CODE.fd");
	touch(ovmf, "OVMF_VARS.fd");
	small = gnt_hv_uefi_prepare(ovmf, state, "instance 'efi1'", &error);
	g_assert_no_error(error);
	g_assert_true(g_str_has_suffix(small->code, "/OVMF_CODE.fd"));
	g_assert_true(g_str_has_suffix(small->vars_template, "/OVMF_VARS.fd"));
	g_assert_true(g_file_test(state, G_FILE_TEST_IS_DIR));
	g_assert_true(g_str_has_prefix(small->vars, state));
	g_assert_true(g_str_has_suffix(small->vars, "/" GNT_HV_UEFI_VARS_FILE));

	touch(ovmf, "OVMF_VARS_4M.fd");
	big = gnt_hv_uefi_prepare(ovmf, state, "instance 'efi1'", &error);
	g_assert_no_error(error);
	g_assert_true(g_str_has_suffix(big->code, "/OVMF_CODE_4M.fd"));
	g_assert_true(g_str_has_suffix(big->vars_template, "/OVMF_VARS_4M.fd"));

	no_state = gnt_hv_uefi_prepare(ovmf, NULL, "instance 'efi1'", &error);
	g_assert_null(no_state);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_cmpint(system(cmd), ==, 0);
}

static void
test_xml_full(void)
{
	g_autoptr(GntHvInstance) inst = gnt_hv_instance_new("db & <web>", UUID1);
	g_autoptr(GntHvDisk) ro = gnt_hv_disk_new("/srv/disks/os.qcow2", GNT_HV_DISK_FORMAT_QCOW2);
	g_autoptr(GntHvDisk) ide = gnt_hv_disk_new("/srv/disks/legacy.img", GNT_HV_DISK_FORMAT_RAW);
	g_autoptr(GError) error = NULL;
	g_autofree gchar *xml = NULL;

	inst->memory_mib = 4096;
	inst->vcpus = 4;
	gnt_hv_instance_add_disk(inst,
				 gnt_hv_disk_new("/srv/disks/root.img", GNT_HV_DISK_FORMAT_RAW));
	ro->read_only = TRUE;
	gnt_hv_instance_add_disk(inst, g_steal_pointer(&ro));
	gnt_hv_instance_add_disk(inst, gnt_hv_disk_new("/dev/xenvg/data", GNT_HV_DISK_FORMAT_RAW));
	ide->bus = GNT_HV_DISK_BUS_IDE;
	gnt_hv_instance_add_disk(inst, g_steal_pointer(&ide));
	gnt_hv_instance_add_nic(inst, gnt_hv_nic_new("aa:00:00:35:2a:01", GNT_HV_NIC_MODE_BRIDGED,
						     "br0"));
	gnt_hv_instance_add_nic(inst, gnt_hv_nic_new("aa:00:00:35:2a:02", GNT_HV_NIC_MODE_ROUTED,
						     "gnt-tap7"));
	gnt_hv_instance_add_nic(inst,
				gnt_hv_nic_new("aa:00:00:35:2a:03", GNT_HV_NIC_MODE_ROUTED, NULL));
	gnt_hv_instance_set_hvparam(inst, "accel", "kvm");
	gnt_hv_instance_set_hvparam(inst, "acpi", "false");
	gnt_hv_instance_set_hvparam(inst, "cpu_type", "host");
	gnt_hv_instance_set_hvparam(inst, "machine_version", "pc-i440fx-7.2");
	gnt_hv_instance_set_hvparam(inst, "disk_cache", "none");
	gnt_hv_instance_set_hvparam(inst, "nic_type", "e1000");
	gnt_hv_instance_set_hvparam(inst, "cdrom_image_path", "/srv/iso/rescue.iso");
	xml = build_xml(inst, &error);
	g_assert_no_error(error);
	assert_golden(xml, "hypervisor-kvm-full.xml");
}

static void
test_xml_cdrom(void)
{
	g_autoptr(GntHvInstance) inst = gnt_hv_instance_new("inst3", UUID2);
	g_autoptr(GError) error = NULL;
	g_autofree gchar *xml = NULL;

	gnt_hv_instance_add_disk(inst,
				 gnt_hv_disk_new("/srv/disks/inst3.img", GNT_HV_DISK_FORMAT_RAW));
	gnt_hv_instance_set_hvparam(inst, "boot_order", "cdrom");
	gnt_hv_instance_set_hvparam(inst, "disk_type", "ide");
	gnt_hv_instance_set_hvparam(inst, "cpu_type", "Westmere");
	gnt_hv_instance_set_hvparam(inst, "serial_console", "false");
	xml = build_xml(inst, &error);
	g_assert_null(xml);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_nonnull(strstr(error->message, "'cdrom_image_path' is empty"));
	g_clear_error(&error);

	gnt_hv_instance_set_hvparam(inst, "cdrom_image_path", "/srv/iso/debian.iso");
	xml = build_xml(inst, &error);
	g_assert_no_error(error);
	assert_golden(xml, "hypervisor-kvm-cdrom.xml");
}

/* --- test:///default ---------------------------------------------------- */

typedef struct {
	gchar *dir;
	GntHypervisor *hv;
} KvmFx;

/* a record whose console log lands in the fixture's directory */
static GntHvInstance *
fx_instance(KvmFx *fx, const gchar *name, const gchar *uuid)
{
	GntHvInstance *inst = kernel_instance(name, uuid);

	g_free(inst->console_log);
	inst->console_log = g_strdup_printf("%s/console/%s.log", fx->dir, name);
	return inst;
}

static void
kvm_set_up(KvmFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;

	fx->dir = g_dir_make_tmp("gnt-hv-kvm-XXXXXX", &error);
	g_assert_no_error(error);
	fx->hv = gnt_hypervisor_new("kvm", "test:///default", "gnt-t-", &error);
	if (fx->hv == NULL && g_error_matches(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT))
		return; /* built without libvirt: the test skips */
	g_assert_no_error(error);
}

static void
kvm_tear_down(KvmFx *fx, gconstpointer data)
{
	g_autoptr(GPtrArray) names = NULL;
	g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", fx->dir);

	if (fx->hv != NULL)
		names = gnt_hypervisor_list(fx->hv, NULL);
	for (guint i = 0; names != NULL && i < names->len; i++)
		gnt_hypervisor_destroy(fx->hv, names->pdata[i], NULL);
	g_clear_object(&fx->hv);
	g_assert_cmpint(system(cmd), ==, 0);
	g_free(fx->dir);
}

static gboolean
skip_without_libvirt(KvmFx *fx)
{
	if (fx->hv == NULL)
		g_test_skip("built without libvirt");
	return fx->hv == NULL;
}

static void
test_driver_lifecycle(KvmFx *fx, gconstpointer data)
{
	g_autoptr(GntHvInstance) inst = fx_instance(fx, "life1", UUID1);
	g_autoptr(GError) error = NULL;
	g_autoptr(GntHvInfo) info = NULL;
	g_autoptr(GPtrArray) names = NULL;
	g_autoptr(GPtrArray) after = NULL;
	g_autoptr(GntHvConsole) console = NULL;
	gboolean forced = TRUE;

	if (skip_without_libvirt(fx))
		return;
	inst->vcpus = 2;
	gnt_hv_instance_add_disk(inst,
				 gnt_hv_disk_new("/srv/disks/life1.img", GNT_HV_DISK_FORMAT_RAW));
	g_assert_true(gnt_hypervisor_start(fx->hv, inst, FALSE, &error));
	g_assert_no_error(error);

	info = gnt_hypervisor_get_info(fx->hv, "life1", &error);
	g_assert_no_error(error);
	g_assert_cmpstr(info->name, ==, "life1");
	g_assert_cmpint(info->state, ==, GNT_HV_STATE_RUNNING);
	g_assert_cmpuint(info->memory_mib, ==, 256);
	g_assert_cmpuint(info->vcpus, ==, 2);
	g_assert_cmpuint(info->uptime_s, <, 60); /* from the metadata's start time */

	/* the driver's own preloaded domain "test" is not one of ours */
	names = gnt_hypervisor_list(fx->hv, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(names->len, ==, 1);
	g_assert_cmpstr(names->pdata[0], ==, "life1");

	console = gnt_hypervisor_get_console(fx->hv, "life1", &error);
	g_assert_no_error(error);
	g_assert_cmpstr(console->log, ==, inst->console_log);

	g_assert_true(gnt_hypervisor_shutdown(fx->hv, "life1", 10, &forced, &error));
	g_assert_no_error(error);
	g_assert_false(forced); /* the test driver obeys at once */
	after = gnt_hypervisor_list(fx->hv, &error);
	g_assert_cmpuint(after->len, ==, 0);
	g_assert_null(gnt_hypervisor_get_info(fx->hv, "life1", &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
}

static void
test_driver_paused_reboot_destroy(KvmFx *fx, gconstpointer data)
{
	g_autoptr(GntHvInstance) inst = fx_instance(fx, "pause1", UUID2);
	g_autoptr(GError) error = NULL;
	g_autoptr(GntHvInfo) info = NULL;
	g_autoptr(GntHvInfo) info2 = NULL;
	gboolean forced = FALSE;

	if (skip_without_libvirt(fx))
		return;
	g_assert_true(gnt_hypervisor_start(fx->hv, inst, TRUE, &error));
	g_assert_no_error(error);
	info = gnt_hypervisor_get_info(fx->hv, "pause1", &error);
	g_assert_cmpint(info->state, ==, GNT_HV_STATE_PAUSED);
	g_assert_true(gnt_hypervisor_resume(fx->hv, "pause1", &error));
	g_assert_no_error(error);
	info2 = gnt_hypervisor_get_info(fx->hv, "pause1", &error);
	g_assert_cmpint(info2->state, ==, GNT_HV_STATE_RUNNING);
	g_assert_false(gnt_hypervisor_resume(fx->hv, "pause1", &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE);
	g_clear_error(&error);

	for (GntHvRebootType t = GNT_HV_REBOOT_SOFT; t < GNT_HV_REBOOT_LAST; t++) {
		g_autoptr(GntHvInfo) after = NULL;

		g_assert_true(gnt_hypervisor_reboot(fx->hv, inst, t, 5, &error));
		g_assert_no_error(error);
		after = gnt_hypervisor_get_info(fx->hv, "pause1", &error);
		g_assert_no_error(error);
		g_assert_cmpint(after->state, ==, GNT_HV_STATE_RUNNING);
	}

	/* timeout 0: no waiting, the plug is pulled */
	g_assert_true(gnt_hypervisor_shutdown(fx->hv, "pause1", 0, &forced, &error));
	g_assert_true(forced);
	g_assert_true(gnt_hypervisor_start(fx->hv, inst, FALSE, &error));
	g_assert_true(gnt_hypervisor_destroy(fx->hv, "pause1", &error));
	g_assert_no_error(error);
	g_assert_false(gnt_hypervisor_destroy(fx->hv, "pause1", &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	g_assert_cmpstr(error->message, ==, "instance 'pause1' is not running");
}

/* firmware=uefi through the backend: OVMF looked up on this machine, the
 * state directory made for the variables; without OVMF, the message that
 * says what to install, and nothing started */
static void
test_driver_uefi(KvmFx *fx, gconstpointer data)
{
	g_autoptr(GntHvInstance) inst = fx_instance(fx, "efi1", UUID1);
	g_autoptr(GError) error = NULL;
	gboolean have_ovmf = g_file_test(GNT_HV_OVMF_DIR "/OVMF_CODE_4M.fd", G_FILE_TEST_EXISTS) ||
			     g_file_test(GNT_HV_OVMF_DIR "/OVMF_CODE.fd", G_FILE_TEST_EXISTS);

	if (skip_without_libvirt(fx))
		return;
	gnt_hv_instance_set_hvparam(inst, "firmware", "uefi");
	g_assert_false(gnt_hypervisor_start(fx->hv, inst, FALSE, &error));
	g_assert_true(error != NULL && error->domain == GNT_ERROR);
	g_assert_cmpint(error->code, ==, have_ovmf ? GNT_ERROR_INVALID : GNT_ERROR_ENVIRONMENT);
	g_clear_error(&error);

	inst->state_dir = g_build_filename(fx->dir, "instances", UUID1, NULL);
	if (!have_ovmf) {
		g_assert_false(gnt_hypervisor_start(fx->hv, inst, FALSE, &error));
		g_assert_nonnull(strstr(error->message, "install Debian's 'ovmf' package"));
		g_assert_false(g_file_test(inst->state_dir, G_FILE_TEST_EXISTS));
		return;
	}
	g_assert_true(gnt_hypervisor_start(fx->hv, inst, FALSE, &error));
	g_assert_no_error(error);
	g_assert_true(g_file_test(inst->state_dir, G_FILE_TEST_IS_DIR));
	g_assert_true(gnt_hypervisor_destroy(fx->hv, "efi1", &error));
}

static void
test_driver_errors(KvmFx *fx, gconstpointer data)
{
	g_autoptr(GntHvInstance) inst = fx_instance(fx, "err1", UUID1);
	g_autoptr(GntHvInstance) clash = fx_instance(fx, "err2", UUID1);
	g_autoptr(GError) error = NULL;
	g_autoptr(GntHypervisor) bad = NULL;
	g_autoptr(GPtrArray) names = NULL;

	if (skip_without_libvirt(fx))
		return;
	g_assert_false(gnt_hypervisor_shutdown(fx->hv, "ghost", 1, NULL, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	g_assert_cmpstr(error->message, ==, "instance 'ghost' is not running");
	g_clear_error(&error);
	g_assert_null(gnt_hypervisor_get_console(fx->hv, "ghost", &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	g_clear_error(&error);
	g_assert_false(gnt_hypervisor_reboot(fx->hv, inst, GNT_HV_REBOOT_HARD, 1, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	g_clear_error(&error);

	g_assert_true(gnt_hypervisor_start(fx->hv, inst, FALSE, &error));
	g_assert_false(gnt_hypervisor_start(fx->hv, inst, FALSE, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_EXISTS);
	g_assert_cmpstr(error->message, ==, "instance 'err1' is already running");
	g_clear_error(&error);

	/* libvirt's own refusal (same uuid), converted with its message */
	g_assert_false(gnt_hypervisor_start(fx->hv, clash, FALSE, &error));
	g_assert_true(error->domain == GNT_ERROR);
	g_assert_true(g_str_has_prefix(error->message, "starting instance 'err2': "));
	g_clear_error(&error);

	gnt_hv_instance_set_hvparam(clash, "accel", "hvf");
	g_assert_false(gnt_hypervisor_start(fx->hv, clash, FALSE, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_cmpstr(error->message, ==,
			"instance 'err2': hypervisor parameter 'accel' must be one of kvm, tcg, "
			"not 'hvf'");
	g_clear_error(&error);

	/* a URI that does not connect fails each call, naming the URI */
	bad = gnt_hypervisor_new("kvm", "test:///nonexistent/node.xml", NULL, &error);
	g_assert_no_error(error);
	names = gnt_hypervisor_list(bad, &error);
	g_assert_null(names);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	g_assert_nonnull(strstr(error->message, "cannot connect to libvirt at "
						"'test:///nonexistent/node.xml'"));
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/hv-kvm/xml/minimal", test_xml_minimal);
	g_test_add_func("/hv-kvm/xml/full", test_xml_full);
	g_test_add_func("/hv-kvm/xml/cdrom", test_xml_cdrom);
	g_test_add_func("/hv-kvm/xml/uefi", test_xml_uefi);
	g_test_add_func("/hv-kvm/xml/firmware-mismatch", test_xml_firmware_mismatch);
	g_test_add_func("/hv-kvm/uefi/prepare", test_uefi_prepare);
	g_test_add("/hv-kvm/test-driver/lifecycle", KvmFx, NULL, kvm_set_up, test_driver_lifecycle,
		   kvm_tear_down);
	g_test_add("/hv-kvm/test-driver/paused-reboot-destroy", KvmFx, NULL, kvm_set_up,
		   test_driver_paused_reboot_destroy, kvm_tear_down);
	g_test_add("/hv-kvm/test-driver/uefi", KvmFx, NULL, kvm_set_up, test_driver_uefi,
		   kvm_tear_down);
	g_test_add("/hv-kvm/test-driver/errors", KvmFx, NULL, kvm_set_up, test_driver_errors,
		   kvm_tear_down);
	return g_test_run();
}
