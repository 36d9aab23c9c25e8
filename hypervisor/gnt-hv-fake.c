/* The fake hypervisor: no VM at all, like Ganeti's. A running instance is a
 * file <state_dir>/<domain name>.json, so the state outlives a daemon
 * restart; a shutdown is instant. For fast tests and benchmarks. */
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "gnt-command.h"
#include "gnt-error.h"
#include "gnt-hv-params.h"
#include "gnt-hypervisor-private.h"
#include "gnt-json.h"

struct _GntHvFake {
	GntHypervisor parent_instance;
	gchar *dir;
	GMutex lock; /* one change at a time within a process */
};

G_DEFINE_FINAL_TYPE(GntHvFake, gnt_hv_fake, GNT_TYPE_HYPERVISOR)

#define FAKE_SUFFIX ".json"

static gchar *
state_path(GntHvFake *self, const gchar *name)
{
	g_autofree gchar *dom = gnt_hypervisor_dup_domain_name(GNT_HYPERVISOR(self), name);
	g_autofree gchar *file = g_strconcat(dom, FAKE_SUFFIX, NULL);

	return g_build_filename(self->dir, file, NULL);
}

static gboolean
write_state(GntHvFake *self, const gchar *name, JsonObject *record, GError **error)
{
	g_autoptr(JsonNode) root = gnt_json_node_new_object(json_object_ref(record));
	g_autofree gchar *data = gnt_json_to_string(root);
	g_autofree gchar *path = state_path(self, name);

	if (!g_file_set_contents_full(path, data, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0640,
				      error)) {
		gnt_error_convert(error);
		g_prefix_error(error, "instance '%s': ", name);
		return FALSE;
	}
	return TRUE;
}

/* The record of a started instance: what it was given, hvparams included,
 * so that tests can compare it with what the master meant to send. */
static JsonObject *
start_record(const GntHvInstance *inst, GHashTable *hvparams, gboolean paused)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();
	g_autoptr(JsonNode) root = NULL;

	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "name");
	json_builder_add_string_value(builder, inst->name);
	json_builder_set_member_name(builder, "uuid");
	json_builder_add_string_value(builder, inst->uuid);
	json_builder_set_member_name(builder, "state");
	json_builder_add_string_value(builder,
				      gnt_hv_state_to_string(paused ? GNT_HV_STATE_PAUSED
								    : GNT_HV_STATE_RUNNING));
	json_builder_set_member_name(builder, "memory_mib");
	json_builder_add_int_value(builder, (gint64)inst->memory_mib);
	json_builder_set_member_name(builder, "vcpus");
	json_builder_add_int_value(builder, inst->vcpus);
	json_builder_set_member_name(builder, "started");
	json_builder_add_int_value(builder, g_get_real_time() / G_USEC_PER_SEC);
	if (inst->console_log != NULL) {
		json_builder_set_member_name(builder, "console_log");
		json_builder_add_string_value(builder, inst->console_log);
	}
	json_builder_set_member_name(builder, "hvparams");
	json_builder_begin_object(builder);
	gnt_hv_params_to_json("fake", hvparams, builder);
	json_builder_end_object(builder);
	json_builder_end_object(builder);
	root = json_builder_get_root(builder);
	return json_object_ref(json_node_get_object(root));
}

/* The stored record of @name; GNT_ERROR_NOT_FOUND when it does not run.
 * @obj_out: the whole record (transfer full). */
