/*
 * noded's install appliance procedures (gnt-noded-appliance.h,
 * doc/appliance.md "Running"): appliance_start starts an install session
 * (gnt-noded-session.h) that makes the instance's channel, gives metad the
 * record, the channel and the package, boots the appliance through the
 * instance's hypervisor, judges the agent's progress reports and tears
 * everything down on every path; the master follows it with session_wait.
 */
#include "gnt-noded-appliance.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/random.h>

#include "gnt-build-config.h"
#include "gnt-channel.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-metad-client.h"
#include "gnt-metad-server.h"
#include "gnt-metadata.h"
#include "gnt-noded-metad.h"
#include "gnt-noded-payload.h"
#include "gnt-noded-private.h"
#include "gnt-noded-session.h"
#include "gnt-secret.h"

#define APPLIANCE_WORK_DIR	"appliance" /* below the run directory: console logs */
#define CHANNEL_STATE_DIR	"channel"   /* below the run directory: tap names */
#define APPLIANCE_MAX_TIMEOUT_S (24 * 3600)
#define APPLIANCE_MAX_DEBUG	9
#define APPLIANCE_MEMORY_MIB	512
/* how often one session's steps may reboot the appliance */
#define APPLIANCE_MAX_BOOTS 16

gchar *
gnt_rpc_node_dup_appliance_dir(GntRpcNode *node)
{
	return g_build_filename(gnt_paths_get_data_dir(node->paths), "appliance", NULL);
}

/* --- the channel --------------------------------------------------------- */

static gchar *
channel_state_path(GntRpcNode *node, const gchar *name)
{
	return g_build_filename(gnt_paths_get_run_dir(node->paths), CHANNEL_STATE_DIR, name, NULL);
}

gboolean
gnt_rpc_node_channel_is_open(GntRpcNode *node, const gchar *name)
{
	g_autofree gchar *path = channel_state_path(node, name);

	return g_file_test(path, G_FILE_TEST_EXISTS);
}

GntHvChannelNic *
gnt_rpc_node_channel_dup_nic(GntRpcNode *node, const gchar *name, const gchar *mac)
{
	g_autofree gchar *path = channel_state_path(node, name);
	g_autofree gchar *tap = NULL;
	g_autofree gchar *socket = NULL;

	if (!g_file_get_contents(path, &tap, NULL, NULL))
		return NULL;
	if (*tap != '\0') {
		g_autofree gchar *sys = g_build_filename("/sys/class/net", tap, NULL);

		/* a tap gone with a reboot is no channel */
		if (!g_file_test(sys, G_FILE_TEST_EXISTS))
			return NULL;
		return gnt_hv_channel_nic_new(mac, tap, NULL);
	}
	socket = gnt_metad_dup_instance_socket(node->paths, name);
	return gnt_hv_channel_nic_new(mac, NULL, socket);
}

/* Whether this node can make taps; the reason it cannot is logged. */
static gboolean
tap_supported(void)
{
	g_autoptr(GError) local_error = NULL;

	if (g_strcmp0(g_getenv(GNT_CHANNEL_SLIRP_ENV), "1") == 0) {
		g_debug("%s=1: using the slirp fallback", GNT_CHANNEL_SLIRP_ENV);
		return FALSE;
	}
	if (gnt_channel_tap_supported(&local_error))
		return TRUE;
	g_info("no tap channels on this node, using the slirp fallback: %s",
	       local_error != NULL ? local_error->message : "unsupported");
	return FALSE;
}

static gboolean
write_channel_state(GntRpcNode *node, const gchar *name, const gchar *tap, GError **error)
{
	g_autofree gchar *path = channel_state_path(node, name);
	g_autofree gchar *dir = g_path_get_dirname(path);

	if (g_mkdir_with_parents(dir, 0700) != 0) {
		gnt_error_set_errno(error, errno, dir);
		return FALSE;
	}
	if (!g_file_set_contents(path, tap != NULL ? tap : "", -1, error)) {
		gnt_error_convert(error);
		return FALSE;
	}
	return TRUE;
}

/* metad's listener and DHCP responder on @tap for instance @name. */
static gboolean
put_channel(const gchar *control, const gchar *name, const gchar *tap, const gchar *mac,
	    const gchar *ip, GError **error)
{
	g_autoptr(JsonObject) spec = json_object_new();
	JsonObject *dhcp = json_object_new();

	json_object_set_string_member(spec, "device", tap);
	json_object_set_string_member(dhcp, "mac", mac);
	json_object_set_string_member(dhcp, "ip", ip);
	json_object_set_string_member(dhcp, "netmask", GNT_CHANNEL_NETMASK);
	json_object_set_object_member(spec, "dhcp", dhcp);
	return gnt_metad_client_set_channel(control, name, spec, error);
}

