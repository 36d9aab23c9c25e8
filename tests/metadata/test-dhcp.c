/* The channel's DHCP responder (metadata/gnt-dhcp.h): the codec on
 * hand-built messages, good and malformed, byte for byte; what it answers
 * to whom; and real exchanges with busybox's udhcpc in a network namespace
 * behind a veth, two responders sharing port 67 on two devices. */
#define _GNU_SOURCE /* unshare() in netns-test.h */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <sys/socket.h>

#include "gnt-dhcp.h"
#include "gnt-error.h"
#include "gnt-net.h"
#include "netns-test.h"

#define LEASE_MAC "52:54:00:ab:cd:ef"
#define OTHER_MAC "52:54:00:00:00:99"
#define LEASE_IP  "169.254.12.34"
#define SERVER_IP "169.254.169.254"
#define NETMASK	  "255.255.0.0"
#define XID	  0x3903f326u
#define COOKIE	  0x63, 0x82, 0x53, 0x63

static void
lease_init(GntDhcpLease *lease, const gchar *device, const gchar *mac, const gchar *ip)
{
	memset(lease, 0, sizeof(*lease));
	lease->device = g_strdup(device);
	g_assert_true(gnt_net_parse_mac(mac, lease->mac));
	g_assert_cmpint(inet_pton(AF_INET, ip, &lease->client), ==, 1);
	g_assert_cmpint(inet_pton(AF_INET, SERVER_IP, &lease->server), ==, 1);
	g_assert_cmpint(inet_pton(AF_INET, NETMASK, &lease->netmask), ==, 1);
	lease->lease_s = 86400;
}

/* A BOOTREQUEST header (op, htype, hlen as given), the cookie unless
 * @cookie is FALSE, then @options as they are. (transfer full) */
static GByteArray *
build_message(guint8 op, guint8 htype, guint8 hlen, gboolean cookie, const guint8 *options,
	      gsize options_len)
{
	static const guint8 magic[] = {COOKIE};
	GByteArray *msg = g_byte_array_sized_new(300);
	guint8 header[236] = {0};
	guint8 mac[6];
	guint32 xid = htonl(XID);

	header[0] = op;
	header[1] = htype;
	header[2] = hlen;
	memcpy(header + 4, &xid, 4);
	header[10] = 0x80; /* broadcast flag */
	g_assert_true(gnt_net_parse_mac(LEASE_MAC, mac));
	memcpy(header + 28, mac, 6);
	g_byte_array_append(msg, header, sizeof(header));
	if (cookie)
		g_byte_array_append(msg, magic, sizeof(magic));
	else
		g_byte_array_append(msg, (const guint8 *)"\0\0\0\0", 4);
	g_byte_array_append(msg, options, (guint)options_len);
	return msg;
}

/* What busybox udhcpc 1.35 sends: message type, client id, parameter
 * list, a pad, END. */
static const guint8 discover_options[] = {
	53, 1, 1,				      /* DISCOVER */
	61, 7, 1, 0x52, 0x54, 0x00, 0xab, 0xcd, 0xef, /* client id */
	55, 4, 1, 3,	6,    12,		      /* parameter request list */
	0,					      /* pad */
	255};

static void
parse_ok(const guint8 *options, gsize len, GntDhcpRequest *out)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GByteArray) msg = build_message(1, 1, 6, TRUE, options, len);

	g_assert_true(gnt_dhcp_parse_request(msg->data, msg->len, out, &error));
	g_assert_no_error(error);
}

static void
test_parse_discover(void)
{
	GntDhcpRequest req;
	guint8 mac[6];

	parse_ok(discover_options, sizeof(discover_options), &req);
	g_assert_cmpuint(req.msg_type, ==, GNT_DHCP_DISCOVER);
	g_assert_cmphex(ntohl(req.xid), ==, XID);
	g_assert_cmphex(ntohs(req.flags), ==, 0x8000);
	g_assert_true(gnt_net_parse_mac(LEASE_MAC, mac));
	g_assert_cmpmem(req.chaddr, 6, mac, 6);
	g_assert_cmpuint(req.requested.s_addr, ==, 0);
	g_assert_cmpuint(req.server_id.s_addr, ==, 0);
	g_assert_cmpuint(req.ciaddr.s_addr, ==, 0);
}

