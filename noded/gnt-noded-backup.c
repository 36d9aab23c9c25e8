/*
 * noded's export and import procedures (Ganeti's local exports): the OS
 * export script of an instance run once per disk, its dump written under
 * <root>/srv/gantry/export/<instance>.new, then a config.ini describing the
 * instance and the rename to <instance>; the import script run once per
 * disk with a dump on its stdin; listing, describing and removing exports.
 *
 * Every path the master names is checked here: an export is one directory
 * right below the export directory (no "..", no absolute path elsewhere, no
 * symbolic link), a dump one plain file in it, opened without following
 * links. Dumps are passed to the scripts as descriptors (/proc/self/fd/N),
 * optionally through gzip.
 */
#define _GNU_SOURCE /* nftw */

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glib-unix.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gnt-command.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-node-calls-backup.h"
#include "gnt-os-script.h"
#include "gnt-noded-private.h"

#define BACKUP_CONFIG_FILE "config.ini"
#define BACKUP_NEW_SUFFIX  ".new"
#define BACKUP_OLD_SUFFIX  ".old"
/* Ganeti's constants.EXPORT_VERSION */
#define BACKUP_EXPORT_VERSION 0
/* a config.ini larger than this is not an export of ours or Ganeti's */
#define BACKUP_CONFIG_MAX_BYTES (1024 * 1024)

/* <root>/srv/gantry/export. (transfer full) */
static gchar *
export_dir(GntRpcNode *node)
{
	return g_build_filename(gnt_paths_get_root(node->paths), "srv", "gantry", "export", NULL);
}

static gboolean
check_compress(const gchar *compress, GError **error)
{
	if (g_strcmp0(compress, "none") != 0 && g_strcmp0(compress, "gzip") != 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "compression '%s' is not supported (none or gzip)", compress);
		return FALSE;
	}
	return TRUE;
}

/* The file name of disk @index's dump. (transfer full) */
static gchar *
dump_name(guint index, const gchar *compress)
{
	return g_strdup_printf("disk%u.dump%s", index,
			       g_strcmp0(compress, "gzip") == 0 ? ".gz" : "");
}

/*
 * The export directory @path names: a name right below the export
 * directory, or that directory's absolute path. GNT_ERROR_INVALID for
 * anything else, GNT_ERROR_NOT_FOUND when it is not there, and for a
 * symbolic link or a file. (transfer full)
 */
static gchar *
resolve_export(GntRpcNode *node, const gchar *path, GError **error)
{
	g_autofree gchar *base = export_dir(node);
	g_autofree gchar *dir = NULL;
	const gchar *name = path;
	GStatBuf st;

	if (g_path_is_absolute(path)) {
		gsize len = strlen(base);

		if (strncmp(path, base, len) != 0 || path[len] != '/') {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "export path '%s' is outside the export directory '%s'", path,
				    base);
			return NULL;
		}
		name = path + len + 1;
	}
	if (strchr(name, '/') != NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "export path '%s' must name one export right below '%s'", path, base);
		return NULL;
	}
	if (!gnt_rpc_node_check_name(name, "export name", error))
		return NULL;
	dir = g_build_filename(base, name, NULL);
	if (g_lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND, "no export '%s' in '%s'", name,
			    base);
		return NULL;
	}
	return g_steal_pointer(&dir);
}

/* A dump or description: never through a symbolic link; 0600. */
static int
open_nofollow(const gchar *path, int flags, GError **error)
{
	int fd = g_open(path, flags | O_NOFOLLOW | O_CLOEXEC, 0600);
	int errsv = errno;
	g_autofree gchar *what = NULL;

	if (fd >= 0)
		return fd;
	what = g_strdup_printf("opening '%s'", path);
	gnt_error_set_errno(error, errsv, what);
	return -1;
}

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		(void)close(*fd);
	*fd = -1;
}

static int
remove_entry_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path) != 0 && errno != ENOENT ? -1 : 0;
}