GntHvChannelNic *
gnt_rpc_node_channel_open(GntRpcNode *node, const gchar *hypervisor, const gchar *name,
			  const gchar *mac, const gchar *ip, GError **error)
{
	g_autofree gchar *socket = gnt_metad_dup_instance_socket(node->paths, name);
	g_autofree gchar *control = gnt_metad_dup_control_socket(node->paths);
	g_autofree gchar *tap = NULL;

	g_return_val_if_fail(node != NULL && name != NULL && mac != NULL && ip != NULL, NULL);

	if (gnt_rpc_node_channel_is_open(node, name))
		gnt_rpc_node_channel_close(node, name); /* left from a crash */
	if (g_strcmp0(hypervisor, "fake") != 0 && tap_supported()) {
		g_autoptr(GntChannel) channel = NULL;
		g_autofree gchar *owner = g_strconcat(node->hv_prefix, name, NULL);

		if (!gnt_channel_tap_create(mac, ip, owner, &channel, error)) {
			g_prefix_error(error, "channel of instance '%s': ", name);
			return NULL;
		}
		tap = g_strdup(channel->device);
	}
	/* the state first, so that a failure below still finds the tap */
	if (!write_channel_state(node, name, tap, error)) {
		g_prefix_error(error, "channel of instance '%s': ", name);
		if (tap != NULL)
			(void)gnt_channel_tap_remove(tap, NULL);
		return NULL;
	}
	if (tap != NULL && !put_channel(control, name, tap, mac, ip, error)) {
		g_prefix_error(error, "channel of instance '%s': ", name);
		gnt_rpc_node_channel_close(node, name);
		return NULL;
	}
	g_info("channel of instance '%s': %s%s", name, tap != NULL ? "tap " : "unix socket ",
	       tap != NULL ? tap : socket);
	return gnt_hv_channel_nic_new(mac, tap, tap != NULL ? NULL : socket);
}

void
gnt_rpc_node_channel_close(GntRpcNode *node, const gchar *name)
{
	g_autofree gchar *path = channel_state_path(node, name);
	g_autofree gchar *dir = g_path_get_dirname(path);
	g_autofree gchar *control = gnt_metad_dup_control_socket(node->paths);
	g_autofree gchar *tap = NULL;
	g_autoptr(GError) local_error = NULL;

	if (!g_file_get_contents(path, &tap, NULL, NULL))
		return;
	if (*tap != '\0' && !gnt_metad_client_remove_channel(control, name, &local_error)) {
		g_warning("channel of instance '%s': %s", name, local_error->message);
		g_clear_error(&local_error);
	}
	if (*tap != '\0' && !gnt_channel_tap_remove(tap, &local_error)) {
		g_warning("channel of instance '%s': removing tap '%s': %s", name, tap,
			  local_error->message);
		g_clear_error(&local_error);
	}
	(void)g_unlink(path);
	(void)g_rmdir(dir); /* when it was the last */
	g_info("channel of instance '%s' closed", name);
}

/* --- the guest's OS environment ------------------------------------------ */

/* Whether @entry ("NAME=value") is one metad adds itself or the guest must
 * not get: OSP_* (metad writes them from the record's parameters) and PATH
 * (the appliance's own). */
static gboolean
env_entry_is_skipped(const gchar *entry)
{
	return g_str_has_prefix(entry, "OSP_") || g_str_has_prefix(entry, "PATH=");
}

/* Whether @key is a name metad's shell export takes, [A-Z_][A-Z0-9_]*:
 * Ganeti's INSTANCE_HV_<param> and INSTANCE_BE_<param> keep the
 * parameters' lower-case names and are left out. */
static gboolean
env_key_is_exportable(const gchar *key)
{
	if (*key == '\0' || g_ascii_isdigit(*key))
		return FALSE;
	for (const gchar *p = key; *p != '\0'; p++) {
		if (!g_ascii_isupper(*p) && !g_ascii_isdigit(*p) && *p != '_')
			return FALSE;
	}
	return TRUE;
}

/* "DISK_<n>_PATH=...": the index, else -1. */
static gint
env_disk_path_index(const gchar *entry)
{
	guint64 index = 0;
	const gchar *end = NULL;

	if (!g_str_has_prefix(entry, "DISK_"))
		return -1;
	index = g_ascii_strtoull(entry + 5, (gchar **)&end, 10);
	if (end == entry + 5 || !g_str_has_prefix(end, "_PATH=") || index >= 26)
		return -1;
	return (gint)index;
}

/*
 * The record's "os_environment" for the agent: the OS interface variables
 * of the create script (os/gnt-os-env.c) of the spec's OS on this node,
 * with the guest's device names (/dev/vda...) for the disks when
 * @guest_devices (kvm), the host's paths otherwise (the fake hypervisor's
 * agent runs on the host). No OS parameters: metad adds them.
 */
