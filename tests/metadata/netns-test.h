#pragma once /* tests/metadata/netns-test.h: network namespaces for the channel tests */

/* The tests that need a network run in a g_test_trap_subprocess() child
 * that first moves into a fresh network namespace (netns_enter_new()): its
 * veths and taps die with it, whatever happens. Guests are named
 * namespaces (`ip netns add`) that the parent makes before and deletes
 * after the child (netns_guests_add()/netns_guests_delete()), so they go
 * too when the child fails. */

/* unshare(): the includer defines _GNU_SOURCE before any include */
#include <errno.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "gnt-subprocess.h"

#define NETNS_TIMEOUT_S 60

/* Runs @cmdline with sh; its exit status, the output in *@output. */
static inline gint
netns_sh_status(const gchar *cmdline, gchar **output)
{
	g_autoptr(GError) error = NULL;
	const gchar *const argv[] = {"sh", "-c", cmdline, NULL};
	g_autofree gchar *out = NULL;
	gint status = -1;

	if (!gnt_subprocess_run(argv, NULL, NETNS_TIMEOUT_S, &out, &status, &error))
		g_error("running '%s': %s", cmdline, error->message);
	if (output != NULL)
		*output = g_steal_pointer(&out);
	return status;
}

/* Runs @cmdline with sh; it must succeed. Its output. (transfer full) */
static inline gchar *
netns_sh(const gchar *cmdline)
{
	g_autofree gchar *output = NULL;
	gint status = netns_sh_status(cmdline, &output);

	if (status != 0)
		g_error("'%s' failed (%d): %s", cmdline, status, output);
	return g_steal_pointer(&output);
}

static inline void
netns_shf(const gchar *format, ...) G_GNUC_PRINTF(1, 2);

static inline void
netns_shf(const gchar *format, ...)
{
	va_list args;
	g_autofree gchar *cmdline = NULL;

	va_start(args, format);
	cmdline = g_strdup_vprintf(format, args);
	va_end(args);
	g_free(netns_sh(cmdline));
}

/* Why these tests cannot run here, or NULL: they need root and network
 * namespaces. (transfer full) */
static inline gchar *
netns_unsupported(void)
{
	if (geteuid() != 0)
		return g_strdup("needs root (network namespaces, veths, taps)");
	if (!g_file_test("/proc/self/ns/net", G_FILE_TEST_EXISTS))
		return g_strdup("no network namespaces in this kernel");
	if (netns_sh_status("command -v ip && command -v busybox", NULL) != 0)
		return g_strdup("needs ip (iproute2) and busybox (busybox-static)");
	return NULL;
}

/* The name of the guest namespace @suffix of this test run (unique per
 * process: the parent's pid, passed to the child in the environment).
 * (transfer full) */
static inline gchar *
netns_guest_name(const gchar *suffix)
{
	const gchar *run = g_getenv("GNT_TEST_NETNS_RUN");

	g_assert_nonnull(run);
	return g_strdup_printf("gnt-%s-%s", run, suffix);
}

/* First thing in main(), before any thread: names this run's namespaces
 * after the test process (its trap children inherit the name). */
static inline void
netns_test_init(void)
{
	g_autofree gchar *run = g_strdup_printf("%d", (gint)getpid());

	g_setenv("GNT_TEST_NETNS_RUN", run, FALSE);
}

/* Parent side: makes the guest namespaces @suffixes (NULL-terminated); FALSE
 * with *@reason when namespaces cannot be made. */
static inline gboolean
netns_guests_add(const gchar *const *suffixes, gchar **reason)
{
	for (guint i = 0; suffixes[i] != NULL; i++) {
		g_autofree gchar *name = netns_guest_name(suffixes[i]);
		g_autofree gchar *cmd = g_strdup_printf("ip netns add %s", name);
		g_autofree gchar *output = NULL;

		if (netns_sh_status(cmd, &output) != 0) {
			*reason = g_strdup_printf("cannot make a network namespace: %s", output);
			return FALSE;
		}
	}
	return TRUE;
}

