#pragma once

#include <json-glib/json-glib.h>

#include "gnt-lu.h"
#include "gnt-secret-dict.h"

G_BEGIN_DECLS

/*
 * The install pipeline (doc/install.md): a list of steps with priorities,
 * run highest first, like Ironic's decomposed deploy. Create and reinstall
 * (cmdlib/gnt-lu-instance-create.c, -reinstall.c) run it; each step says why when it has nothing to do
 * (it is skipped), the job log shows every step's start, end, duration and
 * result, and the instance record keeps what the last install did in its
 * "install" member:
 *
 *	"install": {"mode": "run"|"self_install", "os_image": null|"...",
 *	            "hvparams": {install hvparams, self_install only},
 *	            "secret_names": ["rootpw"], "state": "running"|"done"|
 *	            "failed"|"pending"|"booted", "os": "...", "reinstall": bool,
 *	            "start_time": s, "end_time": s, "error": null|"...",
 *	            "plan": {the plan run, gnt-install-plan.h},
 *	            "steps": [{"name", "id", "step", "template", "args", "priority",
 *	                       "result", "duration", "start_time", "end_time",
 *	                       "detail"}]}
 *
 * Only names of secret parameters are kept there, never values.
 */

/* Whether the runner has an implementation of the registered step @step
 * ("interface.step"). */
gboolean
gnt_install_has_action(const gchar *step);

/* Install modes: Gantry installs before the first boot ("run"), or the
 * instance's first boot uses the install hvparams and installs itself
 * ("self_install", Ganeti's design). */
#define GNT_INSTALL_MODE_RUN	      "run"
#define GNT_INSTALL_MODE_SELF_INSTALL "self_install"
/* an Anaconda installer on the instance's disks (doc/kickstart.md) */
#define GNT_INSTALL_MODE_KICKSTART "kickstart"

/* States of the record's install. */
#define GNT_INSTALL_STATE_RUNNING "running" /* steps under way, or interrupted */
#define GNT_INSTALL_STATE_DONE	  "done"
#define GNT_INSTALL_STATE_FAILED  "failed"
#define GNT_INSTALL_STATE_PENDING "pending" /* self_install: the next start boots with them */
#define GNT_INSTALL_STATE_BOOTED  "booted"  /* self_install: its first shutdown ends it */

typedef enum {
	GNT_INSTALL_CREATE,    /* gnt-instance add: onto new disks */
	GNT_INSTALL_REINSTALL, /* onto the instance's existing disks, left stopped */
} GntInstallKind;

typedef struct _GntInstall GntInstall;

/*
 * An install of @record (the instance as it is to be: its "os",
 * "osparams", "osparams_private" and "install" parameters are what gets
 * installed) on @node, with @osparams_secret (nullable; only ever sent to
 * the node). With @start a create boots the instance (the boot step).
 * @record is copied (the steps change the copy's install state), @node and
 * @osparams_secret are referenced. (transfer full)
 */
GntInstall *
gnt_install_new(GntLu *lu, GntInstallKind kind, JsonObject *node, JsonObject *record,
		GntSecretDict *osparams_secret, gboolean start);
void
gnt_install_free(GntInstall *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntInstall, gnt_install_free)

/* Every step's check, before anything changes (check_prereq): what a step
 * cannot do is refused here (GNT_ERROR_INVALID naming it), e.g. a disk
 * image that is neither a path nor an http(s) URL, or install hvparams
 * the hypervisor does not take. */
gboolean
gnt_install_check(GntInstall *self, GError **error);

/*
 * Runs the plan through @rpc; the first failing step ends it (the rest are
 * "not run") and fails with "install step 'NAME' failed: ..." and the last
 * line of the step's output (its last lines are in the job log). The
 * caller undoes or keeps what is there (gnt_install_disks_may_exist()) and
 * stores gnt_install_dup_state().
 */
gboolean
gnt_install_run(GntInstall *self, GntRpcClient *rpc, GError **error);

/*
 * After a master restart (doc/install.md "Master restarts"): the install
 * goes on at the appliance session @resume names, which gnt_install_run()
 * recorded with gnt_lu_set_resume() when it started it ({"session", "row"}):
 * the rows before it count as done, the session is followed, not started
 * again, the rows after it run. Before gnt_install_run().
 */
void
gnt_install_resume_from(GntInstall *self, JsonObject *resume);

