#include "gnt-hypervisor.h"

#include <errno.h>
#include <string.h>

#include "gnt-device-enums.h"
#include "gnt-enum.h"
#include "gnt-error.h"
#include "gnt-hypervisor-private.h"
#include "gnt-net.h"

/* --- enum strings ------------------------------------------------------- */

/* Disk formats and NIC modes: the hypervisors know a prefix of the records'
 * enumerations (no openvswitch), under the same names. */
G_STATIC_ASSERT((gint)GNT_HV_DISK_FORMAT_RAW == (gint)GNT_DISK_FORMAT_RAW &&
		(gint)GNT_HV_DISK_FORMAT_QCOW2 == (gint)GNT_DISK_FORMAT_QCOW2 &&
		(gint)GNT_HV_DISK_FORMAT_LAST <= (gint)GNT_DISK_FORMAT_LAST);
G_STATIC_ASSERT((gint)GNT_HV_NIC_MODE_BRIDGED == (gint)GNT_NIC_MODE_BRIDGED &&
		(gint)GNT_HV_NIC_MODE_ROUTED == (gint)GNT_NIC_MODE_ROUTED &&
		(gint)GNT_HV_NIC_MODE_LAST <= (gint)GNT_NIC_MODE_LAST);
static const gchar *const disk_bus_names[] = {"default", "virtio", "ide", "scsi", "sata"};
G_STATIC_ASSERT(G_N_ELEMENTS(disk_bus_names) == GNT_HV_DISK_BUS_LAST);
static const gchar *const reboot_names[] = {"soft", "hard", "full"};
G_STATIC_ASSERT(G_N_ELEMENTS(reboot_names) == GNT_HV_REBOOT_LAST);

GNT_DEFINE_ENUM_STRINGS_N(GntHvDiskFormat, gnt_hv_disk_format, gnt_disk_format_names,
			  GNT_HV_DISK_FORMAT_LAST, "disk format")
GNT_DEFINE_ENUM_STRINGS(GntHvDiskBus, gnt_hv_disk_bus, disk_bus_names, "disk bus")
GNT_DEFINE_ENUM_STRINGS_N(GntHvNicMode, gnt_hv_nic_mode, gnt_nic_mode_names, GNT_HV_NIC_MODE_LAST,
			  "nic mode")

gboolean
gnt_hv_reboot_type_from_string(const gchar *str, GntHvRebootType *out, GError **error)
{
	guint v = 0;

	if (!gnt_enum_from_string(reboot_names, G_N_ELEMENTS(reboot_names), "reboot type", str, &v,
				  error))
		return FALSE;
	*out = (GntHvRebootType)v;
	return TRUE;
}

/* --- records ------------------------------------------------------------ */

GntHvDisk *
gnt_hv_disk_new(const gchar *path, GntHvDiskFormat format)
{
	GntHvDisk *self = g_new0(GntHvDisk, 1);

	self->path = g_strdup(path);
	self->format = format;
	return self;
}

GntHvDisk *
gnt_hv_disk_copy(const GntHvDisk *self)
{
	GntHvDisk *copy;

	g_return_val_if_fail(self != NULL, NULL);
	copy = gnt_hv_disk_new(self->path, self->format);
	copy->read_only = self->read_only;
	copy->bus = self->bus;
	return copy;
}

void
gnt_hv_disk_free(GntHvDisk *self)
{
	if (self == NULL)
		return;
	g_free(self->path);
	g_free(self);
}

GntHvNic *
gnt_hv_nic_new(const gchar *mac, GntHvNicMode mode, const gchar *link)
{
	GntHvNic *self = g_new0(GntHvNic, 1);

	self->mac = g_strdup(mac);
	self->mode = mode;
	self->link = g_strdup(link);
	return self;
}

GntHvNic *
gnt_hv_nic_copy(const GntHvNic *self)
{
	g_return_val_if_fail(self != NULL, NULL);
	return gnt_hv_nic_new(self->mac, self->mode, self->link);
}

void
gnt_hv_nic_free(GntHvNic *self)
{
	if (self == NULL)
		return;
	g_free(self->mac);
	g_free(self->link);
	g_free(self);
}

