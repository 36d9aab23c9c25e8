#include "gnt-os-definition.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

#include "gnt-error.h"
#include "gnt-json.h"

static const gchar *const script_names[] = {
	[GNT_OS_SCRIPT_CREATE] = "create", [GNT_OS_SCRIPT_IMPORT] = "import",
	[GNT_OS_SCRIPT_EXPORT] = "export", [GNT_OS_SCRIPT_RENAME] = "rename",
	[GNT_OS_SCRIPT_VERIFY] = "verify",
};
G_STATIC_ASSERT(G_N_ELEMENTS(script_names) == GNT_OS_SCRIPT_LAST);

static const gchar *const default_search_path[] = {
	"/srv/ganeti/os",
	"/usr/local/lib/ganeti/os",
	"/usr/lib/ganeti/os",
	"/usr/share/ganeti/os",
	NULL,
};

static const gint supported_versions[] = {GNT_OS_API_V10, GNT_OS_API_V15, GNT_OS_API_V20};

const gchar *
gnt_os_script_to_string(GntOsScript script)
{
	g_return_val_if_fail(script < GNT_OS_SCRIPT_LAST, NULL);
	return script_names[script];
}

const gchar *const *
gnt_os_get_default_search_path(void)
{
	return default_search_path;
}

void
gnt_os_definition_free(GntOsDefinition *self)
{
	if (self == NULL)
		return;
	g_free(self->name);
	g_free(self->path);
	g_free(self->diagnose);
	g_clear_pointer(&self->api_versions, g_array_unref);
	g_strfreev(self->variants);
	g_strfreev(self->parameters);
	g_strfreev(self->parameter_docs);
	for (guint i = 0; i < GNT_OS_SCRIPT_LAST; i++)
		g_free(self->scripts[i]);
	g_free(self->untrusted_create);
	g_free(self);
}

static GntOsDefinition *
definition_new(const gchar *name, const gchar *path)
{
	GntOsDefinition *self = g_new0(GntOsDefinition, 1);

	self->name = g_strdup(name);
	self->path = g_strdup(path);
	self->diagnose = g_strdup("");
	self->api_versions = g_array_new(FALSE, FALSE, sizeof(gint));
	self->variants = g_new0(gchar *, 1);
	self->parameters = g_new0(gchar *, 1);
	self->parameter_docs = g_new0(gchar *, 1);
	self->trusted = TRUE;
	return self;
}

GntOsDefinition *
gnt_os_definition_copy(const GntOsDefinition *self)
{
	GntOsDefinition *copy;

	g_return_val_if_fail(self != NULL, NULL);

	copy = definition_new(self->name, self->path);
	copy->valid = self->valid;
	g_free(copy->diagnose);
	copy->diagnose = g_strdup(self->diagnose);
	g_array_append_vals(copy->api_versions, self->api_versions->data, self->api_versions->len);
	copy->api_version = self->api_version;
	g_strfreev(copy->variants);
	copy->variants = g_strdupv(self->variants);
	g_strfreev(copy->parameters);
	copy->parameters = g_strdupv(self->parameters);
	g_strfreev(copy->parameter_docs);
	copy->parameter_docs = g_strdupv(self->parameter_docs);
	copy->trusted = self->trusted;
	for (guint i = 0; i < GNT_OS_SCRIPT_LAST; i++)
		copy->scripts[i] = g_strdup(self->scripts[i]);
	copy->has_create = self->has_create;
	copy->untrusted_create = g_strdup(self->untrusted_create);
	return copy;
}

/* Ganeti's EXT_PLUGIN_MASK: ^[a-zA-Z0-9_-]+$ */
static gboolean
name_is_valid(const gchar *name)
{
	if (name == NULL || *name == '\0')
		return FALSE;
	for (const gchar *p = name; *p != '\0'; p++) {
		if (!g_ascii_isalnum(*p) && *p != '_' && *p != '-')
			return FALSE;
	}
	return TRUE;
}

/* Python's errno.errorcode[], which Ganeti's messages show. */
static const gchar *
errno_name(int errsv)
{
	switch (errsv) {
	case ENOENT:
		return "ENOENT";
	case EACCES:
		return "EACCES";
	case EPERM:
		return "EPERM";
	case ENOTDIR:
		return "ENOTDIR";
	case ELOOP:
		return "ELOOP";
	case ENAMETOOLONG:
		return "ENAMETOOLONG";
	case EIO:
		return "EIO";
	case EISDIR:
		return "EISDIR";
	default:
		return g_strerror(errsv);
	}
}

