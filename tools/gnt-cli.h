#pragma once

#include <json-glib/json-glib.h>

#include "gnt-cli-format.h"
#include "gnt-error.h"
#include "gnt-luxi-client.h"
#include "gnt-paths.h"

G_BEGIN_DECLS

/*
 * What every gnt-* command shares, after Ganeti's lib/cli.py: the command
 * table and option parsing (GenericMain), the common options, the LUXI
 * connection, submitting a job and polling it (SubmitOrSend,
 * GenericPollJob), printing errors (FormatError) and query results
 * (GenericList, GenericListFields).
 *
 * Exit codes are Ganeti's: 0 success, 1 failure, 2 a bad option, 13 a
 * question answered "no", 14 an unknown field in a query.
 */

#define GNT_CLI_EXIT_SUCCESS	   0
#define GNT_CLI_EXIT_FAILURE	   1
#define GNT_CLI_EXIT_USAGE	   2
#define GNT_CLI_EXIT_CONFIRMATION  13
#define GNT_CLI_EXIT_UNKNOWN_FIELD 14

/* Ganeti's DEFAULT_WFJC_TIMEOUT: seconds one WaitForJobChange may wait. */
#define GNT_CLI_WFJC_TIMEOUT 60

typedef struct _GntCli GntCli;

/* The common options a command takes besides --root, -d/--debug, --reason
 * and -h/--help (which every command has). */
typedef enum {
	GNT_CLI_OPT_NONE = 0,
	GNT_CLI_OPT_SUBMIT = 1 << 0,   /* --submit, --print-jobid */
	GNT_CLI_OPT_PRIORITY = 1 << 1, /* --priority low|normal|high */
	GNT_CLI_OPT_DRY_RUN = 1 << 2,  /* --dry-run */
	GNT_CLI_OPT_TABLE = 1 << 3,    /* --no-headers, --separator */
	GNT_CLI_OPT_FIELDS = 1 << 4,   /* -o/--output [+]FIELDS */
	GNT_CLI_OPT_VERBOSE = 1 << 5,  /* -v/--verbose */
} GntCliOptionSet;

/* The parsed common options. */
typedef struct {
	gchar *root; /* --root, NULL: $GANTRY_ROOT or "/" */
	gint debug;  /* -d, counted */
	gchar *reason;
	gboolean submit_only;
	gboolean print_jobid;
	gboolean priority_set;
	gint priority; /* -10, 0 or 10 when priority_set */
	gboolean dry_run;
	gboolean no_headers;
	gchar *separator;
	gchar *output;
	gboolean verbose;
} GntCliOptions;

/* A command: returns its exit code, printing its own errors (see
 * gnt_cli_fail()). @args are the positional arguments, NULL-terminated. */
typedef gint (*GntCliFunc)(GntCli *cli, gchar **args);

typedef struct {
	const gchar *name;
	GntCliFunc func;
	gint min_args;
	gint max_args; /* -1: no limit */
	GntCliOptionSet options;
	const GOptionEntry *entries; /* the command's own options, or NULL */
	const gchar *usage;	     /* "[<opts>...] <duration>" */
	const gchar *description;    /* one sentence for the command list */
	const gchar *help;	     /* more text for --help, or NULL */
	/* what a function shared by several commands needs to know of this
	 * one (gnt_cli_get_command_data()): a tag kind, a list's resource */
	gconstpointer data;
} GntCliCommand;

/*
 * GenericMain: picks the command named by argv[1] from @commands (ended by
 * a NULL name), parses its options (options end at the first argument),
 * checks the argument count and runs it. No command, an unknown one or
 * --help prints the command list; --version prints the version.
 */
gint
gnt_cli_main(const GntCliCommand *commands, int argc, char **argv);

const GntCliOptions *
gnt_cli_get_options(GntCli *self);
/* "gnt-job", "list" */
const gchar *
gnt_cli_get_binary(GntCli *self);
const gchar *
gnt_cli_get_command(GntCli *self);
/* The running command's data member. */
gconstpointer
gnt_cli_get_command_data(GntCli *self);
const GntPaths *
gnt_cli_get_paths(GntCli *self);

