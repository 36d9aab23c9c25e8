/* The libvirt domain XML of a kvm instance and of the install appliance,
 * and the UEFI firmware files they name. No libvirt calls here, so the
 * golden-file tests run even where libvirt is missing. */
#include <errno.h>
#include <string.h>

#include "gnt-error.h"
#include "gnt-hypervisor-private.h"

/* Appends printf-style text with every string argument XML-escaped. */
G_GNUC_PRINTF(2, 3)
static void
append(GString *xml, const gchar *format, ...)
{
	va_list args;
	g_autofree gchar *text = NULL;

	va_start(args, format);
	text = g_markup_vprintf_escaped(format, args);
	va_end(args);
	g_string_append(xml, text);
}

/* OVMF's code and variables templates, in the order tried: the 4 MiB
 * build first (Debian's default since bookworm), then the 2 MiB one. The
 * Secure Boot builds are left out: they need q35 with SMM and signed
 * loaders. */
static const struct {
	const gchar *code;
	const gchar *vars;
} ovmf_files[] = {
	{"OVMF_CODE_4M.fd", "OVMF_VARS_4M.fd"},
	{"OVMF_CODE.fd", "OVMF_VARS.fd"},
};

void
gnt_hv_uefi_free(GntHvUefi *self)
{
	if (self == NULL)
		return;
	g_free(self->code);
	g_free(self->vars_template);
	g_free(self->vars);
	g_free(self);
}

GntHvUefi *
gnt_hv_uefi_prepare(const gchar *ovmf_dir, const gchar *state_dir, const gchar *what,
		    GError **error)
{
	g_autoptr(GntHvUefi) uefi = g_new0(GntHvUefi, 1);
	g_autoptr(GString) tried = g_string_new(NULL);

	g_return_val_if_fail(ovmf_dir != NULL && what != NULL, NULL);

	for (gsize i = 0; i < G_N_ELEMENTS(ovmf_files) && uefi->code == NULL; i++) {
		g_autofree gchar *code = g_build_filename(ovmf_dir, ovmf_files[i].code, NULL);
		g_autofree gchar *vars = g_build_filename(ovmf_dir, ovmf_files[i].vars, NULL);

		if (g_file_test(code, G_FILE_TEST_IS_REGULAR) &&
		    g_file_test(vars, G_FILE_TEST_IS_REGULAR)) {
			uefi->code = g_steal_pointer(&code);
			uefi->vars_template = g_steal_pointer(&vars);
		} else {
			g_string_append_printf(tried, "%s%s", tried->len > 0 ? ", " : "", code);
		}
	}
	if (uefi->code == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "%s: hypervisor parameter 'firmware' is 'uefi' but this node has no "
			    "OVMF firmware (none of %s with its variables file; install Debian's "
			    "'ovmf' package)",
			    what, tried->str);
		return NULL;
	}
	if (state_dir == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "%s: firmware 'uefi' needs a state directory for its UEFI variables",
			    what);
		return NULL;
	}
	if (g_mkdir_with_parents(state_dir, 0750) != 0) {
		gnt_error_set_errno(error, errno, state_dir);
		g_prefix_error(error, "%s: UEFI variables: ", what);
		return NULL;
	}
	uefi->vars = g_build_filename(state_dir, GNT_HV_UEFI_VARS_FILE, NULL);
	return g_steal_pointer(&uefi);
}

/* OVMF as read-only flash and the domain's own variables, inside <os>. */
static void
append_uefi(GString *xml, const GntHvUefi *uefi)
{
	if (uefi == NULL)
		return;
	append(xml,
	       "    <loader readonly='yes' type='pflash'>%s</loader>\n"
	       "    <nvram template='%s'>%s</nvram>\n",
	       uefi->code, uefi->vars_template, uefi->vars);
}

/* The kernel command line as Ganeti builds it: root, the arguments, the
 * serial console. */
static gchar *
build_cmdline(GHashTable *hvparams)
{
	g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func(g_free);
	const gchar *root = gnt_hv_params_get_string(hvparams, "root_path");
	const gchar *args = gnt_hv_params_get_string(hvparams, "kernel_args");

	if (*root != '\0')
		g_ptr_array_add(parts, g_strdup_printf("root=%s", root));
	if (*args != '\0')
		g_ptr_array_add(parts, g_strdup(args));
	if (gnt_hv_params_get_bool(hvparams, "serial_console"))
		g_ptr_array_add(parts,
				g_strdup_printf("console=ttyS0,%" G_GUINT64_FORMAT,
						gnt_hv_params_get_uint(hvparams, "serial_speed")));
	g_ptr_array_add(parts, NULL);
	return g_strjoinv(" ", (gchar **)parts->pdata);
}

