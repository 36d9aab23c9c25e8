#include "gnt-cmdlib.h"
#include "gnt-cli.h"

#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gnt-build-config.h"
#include "gnt-cluster-settings.h"
#include "gnt-json.h"
#include "gnt-opcode.h"

struct _GntCli {
	const GntCliCommand *command;
	gchar *binary;
	GntCliOptions opts;
	GntPaths *paths;
	GntLuxiClient *client;
	gchar *exc_class; /* the exception behind the next gnt_cli_fail() */
	JsonArray *exc_args;
};

static void
gnt_cli_free(GntCli *self)
{
	if (self == NULL)
		return;
	g_free(self->binary);
	g_free(self->opts.root);
	g_free(self->opts.reason);
	g_free(self->opts.separator);
	g_free(self->opts.output);
	if (self->paths != NULL)
		gnt_paths_free(self->paths);
	g_clear_object(&self->client);
	g_free(self->exc_class);
	if (self->exc_args != NULL)
		json_array_unref(self->exc_args);
	g_free(self);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntCli, gnt_cli_free)

const GntCliOptions *
gnt_cli_get_options(GntCli *self)
{
	return &self->opts;
}

const gchar *
gnt_cli_get_binary(GntCli *self)
{
	return self->binary;
}

const gchar *
gnt_cli_get_command(GntCli *self)
{
	return self->command->name;
}

gconstpointer
gnt_cli_get_command_data(GntCli *self)
{
	return self->command->data;
}

const GntPaths *
gnt_cli_get_paths(GntCli *self)
{
	return self->paths;
}

/* ---- GenericMain ---- */

static void
print_wrapped(GString *out, const gchar *text, guint indent, guint width)
{
	g_auto(GStrv) words = g_strsplit(text, " ", -1);
	guint col = 0;

	for (guint i = 0; words[i] != NULL; i++) {
		guint len = (guint)strlen(words[i]);

		if (len == 0)
			continue;
		if (col > 0 && col + 1 + len > width) {
			g_string_append_c(out, '\n');
			for (guint j = 0; j < indent; j++)
				g_string_append_c(out, ' ');
			col = 0;
		} else if (col > 0) {
			g_string_append_c(out, ' ');
			col++;
		}
		g_string_append(out, words[i]);
		col += len;
	}
}

static gint
compare_commands(gconstpointer a, gconstpointer b)
{
	const GntCliCommand *ca = *(const GntCliCommand *const *)a;
	const GntCliCommand *cb = *(const GntCliCommand *const *)b;

	return g_strcmp0(ca->name, cb->name);
}

/* _FormatUsage */
static void
print_usage(const gchar *binary, const GntCliCommand *commands)
{
	g_autoptr(GString) out = g_string_new(NULL);
	g_autoptr(GPtrArray) sorted = g_ptr_array_new();
	guint mlen = 0;

	for (const GntCliCommand *c = commands; c->name != NULL; c++) {
		g_ptr_array_add(sorted, (gpointer)c);
		mlen = MAX(mlen, (guint)strlen(c->name));
	}
	mlen = MIN(mlen, 60);
	g_ptr_array_sort(sorted, compare_commands);
	g_string_append_printf(out, "Usage: %s {command} [options...] [argument...]\n", binary);
	g_string_append_printf(out, "%s <command> --help to see details\n\nCommands:\n", binary);
	for (guint i = 0; i < sorted->len; i++) {
		const GntCliCommand *c = g_ptr_array_index(sorted, i);

		g_string_append_printf(out, " %-*s - ", (int)mlen, c->name);
		print_wrapped(out, c->description, mlen + 4, 79 - 3 - mlen);
		g_string_append_c(out, '\n');
	}
	fputs(out->str, stdout);
	fputs("\n", stdout);
}

static gboolean
debug_cb(const gchar *name, const gchar *value, gpointer data, GError **error)
{
	GntCli *self = data;

	self->opts.debug++;
	return TRUE;
}

static gboolean
priority_cb(const gchar *name, const gchar *value, gpointer data, GError **error)
{
	static const struct {
		const gchar *name;
		gint value;
	} priorities[] = {{"low", 10}, {"normal", 0}, {"high", -10}};
	GntCli *self = data;

	for (guint i = 0; i < G_N_ELEMENTS(priorities); i++) {
		if (g_strcmp0(value, priorities[i].name) == 0) {
			self->opts.priority = priorities[i].value;
			self->opts.priority_set = TRUE;
			return TRUE;
		}
	}
	g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
		    "option --priority: invalid choice: '%s' (choose from 'low', 'normal', 'high')",
		    value);
	return FALSE;
}

/* The common options of @set, pointing into @self. (transfer container) */
static GArray *
build_common_entries(GntCli *self, GntCliOptionSet set)
{
	GArray *entries = g_array_new(TRUE, TRUE, sizeof(GOptionEntry));
	const GOptionEntry always[] = {
		{"root", 0, 0, G_OPTION_ARG_FILENAME, &self->opts.root,
		 "The root all cluster files live under (default: $GANTRY_ROOT, else /)", "DIR"},
		{"debug", 'd', G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, (gpointer)debug_cb,
		 "Increase debugging level", NULL},
		{"reason", 0, 0, G_OPTION_ARG_FILENAME, &self->opts.reason,
		 "The reason for executing the command", "REASON"},
	};
	const GOptionEntry submit[] = {
		{"submit", 0, 0, G_OPTION_ARG_NONE, &self->opts.submit_only,
		 "Submit the job and return the job ID, but don't wait for the job to finish",
		 NULL},
		{"print-jobid", 0, 0, G_OPTION_ARG_NONE, &self->opts.print_jobid,
		 "Additionally print the job as first line on stdout (for scripting).", NULL},
	};
	const GOptionEntry priority[] = {
		{"priority", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer)priority_cb,
		 "Priority for opcode processing", "low|normal|high"},
	};
	const GOptionEntry dry_run[] = {
		{"dry-run", 0, 0, G_OPTION_ARG_NONE, &self->opts.dry_run,
		 "Do not execute the operation, just run the check steps and verify if it could "
		 "be executed",
		 NULL},
	};
	const GOptionEntry table[] = {
		{"no-headers", 0, 0, G_OPTION_ARG_NONE, &self->opts.no_headers,
		 "Don't display column headers", NULL},
		{"separator", 0, 0, G_OPTION_ARG_FILENAME, &self->opts.separator,
		 "Separator between output fields (defaults to one space)", "SEP"},
	};
	const GOptionEntry fields[] = {
		{"output", 'o', 0, G_OPTION_ARG_FILENAME, &self->opts.output,
		 "Comma separated list of output fields (\"+a,b\" adds to the defaults)", "FIELDS"},
	};
	const GOptionEntry verbose[] = {
		{"verbose", 'v', 0, G_OPTION_ARG_NONE, &self->opts.verbose,
		 "Increase the verbosity of the operation", NULL},
	};

	const struct {
		GntCliOptionSet flag;
		const GOptionEntry *entries;
		guint n_entries;
	} groups[] = {
		{GNT_CLI_OPT_FIELDS, fields, G_N_ELEMENTS(fields)},
		{GNT_CLI_OPT_TABLE, table, G_N_ELEMENTS(table)},
		{GNT_CLI_OPT_VERBOSE, verbose, G_N_ELEMENTS(verbose)},
		{GNT_CLI_OPT_SUBMIT, submit, G_N_ELEMENTS(submit)},
		{GNT_CLI_OPT_PRIORITY, priority, G_N_ELEMENTS(priority)},
		{GNT_CLI_OPT_DRY_RUN, dry_run, G_N_ELEMENTS(dry_run)},
	};

	for (guint i = 0; i < G_N_ELEMENTS(groups); i++) {
		if (set & groups[i].flag)
			g_array_append_vals(entries, groups[i].entries, groups[i].n_entries);
	}
	g_array_append_vals(entries, always, G_N_ELEMENTS(always));
	return entries;
}

