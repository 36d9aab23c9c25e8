/* The node's tap channel of an instance: see gnt-channel.h and
 * doc/metad.md "Channel". */
#include "gnt-channel-private.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "gnt-error.h"
#include "gnt-net.h"
#include "gnt-subprocess.h"

#define TUN_PATH "/dev/net/tun"
/* gnt.com.0 ... gnt.com.9999 (an interface name has at most 15 bytes) */
#define MAX_CHANNELS	  10000
#define COMMAND_TIMEOUT_S 30
/* bit 12 of the capability sets */
#define CAP_NET_ADMIN_BIT 12
/* where `ip` and `nft` live (gnt_subprocess_run()'s PATH) */
static const gchar *const tool_dirs[] = {"/usr/local/sbin", "/usr/sbin", "/sbin",
					 "/usr/bin",	    "/bin",	 NULL};

/* Replaced whole in one transaction: declaring the table first makes the
 * delete succeed when it did not exist, so loading is idempotent and an
 * upgrade's new rules take effect. */
const gchar gnt_channel_nft_table[] =
	"table inet gantry\n"
	"delete table inet gantry\n"
	"table inet gantry {\n"
	"\tchain input {\n"
	"\t\ttype filter hook input priority 0; policy accept;\n"
	"\t\tiifname \"gnt.com.*\" ip daddr 169.254.169.254 tcp dport 80 accept\n"
	"\t\tiifname \"gnt.com.*\" udp dport 67 accept\n"
	"\t\tiifname \"gnt.com.*\" counter drop\n"
	"\t}\n"
	"\tchain forward {\n"
	"\t\ttype filter hook forward priority 0; policy accept;\n"
	"\t\tiifname \"gnt.com.*\" counter drop\n"
	"\t\toifname \"gnt.com.*\" counter drop\n"
	"\t}\n"
	"}\n";

void
gnt_channel_free(GntChannel *self)
{
	if (self == NULL)
		return;
	g_free(self->device);
	g_free(self->mac);
	g_free(self->ip);
	g_free(self);
}

/* A guest address: 169.254.0.0/16, neither the server's nor the network's
 * or broadcast address. */
static gboolean
check_guest_ip(const gchar *ip, GError **error)
{
	struct in_addr addr;
	guint32 host;

	if (ip == NULL || inet_pton(AF_INET, ip, &addr) != 1) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "channel address '%s' is not an IPv4 address", ip ? ip : "(null)");
		return FALSE;
	}
	host = ntohl(addr.s_addr);
	if ((host >> 16) != 0xa9fe || (host & 0xffff) == 0 || (host & 0xffff) == 0xffff ||
	    (host & 0xffff) == 0xa9fe) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "channel address '%s' is not a guest address in 169.254.0.0/16 "
			    "(other than 169.254.169.254)",
			    ip);
		return FALSE;
	}
	return TRUE;
}

/* Runs @argv (a tool from tool_dirs); GNT_ERROR_ENVIRONMENT with its output
 * when it fails. */
static gboolean
run_tool(const gchar *const *argv, GError **error)
{
	g_autofree gchar *output = NULL;
	gint status = 0;

	if (!gnt_subprocess_run(argv, NULL, COMMAND_TIMEOUT_S, &output, &status, error))
		return FALSE;
	if (status != 0) {
		g_autofree gchar *cmdline = g_strjoinv(" ", (gchar **)argv);

		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "'%s' failed (%d): %s",
			    cmdline, status, g_strstrip(output));
		return FALSE;
	}
	return TRUE;
}

static gboolean
write_sysctl(const gchar *family, const gchar *device, const gchar *name, const gchar *value,
	     gboolean optional, GError **error)
{
	/* /proc/sys, not sysctl(8): that one reads the dots of "gnt.com.0"
	 * as separators */
	g_autofree gchar *path =
		g_strdup_printf("/proc/sys/net/%s/conf/%s/%s", family, device, name);
	gint fd = open(path, O_WRONLY | O_CLOEXEC);
	gssize n;
	gint saved;

	if (fd < 0 && optional && errno == ENOENT)
		return TRUE; /* no IPv6 in this kernel: nothing to turn off */
	if (fd < 0) {
		saved = errno;
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "opening '%s': %s", path,
			    g_strerror(saved));
		return FALSE;
	}
	n = write(fd, value, strlen(value));
	saved = errno;
	close(fd);
	if (n != (gssize)strlen(value)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "writing '%s' to '%s': %s",
			    value, path, n < 0 ? g_strerror(saved) : "short write");
		return FALSE;
	}
	return TRUE;
}

