/*
 * Issue 6's settings as an operator sets them, on a one-node cluster
 * (gnt-cluster init: noded, metad, masterd) on a temporary root, the fake
 * hypervisor and the test OSes of tests/data/os-defs: safe install, the
 * install timeout and the cluster's ssh keys (gnt-cluster init/modify/info),
 * trusted OSes (gnt-os modify/info/list), the refusals of installs that
 * cannot run anywhere (nothing changed after them), and an instance's
 * metadata (-C, --user-data, --ssh-key, --os-package) pushed to metad and
 * read through the instance's own socket with curl, then gone with it.
 */
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "image-test-server.h"
#include "tools-test.h"

typedef struct {
	gchar *root;
	gchar *keys;	  /* an authorized_keys file */
	gchar *user_data; /* a user data file */
} OptFx;

#define CLUSTER(fx, ...)  RUN(fx, "GNT_TEST_GNT_CLUSTER", __VA_ARGS__)
#define INSTANCE(fx, ...) RUN(fx, "GNT_TEST_GNT_INSTANCE", __VA_ARGS__)
#define OS(fx, ...)	  RUN(fx, "GNT_TEST_GNT_OS", __VA_ARGS__)
#define IMAGE(fx, ...)	  RUN(fx, "GNT_TEST_GNT_IMAGE", __VA_ARGS__)
/* a catalog image's checksum: a dry run downloads nothing */
#define SHA256_OF_NOTHING "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define DAEMONS(fx, ...)  RUN(fx, "GNT_TEST_GANTRY_DAEMONS", __VA_ARGS__)

#define KEY_ALICE "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAliceAliceAliceAlice alice@example.com"
#define KEY_BOB	  "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQBobBobBob bob@example.com"
#define USER_DATA "#cloud-config\nhostname: web1\n"

static gchar *
write_file(OptFx *fx, const gchar *name, const gchar *text)
{
	g_autoptr(GError) error = NULL;
	gchar *path = g_build_filename(fx->root, name, NULL);

	g_file_set_contents(path, text, -1, &error);
	g_assert_no_error(error);
	return path;
}

/* @data: "safe-off" inits the cluster with --enable-safe-install no */
static void
fx_set_up(OptFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(Run) init = NULL;
	const gchar *safe = g_strcmp0(data, "safe-off") == 0 ? "no" : "yes";

	fx->root = g_dir_make_tmp("gtio-XXXXXX", &error);
	g_assert_no_error(error);
	fx->keys = write_file(fx, "keys.pub", "# the operators\n" KEY_ALICE "\n\n" KEY_BOB "\n");
	fx->user_data = write_file(fx, "user-data", USER_DATA);
	init = CLUSTER(fx, "init", "--noded-port", "0", "--os-search-path",
		       g_getenv("GNT_TEST_OS_DIR"), "--enable-safe-install", safe,
		       "test.example.com");
	expect(init, 0, NULL);
}

static void
fx_tear_down(OptFx *fx, gconstpointer data)
{
	g_autoptr(Run) stop = DAEMONS(fx, "stop");
	g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", fx->root);

	expect(stop, 0, NULL);
	g_assert_cmpint(system(cmd), ==, 0);
	g_free(fx->root);
	g_free(fx->keys);
	g_free(fx->user_data);
}

