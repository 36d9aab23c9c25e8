/*
 * End to end: storage layouts laid out in band and a root filesystem
 * tarball unpacked onto them (doc/install.md, "Storage layouts" and "The
 * payload"), on real libvirt (qemu TCG), through every part of Gantry.
 *
 * The payload is a Debian system made here with debootstrap from the
 * machine's mirror (tests/e2e/make-root-tarball: a kernel, grub-pc, mdadm,
 * lvm2, the serial console on), kept between runs in a cache keyed by its
 * recipe ($GNT_E2E_CACHE_DIR, default /var/cache/gantry-e2e). The instance
 * has two 2 GiB file disks and the shipped template its tag names (its
 * node carries the tag too). After the install it boots from its disks,
 * through GRUB, to a login prompt on its serial console; then the host
 * reads the disk files through read-only loop devices, without assembling
 * or activating anything (mdadm and LVM run with --config filters naming
 * only the test's loops; this kernel has neither md nor device-mapper
 * anyway): the superblocks of both arrays, the volume group on the md
 * device, and /etc/fstab (debugfs) listing exactly the UUIDs blkid reports.
 *
 *  /e2e/storage/mirror   CUSTOM_RAID1_LVM: RAID1 with both members active,
 *                        then disk 1 replaced by zeros: it still boots
 *                        (degraded); then reinstalled with CUSTOM_RAID0:
 *                        no RAID1 superblock of the old arrays is left.
 *                        The stripe's checks (the root LV on the RAID0
 *                        array, read by destriping it on the host) and its
 *                        boot run on that reinstall.
 *  /e2e/storage/stripe   CUSTOM_RAID0 on a fresh instance: the same checks.
 *                        Only with GNT_E2E_STORAGE_ALL=1: the reinstall
 *                        above already runs them, and CI's time is short.
 *
 * Skipped, saying what is missing, when libvirtd, debootstrap,
 * mdadm, lvm, debugfs, busybox, loop devices or the mirror are.
 */
#include "gnt-test-cluster.h"
#include "gnt-test-mirror.h"

#include <fcntl.h>

#define INSTANCE	"raid.example.com"
#define MIRROR_TEMPLATE "CUSTOM_RAID1_LVM"
#define STRIPE_TEMPLATE "CUSTOM_RAID0"
#define DISK_SIZE	"2G"
/* the appliance's session (storage steps, the tarball, GRUB) under TCG */
#define INSTALL_TIMEOUT_S 1800
#define LOGIN_TIMEOUT_S	  600
#define STOP_TIMEOUT_S	  10
#define JOB_TIMEOUT_S	  300

typedef struct {
	GntTestCluster cluster;
	gchar *tarball;
	gchar *work;
	gchar *skip;
} StorageFx;

/* Why the test cannot run here, or NULL. */
static gchar *
storage_dup_missing(gchar **mirror, gchar **suite)
{
	static const gchar *const tools[] = {"debootstrap", "mdadm",   "lvm",	"debugfs",
					     "blkid",	    "losetup", "partx", "truncate"};
	const gchar *losetup[] = {"losetup", "-f", NULL};
	g_autoptr(GError) error = NULL;
	gchar *missing = gnt_test_dup_libvirt_missing();

	if (missing != NULL)
		return missing;
	for (guint i = 0; i < G_N_ELEMENTS(tools); i++) {
		g_autofree gchar *path = g_find_program_in_path(tools[i]);
		g_autofree gchar *sbin = g_build_filename("/usr/sbin", tools[i], NULL);

		if (path == NULL && !g_file_test(sbin, G_FILE_TEST_IS_EXECUTABLE))
			return g_strdup_printf("no %s (install debootstrap mdadm lvm2 e2fsprogs "
					       "util-linux)",
					       tools[i]);
	}
	if (!g_file_test("/bin/busybox", G_FILE_TEST_IS_EXECUTABLE))
		return g_strdup("no /bin/busybox for the appliance (install busybox-static)");
	if (gnt_test_find_cloud_kernel() == NULL)
		return g_strdup("no /boot/vmlinuz-*-cloud-amd64 for the appliance (install "
				"linux-image-cloud-amd64)");
	if (!gnt_test_command_succeeds(losetup))
		return g_strdup("no free loop device ('losetup -f' fails)");
	*suite = gnt_test_dup_codename();
	if (*suite == NULL)
		return g_strdup("no VERSION_CODENAME in /etc/os-release");
	*mirror = gnt_test_find_apt_mirror(*suite);
	if (*mirror == NULL)
		return g_strdup_printf("no http(s) apt source for suite '%s'", *suite);
	if (!gnt_test_mirror_reachable(*mirror, *suite, &error))
		return g_strdup_printf("the apt mirror is not reachable: %s", error->message);
	return NULL;
}

