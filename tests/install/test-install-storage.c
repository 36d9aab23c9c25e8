/*
 * The storage layout's checks (install/gnt-install-storage.h, doc/install.md
 * "Storage layouts"): a table of good layouts, each accepted as a template
 * alone and as the plan of an instance with its disks; a table of refusals,
 * each before anything changes and naming the step and the reason; the
 * lines the agent reads; the layout the post-step hook records; the shipped
 * templates.
 */
#include <string.h>

#include "gnt-config-templates.h"
#include "gnt-error.h"
#include "gnt-install-plan.h"
#include "gnt-install-registry.h"
#include "gnt-install-storage.h"
#include "gnt-json.h"

#define ROW(step, args, prio)                                                                      \
	"{\"interface\":\"appliance\",\"step\":\"" step "\",\"args\":" args ",\"priority\":" prio  \
	"}"
#define WIPE	   ROW("wipe_disks", "{}", "99")
#define PART(d, p) ROW("partition", "{\"disk\":" d ",\"partitions\":[" p "]}", "97")
#define P(size, t) "{\"size\":" size ",\"type\":\"" t "\"}"
#define RAID(n, l, m)                                                                              \
	ROW("create_raid", "{\"name\":\"" n "\",\"level\":" l ",\"devices\":[" m "]}", "95")
#define LVM(vg, pvs, lvs)                                                                          \
	ROW("create_lvm", "{\"vg\":\"" vg "\",\"pvs\":[" pvs "],\"lvs\":[" lvs "]}", "93")
#define LV(n, size)  "{\"name\":\"" n "\",\"size\":" size "}"
#define MKFS(dev, t) ROW("mkfs", "{\"device\":\"" dev "\",\"fstype\":\"" t "\"}", "91")
#define MOUNTS(m)    ROW("mount_target", "{\"mounts\":[" m "]}", "89")
#define M(dev, path) "{\"device\":\"" dev "\",\"path\":\"" path "\"}"
#define FSTAB	     ROW("write_fstab", "{}", "78")

/* a disk of two RAID partitions behind a BIOS boot one */
#define TWO_RAID_PARTS P("1", "bios_boot") "," P("256", "raid") "," P("\"rest\"", "raid")

typedef struct {
	const gchar *name;
	const gchar *steps; /* a template's steps, a JSON array */
	guint n_disks;
	guint64 disk_mib;
	/* NULL: accepted; else a part of the refusal (template alone, or the
	 * plan when @plan_only) */
	const gchar *refused;
	gboolean plan_only;
} Case;

static const Case good[] = {
	{"mirror",
	 "[" WIPE
	 "," PART("0", TWO_RAID_PARTS) "," PART("1", TWO_RAID_PARTS) "," RAID("md0", "1", "\"disk0p2\",\"disk1p2\"") "," RAID("md1", "1", "\"disk0p3\",\"disk1p3\"") "," LVM(
		 "vg0", "\"md1\"",
		 LV("swap", "256") "," LV(
			 "root",
			 "\"rest\"")) "," MKFS("md0",
					       "ext4") "," MKFS("vg0/root",
								"ext4") "," MKFS("vg0/swap",
										 "swap") "," MOUNTS(M("vg0/root",
												      "/") "," M("md0",
														 "/boot") "," M("vg0/swap",
																"swap")) "," FSTAB
																	 "]",
	 2, 2048, NULL},
	{"one-disk-ext4",
	 "[" PART("0", P("\"rest\"", "linux")) "," MKFS("disk0p1",
							"ext4") "," MOUNTS(M("disk0p1", "/")) "]",
	 1, 64, NULL},
	{"whole-disk-xfs", "[" WIPE "," MKFS("disk0", "xfs") "," MOUNTS(M("disk0", "/")) "]", 1,
	 1024, NULL},
	{"efi-and-xfs",
	 "[" PART("0", P("\"512M\"", "efi") "," P("\"rest\"", "linux")) "," MKFS(
		 "disk0p1",
		 "vfat") "," MKFS("disk0p2",
				  "xfs") "," MOUNTS(M("disk0p2", "/") "," M("disk0p1",
									    "/boot/efi")) "]",
	 1, 2048, NULL},
	{"raid10-four",
	 "[" RAID("md3", "10", "\"disk0\",\"disk1\",\"disk2\",\"disk3\"") "," MKFS(
		 "md3", "ext4") "," MOUNTS(M("md3", "/")) "]",
	 4, 1024, NULL},
	{"raid5-three",
	 "[" RAID("md5", "5", "\"disk0\",\"disk1\",\"disk2\"") "," LVM(
		 "data", "\"md5\"",
		 LV("root", "\"50%\"") "," LV(
			 "home",
			 "\"rest\"")) "," MKFS("data/root",
					       "ext4") "," MKFS("data/home",
								"ext3") "," MOUNTS(M("data/root",
										     "/") "," M("data/home",
												"/home")) "]",
	 3, 1024, NULL},
	{"wipe-only", "[" WIPE "]", 1, 10, NULL},
};

