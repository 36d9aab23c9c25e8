/*
 * GenericInstanceCreate (Ganeti's lib/cli.py) for the commands that make
 * an instance: the options, and OP_INSTANCE_CREATE built from them with
 * the checks Ganeti's client makes before sending anything.
 */
#include "gnt-records.h"
#include "gnt-cli-create.h"
#include "gnt-cli-plan.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gnt-cli-objects.h"
#include "gnt-hv-params.h"
#include "gnt-json.h"
#include "gnt-opcode.h"
#include "gnt-secret.h"
#include "gnt-size.h"

/* What the entries of add and import parse into: one command runs per
 * process, so they share it. */
static gchar *opt_disk_template;
static gchar **opt_disks;
static gchar *opt_os_size;
static gchar **opt_nets;
static gboolean opt_no_nics;
static gchar *opt_os;
static gboolean opt_force_variant;
static gchar *opt_osparams;
static gchar *opt_osparams_private;
static gchar *opt_osparams_secret;
static gchar *opt_osparams_secret_file;
static gchar *opt_hypervisor;
static gchar *opt_beparams;
static gchar *opt_node;
static gchar *opt_iallocator;
static gboolean opt_no_install;
static gboolean opt_no_start;
static gboolean opt_name_check = TRUE;
static gboolean opt_ip_check = TRUE;
static gchar *opt_tags;
static gchar *opt_src_node;
static gchar *opt_src_dir;
static gchar *opt_compress;
static gboolean opt_identify_defaults;
static gchar *opt_os_image;
static gchar *opt_os_image_sha256;
static gchar *opt_install_mode;
static gboolean opt_print_plan;
static gchar *opt_install_hvparams;
static gchar *opt_communication;
static gchar *opt_user_data;
static gchar **opt_ssh_keys;
static gchar *opt_os_package;
static gchar *opt_safe_install;
static gchar *opt_ks_template;
static gboolean opt_print_kickstart;

/* The entries add and import share to the letter. */
#define DISK_TEMPLATE_ENTRY                                                                                \
	{                                                                                                  \
		"disk-template", 't', 0, G_OPTION_ARG_STRING, &opt_disk_template,                          \
			"Custom disk setup (diskless, file, sharedfile, plain, blockdev, drbd, rbd, ext, " \
			"gluster; the cluster's first enabled one when not given)",                        \
			"TEMPL"                                                                            \
	}
#define OS_SIZE_ENTRY                                                                                      \
	{                                                                                                  \
		"os-size", 's', 0, G_OPTION_ARG_STRING, &opt_os_size,                                      \
			"Enforces a single-disk configuration using the given disk size, in MiB unless a " \
			"suffix is used",                                                                  \
			"SIZE"                                                                             \
	}
#define NODE_ENTRY                                                                                        \
	{"node",                                                                                          \
	 'n',                                                                                             \
	 0,                                                                                               \
	 G_OPTION_ARG_STRING,                                                                             \
	 &opt_node,                                                                                       \
	 "Target node and optional secondary node",                                                       \
	 "PNODE[:SNODE]"},                                                                                \
	{                                                                                                 \
		"iallocator", 'I', 0, G_OPTION_ARG_STRING, &opt_iallocator,                               \
			"Select nodes for the instance automatically using the <NAME> iallocator plugin " \
			"(Gantry has none: refused, the instance goes to -n or the master node)",         \
			"NAME"                                                                            \
	}