/* The root filesystem tarball: from the cache when its recipe (the
 * script's bytes, the mirror, the suite) made it before, else made now. */
static gchar *
ensure_tarball(const gchar *mirror, const gchar *suite)
{
	const gchar *env = g_getenv("GNT_E2E_CACHE_DIR");
	const gchar *dir = env != NULL && *env != '\0' ? env : "/var/cache/gantry-e2e";
	g_autofree gchar *script = gnt_test_source_path("tests", "e2e/make-root-tarball");
	g_autofree gchar *text = NULL;
	g_autofree gchar *recipe = NULL;
	g_autofree gchar *key = NULL;
	g_autofree gchar *name = NULL;
	gchar *path = NULL;
	g_autoptr(GError) error = NULL;
	gint64 t0;

	g_assert_true(g_file_get_contents(script, &text, NULL, &error));
	recipe = g_strdup_printf("%s\n%s\n%s\n", text, mirror, suite);
	key = g_compute_checksum_for_string(G_CHECKSUM_SHA256, recipe, -1);
	key[16] = '\0';
	name = g_strdup_printf("root-%s-%s.tar.gz", suite, key);
	path = g_build_filename(dir, name, NULL);
	if (g_file_test(path, G_FILE_TEST_IS_REGULAR)) {
		g_test_message("root filesystem tarball from the cache: %s", path);
		return path;
	}
	g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
	t0 = g_get_monotonic_time();
	{
		const gchar *argv[] = {script, mirror, suite, path, NULL};

		gnt_test_run_checked(argv);
	}
	g_test_message("root filesystem tarball made in %.1f s (not part of the install): %s",
		       (gdouble)(g_get_monotonic_time() - t0) / G_USEC_PER_SEC, path);
	return path;
}

static void
run_ok(GntTestCluster *cluster, const gchar *op)
{
	g_autoptr(JsonArray) row = gnt_test_cluster_run_op(cluster, op, JOB_TIMEOUT_S);

	gnt_test_cluster_assert_success(row);
}

static void
storage_set_up(StorageFx *fx, gconstpointer data)
{
	g_autofree gchar *kernel = gnt_test_find_cloud_kernel();
	g_autofree gchar *build = gnt_test_source_path("appliance", "build-appliance");
	g_autofree gchar *appliance = NULL;
	g_autofree gchar *cluster_name = NULL;
	g_autofree gchar *mirror = NULL;
	g_autofree gchar *suite = NULL;
	g_autoptr(GError) error = NULL;

	if (g_strcmp0(data, "all") == 0 && g_strcmp0(g_getenv("GNT_E2E_STORAGE_ALL"), "1") != 0) {
		fx->skip = g_strdup("set GNT_E2E_STORAGE_ALL=1 for the stripe on a fresh "
				    "instance (doc/testing.md)");
		return;
	}
	fx->skip = storage_dup_missing(&mirror, &suite);
	if (fx->skip != NULL)
		return;
	fx->tarball = ensure_tarball(mirror, suite);
	fx->work = g_dir_make_tmp("gtstor-XXXXXX", &error);
	g_assert_no_error(error);
	/* a cluster name of its own: the appliance's domain is named after it */
	cluster_name = g_strdup_printf("stor%d.example.com", (gint)getpid());
	gnt_test_cluster_init_kvm(&fx->cluster, cluster_name, kernel);
	appliance = g_build_filename(fx->cluster.root, "var", "lib", "gantry", "appliance", NULL);
	{
		const gchar *argv[] = {build, appliance, NULL};

		gnt_test_run_checked(argv);
	}
	/* the node carries the templates' tags (Ironic's traits) */
	gnt_test_cluster_tag_master(&fx->cluster, MIRROR_TEMPLATE);
	gnt_test_cluster_tag_master(&fx->cluster, STRIPE_TEMPLATE);
}

