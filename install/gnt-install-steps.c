/*
 * The install pipeline (doc/install.md): the core steps as data, their
 * implementations, and the record of what the last install did. The steps
 * that have nothing to do say why and are skipped; the job log shows each
 * step's start and end (the entries' timestamps), its duration and result.
 */
#include "gnt-install-steps.h"

#include <string.h>

#include "gnt-config.h"
#include "gnt-config-images.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-lu-instance-spec.h"
#include "gnt-hv-params.h"
#include "gnt-install-plan.h"
#include "gnt-install-storage.h"
#include "gnt-install-where.h"
#include "gnt-kickstart-prepare.h"
#include "gnt-lu-instance-kickstart.h"
#include "gnt-lu-instance-metadata.h"
#include "gnt-metadata.h"
#include "gnt-node-calls-appliance.h"
#include "gnt-node-calls-image.h"
#include "gnt-node-calls-session.h"
#include "gnt-node-calls.h"
#include "gnt-size.h"

typedef enum {
	STEP_OK,
	STEP_SKIPPED,
	STEP_FAILED,
	STEP_NOT_RUN,
	STEP_LAST
} StepResult;

static const gchar *const step_results[] = {
	[STEP_OK] = "ok",
	[STEP_SKIPPED] = "skipped",
	[STEP_FAILED] = "failed",
	[STEP_NOT_RUN] = "not run",
};
G_STATIC_ASSERT(G_N_ELEMENTS(step_results) == STEP_LAST);

struct _GntInstall {
	GntLu *lu;
	GntInstallKind kind;
	JsonObject *node;
	JsonObject *record;
	GntSecretDict *osparams_secret; /* nullable */
	gboolean start;
	GntRpcClient *rpc; /* while running */
	JsonObject *spec;  /* of the record, while running */
	gboolean disks_may_exist;
	gboolean booted;
	gboolean first_boot;	      /* the boot used the install hvparams */
	gboolean boot_prepared;	      /* self_install: the first boot is to use them */
	gboolean in_appliance;	      /* the OS scripts run in the install appliance */
	JsonObject *appliance_result; /* its run's answer (appliance_run) */
	gboolean ran;
	gboolean failed;
	gchar *error_text;
	gdouble start_time;
	gdouble end_time;
	JsonObject *plan;	   /* the plan run: the record's, or the core plan */
	JsonObject *args;	   /* the arguments of the row being checked or run */
	gboolean hvparams_changed; /* hypervisor.apply_settings ran */
	gboolean disks_changed;	   /* deploy.resize_disk grew a disk */
	JsonArray *steps;
	/* after a master restart (gnt_install_resume_from()): the session to
	 * follow, and its first row */
	gchar *resume_token;
	guint resume_row;
};

/* ---- the record's install member ---- */

static const gchar *
object_string(JsonObject *obj, const gchar *key)
{
	JsonNode *node = obj != NULL ? json_object_get_member(obj, key) : NULL;

	return node != NULL && JSON_NODE_HOLDS_VALUE(node) &&
			       json_node_get_value_type(node) == G_TYPE_STRING
		       ? json_node_get_string(node)
		       : NULL;
}

static JsonObject *
object_member(JsonObject *obj, const gchar *key)
{
	JsonNode *node = obj != NULL ? json_object_get_member(obj, key) : NULL;

	return node != NULL && JSON_NODE_HOLDS_OBJECT(node) ? json_node_get_object(node) : NULL;
}

JsonObject *
gnt_install_get(JsonObject *record)
{
	return object_member(record, "install");
}

const gchar *
gnt_install_get_state(JsonObject *record)
{
	return object_string(gnt_install_get(record), "state");
}

const gchar *
gnt_install_get_mode(JsonObject *record)
{
	const gchar *mode = object_string(gnt_install_get(record), "mode");

	return mode != NULL ? mode : GNT_INSTALL_MODE_RUN;
}

const gchar *
gnt_install_get_os_image(JsonObject *record)
{
	const gchar *image = object_string(gnt_install_get(record), "os_image");

	return image != NULL && image[0] != '\0' ? image : NULL;
}

const gchar *
gnt_install_get_os_image_sha256(JsonObject *record)
{
	return gnt_install_get_os_image(record) != NULL
		       ? object_string(gnt_install_get(record), "os_image_sha256")
		       : NULL;
}

gboolean
gnt_install_os_image_is_tarball(JsonObject *record)
{
	static const gchar *const suffixes[] = {".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz"};
	const gchar *image = gnt_install_get_os_image(record);
	const gchar *format = object_string(gnt_install_get(record), "os_image_format");

	if (image == NULL)
		return FALSE;
	if (format != NULL)
		return g_str_equal(format, "tarball");
	for (guint i = 0; i < G_N_ELEMENTS(suffixes); i++) {
		if (g_str_has_suffix(image, suffixes[i]))
			return TRUE;
	}
	return FALSE;
}

const gchar *
gnt_install_op_os_image(const GntOpcode *op)
{
	const gchar *image = gnt_opcode_get_string(op, "os_image");
	JsonNode *osparams = gnt_opcode_get_param(op, "osparams");

	if (image == NULL && osparams != NULL && JSON_NODE_HOLDS_OBJECT(osparams))
		image = object_string(json_node_get_object(osparams), "os-image");
	return image;
}

void
gnt_install_set_os_image(JsonObject *install, const gchar *image, const gchar *sha256)
{
	g_return_if_fail(install != NULL);

	if (image == NULL)
		return;
	json_object_remove_member(install, "os_image_format");
	if (image[0] == '\0') {
		json_object_set_null_member(install, "os_image");
		json_object_set_null_member(install, "os_image_sha256");
		return;
	}
	json_object_set_string_member(install, "os_image", image);
	if (sha256 != NULL)
		json_object_set_string_member(install, "os_image_sha256", sha256);
	else
		json_object_set_null_member(install, "os_image_sha256");
}

void
gnt_install_set_state(JsonObject *record, const gchar *state)
{
	JsonObject *install = gnt_install_get(record);

	g_return_if_fail(install != NULL);
	json_object_set_string_member(install, "state", state);
}

JsonObject *
gnt_install_params_new(const gchar *mode, JsonObject *hvparams)
{
	JsonObject *install = json_object_new();

	json_object_set_string_member(install, "mode", mode != NULL ? mode : GNT_INSTALL_MODE_RUN);
	json_object_set_null_member(install, "os_image");
	json_object_set_null_member(install, "os_image_sha256");
	json_object_set_object_member(install, "hvparams",
				      hvparams != NULL ? gnt_json_object_deep_copy(hvparams)
						       : json_object_new());
	json_object_set_string_member(install, "state", GNT_INSTALL_STATE_RUNNING);
	return install;
}

static gboolean
is_self_install(JsonObject *record)
{
	return g_strcmp0(gnt_install_get_mode(record), GNT_INSTALL_MODE_SELF_INSTALL) == 0;
}

/* A copy of @record whose hvparams are its own overlaid with its install
 * hvparams: what its first boot in self_install mode runs with. */
static JsonObject *
record_dup_for_first_boot(JsonObject *record)
{
	JsonObject *copy = gnt_json_object_deep_copy(record);
	JsonObject *own = object_member(record, "hvparams");
	JsonObject *hvparams = own != NULL ? gnt_json_object_deep_copy(own) : json_object_new();

	gnt_json_object_overlay(hvparams, object_member(gnt_install_get(record), "hvparams"));
	json_object_set_object_member(copy, "hvparams", hvparams);
	return copy;
}

gboolean
gnt_install_is_first_boot_pending(JsonObject *record)
{
	return is_self_install(record) &&
	       g_strcmp0(gnt_install_get_state(record), GNT_INSTALL_STATE_PENDING) == 0;
}

JsonObject *
gnt_install_boot_spec_new(GntConfig *config, JsonObject *record, gboolean *first_boot,
			  GError **error)
{
	g_autoptr(JsonObject) booted = NULL;

	*first_boot = gnt_install_is_first_boot_pending(record);
	if (!*first_boot)
		return gnt_lu_instance_spec_new(config, record, error);
	booted = record_dup_for_first_boot(record);
	return gnt_lu_instance_spec_new(config, booted, error);
}

JsonObject *
gnt_install_dup_shown(JsonObject *record)
{
	JsonObject *install = gnt_install_get(record);
	JsonObject *shown;

	if (install != NULL)
		return gnt_json_object_deep_copy(install);
	shown = json_object_new();
	json_object_set_string_member(shown, "mode", GNT_INSTALL_MODE_RUN);
	json_object_set_null_member(shown, "state");
	return shown;
}