/* Marks @self invalid with the reason given. Returns @self. */
static GntOsDefinition *
definition_fail(GntOsDefinition *self, const gchar *format, ...) G_GNUC_PRINTF(2, 3);

static GntOsDefinition *
definition_fail(GntOsDefinition *self, const gchar *format, ...)
{
	va_list args;

	va_start(args, format);
	g_free(self->diagnose);
	self->diagnose = g_strdup_vprintf(format, args);
	va_end(args);
	self->valid = FALSE;
	g_array_set_size(self->api_versions, 0);
	self->api_version = 0;
	g_strfreev(self->variants);
	self->variants = g_new0(gchar *, 1);
	g_strfreev(self->parameters);
	self->parameters = g_new0(gchar *, 1);
	g_strfreev(self->parameter_docs);
	self->parameter_docs = g_new0(gchar *, 1);
	self->trusted = TRUE;
	for (guint i = 0; i < GNT_OS_SCRIPT_LAST; i++)
		g_clear_pointer(&self->scripts[i], g_free);
	self->has_create = FALSE;
	g_clear_pointer(&self->untrusted_create, g_free);
	return self;
}

static gboolean
read_file(const gchar *path, gchar **contents, int *errsv)
{
	g_autoptr(GError) error = NULL;

	if (g_file_get_contents(path, contents, NULL, &error))
		return TRUE;
	/* GFileError carries no errno; map back the ones messages name */
	switch (error->code) {
	case G_FILE_ERROR_NOENT:
		*errsv = ENOENT;
		break;
	case G_FILE_ERROR_ACCES:
		*errsv = EACCES;
		break;
	case G_FILE_ERROR_ISDIR:
		*errsv = EISDIR;
		break;
	default:
		*errsv = EIO;
		break;
	}
	return FALSE;
}

/* Python's int() on one line: optional surrounding whitespace, an optional
 * sign, decimal digits. */
static gboolean
parse_api_line(const gchar *line, gint *out)
{
	g_autofree gchar *text = g_strstrip(g_strdup(line));
	gint64 value = 0;

	if (!g_ascii_string_to_signed(text, 10, G_MININT, G_MAXINT, &value, NULL))
		return FALSE;
	*out = (gint)value;
	return TRUE;
}

/* _OSOndiskAPIVersion: fills @self->api_versions or fails @self. */
static gboolean
read_api_versions(GntOsDefinition *self)
{
	g_autofree gchar *file = g_build_filename(self->path, GNT_OS_API_FILE, NULL);
	g_autofree gchar *contents = NULL;
	g_auto(GStrv) lines = NULL;
	GStatBuf st;
	int errsv = 0;
	guint n;

	if (g_stat(file, &st) != 0) {
		errsv = errno;
		definition_fail(self, "Required file '%s' not found under path %s: %s",
				GNT_OS_API_FILE, self->path, errno_name(errsv));
		return FALSE;
	}
	if (!S_ISREG(st.st_mode)) {
		definition_fail(self, "File '%s' in %s is not a regular file", GNT_OS_API_FILE,
				self->path);
		return FALSE;
	}
	if (!read_file(file, &contents, &errsv)) {
		definition_fail(self, "Error while reading the API version file at %s: %s", file,
				errno_name(errsv));
		return FALSE;
	}
	/* Python's splitlines(): no empty last element after a final newline */
	lines = g_strsplit(contents, "\n", -1);
	n = g_strv_length(lines);
	if (n > 0 && *lines[n - 1] == '\0')
		n--;
	for (guint i = 0; i < n; i++) {
		gint version = 0;

		if (!parse_api_line(lines[i], &version)) {
			g_autofree gchar *text = g_strstrip(g_strdup(lines[i]));

			definition_fail(self,
					"API version(s) can't be converted to integer: "
					"invalid literal for int() with base 10: '%s'",
					text);
			return FALSE;
		}
		g_array_append_val(self->api_versions, version);
	}
	return TRUE;
}