static void
test_cluster_settings(OptFx *fx, gconstpointer data)
{
	g_autoptr(Run) info = CLUSTER(fx, "info");
	g_autoptr(Run) modify = NULL;
	g_autoptr(Run) info2 = NULL;
	g_autoptr(Run) bad = NULL;
	g_autoptr(Run) bad_timeout = NULL;
	g_autoptr(Run) bad_keys = NULL;
	g_autoptr(Run) no_keys = NULL;
	g_autoptr(Run) info3 = NULL;
	g_autoptr(Run) daemons = DAEMONS(fx, "status");
	g_autofree gchar *empty_keys = NULL;

	/* the defaults, and metad running with the other daemons */
	expect(info, 0, NULL);
	gnt_test_assert_contains(info->out, "  safe install: True\n");
	gnt_test_assert_contains(info->out, "  install timeout: 1800\n");
	gnt_test_assert_contains(info->out, "  trusted OSes: (none)\n");
	gnt_test_assert_contains(info->out, "  default ssh keys: (none)\n");
	expect_has(daemons, 0, "gantry-metad: running (pid ");

	modify = CLUSTER(fx, "modify", "--enable-safe-install", "no", "--install-timeout", "600",
			 "--ssh-key", fx->keys);
	expect(modify, 0, NULL);
	info2 = CLUSTER(fx, "info");
	gnt_test_assert_contains(info2->out, "  safe install: False\n");
	gnt_test_assert_contains(info2->out, "  install timeout: 600\n");
	gnt_test_assert_contains(info2->out,
				 "  default ssh keys: alice@example.com, bob@example.com\n");

	bad = CLUSTER(fx, "modify", "--enable-safe-install", "maybe");
	expect_has(bad, 1, "--enable-safe-install takes yes or no, not 'maybe'");
	bad_timeout = CLUSTER(fx, "modify", "--install-timeout", "0");
	expect_has(bad_timeout, 1, "'install_timeout' must be at least 1, not 0");
	empty_keys = write_file(fx, "empty.pub", "# no key yet\n\n");
	bad_keys = CLUSTER(fx, "modify", "--ssh-key", empty_keys);
	expect_has(bad_keys, 1, "holds no key");
	no_keys = CLUSTER(fx, "modify", "--no-ssh-keys");
	expect(no_keys, 0, NULL);
	info3 = CLUSTER(fx, "info");
	gnt_test_assert_contains(info3->out, "  default ssh keys: (none)\n");
	gnt_test_assert_contains(info3->out, "  install timeout: 600\n");
}

static void
test_os_trusted(OptFx *fx, gconstpointer data)
{
	g_autoptr(Run) before = OS(fx, "info", "sample");
	g_autoptr(Run) untrusted = OS(fx, "info", "untrusted");
	g_autoptr(Run) mark = OS(fx, "modify", "--trusted", "yes", "sample+default");
	g_autoptr(Run) after = NULL;
	g_autoptr(Run) list = NULL;
	g_autoptr(Run) plain_list = NULL;
	g_autoptr(Run) cluster = NULL;
	g_autoptr(Run) unmark = NULL;
	g_autoptr(Run) again = NULL;
	g_autoptr(Run) bad = NULL;
	g_autoptr(Run) nothing = NULL;

	expect_has(before, 0, "  - trusted: False\n  - untrusted scripts:\n\n");
	expect_has(untrusted, 0,
		   "  - trusted: False\n  - untrusted scripts:\n    - create_untrusted\n");
	expect(mark, 0, NULL);
	after = OS(fx, "info", "sample");
	expect_has(after, 0, "  - trusted: True\n");
	list = OS(fx, "list", "--show-trusted", "--no-headers", "--separator=|");
	expect_has(list, 0, "sample+default|Y\n");
	gnt_test_assert_contains(list->out, "api10|N\n");
	plain_list = OS(fx, "list", "--no-headers");
	expect_has(plain_list, 0, "sample+default\n");
	gnt_test_assert_lacks(plain_list->out, "|");
	cluster = CLUSTER(fx, "info");
	gnt_test_assert_contains(cluster->out, "  trusted OSes: sample\n");

	unmark = OS(fx, "modify", "--trusted", "no", "sample");
	expect(unmark, 0, NULL);
	again = OS(fx, "info", "sample");
	expect_has(again, 0, "  - trusted: False\n");
	bad = OS(fx, "modify", "--trusted", "perhaps", "sample");
	expect_has(bad, 1, "--trusted takes yes or no, not 'perhaps'");
	nothing = OS(fx, "modify", "sample");
	expect_has(nothing, 1, "At least one of");
}

/* Nothing of a refused add is left: no instance, no disk. */
static void
assert_nothing_made(OptFx *fx)
{
	g_autoptr(Run) list = INSTANCE(fx, "list", "--no-headers", "-o", "name");
	g_autofree gchar *storage =
		g_build_filename(fx->root, "srv", "gantry", "file-storage", NULL);
	g_autoptr(GDir) dir = g_dir_open(storage, 0, NULL);

	expect(list, 0, "");
	g_assert_true(dir == NULL || g_dir_read_name(dir) == NULL);
}