GntHvChannelNic *
gnt_hv_channel_nic_new(const gchar *mac, const gchar *tap, const gchar *socket)
{
	GntHvChannelNic *self = g_new0(GntHvChannelNic, 1);

	self->mac = g_strdup(mac);
	self->tap = g_strdup(tap);
	self->socket = g_strdup(socket);
	return self;
}

GntHvChannelNic *
gnt_hv_channel_nic_copy(const GntHvChannelNic *self)
{
	g_return_val_if_fail(self != NULL, NULL);
	return gnt_hv_channel_nic_new(self->mac, self->tap, self->socket);
}

void
gnt_hv_channel_nic_free(GntHvChannelNic *self)
{
	if (self == NULL)
		return;
	g_free(self->mac);
	g_free(self->tap);
	g_free(self->socket);
	g_free(self);
}

GntHvInstance *
gnt_hv_instance_new(const gchar *name, const gchar *uuid)
{
	GntHvInstance *self = g_new0(GntHvInstance, 1);

	self->name = g_strdup(name);
	self->uuid = g_strdup(uuid);
	self->memory_mib = 128;
	self->vcpus = 1;
	self->disks = g_ptr_array_new_with_free_func((GDestroyNotify)gnt_hv_disk_free);
	self->nics = g_ptr_array_new_with_free_func((GDestroyNotify)gnt_hv_nic_free);
	self->hvparams = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	return self;
}

GntHvInstance *
gnt_hv_instance_copy(const GntHvInstance *self)
{
	GntHvInstance *copy;
	GHashTableIter iter;
	gpointer key, value;

	g_return_val_if_fail(self != NULL, NULL);
	copy = gnt_hv_instance_new(self->name, self->uuid);
	copy->memory_mib = self->memory_mib;
	copy->vcpus = self->vcpus;
	for (guint i = 0; i < self->disks->len; i++)
		g_ptr_array_add(copy->disks, gnt_hv_disk_copy(self->disks->pdata[i]));
	for (guint i = 0; i < self->nics->len; i++)
		g_ptr_array_add(copy->nics, gnt_hv_nic_copy(self->nics->pdata[i]));
	g_hash_table_iter_init(&iter, self->hvparams);
	while (g_hash_table_iter_next(&iter, &key, &value))
		g_hash_table_insert(copy->hvparams, g_strdup(key), g_strdup(value));
	copy->console_log = g_strdup(self->console_log);
	copy->state_dir = g_strdup(self->state_dir);
	if (self->channel != NULL)
		copy->channel = gnt_hv_channel_nic_copy(self->channel);
	return copy;
}

void
gnt_hv_instance_free(GntHvInstance *self)
{
	if (self == NULL)
		return;
	g_free(self->name);
	g_free(self->uuid);
	g_ptr_array_unref(self->disks);
	g_ptr_array_unref(self->nics);
	g_hash_table_unref(self->hvparams);
	g_free(self->console_log);
	g_free(self->state_dir);
	gnt_hv_channel_nic_free(self->channel);
	g_free(self);
}

void
gnt_hv_instance_add_disk(GntHvInstance *self, GntHvDisk *disk)
{
	g_return_if_fail(self != NULL && disk != NULL);
	g_ptr_array_add(self->disks, disk);
}

void
gnt_hv_instance_add_nic(GntHvInstance *self, GntHvNic *nic)
{
	g_return_if_fail(self != NULL && nic != NULL);
	g_ptr_array_add(self->nics, nic);
}

void
gnt_hv_instance_set_hvparam(GntHvInstance *self, const gchar *name, const gchar *value)
{
	g_return_if_fail(self != NULL && name != NULL && value != NULL);
	g_hash_table_insert(self->hvparams, g_strdup(name), g_strdup(value));
}

GntHvInfo *
gnt_hv_info_new(const gchar *name, GntHvState state)
{
	GntHvInfo *self = g_new0(GntHvInfo, 1);

	self->name = g_strdup(name);
	self->state = state;
	return self;
}

GntHvInfo *
gnt_hv_info_copy(const GntHvInfo *self)
{
	GntHvInfo *copy;

	g_return_val_if_fail(self != NULL, NULL);
	copy = g_memdup2(self, sizeof(*self));
	copy->name = g_strdup(self->name);
	return copy;
}