static void
storage_tear_down(StorageFx *fx, gconstpointer data)
{
	gnt_test_cluster_clear(&fx->cluster);
	if (fx->work != NULL)
		gnt_test_remove_tree(fx->work);
	g_free(fx->work);
	g_free(fx->tarball);
	g_free(fx->skip);
}

/* ---- the host's view of the disk files ---- */

/* @argv's standard output (it must succeed). (transfer full) */
static gchar *
output_of(const gchar *const *argv)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GSubprocess) proc = g_subprocess_newv(
		argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
	gchar *out = NULL;
	g_autofree gchar *err = NULL;

	g_assert_no_error(error);
	g_assert_true(g_subprocess_communicate_utf8(proc, NULL, NULL, &out, &err, &error));
	g_assert_no_error(error);
	if (!g_subprocess_get_successful(proc))
		g_error("%s failed: %s%s", argv[0], out, err);
	return out;
}

/* A read-only loop device over @size bytes of @file at @offset (@size 0:
 * to the end); kept in @loops for loops_detach(). (transfer none) */
static const gchar *
loop_attach(GPtrArray *loops, const gchar *file, guint64 offset, guint64 size)
{
	g_autofree gchar *o = g_strdup_printf("%" G_GUINT64_FORMAT, offset);
	g_autofree gchar *s = g_strdup_printf("%" G_GUINT64_FORMAT, size);
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	gchar *dev;

	g_ptr_array_add(argv, (gpointer) "losetup");
	g_ptr_array_add(argv, (gpointer) "-f");
	g_ptr_array_add(argv, (gpointer) "--show");
	g_ptr_array_add(argv, (gpointer) "-r");
	g_ptr_array_add(argv, (gpointer) "-o");
	g_ptr_array_add(argv, o);
	if (size > 0) {
		g_ptr_array_add(argv, (gpointer) "--sizelimit");
		g_ptr_array_add(argv, s);
	}
	g_ptr_array_add(argv, (gpointer)file);
	g_ptr_array_add(argv, NULL);
	dev = g_strstrip(output_of((const gchar *const *)argv->pdata));
	g_ptr_array_add(loops, dev);
	return dev;
}

static void
loops_detach(GPtrArray *loops)
{
	for (guint i = 0; i < loops->len; i++) {
		const gchar *argv[] = {"losetup", "-d", loops->pdata[i], NULL};

		gnt_test_run_checked(argv);
	}
	g_ptr_array_set_size(loops, 0);
}

/* Partition @n (1-based) of the disk file @file: start and size, bytes. */
static void
partition_of(const gchar *file, guint n, guint64 *start, guint64 *size)
{
	g_autofree gchar *nr = g_strdup_printf("%u", n);
	const gchar *argv[] = {"partx", "-g", "-b", "-o", "START,SIZE", "-n", nr, file, NULL};
	g_autofree gchar *out = output_of(argv);
	guint64 sector = 0;

	g_assert_cmpint(sscanf(out, "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT, &sector, size), ==,
			2);
	*start = sector * 512;
}

/* "Key : value" of mdadm --examine's @text. (transfer full) */
static gchar *
field_of(const gchar *text, const gchar *key)
{
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);

	for (guint i = 0; lines[i] != NULL; i++) {
		gchar *colon = strchr(lines[i], ':');

		if (colon == NULL)
			continue;
		*colon = '\0';
		if (g_str_equal(g_strstrip(lines[i]), key))
			return g_strdup(g_strstrip(colon + 1));
	}
	return NULL;
}

/* mdadm --examine of @dev, only @dev in its configuration (no other
 * device scanned, nothing assembled). (transfer full) */
static gchar *
md_examine(const gchar *work, const gchar *dev)
{
	g_autofree gchar *conf = g_build_filename(work, "mdadm.conf", NULL);
	g_autofree gchar *text = g_strdup_printf("DEVICE %s\nAUTO -all\n", dev);
	g_autofree gchar *config = NULL;
	const gchar *argv[] = {"mdadm", "--examine", NULL, dev, NULL};

	g_assert_true(g_file_set_contents(conf, text, -1, NULL));
	config = g_strconcat("--config=", conf, NULL);
	argv[2] = config;
	return output_of(argv);
}

