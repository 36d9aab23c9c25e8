#pragma once /* install/gnt-kickstart-source.h: where a kickstart template comes from */

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "gnt-kickstart-uri.h"

G_BEGIN_DECLS

/*
 * A kickstart template's source (doc/kickstart.md, "Sources"): the
 * instance's ks_template (--ks-template on add and reinstall), else its
 * catalog image's `ks_template` property, else the cluster's
 * default_ks_template (gnt-cluster modify --default-ks-template), else
 * Gantry's shipped default (data/kickstart/default.ks, built in). A source
 * is one of:
 *
 * - `file:///PATH`: a file on the master under the cluster's kickstart
 *   directory (the setting kickstart_dir), symlinks resolved before the
 *   check;
 * - `http://` or `https://` without credentials: fetched with TLS verified,
 *   at most GNT_KICKSTART_MAX_BYTES;
 * - `default`: the shipped default
 *
 * (gnt-kickstart-uri.h checks the form).
 *
 * It is fetched again at every install and reinstall; the install record
 * keeps the source and the SHA-256 of what was fetched.
 */

/* Where the chosen source came from, for the job log and the record. */
typedef enum {
	GNT_KICKSTART_FROM_INSTANCE,
	GNT_KICKSTART_FROM_IMAGE,
	GNT_KICKSTART_FROM_CLUSTER,
	GNT_KICKSTART_FROM_BUILTIN,
} GntKickstartOrigin;

/* "instance", "image", "cluster", "built-in" */
const gchar *
gnt_kickstart_origin_to_string(GntKickstartOrigin origin);

/* A catalog image's property @key (in its "properties" object, or at its
 * top level), NULL when absent or not a string; @image nullable.
 * (transfer none) */
const gchar *
gnt_kickstart_image_get_property(JsonObject *image, const gchar *key);

/* The source by precedence: @instance (its ks_template; nullable), @image
 * (a catalog image's object; nullable) and its properties' "ks_template",
 * @cluster (default_ks_template; nullable); empty strings count as unset.
 * (transfer none) */
const gchar *
gnt_kickstart_source_choose(const gchar *instance, JsonObject *image, const gchar *cluster,
			    GntKickstartOrigin *origin);

/*
 * Fetches @source: a file:// only under @kickstart_dir (its real path,
 * and the file's after symlinks: GNT_ERROR_INVALID "'/etc/shadow' is not
 * under the kickstart directory '...'"), http(s) with @tls_database
 * (nullable: the system's CAs), "default" the built-in template. More than
 * GNT_KICKSTART_MAX_BYTES fails. (transfer full)
 */
GBytes *
gnt_kickstart_source_fetch(const gchar *source, const gchar *kickstart_dir,
			   GTlsDatabase *tls_database, GError **error);

/* The shipped default template (data/kickstart/default.ks). (transfer
 * full) */
GBytes *
gnt_kickstart_source_get_default(void);

G_END_DECLS
