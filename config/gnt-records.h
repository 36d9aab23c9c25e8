#pragma once /* config/gnt-records.h */

#include <json-glib/json-glib.h>

#include "gnt-device-enums.h"

G_BEGIN_DECLS

/*
 * Typed records of the cluster model (doc/config-objects.md): nodes,
 * instances, their disks and NICs, with Ganeti's key names in JSON. Each
 * enumeration has one table of names (gnt-records.c) and one to/from-string
 * pair; nothing else compares these strings. from_json skips unknown keys,
 * then checks every known one (GNT_ERROR_INVALID naming the key); to_json
 * writes every member in a fixed order. Records are plain values: copy
 * gives a deep copy, free takes NULL.
 */

/* --- enumerations --------------------------------------------------------- */

typedef enum {
	GNT_ADMIN_STATE_UP,
	GNT_ADMIN_STATE_DOWN,
	GNT_ADMIN_STATE_OFFLINE,
	GNT_ADMIN_STATE_LAST
} GntAdminState;

/* who set the admin state: the administrator, or the instance's user from
 * inside (Ganeti's admin_state_source) */
typedef enum {
	GNT_ADMIN_STATE_SOURCE_ADMIN,
	GNT_ADMIN_STATE_SOURCE_USER,
	GNT_ADMIN_STATE_SOURCE_LAST
} GntAdminStateSource;

typedef enum {
	GNT_DISK_TEMPLATE_DISKLESS,
	GNT_DISK_TEMPLATE_FILE,
	GNT_DISK_TEMPLATE_PLAIN,
	GNT_DISK_TEMPLATE_LAST
} GntDiskTemplate;

typedef enum {
	GNT_DISK_MODE_RW,
	GNT_DISK_MODE_RO,
	GNT_DISK_MODE_LAST
} GntDiskMode;

/* "up", "down", "offline"; "admin", "user"; "diskless", "file", "plain";
 * "rw", "ro" (disk formats and NIC modes: gnt-device-enums.h). The
 * from_string functions fail with GNT_ERROR_INVALID "unknown disk template
 * 'x' (known: diskless, file, plain)". */
const gchar *
gnt_admin_state_to_string(GntAdminState value);
gboolean
gnt_admin_state_from_string(const gchar *name, GntAdminState *out, GError **error);
const gchar *
gnt_admin_state_source_to_string(GntAdminStateSource value);
gboolean
gnt_admin_state_source_from_string(const gchar *name, GntAdminStateSource *out, GError **error);
const gchar *
gnt_disk_template_to_string(GntDiskTemplate value);
gboolean
gnt_disk_template_from_string(const gchar *name, GntDiskTemplate *out, GError **error);
const gchar *
gnt_disk_mode_to_string(GntDiskMode value);
gboolean
gnt_disk_mode_from_string(const gchar *name, GntDiskMode *out, GError **error);

/* The enumerations of an instance record still held as JSON (the logical
 * units and the query engine): the member's value, or the default for a
 * missing member (down, admin, diskless) or a name the enum does not know
 * (stored records are checked when written). */
GntAdminState
gnt_record_get_admin_state(JsonObject *record);
GntAdminStateSource
gnt_record_get_admin_state_source(JsonObject *record);
GntDiskTemplate
gnt_record_get_disk_template(JsonObject *record);
/* A node record's boolean flag ("offline", "drained", "master_candidate",
 * "master_capable", "vm_capable"), @missing when the record has none. */
gboolean
gnt_record_get_flag(JsonObject *record, const gchar *flag, gboolean missing);

/* --- disks and NICs ------------------------------------------------------- */

/* {"uuid", "name", "size" (MiB), "mode", "iv_name", "format" (file only)} */
typedef struct {
	gchar *uuid;
	gchar *name; /* NULL: null */
	gint64 size_mib;
	GntDiskMode mode;
	gchar *iv_name; /* "disk/0"; NULL: not set */
	gboolean has_format;
	GntDiskFormat format; /* when has_format */
} GntDisk;

