#pragma once
/*
 * What the instance units (gnt-lu-instance-*.c: create, remove, power,
 * rename, modify, reinstall) share: the unit's instance context, storing
 * an instance's members and state, the OS parameters and checks on the
 * node, and the checks of Gantry's instance fields.
 */
#include <json-glib/json-glib.h>

#include "gnt-records.h"
#include "gnt-lu-instance-spec.h"
#include "gnt-lu.h"
#include "gnt-rpc-client.h"
#include "gnt-secret-dict.h"

G_BEGIN_DECLS

/* Loads the context for the unit's later phases (check_prereq runs under
 * the locks, so it stays valid for exec). */
gboolean
gnt_lu_instance_ctx_load(GntLu *lu, gboolean need_online, GError **error);

/* The instance's name (its "name" member). */
const gchar *
gnt_lu_instance_name(GntLuInstanceCtx *ctx);

/* Replaces members of the stored instance @uuid by copies of @changes' in
 * one update (the record is read again: an earlier update of this unit
 * changed its serial number). */
gboolean
gnt_lu_instance_store_members(GntLu *lu, const gchar *uuid, JsonObject *changes, GError **error);

/* Stores a new admin state (GNT_ADMIN_STATE_LAST: none; not when the
 * opcode says not to remember) and a new install member (nullable), in one
 * update. */
gboolean
gnt_lu_instance_store_state(GntLu *lu, JsonObject *instance, GntAdminState state,
			    JsonObject *install, GError **error);

/* The opcode's secret OS parameters ("osparams_secret"), or NULL when none
 * were given. They stay in protected memory until they are written into a
 * node RPC's body (doc/secrets.md). (transfer full) */
GntSecretDict *
gnt_lu_dup_osparams_secret(GntLu *lu);

/* The check that gnt_lu_dup_osparams_secret() loses nothing: every value a
 * string (messages name the parameter, never a value). */
gboolean
gnt_lu_check_osparams_secret(GntLu *lu, GError **error);

/* An object member of a record or an opcode parameter, NULL when it is
 * missing or null. (transfer none) */
JsonObject *
gnt_lu_object_or_null(JsonNode *node);

/* An object member of @record, NULL when missing or null. (transfer none) */
JsonObject *
gnt_lu_record_object(JsonObject *record, const gchar *member);

/* A record's OS ("name+variant"), NULL when it has none. */
const gchar *
gnt_lu_record_os(JsonObject *record);

/* Ganeti's CheckOSParams on @node: @os_name ("name+variant") exists and
 * is valid there, its variant (unless force_variant), and the parameters
 * of every category, merged, against its parameters.list and verify
 * script. Each object may be NULL. */
gboolean
gnt_lu_check_os(GntLu *lu, GntRpcClient *rpc, JsonObject *node, const gchar *os_name,
		JsonObject *osparams, JsonObject *osparams_private,
		const GntSecretDict *osparams_secret, GError **error);

/* Looks up the names @os_name's definition on @node declares in its
 * parameters.list: TRUE with *@names NULL when it declares none (no such
 * OS, or one older than API 20, which takes no parameters), FALSE only
 * when the lookup failed. (*@names: transfer full) */
gboolean
gnt_lu_lookup_os_parameters(GntLu *lu, GntRpcClient *rpc, JsonObject *node, const gchar *os_name,
			    GHashTable **names, GError **error);

/*
 * Where the install of @record (its "os", with an install to do) runs its
 * create script (gnt-install-where.h): refused here, before anything
 * changes, when it cannot run anywhere. The decision goes into the
 * record's install member ("where": "host"|"appliance", "create_script":
 * the path on the node) for the install steps. @safe_param: the opcode's
 * "enable_safe_install" (nullable).
 */
gboolean
gnt_lu_choose_install_where(GntLu *lu, GntRpcClient *rpc, JsonObject *node, JsonObject *record,
			    JsonNode *safe_param, GError **error);

/* The user data, ssh keys and package of a create, modify or reinstall. */
gboolean
gnt_lu_check_instance_fields(const GntOpcode *op, GError **error);

/* Ganeti's disk dicts: size (MiB, or a string with a unit), mode, name. */
JsonArray *
gnt_lu_parse_disks(JsonArray *given, GError **error);

/* Ganeti's iallocator (hail through htools) picks the nodes; Gantry has
 * only its default placement, so an iallocator is refused rather than
 * ignored. */
gboolean
gnt_lu_check_no_iallocator(const GntOpcode *op, GError **error);

/* What create and reinstall answer with print_plan: {"instance": name,
 * "plan": the plan its install would run (null: it installs nothing)};
 * nothing changed. (transfer full) */
JsonNode *
gnt_lu_install_plan_result(JsonObject *instance);

/* self_install (doc/install.md): a copy of @instance's install member in
 * @state, for gnt_lu_instance_store_state(). (transfer full) */
JsonObject *
gnt_lu_install_dup_with_state(JsonObject *instance, const gchar *state);

/* Ganeti refuses a parameter given both public and private. */
gboolean
gnt_lu_check_no_repeated_params(JsonObject *osparams, JsonObject *osparams_private, GError **error);

/* What check_prereq settles for a unit that changes an instance: the
 * instance as stored (with its node and spec), the record as it is to be
 * and its spec, and for set_params the changes to report. */
typedef struct {
	GntLuInstanceCtx *current;
	JsonObject *updated;
	JsonObject *spec;
	JsonArray *changes;
	guint n_old_disks;
} GntLuChangeCtx;

void
gnt_lu_change_ctx_free(GntLuChangeCtx *ctx);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntLuChangeCtx, gnt_lu_change_ctx_free)

/* The end of check_prereq for a unit that changes an instance: with
 * @check_os, the OS of the record as it is to be and its parameters (and
 * @osparams_secret, nullable) checked on the instance's node; its spec
 * built (its hypervisor must still take it); @ctx (transfer full) kept for
 * exec. */
gboolean
gnt_lu_change_ctx_settle(GntLu *lu, GntLuChangeCtx *ctx, gboolean check_os,
			 const GntSecretDict *osparams_secret, GError **error);

G_END_DECLS
