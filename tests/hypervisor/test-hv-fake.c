/* The fake hypervisor: lifecycle, state that outlives the object, errors. */
#include <string.h>

#include "gnt-error.h"
#include "gnt-hypervisor.h"
#include "gnt-json.h"

typedef struct {
	gchar *dir;
	gchar *state_dir;
	GntHypervisor *hv;
} FakeFx;

static void
fake_set_up(FakeFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;

	fx->dir = g_dir_make_tmp("gnt-hv-fake-XXXXXX", &error);
	g_assert_no_error(error);
	fx->state_dir = g_build_filename(fx->dir, "state", NULL);
	fx->hv = gnt_hypervisor_new("fake", fx->state_dir, "c1-", &error);
	g_assert_no_error(error);
	g_assert_cmpstr(gnt_hypervisor_get_name(fx->hv), ==, "fake");
	g_assert_cmpstr(gnt_hypervisor_get_prefix(fx->hv), ==, "c1-");
}

static void
fake_tear_down(FakeFx *fx, gconstpointer data)
{
	g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", fx->dir);

	g_clear_object(&fx->hv);
	g_assert_cmpint(system(cmd), ==, 0);
	g_free(fx->state_dir);
	g_free(fx->dir);
}

static GntHvInstance *
make_instance(FakeFx *fx, const gchar *name)
{
	g_autofree gchar *uuid = g_uuid_string_random();
	GntHvInstance *inst = gnt_hv_instance_new(name, uuid);
	g_autofree gchar *log = g_strdup_printf("%s/console-%s.log", fx->dir, name);

	inst->memory_mib = 512;
	inst->vcpus = 2;
	inst->console_log = g_steal_pointer(&log);
	gnt_hv_instance_add_disk(inst, gnt_hv_disk_new("/srv/disk0", GNT_HV_DISK_FORMAT_RAW));
	gnt_hv_instance_add_nic(inst, gnt_hv_nic_new("aa:00:00:11:22:33", GNT_HV_NIC_MODE_BRIDGED,
						     "br0"));
	return inst;
}