/* ---- the steps ---- */

typedef struct {
	const gchar *name;
	/* refuses what the step cannot do, before anything changes; nullable */
	gboolean (*check)(GntInstall *self, GError **error);
	/* why the step has nothing to do, NULL when it has something
	 * (transfer full) */
	gchar *(*skip_reason)(GntInstall *self);
	/* nullable for a step that never has anything to do yet */
	gboolean (*run)(GntInstall *self, GError **error);
} StepAction;

static guint
debug_level(GntInstall *self)
{
	return gnt_opcode_get_debug_level(gnt_lu_get_opcode(self->lu));
}

/* prepare: the new instance's disks (a reinstall keeps its own). */
static gchar *
prepare_skip_reason(GntInstall *self)
{
	JsonArray *disks = json_object_get_array_member(self->record, "disks");

	if (self->kind == GNT_INSTALL_REINSTALL)
		return g_strdup("the instance's disks are kept");
	if (disks == NULL || json_array_get_length(disks) == 0)
		return g_strdup("a diskless instance has no disks to make");
	return NULL;
}

static gboolean
prepare_run(GntInstall *self, GError **error)
{
	gnt_lu_feedback(self->lu, "* creating instance disks...");
	/* from now on: a call that failed part-way on the node, or whose
	 * answer was lost (noded killed), may have left some */
	self->disks_may_exist = TRUE;
	return gnt_node_call_blockdev_create(self->rpc, self->node, self->spec, error);
}

/* write_image: a disk image onto disk 0, by the node's image writer
 * (install/gnt-image-writer.c, doc/images.md), which checks the image
 * itself (format, backing files, size, checksum) before writing. Here only
 * what can be told without it: the image's spelling and the checksum's. */
static gboolean
write_image_check(GntInstall *self, GError **error)
{
	const gchar *image = gnt_install_get_os_image(self->record);
	const gchar *sha256 = gnt_install_get_os_image_sha256(self->record);

	if (image == NULL)
		return TRUE;
	if (image[0] != '/' && !g_str_has_prefix(image, "http://") &&
	    !g_str_has_prefix(image, "https://")) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "OS image '%s' is neither an absolute path on the node nor an "
			    "http(s) URL",
			    image);
		return FALSE;
	}
	if (sha256 != NULL &&
	    (strlen(sha256) != 64 || strspn(sha256, "0123456789abcdefABCDEF") != 64)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "the OS image's SHA-256 must be 64 hexadecimal digits");
		return FALSE;
	}
	return TRUE;
}

/* deploy.write_image: the host writes disk images only; a root filesystem
 * tarball is a kickstart install's liveimg or is unpacked in band onto a
 * storage layout (appliance.write_payload). */
static gboolean
write_image_host_check(GntInstall *self, GError **error)
{
	const gchar *name = object_string(gnt_install_get(self->record), GNT_IMAGE_INSTALL_KEY);

	if (!write_image_check(self, error))
		return FALSE;
	if (gnt_install_os_image_is_tarball(self->record) &&
	    !gnt_lu_instance_kickstart_is_install(self->lu, self->record)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "image '%s' is a root filesystem tarball: only raw and qcow2 images "
			    "are written onto a disk by the host (a tarball is unpacked in band "
			    "onto a storage layout, by an install template with storage steps such "
			    "as CUSTOM_RAID1_LVM, or is a kickstart install's liveimg: "
			    "--install-mode kickstart, --ks-template, or an image with an "
			    "installer_kernel)",
			    name != NULL ? name : gnt_install_get_os_image(self->record));
		return FALSE;
	}
	return TRUE;
}

static gchar *
write_image_skip_reason(GntInstall *self)
{
	return gnt_install_get_os_image(self->record) == NULL ? g_strdup("no disk image given")
							      : NULL;
}

static void
write_image_progress(const gchar *line, gpointer user_data)
{
	GntInstall *self = user_data;

	gnt_lu_feedback(self->lu, "  %s", line);
}

static gboolean
write_image_run(GntInstall *self, GError **error)
{
	g_autoptr(JsonObject) written = NULL;
	g_autoptr(JsonObject)
		cluster = gnt_config_dup_cluster_info(gnt_lu_get_env(self->lu)->config);
	/* the nodes' artifact cache's cap (a setting: always set) */
	guint64 cache_mib = (guint64)json_object_get_int_member(cluster, "image_cache_size");

	/* kickstart mode: the installer writes the image (its liveimg) onto
	 * the disks; the host steps at 60 and below run after its end */
	if (gnt_lu_instance_kickstart_is_install(self->lu, self->record))
		return gnt_lu_instance_kickstart_run(self->lu, self->rpc, self->node, self->spec,
						     self->record, self->osparams_secret, error);
	gnt_lu_feedback(self->lu, "* writing the OS image onto disk 0...");
	written = gnt_node_call_image_write_cached(self->rpc, self->node, self->spec,
						   gnt_install_get_os_image(self->record),
						   gnt_install_get_os_image_sha256(self->record),
						   cache_mib * 1024 * 1024, write_image_progress,
						   self, error);
	return written != NULL;
}

/* run_os_scripts: the OS definition's create script on the node, with
 * INSTANCE_REINSTALL=1 for a reinstall (Ganeti's instance_os_add). */
static gchar *
run_os_scripts_skip_reason(GntInstall *self)
{
	if (gnt_lu_instance_kickstart_is_install(self->lu, self->record))
		return g_strdup("the kickstart installer installs the OS");
	if (object_string(self->record, "os") != NULL)
		return NULL;
	if (is_self_install(self->record))
		return g_strdup("no OS given: the instance installs itself at its first boot");
	return g_strdup("no OS given");
}

/* A failed script's message carries the last lines of its log after the
 * first line: they go to the job log, one entry each, and @error keeps the
 * first line and the last of them. */
static void
move_output_tail_to_job_log(GntLu *lu, GError *error)
{
	const gchar *newline = strchr(error->message, '\n');
	g_autofree gchar *head = NULL;
	g_auto(GStrv) lines = NULL;
	const gchar *last = NULL;

	if (newline == NULL)
		return;
	lines = g_strsplit(newline + 1, "\n", -1);
	for (guint i = 0; lines[i] != NULL; i++) {
		if (lines[i][0] == '\0')
			continue;
		gnt_lu_feedback(lu, "%s", lines[i]);
		last = lines[i];
	}
	head = g_strchomp(g_strndup(error->message, (gsize)(newline - error->message)));
	if (g_str_has_suffix(head, ":"))
		head[strlen(head) - 1] = '\0';
	g_free(error->message);
	if (last != NULL)
		error->message = g_strdup_printf(
			"%s, ending with: %s (its last lines are in the job log)", head, last);
	else
		error->message = g_strdup_printf("%s (shown in the job log)", head);
}

static const gchar *
package_url(GntInstall *self)
{
	return object_string(object_member(self->record, "osparams"), GNT_OSP_OS_PACKAGE);
}

static const gchar *
secret_value(GntInstall *self, const gchar *name)
{
	return self->osparams_secret != NULL ? gnt_secret_dict_lookup(self->osparams_secret, name)
					     : NULL;
}

/* @secrets as a JSON object, for the appliance's call only (its options
 * are wiped after it: doc/secrets.md, Limits). (transfer full) */
static JsonObject *
secrets_to_object(const GntSecretDict *secrets)
{
	g_autoptr(GPtrArray) names = gnt_secret_dict_dup_names(secrets);
	JsonObject *out = json_object_new();

	for (guint i = 0; i < names->len; i++)
		json_object_set_string_member(out, names->pdata[i],
					      gnt_secret_dict_lookup(secrets, names->pdata[i]));
	return out;
}

/* What the node needs to run the appliance: the metadata record metad
 * serves it (with the secrets, which only travel), the package and its
 * credentials, the cluster's install timeout. (transfer full) */