static void
test_parse_request(void)
{
	/* SELECTING: options 50 and 54, no END (some clients leave it out) */
	static const guint8 options[] = {53, 1,	 3, 50,	 4,   169, 254, 12,
					 34, 54, 4, 169, 254, 169, 254};
	GntDhcpRequest req;

	parse_ok(options, sizeof(options), &req);
	g_assert_cmpuint(req.msg_type, ==, GNT_DHCP_REQUEST);
	g_assert_cmpstr(inet_ntoa(req.requested), ==, LEASE_IP);
	g_assert_cmpstr(inet_ntoa(req.server_id), ==, SERVER_IP);
}

typedef struct {
	const gchar *what;
	guint8 op, htype, hlen;
	gboolean cookie;
	const guint8 *options;
	gsize options_len;
	gsize truncate_to; /* 0: whole */
	const gchar *error;
} Malformed;

static void
test_parse_malformed(void)
{
	static const guint8 past_end[] = {53, 1, 1, 12, 9, 'h', 'o', 's', 't'};
	static const guint8 no_length[] = {53, 1, 1, 12};
	static const guint8 no_type[] = {12, 4, 'h', 'o', 's', 't', 255};
	static const guint8 type_too_long[] = {53, 2, 1, 1, 255};
	static const guint8 type_zero[] = {53, 1, 0, 255};
	static const guint8 short_requested[] = {53, 1, 3, 50, 3, 169, 254, 12, 255};
	static const guint8 long_server_id[] = {53, 1, 3, 54, 5, 169, 254, 169, 254, 0, 255};
	const Malformed cases[] = {
		{"truncated", 1, 1, 6, TRUE, discover_options, sizeof(discover_options), 100,
		 "message of 100 bytes is shorter than the 240 of a DHCP header"},
		{"empty", 1, 1, 6, TRUE, discover_options, sizeof(discover_options), 1,
		 "message of 1 bytes is shorter"},
		{"no cookie", 1, 1, 6, FALSE, discover_options, sizeof(discover_options), 0,
		 "no DHCP magic cookie (0x00000000 instead of 0x63825363)"},
		{"wrong op", 2, 1, 6, TRUE, discover_options, sizeof(discover_options), 0,
		 "op 2 is not BOOTREQUEST (1)"},
		{"wrong hlen", 1, 1, 16, TRUE, discover_options, sizeof(discover_options), 0,
		 "hardware type 1 with address length 16 is not Ethernet (1, 6)"},
		{"wrong htype", 1, 6, 6, TRUE, discover_options, sizeof(discover_options), 0,
		 "hardware type 6 with address length 6 is not Ethernet"},
		{"option past the end", 1, 1, 6, TRUE, past_end, sizeof(past_end), 0,
		 "option 12 at offset 243 of length 9 runs past the end (249 bytes)"},
		{"option without length", 1, 1, 6, TRUE, no_length, sizeof(no_length), 0,
		 "option 12 at offset 243 has no length"},
		{"no message type", 1, 1, 6, TRUE, no_type, sizeof(no_type), 0,
		 "no message type (option 53)"},
		{"message type too long", 1, 1, 6, TRUE, type_too_long, sizeof(type_too_long), 0,
		 "bad message type (option 53 of length 2"},
		{"message type 0", 1, 1, 6, TRUE, type_zero, sizeof(type_zero), 0,
		 "bad message type (option 53 of length 1, first byte 0)"},
		{"short option 50", 1, 1, 6, TRUE, short_requested, sizeof(short_requested), 0,
		 "option 50 has length 3, not 4"},
		{"long option 54", 1, 1, 6, TRUE, long_server_id, sizeof(long_server_id), 0,
		 "option 54 has length 5, not 4"},
		{"header only", 1, 1, 6, TRUE, NULL, 0, 0, "no message type (option 53)"},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		const Malformed *c = &cases[i];
		g_autoptr(GByteArray) msg = build_message(c->op, c->htype, c->hlen, c->cookie,
							  c->options, c->options_len);
		g_autoptr(GError) error = NULL;
		GntDhcpRequest req;
		gsize len = c->truncate_to != 0 ? c->truncate_to : msg->len;

		g_test_message("%s", c->what);
		g_assert_false(gnt_dhcp_parse_request(msg->data, len, &req, &error));
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		if (strstr(error->message, c->error) == NULL)
			g_error("%s: '%s' is not in '%s'", c->what, c->error, error->message);
	}
}

