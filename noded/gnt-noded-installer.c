/*
 * noded's kickstart install procedures (gnt-noded-installer.h,
 * doc/kickstart.md "Running the installer"): installer_start starts an
 * install session (gnt-noded-session.h) that boots a transient installer
 * domain on the instance's disks and channel, follows the installer's
 * callbacks through metad's long poll by two clocks (each callback goes to
 * the master's session_wait at once), and tears everything down on every
 * path.
 */
#include "gnt-noded-installer.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-kickstart-prepare.h"
#include "gnt-metad-client.h"
#include "gnt-metad-server.h"
#include "gnt-metadata.h"
#include "gnt-noded-appliance.h"
#include "gnt-noded-cache.h"
#include "gnt-noded-metad.h"
#include "gnt-noded-session.h"
#include "gnt-secret.h"

#define INSTALLER_WORK_DIR "installer" /* below the run directory: console logs */
#define INSTALLER_MAX_S	   (7 * 24 * 3600)
/* the long poll's wait: how soon a powered-off installer is noticed */
#define POLL_WAIT_S 1
/* the fake hypervisor's installer (tests): a script run as a host process */
#define FAKE_INSTALLER_ENV "GANTRY_FAKE_INSTALLER"

gchar *
gnt_installer_dup_cmdline(const gchar *ip, gboolean stage2, const gchar *extra_args)
{
	GString *cmdline = g_string_new("inst.ks=" GNT_KICKSTART_METAD_INSTALL "/ks.cfg");

	if (stage2)
		g_string_append(cmdline, " inst.stage2=" GNT_KICKSTART_STAGE2_URL);
	/* inst.cmdline: no interactive UI, so %onerror covers every error
	 * (ironic-and-users.md C #9); the channel is the only network, its
	 * address static (dracut's form; metad's DHCP would do as well);
	 * no_timer_check as for the appliance (gnt_hv_appliance_dup_cmdline():
	 * a TCG guest on a loaded host can fail the timer check and panic) */
	g_string_append_printf(cmdline,
			       " inst.cmdline console=ttyS0 no_timer_check "
			       "ip=%s::169.254.169.254:255.255.0.0:::none",
			       ip);
	if (extra_args != NULL && *extra_args != '\0')
		g_string_append_printf(cmdline, " %s", extra_args);
	return g_string_free(cmdline, FALSE);
}

/* --- options ------------------------------------------------------------- */

typedef struct {
	JsonObject *record; /* nullable, borrowed */
	const gchar *kickstart;
	const gchar *agent_token;
	JsonObject *artifacts[4]; /* kernel, initrd, stage2, liveimg; the last two nullable */
	const gchar *liveimg_name;
	gint64 memory_mib;
	const gchar *kernel_args;
	gint64 timeout_start_s;
	gint64 timeout_end_s;
	gint64 grace_s;
	gint64 cache_bytes;
	/* the personalization package: fetched here, for metad (nullable) */
	const gchar *package_url, *package_username, *package_password;
} Options;

static const gchar *const artifact_names[] = {"kernel", "initrd", "stage2", "liveimg"};

enum {
	ARTIFACT_KERNEL,
	ARTIFACT_INITRD,
	ARTIFACT_STAGE2,
	ARTIFACT_LIVEIMG
};

/* @key of @options: an int in @min..@max, @fallback when absent */
static gboolean
option_int(JsonObject *options, const gchar *key, gint64 fallback, gint64 min, gint64 max,
	   gint64 *out, GError **error)
{
	*out = fallback;
	if (json_object_has_member(options, key) && !gnt_json_get_int(options, key, out, error))
		return FALSE;
	if (*out < min || *out > max) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "'%s' must be %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT, key, min,
			    max);
		return FALSE;
	}
	return TRUE;
}

/* A string member that may be null or absent */
static gboolean
option_string(JsonObject *options, const gchar *key, const gchar **out, GError **error)
{
	JsonNode *member = json_object_get_member(options, key);

	*out = NULL;
	if (member == NULL || JSON_NODE_HOLDS_NULL(member))
		return TRUE;
	return gnt_json_get_string(options, key, out, error);
}