gboolean
gnt_channel_configure_device(const gchar *device, const gchar *ip, GError **error)
{
	g_autofree gchar *route = g_strdup_printf("%s/32", ip);
	const gchar *const addr_argv[] = {
		"ip",  "-4",   "addr", "replace", GNT_CHANNEL_SERVER_ADDRESS "/32",
		"dev", device, NULL};
	const gchar *const up_argv[] = {"ip", "link", "set", "dev", device, "up", NULL};
	const gchar *const route_argv[] = {"ip",  "-4",	 "route", "replace",
					   route, "dev", device,  NULL};

	g_return_val_if_fail(device != NULL, FALSE);

	if (!check_guest_ip(ip, error))
		return FALSE;
	/* IPv6 off before the link comes up: no link-local address at all;
	 * rp_filter: a source address not routed through this device is
	 * dropped; arp_ignore: ARP answered only for this device's own
	 * address; forwarding off: nothing from the guest is routed on */
	if (!write_sysctl("ipv6", device, "disable_ipv6", "1", TRUE, error) ||
	    !write_sysctl("ipv4", device, "rp_filter", "1", FALSE, error) ||
	    !write_sysctl("ipv4", device, "arp_ignore", "1", FALSE, error) ||
	    !write_sysctl("ipv4", device, "forwarding", "0", FALSE, error) ||
	    !run_tool(addr_argv, error) || !run_tool(up_argv, error) ||
	    !run_tool(route_argv, error)) {
		g_prefix_error(error, "setting up channel device '%s': ", device);
		return FALSE;
	}
	return TRUE;
}

gboolean
gnt_channel_ensure_firewall(GError **error)
{
	/* gnt_subprocess_run() gives /dev/null as stdin: nft reads a file
	 * (root's own, 0600, in the sticky /tmp) */
	g_autofree gchar *path = NULL;
	gint fd = g_file_open_tmp("gnt-channel-XXXXXX.nft", &path, error);
	const gchar *const argv[] = {"nft", "-f", path, NULL};
	gsize len = strlen(gnt_channel_nft_table);
	gssize n;
	gint saved;
	gboolean ok;

	if (fd < 0) {
		g_prefix_error(error, "loading the nft table 'inet gantry': ");
		return FALSE;
	}
	n = write(fd, gnt_channel_nft_table, len);
	saved = errno;
	close(fd);
	ok = n == (gssize)len;
	if (!ok)
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "writing '%s': %s", path,
			    n < 0 ? g_strerror(saved) : "short write");
	else
		ok = run_tool(argv, error);
	g_unlink(path);
	if (!ok)
		g_prefix_error(error, "loading the nft table 'inet gantry': ");
	return ok;
}

/* The effective capabilities hold CAP_NET_ADMIN. */
static gboolean
have_net_admin(void)
{
	g_autofree gchar *status = NULL;
	const gchar *line;
	guint64 caps;

	if (!g_file_get_contents("/proc/self/status", &status, NULL, NULL))
		return FALSE;
	line = strstr(status, "\nCapEff:");
	if (line == NULL)
		return FALSE;
	caps = g_ascii_strtoull(line + strlen("\nCapEff:"), NULL, 16);
	return (caps >> CAP_NET_ADMIN_BIT) & 1;
}

static gboolean
tool_exists(const gchar *name)
{
	for (guint i = 0; tool_dirs[i] != NULL; i++) {
		g_autofree gchar *path = g_build_filename(tool_dirs[i], name, NULL);

		if (g_file_test(path, G_FILE_TEST_IS_EXECUTABLE))
			return TRUE;
	}
	return FALSE;
}

static gint
open_tun(GError **error)
{
	gint fd = open(TUN_PATH, O_RDWR | O_CLOEXEC);
	gint saved = errno;

	if (fd < 0)
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "cannot open '%s': %s%s",
			    TUN_PATH, g_strerror(saved),
			    saved == ENOENT ? " (no tun driver: modprobe tun)" : "");
	return fd;
}

gboolean
gnt_channel_tap_supported(GError **error)
{
	static const gchar *const tools[] = {"ip", "nft", NULL};
	gint fd = open_tun(error);

	if (fd < 0)
		return FALSE;
	close(fd);
	if (!have_net_admin()) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "no CAP_NET_ADMIN: taps need root (or that capability)");
		return FALSE;
	}
	for (guint i = 0; tools[i] != NULL; i++) {
		if (!tool_exists(tools[i])) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
				    "no '%s' program in /usr/sbin, /sbin, /usr/bin or /bin",
				    tools[i]);
			return FALSE;
		}
	}
	return TRUE;
}

/* Creates the persistent tap of the lowest free number: IFF_TUN_EXCL makes
 * the kernel refuse (EBUSY) a name in use, by a tap or anything else, so
 * there is no window between looking and taking. (transfer full) */
