#pragma once /* hypervisor/gnt-channel-private.h: for gnt-channel.c and its tests */

#include "gnt-channel.h"

G_BEGIN_DECLS

/* The host side of a channel on an existing @device (a tap; a veth in the
 * isolation test): 169.254.169.254/32, route @ip/32, the sysctls, link up.
 * Idempotent. */
gboolean
gnt_channel_configure_device(const gchar *device, const gchar *ip, GError **error);

/* Loads the nft table "inet gantry" unless it exists already. */
gboolean
gnt_channel_ensure_firewall(GError **error);

/* The table's text, as given to `nft -f -`. */
extern const gchar gnt_channel_nft_table[];

G_END_DECLS
