#include "gnt-hv-params.h"

#include <string.h>

#include "gnt-error.h"
#include "gnt-json.h"

/* Ganeti's kvm names and defaults, except where this machine kind differs:
 * `accel` is Gantry's own (KVM does not boot here, so tcg is the default),
 * and a kernel path defaults to empty (boot from the disk). */
static const gchar *const accel_choices[] = {"kvm", "tcg", NULL};
static const gchar *const boot_order_choices[] = {"disk", "cdrom", "network", NULL};
static const gchar *const disk_cache_choices[] = {"default", "none", "writethrough", "writeback",
						  NULL};
static const gchar *const nic_type_choices[] = {"paravirtual", "e1000",	   "rtl8139",
						"i82551",      "i82557b",  "i82559er",
						"pcnet",       "ne2k_pci", NULL};
static const gchar *const disk_type_choices[] = {"paravirtual", "ide", "scsi", "sata", NULL};

static const gchar *const firmware_choices[] = {"bios", "uefi", NULL};

/* The help says what a value does; doc/hypervisors.md's table is checked
 * against these names and defaults (tests/hypervisor/test-hv-params.c). */
static const GntHvParamSpec kvm_params[] = {
	{"accel", GNT_HV_PARAM_ENUM, "tcg", accel_choices,
	 "the accelerator: kvm, or tcg (qemu's emulation) where KVM does not boot"},
	{"acpi", GNT_HV_PARAM_BOOL, "true", NULL,
	 "ACPI; without it the power button does nothing and a shutdown times out"},
	{"boot_order", GNT_HV_PARAM_ENUM, "disk", boot_order_choices,
	 "what boots when no kernel_path is given"},
	{"cdrom_image_path", GNT_HV_PARAM_PATH, "", NULL,
	 "an ISO image attached as an IDE CD-ROM (empty: none)"},
	{"cpu_type", GNT_HV_PARAM_STRING, "", NULL,
	 "the CPU model: host (passthrough), a named model, or empty for qemu's default"},
	{"disk_cache", GNT_HV_PARAM_ENUM, "default", disk_cache_choices, "the disks' cache mode"},
	{"disk_type", GNT_HV_PARAM_ENUM, "paravirtual", disk_type_choices,
	 "the bus of disks that name none (paravirtual: virtio)"},
	{"firmware", GNT_HV_PARAM_ENUM, "bios", firmware_choices,
	 "the firmware: bios (SeaBIOS), or uefi (OVMF, from Debian's ovmf package on the node, "
	 "with the instance's own UEFI variables)"},
	{"initrd_path", GNT_HV_PARAM_PATH, "", NULL, "the initrd of a direct kernel boot"},
	{"kernel_args", GNT_HV_PARAM_STRING, "ro", NULL,
	 "the kernel command line of a direct kernel boot"},
	{"kernel_path", GNT_HV_PARAM_PATH, "", NULL,
	 "a kernel to boot directly (empty: boot from boot_order)"},
	{"machine_version", GNT_HV_PARAM_STRING, "", NULL,
	 "qemu's machine type (empty: libvirt's default)"},
	{"nic_type", GNT_HV_PARAM_ENUM, "paravirtual", nic_type_choices,
	 "the NIC model (paravirtual: virtio)"},
	{"root_path", GNT_HV_PARAM_STRING, "/dev/vda1", NULL,
	 "root= on a direct kernel boot's command line (empty: left out)"},
	{"serial_console", GNT_HV_PARAM_BOOL, "true", NULL,
	 "console=ttyS0,<serial_speed> on a direct kernel boot's command line"},
	{"serial_speed", GNT_HV_PARAM_INT, "38400", NULL, "the serial console's speed"},
};

/* Ganeti's fake hypervisor has nothing to tune; ours takes a kernel
 * command line that it only records (in its state file), so that tests
 * can follow a parameter from the cluster's defaults to the node */
