/* One real VM: the Debian cloud kernel and a busybox initramfs built here,
 * booted under qemu (TCG) through libvirtd at qemu:///system, which
 * scripts/libvirt-up starts. Skipped, saying why, only when that libvirtd
 * or the kernel/busybox are absent. */
#define _GNU_SOURCE /* strverscmp */
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "gnt-error.h"
#include "gnt-hypervisor.h"
#include "gnt-test-util.h"

#define MARKER		   "GANTRY-HV-TEST: the guest is up"
#define BOOT_TIMEOUT_S	   90
#define SHUTDOWN_TIMEOUT_S 3

typedef struct {
	gchar *dir;
	gchar *kernel;
	gchar *initrd;
	GntHypervisor *hv;
	gchar *skip;
} RealFx;

static gboolean
run_checked(const gchar *const *argv, GError **error)
{
	g_autoptr(GSubprocess) proc = g_subprocess_newv(argv, G_SUBPROCESS_FLAGS_NONE, error);

	return proc != NULL && g_subprocess_wait_check(proc, NULL, error);
}

static void
real_set_up(RealFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) names = NULL;
	g_autofree gchar *source = gnt_test_find_cloud_kernel();
	g_autofree gchar *prefix = g_strdup_printf("gnt-test-%d-", (gint)getpid());
	g_autofree gchar *script = g_build_filename(g_getenv("GNT_TEST_SRCDIR"), "hypervisor",
						    "make-test-initramfs", NULL);

	fx->hv = gnt_hypervisor_new("kvm", "qemu:///system", prefix, &error);
	if (fx->hv == NULL) {
		fx->skip = g_strdup_printf("no kvm hypervisor: %s", error->message);
		return;
	}
	names = gnt_hypervisor_list(fx->hv, &error);
	if (names == NULL) {
		fx->skip = g_strdup_printf("libvirtd is not reachable (run scripts/libvirt-up): %s",
					   error->message);
		return;
	}
	if (source == NULL || !g_file_test("/bin/busybox", G_FILE_TEST_IS_EXECUTABLE)) {
		fx->skip = g_strdup("no /boot/vmlinuz-*-cloud-amd64 or /bin/busybox (install "
				    "linux-image-cloud-amd64 busybox-static)");
		return;
	}
	fx->dir = g_dir_make_tmp("gnt-hv-real-XXXXXX", &error);
	g_assert_no_error(error);
	/* qemu runs as libvirt-qemu: it must reach the directory and read the
	 * files; /boot's kernel is 0600, so it is copied 0644 */
	g_assert_cmpint(g_chmod(fx->dir, 0755), ==, 0);
	fx->kernel = g_build_filename(fx->dir, "vmlinuz", NULL);
	fx->initrd = g_build_filename(fx->dir, "initrd.cpio.gz", NULL);
	{
		const gchar *install[] = {"install", "-m", "0644", source, fx->kernel, NULL};
		const gchar *mkinitrd[] = {script, fx->initrd, MARKER, NULL};

		g_assert_true(run_checked(install, &error));
		g_assert_no_error(error);
		g_assert_true(run_checked(mkinitrd, &error));
		g_assert_no_error(error);
	}
}

static void
real_tear_down(RealFx *fx, gconstpointer data)
{
	if (fx->hv != NULL) {
		g_autoptr(GPtrArray) names = gnt_hypervisor_list(fx->hv, NULL);

		for (guint i = 0; names != NULL && i < names->len; i++)
			gnt_hypervisor_destroy(fx->hv, names->pdata[i], NULL);
	}
	if (fx->dir != NULL) {
		g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", fx->dir);

		g_assert_cmpint(system(cmd), ==, 0);
	}
	g_clear_object(&fx->hv);
	g_free(fx->dir);
	g_free(fx->kernel);
	g_free(fx->initrd);
	g_free(fx->skip);
}

/* Waits for @needle in @path, up to @timeout_s; the seconds it took, or -1. */
static gdouble
wait_for_line(const gchar *path, const gchar *needle, guint timeout_s)
{
	gint64 start = g_get_monotonic_time();
	gint64 deadline = start + (gint64)timeout_s * G_USEC_PER_SEC;

	while (g_get_monotonic_time() < deadline) {
		g_autofree gchar *data = NULL;

		/* the log is written by virtlogd: there is nothing to wait on but the file */
		if (g_file_get_contents(path, &data, NULL, NULL) && strstr(data, needle) != NULL)
			return (gdouble)(g_get_monotonic_time() - start) / G_USEC_PER_SEC;
		g_usleep(100 * 1000);
	}
	return -1;
}