static gint
api_versions_max(GArray *versions)
{
	gint max = G_MININT;

	for (guint i = 0; i < versions->len; i++)
		max = MAX(max, g_array_index(versions, gint, i));
	return max;
}

static guint
api_versions_common(GArray *versions)
{
	guint best = 0;

	for (guint i = 0; i < versions->len; i++) {
		gint v = g_array_index(versions, gint, i);

		for (guint j = 0; j < G_N_ELEMENTS(supported_versions); j++) {
			if (v == supported_versions[j])
				best = MAX(best, (guint)v);
		}
	}
	return best;
}

static gchar *
api_versions_to_string(GArray *versions)
{
	g_autoptr(GString) str = g_string_new("[");

	for (guint i = 0; i < versions->len; i++)
		g_string_append_printf(str, "%s%d", i > 0 ? ", " : "",
				       g_array_index(versions, gint, i));
	g_string_append_c(str, ']');
	return g_string_free(g_steal_pointer(&str), FALSE);
}

typedef enum {
	FILE_ABSENT,  /* optional and missing */
	FILE_PRESENT, /* checked */
	FILE_BAD,     /* @self failed */
} FileState;

/* One entry of _TryOSFromDisk's os_files loop. */
static FileState
check_file(GntOsDefinition *self, const gchar *filename, gboolean required, gboolean script)
{
	g_autofree gchar *file = g_build_filename(self->path, filename, NULL);
	GStatBuf st;

	if (g_stat(file, &st) != 0) {
		int errsv = errno;

		if (errsv == ENOENT && !required)
			return FILE_ABSENT;
		definition_fail(self, "File '%s' under path '%s' is missing (%s)", filename,
				self->path, errno_name(errsv));
		return FILE_BAD;
	}
	if (!S_ISREG(st.st_mode)) {
		definition_fail(self, "File '%s' under path '%s' is not a regular file", filename,
				self->path);
		return FILE_BAD;
	}
	if (script && (st.st_mode & S_IXUSR) == 0) {
		definition_fail(self, "File '%s' under path '%s' is not executable", filename,
				self->path);
		return FILE_BAD;
	}
	return FILE_PRESENT;
}

static gboolean
read_variants(GntOsDefinition *self)
{
	g_autofree gchar *file = g_build_filename(self->path, GNT_OS_VARIANTS_FILE, NULL);
	g_autofree gchar *contents = NULL;
	g_autoptr(GPtrArray) variants = g_ptr_array_new_with_free_func(g_free);
	g_auto(GStrv) lines = NULL;
	int errsv = 0;

	if (!read_file(file, &contents, &errsv)) {
		if (errsv == ENOENT)
			return TRUE;
		definition_fail(self, "Error while reading the OS variants file at %s: %s", file,
				errno_name(errsv));
		return FALSE;
	}
	lines = g_strsplit(contents, "\n", -1);
	for (guint i = 0; lines[i] != NULL; i++) {
		gchar *line = g_strstrip(lines[i]);

		if (*line != '\0' && *line != '#')
			g_ptr_array_add(variants, g_strdup(line));
	}
	g_ptr_array_add(variants, NULL);
	g_strfreev(self->variants);
	self->variants = (GStrv)g_ptr_array_free(g_steal_pointer(&variants), FALSE);
	return TRUE;
}

static gboolean
read_parameters(GntOsDefinition *self)
{
	g_autofree gchar *file = g_build_filename(self->path, GNT_OS_PARAMETERS_FILE, NULL);
	g_autofree gchar *contents = NULL;
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) docs = g_ptr_array_new_with_free_func(g_free);
	g_auto(GStrv) lines = NULL;
	int errsv = 0;

	if (!read_file(file, &contents, &errsv)) {
		definition_fail(self, "Error while reading the OS parameters file at %s: %s", file,
				errno_name(errsv));
		return FALSE;
	}
	lines = g_strsplit(contents, "\n", -1);
	for (guint i = 0; lines[i] != NULL; i++) {
		/* Python's split(None, 1): name, then the rest without leading blanks */
		gchar *line = g_strstrip(lines[i]);
		gchar *rest = line;

		if (*line == '\0')
			continue;
		while (*rest != '\0' && !g_ascii_isspace(*rest))
			rest++;
		g_ptr_array_add(names, g_strndup(line, rest - line));
		g_ptr_array_add(docs, g_strdup(g_strchug(rest)));
	}
	g_ptr_array_add(names, NULL);
	g_ptr_array_add(docs, NULL);
	g_strfreev(self->parameters);
	self->parameters = (GStrv)g_ptr_array_free(g_steal_pointer(&names), FALSE);
	g_strfreev(self->parameter_docs);
	self->parameter_docs = (GStrv)g_ptr_array_free(g_steal_pointer(&docs), FALSE);
	return TRUE;
}