static void
test_lifecycle(FakeFx *fx, gconstpointer data)
{
	g_autoptr(GntHvInstance) inst = make_instance(fx, "web1.example.com");
	g_autoptr(GError) error = NULL;
	g_autoptr(GntHvInfo) info = NULL;
	g_autoptr(GPtrArray) names = NULL;
	g_autoptr(GntHvConsole) console = NULL;
	g_autofree gchar *head = NULL;
	gboolean forced = TRUE;

	g_assert_true(gnt_hypervisor_start(fx->hv, inst, FALSE, &error));
	g_assert_no_error(error);
	info = gnt_hypervisor_get_info(fx->hv, "web1.example.com", &error);
	g_assert_no_error(error);
	g_assert_cmpint(info->state, ==, GNT_HV_STATE_RUNNING);
	g_assert_cmpuint(info->memory_mib, ==, 512);
	g_assert_cmpuint(info->vcpus, ==, 2);
	names = gnt_hypervisor_list(fx->hv, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(names->len, ==, 1);
	g_assert_cmpstr(names->pdata[0], ==, "web1.example.com");

	console = gnt_hypervisor_get_console(fx->hv, "web1.example.com", &error);
	g_assert_no_error(error);
	g_assert_null(console->pty);
	g_assert_cmpstr(console->log, ==, inst->console_log);
	head = gnt_hv_console_read_log(console, 1, &error);
	g_assert_no_error(error);
	g_assert_cmpstr(head, ==, "gantry fake hypervisor: instance 'web1.example.com' started\n");

	g_assert_true(gnt_hypervisor_reboot(fx->hv, inst, GNT_HV_REBOOT_SOFT, 10, &error));
	g_assert_true(gnt_hypervisor_reboot(fx->hv, inst, GNT_HV_REBOOT_HARD, 10, &error));
	g_assert_true(gnt_hypervisor_reboot(fx->hv, inst, GNT_HV_REBOOT_FULL, 10, &error));
	g_assert_no_error(error);

	g_assert_true(gnt_hypervisor_shutdown(fx->hv, "web1.example.com", 30, &forced, &error));
	g_assert_no_error(error);
	g_assert_false(forced);
	g_clear_pointer(&names, g_ptr_array_unref);
	names = gnt_hypervisor_list(fx->hv, &error);
	g_assert_cmpuint(names->len, ==, 0);
}

static void
test_paused(FakeFx *fx, gconstpointer data)
{
	g_autoptr(GntHvInstance) inst = make_instance(fx, "p1");
	g_autoptr(GError) error = NULL;
	g_autoptr(GntHvInfo) info = NULL;
	g_autoptr(GntHvInfo) info2 = NULL;
	g_autofree gchar *path = g_build_filename(fx->state_dir, "c1-p1.json", NULL);
	g_autofree gchar *text = NULL;
	g_autoptr(JsonNode) record = NULL;
	JsonObject *hvparams;

	gnt_hv_instance_set_hvparam(inst, "kernel_args", "quiet");
	g_assert_true(gnt_hypervisor_start(fx->hv, inst, TRUE, &error));
	info = gnt_hypervisor_get_info(fx->hv, "p1", &error);
	g_assert_cmpint(info->state, ==, GNT_HV_STATE_PAUSED);
	g_assert_true(gnt_hypervisor_resume(fx->hv, "p1", &error));
	g_assert_no_error(error);
	info2 = gnt_hypervisor_get_info(fx->hv, "p1", &error);
	g_assert_cmpint(info2->state, ==, GNT_HV_STATE_RUNNING);
	/* the record keeps the filled hvparams it was started with, resumed too */
	g_assert_true(g_file_get_contents(path, &text, NULL, &error));
	record = gnt_json_parse(text, -1, &error);
	g_assert_no_error(error);
	hvparams = json_object_get_object_member(json_node_get_object(record), "hvparams");
	g_assert_cmpuint(json_object_get_size(hvparams), ==, 1);
	g_assert_cmpstr(json_object_get_string_member(hvparams, "kernel_args"), ==, "quiet");
	g_assert_false(gnt_hypervisor_resume(fx->hv, "p1", &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE);
	g_assert_nonnull(strstr(error->message, "'p1'"));
}

/* the state lives in files: a new object (a restarted daemon) sees it, and
 * another prefix (another cluster) does not */
static void
test_survives_restart(FakeFx *fx, gconstpointer data)
{
	g_autoptr(GntHvInstance) inst = make_instance(fx, "db1");
	g_autoptr(GError) error = NULL;
	g_autoptr(GntHypervisor) again = NULL;
	g_autoptr(GntHypervisor) other = NULL;
	g_autoptr(GPtrArray) names = NULL;
	g_autoptr(GPtrArray) other_names = NULL;

	g_assert_true(gnt_hypervisor_start(fx->hv, inst, FALSE, &error));
	g_clear_object(&fx->hv);
	again = gnt_hypervisor_new("fake", fx->state_dir, "c1-", &error);
	g_assert_no_error(error);
	names = gnt_hypervisor_list(again, &error);
	g_assert_cmpuint(names->len, ==, 1);
	g_assert_cmpstr(names->pdata[0], ==, "db1");
	other = gnt_hypervisor_new("fake", fx->state_dir, "c2-", &error);
	other_names = gnt_hypervisor_list(other, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(other_names->len, ==, 0);
	g_assert_true(gnt_hypervisor_destroy(again, "db1", &error));
	g_assert_no_error(error);
}

static void
test_errors(FakeFx *fx, gconstpointer data)
{
	g_autoptr(GntHvInstance) inst = make_instance(fx, "e1");
	g_autoptr(GntHvInstance) bad = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(GntHvInfo) info = NULL;
	g_autoptr(GntHvConsole) console = NULL;

	g_assert_null(gnt_hypervisor_get_info(fx->hv, "ghost", &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	g_assert_cmpstr(error->message, ==, "instance 'ghost' is not running");
	g_clear_error(&error);
	g_assert_false(gnt_hypervisor_shutdown(fx->hv, "ghost", 1, NULL, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	g_clear_error(&error);
	g_assert_false(gnt_hypervisor_destroy(fx->hv, "ghost", &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	g_clear_error(&error);
	g_assert_false(gnt_hypervisor_reboot(fx->hv, inst, GNT_HV_REBOOT_SOFT, 1, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	g_clear_error(&error);
	g_assert_null(gnt_hypervisor_get_console(fx->hv, "ghost", &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	g_clear_error(&error);

	g_assert_true(gnt_hypervisor_start(fx->hv, inst, FALSE, &error));
	g_assert_false(gnt_hypervisor_start(fx->hv, inst, FALSE, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_EXISTS);
	g_assert_cmpstr(error->message, ==, "instance 'e1' is already running");
	g_clear_error(&error);

	/* bad records are refused before anything happens */
	bad = gnt_hv_instance_copy(inst);
	g_free(bad->name);
	bad->name = g_strdup("../etc");
	g_assert_false(gnt_hypervisor_start(fx->hv, bad, FALSE, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_clear_error(&error);
	g_free(bad->name);
	bad->name = g_strdup("e2");
	gnt_hv_instance_set_hvparam(bad, "kernel_path", "/boot/vmlinuz");
	g_assert_false(gnt_hypervisor_start(fx->hv, bad, FALSE, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_cmpstr(error->message, ==,
			"instance 'e2': unknown hypervisor parameter 'kernel_path' for hypervisor "
			"'fake'");
	g_clear_error(&error);
	g_hash_table_remove_all(bad->hvparams);
	g_free(((GntHvNic *)bad->nics->pdata[0])->mac);
	((GntHvNic *)bad->nics->pdata[0])->mac = g_strdup("aa:00:00:11:22");
	g_assert_false(gnt_hypervisor_start(fx->hv, bad, FALSE, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_nonnull(strstr(error->message, "invalid MAC 'aa:00:00:11:22'"));
	g_clear_error(&error);
	info = gnt_hypervisor_get_info(fx->hv, "e2", &error);
	g_assert_null(info);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	g_clear_error(&error);

	/* an unknown hypervisor or a missing state directory */
	g_assert_null(gnt_hypervisor_new("xen-hvm", NULL, NULL, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_clear_error(&error);
	g_assert_null(gnt_hypervisor_new("fake", NULL, NULL, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_clear_error(&error);

	console = gnt_hypervisor_get_console(fx->hv, "e1", &error);
	g_free(console->log);
	console->log = NULL;
	g_assert_null(gnt_hv_console_read_log(console, 0, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
}

static void
test_records(void)
{
	g_autoptr(GntHvInstance)
		inst = gnt_hv_instance_new("r1", "8b4b9e0e-5a0b-4c84-9f0e-3c3b1d2c1e00");
	g_autoptr(GntHvInstance) copy = NULL;
	g_autoptr(GntHvDisk) disk = gnt_hv_disk_new("/dev/vg/lv", GNT_HV_DISK_FORMAT_QCOW2);
	GntHvDisk *disk_copy;
	GntHvDiskBus bus = GNT_HV_DISK_BUS_DEFAULT;
	GntHvRebootType type = GNT_HV_REBOOT_SOFT;
	g_autoptr(GError) error = NULL;

	disk->read_only = TRUE;
	disk->bus = GNT_HV_DISK_BUS_SCSI;
	gnt_hv_instance_add_disk(inst, gnt_hv_disk_copy(disk));
	gnt_hv_instance_add_nic(inst,
				gnt_hv_nic_new("aa:00:00:00:00:01", GNT_HV_NIC_MODE_ROUTED, NULL));
	gnt_hv_instance_set_hvparam(inst, "accel", "kvm");
	copy = gnt_hv_instance_copy(inst);
	disk_copy = copy->disks->pdata[0];
	g_assert_cmpstr(disk_copy->path, ==, "/dev/vg/lv");
	g_assert_true(disk_copy->read_only);
	g_assert_cmpint(disk_copy->bus, ==, GNT_HV_DISK_BUS_SCSI);
	g_assert_cmpint(((GntHvNic *)copy->nics->pdata[0])->mode, ==, GNT_HV_NIC_MODE_ROUTED);
	g_assert_cmpstr(g_hash_table_lookup(copy->hvparams, "accel"), ==, "kvm");

	g_assert_cmpstr(gnt_hv_disk_format_to_string(GNT_HV_DISK_FORMAT_QCOW2), ==, "qcow2");
	g_assert_cmpstr(gnt_hv_nic_mode_to_string(GNT_HV_NIC_MODE_ROUTED), ==, "routed");
	g_assert_cmpstr(gnt_hv_state_to_string(GNT_HV_STATE_SHUTOFF), ==, "shutoff");
	g_assert_null(gnt_hv_disk_bus_to_string(GNT_HV_DISK_BUS_LAST));
	g_assert_true(gnt_hv_disk_bus_from_string("sata", &bus, &error));
	g_assert_cmpint(bus, ==, GNT_HV_DISK_BUS_SATA);
	g_assert_true(gnt_hv_reboot_type_from_string("full", &type, &error));
	g_assert_cmpint(type, ==, GNT_HV_REBOOT_FULL);
	g_assert_false(gnt_hv_reboot_type_from_string("warm", &type, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_cmpstr(error->message, ==, "unknown reboot type 'warm' (known: soft, hard, full)");
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/hv-fake/lifecycle", FakeFx, NULL, fake_set_up, test_lifecycle, fake_tear_down);
	g_test_add("/hv-fake/paused", FakeFx, NULL, fake_set_up, test_paused, fake_tear_down);
	g_test_add("/hv-fake/survives-restart", FakeFx, NULL, fake_set_up, test_survives_restart,
		   fake_tear_down);
	g_test_add("/hv-fake/errors", FakeFx, NULL, fake_set_up, test_errors, fake_tear_down);
	g_test_add_func("/hv-fake/records", test_records);
	return g_test_run();
}
