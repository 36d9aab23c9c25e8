#pragma once /* metadata/gnt-dhcp.h: the one-client DHCP responder of a channel */

#include <gio/gio.h>
#include <netinet/in.h>

G_BEGIN_DECLS

/* RFC 2132 option 53 values (the ones we read or send). */
#define GNT_DHCP_DISCOVER 1
#define GNT_DHCP_OFFER	  2
#define GNT_DHCP_REQUEST  3
#define GNT_DHCP_DECLINE  4
#define GNT_DHCP_ACK	  5
#define GNT_DHCP_NAK	  6
#define GNT_DHCP_RELEASE  7
#define GNT_DHCP_INFORM	  8

#define GNT_DHCP_SERVER_PORT 67
#define GNT_DHCP_CLIENT_PORT 68
/* the fixed BOOTP header (236 bytes) and the magic cookie */
#define GNT_DHCP_MIN_LEN 240

/* The one lease a channel hands out (doc/metad.md "Channel"). */
typedef struct {
	gchar *device;		/* the tap */
	guint8 mac[6];		/* the only client answered */
	struct in_addr client;	/* its address, e.g. 169.254.12.34 */
	struct in_addr server;	/* 169.254.169.254 (also the "router"/server id) */
	struct in_addr netmask; /* 255.255.0.0 */
	guint32 lease_s;	/* 86400 */
} GntDhcpLease;

/* What a client's message says, as far as we need it. Addresses in network
 * order; 0.0.0.0 when absent. */
typedef struct {
	guint8 msg_type;	  /* option 53: GNT_DHCP_DISCOVER... */
	guint32 xid;		  /* as on the wire (network order), copied back */
	guint16 flags;		  /* network order */
	guint8 chaddr[6];	  /* the client's MAC */
	struct in_addr ciaddr;	  /* its current address (RENEWING, REBINDING) */
	struct in_addr giaddr;	  /* a relay's address */
	struct in_addr requested; /* option 50 */
	struct in_addr server_id; /* option 54: the server the client chose */
} GntDhcpRequest;

typedef struct _GntDhcpResponder GntDhcpResponder;

/*
 * Answers the client of @lease (copied) on @lease->device: a UDP socket on
 * 0.0.0.0:67 bound with SO_BINDTODEVICE to the device (and SO_BROADCAST;
 * deliberately without SO_REUSEADDR, see doc/metad.md "Channel"), served in
 * the thread-default main context of the caller: DISCOVER -> OFFER,
 * REQUEST -> ACK for the lease's address (NAK for another), from
 * @lease->mac only (others ignored, logged at debug, as are malformed
 * messages); replies are broadcast on that device, or sent to the client's
 * address when it has one (renewing). GNT_ERROR_ENVIRONMENT
 * naming the device when the socket cannot be made (no such device, port 67
 * taken on it, not root). (transfer full)
 */
GntDhcpResponder *
gnt_dhcp_responder_new(const GntDhcpLease *lease, GError **error);
void
gnt_dhcp_responder_free(GntDhcpResponder *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntDhcpResponder, gnt_dhcp_responder_free)

/* How many replies the responder has sent (tests). */
guint
gnt_dhcp_responder_get_n_replies(GntDhcpResponder *self);

/*
 * The pure codec, for the responder, tests and the fuzzer. Parses a
 * BOOTREQUEST of @len bytes into @out: GNT_ERROR_INVALID naming what is
 * wrong (too short, op not BOOTREQUEST, htype/hlen not Ethernet, no magic
 * cookie, an option running past the end, no or a bad option 53, a bad
 * length of option 50/54).
 */
gboolean
gnt_dhcp_parse_request(const guint8 *data, gsize len, GntDhcpRequest *out, GError **error);

/*
 * The reply of type @msg_type (GNT_DHCP_OFFER, _ACK or _NAK) to @request
 * for @lease: OFFER and ACK carry yiaddr = the lease's address and options
 * 53, 54 (server id), 51 (lease time), 1 (subnet mask), 3 (router = the
 * server), 255; a NAK only 53, 54, 255 (RFC 2131 table 3). (transfer full)
 */
GBytes *
gnt_dhcp_build_reply(const GntDhcpLease *lease, const GntDhcpRequest *request, guint8 msg_type);

/*
 * What the responder answers to @request (GNT_DHCP_OFFER, _ACK, _NAK), or
 * 0 for no answer, with the reason in *@why (static): another MAC, another
 * server chosen, a type we do not answer.
 */
guint8
gnt_dhcp_decide(const GntDhcpLease *lease, const GntDhcpRequest *request, const gchar **why);

/* Frees the lease's members (not the struct). */
void
gnt_dhcp_lease_clear(GntDhcpLease *lease);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(GntDhcpLease, gnt_dhcp_lease_clear)

G_END_DECLS
