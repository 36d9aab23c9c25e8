/* noded's instance, disk and OS procedures, called through the master's
 * typed calls (rpc/gnt-node-calls.h) and the real client over TLS: the fake
 * hypervisor and file disks in a temporary root, the kvm hypervisor on
 * libvirt's test:///default, the test OS definitions of tests/data/os-defs,
 * and gantry-noded as a process. */
#include <glib/gstdio.h>
#include <string.h>

#include "gnt-error.h"
#include "gnt-hypervisor.h"
#include "gnt-json.h"
#include "gnt-node-calls-backup.h"
#include "gnt-node-calls-verify.h"
#include "gnt-node-calls.h"
#include "gnt-noded.h"
#include "rpc-test-server.h"

#define SECRET_VALUE "s3cr3t-d0-not-log"

typedef struct {
	TestNode node1; /* the node under test */
	gchar *os_dir;	/* tests/data/os-defs */
} NodeFx;

static void
node_set_up(NodeFx *fx, gconstpointer data)
{
	const GntRpcNodeOptions options = {.libvirt_uri = "test:///default"};

	test_node_start(&fx->node1, &options);
	fx->os_dir = g_build_filename(g_getenv("GNT_TEST_DATA_DIR"), "os-defs", NULL);
}

static void
node_tear_down(NodeFx *fx, gconstpointer data)
{
	g_free(fx->os_dir);
	test_node_stop(&fx->node1);
}

/* A disk record: @format NULL for none (raw). */
static JsonObject *
disk_record(guint64 size_mib, const gchar *format)
{
	JsonObject *disk = json_object_new();
	g_autofree gchar *uuid = g_uuid_string_random();

	json_object_set_string_member(disk, "uuid", uuid);
	json_object_set_string_member(disk, "name", "root");
	json_object_set_int_member(disk, "size", (gint64)size_mib);
	json_object_set_string_member(disk, "mode", "rw");
	if (format != NULL)
		json_object_set_string_member(disk, "format", format);
	return disk;
}

static JsonObject *
nic_record(void)
{
	JsonObject *nic = json_object_new();
	JsonObject *nicparams = json_object_new();
	g_autofree gchar *uuid = g_uuid_string_random();

	json_object_set_string_member(nic, "uuid", uuid);
	json_object_set_string_member(nic, "mac", "aa:00:00:12:34:56");
	json_object_set_null_member(nic, "ip");
	json_object_set_string_member(nicparams, "mode", "bridged");
	json_object_set_string_member(nicparams, "link", "br0");
	json_object_set_object_member(nic, "nicparams", nicparams);
	return nic;
}

/* The spec the master sends about instance @name: @formats, one disk of 8
 * MiB each ("raw", "qcow2"), for the file template; none: diskless. */
static JsonObject *
make_spec(NodeFx *fx, const gchar *name, const gchar *hypervisor, const gchar *const *formats)
{
	JsonObject *spec = json_object_new();
	JsonObject *instance = json_object_new();
	JsonArray *disks = json_array_new();
	JsonArray *nics = json_array_new();
	JsonObject *osparams = json_object_new();
	JsonObject *osparams_private = json_object_new();
	JsonObject *beparams = json_object_new();
	JsonObject *storage = json_object_new();
	JsonObject *os = json_object_new();
	JsonArray *search_path = json_array_new();
	g_autofree gchar *uuid = g_uuid_string_random();

	for (guint i = 0; formats != NULL && formats[i] != NULL; i++)
		json_array_add_object_element(disks, disk_record(8, formats[i]));
	json_array_add_object_element(nics, nic_record());
	json_object_set_string_member(osparams, "behaviour", "ok");
	json_object_set_string_member(osparams, "filesystem", "ext4");
	json_object_set_string_member(osparams_private, "root-size", "1G");
	json_object_set_string_member(instance, "name", name);
	json_object_set_string_member(instance, "uuid", uuid);
	json_object_set_string_member(instance, "primary_node", "node1-uuid");
	json_object_set_string_member(instance, "os", "sample+default");
	json_object_set_string_member(instance, "hypervisor", hypervisor);
	json_object_set_string_member(instance, "disk_template",
				      formats != NULL ? "file" : "diskless");
	json_object_set_array_member(instance, "disks", disks);
	json_object_set_array_member(instance, "nics", nics);
	json_object_set_object_member(instance, "osparams", osparams);
	json_object_set_object_member(instance, "osparams_private", osparams_private);
	json_object_set_double_member(instance, "ctime", 1700000000.5);
	json_object_set_double_member(instance, "mtime", 1700000001.25);
	json_object_set_int_member(beparams, "maxmem", 256);
	json_object_set_int_member(beparams, "vcpus", 2);
	json_object_set_null_member(storage, "volume_group_name");
	json_object_set_string_member(storage, "file_storage_dir", fx->node1.file_dir);
	json_array_add_string_element(search_path, "/nonexistent/os");
	json_array_add_string_element(search_path, fx->os_dir);
	json_object_set_array_member(os, "search_path", search_path);
	json_object_set_object_member(spec, "instance", instance);
	json_object_set_object_member(spec, "hvparams", json_object_new());
	json_object_set_object_member(spec, "beparams", beparams);
	json_object_set_object_member(spec, "storage", storage);
	json_object_set_object_member(spec, "os", os);
	return spec;
}