static gboolean
parse_options(JsonObject *options, Options *out, GError **error)
{
	JsonNode *member = NULL;

	memset(out, 0, sizeof(*out));
	member = json_object_get_member(options, "record");
	if (member != NULL && !JSON_NODE_HOLDS_NULL(member) &&
	    !gnt_json_get_object(options, "record", &out->record, error))
		goto bad;
	if (!gnt_json_get_string(options, "kickstart", &out->kickstart, error) ||
	    !gnt_json_get_string(options, "agent_token", &out->agent_token, error) ||
	    !option_string(options, "liveimg_name", &out->liveimg_name, error) ||
	    !option_string(options, "kernel_args", &out->kernel_args, error) ||
	    !option_string(options, "package_url", &out->package_url, error) ||
	    !option_string(options, "package_username", &out->package_username, error) ||
	    !option_string(options, "package_password", &out->package_password, error))
		goto bad;
	for (guint i = 0; i < G_N_ELEMENTS(artifact_names); i++) {
		member = json_object_get_member(options, artifact_names[i]);
		if ((member == NULL || JSON_NODE_HOLDS_NULL(member)) && i >= ARTIFACT_STAGE2)
			continue;
		if (!gnt_json_get_object(options, artifact_names[i], &out->artifacts[i], error))
			goto bad;
	}
	if (!option_int(options, "memory", GNT_INSTALLER_MEMORY_MIB, 256, 1048576, &out->memory_mib,
			error) ||
	    !option_int(options, "timeout_start", GNT_INSTALLER_TIMEOUT_START_S, 1, INSTALLER_MAX_S,
			&out->timeout_start_s, error) ||
	    !option_int(options, "timeout_end", GNT_INSTALLER_TIMEOUT_END_S, 1, INSTALLER_MAX_S,
			&out->timeout_end_s, error) ||
	    !option_int(options, "grace", GNT_INSTALLER_GRACE_S, 0, 3600, &out->grace_s, error) ||
	    !option_int(options, "cache_bytes", 0, 0, G_MAXINT64, &out->cache_bytes, error))
		goto bad;
	if (out->artifacts[ARTIFACT_LIVEIMG] != NULL && out->liveimg_name == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "'liveimg_name' is needed with a liveimg");
		goto bad;
	}
	return TRUE;
bad:
	g_prefix_error(error, "options: ");
	return FALSE;
}

/* --- one run ------------------------------------------------------------- */

/* What a run made and teardown undoes. */
typedef struct {
	GntRpcNode *node;
	const gchar *name;
	gchar *control;
	gboolean keep_record; /* communication=yes: the instance's own record */
	gboolean record_pushed;
	gboolean channel_open;
	gboolean session_given;
	gboolean package_given;
	GntArtifact *artifacts[4];
	gchar *work_dir;
} Run;

static void
run_teardown(Run *run)
{
	g_autoptr(GError) local_error = NULL;

	if (run->session_given &&
	    !gnt_metad_client_remove_install(run->control, run->name, &local_error)) {
		g_warning("installer of instance '%s': %s", run->name, local_error->message);
		g_clear_error(&local_error);
	}
	/* the package goes with the session (a kept record keeps no package) */
	if (run->package_given &&
	    !gnt_metad_client_remove_package(run->control, run->name, &local_error)) {
		g_warning("installer of instance '%s': %s", run->name, local_error->message);
		g_clear_error(&local_error);
	}
	if (run->channel_open)
		gnt_rpc_node_channel_close(run->node, run->name);
	if (run->record_pushed && !run->keep_record &&
	    !gnt_metad_client_remove(run->control, run->name, &local_error) &&
	    !g_error_matches(local_error, GNT_ERROR, GNT_ERROR_NOT_FOUND)) {
		g_warning("installer of instance '%s': %s", run->name, local_error->message);
		g_clear_error(&local_error);
	}
	for (guint i = 0; i < G_N_ELEMENTS(run->artifacts); i++)
		g_clear_pointer(&run->artifacts[i], gnt_artifact_release);
	if (run->work_dir != NULL) {
		g_autofree gchar *parent = g_path_get_dirname(run->work_dir);

		(void)gnt_rpc_node_remove_flat_dir(run->work_dir, NULL);
		(void)g_rmdir(parent); /* when it was the last run */
	}
	g_free(run->work_dir);
	g_free(run->control);
}