GntOsDefinition *
gnt_os_definition_read(const gchar *dir, const gchar *name)
{
	g_autofree gchar *path = NULL;
	GntOsDefinition *self;
	gboolean has_variants_file;
	gboolean has_parameters_file;
	gboolean has_untrusted = FALSE;
	gint max_version;

	g_return_val_if_fail(dir != NULL && name != NULL, NULL);

	path = g_build_filename(dir, name, NULL);
	self = definition_new(name, path);
	if (!name_is_valid(name) || !g_file_test(path, G_FILE_TEST_IS_DIR))
		return definition_fail(self, "Directory for OS %s not found in search path", name);
	if (!read_api_versions(self))
		return self;
	self->api_version = api_versions_common(self->api_versions);
	if (self->api_version == 0) {
		g_autofree gchar *found = api_versions_to_string(self->api_versions);

		return definition_fail(self,
				       "API version mismatch for path '%s': found %s, want "
				       "[10, 15, 20].",
				       path, found);
	}
	max_version = api_versions_max(self->api_versions);

	/* Ganeti's order: the scripts, then variants.list and parameters.list */
	switch (check_file(self, "create", FALSE, TRUE)) {
	case FILE_BAD:
		return self;
	case FILE_PRESENT:
		self->scripts[GNT_OS_SCRIPT_CREATE] = g_build_filename(path, "create", NULL);
		break;
	case FILE_ABSENT:
		break;
	}
	/* untrusted create scripts: Gantry's untrusted/create first, then
	 * Ganeti's create_untrusted */
	for (guint i = 0; i < 2 && !has_untrusted; i++) {
		const gchar *file = i == 0 ? GNT_OS_UNTRUSTED_CREATE : GNT_OS_CREATE_UNTRUSTED;

		switch (check_file(self, file, FALSE, TRUE)) {
		case FILE_BAD:
			return self;
		case FILE_PRESENT:
			has_untrusted = TRUE;
			self->untrusted_create = g_strdup(file);
			break;
		case FILE_ABSENT:
			break;
		}
	}
	for (GntOsScript s = GNT_OS_SCRIPT_IMPORT; s < GNT_OS_SCRIPT_LAST; s++) {
		if (s == GNT_OS_SCRIPT_VERIFY && max_version < GNT_OS_API_V20)
			continue;
		if (check_file(self, script_names[s], TRUE, TRUE) == FILE_BAD)
			return self;
		self->scripts[s] = g_build_filename(path, script_names[s], NULL);
	}
	has_variants_file = FALSE;
	if (max_version >= GNT_OS_API_V15) {
		FileState state = check_file(self, GNT_OS_VARIANTS_FILE, FALSE, FALSE);

		if (state == FILE_BAD)
			return self;
		has_variants_file = state == FILE_PRESENT;
	}
	has_parameters_file = FALSE;
	if (max_version >= GNT_OS_API_V20) {
		if (check_file(self, GNT_OS_PARAMETERS_FILE, TRUE, FALSE) == FILE_BAD)
			return self;
		has_parameters_file = TRUE;
	}
	if (self->scripts[GNT_OS_SCRIPT_CREATE] == NULL && !has_untrusted)
		return definition_fail(self,
				       "A create script (trusted or untrusted) under path "
				       "'%s' must exist",
				       path);
	if (has_variants_file && !read_variants(self))
		return self;
	if (has_parameters_file && !read_parameters(self))
		return self;
	self->trusted = !has_untrusted;
	self->has_create = self->scripts[GNT_OS_SCRIPT_CREATE] != NULL;
	self->valid = TRUE;
	return self;
}

const gchar *const gnt_os_install_parameters[] = {
	"os-image", "os-package", "os-package-username", "os-package-password", NULL,
};

