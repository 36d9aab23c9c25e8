#pragma once /* metadata/gnt-metad-server.h: metad's sockets (doc/metad.md) */

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "gnt-metadata.h"
#include "gnt-paths.h"

G_BEGIN_DECLS

/*
 * gantry-metad's listeners, in the main context that made them, all
 * HTTP/1.1 with keep-alive (http/gnt-http-server.h):
 *  - per instance, a unix socket <dir>/<instance>.sock (the fake
 *    hypervisor's channel, the slirp fallback's guestfwd target) and,
 *    once set, a TCP listener bound to the instance's tap with
 *    SO_BINDTODEVICE (and a DHCP responder on it): whoever connects
 *    through them IS that instance, and gets only that instance's trees;
 *  - the control socket (mode 0600, root only), through which noded
 *    drives it (gnt-metad-client.h, doc/metad.md "Control socket"):
 *      PUT /instances/<name>               body: the record -> 204
 *      DELETE /instances/<name>            -> 204, 404 if unknown
 *      GET /instances                      -> ["name", ...]
 *      PUT|DELETE /instances/<name>/channel  {"device","address","port","dhcp"}
 *      PUT|DELETE /instances/<name>/package  the .tar.gz
 *      GET|DELETE /instances/<name>/progress[?since=N]
 *    Errors answer 400/404 with the message as a text body.
 */

#define GNT_TYPE_METAD_SERVER (gnt_metad_server_get_type())
G_DECLARE_FINAL_TYPE(GntMetadServer, gnt_metad_server, GNT, METAD_SERVER, GObject)

/* <run>/socket/gantry-metad (transfer full) */
gchar *
gnt_metad_dup_control_socket(const GntPaths *paths);
/* <run>/metad: the instances' sockets (transfer full) */
gchar *
gnt_metad_dup_instance_dir(const GntPaths *paths);
/* <run>/metad/<instance>.sock (transfer full) */
gchar *
gnt_metad_dup_instance_socket(const GntPaths *paths, const gchar *instance);

GntMetadServer *
gnt_metad_server_new(const gchar *control_socket, const gchar *instance_dir);
GntMetadataStore *
gnt_metad_server_get_store(GntMetadServer *self);

/* Makes the instance directory (0755; stale sockets in it are removed:
 * a new metad knows no instance) and listens on the control socket.
 * GNT_ERROR_ENVIRONMENT naming the path on failure. */
gboolean
gnt_metad_server_listen(GntMetadServer *self, GError **error);

/* Stores @record for @name and listens on its socket (kept if it exists). */
gboolean
gnt_metad_server_push(GntMetadServer *self, const gchar *name, JsonObject *record, GError **error);
/* Forgets @name and removes its socket; GNT_ERROR_NOT_FOUND if unknown. */
gboolean
gnt_metad_server_remove(GntMetadServer *self, const gchar *name, GError **error);

/* Opens @name's device-bound channel from @spec {"device": "gnt.com.3",
 * "address": "169.254.169.254", "port": 80, "dhcp": {"mac", "ip",
 * "netmask"}} (address, port and dhcp optional), replacing an earlier one.
 * GNT_ERROR_NOT_FOUND for an unknown instance, GNT_ERROR_INVALID for a bad
 * spec or a device that does not exist (naming it), GNT_ERROR_ENVIRONMENT
 * when the listener or the DHCP responder cannot be made. */
gboolean
gnt_metad_server_set_channel(GntMetadServer *self, const gchar *name, JsonObject *spec,
			     GError **error);
/* Closes @name's device-bound channel and DHCP responder (none: fine). */
gboolean
gnt_metad_server_remove_channel(GntMetadServer *self, const gchar *name, GError **error);

/* Closes every socket and removes their files. */
void
gnt_metad_server_stop(GntMetadServer *self);

G_END_DECLS
