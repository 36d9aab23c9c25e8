#pragma once

#include <json-glib/json-glib.h>

#include "gnt-lu.h"

G_BEGIN_DECLS

/*
 * `--os-image NAME` (doc/images.md): when @given (the os_image the opcode
 * gave, NULL when none) names a catalog image rather than a path or URL,
 * @install (the record's install parameters, its os_image already set to
 * @given) gets the image's URL and SHA-256, and its name under
 * GNT_IMAGE_INSTALL_KEY; a path or URL (or "", none) drops the name; no
 * @given keeps what is stored. A SHA-256 given with a name must be the
 * catalog's. GNT_ERROR_NOT_FOUND for a name the catalog lacks,
 * GNT_ERROR_INVALID for a tarball image (it is not written onto a disk)
 * or another checksum. For the create and reinstall units' check_prereq.
 */
gboolean
gnt_lu_image_resolve_install(GntLu *lu, JsonObject *install, const gchar *given,
			     const gchar *given_sha256, GError **error);

G_END_DECLS
