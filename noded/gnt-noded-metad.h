#pragma once /* noded/gnt-noded-metad.h: noded's metad procedures */

#include "gnt-rpc-server.h"

G_BEGIN_DECLS

/*
 * noded's metad procedures (doc/metad.md), called with the GntRpcNode as
 * user data (gnt_rpc_node_add_instance_procedures registers them). Both
 * forward to the node's gantry-metad over its root-only control socket
 * (metadata/gnt-metad-client.h) and fail with GNT_ERROR_ENVIRONMENT when it
 * is not running:
 *
 *	metad_push [name, record]
 *		hands metad the instance's metadata (metadata/gnt-metadata.h);
 *		when the record has "os" and "os_search_path" ([dir, ...]) and
 *		no "os_scripts", the node adds the scripts of that OS (its
 *		variant stripped) from its own disk. Secret values travel in
 *		this request only and are wiped once forwarded. Returns null.
 *	metad_remove [name]
 *		makes metad forget the instance and close its channel; an
 *		instance metad did not know is not an error. Returns null.
 */
extern const GntRpcProcedure gnt_rpc_node_metad_procedures[];

/* Adds "os_scripts" to @record (instance @name) from the node's definition
 * of its "os", found in its "os_search_path", unless it has them already
 * or lacks either. @for_appliance: "create" is the untrusted create script
 * (untrusted/create, else create_untrusted) when the OS has one: what the
 * install appliance runs (doc/install.md). */
void
gnt_rpc_node_metad_add_os_scripts(JsonObject *record, const gchar *name, gboolean for_appliance);

/* Fetches the personalization package at @url (with @username and
 * @password, nullable; gnt_package_fetch()), sanitizes it
 * (gnt_package_sanitize()) and hands it to metad at @control for @name, in
 * memory only: what the install appliance and a kickstart install
 * (doc/kickstart.md) both get. */
gboolean
gnt_rpc_node_metad_give_package(const gchar *control, const gchar *name, const gchar *url,
				const gchar *username, const gchar *password, GError **error);

G_END_DECLS