/*
 * The SMBIOS tables of an instance with the channel: cloud-init's
 * ds-identify (and DataSourceOpenStack's detect_openstack()) take a chassis
 * asset tag "OpenStack Compute" to mean an OpenStack metadata service at
 * 169.254.169.254, which metad is; the system stays Gantry's own. No
 * serial: cloud-init takes a system uuid starting "ec2" that equals the
 * serial for AWS, and a random uuid may start so.
 */
static void
append_sysinfo(GString *xml, const GntHvChannelNic *channel)
{
	if (channel == NULL)
		return;
	g_string_append(xml, "  <sysinfo type='smbios'>\n"
			     "    <system>\n"
			     "      <entry name='manufacturer'>Gantry</entry>\n"
			     "      <entry name='product'>Gantry</entry>\n"
			     "      <entry name='family'>Virtual Machine</entry>\n"
			     "    </system>\n"
			     "    <chassis>\n"
			     "      <entry name='asset'>OpenStack Compute</entry>\n"
			     "    </chassis>\n"
			     "  </sysinfo>\n");
}

static void
append_os(GString *xml, GHashTable *hvparams, const GntHvUefi *uefi, gboolean sysinfo)
{
	const gchar *machine = gnt_hv_params_get_string(hvparams, "machine_version");
	const gchar *kernel = gnt_hv_params_get_string(hvparams, "kernel_path");
	const gchar *initrd = gnt_hv_params_get_string(hvparams, "initrd_path");
	const gchar *order = gnt_hv_params_get_string(hvparams, "boot_order");

	g_string_append(xml, "  <os>\n");
	if (*machine != '\0')
		append(xml, "    <type arch='x86_64' machine='%s'>hvm</type>\n", machine);
	else
		g_string_append(xml, "    <type arch='x86_64'>hvm</type>\n");
	append_uefi(xml, uefi);
	if (*kernel != '\0') {
		g_autofree gchar *cmdline = build_cmdline(hvparams);

		append(xml, "    <kernel>%s</kernel>\n", kernel);
		if (*initrd != '\0')
			append(xml, "    <initrd>%s</initrd>\n", initrd);
		append(xml, "    <cmdline>%s</cmdline>\n", cmdline);
	} else {
		const gchar *dev = g_str_equal(order, "cdrom")	   ? "cdrom"
				   : g_str_equal(order, "network") ? "network"
								   : "hd";

		append(xml, "    <boot dev='%s'/>\n", dev);
	}
	if (sysinfo)
		g_string_append(xml, "    <smbios mode='sysinfo'/>\n");
	g_string_append(xml, "  </os>\n");
}

static void
append_cpu(GString *xml, GHashTable *hvparams)
{
	const gchar *cpu = gnt_hv_params_get_string(hvparams, "cpu_type");

	if (*cpu == '\0')
		return;
	if (g_str_equal(cpu, "host"))
		g_string_append(xml, "  <cpu mode='host-passthrough'/>\n");
	else
		append(xml,
		       "  <cpu mode='custom' match='exact'>\n"
		       "    <model fallback='forbid'>%s</model>\n"
		       "  </cpu>\n",
		       cpu);
}

/* Target device names per bus: vda, vdb... for virtio; hda... for IDE;
 * sda... for SCSI and SATA, counted separately per prefix. */
typedef struct {
	guint vd, hd, sd;
} DevCounters;

static gboolean
next_dev(DevCounters *counters, const gchar *bus, gchar **out, GError **error)
{
	const gchar *prefix = "sd";
	guint *counter = &counters->sd;

	if (g_str_equal(bus, "virtio")) {
		prefix = "vd";
		counter = &counters->vd;
	} else if (g_str_equal(bus, "ide")) {
		prefix = "hd";
		counter = &counters->hd;
	}
	if (*counter >= (g_str_equal(bus, "ide") ? 4u : 26u)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "too many disks on bus '%s'", bus);
		return FALSE;
	}
	*out = g_strdup_printf("%s%c", prefix, 'a' + (*counter)++);
	return TRUE;
}

static const gchar *
disk_bus_name(const GntHvDisk *disk, GHashTable *hvparams)
{
	const gchar *type;

	if (disk->bus != GNT_HV_DISK_BUS_DEFAULT)
		return gnt_hv_disk_bus_to_string(disk->bus);
	type = gnt_hv_params_get_string(hvparams, "disk_type");
	return g_str_equal(type, "paravirtual") ? "virtio" : type;
}