/* rm -r that never follows a link; a missing @path is fine. */
static gboolean
remove_tree(const gchar *path, GError **error)
{
	if (nftw(path, remove_entry_cb, 16, FTW_DEPTH | FTW_PHYS) != 0 && errno != ENOENT) {
		int errsv = errno;
		g_autofree gchar *what = g_strdup_printf("removing '%s'", path);

		gnt_error_set_errno(error, errsv, what);
		return FALSE;
	}
	return TRUE;
}

static gboolean
make_dir(const gchar *path, GError **error)
{
	if (g_mkdir_with_parents(path, 0700) != 0) {
		int errsv = errno;
		g_autofree gchar *what = g_strdup_printf("creating '%s'", path);

		gnt_error_set_errno(error, errsv, what);
		return FALSE;
	}
	return TRUE;
}

/* ---- running the scripts, through gzip or not ------------------------- */

/* gzip (-c, or -dc with @decompress) between @in_fd and @out_fd (closed
 * here once it runs, so that the script alone holds its end of the pipe),
 * its stderr kept for the error; running when TRUE. */
static gboolean
gzip_spawn(GntCommand *gzip, gboolean decompress, int in_fd, int out_fd, GError **error)
{
	gboolean ok;

	gnt_command_add_arg(gzip, decompress ? "-dc" : "-c");
	gnt_command_set_stdin_fd(gzip, in_fd);
	gnt_command_set_stdout_fd(gzip, out_fd);
	/* without a timeout: it ends with its pipe, or with noded */
	ok = gnt_command_spawn(gzip, error);
	(void)close(in_fd);
	(void)close(out_fd);
	return ok;
}

/*
 * Runs the export or import script of the spec's disk @index with @data_fd
 * (the dump, not taken) as its stdout or stdin, through gzip when
 * @compress says so.
 */
static gboolean
run_disk_script(GntRpcNode *node, GntRpcNodeSpec *spec, GntOsScript script, guint index,
		guint debug_level, int data_fd, const gchar *compress, GError **error)
{
	gboolean exporting = script == GNT_OS_SCRIPT_EXPORT;
	g_autoptr(GntOsDefinition) os = NULL;
	g_autoptr(GntOsEnv) env = NULL;
	g_autoptr(GntCommand) gzip = NULL;
	g_autofree gchar *stream = NULL;
	g_autofree gchar *log_file = NULL;
	g_autoptr(GError) gzip_error = NULL;
	GntOsRunOptions options = {
		.log_dir = node->os_log_dir,
		/* what the master waits for a disk, less a margin */
		.timeout_s = gnt_rpc_procedure_def_lookup("export_disk")->timeout_s -
			     GNT_RPC_SCRIPT_MARGIN_S,
	};
	int pipe_fds[2] = {-1, -1};
	int script_fd = data_fd;
	gboolean started;
	gboolean ok;

	env = gnt_rpc_node_spec_new_os_env(spec, debug_level, NULL, &os, error);
	if (env == NULL)
		return FALSE;
	gnt_os_env_set_disk_index(env, index);
	if (g_strcmp0(compress, "gzip") == 0) {
		int dup_fd = dup(data_fd);

		if (dup_fd < 0 || !g_unix_open_pipe(pipe_fds, FD_CLOEXEC, error)) {
			if (dup_fd < 0)
				gnt_error_set_errno(error, errno,
						    "duplicating the dump's descriptor");
			else
				(void)close(dup_fd);
			return FALSE;
		}
		/* export: script | gzip -c > dump; import: gzip -dc < dump | script */
		gzip = gnt_command_new("gzip");
		started = exporting ? gzip_spawn(gzip, FALSE, pipe_fds[0], dup_fd, error)
				    : gzip_spawn(gzip, TRUE, dup_fd, pipe_fds[1], error);
		script_fd = exporting ? pipe_fds[1] : pipe_fds[0];
		if (exporting)
			pipe_fds[0] = -1;
		else
			pipe_fds[1] = -1;
		if (!started) {
			close_fd(&pipe_fds[0]);
			close_fd(&pipe_fds[1]);
			return FALSE;
		}
	}
	stream = g_strdup_printf("/proc/self/fd/%d", script_fd);
	if (exporting)
		options.output_path = stream;
	else
		options.input_path = stream;
	ok = gnt_os_script_run(os, script, env, &options, &log_file, error);
	/* gzip sees the end of its input, or the script's reading end goes */
	close_fd(&pipe_fds[0]);
	close_fd(&pipe_fds[1]);
	if (gzip != NULL) {
		gnt_command_wait(gzip);
		if (!gnt_command_check_success(gzip, &gzip_error) && ok) {
			g_propagate_error(error, g_steal_pointer(&gzip_error));
			ok = FALSE;
		}
	}
	if (!ok) {
		g_prefix_error(error, "instance '%s' disk %u: ", spec->name, index);
		return FALSE;
	}
	g_info("OS %s script of instance '%s' disk %u done, log in %s",
	       gnt_os_script_to_string(script), spec->name, index, log_file);
	return TRUE;
}