/* _CheckArguments */
static gboolean
check_arguments(const GntCliCommand *cmd, guint n_args)
{
	if (n_args > 0 && cmd->max_args == 0) {
		g_printerr("Error: Command %s expects no arguments\n", cmd->name);
		return FALSE;
	}
	if (cmd->min_args == cmd->max_args && n_args != (guint)cmd->min_args) {
		g_printerr("Error: Command %s expects %d argument(s)\n", cmd->name, cmd->min_args);
		return FALSE;
	}
	if (cmd->max_args >= 0 && n_args > (guint)cmd->max_args) {
		g_printerr("Error: Command %s expects only %d argument(s)\n", cmd->name,
			   cmd->max_args);
		return FALSE;
	}
	if (n_args < (guint)cmd->min_args) {
		g_printerr("Error: Command %s expects at least %d argument(s)\n", cmd->name,
			   cmd->min_args);
		return FALSE;
	}
	return TRUE;
}

/* GOption's translate hook: GNT_CLI_PARAM_HELP and GNT_CLI_SETTING_HELP
 * descriptions become the opcode or settings table's line; other texts
 * stay as they are.
 * The line is interned: GOption keeps the pointer. */
static const gchar *
describe_table_param(const gchar *text, gpointer user_data)
{
	g_auto(GStrv) parts = NULL;
	g_autofree gchar *line = NULL;

	if (g_str_has_prefix(text, GNT_CLI_SETTING_HELP_PREFIX)) {
		const GntClusterSetting *setting =
			gnt_cluster_setting_lookup(text + strlen(GNT_CLI_SETTING_HELP_PREFIX));

		if (setting == NULL) /* a caller's bug: the option's text says which */
			return text;
		line = gnt_cluster_setting_describe(setting);
		return g_intern_string(line);
	}
	if (!g_str_has_prefix(text, GNT_CLI_PARAM_HELP_PREFIX))
		return text;
	parts = g_strsplit(text, ":", 3);
	line = gnt_op_param_describe(parts[1], parts[2]);
	return g_intern_string(line);
}

void
gnt_cli_set_int_if_given(JsonObject *op, const gchar *name, gint value)
{
	if (value != GNT_CLI_INT_UNSET)
		json_object_set_int_member(op, name, value);
}

/* Parses the options of @self->command from @args (argv without the
 * command word); leaves the positional arguments in *@args. */
static gboolean
parse_options(GntCli *self, gchar ***args)
{
	const GntCliCommand *cmd = self->command;
	g_autofree gchar *prgname = g_strdup_printf("%s %s", self->binary, cmd->name);
	g_autoptr(GOptionContext) context = g_option_context_new(cmd->usage);
	g_autoptr(GArray) entries = build_common_entries(self, cmd->options);
	g_autoptr(GError) error = NULL;
	GOptionGroup *group =
		g_option_group_new(cmd->name, cmd->description, cmd->description, self, NULL);

	g_set_prgname(prgname);
	g_option_group_set_translate_func(group, describe_table_param, NULL, NULL);
	if (cmd->entries != NULL)
		g_option_group_add_entries(group, cmd->entries);
	g_option_group_add_entries(group, (const GOptionEntry *)(gpointer)entries->data);
	g_option_context_set_main_group(context, group);
	g_option_context_set_summary(context, cmd->description);
	if (cmd->help != NULL) {
		g_autoptr(GString) help = g_string_new(NULL);

		print_wrapped(help, cmd->help, 0, 79);
		g_option_context_set_description(context, help->str);
	}
	g_option_context_set_strict_posix(context, TRUE); /* options end at the first argument */
	if (!g_option_context_parse_strv(context, args, &error)) {
		g_printerr("Usage: %s %s [OPTION…] %s\n\n%s: error: %s\n"
			   "Try '%s %s --help' for more information.\n",
			   self->binary, cmd->name, cmd->usage, self->binary, error->message,
			   self->binary, cmd->name);
		return FALSE;
	}
	return TRUE;
}

/* Ctrl-C: Ganeti's KeyboardInterrupt message (async-signal-safe). */
static void
interrupt_handler(int sig)
{
	static const char message[] =
		"Aborted. Note that if the operation created any jobs, they might have been "
		"submitted and will continue to run in the background.\n";

	ssize_t written = write(STDERR_FILENO, message, sizeof(message) - 1);

	(void)written; /* nothing left to do if stderr is gone */
	_exit(GNT_CLI_EXIT_FAILURE);
}

gint
gnt_cli_main(const GntCliCommand *commands, int argc, char **argv)
{
	struct sigaction interrupt = {.sa_handler = interrupt_handler};

	g_autoptr(GntCli) self = g_new0(GntCli, 1);
	g_auto(GStrv) args = NULL;
	const gchar *name;
	gint exit_code;

	/* the defaults, choices and help the commands read (not the units) */
	gnt_opcode_register_table(&gnt_cmdlib_op_table);
	/* messages in the user's language and charset, numbers as Ganeti prints them */
	setlocale(LC_ALL, "");
	setlocale(LC_NUMERIC, "C");
	self->binary = g_path_get_basename(argc > 0 ? argv[0] : "gnt");
	if (argc < 2) {
		print_usage(self->binary, commands);
		return GNT_CLI_EXIT_FAILURE;
	}
	name = argv[1];
	if (g_strcmp0(name, "--version") == 0) {
		g_print("%s (gantry) %s\n", self->binary, GNT_VERSION);
		return GNT_CLI_EXIT_SUCCESS;
	}
	for (const GntCliCommand *c = commands; c->name != NULL; c++) {
		if (g_strcmp0(c->name, name) == 0)
			self->command = c;
	}
	if (self->command == NULL) {
		gboolean help = g_strcmp0(name, "--help") == 0 || g_strcmp0(name, "-h") == 0;

		print_usage(self->binary, commands);
		return help ? GNT_CLI_EXIT_SUCCESS : GNT_CLI_EXIT_FAILURE;
	}

	/* argv without the command word, for GOption */
	args = g_new0(gchar *, argc);
	args[0] = g_strdup(argv[0]);
	for (int i = 2; i < argc; i++)
		args[i - 1] = g_strdup(argv[i]);
	if (!parse_options(self, &args))
		return GNT_CLI_EXIT_USAGE;
	if (g_strcmp0(args[1], "--") == 0) {
		/* options ended explicitly; what follows are arguments */
		g_free(args[1]);
		memmove(&args[1], &args[2],
			g_strv_length(args + 2) * sizeof(gchar *) + sizeof(gchar *));
	}
	if (!check_arguments(self->command, g_strv_length(args) - 1))
		return GNT_CLI_EXIT_FAILURE;
	self->paths = gnt_paths_new(self->opts.root);
	sigemptyset(&interrupt.sa_mask);
	(void)sigaction(SIGINT, &interrupt, NULL);
	exit_code = self->command->func(self, args + 1);
	fflush(stdout);
	return exit_code;
}