static JsonObject *
appliance_options_new(GntInstall *self)
{
	GntConfig *config = gnt_lu_get_env(self->lu)->config;
	g_autoptr(JsonObject) record = gnt_lu_instance_metadata_new(config, self->record);
	g_autoptr(GntSecretDict) secrets = gnt_lu_instance_metadata_secrets(self->osparams_secret);
	g_autoptr(JsonObject) cluster = gnt_config_dup_cluster_info(config);
	JsonObject *options;
	const gchar *url = package_url(self);
	const gchar *username = secret_value(self, GNT_OSP_OS_PACKAGE_USERNAME);
	const gchar *password = secret_value(self, GNT_OSP_OS_PACKAGE_PASSWORD);

	/* metad serves them to the appliance; never the package's credentials */
	if (secrets != NULL)
		json_object_set_object_member(record, "osparams_secret",
					      secrets_to_object(secrets));
	options = json_object_new();
	json_object_set_object_member(options, "record", g_steal_pointer(&record));
	json_object_set_member(options, "package_url", gnt_json_node_new_string(url));
	json_object_set_member(options, "package_username", gnt_json_node_new_string(username));
	json_object_set_member(options, "package_password", gnt_json_node_new_string(password));
	json_object_set_int_member(options, "timeout",
				   json_object_get_int_member(cluster,
							      "install_timeout")); /* always set */
	json_object_set_int_member(options, "debug", debug_level(self));
	json_object_set_boolean_member(options, "reinstall", self->kind == GNT_INSTALL_REINSTALL);
	return options;
}

/* The write_payload step's file (noded/gnt-noded-payload.h): the OS image
 * or root filesystem tarball, under the name metad serves it by (its
 * compression in its extension, as a kickstart's liveimg). */
static JsonObject *
payload_option_new(GntInstall *self)
{
	g_autoptr(JsonObject)
		cluster = gnt_config_dup_cluster_info(gnt_lu_get_env(self->lu)->config);
	const gchar *image = gnt_install_get_os_image(self->record);
	gboolean tarball = gnt_install_os_image_is_tarball(self->record);
	g_autofree gchar *url = gnt_kickstart_liveimg_url(image, tarball);
	g_autofree gchar *name = g_path_get_basename(url);
	JsonObject *payload = json_object_new();

	json_object_set_string_member(payload, "url", image);
	json_object_set_member(
		payload, "sha256",
		gnt_json_node_new_string(gnt_install_get_os_image_sha256(self->record)));
	json_object_set_string_member(payload, "name", name);
	json_object_set_boolean_member(payload, "tarball", tarball);
	/* the nodes' artifact cache's cap (a setting: always set) */
	json_object_set_int_member(payload, "cache_bytes",
				   json_object_get_int_member(cluster, "image_cache_size") * 1024 *
					   1024);
	return payload;
}

static gboolean
run_os_scripts_run(GntInstall *self, GError **error)
{
	g_autoptr(GError) local = NULL;
	gboolean ok;

	/* in the appliance it is a row of the appliance's session */
	g_return_val_if_fail(!self->in_appliance, FALSE);
	gnt_lu_feedback(self->lu, "* running the instance OS create scripts...");
	if (self->kind == GNT_INSTALL_REINSTALL)
		ok = gnt_node_call_os_reinstall(self->rpc, self->node, self->spec,
						self->osparams_secret, debug_level(self), &local);
	else
		ok = gnt_node_call_os_create(self->rpc, self->node, self->spec,
					     self->osparams_secret, debug_level(self), &local);
	if (!ok) {
		move_output_tail_to_job_log(self->lu, local);
		g_propagate_error(error, g_steal_pointer(&local));
	}
	return ok;
}

/* personalize: the package from os-package is unpacked on the instance's
 * filesystem after the scripts, by the appliance's agent: always a row of
 * the appliance's session (in band). */
static gboolean
personalize_check(GntInstall *self, GError **error)
{
	const gchar *url = package_url(self);

	/* its spelling (http(s), .tar.gz or .tgz) is the unit's check */
	if (url == NULL || gnt_lu_instance_kickstart_is_install(self->lu, self->record))
		return TRUE; /* a kickstart install: its %post applies it */
	if (!self->in_appliance) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "the personalization package is unpacked inside the install appliance, "
			    "which this install does not use (safe install is off): leave safe "
			    "install on to use '%s'",
			    url);
		return FALSE;
	}
	return TRUE;
}

static gchar *
personalize_skip_reason(GntInstall *self)
{
	if (package_url(self) == NULL)
		return g_strdup("no personalization package given");
	if (gnt_lu_instance_kickstart_is_install(self->lu, self->record))
		return g_strdup("the kickstart's %post --nochroot unpacked it (doc/kickstart.md)");
	return NULL;
}

/* prepare_boot: for self_install, the first boot is to use the install
 * hvparams. Checked before anything changes: the hypervisor must take
 * them over the instance's own. */
static gboolean
prepare_boot_check(GntInstall *self, GError **error)
{
	GntConfig *config = gnt_lu_get_env(self->lu)->config;
	g_autoptr(JsonObject) booted = NULL;
	g_autoptr(JsonObject) spec = NULL;

	if (!is_self_install(self->record))
		return TRUE;
	booted = record_dup_for_first_boot(self->record);
	spec = gnt_lu_instance_spec_new(config, booted, error);
	if (spec == NULL) {
		g_prefix_error(error, "install hypervisor parameters: ");
		return FALSE;
	}
	return TRUE;
}

static gchar *
prepare_boot_skip_reason(GntInstall *self)
{
	return is_self_install(self->record)
		       ? NULL
		       : g_strdup("the instance boots with its own parameters");
}

static gboolean
prepare_boot_run(GntInstall *self, GError **error)
{
	JsonObject *hvparams = object_member(gnt_install_get(self->record), "hvparams");
	g_autoptr(GString) text = g_string_new(NULL);
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *value;

	gnt_install_set_state(self->record, GNT_INSTALL_STATE_PENDING);
	self->boot_prepared = TRUE;
	if (hvparams != NULL) {
		json_object_iter_init_ordered(&iter, hvparams);
		while (json_object_iter_next_ordered(&iter, &key, &value)) {
			g_autofree gchar *shown = gnt_json_to_string(value);

			g_string_append_printf(text, "%s%s=%s", text->len > 0 ? ", " : "", key,
					       shown);
		}
	}
	gnt_lu_feedback(self->lu, "self_install: the first boot uses the install parameters (%s)",
			text->len > 0 ? text->str : "none");
	return TRUE;
}

/* tear_down_appliance: the node destroys the appliance, its channel and
 * what metad held for it before appliance_run answers (on every path, so
 * that a master gone mid-install leaves nothing behind); here the master
 * says what went. */
static gchar *
tear_down_appliance_skip_reason(GntInstall *self)
{
	return self->appliance_result == NULL ? g_strdup("no install appliance was used") : NULL;
}

static gboolean
tear_down_appliance_run(GntInstall *self, GError **error)
{
	gnt_lu_feedback(self->lu,
			"the install appliance ran %.1f s; the node removed it, its channel "
			"and its metadata",
			json_object_get_double_member_with_default(self->appliance_result,
								   "seconds", 0));
	return TRUE;
}

static gchar *
switch_networks_skip_reason(GntInstall *self)
{
	return g_strdup("no install network was used");
}

/* boot: a new instance starts (unless --no-start); for self_install with
 * the install hvparams, which makes the install "booted". */
static gchar *
boot_skip_reason(GntInstall *self)
{
	if (self->kind == GNT_INSTALL_REINSTALL)
		return g_strdup("a reinstall leaves the instance stopped");
	if (!self->start)
		return g_strdup("the instance is not to be started");
	return NULL;
}

static gboolean
boot_run(GntInstall *self, GError **error)
{
	GntConfig *config = gnt_lu_get_env(self->lu)->config;
	gboolean first_boot = gnt_install_is_first_boot_pending(self->record);
	g_autoptr(JsonObject) spec =
		first_boot ? gnt_install_boot_spec_new(config, self->record, &first_boot, error)
			   : json_object_ref(self->spec);

	if (spec == NULL)
		return FALSE;
	gnt_lu_feedback(self->lu, "* starting instance...");
	if (!gnt_node_call_instance_start(self->rpc, self->node, spec, FALSE, error))
		return FALSE;
	self->booted = TRUE;
	self->first_boot = first_boot;
	if (first_boot)
		gnt_install_set_state(self->record, GNT_INSTALL_STATE_BOOTED);
	return TRUE;
}

/* ---- the steps templates add (doc/install.md, "Steps") ---- */

/* deploy.resize_disk: grows a disk of the instance to at least "size",
 * through the node as gnt-instance grow-disk does; a disk already that
 * large is left. */
static guint64
resize_target_mib(GntInstall *self)
{
	JsonNode *size = json_object_get_member(self->args, "size");
	guint64 mib = 0;

	/* checked by the registry: an integer of MiB or a size with a unit */
	if (gnt_json_node_is_int(size))
		return (guint64)json_node_get_int(size);
	gnt_size_parse(json_node_get_string(size), &mib, NULL);
	return mib;
}

