/* Kickstart templates (doc/kickstart.md): the {{ name }} renderer and its
 * input limits, what Gantry adds, its validator on the adversarial
 * templates of issue 17 (each refused naming its line) and the seed's
 * sample, and the template sources (file:// under the kickstart directory,
 * http(s) with a size cap, the precedence). ksvalidator's runs are in
 * test-kickstart-ksvalidator.c. */
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "gnt-error.h"
#include "gnt-kickstart-additions.h"
#include "gnt-kickstart-prepare.h"
#include "gnt-kickstart-render.h"
#include "gnt-kickstart-source.h"
#include "gnt-kickstart-validate.h"
#include "image-test-server.h"
#include "kickstart-test.h"

#define TOKEN "tOkEn-0123456789_abcdefghijklmnopqrstuvwxyzABC"

/* Two 10 GiB disks, RHEL 9, UEFI. */
static GntKickstartTarget
make_target(GntKickstartFamily family, guint major)
{
	GntKickstartTarget t = {.release = {family, major},
				.firmware = GNT_KICKSTART_FIRMWARE_UEFI,
				.n_disks = 2,
				.disk_names = {"vda", "vdb"},
				.disk_mib = {10240, 10240}};
	return t;
}

/* Gantry's checks only (no ksvalidator). (transfer full) */
static GntKickstart *
prepare(const gchar *text, const GntKickstartTarget *target, GError **error)
{
	GntKickstartRequest request = {.target = *target};
	g_autoptr(GBytes) bytes = g_bytes_new(text, strlen(text));

	request.template = bytes;
	kickstart_test_set_values(&request, TOKEN);
	return gnt_kickstart_prepare(&request, error);
}

/* The commands of a good RHEL 9 template, partitioning of @layout. */
#define HEAD "cmdline\nlang en_US.UTF-8\nkeyboard us\ntimezone Etc/UTC --utc\n"
#define EFI  "part /boot/efi --fstype=efi --size=600 --ondisk=vda\n"
#define GOOD                                                                                       \
	HEAD "zerombr\nclearpart --all --initlabel\n" EFI                                          \
	     "part /boot --size=1024\npart / --grow --size=2048\n"

static void
assert_refused(const gchar *text, GntKickstartFamily family, guint major, const gchar *expected)
{
	g_autoptr(GError) error = NULL;
	GntKickstartTarget target = make_target(family, major);
	g_autoptr(GntKickstart) ks = prepare(text, &target, &error);

	g_assert_null(ks);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	if (strstr(error->message, expected) == NULL)
		g_error("expected '%s' in: %s", expected, error->message);
	if (strstr(error->message, "line ") == NULL)
		g_error("no line named in: %s", error->message);
}

/* ---- rendering ----------------------------------------------------------- */

static void
test_render_good(void)
{
	g_autoptr(GError) error = NULL;
	const gchar *text = "a {{ hostname }} b {{instance_name}} {{\n  hostname\n}}{ {}\n";
	g_autoptr(GntKickstartTemplate)
		tpl = gnt_kickstart_template_new(text, strlen(text), &error);
	const gchar *values[GNT_KICKSTART_N_VARS] = {NULL};
	g_autoptr(GString) out = NULL;

	g_assert_no_error(error);
	g_assert_true(gnt_kickstart_template_uses(tpl, GNT_KICKSTART_VAR_HOSTNAME));
	g_assert_false(gnt_kickstart_template_uses(tpl, GNT_KICKSTART_VAR_AGENT_TOKEN));
	values[GNT_KICKSTART_VAR_HOSTNAME] = "h{{ x }}";
	values[GNT_KICKSTART_VAR_INSTANCE_NAME] = "h.example.com";
	out = gnt_kickstart_template_render(tpl, values, &error);
	g_assert_no_error(error);
	/* values are inserted verbatim, never read as template text */
	g_assert_cmpstr(out->str, ==, "a h{{ x }} b h.example.com h{{ x }}{ {}\n");
	/* strict undefined: a variable without a value */
	values[GNT_KICKSTART_VAR_INSTANCE_NAME] = NULL;
	g_assert_null(gnt_kickstart_template_render(tpl, values, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_cmpstr(error->message, ==,
			"line 1: 'instance_name' is undefined for this install");
}

static void
assert_template_refused(const gchar *text, gsize len, const gchar *expected)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntKickstartTemplate) tpl = gnt_kickstart_template_new(text, len, &error);

	g_assert_null(tpl);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	if (strstr(error->message, expected) == NULL)
		g_error("expected '%s' in: %s", expected, error->message);
}