/* ---- FormatError ---- */

/* Python's str() of an exception: its only argument, or the tuple. */
static gchar *
exception_str(JsonArray *args)
{
	guint n = args != NULL ? json_array_get_length(args) : 0;
	g_autoptr(JsonNode) node = NULL;
	gchar *text;

	if (n == 0)
		return g_strdup("");
	if (n == 1)
		return gnt_cli_py_str(json_array_get_element(args, 0));
	node = json_node_init_array(json_node_alloc(), args);
	text = gnt_cli_py_str(node); /* "[a, b]" becomes the tuple "(a, b)" */
	text[0] = '(';
	text[strlen(text) - 1] = ')';
	return text;
}

static gchar *
arg_str(JsonArray *args, guint index)
{
	if (args == NULL || index >= json_array_get_length(args))
		return g_strdup("");
	return gnt_cli_py_str(json_array_get_element(args, index));
}

static gchar *
format_hooks_abort(JsonArray *args)
{
	GString *out = g_string_new("Failure: hooks execution failed:\n");
	JsonNode *results = args != NULL && json_array_get_length(args) > 0
				    ? json_array_get_element(args, 0)
				    : NULL;
	JsonArray *list = results != NULL && JSON_NODE_HOLDS_ARRAY(results)
				  ? json_node_get_array(results)
				  : NULL;

	for (guint i = 0; list != NULL && i < json_array_get_length(list); i++) {
		JsonNode *entry = json_array_get_element(list, i);
		JsonArray *fields = JSON_NODE_HOLDS_ARRAY(entry) ? json_node_get_array(entry)
								 : NULL;
		g_autofree gchar *node = arg_str(fields, 0);
		g_autofree gchar *script = arg_str(fields, 1);
		g_autofree gchar *output = arg_str(fields, 2);

		if (output[0] != '\0')
			g_string_append_printf(out, "  node: %s, script: %s, output: %s\n", node,
					       script, output);
		else
			g_string_append_printf(out, "  node: %s, script: %s (no output)\n", node,
					       script);
	}
	return g_string_free(out, FALSE);
}

static gboolean
class_is(const gchar *cls, const gchar *const *names)
{
	return g_strv_contains(names, cls);
}

static gchar *
format_exception_text(const gchar *cls, JsonArray *args, const gchar *msg, gint *exit_code)
{
	static const gchar *const config_errors[] = {"ConfigurationError", "ConfigVersionMismatch",
						     "ConfigVerifyError", NULL};
	static const gchar *const protocol_errors[] = {
		"ProtocolError", "RequestError", "ConnectionClosedError", "DecodingError", NULL};

	*exit_code = GNT_CLI_EXIT_FAILURE;
	if (class_is(cls, config_errors)) {
		*exit_code = 2;
		return g_strdup_printf("Corrupt configuration file: %s\nAborting.", msg);
	}
	if (g_strcmp0(cls, "HooksAbort") == 0)
		return format_hooks_abort(args);
	if (g_strcmp0(cls, "HooksFailure") == 0)
		return g_strdup_printf("Failure: hooks general failure: %s", msg);
	if (g_strcmp0(cls, "ResolverError") == 0) {
		g_autofree gchar *host = arg_str(args, 0);

		if (g_strcmp0(host, g_get_host_name()) == 0)
			return g_strdup_printf("Failure: can't resolve my own hostname ('%s')",
					       host);
		return g_strdup_printf("Failure: can't resolve hostname '%s'", host);
	}
	if (g_strcmp0(cls, "OpPrereqError") == 0) {
		g_autofree gchar *details = arg_str(args, 0);
		g_autofree gchar *ecode = arg_str(args, 1);

		if (args != NULL && json_array_get_length(args) == 2)
			return g_strdup_printf(
				"Failure: prerequisites not met for this operation:\n"
				"error type: %s, error details:\n%s",
				ecode, details);
		return g_strdup_printf("Failure: prerequisites not met for this operation:\n%s",
				       msg);
	}
	if (g_strcmp0(cls, "OpExecError") == 0)
		return g_strdup_printf("Failure: command execution error:\n%s", msg);
	if (g_strcmp0(cls, "TagError") == 0)
		return g_strdup_printf("Failure: invalid tag(s) given:\n%s", msg);
	if (g_strcmp0(cls, "JobQueueDrainError") == 0)
		return g_strdup("Failure: the job queue is marked for drain and doesn't accept new "
				"requests");
	if (g_strcmp0(cls, "JobQueueFull") == 0)
		return g_strdup("Failure: the job queue is full and doesn't accept new job "
				"submissions until old jobs are archived");
	if (g_strcmp0(cls, "TypeEnforcementError") == 0)
		return g_strdup_printf("Parameter Error: %s", msg);
	if (g_strcmp0(cls, "ParameterError") == 0)
		return g_strdup_printf("Failure: unknown/wrong parameter name '%s'", msg);
	if (g_strcmp0(cls, "NoMasterError") == 0)
		return g_strdup_printf("Cannot communicate with socket '%s'.\n"
				       "Is the process running and listening for connections?",
				       msg);
	if (g_strcmp0(cls, "TimeoutError") == 0)
		return g_strdup_printf(
			"Timeout while talking to the master daemon. Jobs might have been submitted "
			"and will continue to run even if the call timed out. Useful commands in "
			"this situation are \"gnt-job list\", \"gnt-job cancel\" and \"gnt-job "
			"watch\". Error:\n%s",
			msg);
	if (g_strcmp0(cls, "PermissionError") == 0)
		return g_strdup("It seems you don't have permissions to connect to the master "
				"daemon.\nPlease retry as a different user.");
	if (class_is(cls, protocol_errors))
		return g_strdup_printf(
			"Unhandled protocol error while talking to the master daemon:\n%s", msg);
	if (g_strcmp0(cls, "JobLost") == 0)
		return g_strdup_printf("Error checking job status: %s", msg);
	if (g_strcmp0(cls, "QueryFilterParseError") == 0) {
		g_autofree gchar *first = arg_str(args, 0);
		return g_strdup_printf("Error while parsing query filter: %s", first);
	}
	if (g_strcmp0(cls, "JobSubmittedException") == 0) {
		*exit_code = GNT_CLI_EXIT_SUCCESS;
		return g_strdup_printf("JobID: %s", msg);
	}
	return g_strdup_printf("Unhandled Ganeti error: %s", msg);
}

gchar *
gnt_cli_format_exception(const gchar *cls, JsonArray *args, gint *exit_code)
{
	g_autofree gchar *msg = exception_str(args);
	gchar *text = format_exception_text(cls, args, msg, exit_code);
	gsize len = strlen(text);

	while (len > 0 && text[len - 1] == '\n')
		text[--len] = '\0';
	return text;
}

