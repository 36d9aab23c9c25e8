#pragma once /* install/gnt-kickstart-prepare.h: a template made into the file served */

#include <glib.h>

#include "gnt-kickstart-render.h"
#include "gnt-kickstart-validate.h"

G_BEGIN_DECLS

/*
 * One install's kickstart file (doc/kickstart.md), from its template:
 * the input checked (size, NUL, UTF-8) and read ({{ name }} only), what
 * Gantry adds when missing added, rendered, checked by Gantry's own
 * validator, then by pykickstart's ksvalidator when it is installed.
 */

/* What the installer fetches from and reports to: metad, on the instance's
 * link-local address (doc/metad.md). */
#define GNT_KICKSTART_METAD_INSTALL "http://169.254.169.254/gantry/latest/install"
#define GNT_KICKSTART_CALLBACK_URL  GNT_KICKSTART_METAD_INSTALL "/callback"
#define GNT_KICKSTART_STAGE2_URL    GNT_KICKSTART_METAD_INSTALL "/stage2"

/* liveimg_url for the OS image at @image_location (a path or URL): metad's
 * URL with the image's extension, which is how Anaconda tells a tarball
 * (.tar.gz, .tgz, .tar.xz, ...) from a mountable image: .img otherwise, or
 * .tar for a @tarball (a catalog image's format) whose name says nothing
 * (tar finds the compression itself). (transfer full) */
gchar *
gnt_kickstart_liveimg_url(const gchar *image_location, gboolean tarball);

typedef struct {
	GBytes *template;
	GntKickstartTarget target;
	/* the variables' values; NULL: undefined for this install */
	const gchar *values[GNT_KICKSTART_N_VARS];
	/* ksvalidator's program (gnt_kickstart_ksvalidator_find()); NULL:
	 * not installed, and the notes say only Gantry's checks ran */
	const gchar *ksvalidator;
	/* a personalization package to apply (gnt-kickstart-additions.h) */
	gboolean package;
} GntKickstartRequest;

typedef struct {
	GString *text;	  /* the file to serve: it holds the token */
	gchar *sha256;	  /* the template's, as fetched */
	GPtrArray *notes; /* lines for the job log (of gchar *) */
	gchar *token;	  /* a copy of agent_token's value, for redaction */
} GntKickstart;

void
gnt_kickstart_free(GntKickstart *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntKickstart, gnt_kickstart_free)

/* The file for @request; GNT_ERROR_INVALID naming the line (the template's
 * line for reading, adding and rendering; the rendered file's for the
 * checks), GNT_ERROR_ENVIRONMENT when ksvalidator cannot run.
 * (transfer full) */
GntKickstart *
gnt_kickstart_prepare(const GntKickstartRequest *request, GError **error);

/* The file with the token replaced by "<redacted>", for showing it
 * (--print-kickstart). (transfer full) */
gchar *
gnt_kickstart_dup_redacted(const GntKickstart *self);

/* A new agent token: 32 random bytes as URL-safe base64 without padding
 * (43 characters). (transfer full) */
gchar *
gnt_kickstart_token_new(void);

G_END_DECLS
