/*
 * noded/gnt-noded-payload.c: the install appliance's payload
 * (gnt-noded-payload.h), made ready on the node and handed to metad as a
 * files-only install session, which streams it the way it streams a
 * kickstart installer's liveimg.
 */
#include "gnt-noded-payload.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>

#include "gnt-command.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-kickstart-prepare.h"
#include "gnt-metad-client.h"
#include "gnt-noded-cache.h"
#include "gnt-package.h"
#include "gnt-subprocess.h"

/* qemu-img convert of a large image under TCG-loaded nodes */
#define CONVERT_TIMEOUT_S 3600
#define QCOW2_MAGIC	  "QFI\xfb"

struct _GntNodedPayload {
	gchar *control;
	gchar *name;
	GntArtifact *artifact; /* nullable: a path on the node */
	gchar *converted;      /* nullable: the raw copy of a qcow2 image, or the
				* plain tar of a compressed tarball */
	gboolean given;	       /* metad holds the session */
};

void
gnt_noded_payload_take_back(GntNodedPayload *self)
{
	g_autoptr(GError) local_error = NULL;

	if (self == NULL)
		return;
	if (self->given &&
	    !gnt_metad_client_remove_install(self->control, self->name, &local_error))
		g_warning("install appliance of instance '%s': payload: %s", self->name,
			  local_error->message);
	if (self->converted != NULL)
		(void)g_unlink(self->converted);
	g_clear_pointer(&self->artifact, gnt_artifact_release);
	g_free(self->converted);
	g_free(self->control);
	g_free(self->name);
	g_free(self);
}

/* The payload's file on the node: a path as it is, a URL through the
 * artifact cache (kept in use in @self). */
static const gchar *
resolve(GntNodedPayload *self, GntRpcNode *node, JsonObject *payload, GError **error)
{
	const gchar *url = NULL;
	const gchar *sha256 = NULL;
	gint64 cache_bytes = 0;

	if (!gnt_json_get_string(payload, "url", &url, error) ||
	    (json_object_has_member(payload, "cache_bytes") &&
	     !gnt_json_get_int(payload, "cache_bytes", &cache_bytes, error)))
		return NULL;
	if (json_object_has_member(payload, "sha256") &&
	    !JSON_NODE_HOLDS_NULL(json_object_get_member(payload, "sha256")) &&
	    !gnt_json_get_string(payload, "sha256", &sha256, error))
		return NULL;
	if (g_path_is_absolute(url)) {
		if (!g_file_test(url, G_FILE_TEST_IS_REGULAR)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND,
				    "payload '%s' is not a file on this node", url);
			return NULL;
		}
		return url;
	}
	if (sha256 == NULL || cache_bytes <= 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "payload '%s': a URL needs its SHA-256 and the artifact cache "
			    "(image_cache_size above 0); else give a path on the node",
			    url);
		return NULL;
	}
	{
		GntArtifactCache *cache =
			gnt_noded_get_artifact_cache(gnt_paths_get_data_dir(node->paths));
		GntArtifactFetchOptions fetch = {.max_bytes = (guint64)cache_bytes};

		self->artifact = gnt_artifact_cache_fetch(cache, url, sha256, &fetch, error);
		if (self->artifact == NULL) {
			g_prefix_error(error, "payload '%s': ", url);
			return NULL;
		}
		return gnt_artifact_get_path(self->artifact);
	}
}

/* Whether the file at @path starts as a qcow2 image does. */
static gboolean
is_qcow2(const gchar *path)
{
	gchar magic[4] = {0};
	FILE *f = fopen(path, "rbe");
	gboolean yes = FALSE;

	if (f == NULL)
		return FALSE;
	yes = fread(magic, 1, sizeof(magic), f) == sizeof(magic) &&
	      memcmp(magic, QCOW2_MAGIC, sizeof(magic)) == 0;
	fclose(f);
	return yes;
}