const GOptionEntry gnt_cli_create_add_entries[] = {
	DISK_TEMPLATE_ENTRY,
	{"disk", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_disks,
	 "Disk parameters: N:size=SIZE[,mode=rw|ro][,name=NAME] (repeatable; sizes in MiB unless "
	 "a unit is given: 512M, 10G)",
	 "N:size=S,..."},
	OS_SIZE_ENTRY,
	{"net", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_nets,
	 "NIC parameters: N:mac=MAC,ip=IP,mode=MODE,link=LINK,name=NAME (repeatable; without "
	 "--net or --no-nics one NIC with the cluster's defaults)",
	 "N:key=val,..."},
	{"no-nics", 0, 0, G_OPTION_ARG_NONE, &opt_no_nics,
	 "Do not create any network cards for the instance", NULL},
	{"os-type", 'o', 0, G_OPTION_ARG_STRING, &opt_os, "What OS to run", "OS[+VARIANT]"},
	GNT_CLI_FORCE_VARIANT_ENTRY(&opt_force_variant),
	GNT_CLI_OSPARAMS_ENTRY(&opt_osparams),
	GNT_CLI_OSPARAMS_PRIVATE_ENTRY(&opt_osparams_private),
	GNT_CLI_OSPARAMS_SECRET_ENTRY(&opt_osparams_secret),
	GNT_CLI_OSPARAMS_SECRET_FILE_ENTRY(&opt_osparams_secret_file),
	{"hypervisor-parameters", 'H', 0, G_OPTION_ARG_STRING, &opt_hypervisor,
	 "Hypervisor and hypervisor options, in the format hypervisor:option=value,option=value,"
	 "...",
	 "HV:KEY=VAL,..."},
	{"backend-parameters", 'B', 0, G_OPTION_ARG_STRING, &opt_beparams,
	 "Backend parameters (memory, maxmem, minmem, vcpus, auto_balance, always_failover, "
	 "spindle_use)",
	 "KEY=VAL,..."},
	NODE_ENTRY,
	{"no-install", 0, 0, G_OPTION_ARG_NONE, &opt_no_install,
	 "Do not install the OS (will enable no-start)", NULL},
	{"no-start", 0, 0, G_OPTION_ARG_NONE, &opt_no_start,
	 "Don't start the instance after creation", NULL},
	{"name-check", 0, 0, G_OPTION_ARG_NONE, &opt_name_check,
	 "Check that the instance's name is resolvable (accepted; not checked)", NULL},
	GNT_CLI_NO_NAME_CHECK_ENTRY(&opt_name_check),
	{"ip-check", 0, 0, G_OPTION_ARG_NONE, &opt_ip_check,
	 "Check that the instance's IP is alive (accepted; not checked)", NULL},
	GNT_CLI_NO_IP_CHECK_ENTRY(&opt_ip_check),
	{"tags", 0, 0, G_OPTION_ARG_STRING, &opt_tags, "Comma-separated list of instance tags",
	 "TAG,..."},
	GNT_CLI_OS_IMAGE_ENTRY(&opt_os_image),
	GNT_CLI_OS_IMAGE_SHA256_ENTRY(&opt_os_image_sha256),
	{"print-plan", 0, 0, G_OPTION_ARG_NONE, &opt_print_plan,
	 GNT_CLI_PARAM_HELP("OP_INSTANCE_CREATE", "print_plan"), NULL},
	GNT_CLI_KS_TEMPLATE_ENTRY("OP_INSTANCE_CREATE", &opt_ks_template),
	GNT_CLI_PRINT_KICKSTART_ENTRY("OP_INSTANCE_CREATE", &opt_print_kickstart),
	{"install-mode", 0, 0, G_OPTION_ARG_STRING, &opt_install_mode,
	 "How the OS gets installed: run (default: the install steps before the first boot), "
	 "self_install (also \"self\": the first boot uses --install-hvparams, e.g. to boot an "
	 "installer ISO, and installs itself) or kickstart (the catalog image's Anaconda "
	 "installer with a kickstart file; implied by --ks-template)",
	 "MODE"},
	{"install-hvparams", 0, 0, G_OPTION_ARG_STRING, &opt_install_hvparams,
	 "self_install's hypervisor parameters for the first boot only, over the instance's "
	 "(kvm: cdrom_image_path=/srv/iso/x.iso,boot_order=cdrom,kernel_path=)",
	 "KEY=VAL,..."},
	GNT_CLI_COMMUNICATION_ENTRY(&opt_communication),
	GNT_CLI_USER_DATA_ENTRY(&opt_user_data),
	GNT_CLI_SSH_KEY_ENTRY(&opt_ssh_keys),
	GNT_CLI_OS_PACKAGE_ENTRY(&opt_os_package),
	GNT_CLI_SAFE_INSTALL_ENTRY(&opt_safe_install),
	{NULL},
};

/* COMMON_CREATE_OPTS as an import reads them (over the export's), and
 * Ganeti's import_opts (--src-node, --src-dir, --compress,
 * --identify-defaults). */