static void
test_boot_and_shutdown(RealFx *fx, gconstpointer data)
{
	g_autofree gchar *uuid = g_uuid_string_random();
	g_autoptr(GntHvInstance) inst = gnt_hv_instance_new("real1", uuid);
	g_autoptr(GError) error = NULL;
	g_autoptr(GntHvInfo) info = NULL;
	g_autoptr(GPtrArray) names = NULL;
	g_autoptr(GntHvConsole) console = NULL;
	g_autofree gchar *head = NULL;
	gboolean forced = FALSE;
	gint64 t0, t_stop;
	gdouble boot_s, stop_s;

	if (fx->skip != NULL) {
		g_test_skip(fx->skip);
		return;
	}
	inst->memory_mib = 256;
	inst->console_log = g_build_filename(fx->dir, "console.log", NULL);
	gnt_hv_instance_set_hvparam(inst, "accel", "tcg");
	gnt_hv_instance_set_hvparam(inst, "kernel_path", fx->kernel);
	gnt_hv_instance_set_hvparam(inst, "initrd_path", fx->initrd);
	gnt_hv_instance_set_hvparam(inst, "root_path", "");
	gnt_hv_instance_set_hvparam(inst, "kernel_args", "quiet panic=-1");

	t0 = g_get_monotonic_time();
	g_assert_true(gnt_hypervisor_start(fx->hv, inst, FALSE, &error));
	g_assert_no_error(error);
	g_test_message("start returned after %.2f s",
		       (gdouble)(g_get_monotonic_time() - t0) / G_USEC_PER_SEC);

	/* firmware=bios, the default: SeaBIOS starts the kernel */
	boot_s = wait_for_line(inst->console_log, MARKER " (firmware: bios)", BOOT_TIMEOUT_S);
	g_test_message("bios, direct kernel boot: marker on the serial console after %.2f s",
		       boot_s);
	g_assert_cmpfloat(boot_s, >=, 0);

	info = gnt_hypervisor_get_info(fx->hv, "real1", &error);
	g_assert_no_error(error);
	g_assert_cmpint(info->state, ==, GNT_HV_STATE_RUNNING);
	g_assert_cmpuint(info->memory_mib, ==, 256);
	g_assert_cmpuint(info->vcpus, ==, 1);
	g_assert_cmpuint(info->cpu_time_ns, >, 0);
	names = gnt_hypervisor_list(fx->hv, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(names->len, ==, 1);
	g_assert_cmpstr(names->pdata[0], ==, "real1");

	console = gnt_hypervisor_get_console(fx->hv, "real1", &error);
	g_assert_no_error(error);
	g_assert_nonnull(console->pty);
	g_assert_true(g_str_has_prefix(console->pty, "/dev/pts/"));
	g_assert_cmpstr(console->log, ==, inst->console_log);
	g_assert_nonnull(console->command);
	head = gnt_hv_console_read_log(console, 0, &error);
	g_assert_no_error(error);
	g_assert_nonnull(strstr(head, MARKER));

	/* the tiny init ignores the power button: the timeout path destroys it */
	t_stop = g_get_monotonic_time();
	g_assert_true(
		gnt_hypervisor_shutdown(fx->hv, "real1", SHUTDOWN_TIMEOUT_S, &forced, &error));
	g_assert_no_error(error);
	stop_s = (gdouble)(g_get_monotonic_time() - t_stop) / G_USEC_PER_SEC;
	g_test_message("shutdown (ACPI ignored, destroyed) took %.2f s; whole test %.2f s", stop_s,
		       (gdouble)(g_get_monotonic_time() - t0) / G_USEC_PER_SEC);
	g_assert_true(forced);
	g_assert_cmpfloat(stop_s, >=, SHUTDOWN_TIMEOUT_S);
	g_assert_null(gnt_hypervisor_get_info(fx->hv, "real1", &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
}

/*
 * firmware=uefi booting from its disk: OVMF finds \EFI\BOOT\BOOTX64.EFI
 * on the disk's EFI system partition (tests/hypervisor/make-uefi-disk: the
 * same kernel and initramfs as one EFI program) and the kernel, seeing
 * EFI, says so on the console; the instance's UEFI variables are made in
 * its state directory from OVMF's template.
 */
static void
test_uefi_disk(RealFx *fx, gconstpointer data)
{
	g_autofree gchar *uuid = g_uuid_string_random();
	g_autoptr(GntHvInstance) inst = gnt_hv_instance_new("uefi1", uuid);
	g_autoptr(GError) error = NULL;
	g_autofree gchar *disk = NULL;
	g_autofree gchar *missing = gnt_test_dup_uefi_missing();
	g_autofree gchar *vars = NULL;
	GStatBuf st, template_st;
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
	disk = g_build_filename(fx->dir, "uefi.img", NULL);
	gnt_test_make_uefi_disk(disk, fx->kernel, fx->initrd);
	inst->memory_mib = 256;
	inst->console_log = g_build_filename(fx->dir, "uefi-console.log", NULL);
	inst->state_dir = g_build_filename(fx->dir, "instances", uuid, NULL);
	gnt_hv_instance_add_disk(inst, gnt_hv_disk_new(disk, GNT_HV_DISK_FORMAT_RAW));
	gnt_hv_instance_set_hvparam(inst, "accel", "tcg");
	gnt_hv_instance_set_hvparam(inst, "firmware", "uefi");

	t0 = g_get_monotonic_time();
	g_assert_true(gnt_hypervisor_start(fx->hv, inst, FALSE, &error));
	g_assert_no_error(error);
	boot_s = wait_for_line(inst->console_log, MARKER " (firmware: uefi)", BOOT_TIMEOUT_S);
	g_test_message("uefi, from the disk: marker on the serial console after %.2f s", boot_s);
	g_assert_cmpfloat(boot_s, >=, 0);

	/* libvirt made the instance's own variables from OVMF's template */
	vars = g_build_filename(inst->state_dir, GNT_HV_UEFI_VARS_FILE, NULL);
	g_assert_cmpint(g_stat(vars, &st), ==, 0);
	g_assert_cmpint(g_stat("/usr/share/OVMF/OVMF_VARS_4M.fd", &template_st), ==, 0);
	g_assert_cmpint(st.st_size, ==, template_st.st_size);
	g_assert_true(gnt_hypervisor_destroy(fx->hv, "uefi1", &error));
	g_assert_no_error(error);
	g_test_message("uefi test took %.2f s",
		       (gdouble)(g_get_monotonic_time() - t0) / G_USEC_PER_SEC);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/hv-real/boot-and-shutdown", RealFx, NULL, real_set_up, test_boot_and_shutdown,
		   real_tear_down);
	g_test_add("/hv-real/uefi-disk", RealFx, NULL, real_set_up, test_uefi_disk, real_tear_down);
	return g_test_run();
}
