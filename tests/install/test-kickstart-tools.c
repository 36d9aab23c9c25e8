/* Kickstart files against the real tools (doc/kickstart.md): pykickstart's
 * ksvalidator (the vendored copy, $GNT_TEST_KSVALIDATOR: it must run, a
 * missing one fails the test) on the shipped default template and on 200
 * generated layouts (partitions, RAID, LVM) for RHEL 8, 9 and 10, BIOS and
 * UEFI; a stub that prints 256 errors and exits 0; and python3-jinja2,
 * which renders the supported subset to the same bytes as Gantry. */
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "gnt-error.h"
#include "gnt-kickstart-ksvalidator.h"
#include "gnt-kickstart-prepare.h"
#include "gnt-kickstart-render.h"
#include "gnt-kickstart-source.h"
#include "gnt-subprocess.h"
#include "kickstart-test.h"

#define N_LAYOUTS 200

static const gchar *
ksvalidator(void)
{
	const gchar *path = g_getenv("GNT_TEST_KSVALIDATOR");

	if (path == NULL || !g_file_test(path, G_FILE_TEST_IS_EXECUTABLE))
		g_error("the vendored ksvalidator is missing ('%s'): build with "
			"-Dksvalidator=PATH (../shared/vendor/pykickstart/ksvalidator)",
			path != NULL ? path : "");
	return path;
}

static GntKickstartTarget
make_target(guint major, GntKickstartFirmware firmware, guint n_disks)
{
	static const gchar *const names[] = {"vda", "vdb", "vdc", "vdd"};
	GntKickstartTarget t = {.release = {GNT_KICKSTART_FAMILY_RHEL, major},
				.firmware = firmware,
				.n_disks = n_disks};

	for (guint i = 0; i < n_disks; i++) {
		g_strlcpy(t.disk_names[i], names[i], sizeof(t.disk_names[i]));
		t.disk_mib[i] = 20480 + 10240 * i;
	}
	return t;
}

/* The shipped default, rendered for RHEL 8, 9 and 10, BIOS and UEFI,
 * through the whole preparation with the real ksvalidator. */
static void
test_default(void)
{
	g_autofree gchar *token = gnt_kickstart_token_new();

	g_assert_cmpuint(strlen(token), ==, 43);
	for (guint major = 8; major <= 10; major++) {
		for (guint fw = 0; fw < 2; fw++) {
			g_autoptr(GError) error = NULL;
			GntKickstartRequest request = {.target = make_target(major, fw, 1)};
			g_autoptr(GntKickstart) ks = NULL;
			g_autofree gchar *passed = g_strdup_printf(
				"kickstart: Gantry's checks and ksvalidator -v RHEL%u "
				"passed",
				major);

			request.template = gnt_kickstart_source_get_default();
			request.ksvalidator = ksvalidator();
			kickstart_test_set_values(&request, token);
			ks = gnt_kickstart_prepare(&request, &error);
			g_bytes_unref(request.template);
			g_assert_no_error(error);
			g_assert_cmpstr(g_ptr_array_index(ks->notes, ks->notes->len - 1), ==,
					passed);
			g_assert_true((strstr(ks->text->str, "%traceback") != NULL) ==
				      (major == 8));
			g_assert_nonnull(strstr(ks->text->str, token));
		}
	}
}

/* ---- generated layouts --------------------------------------------------- */

typedef enum {
	PLAIN,
	LVM,
	RAID,
	RAID_LVM,
	LVM_SPAN,
	N_KINDS
} LayoutKind;

static void
disk_list(GString *out, guint n_disks)
{
	for (guint d = 0; d < n_disks; d++)
		g_string_append_printf(out, "%svd%c", d > 0 ? "," : "", 'a' + d);
}

static void
add_logvols(GString *ks, GRand *rand, const gchar *fs)
{
	g_string_append_printf(ks, "logvol / --vgname=vg0 --name=root --fstype=%s --size=%d\n", fs,
			       g_rand_int_range(rand, 4096, 8193));
	if (g_rand_boolean(rand))
		g_string_append(ks, "logvol swap --vgname=vg0 --name=swap --recommended\n");
	else
		g_string_append_printf(ks, "logvol swap --vgname=vg0 --name=swap --size=%d\n",
				       g_rand_int_range(rand, 512, 2049));
	if (g_rand_boolean(rand))
		g_string_append_printf(ks,
				       "logvol /var --vgname=vg0 --name=var --fstype=%s "
				       "--size=2048\n",
				       fs);
	if (g_rand_boolean(rand))
		g_string_append_printf(ks,
				       "logvol /home --vgname=vg0 --name=home --fstype=%s "
				       "--size=1024 --grow\n",
				       fs);
}