/* LVM's --config: only @dev seen, no devices file, nothing activated. */
static gchar *
lvm_config(const gchar *dev)
{
	return g_strdup_printf("devices { global_filter = [ \"a|^%s$|\", \"r|.*|\" ] "
			       "filter = [ \"a|^%s$|\", \"r|.*|\" ] use_devicesfile = 0 "
			       "obtain_device_list_from_udev = 0 } "
			       "activation { udev_sync = 0 udev_rules = 0 }",
			       dev, dev);
}

/* An LVM report command (pvs, lvs, vgs) on @dev alone. (transfer full) */
static gchar *
lvm_report(const gchar *command, const gchar *dev, const gchar *fields)
{
	g_autofree gchar *config = lvm_config(dev);
	const gchar *argv[] = {"lvm",	     command,	     "--config",   config,
			       "--readonly", "--noheadings", "--nosuffix", "--units",
			       "b",	     "-o",	     fields,	   NULL};

	return output_of(argv);
}

/* UUID of the filesystem or swap on @dev (blkid, no cache). (transfer full) */
static gchar *
uuid_of(const gchar *dev)
{
	const gchar *argv[] = {"blkid", "-p", "-c",   "/dev/null", "-o",
			       "value", "-s", "UUID", dev,	   NULL};

	return g_strstrip(output_of(argv));
}

static gint
compare_strings(gconstpointer a, gconstpointer b)
{
	return strcmp(*(const gchar *const *)a, *(const gchar *const *)b);
}

/* The UUIDs /etc/fstab names (UUID=...), sorted, one a line. (transfer full) */
static gchar *
fstab_uuids(const gchar *fstab)
{
	g_auto(GStrv) lines = g_strsplit(fstab, "\n", -1);
	g_autoptr(GPtrArray) uuids = g_ptr_array_new_with_free_func(g_free);
	GString *out = g_string_new(NULL);

	for (guint i = 0; lines[i] != NULL; i++) {
		const gchar *line = g_strchug(lines[i]);

		if (g_str_has_prefix(line, "UUID="))
			g_ptr_array_add(uuids, g_strndup(line + 5, strcspn(line + 5, " \t")));
	}
	g_ptr_array_sort(uuids, compare_strings);
	for (guint i = 0; i < uuids->len; i++)
		g_string_append_printf(out, "%s\n", (const gchar *)uuids->pdata[i]);
	return g_string_free(out, FALSE);
}

/* The bytes a RAID0 of @n members (@files at @offsets, @chunk bytes a
 * chunk, @member_bytes each) holds, into the sparse file @out: what md
 * would show, read without md (this kernel has none). */
static void
destripe(const gchar *const *files, const guint64 *offsets, guint n, guint64 chunk,
	 guint64 member_bytes, const gchar *out)
{
	g_autofree guint8 *buffer = g_malloc(chunk);
	g_autofree guint8 *zero = g_malloc0(chunk);
	gint fd_out = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	gint fds[4] = {-1, -1, -1, -1};
	guint64 n_chunks = member_bytes / chunk;

	g_assert_cmpuint(n, <=, G_N_ELEMENTS(fds));
	g_assert_cmpint(fd_out, >=, 0);
	for (guint m = 0; m < n; m++) {
		fds[m] = open(files[m], O_RDONLY | O_CLOEXEC);
		g_assert_cmpint(fds[m], >=, 0);
	}
	for (guint64 c = 0; c < n_chunks; c++) {
		for (guint m = 0; m < n; m++) {
			gssize got = pread(fds[m], buffer, chunk, (off_t)(offsets[m] + c * chunk));

			g_assert_cmpint(got, ==, (gssize)chunk);
			if (memcmp(buffer, zero, chunk) == 0)
				continue; /* a hole */
			g_assert_cmpint(pwrite(fd_out, buffer, chunk, (off_t)((c * n + m) * chunk)),
					==, (gssize)chunk);
		}
	}
	g_assert_cmpint(ftruncate(fd_out, (off_t)(n_chunks * n * chunk)), ==, 0);
	for (guint m = 0; m < n; m++)
		close(fds[m]);
	close(fd_out);
}

/* The extent range "DEV:FIRST-LAST" of LV @lv in @report (lvs' lv_name
 * seg_pe_ranges lines). */