/* ---- config.ini: Python's ConfigParser format ------------------------- */

/* str() of a JSON value, as Python prints it. (transfer full) */
static gchar *
ini_value(JsonNode *node)
{
	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return g_strdup("None");
	if (JSON_NODE_HOLDS_VALUE(node)) {
		switch (json_node_get_value_type(node)) {
		case G_TYPE_BOOLEAN:
			return g_strdup(json_node_get_boolean(node) ? "True" : "False");
		case G_TYPE_INT64:
			return g_strdup_printf("%" G_GINT64_FORMAT, json_node_get_int(node));
		case G_TYPE_DOUBLE:
			return gnt_json_format_double(json_node_get_double(node));
		case G_TYPE_STRING:
			return g_strdup(json_node_get_string(node));
		default:
			break;
		}
	}
	return gnt_json_to_string(node);
}

/* "key = value", a value's newlines continued on tab-indented lines. */
static void
ini_add(GString *out, const gchar *key, const gchar *value)
{
	g_autofree gchar *lower = g_ascii_strdown(key, -1);

	g_string_append_printf(out, "%s = ", lower);
	for (const gchar *p = value; *p != '\0'; p++) {
		g_string_append_c(out, *p);
		if (*p == '\n')
			g_string_append_c(out, '\t');
	}
	g_string_append_c(out, '\n');
}

static void
ini_add_node(GString *out, const gchar *key, JsonNode *value)
{
	g_autofree gchar *text = ini_value(value);

	ini_add(out, key, text);
}

static void
ini_add_printf(GString *out, const gchar *key, const gchar *format, ...) G_GNUC_PRINTF(3, 4);

static void
ini_add_printf(GString *out, const gchar *key, const gchar *format, ...)
{
	g_autofree gchar *text = NULL;
	va_list args;

	va_start(args, format);
	text = g_strdup_vprintf(format, args);
	va_end(args);
	ini_add(out, key, text);
}

/* A section of every member of @params. */
static void
ini_add_object_section(GString *out, const gchar *section, JsonObject *params)
{
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *value;

	g_string_append_printf(out, "\n[%s]\n", section);
	json_object_iter_init_ordered(&iter, params);
	while (json_object_iter_next_ordered(&iter, &key, &value))
		ini_add_node(out, key, value);
}

/* @value, or Python's None for NULL. */
static void
ini_add_string(GString *out, const gchar *key, const gchar *value)
{
	ini_add(out, key, value != NULL ? value : "None");
}

static JsonNode *
object_member(JsonObject *obj, const gchar *member)
{
	return obj != NULL ? json_object_get_member(obj, member) : NULL;
}

/* The NIC lines of the export's [instance] section. */
static void
ini_add_nics(GString *out, GPtrArray *nics)
{
	for (guint i = 0; i < nics->len; i++) {
		const GntNic *nic = g_ptr_array_index(nics, i);
		const struct {
			const gchar *key;
			const gchar *value;
		} fields[] = {
			{"mac", nic->mac},
			{"ip", nic->ip},
			{"network", nic->network},
			{"name", nic->name},
			{"mode", nic->has_mode ? gnt_nic_mode_to_string(nic->mode) : NULL},
			{"link", nic->link},
		};

		for (guint k = 0; k < G_N_ELEMENTS(fields); k++) {
			g_autofree gchar *key = g_strdup_printf("nic%u_%s", i, fields[k].key);

			ini_add_string(out, key, fields[k].value);
		}
	}
	ini_add_printf(out, "nic_count", "%u", nics->len);
}

