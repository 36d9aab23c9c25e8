#pragma once

#include <json-glib/json-glib.h>

#include "gnt-config.h"
#include "gnt-lu.h"
#include "gnt-secret-dict.h"

G_BEGIN_DECLS

/*
 * The metadata the master gives a node's gantry-metad about an instance
 * (doc/metad.md, "The record"), and the pushes of the instance units. The
 * install appliance's runner reuses the record (adding "os_scripts" and
 * "os_environment").
 */

/* The communication channel's netmask and metad's address on it. */
#define GNT_METADATA_NETMASK "255.255.0.0"
#define GNT_METADATA_ADDRESS "169.254.169.254"

/* The OS parameter holding the personalization package's URL, and the
 * secret ones holding its Basic credentials (never stored, never given to
 * the scripts or served by metad). */
#define GNT_OSP_OS_PACKAGE	    "os-package"
#define GNT_OSP_OS_PACKAGE_USERNAME "os-package-username"
#define GNT_OSP_OS_PACKAGE_PASSWORD "os-package-password"

/*
 * The record of @instance (a config record): name, uuid, hostname (the
 * name), os, availability_zone (its primary node's group), osparams
 * (public), osparams_private, os_search_path (the cluster's), user_data
 * (when it has some), ssh_keys (its own, else the cluster's), nics
 * ({"mac", "ip"?, "netmask"?}, the communication NIC last with its
 * link-local address, GNT_METADATA_NETMASK and "channel": true). Never secrets:
 * gnt_node_call_metad_push() adds them to the request. (transfer full)
 */
JsonObject *
gnt_lu_instance_metadata_new(GntConfig *config, JsonObject *instance);

/* The secrets metad may serve the instance: @osparams_secret (nullable)
 * without the os-package credentials; NULL when nothing is left.
 * (transfer full) */
GntSecretDict *
gnt_lu_instance_metadata_secrets(const GntSecretDict *osparams_secret);

/* Whether @instance has its communication channel ("communication": true). */
gboolean
gnt_lu_instance_has_communication(JsonObject *instance);

/*
 * Pushes @instance's record to the metad of @node (its primary node) when
 * it has communication, with @osparams_secret (nullable, what the opcode
 * carried). A failure is a warning in the job log (metad may be down),
 * never the job's failure. Returns whether it was pushed.
 */
gboolean
gnt_lu_instance_metadata_push(GntLu *lu, GntRpcClient *rpc, JsonObject *node, JsonObject *instance,
			      const GntSecretDict *osparams_secret);

/* Makes @node's metad forget instance @name; a failure is a warning. */
void
gnt_lu_instance_metadata_remove(GntLu *lu, GntRpcClient *rpc, JsonObject *node, const gchar *name);

/*
 * A communication NIC for a new instance: {"mac", "ip"}, the address in
 * 169.254.1.1 .. 169.254.254.254 (never metad's 169.254.169.254) and both
 * unused by any instance of @config; the MAC under @mac_prefix and not in
 * @taken_macs (nullable; the MAC is added to it). GNT_ERROR_NO_RESOURCES
 * when every address is taken. (transfer full)
 */
JsonObject *
gnt_lu_instance_communication_nic_new(GntConfig *config, const gchar *mac_prefix,
				      GHashTable *taken_macs, GError **error);

G_END_DECLS
