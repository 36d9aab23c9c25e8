#pragma once /* hypervisor/gnt-channel.h: the node's tap channel of an instance */

#include <glib.h>

G_BEGIN_DECLS

/*
 * The link-local channel of one instance on this node (doc/metad.md
 * "Channel"): a routed tap whose host side is 169.254.169.254/32, so that
 * metad's listener and DHCP responder bound to the tap know who asks.
 * Every call blocks (it runs `ip` and `nft`): call it from a worker thread.
 */
typedef struct {
	gchar *device; /* "gnt.com.N" */
	gchar *mac;    /* the guest's MAC, "52:54:00:ab:cd:ef" */
	gchar *ip;     /* the guest's address, 169.254.x.y */
} GntChannel;

void
gnt_channel_free(GntChannel *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntChannel, gnt_channel_free)

/* The prefix of every channel tap's name, and the host side's address. */
#define GNT_CHANNEL_DEVICE_PREFIX  "gnt.com."
#define GNT_CHANNEL_SERVER_ADDRESS "169.254.169.254"
/* the guests' netmask on the channel: 169.254.0.0/16 */
#define GNT_CHANNEL_NETMASK "255.255.0.0"

/*
 * Creates a persistent tap "gnt.com.N" (N the lowest free), host side
 * 169.254.169.254/32, route @ip/32 dev tap, rp_filter=1, arp_ignore=1,
 * forwarding=0, IPv6 off, link up; makes sure the nft table "inet gantry"
 * exists (only TCP to 169.254.169.254:80 and DHCP (UDP 67) from gnt.com.*
 * taps; no forwarding from or to them). *@out (transfer full) has the tap's
 * name in ->device. GNT_ERROR_INVALID for a malformed @mac or an @ip not in
 * 169.254.0.0/16 (or 169.254.169.254 itself); GNT_ERROR_ENVIRONMENT with
 * the reason when taps cannot be made (no CAP_NET_ADMIN, no /dev/net/tun)
 * or configured; nothing is left behind on failure. @owner (nullable)
 * becomes the tap's alias, which `ip link` shows: noded gives the domain
 * name of the instance the tap serves, since the tap's own name says
 * nothing of it.
 */
gboolean
gnt_channel_tap_create(const gchar *mac, const gchar *ip, const gchar *owner, GntChannel **out,
		       GError **error);

/*
 * Deletes the tap @device (its address and route go with it). A device
 * that is gone already is fine (TRUE). GNT_ERROR_INVALID for a name that
 * is not a channel's ("gnt.com.N"): nothing else is ever deleted.
 */
gboolean
gnt_channel_tap_remove(const gchar *device, GError **error);

/* Whether taps can be made here (else the runner falls back to slirp):
 * /dev/net/tun opens and we have CAP_NET_ADMIN; GNT_ERROR_ENVIRONMENT with
 * the reason otherwise. */
gboolean
gnt_channel_tap_supported(GError **error);

G_END_DECLS
