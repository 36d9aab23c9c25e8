#pragma once

#include <glib.h>

/*
 * The device enumerations three layers name: the records (config/), the
 * hypervisors (hypervisor/, whose own enums are a prefix of these and take
 * their names from these tables) and the OS scripts' environment (os/).
 * "raw", "qcow2"; "bridged", "routed", "openvswitch". And the state a
 * hypervisor reports for an instance, which noded's instance_list carries
 * and the master reads.
 */
typedef enum {
	GNT_DISK_FORMAT_RAW,
	GNT_DISK_FORMAT_QCOW2, /* file only */
	GNT_DISK_FORMAT_LAST
} GntDiskFormat;

typedef enum {
	GNT_NIC_MODE_BRIDGED, /* 0: a NIC without a mode is bridged */
	GNT_NIC_MODE_ROUTED,
	GNT_NIC_MODE_OPENVSWITCH,
	GNT_NIC_MODE_LAST
} GntNicMode;

typedef enum {
	GNT_HV_STATE_RUNNING,
	GNT_HV_STATE_PAUSED,
	GNT_HV_STATE_SHUTOFF, /* known to the hypervisor, not running */
	GNT_HV_STATE_LAST
} GntHvState;

extern const gchar *const gnt_disk_format_names[GNT_DISK_FORMAT_LAST];
extern const gchar *const gnt_nic_mode_names[GNT_NIC_MODE_LAST];

const gchar *
gnt_disk_format_to_string(GntDiskFormat value);
gboolean
gnt_disk_format_from_string(const gchar *name, GntDiskFormat *out, GError **error);
const gchar *
gnt_nic_mode_to_string(GntNicMode value);
gboolean
gnt_nic_mode_from_string(const gchar *name, GntNicMode *out, GError **error);
const gchar *
gnt_hv_state_to_string(GntHvState state); /* "running", "paused", "shutoff" */