/* Ganeti's FinalizeExport layout for the spec's instance. (transfer full) */
static gchar *
ini_describe(GntRpcNodeSpec *spec, const gchar *compress)
{
	const GntInstance *record = spec->instance;
	g_autoptr(GString) out = g_string_new("[export]\n");
	g_autofree gchar *tag_list = g_strjoinv(" ", record->tags);

	ini_add_printf(out, "version", "%d", BACKUP_EXPORT_VERSION);
	ini_add_printf(out, "timestamp", "%" G_GINT64_FORMAT, g_get_real_time() / G_USEC_PER_SEC);
	ini_add_string(out, "source", record->primary_node);
	ini_add_string(out, "os", record->os);
	ini_add(out, "compression", compress);

	g_string_append(out, "\n[instance]\n");
	ini_add(out, "name", spec->name);
	ini_add_node(out, "maxmem", object_member(spec->beparams, "maxmem"));
	ini_add_node(out, "minmem", object_member(spec->beparams, "minmem"));
	/* deprecated, for older Ganeti versions, as Ganeti writes it */
	ini_add_node(out, "memory", object_member(spec->beparams, "maxmem"));
	ini_add_node(out, "vcpus", object_member(spec->beparams, "vcpus"));
	ini_add(out, "disk_template", gnt_disk_template_to_string(record->disk_template));
	ini_add(out, "hypervisor", spec->hypervisor);
	ini_add(out, "tags", tag_list);
	ini_add_nics(out, record->nics);
	for (guint i = 0; i < spec->disks->len; i++) {
		const GntDiskSpec *disk = g_ptr_array_index(spec->disks, i);
		const GntDisk *disk_record = g_ptr_array_index(record->disks, i);
		g_autofree gchar *ivname = g_strdup_printf("disk%u_ivname", i);
		g_autofree gchar *dump = g_strdup_printf("disk%u_dump", i);
		g_autofree gchar *size = g_strdup_printf("disk%u_size", i);
		g_autofree gchar *name = g_strdup_printf("disk%u_name", i);
		g_autofree gchar *file = dump_name(i, compress);

		ini_add_string(out, ivname, disk_record->iv_name);
		ini_add(out, dump, file);
		ini_add_printf(out, size, "%" G_GUINT64_FORMAT, disk->size_mib);
		ini_add_string(out, name, disk_record->name);
		/* Gantry's own: a file disk's format, for the import */
		if (disk_record->has_format) {
			g_autofree gchar *format = g_strdup_printf("disk%u_format", i);

			ini_add(out, format, gnt_disk_format_to_string(disk_record->format));
		}
	}
	ini_add_printf(out, "disk_count", "%u", spec->disks->len);
	ini_add_object_section(out, "hypervisor", record->hvparams);
	ini_add_object_section(out, "backend", record->beparams);
	ini_add_object_section(out, "os", record->osparams);
	ini_add_object_section(out, "os_private", record->osparams_private);
	return g_string_free(g_steal_pointer(&out), FALSE);
}

/*
 * Reads ConfigParser text: "[section]" lines, "key = value" or "key:
 * value" (keys lower-cased, as Python does), comments starting with '#'
 * or ';', values continued on indented lines. {section: {key: value}}.
 * (transfer full)
 */
