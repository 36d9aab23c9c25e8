#pragma once
/*
 * Ganeti's limits on what one request may ask for (its constants
 * MAX_DISKS, MAX_NICS, MAX_TAGS_PER_OBJ and MAX_TAG_LEN, and the tag
 * rules of objects.TaggableObject), in one place: the opcode table's
 * parameter checks and the logical units that add to an object both read
 * them from here.
 */
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define GNT_MAX_DISKS		16
#define GNT_MAX_NICS		8
#define GNT_MAX_TAGS_PER_OBJECT 4096
#define GNT_MAX_TAG_LEN		128

/* A tag: 1 to GNT_MAX_TAG_LEN characters of letters, digits and
 * "_.+*\/:@-". Sets GNT_ERROR_INVALID naming the tag otherwise. */
gboolean
gnt_limits_check_tag(const gchar *tag, GError **error);

/* Checks for the opcode table's rows (GntParamDef.validate): a list of
 * at most GNT_MAX_DISKS disks, of at most GNT_MAX_NICS NICs, of at most
 * GNT_MAX_TAGS_PER_OBJECT valid tags. */
gboolean
gnt_limits_validate_disks(JsonNode *value, GError **error);
gboolean
gnt_limits_validate_nics(JsonNode *value, GError **error);
gboolean
gnt_limits_validate_tags(JsonNode *value, GError **error);

G_END_DECLS