void
gnt_cli_set_exception(GntCli *self, const gchar *cls, JsonArray *args)
{
	g_free(self->exc_class);
	self->exc_class = g_strdup(cls);
	if (self->exc_args != NULL)
		json_array_unref(self->exc_args);
	self->exc_args = args != NULL ? json_array_ref(args) : json_array_new();
}

static void
clear_exception(GntCli *self)
{
	g_clear_pointer(&self->exc_class, g_free);
	g_clear_pointer(&self->exc_args, json_array_unref);
}

const gchar *
gnt_cli_get_exception_class(GntCli *self)
{
	return self->exc_class;
}

/* Records [message] or, for OpPrereqError, [message, ecode of @code]. */
static void
set_exception_message(GntCli *self, const gchar *cls, const gchar *message, GntError code)
{
	g_autoptr(JsonArray) args = json_array_new();

	json_array_add_string_element(args, message);
	if (g_strcmp0(cls, "OpPrereqError") == 0)
		json_array_add_string_element(args, gnt_error_to_ecode(code));
	gnt_cli_set_exception(self, cls, args);
}

void
gnt_cli_set_prereq_error(GntCli *self, GError **error, GntError code, const gchar *format, ...)
{
	va_list ap;
	g_autofree gchar *message = NULL;

	va_start(ap, format);
	message = g_strdup_vprintf(format, ap);
	va_end(ap);
	set_exception_message(self, "OpPrereqError", message, code);
	g_set_error_literal(error, GNT_ERROR, code, message);
}

gchar *
gnt_cli_format_error(GntCli *self, const GError *error, gint *exit_code)
{
	gchar *text;

	if (self->exc_class == NULL) {
		GntError code = error->domain == GNT_ERROR ? (GntError)error->code
							   : GNT_ERROR_FAULT;
		gboolean prereq = code != GNT_ERROR_ENVIRONMENT && code != GNT_ERROR_FAULT;

		set_exception_message(self, prereq ? "OpPrereqError" : "OpExecError",
				      error->message, code);
	}
	text = gnt_cli_format_exception(self->exc_class, self->exc_args, exit_code);
	clear_exception(self);
	return text;
}

gint
gnt_cli_fail(GntCli *self, const GError *error)
{
	gint exit_code = GNT_CLI_EXIT_FAILURE;
	g_autofree gchar *text = gnt_cli_format_error(self, error, &exit_code);

	fflush(stdout);
	g_printerr("%s\n", text);
	return exit_code;
}

/* ---- LUXI ---- */

/* errors.GetErrorClass knows these; MaybeRaise re-raises only them. */
static gboolean
is_ganeti_exception(const gchar *cls)
{
	static const gchar *const names[] = {"GenericError",
					     "LockError",
					     "PidFileLockError",
					     "HypervisorError",
					     "HotplugError",
					     "ProgrammerError",
					     "BlockDeviceError",
					     "ConfigurationError",
					     "ConfigVersionMismatch",
					     "ConfigVerifyError",
					     "AddressPoolError",
					     "ReservationError",
					     "RemoteError",
					     "SignatureError",
					     "ParameterError",
					     "ResultValidationError",
					     "OpPrereqError",
					     "OpExecError",
					     "OpResultError",
					     "OpRetryNotSupportedError",
					     "DeviceCreationError",
					     "OpCodeUnknown",
					     "JobLost",
					     "JobCanceled",
					     "JobFileCorrupted",
					     "ResolverError",
					     "HooksFailure",
					     "HooksAbort",
					     "UnitParseError",
					     "ParseError",
					     "TypeEnforcementError",
					     "X509CertError",
					     "TagError",
					     "CommandError",
					     "StorageError",
					     "InotifyError",
					     "JobQueueError",
					     "JobQueueDrainError",
					     "JobQueueFull",
					     "ConfdMagicError",
					     "ConfdClientError",
					     "UdpDataSizeError",
					     "NoCtypesError",
					     "IPAddressError",
					     "LuxiError",
					     "QueryFilterParseError",
					     "RapiTestResult",
					     "FileStoragePathError",
					     "SshUpdateError",
					     NULL};

	return g_strv_contains(names, cls);
}

/* Records the exception a failure answer encoded: errors.MaybeRaise for a
 * Ganeti class, else RequestError(answer), as rpc/client.py raises it. */
static void
set_encoded_exception(GntCli *self, const gchar *cls, JsonNode *args)
{
	g_autoptr(JsonArray) answer = NULL;
	g_autoptr(JsonArray) request_args = NULL;

	if (is_ganeti_exception(cls)) {
		gnt_cli_set_exception(self, cls, json_node_get_array(args));
		return;
	}
	answer = json_array_new();
	json_array_add_string_element(answer, cls);
	json_array_add_element(answer, json_node_copy(args));
	request_args = json_array_new();
	json_array_add_array_element(request_args, g_steal_pointer(&answer));
	gnt_cli_set_exception(self, "RequestError", request_args);
}

GntLuxiClient *
gnt_cli_get_client(GntCli *self, GError **error)
{
	const gchar *socket_path = gnt_paths_get_luxi_socket(self->paths);
	g_autoptr(GError) error_local = NULL;
	const gchar *cls = NULL;

	if (self->client != NULL)
		return self->client;
	if (!g_file_test(gnt_paths_get_config_db(self->paths), G_FILE_TEST_EXISTS)) {
		gnt_cli_set_prereq_error(self, error, GNT_ERROR_INVALID,
					 "Cluster not initialized or this machine is not part of a "
					 "cluster (no cluster under root '%s')",
					 gnt_paths_get_root(self->paths));
		return NULL;
	}
	self->client = gnt_luxi_client_new_full(socket_path, &cls, &error_local);
	if (self->client == NULL) {
		/* Ganeti's NoMasterError and PermissionError carry the address,
		 * TimeoutError its message */
		if (g_strcmp0(cls, GNT_LUXI_EXC_TIMEOUT) == 0)
			set_exception_message(self, cls, error_local->message,
					      GNT_ERROR_ENVIRONMENT);
		else
			set_exception_message(self, cls != NULL ? cls : GNT_LUXI_EXC_NO_MASTER,
					      socket_path, GNT_ERROR_ENVIRONMENT);
		g_propagate_error(error, g_steal_pointer(&error_local));
		return NULL;
	}
	return self->client;
}

/* Calls @method, recording the exception behind a failure. */
static JsonNode *
call_recording(GntCli *self, const gchar *method, JsonNode *args, GError **error)
{
	GntLuxiClient *client = gnt_cli_get_client(self, error);
	g_autoptr(GError) error_local = NULL;
	JsonNode *result;
	const gchar *cls;
	JsonNode *exc_args;

	if (client == NULL)
		return NULL;
	result = gnt_luxi_client_call(client, method, args, &error_local);
	if (result != NULL)
		return result;
	cls = gnt_luxi_client_get_error_class(client);
	exc_args = gnt_luxi_client_get_error_args(client);
	if (cls != NULL && exc_args != NULL)
		set_encoded_exception(self, cls, exc_args);
	else /* a transport failure, or a plain-string answer: RequestError */
		set_exception_message(self, cls != NULL ? cls : "RequestError",
				      error_local->message, GNT_ERROR_FAULT);
	g_propagate_error(error, g_steal_pointer(&error_local));
	return NULL;
}