void
gnt_rpc_node_installer_recover(GntRpcNode *node)
{
	g_autofree gchar *dir =
		g_build_filename(gnt_paths_get_run_dir(node->paths), INSTALLER_WORK_DIR, NULL);
	g_autoptr(GPtrArray) left = gnt_noded_session_find_left(dir);

	for (guint i = 0; i < left->len; i++) {
		GntNodedSessionLeft *found = g_ptr_array_index(left, i);
		Run run = {.node = node,
			   .name = found->name,
			   .control = gnt_metad_dup_control_socket(node->paths),
			   .keep_record = found->keep_record,
			   .record_pushed = TRUE,
			   .channel_open = TRUE,
			   .session_given = TRUE,
			   .work_dir = g_strdup(found->work_dir)};

		g_message("installer of instance '%s': removing what a killed noded left",
			  found->name);
		gnt_noded_session_destroy_domain(node, found);
		run_teardown(&run);
	}
}

/* The path on the node of artifact @i: a path as it is, an http(s) URL
 * through the artifact cache (it stays there, in use, until teardown). */
static const gchar *
resolve_artifact(Run *run, const Options *options, guint i, GError **error)
{
	JsonObject *artifact = options->artifacts[i];
	const gchar *url = NULL;
	const gchar *sha256 = NULL;

	if (!gnt_json_get_string(artifact, "url", &url, error) ||
	    !option_string(artifact, "sha256", &sha256, error)) {
		g_prefix_error(error, "options: '%s': ", artifact_names[i]);
		return NULL;
	}
	if (g_path_is_absolute(url)) {
		if (!g_file_test(url, G_FILE_TEST_IS_REGULAR)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND,
				    "installer %s '%s' is not a file on this node",
				    artifact_names[i], url);
			return NULL;
		}
		return url;
	}
	if (sha256 == NULL || options->cache_bytes == 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "installer %s '%s': a URL needs its SHA-256 and the artifact cache "
			    "(image_cache_size above 0); else give a path on the node",
			    artifact_names[i], url);
		return NULL;
	}
	{
		GntArtifactCache *cache =
			gnt_noded_get_artifact_cache(gnt_paths_get_data_dir(run->node->paths));
		GntArtifactFetchOptions fetch = {.max_bytes = (guint64)options->cache_bytes};

		run->artifacts[i] = gnt_artifact_cache_fetch(cache, url, sha256, &fetch, error);
		if (run->artifacts[i] == NULL) {
			g_prefix_error(error, "installer %s '%s': ", artifact_names[i], url);
			return NULL;
		}
		return gnt_artifact_get_path(run->artifacts[i]);
	}
}

/* The installer's domain: the instance's disks, firmware and accel, the
 * catalog's kernel and initrd, the channel as its only network. */