static gboolean
append_disk(GString *xml, const GntHvDisk *disk, guint index, GHashTable *hvparams,
	    DevCounters *counters, GError **error)
{
	const gchar *bus = disk_bus_name(disk, hvparams);
	const gchar *cache = gnt_hv_params_get_string(hvparams, "disk_cache");
	gboolean block = g_str_has_prefix(disk->path, "/dev/");
	g_autofree gchar *dev = NULL;

	if (!next_dev(counters, bus, &dev, error)) {
		g_prefix_error(error, "disk %u: ", index);
		return FALSE;
	}
	append(xml, "    <disk type='%s' device='disk'>\n", block ? "block" : "file");
	append(xml, "      <driver name='qemu' type='%s'",
	       gnt_hv_disk_format_to_string(disk->format));
	if (!g_str_equal(cache, "default"))
		append(xml, " cache='%s'", cache);
	g_string_append(xml, "/>\n");
	if (block)
		append(xml, "      <source dev='%s'/>\n", disk->path);
	else
		append(xml, "      <source file='%s'/>\n", disk->path);
	append(xml, "      <target dev='%s' bus='%s'/>\n", dev, bus);
	if (disk->read_only)
		g_string_append(xml, "      <readonly/>\n");
	g_string_append(xml, "    </disk>\n");
	return TRUE;
}

static gboolean
append_cdrom(GString *xml, GHashTable *hvparams, DevCounters *counters, GError **error)
{
	const gchar *image = gnt_hv_params_get_string(hvparams, "cdrom_image_path");
	g_autofree gchar *dev = NULL;

	if (*image == '\0') {
		if (g_str_equal(gnt_hv_params_get_string(hvparams, "boot_order"), "cdrom")) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "hypervisor parameter 'boot_order' is 'cdrom' but "
				    "'cdrom_image_path' is empty");
			return FALSE;
		}
		return TRUE;
	}
	if (!next_dev(counters, "ide", &dev, error))
		return FALSE;
	append(xml,
	       "    <disk type='file' device='cdrom'>\n"
	       "      <driver name='qemu' type='raw'/>\n"
	       "      <source file='%s'/>\n"
	       "      <target dev='%s' bus='ide'/>\n"
	       "      <readonly/>\n"
	       "    </disk>\n",
	       image, dev);
	return TRUE;
}

static void
append_nic(GString *xml, const GntHvNic *nic, GHashTable *hvparams)
{
	const gchar *type = gnt_hv_params_get_string(hvparams, "nic_type");
	const gchar *model = g_str_equal(type, "paravirtual") ? "virtio" : type;

	if (nic->mode == GNT_HV_NIC_MODE_BRIDGED) {
		append(xml,
		       "    <interface type='bridge'>\n"
		       "      <mac address='%s'/>\n"
		       "      <source bridge='%s'/>\n",
		       nic->mac, nic->link);
	} else {
		append(xml,
		       "    <interface type='ethernet'>\n"
		       "      <mac address='%s'/>\n",
		       nic->mac);
		/* the tap the node prepared for routing; libvirt makes one otherwise */
		if (nic->link != NULL && *nic->link != '\0')
			append(xml, "      <target dev='%s' managed='no'/>\n", nic->link);
	}
	append(xml,
	       "      <model type='%s'/>\n"
	       "    </interface>\n",
	       model);
}

static void
append_serial(GString *xml, const gchar *log)
{
	g_string_append(xml, "    <serial type='pty'>\n");
	if (log != NULL)
		append(xml, "      <log file='%s' append='off'/>\n", log);
	g_string_append(xml, "      <target port='0'/>\n"
			     "    </serial>\n"
			     "    <console type='pty'>\n"
			     "      <target type='serial' port='0'/>\n"
			     "    </console>\n");
}

#define QEMU_XML_NS "http://libvirt.org/schemas/domain/qemu/1.0"
/* PCI slot of the slirp channel NIC: far from libvirt's own assignments */
#define SLIRP_PCI_SLOT "0x1e"

/* qemu's option syntax: a ',' inside a value is written ',,'. */
static gchar *
qemu_opt_escape(const gchar *value)
{
	g_auto(GStrv) parts = g_strsplit(value, ",", -1);

	return g_strjoinv(",,", parts);
}

/* The tap kind of the channel NIC, among the devices. */
static void
append_channel_tap(GString *xml, const GntHvChannelNic *channel)
{
	if (channel == NULL || channel->tap == NULL)
		return;
	append(xml,
	       "    <interface type='ethernet'>\n"
	       "      <mac address='%s'/>\n"
	       "      <target dev='%s' managed='no'/>\n"
	       "      <model type='virtio'/>\n"
	       "    </interface>\n",
	       channel->mac, channel->tap);
}

