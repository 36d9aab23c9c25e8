/* The node's tap channel (hypervisor/gnt-channel.h) in a fresh network
 * namespace: taps, names, addresses, routes, sysctls, the nft table; and
 * the isolation test: gantry-metad serving two instances through
 * device-bound channels (veths standing in for taps), each guest in its own
 * namespace reads only its own metadata, even with the other's address and
 * MAC, and gets its address from metad's DHCP responder. */
#define _GNU_SOURCE /* unshare() in netns-test.h */
#include <errno.h>
#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <net/if.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "gnt-channel-private.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-metad-client.h"
#include "gnt-paths.h"
#include "../gnt-test-assert.h"
#include "netns-test.h"

#define MAC_0 "52:54:00:00:c0:00"
#define MAC_1 "52:54:00:00:c0:01"
#define IP_0  "169.254.3.4"
#define IP_1  "169.254.3.5"

static void
assert_sysctl(const gchar *family, const gchar *device, const gchar *name, const gchar *value)
{
	g_autofree gchar *path =
		g_strdup_printf("/proc/sys/net/%s/conf/%s/%s", family, device, name);
	g_autofree gchar *text = NULL;
	g_autoptr(GError) error = NULL;

	g_assert_true(g_file_get_contents(path, &text, NULL, &error));
	g_assert_no_error(error);
	g_assert_cmpstr(g_strstrip(text), ==, value);
}

/* The host side of channel @device: its address, the route to @ip, the
 * sysctls, up. */
static void
assert_channel_device(const gchar *device, const gchar *ip)
{
	g_autofree gchar *addr_cmd = g_strdup_printf("ip -o -4 addr show dev %s", device);
	g_autofree gchar *route_cmd = g_strdup_printf("ip -4 route show dev %s", device);
	g_autofree gchar *link_cmd = g_strdup_printf("ip -o link show dev %s", device);
	g_autofree gchar *addrs = netns_sh(addr_cmd);
	g_autofree gchar *routes = netns_sh(route_cmd);
	g_autofree gchar *link = netns_sh(link_cmd);
	g_autofree gchar *route = g_strdup_printf("%s scope link", ip);

	g_assert_nonnull(strstr(addrs, "inet " GNT_CHANNEL_SERVER_ADDRESS "/32 "));
	g_assert_null(strstr(addrs + 1, "\n ")); /* one address */
	g_assert_nonnull(strstr(routes, route));
	g_assert_nonnull(strstr(link, ",UP"));
	assert_sysctl("ipv4", device, "rp_filter", "1");
	assert_sysctl("ipv4", device, "arp_ignore", "1");
	assert_sysctl("ipv4", device, "forwarding", "0");
	assert_sysctl("ipv6", device, "disable_ipv6", "1");
}

static guint
count(const gchar *haystack, const gchar *needle)
{
	guint n = 0;

	for (const gchar *p = strstr(haystack, needle); p != NULL; p = strstr(p + 1, needle))
		n++;
	return n;
}

