#pragma once

#include "gnt-config.h"
#include "gnt-query.h"

G_BEGIN_DECLS

/*
 * The image catalog (doc/images.md): records of GNT_OBJECT_IMAGE,
 *   {"uuid", "name", "serial_no", "ctime", "mtime",
 *    "url": an absolute path on the nodes or an http(s) URL,
 *    "format": "raw" | "qcow2" | "tarball" (a root filesystem tarball),
 *    "sha256": 64 lower-case hex digits,
 *    "size": bytes or null,
 *    "properties": {"os_distro", "os_version", "installer_kernel",
 *                   "installer_initrd", "installer_stage2", "ks_template",
 *                   "installer_memory", "installer_kernel_args"} (each optional)}.
 * The fields below are the one home of each key's type and check: the
 * opcode table's validators, the units and the query read them.
 */

/* Where an instance's install parameters name the catalog image they came
 * from ("install": {"os_image_name": NAME, "os_image": its URL, ...}). */
#define GNT_IMAGE_INSTALL_KEY "os_image_name"

typedef enum {
	GNT_IMAGE_VALUE_STRING,
	GNT_IMAGE_VALUE_INT,
} GntImageValueType;

typedef struct {
	const gchar *key;
	gboolean property; /* lives under "properties" */
	GntImageValueType type;
	/* checks a value of the right type; GNT_ERROR_INVALID naming @key */
	gboolean (*check)(const gchar *key, JsonNode *value, GError **error);
	const gchar *title; /* the query's column title */
	const gchar *doc;   /* the query's field doc */
} GntImageField;

/* Every key of a record but the identity ones, in the record's order; ended
 * by a row with key NULL. */
extern const GntImageField gnt_image_fields[];

/* The row of @key, or NULL. */
const GntImageField *
gnt_image_field_lookup(const gchar *key);

/* Checks @value for the field @key (its type, then its check); JSON null
 * is refused. GNT_ERROR_INVALID naming the field. */
gboolean
gnt_image_check_value(const gchar *key, JsonNode *value, GError **error);

/* An image name: 1..63 letters, digits, '.', '-', '_', starting with a
 * letter or digit; so never a path or a URL (--os-image tells them apart). */
gboolean
gnt_image_check_name(const gchar *name, GError **error);

/* Whether @text could be a catalog image name rather than a path or URL. */
gboolean
gnt_image_is_name(const gchar *text);

/* Checks a whole record: a good name, every known key's value, "url",
 * "format" and "sha256" present, no unknown key (identity keys aside);
 * GNT_ERROR_INVALID naming the image and the key. */
gboolean
gnt_image_record_check(JsonObject *record, GError **error);

/* A copy of the catalog image named @name (its name or UUID, exactly), or
 * NULL. The kickstart templates read its "ks_template" property. (transfer full) */
JsonObject *
gnt_config_dup_image(GntConfig *config, const gchar *name);

/* The names of the instances whose install parameters name the image
 * @name (GNT_IMAGE_INSTALL_KEY), in name order. (transfer full:
 * NULL-terminated GPtrArray of strings) */
GPtrArray *
gnt_config_dup_image_users(GntConfig *config, const gchar *name);

/* A property of @record ("os_distro", ...), or NULL. (transfer none) */
JsonNode *
gnt_image_get_property(JsonObject *record, const gchar *key);

/* The "image" query resource's fields (Query, QueryFields, QueryImages),
 * in name order, ended by a row whose name is NULL. */
const GntQueryField *
gnt_image_query_table(void);

G_END_DECLS
