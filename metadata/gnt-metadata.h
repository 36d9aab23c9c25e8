#pragma once /* metadata/gnt-metadata.h: what metad knows about instances, and its trees */

#include <glib-object.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/*
 * The per-instance metadata metad serves (doc/metad.md), held in memory
 * only: secret OS parameters in GntSecret pages, never logged, never
 * written. The store is not thread-safe: metad uses it from its main
 * context only.
 *
 * The pushed record (JSON object; unknown members are skipped):
 *   {"name", "uuid", "hostname", "os": "debootstrap+default",
 *    "osparams": {N: V}, "osparams_private": {N: V}, "osparams_secret": {N: V},
 *    "os_scripts": {"create": TEXT, ...}, "user_data": TEXT,
 *    "ssh_keys": ["ssh-ed25519 AAAA... comment", ...],
 *    "nics": [{"mac", "ip", "netmask"}]}
 * Only "name" is required; values of the osparams dicts are strings.
 */

/* The body of every miss, whatever was asked. */
#define GNT_METADATA_NOT_FOUND_BODY "Resource not found\n"
/* What /write keeps for the host before it refuses more (413). */
#define GNT_METADATA_PIPE_MAX_BYTES (1024 * 1024)

#define GNT_TYPE_METADATA_STORE (gnt_metadata_store_get_type())
G_DECLARE_FINAL_TYPE(GntMetadataStore, gnt_metadata_store, GNT, METADATA_STORE, GObject)

GntMetadataStore *
gnt_metadata_store_new(void);

/* Whether @name can name an instance socket: letters, digits, '.', '-',
 * '_', not starting with '.' or '-', at most 255 bytes. GNT_ERROR_INVALID
 * naming it otherwise. */
gboolean
gnt_metadata_check_instance_name(const gchar *name, GError **error);

/*
 * Replaces @name's metadata with @record (see above), whose "name" must be
 * @name. Secret values are copied into GntSecret pages and wiped in
 * @record. The /read pipe's contents survive a new push. GNT_ERROR_INVALID
 * naming the member on a malformed record; nothing changes then.
 */
gboolean
gnt_metadata_store_push(GntMetadataStore *self, const gchar *name, JsonObject *record,
			GError **error);
/* Zeroes the string values of @record's "osparams_secret" in place, once
 * they have been copied or sent. */
void
gnt_metadata_wipe_secrets(JsonObject *record);

/* Forgets @name (and wipes its secrets); FALSE if it was not known. */
gboolean
gnt_metadata_store_remove(GntMetadataStore *self, const gchar *name);
gboolean
gnt_metadata_store_contains(GntMetadataStore *self, const gchar *name);
/* The names known, sorted. (transfer full) */
GStrv
gnt_metadata_store_dup_names(GntMetadataStore *self);

/* One answer of the trees. */
typedef struct {
	guint status;		   /* 200, 404, 405, 413 */
	const gchar *content_type; /* static */
	const gchar *allow;	   /* for 405: "GET" or "POST"; else NULL */
	GBytes *body;
	gboolean sensitive; /* the body holds private or secret values */
} GntMetadataAnswer;

void
gnt_metadata_answer_clear(GntMetadataAnswer *self);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(GntMetadataAnswer, gnt_metadata_answer_clear)

/*
 * Answers @method @path (the URI's path, no query) for the instance
 * @instance, the one the channel says is asking (never the request): the
 * Ganeti, OpenStack and EC2 trees of doc/metad.md. @body is a POST's body
 * (nullable). Every miss, an unknown instance included, is 404 with
 * GNT_METADATA_NOT_FOUND_BODY.
 */
void
gnt_metadata_store_answer(GntMetadataStore *self, const gchar *instance, const gchar *method,
			  const gchar *path, GBytes *body, GntMetadataAnswer *answer);

G_END_DECLS
