#pragma once

#include "gnt-cli.h"

G_BEGIN_DECLS

/*
 * Ganeti's GenericInstanceCreate (lib/cli.py) for the commands that make an
 * instance, gnt-instance add and gnt-backup import: their options
 * (COMMON_CREATE_OPTS and each command's own) and the OP_INSTANCE_CREATE
 * they make, checked as Ganeti's client checks before anything is sent.
 * Also the option entries and values gnt-instance's other commands
 * (reinstall, modify, rename, startup) share with add.
 */

typedef enum {
	GNT_CLI_CREATE_MODE_CREATE, /* gnt-instance add */
	GNT_CLI_CREATE_MODE_IMPORT, /* gnt-backup import */
} GntCliCreateMode;

/* The options of gnt-instance add and of gnt-backup import; both store
 * into the same values, which gnt_cli_create_build_opcode() reads. */
extern const GOptionEntry gnt_cli_create_add_entries[];
extern const GOptionEntry gnt_cli_create_import_entries[];

/*
 * OP_INSTANCE_CREATE for @name from the options parsed into the entries of
 * @mode, checked as GenericInstanceCreate does: disk template names, disk
 * and NIC indexes and keys, sizes with units, the hypervisor, backend
 * booleans (and an import's compression). Failures are recorded as
 * OpPrereqError for gnt_cli_fail(). An import is not started, and the
 * disks, NICs and tags it is not given are the export's; a creation needs
 * disks and gets one NIC with the cluster's defaults unless --net or
 * --no-nics. (transfer full)
 */
JsonObject *
gnt_cli_create_build_opcode(GntCli *cli, GntCliCreateMode mode, const gchar *name, GError **error);

/* gnt-instance add and gnt-backup import: the opcode above for @name,
 * submitted or sent as the command's options ask. The exit code, errors
 * printed. */
gint
gnt_cli_create_instance(GntCli *cli, GntCliCreateMode mode, const gchar *name);

/* Entries of Ganeti's cli_opts that other commands share with add, each
 * over the command's own @storage. */
#define GNT_CLI_FORCE_VARIANT_ENTRY(storage)                                                       \
	{                                                                                          \
		"force-variant", 0, 0, G_OPTION_ARG_NONE, (storage), "Force an unknown variant",   \
			NULL                                                                       \
	}
#define GNT_CLI_OSPARAMS_ENTRY(storage)                                                            \
	{                                                                                          \
		"os-parameters", 'O', 0, G_OPTION_ARG_STRING, (storage), "OS parameters",          \
			"KEY=VAL,..."                                                              \
	}
#define GNT_CLI_OSPARAMS_PRIVATE_ENTRY(storage)                                                    \
	{                                                                                          \
		"os-parameters-private", 0, 0, G_OPTION_ARG_STRING, (storage),                     \
			"Private OS parameters (won't be logged)", "KEY=VAL,..."                   \
	}
#define GNT_CLI_OSPARAMS_SECRET_ENTRY(storage)                                                             \
	{                                                                                                  \
		"os-parameters-secret", 0, 0, G_OPTION_ARG_STRING, (storage),                              \
			"Secret OS parameters (won't be logged or saved; you must supply these for every " \
			"operation.)",                                                                     \
			"KEY=VAL,..."                                                                      \
	}
#define GNT_CLI_OSPARAMS_SECRET_FILE_ENTRY(storage)                                                            \
	{                                                                                                      \
		"os-parameters-secret-file", 0, 0, G_OPTION_ARG_FILENAME, (storage),                           \
			"Secret OS parameters read from FILE, one KEY=VALUE a line ('-': standard input), so " \
			"that they never show on a command line (/proc/PID/cmdline); added to "                \
			"--os-parameters-secret",                                                              \
			"FILE"                                                                                 \
	}
#define GNT_CLI_OS_IMAGE_ENTRY(storage)                                                                      \
	{                                                                                                    \
		"os-image", 0, 0, G_OPTION_ARG_STRING, (storage),                                            \
			"A disk image (raw or qcow2) written onto disk 0 before the OS scripts run: a path " \
			"on the node, an http(s) URL (Ganeti's -O os-image=... too) or the name of an "      \
			"image of the catalog (gnt-image list)",                                             \
			"PATH|URL|NAME"                                                                      \
	}