JsonNode *
gnt_cli_call(GntCli *self, const gchar *method, JsonNode *args, GError **error)
{
	g_autoptr(GError) error_local = NULL;
	JsonNode *result = call_recording(self, method, args, &error_local);

	if (result != NULL)
		return result;
	if (error == NULL)
		clear_exception(self); /* nobody reports this failure: forget its class */
	g_propagate_error(error, g_steal_pointer(&error_local));
	return NULL;
}

JsonNode *
gnt_cli_call_array(GntCli *self, const gchar *method, JsonArray *args, GError **error)
{
	g_autoptr(JsonNode) node = gnt_json_node_new_array(args);

	return gnt_cli_call(self, method, node, error);
}

/* ---- jobs ---- */

static JsonArray *
reason_entry(const gchar *source, const gchar *text, gint64 ns)
{
	JsonArray *entry = json_array_new();

	json_array_add_string_element(entry, source);
	json_array_add_string_element(entry, text);
	json_array_add_int_element(entry, ns);
	return entry;
}

void
gnt_cli_apply_opcode_options(GntCli *self, JsonObject *op)
{
	JsonArray *trail = json_array_new();
	gint64 now_ns = g_get_real_time() * 1000;
	g_autofree gchar *source = g_strdup_printf("gnt:client:%s", self->binary);

	json_object_set_int_member(op, "debug_level", self->opts.debug);
	if (self->command->options & GNT_CLI_OPT_DRY_RUN)
		json_object_set_boolean_member(op, "dry_run", self->opts.dry_run);
	if (self->opts.priority_set)
		json_object_set_int_member(op, "priority", self->opts.priority);
	if (self->opts.reason != NULL)
		json_array_add_array_element(trail,
					     reason_entry("gnt:user", self->opts.reason, now_ns));
	json_array_add_array_element(trail, reason_entry(source, self->command->name, now_ns));
	json_object_set_array_member(op, "reason", trail);
}

JsonObject *
gnt_cli_new_opcode(GntCli *self, const gchar *op_id)
{
	JsonObject *op = json_object_new();

	json_object_set_string_member(op, "OP_ID", op_id);
	gnt_cli_apply_opcode_options(self, op);
	return op;
}

gboolean
gnt_cli_send_job(GntCli *self, JsonArray *ops, guint64 *job_id, GError **error)
{
	g_autoptr(JsonArray) args = json_array_new();
	g_autoptr(JsonNode) result = NULL;
	gint64 id;

	json_array_add_array_element(args, ops);
	result = gnt_cli_call_array(self, "SubmitJob", g_steal_pointer(&args), error);
	if (result == NULL)
		return FALSE;
	if (!gnt_json_node_get_int(result, "the SubmitJob answer", &id, error))
		return FALSE;
	*job_id = (guint64)id;
	return TRUE;
}

/* Fails the poll with exception @cls(@message). */
static void
poll_fail(GntCli *self, GError **error, const gchar *cls, const gchar *message)
{
	set_exception_message(self, cls, message, GNT_ERROR_FAULT);
	g_set_error_literal(error, GNT_ERROR, GNT_ERROR_FAULT, message);
}

/* errors.MaybeRaise: records an encoded [cls, [args]] exception. */
static gboolean
maybe_raise(GntCli *self, JsonNode *result, GError **error)
{
	JsonArray *encoded;
	JsonNode *cls;
	JsonNode *args;
	g_autofree gchar *message = NULL;

	if (result == NULL || !JSON_NODE_HOLDS_ARRAY(result))
		return FALSE;
	encoded = json_node_get_array(result);
	if (json_array_get_length(encoded) != 2)
		return FALSE;
	cls = json_array_get_element(encoded, 0);
	args = json_array_get_element(encoded, 1);
	if (json_node_get_value_type(cls) != G_TYPE_STRING || !JSON_NODE_HOLDS_ARRAY(args) ||
	    !is_ganeti_exception(json_node_get_string(cls)))
		return FALSE;
	gnt_cli_set_exception(self, json_node_get_string(cls), json_node_get_array(args));
	message = exception_str(json_node_get_array(args));
	g_set_error_literal(error, GNT_ERROR, GNT_ERROR_FAULT, message);
	return TRUE;
}

typedef struct {
	GntCliPollReport report;
	gboolean notified_queued;
	gboolean notified_waitlock;
} PollReporter;

static void
report_log_entry(PollReporter *reporter, JsonArray *entry)
{
	g_autofree gchar *when = NULL;
	g_autofree gchar *text = NULL;
	JsonNode *type = json_array_get_element(entry, 2);

	if (reporter->report != GNT_CLI_POLL_STDIO)
		return;
	when = gnt_cli_format_ctime(json_array_get_element(entry, 1));
	text = gnt_cli_format_log_message(json_node_get_value_type(type) == G_TYPE_STRING
						  ? json_node_get_string(type)
						  : "message",
					  json_array_get_element(entry, 3));
	g_print("%s %s\n", when, text);
	fflush(stdout);
}

static void
report_not_changed(PollReporter *reporter, guint64 job_id, const gchar *status)
{
	if (reporter->report != GNT_CLI_POLL_STDIO || status == NULL)
		return;
	if (g_strcmp0(status, "queued") == 0 && !reporter->notified_queued) {
		g_printerr("Job %" G_GUINT64_FORMAT " is waiting in queue\n", job_id);
		reporter->notified_queued = TRUE;
	} else if (g_strcmp0(status, "waiting") == 0 && !reporter->notified_waitlock) {
		g_printerr("Job %" G_GUINT64_FORMAT " is trying to acquire all necessary locks\n",
			   job_id);
		reporter->notified_waitlock = TRUE;
	}
}

/* One WaitForJobChange round. (transfer full) */
static JsonNode *
wait_for_job_change(GntCli *self, guint64 job_id, JsonNode *prev_info, gint64 prev_serial,
		    GError **error)
{
	g_autoptr(JsonArray) args = json_array_new();
	JsonArray *fields = json_array_new();

	json_array_add_string_element(fields, "status");
	json_array_add_int_element(args, (gint64)job_id);
	json_array_add_array_element(args, fields);
	json_array_add_element(args, prev_info != NULL ? json_node_copy(prev_info)
						       : json_node_new(JSON_NODE_NULL));
	if (prev_serial >= 0)
		json_array_add_int_element(args, prev_serial);
	else
		json_array_add_null_element(args);
	json_array_add_int_element(args, GNT_CLI_WFJC_TIMEOUT);
	return gnt_cli_call_array(self, "WaitForJobChange", g_steal_pointer(&args), error);
}