static const Case refused[] = {
	{"raid5-two",
	 "[" RAID("md0", "5", "\"disk0\",\"disk1\"") "," MKFS("md0",
							      "ext4") "," MOUNTS(M("md0", "/")) "]",
	 2, 1024, "step 1 (appliance.create_raid): RAID5 needs at least 3 members, 'md0' has 2"},
	{"raid0-one", "[" RAID("md0", "0", "\"disk0\"") "]", 1, 1024,
	 "(appliance.create_raid): RAID0 needs at least 2 members"},
	{"raid1-one", "[" RAID("md0", "1", "\"disk0\"") "]", 1, 1024,
	 "(appliance.create_raid): RAID1 needs at least 2 members"},
	{"raid10-three",
	 "[" RAID("md0", "10", "\"disk0\",\"disk1\",\"disk2\"") "," MKFS("md0", "ext4") "," MOUNTS(
		 M("md0", "/")) "]",
	 3, 1024, "(appliance.create_raid): RAID10 needs at least 4 members, 'md0' has 3"},
	{"raid6", "[" RAID("md0", "6", "\"disk0\",\"disk1\",\"disk2\",\"disk3\"") "]", 4, 1024,
	 "(appliance.create_raid): RAID level 6 is not supported (0, 1, 5 or 10)"},
	{"past-the-disk",
	 "[" PART("0", P("\"1G\"", "linux") "," P("1024", "swap")) "," MKFS(
		 "disk0p1", "ext4") "," MOUNTS(M("disk0p1", "/")) "]",
	 1, 2048,
	 "step 1 (appliance.partition): the partitions add up to 2050 MiB (with 2 MiB for the "
	 "partition table), past disk 0's 2048 MiB",
	 TRUE},
	{"rest-nothing-left",
	 "[" PART("0", P("2046", "linux") "," P("\"rest\"", "linux")) "," MKFS(
		 "disk0p1", "ext4") "," MOUNTS(M("disk0p1", "/")) "]",
	 1, 2048, "no room is left on disk 0 for partition 2", TRUE},
	{"unknown-fstype", "[" MKFS("disk0", "btrfs") "," MOUNTS(M("disk0", "/")) "]", 1, 1024,
	 "step 1 (appliance.mkfs): unknown filesystem type 'btrfs' (ext4, ext3, ext2, xfs, vfat "
	 "or swap)"},
	{"diskless", "[" WIPE "," MKFS("disk0", "ext4") "," MOUNTS(M("disk0", "/")) "]", 0, 0,
	 "step 1 (appliance.wipe_disks): the instance has no disks: storage steps need at least "
	 "one",
	 TRUE},
	{"mount-point-twice",
	 "[" PART("0", P("100", "linux") "," P("100", "linux") "," P("100", "linux")) "," MKFS(
		 "disk0p1",
		 "ext4") "," MKFS("disk0p2",
				  "ext4") "," MKFS("disk0p3",
						   "ext4") "," MOUNTS(M("disk0p1",
									"/") "," M("disk0p2",
										   "/srv") "," M("disk0p3",
												 "/srv")) "]",
	 1, 1024, "(appliance.mount_target): argument 'mounts' mount point '/srv' is given twice"},
	{"no-root-mount", "[" MKFS("disk0", "ext4") "," MOUNTS(M("disk0", "/srv")) "]", 1, 1024,
	 "step 2 (appliance.mount_target): no root filesystem: no mount has the path \"/\""},
	{"no-mount-target", "[" WIPE "," MKFS("disk0", "ext4") "]", 1, 1024,
	 "step 2 (appliance.mkfs): no root filesystem: the layout needs an "
	 "appliance.mount_target step that mounts \"/\""},
	{"member-twice",
	 "[" RAID("md0", "1", "\"disk0\",\"disk1\"") "," MKFS("disk1",
							      "ext4") "," MOUNTS(M("md0", "/")) "]",
	 2, 1024, "(appliance.mkfs): device 'disk1' is already a member of md0"},
	{"unmade-partition",
	 "[" PART("0", P("100", "linux")) "," MKFS("disk0p2",
						   "ext4") "," MOUNTS(M("disk0p2", "/")) "]",
	 1, 1024,
	 "(appliance.mkfs): no step makes the device 'disk0p2' (a partition, RAID or LVM step "
	 "must)"},
	{"no-such-disk",
	 "[" RAID("md0", "1", "\"disk0\",\"disk1\"") "," MKFS("md0",
							      "ext4") "," MOUNTS(M("md0", "/")) "]",
	 1, 1024, "(appliance.create_raid): the instance has no disk 1 for 'disk1' (it has 1)",
	 TRUE},
	{"lvs-past-the-group",
	 "[" LVM("vg0", "\"disk0\"", LV("root", "\"2G\"")) "," MKFS("vg0/root", "ext4") "," MOUNTS(
		 M("vg0/root", "/")) "]",
	 1, 1024,
	 "(appliance.create_lvm): the logical volumes add up to 2048 MiB, past volume group "
	 "vg0's 1020 MiB",
	 TRUE},
	{"mounted-unformatted",
	 "[" PART("0", P("100", "linux") "," P("100", "linux")) "," MKFS(
		 "disk0p1", "ext4") "," MOUNTS(M("disk0p1", "/") "," M("disk0p2", "/srv")) "]",
	 1, 1024, "'disk0p2' (mounted on /srv) has no filesystem: no mkfs step makes one"},
	{"swap-on-a-path",
	 "[" MKFS("disk0", "ext4") "," MKFS("disk1", "swap") "," MOUNTS(
		 M("disk0", "/") "," M("disk1", "/swap")) "]",
	 2, 1024, "'disk1' holds swap, which mounts only as swap"},
	{"bad-device-name", "[" MKFS("sda1", "ext4") "," MOUNTS(M("disk0", "/")) "]", 1, 1024,
	 "(appliance.mkfs): 'sda1' is not a device (a device is diskN, diskNpK"},
	{"rest-not-last", "[" PART("0", P("\"rest\"", "linux") "," P("100", "linux")) "]", 1, 1024,
	 "(appliance.partition): argument 'partitions' item 1: only the last partition may take "
	 "the \"rest\""},
	{"partition-type", "[" PART("0", P("100", "ntfs")) "]", 1, 1024,
	 "argument 'partitions' item 1: unknown partition type 'ntfs'"},
	{"partitions-not-a-list", "[" ROW("partition", "{\"disk\":0,\"partitions\":{}}", "97") "]",
	 1, 1024, "argument 'partitions' must be a list of partitions, not object"},
};