static void
test_render_refused(void)
{
	const gchar *names = "liveimg_url, callback_url, agent_token, instance_name, hostname, "
			     "ssh_keys, stage2_url";
	struct {
		const gchar *text;
		const gchar *expected;
	} cases[] = {
		{"text\n{{ ''.__class__ }}\n", "line 2: '{{ ''.__class__ }}"},
		{"text\n\n{% include 'x' %}\n", "line 3: '{% include 'x' %}' is not allowed"},
		{"{# comment #}", "line 1: '{# comment #}' is not allowed"},
		{"a\n{{ rootpw }}", "line 2: 'rootpw' is undefined"},
		{"{{ hostname|upper }}", "line 1: '{{ hostname|upper }}' is not allowed"},
		{"{{ hostname.__len__ }}", "no filters, attributes"},
		{"{{ hostname() }}", "not allowed"},
		{"{{ 'x' }}", "not allowed"},
		{"{{- hostname }}", "not allowed"},
		{"{{ hostname }", "not allowed"},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		assert_template_refused(cases[i].text, strlen(cases[i].text), cases[i].expected);
		/* and the message lists the valid names */
		assert_template_refused(cases[i].text, strlen(cases[i].text), names);
	}
}

static void
test_render_input_limits(void)
{
	g_autoptr(GString) big = g_string_new(NULL);
	const gchar nul[] = "lang en_US\nkeyboard us\ntext\0more\n";
	const gchar bad_utf8[] = "lang en_US\n# caf\xc3\n";

	/* 10 MiB of 60-byte lines: refused at the line that crosses 1 MiB */
	while (big->len < 10 * 1024 * 1024)
		g_string_append(big,
				"# a comment line of the template, sixty bytes long, with nl\n");
	assert_template_refused(big->str, big->len, "line 17477: the template is larger than");
	assert_template_refused(nul, sizeof(nul) - 1, "line 3: a NUL byte");
	assert_template_refused(bad_utf8, sizeof(bad_utf8) - 1, "line 2: invalid UTF-8");
}

/* ---- what Gantry adds ---------------------------------------------------- */

static gchar *
add(const gchar *text, guint major, GPtrArray *notes, GError **error)
{
	GntKickstartRelease release = {GNT_KICKSTART_FAMILY_RHEL, major};
	g_autoptr(GString)
		out = gnt_kickstart_add_missing(text, strlen(text), &release, notes, error);

	return out != NULL ? g_string_free(g_steal_pointer(&out), FALSE) : NULL;
}

static void
test_additions(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func(g_free);
	const gchar *text = GOOD "reboot --eject\n%post\necho hi\n%end\n";
	g_autofree gchar *out = add(text, 9, notes, &error);
	g_autofree gchar *again = NULL;
	const gchar *end_section;

	g_assert_no_error(error);
	/* the payload, the start and error reports after the template */
	g_assert_true(g_str_has_prefix(out, GOOD "poweroff --eject\n%post\necho hi\n%end\n"
						 "# added by Gantry (doc/kickstart.md)\n"
						 "liveimg --url={{ liveimg_url }}\n%pre\n"));
	g_assert_nonnull(strstr(out, "\"agent_status\": \"start\""));
	g_assert_nonnull(strstr(out, "%onerror\n"));
	g_assert_null(strstr(out, "reboot"));
	g_assert_null(strstr(out, "%traceback")); /* RHEL 9 */
	/* the end report: the very last section, --nochroot, after sync */
	end_section = g_strrstr(out, "%post --nochroot\nsync\ncurl ");
	g_assert_nonnull(end_section);
	g_assert_nonnull(strstr(end_section, "\"agent_status\": \"end\""));
	g_assert_true(g_str_has_suffix(out, "'{{ callback_url }}'\n%end\n"));
	g_assert_cmpuint(notes->len, ==, 2);
	g_assert_cmpstr(g_ptr_array_index(notes, 0), ==,
			"kickstart: line 10: 'reboot' became 'poweroff': Gantry must see the "
			"installer stop to boot the instance from disk");
	g_assert_nonnull(strstr(g_ptr_array_index(notes, 1), "Gantry added liveimg, %pre"));
	/* what has everything gets nothing more */
	again = add(out, 9, NULL, &error);
	g_assert_no_error(error);
	g_assert_cmpstr(again, ==, out);
}

