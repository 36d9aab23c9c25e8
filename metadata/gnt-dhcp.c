/* The one-client DHCP responder of a channel (RFC 2131/2132, only what
 * busybox udhcpc, dhclient and systemd-networkd need): see gnt-dhcp.h and
 * doc/metad.md "Channel". */
#include "gnt-dhcp.h"

#include <errno.h>
#include <glib-unix.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gnt-error.h"

#define BOOTREQUEST  1
#define BOOTREPLY    2
#define HTYPE_ETHER  1
#define HLEN_ETHER   6
#define MAGIC_COOKIE 0x63825363u

/* offsets in the fixed header */
#define OFF_OP	   0
#define OFF_HTYPE  1
#define OFF_HLEN   2
#define OFF_XID	   4
#define OFF_FLAGS  10
#define OFF_CIADDR 12
#define OFF_YIADDR 16
#define OFF_GIADDR 24
#define OFF_CHADDR 28
#define OFF_COOKIE 236

#define OPT_PAD	       0
#define OPT_SUBNET     1
#define OPT_ROUTER     3
#define OPT_REQUESTED  50
#define OPT_LEASE_TIME 51
#define OPT_MSG_TYPE   53
#define OPT_SERVER_ID  54
#define OPT_END	       255

/* BOOTP's minimum message size; some clients drop shorter replies */
#define REPLY_MIN_LEN 300
/* larger than any DHCP message over Ethernet without fragments */
#define RECV_BUF_LEN 2048

struct _GntDhcpResponder {
	GntDhcpLease lease;
	gint fd;
	GSource *source;
	guint n_replies;
};

void
gnt_dhcp_lease_clear(GntDhcpLease *lease)
{
	g_clear_pointer(&lease->device, g_free);
}

static guint32
read_be32(const guint8 *p)
{
	return ((guint32)p[0] << 24) | ((guint32)p[1] << 16) | ((guint32)p[2] << 8) | p[3];
}

static void
write_be32(guint8 *p, guint32 v)
{
	p[0] = (guint8)(v >> 24);
	p[1] = (guint8)(v >> 16);
	p[2] = (guint8)(v >> 8);
	p[3] = (guint8)v;
}

static gboolean
read_address_option(const guint8 *value, guint8 optlen, guint8 code, struct in_addr *out,
		    GError **error)
{
	if (optlen != 4) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "option %u has length %u, not 4",
			    code, optlen);
		return FALSE;
	}
	memcpy(&out->s_addr, value, 4);
	return TRUE;
}

