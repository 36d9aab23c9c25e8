#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/*
 * Ganeti OS definitions (doc/os-interface.md): a directory <dir>/<name>
 * holding ganeti_api_version, the scripts create, import, export, rename
 * (and verify from API 20), and optionally variants.list and
 * parameters.list. The first directory of the search path that holds
 * <name> wins, even when the definition found there is invalid.
 */

#define GNT_OS_VARIANT_DELIM	'+'
#define GNT_OS_API_FILE		"ganeti_api_version"
#define GNT_OS_VARIANTS_FILE	"variants.list"
#define GNT_OS_PARAMETERS_FILE	"parameters.list"
#define GNT_OS_CREATE_UNTRUSTED "create_untrusted"
/* Gantry's spelling of an untrusted create script (doc/os-interface.md) */
#define GNT_OS_UNTRUSTED_CREATE "untrusted/create"

/* The OS API versions we speak; the one used is the highest in common. */
#define GNT_OS_API_V10 10
#define GNT_OS_API_V15 15
#define GNT_OS_API_V20 20

/* The scripts of an OS definition, each named as its file. */
typedef enum {
	GNT_OS_SCRIPT_CREATE,
	GNT_OS_SCRIPT_IMPORT,
	GNT_OS_SCRIPT_EXPORT,
	GNT_OS_SCRIPT_RENAME,
	GNT_OS_SCRIPT_VERIFY,
	GNT_OS_SCRIPT_LAST
} GntOsScript;

/* "create", "import", ... */
const gchar *
gnt_os_script_to_string(GntOsScript script);

/* Ganeti's default directories, which end every cluster's search path:
 * /srv/ganeti/os, /usr/local/lib/ganeti/os, /usr/lib/ganeti/os,
 * /usr/share/ganeti/os. NULL-terminated, static. */
const gchar *const *
gnt_os_get_default_search_path(void);

/*
 * What one directory of the search path says about one OS, the fields of
 * Ganeti's DiagnoseOS. An invalid definition has @valid FALSE, @diagnose
 * set to Ganeti's reason ("File 'create' under path '...' is missing
 * (...)") and every list empty.
 */
typedef struct {
	gchar *name; /* the directory name, never with a variant */
	gchar *path; /* <search dir>/<name> */
	gboolean valid;
	gchar *diagnose;      /* why it is invalid; "" when valid */
	GArray *api_versions; /* gint, in the file's order (newest first) */
	guint api_version;    /* the highest version in common with ours; 0 if invalid */
	GStrv variants;	      /* variants.list without comments; the first is the default */
	GStrv parameters;     /* parameters.list names ... */
	GStrv parameter_docs; /* ... and their descriptions ("" when none) */
	gboolean trusted;     /* FALSE when an untrusted create script exists */
	gchar *scripts[GNT_OS_SCRIPT_LAST]; /* absolute paths; NULL when absent */
	gboolean has_create;		    /* the (trusted) create script exists */
	/* the untrusted create script relative to @path, run only inside the
	 * install appliance: GNT_OS_UNTRUSTED_CREATE, else Ganeti's
	 * GNT_OS_CREATE_UNTRUSTED; NULL when there is none */
	gchar *untrusted_create;
} GntOsDefinition;

void
gnt_os_definition_free(GntOsDefinition *self);
GntOsDefinition *
gnt_os_definition_copy(const GntOsDefinition *self);

/* Reads <@dir>/<@name> as Ganeti's _TryOSFromDisk does. Never NULL: a
 * definition that is missing or broken comes back with @valid FALSE and the
 * reason in @diagnose. (transfer full) */
GntOsDefinition *
gnt_os_definition_read(const gchar *dir, const gchar *name);

/*
 * The definition of @os_name ("name" or "name+variant": the variant is
 * ignored here) from the first directory of @search_path holding it.
 * GNT_ERROR_INVALID for a name that cannot be a directory name ("", ".x",
 * "a/b"), GNT_ERROR_NOT_FOUND when no directory has it,
 * GNT_ERROR_ENVIRONMENT with the diagnose when the one found is invalid.
 * (transfer full)
 */
GntOsDefinition *
gnt_os_definition_find(const gchar *const *search_path, const gchar *os_name, GError **error);

/* Every OS along @search_path, as Ganeti's DiagnoseOS lists them (visible
 * entries of each existing directory, invalid ones included), keeping only
 * the first one of each name; sorted by name. (transfer full, element
 * GntOsDefinition) */
GPtrArray *
gnt_os_definition_discover(const gchar *const *search_path);

/* Splits "name+variant" at the first '+'; @variant is "" without one.
 * Either out argument may be NULL. */
void
gnt_os_split_name(const gchar *os_name, gchar **name, gchar **variant);

/*
 * Ganeti's _CheckOSVariant for @os_name ("name" or "name+variant"):
 * GNT_ERROR_INVALID when the OS has no variants but one is given, when it
 * has variants and none is given ("must include a variant"), or when the
 * variant is not listed. @force_variant skips every check, as in Ganeti.
 */
gboolean
gnt_os_definition_check_variant(const GntOsDefinition *self, const gchar *os_name,
				gboolean force_variant, GError **error);

/* The OS parameters of the install itself, which every OS takes whatever
 * its parameters.list says: "os-image" (Ganeti's disk image), and Gantry's
 * "os-package" (the personalization package's URL) with its secret
 * "os-package-username" and "os-package-password". NULL-terminated. */
extern const gchar *const gnt_os_install_parameters[];

/* Ganeti's _CheckOSPList: GNT_ERROR_INVALID naming the names in @names
 * (NULL-terminated) that parameters.list lacks, the install's own
 * parameters (gnt_os_install_parameters) aside. Only meaningful from API
 * 20; below it every name passes. */
gboolean
gnt_os_definition_check_parameters(const GntOsDefinition *self, const gchar *const *names,
				   GError **error);

/* The variant the scripts see as OS_VARIANT for @os_name: the one given,
 * else the first of variants.list, and "" below API 15 or without
 * variants. Borrowed from @os_name or @self. */
const gchar *
gnt_os_definition_get_variant(const GntOsDefinition *self, const gchar *os_name);

/* The absolute path of the untrusted create script (untrusted/create,
 * else create_untrusted), NULL when there is none. (transfer full) */
gchar *
gnt_os_definition_get_untrusted_create(const GntOsDefinition *self);

/* The record as JSON, the DiagnoseOS fields: {"name", "path", "status",
 * "diagnose", "variants", "parameters": [[name, doc], ...], "api_versions",
 * "trusted"} and Gantry's "create": bool (a trusted create script exists)
 * and "untrusted_create": null|"untrusted/create"|"create_untrusted". Script paths are not included: they follow from the path and
 * the API version. (transfer full) */
JsonObject *
gnt_os_definition_to_json(const GntOsDefinition *self);
/* The reverse, for the master reading a node's answer: unknown keys are
 * skipped, @scripts stay NULL (they are the node's business).
 * GNT_ERROR_INVALID names the bad key. (transfer full) */
GntOsDefinition *
gnt_os_definition_from_json(JsonObject *obj, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntOsDefinition, gnt_os_definition_free)

G_END_DECLS
