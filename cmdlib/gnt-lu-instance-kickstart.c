#include "gnt-lu-instance-kickstart.h"

#include <string.h>

#include "gnt-config-fill.h"
#include "gnt-config-images.h"
#include "gnt-error.h"
#include "gnt-install-steps.h"
#include "gnt-json.h"
#include "gnt-kickstart-ksvalidator.h"
#include "gnt-kickstart-prepare.h"
#include "gnt-kickstart-source.h"
#include "gnt-lu-instance-metadata.h"
#include "gnt-lu-instance-spec.h"
#include "gnt-node-calls-installer.h"
#include "gnt-secret.h"

#define KS_TEMPLATE "ks_template"

void
gnt_lu_instance_kickstart_set_template(JsonObject *record, const GntOpcode *op)
{
	const gchar *given = gnt_opcode_get_string(op, "ks_template");
	JsonObject *install = gnt_install_get(record);

	g_return_if_fail(install != NULL);
	if (given == NULL)
		return;
	if (*given == '\0')
		json_object_remove_member(install, KS_TEMPLATE);
	else
		json_object_set_string_member(install, KS_TEMPLATE, given);
}

static const gchar *
string_or_null(JsonObject *obj, const gchar *key)
{
	JsonNode *node = obj != NULL ? json_object_get_member(obj, key) : NULL;

	return node != NULL && json_node_get_value_type(node) == G_TYPE_STRING
		       ? json_node_get_string(node)
		       : NULL;
}

/* The record's personalization package (os-package), NULL: none. */
static const gchar *
package_url(JsonObject *record)
{
	JsonNode *osparams = json_object_get_member(record, "osparams");

	return osparams != NULL && JSON_NODE_HOLDS_OBJECT(osparams)
		       ? string_or_null(json_node_get_object(osparams), GNT_OSP_OS_PACKAGE)
		       : NULL;
}

/* The catalog image @record's install came from, if any. (transfer full) */
static JsonObject *
dup_catalog_image(GntConfig *config, JsonObject *record)
{
	const gchar *name = string_or_null(gnt_install_get(record), GNT_IMAGE_INSTALL_KEY);

	return name != NULL && *name != '\0' ? gnt_config_dup_image(config, name) : NULL;
}

/* The instance's disks as the installer sees them. */
static gboolean
fill_disks(GntKickstartTarget *target, JsonObject *record, JsonObject *hvparams, GError **error)
{
	JsonNode *disks = json_object_get_member(record, "disks");
	JsonArray *list = disks != NULL && JSON_NODE_HOLDS_ARRAY(disks) ? json_node_get_array(disks)
									: NULL;
	guint n = list != NULL ? json_array_get_length(list) : 0;

	if (n > GNT_KICKSTART_MAX_DISKS) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "a kickstart install takes at most %d disks", GNT_KICKSTART_MAX_DISKS);
		return FALSE;
	}
	target->n_disks = n;
	for (guint i = 0; i < n; i++) {
		JsonObject *disk = json_array_get_object_element(list, i);
		g_autofree gchar *name =
			gnt_kickstart_disk_name(string_or_null(hvparams, "disk_type"), i);

		g_strlcpy(target->disk_names[i], name, sizeof(target->disk_names[i]));
		target->disk_mib[i] = disk != NULL && json_object_has_member(disk, "size")
					      ? (guint64)json_object_get_int_member(disk, "size")
					      : 0;
	}
	return TRUE;
}

/* The authorized_keys lines: the instance's own, else the cluster's. */
static gchar *
dup_ssh_keys(JsonObject *record, JsonObject *settings)
{
	JsonNode *keys = json_object_get_member(record, "ssh_keys");
	g_autoptr(GString) out = g_string_new(NULL);
	JsonArray *list;

	if (keys == NULL || !JSON_NODE_HOLDS_ARRAY(keys) ||
	    json_array_get_length(json_node_get_array(keys)) == 0)
		keys = json_object_get_member(settings, "ssh_keys");
	list = keys != NULL && JSON_NODE_HOLDS_ARRAY(keys) ? json_node_get_array(keys) : NULL;
	for (guint i = 0; list != NULL && i < json_array_get_length(list); i++)
		g_string_append_printf(out, "%s%s", i > 0 ? "\n" : "",
				       json_array_get_string_element(list, i));
	return g_string_free(g_steal_pointer(&out), FALSE);
}

/* Whether @record's install (with its catalog @image, nullable) is a
 * kickstart install. */