/* Parent side, on every path: deletes them (with whatever is in them). */
static inline void
netns_guests_delete(const gchar *const *suffixes)
{
	for (guint i = 0; suffixes[i] != NULL; i++) {
		g_autofree gchar *name = netns_guest_name(suffixes[i]);
		g_autofree gchar *cmd = g_strdup_printf("ip netns delete %s", name);

		g_autofree gchar *path = g_build_filename("/run/netns", name, NULL);

		g_assert_cmpint(netns_sh_status(cmd, NULL), ==, 0);
		g_assert_false(g_file_test(path, G_FILE_TEST_EXISTS));
	}
}

/* Child side: this process into a fresh network namespace of its own. */
static inline void
netns_enter_new(void)
{
	if (unshare(CLONE_NEWNET) != 0)
		g_error("unshare(CLONE_NEWNET): %s", g_strerror(errno));
	netns_shf("ip link set lo up");
}

/* A veth from this namespace (@host) into the guest namespace @guest_ns
 * (eth@n there) with @mac, up, @cidr (NULL: none) on the guest side. */
static inline void
netns_veth_add(const gchar *host, const gchar *guest_ns, guint n, const gchar *mac,
	       const gchar *cidr)
{
	netns_shf("ip link add %s type veth peer name eth%u netns %s", host, n, guest_ns);
	netns_shf("ip -n %s link set eth%u address %s up", guest_ns, n, mac);
	if (cidr != NULL)
		netns_shf("ip -n %s addr add %s dev eth%u", guest_ns, cidr, n);
}

typedef void (*NetnsFunc)(void);

/*
 * A network test: in the trap child, runs @child (and returns FALSE); in the
 * parent, skips (FALSE) without root, namespaces or @program (nullable),
 * else makes the guest namespaces @guests (nullable), runs the child,
 * deletes them and calls @after (nullable) on every path, then asserts that
 * the child passed (TRUE).
 */
static inline gboolean
netns_test_run(NetnsFunc child, const gchar *const *guests, const gchar *program, NetnsFunc after)
{
	g_autofree gchar *reason = NULL;
	g_autofree gchar *check = g_strdup_printf("command -v '%s'", program ? program : "sh");

	if (g_test_subprocess()) {
		child();
		return FALSE;
	}
	reason = netns_unsupported();
	if (reason == NULL && netns_sh_status(check, NULL) != 0)
		reason = g_strdup_printf("needs %s", program);
	if (reason == NULL && guests != NULL)
		netns_guests_add(guests, &reason);
	if (reason != NULL) {
		g_test_skip(reason);
		return FALSE;
	}
	g_test_trap_subprocess(NULL, 100 * G_USEC_PER_SEC,
			       G_TEST_SUBPROCESS_INHERIT_STDOUT | G_TEST_SUBPROCESS_INHERIT_STDERR);
	if (guests != NULL)
		netns_guests_delete(guests);
	if (after != NULL)
		after();
	g_test_trap_assert_passed();
	return TRUE;
}

typedef struct {
	gboolean done;
	gchar *output;
	gint status;
} NetnsAsyncRun;

static inline void
netns_async_done_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	NetnsAsyncRun *run = user_data;
	g_autoptr(GError) error = NULL;

	if (!g_subprocess_communicate_utf8_finish(G_SUBPROCESS(source), res, &run->output, NULL,
						  &error))
		g_error("waiting for a command: %s", error->message);
	run->status = g_subprocess_get_exit_status(G_SUBPROCESS(source));
	run->done = TRUE;
}

/* Runs @cmdline with sh while this thread's main context keeps serving
 * (a responder of the test itself answers it); its exit status and output. */
