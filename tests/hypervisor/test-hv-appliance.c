/* The install appliance: its domain XML against golden files (both kinds
 * of channel NIC, the read-only appliance disk last), the communication
 * NIC of an instance, the kvm lifecycle on libvirt's test:///default
 * driver (power off, timeout) and the fake hypervisor's agent process. */
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

#include "gnt-error.h"
#include "gnt-hypervisor-private.h"
#include "gnt-test-process.h"
#include "hv-golden.h"

#ifdef GNT_HAVE_LIBVIRT
#include <libvirt/libvirt.h>
#endif

#define UUID1 "6c1c6e58-4d3c-4bc4-8a8e-2f4f3b0c9a01"
#define MAC   "52:54:00:ab:cd:ef"
#define IP    "169.254.12.34"

static GntHvAppliance *
appliance_new(const gchar *dir, GntHvChannelNic *channel)
{
	GntHvAppliance *app = gnt_hv_appliance_new("web1.example.com");

	g_free(app->uuid);
	app->uuid = g_strdup(UUID1);
	app->kernel = g_strdup("/var/lib/gantry/appliance/vmlinuz");
	app->initrd = g_strdup("/var/lib/gantry/appliance/initrd.img");
	app->image = g_strdup("/var/lib/gantry/appliance/appliance.img");
	app->ip = g_strdup(IP);
	app->channel = channel;
	app->console_log =
		g_build_filename(dir, "appliance", "web1.example.com", "console.log", NULL);
	app->timeout_s = 1800;
	gnt_hv_appliance_add_disk(app, gnt_hv_disk_new("/srv/gantry/web1/disk0.img",
						       GNT_HV_DISK_FORMAT_RAW));
	gnt_hv_appliance_add_disk(app,
				  gnt_hv_disk_new("/dev/vg0/web1-disk1", GNT_HV_DISK_FORMAT_QCOW2));
	return app;
}

/* --- XML -------------------------------------------------------------- */

static void
test_xml_tap(void)
{
	g_autoptr(GntHvAppliance)
		app = appliance_new("/run/gantry", gnt_hv_channel_nic_new(MAC, "gnt.com.3", NULL));
	g_autoptr(GError) error = NULL;
	g_autofree gchar *xml =
		gnt_hv_kvm_build_appliance_xml(app, "appliance-gnt-web1.example.com", NULL, &error);

	g_assert_no_error(error);
	assert_golden(xml, "hypervisor-appliance-tap.xml");
}

static void
test_xml_slirp(void)
{
	g_autoptr(GntHvAppliance) app = appliance_new(
		"/run/gantry", gnt_hv_channel_nic_new(MAC, NULL, "/run/gantry/metad/web,1.sock"));
	g_autoptr(GError) error = NULL;
	g_autofree gchar *xml = NULL;

	app->debug = TRUE;
	g_free(app->accel);
	app->accel = g_strdup("kvm");
	xml = gnt_hv_kvm_build_appliance_xml(app, "appliance-gnt-web1.example.com", NULL, &error);
	g_assert_no_error(error);
	assert_golden(xml, "hypervisor-appliance-slirp.xml");
	/* qemu's option syntax: the comma doubled */
	g_assert_nonnull(strstr(xml, "path=/run/gantry/metad/web,,1.sock,"));
	g_assert_nonnull(strstr(xml, "restrict=on"));
}

/* The appliance takes the instance's firmware: under uefi, OVMF and the
 * instance's own UEFI variables, so that what the installer writes there
 * (boot entries) is what the instance boots with. */