#define ADD_ARGS "add", "-t", "file", "--disk", "0:size=8M", "-H", "fake", "--no-start"

/* Kickstart (doc/kickstart.md) from the command line: the cluster's
 * settings, and add's options reaching the master, which refuses before
 * anything is made (a catalog image: /install-options/print-kickstart). */
static void
test_kickstart(OptFx *fx, gconstpointer data)
{
	g_autoptr(Run) modify = CLUSTER(fx, "modify", "--kickstart-dir", "/srv/ks",
					"--default-ks-template", "https://ks.example.com/d.ks",
					"--ksvalidator", "/usr/local/bin/ksvalidator");
	g_autoptr(Run) info = CLUSTER(fx, "info");
	g_autoptr(Run) help = INSTANCE(fx, "add", "--help");
	g_autoptr(Run) nothing = INSTANCE(fx, ADD_ARGS, "-o", "api10", "--enable-safe-install",
					  "yes", "--dry-run", "--print-kickstart", "inst1");
	g_autoptr(Run) no_image = INSTANCE(fx, ADD_ARGS, "--os-image", "http://i.example.com/r.tgz",
					   "--ks-template", "file:///srv/ks/web.ks", "inst1");
	g_autoptr(Run) bad = INSTANCE(fx, ADD_ARGS, "--os-image", "http://i.example.com/r.tgz",
				      "--ks-template", "ftp://x/ks", "inst1");

	g_autoptr(Run) shadow = NULL;
	g_autoptr(Run) info_after = NULL;

	expect(modify, 0, NULL);
	/* the settings table's check (config/gnt-cluster-settings.c): refused,
	 * naming the setting, and nothing changed */
	shadow = CLUSTER(fx, "modify", "--default-ks-template", "file:///etc/shadow");
	expect_has(shadow, 1,
		   "setting 'default_ks_template' (--default-ks-template): kickstart template "
		   "'file:///etc/shadow' is not under the cluster's kickstart directory '/srv/ks'");
	info_after = CLUSTER(fx, "info");
	expect(info_after, 0, info->out);
	gnt_test_assert_contains(info->out, "  kickstart directory: /srv/ks\n");
	gnt_test_assert_contains(info->out,
				 "  default kickstart template: https://ks.example.com/d.ks\n");
	gnt_test_assert_contains(info->out, "  ksvalidator: /usr/local/bin/ksvalidator\n");
	/* the help texts are the opcode table's */
	gnt_test_assert_contains(help->out, "--ks-template=SOURCE");
	gnt_test_assert_contains(help->out,
				 "Show the rendered kickstart file (its token redacted)");
	expect_has(nothing, 1, "instance 'inst1' has no kickstart install to print");
	expect_has(no_image, 1, "a kickstart install needs a catalog image with os_distro");
	expect_has(bad, 1, "kickstart template 'ftp://x/ks' is neither file:///PATH");
	assert_nothing_made(fx);
}

/* A RHEL 9 template under the cluster's kickstart directory: what Gantry
 * adds (liveimg, the reports with the token) comes on top. */
#define RHEL9_KS                                                                                   \
	"text\nlang en_US.UTF-8\nkeyboard us\ntimezone Etc/UTC --utc\nrootpw --lock\n"             \
	"network --bootproto=dhcp --hostname={{ hostname }}\nzerombr\nclearpart --all "            \
	"--initlabel\nreqpart --add-boot\npart / --fstype=xfs --size=1024 --grow\n"                \
	"%post\necho {{ instance_name }} > /etc/gantry-instance\n%end\n"

/* gnt-instance add --dry-run --print-kickstart with a catalog image (RHEL
 * 9, its ks_template a file:// under the kickstart directory): the job log
 * shows the rendered file with the token redacted and the vendored
 * ksvalidator's verdict, and nothing is made; a template only ksvalidator
 * faults is refused with its words. */