void
gnt_hv_info_free(GntHvInfo *self)
{
	if (self == NULL)
		return;
	g_free(self->name);
	g_free(self);
}

GntHvConsole *
gnt_hv_console_new(const gchar *name)
{
	GntHvConsole *self = g_new0(GntHvConsole, 1);

	self->name = g_strdup(name);
	return self;
}

GntHvConsole *
gnt_hv_console_copy(const GntHvConsole *self)
{
	GntHvConsole *copy;

	g_return_val_if_fail(self != NULL, NULL);
	copy = gnt_hv_console_new(self->name);
	copy->pty = g_strdup(self->pty);
	copy->log = g_strdup(self->log);
	copy->command = g_strdupv(self->command);
	return copy;
}

void
gnt_hv_console_free(GntHvConsole *self)
{
	if (self == NULL)
		return;
	g_free(self->name);
	g_free(self->pty);
	g_free(self->log);
	g_strfreev(self->command);
	g_free(self);
}

#define CONSOLE_LOG_MAX (1024 * 1024)

gchar *
gnt_hv_console_read_log(const GntHvConsole *self, guint max_lines, GError **error)
{
	g_autoptr(GFile) file = NULL;
	g_autoptr(GFileInputStream) in = NULL;
	g_autofree gchar *buf = g_malloc(CONSOLE_LOG_MAX + 1);
	gsize len = 0;
	guint lines = 0;

	g_return_val_if_fail(self != NULL, NULL);

	if (self->log == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND,
			    "instance '%s' has no console log", self->name);
		return NULL;
	}
	file = g_file_new_for_path(self->log);
	in = g_file_read(file, NULL, error);
	if (in == NULL ||
	    !g_input_stream_read_all(G_INPUT_STREAM(in), buf, CONSOLE_LOG_MAX, &len, NULL, error)) {
		gnt_error_convert(error);
		g_prefix_error(error, "console of instance '%s': ", self->name);
		return NULL;
	}
	buf[len] = '\0';
	for (gsize i = 0; max_lines > 0 && i < len; i++) {
		if (buf[i] == '\n' && ++lines == max_lines) {
			len = i + 1;
			break;
		}
	}
	/* a console prints whatever the guest wrote: make it printable text */
	return g_utf8_make_valid(buf, (gssize)len);
}

/* --- the install appliance's record ------------------------------------ */

GntHvAppliance *
gnt_hv_appliance_new(const gchar *name)
{
	GntHvAppliance *self = g_new0(GntHvAppliance, 1);

	self->name = g_strdup(name);
	self->uuid = g_uuid_string_random();
	self->memory_mib = 512;
	self->vcpus = 1;
	self->accel = g_strdup("tcg");
	self->firmware = g_strdup("bios");
	self->disks = g_ptr_array_new_with_free_func((GDestroyNotify)gnt_hv_disk_free);
	return self;
}

void
gnt_hv_appliance_free(GntHvAppliance *self)
{
	if (self == NULL)
		return;
	g_free(self->name);
	g_free(self->uuid);
	g_free(self->accel);
	g_free(self->firmware);
	g_free(self->state_dir);
	g_free(self->kernel);
	g_free(self->initrd);
	g_free(self->image);
	g_ptr_array_unref(self->disks);
	gnt_hv_channel_nic_free(self->channel);
	g_free(self->ip);
	g_free(self->console_log);
	g_free(self->agent);
	g_free(self->cmdline);
	g_free(self->boot_token);
	g_free(self);
}

void
gnt_hv_appliance_add_disk(GntHvAppliance *self, GntHvDisk *disk)
{
	g_return_if_fail(self != NULL && disk != NULL);
	g_ptr_array_add(self->disks, disk);
}