/* The slirp kind, after </devices>: libvirt has no XML for guestfwd. */
static void
append_channel_slirp(GString *xml, const GntHvChannelNic *channel)
{
	g_autofree gchar *socket = NULL;

	if (channel == NULL || channel->tap != NULL)
		return;
	socket = qemu_opt_escape(channel->socket);
	append(xml,
	       "  <qemu:commandline>\n"
	       "    <qemu:arg value='-chardev'/>\n"
	       "    <qemu:arg value='socket,id=gntmeta,path=%s,reconnect=1'/>\n"
	       "    <qemu:arg value='-netdev'/>\n"
	       "    <qemu:arg value='user,id=gntcom,net=169.254.0.0/16,host=169.254.0.2,"
	       "dns=169.254.0.3,restrict=on,guestfwd=tcp:169.254.169.254:80-chardev:gntmeta'/>\n"
	       "    <qemu:arg value='-device'/>\n"
	       "    <qemu:arg value='virtio-net-pci,netdev=gntcom,mac=%s,addr=" SLIRP_PCI_SLOT
	       "'/>\n"
	       "  </qemu:commandline>\n",
	       socket, channel->mac);
}

static void
append_domain_open(GString *xml, gboolean kvm, const GntHvChannelNic *channel)
{
	append(xml, "<domain type='%s'", kvm ? "kvm" : "qemu");
	if (channel != NULL && channel->tap == NULL)
		append(xml, " xmlns:qemu='%s'", QEMU_XML_NS);
	g_string_append(xml, ">\n");
}

/* Whether @firmware ("bios", "uefi") and @uefi agree. */
static gboolean
check_firmware(const gchar *firmware, const GntHvUefi *uefi, const gchar *what, GError **error)
{
	if ((g_strcmp0(firmware, "uefi") == 0) == (uefi != NULL))
		return TRUE;
	g_set_error(error, GNT_ERROR, GNT_ERROR_FAULT, "%s: firmware '%s' given %s OVMF's files",
		    what, firmware, uefi != NULL ? "with" : "without");
	return FALSE;
}

gchar *
gnt_hv_kvm_build_appliance_xml(const GntHvAppliance *app, const gchar *dom_name,
			       const GntHvUefi *uefi, GError **error)
{
	g_autoptr(GString) xml = g_string_new(NULL);
	g_autofree gchar *cmdline = NULL;
	guint n_disks;

	g_return_val_if_fail(app != NULL && dom_name != NULL, NULL);

	/* the appliance's own disk last; an installer has none */
	n_disks = app->disks->len + (app->image != NULL ? 1 : 0);
	if (n_disks > 26) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "install appliance of instance '%s': too many disks (%u)", app->name,
			    app->disks->len);
		return NULL;
	}
	if (!check_firmware(app->firmware, uefi, "install appliance", error))
		return NULL;
	cmdline = gnt_hv_appliance_dup_cmdline(app);
	append_domain_open(xml, g_strcmp0(app->accel, "kvm") == 0, app->channel);
	append(xml, "  <name>%s</name>\n", dom_name);
	append(xml, "  <uuid>%s</uuid>\n", app->uuid);
	append(xml,
	       "  <metadata>\n"
	       "    <gantry:appliance xmlns:gantry='%s' instance='%s'/>\n"
	       "  </metadata>\n",
	       GNT_HV_KVM_XML_NS, app->name);
	append(xml, "  <memory unit='MiB'>%" G_GUINT64_FORMAT "</memory>\n", app->memory_mib);
	append(xml, "  <vcpu>%u</vcpu>\n", app->vcpus);
	g_string_append(xml, "  <os>\n"
			     "    <type arch='x86_64'>hvm</type>\n");
	append_uefi(xml, uefi);
	append(xml,
	       "    <kernel>%s</kernel>\n"
	       "    <initrd>%s</initrd>\n"
	       "    <cmdline>%s</cmdline>\n"
	       "  </os>\n",
	       app->kernel, app->initrd, cmdline);
	g_string_append(xml, "  <features>\n    <acpi/>\n  </features>\n"
			     "  <on_poweroff>destroy</on_poweroff>\n"
			     "  <on_reboot>destroy</on_reboot>\n"
			     "  <on_crash>destroy</on_crash>\n"
			     "  <devices>\n");
	for (guint i = 0; i < n_disks; i++) {
		gboolean appliance = i == app->disks->len;
		const GntHvDisk *disk = appliance ? NULL : app->disks->pdata[i];
		const gchar *path = appliance ? app->image : disk->path;
		gboolean block = g_str_has_prefix(path, "/dev/");

		append(xml, "    <disk type='%s' device='disk'>\n", block ? "block" : "file");
		if (appliance)
			g_string_append(xml, "      <driver name='qemu' type='raw'/>\n");
		else
			append(xml, "      <driver name='qemu' type='%s' cache='none'/>\n",
			       gnt_hv_disk_format_to_string(disk->format));
		append(xml, block ? "      <source dev='%s'/>\n" : "      <source file='%s'/>\n",
		       path);
		append(xml, "      <target dev='vd%c' bus='virtio'/>\n", 'a' + i);
		if (appliance)
			g_string_append(xml, "      <readonly/>\n");
		g_string_append(xml, "    </disk>\n");
	}
	append_channel_tap(xml, app->channel);
	append(xml,
	       "    <serial type='file'>\n"
	       "      <source path='%s'/>\n"
	       "      <target port='0'/>\n"
	       "    </serial>\n"
	       /* no USB controller: its probing costs boot time under TCG */
	       "    <controller type='usb' model='none'/>\n"
	       "    <memballoon model='none'/>\n"
	       /* the guest has no other entropy under TCG (no RDRAND): without it
		* its crng is not ready for a minute, and each UUID that GPT, md,
		* LVM and mkfs make waits about a second in getrandom() */
	       "    <rng model='virtio'>\n"
	       "      <backend model='random'>/dev/urandom</backend>\n"
	       "    </rng>\n"
	       "  </devices>\n",
	       app->console_log);
	append_channel_slirp(xml, app->channel);
	g_string_append(xml, "</domain>\n");
	return g_string_free(g_steal_pointer(&xml), FALSE);
}

