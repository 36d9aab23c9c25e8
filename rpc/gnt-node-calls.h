#pragma once

#include <json-glib/json-glib.h>

#include "gnt-rpc-client.h"
#include "gnt-rpc-procedures.h"

G_BEGIN_DECLS

/*
 * The master's typed calls of noded's procedures (doc/node-rpc.md), so that
 * logical units stay short. Each takes the node record of config.db (its
 * "name", "primary_ip" and "rpc_port", 1811 when missing) and fails with the
 * client's GNT_ERROR, whose message names the node:
 *
 *	node 'node2' (10.0.0.2:1811): instance_start: instance 'web1' is running
 *
 * Instance calls send the instance spec, built by the master:
 *
 *	{"instance": <the instance record>, "hvparams": <filled>,
 *	 "beparams": <filled: "maxmem" (MiB), "vcpus", ...>,
 *	 "storage": {"volume_group_name": string|null, "file_storage_dir": string|null},
 *	 "os": {"search_path": [dir, ...]}}
 *
 * Arguments are not taken, and are read in the calling thread only.
 */

/* How long each call waits for the node's answer is its row's timeout in
 * the procedure table (gnt-rpc-procedures.h). */

/* Calls @procedure with @args (NULL: none) on @node. (transfer full) */
JsonNode *
gnt_node_call(GntRpcClient *client, JsonObject *node, const gchar *procedure, JsonArray *args,
	      guint timeout_s, GError **error);
/* The same, @args holding placeholders for @secrets (nullable): see
 * gnt_rpc_client_call_with_secrets(). */
JsonNode *
gnt_node_call_with_secrets(GntRpcClient *client, JsonObject *node, const gchar *procedure,
			   JsonArray *args, const GntSecretDict *secrets, guint timeout_s,
			   GError **error);

/* Calls @procedure with its arguments @values (GNT_RPC_VALUES()), encoded
 * as its row in the procedure table says, waiting the row's timeout. The
 * secrets of a SECRETS argument, and @secrets (nullable: the placeholders
 * of an OBJECT argument), travel in wiped memory. (transfer full) */
JsonNode *
gnt_node_call_procedure(GntRpcClient *client, JsonObject *node, const gchar *procedure,
			const GntRpcValue *values, guint n_values, const GntSecretDict *secrets,
			GError **error);

/* node_info: {"memory_total", "memory_free" (MiB), "cpu_count", "bootid",
 * "hypervisors": {name: available}, "storage": [{"type", "name",
 * "storage_size", "storage_free"[, "error"]}, ...]}. @storage: the spec's
 * "storage" object. (transfer full) */
JsonObject *
gnt_node_call_node_info(GntRpcClient *client, JsonObject *node, const gchar *const *hypervisors,
			JsonObject *storage, GError **error);

/* instance_list: {"<instance>": {"state": "running"|"paused"|"shutoff",
 * "memory" (MiB), "vcpus", "uptime" (s), "hypervisor"}} for the instances
 * running under @hypervisors. (transfer full) */
JsonObject *
gnt_node_call_instance_list(GntRpcClient *client, JsonObject *node, const gchar *const *hypervisors,
			    GError **error);

gboolean
gnt_node_call_instance_start(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			     gboolean paused, GError **error);
/* ACPI, up to @timeout_s for the guest, then destroy; @forced (nullable)
 * says whether it came to that. */
gboolean
gnt_node_call_instance_shutdown(GntRpcClient *client, JsonObject *node, JsonObject *spec,
				guint timeout_s, gboolean *forced, GError **error);
/* @reboot_type: "soft", "hard" or "full"; @timeout_s for full's shutdown. */
gboolean
gnt_node_call_instance_reboot(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			      const gchar *reboot_type, guint timeout_s, GError **error);
/* {"kind": "pty"|"none", "pty": path|null, "log": path|null, "command":
 * [argv to attach], "lines": [the first @n_lines lines of the log]}.
 * (transfer full) */
JsonObject *
gnt_node_call_instance_console(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			       guint n_lines, GError **error);