const GOptionEntry gnt_cli_create_import_entries[] = {
	DISK_TEMPLATE_ENTRY,
	{"disk", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_disks,
	 "Disk parameters: N:size=SIZE[,mode=rw|ro][,name=NAME] (repeatable; without --disk or "
	 "-s the export's disks)",
	 "N:size=S,..."},
	OS_SIZE_ENTRY,
	{"net", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_nets,
	 "NIC parameters: N:mac=MAC,ip=IP,mode=MODE,link=LINK,name=NAME (repeatable; without "
	 "--net the export's NICs)",
	 "N:key=val,..."},
	{"no-nics", 0, 0, G_OPTION_ARG_NONE, &opt_no_nics,
	 "Do not create any network cards for the instance (an import still takes the export's)",
	 NULL},
	{"os-parameters", 'O', 0, G_OPTION_ARG_STRING, &opt_osparams,
	 "OS parameters (over the export's)", "KEY=VAL,..."},
	GNT_CLI_OSPARAMS_PRIVATE_ENTRY(&opt_osparams_private),
	GNT_CLI_OSPARAMS_SECRET_ENTRY(&opt_osparams_secret),
	GNT_CLI_OSPARAMS_SECRET_FILE_ENTRY(&opt_osparams_secret_file),
	{"hypervisor-parameters", 'H', 0, G_OPTION_ARG_STRING, &opt_hypervisor,
	 "Hypervisor and hypervisor options, in the format hypervisor:option=value,option=value,"
	 "... (over the export's)",
	 "HV:KEY=VAL,..."},
	{"backend-parameters", 'B', 0, G_OPTION_ARG_STRING, &opt_beparams,
	 "Backend parameters (memory, maxmem, minmem, vcpus, auto_balance, always_failover, "
	 "spindle_use; over the export's)",
	 "KEY=VAL,..."},
	NODE_ENTRY,
	GNT_CLI_NO_NAME_CHECK_ENTRY(&opt_name_check),
	GNT_CLI_NO_IP_CHECK_ENTRY(&opt_ip_check),
	{"tags", 0, 0, G_OPTION_ARG_STRING, &opt_tags,
	 "Comma-separated list of instance tags (without it the export's)", "TAG,..."},
	{"src-node", 0, 0, G_OPTION_ARG_STRING, &opt_src_node,
	 "Source node (where the export is; the new instance's primary node when not given)",
	 "NODE"},
	{"src-dir", 0, 0, G_OPTION_ARG_STRING, &opt_src_dir,
	 "Source directory: an export's name, or its directory under the node's export "
	 "directory (the instance's name when not given)",
	 "DIR"},
	{"compress", 0, 0, G_OPTION_ARG_STRING, &opt_compress,
	 "Compression used in transfers (none or gzip; the export's own compression is what "
	 "its dumps are read with)",
	 "TOOL"},
	{"identify-defaults", 0, 0, G_OPTION_ARG_NONE, &opt_identify_defaults,
	 "Identify which saved instance parameters are equal to the current cluster defaults "
	 "and set them as such, instead of marking them as overridden (accepted; not acted on)",
	 NULL},
	{NULL},
};

const gchar *const gnt_cli_disk_keys[] = {
	"size", "spindles", "mode", "adopt", "vg", "metavg", "provider", "name", "access", NULL,
};
/* constants.INIC_PARAMS */
static const gchar *const nic_keys[] = {
	"mac", "ip", "mode", "link", "network", "name", "vlan", "bridge", NULL,
};
/* constants.BES_PARAMETER_COMPAT's booleans */
static const gchar *const be_flags[] = {"auto_balance", "always_failover", NULL};

/* ---- option values ---- */

JsonObject *
gnt_cli_parse_keyval_option(GntCli *cli, const gchar *option, const gchar *text, GError **error)
{
	g_autoptr(GError) local = NULL;
	JsonObject *params = gnt_cli_parse_keyval(option, text, &local);

	if (params == NULL)
		gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID, "%s", local->message);
	return params;
}

gboolean
gnt_cli_set_keyval_option(GntCli *cli, JsonObject *op, const gchar *member, const gchar *option,
			  const gchar *text, GError **error)
{
	JsonObject *params = gnt_cli_parse_keyval_option(cli, option, text, error);

	if (params == NULL)
		return FALSE;
	json_object_set_object_member(op, member, params);
	return TRUE;
}

/* What a secrets file may hold: a few passwords and keys, not a disk */
#define SECRET_FILE_MAX (64 * 1024)

/* The whole of @path ("-": standard input), at most SECRET_FILE_MAX bytes,
 * into @out; the caller wipes it. */
static gboolean
read_secret_file(const gchar *path, GString *out, GError **error)
{
	gboolean from_stdin = g_strcmp0(path, "-") == 0;
	FILE *in = from_stdin ? stdin : fopen(path, "re");
	gchar buf[4096];
	gsize n;

	if (in == NULL) {
		int saved = errno;
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "cannot read '%s': %s", path,
			    g_strerror(saved));
		return FALSE;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0 && out->len <= SECRET_FILE_MAX)
		g_string_append_len(out, buf, (gssize)n);
	gnt_secret_wipe(buf, sizeof(buf));
	if (!from_stdin)
		fclose(in);
	if (out->len > SECRET_FILE_MAX) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "'%s' is larger than %d KiB: not a file of secret parameters", path,
			    SECRET_FILE_MAX / 1024);
		return FALSE;
	}
	return TRUE;
}

/* KEY=VALUE lines into @params: a value is the rest of its line, commas
 * and all; empty lines and lines starting with '#' are skipped. */