static const GntHvParamSpec fake_params[] = {
	{"kernel_args", GNT_HV_PARAM_STRING, "ro", NULL,
	 "a kernel command line, only recorded in the fake's state file"},
};

/* Each hypervisor: its parameters and how it runs the install appliance. */
typedef struct {
	const gchar *name;
	const GntHvParamSpec *params;
	gsize n_params;
	/* the appliance's agent runs on the node as a process, no VM
	 * (doc/appliance.md "Fake mode") */
	gboolean appliance_on_host;
} HvTraits;

static const HvTraits hypervisors[] = {
	{"kvm", kvm_params, G_N_ELEMENTS(kvm_params), FALSE},
	{"fake", fake_params, G_N_ELEMENTS(fake_params), TRUE},
};

static const HvTraits *
traits_lookup(const gchar *hv_name)
{
	for (gsize i = 0; hv_name != NULL && i < G_N_ELEMENTS(hypervisors); i++) {
		if (strcmp(hypervisors[i].name, hv_name) == 0)
			return &hypervisors[i];
	}
	return NULL;
}

const gchar *const *
gnt_hv_list_names(void)
{
	static const gchar *names[G_N_ELEMENTS(hypervisors) + 1];
	static gsize once;

	if (g_once_init_enter(&once)) {
		for (gsize i = 0; i < G_N_ELEMENTS(hypervisors); i++)
			names[i] = hypervisors[i].name;
		g_once_init_leave(&once, 1);
	}
	return names;
}

gboolean
gnt_hv_check_name(const gchar *hv_name, GError **error)
{
	if (traits_lookup(hv_name) == NULL) {
		g_autofree gchar *known = g_strjoinv(", ", (gchar **)gnt_hv_list_names());

		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "unknown hypervisor '%s' (known: %s)", hv_name ? hv_name : "", known);
		return FALSE;
	}
	return TRUE;
}

gboolean
gnt_hv_runs_appliance_on_host(const gchar *hv_name)
{
	const HvTraits *traits = traits_lookup(hv_name);

	return traits != NULL && traits->appliance_on_host;
}

const GntHvParamSpec *
gnt_hv_params_get_specs(const gchar *hv_name, gsize *n_specs)
{
	const HvTraits *traits;

	g_return_val_if_fail(n_specs != NULL, NULL);

	traits = traits_lookup(hv_name);
	*n_specs = traits != NULL ? traits->n_params : 0;
	return traits != NULL ? traits->params : NULL;
}

const GntHvParamSpec *
gnt_hv_params_lookup(const gchar *hv_name, const gchar *param)
{
	gsize n = 0;
	const GntHvParamSpec *specs = gnt_hv_params_get_specs(hv_name, &n);

	for (gsize i = 0; i < n; i++) {
		if (g_strcmp0(specs[i].name, param) == 0)
			return &specs[i];
	}
	return NULL;
}

/* TRUE with @out set for a recognised boolean spelling */
static gboolean
parse_bool(const gchar *value, gboolean *out)
{
	static const gchar *const yes[] = {"true", "yes", "on", "1", NULL};
	static const gchar *const no[] = {"false", "no", "off", "0", NULL};
	g_autofree gchar *lower = g_ascii_strdown(value, -1);

	if (g_strv_contains(yes, lower)) {
		*out = TRUE;
		return TRUE;
	}
	if (g_strv_contains(no, lower)) {
		*out = FALSE;
		return TRUE;
	}
	return FALSE;
}