/* @path's raw copy in @work_dir (the appliance writes raw bytes). */
static gchar *
convert_to_raw(const gchar *path, const gchar *work_dir, GError **error)
{
	g_autofree gchar *raw = g_build_filename(work_dir, "payload.raw", NULL);
	const gchar *argv[] = {"qemu-img", "convert", "-f", "qcow2", "-O", "raw", path, raw, NULL};
	g_autofree gchar *output = NULL;
	gint status = 0;

	if (!gnt_subprocess_run(argv, NULL, CONVERT_TIMEOUT_S, &output, &status, error))
		return NULL;
	if (status != 0) {
		(void)g_unlink(raw);
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "qemu-img convert to raw failed (%d): %s", status, g_strstrip(output));
		return NULL;
	}
	return g_steal_pointer(&raw);
}

/* The program that decompresses the tarball named @name (by its
 * extension, as the agent tells them), or NULL for a plain tar. */
static const gchar *
decompressor(const gchar *name)
{
	static const struct {
		const gchar *suffix, *program;
	} tools[] = {{".gz", "gzip"}, {".tgz", "gzip"},	 {".xz", "xz"},
		     {".txz", "xz"},  {".bz2", "bzip2"}, {".tbz", "bzip2"}};

	for (guint i = 0; i < G_N_ELEMENTS(tools); i++) {
		if (g_str_has_suffix(name, tools[i].suffix))
			return tools[i].program;
	}
	return NULL;
}

/* @path's plain tar in @work_dir, decompressed here by @program: natively
 * on the node it takes seconds, in the appliance under TCG minutes. */
static gchar *
decompress(const gchar *path, const gchar *program, const gchar *work_dir, GError **error)
{
	g_autofree gchar *tar = g_build_filename(work_dir, "payload.tar", NULL);
	g_autoptr(GntCommand) cmd = gnt_command_new(program);
	gint fd = open(tar, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	gboolean ok;

	if (fd < 0) {
		gnt_error_set_errno(error, errno, "making the payload's plain tar");
		return NULL;
	}
	gnt_command_add_args(cmd, "-dc", path, NULL);
	gnt_command_set_stdout_fd(cmd, fd);
	gnt_command_set_timeout(cmd, CONVERT_TIMEOUT_S);
	ok = gnt_command_run(cmd, error) && gnt_command_check_success(cmd, error);
	close(fd);
	if (!ok) {
		(void)g_unlink(tar);
		return NULL;
	}
	return g_steal_pointer(&tar);
}

GntNodedPayload *
gnt_noded_payload_give(GntRpcNode *node, const gchar *control, const gchar *name,
		       JsonObject *payload, const gchar *work_dir, GError **error)
{
	g_autoptr(GntNodedPayload) self = g_new0(GntNodedPayload, 1);
	g_autoptr(JsonObject) spec = json_object_new();
	g_autofree gchar *token = NULL;
	const gchar *file_name = NULL;
	const gchar *path = NULL;
	gboolean tarball = FALSE;

	self->control = g_strdup(control);
	self->name = g_strdup(name);
	if (!gnt_json_get_string(payload, "name", &file_name, error) ||
	    !gnt_json_get_bool(payload, "tarball", &tarball, error) ||
	    (path = resolve(self, node, payload, error)) == NULL) {
		g_prefix_error(error, "instance '%s': options: payload: ", name);
		return NULL;
	}
	if (tarball && decompressor(file_name) != NULL) {
		self->converted = decompress(path, decompressor(file_name), work_dir, error);
		if (self->converted == NULL) {
			g_prefix_error(error, "instance '%s': payload: ", name);
			return NULL;
		}
		path = self->converted;
		file_name = "image.tar";
	}
	if (tarball && !gnt_package_check_root_tarball(path, error)) {
		g_prefix_error(error, "instance '%s': payload: ", name);
		return NULL;
	}
	if (!tarball && is_qcow2(path)) {
		self->converted = convert_to_raw(path, work_dir, error);
		if (self->converted == NULL) {
			g_prefix_error(error, "instance '%s': payload: ", name);
			return NULL;
		}
		path = self->converted;
	}
	/* metad's session wants a token; nobody calls back with it */
	token = gnt_kickstart_token_new();
	json_object_set_string_member(spec, "token", token);
	json_object_set_null_member(spec, "kickstart");
	json_object_set_string_member(spec, "liveimg", path);
	json_object_set_string_member(spec, "liveimg_name", file_name);
	if (!gnt_metad_client_put_install(control, name, spec, error)) {
		g_prefix_error(error, "instance '%s': payload: ", name);
		return NULL;
	}
	self->given = TRUE;
	return g_steal_pointer(&self);
}