static JsonObject *
build_os_environment(GntRpcNodeSpec *spec, guint debug_level, gboolean reinstall,
		     gboolean guest_devices, GError **error)
{
	g_autoptr(GntOsDefinition) os = NULL;
	g_autoptr(GntOsEnv) env = gnt_rpc_node_spec_new_os_env(spec, debug_level, NULL, &os, error);
	g_auto(GntOsEnvp) envp = NULL;
	JsonObject *obj;

	if (env == NULL)
		return NULL;
	gnt_os_env_set_reinstall(env, reinstall);
	envp = gnt_os_env_build(env, GNT_OS_SCRIPT_CREATE, FALSE);
	obj = json_object_new();
	for (guint i = 0; envp[i] != NULL; i++) {
		const gchar *eq = strchr(envp[i], '=');
		g_autofree gchar *key = NULL;
		gint disk = env_disk_path_index(envp[i]);

		if (eq == NULL || env_entry_is_skipped(envp[i]))
			continue;
		key = g_strndup(envp[i], (gsize)(eq - envp[i]));
		if (!env_key_is_exportable(key))
			continue;
		if (disk >= 0 && guest_devices) {
			g_autofree gchar *dev = g_strdup_printf("/dev/vd%c", 'a' + disk);

			json_object_set_string_member(obj, key, dev);
		} else if (g_str_has_suffix(key, "_BACKEND_TYPE") && guest_devices) {
			json_object_set_string_member(obj, key, "block");
		} else {
			json_object_set_string_member(obj, key, eq + 1);
		}
	}
	return obj;
}

/* Drops the package credentials from the record's secrets: they are for
 * this node's fetch only, never for the scripts or metad. */
static void
strip_package_credentials(JsonObject *record)
{
	static const gchar *const names[] = {"os-package-username", "os-package-password"};
	JsonObject *secrets = NULL;

	if (!json_object_has_member(record, "osparams_secret") ||
	    !gnt_json_get_object(record, "osparams_secret", &secrets, NULL))
		return;
	for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
		const gchar *value = NULL;

		if (!json_object_has_member(secrets, names[i]))
			continue;
		if (gnt_json_get_string(secrets, names[i], &value, NULL))
			gnt_secret_wipe_string((gchar *)value);
		json_object_remove_member(secrets, names[i]);
	}
}

/* --- one run ------------------------------------------------------------ */

typedef struct {
	JsonObject *record; /* borrowed from the request */
	const gchar *package_url;
	const gchar *package_username;
	const gchar *package_password;
	guint timeout_s;
	guint debug;
	gboolean reinstall; /* the script runs with INSTANCE_REINSTALL=1 */
	/* the session's in-band steps ({"id", "step", "args", "timeout"}, in
	 * order), borrowed; NULL: the agent's fixed session of old */
	JsonArray *steps;
	/* appliance.write_payload's file (gnt-noded-payload.h), borrowed;
	 * NULL: none */
	JsonObject *payload;
} RunOptions;

static gboolean
option_nullable_string(JsonObject *options, const gchar *key, const gchar **out, GError **error)
{
	JsonNode *member = json_object_get_member(options, key);

	*out = NULL;
	if (member == NULL || JSON_NODE_HOLDS_NULL(member))
		return TRUE;
	return gnt_json_get_string(options, key, out, error);
}

static gboolean
parse_options(JsonObject *options, RunOptions *out, GError **error)
{
	gint64 timeout = 1800, debug = 0;

	if (!gnt_json_get_object(options, "record", &out->record, error) ||
	    !option_nullable_string(options, "package_url", &out->package_url, error) ||
	    !option_nullable_string(options, "package_username", &out->package_username, error) ||
	    !option_nullable_string(options, "package_password", &out->package_password, error) ||
	    (json_object_has_member(options, "timeout") &&
	     !gnt_json_get_int(options, "timeout", &timeout, error)) ||
	    (json_object_has_member(options, "debug") &&
	     !gnt_json_get_int(options, "debug", &debug, error)) ||
	    (json_object_has_member(options, "reinstall") &&
	     !gnt_json_get_bool(options, "reinstall", &out->reinstall, error)) ||
	    (json_object_has_member(options, "steps") &&
	     !gnt_json_get_array(options, "steps", &out->steps, error)) ||
	    (json_object_has_member(options, "payload") &&
	     !gnt_json_get_object(options, "payload", &out->payload, error))) {
		g_prefix_error(error, "options: ");
		return FALSE;
	}
	if (timeout < 1 || timeout > APPLIANCE_MAX_TIMEOUT_S || debug < 0 ||
	    debug > APPLIANCE_MAX_DEBUG) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "options: 'timeout' must be 1..%d seconds and 'debug' 0..%d",
			    APPLIANCE_MAX_TIMEOUT_S, APPLIANCE_MAX_DEBUG);
		return FALSE;
	}
	out->timeout_s = (guint)timeout;
	out->debug = (guint)debug;
	return TRUE;
}

/* The record's "communication_nic" {mac, ip} (borrowed). */
static gboolean
spec_communication_nic(GntRpcNodeSpec *spec, const gchar **mac, const gchar **ip, GError **error)
{
	if (spec->instance->communication_mac == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "instance '%s': 'communication_nic' is missing", spec->name);
		return FALSE;
	}
	*mac = spec->instance->communication_mac;
	*ip = spec->instance->communication_ip;
	return TRUE;
}

gboolean
gnt_rpc_node_spec_get_communication(GntRpcNodeSpec *spec, gboolean *communication,
				    const gchar **mac, const gchar **ip, GError **error)
{
	*communication = spec->instance->communication;
	*mac = *ip = NULL;
	return !*communication || spec_communication_nic(spec, mac, ip, error);
}

/* Fetches, sanitizes and hands metad the personalization package. */
static gboolean
give_package(const gchar *control, const gchar *name, const RunOptions *options, GError **error)
{
	return gnt_rpc_node_metad_give_package(control, name, options->package_url,
					       options->package_username, options->package_password,
					       error);
}

