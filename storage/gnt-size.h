#pragma once /* storage/gnt-size.h */

#include <glib.h>

G_BEGIN_DECLS

/*
 * Sizes as Ganeti writes them: a number of MiB, parsed from "512", "512M",
 * "1.5G", "2 TiB" (Ganeti's utils.ParseUnit) and formatted back as "512M",
 * "10.0G" (Ganeti's utils.FormatUnit). See doc/storage.md.
 */

/* The largest size accepted: one whose byte count still fits an off_t
 * (G_MAXINT64 bytes), rounded down to a multiple of 4 MiB. */
#define GNT_SIZE_MAX_MIB ((guint64)(G_MAXINT64 >> 20) & ~(guint64)3)

typedef enum {
	GNT_SIZE_UNIT_AUTO, /* Ganeti's 'h': M below 1 GiB, G below 1 TiB, else T */
	GNT_SIZE_UNIT_MIB,  /* 'm': "512" */
	GNT_SIZE_UNIT_GIB,  /* 'g': "0.5" */
	GNT_SIZE_UNIT_TIB,  /* 't': "0.0" */
} GntSizeUnit;

/*
 * Parses @text exactly as Ganeti's ParseUnit does: digits with at most one
 * dot, optional whitespace, then an optional unit (m, mb, mib, g, gb, gib,
 * t, tb, tib, in any case; none means MiB). The value is rounded up to a
 * whole MiB, then up to a multiple of 4 MiB (LVM's default extent), with the
 * same double arithmetic as Ganeti, so "1.1" and "0.001G" both give 4.
 * Zero is accepted ("0" gives 0): callers that need a positive size say so.
 * Fails with GNT_ERROR_INVALID, the message quoting @text: not a number,
 * unknown unit, or above GNT_SIZE_MAX_MIB.
 */
gboolean
gnt_size_parse(const gchar *text, guint64 *out_mib, GError **error);

/* Formats @mib as Ganeti's FormatUnit does: AUTO gives "512M", "1.5G",
 * "2.0T"; the others give the bare number ("512", "0.5", "0.0"), one decimal
 * for G and T, rounded half to even like Python's "%0.1f". (transfer full) */
gchar *
gnt_size_format(gint64 mib, GntSizeUnit unit);

G_END_DECLS