static void
lv_extents(const gchar *report, const gchar *lv, guint64 *first, guint64 *count)
{
	g_auto(GStrv) lines = g_strsplit(report, "\n", -1);

	for (guint i = 0; lines[i] != NULL; i++) {
		g_auto(GStrv) words = g_regex_split_simple("\\s+", g_strstrip(lines[i]), 0, 0);
		const gchar *range = NULL;
		guint64 last = 0;

		if (g_strv_length(words) < 2 || !g_str_equal(words[0], lv))
			continue;
		range = strrchr(words[1], ':');
		g_assert_nonnull(range);
		g_assert_cmpint(sscanf(range + 1, "%" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT, first,
				       &last),
				==, 2);
		*count = last - *first + 1;
		return;
	}
	g_error("no LV '%s' in:\n%s", lv, report);
}

static guint64
number_of(const gchar *text)
{
	g_autofree gchar *copy = g_strstrip(g_strdup(text));

	return g_ascii_strtoull(copy, NULL, 10);
}

/* What the host reads of the two disk files @files after an install with
 * the mirror (@level 1) or the stripe (@level 0) template, through
 * read-only loops it detaches again: md0 (partitions 2, /boot) RAID1 and
 * md1 (partitions 3) RAID @level, both members active; the volume group
 * vg0 on md1 with root and swap; /etc/fstab naming exactly the UUIDs of
 * /boot, root and swap. @array_uuids (out, nullable): md0's and md1's. */