gchar *
gnt_rpc_node_dup_appliance_agent(GntRpcNode *node)
{
	g_autofree gchar *dir = gnt_rpc_node_dup_appliance_dir(node);
	g_autofree gchar *built = g_build_filename(dir, "agent", NULL);
	const gchar *env = g_getenv(GNT_APPLIANCE_AGENT_ENV);
	g_autofree gchar *installed = g_build_filename(GNT_APPLIANCE_LIBEXECDIR, "agent", NULL);
	g_autofree gchar *source = g_build_filename(GNT_SOURCE_DIR, "appliance", "agent", NULL);

	if (env != NULL && *env != '\0')
		return g_strdup(env);
	if (g_file_test(built, G_FILE_TEST_EXISTS))
		return g_steal_pointer(&built);
	if (g_file_test(installed, G_FILE_TEST_EXISTS) || !g_file_test(source, G_FILE_TEST_EXISTS))
		return g_steal_pointer(&installed);
	return g_steal_pointer(&source);
}

static GntHvAppliance *
build_appliance(GntRpcNode *node, GntRpcNodeSpec *spec, GntHvChannelNic *channel, const gchar *ip,
		const RunOptions *options, const gchar *work_dir, GError **error)
{
	g_autoptr(GntHvAppliance) app = gnt_hv_appliance_new(spec->name);
	g_autoptr(GPtrArray) paths = gnt_rpc_node_spec_dup_disk_paths(spec, error);
	g_autofree gchar *dir = gnt_rpc_node_dup_appliance_dir(node);
	const gchar *accel = NULL;
	const gchar *firmware = NULL;

	if (paths == NULL)
		return NULL;
	for (guint i = 0; i < spec->disks->len; i++) {
		const GntDiskSpec *disk = g_ptr_array_index(spec->disks, i);

		gnt_hv_appliance_add_disk(
			app, gnt_hv_disk_new(g_ptr_array_index(paths, i),
					     gnt_disk_store_get_format(spec->store, disk) ==
							     GNT_DISK_FORMAT_QCOW2
						     ? GNT_HV_DISK_FORMAT_QCOW2
						     : GNT_HV_DISK_FORMAT_RAW));
	}
	if (spec->hvparams != NULL && json_object_has_member(spec->hvparams, "accel") &&
	    gnt_json_get_string(spec->hvparams, "accel", &accel, NULL)) {
		g_free(app->accel);
		app->accel = g_strdup(accel);
	}
	/* the instance's firmware and its UEFI variables: what an installer
	 * writes there (boot entries) is what the instance boots with */
	if (spec->hvparams != NULL && json_object_has_member(spec->hvparams, "firmware") &&
	    gnt_json_get_string(spec->hvparams, "firmware", &firmware, NULL)) {
		g_free(app->firmware);
		app->firmware = g_strdup(firmware);
	}
	app->state_dir = gnt_rpc_node_dup_instance_state_dir(node, spec, error);
	if (app->state_dir == NULL)
		return NULL;
	app->memory_mib = MAX(spec->memory_mib, APPLIANCE_MEMORY_MIB);
	app->kernel = g_build_filename(dir, "vmlinuz", NULL);
	app->initrd = g_build_filename(dir, "initrd.img", NULL);
	app->image = g_build_filename(dir, "appliance.img", NULL);
	app->channel = gnt_hv_channel_nic_copy(channel);
	app->ip = g_strdup(ip);
	app->debug = options->debug > 0;
	app->console_log = g_build_filename(work_dir, "console.log", NULL);
	app->timeout_s = options->timeout_s;
	app->agent = gnt_rpc_node_dup_appliance_agent(node);
	if (!gnt_hv_runs_appliance_on_host(spec->hypervisor) &&
	    !g_file_test(app->kernel, G_FILE_TEST_IS_REGULAR)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "no install appliance on this node: '%s' is missing (build it with "
			    "build-appliance %s)",
			    app->kernel, dir);
		return NULL;
	}
	if (gnt_hv_runs_appliance_on_host(spec->hypervisor) &&
	    !g_file_test(app->agent, G_FILE_TEST_IS_REGULAR)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "no install appliance agent on this node: '%s' is missing (build the "
			    "appliance with build-appliance %s, or set %s)",
			    app->agent, dir, GNT_APPLIANCE_AGENT_ENV);
		return NULL;
	}
	return g_steal_pointer(&app);
}

/* The entries metad holds for @name (transfer full); an empty list when it
 * has none or cannot say (logged). */
static JsonArray *
collect_progress(const gchar *control, const gchar *name)
{
	g_autoptr(GError) local_error = NULL;
	g_autoptr(JsonNode)
		progress = gnt_metad_client_get_progress(control, name, 0, &local_error);
	JsonArray *entries = NULL;

	if (progress == NULL || !JSON_NODE_HOLDS_OBJECT(progress)) {
		g_debug("install appliance of instance '%s': no progress from metad: %s", name,
			local_error->message);
		return json_array_new();
	}
	if (!gnt_json_get_array(json_node_get_object(progress), "entries", &entries, NULL))
		return json_array_new();
	return json_array_ref(entries);
}