gchar *
gnt_os_definition_get_untrusted_create(const GntOsDefinition *self)
{
	g_return_val_if_fail(self != NULL, NULL);

	return self->untrusted_create != NULL
		       ? g_build_filename(self->path, self->untrusted_create, NULL)
		       : NULL;
}

void
gnt_os_split_name(const gchar *os_name, gchar **name, gchar **variant)
{
	const gchar *delim;

	g_return_if_fail(os_name != NULL);

	delim = strchr(os_name, GNT_OS_VARIANT_DELIM);
	if (name != NULL)
		*name = delim != NULL ? g_strndup(os_name, delim - os_name) : g_strdup(os_name);
	if (variant != NULL)
		*variant = g_strdup(delim != NULL ? delim + 1 : "");
}

GntOsDefinition *
gnt_os_definition_find(const gchar *const *search_path, const gchar *os_name, GError **error)
{
	g_autofree gchar *name = NULL;

	g_return_val_if_fail(search_path != NULL && os_name != NULL, NULL);

	gnt_os_split_name(os_name, &name, NULL);
	if (!name_is_valid(name)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "invalid OS name '%s'", os_name);
		return NULL;
	}
	for (guint i = 0; search_path[i] != NULL; i++) {
		g_autofree gchar *path = g_build_filename(search_path[i], name, NULL);
		g_autoptr(GntOsDefinition) self = NULL;

		if (!g_file_test(path, G_FILE_TEST_IS_DIR))
			continue;
		self = gnt_os_definition_read(search_path[i], name);
		if (!self->valid) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
				    "OS '%s' is invalid: %s", name, self->diagnose);
			return NULL;
		}
		return g_steal_pointer(&self);
	}
	g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND,
		    "Directory for OS %s not found in search path", name);
	return NULL;
}

static gint
compare_by_name(gconstpointer a, gconstpointer b)
{
	const GntOsDefinition *da = *(const GntOsDefinition *const *)a;
	const GntOsDefinition *db = *(const GntOsDefinition *const *)b;

	return strcmp(da->name, db->name);
}

GPtrArray *
gnt_os_definition_discover(const gchar *const *search_path)
{
	g_autoptr(GPtrArray)
		result = g_ptr_array_new_with_free_func((GDestroyNotify)gnt_os_definition_free);
	g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);

	g_return_val_if_fail(search_path != NULL, NULL);

	for (guint i = 0; search_path[i] != NULL; i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(GDir) dir = NULL;
		const gchar *entry;

		if (!g_file_test(search_path[i], G_FILE_TEST_IS_DIR))
			continue;
		dir = g_dir_open(search_path[i], 0, &error);
		if (dir == NULL) {
			g_warning("cannot list the OS directory '%s': %s", search_path[i],
				  error->message);
			continue;
		}
		while ((entry = g_dir_read_name(dir)) != NULL) {
			GntOsDefinition *def;

			if (entry[0] == '.' || g_hash_table_contains(seen, entry))
				continue;
			def = gnt_os_definition_read(search_path[i], entry);
			g_ptr_array_add(result, def);
			g_hash_table_add(seen, def->name);
		}
	}
	g_ptr_array_sort(result, compare_by_name);
	return g_steal_pointer(&result);
}

gboolean
gnt_os_definition_check_variant(const GntOsDefinition *self, const gchar *os_name,
				gboolean force_variant, GError **error)
{
	g_autofree gchar *variant = NULL;

	g_return_val_if_fail(self != NULL && os_name != NULL, FALSE);

	if (force_variant)
		return TRUE;
	gnt_os_split_name(os_name, NULL, &variant);
	if (self->variants[0] == NULL) {
		if (*variant == '\0')
			return TRUE;
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "OS '%s' does not support variants ('%s' passed)", self->name, variant);
		return FALSE;
	}
	if (*variant == '\0') {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "OS name '%s' must include a variant", os_name);
		return FALSE;
	}
	if (!g_strv_contains((const gchar *const *)self->variants, variant)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "OS '%s' does not support variant '%s'", self->name, variant);
		return FALSE;
	}
	return TRUE;
}