/* ---- errors ---- */

/*
 * FormatError for a Ganeti exception of class @cls with @args (its encoded
 * [cls, args] form): "Failure: prerequisites not met for this operation:
 * ...", "Failure: command execution error:\n...", ... *@exit_code gets
 * Ganeti's code for it. (transfer full)
 */
gchar *
gnt_cli_format_exception(const gchar *cls, JsonArray *args, gint *exit_code);

/* Records the exception that explains the next gnt_cli_fail(): @args
 * (transfer none) as in its encoded form. */
void
gnt_cli_set_exception(GntCli *self, const gchar *cls, JsonArray *args);
/* The class of the recorded exception, or NULL. */
const gchar *
gnt_cli_get_exception_class(GntCli *self);
/* Shortcut: OpPrereqError [message, ecode of @code] as a GError. */
void
gnt_cli_set_prereq_error(GntCli *self, GError **error, GntError code, const gchar *format, ...)
	G_GNUC_PRINTF(4, 5);

/*
 * Prints @error on stderr the way Ganeti prints the exception behind it
 * (the one recorded by the last failing call here, else one derived from
 * the error code) and returns the exit code. Clears the recorded one.
 */
gint
gnt_cli_fail(GntCli *self, const GError *error);
/* The text gnt_cli_fail() would print. (transfer full) */
gchar *
gnt_cli_format_error(GntCli *self, const GError *error, gint *exit_code);

/* ---- LUXI ---- */

/*
 * The connection to masterd, made on first use. Fails when there is no
 * cluster under the root (OpPrereqError "Cluster not initialized ...") or
 * masterd cannot be reached ("Cannot communicate with socket ..."). (transfer none)
 */
GntLuxiClient *
gnt_cli_get_client(GntCli *self, GError **error);
/* gnt_luxi_client_call() through the connection, recording on failure the
 * exception as the server sent it (class and arguments; a transport failure
 * as Ganeti's TimeoutError, PermissionError, ...). With @error NULL nothing
 * is recorded: nobody reports that failure. @args: JSON array, (transfer none). */
JsonNode *
gnt_cli_call(GntCli *self, const gchar *method, JsonNode *args, GError **error);
/* The same with @args built from a JsonArray (transfer full). */
JsonNode *
gnt_cli_call_array(GntCli *self, const gchar *method, JsonArray *args, GError **error);
/* The same for a method whose answer must be a JSON object. (transfer full) */
JsonObject *
gnt_cli_call_object(GntCli *self, const gchar *method, JsonArray *args, GError **error);

/* A JSON list of the strings of @strv (may be NULL). (transfer full) */
JsonArray *
gnt_cli_strv_to_json(gchar **strv);

/* ---- jobs ---- */

/* A new opcode object with OP_ID and the common options applied
 * (SetGenericOpcodeOpts): debug_level, dry_run when the command has
 * --dry-run, priority when given, and the reason trail
 * [["gnt:user", reason, ns]?, ["gnt:client:<binary>", <command>, ns]].
 * (transfer full) */
JsonObject *
gnt_cli_new_opcode(GntCli *self, const gchar *op_id);
/*
 * Options that set an opcode parameter take its help, choices and default
 * from the opcode table: an entry's description GNT_CLI_PARAM_HELP(op_id,
 * name) becomes gnt_op_param_describe()'s line in --help, and an integer
 * option left at GNT_CLI_INT_UNSET leaves its parameter out of the opcode,
 * so the master fills in the table's default.
 */
#define GNT_CLI_PARAM_HELP_PREFIX	"opcode-table:"
#define GNT_CLI_PARAM_HELP(op_id, name) GNT_CLI_PARAM_HELP_PREFIX op_id ":" name
#define GNT_CLI_INT_UNSET		G_MININT
/* The same for an option that sets a cluster setting: its help is the
 * settings table's (config/gnt-cluster-settings.c). */