static gchar *
create_tap(GError **error)
{
	gint fd = open_tun(error);

	if (fd < 0)
		return NULL;
	for (guint n = 0; n < MAX_CHANNELS; n++) {
		struct ifreq ifr = {0};
		gint saved;

		g_snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), GNT_CHANNEL_DEVICE_PREFIX "%u", n);
		/* IFF_TUN_EXCL is 0x8000: ifr_flags is a short */
		ifr.ifr_flags = (short)(IFF_TAP | IFF_NO_PI | IFF_TUN_EXCL);
		if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
			saved = errno;
			if (saved == EBUSY || saved == EEXIST)
				continue;
			close(fd);
			g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
				    "cannot create tap '%s': %s%s", ifr.ifr_name, g_strerror(saved),
				    saved == EPERM ? " (no CAP_NET_ADMIN: taps need root)" : "");
			return NULL;
		}
		if (ioctl(fd, TUNSETPERSIST, 1) < 0) {
			saved = errno;
			close(fd); /* not persistent: closing deletes it */
			g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
				    "cannot make tap '%s' persistent: %s", ifr.ifr_name,
				    g_strerror(saved));
			return NULL;
		}
		close(fd);
		return g_strdup(ifr.ifr_name);
	}
	close(fd);
	g_set_error(error, GNT_ERROR, GNT_ERROR_NO_RESOURCES,
		    "no free tap name: '" GNT_CHANNEL_DEVICE_PREFIX
		    "0' to '" GNT_CHANNEL_DEVICE_PREFIX "%u' are all taken",
		    MAX_CHANNELS - 1);
	return NULL;
}

/* @owner as @device's alias (/sys/class/net/DEVICE/ifalias) */
static gboolean
set_alias(const gchar *device, const gchar *owner, GError **error)
{
	const gchar *const argv[] = {"ip", "link", "set", "dev", device, "alias", owner, NULL};

	if (!run_tool(argv, error)) {
		g_prefix_error(error, "naming channel device '%s': ", device);
		return FALSE;
	}
	return TRUE;
}

gboolean
gnt_channel_tap_create(const gchar *mac, const gchar *ip, const gchar *owner, GntChannel **out,
		       GError **error)
{
	g_autoptr(GntChannel) channel = NULL;
	g_autoptr(GError) cleanup_error = NULL;

	g_return_val_if_fail(out != NULL, FALSE);

	if (!gnt_net_parse_mac(mac, NULL)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "channel MAC '%s' is not of the form 52:54:00:ab:cd:ef",
			    mac ? mac : "(null)");
		return FALSE;
	}
	if (!check_guest_ip(ip, error))
		return FALSE;
	channel = g_new0(GntChannel, 1);
	channel->mac = g_ascii_strdown(mac, -1);
	channel->ip = g_strdup(ip);
	channel->device = create_tap(error);
	if (channel->device == NULL)
		return FALSE;
	if (!gnt_channel_configure_device(channel->device, ip, error) ||
	    (owner != NULL && !set_alias(channel->device, owner, error)) ||
	    !gnt_channel_ensure_firewall(error)) {
		if (!gnt_channel_tap_remove(channel->device, &cleanup_error))
			g_warning("%s", cleanup_error->message);
		return FALSE;
	}
	g_debug("channel '%s' for %s (%s) is up", channel->device, channel->ip, channel->mac);
	*out = g_steal_pointer(&channel);
	return TRUE;
}

static gboolean
is_channel_name(const gchar *device)
{
	const gchar *number;

	if (device == NULL || !g_str_has_prefix(device, GNT_CHANNEL_DEVICE_PREFIX))
		return FALSE;
	number = device + strlen(GNT_CHANNEL_DEVICE_PREFIX);
	if (*number == '\0' || strlen(device) >= IFNAMSIZ)
		return FALSE;
	for (; *number != '\0'; number++) {
		if (!g_ascii_isdigit(*number))
			return FALSE;
	}
	return TRUE;
}

gboolean
gnt_channel_tap_remove(const gchar *device, GError **error)
{
	const gchar *const argv[] = {"ip", "link", "delete", "dev", device, NULL};
	g_autofree gchar *output = NULL;
	gint status = 0;

	if (!is_channel_name(device)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "'%s' is not a channel tap ('" GNT_CHANNEL_DEVICE_PREFIX "N')",
			    device ? device : "(null)");
		return FALSE;
	}
	if (if_nametoindex(device) == 0)
		return TRUE; /* gone already */
	if (!gnt_subprocess_run(argv, NULL, COMMAND_TIMEOUT_S, &output, &status, error)) {
		g_prefix_error(error, "removing tap '%s': ", device);
		return FALSE;
	}
	/* gone between the look and the delete */
	if (status != 0 && if_nametoindex(device) != 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "removing tap '%s': 'ip link delete' failed (%d): %s", device, status,
			    g_strstrip(output));
		return FALSE;
	}
	g_debug("channel '%s' removed", device);
	return TRUE;
}