static JsonArray *
parse_steps(const gchar *text)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) node = gnt_json_parse(text, -1, &error);

	g_assert_no_error(error);
	g_assert_true(JSON_NODE_HOLDS_ARRAY(node));
	return json_array_ref(json_node_get_array(node));
}

/* The plan of an instance with @n_disks disks of @disk_mib MiB each. */
static gboolean
build_plan(JsonArray *steps, guint n_disks, guint64 disk_mib, GError **error)
{
	g_autoptr(JsonObject) template = json_object_new();
	g_autofree guint64 *sizes = g_new0(guint64, n_disks + 1);
	GntInstallPlanTarget target = {"kvm", n_disks, sizes};
	g_autoptr(GntInstallPlan) plan = NULL;

	for (guint i = 0; i < n_disks; i++)
		sizes[i] = disk_mib;
	json_object_set_string_member(template, "name", "T");
	json_object_set_array_member(template, "steps", json_array_ref(steps));
	plan = gnt_install_plan_build(&template, 1, NULL, &target, error);
	return plan != NULL;
}

static void
test_good_layouts(void)
{
	for (guint i = 0; i < G_N_ELEMENTS(good); i++) {
		g_autoptr(JsonArray) steps = parse_steps(good[i].steps);
		g_autoptr(GError) error = NULL;

		g_test_message("good layout '%s'", good[i].name);
		g_assert_true(gnt_install_steps_validate("T", steps, &error));
		g_assert_no_error(error);
		g_assert_true(build_plan(steps, good[i].n_disks, good[i].disk_mib, &error));
		g_assert_no_error(error);
	}
}

