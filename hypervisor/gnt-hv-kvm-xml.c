/* The libvirt domain XML of a kvm instance. No libvirt calls here, so the
 * golden-file tests run even where libvirt is missing. */
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

static void
append_os(GString *xml, GHashTable *hvparams)
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
	append(xml, "      <driver name='qemu' type='%s'", gnt_hv_disk_format_to_string(disk->format));
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
	g_string_append(xml,
			"      <target port='0'/>\n"
			"    </serial>\n"
			"    <console type='pty'>\n"
			"      <target type='serial' port='0'/>\n"
			"    </console>\n");
}

gchar *
gnt_hv_kvm_build_xml(const GntHvInstance *inst, GHashTable *hvparams, const gchar *dom_name,
		     gint64 started, GError **error)
{
	g_autoptr(GString) xml = g_string_new(NULL);
	DevCounters counters = {0};
	gboolean kvm;

	g_return_val_if_fail(inst != NULL && hvparams != NULL && dom_name != NULL, NULL);

	kvm = g_str_equal(gnt_hv_params_get_string(hvparams, "accel"), "kvm");
	append(xml, "<domain type='%s'>\n", kvm ? "kvm" : "qemu");
	append(xml, "  <name>%s</name>\n", dom_name);
	append(xml, "  <uuid>%s</uuid>\n", inst->uuid);
	append(xml,
	       "  <metadata>\n"
	       "    <gantry:instance xmlns:gantry='%s' name='%s' started='%" G_GINT64_FORMAT
	       "'/>\n"
	       "  </metadata>\n",
	       GNT_HV_KVM_XML_NS, inst->name, started);
	append(xml, "  <memory unit='MiB'>%" G_GUINT64_FORMAT "</memory>\n", inst->memory_mib);
	append(xml, "  <vcpu>%u</vcpu>\n", inst->vcpus);
	append_os(xml, hvparams);
	if (gnt_hv_params_get_bool(hvparams, "acpi"))
		g_string_append(xml, "  <features>\n    <acpi/>\n  </features>\n");
	append_cpu(xml, hvparams);
	g_string_append(xml,
			"  <on_poweroff>destroy</on_poweroff>\n"
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
	append_serial(xml, inst->console_log);
	g_string_append(xml,
			"    <memballoon model='none'/>\n"
			"  </devices>\n"
			"</domain>\n");
	return g_string_free(g_steal_pointer(&xml), FALSE);
}