static gboolean
check_value(const gchar *hv_name, const GntHvParamSpec *spec, const gchar *value, GError **error)
{
	gboolean b;
	guint64 n;

	switch (spec->type) {
	case GNT_HV_PARAM_STRING:
		return TRUE;
	case GNT_HV_PARAM_PATH:
		if (value[0] == '\0' || g_path_is_absolute(value))
			return TRUE;
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "hypervisor parameter '%s' must be an absolute path, not '%s'",
			    spec->name, value);
		return FALSE;
	case GNT_HV_PARAM_BOOL:
		if (parse_bool(value, &b))
			return TRUE;
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "hypervisor parameter '%s' must be true or false, not '%s'", spec->name,
			    value);
		return FALSE;
	case GNT_HV_PARAM_INT:
		if (g_ascii_string_to_unsigned(value, 10, 0, G_MAXUINT32, &n, NULL))
			return TRUE;
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "hypervisor parameter '%s' must be a non-negative integer, not '%s'",
			    spec->name, value);
		return FALSE;
	case GNT_HV_PARAM_ENUM:
		if (g_strv_contains(spec->choices, value))
			return TRUE;
		else {
			g_autofree gchar *choices = g_strjoinv(", ", (gchar **)spec->choices);

			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "hypervisor parameter '%s' must be one of %s, not '%s'",
				    spec->name, choices, value);
		}
		return FALSE;
	case GNT_HV_PARAM_LAST:
	default:
		break;
	}
	g_set_error(error, GNT_ERROR, GNT_ERROR_FAULT, "%s parameter '%s' has no type", hv_name,
		    spec->name);
	return FALSE;
}

gboolean
gnt_hv_params_check(const gchar *hv_name, GHashTable *params, GError **error)
{
	GHashTableIter iter;
	gpointer key, value;

	if (!gnt_hv_check_name(hv_name, error))
		return FALSE;
	if (params == NULL)
		return TRUE;
	g_hash_table_iter_init(&iter, params);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		const GntHvParamSpec *spec = gnt_hv_params_lookup(hv_name, key);

		if (spec == NULL) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "unknown hypervisor parameter '%s' for hypervisor '%s'",
				    (const gchar *)key, hv_name);
			return FALSE;
		}
		if (value == NULL) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "hypervisor parameter '%s' has no value", (const gchar *)key);
			return FALSE;
		}
		if (!check_value(hv_name, spec, value, error))
			return FALSE;
	}
	return TRUE;
}

static GHashTable *
params_table_new(void)
{
	return g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
}

/* @value in its canonical spelling (booleans "true"/"false") */
static gchar *
canonical_value(const GntHvParamSpec *spec, const gchar *value)
{
	gboolean b = FALSE;

	if (spec->type == GNT_HV_PARAM_BOOL && parse_bool(value, &b))
		return g_strdup(b ? "true" : "false");
	return g_strdup(value);
}

static void
overlay(GHashTable *out, const gchar *hv_name, GHashTable *params)
{
	GHashTableIter iter;
	gpointer key, value;

	if (params == NULL)
		return;
	g_hash_table_iter_init(&iter, params);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		const GntHvParamSpec *spec = gnt_hv_params_lookup(hv_name, key);

		g_hash_table_insert(out, g_strdup(key), canonical_value(spec, value));
	}
}

GHashTable *
gnt_hv_params_fill(const gchar *hv_name, GHashTable *cluster, GHashTable *instance, GError **error)
{
	g_autoptr(GHashTable) out = NULL;
	gsize n = 0;
	const GntHvParamSpec *specs;

	if (!gnt_hv_params_check(hv_name, cluster, error)) {
		g_prefix_error(error, "cluster defaults: ");
		return NULL;
	}
	if (!gnt_hv_params_check(hv_name, instance, error))
		return NULL;
	out = params_table_new();
	specs = gnt_hv_params_get_specs(hv_name, &n);
	for (gsize i = 0; i < n; i++)
		g_hash_table_insert(out, g_strdup(specs[i].name), g_strdup(specs[i].default_value));
	overlay(out, hv_name, cluster);
	overlay(out, hv_name, instance);
	return g_steal_pointer(&out);
}

