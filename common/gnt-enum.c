/* The to/from-string pairs of enumerations over their tables (gnt-enum.h),
 * and the device enumerations several layers name (gnt-device-enums.h). */
#include "gnt-enum.h"

#include "gnt-device-enums.h"
#include "gnt-error.h"

const gchar *
gnt_enum_to_string(const gchar *const *names, guint n, guint value)
{
	return value < n ? names[value] : NULL;
}

gboolean
gnt_enum_from_string(const gchar *const *names, guint n, const gchar *what, const gchar *name,
		     guint *out, GError **error)
{
	g_autoptr(GString) known = NULL;

	for (guint i = 0; i < n; i++) {
		if (g_strcmp0(name, names[i]) == 0) {
			*out = i;
			return TRUE;
		}
	}
	if (error == NULL) /* the lookups of queries: no message to build */
		return FALSE;
	known = g_string_new(NULL);
	for (guint i = 0; i < n; i++)
		g_string_append_printf(known, "%s%s", i > 0 ? ", " : "", names[i]);
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "unknown %s '%s' (known: %s)", what,
		    name != NULL ? name : "", known->str);
	return FALSE;
}

/* --- device enumerations -------------------------------------------------- */

const gchar *const gnt_disk_format_names[GNT_DISK_FORMAT_LAST] = {
	[GNT_DISK_FORMAT_RAW] = "raw",
	[GNT_DISK_FORMAT_QCOW2] = "qcow2",
};

const gchar *const gnt_nic_mode_names[GNT_NIC_MODE_LAST] = {
	[GNT_NIC_MODE_BRIDGED] = "bridged",
	[GNT_NIC_MODE_ROUTED] = "routed",
	[GNT_NIC_MODE_OPENVSWITCH] = "openvswitch",
};

GNT_DEFINE_ENUM_STRINGS(GntDiskFormat, gnt_disk_format, gnt_disk_format_names, "disk format")
GNT_DEFINE_ENUM_STRINGS(GntNicMode, gnt_nic_mode, gnt_nic_mode_names, "nic mode")

static const gchar *const hv_state_names[] = {"running", "paused", "shutoff"};
G_STATIC_ASSERT(G_N_ELEMENTS(hv_state_names) == GNT_HV_STATE_LAST);

const gchar *
gnt_hv_state_to_string(GntHvState state)
{
	return gnt_enum_to_string(hv_state_names, G_N_ELEMENTS(hv_state_names), state);
}