static JsonObject *
ini_parse(const gchar *text, const gchar *file, GError **error)
{
	g_autoptr(JsonObject) sections = json_object_new();
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	JsonObject *section = NULL;
	g_autofree gchar *last_key = NULL;

	for (guint n = 0; lines[n] != NULL; n++) {
		gchar *line = lines[n];
		gsize len;
		gchar *sep;
		g_autofree gchar *key = NULL;

		g_strchomp(line);
		if (line[0] == '\0' || line[0] == '#' || line[0] == ';')
			continue;
		if ((line[0] == ' ' || line[0] == '\t') && section != NULL && last_key != NULL) {
			const gchar *prev = json_object_get_string_member(section, last_key);
			g_autofree gchar *joined = g_strconcat(prev, "\n", g_strchug(line), NULL);

			json_object_set_string_member(section, last_key, joined);
			continue;
		}
		len = strlen(line);
		if (line[0] == '[' && line[len - 1] == ']') {
			line[len - 1] = '\0';
			if (!json_object_has_member(sections, line + 1))
				json_object_set_object_member(sections, line + 1,
							      json_object_new());
			section = json_object_get_object_member(sections, line + 1);
			g_clear_pointer(&last_key, g_free);
			continue;
		}
		sep = strpbrk(line, "=:");
		if (section == NULL || sep == NULL || sep == line) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "'%s' line %u: neither a section nor 'key = value'", file,
				    n + 1);
			return NULL;
		}
		*sep = '\0';
		key = g_ascii_strdown(g_strstrip(line), -1);
		json_object_set_string_member(section, key, g_strstrip(sep + 1));
		g_free(last_key);
		last_key = g_steal_pointer(&key);
	}
	return g_steal_pointer(&sections);
}

/* ---- the procedures --------------------------------------------------- */

/* The spec of an instance with an OS, and its disk @index ("disk_index"). */
static GntRpcNodeSpec *
parse_disk_args(const GntRpcArgs *args, guint *index, GError **error)
{
	g_autoptr(GntRpcNodeSpec) spec = gnt_rpc_node_spec_parse(args, error);

	*index = (guint)gnt_rpc_args_get_uint(args, "disk_index");
	if (spec == NULL)
		return NULL;
	if (*index >= spec->disks->len) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "instance '%s' has no disk %u (it has %u)", spec->name, *index,
			    spec->disks->len);
		return NULL;
	}
	return g_steal_pointer(&spec);
}

/* export_disk [spec, disk index, compress, debug level]: the export script
 * of that disk into <export>/<instance>.new/disk<N>.dump[.gz].
 * {"dump": file name} */
static JsonNode *
export_disk_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	GntRpcNode *node = user_data;
	g_autoptr(GntRpcNodeSpec) spec = NULL;
	g_autofree gchar *base = export_dir(node);
	g_autofree gchar *dir = NULL;
	g_autofree gchar *name = NULL;
	g_autofree gchar *path = NULL;
	const gchar *compress = gnt_rpc_args_get_string(args, "compress");
	guint index = 0;
	guint debug_level = (guint)gnt_rpc_args_get_uint(args, "debug_level");
	int fd;
	gboolean ok;
	JsonObject *result;

	if ((spec = parse_disk_args(args, &index, error)) == NULL ||
	    !check_compress(compress, error))
		return NULL;
	dir = g_strconcat(base, "/", spec->name, BACKUP_NEW_SUFFIX, NULL);
	name = dump_name(index, compress);
	path = g_build_filename(dir, name, NULL);
	if (!make_dir(dir, error))
		return NULL;
	(void)g_unlink(path);
	fd = open_nofollow(path, O_WRONLY | O_CREAT | O_EXCL, error);
	if (fd < 0)
		return NULL;
	ok = run_disk_script(node, spec, GNT_OS_SCRIPT_EXPORT, index, debug_level, fd, compress,
			     error);
	if (ok && fsync(fd) != 0) {
		g_autofree gchar *what = g_strdup_printf("writing '%s'", path);

		gnt_error_set_errno(error, errno, what);
		ok = FALSE;
	}
	close_fd(&fd);
	if (!ok)
		return NULL;
	result = json_object_new();
	json_object_set_string_member(result, "dump", name);
	return gnt_json_node_new_object(result);
}