static gboolean
parse_secret_lines(const gchar *path, gchar *text, JsonObject *params, GError **error)
{
	guint line_no = 0;

	for (gchar *line = text, *next; line != NULL; line = next) {
		gchar *equals;

		line_no++;
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		if (line[0] != '\0' && line[strlen(line) - 1] == '\r')
			line[strlen(line) - 1] = '\0';
		if (line[0] == '\0' || line[0] == '#')
			continue;
		equals = strchr(line, '=');
		if (equals == NULL || equals == line) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "'%s', line %u: expected KEY=VALUE", path, line_no);
			return FALSE;
		}
		*equals = '\0';
		if (json_object_has_member(params, line)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "secret OS parameter '%s' is given twice", line);
			return FALSE;
		}
		json_object_set_string_member(params, line, equals + 1);
	}
	return TRUE;
}

gboolean
gnt_cli_set_secret_option(GntCli *cli, JsonObject *op, const gchar *member, const gchar *text,
			  const gchar *path, gboolean null_when_none, GError **error)
{
	g_autoptr(JsonObject) params = NULL;
	g_autoptr(GError) local = NULL;
	GString *contents;
	gboolean ok;

	if (text == NULL && path == NULL && null_when_none) {
		json_object_set_null_member(op, member);
		return TRUE;
	}
	params = gnt_cli_parse_keyval_option(cli, "--os-parameters-secret", text, error);
	if (params == NULL)
		return FALSE;
	if (path != NULL) {
		contents = g_string_new(NULL);
		ok = read_secret_file(path, contents, &local) &&
		     parse_secret_lines(path, contents->str, params, &local);
		gnt_secret_wipe(contents->str, contents->allocated_len);
		g_string_free(contents, TRUE);
		if (!ok) {
			gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
						 "--os-parameters-secret-file: %s", local->message);
			return FALSE;
		}
	}
	json_object_set_object_member(op, member, g_steal_pointer(&params));
	return TRUE;
}

gboolean
gnt_cli_parse_device_index(const gchar *ident, guint *index)
{
	guint64 value = 0;

	if (!g_ascii_string_to_unsigned(ident, 10, 0, 1023, &value, NULL))
		return FALSE;
	*index = (guint)value;
	return TRUE;
}

gboolean
gnt_cli_parse_disk_size(GntCli *cli, JsonObject *disk, const gchar *which, GError **error)
{
	JsonNode *size = json_object_get_member(disk, "size");
	g_autoptr(GError) local = NULL;
	guint64 mib = 0;

	if (json_node_get_value_type(size) != G_TYPE_STRING ||
	    !gnt_size_parse(json_node_get_string(size), &mib, &local)) {
		gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
					 "Invalid disk size for disk %s: %s", which,
					 local != NULL ? local->message : "a size needs a value");
		return FALSE;
	}
	json_object_set_int_member(disk, "size", (gint64)mib);
	return TRUE;
}

static gboolean
parse_bool(const gchar *text, gboolean *out)
{
	static const gchar *const yes[] = {"true", "yes", "on", "1", NULL};
	static const gchar *const no[] = {"false", "no", "off", "0", NULL};
	g_autofree gchar *lower = g_ascii_strdown(text, -1);

	*out = g_strv_contains(yes, lower);
	return *out || g_strv_contains(no, lower);
}

static gboolean
value_is_default(JsonNode *value)
{
	return json_node_get_value_type(value) == G_TYPE_STRING &&
	       g_ascii_strcasecmp(json_node_get_string(value), "default") == 0;
}

void
gnt_cli_normalise_defaults(JsonObject *params)
{
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *value;

	json_object_iter_init(&iter, params);
	while (json_object_iter_next(&iter, &key, &value)) {
		if (value_is_default(value))
			json_node_set_string(value, "default");
	}
}

JsonObject *
gnt_cli_parse_beparams(GntCli *cli, const gchar *text, gboolean allow_default, GError **error)
{
	g_autoptr(JsonObject) params = gnt_cli_parse_keyval_option(cli, "-B", text, error);
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *value;

	if (params == NULL)
		return NULL;
	if (allow_default)
		gnt_cli_normalise_defaults(params);
	json_object_iter_init(&iter, params);
	while (json_object_iter_next(&iter, &key, &value)) {
		gboolean flag = FALSE;

		if (!g_strv_contains(be_flags, key) ||
		    json_node_get_value_type(value) != G_TYPE_STRING ||
		    (allow_default && value_is_default(value)))
			continue;
		if (!parse_bool(json_node_get_string(value), &flag)) {
			gnt_cli_set_prereq_error(
				cli, error, GNT_ERROR_INVALID,
				"backend parameter '%s' must be a boolean, not '%s'", key,
				json_node_get_string(value));
			return NULL;
		}
		json_node_set_boolean(value, flag);
	}
	return g_steal_pointer(&params);
}