static JsonObject *
resize_disk_record(GntInstall *self)
{
	JsonArray *disks = json_object_get_array_member(self->record, "disks");
	gint64 index = json_object_get_int_member(self->args, "disk");

	return disks != NULL && index < json_array_get_length(disks)
		       ? json_array_get_object_element(disks, index)
		       : NULL;
}

static gboolean
resize_disk_check(GntInstall *self, GError **error)
{
	if (resize_disk_record(self) == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "deploy.resize_disk: the instance has no disk %" G_GINT64_FORMAT,
			    json_object_get_int_member(self->args, "disk"));
		return FALSE;
	}
	if (resize_target_mib(self) > G_MAXUINT) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "deploy.resize_disk: %" G_GUINT64_FORMAT
			    " MiB is larger than the largest disk (%u MiB)",
			    resize_target_mib(self), G_MAXUINT);
		return FALSE;
	}
	return TRUE;
}

static gchar *
resize_disk_skip_reason(GntInstall *self)
{
	JsonObject *disk = resize_disk_record(self);
	gint64 size = json_object_get_int_member_with_default(disk, "size", 0);
	g_autofree gchar *shown = NULL;

	if ((guint64)size < resize_target_mib(self))
		return NULL;
	shown = gnt_size_format(size, GNT_SIZE_UNIT_AUTO);
	return g_strdup_printf("disk %" G_GINT64_FORMAT " is already %s",
			       json_object_get_int_member(self->args, "disk"), shown);
}

static gboolean
resize_disk_run(GntInstall *self, GError **error)
{
	GntConfig *config = gnt_lu_get_env(self->lu)->config;
	gint64 index = json_object_get_int_member(self->args, "disk");
	guint64 target = resize_target_mib(self);
	g_autofree gchar *shown = gnt_size_format((gint64)target, GNT_SIZE_UNIT_AUTO);
	JsonObject *spec;

	gnt_lu_feedback(self->lu, "* growing disk %" G_GINT64_FORMAT " to %s...", index, shown);
	if (!gnt_node_call_blockdev_grow(self->rpc, self->node, self->spec, (guint)index, target,
					 error))
		return FALSE;
	json_object_set_int_member(resize_disk_record(self), "size", (gint64)target);
	self->disks_changed = TRUE;
	/* the later steps see the new size */
	spec = gnt_lu_instance_spec_new(config, self->record, error);
	if (spec == NULL)
		return FALSE;
	json_object_unref(self->spec);
	self->spec = spec;
	return TRUE;
}

/* hypervisor.apply_settings: the instance's hvparams with the row's laid
 * over them, checked by the hypervisor's rules (the instance spec) before
 * anything changes; the boot step and later starts use them. */
static JsonObject *
record_dup_with_settings(GntInstall *self, GError **error)
{
	const gchar *hv = object_string(self->record, "hypervisor");
	JsonObject *given = json_object_get_object_member(self->args, "hvparams");
	g_autoptr(GHashTable) table = gnt_hv_params_from_json(hv, given, error);
	g_autoptr(JsonObject) typed = NULL;
	JsonObject *copy;
	JsonObject *hvparams;

	if (table == NULL) {
		g_prefix_error(error, "hypervisor.apply_settings: ");
		return NULL;
	}
	typed = gnt_hv_params_to_object(hv, table);
	copy = gnt_json_object_deep_copy(self->record);
	hvparams = object_member(copy, "hvparams");
	if (hvparams == NULL) {
		hvparams = json_object_new();
		json_object_set_object_member(copy, "hvparams", hvparams);
	}
	gnt_json_object_overlay(hvparams, typed);
	return copy;
}

static gboolean
apply_settings_check(GntInstall *self, GError **error)
{
	GntConfig *config = gnt_lu_get_env(self->lu)->config;
	g_autoptr(JsonObject) record = record_dup_with_settings(self, error);
	g_autoptr(JsonObject) spec = NULL;

	if (record == NULL)
		return FALSE;
	spec = gnt_lu_instance_spec_new(config, record, error);
	if (spec == NULL) {
		g_prefix_error(error, "hypervisor.apply_settings: ");
		return FALSE;
	}
	return TRUE;
}

static gchar *
no_skip_reason(GntInstall *self)
{
	return NULL;
}

static gboolean
apply_settings_run(GntInstall *self, GError **error)
{
	GntConfig *config = gnt_lu_get_env(self->lu)->config;
	g_autoptr(JsonObject) record = record_dup_with_settings(self, error);
	g_autoptr(JsonNode) given = NULL;
	g_autofree gchar *shown = NULL;
	JsonObject *spec;

	if (record == NULL)
		return FALSE;
	spec = gnt_lu_instance_spec_new(config, record, error);
	if (spec == NULL)
		return FALSE;
	json_object_set_object_member(
		self->record, "hvparams",
		gnt_json_object_deep_copy(json_object_get_object_member(record, "hvparams")));
	g_clear_pointer(&self->spec, json_object_unref);
	self->spec = spec;
	self->hvparams_changed = TRUE;
	given = gnt_json_node_new_object(
		json_object_ref(json_object_get_object_member(self->args, "hvparams")));
	shown = gnt_json_to_string(given);
	gnt_lu_feedback(self->lu, "hypervisor parameters of the instance set: %s", shown);
	return TRUE;
}

/* test.note and test.fail: for tests only (the registry refuses them in
 * operators' templates). */
static gboolean
test_note_run(GntInstall *self, GError **error)
{
	gnt_lu_feedback(self->lu, "test note: %s",
			json_object_get_string_member(self->args, "text"));
	return TRUE;
}

static gboolean
test_fail_run(GntInstall *self, GError **error)
{
	g_set_error(error, GNT_ERROR, GNT_ERROR_FAULT, "%s",
		    json_object_get_string_member(self->args, "message"));
	return FALSE;
}

/* Every step of the registry has its action here, by name
 * (tests/jobqueue/test-install-steps.c checks both ways). */
static const StepAction step_actions[] = {
	{"deploy.prepare", NULL, prepare_skip_reason, prepare_run},
	{"deploy.write_image", write_image_host_check, write_image_skip_reason, write_image_run},
	/* in band onto the storage layout: run by the appliance's session,
	 * the payload streamed by metad (appliance_options_new()) */
	{"appliance.write_payload", write_image_check, write_image_skip_reason, NULL},
	{"deploy.run_os_scripts", NULL, run_os_scripts_skip_reason, run_os_scripts_run},
	/* in band: run by the appliance's session */
	{"deploy.personalize", personalize_check, personalize_skip_reason, NULL},
	{"deploy.prepare_boot", prepare_boot_check, prepare_boot_skip_reason, prepare_boot_run},
	{"deploy.tear_down_appliance", NULL, tear_down_appliance_skip_reason,
	 tear_down_appliance_run},
	{"deploy.switch_networks", NULL, switch_networks_skip_reason, NULL},
	{"deploy.boot", NULL, boot_skip_reason, boot_run},
	{"deploy.resize_disk", resize_disk_check, resize_disk_skip_reason, resize_disk_run},
	{"hypervisor.apply_settings", apply_settings_check, no_skip_reason, apply_settings_run},
	{"test.note", NULL, no_skip_reason, test_note_run},
	{"test.fail", NULL, no_skip_reason, test_fail_run},
};

gboolean
gnt_install_has_action(const gchar *step)
{
	const GntInstallStepSpec *spec = gnt_install_steps_lookup(step);

	/* the appliance's steps are the agent's: a session runs them */
	if (spec != NULL && g_str_equal(spec->interface, GNT_INSTALL_APPLIANCE_INTERFACE))
		return TRUE;
	for (guint i = 0; i < G_N_ELEMENTS(step_actions); i++) {
		if (g_strcmp0(step_actions[i].name, step) == 0)
			return TRUE;
	}
	return FALSE;
}

static const StepAction *
step_action_lookup(const gchar *name)
{
	for (guint i = 0; i < G_N_ELEMENTS(step_actions); i++) {
		if (g_strcmp0(step_actions[i].name, name) == 0)
			return &step_actions[i];
	}
	return NULL;
}

/* ---- the plan's rows ---- */

/* A row of the plan, as the record keeps it (gnt-install-plan.h). */
typedef struct {
	JsonObject *row;
	const GntInstallStepSpec *spec;
	const gchar *id;
	gint64 priority;
} PlanRow;

