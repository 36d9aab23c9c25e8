#pragma once /* metadata/gnt-metad-server.h: metad's sockets (doc/metad.md) */

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "gnt-metadata.h"
#include "gnt-paths.h"

G_BEGIN_DECLS

/*
 * gantry-metad's listeners, in the main context that made them:
 *  - one HTTP server per instance on <dir>/<instance>.sock, the fake
 *    hypervisor's channel: whoever connects to it IS that instance, and it
 *    gets only that instance's trees;
 *  - the control socket (mode 0600, root only), HTTP too, through which
 *    noded pushes and removes instances (gnt-metad-client.h):
 *      PUT /instances/<name>     body: the record (gnt-metadata.h) -> 204
 *      DELETE /instances/<name>  -> 204, 404 if unknown
 *      GET /instances            -> ["name", ...]
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
gnt_metad_server_push(GntMetadServer *self, const gchar *name, JsonObject *record,
		      GError **error);
/* Forgets @name and removes its socket; GNT_ERROR_NOT_FOUND if unknown. */
gboolean
gnt_metad_server_remove(GntMetadServer *self, const gchar *name, GError **error);

/* Closes every socket and removes their files. */
void
gnt_metad_server_stop(GntMetadServer *self);

G_END_DECLS