gboolean
gnt_cli_parse_yes_no(GntCli *cli, const gchar *option, const gchar *text, gboolean *out,
		     GError **error)
{
	if (!parse_bool(text, out)) {
		gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
					 "%s takes yes or no, not '%s'", option, text);
		return FALSE;
	}
	return TRUE;
}

JsonArray *
gnt_cli_read_ssh_keys(GntCli *cli, gchar **files, GError **error)
{
	g_autoptr(JsonArray) keys = json_array_new();

	for (guint i = 0; files != NULL && files[i] != NULL; i++) {
		g_autofree gchar *text = NULL;
		g_autoptr(GError) local = NULL;
		g_auto(GStrv) lines = NULL;
		guint found = 0;

		if (!g_file_get_contents(files[i], &text, NULL, &local)) {
			gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
						 "cannot read ssh key file '%s': %s", files[i],
						 local->message);
			return NULL;
		}
		lines = g_strsplit(text, "\n", -1);
		for (guint k = 0; lines[k] != NULL; k++) {
			g_strstrip(lines[k]);
			if (lines[k][0] == '\0' || lines[k][0] == '#')
				continue;
			json_array_add_string_element(keys, lines[k]);
			found++;
		}
		if (found == 0) {
			gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
						 "ssh key file '%s' holds no key", files[i]);
			return NULL;
		}
	}
	return g_steal_pointer(&keys);
}

#define USER_DATA_MAX (64 * 1024)

gchar *
gnt_cli_read_user_data(GntCli *cli, const gchar *file, GError **error)
{
	g_autofree gchar *text = NULL;
	g_autoptr(GError) local = NULL;
	gsize len = 0;

	if (!g_file_get_contents(file, &text, &len, &local)) {
		gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
					 "cannot read user data file '%s': %s", file,
					 local->message);
		return NULL;
	}
	if (len > USER_DATA_MAX) {
		gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
					 "user data file '%s' is %zu bytes: at most 65536 (64 KiB)",
					 file, len);
		return NULL;
	}
	if (strlen(text) != len || !g_utf8_validate(text, (gssize)len, NULL)) {
		gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
					 "user data file '%s' is not UTF-8 text", file);
		return NULL;
	}
	return g_steal_pointer(&text);
}

gboolean
gnt_cli_set_metadata_options(GntCli *cli, JsonObject *op, const gchar *communication,
			     const gchar *user_data_file, gchar **ssh_key_files, GError **error)
{
	if (communication != NULL) {
		gboolean on = FALSE;

		if (!gnt_cli_parse_yes_no(cli, "--communication", communication, &on, error))
			return FALSE;
		json_object_set_boolean_member(op, "instance_communication", on);
	}
	if (user_data_file != NULL) {
		gchar *text = gnt_cli_read_user_data(cli, user_data_file, error);

		if (text == NULL)
			return FALSE;
		json_object_set_string_member(op, "user_data", text);
		g_free(text);
	}
	if (ssh_key_files != NULL && ssh_key_files[0] != NULL) {
		JsonArray *keys = gnt_cli_read_ssh_keys(cli, ssh_key_files, error);

		if (keys == NULL)
			return FALSE;
		json_object_set_array_member(op, "ssh_keys", keys);
	}
	return TRUE;
}

gboolean
gnt_cli_set_os_package(GntCli *cli, JsonObject *op, const gchar *member, const gchar *url,
		       GError **error)
{
	JsonObject *osparams;
	const gchar *given;

	if (url == NULL)
		return TRUE;
	if (!json_object_has_member(op, member) ||
	    !JSON_NODE_HOLDS_OBJECT(json_object_get_member(op, member)))
		json_object_set_object_member(op, member, json_object_new());
	osparams = json_object_get_object_member(op, member);
	given = json_object_get_string_member_with_default(osparams, "os-package", NULL);
	if (given != NULL && g_strcmp0(given, url) != 0) {
		gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
					 "--os-package '%s' and -O os-package='%s' differ", url,
					 given);
		return FALSE;
	}
	json_object_set_string_member(osparams, "os-package", url);
	return TRUE;
}

gboolean
gnt_cli_set_safe_install(GntCli *cli, JsonObject *op, const gchar *text, GError **error)
{
	gboolean on = TRUE;

	if (text == NULL)
		return TRUE;
	if (!gnt_cli_parse_yes_no(cli, "--enable-safe-install", text, &on, error))
		return FALSE;
	json_object_set_boolean_member(op, "enable_safe_install", on);
	return TRUE;
}

void
gnt_cli_set_string_or_null(JsonObject *op, const gchar *member, const gchar *value)
{
	if (value != NULL)
		json_object_set_string_member(op, member, value);
	else
		json_object_set_null_member(op, member);
}