gchar *
gnt_hv_appliance_dup_cmdline(const GntHvAppliance *self)
{
	/* no_timer_check: under TCG on a loaded host the kernel's check of the
	 * 8254 timer's IO-APIC routing can time out and panic the boot
	 * ("MP-BIOS bug: 8254 timer not connected to IO-APIC") */
	GString *cmdline = g_string_new("console=ttyS0 quiet panic=-1 no_timer_check");

	g_return_val_if_fail(self != NULL, NULL);
	if (self->cmdline != NULL) {
		g_string_free(cmdline, TRUE);
		return g_strdup(self->cmdline);
	}
	if (self->ip != NULL)
		g_string_append_printf(cmdline, " gantry.ip=%s/16", self->ip);
	if (self->debug)
		g_string_append(cmdline, " gantry.debug=1");
	/* the agent's test-only steps, where a test suite's noded asks */
	if (g_strcmp0(g_getenv(GNT_HV_APPLIANCE_TEST_STEPS_ENV), "1") == 0)
		g_string_append(cmdline, " gantry.test_steps=1");
	if (self->boot_token != NULL)
		g_string_append_printf(cmdline, " gantry.token=%s", self->boot_token);
	return g_string_free(cmdline, FALSE);
}

#define TAIL_MAX (64 * 1024)

gchar *
gnt_hv_read_tail(const gchar *path, guint max_lines)
{
	g_autofree gchar *buf = g_malloc(TAIL_MAX + 1);
	g_autoptr(GFile) file = g_file_new_for_path(path);
	g_autoptr(GFileInputStream) in = g_file_read(file, NULL, NULL);
	g_autoptr(GFileInfo) info = NULL;
	gsize len = 0;
	gsize start;
	guint lines = 0;
	goffset size;

	if (in == NULL)
		return g_strdup("");
	info = g_file_input_stream_query_info(in, G_FILE_ATTRIBUTE_STANDARD_SIZE, NULL, NULL);
	size = info != NULL ? g_file_info_get_size(info) : 0;
	if (size > TAIL_MAX)
		(void)g_seekable_seek(G_SEEKABLE(in), size - TAIL_MAX, G_SEEK_SET, NULL, NULL);
	if (!g_input_stream_read_all(G_INPUT_STREAM(in), buf, TAIL_MAX, &len, NULL, NULL))
		return g_strdup("");
	/* a console ends its lines with CR LF: drop the CRs and the last newline */
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		len--;
	buf[len] = '\0';
	start = len;
	while (start > 0) {
		if (buf[start - 1] == '\n' && ++lines == max_lines)
			break;
		start--;
	}
	{
		g_auto(GStrv) parts = g_strsplit(buf + start, "\r", -1);
		g_autofree gchar *joined = g_strjoinv("", parts);

		return g_utf8_make_valid(joined, -1);
	}
}

/* --- the hypervisor base class ----------------------------------------- */

typedef struct {
	gchar *name;
	gchar *prefix;
} GntHypervisorPrivate;

G_DEFINE_TYPE_WITH_PRIVATE(GntHypervisor, gnt_hypervisor, G_TYPE_OBJECT)

static void
gnt_hypervisor_finalize(GObject *object)
{
	GntHypervisorPrivate *priv = gnt_hypervisor_get_instance_private(GNT_HYPERVISOR(object));

	g_free(priv->name);
	g_free(priv->prefix);
	G_OBJECT_CLASS(gnt_hypervisor_parent_class)->finalize(object);
}

static void
gnt_hypervisor_class_init(GntHypervisorClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = gnt_hypervisor_finalize;
}

static void
gnt_hypervisor_init(GntHypervisor *self)
{
}

void
gnt_hypervisor_set_identity(GntHypervisor *self, const gchar *name, const gchar *prefix)
{
	GntHypervisorPrivate *priv = gnt_hypervisor_get_instance_private(self);

	g_return_if_fail(priv->name == NULL);
	priv->name = g_strdup(name);
	priv->prefix = g_strdup(prefix != NULL ? prefix : GNT_HV_DEFAULT_PREFIX);
}

GntHypervisor *
gnt_hypervisor_new(const gchar *name, const gchar *location, const gchar *prefix, GError **error)
{
	if (!gnt_hv_check_name(name, error))
		return NULL;
	if (g_str_equal(name, "fake"))
		return gnt_hv_fake_new(location, prefix, error);
	return gnt_hv_kvm_new(location, prefix, error);
}

const gchar *
gnt_hypervisor_get_name(GntHypervisor *self)
{
	GntHypervisorPrivate *priv;

	g_return_val_if_fail(GNT_IS_HYPERVISOR(self), NULL);
	priv = gnt_hypervisor_get_instance_private(self);
	return priv->name;
}