static gboolean
is_kickstart_install(JsonObject *record, JsonObject *image)
{
	const gchar *own = string_or_null(gnt_install_get(record), KS_TEMPLATE);

	return (own != NULL && *own != '\0') ||
	       g_strcmp0(gnt_install_get_mode(record), GNT_INSTALL_MODE_KICKSTART) == 0 ||
	       gnt_kickstart_image_get_property(image, "ks_template") != NULL ||
	       gnt_kickstart_image_get_property(image, "installer_kernel") != NULL;
}

gboolean
gnt_lu_instance_kickstart_is_install(GntLu *lu, JsonObject *record)
{
	g_autoptr(JsonObject) image = dup_catalog_image(lu_config(lu), record);

	return gnt_install_get(record) != NULL && is_kickstart_install(record, image);
}

/* What rendering gives besides the file. */
typedef struct {
	gchar *source;
	GntKickstartOrigin origin;
	gchar *sha256; /* the template's */
	gchar *syntax;
	gchar *liveimg_name; /* "image.tar.gz": what liveimg --url names */
} Rendered;

static void
rendered_clear(Rendered *self)
{
	g_free(self->source);
	g_free(self->sha256);
	g_free(self->syntax);
	g_free(self->liveimg_name);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Rendered, rendered_clear)

/* The kickstart file of @record's install from @image, with a new token:
 * fetched, rendered and checked. (transfer full) */
static GntKickstart *
render(GntLu *lu, JsonObject *record, JsonObject *image, Rendered *out, GError **error)
{
	GntConfig *config = lu_config(lu);
	const gchar *name = json_object_get_string_member(record, "name");
	JsonObject *install = gnt_install_get(record);
	g_autoptr(GntCluster) cluster = gnt_config_dup_cluster(config);
	g_autoptr(JsonObject) info = NULL;
	g_autoptr(JsonObject) hvparams = NULL;
	g_autoptr(GBytes) template = NULL;
	g_autoptr(GntKickstart) ks = NULL;
	g_autofree gchar *ksvalidator = NULL;
	g_autofree gchar *token = NULL;
	g_autofree gchar *liveimg = NULL;
	g_autofree gchar *hostname = NULL;
	g_autofree gchar *keys = NULL;
	GntKickstartRequest request = {0};

	if (!gnt_kickstart_release_parse(gnt_kickstart_image_get_property(image, "os_distro"),
					 gnt_kickstart_image_get_property(image, "os_version"),
					 &request.target.release, error)) {
		g_prefix_error(error, "image '%s': ", gnt_install_get_os_image(record));
		return NULL;
	}
	out->source = g_strdup(gnt_kickstart_source_choose(
		string_or_null(install, KS_TEMPLATE), image,
		string_or_null(cluster->settings, "default_ks_template"), &out->origin));
	template = gnt_kickstart_source_fetch(
		out->source, string_or_null(cluster->settings, "kickstart_dir"), NULL, error);
	if (template == NULL)
		return NULL;
	info = gnt_config_dup_cluster_info(config);
	hvparams = gnt_fill_hvparams(info, record, FALSE, error);
	if (hvparams == NULL || !fill_disks(&request.target, record, hvparams, error))
		return NULL;
	request.target.firmware = g_strcmp0(string_or_null(hvparams, "firmware"), "uefi") == 0
					  ? GNT_KICKSTART_FIRMWARE_UEFI
					  : GNT_KICKSTART_FIRMWARE_BIOS;
	token = gnt_kickstart_token_new();
	liveimg = gnt_kickstart_liveimg_url(
		string_or_null(image, "url") != NULL ? string_or_null(image, "url")
						     : gnt_install_get_os_image(record),
		g_strcmp0(string_or_null(image, "format"), "tarball") == 0);
	out->liveimg_name = g_path_get_basename(liveimg);
	hostname = g_strndup(name, strcspn(name, "."));
	keys = dup_ssh_keys(record, cluster->settings);
	request.template = template;
	request.values[GNT_KICKSTART_VAR_LIVEIMG_URL] = liveimg;
	request.values[GNT_KICKSTART_VAR_CALLBACK_URL] = GNT_KICKSTART_CALLBACK_URL;
	request.values[GNT_KICKSTART_VAR_AGENT_TOKEN] = token;
	request.values[GNT_KICKSTART_VAR_INSTANCE_NAME] = name;
	request.values[GNT_KICKSTART_VAR_HOSTNAME] = hostname;
	request.values[GNT_KICKSTART_VAR_SSH_KEYS] = keys;
	if (gnt_kickstart_image_get_property(image, "installer_stage2") != NULL)
		request.values[GNT_KICKSTART_VAR_STAGE2_URL] = GNT_KICKSTART_STAGE2_URL;
	ksvalidator =
		gnt_kickstart_ksvalidator_find(string_or_null(cluster->settings, "ksvalidator"));
	request.ksvalidator = ksvalidator;
	request.package = package_url(record) != NULL;
	ks = gnt_kickstart_prepare(&request, error);
	if (ks == NULL) {
		g_prefix_error(error, "instance '%s': ", name);
		return NULL;
	}
	out->sha256 = g_compute_checksum_for_bytes(G_CHECKSUM_SHA256, template);
	out->syntax = gnt_kickstart_release_get_syntax(&request.target.release);
	gnt_secret_wipe_string(token);
	return g_steal_pointer(&ks);
}