gboolean
gnt_dhcp_parse_request(const guint8 *data, gsize len, GntDhcpRequest *out, GError **error)
{
	gboolean have_type = FALSE;
	gsize i = GNT_DHCP_MIN_LEN;

	g_return_val_if_fail(data != NULL || len == 0, FALSE);
	g_return_val_if_fail(out != NULL, FALSE);

	memset(out, 0, sizeof(*out));
	if (len < GNT_DHCP_MIN_LEN) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "message of %" G_GSIZE_FORMAT " bytes is shorter than the %u of a "
			    "DHCP header",
			    len, (guint)GNT_DHCP_MIN_LEN);
		return FALSE;
	}
	if (data[OFF_OP] != BOOTREQUEST) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "op %u is not BOOTREQUEST (1)",
			    data[OFF_OP]);
		return FALSE;
	}
	if (data[OFF_HTYPE] != HTYPE_ETHER || data[OFF_HLEN] != HLEN_ETHER) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "hardware type %u with address length %u is not Ethernet (1, 6)",
			    data[OFF_HTYPE], data[OFF_HLEN]);
		return FALSE;
	}
	if (read_be32(data + OFF_COOKIE) != MAGIC_COOKIE) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "no DHCP magic cookie (0x%08x instead of 0x63825363)",
			    read_be32(data + OFF_COOKIE));
		return FALSE;
	}
	memcpy(&out->xid, data + OFF_XID, 4);
	memcpy(&out->flags, data + OFF_FLAGS, 2);
	memcpy(&out->ciaddr.s_addr, data + OFF_CIADDR, 4);
	memcpy(&out->giaddr.s_addr, data + OFF_GIADDR, 4);
	memcpy(out->chaddr, data + OFF_CHADDR, 6);

	/* options: code, length, value; PAD alone; END (or the end of the
	 * message: some clients leave it out) stops */
	while (i < len && data[i] != OPT_END) {
		guint8 code = data[i];
		guint8 optlen;
		const guint8 *value;

		if (code == OPT_PAD) {
			i++;
			continue;
		}
		if (i + 1 >= len) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "option %u at offset %" G_GSIZE_FORMAT " has no length", code,
				    i);
			return FALSE;
		}
		optlen = data[i + 1];
		if (i + 2 + optlen > len) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "option %u at offset %" G_GSIZE_FORMAT
				    " of length %u runs past the end (%" G_GSIZE_FORMAT " bytes)",
				    code, i, optlen, len);
			return FALSE;
		}
		value = data + i + 2;
		switch (code) {
		case OPT_MSG_TYPE:
			if (optlen != 1 || value[0] < GNT_DHCP_DISCOVER ||
			    value[0] > GNT_DHCP_INFORM) {
				g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "bad message type (option 53 of length %u, first byte "
					    "%u)",
					    optlen, optlen > 0 ? value[0] : 0);
				return FALSE;
			}
			out->msg_type = value[0];
			have_type = TRUE;
			break;
		case OPT_REQUESTED:
			if (!read_address_option(value, optlen, code, &out->requested, error))
				return FALSE;
			break;
		case OPT_SERVER_ID:
			if (!read_address_option(value, optlen, code, &out->server_id, error))
				return FALSE;
			break;
		default:
			break; /* hostname, parameter list, client id...: not needed */
		}
		i += 2 + optlen;
	}
	if (!have_type) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "no message type (option 53): a BOOTP message, not DHCP");
		return FALSE;
	}
	return TRUE;
}

static guint8 *
put_option(guint8 *p, guint8 code, const void *value, guint8 len)
{
	p[0] = code;
	p[1] = len;
	memcpy(p + 2, value, len);
	return p + 2 + len;
}

GBytes *
gnt_dhcp_build_reply(const GntDhcpLease *lease, const GntDhcpRequest *request, guint8 msg_type)
{
	guint8 *msg;
	guint8 *p;
	guint8 lease_be[4];

	g_return_val_if_fail(lease != NULL && request != NULL, NULL);
	g_return_val_if_fail(msg_type == GNT_DHCP_OFFER || msg_type == GNT_DHCP_ACK ||
				     msg_type == GNT_DHCP_NAK,
			     NULL);

	/* header, cookie, 5 options of at most 6 bytes, END: well below 300 */
	msg = g_malloc0(REPLY_MIN_LEN);
	msg[OFF_OP] = BOOTREPLY;
	msg[OFF_HTYPE] = HTYPE_ETHER;
	msg[OFF_HLEN] = HLEN_ETHER;
	memcpy(msg + OFF_XID, &request->xid, 4);
	memcpy(msg + OFF_FLAGS, &request->flags, 2);
	/* RFC 2131 table 3: ciaddr only in an ACK; yiaddr not in a NAK */
	if (msg_type == GNT_DHCP_ACK)
		memcpy(msg + OFF_CIADDR, &request->ciaddr.s_addr, 4);
	if (msg_type != GNT_DHCP_NAK)
		memcpy(msg + OFF_YIADDR, &lease->client.s_addr, 4);
	memcpy(msg + OFF_GIADDR, &request->giaddr.s_addr, 4);
	memcpy(msg + OFF_CHADDR, request->chaddr, 6);
	write_be32(msg + OFF_COOKIE, MAGIC_COOKIE);

	p = msg + GNT_DHCP_MIN_LEN;
	p = put_option(p, OPT_MSG_TYPE, &msg_type, 1);
	p = put_option(p, OPT_SERVER_ID, &lease->server.s_addr, 4);
	if (msg_type != GNT_DHCP_NAK) {
		write_be32(lease_be, lease->lease_s);
		p = put_option(p, OPT_LEASE_TIME, lease_be, 4);
		p = put_option(p, OPT_SUBNET, &lease->netmask.s_addr, 4);
		p = put_option(p, OPT_ROUTER, &lease->server.s_addr, 4);
	}
	*p = OPT_END;
	return g_bytes_new_take(msg, REPLY_MIN_LEN);
}