const gchar *
gnt_hypervisor_get_prefix(GntHypervisor *self)
{
	GntHypervisorPrivate *priv;

	g_return_val_if_fail(GNT_IS_HYPERVISOR(self), NULL);
	priv = gnt_hypervisor_get_instance_private(self);
	return priv->prefix;
}

gchar *
gnt_hypervisor_dup_domain_name(GntHypervisor *self, const gchar *name)
{
	return g_strconcat(gnt_hypervisor_get_prefix(self), name, NULL);
}

const gchar *
gnt_hypervisor_strip_prefix(GntHypervisor *self, const gchar *dom_name)
{
	const gchar *prefix = gnt_hypervisor_get_prefix(self);

	if (!g_str_has_prefix(dom_name, prefix) || dom_name[strlen(prefix)] == '\0')
		return NULL;
	return dom_name + strlen(prefix);
}

/* An instance name becomes a domain name and a file name: keep it to the
 * characters of a host name. */
static gboolean
check_instance_name(const gchar *name, GError **error)
{
	if (name == NULL || name[0] == '\0' || name[0] == '.' || strlen(name) > 200) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "invalid instance name '%s'",
			    name ? name : "");
		return FALSE;
	}
	for (const gchar *p = name; *p != '\0'; p++) {
		if (!g_ascii_isalnum(*p) && *p != '-' && *p != '.' && *p != '_') {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "invalid instance name '%s': character '%c' not allowed", name,
				    *p);
			return FALSE;
		}
	}
	return TRUE;
}

static gboolean
check_instance(const GntHvInstance *inst, GError **error)
{
	if (!check_instance_name(inst->name, error))
		return FALSE;
	if (inst->uuid == NULL || !g_uuid_string_is_valid(inst->uuid)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "instance '%s': invalid uuid '%s'",
			    inst->name, inst->uuid ? inst->uuid : "");
		return FALSE;
	}
	if (inst->memory_mib == 0 || inst->vcpus == 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "instance '%s': memory and vcpus must be positive", inst->name);
		return FALSE;
	}
	for (guint i = 0; i < inst->disks->len; i++) {
		const GntHvDisk *disk = inst->disks->pdata[i];

		if (disk->path == NULL || !g_path_is_absolute(disk->path)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "instance '%s': disk %u needs an absolute path", inst->name, i);
			return FALSE;
		}
	}
	for (guint i = 0; i < inst->nics->len; i++) {
		const GntHvNic *nic = inst->nics->pdata[i];

		if (!gnt_net_parse_mac(nic->mac, NULL)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "instance '%s': nic %u has an invalid MAC '%s'", inst->name, i,
				    nic->mac ? nic->mac : "");
			return FALSE;
		}
		if (nic->mode == GNT_HV_NIC_MODE_BRIDGED && (nic->link == NULL || !*nic->link)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "instance '%s': bridged nic %u needs a link (the bridge)",
				    inst->name, i);
			return FALSE;
		}
	}
	if (inst->channel != NULL &&
	    (!gnt_net_parse_mac(inst->channel->mac, NULL) ||
	     (inst->channel->tap == NULL && inst->channel->socket == NULL))) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "instance '%s': the channel NIC needs a valid MAC and a tap or socket",
			    inst->name);
		return FALSE;
	}
	if (inst->console_log != NULL && !g_path_is_absolute(inst->console_log)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "instance '%s': console log '%s' is not an absolute path", inst->name,
			    inst->console_log);
		return FALSE;
	}
	return TRUE;
}