/* The RAID levels @n members allow. */
static const gchar *
raid_level(GRand *rand, guint n)
{
	static const gchar *const two[] = {"RAID1", "RAID0", "1"};
	static const gchar *const three[] = {"RAID1", "RAID5", "raid5"};
	static const gchar *const four[] = {"RAID1", "RAID5", "RAID6", "RAID10"};

	if (n == 2)
		return two[g_rand_int_range(rand, 0, 3)];
	if (n == 3)
		return three[g_rand_int_range(rand, 0, 3)];
	return four[g_rand_int_range(rand, 0, 4)];
}

/* Layout @index: its template and target. (transfer full) */
static gchar *
generate_layout(GRand *rand, guint index, guint major, GntKickstartTarget *target)
{
	LayoutKind kind = index % N_KINDS;
	guint n_disks = (guint)g_rand_int_range(rand, 1, 5);
	GntKickstartFirmware fw = index % 2 == 0 ? GNT_KICKSTART_FIRMWARE_UEFI
						 : GNT_KICKSTART_FIRMWARE_BIOS;
	const gchar *fs = g_rand_boolean(rand) ? "xfs" : "ext4";
	g_autoptr(GString) ks = g_string_new(NULL);

	if ((kind == RAID || kind == RAID_LVM || kind == LVM_SPAN) && n_disks == 1)
		n_disks = 2;
	*target = make_target(major, fw, n_disks);
	g_string_append_printf(ks,
			       "# layout %u\ncmdline\nlang en_US.UTF-8\nkeyboard us\n"
			       "timezone Etc/UTC --utc\n"
			       "network --bootproto=dhcp --hostname={{ hostname }}\n"
			       "rootpw --lock\nselinux --enforcing\nzerombr\n",
			       index);
	g_string_append(ks, "clearpart --all --initlabel --drives=");
	disk_list(ks, n_disks);
	g_string_append(ks, "\nignoredisk --only-use=");
	disk_list(ks, n_disks);
	g_string_append(ks, "\nbootloader --boot-drive=vda --append=\"console=ttyS0\"\n");
	if (g_rand_int_range(rand, 0, 3) == 0)
		g_string_append(ks, "reqpart\n");
	else if (fw == GNT_KICKSTART_FIRMWARE_UEFI)
		g_string_append(ks, "part /boot/efi --fstype=efi --size=600 --ondisk=vda\n");
	else
		g_string_append(ks, "part biosboot --fstype=biosboot --size=1 --ondisk=vda\n");
	if (kind == RAID || kind == RAID_LVM) {
		for (guint d = 0; d < 2; d++)
			g_string_append_printf(ks, "part raid.1%u --size=1024 --ondisk=vd%c\n", d,
					       'a' + d);
		g_string_append_printf(ks,
				       "raid /boot --level=RAID1 --device=md0 --fstype=%s "
				       "raid.10 raid.11\n",
				       fs);
		for (guint d = 0; d < n_disks; d++)
			g_string_append_printf(
				ks, "part raid.2%u --size=4096 --grow --ondisk=vd%c\n", d, 'a' + d);
		g_string_append_printf(ks, "raid %s --level=%s --device=md1",
				       kind == RAID ? "/" : "pv.01", raid_level(rand, n_disks));
		if (kind == RAID)
			g_string_append_printf(ks, " --fstype=%s", fs);
		for (guint d = 0; d < n_disks; d++)
			g_string_append_printf(ks, " raid.2%u", d);
		g_string_append_c(ks, '\n');
		if (kind == RAID_LVM) {
			g_string_append(ks, "volgroup vg0 --pesize=4096 pv.01\n");
			add_logvols(ks, rand, fs);
		} else {
			g_string_append_printf(ks, "part swap --size=1024 --ondisk=vd%c\n",
					       'a' + n_disks - 1);
		}
	} else {
		g_string_append_printf(ks, "part /boot --fstype=%s --size=1024 --ondisk=vda\n", fs);
		if (kind == PLAIN) {
			g_string_append_printf(ks, "part swap --size=%d --ondisk=vda\n",
					       g_rand_int_range(rand, 512, 2049));
			g_string_append_printf(ks,
					       "part / --fstype=%s --size=4096 --grow "
					       "--ondisk=vda\n",
					       fs);
			if (n_disks > 1)
				g_string_append_printf(ks,
						       "part /home --fstype=%s --size=2048 "
						       "--grow --ondisk=vdb\n",
						       fs);
		} else {
			guint pvs = kind == LVM_SPAN ? n_disks : 1;

			for (guint d = 0; d < pvs; d++)
				g_string_append_printf(
					ks, "part pv.0%u --size=1 --grow --ondisk=vd%c\n", d,
					'a' + d);
			g_string_append(ks, "volgroup vg0");
			for (guint d = 0; d < pvs; d++)
				g_string_append_printf(ks, " pv.0%u", d);
			g_string_append_c(ks, '\n');
			add_logvols(ks, rand, fs);
		}
	}
	if (g_rand_boolean(rand))
		g_string_append(ks, "reboot\n");
	if (g_rand_boolean(rand))
		g_string_append(ks, "%post\necho 'layout done' > /root/layout\n%end\n");
	return g_string_free(g_steal_pointer(&ks), FALSE);
}