static void
test_xml_uefi(void)
{
	g_autoptr(GntHvAppliance)
		app = appliance_new("/run/gantry", gnt_hv_channel_nic_new(MAC, "gnt.com.3", NULL));
	const GntHvUefi uefi = {
		.code = (gchar *)"/usr/share/OVMF/OVMF_CODE_4M.fd",
		.vars_template = (gchar *)"/usr/share/OVMF/OVMF_VARS_4M.fd",
		.vars = (gchar *)"/var/lib/gantry/instances/web1/uefi-vars.fd",
	};
	g_autoptr(GError) error = NULL;
	g_autofree gchar *xml = NULL;

	g_free(app->firmware);
	app->firmware = g_strdup("uefi");
	xml = gnt_hv_kvm_build_appliance_xml(app, "appliance-gnt-web1.example.com", &uefi, &error);
	g_assert_no_error(error);
	assert_golden(xml, "hypervisor-appliance-uefi.xml");
	/* uefi without OVMF's files: the backend's bug, not a bios domain */
	g_assert_null(gnt_hv_kvm_build_appliance_xml(app, "a", NULL, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_FAULT);
}

/* The appliance's own disk is the last one, the only one read-only; the
 * instance's disks are writable with cache none. */
static void
test_xml_read_only_last(void)
{
	g_autoptr(GntHvAppliance)
		app = appliance_new("/run/gantry", gnt_hv_channel_nic_new(MAC, "gnt.com.0", NULL));
	g_autoptr(GError) error = NULL;
	g_autofree gchar *xml = gnt_hv_kvm_build_appliance_xml(app, "a", NULL, &error);
	g_auto(GStrv) disks = NULL;
	guint n;

	g_assert_no_error(error);
	g_assert_null(strstr(xml, "<loader"));
	disks = g_strsplit(xml, "<disk ", -1);
	n = g_strv_length(disks);
	g_assert_cmpuint(n, ==, 4); /* before the first, and 3 disks */
	for (guint i = 1; i < n; i++) {
		gboolean last = i == n - 1;

		g_assert_true((strstr(disks[i], "<readonly/>") != NULL) == last);
		g_assert_true((strstr(disks[i], "cache='none'") != NULL) == !last);
	}
	g_assert_nonnull(strstr(disks[n - 1], "appliance.img"));
	g_assert_nonnull(strstr(disks[n - 1], "target dev='vdc'"));
	g_assert_nonnull(strstr(xml, "<on_reboot>destroy</on_reboot>"));
	g_assert_nonnull(
		strstr(xml, "console=ttyS0 quiet panic=-1 no_timer_check gantry.ip=" IP "/16<"));
}

static void
test_xml_instance_channel(void)
{
	static const struct {
		const gchar *tap, *socket, *golden;
	} cases[] = {
		{"gnt.com.7", NULL, "hypervisor-kvm-channel-tap.xml"},
		{NULL, "/run/gantry/metad/vm1.sock", "hypervisor-kvm-channel-slirp.xml"},
	};

	for (guint c = 0; c < G_N_ELEMENTS(cases); c++) {
		g_autoptr(GntHvInstance) inst = gnt_hv_instance_new("vm1", UUID1);
		g_autoptr(GHashTable) filled = NULL;
		g_autoptr(GError) error = NULL;
		g_autofree gchar *xml = NULL;

		gnt_hv_instance_add_nic(inst, gnt_hv_nic_new("aa:00:00:12:34:56",
							     GNT_HV_NIC_MODE_BRIDGED, "br0"));
		inst->channel = gnt_hv_channel_nic_new(MAC, cases[c].tap, cases[c].socket);
		filled = gnt_hv_params_fill("kvm", NULL, inst->hvparams, &error);
		g_assert_no_error(error);
		xml = gnt_hv_kvm_build_xml(inst, filled, "gnt-vm1", 1700000000, NULL, &error);
		g_assert_no_error(error);
		assert_golden(xml, cases[c].golden);
	}
}

static void
test_cmdline_and_tail(void)
{
	g_autoptr(GntHvAppliance) app = gnt_hv_appliance_new("x");
	g_autofree gchar *cmdline = NULL;
	g_autofree gchar *dir = g_dir_make_tmp("gnt-hv-tail-XXXXXX", NULL);
	g_autofree gchar *path = g_build_filename(dir, "console.log", NULL);
	g_autofree gchar *tail = NULL;
	g_autofree gchar *none = NULL;
	g_autoptr(GString) text = g_string_new(NULL);

	app->ip = g_strdup("169.254.1.2");
	app->debug = TRUE;
	cmdline = gnt_hv_appliance_dup_cmdline(app);
	g_assert_cmpstr(cmdline, ==,
			"console=ttyS0 quiet panic=-1 no_timer_check gantry.ip=169.254.1.2/16 "
			"gantry.debug=1");
	for (guint i = 0; i < 100000; i++)
		g_string_append_printf(text, "line %u\r\n", i);
	g_assert_true(g_file_set_contents(path, text->str, (gssize)text->len, NULL));
	tail = gnt_hv_read_tail(path, 3);
	g_assert_cmpstr(tail, ==, "line 99997\nline 99998\nline 99999");
	g_assert_cmpint(g_unlink(path), ==, 0);
	none = gnt_hv_read_tail(path, 3);
	g_assert_cmpstr(none, ==, "");
	g_assert_cmpint(g_rmdir(dir), ==, 0);
}

/* --- running it ------------------------------------------------------- */

typedef struct {
	gchar *dir;
	GntHypervisor *hv;
} ApplFx;

static void
fake_set_up(ApplFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *state = NULL;

	fx->dir = g_dir_make_tmp("gnt-hv-appl-XXXXXX", &error);
	g_assert_no_error(error);
	state = g_build_filename(fx->dir, "fake", NULL);
	fx->hv = gnt_hypervisor_new("fake", state, "gnt-t-", &error);
	g_assert_no_error(error);
}

static void
kvm_set_up(ApplFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;

	fx->dir = g_dir_make_tmp("gnt-hv-appl-XXXXXX", &error);
	g_assert_no_error(error);
	fx->hv = gnt_hypervisor_new("kvm", "test:///default", "gnt-t-", &error);
	if (fx->hv == NULL && g_error_matches(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT))
		return; /* built without libvirt: the tests skip */
	g_assert_no_error(error);
}

static void
tear_down(ApplFx *fx, gconstpointer data)
{
	g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", fx->dir);

	g_clear_object(&fx->hv);
	g_assert_cmpint(system(cmd), ==, 0);
	g_free(fx->dir);
}

/* An agent script in the fixture's directory. (transfer full) */
static gchar *
write_agent(ApplFx *fx, const gchar *body)
{
	g_autofree gchar *text = g_strconcat("#!/bin/sh\n", body, NULL);
	gchar *path = g_build_filename(fx->dir, "agent", NULL);
	g_autoptr(GError) error = NULL;

	g_assert_true(g_file_set_contents(path, text, -1, &error));
	g_assert_no_error(error);
	g_assert_cmpint(g_chmod(path, 0755), ==, 0);
	return path;
}

static GntHvAppliance *
fake_appliance(ApplFx *fx, const gchar *agent_body)
{
	g_autofree gchar *socket = g_build_filename(fx->dir, "web1.sock", NULL);
	GntHvAppliance *app = appliance_new(fx->dir, gnt_hv_channel_nic_new(MAC, NULL, socket));

	app->agent = write_agent(fx, agent_body);
	return app;
}

static void
test_fake_runs_agent(ApplFx *fx, gconstpointer data)
{
	g_autoptr(GntHvAppliance) app = fake_appliance(
		fx, "echo \"socket=$GANTRY_METAD_SOCKET\"\necho \"disks=$GANTRY_DISKS\" >&2\n"
		    "echo \"noded's own=[$GNT_NODED_ONLY]\"\necho done\nexit 3\n");
	g_autoptr(GError) error = NULL;
	g_autofree gchar *tail = NULL;
	g_autofree gchar *expected = g_strdup_printf(
		"socket=%s/web1.sock\ndisks=/srv/gantry/web1/disk0.img /dev/vg0/web1-disk1\n"
		"noded's own=[]\ndone",
		fx->dir);

	/* the agent gets its variables and none of the daemon's */
	g_setenv("GNT_NODED_ONLY", "leaked", TRUE);
	/* the agent's exit status is not the verdict: metad's progress is */
	g_assert_true(gnt_hypervisor_run_appliance(fx->hv, app, NULL, &tail, &error));
	g_assert_no_error(error);
	g_assert_cmpstr(tail, ==, expected);
}

static void
test_fake_timeout(ApplFx *fx, gconstpointer data)
{
	g_autoptr(GntHvAppliance) app = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *tail = NULL;
	g_autofree gchar *pids = g_build_filename(fx->dir, "pids", NULL);
	g_autofree gchar *body = g_strdup_printf(
		"echo 'formatting disk 0'\nsleep 600 &\necho \"$$ $!\" > '%s'\nwait\n", pids);
	g_autofree gchar *text = NULL;
	g_auto(GStrv) fields = NULL;
	gint64 started = g_get_monotonic_time();

	app = fake_appliance(fx, body);
	app->timeout_s = 1;
	g_assert_false(gnt_hypervisor_run_appliance(fx->hv, app, NULL, &tail, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	g_assert_cmpstr(error->message, ==,
			"install appliance timed out after 1 s; its console ended with: "
			"formatting disk 0");
	g_assert_cmpstr(tail, ==, "formatting disk 0");
	g_assert_cmpint(g_get_monotonic_time() - started, <, 10 * G_USEC_PER_SEC);
	/* the agent and its child are gone */
	g_assert_true(g_file_get_contents(pids, &text, NULL, NULL));
	fields = g_strsplit(g_strstrip(text), " ", -1);
	g_assert_cmpuint(g_strv_length(fields), ==, 2);
	for (guint i = 0; i < 2; i++)
		g_assert_true(gnt_test_process_ends((GPid)g_ascii_strtoll(fields[i], NULL, 10)));
}

static void
test_fake_bad_record(ApplFx *fx, gconstpointer data)
{
	g_autoptr(GntHvAppliance) app = fake_appliance(fx, "exit 0\n");
	g_autoptr(GError) error = NULL;

	g_clear_pointer(&app->agent, g_free);
	g_assert_false(gnt_hypervisor_run_appliance(fx->hv, app, NULL, NULL, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_cmpstr(error->message, ==,
			"install appliance of instance 'web1.example.com': needs an agent and "
			"metad's socket (fake hypervisor)");
}

#ifdef GNT_HAVE_LIBVIRT

typedef struct {
	GntHypervisor *hv;
	GntHvAppliance *app;
	gboolean ok;
	GError *error;
	gchar *tail;
} RunThread;

static gpointer
run_thread(gpointer data)
{
	RunThread *run = data;

	run->ok = gnt_hypervisor_run_appliance(run->hv, run->app, NULL, &run->tail, &run->error);
	return NULL;
}

/* The appliance's domain once it runs (waits for it: the run's thread
 * creates it). */
static virDomainPtr
wait_for_domain(virConnectPtr conn, const gchar *name)
{
	gint64 deadline = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;
	virDomainPtr dom = NULL;

	while (dom == NULL && g_get_monotonic_time() < deadline) {
		dom = virDomainLookupByName(conn, name);
		if (dom == NULL)
			g_usleep(1000);
	}
	g_assert_nonnull(dom);
	return dom;
}

static void
test_kvm_poweroff(ApplFx *fx, gconstpointer data)
{
	g_autoptr(GntHvAppliance) app = NULL;
	virConnectPtr conn;
	virDomainPtr dom;
	RunThread run = {0};
	GThread *thread;

	if (fx->hv == NULL) {
		g_test_skip("built without libvirt");
		return;
	}
	app = appliance_new(fx->dir, gnt_hv_channel_nic_new(MAC, NULL, "/run/x.sock"));
	run.hv = fx->hv;
	run.app = app;
	conn = virConnectOpen("test:///default");
	g_assert_nonnull(conn);
	thread = g_thread_new("run", run_thread, &run);
	dom = wait_for_domain(conn, "appliance-gnt-t-web1.example.com");
	/* the guest powers off: the test driver's shutdown */
	g_assert_cmpint(virDomainShutdown(dom), ==, 0);
	g_thread_join(thread);
	g_assert_no_error(run.error);
	g_assert_true(run.ok);
	g_assert_cmpstr(run.tail, ==, ""); /* no console in the test driver */
	g_assert_cmpint(virDomainIsActive(dom), !=, 1);
	g_free(run.tail);
	virDomainFree(dom);
	virConnectClose(conn);
}

static void
test_kvm_timeout(ApplFx *fx, gconstpointer data)
{
	g_autoptr(GntHvAppliance) app = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *tail = NULL;
	virConnectPtr conn;
	virDomainPtr dom;

	if (fx->hv == NULL) {
		g_test_skip("built without libvirt");
		return;
	}
	app = appliance_new(fx->dir, gnt_hv_channel_nic_new(MAC, "gnt.com.1", NULL));
	app->timeout_s = 1;
	g_assert_false(gnt_hypervisor_run_appliance(fx->hv, app, NULL, &tail, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	g_assert_cmpstr(error->message, ==,
			"install appliance timed out after 1 s; its console ended with: (nothing)");
	/* destroyed: nothing of it is left in libvirt */
	conn = virConnectOpen("test:///default");
	g_assert_nonnull(conn);
	dom = virDomainLookupByName(conn, "appliance-gnt-t-web1.example.com");
	g_assert_true(dom == NULL || virDomainIsActive(dom) != 1);
	if (dom != NULL)
		virDomainFree(dom);
	virConnectClose(conn);
	/* and not listed as an instance meanwhile either */
}

#endif

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/hv-appliance/xml/tap", test_xml_tap);
	g_test_add_func("/hv-appliance/xml/slirp", test_xml_slirp);
	g_test_add_func("/hv-appliance/xml/read-only-last", test_xml_read_only_last);
	g_test_add_func("/hv-appliance/xml/uefi", test_xml_uefi);
	g_test_add_func("/hv-appliance/xml/instance-channel", test_xml_instance_channel);
	g_test_add_func("/hv-appliance/cmdline-and-tail", test_cmdline_and_tail);
	g_test_add("/hv-appliance/fake/runs-agent", ApplFx, NULL, fake_set_up, test_fake_runs_agent,
		   tear_down);
	g_test_add("/hv-appliance/fake/timeout", ApplFx, NULL, fake_set_up, test_fake_timeout,
		   tear_down);
	g_test_add("/hv-appliance/fake/bad-record", ApplFx, NULL, fake_set_up, test_fake_bad_record,
		   tear_down);
#ifdef GNT_HAVE_LIBVIRT
	g_test_add("/hv-appliance/test-driver/poweroff", ApplFx, NULL, kvm_set_up,
		   test_kvm_poweroff, tear_down);
	g_test_add("/hv-appliance/test-driver/timeout", ApplFx, NULL, kvm_set_up, test_kvm_timeout,
		   tear_down);
#endif
	return g_test_run();
}
