#pragma once /* metadata/gnt-metadata-install.h: kickstart install sessions in metad */

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "gnt-http-server.h"
#include "gnt-secret.h"

G_BEGIN_DECLS

/*
 * One kickstart install per instance at a time (doc/metad.md, "Kickstart
 * installs"), pushed by noded through the control socket:
 *
 *   PUT /instances/<name>/install   {"token", "kickstart", "stage2": PATH|null,
 *                                    "liveimg": PATH|null, "liveimg_name": "image.tar.gz"}
 *       ("kickstart": null: no installer, the liveimg only: the install
 *       appliance's payload for appliance.write_payload, doc/install.md)
 *   GET /instances/<name>/install?since=N&wait=S
 *       -> {"state": "waiting"|"started"|"ended"|"failed", "next": M,
 *           "events": [{"seq", "time", "status", "message"}]}
 *       answered at once when events with seq >= N exist, else when one
 *       comes or after S seconds (at most 20; default 0)
 *   DELETE /instances/<name>/install   -> 204 (none: 204 too)
 *
 * and served to that instance's channel only, under
 * /gantry/latest/install/: ks.cfg (sensitive: it holds the token; wiped
 * once the install reports end or error), stage2/LiveOS/squashfs.img and
 * the liveimg (streamed from the node's files with Range requests), and
 * callback (POST, the installer's reports). Whatever is not this
 * instance's current install (no session, a wrong, stale or other
 * instance's token) is left to the trees, which answer their one 404.
 */

/* The callbacks' states, in the order an install goes through them. */
typedef enum {
	GNT_INSTALL_STATUS_START,
	GNT_INSTALL_STATUS_END,
	GNT_INSTALL_STATUS_ERROR,
} GntInstallStatus;

/* The largest callback message kept (longer ones are cut, with "..."). */
#define GNT_INSTALL_MESSAGE_MAX 4096

/* A callback as the installer POSTs it (Ironic's field names). */
typedef struct {
	GntInstallStatus status;
	gchar *message;	  /* sanitised: valid UTF-8, no control characters but
			     newline and tab, at most GNT_INSTALL_MESSAGE_MAX bytes; "" when none */
	GntSecret *token; /* agent_token */
} GntInstallCallback;

void
gnt_install_callback_clear(GntInstallCallback *self);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(GntInstallCallback, gnt_install_callback_clear)

/* Reads @len bytes of @data: a JSON object with "agent_status" ("start",
 * "end" or "error"), "agent_token" (a string) and optionally
 * "agent_status_message" (a string or null); other members are ignored.
 * GNT_ERROR_INVALID naming what is wrong (never the token's value). */
gboolean
gnt_install_callback_parse(const gchar *data, gsize len, GntInstallCallback *callback,
			   GError **error);

/* @message made fit for a job log: invalid UTF-8 replaced, control
 * characters but newline and tab as '?', cut to GNT_INSTALL_MESSAGE_MAX
 * bytes at a character's end. (transfer full) */
gchar *
gnt_install_message_sanitise(const gchar *message, gsize len);

/* "start", "end", "error" */
const gchar *
gnt_install_status_to_string(GntInstallStatus status);

typedef struct _GntMetadInstalls GntMetadInstalls;

GntMetadInstalls *
gnt_metad_installs_new(void);
void
gnt_metad_installs_free(GntMetadInstalls *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntMetadInstalls, gnt_metad_installs_free)

/* Whether @name has an install session now. */
gboolean
gnt_metad_installs_contains(GntMetadInstalls *self, const gchar *name);

/* The control socket's /instances/<name>/install (@request taken and
 * answered). */
void
gnt_metad_installs_control(GntMetadInstalls *self, const gchar *name, GntHttpRequest *request,
			   GHashTable *query);

/* Ends @name's session (its kickstart and token wiped, waiting pollers
 * answered); nothing to do when it has none. */
void
gnt_metad_installs_remove(GntMetadInstalls *self, const gchar *name);

/* Answers @request (a guest's on @instance's channel, @path decoded) when
 * it is one of the install session's paths and may be answered; FALSE
 * (and @request untouched) otherwise: the caller answers it as any other.
 * @package (nullable) is the instance's personalization package: served at
 * GNT_KICKSTART_PACKAGE_PATH only to a GET carrying the session's token in
 * GNT_KICKSTART_TOKEN_HEADER (gnt-kickstart-additions.h). */
gboolean
gnt_metad_installs_answer(GntMetadInstalls *self, const gchar *instance, const gchar *path,
			  GBytes *package, GntHttpRequest **request);

G_END_DECLS