static GntHvInfo *
read_state(GntHvFake *self, const gchar *name, JsonObject **obj_out, GError **error)
{
	g_autofree gchar *path = state_path(self, name);
	g_autofree gchar *data = NULL;
	g_autoptr(GError) local = NULL;
	g_autoptr(JsonNode) root = NULL;
	g_autoptr(GntHvInfo) info = gnt_hv_info_new(name, GNT_HV_STATE_RUNNING);
	JsonObject *obj;
	const gchar *state = NULL;
	gint64 memory = 0, vcpus = 0, started = 0;

	if (!g_file_get_contents(path, &data, NULL, &local)) {
		if (g_error_matches(local, G_FILE_ERROR, G_FILE_ERROR_NOENT)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND,
				    "instance '%s' is not running", name);
			return NULL;
		}
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "instance '%s': %s", name,
			    local->message);
		return NULL;
	}
	root = gnt_json_parse(data, -1, error);
	if (root == NULL || !JSON_NODE_HOLDS_OBJECT(root)) {
		g_clear_error(error);
		g_set_error(error, GNT_ERROR, GNT_ERROR_FAULT,
			    "instance '%s': fake hypervisor state '%s' is corrupt", name, path);
		return NULL;
	}
	obj = json_node_get_object(root);
	if (!gnt_json_get_string(obj, "state", &state, error) ||
	    !gnt_json_get_int(obj, "memory_mib", &memory, error) ||
	    !gnt_json_get_int(obj, "vcpus", &vcpus, error) ||
	    !gnt_json_get_int(obj, "started", &started, error)) {
		g_prefix_error(error, "instance '%s': fake hypervisor state '%s': ", name, path);
		return NULL;
	}
	info->state = g_str_equal(state, "paused") ? GNT_HV_STATE_PAUSED : GNT_HV_STATE_RUNNING;
	info->memory_mib = (guint64)MAX(memory, 0);
	info->vcpus = (guint)CLAMP(vcpus, 0, G_MAXUINT);
	info->uptime_s = (guint64)MAX(g_get_real_time() / G_USEC_PER_SEC - started, 0);
	if (obj_out != NULL)
		*obj_out = json_object_ref(obj);
	return g_steal_pointer(&info);
}

static gboolean
remove_state(GntHvFake *self, const gchar *name, GError **error)
{
	g_autofree gchar *path = state_path(self, name);

	if (g_unlink(path) != 0) {
		int errsv = errno;

		if (errsv == ENOENT) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND,
				    "instance '%s' is not running", name);
			return FALSE;
		}
		gnt_error_set_errno(error, errsv, path);
		g_prefix_error(error, "instance '%s': ", name);
		return FALSE;
	}
	return TRUE;
}

static gboolean
fake_start(GntHypervisor *hv, const GntHvInstance *inst, GHashTable *hvparams, gboolean paused,
	   GError **error)
{
	GntHvFake *self = GNT_HV_FAKE(hv);
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->lock);
	g_autofree gchar *path = state_path(self, inst->name);
	g_autoptr(JsonObject) record = NULL;

	if (g_file_test(path, G_FILE_TEST_EXISTS)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_EXISTS, "instance '%s' is already running",
			    inst->name);
		return FALSE;
	}
	if (inst->console_log != NULL) {
		g_autofree gchar *line = g_strdup_printf(
			"gantry fake hypervisor: instance '%s' started\n", inst->name);

		if (!g_file_set_contents(inst->console_log, line, -1, error)) {
			gnt_error_convert(error);
			g_prefix_error(error, "instance '%s': console log: ", inst->name);
			return FALSE;
		}
	}
	record = start_record(inst, hvparams, paused);
	return write_state(self, inst->name, record, error);
}

static gboolean
fake_shutdown(GntHypervisor *hv, const gchar *name, guint timeout_s, gboolean *forced,
	      GError **error)
{
	GntHvFake *self = GNT_HV_FAKE(hv);
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->lock);

	*forced = FALSE; /* a fake guest always obeys the power button */
	return remove_state(self, name, error);
}

static gboolean
fake_destroy(GntHypervisor *hv, const gchar *name, GError **error)
{
	GntHvFake *self = GNT_HV_FAKE(hv);
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->lock);

	return remove_state(self, name, error);
}

static gboolean
fake_reboot_soft(GntHypervisor *hv, const gchar *name, GError **error)
{
	GntHvFake *self = GNT_HV_FAKE(hv);
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->lock);
	g_autoptr(GntHvInfo) info = read_state(self, name, NULL, error);

	return info != NULL;
}

