#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * Ganeti's cluster verify error codes (constants.CV_E*): what each finding
 * of gnt-cluster verify is filed under, the kind of item it names and the
 * code's description. The table in gnt-verify-codes.c is the one place they
 * live: the opcodes check "ignore_errors" against it, gnt-cluster verify
 * offers it to --ignore-errors, doc/verify.md lists it. Every code of
 * Ganeti 3.0 is there, also those Gantry never reports (DRBD, ssh, ...), so
 * Ganeti's clients may name them.
 */

typedef enum {
	GNT_CV_ECLUSTERCFG,
	GNT_CV_ECLUSTERCERT,
	GNT_CV_ECLUSTERCLIENTCERT,
	GNT_CV_ECLUSTERFILECHECK,
	GNT_CV_ECLUSTERDANGLINGNODES,
	GNT_CV_ECLUSTERDANGLINGINST,
	GNT_CV_EINSTANCEBADNODE,
	GNT_CV_EINSTANCEDOWN,
	GNT_CV_EINSTANCELAYOUT,
	GNT_CV_EINSTANCEMISSINGDISK,
	GNT_CV_EINSTANCEFAULTYDISK,
	GNT_CV_EINSTANCEWRONGNODE,
	GNT_CV_EINSTANCESPLITGROUPS,
	GNT_CV_EINSTANCEPOLICY,
	GNT_CV_EINSTANCEUNSUITABLENODE,
	GNT_CV_EINSTANCEMISSINGCFGPARAMETER,
	GNT_CV_ENODEDRBD,
	GNT_CV_ENODEDRBDVERSION,
	GNT_CV_ENODEDRBDHELPER,
	GNT_CV_ENODEFILECHECK,
	GNT_CV_ENODEHOOKS,
	GNT_CV_ENODEHV,
	GNT_CV_ENODELVM,
	GNT_CV_ENODEN1,
	GNT_CV_ENODENET,
	GNT_CV_ENODEOS,
	GNT_CV_ENODEORPHANINSTANCE,
	GNT_CV_ENODEORPHANLV,
	GNT_CV_ENODERPC,
	GNT_CV_ENODESSH,
	GNT_CV_ENODEVERSION,
	GNT_CV_ENODESETUP,
	GNT_CV_ENODETIME,
	GNT_CV_ENODEOOBPATH,
	GNT_CV_ENODEUSERSCRIPTS,
	GNT_CV_ENODEFILESTORAGEPATHS,
	GNT_CV_ENODEFILESTORAGEPATHUNUSABLE,
	GNT_CV_ENODESHAREDFILESTORAGEPATHUNUSABLE,
	GNT_CV_ENODEGLUSTERSTORAGEPATHUNUSABLE,
	GNT_CV_EGROUPDIFFERENTPVSIZE,
	GNT_CV_EEXTAGS,
	GNT_CV_LAST
} GntCvCode;

typedef struct {
	const gchar *name;	  /* "ENODERPC" */
	const gchar *item_type;	  /* "cluster", "group", "node", "instance" */
	const gchar *description; /* Ganeti's, for --help and the docs */
} GntCvCodeDef;

/* (transfer none) */
const GntCvCodeDef *
gnt_cv_code_get(GntCvCode code);
/* Whether @name is a code's name; *@out (may be NULL) gets it. */
gboolean
gnt_cv_code_lookup(const gchar *name, GntCvCode *out);

/* The optional checks of "skip_checks" (Ganeti's VERIFY_OPTIONAL_CHECKS). */
#define GNT_CV_SKIP_NPLUSONE_MEM       "nplusone_mem"
#define GNT_CV_SKIP_HVPARAM_ASSESSMENT "hvparam_assessment"

/* Days before a certificate's end from which it is a warning and an error
 * (Ganeti's SSL_CERT_EXPIRATION_WARN and _ERROR), and the clock skew a
 * node may have (NODE_MAX_CLOCK_SKEW, seconds). */
#define GNT_CV_CERT_WARN_DAYS	30
#define GNT_CV_CERT_ERROR_DAYS	7
#define GNT_CV_MAX_CLOCK_SKEW_S 150

G_END_DECLS