static gboolean
check_appliance(const GntHvAppliance *app, gboolean on_host, GError **error)
{
	const gchar *missing = NULL;

	if (!check_instance_name(app->name, error))
		return FALSE;
	if (app->uuid == NULL || !g_uuid_string_is_valid(app->uuid))
		missing = "a valid uuid";
	else if (app->memory_mib == 0 || app->vcpus == 0)
		missing = "memory and vcpus";
	else if (app->console_log == NULL || !g_path_is_absolute(app->console_log))
		missing = "an absolute console log path";
	else if (app->channel == NULL || !gnt_net_parse_mac(app->channel->mac, NULL))
		missing = "a channel NIC with a valid MAC";
	else if (app->channel->tap == NULL && app->channel->socket == NULL)
		missing = "a channel tap or socket";
	else if (on_host && (app->agent == NULL || app->channel->socket == NULL))
		missing = "an agent and metad's socket (fake hypervisor)";
	else if (!on_host && (app->kernel == NULL || app->initrd == NULL ||
			      (app->image == NULL && app->cmdline == NULL)))
		missing = "the appliance's kernel, initrd and image";
	else if (app->accel == NULL ||
		 (!g_str_equal(app->accel, "tcg") && !g_str_equal(app->accel, "kvm")))
		missing = "accel 'tcg' or 'kvm'";
	else if (app->firmware == NULL ||
		 !g_strv_contains(gnt_hv_params_lookup("kvm", "firmware")->choices, app->firmware))
		missing = "firmware 'bios' or 'uefi'";
	if (missing != NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "install appliance of instance '%s': needs %s", app->name, missing);
		return FALSE;
	}
	for (guint i = 0; i < app->disks->len; i++) {
		const GntHvDisk *disk = app->disks->pdata[i];

		if (disk->path == NULL || !g_path_is_absolute(disk->path)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "install appliance of instance '%s': disk %u needs an "
				    "absolute path",
				    app->name, i);
			return FALSE;
		}
	}
	return TRUE;
}

gchar *
gnt_hypervisor_dup_appliance_domain_name(GntHypervisor *self, const gchar *name, guint boot)
{
	if (boot <= 1)
		return g_strconcat("appliance-", gnt_hypervisor_get_prefix(self), name, NULL);
	return g_strdup_printf("appliance-%s%s~%u", gnt_hypervisor_get_prefix(self), name, boot);
}

void
gnt_hv_appliance_set_timeout_error(const GntHvAppliance *app, GError **error)
{
	g_autofree gchar *tail = gnt_hv_read_tail(app->console_log, GNT_HV_APPLIANCE_TAIL_LINES);

	g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
		    "install appliance timed out after %u s; its console ended with: %s",
		    app->timeout_s, *tail != '\0' ? tail : "(nothing)");
}

gboolean
gnt_hypervisor_run_appliance(GntHypervisor *self, const GntHvAppliance *app,
			     GCancellable *cancellable, gchar **console_tail, GError **error)
{
	GntHypervisorClass *klass;
	g_autofree gchar *dir = NULL;
	gboolean ok;

	g_return_val_if_fail(GNT_IS_HYPERVISOR(self), FALSE);
	g_return_val_if_fail(app != NULL, FALSE);

	klass = GNT_HYPERVISOR_GET_CLASS(self);
	if (klass->run_appliance == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "hypervisor '%s' cannot run the install appliance",
			    gnt_hypervisor_get_name(self));
		return FALSE;
	}
	if (!check_appliance(app, gnt_hv_runs_appliance_on_host(gnt_hypervisor_get_name(self)),
			     error))
		return FALSE;
	dir = g_path_get_dirname(app->console_log);
	if (g_mkdir_with_parents(dir, 0750) != 0) {
		gnt_error_set_errno(error, errno, dir);
		g_prefix_error(error,
			       "install appliance of instance '%s': console log: ", app->name);
		return FALSE;
	}
	ok = klass->run_appliance(self, app, cancellable, error);
	if (console_tail != NULL)
		*console_tail = gnt_hv_read_tail(app->console_log, GNT_HV_APPLIANCE_TAIL_LINES);
	return ok;
}

gboolean
gnt_hypervisor_start(GntHypervisor *self, const GntHvInstance *inst, gboolean paused,
		     GError **error)
{
	g_autoptr(GHashTable) hvparams = NULL;

	g_return_val_if_fail(GNT_IS_HYPERVISOR(self), FALSE);
	g_return_val_if_fail(inst != NULL, FALSE);

	if (!check_instance(inst, error))
		return FALSE;
	hvparams = gnt_hv_params_fill(gnt_hypervisor_get_name(self), NULL, inst->hvparams, error);
	if (hvparams == NULL) {
		g_prefix_error(error, "instance '%s': ", inst->name);
		return FALSE;
	}
	return GNT_HYPERVISOR_GET_CLASS(self)->start(self, inst, hvparams, paused, error);
}

