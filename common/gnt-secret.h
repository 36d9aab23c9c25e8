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
GntSecret *
gnt_secret_copy(const GntSecret *self);
void
gnt_secret_free(GntSecret *self);

/* The value, NUL-terminated; valid until the secret is freed. */
const gchar *
gnt_secret_get(const GntSecret *self);
gsize
gnt_secret_get_length(const GntSecret *self);

/* Zeroes @len bytes at @mem in a way the compiler cannot drop. */
void
gnt_secret_wipe(gpointer mem, gsize len);

/* Zeroes a NUL-terminated string in place (the NUL stays). NULL is fine. */
void
gnt_secret_wipe_string(gchar *str);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntSecret, gnt_secret_free)

G_END_DECLS