static void
test_print_kickstart(OptFx *fx, gconstpointer data)
{
	const gchar *ksvalidator = g_getenv("GNT_TEST_KSVALIDATOR");
	g_autofree gchar *dir = g_build_filename(fx->root, "etc", "gantry", "kickstart", NULL);
	g_autofree gchar *ks = g_build_filename(dir, "rhel9.ks", NULL);
	g_autofree gchar *bad_ks = g_build_filename(dir, "bad.ks", NULL);
	g_autofree gchar *ks_uri = g_strconcat("file://", ks, NULL);
	g_autofree gchar *bad_uri = g_strconcat("file://", bad_ks, NULL);
	g_autofree gchar *origin =
		g_strdup_printf("kickstart: template '%s' (the image's)", ks_uri);
	g_autoptr(GError) error = NULL;
	g_autoptr(Run) validator = NULL;
	g_autoptr(Run) image = NULL;
	g_autoptr(Run) bad_image = NULL;
	g_autoptr(Run) shown = NULL;
	g_autoptr(Run) refused = NULL;
	g_autoptr(Run) jobs = NULL;
	g_auto(GStrv) reports = NULL;
	g_auto(GStrv) redacted = NULL;

	/* CI has the vendored copy (tests/install/meson.build): it must run */
	g_assert_nonnull(ksvalidator);
	g_assert_cmpstr(ksvalidator, !=, "");
	g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
	g_file_set_contents(ks, RHEL9_KS, -1, &error);
	g_assert_no_error(error);
	/* an option no command has: Gantry's checks leave that to ksvalidator */
	g_file_set_contents(bad_ks, "firstboot --bogus\n" RHEL9_KS, -1, &error);
	g_assert_no_error(error);
	validator = CLUSTER(fx, "modify", "--ksvalidator", ksvalidator);
	expect(validator, 0, NULL);
	image = IMAGE(fx, "add", "--url", "https://images.example.com/rhel9.raw", "--format", "raw",
		      "--sha256", SHA256_OF_NOTHING, "--os-distro", "RHEL", "--os-version", "9.4",
		      "--ks-template", ks_uri, "rhel9");
	expect(image, 0, NULL);
	bad_image = IMAGE(fx, "add", "--url", "https://images.example.com/rhel9.raw", "--format",
			  "raw", "--sha256", SHA256_OF_NOTHING, "--os-distro", "RHEL",
			  "--os-version", "9.4", "--ks-template", bad_uri, "rhel9-bad");
	expect(bad_image, 0, NULL);

	shown = INSTANCE(fx, "add", "-t", "file", "--disk", "0:size=4G", "-H", "fake", "--no-start",
			 "--os-image", "rhel9", "--dry-run", "--print-kickstart",
			 "web1.example.com");
	expect(shown, 0, NULL);
	g_test_message("%s", shown->out);
	gnt_test_assert_contains(shown->out, origin);
	gnt_test_assert_contains(shown->out,
				 "kickstart: Gantry's checks and ksvalidator -v RHEL9 passed");
	/* rendered: the template's lines with their values, Gantry's additions */
	gnt_test_assert_contains(shown->out, "network --bootproto=dhcp --hostname=web1\n");
	gnt_test_assert_contains(shown->out, "echo web1.example.com > /etc/gantry-instance\n");
	gnt_test_assert_contains(shown->out, "liveimg --url=");
	gnt_test_assert_contains(shown->out, "%post --nochroot");
	gnt_test_assert_lacks(shown->out, "{{");
	gnt_test_assert_lacks(shown->out, "%traceback");
	/* the three reports (start, error, end) carry the token, never shown */
	reports = g_strsplit(shown->out, "\"agent_token\": \"", -1);
	redacted = g_strsplit(shown->out, "\"agent_token\": \"<redacted>\"", -1);
	g_assert_cmpuint(g_strv_length(reports), ==, 4);
	g_assert_cmpuint(g_strv_length(redacted), ==, 4);
	assert_nothing_made(fx);

	refused = INSTANCE(fx, "add", "-t", "file", "--disk", "0:size=4G", "-H", "fake",
			   "--no-start", "--os-image", "rhel9-bad", "--dry-run",
			   "--print-kickstart", "web2.example.com");
	g_test_message("%s", refused->err);
	expect_has(refused, 1, "ksvalidator");
	gnt_test_assert_contains(refused->err, "--bogus");
	assert_nothing_made(fx);
	/* the dry run succeeded and the refusal failed, nothing else ran */
	jobs = RUN(fx, "GNT_TEST_GNT_JOB", "list", "--no-headers", "-o", "summary,status");
	expect(jobs, 0,
	       "CLUSTER_SET_PARAMS                success\n"
	       "IMAGE_ADD(rhel9)                  success\n"
	       "IMAGE_ADD(rhel9-bad)              success\n"
	       "INSTANCE_CREATE(web1.example.com) success\n"
	       "INSTANCE_CREATE(web2.example.com) error\n");
}