guint8
gnt_dhcp_decide(const GntDhcpLease *lease, const GntDhcpRequest *request, const gchar **why)
{
	struct in_addr wanted;

	*why = NULL;
	if (memcmp(request->chaddr, lease->mac, 6) != 0) {
		*why = "from another MAC than the lease's";
		return 0;
	}
	switch (request->msg_type) {
	case GNT_DHCP_DISCOVER:
		return GNT_DHCP_OFFER;
	case GNT_DHCP_REQUEST:
		if (request->server_id.s_addr != 0 &&
		    request->server_id.s_addr != lease->server.s_addr) {
			*why = "a REQUEST for another server";
			return 0;
		}
		/* SELECTING and INIT-REBOOT name the address in option 50,
		 * RENEWING and REBINDING in ciaddr */
		wanted = request->requested.s_addr != 0 ? request->requested : request->ciaddr;
		if (wanted.s_addr != lease->client.s_addr) {
			*why = "a REQUEST for another address";
			return GNT_DHCP_NAK;
		}
		return GNT_DHCP_ACK;
	default:
		*why = "a message type not answered (only DISCOVER and REQUEST are)";
		return 0;
	}
}

static void
mac_to_string(const guint8 mac[6], gchar out[18])
{
	g_snprintf(out, 18, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4],
		   mac[5]);
}

static void
handle_message(GntDhcpResponder *self, const guint8 *data, gsize len)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GBytes) reply = NULL;
	GntDhcpRequest request;
	struct sockaddr_in to = {.sin_family = AF_INET,
				 .sin_port = htons(GNT_DHCP_CLIENT_PORT),
				 .sin_addr.s_addr = htonl(INADDR_BROADCAST)};
	const gchar *why = NULL;
	gchar mac[18];
	guint8 type;
	gsize reply_len = 0;
	const guint8 *reply_data;

	if (!gnt_dhcp_parse_request(data, len, &request, &error)) {
		g_debug("DHCP on '%s': dropped a message: %s", self->lease.device, error->message);
		return;
	}
	mac_to_string(request.chaddr, mac);
	type = gnt_dhcp_decide(&self->lease, &request, &why);
	if (why != NULL)
		g_debug("DHCP on '%s': message type %u from %s: %s", self->lease.device,
			request.msg_type, mac, why);
	if (type == 0)
		return;
	reply = gnt_dhcp_build_reply(&self->lease, &request, type);
	reply_data = g_bytes_get_data(reply, &reply_len);
	/* RFC 2131 4.1: to ciaddr when the client has an address (renewing:
	 * systemd-networkd listens on that address only), else broadcast:
	 * the client has no address yet (and no ARP entry); a NAK always.
	 * Only to the lease's address: a client names ciaddr at will */
	if (type != GNT_DHCP_NAK && request.ciaddr.s_addr == self->lease.client.s_addr)
		to.sin_addr = request.ciaddr;
	if (sendto(self->fd, reply_data, reply_len, 0, (struct sockaddr *)&to, sizeof(to)) < 0) {
		g_warning("DHCP on '%s': cannot send the reply to %s: %s", self->lease.device, mac,
			  g_strerror(errno));
		return;
	}
	self->n_replies++;
	g_debug("DHCP on '%s': message type %u from %s answered with type %u", self->lease.device,
		request.msg_type, mac, type);
}