#define GNT_CLI_OS_IMAGE_SHA256_ENTRY(storage)                                                     \
	{                                                                                          \
		"os-image-sha256", 0, 0, G_OPTION_ARG_STRING, (storage),                           \
			"The SHA-256 the OS image must have (checked as it is read)", "HEX"        \
	}
#define GNT_CLI_NO_NAME_CHECK_ENTRY(storage)                                                       \
	{                                                                                          \
		"no-name-check", 0, G_OPTION_FLAG_REVERSE, G_OPTION_ARG_NONE, (storage),           \
			"Don't check that the instance's name is resolvable", NULL                 \
	}
#define GNT_CLI_NO_IP_CHECK_ENTRY(storage)                                                         \
	{                                                                                          \
		"no-ip-check", 0, G_OPTION_FLAG_REVERSE, G_OPTION_ARG_NONE, (storage),             \
			"Don't check that the instance's IP is alive", NULL                        \
	}

/* Gantry's (issue 6): the metadata service's and the install's options. */
#define GNT_CLI_COMMUNICATION_ENTRY(storage)                                                        \
	{                                                                                           \
		"communication", 'C', 0, G_OPTION_ARG_STRING, (storage),                            \
			"Whether the instance gets its link-local channel to the metadata service " \
			"(169.254.169.254)",                                                        \
			"yes|no"                                                                    \
	}
#define GNT_CLI_USER_DATA_ENTRY(storage)                                                                     \
	{                                                                                                    \
		"user-data", 0, 0, G_OPTION_ARG_FILENAME, (storage),                                         \
			"User data served to the instance by the metadata service (cloud-init's user_data; " \
			"at most 64 KiB)",                                                                   \
			"FILE"                                                                               \
	}
#define GNT_CLI_SSH_KEY_ENTRY(storage)                                                                        \
	{                                                                                                     \
		"ssh-key", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, (storage),                                      \
			"A file of authorized_keys lines served to the instance (repeatable; without it the " \
			"cluster's keys)",                                                                    \
			"FILE"                                                                                \
	}
#define GNT_CLI_OS_PACKAGE_ENTRY(storage)                                                                     \
	{                                                                                                     \
		"os-package", 0, 0, G_OPTION_ARG_STRING, (storage),                                           \
			"A personalization package (http(s) URL of a .tar.gz or .tgz) unpacked onto the "     \
			"instance's filesystem after the OS scripts, inside the install appliance (the same " \
			"as -O os-package=URL; credentials as secret parameters os-package-username and "     \
			"os-package-password)",                                                               \
			"URL"                                                                                 \
	}
#define GNT_CLI_SAFE_INSTALL_ENTRY(storage)                                                                   \
	{                                                                                                     \
		"enable-safe-install", 0, 0, G_OPTION_ARG_STRING, (storage),                                  \
			"Run the OS scripts inside the install appliance (yes) or, for a trusted OS, on the " \
			"node (no); default: the cluster's setting",                                          \
			"yes|no"                                                                              \
	}
/* Kickstart installs (doc/kickstart.md): help from the opcode table */
#define GNT_CLI_KS_TEMPLATE_ENTRY(op_id, storage)                                                  \
	{                                                                                          \
		"ks-template", 0, 0, G_OPTION_ARG_STRING, (storage),                               \
			GNT_CLI_PARAM_HELP(op_id, "ks_template"), "SOURCE"                         \
	}
#define GNT_CLI_PRINT_KICKSTART_ENTRY(op_id, storage)                                              \
	{                                                                                          \
		"print-kickstart", 0, 0, G_OPTION_ARG_NONE, (storage),                             \
			GNT_CLI_PARAM_HELP(op_id, "print_kickstart"), NULL                         \
	}
/* Sets ks_template and print_kickstart of @op when given. */
void
gnt_cli_set_kickstart(JsonObject *op, const gchar *ks_template, gboolean print_kickstart);