static gboolean
plan_row_get(JsonArray *rows, guint i, PlanRow *out)
{
	JsonObject *row = json_array_get_object_element(rows, i);

	out->row = row;
	out->spec = gnt_install_steps_lookup(object_string(row, "step"));
	out->id = object_string(row, "id");
	out->priority = json_object_get_int_member_with_default(row, "priority", 0);
	return out->spec != NULL && json_object_get_boolean_member_with_default(row, "runs", FALSE);
}

/* The rows that run, in order. */
static JsonArray *
plan_rows(GntInstall *self)
{
	return gnt_json_peek_array(self->plan, "rows");
}

/* How the job log names a row: a core step by its step name, as before
 * templates ("prepare"); a template's by its name and identity. */
static gchar *
row_label(const PlanRow *row)
{
	if (g_strcmp0(object_string(row->row, "origin"), "core") == 0)
		return g_strdup(row->spec->step);
	return g_strdup_printf("%s [%s]", row->spec->name, row->id);
}

/* ---- the install ---- */

GntInstall *
gnt_install_new(GntLu *lu, GntInstallKind kind, JsonObject *node, JsonObject *record,
		GntSecretDict *osparams_secret, gboolean start)
{
	GntInstall *self;
	JsonObject *plan;

	g_return_val_if_fail(gnt_install_get(record) != NULL, NULL);
	self = g_new0(GntInstall, 1);
	self->lu = lu;
	self->kind = kind;
	self->node = json_object_ref(node);
	self->record = gnt_json_object_deep_copy(record);
	self->osparams_secret = osparams_secret != NULL ? gnt_secret_dict_ref(osparams_secret)
							: NULL;
	self->start = start;
	/* decided in the unit's check (gnt_install_choose_where()) */
	self->in_appliance = g_strcmp0(object_string(gnt_install_get(record), "where"),
				       gnt_install_where_to_string(GNT_INSTALL_IN_APPLIANCE)) == 0;
	/* built before anything changed (gnt_install_attach_plan()); a record
	 * without one (--no-install made, or older) runs the core plan */
	plan = object_member(gnt_install_get(self->record), "plan");
	self->plan = plan != NULL ? json_object_ref(plan) : gnt_install_plan_new_core();
	self->steps = json_array_new();
	return self;
}

void
gnt_install_free(GntInstall *self)
{
	if (self == NULL)
		return;
	json_object_unref(self->node);
	json_object_unref(self->record);
	g_clear_pointer(&self->osparams_secret, gnt_secret_dict_unref);
	g_clear_pointer(&self->spec, json_object_unref);
	g_clear_pointer(&self->appliance_result, json_object_unref);
	json_object_unref(self->plan);
	json_array_unref(self->steps);
	g_free(self->error_text);
	g_free(self->resume_token);
	g_free(self);
}

gboolean
gnt_install_check(GntInstall *self, GError **error)
{
	JsonArray *rows = plan_rows(self);
	gboolean kickstart = gnt_lu_instance_kickstart_is_install(self->lu, self->record);

	for (guint i = 0; rows != NULL && i < json_array_get_length(rows); i++) {
		const StepAction *action;
		PlanRow row;

		if (!plan_row_get(rows, i, &row))
			continue;
		action = step_action_lookup(row.spec->name);
		/* kickstart mode boots no install appliance: its in-band steps
		 * are refused now rather than skipped unseen (Ironic's quirk) */
		if (kickstart && row.spec->runs_on == GNT_INSTALL_RUNS_APPLIANCE &&
		    row.spec->default_priority == 0) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "install step %s (priority %" G_GINT64_FORMAT
				    ") runs in the install appliance, which a kickstart install "
				    "does not boot",
				    row.id != NULL ? row.id : row.spec->name, row.priority);
			return FALSE;
		}
		self->args = gnt_json_peek_object(row.row, "args");
		if (action != NULL && action->check != NULL && !action->check(self, error)) {
			self->args = NULL;
			if (row.spec->default_priority == 0)
				g_prefix_error(error, "install step %s: ", row.id);
			return FALSE;
		}
		self->args = NULL;
	}
	return TRUE;
}

static void
step_record(GntInstall *self, const PlanRow *row, StepResult result, gint64 started, gint64 ended,
	    const gchar *detail)
{
	JsonObject *entry = json_object_new();
	gboolean ran = result == STEP_OK || result == STEP_FAILED;
	g_autofree gchar *label = row_label(row);
	JsonObject *args = gnt_json_peek_object(row->row, "args");

	json_object_set_string_member(entry, "name", label);
	json_object_set_string_member(entry, "id", row->id);
	json_object_set_string_member(entry, "step", row->spec->name);
	json_object_set_member(entry, "template",
			       gnt_json_node_new_string(object_string(row->row, "template")));
	/* every registered argument is public: none is a secret */
	json_object_set_object_member(
		entry, "args", args != NULL ? gnt_json_object_deep_copy(args) : json_object_new());
	json_object_set_int_member(entry, "priority", row->priority);
	json_object_set_string_member(entry, "result", step_results[result]);
	if (ran) {
		json_object_set_double_member(entry, "duration",
					      (gdouble)(ended - started) / G_USEC_PER_SEC);
		json_object_set_double_member(entry, "start_time",
					      (gdouble)started / G_USEC_PER_SEC);
		json_object_set_double_member(entry, "end_time", (gdouble)ended / G_USEC_PER_SEC);
	} else {
		json_object_set_null_member(entry, "duration");
		json_object_set_null_member(entry, "start_time");
		json_object_set_null_member(entry, "end_time");
	}
	if (detail != NULL)
		json_object_set_string_member(entry, "detail", detail);
	else
		json_object_set_null_member(entry, "detail");
	json_array_add_object_element(self->steps, entry);
}

static gdouble
now_s(void)
{
	return (gdouble)g_get_real_time() / G_USEC_PER_SEC;
}

/* Runs one row of the plan; FALSE when it failed. */
static gboolean
run_step(GntInstall *self, const PlanRow *row, GError **error)
{
	const StepAction *action = step_action_lookup(row->spec->name);
	g_autofree gchar *label = row_label(row);
	g_autofree gchar *skip = NULL;
	gint64 started;
	gint64 ended;
	gboolean ok;

	if (action == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_FAULT, "install step '%s' does not exist",
			    label);
		step_record(self, row, STEP_FAILED, 0, 0, "unknown step");
		return FALSE;
	}
	self->args = gnt_json_peek_object(row->row, "args");
	skip = action->skip_reason(self);
	if (skip != NULL || action->run == NULL) {
		gnt_lu_feedback(self->lu, "install step %s (%" G_GINT64_FORMAT "): skipped, %s",
				label, row->priority, skip != NULL ? skip : "nothing to do");
		step_record(self, row, STEP_SKIPPED, 0, 0, skip != NULL ? skip : "nothing to do");
		self->args = NULL;
		return TRUE;
	}
	gnt_lu_feedback(self->lu, "install step %s (%" G_GINT64_FORMAT "): started", label,
			row->priority);
	started = g_get_real_time();
	ok = action->run(self, error);
	ended = g_get_real_time();
	self->args = NULL;
	if (ok) {
		gnt_lu_feedback(self->lu, "install step %s (%" G_GINT64_FORMAT "): done in %.3fs",
				label, row->priority, (gdouble)(ended - started) / G_USEC_PER_SEC);
		step_record(self, row, STEP_OK, started, ended, NULL);
		return TRUE;
	}
	gnt_lu_feedback(self->lu, "install step %s (%" G_GINT64_FORMAT "): failed after %.3fs",
			label, row->priority, (gdouble)(ended - started) / G_USEC_PER_SEC);
	g_prefix_error(error, "install step '%s' failed: ", label);
	step_record(self, row, STEP_FAILED, started, ended, (*error)->message);
	return FALSE;
}

/* ---- post-step hooks (doc/install.md, "Post-step hooks") ---- */

/* appliance.find_root: the device the agent found the root filesystem on
 * becomes the install record's root_device. */
static gboolean
find_root_hook(GntInstall *self, JsonObject *data, GError **error)
{
	const gchar *device = object_string(data, "root_device");

	if (device == NULL || device[0] != '/' || strlen(device) > 255 ||
	    strpbrk(device, " \t\n") != NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "the step reported no usable root device ('root_device' must be an "
			    "absolute path of at most 255 bytes without blanks)");
		return FALSE;
	}
	json_object_set_string_member(gnt_install_get(self->record), "root_device", device);
	gnt_lu_feedback(self->lu, "  the install record's root device: %s", device);
	return TRUE;
}