/* Every disk of the spec's instance, after checking the space; on failure
 * the node removes what this call made. */
gboolean
gnt_node_call_blockdev_create(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			      GError **error);
/* Every disk of the spec's instance; what is missing already is fine. */
gboolean
gnt_node_call_blockdev_remove(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			      GError **error);
/* Disk @disk_index of the spec's instance (gnt-instance modify --disk add). */
gboolean
gnt_node_call_blockdev_add(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			   guint disk_index, GError **error);
/* Grows disk @disk_index of the spec's instance (of the size its record
 * says) to @new_size_mib, after the node checked the space. */
gboolean
gnt_node_call_blockdev_grow(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			    guint disk_index, guint64 new_size_mib, GError **error);
/* Checks that every disk of the spec's instance is there: the path of
 * each (what the hypervisor opens), in the record's order. (transfer full) */
JsonArray *
gnt_node_call_blockdev_assemble(GntRpcClient *client, JsonObject *node, JsonObject *spec,
				GError **error);
/* After renaming @old_name to the spec's name: moves the file disks'
 * directory (nothing to do for plain and diskless). */
gboolean
gnt_node_call_blockdev_rename(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			      const gchar *old_name, GError **error);

/* One object per OS along @search_path: {"name", "path", "valid" (also as
 * Ganeti's "status"), "diagnose", "api_versions", "variants", "parameters":
 * [[name, doc], ...], "trusted"}. (transfer full) */
JsonArray *
gnt_node_call_os_diagnose(GntRpcClient *client, JsonObject *node, const gchar *const *search_path,
			  GError **error);
/* Runs the create script of the spec's instance's "os" with its "osparams"
 * and "osparams_private", and @osparams_secret (nullable), which only
 * travels over TLS into the script's environment, never into a log. A
 * failure's message carries the script's log tail after its first line. */
gboolean
gnt_node_call_os_create(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			const GntSecretDict *osparams_secret, guint debug_level, GError **error);
/* The same for a reinstall onto the instance's existing disks: the script
 * sees INSTANCE_REINSTALL=1 (Ganeti's instance_os_add with reinstall). */
gboolean
gnt_node_call_os_reinstall(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			   const GntSecretDict *osparams_secret, guint debug_level, GError **error);
/* Runs the rename script: OLD_INSTANCE_NAME @old_name, INSTANCE_NAME the
 * spec's. */
gboolean
gnt_node_call_os_rename(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			const gchar *old_name, guint debug_level, GError **error);
/* Ganeti's ValidateOS on the node: the OS exists and is valid, the variant
 * (unless @force_variant), and from API 20 the parameter names and the
 * verify script. @osparams: public and private merged (nullable), to
 * which @secrets (nullable) are added in the request only; the node treats
 * them all as private. */
gboolean
gnt_node_call_os_validate(GntRpcClient *client, JsonObject *node, const gchar *const *search_path,
			  const gchar *os_name, JsonObject *osparams, const GntSecretDict *secrets,
			  gboolean force_variant, GError **error);

/* Hands each element of @entries (objects with "seq") whose seq is
 * *@next_seq or later to @func (nullable), in order, and moves *@next_seq
 * past it: what a status procedure reports, each once. */
void
gnt_node_call_hand_on_seq(JsonArray *entries, gint64 *next_seq,
			  void (*func)(JsonObject *entry, gpointer user_data), gpointer user_data);

/* Called every @poll_ms while gnt_node_call_polling()'s call runs. */
typedef void (*GntNodeCallPollFunc)(gpointer user_data);

/*
 * gnt_node_call() of @procedure made in a thread of its own, while the
 * calling thread calls @poll (nullable) every @poll_ms until it is done:
 * for long calls whose progress the caller asks for meanwhile (a status
 * procedure). Checks that the answer is an object. (transfer full)
 */
JsonObject *
gnt_node_call_polling(GntRpcClient *client, JsonObject *node, const gchar *procedure,
		      JsonArray *args, guint timeout_s, guint poll_ms, GntNodeCallPollFunc poll,
		      gpointer user_data, GError **error);

G_END_DECLS