/* ---- OP_INSTANCE_CREATE ---- */

/* --disk or --net values as the opcode's list: one object per index, the
 * gaps empty (Ganeti's [{}] * max). @what: "disk" or "nic". */
static JsonArray *
parse_indexed(GntCli *cli, const gchar *option, const gchar *what, gchar **values,
	      const gchar *const *keys, GError **error)
{
	g_autoptr(GPtrArray)
		items = g_ptr_array_new_with_free_func((GDestroyNotify)json_object_unref);
	g_autoptr(JsonArray) list = json_array_new();

	for (guint i = 0; values[i] != NULL; i++) {
		g_autofree gchar *ident = NULL;
		g_autoptr(JsonObject) params = NULL;
		g_autoptr(GError) local = NULL;
		JsonObjectIter iter;
		const gchar *key;
		JsonNode *value;
		guint index = 0;

		if (!gnt_cli_parse_ident_keyval(option, values[i], &ident, &params, &local)) {
			gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID, "%s",
						 local->message);
			return NULL;
		}
		if (!gnt_cli_parse_device_index(ident, &index)) {
			gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
						 "Invalid %s index passed: '%s'",
						 g_strcmp0(what, "nic") == 0 ? "NIC" : what, ident);
			return NULL;
		}
		if (params == NULL) {
			gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
						 "Invalid %s/%u value: expected dict, got False",
						 what, index);
			return NULL;
		}
		json_object_iter_init(&iter, params);
		while (json_object_iter_next(&iter, &key, &value)) {
			if (!g_strv_contains(keys, key)) {
				gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
							 "Unknown parameter '%s' for %s %u", key,
							 what, index);
				return NULL;
			}
		}
		while (items->len <= index)
			g_ptr_array_add(items, json_object_new());
		json_object_unref(g_ptr_array_index(items, index));
		g_ptr_array_index(items, index) = g_steal_pointer(&params);
	}
	for (guint i = 0; i < items->len; i++)
		json_array_add_object_element(list, json_object_ref(g_ptr_array_index(items, i)));
	return g_steal_pointer(&list);
}

/* Ganeti's disk checks of GenericInstanceCreate: a size (with a unit) each,
 * no adoption. */
static gboolean
check_disks(GntCli *cli, JsonArray *disks, GError **error)
{
	for (guint i = 0; i < json_array_get_length(disks); i++) {
		JsonObject *disk = json_array_get_object_element(disks, i);
		g_autofree gchar *which = g_strdup_printf("%u", i);

		if (json_object_has_member(disk, "adopt")) {
			gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
						 "Disk adoption is not supported (disk %u)", i);
			return FALSE;
		}
		if (!json_object_has_member(disk, "size")) {
			gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
						 "Missing size or adoption source for disk %u", i);
			return FALSE;
		}
		if (!gnt_cli_parse_disk_size(cli, disk, which, error))
			return FALSE;
	}
	return TRUE;
}

/* The disks: --disk or -s, none for diskless; neither is refused for a
 * creation and means the export's (an empty list) for an import. */
static JsonArray *
build_disks(GntCli *cli, GntCliCreateMode mode, GError **error)
{
	gboolean has_disks = opt_disks != NULL && opt_disks[0] != NULL;
	g_autoptr(JsonArray) disks = NULL;

	GntDiskTemplate template = GNT_DISK_TEMPLATE_LAST;

	if (opt_disk_template != NULL &&
	    gnt_disk_template_from_string(opt_disk_template, &template, NULL) &&
	    template == GNT_DISK_TEMPLATE_DISKLESS) {
		if (has_disks || opt_os_size != NULL) {
			gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
						 "Diskless instance but disk information passed");
			return NULL;
		}
		return json_array_new();
	}
	if (!has_disks && opt_os_size == NULL) {
		if (mode == GNT_CLI_CREATE_MODE_IMPORT)
			return json_array_new();
		gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
					 "No disk information specified");
		return NULL;
	}
	if (has_disks && opt_os_size != NULL) {
		gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
					 "Please use either the '--disk' or '-s' option");
		return NULL;
	}
	if (opt_os_size != NULL) {
		JsonObject *disk = json_object_new();

		json_object_set_string_member(disk, "size", opt_os_size);
		disks = json_array_new();
		json_array_add_object_element(disks, disk);
	} else {
		disks = parse_indexed(cli, "--disk", "disk", opt_disks, gnt_cli_disk_keys, error);
	}
	if (disks == NULL || !check_disks(cli, disks, error))
		return NULL;
	return g_steal_pointer(&disks);
}

/* The NICs: --net; without it one with the cluster's defaults for a
 * creation (none with --no-nics), the export's (an empty list) for an
 * import, even with --no-nics, as in Ganeti. */