/* The members of the instance's record that steps changed and the caller
 * stores: "hvparams" (hypervisor.apply_settings), "disks"
 * (deploy.resize_disk); empty when none. (transfer full) */
JsonObject *
gnt_install_dup_changes(const GntInstall *self);

/*
 * Builds the plan of an install of @record (as it is to be: its tags,
 * hypervisor and disks) on @node: the install templates its tags select
 * (gnt_install_select_templates()) and the cluster's policy, and puts it
 * into @record's install member as "plan", where the install finds it.
 * Built once, before anything changes: a template changed or removed
 * afterwards does not change the install. GNT_ERROR_INVALID naming the
 * template, the tag or the node.
 */
gboolean
gnt_install_attach_plan(GntConfig *config, JsonObject *record, JsonObject *node, GError **error);

/*
 * The install templates @record's tags select, by name: each instance tag
 * that names a template, which @node (the primary node) must carry too;
 * refused otherwise, naming the tag and the node. (transfer full: a
 * pointer array of JsonObject copies)
 */
GPtrArray *
gnt_install_select_templates(GntConfig *config, JsonObject *record, JsonObject *node,
			     GError **error);

/* Whether the instance's disks may exist: the prepare step started making
 * them, even if it failed (a failed create removes them). */
gboolean
gnt_install_disks_may_exist(const GntInstall *self);
/* Whether the boot step started the instance. */
gboolean
gnt_install_booted(const GntInstall *self);

/* The record's new "install" member after gnt_install_run(): the
 * parameters, the state ("done", "failed", or for self_install "pending"
 * or "booted"), the steps and their results. (transfer full) */
JsonObject *
gnt_install_dup_state(const GntInstall *self);

/* ---- the record's install member ---- */

/* @record's "install" member, NULL when it has none (an instance made with
 * --no-install, or before installs were recorded). (transfer none) */
JsonObject *
gnt_install_get(JsonObject *record);
/* Its state, mode ("run" when none), disk image and the image's expected
 * SHA-256 (nullable). */
const gchar *
gnt_install_get_state(JsonObject *record);
const gchar *
gnt_install_get_mode(JsonObject *record);
const gchar *
gnt_install_get_os_image(JsonObject *record);
const gchar *
gnt_install_get_os_image_sha256(JsonObject *record);
/* Whether @record's OS image is a root filesystem tarball: its catalog
 * image's format says so ("os_image_format"), or, given as a path or URL,
 * its name ends in .tar, .tar.gz, .tgz, .tar.xz or .txz. */
gboolean
gnt_install_os_image_is_tarball(JsonObject *record);

/* The disk image an opcode (create or reinstall) asks for: its os_image,
 * else Ganeti's spelling, the OS parameter "os-image"; NULL for none. Its
 * expected SHA-256 likewise: os_image_sha256 (nullable). (transfer none) */
const gchar *
gnt_install_op_os_image(const GntOpcode *op);
/* Sets the disk image of the install parameters @install: @image NULL
 * keeps the current one (and its SHA-256), "" removes it; a new one drops
 * the catalog's format of the old ("os_image_format"). */
void
gnt_install_set_os_image(JsonObject *install, const gchar *image, const gchar *sha256);
/* Sets the state of @record's install (which must exist). */
void
gnt_install_set_state(JsonObject *record, const gchar *state);

/* The install parameters of a new record: @mode (NULL: "run"),
 * @hvparams (nullable: none), no disk image, state "running".
 * (transfer full) */
JsonObject *
gnt_install_params_new(const gchar *mode, JsonObject *hvparams);

/* Whether @record's self_install waits for its first boot ("pending"):
 * its next start is to use the install hvparams. */
gboolean
gnt_install_is_first_boot_pending(JsonObject *record);

/*
 * The spec to start @record with (gnt_lu_instance_spec_new()): while its
 * self_install is "pending", its hvparams overlaid with the install
 * hvparams, and *@first_boot TRUE; otherwise its own. (transfer full)
 */
JsonObject *
gnt_install_boot_spec_new(GntConfig *config, JsonObject *record, gboolean *first_boot,
			  GError **error);

/* The install's state as gnt-instance info and OP_INSTANCE_QUERY_DATA show
 * it (the record's member, copied; {"mode": "run", "state": null} when it
 * has none). (transfer full) */
JsonObject *
gnt_install_dup_shown(JsonObject *record);

G_END_DECLS