static gboolean
fake_resume(GntHypervisor *hv, const gchar *name, GError **error)
{
	GntHvFake *self = GNT_HV_FAKE(hv);
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->lock);
	g_autoptr(JsonObject) obj = NULL;
	g_autoptr(GntHvInfo) info = read_state(self, name, &obj, error);

	if (info == NULL)
		return FALSE;
	if (info->state != GNT_HV_STATE_PAUSED) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE, "instance '%s' is not paused",
			    name);
		return FALSE;
	}
	json_object_set_string_member(obj, "state", gnt_hv_state_to_string(GNT_HV_STATE_RUNNING));
	return write_state(self, name, obj, error);
}

static GntHvInfo *
fake_get_info(GntHypervisor *hv, const gchar *name, GError **error)
{
	GntHvFake *self = GNT_HV_FAKE(hv);
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->lock);

	return read_state(self, name, NULL, error);
}

static GPtrArray *
fake_list(GntHypervisor *hv, GError **error)
{
	GntHvFake *self = GNT_HV_FAKE(hv);
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->lock);
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GDir) dir = g_dir_open(self->dir, 0, error);
	const gchar *entry;

	if (dir == NULL) {
		gnt_error_convert(error);
		g_prefix_error(error, "listing fake instances: ");
		return NULL;
	}
	while ((entry = g_dir_read_name(dir)) != NULL) {
		const gchar *name = gnt_hypervisor_strip_prefix(hv, entry);

		if (name != NULL && g_str_has_suffix(name, FAKE_SUFFIX) &&
		    strlen(name) > strlen(FAKE_SUFFIX))
			g_ptr_array_add(names, g_strndup(name, strlen(name) - strlen(FAKE_SUFFIX)));
	}
	return g_steal_pointer(&names);
}

static GntHvConsole *
fake_get_console(GntHypervisor *hv, const gchar *name, GError **error)
{
	GntHvFake *self = GNT_HV_FAKE(hv);
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->lock);
	g_autoptr(JsonObject) obj = NULL;
	g_autoptr(GntHvInfo) info = read_state(self, name, &obj, error);
	g_autoptr(GntHvConsole) console = NULL;
	const gchar *log = NULL;

	if (info == NULL)
		return NULL;
	console = gnt_hv_console_new(name);
	if (json_object_has_member(obj, "console_log") &&
	    !gnt_json_get_string(obj, "console_log", &log, error))
		return NULL;
	console->log = g_strdup(log);
	return g_steal_pointer(&console);
}

/* --- the install appliance: the agent as a host process ---------------- */