/* The last non-empty line of @text ("" when none). (transfer full) */
static gchar *
dup_last_line(const gchar *text)
{
	g_auto(GStrv) lines = g_strsplit(text != NULL ? text : "", "\n", -1);

	for (guint n = g_strv_length(lines); n > 0; n--) {
		g_strstrip(lines[n - 1]);
		if (*lines[n - 1] != '\0')
			return g_strdup(lines[n - 1]);
	}
	return g_strdup("");
}

/* Whether the agent reported success: "appliance" "done", no step
 * "failed", and (a session of @n_steps in-band steps) a result of each;
 * the error names the failed step and its output's last line. */
static gboolean
judge_progress(const gchar *name, JsonArray *entries, guint n_steps, const gchar *console_tail,
	       GError **error)
{
	gboolean done = FALSE;
	guint results = 0; /* the steps' "done" entries */

	for (guint i = 0; i < json_array_get_length(entries); i++) {
		JsonNode *node = json_array_get_element(entries, i);
		JsonObject *entry = JSON_NODE_HOLDS_OBJECT(node) ? json_node_get_object(node)
								 : NULL;
		const gchar *step = NULL, *state = NULL, *detail = NULL, *output = NULL;

		if (entry == NULL || !gnt_json_get_string(entry, "step", &step, NULL) ||
		    !gnt_json_get_string(entry, "state", &state, NULL))
			continue;
		(void)gnt_json_get_string(entry, "detail", &detail, NULL);
		(void)gnt_json_get_string(entry, "output", &output, NULL);
		if (g_str_equal(state, "failed") && !g_str_equal(step, "appliance")) {
			g_autofree gchar *last = dup_last_line(output);

			g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
				    "install appliance of instance '%s': step '%s' failed%s%s%s%s",
				    name, step, detail != NULL && *detail ? ": " : "",
				    detail != NULL ? detail : "",
				    *last ? "; its output ended with: " : "", last);
			return FALSE;
		}
		if (g_str_equal(step, "appliance") && g_str_equal(state, "failed")) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
				    "install appliance of instance '%s' failed: %s", name,
				    detail != NULL && *detail ? detail : "no reason given");
			return FALSE;
		}
		if (g_str_equal(step, "appliance") && g_str_equal(state, "done"))
			done = TRUE;
		else if (g_str_equal(state, "done"))
			results++;
	}
	if (done && n_steps > 0 && results < n_steps) {
		/* e.g. an agent that does not know the steps ran its fixed
		 * session instead */
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "the install appliance of instance '%s' reported %u of its %u steps; "
			    "its console ended with: %s",
			    name, results, n_steps,
			    console_tail != NULL && *console_tail ? console_tail : "(nothing)");
		return FALSE;
	}
	if (!done) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "the install appliance powered off without reporting success for "
			    "instance '%s'; its console ended with: %s",
			    name,
			    console_tail != NULL && *console_tail ? console_tail : "(nothing)");
		return FALSE;
	}
	return TRUE;
}

/* --- reboots (doc/appliance.md "Reboots") ------------------------------- */

/* What identifies the appliance booted: the SHA-256 of its manifest.json
 * (which holds its files' checksums), else (the fake hypervisor's, with no
 * built appliance) of the agent. (transfer full) */
static gchar *
dup_appliance_identity(GntRpcNode *node, const GntHvAppliance *app)
{
	g_autofree gchar *dir = gnt_rpc_node_dup_appliance_dir(node);
	g_autofree gchar *manifest = g_build_filename(dir, "manifest.json", NULL);
	const gchar *path = g_file_test(manifest, G_FILE_TEST_IS_REGULAR) ? manifest : app->agent;
	g_autofree gchar *data = NULL;
	gsize len = 0;

	if (path == NULL || !g_file_get_contents(path, &data, &len, NULL))
		return g_strdup("");
	return g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)data, len);
}

/* The test hook GNT_APPLIANCE_SWAP_TEST_ENV: its file over the manifest. */
static void
test_swap_appliance(GntRpcNode *node)
{
	const gchar *swap = g_getenv(GNT_APPLIANCE_SWAP_TEST_ENV);
	g_autofree gchar *dir = NULL;
	g_autofree gchar *manifest = NULL;
	g_autofree gchar *data = NULL;
	gsize len = 0;

	if (swap == NULL || *swap == '\0' || !g_file_get_contents(swap, &data, &len, NULL))
		return;
	dir = gnt_rpc_node_dup_appliance_dir(node);
	manifest = g_build_filename(dir, "manifest.json", NULL);
	(void)g_file_set_contents(manifest, data, (gssize)len, NULL);
}

/* How many reboots the steps asked for so far (metad's "appliance info"
 * entries), and whether the agent ended the session ("appliance" done or
 * failed) after the last of them. */
