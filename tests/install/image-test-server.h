#pragma once /* tests/install/image-test-server.h: an HTTP(S) server of images */

#include <gio/gio.h>

G_BEGIN_DECLS

/*
 * A small HTTP/1.1 server on 127.0.0.1 (a kernel-chosen port) in threads
 * of its own, serving what the test puts in it: each path a status, a body
 * and the Content-Length it claims (which may be more than the body: a
 * truncated image). One request per connection. With a certificate it
 * speaks TLS only.
 */

typedef struct _ImageServer ImageServer;

/* @certificate: NULL for plain HTTP. */
ImageServer *
image_server_new(GTlsCertificate *certificate);
/* Speaks TLS with a certificate for 127.0.0.1 from a CA made for the
 * occasion, which no system trusts (its files are removed at once). */
ImageServer *
image_server_new_unknown_ca(void);
void
image_server_free(ImageServer *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ImageServer, image_server_free)

/* "http://127.0.0.1:PORT" (or https). */
const gchar *
image_server_get_base(ImageServer *self);

/* Serves @body at @path with @status; @claimed_length: the Content-Length
 * sent (0: the body's). */
void
image_server_add(ImageServer *self, const gchar *path, guint status, GBytes *body,
		 gsize claimed_length);
/* Serves the file @file at @path with 200. */
void
image_server_add_file(ImageServer *self, const gchar *path, const gchar *file);
/* Sends the body of @path up to @hold_at bytes, then waits until
 * image_server_release() before the rest. */
void
image_server_hold(ImageServer *self, const gchar *path, gsize hold_at);
void
image_server_release(ImageServer *self);
/* Requests answered so far. */
guint
image_server_get_n_requests(ImageServer *self);

G_END_DECLS

G_BEGIN_DECLS

/* ---- images for the tests ---------------------------------------------- */

/* @len bytes of a pattern that depends on @seed, with no zero byte. */
GBytes *
image_test_pattern(gsize len, guint seed);
void
image_test_write_file(const gchar *path, GBytes *data);
GBytes *
image_test_read_file(const gchar *path);
/* Runs qemu-img with the arguments (NULL-terminated); asserts success. */
void
image_test_qemu_img(const gchar *first, ...) G_GNUC_NULL_TERMINATED;
/* A raw file of @size bytes filled with 0x5a (a disk that must stay
 * untouched). */
void
image_test_make_disk(const gchar *path, gsize size);
/* Whether @path holds @image at its start. */
gboolean
image_test_disk_holds(const gchar *path, GBytes *image);
/* Whether @path is still all 0x5a. */
gboolean
image_test_disk_untouched(const gchar *path);

G_END_DECLS