static void
test_refusals(OptFx *fx, gconstpointer data)
{
	g_autoptr(Run) untrusted = INSTANCE(fx, ADD_ARGS, "-o", "sample+default", "inst1");
	g_autoptr(Run) mark = NULL;
	g_autoptr(Run) only_untrusted = NULL;
	g_autoptr(Run) bad_url = NULL;
	g_autoptr(Run) bad_suffix = NULL;
	g_autoptr(Run) public_password = NULL;
	g_autoptr(Run) big = NULL;
	g_autoptr(Run) ok = NULL;
	g_autoptr(Run) safe = NULL;
	g_autoptr(Run) reinstall = NULL;
	g_autofree gchar *huge = NULL;
	g_autofree gchar *huge_file = NULL;

	/* safe install off, the OS not trusted */
	expect_has(untrusted, 1,
		   "OS 'sample' is not trusted: it can only be installed inside the install "
		   "appliance; mark it trusted with 'gnt-os modify --trusted yes sample' or leave "
		   "safe install on");
	assert_nothing_made(fx);
	mark = OS(fx, "modify", "--trusted", "yes", "untrusted");
	expect(mark, 0, NULL);
	only_untrusted = INSTANCE(fx, ADD_ARGS, "-o", "untrusted", "inst1");
	expect_has(
		only_untrusted, 1,
		"OS 'untrusted' has only an untrusted create script ('create_untrusted'): it can "
		"only be installed inside the install appliance; leave safe install on");
	assert_nothing_made(fx);

	/* the personalization package and user data, checked first */
	bad_url = INSTANCE(fx, ADD_ARGS, "-o", "untrusted", "--os-package", "ftp://x/p.tar.gz",
			   "--enable-safe-install", "yes", "inst1");
	expect_has(bad_url, 1,
		   "OS parameter 'os-package' must be an http(s) URL of a .tar.gz or .tgz file, "
		   "not 'ftp://x/p.tar.gz'");
	bad_suffix = INSTANCE(fx, ADD_ARGS, "-o", "untrusted", "-O",
			      "os-package=https://example.com/p.zip", "--enable-safe-install",
			      "yes", "inst1");
	expect_has(bad_suffix, 1, "not 'https://example.com/p.zip'");
	public_password = INSTANCE(fx, ADD_ARGS, "-o", "untrusted", "-O", "os-package-password=x",
				   "--enable-safe-install", "yes", "inst1");
	expect_has(public_password, 1,
		   "OS parameter 'os-package-password' can only be a secret one "
		   "(--os-parameters-secret): it is never stored");
	huge = g_strnfill(64 * 1024 + 1, 'x');
	huge_file = write_file(fx, "huge", huge);
	big = INSTANCE(fx, ADD_ARGS, "-o", "untrusted", "--user-data", huge_file, "inst1");
	expect_has(big, 1, "is 65537 bytes: at most 65536 (64 KiB)");
	assert_nothing_made(fx);

	/* an instance's safe install over the cluster's: accepted for an OS
	 * not trusted (the appliance is chosen; the install steps still run
	 * the scripts on the node until the appliance is wired in) */
	safe = INSTANCE(fx, ADD_ARGS, "-o", "api10", "--enable-safe-install", "yes", "inst1");
	expect(safe, 0, NULL);
	/* without it the cluster's (off) refuses, until the OS is trusted */
	ok = INSTANCE(fx, ADD_ARGS, "-o", "api10", "inst2");
	expect_has(ok, 1, "OS 'api10' is not trusted");
	{
		g_autoptr(Run) trust = OS(fx, "modify", "--trusted", "yes", "api10");
		g_autoptr(Run) added = INSTANCE(fx, ADD_ARGS, "-o", "api10", "inst2");

		expect(trust, 0, NULL);
		expect(added, 0, NULL);
	}
	/* a reinstall is refused the same way */
	reinstall = INSTANCE(fx, "reinstall", "-f", "-o", "sample+default", "inst2");
	expect_has(reinstall, 1, "OS 'sample' is not trusted");
}

