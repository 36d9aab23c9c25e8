#pragma once /* rpc/gnt-rpc-node-appliance-metad.h: the appliance's calls on metad */

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/*
 * noded's calls on gantry-metad's control socket for the install appliance
 * and the communication NIC (doc/metad.md, the contracts of issue 6 §1):
 * the channel, the personalization package and the progress of one
 * instance. Synchronous, for a worker thread; @control_socket is
 * gnt_metad_dup_control_socket(). GNT_ERROR_ENVIRONMENT when metad cannot
 * be reached, GNT_ERROR_NOT_FOUND for its 404, GNT_ERROR_INVALID with its
 * message for other refusals.
 */

/* PUT /instances/<name>/channel {"device", "dhcp": {"mac", "ip",
 * "netmask": "255.255.0.0"}}; @mac and @ip NULL: no "dhcp". */
gboolean
gnt_rpc_node_appliance_metad_put_channel(const gchar *control_socket, const gchar *name,
					 const gchar *device, const gchar *mac, const gchar *ip,
					 GError **error);
/* PUT /instances/<name>/package, the sanitized .tar.gz */
gboolean
gnt_rpc_node_appliance_metad_put_package(const gchar *control_socket, const gchar *name,
					 GBytes *package, GError **error);
/* GET /instances/<name>/progress?since=@since: {"next", "entries"}
 * (transfer full) */
JsonObject *
gnt_rpc_node_appliance_metad_get_progress(const gchar *control_socket, const gchar *name,
					  guint64 since, GError **error);
/* DELETE /instances/<name>/@what, @what one of "channel", "package",
 * "progress"; TRUE also when there was none (404). */
gboolean
gnt_rpc_node_appliance_metad_delete(const gchar *control_socket, const gchar *name,
				    const gchar *what, GError **error);

G_END_DECLS