gboolean
gnt_lu_instance_kickstart_check(GntLu *lu, JsonObject *record, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	const gchar *name = json_object_get_string_member(record, "name");
	JsonObject *install = gnt_install_get(record);
	g_autoptr(JsonObject) image = dup_catalog_image(lu_config(lu), record);
	g_autoptr(GntKickstart) ks = NULL;
	g_auto(Rendered) rendered = {0};
	JsonObject *recorded;

	if (!is_kickstart_install(record, image)) {
		if (!gnt_opcode_get_bool(op, "print_kickstart"))
			return TRUE;
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "instance '%s' has no kickstart install to print: give --ks-template, "
			    "or a catalog image with a ks_template or an installer",
			    name);
		return FALSE;
	}
	if (image == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "instance '%s': a kickstart install needs a catalog image with "
			    "os_distro and os_version (--os-image NAME, gnt-image add)",
			    name);
		return FALSE;
	}
	ks = render(lu, record, image, &rendered, error);
	if (ks == NULL)
		return FALSE;
	gnt_lu_feedback(lu, "kickstart: template '%s' (the %s's), sha256 %s", rendered.source,
			gnt_kickstart_origin_to_string(rendered.origin), rendered.sha256);
	for (guint i = 0; i < ks->notes->len; i++)
		gnt_lu_feedback(lu, "%s", (const gchar *)g_ptr_array_index(ks->notes, i));
	if (gnt_opcode_get_bool(op, "print_kickstart")) {
		g_autofree gchar *shown = gnt_kickstart_dup_redacted(ks);
		g_auto(GStrv) lines = g_strsplit(shown, "\n", -1);

		for (guint i = 0; lines[i] != NULL; i++) {
			if (lines[i + 1] != NULL || lines[i][0] != '\0')
				gnt_lu_feedback(lu, "%s", lines[i]);
		}
	}
	recorded = json_object_new();
	json_object_set_string_member(recorded, "source", rendered.source);
	json_object_set_string_member(recorded, "origin",
				      gnt_kickstart_origin_to_string(rendered.origin));
	json_object_set_string_member(recorded, "sha256", rendered.sha256);
	json_object_set_string_member(recorded, "syntax", rendered.syntax);
	json_object_set_object_member(install, "kickstart", recorded);
	return TRUE;
}

/* {"url", "sha256"} of an installer artifact: the image's property (a
 * path on the node or a URL; no checksum: the catalog keeps none for
 * them), or the image itself for the liveimg. */
static JsonObject *
artifact_new(const gchar *url, const gchar *sha256)
{
	JsonObject *obj = json_object_new();

	json_object_set_string_member(obj, "url", url);
	if (sha256 != NULL)
		json_object_set_string_member(obj, "sha256", sha256);
	else
		json_object_set_null_member(obj, "sha256");
	return obj;
}

static void
installer_event_cb(JsonObject *event, gpointer user_data)
{
	GntLu *lu = user_data;
	const gchar *status = string_or_null(event, "status");
	const gchar *message = string_or_null(event, "message");

	gnt_lu_feedback(lu, "  installer: %s%s%s", status != NULL ? status : "?",
			message != NULL && *message != '\0' ? ": " : "",
			message != NULL ? message : "");
}