/* ---- option values; failures are OpPrereqErrors for gnt_cli_fail() ---- */

/* A keyval option (-O, -H, ...) as an object; NULL @text gives an empty
 * one. (transfer full) */
JsonObject *
gnt_cli_parse_keyval_option(GntCli *cli, const gchar *option, const gchar *text, GError **error);

/* The keyval option @text as @op's @member (an empty object for NULL). */
gboolean
gnt_cli_set_keyval_option(GntCli *cli, JsonObject *op, const gchar *member, const gchar *option,
			  const gchar *text, GError **error);

/*
 * The secret parameters as @op's @member: those of the inline option
 * @text (KEY=VAL,...; nullable) and those of @path's KEY=VALUE lines ("-":
 * standard input; nullable), a key given twice refused. With neither,
 * @member is null when @null_when_none, else an empty object. What was
 * read is wiped before returning.
 */
gboolean
gnt_cli_set_secret_option(GntCli *cli, JsonObject *op, const gchar *member, const gchar *text,
			  const gchar *path, gboolean null_when_none, GError **error);

/*
 * -B as an opcode's beparams: auto_balance and always_failover as booleans
 * (ForceDictType); the master checks the rest. With @allow_default (modify's
 * allowed_values), "default" in any case is kept, as "default", for every
 * key. (transfer full)
 */
JsonObject *
gnt_cli_parse_beparams(GntCli *cli, const gchar *text, gboolean allow_default, GError **error);

/* Every value "default" in any case (constants.VALUE_DEFAULT) as "default". */
void
gnt_cli_normalise_defaults(JsonObject *params);

/* constants.IDISK_PARAMS: the keys a --disk value may have. */
extern const gchar *const gnt_cli_disk_keys[];

/* The index N of an "N:..." option value (0 to 1023); FALSE when N is not
 * one. */
gboolean
gnt_cli_parse_device_index(const gchar *ident, guint *index);

/* A disk's "size" (utils.ParseUnit: MiB unless a unit is given) as an
 * integer, in place; @which names the disk in the message. */
gboolean
gnt_cli_parse_disk_size(GntCli *cli, JsonObject *disk, const gchar *which, GError **error);

/* A yes|no option's value (also true/false, on/off, 1/0, any case) as
 * *@out; an OpPrereqError naming @option otherwise. */
gboolean
gnt_cli_parse_yes_no(GntCli *cli, const gchar *option, const gchar *text, gboolean *out,
		     GError **error);

/* The authorized_keys lines of @files (NULL-terminated; empty lines and
 * comments skipped) as a JSON list; an error names the file that cannot
 * be read or holds no key. (transfer full) */
JsonArray *
gnt_cli_read_ssh_keys(GntCli *cli, gchar **files, GError **error);

/* The user data in @file (text of at most 64 KiB). (transfer full) */
gchar *
gnt_cli_read_user_data(GntCli *cli, const gchar *file, GError **error);

/* Gantry's metadata options of add and modify (-C/--communication,
 * --user-data FILE, --ssh-key FILE repeatable) into @op: only those given;
 * "instance_communication" is a boolean, "user_data" the file's text,
 * "ssh_keys" the keys of every file. */
gboolean
gnt_cli_set_metadata_options(GntCli *cli, JsonObject *op, const gchar *communication,
			     const gchar *user_data_file, gchar **ssh_key_files, GError **error);

/* --os-package @url (nullable: nothing) as the OS parameter "os-package"
 * of @op's @member (an object, made when missing); refused when -O gave
 * another. */
gboolean
gnt_cli_set_os_package(GntCli *cli, JsonObject *op, const gchar *member, const gchar *url,
		       GError **error);

/* --enable-safe-install @text (nullable: not given) as @op's
 * "enable_safe_install". */
gboolean
gnt_cli_set_safe_install(GntCli *cli, JsonObject *op, const gchar *text, GError **error);

/* @member as the string @value, or null when @value is NULL. */
void
gnt_cli_set_string_or_null(JsonObject *op, const gchar *member, const gchar *value);

G_END_DECLS