static gboolean
fake_run_appliance(GntHypervisor *hv, const GntHvAppliance *app, GCancellable *cancellable,
		   GError **error)
{
	g_autoptr(GntCommand) cmd = NULL;
	g_autoptr(GString) disks = g_string_new(NULL);
	int console_fd;
	gboolean started;

	for (guint i = 0; i < app->disks->len; i++) {
		const GntHvDisk *disk = app->disks->pdata[i];

		g_string_append_printf(disks, "%s%s", i > 0 ? " " : "", disk->path);
	}
	if (g_file_test(app->agent, G_FILE_TEST_IS_EXECUTABLE)) {
		cmd = gnt_command_new(app->agent);
	} else {
		cmd = gnt_command_new("/bin/sh");
		gnt_command_add_arg(cmd, app->agent);
	}
	/* what the agent needs and nothing of noded's own environment; no
	 * input: the agent reads metad, never its stdin */
	gnt_command_setenv(cmd, "GANTRY_METAD_SOCKET", app->channel->socket);
	gnt_command_setenv(cmd, "GANTRY_DISKS", disks->str);
	if (app->debug)
		gnt_command_setenv(cmd, "GANTRY_DEBUG", "1");
	if (app->cmdline != NULL)
		gnt_command_setenv(cmd, "GANTRY_CMDLINE", app->cmdline);
	if (g_strcmp0(g_getenv(GNT_HV_APPLIANCE_TEST_STEPS_ENV), "1") == 0)
		gnt_command_setenv(cmd, GNT_HV_APPLIANCE_TEST_STEPS_ENV, "1");
	if (app->boot_token != NULL)
		gnt_command_setenv(cmd, "GANTRY_BOOT_TOKEN", app->boot_token);
	console_fd = open(app->console_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (console_fd < 0) {
		int errsv = errno;
		g_autofree gchar *what =
			g_strdup_printf("opening the console log '%s'", app->console_log);

		gnt_error_set_errno(error, errsv, what);
		g_prefix_error(error, "install appliance of instance '%s': ", app->name);
		return FALSE;
	}
	/* the console: stdout and stderr */
	gnt_command_set_stdout_fd(cmd, console_fd);
	gnt_command_set_stderr_fd(cmd, console_fd);
	gnt_command_set_timeout(cmd, app->timeout_s);
	gnt_command_set_cancellable(cmd, cancellable);
	started = gnt_command_spawn(cmd, error);
	(void)close(console_fd);
	if (!started) {
		g_prefix_error(error, "install appliance of instance '%s': agent '%s': ", app->name,
			       app->agent);
		return FALSE;
	}
	g_info("install appliance of instance '%s': agent '%s' runs as process %d", app->name,
	       app->agent, (gint)gnt_command_get_pid(cmd));
	/* whatever the agent left behind goes with it */
	gnt_command_wait(cmd);
	switch (gnt_command_get_end(cmd)) {
	case GNT_COMMAND_END_TIMED_OUT:
		gnt_hv_appliance_set_timeout_error(app, error);
		return FALSE;
	case GNT_COMMAND_END_CANCELLED:
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "install appliance of instance '%s': cancelled", app->name);
		return FALSE;
	case GNT_COMMAND_END_NONE:
	case GNT_COMMAND_END_EXITED:
	case GNT_COMMAND_END_SIGNALED:
		break;
	}
	g_info("install appliance of instance '%s': agent ended (status %d)", app->name,
	       gnt_command_get_exit_status(cmd));
	return TRUE;
}

static void
gnt_hv_fake_finalize(GObject *object)
{
	GntHvFake *self = GNT_HV_FAKE(object);

	g_free(self->dir);
	g_mutex_clear(&self->lock);
	G_OBJECT_CLASS(gnt_hv_fake_parent_class)->finalize(object);
}

static void
gnt_hv_fake_class_init(GntHvFakeClass *klass)
{
	GntHypervisorClass *hv_class = GNT_HYPERVISOR_CLASS(klass);

	G_OBJECT_CLASS(klass)->finalize = gnt_hv_fake_finalize;
	hv_class->start = fake_start;
	hv_class->shutdown = fake_shutdown;
	hv_class->reboot_soft = fake_reboot_soft;
	hv_class->destroy = fake_destroy;
	hv_class->resume = fake_resume;
	hv_class->get_info = fake_get_info;
	hv_class->list = fake_list;
	hv_class->get_console = fake_get_console;
	hv_class->run_appliance = fake_run_appliance;
}

static void
gnt_hv_fake_init(GntHvFake *self)
{
	g_mutex_init(&self->lock);
}

GntHypervisor *
gnt_hv_fake_new(const gchar *state_dir, const gchar *prefix, GError **error)
{
	g_autoptr(GntHvFake) self = NULL;

	if (state_dir == NULL || !g_path_is_absolute(state_dir)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "the fake hypervisor needs an absolute state directory, not '%s'",
			    state_dir ? state_dir : "");
		return NULL;
	}
	if (g_mkdir_with_parents(state_dir, 0750) != 0) {
		gnt_error_set_errno(error, errno, state_dir);
		g_prefix_error(error, "fake hypervisor state: ");
		return NULL;
	}
	self = g_object_new(GNT_TYPE_HV_FAKE, NULL);
	gnt_hypervisor_set_identity(GNT_HYPERVISOR(self), "fake", prefix);
	self->dir = g_strdup(state_dir);
	return GNT_HYPERVISOR(g_steal_pointer(&self));
}