static void
assert_layout(StorageFx *fx, const gchar *const *files, guint level, gchar **array_uuids)
{
	g_autoptr(GPtrArray) loops = g_ptr_array_new_with_free_func(g_free);
	guint64 data_offset[2][2] = {{0}}; /* [partition 2, 3][disk] in bytes */
	guint64 start[2][2] = {{0}};
	guint64 size[2][2] = {{0}};
	g_autofree gchar *md1_level = g_strdup_printf("raid%u", level);
	g_autofree gchar *chunk_text = NULL;
	g_autofree gchar *md1_image = NULL;
	g_autofree gchar *report = NULL;
	g_autofree gchar *pe_start = NULL;
	g_autofree gchar *extent = NULL;
	g_autofree gchar *fstab = NULL;
	g_autofree gchar *want = NULL;
	g_autofree gchar *got = NULL;
	g_autofree gchar *boot_uuid = NULL;
	g_autofree gchar *root_uuid = NULL;
	g_autofree gchar *swap_uuid = NULL;
	const gchar *md1 = NULL;
	const gchar *md1_file = files[0];
	guint64 md1_offset = 0;
	guint64 first = 0, count = 0, root_offset, swap_offset, root_bytes, swap_bytes;

	for (guint p = 0; p < 2; p++) {
		g_autofree gchar *uuid = NULL;

		for (guint d = 0; d < 2; d++) {
			const gchar *dev;
			g_autofree gchar *examine = NULL;
			g_autofree gchar *raid_level = NULL;
			g_autofree gchar *state = NULL;
			g_autofree gchar *devices = NULL;
			g_autofree gchar *offset = NULL;
			g_autofree gchar *this_uuid = NULL;

			partition_of(files[d], p + 2, &start[p][d], &size[p][d]);
			dev = loop_attach(loops, files[d], start[p][d], size[p][d]);
			examine = md_examine(fx->work, dev);
			g_test_message("disk %u partition %u (%s):\n%s", d, p + 2, dev, examine);
			raid_level = field_of(examine, "Raid Level");
			state = field_of(examine, "Array State");
			devices = field_of(examine, "Raid Devices");
			offset = field_of(examine, "Data Offset");
			this_uuid = field_of(examine, "Array UUID");
			g_assert_cmpstr(raid_level, ==, p == 0 ? "raid1" : md1_level);
			g_assert_cmpstr(devices, ==, "2");
			/* both members active ("AA"; '.' is a missing one) */
			g_assert_nonnull(state);
			g_assert_true(g_str_has_prefix(state, "AA "));
			data_offset[p][d] = number_of(offset) * 512;
			if (uuid == NULL)
				uuid = g_steal_pointer(&this_uuid);
			else
				g_assert_cmpstr(this_uuid, ==, uuid); /* one array */
			if (p == 1 && d == 0)
				chunk_text = field_of(examine, "Chunk Size");
		}
		if (array_uuids != NULL)
			array_uuids[p] = g_steal_pointer(&uuid);
	}
	/* md1's contents: a member's data (RAID1), or both destriped (RAID0) */
	if (level == 1) {
		md1_offset = start[1][0] + data_offset[1][0];
		md1 = loop_attach(loops, md1_file, md1_offset, size[1][0] - data_offset[1][0]);
	} else {
		guint64 chunk = number_of(chunk_text) * 1024; /* "512K" */
		guint64 offsets[2] = {start[1][0] + data_offset[1][0],
				      start[1][1] + data_offset[1][1]};
		guint64 member =
			MIN(size[1][0] - data_offset[1][0], size[1][1] - data_offset[1][1]);

		g_assert_cmpuint(chunk, >, 0);
		md1_image = g_build_filename(fx->work, "md1.img", NULL);
		destripe(files, offsets, 2, chunk, member, md1_image);
		md1_file = md1_image;
		md1 = loop_attach(loops, md1_file, 0, 0);
	}
	/* the volume group on the md device: vg0, its LVs' extents on it */
	pe_start = lvm_report("pvs", md1, "pe_start");
	extent = lvm_report("vgs", md1, "vg_extent_size");
	report = lvm_report("lvs", md1, "lv_name,seg_pe_ranges");
	g_test_message("LVM on md1 (%s): pe_start %s, extent %s, LVs:\n%s", md1,
		       g_strstrip(pe_start), g_strstrip(extent), report);
	g_assert_nonnull(strstr(report, md1));
	lv_extents(report, "root", &first, &count);
	root_offset = md1_offset + number_of(pe_start) + first * number_of(extent);
	root_bytes = count * number_of(extent);
	lv_extents(report, "swap", &first, &count);
	swap_offset = md1_offset + number_of(pe_start) + first * number_of(extent);
	swap_bytes = count * number_of(extent);
	/* the filesystems and the swap, and what fstab says of them */
	boot_uuid = uuid_of(loop_attach(loops, files[0], start[0][0] + data_offset[0][0],
					size[0][0] - data_offset[0][0]));
	{
		const gchar *root = loop_attach(loops, md1_file, root_offset, root_bytes);
		const gchar *argv[] = {"debugfs", "-R", "cat /etc/fstab", root, NULL};

		root_uuid = uuid_of(root);
		fstab = output_of(argv);
	}
	swap_uuid = uuid_of(loop_attach(loops, md1_file, swap_offset, swap_bytes));
	g_test_message("/etc/fstab:\n%s\nblkid: /boot %s, / %s, swap %s", fstab, boot_uuid,
		       root_uuid, swap_uuid);
	{
		const gchar *uuids[] = {boot_uuid, root_uuid, swap_uuid};
		g_autoptr(GString) sorted = g_string_new(NULL);

		qsort(uuids, G_N_ELEMENTS(uuids), sizeof(uuids[0]), compare_strings);
		for (guint i = 0; i < G_N_ELEMENTS(uuids); i++) {
			g_assert_cmpstr(uuids[i], !=, "");
			g_string_append_printf(sorted, "%s\n", uuids[i]);
		}
		want = g_string_free(g_steal_pointer(&sorted), FALSE);
	}
	got = fstab_uuids(fstab);
	g_assert_cmpstr(got, ==, want);
	loops_detach(loops);
	if (md1_image != NULL)
		g_unlink(md1_image);
}

/* ---- the instance ---- */

/* The job's step lines ("install step ...: done in Ns") to the test log. */
static void
log_steps(JsonArray *row)
{
	g_autofree gchar *log = gnt_test_job_log_text(row);
	g_auto(GStrv) lines = g_strsplit(log, "\n", -1);

	for (guint i = 0; lines[i] != NULL; i++) {
		if (g_str_has_prefix(lines[i], "install step"))
			g_test_message("%s", lines[i]);
	}
}

/* Adds the instance with @template's tag: two 2 GiB file disks, the
 * tarball, booting from its disks (no kernel of its own), not started. */