/* appliance.mount_target: the layout the agent mounted (devices, UUIDs,
 * filesystems, mount points, which is root, the arrays) becomes the
 * install record's layout, its root device the record's root_device
 * (gnt-install-storage.h). */
static gboolean
mount_target_hook(GntInstall *self, JsonObject *data, GError **error)
{
	JsonObject *layout = gnt_install_storage_layout_parse(object_string(data, "root_device"),
							      object_string(data, "layout"), error);

	if (layout == NULL)
		return FALSE;
	json_object_set_string_member(gnt_install_get(self->record), "root_device",
				      json_object_get_string_member(layout, "root_device"));
	json_object_set_object_member(gnt_install_get(self->record), "layout", layout);
	gnt_lu_feedback(self->lu,
			"  the install record's root device: %s, layout of %u filesystems",
			json_object_get_string_member(layout, "root_device"),
			json_array_get_length(json_object_get_array_member(layout, "filesystems")));
	return TRUE;
}

/* The master's hooks after an in-band step's success, by step: each may
 * update the install record from the data the step's result carried; one
 * that fails fails its step. */
static const struct {
	const gchar *step;
	gboolean (*hook)(GntInstall *self, JsonObject *data, GError **error);
} post_step_hooks[] = {
	{"appliance.find_root", find_root_hook},
	{"appliance.mount_target", mount_target_hook},
};

/* Runs @spec's post-step hook, if it has one, with @data (nullable: none
 * came, an empty object). */
static gboolean
run_post_step_hook(GntInstall *self, const GntInstallStepSpec *spec, JsonObject *data,
		   GError **error)
{
	for (guint i = 0; i < G_N_ELEMENTS(post_step_hooks); i++) {
		g_autoptr(JsonObject) empty = json_object_new();

		if (!g_str_equal(post_step_hooks[i].step, spec->name))
			continue;
		if (!post_step_hooks[i].hook(self, data != NULL ? data : empty, error)) {
			g_prefix_error(error, "post-step hook: ");
			return FALSE;
		}
	}
	return TRUE;
}

/* ---- the install appliance's sessions (doc/install.md, "In-band steps") ---- */

/* The agent's name of @row's step when the row runs inside the install
 * appliance (in band), else NULL. */
static const gchar *
row_agent_step(GntInstall *self, const PlanRow *row)
{
	if (row->spec->runs_on == GNT_INSTALL_RUNS_APPLIANCE)
		return row->spec->step;
	if (self->in_appliance && g_str_equal(row->spec->name, "deploy.run_os_scripts"))
		return row->spec->step;
	return NULL;
}

/* Why @row has nothing to do, NULL when it has something. (transfer full) */
static gchar *
row_skip_reason(GntInstall *self, const PlanRow *row)
{
	const StepAction *action = step_action_lookup(row->spec->name);
	gchar *skip;

	if (action == NULL || action->skip_reason == NULL)
		return NULL;
	self->args = gnt_json_peek_object(row->row, "args");
	skip = action->skip_reason(self);
	self->args = NULL;
	return skip;
}

/*
 * Where the appliance session that starts at row @from ends: after the
 * last in-band row reached through in-band rows and host rows that have
 * nothing to do (a host row that does something needs the disks while the
 * appliance is down: it ends the session, and the next in-band row boots
 * a new one).
 */
static guint
session_end(GntInstall *self, JsonArray *rows, guint from, guint n_rows)
{
	guint end = from + 1;

	for (guint k = from + 1; k < n_rows; k++) {
		g_autofree gchar *skip = NULL;
		PlanRow row;

		if (!plan_row_get(rows, k, &row))
			continue;
		if (row_agent_step(self, &row) != NULL) {
			end = k + 1;
			continue;
		}
		skip = row_skip_reason(self, &row);
		if (skip == NULL)
			break;
	}
	return end;
}

typedef struct {
	PlanRow row;
	const gchar *agent_step; /* NULL: a host row, skipped */
	gchar *skip;		 /* why it does not run, NULL: it runs in the appliance */
	gint64 started;		 /* real time, µs; 0: not started */
	gboolean ended;
	JsonObject *data; /* what its result carried for its post-step hook */
} SessionRow;

typedef struct {
	GntInstall *install;
	GArray *rows;	/* SessionRow, in the plan's order */
	guint logged;	/* the rows before it are logged and recorded */
	gint current;	/* the row running in the appliance, -1: none */
	gchar *failure; /* the failed step's reason (its detail) */
	/* a post-step hook failed: its row (the one failed), the reason; the
	 * entries after it are only logged */
	gint hook_row;
	GError *hook_error;
	GCancellable *stop; /* cancelled with hook_error: the session ends (borrowed) */
} Session;

static void
session_row_clear(SessionRow *row)
{
	g_free(row->skip);
	g_clear_pointer(&row->data, json_object_unref);
}

static gchar *
session_row_label(const SessionRow *row)
{
	return row_label(&row->row);
}

/* Logs and records the rows up to @until that do not run. */
static void
session_log_skipped(Session *s, guint until)
{
	for (; s->logged < until && s->logged < s->rows->len; s->logged++) {
		SessionRow *row = &g_array_index(s->rows, SessionRow, s->logged);
		g_autofree gchar *label = session_row_label(row);

		if (row->skip == NULL)
			return;
		gnt_lu_feedback(s->install->lu,
				"install step %s (%" G_GINT64_FORMAT "): skipped, %s", label,
				row->row.priority, row->skip);
		step_record(s->install, &row->row, STEP_SKIPPED, 0, 0, row->skip);
	}
}

static void
session_log_output(GntLu *lu, const gchar *output)
{
	g_auto(GStrv) lines = g_strsplit(output != NULL ? output : "", "\n", -1);

	for (guint i = 0; lines[i] != NULL; i++) {
		if (lines[i][0] != '\0')
			gnt_lu_feedback(lu, "    %s", lines[i]);
	}
}

/* The appliance's progress entries, as they come, into the job log: the
 * start of each row (metad's, when it hands the step out), its end with
 * its output, and the appliance's own reports. */
static void
session_progress(JsonObject *entry, gpointer user_data)
{
	Session *s = user_data;
	GntLu *lu = s->install->lu;
	const gchar *step = object_string(entry, "step");
	const gchar *state = object_string(entry, "state");
	const gchar *detail = object_string(entry, "detail");
	const gchar *output = object_string(entry, "output");
	gint64 time_us = (gint64)(json_object_get_double_member_with_default(entry, "time", 0) *
				  G_USEC_PER_SEC);

	/* a post-step hook failed: the install fails there */
	if (s->hook_error != NULL) {
		gnt_lu_feedback(lu, "  install appliance: %s %s", step != NULL ? step : "?",
				state != NULL ? state : "?");
		return;
	}
	/* the data of the running step's result, for its post-step hook */
	if (s->current >= 0 && g_strcmp0(state, "info") == 0 && detail != NULL &&
	    g_str_has_prefix(detail, GNT_METADATA_STEP_DATA_DETAIL_PREFIX)) {
		SessionRow *row = &g_array_index(s->rows, SessionRow, s->current);
		g_autoptr(JsonNode) data = gnt_json_parse(
			detail + strlen(GNT_METADATA_STEP_DATA_DETAIL_PREFIX), -1, NULL);

		if (g_strcmp0(step, row->agent_step) == 0 && data != NULL &&
		    JSON_NODE_HOLDS_OBJECT(data)) {
			g_clear_pointer(&row->data, json_object_unref);
			row->data = json_object_ref(json_node_get_object(data));
			return;
		}
	}
	if (g_strcmp0(state, "start") == 0 && s->current < 0) {
		for (guint k = s->logged; k < s->rows->len; k++) {
			SessionRow *row = &g_array_index(s->rows, SessionRow, k);
			g_autofree gchar *label = NULL;

			if (row->skip != NULL || g_strcmp0(row->row.id, detail) != 0)
				continue;
			session_log_skipped(s, k);
			label = session_row_label(row);
			gnt_lu_feedback(lu, "install step %s (%" G_GINT64_FORMAT "): started",
					label, row->row.priority);
			row->started = time_us > 0 ? time_us : g_get_real_time();
			s->current = (gint)k;
			return;
		}
	}
	if (s->current >= 0 && (g_strcmp0(state, "done") == 0 || g_strcmp0(state, "failed") == 0)) {
		SessionRow *row = &g_array_index(s->rows, SessionRow, s->current);

		if (g_strcmp0(step, row->agent_step) == 0) {
			g_autofree gchar *label = session_row_label(row);
			gint64 ended = MAX(time_us > 0 ? time_us : g_get_real_time(), row->started);
			gdouble took = (gdouble)(ended - row->started) / G_USEC_PER_SEC;

			if (detail != NULL && *detail != '\0')
				gnt_lu_feedback(lu, "  %s", detail);
			session_log_output(lu, output);
			row->ended = TRUE;
			s->current = -1;
			if (g_str_equal(state, "failed")) {
				/* recorded with the call's error once it returns */
				s->failure =
					g_strdup(detail != NULL && *detail ? detail : "failed");
				gnt_lu_feedback(lu,
						"install step %s (%" G_GINT64_FORMAT
						"): failed after %.3fs",
						label, row->row.priority, took);
				return;
			}
			if (!run_post_step_hook(s->install, row->row.spec, row->data,
						&s->hook_error)) {
				s->hook_row = (gint)(row - (SessionRow *)(gpointer)s->rows->data);
				g_cancellable_cancel(s->stop);
				gnt_lu_feedback(lu,
						"install step %s (%" G_GINT64_FORMAT
						"): failed after %.3fs",
						label, row->row.priority, took);
				return;
			}
			gnt_lu_feedback(lu, "install step %s (%" G_GINT64_FORMAT "): done in %.3fs",
					label, row->row.priority, took);
			step_record(s->install, &row->row, STEP_OK, row->started, ended,
				    detail != NULL && *detail ? detail : NULL);
			s->logged = (guint)(row - (SessionRow *)(gpointer)s->rows->data) + 1;
			return;
		}
	}
	gnt_lu_feedback(lu, "  install appliance: %s %s%s%s", step != NULL ? step : "?",
			state != NULL ? state : "?", detail != NULL && *detail != '\0' ? ": " : "",
			detail != NULL ? detail : "");
	if (output != NULL && *output != '\0')
		session_log_output(lu, output);
}