/* The [job_info, log_entries] answer, checked. */
static gboolean
split_job_change(JsonNode *result, JsonArray **info, JsonArray **entries, GError **error)
{
	JsonArray *pair;

	if (!JSON_NODE_HOLDS_ARRAY(result) ||
	    json_array_get_length(pair = json_node_get_array(result)) != 2 ||
	    !JSON_NODE_HOLDS_ARRAY(json_array_get_element(pair, 0)) ||
	    json_array_get_length(json_array_get_array_element(pair, 0)) < 1 ||
	    !JSON_NODE_HOLDS_ARRAY(json_array_get_element(pair, 1))) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "WaitForJobChange answered a %s, not [job_info, log_entries]",
			    gnt_json_node_type_name(result));
		return FALSE;
	}
	*info = json_array_get_array_element(pair, 0);
	*entries = json_array_get_array_element(pair, 1);
	return TRUE;
}

static gboolean
is_log_entry(JsonNode *node)
{
	return JSON_NODE_HOLDS_ARRAY(node) &&
	       json_array_get_length(json_node_get_array(node)) == 4 &&
	       gnt_json_node_is_int(json_array_get_element(json_node_get_array(node), 0));
}

/* The wait loop of GenericPollJob; TRUE once the job is finished. */
static gboolean
wait_for_job(GntCli *self, guint64 job_id, PollReporter *reporter, GError **error)
{
	g_autoptr(JsonNode) prev_info = NULL;
	g_autofree gchar *status = NULL;
	gint64 prev_serial = -1;

	for (;;) {
		g_autoptr(JsonNode)
			result = wait_for_job_change(self, job_id, prev_info, prev_serial, error);
		JsonArray *info;
		JsonArray *entries;

		if (result == NULL)
			return FALSE;
		if (JSON_NODE_HOLDS_NULL(result)) {
			g_autofree gchar *msg =
				g_strdup_printf("Job with id %" G_GUINT64_FORMAT " lost", job_id);
			poll_fail(self, error, "JobLost", msg);
			return FALSE;
		}
		if (json_node_get_value_type(result) == G_TYPE_STRING &&
		    g_strcmp0(json_node_get_string(result), "nochange") == 0) {
			report_not_changed(reporter, job_id, status);
			continue;
		}
		if (!split_job_change(result, &info, &entries, error))
			return FALSE;
		g_free(status);
		status = gnt_cli_py_str(json_array_get_element(info, 0));
		if (json_array_get_length(entries) > 0) {
			for (guint i = 0; i < json_array_get_length(entries); i++) {
				JsonNode *entry = json_array_get_element(entries, i);

				if (!is_log_entry(entry))
					continue;
				report_log_entry(reporter, json_node_get_array(entry));
				prev_serial = MAX(
					prev_serial,
					json_array_get_int_element(json_node_get_array(entry), 0));
			}
		} else if (g_strcmp0(status, "success") == 0 || g_strcmp0(status, "error") == 0 ||
			   g_strcmp0(status, "canceling") == 0 ||
			   g_strcmp0(status, "canceled") == 0) {
			return TRUE;
		}
		g_clear_pointer(&prev_info, json_node_unref);
		prev_info = json_node_copy(json_array_get_element(json_node_get_array(result), 0));
	}
}

/* QueryJobs([id], ["status", "opstatus", "opresult"]). (transfer full) */
static JsonArray *
query_job_result(GntCli *self, guint64 job_id, GError **error)
{
	g_autoptr(JsonArray) args = json_array_new();
	JsonArray *ids = json_array_new();
	JsonArray *fields = json_array_new();
	g_autoptr(JsonNode) result = NULL;
	JsonNode *row;

	json_array_add_int_element(ids, (gint64)job_id);
	json_array_add_string_element(fields, "status");
	json_array_add_string_element(fields, "opstatus");
	json_array_add_string_element(fields, "opresult");
	json_array_add_array_element(args, ids);
	json_array_add_array_element(args, fields);
	result = gnt_cli_call_array(self, "QueryJobs", g_steal_pointer(&args), error);
	if (result == NULL)
		return NULL;
	row = JSON_NODE_HOLDS_ARRAY(result) &&
			      json_array_get_length(json_node_get_array(result)) > 0
		      ? json_array_get_element(json_node_get_array(result), 0)
		      : NULL;
	if (row == NULL || !JSON_NODE_HOLDS_ARRAY(row) ||
	    json_array_get_length(json_node_get_array(row)) != 3 ||
	    json_node_get_value_type(json_array_get_element(json_node_get_array(row), 0)) !=
		    G_TYPE_STRING) {
		g_autofree gchar *msg =
			g_strdup_printf("Job with id %" G_GUINT64_FORMAT " lost", job_id);
		poll_fail(self, error, "JobLost", msg);
		return NULL;
	}
	return json_array_ref(json_node_get_array(row));
}

JsonArray *
gnt_cli_poll_job(GntCli *self, guint64 job_id, GntCliPollReport report, GError **error)
{
	PollReporter reporter = {.report = report};
	g_autoptr(JsonArray) row = NULL;
	const gchar *status;
	JsonNode *opstatus;
	JsonNode *opresult;
	JsonArray *statuses;
	JsonArray *results;
	gboolean has_ok = FALSE;
	g_autofree gchar *all = NULL;

	if (!wait_for_job(self, job_id, &reporter, error))
		return NULL;
	row = query_job_result(self, job_id, error);
	if (row == NULL)
		return NULL;
	status = json_array_get_string_element(row, 0);
	opstatus = json_array_get_element(row, 1);
	opresult = json_array_get_element(row, 2);
	if (g_strcmp0(status, "success") == 0 && JSON_NODE_HOLDS_ARRAY(opresult))
		return json_array_ref(json_node_get_array(opresult));
	if (g_strcmp0(status, "canceling") == 0 || g_strcmp0(status, "canceled") == 0) {
		poll_fail(self, error, "JobCanceled", "Job was canceled");
		return NULL;
	}
	statuses = JSON_NODE_HOLDS_ARRAY(opstatus) ? json_node_get_array(opstatus) : NULL;
	results = JSON_NODE_HOLDS_ARRAY(opresult) ? json_node_get_array(opresult) : NULL;
	for (guint i = 0; statuses != NULL && results != NULL &&
			  i < MIN(json_array_get_length(statuses), json_array_get_length(results));
	     i++) {
		JsonNode *op_status = json_array_get_element(statuses, i);
		JsonNode *op_result = json_array_get_element(results, i);
		g_autofree gchar *msg = NULL;

		if (json_node_get_value_type(op_status) != G_TYPE_STRING)
			continue;
		if (g_strcmp0(json_node_get_string(op_status), "success") == 0) {
			has_ok = TRUE;
			continue;
		}
		if (g_strcmp0(json_node_get_string(op_status), "error") != 0)
			continue;
		if (maybe_raise(self, op_result, error))
			return NULL;
		msg = gnt_cli_py_str(op_result);
		if (has_ok) {
			g_autofree gchar *partial =
				g_strdup_printf("partial failure (opcode %u): %s", i, msg);
			poll_fail(self, error, "OpExecError", partial);
		} else {
			poll_fail(self, error, "OpExecError", msg);
		}
		return NULL;
	}
	all = gnt_cli_py_str(opresult);
	poll_fail(self, error, "OpExecError", all);
	return NULL;
}