#define GNT_CLI_SETTING_HELP_PREFIX "cluster-setting:"
#define GNT_CLI_SETTING_HELP(key)   GNT_CLI_SETTING_HELP_PREFIX key
/* Sets @name to @value unless @value is GNT_CLI_INT_UNSET. */
void
gnt_cli_set_int_if_given(JsonObject *op, const gchar *name, gint value);

/* Applies the same options to an opcode object read from elsewhere. */
void
gnt_cli_apply_opcode_options(GntCli *self, JsonObject *op);

/* SendJob: submits @ops (transfer full) as one job. */
gboolean
gnt_cli_send_job(GntCli *self, JsonArray *ops, guint64 *job_id, GError **error);

/* How gnt_cli_poll_job() reports the job's progress. */
typedef enum {
	GNT_CLI_POLL_STDIO,  /* log lines on stdout, waiting notes on stderr */
	GNT_CLI_POLL_SILENT, /* nothing */
} GntCliPollReport;

/*
 * GenericPollJob: waits for the job (WaitForJobChange on ["status"]),
 * printing each new log entry as "<ctime> <message>", then reads
 * status/opstatus/opresult. Returns the opresult list (transfer full) when
 * the job succeeded; otherwise records the failing opcode's exception (or
 * JobLost, JobCanceled, OpExecError) and fails.
 */
JsonArray *
gnt_cli_poll_job(GntCli *self, guint64 job_id, GntCliPollReport report, GError **error);

/*
 * SubmitOrSend for one job of @ops (transfer full). With --submit it
 * prints the bare ID on stdout for --print-jobid and "JobID: N" on stderr
 * (Ganeti's JobSubmittedException), and returns TRUE with *@results NULL.
 * Otherwise it prints the ID for --print-jobid, polls the job, and returns
 * its opresult list in *@results (may be NULL if not wanted).
 */
gboolean
gnt_cli_submit_or_send(GntCli *self, JsonArray *ops, JsonArray **results, GError **error);
/* The same for a job of the one opcode @op (transfer full), errors
 * printed: the exit code. */
gint
gnt_cli_submit_opcode(GntCli *self, JsonObject *op, JsonArray **results);

/* ---- queries ---- */

/* A column formatter overriding the one of the field's kind. */
typedef gchar *(*GntCliFormatFunc)(JsonNode *value);
typedef struct {
	const gchar *field;
	GntCliFormatFunc format;
	gboolean align_right;
} GntCliFormatOverride;

/*
 * FormatQueryResult for a query2 answer ({"fields", "data"}): one line per
 * row (and a header line when @header), cells formatted by kind or by
 * @overrides (ended by a NULL field; may be NULL). *@unknown is TRUE when a
 * field was unknown. (transfer full)
 */
GPtrArray *
gnt_cli_format_query_result(JsonObject *response, const GntCliFormatOverride *overrides,
			    gboolean header, const gchar *separator, gboolean *unknown,
			    GError **error);

/* Query(@resource, @fields, @filter): the {"fields", "data"} answer.
 * @filter: (transfer full), NULL for none. (transfer full) */
JsonObject *
gnt_cli_query(GntCli *self, const gchar *resource, gchar **fields, JsonNode *filter,
	      GError **error);

/*
 * GenericList: Query(@resource, @fields, @filter) and prints the table with
 * the common --no-headers/--separator options, warning about unknown fields
 * on stderr. *@exit_code: 0, or 14 for an unknown field. @filter: (transfer
 * full), NULL for none.
 */
gboolean
gnt_cli_generic_list(GntCli *self, const gchar *resource, gchar **fields, JsonNode *filter,
		     const GntCliFormatOverride *overrides, gint *exit_code, GError **error);
/* GenericListFields: QueryFields(@resource, @fields or all) as a table of
 * Name, Type, Title, Description. */
gboolean
gnt_cli_generic_list_fields(GntCli *self, const gchar *resource, gchar **fields, gint *exit_code,
			    GError **error);

/* ---- prompting ---- */

/* AskUser with the choices y/[n]: asks on /dev/tty and returns the
 * answer; FALSE (the default) when there is no terminal. */
gboolean
gnt_cli_ask_user(const gchar *question);

G_END_DECLS