static guint
count_reboots(JsonArray *entries, gboolean *ended_after)
{
	guint reboots = 0;

	*ended_after = FALSE;
	for (guint i = 0; i < json_array_get_length(entries); i++) {
		JsonNode *node = json_array_get_element(entries, i);
		JsonObject *entry = JSON_NODE_HOLDS_OBJECT(node) ? json_node_get_object(node)
								 : NULL;
		const gchar *step = NULL, *state = NULL, *detail = NULL;

		if (entry == NULL || !gnt_json_get_string(entry, "step", &step, NULL) ||
		    !gnt_json_get_string(entry, "state", &state, NULL) ||
		    !g_str_equal(step, "appliance"))
			continue;
		(void)gnt_json_get_string(entry, "detail", &detail, NULL);
		if (g_str_equal(state, "info") && detail != NULL &&
		    g_str_has_prefix(detail, GNT_METADATA_REBOOT_DETAIL_PREFIX)) {
			reboots++;
			*ended_after = FALSE;
		} else if (g_str_equal(state, "done") || g_str_equal(state, "failed")) {
			*ended_after = TRUE;
		}
	}
	return reboots;
}

/* A new token for the next boot, given to metad: the last boot's stops
 * working. */
static gboolean
new_boot_token(const gchar *control, const gchar *name, GntHvAppliance *app, GError **error)
{
	guint8 bytes[16];
	GString *hex = g_string_new(NULL);

	/* the kernel's CSPRNG: a guest may guess */
	if (getrandom(bytes, sizeof(bytes), 0) != (gssize)sizeof(bytes)) {
		int errsv = errno;

		g_string_free(hex, TRUE);
		gnt_error_set_errno(error, errsv, "reading random bytes for a boot token");
		return FALSE;
	}
	for (guint i = 0; i < G_N_ELEMENTS(bytes); i++)
		g_string_append_printf(hex, "%02x", bytes[i]);
	g_free(app->boot_token);
	app->boot_token = g_string_free(hex, FALSE);
	return gnt_metad_client_set_boot_token(control, name, app->boot_token, error);
}

/* One boot of the appliance. A reboot's domain has a name and UUID of its
 * own, so it starts while libvirt still cleans up the last boot's (noded
 * answers when qemu is gone, libvirt says "stopped" up to 2 s later). The
 * first boot of a session that follows another one of the same install
 * (a host row between them, e.g. write_image) has the first session's
 * name: it may find that domain still there and waits for it, at most
 * 10 s (one run per instance at a time: it is never another run's). */
static gboolean
boot_once(GntHypervisor *hv, GntHvAppliance *app, guint boot, GCancellable *cancellable,
	  gchar **console_tail, GError **error)
{
	for (guint tries = 0;; tries++) {
		g_autoptr(GError) local = NULL;

		g_clear_pointer(console_tail, g_free);
		app->boot = boot;
		if (boot > 1) {
			g_free(app->uuid);
			app->uuid = g_uuid_string_random();
		}
		if (gnt_hypervisor_run_appliance(hv, app, cancellable, console_tail, &local))
			return TRUE;
		if (tries >= 100 || !g_error_matches(local, GNT_ERROR, GNT_ERROR_EXISTS)) {
			g_propagate_error(error, g_steal_pointer(&local));
			return FALSE;
		}
		g_usleep(100 * 1000);
	}
}

/* Boots the appliance, again as long as its steps ask for reboots (the
 * same disks, channel and record, a new token each time): FALSE when a
 * boot failed, the appliance changed across a reboot, or too many.
 * *@entries: the progress collected at the end. */
static gboolean
run_boots(GntRpcNode *node, GntHypervisor *hv, GntHvAppliance *app, const gchar *control,
	  const gchar *name, gboolean with_steps, GCancellable *cancellable, JsonArray **entries,
	  gchar **console_tail, GError **error)
{
	g_autofree gchar *identity = dup_appliance_identity(node, app);

	for (guint boot = 1;; boot++) {
		g_autofree gchar *now = NULL;
		gboolean ended = FALSE;

		if (with_steps && !new_boot_token(control, name, app, error))
			return FALSE;
		if (!boot_once(hv, app, boot, cancellable, console_tail, error)) {
			*entries = collect_progress(control, name);
			return FALSE;
		}
		*entries = collect_progress(control, name);
		if (count_reboots(*entries, &ended) < boot || ended)
			return TRUE;
		if (boot >= APPLIANCE_MAX_BOOTS) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
				    "install appliance of instance '%s': its steps asked for more "
				    "than %d reboots",
				    name, APPLIANCE_MAX_BOOTS - 1);
			return FALSE;
		}
		g_clear_pointer(entries, json_array_unref);
		test_swap_appliance(node);
		now = dup_appliance_identity(node, app);
		if (!g_str_equal(now, identity)) {
			g_set_error_literal(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
					    "install appliance changed across a reboot: aborting");
			return FALSE;
		}
		g_info("install appliance of instance '%s': rebooting (boot %u)", name, boot + 1);
	}
}

/* Removes the run's work directory and what is in it (the console log). */
static void
remove_work_dir(const gchar *work_dir)
{
	g_autofree gchar *parent = NULL;

	(void)gnt_rpc_node_remove_flat_dir(work_dir, NULL);
	parent = g_path_get_dirname(work_dir);
	(void)g_rmdir(parent); /* when it was the last run */
}