gint
gnt_cli_submit_opcode(GntCli *self, JsonObject *op, JsonArray **results)
{
	g_autoptr(GError) error = NULL;
	JsonArray *ops = json_array_new();

	json_array_add_object_element(ops, op);
	if (!gnt_cli_submit_or_send(self, ops, results, &error))
		return gnt_cli_fail(self, error);
	return 0;
}

gboolean
gnt_cli_submit_or_send(GntCli *self, JsonArray *ops, JsonArray **results, GError **error)
{
	guint64 job_id = 0;
	JsonArray *opresult;

	if (results != NULL)
		*results = NULL;
	if (!gnt_cli_send_job(self, ops, &job_id, error))
		return FALSE;
	if (self->opts.print_jobid) {
		g_print("%" G_GUINT64_FORMAT "\n", job_id);
		fflush(stdout);
	}
	if (self->opts.submit_only) {
		/* Ganeti raises JobSubmittedException, which GenericMain prints on stderr */
		g_printerr("JobID: %" G_GUINT64_FORMAT "\n", job_id);
		return TRUE;
	}
	opresult = gnt_cli_poll_job(self, job_id, GNT_CLI_POLL_STDIO, error);
	if (opresult == NULL)
		return FALSE;
	if (results != NULL)
		*results = opresult;
	else
		json_array_unref(opresult);
	return TRUE;
}

/* ---- queries ---- */

static const gchar *
kind_name(const gchar *kind)
{
	static const struct {
		const gchar *kind;
		const gchar *name;
	} names[] = {{"unknown", "Unknown"},
		     {"text", "Text"},
		     {"bool", "Boolean"},
		     {"number", "Number"},
		     {"float", "Floating-point number"},
		     {"unit", "Storage size"},
		     {"timestamp", "Timestamp"},
		     {"other", "Custom"}};

	for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
		if (g_strcmp0(kind, names[i].kind) == 0)
			return names[i].name;
	}
	return kind;
}

/* One query2 column: how to format its normal cells. */
typedef struct {
	const gchar *kind;
	GntCliFormatFunc format;
	gchar unit; /* for kind "unit" */
} QueryColumn;

static gchar *
format_cell(const QueryColumn *column, JsonNode *value)
{
	if (column->format != NULL)
		return column->format(value);
	if (g_strcmp0(column->kind, "bool") == 0) {
		gboolean truth = json_node_get_value_type(value) == G_TYPE_BOOLEAN
					 ? json_node_get_boolean(value)
					 : !JSON_NODE_HOLDS_NULL(value);
		return g_strdup(truth ? "Y" : "N");
	}
	if (g_strcmp0(column->kind, "timestamp") == 0) {
		if (gnt_json_node_is_number(value))
			return gnt_cli_format_time((gint64)json_node_get_double(value), -1);
		if (JSON_NODE_HOLDS_ARRAY(value))
			return gnt_cli_format_timestamp(value);
		return g_strdup("N/A");
	}
	if (g_strcmp0(column->kind, "unit") == 0 && gnt_json_node_is_number(value))
		return gnt_cli_format_unit(json_node_get_double(value), column->unit);
	return gnt_cli_py_str(value);
}

/* RSS_DESCRIPTION, the short forms */
static const gchar *
format_abnormal(gint64 status)
{
	switch (status) {
	case 1:
		return "??";
	case 2:
		return "?";
	case 3:
		return "-";
	case 4:
		return "*";
	default:
		return "?";
	}
}

static const GntCliFormatOverride *
find_override(const GntCliFormatOverride *overrides, const gchar *field)
{
	for (const GntCliFormatOverride *o = overrides; o != NULL && o->field != NULL; o++) {
		if (g_strcmp0(o->field, field) == 0)
			return o;
	}
	return NULL;
}

/* One row of cells, formatted. (transfer full) */
static gchar **
format_query_row(JsonArray *cells, const QueryColumn *columns, guint n_columns, gboolean *unknown,
		 GError **error)
{
	g_auto(GStrv) row = g_new0(gchar *, n_columns + 1);

	if (json_array_get_length(cells) != n_columns) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "query row has %u cells for %u fields", json_array_get_length(cells),
			    n_columns);
		return NULL;
	}
	for (guint c = 0; c < n_columns; c++) {
		JsonNode *cell = json_array_get_element(cells, c);
		JsonArray *pair = JSON_NODE_HOLDS_ARRAY(cell) ? json_node_get_array(cell) : NULL;
		gint64 status;

		if (pair == NULL || json_array_get_length(pair) != 2 ||
		    !gnt_json_node_is_int(json_array_get_element(pair, 0))) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "query cell %u is not a [status, value] pair", c);
			return NULL;
		}
		status = json_array_get_int_element(pair, 0);
		if (status == 1)
			*unknown = TRUE;
		row[c] = status == 0 ? format_cell(&columns[c], json_array_get_element(pair, 1))
				     : g_strdup(format_abnormal(status));
	}
	return g_steal_pointer(&row);
}

GPtrArray *
gnt_cli_format_query_result(JsonObject *response, const GntCliFormatOverride *overrides,
			    gboolean header, const gchar *separator, gboolean *unknown,
			    GError **error)
{
	JsonArray *fields;
	JsonArray *data;
	g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
	g_autofree GntCliColumn *table = NULL;
	g_autofree QueryColumn *columns = NULL;
	guint n_columns;

	*unknown = FALSE;
	if (!gnt_json_get_array(response, "fields", &fields, error) ||
	    !gnt_json_get_array(response, "data", &data, error)) {
		g_prefix_error(error, "query answer: ");
		return NULL;
	}
	n_columns = json_array_get_length(fields);
	table = g_new0(GntCliColumn, MAX(n_columns, 1));
	columns = g_new0(QueryColumn, MAX(n_columns, 1));
	for (guint c = 0; c < n_columns; c++) {
		JsonNode *node = json_array_get_element(fields, c);
		JsonObject *fdef = JSON_NODE_HOLDS_OBJECT(node) ? json_node_get_object(node) : NULL;
		const gchar *name = NULL;
		const gchar *kind = NULL;
		const GntCliFormatOverride *override;

		if (fdef == NULL) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "query field %u is a %s, not an object", c,
				    gnt_json_node_type_name(node));
			return NULL;
		}
		if (!gnt_json_get_string(fdef, "name", &name, error) ||
		    !gnt_json_get_string(fdef, "kind", &kind, error) ||
		    !gnt_json_get_string(fdef, "title", &table[c].title, error)) {
			g_prefix_error(error, "query field %u: ", c);
			return NULL;
		}
		override = find_override(overrides, name);
		columns[c].kind = kind;
		columns[c].unit = separator != NULL ? 'm' : 'h';
		columns[c].format = override != NULL ? override->format : NULL;
		table[c].align_right = override != NULL ? override->align_right
							: g_strcmp0(kind, "number") == 0 ||
								  g_strcmp0(kind, "float") == 0 ||
								  g_strcmp0(kind, "unit") == 0;
		if (g_strcmp0(kind, "unknown") == 0 && json_array_get_length(data) == 0)
			*unknown = TRUE;
	}
	for (guint r = 0; r < json_array_get_length(data); r++) {
		JsonNode *node = json_array_get_element(data, r);
		gchar **row;

		if (!JSON_NODE_HOLDS_ARRAY(node)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "query row %u is a %s", r,
				    gnt_json_node_type_name(node));
			return NULL;
		}
		row = format_query_row(json_node_get_array(node), columns, n_columns, unknown,
				       error);
		if (row == NULL)
			return NULL;
		g_ptr_array_add(rows, row);
	}
	return gnt_cli_format_table(table, n_columns, rows, header, separator);
}