static JsonObject *
spec_instance(JsonObject *spec)
{
	return json_object_get_object_member(spec, "instance");
}

/* <file dir>/<instance>/<uuid of disk @index>.file.disk<index> */
static gchar *
disk_path(NodeFx *fx, JsonObject *spec, const gchar *instance, guint index)
{
	JsonArray *disks = json_object_get_array_member(spec_instance(spec), "disks");
	JsonObject *disk = json_array_get_object_element(disks, index);
	g_autofree gchar *file = g_strdup_printf(
		"%s.file.disk%u", json_object_get_string_member(disk, "uuid"), index);

	return g_build_filename(fx->node1.file_dir, instance, file, NULL);
}

static void
test_node_info(NodeFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	const gchar *const hypervisors[] = {"fake", "kvm", NULL};
	const gchar *const unknown[] = {"fake", "xen", NULL};
	g_autoptr(JsonObject) storage = json_object_new();
	g_autoptr(JsonObject) info = NULL;
	JsonObject *hv;
	JsonArray *reports;
	JsonObject *report;

	g_assert_cmpint(g_mkdir_with_parents(fx->node1.file_dir, 0750), ==, 0);
	json_object_set_string_member(storage, "file_storage_dir", fx->node1.file_dir);
	json_object_set_string_member(storage, "volume_group_name", "gnt-no-such-vg");
	info = gnt_node_call_node_info(fx->node1.client, fx->node1.record, hypervisors, storage,
				       &error);
	g_assert_no_error(error);
	g_assert_cmpint(json_object_get_int_member(info, "memory_total"), >, 0);
	g_assert_cmpint(json_object_get_int_member(info, "memory_free"), >, 0);
	g_assert_cmpint(json_object_get_int_member(info, "cpu_count"), >, 0);
	g_assert_cmpuint(strlen(json_object_get_string_member(info, "bootid")), ==, 36);
	hv = json_object_get_object_member(info, "hypervisors");
	g_assert_true(json_object_get_boolean_member(hv, "fake"));
	g_assert_true(json_object_get_boolean_member(hv, "kvm")); /* test:///default */
	reports = json_object_get_array_member(info, "storage");
	g_assert_cmpuint(json_array_get_length(reports), ==, 2);
	report = json_array_get_object_element(reports, 0); /* the volume group: missing */
	g_assert_cmpstr(json_object_get_string_member(report, "type"), ==, "lvm-vg");
	g_assert_cmpstr(json_object_get_string_member(report, "name"), ==, "gnt-no-such-vg");
	g_assert_nonnull(strstr(json_object_get_string_member(report, "error"), "gnt-no-such-vg"));
	report = json_array_get_object_element(reports, 1);
	g_assert_cmpstr(json_object_get_string_member(report, "type"), ==, "file");
	g_assert_cmpint(json_object_get_int_member(report, "storage_size"), >, 0);
	g_assert_false(json_object_has_member(report, "error"));

	g_assert_null(gnt_node_call_node_info(fx->node1.client, fx->node1.record, unknown, storage,
					      &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	assert_error_has(error, "node 'node1' (127.0.0.1:");
	assert_error_has(error, "node_info: ");
	assert_error_has(error, "'xen'");
}

/* node_verify: the facts every part reports (volumes with their sizes, a
 * qcow2 image's virtual size, the certificate), each failing part as its
 * own "<part>_error", and bad parameters refused. */
static void
test_node_verify(NodeFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	const gchar *const hypervisors[] = {"fake", NULL};
	const gchar *const unknown[] = {"xen", NULL};
	const gchar *const search_path[] = {fx->os_dir, NULL};
	g_autoptr(JsonObject) storage = json_object_new();
	g_autoptr(JsonObject) answer = NULL;
	g_autofree gchar *dir = g_build_filename(fx->node1.file_dir, "web1", NULL);
	g_autofree gchar *raw = g_build_filename(dir, "a.file.disk0", NULL);
	g_autofree gchar *qcow2 = g_build_filename(dir, "b.file.disk1", NULL);
	/* a qcow2 header: magic, version 3, ..., the virtual size at 24 */
	guchar header[32] = {'Q', 'F', 'I', 0xfb, 0, 0, 0, 3};
	JsonObject *volumes, *file, *cert;
	JsonArray *version;

	g_assert_cmpint(g_mkdir_with_parents(dir, 0750), ==, 0);
	g_assert_true(g_file_set_contents(raw, "12345", 5, NULL));
	header[28] = 0x40; /* bytes 24..31, big-endian: 0x40000000, 1 GiB */
	g_assert_true(g_file_set_contents(qcow2, (const gchar *)header, sizeof(header), NULL));
	json_object_set_string_member(storage, "file_storage_dir", fx->node1.file_dir);
	json_object_set_string_member(storage, "volume_group_name", "gnt-no-such-vg");
	answer = gnt_node_call_node_verify(fx->node1.client, fx->node1.record, hypervisors, storage,
					   search_path, &error);
	g_assert_no_error(error);
	version = json_object_get_array_member(answer, "version");
	g_assert_cmpint(json_array_get_int_element(version, 0), ==, 1);
	g_assert_cmpuint(json_array_get_length(json_object_get_array_member(answer, "time")), ==,
			 2);
	g_assert_true(json_object_has_member(answer, "node_info"));
	g_assert_true(json_object_has_member(answer, "instance_list"));
	g_assert_cmpuint(json_array_get_length(json_object_get_array_member(answer, "os_diagnose")),
			 >, 0);
	cert = json_object_get_object_member(answer, "certificate");
	g_assert_cmpint(json_object_get_int_member(cert, "not_after"), >,
			g_get_real_time() / G_USEC_PER_SEC + 365 * 86400);
	volumes = json_object_get_object_member(answer, "volumes");
	file = json_object_get_object_member(volumes, "file");
	g_assert_cmpint(json_object_get_int_member(file, "web1/a.file.disk0"), ==, 5);
	g_assert_cmpint(json_object_get_int_member(file, "web1/b.file.disk1"), ==, 1 << 30);
	/* the volume group is missing: its listing fails alone */
	g_assert_false(json_object_has_member(volumes, "plain"));
	g_assert_nonnull(
		strstr(json_object_get_string_member(volumes, "plain_error"), "gnt-no-such-vg"));
	g_assert_nonnull(json_object_get_array_member(answer, "taps"));
	json_object_unref(g_steal_pointer(&answer));

	/* an unknown hypervisor fails node_info and instance_list only */
	answer = gnt_node_call_node_verify(fx->node1.client, fx->node1.record, unknown, storage,
					   search_path, &error);
	g_assert_no_error(error);
	g_assert_false(json_object_has_member(answer, "instance_list"));
	g_assert_nonnull(
		strstr(json_object_get_string_member(answer, "instance_list_error"), "'xen'"));
	g_assert_true(json_object_has_member(answer, "os_diagnose"));
	json_object_unref(g_steal_pointer(&answer));

	json_object_set_int_member(storage, "file_storage_dir", 7);
	g_assert_null(gnt_node_call_node_verify(fx->node1.client, fx->node1.record, hypervisors,
						storage, search_path, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	assert_error_has(error, "node_verify: ");
	assert_error_has(error, "'file_storage_dir'");
}

static JsonObject *
list_fake(NodeFx *fx)
{
	g_autoptr(GError) error = NULL;
	const gchar *const hypervisors[] = {"fake", NULL};
	JsonObject *list = gnt_node_call_instance_list(fx->node1.client, fx->node1.record,
						       hypervisors, &error);

	g_assert_no_error(error);
	return list;
}

/* Disks made, an instance's life on the fake hypervisor, disks removed. */
static void
test_fake_lifecycle(NodeFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	const gchar *const formats[] = {"raw", "qcow2", NULL};
	g_autoptr(JsonObject) spec = make_spec(fx, "web1", "fake", formats);
	g_autofree gchar *disk0 = disk_path(fx, spec, "web1", 0);
	g_autofree gchar *disk1 = disk_path(fx, spec, "web1", 1);
	g_autofree gchar *instance_dir = g_build_filename(fx->node1.file_dir, "web1", NULL);
	g_autofree gchar *state_dir = NULL;
	g_autofree gchar *vars = NULL;
	g_autofree gchar *log = NULL;
	g_autoptr(JsonObject) list = NULL;
	g_autoptr(JsonObject) console = NULL;
	JsonObject *entry;
	JsonArray *lines;
	gboolean forced = TRUE;

	g_assert_true(
		gnt_node_call_blockdev_create(fx->node1.client, fx->node1.record, spec, &error));
	g_assert_no_error(error);
	g_assert_true(g_file_test(disk0, G_FILE_TEST_IS_REGULAR));
	g_assert_true(g_file_test(disk1, G_FILE_TEST_IS_REGULAR));

	g_assert_true(gnt_node_call_instance_start(fx->node1.client, fx->node1.record, spec, FALSE,
						   &error));
	g_assert_no_error(error);
	list = list_fake(fx);
	entry = json_object_get_object_member(list, "web1");
	g_assert_nonnull(entry);
	g_assert_cmpstr(json_object_get_string_member(entry, "state"), ==, "running");
	g_assert_cmpint(json_object_get_int_member(entry, "memory"), ==, 256);
	g_assert_cmpint(json_object_get_int_member(entry, "vcpus"), ==, 2);
	g_assert_cmpint(json_object_get_int_member(entry, "uptime"), >=, 0);

	g_assert_false(gnt_node_call_instance_start(fx->node1.client, fx->node1.record, spec, FALSE,
						    &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_EXISTS);
	assert_error_has(error, "node 'node1' (127.0.0.1:");
	assert_error_has(error, "instance 'web1'");
	g_clear_error(&error);

	console =
		gnt_node_call_instance_console(fx->node1.client, fx->node1.record, spec, 5, &error);
	g_assert_no_error(error);
	g_assert_cmpstr(json_object_get_string_member(console, "kind"), ==, "none");
	log = g_build_filename(gnt_paths_get_log_dir(fx->node1.paths), "console", "web1.log", NULL);
	g_assert_cmpstr(json_object_get_string_member(console, "log"), ==, log);
	lines = json_object_get_array_member(console, "lines");
	g_assert_cmpuint(json_array_get_length(lines), ==, 1);
	g_assert_nonnull(strstr(json_array_get_string_element(lines, 0), "'web1' started"));

	g_assert_true(gnt_node_call_instance_reboot(fx->node1.client, fx->node1.record, spec,
						    "hard", 5, &error));
	g_assert_no_error(error);
	g_assert_false(gnt_node_call_instance_reboot(fx->node1.client, fx->node1.record, spec,
						     "sideways", 5, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	assert_error_has(error, "sideways");
	g_clear_error(&error);

	g_assert_true(gnt_node_call_instance_shutdown(fx->node1.client, fx->node1.record, spec, 5,
						      &forced, &error));
	g_assert_no_error(error);
	g_assert_false(forced);
	g_clear_pointer(&list, json_object_unref);
	list = list_fake(fx);
	g_assert_cmpuint(json_object_get_size(list), ==, 0);
	g_assert_false(gnt_node_call_instance_shutdown(fx->node1.client, fx->node1.record, spec, 5,
						       NULL, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	assert_error_has(error, "instance_shutdown: instance 'web1' is not running");
	g_clear_error(&error);

	/* the instance's state directory (UEFI variables) goes with the disks */
	state_dir = g_build_filename(gnt_paths_get_data_dir(fx->node1.paths), "instances",
				     json_object_get_string_member(spec_instance(spec), "uuid"),
				     NULL);
	vars = g_build_filename(state_dir, GNT_HV_UEFI_VARS_FILE, NULL);
	g_assert_cmpint(g_mkdir_with_parents(state_dir, 0750), ==, 0);
	g_assert_true(g_file_set_contents(vars, "NVRAM", -1, NULL));
	g_assert_true(
		gnt_node_call_blockdev_remove(fx->node1.client, fx->node1.record, spec, &error));
	g_assert_no_error(error);
	g_assert_false(g_file_test(instance_dir, G_FILE_TEST_EXISTS));
	g_assert_false(g_file_test(state_dir, G_FILE_TEST_EXISTS));
	g_assert_true(
		gnt_node_call_blockdev_remove(fx->node1.client, fx->node1.record, spec, &error));
	g_assert_no_error(error);
}

/* Refusals name the instance or the disk, and make nothing. */
static void
test_blockdev_errors(NodeFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	const gchar *const formats[] = {"raw", NULL};
	g_autoptr(JsonObject) spec = make_spec(fx, "web2", "fake", formats);
	g_autoptr(JsonObject) big = make_spec(fx, "web3", "fake", formats);
	JsonArray *disks = json_object_get_array_member(spec_instance(big), "disks");
	g_autofree gchar *instance_dir = g_build_filename(fx->node1.file_dir, "web3", NULL);

	/* more than the file system holds */
	json_object_set_int_member(json_array_get_object_element(disks, 0), "size",
				   G_GINT64_CONSTANT(1) << 30);
	g_assert_false(
		gnt_node_call_blockdev_create(fx->node1.client, fx->node1.record, big, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NO_RESOURCES);
	assert_error_has(error, "node 'node1' (127.0.0.1:");
	assert_error_has(error, "disk 0 (1024.0T) of instance 'web3'");
	g_assert_false(g_file_test(instance_dir, G_FILE_TEST_EXISTS));
	g_clear_error(&error);

	/* no disks yet: the hypervisor gets nothing to boot */
	g_assert_false(gnt_node_call_instance_start(fx->node1.client, fx->node1.record, spec, FALSE,
						    &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	assert_error_has(error, "instance 'web2'");
	g_clear_error(&error);

	g_assert_false(
		gnt_node_call_blockdev_add(fx->node1.client, fx->node1.record, spec, 3, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	assert_error_has(error, "blockdev_add: instance 'web2' has no disk 3 (it has 1)");
	g_clear_error(&error);
	g_assert_false(gnt_node_call_blockdev_grow(fx->node1.client, fx->node1.record, spec, 3, 64,
						   &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	assert_error_has(error, "blockdev_grow: instance 'web2' has no disk 3 (it has 1)");
	g_clear_error(&error);
	/* a disk that is not there cannot be grown nor assembled */
	g_assert_false(gnt_node_call_blockdev_grow(fx->node1.client, fx->node1.record, spec, 0, 64,
						   &error));
	g_assert_nonnull(error);
	g_clear_error(&error);
	g_assert_null(
		gnt_node_call_blockdev_assemble(fx->node1.client, fx->node1.record, spec, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	g_clear_error(&error);

	/* a malformed spec */
	json_object_remove_member(spec, "beparams");
	g_assert_false(
		gnt_node_call_blockdev_create(fx->node1.client, fx->node1.record, spec, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	assert_error_has(error, "blockdev_create: instance spec of 'web2': 'beparams'");
	g_clear_error(&error);

	json_object_set_string_member(spec_instance(big), "name", "../etc");
	g_assert_false(
		gnt_node_call_blockdev_create(fx->node1.client, fx->node1.record, big, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	assert_error_has(error, "invalid instance name '../etc'");
}

/* One more disk, then a rename moves the disks' directory. */
static void
test_blockdev_add_rename(NodeFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	const gchar *const formats[] = {"raw", NULL};
	g_autoptr(JsonObject) spec = make_spec(fx, "old1", "fake", formats);
	JsonArray *disks = json_object_get_array_member(spec_instance(spec), "disks");
	g_autofree gchar *old_disk1 = NULL;
	g_autofree gchar *new_disk0 = NULL;
	g_autofree gchar *new_disk1 = NULL;
	g_autofree gchar *old_dir = g_build_filename(fx->node1.file_dir, "old1", NULL);

	g_assert_true(
		gnt_node_call_blockdev_create(fx->node1.client, fx->node1.record, spec, &error));
	g_assert_no_error(error);
	json_array_add_object_element(disks, disk_record(4, "qcow2"));
	g_assert_true(
		gnt_node_call_blockdev_add(fx->node1.client, fx->node1.record, spec, 1, &error));
	g_assert_no_error(error);
	old_disk1 = disk_path(fx, spec, "old1", 1);
	g_assert_true(g_file_test(old_disk1, G_FILE_TEST_IS_REGULAR));

	json_object_set_string_member(spec_instance(spec), "name", "new1");
	g_assert_true(gnt_node_call_blockdev_rename(fx->node1.client, fx->node1.record, spec,
						    "old1", &error));
	g_assert_no_error(error);
	new_disk0 = disk_path(fx, spec, "new1", 0);
	new_disk1 = disk_path(fx, spec, "new1", 1);
	g_assert_true(g_file_test(new_disk0, G_FILE_TEST_IS_REGULAR));
	g_assert_true(g_file_test(new_disk1, G_FILE_TEST_IS_REGULAR));
	g_assert_false(g_file_test(old_dir, G_FILE_TEST_EXISTS));
	/* again: done already */
	g_assert_true(gnt_node_call_blockdev_rename(fx->node1.client, fx->node1.record, spec,
						    "old1", &error));
	g_assert_no_error(error);
	/* the hypervisor finds the disks under the new name */
	g_assert_true(gnt_node_call_instance_start(fx->node1.client, fx->node1.record, spec, TRUE,
						   &error));
	g_assert_no_error(error);
	g_assert_true(gnt_node_call_instance_shutdown(fx->node1.client, fx->node1.record, spec, 0,
						      NULL, &error));
	g_assert_no_error(error);

	g_assert_false(gnt_node_call_blockdev_rename(fx->node1.client, fx->node1.record, spec,
						     "../x", &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	assert_error_has(error, "invalid old instance name '../x'");
}

static JsonObject *
find_os(JsonArray *oses, const gchar *name)
{
	for (guint i = 0; i < json_array_get_length(oses); i++) {
		JsonObject *os = json_array_get_object_element(oses, i);

		if (g_strcmp0(json_object_get_string_member(os, "name"), name) == 0)
			return os;
	}
	return NULL;
}

static void
test_os_diagnose(NodeFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	const gchar *const search_path[] = {"/nonexistent/os", fx->os_dir, NULL};
	g_autoptr(JsonArray) oses =
		gnt_node_call_os_diagnose(fx->node1.client, fx->node1.record, search_path, &error);
	JsonObject *sample, *bad;
	JsonArray *parameters;

	g_assert_no_error(error);
	sample = find_os(oses, "sample");
	g_assert_nonnull(sample);
	g_assert_true(json_object_get_boolean_member(sample, "valid"));
	g_assert_true(json_object_get_boolean_member(sample, "trusted"));
	g_assert_cmpstr(
		json_array_get_string_element(json_object_get_array_member(sample, "variants"), 0),
		==, "default");
	g_assert_cmpint(
		json_array_get_int_element(json_object_get_array_member(sample, "api_versions"), 0),
		==, 20);
	parameters = json_object_get_array_member(sample, "parameters");
	g_assert_cmpstr(json_array_get_string_element(json_array_get_array_element(parameters, 0),
						      0),
			==, "filesystem");
	bad = find_os(oses, "bad-api");
	g_assert_nonnull(bad);
	g_assert_false(json_object_get_boolean_member(bad, "valid"));
	g_assert_cmpstr(json_object_get_string_member(bad, "diagnose"), !=, "");
	g_assert_false(json_object_get_boolean_member(find_os(oses, "untrusted"), "trusted"));
}

/* Every file below @dir; the text of those holding @needle is added to
 * @found. */
static guint
count_files_with(const gchar *dir, const gchar *needle, guint *found)
{
	g_autoptr(GDir) handle = g_dir_open(dir, 0, NULL);
	const gchar *name;
	guint n = 0;

	while (handle != NULL && (name = g_dir_read_name(handle)) != NULL) {
		g_autofree gchar *path = g_build_filename(dir, name, NULL);
		g_autofree gchar *text = NULL;

		if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
			n += count_files_with(path, needle, found);
			continue;
		}
		g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
		if (strstr(text, needle) != NULL)
			(*found)++;
		n++;
	}
	return n;
}

static void
test_os_create(NodeFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	const gchar *const formats[] = {"raw", NULL};
	g_autoptr(JsonObject) spec = make_spec(fx, "web4", "fake", formats);
	g_autoptr(GntSecretDict) secret = gnt_secret_dict_new();
	g_autofree gchar *disk0 = disk_path(fx, spec, "web4", 0);
	g_autofree gchar *recorded = NULL;
	g_autofree gchar *expected_path = NULL;
	g_autofree gchar *os_log_dir =
		g_build_filename(gnt_paths_get_log_dir(fx->node1.paths), "os", NULL);
	guint with_secret = 0;

	gnt_secret_dict_set(secret, "secret.token", SECRET_VALUE);
	g_assert_true(
		gnt_node_call_blockdev_create(fx->node1.client, fx->node1.record, spec, &error));
	g_assert_no_error(error);
	g_assert_true(gnt_node_call_os_create(fx->node1.client, fx->node1.record, spec, secret, 1,
					      &error));
	g_assert_no_error(error);

	/* the sample OS wrote its environment onto disk 0 */
	g_assert_true(g_file_get_contents(disk0, &recorded, NULL, &error));
	expected_path = g_strdup_printf("\nDISK_0_PATH=%s\n", disk0);
	g_assert_nonnull(strstr(recorded, expected_path));
	g_assert_nonnull(strstr(recorded, "\nINSTANCE_NAME=web4\n"));
	g_assert_nonnull(strstr(recorded, "\nOS_VARIANT=default\n"));
	g_assert_nonnull(strstr(recorded, "\nDEBUG_LEVEL=1\n"));
	g_assert_nonnull(strstr(recorded, "\nDISK_COUNT=1\n"));
	g_assert_nonnull(strstr(recorded, "\nDISK_0_FORMAT=raw\n"));
	g_assert_nonnull(strstr(recorded, "\nINSTANCE_BE_maxmem=256\n"));
	g_assert_nonnull(strstr(recorded, "\nNIC_0_BRIDGE=br0\n"));
	g_assert_nonnull(strstr(recorded, "\nOSP_BEHAVIOUR=ok\n"));
	g_assert_nonnull(strstr(recorded, "\nOSP_ROOT_SIZE=1G\n"));
	g_assert_nonnull(strstr(recorded, "\nOSP_SECRET_TOKEN=" SECRET_VALUE "\n"));
	/* and its log, in the node's OS log directory, holds no secret */
	g_assert_cmpuint(count_files_with(os_log_dir, SECRET_VALUE, &with_secret), ==, 1);
	g_assert_cmpuint(with_secret, ==, 0);
	g_assert_cmpuint(count_files_with(gnt_paths_get_log_dir(fx->node1.paths), SECRET_VALUE,
					  &with_secret),
			 >=, 1);
	g_assert_cmpuint(with_secret, ==, 0);

	/* a failing script: its log tail reaches the master */
	json_object_set_string_member(json_object_get_object_member(spec_instance(spec),
								    "osparams"),
				      "behaviour", "fail");
	g_assert_false(
		gnt_node_call_os_create(fx->node1.client, fx->node1.record, spec, NULL, 0, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	assert_error_has(error, "node 'node1' (127.0.0.1:");
	assert_error_has(error, "os_create: instance 'web4': OS create script failed");
	assert_error_has(error, "disk 0 is not usable");
	g_clear_error(&error);

	/* an OS nobody has */
	json_object_set_string_member(spec_instance(spec), "os", "nope");
	g_assert_false(
		gnt_node_call_os_create(fx->node1.client, fx->node1.record, spec, NULL, 0, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	assert_error_has(error, "instance 'web4'");
	assert_error_has(error, "nope");
}

static void
test_os_rename(NodeFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	const gchar *const formats[] = {"raw", NULL};
	g_autoptr(JsonObject) spec = make_spec(fx, "before", "fake", formats);
	g_autofree gchar *disk0 = NULL;
	g_autofree gchar *recorded = NULL;
	gsize len = 0;

	g_assert_true(
		gnt_node_call_blockdev_create(fx->node1.client, fx->node1.record, spec, &error));
	g_assert_no_error(error);
	json_object_set_string_member(spec_instance(spec), "name", "after");
	g_assert_true(gnt_node_call_blockdev_rename(fx->node1.client, fx->node1.record, spec,
						    "before", &error));
	g_assert_no_error(error);
	g_assert_true(gnt_node_call_os_rename(fx->node1.client, fx->node1.record, spec, "before", 0,
					      &error));
	g_assert_no_error(error);
	disk0 = disk_path(fx, spec, "after", 0);
	/* appended to the 8 MiB of the disk */
	g_assert_true(g_file_get_contents(disk0, &recorded, &len, &error));
	g_assert_cmpuint(len, >, 8 * 1024 * 1024);
	g_assert_cmpstr(recorded + 8 * 1024 * 1024, ==, "renamed before to after\n");
}

static void
test_os_validate(NodeFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	const gchar *const search_path[] = {fx->os_dir, NULL};
	g_autoptr(JsonObject) osparams = json_object_new();
	g_autoptr(GntSecretDict) secrets = gnt_secret_dict_new();

	json_object_set_string_member(osparams, "filesystem", "ext4");
	/* a secret parameter the OS declares, filled into the request */
	gnt_secret_dict_set(secrets, "secret.token", "x");
	g_assert_true(gnt_node_call_os_validate(fx->node1.client, fx->node1.record, search_path,
						"sample+minimal", osparams, secrets, FALSE,
						&error));
	g_assert_no_error(error);

	g_assert_false(gnt_node_call_os_validate(fx->node1.client, fx->node1.record, search_path,
						 "sample+big", osparams, secrets, FALSE, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	assert_error_has(error, "os_validate: OS 'sample+big': ");
	g_clear_error(&error);
	g_assert_true(gnt_node_call_os_validate(fx->node1.client, fx->node1.record, search_path,
						"sample+big", NULL, secrets, TRUE, &error));
	g_assert_no_error(error);

	json_object_set_string_member(osparams, "filesystem", "btrfs");
	g_assert_false(gnt_node_call_os_validate(fx->node1.client, fx->node1.record, search_path,
						 "sample", osparams, secrets, TRUE, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	assert_error_has(error, "Invalid value 'btrfs' for the filesystem parameter");
	g_clear_error(&error);

	json_object_set_string_member(osparams, "colour", "red");
	g_assert_false(gnt_node_call_os_validate(fx->node1.client, fx->node1.record, search_path,
						 "sample", osparams, secrets, TRUE, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	assert_error_has(error, "colour");
	g_clear_error(&error);

	g_assert_false(gnt_node_call_os_validate(fx->node1.client, fx->node1.record, search_path,
						 "nope", NULL, secrets, FALSE, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	assert_error_has(error, "node 'node1' (127.0.0.1:");
}

/* kvm through libvirt's test driver: start, list, shutdown. */
static void
test_kvm(NodeFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	const gchar *const hypervisors[] = {"kvm", "fake", NULL};
	g_autoptr(JsonObject) spec = make_spec(fx, "vm1", "kvm", NULL);
	g_autoptr(JsonObject) list = NULL;
	g_autoptr(JsonObject) after = NULL;
	JsonObject *entry;

	g_assert_true(gnt_node_call_instance_start(fx->node1.client, fx->node1.record, spec, FALSE,
						   &error));
	g_assert_no_error(error);
	list = gnt_node_call_instance_list(fx->node1.client, fx->node1.record, hypervisors, &error);
	g_assert_no_error(error);
	entry = json_object_get_object_member(list, "vm1");
	g_assert_nonnull(entry);
	g_assert_cmpstr(json_object_get_string_member(entry, "state"), ==, "running");
	g_assert_cmpstr(json_object_get_string_member(entry, "hypervisor"), ==, "kvm");
	g_assert_cmpint(json_object_get_int_member(entry, "memory"), ==, 256);
	g_assert_cmpint(json_object_get_int_member(entry, "vcpus"), ==, 2);

	g_assert_true(gnt_node_call_instance_shutdown(fx->node1.client, fx->node1.record, spec, 5,
						      NULL, &error));
	g_assert_no_error(error);
	after = gnt_node_call_instance_list(fx->node1.client, fx->node1.record, hypervisors,
					    &error);
	g_assert_no_error(error);
	g_assert_false(json_object_has_member(after, "vm1"));
}

/* An export as Ganeti writes config.ini (comments, "key: value", a value
 * on two lines, upper-case keys) is read; unfinished exports and symbolic
 * links are not exports (doc/backup.md). */
static void
test_export_info(NodeFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *base = g_build_filename(gnt_paths_get_root(fx->node1.paths), "srv",
						  "gantry", "export", NULL);
	g_autofree gchar *dir = g_build_filename(base, "old.example.com", NULL);
	g_autofree gchar *config = g_build_filename(dir, "config.ini", NULL);
	g_autofree gchar *unfinished = g_build_filename(base, "new.example.com.new", NULL);
	g_autofree gchar *unfinished_config = g_build_filename(unfinished, "config.ini", NULL);
	g_autofree gchar *link = g_build_filename(base, "link.example.com", NULL);
	g_autoptr(JsonObject) info = NULL;
	g_auto(GStrv) names = NULL;
	JsonObject *sections;
	JsonObject *instance;
	gboolean removed = FALSE;

	g_assert_cmpint(g_mkdir_with_parents(dir, 0700), ==, 0);
	g_assert_cmpint(g_mkdir_with_parents(unfinished, 0700), ==, 0);
	g_assert_true(g_file_set_contents(config,
					  "# written by Ganeti\n[export]\nversion = 0\nos: noop\n"
					  "\n[instance]\nName = old.example.com\ndisk0_dump = "
					  "snap.disk0\n; a comment\ntags = a\n\tb\n[os]\n",
					  -1, &error));
	g_assert_true(g_file_set_contents(unfinished_config, "[export]\n", -1, &error));
	g_assert_cmpint(symlink(dir, link), ==, 0);

	info = gnt_node_call_export_info(fx->node1.client, fx->node1.record, "old.example.com",
					 &error);
	g_assert_no_error(error);
	g_assert_cmpstr(json_object_get_string_member(info, "path"), ==, dir);
	sections = json_object_get_object_member(info, "sections");
	g_assert_cmpstr(json_object_get_string_member(
				json_object_get_object_member(sections, "export"), "os"),
			==, "noop");
	instance = json_object_get_object_member(sections, "instance");
	g_assert_cmpstr(json_object_get_string_member(instance, "name"), ==, "old.example.com");
	g_assert_cmpstr(json_object_get_string_member(instance, "disk0_dump"), ==, "snap.disk0");
	g_assert_cmpstr(json_object_get_string_member(instance, "tags"), ==, "a\nb");
	g_assert_cmpuint(json_object_get_size(json_object_get_object_member(sections, "os")), ==,
			 0);

	names = gnt_node_call_export_list(fx->node1.client, fx->node1.record, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(g_strv_length(names), ==, 1);
	g_assert_cmpstr(names[0], ==, "old.example.com");
	g_assert_null(gnt_node_call_export_info(fx->node1.client, fx->node1.record,
						"link.example.com", &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	g_clear_error(&error);
	g_assert_null(
		gnt_node_call_export_info(fx->node1.client, fx->node1.record, dir + 1, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_clear_error(&error);

	/* removing the link removes the link, not what it points to */
	g_assert_true(gnt_node_call_export_remove(fx->node1.client, fx->node1.record,
						  "link.example.com", &removed, &error));
	g_assert_no_error(error);
	g_assert_true(removed);
	g_assert_true(g_file_test(config, G_FILE_TEST_IS_REGULAR));
	g_assert_true(gnt_node_call_export_remove(fx->node1.client, fx->node1.record,
						  "old.example.com", &removed, &error));
	g_assert_true(removed);
	g_assert_false(g_file_test(dir, G_FILE_TEST_EXISTS));
	g_assert_true(gnt_node_call_export_remove(fx->node1.client, fx->node1.record,
						  "old.example.com", &removed, &error));
	g_assert_false(removed);
}

/* gantry-noded as a process serves the procedures, on its own root. */
static void
test_noded(NodeFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GSubprocess) noded = NULL;
	guint port = start_noded(fx->node1.paths, "--libvirt-uri", "test:///default", &noded);
	g_autoptr(JsonObject) node = test_node_record(port);
	g_autoptr(JsonObject) spec = make_spec(fx, "web5", "fake", NULL);
	g_autoptr(JsonObject) list = NULL;
	g_autofree gchar *state = g_build_filename(gnt_paths_get_data_dir(fx->node1.paths),
						   "fake-hv", "gnt-" CLUSTER "-web5.json", NULL);
	const gchar *const hypervisors[] = {"fake", "kvm", NULL};

	g_assert_true(gnt_node_call_instance_start(fx->node1.client, node, spec, FALSE, &error));
	g_assert_no_error(error);
	g_assert_true(g_file_test(state, G_FILE_TEST_IS_REGULAR));
	list = gnt_node_call_instance_list(fx->node1.client, node, hypervisors, &error);
	g_assert_no_error(error);
	g_assert_true(json_object_has_member(list, "web5"));
	g_assert_true(
		gnt_node_call_instance_shutdown(fx->node1.client, node, spec, 5, NULL, &error));
	g_assert_no_error(error);
	stop_noded(noded);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/rpc/node/node-info", NodeFx, NULL, node_set_up, test_node_info,
		   node_tear_down);
	g_test_add("/rpc/node/node-verify", NodeFx, NULL, node_set_up, test_node_verify,
		   node_tear_down);
	g_test_add("/rpc/node/fake-lifecycle", NodeFx, NULL, node_set_up, test_fake_lifecycle,
		   node_tear_down);
	g_test_add("/rpc/node/blockdev-errors", NodeFx, NULL, node_set_up, test_blockdev_errors,
		   node_tear_down);
	g_test_add("/rpc/node/blockdev-add-rename", NodeFx, NULL, node_set_up,
		   test_blockdev_add_rename, node_tear_down);
	g_test_add("/rpc/node/os-diagnose", NodeFx, NULL, node_set_up, test_os_diagnose,
		   node_tear_down);
	g_test_add("/rpc/node/os-create", NodeFx, NULL, node_set_up, test_os_create,
		   node_tear_down);
	g_test_add("/rpc/node/os-rename", NodeFx, NULL, node_set_up, test_os_rename,
		   node_tear_down);
	g_test_add("/rpc/node/os-validate", NodeFx, NULL, node_set_up, test_os_validate,
		   node_tear_down);
	g_test_add("/rpc/node/export-info", NodeFx, NULL, node_set_up, test_export_info,
		   node_tear_down);
	g_test_add("/rpc/node/kvm", NodeFx, NULL, node_set_up, test_kvm, node_tear_down);
	g_test_add("/rpc/noded/instances", NodeFx, NULL, node_set_up, test_noded, node_tear_down);
	return g_test_run();
}