static JsonArray *
build_nics(GntCli *cli, GntCliCreateMode mode, GError **error)
{
	JsonArray *nics;

	if (opt_nets != NULL && opt_nets[0] != NULL)
		return parse_indexed(cli, "--net", "nic", opt_nets, nic_keys, error);
	nics = json_array_new();
	if (mode == GNT_CLI_CREATE_MODE_CREATE && !opt_no_nics)
		json_array_add_object_element(nics, json_object_new());
	return nics;
}

/* -H HV:k=v,...: the hypervisor (checked here, so that a typo is named
 * before anything is sent) and its parameters. */
static gboolean
build_hypervisor(GntCli *cli, JsonObject *op, GError **error)
{
	g_autoptr(GError) local = NULL;
	g_autofree gchar *hv = NULL;
	g_autoptr(JsonObject) hvparams = NULL;

	if (opt_hypervisor == NULL) {
		json_object_set_null_member(op, "hypervisor");
		json_object_set_object_member(op, "hvparams", json_object_new());
		return TRUE;
	}
	if (gnt_cli_parse_ident_keyval("-H", opt_hypervisor, &hv, &hvparams, &local) &&
	    hvparams == NULL)
		g_set_error(&local, GNT_ERROR, GNT_ERROR_INVALID,
			    "Invalid hypervisor value '%s': expected HV[:key=val,...]",
			    opt_hypervisor);
	if (local != NULL || !gnt_hv_check_name(hv, &local)) {
		gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID, "%s", local->message);
		return FALSE;
	}
	json_object_set_string_member(op, "hypervisor", hv);
	json_object_set_object_member(op, "hvparams", g_steal_pointer(&hvparams));
	return TRUE;
}

/* What only the mode sets: a creation's OS and start, an import's source
 * (GenericInstanceCreate in import mode: never started, the OS the
 * export's). */
static void
build_mode_params(JsonObject *op, GntCliCreateMode mode)
{
	switch (mode) {
	case GNT_CLI_CREATE_MODE_CREATE:
		json_object_set_string_member(op, "mode", "create");
		gnt_cli_set_string_or_null(op, "os_type", opt_os);
		json_object_set_boolean_member(op, "force_variant", opt_force_variant);
		json_object_set_boolean_member(op, "start", !opt_no_start);
		json_object_set_boolean_member(op, "no_install", opt_no_install);
		/* Gantry's install parameters, only when given */
		if (opt_os_image != NULL)
			json_object_set_string_member(op, "os_image", opt_os_image);
		if (opt_os_image_sha256 != NULL)
			json_object_set_string_member(op, "os_image_sha256", opt_os_image_sha256);
		gnt_cli_set_kickstart(op, opt_ks_template, opt_print_kickstart);
		break;
	case GNT_CLI_CREATE_MODE_IMPORT:
		json_object_set_string_member(op, "mode", "import");
		json_object_set_null_member(op, "os_type");
		json_object_set_boolean_member(op, "start", FALSE);
		json_object_set_null_member(op, "no_install");
		gnt_cli_set_string_or_null(op, "src_node", opt_src_node);
		gnt_cli_set_string_or_null(op, "src_path", opt_src_dir);
		/* not given: the opcode table's default */
		if (opt_compress != NULL)
			json_object_set_string_member(op, "compress", opt_compress);
		json_object_set_boolean_member(op, "identify_defaults", opt_identify_defaults);
		break;
	}
}

/* Refuses @value unless OP_INSTANCE_CREATE's @param allows it (the opcode
 * table's choices): "Unknown <noun> 'x' (choose from a, b)". */
static gboolean
check_choice(GntCli *cli, const gchar *param, const gchar *value, const gchar *noun, GError **error)
{
	g_auto(GStrv) choices = NULL;
	g_autofree gchar *list = NULL;

	if (gnt_op_param_is_choice("OP_INSTANCE_CREATE", param, value))
		return TRUE;
	choices = gnt_op_param_dup_choices("OP_INSTANCE_CREATE", param);
	list = g_strjoinv(", ", choices);
	gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID, "Unknown %s '%s' (choose from %s)",
				 noun, value, list);
	return FALSE;
}

/* --install-mode (checked here: "self" is short for "self_install") and
 * --install-hvparams, only when given. */
static gboolean
build_install_params(GntCli *cli, JsonObject *op, GError **error)
{
	const gchar *mode = g_strcmp0(opt_install_mode, "self") == 0 ? "self_install"
								     : opt_install_mode;

	if (mode != NULL && !check_choice(cli, "install_mode", mode, "install mode", error))
		return FALSE;
	if (mode != NULL)
		json_object_set_string_member(op, "install_mode", mode);
	return opt_install_hvparams == NULL ||
	       gnt_cli_set_keyval_option(cli, op, "install_hvparams", "--install-hvparams",
					 opt_install_hvparams, error);
}