static GntHvAppliance *
build_installer(Run *run, GntRpcNodeSpec *spec, const Options *options, GntHvChannelNic *channel,
		const gchar *ip, const gchar *const *paths, GError **error)
{
	g_autoptr(GntHvAppliance) app = gnt_hv_appliance_new(spec->name);
	g_autoptr(GPtrArray) disks = gnt_rpc_node_spec_dup_disk_paths(spec, error);
	const gchar *value = NULL;

	if (disks == NULL)
		return NULL;
	for (guint i = 0; i < disks->len; i++) {
		GntDiskFormat format =
			gnt_disk_store_get_format(spec->store, g_ptr_array_index(spec->disks, i));

		gnt_hv_appliance_add_disk(app, gnt_hv_disk_new(g_ptr_array_index(disks, i),
							       format == GNT_DISK_FORMAT_QCOW2
								       ? GNT_HV_DISK_FORMAT_QCOW2
								       : GNT_HV_DISK_FORMAT_RAW));
	}
	if (gnt_json_get_string(spec->hvparams, "accel", &value, NULL)) {
		g_free(app->accel);
		app->accel = g_strdup(value);
	}
	/* the instance's firmware and UEFI variables: the installer's boot
	 * entries are the instance's */
	if (gnt_json_get_string(spec->hvparams, "firmware", &value, NULL)) {
		g_free(app->firmware);
		app->firmware = g_strdup(value);
	}
	app->state_dir = gnt_rpc_node_dup_instance_state_dir(run->node, spec, error);
	if (app->state_dir == NULL)
		return NULL;
	app->memory_mib = (guint64)options->memory_mib;
	app->kernel = g_strdup(paths[ARTIFACT_KERNEL]);
	app->initrd = g_strdup(paths[ARTIFACT_INITRD]);
	app->cmdline =
		gnt_installer_dup_cmdline(ip, paths[ARTIFACT_STAGE2] != NULL, options->kernel_args);
	app->channel = gnt_hv_channel_nic_copy(channel);
	app->ip = g_strdup(ip);
	app->console_log = g_build_filename(run->work_dir, "console.log", NULL);
	/* the clocks below decide; this only bounds a run whose noded
	 * stopped watching */
	app->timeout_s = (guint)MIN(options->timeout_start_s + options->timeout_end_s +
					    options->grace_s + 60,
				    G_MAXUINT);
	if (g_str_equal(spec->hypervisor, "fake")) {
		value = g_getenv(FAKE_INSTALLER_ENV);
		if (value == NULL || *value == '\0') {
			g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
				    "the fake hypervisor runs the installer named by %s, which is "
				    "not set",
				    FAKE_INSTALLER_ENV);
			return NULL;
		}
		app->agent = g_strdup(value);
	}
	return g_steal_pointer(&app);
}

/* The domain's run, in a thread of its own while the caller watches the
 * clocks. */
typedef struct {
	GntHypervisor *hv;
	GntHvAppliance *app;
	GCancellable *cancellable;
	gchar *console_tail;
	GError *error;
	gboolean ok;
	gint done; /* atomic */
} Domain;

static gpointer
domain_thread(gpointer data)
{
	Domain *domain = data;

	domain->ok = gnt_hypervisor_run_appliance(domain->hv, domain->app, domain->cancellable,
						  &domain->console_tail, &domain->error);
	g_atomic_int_set(&domain->done, 1);
	return NULL;
}

/* Where the installer is, by its callbacks. */
typedef struct {
	const gchar *state; /* metad's: waiting, started, ended, failed (borrowed) */
	gchar *error_message;
	JsonArray *events; /* all of them, in order */
	guint64 next;
	GntNodedSession *session; /* told of each event at once */
} Watch;

/* Takes the events of metad's answer @answer. */
static void
watch_take(Watch *watch, JsonObject *answer)
{
	JsonArray *events = NULL;
	const gchar *state = NULL;
	gint64 next = 0;

	if (gnt_json_get_string(answer, "state", &state, NULL)) {
		static const gchar *const states[] = {"waiting", "started", "ended", "failed",
						      NULL};

		for (guint i = 0; states[i] != NULL; i++) {
			if (g_str_equal(states[i], state))
				watch->state = states[i];
		}
	}
	if (gnt_json_get_int(answer, "next", &next, NULL) && next > 0)
		watch->next = (guint64)next;
	if (!gnt_json_get_array(answer, "events", &events, NULL))
		return;
	if (watch->session != NULL)
		gnt_noded_session_publish(watch->session, events);
	for (guint i = 0; i < json_array_get_length(events); i++) {
		JsonObject *event = json_array_get_object_element(events, i);
		const gchar *status = NULL;
		const gchar *message = NULL;

		if (event == NULL)
			continue;
		json_array_add_object_element(watch->events, json_object_ref(event));
		if (gnt_json_get_string(event, "status", &status, NULL) &&
		    g_str_equal(status, "error") &&
		    gnt_json_get_string(event, "message", &message, NULL)) {
			g_free(watch->error_message);
			watch->error_message = g_strdup(message);
		}
	}
}

