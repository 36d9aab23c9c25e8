#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The kernel's queue of connections not yet accepted: bursts wait there
 * instead of being refused. */
#define GNT_NET_LISTEN_BACKLOG 4096

/*
 * A TCP socket listening on @address (an IPv4 or IPv6 literal) and @port
 * (0: the kernel picks one): non-blocking, SO_REUSEADDR, a backlog of
 * GNT_NET_LISTEN_BACKLOG. What it is bound to: *@bound_port, and *@uri
 * "SCHEME://HOST:PORT/" (an IPv6 host in brackets; transfer full).
 * GNT_ERROR_INVALID for a bad address or port; a failure to bind or listen
 * is GNT_ERROR_ENVIRONMENT "listening on ADDRESS port PORT: ...".
 * (transfer full)
 */
GSocket *
gnt_net_listen(const gchar *address, guint port, const gchar *scheme, guint *bound_port,
	       gchar **uri, GError **error);

/* Parses a MAC address written "52:54:00:ab:cd:ef" (hex digits in either
 * case) into @out (nullable: only checks). FALSE if @text (nullable) is
 * anything else. */
gboolean
gnt_net_parse_mac(const gchar *text, guint8 *out);

G_END_DECLS