static void
create_instance(StorageFx *fx, const gchar *template)
{
	g_autofree gchar *op = g_strdup_printf(
		"{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\": \"" INSTANCE "\","
		" \"mode\": \"create\", \"hypervisor\": \"kvm\", \"disk_template\": \"file\","
		" \"disks\": [{\"size\": \"" DISK_SIZE "\"}, {\"size\": \"" DISK_SIZE "\"}],"
		" \"nics\": [], \"tags\": [\"%s\"], \"os_image\": \"%s\","
		" \"beparams\": {\"memory\": 768},"
		" \"hvparams\": {\"accel\": \"tcg\", \"kernel_path\": \"\"}, \"start\": false}",
		template, fx->tarball);
	g_autoptr(JsonArray) row = NULL;
	gint64 t0 = g_get_monotonic_time();

	row = gnt_test_cluster_run_op(&fx->cluster, op, INSTALL_TIMEOUT_S);
	log_steps(row);
	gnt_test_cluster_assert_success(row);
	g_test_message("install with %s on 2 x " DISK_SIZE " took %.1f s", template,
		       (gdouble)(g_get_monotonic_time() - t0) / G_USEC_PER_SEC);
	{
		g_autofree gchar *log = gnt_test_job_log_text(row);

		gnt_test_assert_contains(log, "install step write_payload (85): done");
		g_assert_null(strstr(log, "install step write_image"));
	}
}

/* Starts the instance, waits for the login prompt on its serial console
 * (through GRUB from its disks), stops it. */
static void
boot_to_login(StorageFx *fx, const gchar *what)
{
	GntTestCluster *cluster = &fx->cluster;
	g_autofree gchar *stop = g_strdup_printf(
		"{\"OP_ID\": \"OP_INSTANCE_SHUTDOWN\", \"instance_name\": \"" INSTANCE "\","
		" \"timeout\": %d}",
		STOP_TIMEOUT_S);
	g_autofree gchar *log = g_build_filename(cluster->root, "var", "log", "gantry", "console",
						 INSTANCE ".log", NULL);
	gdouble login_s;

	/* this boot's console only */
	g_unlink(log);
	run_ok(cluster,
	       "{\"OP_ID\": \"OP_INSTANCE_STARTUP\", \"instance_name\": \"" INSTANCE "\"}");
	login_s = gnt_test_cluster_wait_console(cluster, INSTANCE, "login:", LOGIN_TIMEOUT_S);
	if (login_s < 0)
		gnt_test_cluster_print_console(cluster, INSTANCE);
	g_test_message("%s: login prompt %.1f s after the start", what, login_s);
	g_assert_cmpfloat(login_s, >=, 0);
	{
		g_autofree gchar *text = NULL;

		g_assert_true(g_file_get_contents(log, &text, NULL, NULL));
		/* GRUB's menu went by on the serial console: it booted from disk */
		gnt_test_assert_contains(text, "GNU GRUB");
	}
	run_ok(cluster, stop);
	g_assert_cmpuint(gnt_test_cluster_count_domains(cluster), ==, 0);
}

/* The index N of a disk file "<uuid>.file.diskN" (each disk has its own
 * UUID, so the paths themselves sort in no useful order). */
static guint
disk_index_of(const gchar *path)
{
	const gchar *suffix = g_strrstr(path, ".disk");

	g_assert_nonnull(suffix);
	return (guint)g_ascii_strtoull(suffix + strlen(".disk"), NULL, 10);
}

static gint
compare_disk_files(gconstpointer a, gconstpointer b)
{
	guint ia = disk_index_of(*(const gchar *const *)a);
	guint ib = disk_index_of(*(const gchar *const *)b);

	return ia < ib ? -1 : ia > ib;
}

/* The instance's disk files, in index order. (transfer full) */
static GPtrArray *
disk_files(StorageFx *fx)
{
	g_autofree gchar *dir = gnt_test_cluster_dup_file_storage_dir(&fx->cluster);
	GPtrArray *files = g_ptr_array_new_with_free_func(g_free);

	gnt_test_cluster_list_files(dir, files);
	g_assert_cmpuint(files->len, ==, 2);
	g_ptr_array_sort(files, compare_disk_files);
	g_assert_cmpuint(disk_index_of(files->pdata[0]), ==, 0);
	g_assert_cmpuint(disk_index_of(files->pdata[1]), ==, 1);
	g_ptr_array_add(files, NULL);
	return files;
}

/* After the mirror's install: disk 1 all zeros and it still boots
 * (degraded); reinstalled with the stripe, nothing of the old arrays
 * (@old: their UUIDs) is left. */