static void
test_additions_traceback(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *rhel8 = add(GOOD, 8, NULL, &error);
	g_autofree gchar *rhel10 = add(GOOD, 10, NULL, &error);
	GntKickstartRelease f33 = {GNT_KICKSTART_FAMILY_FEDORA, 33};
	GntKickstartRelease f34 = {GNT_KICKSTART_FAMILY_FEDORA, 34};

	g_assert_no_error(error);
	g_assert_nonnull(strstr(rhel8, "%traceback\n"));
	g_assert_null(strstr(rhel10, "%traceback"));
	g_assert_false(gnt_kickstart_release_lacks_traceback(&f33));
	g_assert_true(gnt_kickstart_release_lacks_traceback(&f34));
}

static void
test_additions_refused(void)
{
	struct {
		const gchar *text;
		const gchar *expected;
	} cases[] = {
		{GOOD "reboot\npoweroff\n",
		 "line 11: 'poweroff' conflicts with 'reboot' on line 10"},
		{GOOD "%pre\ncurl -d '{\"agent_status\": \"start\"}' {{ callback_url }}\n%end\n",
		 "line 11: a callback without {{ agent_token }}"},
		{GOOD
		 "%post\ncurl -X POST \\\n  http://169.254.169.254/gantry/latest/install/callback\n%end\n",
		 "line 11: a callback without {{ agent_token }}"},
		{GOOD
		 "%post --nochroot\nsync\ncurl -d '{\"agent_status\": \"end\", \"agent_token\": "
		 "\"{{ agent_token }}\"}' {{ callback_url }}\n%end\n%post\necho late\n%end\n",
		 "line 12: the end report must be the last thing run"},
		{GOOD "%post --nochroot\ncurl -d '{\"agent_status\": \"end\", \"agent_token\": "
		      "\"{{ agent_token }}\"}' {{ callback_url }}\n%end\n",
		 "line 11: the end report must be the last thing run"},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GError) error = NULL;
		g_autofree gchar *out = add(cases[i].text, 9, NULL, &error);

		g_assert_null(out);
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		if (strstr(error->message, cases[i].expected) == NULL)
			g_error("case %u: expected '%s' in: %s", i, cases[i].expected,
				error->message);
	}
}

/* A template's own reports are kept, and its own end report if it is last. */
static void
test_additions_own_reports(void)
{
	g_autoptr(GError) error = NULL;
	const gchar *text = GOOD "%pre\ncurl -d '{\"agent_status\": \"start\", \"agent_token\": "
				 "\"{{ agent_token }}\"}' {{ callback_url }}\n%end\n"
				 "%post --nochroot\n/usr/bin/sync\ncurl -d "
				 "'{\"agent_token\": \"{{ agent_token }}\", \"agent_status\": "
				 "\"end\"}' {{ callback_url }}\n%end\n";
	g_autofree gchar *out = add(text, 9, NULL, &error);

	g_assert_no_error(error);
	g_assert_null(strstr(out, "the installer started"));
	g_assert_nonnull(strstr(out, "the installer failed"));
	g_assert_null(strstr(out, "the installer is done"));
	g_assert_true(g_str_has_suffix(out, "{{ callback_url }}\n%end\n"));
}

/* ---- the whole preparation and the validator ----------------------------- */