static void
test_refusals(void)
{
	for (guint i = 0; i < G_N_ELEMENTS(refused); i++) {
		g_autoptr(JsonArray) steps = parse_steps(refused[i].steps);
		g_autoptr(GError) error = NULL;
		gboolean ok;

		g_test_message("refused layout '%s'", refused[i].name);
		ok = gnt_install_steps_validate("T", steps, &error);
		if (refused[i].plan_only) {
			/* the template alone is fine: the instance's disks refuse it */
			g_assert_no_error(error);
			g_assert_true(ok);
			ok = build_plan(steps, refused[i].n_disks, refused[i].disk_mib, &error);
		}
		g_assert_false(ok);
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		g_assert_true(g_str_has_prefix(error->message, "template 'T', step "));
		if (strstr(error->message, refused[i].refused) == NULL)
			g_error("layout '%s': '%s' does not contain '%s'", refused[i].name,
				error->message, refused[i].refused);
	}
}

/* A layout left out of the plan (priority 0) is not checked; the disks'
 * sizes unknown (0) skip the size checks but not the others. */
static void
test_unknown_sizes(void)
{
	g_autoptr(JsonArray) big = parse_steps("[" PART("0", P("\"9T\"", "linux")) "," MKFS(
		"disk0p1", "ext4") "," MOUNTS(M("disk0p1", "/")) "]");
	g_autoptr(JsonArray) raid5 = parse_steps("[" RAID("md0", "5", "\"disk0\",\"disk1\"") "]");
	g_autoptr(GError) error = NULL;

	g_assert_true(build_plan(big, 1, 0, &error));
	g_assert_no_error(error);
	g_assert_false(build_plan(big, 1, 2048, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_clear_error(&error);
	g_assert_false(build_plan(raid5, 2, 0, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
}

static const GntInstallStepSpec *
spec(const gchar *step)
{
	g_autofree gchar *name = g_strconcat("appliance.", step, NULL);
	const GntInstallStepSpec *found = gnt_install_steps_lookup(name);

	g_assert_nonnull(found);
	g_assert_true(gnt_install_storage_is_step(found));
	return found;
}

/* @args of @step rendered for the agent, as compact JSON. */
static gchar *
render(const gchar *step, const gchar *args, const gchar *instance)
{
	g_autoptr(JsonNode) node = gnt_json_parse(args, -1, NULL);
	g_autoptr(JsonObject) out =
		gnt_install_storage_render_args(spec(step), json_node_get_object(node), instance);
	g_autoptr(JsonNode) wrapped = gnt_json_node_new_object(json_object_ref(out));

	return gnt_json_to_string(wrapped);
}

static void
test_render(void)
{
	struct {
		const gchar *step, *args, *rendered;
	} cases[] = {
		{"partition", "{\"disk\":1,\"partitions\":[" TWO_RAID_PARTS "]}",
		 "{\"disk\":1,\"partitions\":\"1 bios_boot\\n256 raid\\nrest raid\\n\"}"},
		{"partition", "{\"disk\":0,\"partitions\":[" P("\"1.5G\"", "linux") "]}",
		 "{\"disk\":0,\"partitions\":\"1536 linux\\n\"}"},
		{"create_raid",
		 "{\"name\":\"md0\",\"level\":1,\"devices\":[\"disk0p2\",\"disk1p2\"]}",
		 "{\"name\":\"md0\",\"level\":1,\"devices\":\"disk0p2 disk1p2\"}"},
		{"create_lvm",
		 "{\"vg\":\"vg0\",\"pvs\":[\"md1\"],\"lvs\":[" LV("swap", "\"1G\"") "," LV(
			 "var", "\"25%\"") "," LV("root", "\"rest\"") "],\"timeout\":60}",
		 "{\"vg\":\"vg0\",\"pvs\":\"md1\",\"lvs\":\"swap 1024\\nvar 25%\\nroot "
		 "rest\\n\",\"timeout\":60}"},
		/* "/" first, parents before children, swap last */
		{"mount_target",
		 "{\"mounts\":[" M("vg0/swap", "swap") "," M("md2", "/srv/data") "," M(
			 "md0", "/boot") "," M("vg0/root", "/") "," M("md1", "/srv") "]}",
		 "{\"mounts\":\"vg0/root /\\nmd0 /boot\\nmd1 /srv\\nmd2 /srv/data\\nvg0/swap "
		 "swap\\n\"}"},
		{"set_hostname", "{}", "{\"hostname\":\"web.example.com\"}"},
		{"set_hostname", "{\"hostname\":\"db1\"}", "{\"hostname\":\"db1\"}"},
		{"mkfs", "{\"device\":\"md0\",\"fstype\":\"ext4\"}",
		 "{\"device\":\"md0\",\"fstype\":\"ext4\"}"},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree gchar *text = render(cases[i].step, cases[i].args, "web.example.com");

		g_assert_cmpstr(text, ==, cases[i].rendered);
	}
	/* another step's arguments are copied as they are */
	{
		g_autoptr(JsonNode) args = gnt_json_parse("{\"disk\":0}", -1, NULL);
		g_autoptr(JsonObject) out = gnt_install_storage_render_args(
			gnt_install_steps_lookup("appliance.zero_disk_start"),
			json_node_get_object(args), "x");

		g_assert_false(gnt_install_storage_is_step(
			gnt_install_steps_lookup("appliance.find_root")));
		g_assert_cmpint(json_object_get_int_member(out, "disk"), ==, 0);
		g_assert_cmpuint(json_object_get_size(out), ==, 1);
	}
}

#define UUID_ROOT "0b5cbf3e-2f4e-4a57-9d0e-1f5bd1c3f0a1"
#define UUID_BOOT "7d1f8a52-9f54-4f39-b1a4-0c1e3a9b6b11"
#define UUID_SWAP "c3b1d2e4-5f60-4a7b-8c9d-0e1f2a3b4c5d"

static void
test_layout_parse(void)
{
	const gchar *text =
		"mount /dev/vg0/root / ext4 " UUID_ROOT " vg0/root;"
		"mount /dev/md0 /boot ext4 " UUID_BOOT " md0;"
		"mount /dev/vg0/swap swap swap " UUID_SWAP " vg0/swap;"
		"raid /dev/md0 1 disk0p2,disk1p2 md0;raid /dev/md1 1 disk0p3,disk1p3 md1";
	const gchar *bad[] = {
		"mount /dev/vg0/root / ext4 " UUID_ROOT,	      /* no name */
		"mount /dev/vg0/root / btrfs " UUID_ROOT " vg0/root", /* fstype */
		"mount /dev/vg0/root / ext4 not-a-uuid! vg0/root",    /* uuid */
		"mount dev/vg0/root / ext4 " UUID_ROOT " vg0/root",   /* relative */
		"mount /dev/vg0/root / ext4 " UUID_ROOT " vg0/root;raid /dev/md0 x disk0 md0",
		"mount /dev/vg0/root / ext4 " UUID_ROOT " vg0/root;raid /dev/md0 1 sda1 md0",
		"mount /dev/vg0/root / ext4 " UUID_ROOT " vg0/root;format c:", /* unknown record */
		"mount /dev/md0 /boot ext4 " UUID_BOOT " md0",		       /* no root */
		"",
	};
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject)
		layout = gnt_install_storage_layout_parse("/dev/vg0/root", text, &error);
	g_autoptr(JsonNode) node = NULL;
	g_autofree gchar *shown = NULL;

	g_assert_no_error(error);
	node = gnt_json_node_new_object(json_object_ref(layout));
	shown = gnt_json_to_string(node);
	g_assert_cmpstr(
		shown, ==,
		"{\"filesystems\":[{\"name\":\"vg0/root\",\"device\":\"/dev/vg0/root\",\"path\":\"/\","
		"\"fstype\":\"ext4\",\"uuid\":\"" UUID_ROOT "\",\"root\":true},"
		"{\"name\":\"md0\",\"device\":\"/dev/md0\",\"path\":\"/boot\",\"fstype\":\"ext4\","
		"\"uuid\":\"" UUID_BOOT "\",\"root\":false},"
		"{\"name\":\"vg0/swap\",\"device\":\"/dev/vg0/swap\",\"path\":\"swap\","
		"\"fstype\":\"swap\",\"uuid\":\"" UUID_SWAP "\",\"root\":false}],"
		"\"raids\":[{\"name\":\"md0\",\"device\":\"/dev/md0\",\"level\":1,"
		"\"members\":[\"disk0p2\",\"disk1p2\"]},{\"name\":\"md1\",\"device\":\"/dev/md1\","
		"\"level\":1,\"members\":[\"disk0p3\",\"disk1p3\"]}],"
		"\"root_device\":\"/dev/vg0/root\"}");
	for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_autoptr(JsonObject)
			none = gnt_install_storage_layout_parse("/dev/vg0/root", bad[i], &error);

		g_assert_null(none);
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		g_clear_error(&error);
	}
	g_assert_null(gnt_install_storage_layout_parse("vg0 root", text, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
}

/* The shipped templates: valid as templates, fit for two 2 GiB disks,
 * refused for one disk and for none. */
static void
test_shipped(void)
{
	g_autoptr(JsonArray) shipped = gnt_install_templates_shipped();
	const gchar *names[] = {"CUSTOM_RAID1_LVM", "CUSTOM_RAID0"};

	g_assert_cmpuint(json_array_get_length(shipped), ==, G_N_ELEMENTS(names));
	for (guint i = 0; i < json_array_get_length(shipped); i++) {
		JsonObject *template = json_array_get_object_element(shipped, i);
		JsonArray *steps = json_object_get_array_member(template, "steps");
		g_autoptr(GError) error = NULL;

		g_assert_cmpstr(json_object_get_string_member(template, "name"), ==, names[i]);
		g_assert_true(gnt_install_steps_validate(names[i], steps, &error));
		g_assert_no_error(error);
		g_assert_true(build_plan(steps, 2, 2048, &error));
		g_assert_no_error(error);
		g_assert_false(build_plan(steps, 1, 2048, &error));
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		g_assert_nonnull(strstr(error->message, "the instance has no disk 1"));
		g_clear_error(&error);
		g_assert_false(build_plan(steps, 0, 0, &error));
		g_assert_nonnull(strstr(error->message, "the instance has no disks"));
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/install-storage/good-layouts", test_good_layouts);
	g_test_add_func("/install-storage/refusals", test_refusals);
	g_test_add_func("/install-storage/unknown-sizes", test_unknown_sizes);
	g_test_add_func("/install-storage/render", test_render);
	g_test_add_func("/install-storage/layout-parse", test_layout_parse);
	g_test_add_func("/install-storage/shipped", test_shipped);
	return g_test_run();
}