JsonObject *
gnt_cli_create_build_opcode(GntCli *cli, GntCliCreateMode mode, const gchar *name, GError **error)
{
	g_autoptr(JsonObject) op = gnt_cli_new_opcode(cli, "OP_INSTANCE_CREATE");
	g_autoptr(JsonArray) disks = NULL;
	JsonArray *nics;
	JsonObject *be;
	g_auto(GStrv) nodes = NULL;

	if (opt_disk_template != NULL &&
	    !check_choice(cli, "disk_template", opt_disk_template, "disk template", error))
		return NULL;
	if (opt_compress != NULL && g_strcmp0(opt_compress, "none") != 0 &&
	    g_strcmp0(opt_compress, "gzip") != 0) {
		gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
					 "Unknown compression tool '%s' (choose from none, gzip)",
					 opt_compress);
		return NULL;
	}
	if ((disks = build_disks(cli, mode, error)) == NULL ||
	    (nics = build_nics(cli, mode, error)) == NULL)
		return NULL;
	json_object_set_string_member(op, "instance_name", name);
	json_object_set_array_member(op, "disks", g_steal_pointer(&disks));
	json_object_set_array_member(op, "nics", nics);
	gnt_cli_set_string_or_null(op, "disk_template", opt_disk_template);
	if (opt_node != NULL) {
		nodes = g_strsplit(opt_node, ":", 2);
		json_object_set_string_member(op, "pnode", nodes[0]);
		gnt_cli_set_string_or_null(op, "snode", nodes[0] != NULL ? nodes[1] : NULL);
	}
	gnt_cli_set_string_or_null(op, "iallocator", opt_iallocator);
	if (!build_hypervisor(cli, op, error) ||
	    (be = gnt_cli_parse_beparams(cli, opt_beparams, FALSE, error)) == NULL)
		return NULL;
	json_object_set_object_member(op, "beparams", be);
	if (!gnt_cli_set_keyval_option(cli, op, "osparams", "-O", opt_osparams, error) ||
	    !gnt_cli_set_keyval_option(cli, op, "osparams_private", "--os-parameters-private",
				       opt_osparams_private, error) ||
	    /* never printed: it travels in the opcode only */
	    !gnt_cli_set_secret_option(cli, op, "osparams_secret", opt_osparams_secret,
				       opt_osparams_secret_file, FALSE, error))
		return NULL;
	json_object_set_boolean_member(op, "name_check", opt_name_check);
	json_object_set_boolean_member(op, "ip_check", opt_ip_check);
	if (opt_tags != NULL) {
		g_auto(GStrv) tags = g_strsplit(opt_tags, ",", -1);

		json_object_set_array_member(op, "tags", gnt_cli_strv_to_json(tags));
	} else {
		json_object_set_array_member(op, "tags", json_array_new());
	}
	build_mode_params(op, mode);
	if (opt_print_plan)
		json_object_set_boolean_member(op, "print_plan", TRUE);
	if (mode == GNT_CLI_CREATE_MODE_CREATE &&
	    (!build_install_params(cli, op, error) ||
	     !gnt_cli_set_metadata_options(cli, op, opt_communication, opt_user_data, opt_ssh_keys,
					   error) ||
	     !gnt_cli_set_os_package(cli, op, "osparams", opt_os_package, error) ||
	     !gnt_cli_set_safe_install(cli, op, opt_safe_install, error)))
		return NULL;
	return g_steal_pointer(&op);
}

gint
gnt_cli_create_instance(GntCli *cli, GntCliCreateMode mode, const gchar *name)
{
	g_autoptr(GError) error = NULL;
	JsonObject *op = gnt_cli_create_build_opcode(cli, mode, name, &error);
	g_autoptr(JsonArray) ops = json_array_new();
	g_autoptr(JsonArray) results = NULL;

	if (op == NULL)
		return gnt_cli_fail(cli, error);
	json_array_add_object_element(ops, op);
	if (!gnt_cli_submit_or_send(cli, g_steal_pointer(&ops), opt_print_plan ? &results : NULL,
				    &error))
		return gnt_cli_fail(cli, error);
	/* NULL with --submit: the job's ID was printed */
	if (results != NULL && json_array_get_length(results) > 0)
		gnt_cli_plan_print_result(json_array_get_element(results, 0));
	return 0;
}

void
gnt_cli_set_kickstart(JsonObject *op, const gchar *ks_template, gboolean print_kickstart)
{
	if (ks_template != NULL)
		json_object_set_string_member(op, "ks_template", ks_template);
	if (print_kickstart)
		json_object_set_boolean_member(op, "print_kickstart", TRUE);
}