static void
mirror_degraded_then_stripe(StorageFx *fx, GPtrArray *files, gchar **old)
{
	const gchar *zero[] = {"truncate", "-s", "0", files->pdata[1], NULL};
	const gchar *grow[] = {"truncate", "-s", DISK_SIZE, files->pdata[1], NULL};
	g_autofree gchar *op = g_strdup_printf(
		"{\"OP_ID\": \"OP_INSTANCE_REINSTALL\", \"instance_name\": \"" INSTANCE "\","
		" \"os_image\": \"%s\"}",
		fx->tarball);
	g_autoptr(JsonArray) row = NULL;
	g_autofree gchar *log = NULL;
	gchar *new[2] = {NULL};

	gnt_test_run_checked(zero);
	gnt_test_run_checked(grow);
	boot_to_login(fx, "mirror, disk 1 zeros");
	run_ok(&fx->cluster, "{\"OP_ID\": \"OP_TAGS_DEL\", \"kind\": \"instance\", \"name\": "
			     "\"" INSTANCE "\", \"tags\": [\"" MIRROR_TEMPLATE "\"]}");
	run_ok(&fx->cluster, "{\"OP_ID\": \"OP_TAGS_SET\", \"kind\": \"instance\", \"name\": "
			     "\"" INSTANCE "\", \"tags\": [\"" STRIPE_TEMPLATE "\"]}");
	row = gnt_test_cluster_run_op(&fx->cluster, op, INSTALL_TIMEOUT_S);
	log_steps(row);
	gnt_test_cluster_assert_success(row);
	log = gnt_test_job_log_text(row);
	gnt_test_assert_contains(log, "wipe_disks");
	/* md1 is RAID0 now (no RAID1 superblock on partitions 3), and both
	 * arrays are new ones */
	assert_layout(fx, (const gchar *const *)files->pdata, 0, new);
	for (guint i = 0; i < 2; i++) {
		g_assert_cmpstr(new[i], !=, old[i]);
		g_free(new[i]);
	}
	boot_to_login(fx, "reinstalled with the stripe");
}

static void
test_mirror(StorageFx *fx, gconstpointer data)
{
	g_autoptr(GPtrArray) files = NULL;
	gchar *old[2] = {NULL};

	if (fx->skip != NULL) {
		g_test_skip(fx->skip);
		return;
	}
	create_instance(fx, MIRROR_TEMPLATE);
	boot_to_login(fx, "mirror");
	files = disk_files(fx);
	assert_layout(fx, (const gchar *const *)files->pdata, 1, old);
	mirror_degraded_then_stripe(fx, files, old);
	for (guint i = 0; i < 2; i++)
		g_free(old[i]);
}

static void
test_stripe(StorageFx *fx, gconstpointer data)
{
	g_autoptr(GPtrArray) files = NULL;

	if (fx->skip != NULL) {
		g_test_skip(fx->skip);
		return;
	}
	create_instance(fx, STRIPE_TEMPLATE);
	boot_to_login(fx, "stripe");
	files = disk_files(fx);
	assert_layout(fx, (const gchar *const *)files->pdata, 0, NULL);
}

/* GNT_E2E_PREPARE_ONLY=1: only the root filesystem tarball into the
 * cache, so that scripts/test makes it in the background while the other
 * suites run (a fresh machine's debootstrap takes minutes). */
static gint
prepare_only(void)
{
	g_autofree gchar *mirror = NULL;
	g_autofree gchar *suite = NULL;
	g_autofree gchar *missing = storage_dup_missing(&mirror, &suite);
	g_autofree gchar *path = NULL;

	if (missing != NULL) {
		g_printerr("test-storage-layouts: no tarball made: %s\n", missing);
		return 0;
	}
	path = ensure_tarball(mirror, suite);
	g_print("%s\n", path);
	return 0;
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	if (g_strcmp0(g_getenv("GNT_E2E_PREPARE_ONLY"), "1") == 0)
		return prepare_only();
	g_test_add("/e2e/storage/mirror", StorageFx, NULL, storage_set_up, test_mirror,
		   storage_tear_down);
	g_test_add("/e2e/storage/stripe", StorageFx, "all", storage_set_up, test_stripe,
		   storage_tear_down);
	return g_test_run();
}