static void
print_lines(GPtrArray *lines)
{
	for (guint i = 0; i < lines->len; i++)
		g_print("%s\n", (const gchar *)g_ptr_array_index(lines, i));
}

/* _WarnUnknownFields; TRUE if there were any. */
static gboolean
warn_unknown_fields(JsonObject *response)
{
	JsonArray *fields = NULL;
	g_autoptr(GString) names = g_string_new(NULL);

	if (!gnt_json_get_array(response, "fields", &fields, NULL))
		return FALSE;
	for (guint i = 0; i < json_array_get_length(fields); i++) {
		JsonNode *node = json_array_get_element(fields, i);
		JsonObject *fdef = JSON_NODE_HOLDS_OBJECT(node) ? json_node_get_object(node) : NULL;
		const gchar *kind = NULL;
		const gchar *name = NULL;

		if (fdef == NULL || !gnt_json_get_string(fdef, "kind", &kind, NULL) ||
		    g_strcmp0(kind, "unknown") != 0 ||
		    !gnt_json_get_string(fdef, "name", &name, NULL))
			continue;
		if (names->len > 0)
			g_string_append(names, ", ");
		g_string_append(names, name);
	}
	if (names->len == 0)
		return FALSE;
	fflush(stdout); /* Ganeti's ToStdout/ToStderr flush every line */
	g_printerr("Warning: Queried for unknown fields %s\n", names->str);
	return TRUE;
}

JsonArray *
gnt_cli_strv_to_json(gchar **strv)
{
	JsonArray *array = json_array_new();

	for (guint i = 0; strv != NULL && strv[i] != NULL; i++)
		json_array_add_string_element(array, strv[i]);
	return array;
}

JsonObject *
gnt_cli_call_object(GntCli *self, const gchar *method, JsonArray *args, GError **error)
{
	g_autoptr(JsonNode) result = gnt_cli_call_array(self, method, args, error);

	if (result == NULL)
		return NULL;
	if (!JSON_NODE_HOLDS_OBJECT(result)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "%s answered a %s, not an object",
			    method, gnt_json_node_type_name(result));
		return NULL;
	}
	return json_object_ref(json_node_get_object(result));
}

JsonObject *
gnt_cli_query(GntCli *self, const gchar *resource, gchar **fields, JsonNode *filter, GError **error)
{
	g_autoptr(JsonNode) filter_owned = filter;
	JsonArray *args = json_array_new();

	json_array_add_string_element(args, resource);
	json_array_add_array_element(args, gnt_cli_strv_to_json(fields));
	json_array_add_element(args, filter_owned != NULL ? g_steal_pointer(&filter_owned)
							  : json_node_new(JSON_NODE_NULL));
	return gnt_cli_call_object(self, "Query", args, error);
}

gboolean
gnt_cli_generic_list(GntCli *self, const gchar *resource, gchar **fields, JsonNode *filter,
		     const GntCliFormatOverride *overrides, gint *exit_code, GError **error)
{
	g_autoptr(JsonObject) response = gnt_cli_query(self, resource, fields, filter, error);
	g_autoptr(GPtrArray) lines = NULL;
	gboolean unknown = FALSE;

	if (response == NULL)
		return FALSE;
	(void)warn_unknown_fields(response);
	lines = gnt_cli_format_query_result(response, overrides, !self->opts.no_headers,
					    self->opts.separator, &unknown, error);
	if (lines == NULL)
		return FALSE;
	print_lines(lines);
	*exit_code = unknown ? GNT_CLI_EXIT_UNKNOWN_FIELD : GNT_CLI_EXIT_SUCCESS;
	return TRUE;
}

gboolean
gnt_cli_generic_list_fields(GntCli *self, const gchar *resource, gchar **fields, gint *exit_code,
			    GError **error)
{
	static const GntCliColumn columns[] = {
		{"Name", FALSE}, {"Type", FALSE}, {"Title", FALSE}, {"Description", FALSE}};
	JsonArray *args = json_array_new();
	g_autoptr(JsonObject) response = NULL;
	g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
	g_autoptr(GPtrArray) lines = NULL;
	JsonArray *fdefs = NULL;

	json_array_add_string_element(args, resource);
	if (fields != NULL && fields[0] != NULL)
		json_array_add_array_element(args, gnt_cli_strv_to_json(fields));
	else
		json_array_add_null_element(args);
	response = gnt_cli_call_object(self, "QueryFields", args, error);
	if (response == NULL || !gnt_json_get_array(response, "fields", &fdefs, error))
		return FALSE;
	for (guint i = 0; i < json_array_get_length(fdefs); i++) {
		JsonNode *node = json_array_get_element(fdefs, i);
		JsonObject *fdef = JSON_NODE_HOLDS_OBJECT(node) ? json_node_get_object(node) : NULL;
		const gchar *values[4] = {"", "", "", ""};
		const gchar *keys[] = {"name", "kind", "title", "doc"};
		gchar **row = g_new0(gchar *, 5);

		for (guint k = 0; fdef != NULL && k < G_N_ELEMENTS(keys); k++)
			(void)gnt_json_get_string(fdef, keys[k], &values[k], NULL);
		row[0] = g_strdup(values[0]);
		row[1] = g_strdup(kind_name(values[1]));
		row[2] = g_strdup(values[2]);
		row[3] = g_strdup(values[3]);
		g_ptr_array_add(rows, row);
	}
	/* _WarnUnknownFields runs before the table is printed */
	*exit_code = warn_unknown_fields(response) ? GNT_CLI_EXIT_UNKNOWN_FIELD
						   : GNT_CLI_EXIT_SUCCESS;
	lines = gnt_cli_format_table(columns, G_N_ELEMENTS(columns), rows, !self->opts.no_headers,
				     self->opts.separator);
	print_lines(lines);
	return TRUE;
}

/* ---- prompting ---- */

gboolean
gnt_cli_ask_user(const gchar *question)
{
	FILE *tty = fopen("/dev/tty", "r+");
	gboolean answer = FALSE;

	if (tty == NULL)
		return FALSE; /* no terminal: the last choice, "n" */
	for (;;) {
		gchar line[16];

		fprintf(tty, "%s\ny/[n]/?: ", question);
		fflush(tty);
		if (fgets(line, sizeof(line), tty) == NULL)
			break;
		g_strstrip(line);
		if (g_ascii_strcasecmp(line, "y") == 0) {
			answer = TRUE;
			break;
		}
		if (g_ascii_strcasecmp(line, "n") == 0)
			break;
		if (g_strcmp0(line, "?") == 0) {
			fprintf(tty, " y - Perform the operation\n"
				     " n - Do not perform the operation\n\n");
			continue;
		}
	}
	fclose(tty);
	return answer;
}
