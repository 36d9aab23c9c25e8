#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/*
 * Hypervisor parameters (hvparams): one table per hypervisor with each
 * parameter's type, default and validation, under Ganeti's names. Values
 * travel as strings (as `-H name=value` gives them); JSON records convert
 * with gnt_hv_params_from_json()/gnt_hv_params_to_json(). These work
 * without a node or a connection, so the master validates with them too.
 */

typedef enum {
	GNT_HV_PARAM_STRING,
	GNT_HV_PARAM_PATH, /* absolute, or empty for "none" */
	GNT_HV_PARAM_BOOL, /* true/false (also yes/no, on/off, 1/0 on input) */
	GNT_HV_PARAM_INT,  /* a non-negative integer */
	GNT_HV_PARAM_ENUM, /* one of @choices */
	GNT_HV_PARAM_LAST
} GntHvParamType;

typedef struct {
	const gchar *name;
	GntHvParamType type;
	const gchar *default_value;
	const gchar *const *choices; /* GNT_HV_PARAM_ENUM only; NULL-terminated */
	const gchar *help;	     /* what it does, one line */
} GntHvParamSpec;

/* The hypervisors Gantry knows, NULL-terminated: "kvm", "fake". */
const gchar *const *
gnt_hv_list_names(void);

/* Whether @hv_name is one of them; GNT_ERROR_INVALID naming it if not. */
gboolean
gnt_hv_check_name(const gchar *hv_name, GError **error);

/* Whether @hv_name runs the install appliance's agent on the node itself
 * as a process ("fake"), not in a VM of its own ("kvm"): in-band steps
 * then see the node's own files and devices, so the steps that need the
 * VM ("needs_vm" in the agent's catalogue, doc/appliance.md) are refused
 * there. FALSE for an unknown name. */
gboolean
gnt_hv_runs_appliance_on_host(const gchar *hv_name);

/* The parameter table of @hv_name (NULL for an unknown hypervisor), with
 * its length in @n_specs. (transfer none) */
const GntHvParamSpec *
gnt_hv_params_get_specs(const gchar *hv_name, gsize *n_specs);

/* The spec of one parameter, or NULL. */
const GntHvParamSpec *
gnt_hv_params_lookup(const gchar *hv_name, const gchar *param);

/* Checks every name and value of @params (name -> value strings; NULL is
 * empty). GNT_ERROR_INVALID with a message naming the parameter. */
gboolean
gnt_hv_params_check(const gchar *hv_name, GHashTable *params, GError **error);

/* The complete set for @hv_name: its defaults, overridden by @cluster,
 * overridden by @instance (either may be NULL), checked, with booleans
 * written as "true"/"false". (transfer full) */
GHashTable *
gnt_hv_params_fill(const gchar *hv_name, GHashTable *cluster, GHashTable *instance, GError **error);

/* Reads a JSON object of hvparams (strings, booleans, integers) into a
 * string table and checks it. (transfer full) */
GHashTable *
gnt_hv_params_from_json(const gchar *hv_name, JsonObject *obj, GError **error);

/* Writes @params as JSON members with their types into an object that
 * @builder has open, sorted by name. Values must have been checked. */
void
gnt_hv_params_to_json(const gchar *hv_name, GHashTable *params, JsonBuilder *builder);

/* The same as a new JSON object. (transfer full) */
JsonObject *
gnt_hv_params_to_object(const gchar *hv_name, GHashTable *params);

/* A filled table's boolean / integer value (FALSE / 0 when absent). */
gboolean
gnt_hv_params_get_bool(GHashTable *params, const gchar *name);
guint64
gnt_hv_params_get_uint(GHashTable *params, const gchar *name);
/* "" when absent. (transfer none) */
const gchar *
gnt_hv_params_get_string(GHashTable *params, const gchar *name);

G_END_DECLS
