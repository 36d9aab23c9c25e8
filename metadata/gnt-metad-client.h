#pragma once /* metadata/gnt-metad-client.h: noded's side of metad's control socket */

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/*
 * Pushes @record (gnt-metadata.h) for instance @name to the metad whose
 * control socket is @control_socket (gnt_metad_dup_control_socket()).
 * Synchronous, for a worker thread. The serialized request, which holds
 * the secrets, is wiped once sent. GNT_ERROR_ENVIRONMENT when metad cannot
 * be reached ("is gantry-metad running?"), GNT_ERROR_INVALID with metad's
 * message when it refuses the record.
 */
gboolean
gnt_metad_client_push(const gchar *control_socket, const gchar *name, JsonObject *record,
		      GError **error);

/* Makes metad forget @name; GNT_ERROR_NOT_FOUND if it did not know it. */
gboolean
gnt_metad_client_remove(const gchar *control_socket, const gchar *name, GError **error);

/*
 * The rest of the control socket (gnt-metad-server.h, doc/metad.md), same
 * errors: GNT_ERROR_NOT_FOUND for an instance metad does not know,
 * GNT_ERROR_INVALID with metad's message when it refuses.
 */
/* @spec: {"device", "address", "port", "dhcp": {"mac", "ip", "netmask"}} */
gboolean
gnt_metad_client_set_channel(const gchar *control_socket, const gchar *name, JsonObject *spec,
			     GError **error);
gboolean
gnt_metad_client_remove_channel(const gchar *control_socket, const gchar *name, GError **error);
/* The install appliance's current boot token (doc/metad.md "In-band
 * steps"): the steps' paths answer it only. */
gboolean
gnt_metad_client_set_boot_token(const gchar *control_socket, const gchar *name, const gchar *token,
				GError **error);
/* @package: the sanitized .tar.gz */
gboolean
gnt_metad_client_put_package(const gchar *control_socket, const gchar *name, GBytes *package,
			     GError **error);
gboolean
gnt_metad_client_remove_package(const gchar *control_socket, const gchar *name, GError **error);
/* {"next": M, "entries": [...]} with the entries whose seq >= @since.
 * (transfer full) */
JsonNode *
gnt_metad_client_get_progress(const gchar *control_socket, const gchar *name, guint64 since,
			      GError **error);
gboolean
gnt_metad_client_clear_progress(const gchar *control_socket, const gchar *name, GError **error);

/* Kickstart install sessions (gnt-metadata-install.h): the session
 * {"token", "kickstart", "stage2", "liveimg", "liveimg_name"} (its text
 * wiped once sent); its state and events from @since, waiting up to
 * @wait_s seconds for one (at most 20); its end (none: fine). */
gboolean
gnt_metad_client_put_install(const gchar *control_socket, const gchar *name, JsonObject *spec,
			     GError **error);
JsonNode *
gnt_metad_client_get_install(const gchar *control_socket, const gchar *name, guint64 since,
			     guint wait_s, GError **error);
gboolean
gnt_metad_client_remove_install(const gchar *control_socket, const gchar *name, GError **error);

G_END_DECLS