/* One long poll of metad (up to @wait_s); FALSE when metad cannot say. */
static gboolean
watch_poll(Watch *watch, const gchar *control, const gchar *name, guint wait_s)
{
	g_autoptr(GError) local_error = NULL;
	g_autoptr(JsonNode) answer =
		gnt_metad_client_get_install(control, name, watch->next, wait_s, &local_error);

	if (answer == NULL || !JSON_NODE_HOLDS_OBJECT(answer)) {
		/* no session: the run's teardown went first (a status poll
		 * racing it), nothing to warn about */
		if (g_error_matches(local_error, GNT_ERROR, GNT_ERROR_NOT_FOUND))
			g_debug("installer of instance '%s': %s", name, local_error->message);
		else
			g_warning("installer of instance '%s': %s", name,
				  local_error != NULL ? local_error->message
						      : "a malformed answer");
		return FALSE;
	}
	watch_take(watch, json_node_get_object(answer));
	return TRUE;
}

/* Boots the installer and follows it to its end: the clocks, the grace
 * after end or error. @why_cancelled set when a clock ran out. */
static void
follow_installer(Domain *domain, Watch *watch, const Options *options, const gchar *control,
		 const gchar *name, gchar **why_cancelled)
{
	g_autoptr(GThread) thread = NULL;
	const gchar *phase = "waiting";
	guint seen = 0;
	gint64 deadline = g_get_monotonic_time() + options->timeout_start_s * G_USEC_PER_SEC;

	thread = g_thread_new("gnt-installer", domain_thread, domain);
	while (!g_atomic_int_get(&domain->done)) {
		gint64 now = 0;

		if (!watch_poll(watch, control, name, POLL_WAIT_S))
			g_usleep(G_USEC_PER_SEC / 4);
		now = g_get_monotonic_time();
		/* start (again) resets the clock; end and error leave the
		 * installer the grace period to power off */
		for (; seen < json_array_get_length(watch->events); seen++) {
			JsonObject *event = json_array_get_object_element(watch->events, seen);
			const gchar *status = NULL;

			if (event == NULL || !gnt_json_get_string(event, "status", &status, NULL) ||
			    g_str_equal(phase, "ended") || g_str_equal(phase, "failed"))
				continue;
			if (g_str_equal(status, "start")) {
				phase = "started";
				deadline = now + options->timeout_end_s * G_USEC_PER_SEC;
			} else if (g_str_equal(status, "end") || g_str_equal(status, "error")) {
				phase = g_str_equal(status, "end") ? "ended" : "failed";
				deadline = now + options->grace_s * G_USEC_PER_SEC;
			}
		}
		if (now >= deadline && *why_cancelled == NULL &&
		    !g_cancellable_is_cancelled(domain->cancellable)) {
			if (g_str_equal(phase, "waiting"))
				*why_cancelled = g_strdup_printf(
					"the installer did not report start within %" G_GINT64_FORMAT
					" s",
					options->timeout_start_s);
			else if (g_str_equal(phase, "started"))
				*why_cancelled = g_strdup_printf(
					"the installer did not report end within %" G_GINT64_FORMAT
					" s of start",
					options->timeout_end_s);
			else
				g_info("installer of instance '%s': not powered off %" G_GINT64_FORMAT
				       " s after %s: destroyed",
				       name, options->grace_s,
				       g_str_equal(phase, "ended") ? "end" : "error");
			g_cancellable_cancel(domain->cancellable);
		}
	}
	g_thread_join(g_steal_pointer(&thread));
	/* what came just before the power-off */
	(void)watch_poll(watch, control, name, 0);
}

static JsonNode *
result_to_json(gdouble seconds, JsonArray *events, const gchar *console_tail)
{
	JsonObject *obj = json_object_new();

	json_object_set_member(obj, "seconds", gnt_json_node_new_double(seconds));
	json_object_set_member(obj, "events", gnt_json_node_new_array(json_array_ref(events)));
	json_object_set_member(obj, "console_tail", gnt_json_node_new_string(console_tail));
	return gnt_json_node_new_object(obj);
}

