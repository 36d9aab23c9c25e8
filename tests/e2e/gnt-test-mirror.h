#pragma once /* tests/e2e/gnt-test-mirror.h: the machine's apt mirror, for the e2e suite */

#include <libsoup/soup.h>

#include "gnt-test-cluster.h"

/* This machine's Debian codename (VERSION_CODENAME of /etc/os-release). */
static inline gchar *
gnt_test_dup_codename(void)
{
	g_autofree gchar *text = NULL;
	g_auto(GStrv) lines = NULL;

	if (!g_file_get_contents("/etc/os-release", &text, NULL, NULL))
		return NULL;
	lines = g_strsplit(text, "\n", -1);
	for (guint i = 0; lines[i] != NULL; i++) {
		if (g_str_has_prefix(lines[i], "VERSION_CODENAME="))
			return g_strdup(g_strstrip(lines[i] + strlen("VERSION_CODENAME=")));
	}
	return NULL;
}

static inline gboolean
gnt_test_is_http_uri(const gchar *uri)
{
	return g_str_has_prefix(uri, "http://") || g_str_has_prefix(uri, "https://");
}

/* The first "deb URI SUITE ..." line (one-line style) for @suite. */
static inline gchar *
gnt_test_mirror_from_list(const gchar *text, const gchar *suite)
{
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);

	for (guint i = 0; lines[i] != NULL; i++) {
		g_autofree gchar *line = g_strstrip(g_strdup(lines[i]));
		g_auto(GStrv) words = NULL;
		guint w = 1;

		if (!g_str_has_prefix(line, "deb ") && !g_str_has_prefix(line, "deb\t"))
			continue;
		words = g_strsplit_set(line, " \t", -1);
		while (words[w] != NULL && words[w][0] == '\0')
			w++;
		if (words[w] != NULL && words[w][0] == '[') { /* [arch=... signed-by=...] */
			while (words[w] != NULL && !g_str_has_suffix(words[w], "]"))
				w++;
			if (words[w] != NULL)
				w++;
		}
		while (words[w] != NULL && words[w][0] == '\0')
			w++;
		if (words[w] == NULL || !gnt_test_is_http_uri(words[w]))
			continue;
		for (guint s = w + 1; words[s] != NULL; s++) {
			if (words[s][0] == '\0')
				continue;
			if (g_strcmp0(words[s], suite) == 0)
				return g_strdup(words[w]);
			break; /* the suite is the word after the URI */
		}
	}
	return NULL;
}

/* The first deb822 stanza ("Types: deb", "URIs:", "Suites:") for @suite. */
static inline gchar *
gnt_test_mirror_from_sources(const gchar *text, const gchar *suite)
{
	g_auto(GStrv) stanzas = g_regex_split_simple("\\n\\s*\\n", text, 0, 0);

	for (guint i = 0; stanzas[i] != NULL; i++) {
		g_auto(GStrv) lines = g_strsplit(stanzas[i], "\n", -1);
		g_auto(GStrv) types = NULL;
		g_auto(GStrv) uris = NULL;
		g_auto(GStrv) suites = NULL;
		gboolean enabled = TRUE;

		for (guint l = 0; lines[l] != NULL; l++) {
			gchar *colon = strchr(lines[l], ':');
			g_autofree gchar *key = NULL;
			GStrv *slot = NULL;

			if (lines[l][0] == '#' || colon == NULL)
				continue;
			key = g_ascii_strdown(lines[l], colon - lines[l]);
			if (g_strcmp0(key, "types") == 0)
				slot = &types;
			else if (g_strcmp0(key, "uris") == 0)
				slot = &uris;
			else if (g_strcmp0(key, "suites") == 0)
				slot = &suites;
			else if (g_strcmp0(key, "enabled") == 0)
				enabled = g_ascii_strcasecmp(g_strstrip(colon + 1), "no") != 0;
			if (slot != NULL) {
				g_strfreev(*slot);
				*slot = g_regex_split_simple("\\s+", g_strstrip(colon + 1), 0, 0);
			}
		}
		if (enabled && types != NULL &&
		    g_strv_contains((const gchar *const *)types, "deb") && suites != NULL &&
		    g_strv_contains((const gchar *const *)suites, suite) && uris != NULL &&
		    uris[0] != NULL && gnt_test_is_http_uri(uris[0]))
			return g_strdup(uris[0]);
	}
	return NULL;
}

/* The mirror apt uses here for @suite: /etc/apt/sources.list, then
 * sources.list.d/ (*.list and *.sources, in name order). */
static inline gchar *
gnt_test_find_apt_mirror(const gchar *suite)
{
	g_autofree gchar *text = NULL;
	g_autoptr(GDir) dir = g_dir_open("/etc/apt/sources.list.d", 0, NULL);
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	const gchar *entry;

	if (g_file_get_contents("/etc/apt/sources.list", &text, NULL, NULL)) {
		gchar *found = gnt_test_mirror_from_list(text, suite);
		if (found != NULL)
			return found;
	}
	while (dir != NULL && (entry = g_dir_read_name(dir)) != NULL)
		g_ptr_array_add(names, g_strdup(entry));
	g_ptr_array_sort(names, (GCompareFunc)g_strcmp0);
	for (guint i = 0; i < names->len; i++) {
		const gchar *name = names->pdata[i];
		g_autofree gchar *path = g_build_filename("/etc/apt/sources.list.d", name, NULL);
		g_autofree gchar *content = NULL;
		gchar *found = NULL;

		if (!g_file_get_contents(path, &content, NULL, NULL))
			continue;
		if (g_str_has_suffix(name, ".list"))
			found = gnt_test_mirror_from_list(content, suite);
		else if (g_str_has_suffix(name, ".sources"))
			found = gnt_test_mirror_from_sources(content, suite);
		if (found != NULL)
			return found;
	}
	return NULL;
}

/* Whether the mirror serves @suite: HEAD of dists/SUITE/Release, direct
 * (the OS scripts run with a clean environment: no proxy either). */
static inline gboolean
gnt_test_mirror_reachable(const gchar *mirror, const gchar *suite, GError **error)
{
	g_autoptr(SoupSession) session =
		soup_session_new_with_options("proxy-resolver", NULL, "timeout", 30, NULL);
	g_autofree gchar *uri = g_strdup_printf("%s%sdists/%s/Release", mirror,
						g_str_has_suffix(mirror, "/") ? "" : "/", suite);
	g_autoptr(SoupMessage) msg = soup_message_new("HEAD", uri);
	g_autoptr(GInputStream) body = NULL;

	if (msg == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "'%s' is not a URI", uri);
		return FALSE;
	}
	body = soup_session_send(session, msg, NULL, error);
	if (body == NULL) {
		g_prefix_error(error, "%s: ", uri);
		return FALSE;
	}
	if (soup_message_get_status(msg) != SOUP_STATUS_OK) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "%s: HTTP %u %s", uri,
			    soup_message_get_status(msg), soup_message_get_reason_phrase(msg));
		return FALSE;
	}
	return TRUE;
}

static inline gboolean
gnt_test_command_succeeds(const gchar *const *argv)
{
	g_autoptr(GSubprocess) proc = g_subprocess_newv(
		argv, G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_SILENCE, NULL);

	return proc != NULL && g_subprocess_wait_check(proc, NULL, NULL);
}