gboolean
gnt_os_definition_check_parameters(const GntOsDefinition *self, const gchar *const *names,
				   GError **error)
{
	g_autoptr(GString) missing = NULL;

	g_return_val_if_fail(self != NULL && names != NULL, FALSE);

	/* Ganeti looks at the newest version in the file, not the one used */
	if (api_versions_max(self->api_versions) < GNT_OS_API_V20)
		return TRUE;
	for (guint i = 0; names[i] != NULL; i++) {
		if (g_strv_contains((const gchar *const *)self->parameters, names[i]) ||
		    g_strv_contains(gnt_os_install_parameters, names[i]))
			continue;
		if (missing == NULL)
			missing = g_string_new(names[i]);
		else
			g_string_append_printf(missing, ", %s", names[i]);
	}
	if (missing != NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "The following parameters are not supported by the OS %s: %s",
			    self->name, missing->str);
		return FALSE;
	}
	return TRUE;
}

const gchar *
gnt_os_definition_get_variant(const GntOsDefinition *self, const gchar *os_name)
{
	const gchar *delim;

	g_return_val_if_fail(self != NULL && os_name != NULL, NULL);

	if (self->api_version < GNT_OS_API_V15 || self->variants[0] == NULL)
		return "";
	delim = strchr(os_name, GNT_OS_VARIANT_DELIM);
	if (delim != NULL && delim[1] != '\0')
		return delim + 1;
	return self->variants[0];
}

JsonObject *
gnt_os_definition_to_json(const GntOsDefinition *self)
{
	JsonObject *obj = json_object_new();
	JsonArray *variants = json_array_new();
	JsonArray *parameters = json_array_new();
	JsonArray *versions = json_array_new();

	g_return_val_if_fail(self != NULL, obj);

	for (guint i = 0; self->variants[i] != NULL; i++)
		json_array_add_string_element(variants, self->variants[i]);
	for (guint i = 0; self->parameters[i] != NULL; i++) {
		JsonArray *pair = json_array_new();

		json_array_add_string_element(pair, self->parameters[i]);
		json_array_add_string_element(pair, self->parameter_docs[i]);
		json_array_add_array_element(parameters, pair);
	}
	for (guint i = 0; i < self->api_versions->len; i++)
		json_array_add_int_element(versions, g_array_index(self->api_versions, gint, i));
	json_object_set_string_member(obj, "name", self->name);
	json_object_set_string_member(obj, "path", self->path);
	json_object_set_boolean_member(obj, "status", self->valid);
	json_object_set_string_member(obj, "diagnose", self->diagnose);
	json_object_set_array_member(obj, "variants", variants);
	json_object_set_array_member(obj, "parameters", parameters);
	json_object_set_array_member(obj, "api_versions", versions);
	json_object_set_boolean_member(obj, "trusted", self->trusted);
	json_object_set_boolean_member(obj, "create", self->has_create);
	if (self->untrusted_create != NULL)
		json_object_set_string_member(obj, "untrusted_create", self->untrusted_create);
	else
		json_object_set_null_member(obj, "untrusted_create");
	return obj;
}

static gboolean
strv_from_json(JsonArray *array, const gchar *key, GPtrArray *out, GError **error)
{
	for (guint i = 0; i < json_array_get_length(array); i++) {
		const gchar *value = NULL;
		g_autofree gchar *what = g_strdup_printf("'%s' element %u", key, i);

		JsonNode *node = json_array_get_element(array, i);

		if (!gnt_json_node_get_string(node, what, &value, error))
			return FALSE;
		g_ptr_array_add(out, g_strdup(value));
	}
	return TRUE;
}

static gboolean
parameters_from_json(JsonArray *array, GPtrArray *names, GPtrArray *docs, GError **error)
{
	for (guint i = 0; i < json_array_get_length(array); i++) {
		JsonNode *node = json_array_get_element(array, i);
		JsonArray *pair;
		const gchar *name = NULL;
		const gchar *doc = NULL;

		if (!JSON_NODE_HOLDS_ARRAY(node) ||
		    json_array_get_length(pair = json_node_get_array(node)) != 2 ||
		    !gnt_json_node_get_string(json_array_get_element(pair, 0), "parameter name",
					      &name, NULL) ||
		    !gnt_json_node_get_string(json_array_get_element(pair, 1), "parameter doc",
					      &doc, NULL)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "'parameters' element %u must be a [name, description] pair",
				    i);
			return FALSE;
		}
		g_ptr_array_add(names, g_strdup(name));
		g_ptr_array_add(docs, g_strdup(doc));
	}
	return TRUE;
}