/* Which of @texts ksvalidator refuses: what a failure names. */
static void
report_culprits(const gchar *syntax, GPtrArray *texts)
{
	for (guint i = 0; i < texts->len; i++) {
		g_autoptr(GError) error = NULL;
		const gchar *text = g_ptr_array_index(texts, i);
		gsize len = strlen(text);

		if (!gnt_kickstart_ksvalidator_check(ksvalidator(), syntax, &text, &len, 1, &error))
			g_printerr("layout %u for %s: %s\n%s\n", i, syntax, error->message, text);
	}
}

static void
test_layouts(void)
{
	g_autofree gchar *token = gnt_kickstart_token_new();

	for (guint major = 8; major <= 10; major++) {
		g_autoptr(GRand) rand = g_rand_new_with_seed(17);
		g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func(g_free);
		g_autoptr(GArray) lens = g_array_new(FALSE, FALSE, sizeof(gsize));
		g_autofree gchar *syntax = g_strdup_printf("RHEL%u", major);
		g_autoptr(GError) error = NULL;

		for (guint i = 0; i < N_LAYOUTS; i++) {
			GntKickstartRequest request = {0};
			g_autofree gchar *layout = generate_layout(rand, i, major, &request.target);
			g_autoptr(GBytes) bytes = g_bytes_new(layout, strlen(layout));
			g_autoptr(GntKickstart) ks = NULL;

			request.template = bytes;
			kickstart_test_set_values(&request, token);
			ks = gnt_kickstart_prepare(&request, &error);
			if (ks == NULL)
				g_error("layout %u for %s: %s\n%s", i, syntax, error->message,
					layout);
			g_assert_true((strstr(ks->text->str, "%traceback") != NULL) ==
				      (major == 8));
			g_ptr_array_add(texts, g_strndup(ks->text->str, ks->text->len));
			g_array_append_val(lens, ks->text->len);
		}
		if (!gnt_kickstart_ksvalidator_check(
			    ksvalidator(), syntax, (const gchar *const *)texts->pdata,
			    (const gsize *)(gpointer)lens->data, texts->len, &error)) {
			report_culprits(syntax, texts);
			g_error("ksvalidator -v %s: %s", syntax, error->message);
		}
	}
}

/* A file Gantry's checks pass but ksvalidator refuses: the real one's
 * message reaches the error. */