gboolean
gnt_hypervisor_shutdown(GntHypervisor *self, const gchar *name, guint timeout_s, gboolean *forced,
			GError **error)
{
	gboolean dummy = FALSE;

	g_return_val_if_fail(GNT_IS_HYPERVISOR(self), FALSE);

	if (!check_instance_name(name, error))
		return FALSE;
	return GNT_HYPERVISOR_GET_CLASS(self)->shutdown(self, name, timeout_s,
							forced ? forced : &dummy, error);
}

gboolean
gnt_hypervisor_reboot(GntHypervisor *self, const GntHvInstance *inst, GntHvRebootType type,
		      guint timeout_s, GError **error)
{
	GntHypervisorClass *klass;
	g_autoptr(GntHvInfo) info = NULL;

	g_return_val_if_fail(GNT_IS_HYPERVISOR(self), FALSE);
	g_return_val_if_fail(inst != NULL, FALSE);

	klass = GNT_HYPERVISOR_GET_CLASS(self);
	if (!check_instance(inst, error))
		return FALSE;
	info = klass->get_info(self, inst->name, error);
	if (info == NULL)
		return FALSE;
	switch (type) {
	case GNT_HV_REBOOT_SOFT:
		return klass->reboot_soft(self, inst->name, error);
	case GNT_HV_REBOOT_HARD:
		if (!klass->destroy(self, inst->name, error))
			return FALSE;
		return gnt_hypervisor_start(self, inst, FALSE, error);
	case GNT_HV_REBOOT_FULL:
		if (!klass->shutdown(self, inst->name, timeout_s, &(gboolean){FALSE}, error))
			return FALSE;
		return gnt_hypervisor_start(self, inst, FALSE, error);
	case GNT_HV_REBOOT_LAST:
	default:
		break;
	}
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "instance '%s': unknown reboot type %d",
		    inst->name, (gint)type);
	return FALSE;
}

gboolean
gnt_hypervisor_destroy(GntHypervisor *self, const gchar *name, GError **error)
{
	g_return_val_if_fail(GNT_IS_HYPERVISOR(self), FALSE);

	if (!check_instance_name(name, error))
		return FALSE;
	return GNT_HYPERVISOR_GET_CLASS(self)->destroy(self, name, error);
}

gboolean
gnt_hypervisor_resume(GntHypervisor *self, const gchar *name, GError **error)
{
	g_return_val_if_fail(GNT_IS_HYPERVISOR(self), FALSE);

	if (!check_instance_name(name, error))
		return FALSE;
	return GNT_HYPERVISOR_GET_CLASS(self)->resume(self, name, error);
}

GntHvInfo *
gnt_hypervisor_get_info(GntHypervisor *self, const gchar *name, GError **error)
{
	g_return_val_if_fail(GNT_IS_HYPERVISOR(self), NULL);

	if (!check_instance_name(name, error))
		return NULL;
	return GNT_HYPERVISOR_GET_CLASS(self)->get_info(self, name, error);
}

static gint
compare_names(gconstpointer a, gconstpointer b)
{
	return strcmp(*(const gchar *const *)a, *(const gchar *const *)b);
}

GPtrArray *
gnt_hypervisor_list(GntHypervisor *self, GError **error)
{
	GPtrArray *names;

	g_return_val_if_fail(GNT_IS_HYPERVISOR(self), NULL);

	names = GNT_HYPERVISOR_GET_CLASS(self)->list(self, error);
	if (names != NULL)
		g_ptr_array_sort(names, compare_names);
	return names;
}

GntHvConsole *
gnt_hypervisor_get_console(GntHypervisor *self, const gchar *name, GError **error)
{
	g_return_val_if_fail(GNT_IS_HYPERVISOR(self), NULL);

	if (!check_instance_name(name, error))
		return NULL;
	return GNT_HYPERVISOR_GET_CLASS(self)->get_console(self, name, error);
}

gboolean
gnt_hypervisor_destroy_appliance(GntHypervisor *self, const gchar *name, GError **error)
{
	GntHypervisorClass *klass;

	g_return_val_if_fail(GNT_IS_HYPERVISOR(self) && name != NULL, FALSE);

	klass = GNT_HYPERVISOR_GET_CLASS(self);
	return klass->destroy_appliance == NULL || klass->destroy_appliance(self, name, error);
}