/* What a run made and teardown undoes. */
typedef struct {
	GntRpcNode *node;
	const gchar *name;
	const gchar *control;
	gboolean record_pushed;
	gboolean keep_record; /* communication=yes: the instance's own record */
	gboolean channel_open;
	gboolean package_given;
	GntNodedPayload *payload;
	gchar *work_dir;
} Teardown;

static void
teardown(Teardown *t)
{
	g_autoptr(GError) local_error = NULL;

	if (t->package_given &&
	    !gnt_metad_client_remove_package(t->control, t->name, &local_error)) {
		g_warning("install appliance of instance '%s': %s", t->name, local_error->message);
		g_clear_error(&local_error);
	}
	g_clear_pointer(&t->payload, gnt_noded_payload_take_back);
	if (t->channel_open)
		gnt_rpc_node_channel_close(t->node, t->name);
	if (t->record_pushed &&
	    !gnt_metad_client_clear_progress(t->control, t->name, &local_error)) {
		g_debug("install appliance of instance '%s': %s", t->name, local_error->message);
		g_clear_error(&local_error);
	}
	if (t->record_pushed && !t->keep_record &&
	    !gnt_metad_client_remove(t->control, t->name, &local_error) &&
	    !g_error_matches(local_error, GNT_ERROR, GNT_ERROR_NOT_FOUND)) {
		g_warning("install appliance of instance '%s': %s", t->name, local_error->message);
		g_clear_error(&local_error);
	}
	if (t->work_dir != NULL)
		remove_work_dir(t->work_dir);
	g_free(t->work_dir);
}

static JsonNode *
result_to_json(gdouble seconds, JsonArray *entries, const gchar *console_tail)
{
	JsonObject *obj = json_object_new();

	json_object_set_member(obj, "seconds", gnt_json_node_new_double(seconds));
	json_object_set_member(obj, "steps", gnt_json_node_new_array(json_array_ref(entries)));
	json_object_set_member(obj, "console_tail", gnt_json_node_new_string(console_tail));
	return gnt_json_node_new_object(obj);
}

/* Everything between the record's push and the appliance's end; @t
 * records what to undo. */
static JsonNode *
run_appliance(GntRpcNode *node, GntRpcNodeSpec *spec, RunOptions *options, Teardown *t,
	      GntNodedSession *session, GError **error)
{
	g_autoptr(GntHypervisor) hv = NULL;
	g_autoptr(GntHvChannelNic) channel = NULL;
	g_autoptr(GntHvAppliance) app = NULL;
	g_autoptr(JsonArray) entries = NULL;
	g_autofree gchar *console_tail = NULL;
	const gchar *mac = NULL, *ip = NULL;
	gint64 started = g_get_monotonic_time();
	gboolean guest_devices;
	gboolean ran;
	g_autoptr(GError) run_error = NULL;

	hv = gnt_rpc_node_get_hypervisor(node, spec->hypervisor, error);
	if (hv == NULL || !spec_communication_nic(spec, &mac, &ip, error))
		return NULL;
	guest_devices = !gnt_hv_runs_appliance_on_host(spec->hypervisor);
	strip_package_credentials(options->record);
	json_object_set_string_member(options->record, "name", spec->name);
	/* an image-only install (a storage layout's payload) has no OS and
	 * no scripts to run: no environment for them */
	if (!json_object_has_member(options->record, "os_environment") &&
	    spec->instance->os != NULL) {
		JsonObject *env = build_os_environment(spec, options->debug, options->reinstall,
						       guest_devices, error);

		if (env == NULL)
			return NULL;
		json_object_set_object_member(options->record, "os_environment", env);
	}
	t->work_dir = g_build_filename(gnt_paths_get_run_dir(node->paths), APPLIANCE_WORK_DIR,
				       spec->name, NULL);
	gnt_rpc_node_metad_add_os_scripts(options->record, spec->name, TRUE);
	/* metad hands them to the agent one at a time (doc/metad.md) */
	if (options->steps != NULL)
		json_object_set_array_member(options->record, "install_steps",
					     json_array_ref(options->steps));
	if (!gnt_metad_client_push(t->control, spec->name, options->record, error))
		return NULL;
	t->record_pushed = TRUE;
	/* progress of an earlier run must not count */
	if (!gnt_metad_client_clear_progress(t->control, spec->name, error))
		return NULL;
	channel = gnt_rpc_node_channel_open(node, spec->hypervisor, spec->name, mac, ip, error);
	if (channel == NULL)
		return NULL;
	t->channel_open = TRUE;
	if (options->package_url != NULL) {
		t->package_given = TRUE;
		if (!give_package(t->control, spec->name, options, error))
			return NULL;
	}
	if (options->payload != NULL) {
		if (g_mkdir_with_parents(t->work_dir, 0700) != 0) {
			gnt_error_set_errno(error, errno, "making the appliance's work directory");
			return NULL;
		}
		t->payload = gnt_noded_payload_give(node, t->control, spec->name, options->payload,
						    t->work_dir, error);
		if (t->payload == NULL)
			return NULL;
	}
	app = build_appliance(node, spec, channel, ip, options, t->work_dir, error);
	if (app == NULL)
		return NULL;
	g_info("install appliance of instance '%s' starting (%s, timeout %u s)", spec->name,
	       channel->tap != NULL ? channel->tap : "unix socket", app->timeout_s);
	if (!gnt_noded_session_write_state(t->work_dir, spec->hypervisor, t->keep_record, error))
		return NULL;
	ran = run_boots(node, hv, app, t->control, spec->name, options->steps != NULL,
			gnt_noded_session_get_cancellable(session), &entries, &console_tail,
			&run_error);
	/* the final answer carries them all, failed or not: teardown clears
	 * metad's */
	if (entries != NULL)
		gnt_noded_session_set_entries(session, entries);
	if (!ran) {
		g_propagate_error(error, g_steal_pointer(&run_error));
		return NULL;
	}
	if (!judge_progress(spec->name, entries,
			    options->steps != NULL ? json_array_get_length(options->steps) : 0,
			    console_tail, error))
		return NULL;
	g_info("install appliance of instance '%s' done in %.1f s", spec->name,
	       (gdouble)(g_get_monotonic_time() - started) / G_USEC_PER_SEC);
	return result_to_json((gdouble)(g_get_monotonic_time() - started) / G_USEC_PER_SEC, entries,
			      console_tail);
}

