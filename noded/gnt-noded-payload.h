#pragma once /* noded/gnt-noded-payload.h: the install appliance's payload */

#include <json-glib/json-glib.h>

#include "gnt-noded-private.h"

G_BEGIN_DECLS

/*
 * The payload of an install appliance session with appliance.write_payload
 * (doc/install.md, "The payload"): the OS image, or a root filesystem
 * tarball, which the agent streams from metad and writes onto the storage
 * layout's root device or unpacks into its mounted root. The session's
 * option (the master's):
 *
 *   "payload": {"url": PATH|URL, "sha256": HEX|null, "name": "image.img"|
 *               "image.tar"|"image.tar.gz"|"image.tar.xz", "tarball": bool,
 *               "cache_bytes": N}
 *
 * A path is used as it is, a URL through the node's artifact cache (it
 * needs its SHA-256 and the cache); a qcow2 image is converted to raw in
 * the session's work directory (the appliance writes raw bytes), a
 * compressed tarball decompressed there (gzip, xz, bzip2: natively here,
 * not in the appliance under TCG) and checked by
 * gnt_package_check_root_tarball(). The file is then
 * served by metad as a files-only install session (gnt-metadata-install.h)
 * at /gantry/latest/install/NAME, streamed with Range requests.
 */
typedef struct _GntNodedPayload GntNodedPayload;

/* Gives metad @name's payload (@payload, the option above), made ready in
 * @work_dir (which exists). GNT_ERROR_INVALID for a bad option or a
 * refused tarball, the cache's and qemu-img's errors. (transfer full) */
GntNodedPayload *
gnt_noded_payload_give(GntRpcNode *node, const gchar *control, const gchar *name,
		       JsonObject *payload, const gchar *work_dir, GError **error);

/* Takes it back: metad's session removed, the cache's file released, a
 * converted file removed. NULL: nothing to do. */
void
gnt_noded_payload_take_back(GntNodedPayload *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntNodedPayload, gnt_noded_payload_take_back)

G_END_DECLS