/* GETs @path through the instance's own metad socket; the body, or NULL
 * for a failed request (curl -f). (transfer full) */
static gchar *
metad_get(OptFx *fx, const gchar *instance, const gchar *path)
{
	g_autofree gchar *socket =
		g_strdup_printf("%s/run/gantry/metad/%s.sock", fx->root, instance);
	g_autofree gchar *url = g_strconcat("http://metad", path, NULL);
	const gchar *argv[] = {"curl", "-sf", "--unix-socket", socket, url, NULL};
	g_autofree gchar *out = NULL;
	gint status = 0;

	if (!g_spawn_sync(NULL, (gchar **)argv, NULL,
			  G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL,
			  &status, NULL) ||
	    !g_spawn_check_wait_status(status, NULL))
		return NULL;
	return g_steal_pointer(&out);
}

static gboolean
have_curl(void)
{
	g_autofree gchar *curl = g_find_program_in_path("curl");

	if (curl != NULL)
		return TRUE;
	g_test_skip("no curl");
	return FALSE;
}

static void
test_metadata(OptFx *fx, gconstpointer data)
{
	const gchar *name = "web1.example.com";
	g_autoptr(Run) add = NULL;
	g_autoptr(Run) info = NULL;
	g_autoptr(Run) uuid = NULL;
	g_autoptr(Run) modify = NULL;
	g_autoptr(Run) off = NULL;
	g_autoptr(Run) on = NULL;
	g_autoptr(Run) removed = NULL;
	g_autoptr(Run) shutdown = NULL;
	g_autoptr(Run) renamed = NULL;
	g_autofree gchar *old_name = NULL;
	g_autofree gchar *new_name = NULL;
	g_autofree gchar *meta = NULL;
	g_autofree gchar *user_data = NULL;
	g_autofree gchar *key = NULL;
	g_autofree gchar *keys = NULL;
	g_autofree gchar *ganeti = NULL;
	g_autofree gchar *new_data = NULL;
	g_autofree gchar *gone = NULL;
	g_autofree gchar *back = NULL;
	g_autofree gchar *after = NULL;
	g_autofree gchar *new_file = write_file(fx, "user-data-2", "#!/bin/sh\necho hi\n");

	if (!have_curl())
		return;
	add = INSTANCE(fx, "add", "-t", "file", "--disk", "0:size=8M", "-H", "fake", "-o",
		       "sample+default", "-C", "yes", "--user-data", fx->user_data, "--ssh-key",
		       fx->keys, "--os-package", "https://example.com/site.tgz",
		       /* nothing to install: the package's URL is only recorded */
		       "--no-install", name);
	expect(add, 0, NULL);
	gnt_test_assert_contains(
		add->out, "* metadata of instance web1.example.com given to gantry-metad on node");
	info = INSTANCE(fx, "info", name);
	expect(info, 0, NULL);
	gnt_test_assert_contains(info->out,
				 "  Metadata: \n    communication: yes, address 169.254.");
	gnt_test_assert_contains(info->out, "    user data: 29 bytes\n");
	gnt_test_assert_contains(info->out, "    ssh keys: 2\n");
	gnt_test_assert_contains(info->out, "    OS package: https://example.com/site.tgz\n");
	uuid = INSTANCE(fx, "list", "--no-headers", "-o", "uuid", name);
	expect(uuid, 0, NULL);
	g_strstrip(uuid->out);

	/* what cloud-init's crawlers would read, through the instance's socket */
	meta = metad_get(fx, name, "/openstack/latest/meta_data.json");
	g_assert_nonnull(meta);
	gnt_test_assert_contains(meta, uuid->out);
	gnt_test_assert_contains(meta, "\"alice@example.com\"");
	user_data = metad_get(fx, name, "/openstack/latest/user_data");
	g_assert_cmpstr(user_data, ==, USER_DATA);
	keys = metad_get(fx, name, "/latest/meta-data/public-keys/");
	g_assert_cmpstr(keys, ==, "0=alice@example.com\n1=bob@example.com");
	key = metad_get(fx, name, "/latest/meta-data/public-keys/1/openssh-key");
	g_assert_cmpstr(key, ==, KEY_BOB);
	ganeti = metad_get(fx, name, "/ganeti/latest/os/parameters.json");
	g_assert_cmpstr(ganeti, ==,
			"{\"os-package\":[\"https://example.com/site.tgz\",\"public\"]}");

	/* modify pushes again */
	modify = INSTANCE(fx, "modify", "--user-data", new_file, name);
	expect(modify, 0, NULL);
	new_data = metad_get(fx, name, "/latest/user-data");
	g_assert_cmpstr(new_data, ==, "#!/bin/sh\necho hi\n");

	/* the channel off: metad forgets it; on: back */
	off = INSTANCE(fx, "modify", "-C", "no", name);
	expect(off, 0, NULL);
	gone = metad_get(fx, name, "/latest/meta-data/instance-id");
	g_assert_null(gone);
	on = INSTANCE(fx, "modify", "--communication", "yes", name);
	expect(on, 0, NULL);
	back = metad_get(fx, name, "/latest/meta-data/instance-id");
	g_assert_cmpstr(back, ==, uuid->out);

	/* a rename: metad forgets the old name and serves the new one */
	shutdown = INSTANCE(fx, "shutdown", name);
	expect(shutdown, 0, NULL);
	renamed = INSTANCE(fx, "rename", name, "web2.example.com");
	expect(renamed, 0, NULL);
	old_name = metad_get(fx, name, "/latest/meta-data/instance-id");
	g_assert_null(old_name);
	new_name = metad_get(fx, "web2.example.com", "/latest/meta-data/hostname");
	g_assert_cmpstr(new_name, ==, "web2.example.com");

	removed = INSTANCE(fx, "remove", "-f", "web2.example.com");
	expect(removed, 0, NULL);
	after = metad_get(fx, "web2.example.com", "/latest/meta-data/instance-id");
	g_assert_null(after);
}