static void
test_prepare_good(void)
{
	g_autoptr(GError) error = NULL;
	GntKickstartTarget target = make_target(GNT_KICKSTART_FAMILY_RHEL, 9);
	g_autoptr(GntKickstart)
		ks = prepare(GOOD "network --hostname={{ hostname }}\n", &target, &error);
	g_autofree gchar *redacted = NULL;

	g_assert_no_error(error);
	g_assert_nonnull(strstr(ks->text->str, "network --hostname=web1\n"));
	g_assert_nonnull(strstr(ks->text->str,
				"liveimg --url=" GNT_KICKSTART_METAD_INSTALL "/image.tar.gz\n"));
	g_assert_nonnull(strstr(ks->text->str, TOKEN));
	redacted = gnt_kickstart_dup_redacted(ks);
	g_assert_null(strstr(redacted, TOKEN));
	g_assert_nonnull(strstr(redacted, "\"agent_token\": \"<redacted>\""));
	g_assert_cmpstr(g_ptr_array_index(ks->notes, ks->notes->len - 1), ==,
			"kickstart: ksvalidator is not installed: only Gantry's own checks ran");
}

static void
test_adversarial(void)
{
	const gchar *two_disks = HEAD "zerombr\nclearpart --all --initlabel\n" EFI;
	struct {
		const gchar *text;
		const gchar *expected;
	} cases[] = {
		/* structure */
		{GOOD "%post\necho no end\n", "line 10: the %post section has no %end"},
		{GOOD "%pre\necho\n%post\necho\n%end\n",
		 "line 10: the %pre section has no %end before the %post of line 12"},
		{GOOD "%include /tmp/part.ks\n", "line 10: '%include' is refused"},
		{GOOD "%ksappend http://x/y\n", "line 10: '%ksappend' is refused"},
		{GOOD "%end\n", "line 10: %end outside a section"},
		{GOOD "%bogus\n%end\n", "line 10: unknown section '%bogus'"},
		/* payloads and shutdown */
		{GOOD "liveimg --url=http://a/b.tar\nliveimg --url=http://a/c.tar\n",
		 "line 11: a second liveimg (the first is on line 10)"},
		{GOOD "liveimg --url=http://a/b.tar\nurl --url=http://a/repo\n",
		 "line 11: liveimg and url are two payloads"},
		{GOOD "liveimg --url=http://a/b.tar\n%packages\n@core\n%end\n",
		 "%packages has nothing to install from with liveimg"},
		{GOOD "reboot\npoweroff\n",
		 "line 11: 'poweroff' conflicts with 'reboot' on line 10"},
		/* layouts */
		{HEAD EFI "part /boot --size=1024\npart pv.01 --grow\nvolgroup vg0 pv.01\n"
			  "logvol / --vgname=vg0 --name=root --size=4096\n"
			  "logvol /boot --vgname=vg0 --name=boot --size=1024\n",
		 "line 10: /boot cannot be on LVM"},
		{GOOD "part /data --size=100 --ondisk=sdc\n",
		 "line 10: --ondisk names disk 'sdc', which the instance does not have (its disks: "
		 "vda, vdb)"},
		{HEAD EFI "part /boot --size=1024\npart pv.01 --grow\nvolgroup vg0 pv.01\n"
			  "logvol / --vgname=vg0 --name=root --size=4096\n"
			  "logvol /data --vgname=vg0 --name=data --size=40000\n",
		 "line 10: the logical volumes of 'vg0' need 44096 MiB up to here, more than its "
		 "physical volumes can hold"},
		{HEAD EFI "part / --size=8000 --ondisk=vda\npart /var --size=4000 --ondisk=vda\n",
		 "line 7: the partitions on 'vda' need 12600 MiB up to here, more than its 10240 "
		 "MiB"},
		{HEAD EFI "part raid.01 --size=1000 --ondisk=vda\npart raid.02 --size=1000 "
			  "--ondisk=vdb\nraid / --level=1 --device=md0 raid.01 raid.02 raid.03\n",
		 "line 8: RAID member 'raid.03' is not defined"},
		{HEAD EFI "part raid.01 --size=1000 --ondisk=vda\npart raid.02 --size=1000 "
			  "--ondisk=vdb\nraid / --level=5 --device=md0 raid.01 raid.02\n",
		 "line 8: RAID level 5 needs at least 3 members, it has 2"},
		{HEAD EFI "part / --size=4000\npart pv.01 --size=1000\nvolgroup vg0 pv.01 pv.02\n",
		 "line 8: physical volume 'pv.02' is not defined"},
		{GOOD "logvol /srv --vgname=nope --name=srv --size=10\n",
		 "line 10: volume group 'nope' is not defined"},
		{GOOD "part /srv --fstype=zfs --size=100\n",
		 "line 10: filesystem type 'zfs' is not supported by Anaconda for RHEL9"},
		{GOOD "autopart\n", "manual partitioning cannot be mixed with autopart (line 10)"},
		{two_disks, "the layout has no / filesystem"},
		{HEAD "part / --size=4000\n", "line 5: UEFI needs a /boot/efi partition"},
		{HEAD, "the file does not partition the disks"},
		{GOOD "part /x --size=1G\n", "line 10: --size=1G is not a whole number of MiB"},
		/* what the pykickstart notes say ksvalidator misses as well */
		{GOOD "clearpart --all --none\n",
		 "line 10: clearpart takes one of --all, --linux, --list and --none"},
		{GOOD "part /x --size=2048 --grow --maxsize=1024\n",
		 "line 10: --maxsize=1024 is smaller than --size=2048"},
		{HEAD EFI "part /boot --size=1024\npart pv.01 --grow\nvolgroup vg0 pv.01\n"
			  "logvol / --vgname=vg0 --name=root --size=4096 --percent=50\n",
		 "line 9: --percent needs --grow"},
		/* a release's removed commands */
		{GOOD "%traceback\necho\n%end\n", "line 10: %traceback is deprecated"},
		{GOOD "btrfs / --data=0 btrfs.01\n", "line 10: 'btrfs' is refused for RHEL9"},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++)
		assert_refused(cases[i].text, GNT_KICKSTART_FAMILY_RHEL, 9, cases[i].expected);
}

