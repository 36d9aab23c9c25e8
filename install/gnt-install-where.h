#pragma once

#include <json-glib/json-glib.h>

#include "gnt-os-definition.h"

G_BEGIN_DECLS

/*
 * Where an install runs an OS's create script (doc/install.md, "Trusted and
 * untrusted OS scripts"): on the instance's node, as Ganeti does, or inside
 * the read-only install appliance. An OS runs on the host only when an
 * administrator marked it trusted (the cluster's "trusted_os", gnt-os
 * modify --trusted yes) and safe install is off (the opcode's
 * "enable_safe_install", else the cluster's, default on).
 */
typedef enum {
	GNT_INSTALL_ON_HOST,
	GNT_INSTALL_IN_APPLIANCE,
} GntInstallWhere;

/* "host", "appliance" */
const gchar *
gnt_install_where_to_string(GntInstallWhere where);

/*
 * The decision for @os (the node's definition of @os_name, "name+variant"):
 * the appliance when the OS is not trusted or @safe_install; the host when
 * @os_trusted and not @safe_install. GNT_ERROR_INVALID (the caller refuses
 * before anything changes) for safe install off with an OS not trusted, or
 * with an OS whose only create script is untrusted. *@create_script: the
 * script's absolute path on the node: in the appliance untrusted/create,
 * else create_untrusted, else create; on the host create. (transfer full)
 */
gboolean
gnt_install_choose_where(const GntOsDefinition *os, const gchar *os_name, gboolean os_trusted,
			 gboolean safe_install, GntInstallWhere *where, gchar **create_script,
			 GError **error);

/* Whether @os_name ("name+variant": the variant does not count) is among
 * the cluster's trusted OSes @trusted_os (its "trusted_os" list, nullable). */
gboolean
gnt_install_os_is_trusted(JsonArray *trusted_os, const gchar *os_name);

/* Whether an install is a safe one: @op_value (the opcode's
 * "enable_safe_install", nullable or null: the cluster's) else
 * @cluster_info's "enable_safe_install" (true when missing). */
gboolean
gnt_install_safe_install_enabled(JsonNode *op_value, JsonObject *cluster_info);

G_END_DECLS