static void
taps_child(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntChannel) first = NULL;
	g_autoptr(GntChannel) second = NULL;
	g_autoptr(GntChannel) third = NULL;
	g_autoptr(GntChannel) none = NULL;
	g_autofree gchar *table = NULL;
	g_autofree gchar *taps = NULL;

	netns_enter_new();
	g_assert_true(gnt_channel_tap_supported(&error));
	g_assert_no_error(error);

	g_assert_true(gnt_channel_tap_create(MAC_0, IP_0, "gnt-test-web0", &first, &error));
	g_assert_no_error(error);
	g_assert_true(gnt_channel_tap_create("52:54:00:00:C0:01", IP_1, NULL, &second, &error));
	g_assert_no_error(error);
	g_assert_cmpstr(first->device, ==, "gnt.com.0");
	g_assert_cmpstr(first->ip, ==, IP_0);
	g_assert_cmpstr(first->mac, ==, MAC_0);
	g_assert_cmpstr(second->device, ==, "gnt.com.1");
	g_assert_cmpstr(second->mac, ==, MAC_1); /* lower case */
	assert_channel_device("gnt.com.0", IP_0);
	assert_channel_device("gnt.com.1", IP_1);
	{
		/* the owner given is the alias `ip link` shows; none, none */
		g_autofree gchar *link0 = netns_sh("ip -o link show dev gnt.com.0");
		g_autofree gchar *link1 = netns_sh("ip -o link show dev gnt.com.1");

		gnt_test_assert_contains(link0, "alias gnt-test-web0");
		gnt_test_assert_lacks(link1, "alias");
	}
	/* persistent taps, no qemu attached yet */
	taps = netns_sh("ip -o -d link show type tun");
	g_assert_nonnull(strstr(taps, "gnt.com.0"));
	g_assert_nonnull(strstr(taps, "tap"));
	g_assert_nonnull(strstr(taps, "persist on"));

	/* the table, loaded once however many channels (idempotent) */
	table = netns_sh("nft list table inet gantry");
	g_assert_cmpuint(count(table, "chain input"), ==, 1);
	g_assert_cmpuint(count(table, "tcp dport 80 accept"), ==, 1);
	g_assert_nonnull(strstr(table, "iifname \"gnt.com.*\" ip daddr 169.254.169.254 tcp dport "
				       "80 accept"));
	g_assert_nonnull(strstr(table, "iifname \"gnt.com.*\" udp dport 67 accept"));
	g_assert_nonnull(strstr(table, "oifname \"gnt.com.*\""));
	g_assert_true(gnt_channel_ensure_firewall(&error));
	g_assert_no_error(error);
	g_clear_pointer(&table, g_free);
	table = netns_sh("nft list table inet gantry");
	g_assert_cmpuint(count(table, "tcp dport 80 accept"), ==, 1);

	/* removed: gone with its route; the next one takes the lowest number */
	g_assert_true(gnt_channel_tap_remove("gnt.com.0", &error));
	g_assert_no_error(error);
	g_assert_cmpuint(if_nametoindex("gnt.com.0"), ==, 0);
	g_clear_pointer(&taps, g_free);
	taps = netns_sh("ip -4 route");
	g_assert_null(strstr(taps, IP_0));
	g_assert_true(gnt_channel_tap_create(MAC_0, "169.254.3.6", NULL, &third, &error));
	g_assert_no_error(error);
	g_assert_cmpstr(third->device, ==, "gnt.com.0");
	assert_channel_device("gnt.com.0", "169.254.3.6");

	/* a name in use by something else is skipped, never reused */
	netns_shf("ip link add gnt.com.2 type veth peer name gnt-peer");
	g_assert_true(gnt_channel_tap_create(MAC_0, "169.254.3.7", NULL, &none, &error));
	g_assert_no_error(error);
	g_assert_cmpstr(none->device, ==, "gnt.com.3");
	g_clear_pointer(&none, gnt_channel_free);

	/* removal: twice is fine; never anything but a channel's tap */
	g_assert_true(gnt_channel_tap_remove("gnt.com.0", &error));
	g_assert_true(gnt_channel_tap_remove("gnt.com.0", &error));
	g_assert_true(gnt_channel_tap_remove("gnt.com.1", &error));
	g_assert_true(gnt_channel_tap_remove("gnt.com.3", &error));
	g_assert_no_error(error);
	g_assert_false(gnt_channel_tap_remove("lo", &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_nonnull(strstr(error->message, "'lo' is not a channel tap"));
	g_clear_error(&error);
	g_assert_false(gnt_channel_tap_remove("gnt.com.", &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_clear_error(&error);

	/* bad input: nothing made */
	g_assert_false(gnt_channel_tap_create(MAC_0, "10.0.0.1", NULL, &none, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_nonnull(strstr(error->message, "'10.0.0.1' is not a guest address"));
	g_clear_error(&error);
	g_assert_false(
		gnt_channel_tap_create(MAC_0, GNT_CHANNEL_SERVER_ADDRESS, NULL, &none, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_clear_error(&error);
	g_assert_false(gnt_channel_tap_create("52:54:00:00:c0", IP_0, NULL, &none, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_nonnull(strstr(error->message, "MAC '52:54:00:00:c0'"));
	g_clear_error(&error);
	g_assert_null(none);
	g_clear_pointer(&taps, g_free);
	taps = netns_sh("ip -o link show type tun");
	g_assert_cmpstr(taps, ==, "");
}

static void
test_taps(void)
{
	/* the child's namespace, and its taps, die with it */
	netns_test_run(taps_child, NULL, NULL, NULL);
}

static void
not_root_child(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntChannel) channel = NULL;

	if (geteuid() == 0) {
		/* in a namespace of its own, in case it were made after all */
		netns_enter_new();
		g_assert_cmpint(setresgid(65534, 65534, 65534), ==, 0);
		g_assert_cmpint(setresuid(65534, 65534, 65534), ==, 0);
	}
	g_assert_false(gnt_channel_tap_supported(&error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	g_assert_nonnull(strstr(error->message, "CAP_NET_ADMIN"));
	g_clear_error(&error);
	g_assert_false(gnt_channel_tap_create(MAC_0, IP_0, NULL, &channel, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	g_assert_nonnull(strstr(error->message, "cannot create tap 'gnt.com.0'"));
	g_assert_nonnull(strstr(error->message, "CAP_NET_ADMIN"));
	g_assert_null(channel);
}

static void
test_not_root(void)
{
	if (g_test_subprocess()) {
		not_root_child();
		return;
	}
	if (!g_file_test("/dev/net/tun", G_FILE_TEST_EXISTS)) {
		g_test_skip("no /dev/net/tun");
		return;
	}
	g_test_trap_subprocess(NULL, 60 * G_USEC_PER_SEC,
			       G_TEST_SUBPROCESS_INHERIT_STDOUT | G_TEST_SUBPROCESS_INHERIT_STDERR);
	g_test_trap_assert_passed();
}

/* --- isolation ---------------------------------------------------------- */

typedef struct {
	const gchar *name;
	const gchar *suffix; /* of its namespace */
	const gchar *host;   /* the host end: the channel's device */
	const gchar *mac;
	const gchar *ip;
} Guest;

static const Guest guest_a = {"a1", "gA", "vethA-host", "52:54:00:00:0a:01", "169.254.10.1"};
static const Guest guest_b = {"b1", "gB", "vethB-host", "52:54:00:00:0b:01", "169.254.10.2"};
static const gchar *const isolation_guests[] = {"gA", "gB", NULL};

/* metad's root: the child makes it, the parent removes it on every path. */
static gchar *
metad_root(void)
{
	return g_strdup_printf("%s/gnt-%s-metad", g_get_tmp_dir(), g_getenv("GNT_TEST_NETNS_RUN"));
}

static void
die_with_parent(gpointer user_data)
{
	/* metad must not outlive a failed test child */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
}

static void
guest_set_up(const Guest *guest, const gchar *control)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *ns = netns_guest_name(guest->suffix);
	g_autofree gchar *cidr = g_strdup_printf("%s/16", guest->ip);
	g_autofree gchar *record_text = g_strdup_printf("{\"name\":\"%s\",\"uuid\":\"uuid-%s\","
							"\"hostname\":\"%s.example.com\"}",
							guest->name, guest->name, guest->name);
	g_autoptr(JsonNode) record = gnt_json_parse(record_text, -1, &error);

	g_assert_no_error(error);
	g_assert_true(
		gnt_metad_client_push(control, guest->name, json_node_get_object(record), &error));
	g_assert_no_error(error);
	netns_veth_add(guest->host, ns, 0, guest->mac, cidr);
	/* the host end set up as a channel's tap is */
	g_assert_true(gnt_channel_configure_device(guest->host, guest->ip, &error));
	g_assert_no_error(error);
	assert_channel_device(guest->host, guest->ip);
}

/* GET meta_data.json from inside @guest's namespace: curl's exit status
 * (0: answered), the answer in *@body. */
static gint
guest_get(const Guest *guest, guint timeout_s, gchar **body)
{
	g_autofree gchar *ns = netns_guest_name(guest->suffix);
	g_autofree gchar *cmd =
		g_strdup_printf("ip netns exec %s curl -sS --max-time %u "
				"http://169.254.169.254/ganeti/latest/meta_data.json",
				ns, timeout_s);

	return netns_sh_status(cmd, body);
}

static void
assert_answers_as(const Guest *guest, const Guest *as)
{
	g_autofree gchar *body = NULL;
	g_autofree gchar *name = g_strdup_printf("\"name\":\"%s\"", as->name);
	gint status = guest_get(guest, 10, &body);

	if (status != 0 || strstr(body, name) == NULL)
		g_error("from %s's namespace: curl %d: %s (expected %s)", guest->name, status, body,
			name);
}

/* The checks, with metad serving on @control; FALSE: metad has no channel
 * API (yet). */
static void
isolation_checks(const gchar *control)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *body = NULL;
	g_autofree gchar *ns_a = netns_guest_name(guest_a.suffix);
	g_autofree gchar *seen = NULL;
	gint curl;

	guest_set_up(&guest_a, control);
	guest_set_up(&guest_b, control);
	for (guint i = 0; i < 2; i++) {
		const Guest *guest = i == 0 ? &guest_a : &guest_b;
		g_autoptr(JsonObject) spec = json_object_new();
		JsonObject *dhcp = json_object_new();

		json_object_set_string_member(spec, "device", guest->host);
		json_object_set_string_member(dhcp, "mac", guest->mac);
		json_object_set_string_member(dhcp, "ip", guest->ip);
		json_object_set_string_member(dhcp, "netmask", "255.255.0.0");
		json_object_set_object_member(spec, "dhcp", dhcp);
		g_assert_true(gnt_metad_client_set_channel(control, guest->name, spec, &error));
		g_assert_no_error(error);
	}

	/* each guest reads its own */
	assert_answers_as(&guest_a, &guest_a);
	assert_answers_as(&guest_b, &guest_b);

	/* DHCP through metad's responder on A's device: A's address */
	seen = netns_dhcp(NETNS_UDHCPC, ns_a, 0, FALSE);
	g_assert_nonnull(strstr(seen, "bound ip=169.254.10.1 subnet=255.255.0.0 "
				      "router=169.254.169.254 serverid=169.254.169.254 "
				      "lease=86400\n"));

	/* A takes B's MAC: still A */
	netns_shf("ip -n %s link set eth0 down", ns_a);
	netns_shf("ip -n %s link set eth0 address %s", ns_a, guest_b.mac);
	netns_shf("ip -n %s link set eth0 up", ns_a);
	assert_answers_as(&guest_a, &guest_a);
	/* and B's address too: A's answer or none, never B's */
	netns_shf("ip -n %s link set eth0 down", ns_a);
	netns_shf("ip -n %s addr flush dev eth0", ns_a);
	netns_shf("ip -n %s addr add %s/16 dev eth0", ns_a, guest_b.ip);
	netns_shf("ip -n %s link set eth0 up", ns_a);
	curl = guest_get(&guest_a, 3, &body);
	g_test_message("spoofed from A: curl %d: %s", curl, body);
	g_assert_null(strstr(body, "\"name\":\"b1\""));
	g_assert_true(curl != 0 || strstr(body, "\"name\":\"a1\"") != NULL);
	/* nor does B's MAC get B's lease on A's device */
	g_clear_pointer(&seen, g_free);
	seen = netns_dhcp(NETNS_UDHCPC, ns_a, 0, FALSE);
	g_assert_cmpstr(seen, ==, "");
	/* B, meanwhile, still reads its own */
	assert_answers_as(&guest_b, &guest_b);

	/* a closed channel answers nothing */
	g_assert_true(gnt_metad_client_remove_channel(control, "b1", &error));
	g_assert_no_error(error);
	g_clear_pointer(&body, g_free);
	g_assert_cmpint(guest_get(&guest_b, 3, &body), !=, 0);
}

static void
isolation_child(void)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *dir = metad_root();
	g_autoptr(GntPaths) paths = gnt_paths_new(dir);
	g_autoptr(GSubprocessLauncher) launcher = NULL;
	g_autoptr(GSubprocess) metad = NULL;
	g_autoptr(GDataInputStream) out = NULL;
	g_autofree gchar *control = NULL;

	netns_enter_new();
	g_assert_cmpint(g_mkdir(dir, 0700), ==, 0);
	g_assert_true(gnt_paths_ensure_dirs(paths, &error));
	launcher = g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_STDOUT_PIPE);
	g_subprocess_launcher_set_child_setup(launcher, die_with_parent, NULL, NULL);
	metad = g_subprocess_launcher_spawn(launcher, &error, g_getenv("GNT_TEST_METAD"), "--root",
					    dir, "--foreground", "--debug", "--print-socket", NULL);
	g_assert_no_error(error);
	out = g_data_input_stream_new(g_subprocess_get_stdout_pipe(metad));
	control = g_data_input_stream_read_line_utf8(out, NULL, NULL, &error);
	g_assert_no_error(error);
	g_assert_nonnull(control); /* NULL: metad died */

	isolation_checks(control);
	g_subprocess_send_signal(metad, SIGTERM);
	g_assert_true(g_subprocess_wait_check(metad, NULL, &error));
	g_assert_no_error(error);
}

static void
isolation_after(void)
{
	g_autofree gchar *root = metad_root();

	netns_shf("rm -rf '%s'", root);
}

static void
test_isolation(void)
{
	netns_test_run(isolation_child, isolation_guests, "curl", isolation_after);
}

int
main(int argc, char **argv)
{
	netns_test_init();
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/channel/taps", test_taps);
	g_test_add_func("/channel/not-root", test_not_root);
	g_test_add_func("/channel/isolation", test_isolation);
	return g_test_run();
}
