/* libFuzzer target: the DHCP responder's codec (metadata/gnt-dhcp.h), which
 * reads whatever a guest sends to UDP port 67. A message either is refused
 * with an error, or parses; then the answer chosen for it is built and must
 * be a well-formed reply to it (same xid and chaddr, op BOOTREPLY), which
 * our own parser refuses as not a request. */
#include <arpa/inet.h>
#include <string.h>

#include "gnt-dhcp.h"

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size)
{
	static const guint8 lease_mac[6] = {0x52, 0x54, 0x00, 0xab, 0xcd, 0xef};
	GntDhcpLease lease = {.device = (gchar *)"gnt.com.0", .lease_s = 86400};
	GntDhcpRequest request;
	GntDhcpRequest again;
	g_autoptr(GError) error = NULL;
	g_autoptr(GBytes) reply = NULL;
	const guint8 *p;
	const gchar *why = NULL;
	gsize len = 0;
	guint8 type;

	memcpy(lease.mac, lease_mac, 6);
	lease.client.s_addr = htonl(0xa9fe0c22); /* 169.254.12.34 */
	lease.server.s_addr = htonl(0xa9fea9fe);
	lease.netmask.s_addr = htonl(0xffff0000);
	if (!gnt_dhcp_parse_request(data, size, &request, &error)) {
		if (error == NULL || error->message == NULL)
			__builtin_trap();
		return 0;
	}
	/* answer every MAC, so that the builder runs on fuzzed requests too */
	memcpy(lease.mac, request.chaddr, 6);
	type = gnt_dhcp_decide(&lease, &request, &why);
	if (type == 0)
		return 0;
	reply = gnt_dhcp_build_reply(&lease, &request, type);
	p = g_bytes_get_data(reply, &len);
	if (len < GNT_DHCP_MIN_LEN + 3 || p[0] != 2 || memcmp(p + 4, &request.xid, 4) != 0 ||
	    memcmp(p + 28, request.chaddr, 6) != 0 || p[GNT_DHCP_MIN_LEN + 2] != type)
		__builtin_trap();
	if (gnt_dhcp_parse_request(p, len, &again, NULL))
		__builtin_trap();
	return 0;
}