/* The steps the session's appliance runs, for the node (its metad record's
 * "install_steps"). (transfer full) */
static JsonArray *
session_steps(Session *s, gint64 timeout)
{
	JsonArray *steps = json_array_new();

	for (guint k = 0; k < s->rows->len; k++) {
		SessionRow *row = &g_array_index(s->rows, SessionRow, k);
		JsonObject *args = gnt_json_peek_object(row->row.row, "args");
		JsonObject *step;

		if (row->skip != NULL)
			continue;
		step = json_object_new();
		json_object_set_string_member(step, "id", row->row.id);
		json_object_set_string_member(step, "step", row->agent_step);
		/* the storage steps' lists as lines the agent's sh reads */
		json_object_set_object_member(
			step, "args",
			args != NULL ? gnt_install_storage_render_args(
					       row->row.spec, args,
					       object_string(s->install->record, "name"))
				     : json_object_new());
		json_object_set_int_member(
			step, "timeout",
			args != NULL ? json_object_get_int_member_with_default(
					       args, GNT_INSTALL_STEP_TIMEOUT_ARG, timeout)
				     : timeout);
		json_array_add_object_element(steps, step);
	}
	return steps;
}

/* ---- the session on the node (doc/jobqueue.md "Waiting jobs") ---- */

/* Whether a restarted master could go on with the session that starts at
 * the row now due: nothing done so far waits to be stored (a setting or a
 * disk changed, an earlier session's hooks) and no secret would be needed
 * again. */
static gboolean
session_resumable(GntInstall *self)
{
	return (self->osparams_secret == NULL ||
		gnt_secret_dict_size(self->osparams_secret) == 0) &&
	       !self->hvparams_changed && !self->disks_changed && self->appliance_result == NULL;
}

/* Starts the appliance's session for the rows from @from (or, resuming,
 * takes the recorded one), records where a restarted master takes it up,
 * and follows it to its end without holding a worker. */
static JsonObject *
session_follow(GntInstall *self, guint from, JsonObject *options, Session *s, GError **error)
{
	g_autofree gchar *token = g_steal_pointer(&self->resume_token);
	gboolean recorded = token != NULL; /* resuming: the job holds it */
	JsonObject *result;
	gint64 next = 0;

	if (token == NULL) {
		token = gnt_node_call_appliance_start(self->rpc, self->node, self->spec, options,
						      error);
		if (token == NULL)
			return NULL;
		if (session_resumable(self)) {
			g_autoptr(JsonObject) resume = json_object_new();

			json_object_set_string_member(resume, "session", token);
			json_object_set_int_member(resume, "row", from);
			recorded = gnt_lu_set_resume(self->lu, resume);
		}
	}
	gnt_lu_release_worker(self->lu);
	result = gnt_node_call_session_follow(self->rpc, self->node, "appliance_start", token,
					      &next, gnt_node_call_appliance_timeout(options),
					      session_progress, s, s->stop, error);
	gnt_lu_reclaim_worker(self->lu);
	if (recorded)
		(void)gnt_lu_set_resume(self->lu, NULL);
	return result;
}

void
gnt_install_resume_from(GntInstall *self, JsonObject *resume)
{
	g_free(self->resume_token);
	self->resume_token =
		g_strdup(json_object_get_string_member_with_default(resume, "session", ""));
	self->resume_row = (guint)json_object_get_int_member_with_default(resume, "row", 0);
}

/* The longest a session may run (noded destroys the appliance then): the
 * cluster's install timeout, and for each step whose own timeout is longer
 * the difference, so that a row's larger timeout is its to use; at most
 * GNT_INSTALL_STEP_TIMEOUT_MAX (a day, what noded takes). */
static gint64
session_timeout(JsonArray *steps, gint64 install_timeout)
{
	gint64 total = install_timeout;

	for (guint k = 0; k < json_array_get_length(steps); k++) {
		gint64 own = json_object_get_int_member(json_array_get_object_element(steps, k),
							"timeout");

		total += MAX(own - install_timeout, 0);
	}
	return MIN(total, GNT_INSTALL_STEP_TIMEOUT_MAX);
}

/*
 * Runs rows [@from, @to) of the plan in one install appliance session:
 * one boot, the in-band rows in order, the host rows between them skipped.
 * On failure *@not_run is the first row of the plan not run.
 */