static gboolean
responder_readable_cb(gint fd, GIOCondition condition, gpointer user_data)
{
	GntDhcpResponder *self = user_data;
	guint8 buf[RECV_BUF_LEN];

	for (;;) {
		gssize n = recv(fd, buf, sizeof(buf), MSG_TRUNC);

		if (n < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				g_debug("DHCP on '%s': receiving: %s", self->lease.device,
					g_strerror(errno));
			break;
		}
		if ((gsize)n > sizeof(buf)) {
			g_debug("DHCP on '%s': dropped a message of %" G_GSSIZE_FORMAT " bytes",
				self->lease.device, n);
			continue;
		}
		handle_message(self, buf, (gsize)n);
	}
	return G_SOURCE_CONTINUE;
}

static gboolean
set_int_option(gint fd, gint option, const gchar *device, GError **error)
{
	gint one = 1;

	if (setsockopt(fd, SOL_SOCKET, option, &one, sizeof(one)) < 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "DHCP on device '%s': setting socket option %d: %s", device, option,
			    g_strerror(errno));
		return FALSE;
	}
	return TRUE;
}

GntDhcpResponder *
gnt_dhcp_responder_new(const GntDhcpLease *lease, GError **error)
{
	g_autoptr(GMainContext) context = g_main_context_ref_thread_default();
	g_autoptr(GntDhcpResponder) self = NULL;
	struct sockaddr_in addr = {.sin_family = AF_INET,
				   .sin_port = htons(GNT_DHCP_SERVER_PORT),
				   .sin_addr.s_addr = htonl(INADDR_ANY)};

	g_return_val_if_fail(lease != NULL && lease->device != NULL, NULL);

	if (*lease->device == '\0' || strlen(lease->device) >= IFNAMSIZ) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "DHCP on device '%s': not a network device name", lease->device);
		return NULL;
	}
	self = g_new0(GntDhcpResponder, 1);
	self->lease = *lease;
	self->lease.device = g_strdup(lease->device);
	self->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (self->fd < 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "DHCP on device '%s': making a UDP socket: %s", lease->device,
			    g_strerror(errno));
		return NULL;
	}
	/* the device before the port: bound to different devices, sockets
	 * share port 67; no SO_REUSEADDR, so no unbound socket can join */
	if (setsockopt(self->fd, SOL_SOCKET, SO_BINDTODEVICE, lease->device,
		       (socklen_t)strlen(lease->device) + 1) < 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "DHCP on device '%s': binding to the device: %s", lease->device,
			    g_strerror(errno));
		return NULL;
	}
	if (!set_int_option(self->fd, SO_BROADCAST, lease->device, error))
		return NULL;
	if (bind(self->fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "DHCP on device '%s': binding UDP port %u: %s", lease->device,
			    (guint)GNT_DHCP_SERVER_PORT, g_strerror(errno));
		return NULL;
	}
	self->source = g_unix_fd_source_new(self->fd, G_IO_IN);
	g_source_set_callback(self->source, G_SOURCE_FUNC(responder_readable_cb), self, NULL);
	g_source_set_static_name(self->source, "gnt-dhcp-responder");
	g_source_attach(self->source, context);
	return g_steal_pointer(&self);
}

guint
gnt_dhcp_responder_get_n_replies(GntDhcpResponder *self)
{
	g_return_val_if_fail(self != NULL, 0);
	return self->n_replies;
}

void
gnt_dhcp_responder_free(GntDhcpResponder *self)
{
	if (self == NULL)
		return;
	if (self->source != NULL) {
		g_source_destroy(self->source);
		g_source_unref(self->source);
	}
	if (self->fd >= 0)
		close(self->fd);
	gnt_dhcp_lease_clear(&self->lease);
	g_free(self);
}