static GntDhcpRequest
request_of(guint8 type, const gchar *mac, const gchar *requested, const gchar *server_id,
	   const gchar *ciaddr)
{
	GntDhcpRequest req = {.msg_type = type, .xid = htonl(XID), .flags = htons(0x8000)};

	g_assert_true(gnt_net_parse_mac(mac, req.chaddr));
	if (requested != NULL)
		g_assert_cmpint(inet_pton(AF_INET, requested, &req.requested), ==, 1);
	if (server_id != NULL)
		g_assert_cmpint(inet_pton(AF_INET, server_id, &req.server_id), ==, 1);
	if (ciaddr != NULL)
		g_assert_cmpint(inet_pton(AF_INET, ciaddr, &req.ciaddr), ==, 1);
	return req;
}

static void
test_build_offer(void)
{
	/* the expected bytes, written out from RFC 2131 and 2132 */
	static const guint8 options[] = {COOKIE, 53, 1,	  2,		   /* OFFER */
					 54,	 4,  169, 254, 169,  254,  /* server id */
					 51,	 4,  0,	  1,   0x51, 0x80, /* 86400 s */
					 1,	 4,  255, 255, 0,    0,	   /* subnet mask */
					 3,	 4,  169, 254, 169,  254,  /* router */
					 255};
	g_auto(GntDhcpLease) lease = {0};
	GntDhcpRequest req = request_of(GNT_DHCP_DISCOVER, LEASE_MAC, NULL, NULL, NULL);
	g_autoptr(GBytes) reply = NULL;
	const guint8 *p;
	gsize len;
	guint8 expected_head[28] = {2,	 1,   6,    0,	0x39, 0x03, 0xf3, 0x26,
				    0,	 0,   0x80, 0,	0,    0,    0,	  0, /* ciaddr */
				    169, 254, 12,   34,			     /* yiaddr */
				    0,	 0,   0,    0,			     /* siaddr */
				    0,	 0,   0,    0};			     /* giaddr */

	lease_init(&lease, "gnt.com.0", LEASE_MAC, LEASE_IP);
	reply = gnt_dhcp_build_reply(&lease, &req, GNT_DHCP_OFFER);
	p = g_bytes_get_data(reply, &len);
	g_assert_cmpuint(len, ==, 300);
	g_assert_cmpmem(p, 28, expected_head, 28);
	g_assert_cmpmem(p + 28, 6, lease.mac, 6);
	for (gsize i = 34; i < 236; i++)
		g_assert_cmpuint(p[i], ==, 0); /* rest of chaddr, sname, file */
	g_assert_cmpmem(p + 236, sizeof(options), options, sizeof(options));
	for (gsize i = 236 + sizeof(options); i < len; i++)
		g_assert_cmpuint(p[i], ==, 0);
}