/* The package's credentials are secret: never stored, so a reinstall
 * needs them again; metad never serves them. */
static void
test_package_credentials(OptFx *fx, gconstpointer data)
{
	const gchar *secrets = "os-package-username=deploy,os-package-password=hunter2";
	g_autoptr(ImageServer) server = image_server_new(NULL);
	g_autofree gchar *tree = g_build_filename(fx->root, "package", NULL);
	g_autofree gchar *etc = g_build_filename(tree, "etc", NULL);
	g_autofree gchar *motd = g_build_filename(etc, "motd", NULL);
	g_autofree gchar *tarball = g_build_filename(fx->root, "site.tar.gz", NULL);
	g_autofree gchar *url = NULL;
	const gchar *tar[] = {"tar", "-C", tree, "-czf", tarball, "etc", NULL};
	g_autoptr(Run) add = NULL;
	g_autoptr(Run) refused = NULL;
	g_autoptr(Run) again = NULL;
	g_autoptr(Run) info = NULL;
	g_autofree gchar *params = NULL;

	/* the package, served by the test: the install really fetches it (the
	 * credentials go along; the server here does not check them) and the
	 * appliance's agent unpacks it on the filesystem the OS made */
	g_assert_cmpint(g_mkdir_with_parents(etc, 0755), ==, 0);
	g_assert_true(g_file_set_contents(motd, "personalized\n", -1, NULL));
	g_assert_true(g_spawn_sync(NULL, (gchar **)tar, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL,
				   NULL, NULL, NULL));
	image_server_add_file(server, "/site.tar.gz", tarball);
	url = g_strdup_printf("%s/site.tar.gz", image_server_get_base(server));
	add = INSTANCE(fx, ADD_ARGS, "-o", "sample+default", "-C", "yes", "--os-package", url, "-O",
		       "behaviour=mkfs", "--os-parameters-secret", secrets, "pkg1");
	expect(add, 0, NULL);
	if (have_curl()) {
		params = metad_get(fx, "pkg1", "/ganeti/latest/os/parameters.json");
		g_assert_nonnull(params);
		gnt_test_assert_lacks(params, "hunter2");
		gnt_test_assert_lacks(params, "os-package-username");
	}
	info = INSTANCE(fx, "info", "pkg1");
	gnt_test_assert_lacks(info->out, "hunter2");
	refused = INSTANCE(fx, "reinstall", "-f", "pkg1");
	expect_has(refused, 1,
		   "instance 'pkg1': its personalization package needed 'os-package-username', "
		   "'os-package-password' at its last install, which are never stored: give them "
		   "again (--os-parameters-secret)");
	again = INSTANCE(fx, "reinstall", "-f", "--os-parameters-secret", secrets, "pkg1");
	expect(again, 0, NULL);
}