static gboolean
run_session(GntInstall *self, JsonArray *rows, guint from, guint to, guint *not_run, GError **error)
{
	g_autoptr(GArray) session_rows = g_array_new(FALSE, TRUE, sizeof(SessionRow));
	g_autoptr(GCancellable) stop = g_cancellable_new();
	Session s = {.install = self, .current = -1, .stop = stop};
	g_autoptr(JsonObject) options = NULL;
	g_autoptr(JsonObject) cluster = NULL;
	g_autoptr(JsonArray) steps = NULL;
	g_autoptr(GError) local = NULL;
	g_autoptr(JsonObject) result = NULL;
	gint64 timeout;

	g_array_set_clear_func(session_rows, (GDestroyNotify)session_row_clear);
	s.rows = session_rows;
	for (guint k = from; k < to; k++) {
		SessionRow row = {0};

		if (!plan_row_get(rows, k, &row.row))
			continue;
		row.agent_step = row_agent_step(self, &row.row);
		row.skip = row_skip_reason(self, &row.row);
		/* a host row in a session has nothing to do (session_end()) */
		g_assert(row.agent_step != NULL || row.skip != NULL);
		g_array_append_val(session_rows, row);
	}
	cluster = gnt_config_dup_cluster_info(gnt_lu_get_env(self->lu)->config);
	/* always set */
	timeout = json_object_get_int_member(cluster, "install_timeout");
	steps = session_steps(&s, timeout);
	if (json_array_get_length(steps) == 0) {
		session_log_skipped(&s, session_rows->len);
		return TRUE;
	}
	options = appliance_options_new(self);
	json_object_set_array_member(options, "steps", json_array_ref(steps));
	json_object_set_int_member(options, "timeout", session_timeout(steps, timeout));
	for (guint k = 0; k < session_rows->len; k++) {
		SessionRow *row = &g_array_index(session_rows, SessionRow, k);

		if (row->skip == NULL &&
		    g_str_equal(row->row.spec->name, "appliance.write_payload"))
			json_object_set_object_member(options, "payload", payload_option_new(self));
	}
	gnt_lu_feedback(self->lu, "* booting the install appliance for %u in-band step%s...",
			json_array_get_length(steps), json_array_get_length(steps) == 1 ? "" : "s");
	result = session_follow(self, from, options, &s, &local);
	/* the secrets and the password went with the call; the options' copy
	 * goes now */
	{
		g_autoptr(JsonNode) node = gnt_json_node_new_object(json_object_ref(options));

		gnt_json_node_wipe_strings(node);
	}
	if (result != NULL) {
		g_clear_pointer(&self->appliance_result, json_object_unref);
		self->appliance_result = json_object_ref(result);
	}
	if (s.hook_error != NULL) {
		/* its row failed; what the node said of the rest does not matter */
		g_clear_error(&local);
		local = g_steal_pointer(&s.hook_error);
		s.current = s.hook_row;
	} else if (result != NULL) {
		session_log_skipped(&s, session_rows->len);
		if (s.logged >= session_rows->len)
			return TRUE;
		g_set_error_literal(
			&local, GNT_ERROR, GNT_ERROR_FAULT,
			"the install appliance powered off without reporting this step");
	}
	/* the row that failed: the one running, else the first not done */
	{
		SessionRow *row = NULL;
		g_autofree gchar *label = NULL;
		const gchar *name;
		gint64 ended = g_get_real_time();

		session_log_skipped(&s, session_rows->len);
		if (s.current >= 0)
			row = &g_array_index(session_rows, SessionRow, s.current);
		for (guint k = s.logged; row == NULL && k < session_rows->len; k++) {
			SessionRow *candidate = &g_array_index(session_rows, SessionRow, k);

			if (candidate->skip == NULL)
				row = candidate;
		}
		g_assert(row != NULL);
		label = session_row_label(row);
		if (row->started == 0) {
			gnt_lu_feedback(self->lu, "install step %s (%" G_GINT64_FORMAT "): failed",
					label, row->row.priority);
			row->started = ended;
		} else if (!row->ended) {
			gnt_lu_feedback(self->lu,
					"install step %s (%" G_GINT64_FORMAT
					"): failed after %.3fs",
					label, row->row.priority,
					(gdouble)(ended - row->started) / G_USEC_PER_SEC);
		}
		move_output_tail_to_job_log(self->lu, local);
		/* a core row by its step, as on the host; an appliance row by
		 * its step's full name */
		name = g_strcmp0(object_string(row->row.row, "origin"), "core") == 0
			       ? label
			       : row->row.spec->name;
		if (s.failure != NULL)
			g_set_error(error, GNT_ERROR, GNT_ERROR_FAULT,
				    "install step '%s' failed: %s (%s)", name, s.failure,
				    local->message);
		else
			g_set_error(error, GNT_ERROR, GNT_ERROR_FAULT,
				    "install step '%s' failed: %s", name, local->message);
		step_record(self, &row->row, STEP_FAILED, row->started, ended, (*error)->message);
		/* the rows after it in the plan are not run */
		*not_run = from;
		for (guint k = from; k < to; k++) {
			PlanRow probe;

			if (plan_row_get(rows, k, &probe) &&
			    g_strcmp0(probe.id, row->row.id) == 0) {
				*not_run = k + 1;
				break;
			}
		}
	}
	g_free(s.failure);
	return FALSE;
}

gboolean
gnt_install_run(GntInstall *self, GntRpcClient *rpc, GError **error)
{
	GntConfig *config = gnt_lu_get_env(self->lu)->config;
	JsonArray *rows = plan_rows(self);
	guint n_rows = rows != NULL ? json_array_get_length(rows) : 0;
	g_autoptr(GError) local = NULL;
	guint i;

	g_return_val_if_fail(!self->ran, FALSE);
	self->ran = TRUE;
	self->rpc = rpc;
	self->start_time = now_s();
	/* what a post-step hook of this install finds (the storage layout, the
	 * root device), not a stale one of the install before */
	if (gnt_install_get(self->record) != NULL) {
		json_object_remove_member(gnt_install_get(self->record), "layout");
		json_object_remove_member(gnt_install_get(self->record), "root_device");
	}
	self->spec = gnt_lu_instance_spec_new(config, self->record, &local);
	/* resuming: the rows before the session ran before the restart */
	for (i = 0; self->resume_token != NULL && i < self->resume_row && i < n_rows; i++) {
		PlanRow row;

		self->disks_may_exist = TRUE;
		if (plan_row_get(rows, i, &row))
			step_record(self, &row, STEP_OK, 0, 0, "before the master restarted");
	}
	/* i: the first row that did not run */
	for (; self->spec != NULL && i < n_rows; i++) {
		PlanRow row;

		if (!plan_row_get(rows, i, &row))
			continue;
		if (row_agent_step(self, &row) != NULL) {
			guint end = session_end(self, rows, i, n_rows);
			guint not_run = end;

			if (!run_session(self, rows, i, end, &not_run, &local)) {
				i = not_run;
				break;
			}
			i = end - 1;
			continue;
		}
		if (!run_step(self, &row, &local)) {
			i++;
			break;
		}
	}
	self->end_time = now_s();
	self->rpc = NULL;
	if (local == NULL)
		return TRUE;
	self->failed = TRUE;
	self->error_text = g_strdup(local->message);
	if (i < n_rows) {
		g_autoptr(GString) names = g_string_new(NULL);

		for (guint k = i; k < n_rows; k++) {
			g_autofree gchar *label = NULL;
			PlanRow row;

			if (!plan_row_get(rows, k, &row))
				continue;
			label = row_label(&row);
			step_record(self, &row, STEP_NOT_RUN, 0, 0, NULL);
			g_string_append_printf(names, "%s%s", names->len > 0 ? ", " : "", label);
		}
		if (names->len > 0)
			gnt_lu_feedback(self->lu, "install steps not run: %s", names->str);
	}
	g_propagate_error(error, g_steal_pointer(&local));
	return FALSE;
}

gboolean
gnt_install_disks_may_exist(const GntInstall *self)
{
	return self->disks_may_exist;
}

gboolean
gnt_install_booted(const GntInstall *self)
{
	return self->booted;
}

/* The names of the secret parameters given (sorted), for the next
 * reinstall to ask for again. */
static JsonArray *
secret_names(const GntSecretDict *osparams_secret)
{
	g_autoptr(GPtrArray)
		names = osparams_secret != NULL ? gnt_secret_dict_dup_names(osparams_secret) : NULL;
	JsonArray *out = json_array_new();

	for (guint i = 0; names != NULL && i < names->len; i++)
		json_array_add_string_element(out, names->pdata[i]);
	return out;
}

JsonObject *
gnt_install_dup_state(const GntInstall *self)
{
	JsonObject *state = gnt_json_object_deep_copy(gnt_install_get(self->record));
	const gchar *os = object_string(self->record, "os");
	g_autoptr(JsonNode) steps = gnt_json_node_new_array(json_array_ref(self->steps));

	g_return_val_if_fail(self->ran, state);
	if (self->failed)
		json_object_set_string_member(state, "state", GNT_INSTALL_STATE_FAILED);
	else if (self->first_boot)
		json_object_set_string_member(state, "state", GNT_INSTALL_STATE_BOOTED);
	else if (self->boot_prepared)
		json_object_set_string_member(state, "state", GNT_INSTALL_STATE_PENDING);
	else
		json_object_set_string_member(state, "state", GNT_INSTALL_STATE_DONE);
	/* a failed install keeps the names the last good one needed */
	if (!self->failed || !json_object_has_member(state, "secret_names"))
		json_object_set_array_member(state, "secret_names",
					     secret_names(self->failed ? NULL
								       : self->osparams_secret));
	if (os != NULL)
		json_object_set_string_member(state, "os", os);
	else
		json_object_set_null_member(state, "os");
	json_object_set_boolean_member(state, "reinstall", self->kind == GNT_INSTALL_REINSTALL);
	json_object_set_double_member(state, "start_time", self->start_time);
	json_object_set_double_member(state, "end_time", self->end_time);
	if (self->error_text != NULL)
		json_object_set_string_member(state, "error", self->error_text);
	else
		json_object_set_null_member(state, "error");
	json_object_set_member(state, "steps", gnt_json_node_deep_copy(steps));
	json_object_set_object_member(state, "plan", gnt_json_object_deep_copy(self->plan));
	return state;
}

JsonObject *
gnt_install_dup_changes(const GntInstall *self)
{
	JsonObject *changes = json_object_new();
	static const gchar *const members[] = {"hvparams", "disks"};
	const gboolean changed[] = {self->hvparams_changed, self->disks_changed};

	for (guint i = 0; i < G_N_ELEMENTS(members); i++) {
		if (changed[i])
			json_object_set_member(changes, members[i],
					       gnt_json_node_deep_copy(json_object_get_member(
						       self->record, members[i])));
	}
	return changes;
}
