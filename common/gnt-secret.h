#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * A secret value: kept in its own memory pages, locked against swapping
 * where the limits allow, excluded from core dumps (MADV_DONTDUMP), and
 * zeroed before the pages are returned. Secrets are never serialized; the
 * code that writes JSON writes GNT_SECRET_REDACTED in their place.
 */

#define GNT_SECRET_REDACTED "<redacted>"

typedef struct _GntSecret GntSecret;

/* Copies @len bytes of @value (-1: NUL-terminated) into protected memory. */
GntSecret *
gnt_secret_new(const gchar *value, gssize len);
/* @len zero bytes (and a NUL) to write the value into in place, with
 * gnt_secret_get_data(): no copy of it is ever made outside. */
GntSecret *
gnt_secret_new_zeroed(gsize len);
GntSecret *
gnt_secret_copy(const GntSecret *self);
void
gnt_secret_free(GntSecret *self);

/* The value, NUL-terminated; valid until the secret is freed. */
const gchar *
gnt_secret_get(const GntSecret *self);
gchar *
gnt_secret_get_data(GntSecret *self);
gsize
gnt_secret_get_length(const GntSecret *self);

/* Zeroes @len bytes at @mem in a way the compiler cannot drop. */
void
gnt_secret_wipe(gpointer mem, gsize len);

/* Overwrites what copying a secret leaves beside the copies: the
 * GNT_SECRET_STACK_WIPE bytes of stack below the caller's frame (buffers
 * of the functions it called) and the vector registers the C library's
 * string functions use (a core holds each thread's registers). */
#define GNT_SECRET_STACK_WIPE (256 * 1024)
void
gnt_secret_wipe_traces(void);
/* Only the registers: for code that runs on the stack it must keep. */
void
gnt_secret_wipe_registers(void);

/* Zeroes a NUL-terminated string in place (the NUL stays). NULL is fine. */
void
gnt_secret_wipe_string(gchar *str);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntSecret, gnt_secret_free)

G_END_DECLS