/* The session metad serves: the kickstart and the files by path. */
static JsonObject *
session_spec(const Options *options, const gchar *const *paths)
{
	JsonObject *spec = json_object_new();

	json_object_set_string_member(spec, "token", options->agent_token);
	json_object_set_string_member(spec, "kickstart", options->kickstart);
	if (paths[ARTIFACT_STAGE2] != NULL)
		json_object_set_string_member(spec, "stage2", paths[ARTIFACT_STAGE2]);
	if (paths[ARTIFACT_LIVEIMG] != NULL) {
		json_object_set_string_member(spec, "liveimg", paths[ARTIFACT_LIVEIMG]);
		json_object_set_string_member(spec, "liveimg_name", options->liveimg_name);
	}
	return spec;
}

static JsonNode *
run_installer(Run *run, GntRpcNodeSpec *spec, Options *options, GntNodedSession *install,
	      GError **error)
{
	g_autoptr(GntHypervisor) hv = NULL;
	g_autoptr(GntHvChannelNic) channel = NULL;
	g_autoptr(GntHvAppliance) app = NULL;
	g_autoptr(JsonObject) session = NULL;
	g_autoptr(JsonObject) own_record = NULL;
	JsonObject *record = NULL;
	GCancellable *cancellable = gnt_noded_session_get_cancellable(install);
	g_autofree gchar *why_cancelled = NULL;
	const gchar *paths[4] = {NULL};
	const gchar *mac = spec->instance->communication_mac;
	const gchar *ip = spec->instance->communication_ip;
	gint64 started = g_get_monotonic_time();
	Domain domain = {0};
	Watch watch = {.events = json_array_new(), .session = install};
	g_autoptr(JsonArray) events = watch.events;
	const gchar *tail = NULL;
	JsonNode *result = NULL;

	if (mac == NULL || ip == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "instance '%s': a kickstart install needs the communication NIC "
			    "('communication_nic')",
			    spec->name);
		return NULL;
	}
	hv = gnt_rpc_node_get_hypervisor(run->node, spec->hypervisor, error);
	if (hv == NULL)
		return NULL;
	for (guint i = 0; i < G_N_ELEMENTS(paths); i++) {
		if (options->artifacts[i] != NULL &&
		    (paths[i] = resolve_artifact(run, options, i, error)) == NULL)
			return NULL;
	}
	run->work_dir = g_build_filename(gnt_paths_get_run_dir(run->node->paths),
					 INSTALLER_WORK_DIR, spec->name, NULL);
	if (!gnt_noded_session_write_state(run->work_dir, spec->hypervisor, run->keep_record,
					   error))
		return NULL;
	/* the instance's record (its own metadata with communication=yes),
	 * else only its name: the channel needs metad to know it */
	record = options->record;
	if (record == NULL)
		record = own_record = json_object_new();
	json_object_set_string_member(record, "name", spec->name);
	if (!gnt_metad_client_push(run->control, spec->name, record, error))
		return NULL;
	run->record_pushed = TRUE;
	/* the personalization package, which the kickstart's %post fetches
	 * with the token (doc/kickstart.md) */
	if (options->package_url != NULL) {
		gboolean given = gnt_rpc_node_metad_give_package(run->control, spec->name,
								 options->package_url,
								 options->package_username,
								 options->package_password, error);

		run->package_given = TRUE;
		/* the password was for this fetch only */
		if (options->package_password != NULL)
			gnt_secret_wipe_string((gchar *)options->package_password);
		if (!given)
			return NULL;
	}
	channel =
		gnt_rpc_node_channel_open(run->node, spec->hypervisor, spec->name, mac, ip, error);
	if (channel == NULL)
		return NULL;
	run->channel_open = TRUE;
	session = session_spec(options, paths);
	run->session_given = TRUE;
	if (!gnt_metad_client_put_install(run->control, spec->name, session, error))
		return NULL;
	app = build_installer(run, spec, options, channel, ip, paths, error);
	if (app == NULL)
		return NULL;
	g_info("installer of instance '%s' starting (%s, %" G_GINT64_FORMAT
	       " MiB, clocks %" G_GINT64_FORMAT " s to start, %" G_GINT64_FORMAT " s to end)",
	       spec->name, channel->tap != NULL ? channel->tap : "unix socket", options->memory_mib,
	       options->timeout_start_s, options->timeout_end_s);
	domain.hv = hv;
	domain.app = app;
	domain.cancellable = cancellable;
	follow_installer(&domain, &watch, options, run->control, spec->name, &why_cancelled);
	tail = domain.console_tail != NULL && *domain.console_tail != '\0' ? domain.console_tail
									   : "(nothing)";
	if (why_cancelled != NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "installer of instance '%s': %s; its console ended with: %s",
			    spec->name, why_cancelled, tail);
	} else if (g_strcmp0(watch.state, "failed") == 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "installer of instance '%s' reported an error: %s; its console "
			    "ended with: %s",
			    spec->name,
			    watch.error_message != NULL && *watch.error_message != '\0'
				    ? watch.error_message
				    : "(no message)",
			    tail);
	} else if (g_strcmp0(watch.state, "ended") == 0) {
		/* its work is done, whether it powered off or was destroyed */
		result = result_to_json(
			(gdouble)(g_get_monotonic_time() - started) / G_USEC_PER_SEC, events,
			domain.console_tail != NULL ? domain.console_tail : "");
	} else if (!domain.ok && domain.error != NULL) {
		g_propagate_prefixed_error(error, g_steal_pointer(&domain.error),
					   "installer of instance '%s': ", spec->name);
	} else {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "installer of instance '%s' powered off without reporting end; its "
			    "console ended with: %s",
			    spec->name, tail);
	}
	if (result != NULL)
		g_info("installer of instance '%s' done in %.1f s", spec->name,
		       (gdouble)(g_get_monotonic_time() - started) / G_USEC_PER_SEC);
	g_clear_error(&domain.error);
	g_free(domain.console_tail);
	g_free(watch.error_message);
	/* the session held the token and the kickstart */
	gnt_secret_wipe_string((gchar *)json_object_get_string_member(session, "token"));
	gnt_secret_wipe_string((gchar *)json_object_get_string_member(session, "kickstart"));
	return result;
}