static inline gint
netns_sh_serving(const gchar *cmdline, gchar **output)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GSubprocess) proc =
		g_subprocess_new(G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_MERGE,
				 &error, "sh", "-c", cmdline, NULL);
	NetnsAsyncRun run = {0};

	g_assert_no_error(error);
	g_subprocess_communicate_utf8_async(proc, NULL, NULL, netns_async_done_cb, &run);
	while (!run.done)
		g_main_context_iteration(NULL, TRUE);
	if (output != NULL)
		*output = g_steal_pointer(&run.output);
	g_free(run.output);
	return run.status;
}

typedef enum {
	NETNS_UDHCPC,	/* busybox udhcpc: 2 tries a second apart */
	NETNS_DHCLIENT, /* ISC dhclient (Debian's): one try, 3 s */
} NetnsDhcpClient;

/* A DHCP client on eth@n in @guest_ns; what its script saw ("bound ip=...
 * subnet=... router=... serverid=... lease=..." and the other events, a line
 * each), "" when it got no lease. @serving: keep this thread's main context
 * running meanwhile (the test's own responder). (transfer full) */
static inline gchar *
netns_dhcp(NetnsDhcpClient client, const gchar *guest_ns, guint n, gboolean serving)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *dir = g_dir_make_tmp("gnt-dhcp-client-XXXXXX", &error);
	g_autofree gchar *script = g_build_filename(dir, "script", NULL);
	g_autofree gchar *record = g_build_filename(dir, "record", NULL);
	g_autofree gchar *conf = g_build_filename(dir, "dhclient.conf", NULL);
	g_autofree gchar *script_text = NULL;
	g_autofree gchar *cmdline = NULL;
	g_autofree gchar *output = NULL;
	g_autofree gchar *seen = NULL;
	g_autofree gchar *rm = g_strdup_printf("rm -rf '%s'", dir);
	gint status;

	g_assert_no_error(error);
	if (client == NETNS_UDHCPC) {
		script_text =
			g_strdup_printf("#!/bin/sh\necho \"$1 ip=$ip subnet=$subnet router=$router "
					"serverid=$serverid lease=$lease\" >> %s\n",
					record);
		cmdline = g_strdup_printf(
			"ip netns exec %s busybox udhcpc -i eth%u -q -n -t 2 -T 1 -s %s", guest_ns,
			n, script);
	} else {
		script_text =
			g_strdup_printf("#!/bin/sh\n[ \"$reason\" = BOUND ] && reason=bound\n"
					"echo \"$reason ip=$new_ip_address subnet=$new_subnet_mask "
					"router=$new_routers serverid=$new_dhcp_server_identifier "
					"lease=$new_dhcp_lease_time\" >> %s\n"
					/* bound, it would stay: stopped here, in the foreground */
					"[ \"$reason\" = bound ] && kill $PPID\nexit 0\n",
					record);
		g_assert_true(g_file_set_contents(conf, "timeout 3;\nretry 1;\n", -1, &error));
		/* -d: never in the background; the script ends it once bound */
		cmdline = g_strdup_printf(
			"ip netns exec %s dhclient -d -1 -cf %s -sf %s -lf %s/leases -pf %s/pid "
			"eth%u; "
			"s=$?; grep -q '^bound ' %s && exit 0; exit $s",
			guest_ns, conf, script, dir, dir, n, record);
	}
	g_assert_true(g_file_set_contents(script, script_text, -1, &error));
	g_assert_cmpint(g_chmod(script, 0700), ==, 0);
	status = serving ? netns_sh_serving(cmdline, &output) : netns_sh_status(cmdline, &output);
	if (!g_file_get_contents(record, &seen, NULL, NULL))
		seen = g_strdup("");
	g_test_message("%s: exit %d, %s; script saw: %s", cmdline, status, output, seen);
	/* no lease: a failed exit, and no "bound" */
	g_assert_true((status == 0) == (strstr(seen, "bound ") != NULL));
	g_assert_cmpint(netns_sh_status(rm, NULL), ==, 0);
	return status == 0 ? g_steal_pointer(&seen) : g_strdup("");
}