static void
test_ksvalidator_refuses(void)
{
	g_autoptr(GError) error = NULL;
	GntKickstartRequest request = {.target = make_target(9, GNT_KICKSTART_FIRMWARE_BIOS, 1)};
	const gchar *text = "cmdline\ntimezone America/Los_Angeles --isUtc\nautopart\n";
	g_autoptr(GBytes) bytes = g_bytes_new_static(text, strlen(text));
	g_autoptr(GntKickstart) ks = NULL;
	g_autofree gchar *token = gnt_kickstart_token_new();

	request.template = bytes;
	request.ksvalidator = ksvalidator();
	kickstart_test_set_values(&request, token);
	ks = gnt_kickstart_prepare(&request, &error);
	g_assert_null(ks);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_nonnull(strstr(error->message, "ksvalidator -v RHEL9 refused the file"));
	if (strstr(error->message, "The option --isUtc will be deprecated") == NULL)
		g_error("%s", error->message);
}

/* A stub that prints 256 errors and exits 0 (the real one's status wraps
 * so): the file is refused all the same. */
static void
test_stub_256_errors(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *dir = g_dir_make_tmp("gnt-ks-stub-XXXXXX", &error);
	g_autofree gchar *stub = g_build_filename(dir, "ksvalidator", NULL);
	GntKickstartRequest request = {.target = make_target(9, GNT_KICKSTART_FIRMWARE_UEFI, 1)};
	g_autoptr(GntKickstart) ks = NULL;
	gsize len = 2;
	const gchar *text = "x\n";
	g_autofree gchar *token = gnt_kickstart_token_new();

	g_assert_no_error(error);
	g_assert_true(g_file_set_contents_full(
		stub,
		"#!/bin/sh\nfor f in \"$@\"; do last=$f; done\n"
		"printf '\\nChecking kickstart file %s\\n\\n' \"$last\"\n"
		"i=0; while [ $i -lt 256 ]; do echo \"Unknown command: bogus$i\" >&2; "
		"i=$((i+1)); done\nexit 0\n",
		-1, G_FILE_SET_CONTENTS_NONE, 0755, &error));
	/* the stub alone */
	g_assert_false(gnt_kickstart_ksvalidator_check(stub, "RHEL9", &text, &len, 1, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_nonnull(strstr(error->message, "(exit status 0): Unknown command: bogus0; "));
	g_assert_true(g_str_has_suffix(error->message, "... (256 lines in all)"));
	g_clear_error(&error);
	/* and an install's preparation */
	request.template = gnt_kickstart_source_get_default();
	request.ksvalidator = stub;
	kickstart_test_set_values(&request, token);
	ks = gnt_kickstart_prepare(&request, &error);
	g_bytes_unref(request.template);
	g_assert_null(ks);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_nonnull(strstr(error->message, "ksvalidator -v RHEL9 refused the file"));
	g_unlink(stub);
	g_rmdir(dir);
}

/* ---- python3-jinja2 renders the same bytes ------------------------------- */

#define N_TEMPLATES 300

/* Text without "{{", "{%", "{#" and not ending in '{'. */
static void
random_text(GRand *rand, GString *out)
{
	static const gchar *const bits[] = {"part / --size=1\n",
					    " ",
					    "\n",
					    "{",
					    "}",
					    "}}",
					    "%}",
					    "#}",
					    "%",
					    "#",
					    "é",
					    "\t",
					    "{ x }",
					    "$",
					    "\\",
					    "'\"",
					    "ü→",
					    "%post\n",
					    "a",
					    "\n\n"};
	guint n = (guint)g_rand_int_range(rand, 0, 12);

	for (guint i = 0; i < n; i++) {
		const gchar *bit = bits[g_rand_int_range(rand, 0, G_N_ELEMENTS(bits))];

		if (out->len > 0 && out->str[out->len - 1] == '{' && strchr("{%#", bit[0]) != NULL)
			continue;
		g_string_append(out, bit);
	}
	if (out->len > 0 && out->str[out->len - 1] == '{')
		g_string_append_c(out, ' ');
}

static void
test_jinja2_same_bytes(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GRand) rand = g_rand_new_with_seed(4);
	g_autoptr(JsonBuilder) builder = json_builder_new();
	g_autoptr(GPtrArray) expected = g_ptr_array_new_with_free_func(g_free);
	g_autofree gchar *dir = g_dir_make_tmp("gnt-ks-jinja-XXXXXX", &error);
	g_autofree gchar *input = g_build_filename(dir, "cases.json", NULL);
	g_autoptr(JsonGenerator) gen = json_generator_new();
	g_autoptr(JsonNode) root = NULL;
	g_autoptr(JsonParser) parser = json_parser_new();
	g_autofree gchar *output = NULL;
	gint status = -1;
	const gchar *const argv[] = {
		"/usr/bin/python3", "-c",
		"import json, sys, jinja2\n"
		"env = jinja2.Environment(undefined=jinja2.StrictUndefined,"
		" keep_trailing_newline=True)\n"
		"cases = json.load(open(sys.argv[1], encoding='utf-8'))\n"
		"out = [env.from_string(c['template']).render(**c['values']) for c in cases]\n"
		"sys.stdout.write(json.dumps(out))\n",
		input, NULL};
	JsonArray *outputs;

	g_assert_no_error(error);
	json_builder_begin_array(builder);
	for (guint i = 0; i < N_TEMPLATES; i++) {
		g_autoptr(GString) tpl = g_string_new(NULL);
		const gchar *values[GNT_KICKSTART_N_VARS] = {NULL};
		g_autoptr(GntKickstartTemplate) parsed = NULL;
		g_autoptr(GString) rendered = NULL;
		g_autoptr(GPtrArray) strs = g_ptr_array_new_with_free_func(g_free);

		json_builder_begin_object(builder);
		json_builder_set_member_name(builder, "values");
		json_builder_begin_object(builder);
		for (guint v = 0; v < GNT_KICKSTART_N_VARS; v++) {
			g_autoptr(GString) value = g_string_new(NULL);

			random_text(rand, value);
			g_string_append(value, v % 2 == 0 ? "{{ not a tag }}" : "\nline two");
			values[v] = g_string_free(g_steal_pointer(&value), FALSE);
			g_ptr_array_add(strs, (gpointer)values[v]);
			json_builder_set_member_name(builder, gnt_kickstart_var_get_name(v));
			json_builder_add_string_value(builder, values[v]);
		}
		json_builder_end_object(builder);
		for (guint piece = 0; piece < 6; piece++) {
			static const gchar *const opens[] = {"{{", "{{ ", "{{\t", "{{  "};
			static const gchar *const closes[] = {"}}", " }}", "\n}}", "}}"};
			guint style = (guint)g_rand_int_range(rand, 0, 4);

			random_text(rand, tpl);
			g_string_append(tpl, opens[style]);
			g_string_append(tpl, gnt_kickstart_var_get_name(g_rand_int_range(
						     rand, 0, GNT_KICKSTART_N_VARS)));
			g_string_append(tpl, closes[style]);
		}
		random_text(rand, tpl);
		json_builder_set_member_name(builder, "template");
		json_builder_add_string_value(builder, tpl->str);
		json_builder_end_object(builder);
		parsed = gnt_kickstart_template_new(tpl->str, tpl->len, &error);
		g_assert_no_error(error);
		rendered = gnt_kickstart_template_render(parsed, values, &error);
		g_assert_no_error(error);
		g_ptr_array_add(expected, g_string_free(g_steal_pointer(&rendered), FALSE));
	}
	json_builder_end_array(builder);
	root = json_builder_get_root(builder);
	json_generator_set_root(gen, root);
	g_assert_true(json_generator_to_file(gen, input, &error));
	g_assert_true(gnt_subprocess_run(argv, NULL, 120, &output, &status, &error));
	g_assert_no_error(error);
	if (status != 0)
		g_error("python3-jinja2 failed (%d): %s", status, output);
	g_assert_true(json_parser_load_from_data(parser, output, -1, &error));
	outputs = json_node_get_array(json_parser_get_root(parser));
	g_assert_cmpuint(json_array_get_length(outputs), ==, N_TEMPLATES);
	for (guint i = 0; i < N_TEMPLATES; i++)
		g_assert_cmpstr(json_array_get_string_element(outputs, i), ==,
				g_ptr_array_index(expected, i));
	g_unlink(input);
	g_rmdir(dir);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/install/kickstart-tools/default", test_default);
	g_test_add_func("/install/kickstart-tools/layouts", test_layouts);
	g_test_add_func("/install/kickstart-tools/ksvalidator-refuses", test_ksvalidator_refuses);
	g_test_add_func("/install/kickstart-tools/stub-256-errors", test_stub_256_errors);
	g_test_add_func("/install/kickstart-tools/jinja2-same-bytes", test_jinja2_same_bytes);
	return g_test_run();
}