GntDisk *
gnt_disk_new(void);
GntDisk *
gnt_disk_copy(const GntDisk *self);
void
gnt_disk_free(GntDisk *self);
GntDisk *
gnt_disk_from_json(JsonObject *obj, GError **error);
void
gnt_disk_to_json(const GntDisk *self, JsonBuilder *builder);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntDisk, gnt_disk_free)

/* {"uuid", "name", "mac", "ip", "nicparams": {"mode", "link", "vlan"},
 * "network"}; each nicparam is the NIC's own (unset: the cluster's). */
typedef struct {
	gchar *uuid;
	gchar *name; /* NULL: null */
	gchar *mac;
	gchar *ip; /* NULL: null */
	gboolean has_mode;
	GntNicMode mode; /* when has_mode */
	gchar *link;	 /* NULL: not set */
	gchar *vlan;	 /* NULL: not set */
	gchar *network;	 /* NULL: null */
} GntNic;

GntNic *
gnt_nic_new(void);
GntNic *
gnt_nic_copy(const GntNic *self);
void
gnt_nic_free(GntNic *self);
GntNic *
gnt_nic_from_json(JsonObject *obj, GError **error);
void
gnt_nic_to_json(const GntNic *self, JsonBuilder *builder);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntNic, gnt_nic_free)

/* --- instances ------------------------------------------------------------ */

typedef struct {
	gchar *uuid; /* NULL: not stored yet */
	gchar *name;
	gint64 serial_no;
	gdouble ctime;
	gdouble mtime;
	gchar *primary_node; /* the node's UUID */
	gchar *os;	     /* NULL: none (null) */
	gchar *hypervisor;
	/* the instance's own values, not the filled ones; never NULL */
	JsonObject *hvparams;
	JsonObject *beparams;
	JsonObject *osparams;
	JsonObject *osparams_private;
	GntAdminState admin_state;
	GntAdminStateSource admin_state_source;
	GntDiskTemplate disk_template;
	GPtrArray *disks;    /* GntDisk */
	GPtrArray *nics;     /* GntNic */
	GStrv tags;	     /* never NULL */
	gint64 network_port; /* -1: null */
	gboolean disks_active;
	gboolean communication;
	gchar *communication_mac; /* "communication_nic": {"mac", "ip"}; NULL: none */
	gchar *communication_ip;
	gchar *user_data; /* NULL: none */
	GStrv ssh_keys;	  /* NULL: none (the cluster's are served) */
	/* Gantry's own sub-records, kept as they are (doc/install.md,
	 * doc/daemons.md); NULL: none */
	JsonObject *install;
	JsonObject *half_done;
} GntInstance;

/* An empty record: admin state down by the administrator, diskless, no
 * disks, NICs or tags, empty parameters, network_port null. */
GntInstance *
gnt_instance_new(void);
GntInstance *
gnt_instance_copy(const GntInstance *self);
void
gnt_instance_free(GntInstance *self);
GntInstance *
gnt_instance_from_json(JsonObject *obj, GError **error);
JsonObject *
gnt_instance_to_json(const GntInstance *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntInstance, gnt_instance_free)

/* --- nodes ---------------------------------------------------------------- */

typedef struct {
	gchar *uuid;
	gchar *name;
	gint64 serial_no;
	gdouble ctime;
	gdouble mtime;
	gchar *primary_ip;
	gchar *secondary_ip;
	gint64 rpc_port;
	gboolean master_candidate;
	gboolean master_capable;
	gboolean vm_capable;
	gboolean offline;
	gboolean drained;
	gchar *group;	      /* the node group's UUID */
	JsonObject *ndparams; /* never NULL */
	GStrv tags;	      /* never NULL */
} GntNode;

GntNode *
gnt_node_new(void);
GntNode *
gnt_node_copy(const GntNode *self);
void
gnt_node_free(GntNode *self);
GntNode *
gnt_node_from_json(JsonObject *obj, GError **error);
JsonObject *
gnt_node_to_json(const GntNode *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntNode, gnt_node_free)

G_END_DECLS