/* The cluster's install timeout reaches the node: an appliance whose
 * script hangs is killed after it, the job fails saying so with the tail
 * of its console, and nothing of the instance is left. */
static void
test_install_timeout(OptFx *fx, gconstpointer data)
{
	g_autoptr(Run) modify = CLUSTER(fx, "modify", "--install-timeout", "2");
	g_autoptr(Run) add = NULL;
	gint64 started;

	expect(modify, 0, NULL);
	started = g_get_monotonic_time();
	add = INSTANCE(fx, ADD_ARGS, "-o", "sample+default", "-O", "behaviour=sleep", "slow1");
	expect_has(add, 1, "install appliance timed out after 2 s; its console ended with: ");
	/* the console shows where it hung */
	gnt_test_assert_contains(add->err, "run_os_scripts start");
	g_assert_cmpint(g_get_monotonic_time() - started, <, 30 * G_USEC_PER_SEC);
	assert_nothing_made(fx);
}

/* Without -C an instance still gets its link-local address (for the
 * appliance) but metad knows nothing of it. */
static void
test_no_communication(OptFx *fx, gconstpointer data)
{
	g_autoptr(Run) add = INSTANCE(fx, ADD_ARGS, "-o", "sample+default", "quiet1");
	g_autoptr(Run) info = NULL;
	g_autofree gchar *meta = NULL;

	if (!have_curl())
		return;
	expect(add, 0, NULL);
	gnt_test_assert_lacks(add->out, "gantry-metad");
	info = INSTANCE(fx, "info", "quiet1");
	gnt_test_assert_contains(info->out, "    communication: no\n");
	gnt_test_assert_contains(info->out, "    ssh keys: 0 (the cluster's are served)\n");
	gnt_test_assert_contains(info->out, "    OS package: none\n");
	meta = metad_get(fx, "quiet1", "/latest/meta-data/instance-id");
	g_assert_null(meta);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/install-options/cluster-settings", OptFx, NULL, fx_set_up,
		   test_cluster_settings, fx_tear_down);
	g_test_add("/install-options/print-kickstart", OptFx, NULL, fx_set_up, test_print_kickstart,
		   fx_tear_down);
	g_test_add("/install-options/kickstart", OptFx, NULL, fx_set_up, test_kickstart,
		   fx_tear_down);
	g_test_add("/install-options/os-trusted", OptFx, NULL, fx_set_up, test_os_trusted,
		   fx_tear_down);
	g_test_add("/install-options/refusals", OptFx, "safe-off", fx_set_up, test_refusals,
		   fx_tear_down);
	g_test_add("/install-options/metadata", OptFx, NULL, fx_set_up, test_metadata,
		   fx_tear_down);
	g_test_add("/install-options/no-communication", OptFx, NULL, fx_set_up,
		   test_no_communication, fx_tear_down);
	g_test_add("/install-options/install-timeout", OptFx, NULL, fx_set_up, test_install_timeout,
		   fx_tear_down);
	g_test_add("/install-options/package-credentials", OptFx, NULL, fx_set_up,
		   test_package_credentials, fx_tear_down);
	return g_test_run();
}