/* The partitions the firmware needs: under BIOS a gpt label needs a
 * biosboot partition (or reqpart); msdos needs none; under UEFI the ESP. */
static void
test_prepare_firmware(void)
{
	const gchar *gpt = HEAD "zerombr\nclearpart --all --initlabel --disklabel=gpt\n";
	g_autofree gchar *bare = g_strconcat(gpt, "part / --size=4000\n", NULL);
	g_autofree gchar *biosboot = g_strconcat(
		gpt, "part biosboot --fstype=biosboot --size=1\npart / --size=4000\n", NULL);
	g_autofree gchar *reqpart = g_strconcat(gpt, "reqpart\npart / --size=4000\n", NULL);
	const gchar *msdos = HEAD "zerombr\nclearpart --all --initlabel\npart / --size=4000\n";
	GntKickstartTarget bios = make_target(GNT_KICKSTART_FAMILY_RHEL, 9);
	GntKickstartTarget uefi = make_target(GNT_KICKSTART_FAMILY_RHEL, 9);
	g_autoptr(GError) error = NULL;
	const gchar *const good[] = {biosboot, reqpart, msdos};

	bios.firmware = GNT_KICKSTART_FIRMWARE_BIOS;
	g_assert_null(prepare(bare, &bios, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_nonnull(strstr(error->message, "line 7: BIOS on a gpt disk (line 6) needs a "
						"biosboot partition"));
	g_clear_error(&error);
	for (guint i = 0; i < G_N_ELEMENTS(good); i++) {
		g_autoptr(GntKickstart) ks = prepare(good[i], &bios, &error);

		g_assert_no_error(error);
		g_assert_nonnull(ks);
	}
	/* the same layouts under UEFI: only reqpart's gives an ESP */
	g_assert_null(prepare(biosboot, &uefi, &error));
	g_assert_nonnull(strstr(error->message, "UEFI needs a /boot/efi partition"));
	g_clear_error(&error);
	{
		g_autoptr(GntKickstart) ks = prepare(reqpart, &uefi, &error);

		g_assert_no_error(error);
		g_assert_nonnull(ks);
	}
}

/* An error about the rendered file never shows the token. */
static void
test_prepare_error_redacted(void)
{
	g_autoptr(GError) error = NULL;
	GntKickstartTarget target = make_target(GNT_KICKSTART_FAMILY_RHEL, 9);
	g_autoptr(GntKickstart)
		ks = prepare(GOOD "part /x --fstype={{ agent_token }} --size=1\n", &target, &error);

	g_assert_null(ks);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_null(strstr(error->message, TOKEN));
	g_assert_nonnull(strstr(error->message, "line 10: filesystem type '<redacted>' is not"));
}

/* The seed's sample template (Ironic's spec): refused for RHEL 9 by
 * Gantry's own checks for the reasons ksvalidator gives. */
static void
test_seed_sample(void)
{
	const gchar *seed =
		"lang en_US\nkeyboard us\ntimezone America/Los_Angeles --isUtc\n"
		"#platform x86, AMD64, or Intel EM64T\ntext\ninstall\ncmdline\n"
		"reboot\nselinux --enforcing\nfirewall --enabled\nfirstboot --disabled\n"
		"auth --passalgo=sha512 --useshadow\n"
		"bootloader --location=mbr --append=\"rhgb quiet crashkernel=auto\"\n"
		"zerombr\nclearpart --all --initlabel\nautopart\n";
	g_autoptr(GError) error = NULL;
	GntKickstartTarget target = make_target(GNT_KICKSTART_FAMILY_RHEL, 9);
	g_autoptr(GntKickstart) ks = prepare(seed, &target, &error);

	g_assert_null(ks);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_nonnull(strstr(error->message, "line 6: 'install' is refused for RHEL9: it was "
						"removed"));
	g_assert_nonnull(strstr(error->message, "line 12: 'auth' is refused for RHEL9: it was "
						"removed: use authselect"));
	/* RHEL 7 still had both */
	g_clear_error(&error);
	target = make_target(GNT_KICKSTART_FAMILY_RHEL, 7);
	ks = prepare(seed, &target, &error);
	g_assert_no_error(error);
	g_assert_nonnull(ks);
}

/* %traceback is the template's own in RHEL 8: accepted there. */
static void
test_traceback_rhel8(void)
{
	g_autoptr(GError) error = NULL;
	GntKickstartTarget target = make_target(GNT_KICKSTART_FAMILY_RHEL, 8);
	g_autoptr(GntKickstart) ks = prepare(GOOD "%traceback\necho\n%end\n", &target, &error);

	g_assert_no_error(error);
	g_assert_nonnull(ks);
}

static void
test_liveimg_url(void)
{
	struct {
		const gchar *location;
		gboolean tarball;
		const gchar *ext;
	} cases[] = {
		{"http://i/rocky.tar.gz", TRUE, ".tar.gz"},
		{"/srv/i/rocky.tar.xz", FALSE, ".tar.xz"},
		{"http://i/rocky.tgz", FALSE, ".tgz"},
		{"http://i/rocky.qcow2", FALSE, ".img"},
		{"http://i/rootfs", TRUE, ".tar"},
		{NULL, FALSE, ".img"},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree gchar *url =
			gnt_kickstart_liveimg_url(cases[i].location, cases[i].tarball);
		g_autofree gchar *expected =
			g_strconcat(GNT_KICKSTART_METAD_INSTALL "/image", cases[i].ext, NULL);

		g_assert_cmpstr(url, ==, expected);
	}
}

static void
test_releases(void)
{
	g_autoptr(GError) error = NULL;
	GntKickstartRelease release;
	g_autofree gchar *syntax = NULL;

	g_assert_true(gnt_kickstart_release_parse("AlmaLinux", "9.4", &release, &error));
	syntax = gnt_kickstart_release_get_syntax(&release);
	g_assert_cmpstr(syntax, ==, "RHEL9");
	g_free(g_steal_pointer(&syntax));
	g_assert_true(gnt_kickstart_release_parse("fedora", "40", &release, &error));
	syntax = gnt_kickstart_release_get_syntax(&release);
	g_assert_cmpstr(syntax, ==, "F40");
	g_assert_false(gnt_kickstart_release_parse("Debian", "12", &release, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_clear_error(&error);
	g_assert_false(gnt_kickstart_release_parse("RHEL", "nine", &release, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_clear_error(&error);
	g_assert_false(gnt_kickstart_release_parse("RHEL", "6", &release, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
}

/* ---- sources ------------------------------------------------------------- */

static void
test_source_choose(void)
{
	g_autoptr(JsonObject) image = json_object_new();
	JsonObject *props = json_object_new();
	GntKickstartOrigin origin;

	json_object_set_string_member(props, "ks_template", "https://img/ks.cfg");
	json_object_set_object_member(image, "properties", props);
	g_assert_cmpstr(gnt_kickstart_source_choose("file:///k/a.ks", image, "https://c/ks",
						    &origin),
			==, "file:///k/a.ks");
	g_assert_cmpint(origin, ==, GNT_KICKSTART_FROM_INSTANCE);
	g_assert_cmpstr(gnt_kickstart_source_choose("", image, "https://c/ks", &origin), ==,
			"https://img/ks.cfg");
	g_assert_cmpint(origin, ==, GNT_KICKSTART_FROM_IMAGE);
	g_assert_cmpstr(gnt_kickstart_source_choose(NULL, NULL, "https://c/ks", &origin), ==,
			"https://c/ks");
	g_assert_cmpint(origin, ==, GNT_KICKSTART_FROM_CLUSTER);
	g_assert_cmpstr(gnt_kickstart_source_choose(NULL, NULL, "", &origin), ==, "default");
	g_assert_cmpint(origin, ==, GNT_KICKSTART_FROM_BUILTIN);
}

static void
assert_fetch_fails(const gchar *source, const gchar *dir, GTlsDatabase *db, gint code,
		   const gchar *expected)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GBytes) got = gnt_kickstart_source_fetch(source, dir, db, &error);

	g_assert_null(got);
	g_assert_error(error, GNT_ERROR, code);
	if (strstr(error->message, expected) == NULL)
		g_error("expected '%s' in: %s", expected, error->message);
}

static void
test_source_file(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *root = g_dir_make_tmp("gnt-ks-XXXXXX", &error);
	g_autofree gchar *dir = g_build_filename(root, "kickstart", NULL);
	g_autofree gchar *good = g_build_filename(dir, "web.ks", NULL);
	g_autofree gchar *link = g_build_filename(dir, "escape.ks", NULL);
	g_autofree gchar *outside = g_build_filename(root, "outside.ks", NULL);
	g_autofree gchar *url = g_strconcat("file://", good, NULL);
	g_autofree gchar *link_url = g_strconcat("file://", link, NULL);
	g_autofree gchar *dotdot = g_strconcat("file://", dir, "/../outside.ks", NULL);
	g_autoptr(GBytes) got = NULL;

	g_assert_no_error(error);
	g_assert_cmpint(g_mkdir(dir, 0700), ==, 0);
	g_assert_true(g_file_set_contents(good, "text\n", -1, &error));
	g_assert_true(g_file_set_contents(outside, "secret\n", -1, &error));
	g_assert_cmpint(symlink(outside, link), ==, 0);
	got = gnt_kickstart_source_fetch(url, dir, NULL, &error);
	g_assert_no_error(error);
	g_assert_cmpmem(g_bytes_get_data(got, NULL), g_bytes_get_size(got), "text\n", 5);
	assert_fetch_fails("file:///etc/shadow", dir, NULL, GNT_ERROR_INVALID,
			   "'/etc/shadow' is not under the kickstart directory");
	assert_fetch_fails("file://../..", dir, NULL, GNT_ERROR_INVALID,
			   "file:// takes an absolute path");
	assert_fetch_fails(dotdot, dir, NULL, GNT_ERROR_INVALID, "is not under the kickstart");
	assert_fetch_fails(link_url, dir, NULL, GNT_ERROR_INVALID, "is not under the kickstart");
	assert_fetch_fails("ftp://host/ks.cfg", dir, NULL, GNT_ERROR_INVALID,
			   "neither file:///PATH, an http(s) URL");
	assert_fetch_fails("https://user:pw@host/ks.cfg", dir, NULL, GNT_ERROR_INVALID,
			   "must not hold credentials");
	g_unlink(link);
	g_unlink(good);
	g_unlink(outside);
	g_rmdir(dir);
	g_rmdir(root);
}

static void
test_source_http(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(ImageServer) server = image_server_new(NULL);
	g_autoptr(GBytes) body = g_bytes_new_static("text\n", 5);
	g_autoptr(GBytes) big = image_test_pattern(GNT_KICKSTART_MAX_BYTES + 1, 3);
	g_autofree gchar *url = NULL;
	g_autofree gchar *big_url = NULL;
	g_autofree gchar *missing = NULL;
	g_autoptr(GBytes) got = NULL;

	image_server_add(server, "/ks.cfg", 200, body, 0);
	image_server_add(server, "/big.cfg", 200, big, 0);
	url = g_strconcat(image_server_get_base(server), "/ks.cfg", NULL);
	big_url = g_strconcat(image_server_get_base(server), "/big.cfg", NULL);
	missing = g_strconcat(image_server_get_base(server), "/nope.cfg", NULL);
	got = gnt_kickstart_source_fetch(url, "/nonexistent", NULL, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(g_bytes_get_size(got), ==, 5);
	/* fetched again every time: a reinstall sees the template as it is now */
	g_bytes_unref(gnt_kickstart_source_fetch(url, "/nonexistent", NULL, &error));
	g_assert_no_error(error);
	g_assert_cmpuint(image_server_get_n_requests(server), ==, 2);
	assert_fetch_fails(big_url, "/nonexistent", NULL, GNT_ERROR_INVALID, "larger than");
	assert_fetch_fails(missing, "/nonexistent", NULL, GNT_ERROR_NOT_FOUND, "404");
}

static void
test_source_https_unknown_ca(void)
{
	g_autoptr(ImageServer) server = image_server_new_unknown_ca();
	g_autoptr(GBytes) body = g_bytes_new_static("text\n", 5);
	g_autofree gchar *url = NULL;

	image_server_add(server, "/ks.cfg", 200, body, 0);
	url = g_strconcat(image_server_get_base(server), "/ks.cfg", NULL);
	/* the system's CAs do not know the test's CA */
	assert_fetch_fails(url, "/nonexistent", NULL, GNT_ERROR_ENVIRONMENT, "TLS failure");
}

/* The shipped default passes Gantry's checks for BIOS and UEFI. */
static void
test_default_template(void)
{
	for (guint major = 8; major <= 10; major++) {
		for (guint fw = 0; fw < 2; fw++) {
			g_autoptr(GError) error = NULL;
			GntKickstartTarget target = make_target(GNT_KICKSTART_FAMILY_RHEL, major);
			GntKickstartRequest request = {.target = target};
			g_autoptr(GntKickstart) ks = NULL;

			request.target.firmware = fw;
			request.template = gnt_kickstart_source_get_default();
			kickstart_test_set_values(&request, TOKEN);
			ks = gnt_kickstart_prepare(&request, &error);
			g_bytes_unref(request.template);
			g_assert_no_error(error);
			g_assert_nonnull(strstr(ks->text->str, "network --bootproto=dhcp "
							       "--device=link --activate "
							       "--hostname=web1\n"));
		}
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/install/kickstart/render/good", test_render_good);
	g_test_add_func("/install/kickstart/render/refused", test_render_refused);
	g_test_add_func("/install/kickstart/render/input-limits", test_render_input_limits);
	g_test_add_func("/install/kickstart/additions", test_additions);
	g_test_add_func("/install/kickstart/additions/traceback", test_additions_traceback);
	g_test_add_func("/install/kickstart/additions/refused", test_additions_refused);
	g_test_add_func("/install/kickstart/additions/own-reports", test_additions_own_reports);
	g_test_add_func("/install/kickstart/prepare/good", test_prepare_good);
	g_test_add_func("/install/kickstart/prepare/adversarial", test_adversarial);
	g_test_add_func("/install/kickstart/prepare/seed-sample", test_seed_sample);
	g_test_add_func("/install/kickstart/prepare/firmware", test_prepare_firmware);
	g_test_add_func("/install/kickstart/prepare/error-redacted", test_prepare_error_redacted);
	g_test_add_func("/install/kickstart/prepare/traceback-rhel8", test_traceback_rhel8);
	g_test_add_func("/install/kickstart/prepare/default-template", test_default_template);
	g_test_add_func("/install/kickstart/releases", test_releases);
	g_test_add_func("/install/kickstart/liveimg-url", test_liveimg_url);
	g_test_add_func("/install/kickstart/source/choose", test_source_choose);
	g_test_add_func("/install/kickstart/source/file", test_source_file);
	g_test_add_func("/install/kickstart/source/http", test_source_http);
	g_test_add_func("/install/kickstart/source/https-unknown-ca", test_source_https_unknown_ca);
	return g_test_run();
}
