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
 *    "nics": [{"mac", "ip", "netmask"}],
 *    "os_environment": {"OS_API_VERSION": "20", "DISK_0_PATH": "/dev/vda", ...}}
 * Only "name" is required; values of the osparams dicts and of
 * os_environment (names [A-Z_][A-Z0-9_]*) are strings.
 */

/* The body of every miss, whatever was asked. */
#define GNT_METADATA_NOT_FOUND_BODY "Resource not found\n"
/* What /write keeps for the host before it refuses more (413). */
#define GNT_METADATA_PIPE_MAX_BYTES (1024 * 1024)
/* The personalization package's largest size. */
#define GNT_METADATA_PACKAGE_MAX (256 * 1024 * 1024)
/* Progress: entries and bytes of text kept per instance (the oldest go
 * first: enough for an install's job log, a few full outputs), output kept
 * per entry (its tail), longest step name and detail. */
#define GNT_METADATA_PROGRESS_MAX_ENTRIES 1000
#define GNT_METADATA_PROGRESS_MAX_BYTES	  (2 * 1024 * 1024)
#define GNT_METADATA_PROGRESS_OUTPUT_MAX  (64 * 1024)
#define GNT_METADATA_PROGRESS_NAME_MAX	  64
#define GNT_METADATA_PROGRESS_DETAIL_MAX  4096

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

/* The detail of the progress entry "appliance info" that a step's result
 * asking for a reboot adds: "reboot requested by step 'NAME'". */
#define GNT_METADATA_REBOOT_DETAIL_PREFIX "reboot requested by step "
/* The detail of the progress entry "NAME info" before a result's "NAME
 * done" when the result carries data for the master's post-step hook:
 * "data {JSON}". */
#define GNT_METADATA_STEP_DATA_DETAIL_PREFIX "data "

/* Sets the token of the install appliance's current boot (16..128
 * lower-case hex digits): the in-band steps' paths answer that one only
 * (gnt-metadata-steps.h). GNT_ERROR_WRONG_STATE when @name has no
 * session. */
gboolean
gnt_metadata_store_set_boot_token(GntMetadataStore *self, const gchar *name, const gchar *token,
				  GError **error);

/* Forgets @name (and wipes its secrets); FALSE if it was not known. */
gboolean
gnt_metadata_store_remove(GntMetadataStore *self, const gchar *name);
gboolean
gnt_metadata_store_contains(GntMetadataStore *self, const gchar *name);
/* The names known, sorted. (transfer full) */
GStrv
gnt_metadata_store_dup_names(GntMetadataStore *self);

/* The instance's personalization package (a .tar.gz, kept referenced,
 * served at /ganeti/latest/os/package), NULL: none any more.
 * GNT_ERROR_NOT_FOUND for an unknown instance, GNT_ERROR_INVALID past
 * GNT_METADATA_PACKAGE_MAX. Removing the instance drops it. */
gboolean
gnt_metadata_store_set_package(GntMetadataStore *self, const gchar *name, GBytes *package,
			       GError **error);
/* The instance's personalization package, NULL: none. (transfer none) */
GBytes *
gnt_metadata_store_peek_package(GntMetadataStore *self, const gchar *name);

/* Appends a progress entry to @name's (what the appliance POSTs to
 * /gantry/latest/install/progress): @step [a-z0-9_]{1,64}, @state start,
 * done, failed or info, @detail (nullable) at most 4 KiB, @output the
 * tail kept. GNT_ERROR_INVALID naming the bad value, GNT_ERROR_NOT_FOUND
 * for an unknown instance. */
gboolean
gnt_metadata_store_add_progress(GntMetadataStore *self, const gchar *name, const gchar *step,
				const gchar *state, const gchar *detail, const gchar *output,
				gsize output_len, GError **error);
/* {"next": M, "entries": [{"seq","time","step","state","detail","output"}]}
 * with the entries kept whose seq >= @since. (transfer full) */
gchar *
gnt_metadata_store_dup_progress(GntMetadataStore *self, const gchar *name, guint64 since,
				GError **error);
/* Forgets @name's progress (seq starts again at 0). */
gboolean
gnt_metadata_store_clear_progress(GntMetadataStore *self, const gchar *name, GError **error);

/* One answer of the trees. */
typedef struct {
	guint status;		   /* 200, 204, 400, 404, 405, 413 */
	const gchar *content_type; /* static; NULL with no body (204) */
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
 * Ganeti, OpenStack, EC2 and Gantry (install) trees of doc/metad.md.
 * @query: the decoded query (gnt_http_parse_query(), nullable); @body is a
 * POST's body (nullable). Every miss, an unknown instance included, is 404
 * with GNT_METADATA_NOT_FOUND_BODY.
 */
void
gnt_metadata_store_answer(GntMetadataStore *self, const gchar *instance, const gchar *method,
			  const gchar *path, GHashTable *query, GBytes *body,
			  GntMetadataAnswer *answer);

G_END_DECLS