gboolean
gnt_lu_instance_kickstart_run(GntLu *lu, GntRpcClient *rpc, JsonObject *node, JsonObject *spec,
			      JsonObject *record, const GntSecretDict *secrets, GError **error)
{
	const gchar *name = json_object_get_string_member(record, "name");
	g_autoptr(JsonObject) image = dup_catalog_image(lu_config(lu), record);
	g_autoptr(GntCluster) cluster = gnt_config_dup_cluster(lu_config(lu));
	g_autoptr(GntKickstart) ks = NULL;
	g_autoptr(JsonObject) options = NULL;
	g_autoptr(JsonObject) result = NULL;
	g_auto(Rendered) rendered = {0};
	const gchar *kernel = gnt_kickstart_image_get_property(image, "installer_kernel");
	const gchar *initrd = gnt_kickstart_image_get_property(image, "installer_initrd");
	const gchar *stage2 = gnt_kickstart_image_get_property(image, "installer_stage2");
	JsonObject *properties = NULL;
	JsonNode *memory = NULL;
	static const gchar *const clocks[][2] = {
		{"installer_start_timeout", "timeout_start"},
		{"installer_end_timeout", "timeout_end"},
		{"installer_poweroff_grace", "grace"},
	};

	if (image == NULL || kernel == NULL || initrd == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "instance '%s': a kickstart install needs a catalog image with "
			    "installer_kernel and installer_initrd (gnt-image modify)",
			    name);
		return FALSE;
	}
	/* a new token for this attempt: the file served is rendered and
	 * checked again */
	ks = render(lu, record, image, &rendered, error);
	if (ks == NULL)
		return FALSE;
	options = json_object_new();
	json_object_set_string_member(options, "kickstart", ks->text->str);
	json_object_set_string_member(options, "agent_token", ks->token);
	json_object_set_object_member(options, "kernel", artifact_new(kernel, NULL));
	json_object_set_object_member(options, "initrd", artifact_new(initrd, NULL));
	if (stage2 != NULL)
		json_object_set_object_member(options, "stage2", artifact_new(stage2, NULL));
	json_object_set_object_member(options, "liveimg",
				      artifact_new(string_or_null(image, "url"),
						   string_or_null(image, "sha256")));
	json_object_set_string_member(options, "liveimg_name", rendered.liveimg_name);
	/* the node fetches the package (never metad, never the installer:
	 * the credentials stay on the node's fetch) */
	if (package_url(record) != NULL) {
		json_object_set_string_member(options, "package_url", package_url(record));
		json_object_set_member(
			options, "package_username",
			gnt_json_node_new_string(
				secrets != NULL ? gnt_secret_dict_lookup(
							  secrets, GNT_OSP_OS_PACKAGE_USERNAME)
						: NULL));
		json_object_set_member(
			options, "package_password",
			gnt_json_node_new_string(
				secrets != NULL ? gnt_secret_dict_lookup(
							  secrets, GNT_OSP_OS_PACKAGE_PASSWORD)
						: NULL));
	}
	properties = json_object_has_member(image, "properties")
			     ? json_object_get_object_member(image, "properties")
			     : NULL;
	memory = properties != NULL ? json_object_get_member(properties, "installer_memory") : NULL;
	if (memory != NULL && json_node_get_value_type(memory) == G_TYPE_INT64)
		json_object_set_int_member(options, "memory", json_node_get_int(memory));
	if (gnt_kickstart_image_get_property(image, "installer_kernel_args") != NULL)
		json_object_set_string_member(
			options, "kernel_args",
			gnt_kickstart_image_get_property(image, "installer_kernel_args"));
	/* the image's clocks, else the cluster's (the settings have the same
	 * names as the image's properties) */
	for (guint i = 0; i < G_N_ELEMENTS(clocks); i++) {
		JsonNode *own = properties != NULL
					? json_object_get_member(properties, clocks[i][0])
					: NULL;

		json_object_set_int_member(
			options, clocks[i][1],
			own != NULL && json_node_get_value_type(own) == G_TYPE_INT64
				? json_node_get_int(own)
				: json_object_get_int_member_with_default(cluster->settings,
									  clocks[i][0], 0));
	}
	json_object_set_int_member(options, "cache_bytes",
				   json_object_get_int_member_with_default(cluster->settings,
									   "image_cache_size", 0) *
					   1024 * 1024);
	gnt_lu_feedback(lu, "* running the kickstart installer (%s)...", rendered.syntax);
	/* the session runs on the node: the job waits without a worker */
	gnt_lu_release_worker(lu);
	result = gnt_node_call_installer_run(rpc, node, spec, options, installer_event_cb, lu,
					     error);
	gnt_lu_reclaim_worker(lu);
	gnt_secret_wipe_string((gchar *)json_object_get_string_member(options, "kickstart"));
	gnt_secret_wipe_string((gchar *)json_object_get_string_member(options, "agent_token"));
	if (json_object_has_member(options, "package_password") &&
	    !json_node_is_null(json_object_get_member(options, "package_password")))
		gnt_secret_wipe_string(
			(gchar *)json_object_get_string_member(options, "package_password"));
	if (result == NULL)
		return FALSE;
	gnt_lu_feedback(lu, "  the installer ended in %.1f s",
			json_object_get_double_member_with_default(result, "seconds", 0));
	return TRUE;
}