GHashTable *
gnt_hv_params_from_json(const gchar *hv_name, JsonObject *obj, GError **error)
{
	g_autoptr(GHashTable) out = params_table_new();
	g_autoptr(GList) members = NULL;

	g_return_val_if_fail(obj != NULL, NULL);

	if (!gnt_hv_check_name(hv_name, error))
		return NULL;
	members = json_object_get_members(obj);
	for (GList *l = members; l != NULL; l = l->next) {
		const gchar *key = l->data;
		JsonNode *node = json_object_get_member(obj, key);
		const gchar *type = gnt_json_node_type_name(node);
		g_autofree gchar *what = g_strdup_printf("hypervisor parameter '%s'", key);
		const gchar *str = NULL;
		gint64 n = 0;
		gboolean b = FALSE;

		if (g_str_equal(type, "string")) {
			if (!gnt_json_node_get_string(node, what, &str, error))
				return NULL;
			g_hash_table_insert(out, g_strdup(key), g_strdup(str));
		} else if (g_str_equal(type, "integer")) {
			if (!gnt_json_node_get_int(node, what, &n, error))
				return NULL;
			g_hash_table_insert(out, g_strdup(key),
					    g_strdup_printf("%" G_GINT64_FORMAT, n));
		} else if (g_str_equal(type, "boolean")) {
			if (!gnt_json_get_bool(obj, key, &b, error))
				return NULL;
			g_hash_table_insert(out, g_strdup(key), g_strdup(b ? "true" : "false"));
		} else {
			g_set_error(
				error, GNT_ERROR, GNT_ERROR_INVALID,
				"hypervisor parameter '%s' must be a string, boolean or integer, "
				"not %s",
				key, type);
			return NULL;
		}
	}
	if (!gnt_hv_params_check(hv_name, out, error))
		return NULL;
	return g_steal_pointer(&out);
}

static gint
compare_names(gconstpointer a, gconstpointer b, gpointer user_data)
{
	return strcmp(*(const gchar *const *)a, *(const gchar *const *)b);
}

void
gnt_hv_params_to_json(const gchar *hv_name, GHashTable *params, JsonBuilder *builder)
{
	g_autofree gpointer *keys = NULL;
	guint n = 0;

	g_return_if_fail(params != NULL && builder != NULL);

	keys = g_hash_table_get_keys_as_array(params, &n);
	g_qsort_with_data(keys, (gint)n, sizeof(gpointer), compare_names, NULL);
	for (guint i = 0; i < n; i++) {
		const GntHvParamSpec *spec = gnt_hv_params_lookup(hv_name, keys[i]);
		const gchar *value = g_hash_table_lookup(params, keys[i]);
		gboolean b = FALSE;

		json_builder_set_member_name(builder, keys[i]);
		if (spec != NULL && spec->type == GNT_HV_PARAM_BOOL && parse_bool(value, &b))
			json_builder_add_boolean_value(builder, b);
		else if (spec != NULL && spec->type == GNT_HV_PARAM_INT)
			json_builder_add_int_value(builder, g_ascii_strtoll(value, NULL, 10));
		else
			json_builder_add_string_value(builder, value);
	}
}

JsonObject *
gnt_hv_params_to_object(const gchar *hv_name, GHashTable *params)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();
	g_autoptr(JsonNode) root = NULL;

	json_builder_begin_object(builder);
	gnt_hv_params_to_json(hv_name, params, builder);
	json_builder_end_object(builder);
	root = json_builder_get_root(builder);
	return json_object_ref(json_node_get_object(root));
}

gboolean
gnt_hv_params_get_bool(GHashTable *params, const gchar *name)
{
	const gchar *value = params ? g_hash_table_lookup(params, name) : NULL;
	gboolean b = FALSE;

	return value != NULL && parse_bool(value, &b) && b;
}

guint64
gnt_hv_params_get_uint(GHashTable *params, const gchar *name)
{
	const gchar *value = params ? g_hash_table_lookup(params, name) : NULL;
	guint64 n = 0;

	if (value == NULL || !g_ascii_string_to_unsigned(value, 10, 0, G_MAXUINT64, &n, NULL))
		return 0;
	return n;
}

const gchar *
gnt_hv_params_get_string(GHashTable *params, const gchar *name)
{
	const gchar *value = params ? g_hash_table_lookup(params, name) : NULL;

	return value ? value : "";
}