/* Writes @text to @path (0600), synced. */
static gboolean
write_synced(const gchar *path, const gchar *text, GError **error)
{
	gsize len = strlen(text);
	gsize done = 0;
	int fd = open_nofollow(path, O_WRONLY | O_CREAT | O_TRUNC, error);

	if (fd < 0)
		return FALSE;
	while (done < len) {
		gssize n = write(fd, text + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		done += (gsize)n;
	}
	if (done < len || fsync(fd) != 0) {
		int errsv = errno;
		g_autofree gchar *what = g_strdup_printf("writing '%s'", path);

		close_fd(&fd);
		gnt_error_set_errno(error, errsv, what);
		return FALSE;
	}
	close_fd(&fd);
	return TRUE;
}

static gboolean
rename_checked(const gchar *from, const gchar *to, GError **error)
{
	if (g_rename(from, to) != 0) {
		int errsv = errno;
		g_autofree gchar *what = g_strdup_printf("renaming '%s' to '%s'", from, to);

		gnt_error_set_errno(error, errsv, what);
		return FALSE;
	}
	return TRUE;
}

/* export_finalize [spec, compress]: config.ini into <instance>.new, which
 * then replaces <instance> (an older export of it goes). null */
static JsonNode *
export_finalize_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	GntRpcNode *node = user_data;
	g_autoptr(GntRpcNodeSpec) spec = NULL;
	g_autofree gchar *base = export_dir(node);
	g_autofree gchar *final = NULL;
	g_autofree gchar *fresh = NULL;
	g_autofree gchar *old = NULL;
	g_autofree gchar *config = NULL;
	g_autofree gchar *text = NULL;
	const gchar *compress = gnt_rpc_args_get_string(args, "compress");
	gboolean had_old;

	if ((spec = gnt_rpc_node_spec_parse(args, error)) == NULL ||
	    !check_compress(compress, error))
		return NULL;
	final = g_build_filename(base, spec->name, NULL);
	fresh = g_strconcat(final, BACKUP_NEW_SUFFIX, NULL);
	old = g_strconcat(final, BACKUP_OLD_SUFFIX, NULL);
	config = g_build_filename(fresh, BACKUP_CONFIG_FILE, NULL);
	text = ini_describe(spec, compress);
	if (!make_dir(fresh, error) || !write_synced(config, text, error) ||
	    !remove_tree(old, error))
		return NULL;
	had_old = g_file_test(final, G_FILE_TEST_EXISTS);
	if (had_old && !rename_checked(final, old, error))
		return NULL;
	if (!rename_checked(fresh, final, error)) {
		if (had_old)
			(void)g_rename(old, final);
		return NULL;
	}
	if (had_old && !remove_tree(old, error))
		return NULL;
	g_info("instance '%s' exported to '%s'", spec->name, final);
	return gnt_json_node_new_null();
}

/* Whether @name in @base is a finished export: a directory (not a link)
 * with a config.ini, not one being written. */
static gboolean
is_export(const gchar *base, const gchar *name)
{
	g_autofree gchar *dir = g_build_filename(base, name, NULL);
	g_autofree gchar *config = g_build_filename(dir, BACKUP_CONFIG_FILE, NULL);
	GStatBuf st;

	if (name[0] == '.' || g_str_has_suffix(name, BACKUP_NEW_SUFFIX) ||
	    g_str_has_suffix(name, BACKUP_OLD_SUFFIX))
		return FALSE;
	return g_lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && g_lstat(config, &st) == 0 &&
	       S_ISREG(st.st_mode);
}

static gint
compare_names(gconstpointer a, gconstpointer b)
{
	return g_strcmp0(*(const gchar *const *)a, *(const gchar *const *)b);
}

/* export_list []: the names of the finished exports, sorted. */
static JsonNode *
export_list_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	g_autofree gchar *base = export_dir(user_data);
	g_autoptr(GDir) dir = NULL;
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GError) open_error = NULL;
	JsonArray *result = json_array_new();
	const gchar *name;

	dir = g_dir_open(base, 0, &open_error);
	while (dir != NULL && (name = g_dir_read_name(dir)) != NULL) {
		if (is_export(base, name))
			g_ptr_array_add(names, g_strdup(name));
	}
	g_ptr_array_sort(names, compare_names);
	for (guint i = 0; i < names->len; i++)
		json_array_add_string_element(result, g_ptr_array_index(names, i));
	return gnt_json_node_new_array(result);
}

/* export_info [path]: {"path": the export's directory, "sections": the
 * config.ini as {section: {key: value}}}. */
