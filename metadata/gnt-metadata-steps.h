#pragma once /* metadata/gnt-metadata-steps.h: the appliance's in-band steps in metad */

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/*
 * The install appliance as a step engine (doc/appliance.md "Steps",
 * doc/metad.md "In-band steps"). noded pushes the session's steps in the
 * record ("install_steps": [{"id", "step", "args", "timeout"}], in the
 * order they run); the agent reports its catalogue once, then asks for the
 * next step, runs it and reports its result, and asks again until it is
 * told to power off. metad hands the steps out in order, one at a time,
 * and turns each start and result into a progress entry, which is how the
 * master's job log sees them as they happen.
 *
 * Everything here parses what an untrusted guest sends: bounded, and
 * refused with GNT_ERROR_INVALID naming what was wrong
 * (tests/fuzz/fuzz-metadata-steps.c).
 */

/* How many steps one session may hold (a template holds at most 64, plus
 * the core in-band rows). */
#define GNT_METADATA_STEPS_MAX 128
/* The longest row identity ("TEMPLATE#POSITION" or a core step's name). */
#define GNT_METADATA_STEP_ID_MAX 200
/* How many steps a catalogue may list, and its largest size. */
#define GNT_METADATA_CATALOGUE_MAX_STEPS 64
#define GNT_METADATA_CATALOGUE_MAX_BYTES (64 * 1024)

typedef struct _GntMetadataSteps GntMetadataSteps;

/* Appends NAME='value' and a newline to @out, each ' of @value as '\''
 * (what the agent evaluates: its steps here, the environment's exports). */
void
gnt_metadata_append_shell_assignment(GString *out, const gchar *name, const gchar *value);

/* The session's steps from the record's "install_steps" (each {"id": a
 * string of 1..200 printable ASCII bytes, "step": [a-z0-9_]{1,64}, "args":
 * an object, "timeout": 1..86400 seconds}); GNT_ERROR_INVALID naming the
 * item and member. (transfer full) */
GntMetadataSteps *
gnt_metadata_steps_new(JsonArray *install_steps, GError **error);
void
gnt_metadata_steps_free(GntMetadataSteps *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntMetadataSteps, gnt_metadata_steps_free)

/*
 * What the agent runs next, as shell assignments it evaluates:
 *   GANTRY_ACTION='run' GANTRY_STEP_ID='T#1' GANTRY_STEP_ID_QUERY='T%231'
 *   GANTRY_STEP='echo' GANTRY_STEP_TIMEOUT='600'
 *   GANTRY_STEP_ARGS='{"text":"hi"}'
 *   GANTRY_ARG_TEXT='hi'   (each argument; objects and arrays as JSON)
 *   GANTRY_ARG_NAMES='GANTRY_ARG_TEXT'
 * or GANTRY_ACTION='poweroff' once every step has a result, or after a
 * failed one. The step handed out stays the current one until its result
 * comes (asking again, e.g. after the agent restarted, gets it again);
 * @started: (out) (nullable) the step's name and id when this call started
 * it (a progress entry "start" is due), else NULL. (transfer full)
 */
gchar *
gnt_metadata_steps_next(GntMetadataSteps *self, const gchar **started_step,
			const gchar **started_id);

/* Each boot of the appliance has its own token (noded's, on the kernel
 * command line): the steps' paths answer only the current one; any other
 * gets the 404 of an unknown path. A session without a token (NULL)
 * answers any request. */
void
gnt_metadata_steps_set_token(GntMetadataSteps *self, const gchar *token);
gboolean
gnt_metadata_steps_token_matches(GntMetadataSteps *self, const gchar *token);

/* One step's result as the agent posts it to
 * /gantry/latest/install/step-result?id=ID&status=done|failed&detail=TEXT
 * &reboot=0|1 with the output's tail as the body. */
typedef struct {
	gchar *id;
	gboolean ok;
	gchar *detail; /* valid UTF-8, at most GNT_METADATA_PROGRESS_DETAIL_MAX */
	gchar *output; /* valid UTF-8, its last GNT_METADATA_PROGRESS_OUTPUT_MAX bytes */
	gboolean reboot_requested;
} GntMetadataStepResult;

void
gnt_metadata_step_result_free(GntMetadataStepResult *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntMetadataStepResult, gnt_metadata_step_result_free)

/* Parses a result's query values (each nullable: absent) and body.
 * (transfer full) */
GntMetadataStepResult *
gnt_metadata_step_result_parse(const gchar *id, const gchar *status, const gchar *detail,
			       const gchar *reboot, const gchar *body, gsize body_len,
			       GError **error);

/* The longest data a step's result may carry (its post-step hook's input). */
#define GNT_METADATA_STEP_DATA_MAX 4096

/* Parses the data a step's result carries for the master's post-step hook
 * (the query value data=, doc/install.md "Post-step hooks"): a JSON object
 * of at most GNT_METADATA_STEP_DATA_MAX bytes whose members are strings,
 * integers or booleans, keys [a-z0-9_]{1,64}; GNT_ERROR_INVALID naming
 * what is wrong. Returns its compact text. (transfer full) */
gchar *
gnt_metadata_step_data_parse(const gchar *data, GError **error);

/* Takes @result for the current step: its id must be the one handed out
 * (GNT_ERROR_WRONG_STATE otherwise: no step running, or another one).
 * @step: (out) the step's name (borrowed from @self). */
gboolean
gnt_metadata_steps_take_result(GntMetadataSteps *self, const GntMetadataStepResult *result,
			       const gchar **step, GError **error);

/*
 * Parses the agent's catalogue (appliance/steps.json, which the agent posts
 * at its first contact and the master's registry embeds):
 *   {"version": "1", "steps": [{"name": [a-z0-9_]{1,64}, "priority": 41..99,
 *     "args": [{"name": [a-z0-9_]{1,64}, "type": "string"|"integer"|"boolean",
 *               "required": bool, "identity": bool (two rows with the
 *               same values of these act on the same thing), "description"}],
 *     "reboot_requested": bool, "for_operators": bool, "core": bool,
 *     "description": TEXT}]}
 * at most GNT_METADATA_CATALOGUE_MAX_BYTES, every member given, no other.
 * Returns the parsed object. (transfer full)
 */
JsonObject *
gnt_metadata_catalogue_parse(const gchar *data, gsize len, GError **error);

G_END_DECLS
