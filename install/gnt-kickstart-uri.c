#include "gnt-kickstart-uri.h"

#include <string.h>

#include "gnt-error.h"

gboolean
gnt_kickstart_source_check(const gchar *source, GError **error)
{
	g_autoptr(GUri) uri = NULL;
	const gchar *scheme;

	g_return_val_if_fail(source != NULL, FALSE);
	if (strcmp(source, GNT_KICKSTART_SOURCE_DEFAULT) == 0)
		return TRUE;
	uri = g_uri_parse(source, G_URI_FLAGS_ENCODED | G_URI_FLAGS_HAS_PASSWORD, NULL);
	scheme = uri != NULL ? g_uri_get_scheme(uri) : NULL;
	if (scheme != NULL && g_ascii_strcasecmp(scheme, "file") == 0) {
		const gchar *host = g_uri_get_host(uri);
		const gchar *path = g_uri_get_path(uri);

		if ((host != NULL && *host != '\0') || path[0] != '/' ||
		    strstr(path, "/../") != NULL || g_str_has_suffix(path, "/..")) {
			g_set_error(
				error, GNT_ERROR, GNT_ERROR_INVALID,
				"kickstart template '%s': file:// takes an absolute path on the "
				"master (file:///PATH) under the cluster's kickstart directory",
				source);
			return FALSE;
		}
		return TRUE;
	}
	if (scheme == NULL ||
	    (g_ascii_strcasecmp(scheme, "http") != 0 && g_ascii_strcasecmp(scheme, "https") != 0) ||
	    g_uri_get_host(uri) == NULL || *g_uri_get_host(uri) == '\0') {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "kickstart template '%s' is neither file:///PATH, an http(s) URL nor "
			    "'default'",
			    source);
		return FALSE;
	}
	if (g_uri_get_user(uri) != NULL || g_uri_get_password(uri) != NULL) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "a kickstart template URL must not hold credentials (they "
				    "would show in logs and records)");
		return FALSE;
	}
	return TRUE;
}

gboolean
gnt_kickstart_source_check_dir(const gchar *source, const gchar *kickstart_dir, GError **error)
{
	g_autoptr(GUri) uri = NULL;
	g_autofree gchar *dir = NULL;
	g_autofree gchar *path = NULL;

	g_return_val_if_fail(source != NULL, FALSE);
	g_return_val_if_fail(kickstart_dir != NULL, FALSE);
	if (!gnt_kickstart_source_check(source, error))
		return FALSE;
	uri = g_uri_parse(source, G_URI_FLAGS_NONE, NULL);
	if (uri == NULL || g_ascii_strcasecmp(g_uri_get_scheme(uri), "file") != 0)
		return TRUE;
	/* ".." is refused above; this folds "//" and "/./" */
	dir = g_canonicalize_filename(kickstart_dir, "/");
	path = g_canonicalize_filename(g_uri_get_path(uri), "/");
	if (!g_str_has_prefix(path, dir) || (path[strlen(dir)] != '/' && strcmp(dir, "/") != 0) ||
	    strcmp(path, dir) == 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "kickstart template '%s' is not under the cluster's kickstart "
			    "directory '%s'",
			    source, dir);
		return FALSE;
	}
	return TRUE;
}

gboolean
gnt_kickstart_validate_source_param(JsonNode *value, GError **error)
{
	const gchar *source = json_node_get_string(value);

	return source == NULL || *source == '\0' || gnt_kickstart_source_check(source, error);
}