static JsonNode *
export_info_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	const gchar *path = gnt_rpc_args_get_string(args, "path");
	g_autofree gchar *dir = NULL;
	g_autofree gchar *config = NULL;
	g_autofree gchar *text = NULL;
	g_autoptr(JsonObject) sections = NULL;
	gsize len = 0;
	int fd;
	JsonObject *result;

	if ((dir = resolve_export(user_data, path, error)) == NULL)
		return NULL;
	config = g_build_filename(dir, BACKUP_CONFIG_FILE, NULL);
	fd = open_nofollow(config, O_RDONLY, error);
	if (fd < 0) {
		g_prefix_error(error, "export '%s' has no description: ", path);
		return NULL;
	}
	text = g_malloc(BACKUP_CONFIG_MAX_BYTES + 1);
	while (len < BACKUP_CONFIG_MAX_BYTES) {
		gssize n = read(fd, text + len, BACKUP_CONFIG_MAX_BYTES - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (gsize)n;
	}
	close_fd(&fd);
	text[len] = '\0';
	if (len == BACKUP_CONFIG_MAX_BYTES || !g_utf8_validate(text, (gssize)len, NULL)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "'%s' is not an export description (too large or not text)", config);
		return NULL;
	}
	sections = ini_parse(text, config, error);
	if (sections == NULL)
		return NULL;
	if (!json_object_has_member(sections, "export") ||
	    !json_object_has_member(sections, "instance")) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "'%s' lacks the [export] or [instance] section", config);
		return NULL;
	}
	result = json_object_new();
	json_object_set_string_member(result, "path", dir);
	json_object_set_object_member(result, "sections", g_steal_pointer(&sections));
	return gnt_json_node_new_object(result);
}

/* export_remove [name]: removes the export (or an unfinished
 * "<name>.new"). true when there was one. */
static JsonNode *
export_remove_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	g_autofree gchar *base = export_dir(user_data);
	g_autofree gchar *dir = NULL;
	const gchar *name = gnt_rpc_args_get_string(args, "name");
	GStatBuf st;
	gboolean there;

	if (!gnt_rpc_node_check_name(name, "export name", error))
		return NULL;
	dir = g_build_filename(base, name, NULL);
	there = g_lstat(dir, &st) == 0;
	if (there && !remove_tree(dir, error))
		return NULL;
	if (there)
		g_info("export '%s' removed", dir);
	return gnt_json_node_new_bool(there);
}

/* import_disk [spec, disk index, export path, dump file, compress, debug
 * level]: the import script of that disk, the dump on its stdin. null */
static JsonNode *
import_disk_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	GntRpcNode *node = user_data;
	g_autoptr(GntRpcNodeSpec) spec = NULL;
	g_autofree gchar *dir = NULL;
	g_autofree gchar *path = NULL;
	const gchar *src = gnt_rpc_args_get_string(args, "src_path");
	const gchar *dump = gnt_rpc_args_get_string(args, "dump");
	const gchar *compress = gnt_rpc_args_get_string(args, "compress");
	guint index = 0;
	guint debug_level = (guint)gnt_rpc_args_get_uint(args, "debug_level");
	int fd;
	gboolean ok;

	if ((spec = parse_disk_args(args, &index, error)) == NULL ||
	    !check_compress(compress, error) || (dir = resolve_export(node, src, error)) == NULL ||
	    !gnt_rpc_node_check_name(dump, "dump file name", error))
		return NULL;
	path = g_build_filename(dir, dump, NULL);
	fd = open_nofollow(path, O_RDONLY, error);
	if (fd < 0)
		return NULL;
	ok = run_disk_script(node, spec, GNT_OS_SCRIPT_IMPORT, index, debug_level, fd, compress,
			     error);
	close_fd(&fd);
	return ok ? gnt_json_node_new_null() : NULL;
}

const GntRpcProcedure gnt_rpc_node_backup_procedures[] = {
	{"export_disk", export_disk_procedure},
	{"export_finalize", export_finalize_procedure},
	{"export_list", export_list_procedure},
	{"export_info", export_info_procedure},
	{"export_remove", export_remove_procedure},
	{"import_disk", import_disk_procedure},
	{NULL},
};