static void
test_build_ack_nak(void)
{
	static const guint8 nak_options[] = {COOKIE, 53, 1, 6, 54, 4, 169, 254, 169, 254, 255};
	g_auto(GntDhcpLease) lease = {0};
	GntDhcpRequest renew = request_of(GNT_DHCP_REQUEST, LEASE_MAC, NULL, NULL, LEASE_IP);
	GntDhcpRequest other = request_of(GNT_DHCP_REQUEST, LEASE_MAC, "169.254.7.7", NULL, NULL);
	g_autoptr(GBytes) ack = NULL;
	g_autoptr(GBytes) nak = NULL;
	const guint8 *p;
	GntDhcpRequest back;
	g_autoptr(GError) error = NULL;

	lease_init(&lease, "gnt.com.0", LEASE_MAC, LEASE_IP);
	/* an ACK to a renewal carries ciaddr back, and yiaddr */
	ack = gnt_dhcp_build_reply(&lease, &renew, GNT_DHCP_ACK);
	p = g_bytes_get_data(ack, NULL);
	g_assert_cmpuint(p[0], ==, 2);
	g_assert_cmpmem(p + 12, 4, &lease.client.s_addr, 4);
	g_assert_cmpmem(p + 16, 4, &lease.client.s_addr, 4);
	g_assert_cmpuint(p[240 + 2], ==, GNT_DHCP_ACK);
	/* a NAK: no address, only type and server id */
	nak = gnt_dhcp_build_reply(&lease, &other, GNT_DHCP_NAK);
	p = g_bytes_get_data(nak, NULL);
	for (gsize i = 12; i < 20; i++)
		g_assert_cmpuint(p[i], ==, 0);
	g_assert_cmpmem(p + 236, sizeof(nak_options), nak_options, sizeof(nak_options));
	/* a reply is not a request: our own parser refuses it by its op */
	g_assert_false(gnt_dhcp_parse_request(p, 300, &back, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
}

static void
test_decide(void)
{
	g_auto(GntDhcpLease) lease = {0};
	const gchar *why = NULL;
	struct {
		GntDhcpRequest req;
		guint8 answer;
		const gchar *why;
	} cases[] = {
		{request_of(GNT_DHCP_DISCOVER, LEASE_MAC, NULL, NULL, NULL), GNT_DHCP_OFFER, NULL},
		{request_of(GNT_DHCP_DISCOVER, OTHER_MAC, NULL, NULL, NULL), 0, "another MAC"},
		{request_of(GNT_DHCP_REQUEST, OTHER_MAC, LEASE_IP, SERVER_IP, NULL), 0,
		 "another MAC"},
		/* SELECTING, INIT-REBOOT, RENEWING */
		{request_of(GNT_DHCP_REQUEST, LEASE_MAC, LEASE_IP, SERVER_IP, NULL), GNT_DHCP_ACK,
		 NULL},
		{request_of(GNT_DHCP_REQUEST, LEASE_MAC, LEASE_IP, NULL, NULL), GNT_DHCP_ACK, NULL},
		{request_of(GNT_DHCP_REQUEST, LEASE_MAC, NULL, NULL, LEASE_IP), GNT_DHCP_ACK, NULL},
		{request_of(GNT_DHCP_REQUEST, LEASE_MAC, "169.254.7.7", NULL, NULL), GNT_DHCP_NAK,
		 "another address"},
		{request_of(GNT_DHCP_REQUEST, LEASE_MAC, NULL, NULL, NULL), GNT_DHCP_NAK,
		 "another address"},
		{request_of(GNT_DHCP_REQUEST, LEASE_MAC, LEASE_IP, "10.0.0.1", NULL), 0,
		 "another server"},
		{request_of(GNT_DHCP_RELEASE, LEASE_MAC, NULL, NULL, LEASE_IP), 0, "not answered"},
		{request_of(GNT_DHCP_DECLINE, LEASE_MAC, LEASE_IP, NULL, NULL), 0, "not answered"},
		{request_of(GNT_DHCP_INFORM, LEASE_MAC, NULL, NULL, LEASE_IP), 0, "not answered"},
	};

	lease_init(&lease, "gnt.com.0", LEASE_MAC, LEASE_IP);
	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_assert_cmpuint(gnt_dhcp_decide(&lease, &cases[i].req, &why), ==, cases[i].answer);
		if (cases[i].why == NULL)
			g_assert_null(why);
		else
			g_assert_nonnull(strstr(why, cases[i].why));
	}
}

static void
test_parse_mac(void)
{
	static const gchar *const bad[] = {"",
					   "52:54:00:ab:cd",
					   "52:54:00:ab:cd:ef:01",
					   "52-54-00-ab-cd-ef",
					   "52:54:00:ab:cd:eg",
					   "+2:54:00:ab:cd:ef",
					   " 2:54:00:ab:cd:ef",
					   NULL};
	guint8 mac[6];
	const guint8 expected[] = {0x52, 0x54, 0x00, 0xab, 0xcd, 0xef};

	g_assert_true(gnt_net_parse_mac("52:54:00:AB:cd:EF", mac));
	g_assert_cmpmem(mac, 6, expected, 6);
	for (guint i = 0; bad[i] != NULL; i++)
		g_assert_false(gnt_net_parse_mac(bad[i], mac));
	g_assert_false(gnt_net_parse_mac(NULL, mac));
}

static void
test_responder_errors(void)
{
	g_auto(GntDhcpLease) lease = {0};
	g_autoptr(GError) error = NULL;
	g_autoptr(GntDhcpResponder) responder = NULL;

	lease_init(&lease, "gnt-no-such-dev", LEASE_MAC, LEASE_IP);
	responder = gnt_dhcp_responder_new(&lease, &error);
	g_assert_null(responder);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	g_assert_nonnull(strstr(error->message, "DHCP on device 'gnt-no-such-dev'"));
	g_clear_error(&error);
	g_free(lease.device);
	lease.device = g_strdup("a-name-far-too-long-for-linux");
	g_assert_null(gnt_dhcp_responder_new(&lease, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
}

/* --- real exchanges, in a network namespace ------------------------------ */

static const gchar *const guests[] = {"dhcp", NULL};

/* A client in RENEWING state: a REQUEST with ciaddr, from a UDP socket
 * bound to the leased address, which only a unicast answer reaches. */
static const gchar renew_client[] =
	"import socket, struct, sys\n"
	"mac = bytes.fromhex(sys.argv[1].replace(':', ''))\n"
	"ip = socket.inet_aton(sys.argv[2])\n"
	"s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
	"s.bind((sys.argv[2], 68))\n"
	"s.settimeout(5)\n"
	"msg = struct.pack('!BBBBIHH', 1, 1, 6, 0, 0x1234abcd, 0, 0) + ip + bytes(12)\n"
	"msg += mac + bytes(10 + 64 + 128) + bytes([0x63, 0x82, 0x53, 0x63, 53, 1, 3, 255])\n"
	"s.sendto(msg, (sys.argv[3], 67))\n"
	"data, peer = s.recvfrom(2048)\n"
	"print(peer[0], socket.inet_ntoa(data[12:16]), socket.inet_ntoa(data[16:20]), data[242])\n";

static void
renew(const gchar *ns)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *dir = g_dir_make_tmp("gnt-renew-XXXXXX", &error);
	g_autofree gchar *script = g_build_filename(dir, "renew.py", NULL);
	g_autofree gchar *cmd = g_strdup_printf(
		"ip netns exec %s python3 %s " LEASE_MAC " " LEASE_IP " " SERVER_IP, ns, script);
	g_autofree gchar *output = NULL;
	g_autofree gchar *rm = g_strdup_printf("rm -rf '%s'", dir);
	gint status;

	g_assert_no_error(error);
	g_assert_true(g_file_set_contents(script, renew_client, -1, &error));
	netns_shf("ip -n %s addr add " LEASE_IP "/16 dev eth0", ns);
	netns_shf("ip route add " LEASE_IP "/32 dev dhcpA-host");
	status = netns_sh_serving(cmd, &output);
	g_assert_cmpint(netns_sh_status(rm, NULL), ==, 0);
	if (status != 0)
		g_error("renewing: %d %s", status, output);
	/* from the server, ciaddr and yiaddr the lease, an ACK */
	g_assert_cmpstr(output, ==, SERVER_IP " " LEASE_IP " " LEASE_IP " 5\n");
	netns_shf("ip -n %s addr flush dev eth0", ns);
}

/* Two veths into the guest namespace (eth0, eth1), a responder on each
 * host end: A's lease for eth0's MAC, B's for eth1's. Port 67 is shared by
 * device; a DISCOVER on one device reaches only its responder. */
static void
exchange_child(void)
{
	g_autofree gchar *ns = netns_guest_name("dhcp");
	g_auto(GntDhcpLease) lease_a = {0};
	g_auto(GntDhcpLease) lease_b = {0};
	g_autoptr(GntDhcpResponder) responder_a = NULL;
	g_autoptr(GntDhcpResponder) responder_b = NULL;
	g_autoptr(GntDhcpResponder) twin = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *seen = NULL;
	struct sockaddr_in any = {.sin_family = AF_INET, .sin_port = htons(GNT_DHCP_SERVER_PORT)};
	gint wildcard;
	guint n_replies;

	netns_enter_new();
	netns_veth_add("dhcpA-host", ns, 0, LEASE_MAC, NULL);
	netns_veth_add("dhcpB-host", ns, 1, OTHER_MAC, NULL);
	for (guint i = 0; i < 2; i++)
		netns_shf("ip addr add " SERVER_IP "/32 dev dhcp%c-host && "
			  "ip link set dhcp%c-host up",
			  'A' + i, 'A' + i);
	lease_init(&lease_a, "dhcpA-host", LEASE_MAC, LEASE_IP);
	lease_init(&lease_b, "dhcpB-host", OTHER_MAC, "169.254.12.35");
	responder_a = gnt_dhcp_responder_new(&lease_a, &error);
	g_assert_no_error(error);
	responder_b = gnt_dhcp_responder_new(&lease_b, &error);
	g_assert_no_error(error);

	/* one responder a device: a second one on A's is refused, naming it;
	 * and no unbound socket can join port 67 (no SO_REUSEADDR) */
	twin = gnt_dhcp_responder_new(&lease_a, &error);
	g_assert_null(twin);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	g_assert_nonnull(
		strstr(error->message, "DHCP on device 'dhcpA-host': binding UDP port 67"));
	g_clear_error(&error);
	wildcard = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	g_assert_cmpint(wildcard, >=, 0);
	g_assert_cmpint(bind(wildcard, (struct sockaddr *)&any, sizeof(any)), ==, -1);
	g_assert_cmpint(errno, ==, EADDRINUSE);
	close(wildcard);

	/* the lease's client gets exactly the lease */
	seen = netns_dhcp(NETNS_UDHCPC, ns, 0, TRUE);
	g_assert_nonnull(strstr(seen, "bound ip=" LEASE_IP " subnet=" NETMASK " router=" SERVER_IP
				      " serverid=" SERVER_IP " lease=86400\n"));
	g_assert_cmpuint(gnt_dhcp_responder_get_n_replies(responder_a), ==, 2); /* OFFER, ACK */
	g_assert_cmpuint(gnt_dhcp_responder_get_n_replies(responder_b), ==, 0);
	g_clear_pointer(&seen, g_free);
	seen = netns_dhcp(NETNS_UDHCPC, ns, 1, TRUE);
	g_assert_nonnull(strstr(seen, "bound ip=169.254.12.35 "));
	g_assert_cmpuint(gnt_dhcp_responder_get_n_replies(responder_a), ==, 2);
	g_assert_cmpuint(gnt_dhcp_responder_get_n_replies(responder_b), ==, 2);
	g_clear_pointer(&seen, g_free);
	/* Debian's dhclient too, when there is one */
	if (netns_sh_status("command -v dhclient", NULL) == 0) {
		seen = netns_dhcp(NETNS_DHCLIENT, ns, 0, TRUE);
		g_assert_nonnull(strstr(seen,
					"bound ip=" LEASE_IP " subnet=" NETMASK " router=" SERVER_IP
					" serverid=" SERVER_IP " lease=86400\n"));
		g_assert_cmpuint(gnt_dhcp_responder_get_n_replies(responder_a), ==, 4);
		g_clear_pointer(&seen, g_free);
	}

	/* renewing, as systemd-networkd does: from the leased address, on a
	 * socket bound to it, so the ACK must come by unicast */
	renew(ns);
	g_assert_cmpuint(gnt_dhcp_responder_get_n_replies(responder_b), ==, 2);

	/* another MAC on A's device gets nothing (B's lease is for it, but
	 * on B's device) */
	n_replies = gnt_dhcp_responder_get_n_replies(responder_a);
	netns_shf("ip -n %s link set eth0 address " OTHER_MAC, ns);
	seen = netns_dhcp(NETNS_UDHCPC, ns, 0, TRUE);
	g_assert_cmpstr(seen, ==, "");
	g_assert_cmpuint(gnt_dhcp_responder_get_n_replies(responder_a), ==, n_replies);
	g_assert_cmpuint(gnt_dhcp_responder_get_n_replies(responder_b), ==, 2);
}

static void
test_exchange(void)
{
	netns_test_run(exchange_child, guests, NULL, NULL);
}

int
main(int argc, char **argv)
{
	netns_test_init();
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/dhcp/parse/discover", test_parse_discover);
	g_test_add_func("/dhcp/parse/request", test_parse_request);
	g_test_add_func("/dhcp/parse/malformed", test_parse_malformed);
	g_test_add_func("/dhcp/parse/mac", test_parse_mac);
	g_test_add_func("/dhcp/reply/offer", test_build_offer);
	g_test_add_func("/dhcp/reply/ack-nak", test_build_ack_nak);
	g_test_add_func("/dhcp/decide", test_decide);
	g_test_add_func("/dhcp/responder/errors", test_responder_errors);
	g_test_add_func("/dhcp/responder/udhcpc", test_exchange);
	return g_test_run();
}