gchar *
gnt_hv_kvm_build_xml(const GntHvInstance *inst, GHashTable *hvparams, const gchar *dom_name,
		     gint64 started, const GntHvUefi *uefi, GError **error)
{
	g_autoptr(GString) xml = g_string_new(NULL);
	DevCounters counters = {0};
	gboolean kvm;

	g_return_val_if_fail(inst != NULL && hvparams != NULL && dom_name != NULL, NULL);

	if (!check_firmware(gnt_hv_params_get_string(hvparams, "firmware"), uefi, "instance",
			    error))
		return NULL;
	kvm = g_str_equal(gnt_hv_params_get_string(hvparams, "accel"), "kvm");
	append_domain_open(xml, kvm, inst->channel);
	append(xml, "  <name>%s</name>\n", dom_name);
	append(xml, "  <uuid>%s</uuid>\n", inst->uuid);
	append(xml,
	       "  <metadata>\n"
	       "    <gantry:instance xmlns:gantry='%s' name='%s' started='%" G_GINT64_FORMAT "'/>\n"
	       "  </metadata>\n",
	       GNT_HV_KVM_XML_NS, inst->name, started);
	append(xml, "  <memory unit='MiB'>%" G_GUINT64_FORMAT "</memory>\n", inst->memory_mib);
	append(xml, "  <vcpu>%u</vcpu>\n", inst->vcpus);
	append_sysinfo(xml, inst->channel);
	append_os(xml, hvparams, uefi, inst->channel != NULL);
	if (gnt_hv_params_get_bool(hvparams, "acpi"))
		g_string_append(xml, "  <features>\n    <acpi/>\n  </features>\n");
	append_cpu(xml, hvparams);
	g_string_append(xml, "  <on_poweroff>destroy</on_poweroff>\n"
			     "  <on_reboot>restart</on_reboot>\n"
			     "  <on_crash>destroy</on_crash>\n"
			     "  <devices>\n");
	for (guint i = 0; i < inst->disks->len; i++) {
		if (!append_disk(xml, inst->disks->pdata[i], i, hvparams, &counters, error)) {
			g_prefix_error(error, "instance '%s': ", inst->name);
			return NULL;
		}
	}
	if (!append_cdrom(xml, hvparams, &counters, error)) {
		g_prefix_error(error, "instance '%s': ", inst->name);
		return NULL;
	}
	for (guint i = 0; i < inst->nics->len; i++)
		append_nic(xml, inst->nics->pdata[i], hvparams);
	append_channel_tap(xml, inst->channel);
	append_serial(xml, inst->console_log);
	g_string_append(xml, "    <memballoon model='none'/>\n"
			     "  </devices>\n");
	append_channel_slirp(xml, inst->channel);
	g_string_append(xml, "</domain>\n");
	return g_string_free(g_steal_pointer(&xml), FALSE);
}