/* One session of the appliance: what its thread holds. */
typedef struct {
	GntRpcNode *node;
	JsonArray *request; /* the spec points into it */
	/* the options, deep-copied: noded wipes the request's once the
	 * start has answered; the session wipes its copy at its end */
	JsonObject *options_copy;
	GntRpcNodeSpec *spec;
	RunOptions options;
	gchar *control;
} ApplianceSession;

static void
appliance_session_free(gpointer data)
{
	ApplianceSession *self = data;

	if (self->options_copy != NULL) {
		g_autoptr(JsonNode) options = gnt_json_node_new_object(self->options_copy);

		gnt_json_node_wipe_strings(options);
	}
	g_clear_pointer(&self->spec, gnt_rpc_node_spec_free);
	json_array_unref(self->request);
	g_free(self->control);
	g_free(self);
}

static JsonNode *
appliance_session_body(GntNodedSession *session, gpointer data, GError **error)
{
	ApplianceSession *self = data;
	Teardown t = {.node = self->node, .control = self->control, .name = self->spec->name};
	const gchar *mac = NULL, *ip = NULL;
	JsonNode *result;

	if (!gnt_rpc_node_spec_get_communication(self->spec, &t.keep_record, &mac, &ip, error))
		return NULL;
	result = run_appliance(self->node, self->spec, &self->options, &t, session, error);
	teardown(&t);
	return result;
}

/* The progress the agent has reported to metad since @since. */
static JsonArray *
appliance_session_fetch(gpointer data, guint64 since)
{
	ApplianceSession *self = data;
	g_autoptr(GError) local_error = NULL;
	g_autoptr(JsonNode) progress =
		gnt_metad_client_get_progress(self->control, self->spec->name, since, &local_error);
	JsonArray *entries = NULL;

	if (progress == NULL || !JSON_NODE_HOLDS_OBJECT(progress) ||
	    !gnt_json_get_array(json_node_get_object(progress), "entries", &entries, NULL))
		return json_array_new();
	return json_array_ref(entries);
}

static JsonNode *
appliance_start_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	ApplianceSession *self = g_new0(ApplianceSession, 1);
	const gchar *token = gnt_rpc_args_get_string(args, "token");

	self->node = user_data;
	self->request = json_array_ref(gnt_rpc_args_get_array(args));
	self->control = gnt_metad_dup_control_socket(self->node->paths);
	self->options_copy = gnt_json_object_deep_copy(gnt_rpc_args_get_object(args, "options"));
	if (!gnt_rpc_node_check_name(token, "token", error) ||
	    !parse_options(self->options_copy, &self->options, error) ||
	    (self->spec = gnt_rpc_node_spec_parse(args, error)) == NULL) {
		appliance_session_free(self);
		return NULL;
	}
	if (!gnt_noded_session_start(token, self->spec->name, appliance_session_body,
				     appliance_session_fetch, self, appliance_session_free, error))
		return NULL;
	return gnt_json_node_new_string(token);
}

void
gnt_rpc_node_appliance_recover(GntRpcNode *node)
{
	g_autofree gchar *dir =
		g_build_filename(gnt_paths_get_run_dir(node->paths), APPLIANCE_WORK_DIR, NULL);
	g_autoptr(GPtrArray) left = gnt_noded_session_find_left(dir);

	for (guint i = 0; i < left->len; i++) {
		GntNodedSessionLeft *run = g_ptr_array_index(left, i);
		g_autofree gchar *control = gnt_metad_dup_control_socket(node->paths);
		Teardown t = {.node = node,
			      .name = run->name,
			      .control = control,
			      .record_pushed = TRUE,
			      .keep_record = run->keep_record,
			      .channel_open = TRUE,
			      .package_given = TRUE,
			      .work_dir = g_strdup(run->work_dir)};

		g_message("install appliance of instance '%s': removing what a killed noded left",
			  run->name);
		gnt_noded_session_destroy_domain(node, run);
		teardown(&t);
	}
}

const GntRpcProcedure gnt_rpc_node_appliance_procedures[] = {
	{"appliance_start", appliance_start_procedure},
	{NULL},
};
