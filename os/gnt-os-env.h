#pragma once

#include <json-glib/json-glib.h>

#include "gnt-device-enums.h"
#include "gnt-os-definition.h"
#include "gnt-secret.h"

G_BEGIN_DECLS

/*
 * The environment of an OS script, as Ganeti's OSCoreEnv and OSEnvironment
 * build it (doc/os-interface.md lists every variable). The caller says what
 * it knows about the instance; gnt_os_env_build() turns it into the exact
 * KEY=VALUE set for one script, with PATH=/sbin:/bin:/usr/sbin:/usr/bin and
 * nothing inherited.
 *
 * Private and secret OS parameters are held as GntSecret (locked memory,
 * zeroed when freed) and reach the script as OSP_* like public ones; only
 * a redacted build, for logs and golden files, tells them apart.
 */

#define GNT_OS_ENV_PATH "/sbin:/bin:/usr/sbin:/usr/bin"

/* One disk as the script sees it; NULL fields are left out, as in Ganeti. */
typedef struct {
	gchar *path;	     /* DISK_n_PATH: block device or file; NULL: URI only */
	gchar *uri;	     /* DISK_n_URI */
	gchar *access;	     /* DISK_n_ACCESS: "rw" (NULL means "rw") or "ro" */
	gchar *uuid;	     /* DISK_n_UUID ("" when NULL) */
	gchar *name;	     /* DISK_n_NAME */
	guint64 size_mib;    /* DISK_n_SIZE */
	gchar *backend_type; /* DISK_n_BACKEND_TYPE: "block", "file:loop" */
	gchar *format;	     /* DISK_n_FORMAT, a Gantry addition: "raw", "qcow2" */
} GntOsDisk;

GntOsDisk *
gnt_os_disk_new(void);
void
gnt_os_disk_free(GntOsDisk *self);
GntOsDisk *
gnt_os_disk_copy(const GntOsDisk *self);

/* One NIC; NULL fields are left out, as in Ganeti. */
typedef struct {
	gchar *mac;	 /* NIC_n_MAC ("" when NULL) */
	gchar *uuid;	 /* NIC_n_UUID ("" when NULL) */
	gchar *name;	 /* NIC_n_NAME */
	gchar *ip;	 /* NIC_n_IP */
	GntNicMode mode; /* NIC_n_MODE; bridged (0) in a new NIC */
	gchar *link;	 /* NIC_n_LINK, and NIC_n_BRIDGE in bridged mode */
} GntOsNic;

GntOsNic *
gnt_os_nic_new(void);
void
gnt_os_nic_free(GntOsNic *self);
GntOsNic *
gnt_os_nic_copy(const GntOsNic *self);

typedef struct _GntOsEnv GntOsEnv;

/*
 * A builder for scripts of @os run for @os_name ("name" or "name+variant",
 * INSTANCE_OS): OS_NAME, OS_API_VERSION (@os->api_version), OS_VARIANT
 * (gnt_os_definition_get_variant()) and DEBUG_LEVEL are fixed here. @os
 * must be valid; it is not kept.
 */
GntOsEnv *
gnt_os_env_new(const GntOsDefinition *os, const gchar *os_name, guint debug_level);
void
gnt_os_env_free(GntOsEnv *self);

/* INSTANCE_NAME, INSTANCE_UUID, HYPERVISOR. Required for every script
 * but verify. */
void
gnt_os_env_set_instance(GntOsEnv *self, const gchar *name, const gchar *uuid,
			const gchar *hypervisor);
/* INSTANCE_CTIME and INSTANCE_MTIME, as Python's str(float): "1700000000.5". */
void
gnt_os_env_set_times(GntOsEnv *self, gdouble ctime, gdouble mtime);
/* INSTANCE_PRIMARY_NODE (a node UUID, as in Ganeti) and
 * INSTANCE_SECONDARY_NODES (space-separated; @secondaries may be NULL). */