/* One kickstart install session: what its thread holds. */
typedef struct {
	GntRpcNode *node;
	JsonArray *request; /* the spec points into it */
	/* the options, deep-copied: noded wipes the request's once the
	 * start has answered; the session wipes its copy (the token, the
	 * kickstart) at its end */
	JsonObject *options_copy;
	GntRpcNodeSpec *spec;
	Options options;
} InstallerSession;

static void
installer_session_free(gpointer data)
{
	InstallerSession *self = data;

	if (self->options_copy != NULL) {
		g_autoptr(JsonNode) options = gnt_json_node_new_object(self->options_copy);

		gnt_json_node_wipe_strings(options);
	}
	g_clear_pointer(&self->spec, gnt_rpc_node_spec_free);
	json_array_unref(self->request);
	g_free(self);
}

static JsonNode *
installer_session_body(GntNodedSession *session, gpointer data, GError **error)
{
	InstallerSession *self = data;
	Run run = {.node = self->node,
		   .name = self->spec->name,
		   .control = gnt_metad_dup_control_socket(self->node->paths),
		   .keep_record = self->spec->instance->communication};
	JsonNode *result = run_installer(&run, self->spec, &self->options, session, error);

	run_teardown(&run);
	return result;
}

static JsonNode *
installer_start_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	InstallerSession *self = g_new0(InstallerSession, 1);
	const gchar *token = gnt_rpc_args_get_string(args, "token");

	self->node = user_data;
	self->request = json_array_ref(gnt_rpc_args_get_array(args));
	self->options_copy = gnt_json_object_deep_copy(gnt_rpc_args_get_object(args, "options"));
	if (!gnt_rpc_node_check_name(token, "token", error) ||
	    !parse_options(self->options_copy, &self->options, error) ||
	    (self->spec = gnt_rpc_node_spec_parse(args, error)) == NULL) {
		installer_session_free(self);
		return NULL;
	}
	/* metad's events come to the session as they happen: no fetch */
	if (!gnt_noded_session_start(token, self->spec->name, installer_session_body, NULL, self,
				     installer_session_free, error))
		return NULL;
	return gnt_json_node_new_string(token);
}

const GntRpcProcedure gnt_rpc_node_installer_procedures[] = {
	{"installer_start", installer_start_procedure},
	{NULL},
};
