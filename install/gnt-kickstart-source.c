#include "gnt-kickstart-source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gnt-error.h"
#include "gnt-http-get.h"
#include "gnt-kickstart-render.h"
#include "gnt-kickstart-uri.h"

#define FETCH_TIMEOUT_S 30
#define READ_CHUNK	65536

/* data/kickstart/default.ks, built in (meson: gnt-kickstart-default.c) */
extern const char gnt_kickstart_default_template[];
extern const unsigned long gnt_kickstart_default_template_len;

static const gchar *const origin_names[] = {
	[GNT_KICKSTART_FROM_INSTANCE] = "instance",
	[GNT_KICKSTART_FROM_IMAGE] = "image",
	[GNT_KICKSTART_FROM_CLUSTER] = "cluster",
	[GNT_KICKSTART_FROM_BUILTIN] = "built-in",
};

const gchar *
gnt_kickstart_origin_to_string(GntKickstartOrigin origin)
{
	g_return_val_if_fail(origin <= GNT_KICKSTART_FROM_BUILTIN, NULL);
	return origin_names[origin];
}

const gchar *
gnt_kickstart_image_get_property(JsonObject *image, const gchar *key)
{
	JsonNode *node;

	if (image == NULL)
		return NULL;
	node = json_object_get_member(image, "properties");
	if (node != NULL && JSON_NODE_HOLDS_OBJECT(node))
		image = json_node_get_object(node);
	node = json_object_get_member(image, key);
	if (node == NULL || json_node_get_value_type(node) != G_TYPE_STRING)
		return NULL;
	return json_node_get_string(node);
}

const gchar *
gnt_kickstart_source_choose(const gchar *instance, JsonObject *image, const gchar *cluster,
			    GntKickstartOrigin *origin)
{
	const gchar *from_image = gnt_kickstart_image_get_property(image, "ks_template");

	if (instance != NULL && *instance != '\0') {
		*origin = GNT_KICKSTART_FROM_INSTANCE;
		return instance;
	}
	if (from_image != NULL && *from_image != '\0') {
		*origin = GNT_KICKSTART_FROM_IMAGE;
		return from_image;
	}
	if (cluster != NULL && *cluster != '\0') {
		*origin = GNT_KICKSTART_FROM_CLUSTER;
		return cluster;
	}
	*origin = GNT_KICKSTART_FROM_BUILTIN;
	return GNT_KICKSTART_SOURCE_DEFAULT;
}

GBytes *
gnt_kickstart_source_get_default(void)
{
	return g_bytes_new_static(gnt_kickstart_default_template,
				  gnt_kickstart_default_template_len);
}

static void
set_too_big(const gchar *source, GError **error)
{
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
		    "kickstart template '%s' is larger than %" G_GSIZE_FORMAT " bytes", source,
		    GNT_KICKSTART_MAX_BYTES);
}

static GBytes *
fetch_file(const gchar *source, const gchar *path, const gchar *kickstart_dir, GError **error)
{
	g_autofree gchar *real_dir = realpath(kickstart_dir, NULL);
	g_autofree gchar *real = NULL;
	g_autofree gchar *data = NULL;
	struct stat st;
	gsize len = 0;
	int fd;

	if (real_dir == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "the kickstart directory '%s': %s", kickstart_dir, g_strerror(errno));
		return NULL;
	}
	real = realpath(path, NULL);
	if (real == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND, "kickstart template '%s': %s",
			    source, g_strerror(errno));
		return NULL;
	}
	if (!g_str_has_prefix(real, real_dir) || real[strlen(real_dir)] != '/') {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "kickstart template '%s': '%s' is not under the kickstart directory "
			    "'%s' (gnt-cluster modify --kickstart-dir)",
			    source, real, real_dir);
		return NULL;
	}
	fd = open(real, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "kickstart template '%s': not a readable regular file", source);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if ((guint64)st.st_size > GNT_KICKSTART_MAX_BYTES) {
		close(fd);
		set_too_big(source, error);
		return NULL;
	}
	data = g_malloc((gsize)st.st_size + 1);
	while (len <= (gsize)st.st_size) {
		ssize_t n = read(fd, data + len, (gsize)st.st_size + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (gsize)n;
	}
	close(fd);
	if (len > (gsize)st.st_size) { /* it grew meanwhile */
		set_too_big(source, error);
		return NULL;
	}
	return g_bytes_new_take(g_steal_pointer(&data), len);
}

static GBytes *
fetch_http(const gchar *source, GTlsDatabase *tls_database, GError **error)
{
	g_auto(GntHttpGet) get = {NULL};
	g_autoptr(GByteArray) data = g_byte_array_new();
	g_autofree guint8 *chunk = g_malloc(READ_CHUNK);
	g_autoptr(GError) local = NULL;

	if (!gnt_http_get_send(&get, source, FETCH_TIMEOUT_S, tls_database, NULL, NULL, error) ||
	    !gnt_http_get_check(&get, source, error)) {
		g_prefix_error(error, "kickstart template '%s': ", source);
		return NULL;
	}
	if (get.length > GNT_KICKSTART_MAX_BYTES) {
		set_too_big(source, error);
		return NULL;
	}
	for (;;) {
		gssize got = g_input_stream_read(get.body, chunk, READ_CHUNK, NULL, &local);

		if (got < 0) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
				    "kickstart template '%s': reading failed: %s", source,
				    local->message);
			return NULL;
		}
		if (got == 0)
			break;
		if ((gsize)got > GNT_KICKSTART_MAX_BYTES - data->len) {
			set_too_big(source, error);
			return NULL;
		}
		g_byte_array_append(data, chunk, (guint)got);
	}
	return g_byte_array_free_to_bytes(g_steal_pointer(&data));
}

GBytes *
gnt_kickstart_source_fetch(const gchar *source, const gchar *kickstart_dir,
			   GTlsDatabase *tls_database, GError **error)
{
	g_autoptr(GUri) uri = NULL;

	if (!gnt_kickstart_source_check(source, error))
		return NULL;
	if (strcmp(source, GNT_KICKSTART_SOURCE_DEFAULT) == 0)
		return gnt_kickstart_source_get_default();
	uri = g_uri_parse(source, G_URI_FLAGS_NONE, NULL);
	if (uri != NULL && g_ascii_strcasecmp(g_uri_get_scheme(uri), "file") == 0)
		return fetch_file(source, g_uri_get_path(uri), kickstart_dir, error);
	return fetch_http(source, tls_database, error);
}