void
gnt_os_env_set_nodes(GntOsEnv *self, const gchar *primary, const gchar *const *secondaries);
/* The filled hypervisor and backend parameters: INSTANCE_HV_<key> and
 * INSTANCE_BE_<key>, the key as is, the value as Python's str() writes it
 * (true gives "True"). "disk_type" and "nic_type" in @hvparams also give
 * DISK_n_FRONTEND_TYPE and NIC_n_FRONTEND_TYPE. Copied. */
void
gnt_os_env_set_hvparams(GntOsEnv *self, JsonObject *hvparams);
void
gnt_os_env_set_beparams(GntOsEnv *self, JsonObject *beparams);
/* Appends a disk or a NIC (copied); indexes follow the call order. */
void
gnt_os_env_add_disk(GntOsEnv *self, const GntOsDisk *disk);
void
gnt_os_env_add_nic(GntOsEnv *self, const GntOsNic *nic);

/*
 * OS parameters, each as OSP_<NAME>: upper-cased, '-' and '.' turned into
 * '_'. A name set again, in any category, replaces the earlier value.
 * Private and secret values are copied into GntSecret memory.
 */
void
gnt_os_env_set_param(GntOsEnv *self, const gchar *name, const gchar *value);
void
gnt_os_env_set_param_private(GntOsEnv *self, const gchar *name, const gchar *value);
void
gnt_os_env_set_param_secret(GntOsEnv *self, const gchar *name, const GntSecret *value);
/* Every parameter name set, for gnt_os_definition_check_parameters(),
 * sorted. (transfer full) */
GStrv
gnt_os_env_dup_param_names(const GntOsEnv *self);

/* create run by reinstall: INSTANCE_REINSTALL=1. */
void
gnt_os_env_set_reinstall(GntOsEnv *self, gboolean reinstall);
/* rename: OLD_INSTANCE_NAME (INSTANCE_NAME is the new name). */
void
gnt_os_env_set_old_name(GntOsEnv *self, const gchar *old_name);
/* import and export run once per disk: @index selects the disk whose path
 * and URI become IMPORT_DEVICE/IMPORT_DISK_PATH/IMPORT_DISK_URI/IMPORT_INDEX
 * or EXPORT_DEVICE/EXPORT_DISK_PATH/EXPORT_DISK_URI/EXPORT_INDEX. */
void
gnt_os_env_set_disk_index(GntOsEnv *self, guint index);
/* The disk index given above, or -1. */
gint
gnt_os_env_get_disk_index(const GntOsEnv *self);
const gchar *
gnt_os_env_get_instance_name(const GntOsEnv *self);
const gchar *
gnt_os_env_get_old_name(const GntOsEnv *self);
/* INSTANCE_OS: the name given to gnt_os_env_new(). */
const gchar *
gnt_os_env_get_os_name(const GntOsEnv *self);
/* Any other variable (EXP_SIZE_FD, ...); it wins over a computed one. */
void
gnt_os_env_set_extra(GntOsEnv *self, const gchar *key, const gchar *value);

/*
 * The KEY=VALUE list for @script, sorted by key: for verify only the core
 * variables (OS_*, DEBUG_LEVEL, OSP_*, PATH), for the others everything,
 * the extras of that script included. With @redact, private and secret
 * values read GNT_SECRET_REDACTED. An unredacted list holds secrets in
 * ordinary memory: free it with gnt_os_envp_free(), which zeroes it.
 * (transfer full)
 */
gchar **
gnt_os_env_build(const GntOsEnv *self, GntOsScript script, gboolean redact);
/* Zeroes every string of @envp, then frees it. NULL is fine. */
void
gnt_os_envp_free(gchar **envp);

typedef gchar **GntOsEnvp;

G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntOsDisk, gnt_os_disk_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntOsNic, gnt_os_nic_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntOsEnv, gnt_os_env_free)
G_DEFINE_AUTO_CLEANUP_FREE_FUNC(GntOsEnvp, gnt_os_envp_free, NULL)

G_END_DECLS