GntOsDefinition *
gnt_os_definition_from_json(JsonObject *obj, GError **error)
{
	g_autoptr(GntOsDefinition) self = NULL;
	g_autoptr(GPtrArray) variants = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) docs = g_ptr_array_new_with_free_func(g_free);
	const gchar *name = NULL;
	const gchar *path = NULL;
	const gchar *diagnose = NULL;
	JsonArray *variants_json = NULL;
	JsonArray *parameters_json = NULL;
	JsonArray *versions_json = NULL;

	g_return_val_if_fail(obj != NULL, NULL);

	if (!gnt_json_get_string(obj, "name", &name, error) ||
	    !gnt_json_get_string(obj, "path", &path, error) ||
	    !gnt_json_get_string(obj, "diagnose", &diagnose, error) ||
	    !gnt_json_get_array(obj, "variants", &variants_json, error) ||
	    !gnt_json_get_array(obj, "parameters", &parameters_json, error) ||
	    !gnt_json_get_array(obj, "api_versions", &versions_json, error)) {
		g_prefix_error(error, "OS: ");
		return NULL;
	}
	self = definition_new(name, path);
	g_free(self->diagnose);
	self->diagnose = g_strdup(diagnose);
	if (!gnt_json_get_bool(obj, "status", &self->valid, error) ||
	    !gnt_json_get_bool(obj, "trusted", &self->trusted, error) ||
	    !strv_from_json(variants_json, "variants", variants, error) ||
	    !parameters_from_json(parameters_json, names, docs, error)) {
		g_prefix_error(error, "OS '%s': ", name);
		return NULL;
	}
	/* Gantry's members: absent from an older node's answer */
	if (json_object_has_member(obj, "create") &&
	    !gnt_json_get_bool(obj, "create", &self->has_create, error)) {
		g_prefix_error(error, "OS '%s': ", name);
		return NULL;
	}
	if (json_object_has_member(obj, "untrusted_create") &&
	    !JSON_NODE_HOLDS_NULL(json_object_get_member(obj, "untrusted_create"))) {
		const gchar *untrusted = NULL;

		if (!gnt_json_get_string(obj, "untrusted_create", &untrusted, error)) {
			g_prefix_error(error, "OS '%s': ", name);
			return NULL;
		}
		if (g_strcmp0(untrusted, GNT_OS_UNTRUSTED_CREATE) != 0 &&
		    g_strcmp0(untrusted, GNT_OS_CREATE_UNTRUSTED) != 0) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "OS '%s': 'untrusted_create' must be '%s' or '%s', not '%s'",
				    name, GNT_OS_UNTRUSTED_CREATE, GNT_OS_CREATE_UNTRUSTED,
				    untrusted);
			return NULL;
		}
		self->untrusted_create = g_strdup(untrusted);
	}
	for (guint i = 0; i < json_array_get_length(versions_json); i++) {
		gint64 version = 0;
		gint value;

		if (!gnt_json_node_get_int(json_array_get_element(versions_json, i),
					   "'api_versions' element", &version, error)) {
			g_prefix_error(error, "OS '%s': ", name);
			return NULL;
		}
		if (version < G_MININT || version > G_MAXINT) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "OS '%s': 'api_versions' element %u is out of range", name, i);
			return NULL;
		}
		value = (gint)version;
		g_array_append_val(self->api_versions, value);
	}
	g_ptr_array_add(variants, NULL);
	g_strfreev(self->variants);
	self->variants = (GStrv)g_ptr_array_free(g_steal_pointer(&variants), FALSE);
	g_ptr_array_add(names, NULL);
	g_strfreev(self->parameters);
	self->parameters = (GStrv)g_ptr_array_free(g_steal_pointer(&names), FALSE);
	g_ptr_array_add(docs, NULL);
	g_strfreev(self->parameter_docs);
	self->parameter_docs = (GStrv)g_ptr_array_free(g_steal_pointer(&docs), FALSE);
	self->api_version = self->valid ? api_versions_common(self->api_versions) : 0;
	return g_steal_pointer(&self);
}
