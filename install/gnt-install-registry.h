#pragma once /* install/gnt-install-registry.h */

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/*
 * The install step registry (doc/install.md, "Steps"): every step Gantry
 * can run during an install, registered once, with where it runs, its
 * default priority, its arguments and a one-line description. The plan
 * builder (gnt-install-plan.h), install templates, `gnt-os list-steps` and
 * RAPI's /2/install-steps all read this table.
 *
 * A step's name is "interface.step" (e.g. "deploy.write_image"). A default
 * priority of 0 means the step runs only when a template gives it a
 * priority. Core steps (default priority above 0) run on every install, in
 * their fixed order; a template may only disable one (priority 0).
 */

/* The highest priority a step may have. */
#define GNT_INSTALL_PRIORITY_MAX 999

/* The priorities of the appliance's (in-band) steps: 81-99 before the
 * image is written, 71-79 between it and the OS scripts, 41-59 after
 * them (doc/install.md, "In-band steps"). */
#define GNT_INSTALL_APPLIANCE_MIN_PRIORITY 41
/* the interface of the appliance's steps: "appliance.NAME" */
#define GNT_INSTALL_APPLIANCE_INTERFACE	   "appliance"
#define GNT_INSTALL_APPLIANCE_MAX_PRIORITY 99

/* The argument every appliance step takes besides its own: its timeout
 * in seconds (1..GNT_INSTALL_STEP_TIMEOUT_MAX; absent: the cluster's
 * install_timeout). */
#define GNT_INSTALL_STEP_TIMEOUT_ARG "timeout"
#define GNT_INSTALL_STEP_TIMEOUT_MAX 86400

/* How many steps one template may hold. */
#define GNT_INSTALL_TEMPLATE_MAX_STEPS 64

typedef enum {
	GNT_INSTALL_ARG_STRING,	  /* a JSON string */
	GNT_INSTALL_ARG_INTEGER,  /* a JSON integer within [min, max] */
	GNT_INSTALL_ARG_BOOLEAN,  /* true or false */
	GNT_INSTALL_ARG_SIZE,	  /* a size: an integer of MiB or "10G" (Ganeti's units) */
	GNT_INSTALL_ARG_HVPARAMS, /* an object of hypervisor parameters */
	/* structured (lists of partitions, devices ...): the step's own checker
	 * in gnt-install-storage.c says which shape */
	GNT_INSTALL_ARG_JSON,
	GNT_INSTALL_ARG_LAST
} GntInstallArgType;

typedef struct {
	const gchar *name;
	GntInstallArgType type;
	gboolean required;
	/* part of the row's identity: two rows of one step with the same
	 * values of these arguments act on the same thing (one disk, ...) */
	gboolean identity;
	gint64 min, max; /* GNT_INSTALL_ARG_INTEGER only */
	const gchar *description;
} GntInstallArgSpec;

typedef enum {
	GNT_INSTALL_RUNS_HOST,	    /* the master or the node (out of band) */
	GNT_INSTALL_RUNS_APPLIANCE, /* inside the install appliance (in band) */
	GNT_INSTALL_RUNS_LAST
} GntInstallRunsOn;

typedef struct {
	const gchar *name;	/* "interface.step" */
	const gchar *interface; /* "deploy" */
	const gchar *step;	/* "write_image" */
	GntInstallRunsOn runs_on;
	guint default_priority; /* 0: only when a template asks */
	/* the priorities a template may give it besides 0 (non-core steps) */
	guint min_priority, max_priority;
	gboolean for_operators; /* FALSE: test-only, refused in templates */
	const GntInstallArgSpec *args;
	guint n_args;
	const gchar *description;
	/* the appliance's steps (the agent's catalogue, appliance/steps.json):
	 * whether the step asks for a reboot after it, and the priority the
	 * catalogue suggests */
	gboolean reboot_requested;
	guint catalogue_priority;
	/* the appliance's storage steps ("storage": true in the catalogue):
	 * they lay the disks out, so the plan writes the payload in band
	 * (appliance.write_payload) instead of deploy.write_image */
	gboolean storage;
	/* the steps that run only inside the appliance's VM ("needs_vm": true
	 * in the catalogue): the plan refuses them on a hypervisor that runs
	 * the agent on the node itself (gnt_hv_runs_appliance_on_host()),
	 * where they would act on the node's own disks */
	gboolean needs_vm;
} GntInstallStepSpec;

/* Every registered step (test-only ones included), in the table's order:
 * the core steps by falling priority, then the others, then the install
 * appliance's in-band steps ("appliance.NAME", from the agent's catalogue
 * built in). @n_steps: (out). */
const GntInstallStepSpec *
gnt_install_steps_get_all(guint *n_steps);

/* The step named "interface.step", or NULL. */
const GntInstallStepSpec *
gnt_install_steps_lookup(const gchar *name);

/* Whether @spec is a core step (runs on every install unless disabled). */
gboolean
gnt_install_step_is_core(const GntInstallStepSpec *spec);

/* "host" / "appliance"; "string", "integer", ... */
const gchar *
gnt_install_runs_on_to_string(GntInstallRunsOn runs_on);
const gchar *
gnt_install_arg_type_to_string(GntInstallArgType type);

/*
 * The listing of the steps operators may use, as `gnt-os list-steps` and
 * RAPI show it: an array of {"name", "interface", "step", "runs_on",
 * "default_priority", "core", "priorities": [min, max] or null,
 * "description", "args": [{"name", "type", "required", "description"}]}.
 * (transfer full)
 */
JsonArray *
gnt_install_steps_list(void);

/*
 * Checks the steps list of the install template @template_name: an array
 * (1 to GNT_INSTALL_TEMPLATE_MAX_STEPS items) of objects with exactly the
 * members "interface", "step", "args" (an object, {} for none) and
 * "priority" (a JSON integer), where:
 * - the step is registered and available to operators;
 * - args holds only the step's arguments, each of its type, and every
 *   required one;
 * - the priority is 0, or for a non-core step within its range (a core
 *   step may only be disabled);
 * - no two rows act on the same thing (same step, same identity
 *   arguments).
 * GNT_ERROR_INVALID otherwise, with a message naming the template, the row
 * (1-based) and its step, and the problem. Nothing about any instance or
 * hypervisor is known here: the plan builder checks those.
 */
gboolean
gnt_install_steps_validate(const gchar *template_name, JsonArray *steps, GError **error);

G_END_DECLS
