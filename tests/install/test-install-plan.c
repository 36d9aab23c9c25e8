/*
 * The plan builder's merge rules (doc/install.md, "The plan"): a table of
 * cases, each templates (JSON, as the config stores them), the cluster's
 * policy and the instance, and either the rows that run in order or the
 * refusal's message; then the same plan built from shuffled templates
 * 1,000 times, and the cluster policy's checks.
 */
#include <string.h>

#include "gnt-error.h"
#include "gnt-install-plan-private.h"
#include "gnt-json.h"

typedef struct {
	const gchar *name;
	const gchar *templates; /* a JSON array of templates */
	const gchar *settings;	/* NULL: none */
	const gchar *hypervisor;
	guint n_disks;
	/* the rows that run, "id:priority" by a space; NULL: refused */
	const gchar *runs;
	/* refused: a part of the message; else a part of some row's "why" */
	const gchar *message;
	gboolean allow_test;
} Case;

#define CORE_RUNS                                                                                  \
	"deploy.prepare:100 deploy.write_image:80 deploy.run_os_scripts:70 "                       \
	"deploy.personalize:65 deploy.prepare_boot:60 deploy.tear_down_appliance:40 "              \
	"deploy.switch_networks:30 deploy.boot:20"
#define T(name, steps) "{\"name\":\"" name "\",\"serial_no\":3,\"steps\":[" steps "]}"
#define ROW(iface, step, args, prio)                                                               \
	"{\"interface\":\"" iface "\",\"step\":\"" step "\",\"args\":" args ",\"priority\":" prio  \
	"}"
#define RESIZE(disk, prio) ROW("deploy", "resize_disk", "{\"disk\":" disk ",\"size\":\"2G\"}", prio)
#define DISABLE(step)	   ROW("deploy", step, "{}", "0")
#define HV(params, prio)   ROW("hypervisor", "apply_settings", "{\"hvparams\":" params "}", prio)
#define NOTE(text, prio)   ROW("test", "note", "{\"text\":\"" text "\"}", prio)
/* the smallest storage layout: disk 0 wiped, one partition, ext4, root */
#define LAYOUT                                                                                        \
	ROW("appliance", "wipe_disks", "{}", "99")                                                    \
	"," ROW("appliance", "partition",                                                             \
		"{\"disk\":0,\"partitions\":[{\"size\":\"rest\",\"type\":\"linux\"}]}",               \
		"97") "," ROW("appliance", "mkfs", "{\"device\":\"disk0p1\",\"fstype\":\"ext4\"}",    \
			      "91") "," ROW("appliance", "mount_target",                              \
					    "{\"mounts\":[{\"device\":\"disk0p1\",\"path\":\"/\"}]}", \
					    "89")

static const Case cases[] = {
	/* the core plan */
	{"none", "[]", NULL, "kvm", 1, CORE_RUNS},
	{"policy-empty", "[]", "{\"install_denied_steps\":[],\"install_step_priorities\":{}}",
	 "kvm", 1, CORE_RUNS},
	/* template rows among the core rows */
	{"resize-90", "[" T("A", RESIZE("0", "90")) "]", NULL, "kvm", 1,
	 "deploy.prepare:100 A#1:90 deploy.write_image:80 deploy.run_os_scripts:70 "
	 "deploy.personalize:65 deploy.prepare_boot:60 deploy.tear_down_appliance:40 "
	 "deploy.switch_networks:30 deploy.boot:20"},
	{"equal-core-first", "[" T("A", RESIZE("0", "80")) "]", NULL, "kvm", 1,
	 "deploy.prepare:100 deploy.write_image:80 A#1:80 deploy.run_os_scripts:70 "
	 "deploy.personalize:65 deploy.prepare_boot:60 deploy.tear_down_appliance:40 "
	 "deploy.switch_networks:30 deploy.boot:20"},
	{"equal-by-name", "[" T("B", RESIZE("1", "50")) "," T("A", RESIZE("0", "50")) "]", NULL,
	 "kvm", 2,
	 "deploy.prepare:100 deploy.write_image:80 deploy.run_os_scripts:70 "
	 "deploy.personalize:65 deploy.prepare_boot:60 A#1:50 B#1:50 "
	 "deploy.tear_down_appliance:40 deploy.switch_networks:30 deploy.boot:20"},
	{"equal-by-position", "[" T("A", RESIZE("1", "50") "," RESIZE("0", "50")) "]", NULL, "kvm",
	 2,
	 "deploy.prepare:100 deploy.write_image:80 deploy.run_os_scripts:70 "
	 "deploy.personalize:65 deploy.prepare_boot:60 A#1:50 A#2:50 "
	 "deploy.tear_down_appliance:40 deploy.switch_networks:30 deploy.boot:20"},
	{"byte-order-names", "[" T("a", RESIZE("1", "50")) "," T("B", RESIZE("0", "50")) "]", NULL,
	 "kvm", 2,
	 "deploy.prepare:100 deploy.write_image:80 deploy.run_os_scripts:70 "
	 "deploy.personalize:65 deploy.prepare_boot:60 B#1:50 a#1:50 "
	 "deploy.tear_down_appliance:40 deploy.switch_networks:30 deploy.boot:20"},
	{"once-per-disk", "[" T("RAID", RESIZE("0", "90") "," RESIZE("1", "89")) "]", NULL, "kvm",
	 2,
	 "deploy.prepare:100 RAID#1:90 RAID#2:89 deploy.write_image:80 deploy.run_os_scripts:70 "
	 "deploy.personalize:65 deploy.prepare_boot:60 deploy.tear_down_appliance:40 "
	 "deploy.switch_networks:30 deploy.boot:20"},
	{"before-prepare", "[" T("VMX", HV("{\"cpu_type\":\"host\"}", "110")) "]", NULL, "kvm", 1,
	 "VMX#1:110 " CORE_RUNS},
	{"two-templates-mix",
	 "[" T("VMX", HV("{\"cpu_type\":\"host\"}", "21")) "," T("RAID", RESIZE("0", "99")) "]",
	 NULL, "kvm", 1,
	 "deploy.prepare:100 RAID#1:99 deploy.write_image:80 deploy.run_os_scripts:70 "
	 "deploy.personalize:65 deploy.prepare_boot:60 deploy.tear_down_appliance:40 "
	 "deploy.switch_networks:30 VMX#1:21 deploy.boot:20"},
	/* disabling */
	{"disable-core", "[" T("NOIMG", DISABLE("write_image")) "]", NULL, "kvm", 1,
	 "deploy.prepare:100 deploy.run_os_scripts:70 deploy.personalize:65 "
	 "deploy.prepare_boot:60 deploy.tear_down_appliance:40 deploy.switch_networks:30 "
	 "deploy.boot:20",
	 "disabled by template 'NOIMG' (step 1)"},
	{"disable-all-core",
	 "[" T("BARE",
	       DISABLE("prepare") "," DISABLE("write_image") "," DISABLE("run_os_scripts") "," DISABLE("personalize") "," DISABLE("prepare_boot") "," DISABLE(
		       "tear_down_appliance") "," DISABLE("switch_networks") "," DISABLE("boot") "," RESIZE("0",
													    "50")) "]",
	 NULL, "kvm", 1, "BARE#9:50", "disabled by template 'BARE' (step 8)"},
	{"zero-non-core", "[" T("A", RESIZE("0", "0")) "]", NULL, "kvm", 1, CORE_RUNS,
	 "priority 0 in its template"},
	/* the instance */
	{"no-such-disk", "[" T("A", RESIZE("2", "90")) "]", NULL, "kvm", 2, NULL,
	 "template 'A', step 1 (deploy.resize_disk): the instance has no disk 2 (it has 2)"},
	{"diskless", "[" T("A", RESIZE("0", "90")) "]", NULL, "kvm", 0, NULL,
	 "the instance has no disk 0 (it has 0)"},
	{"hv-refuses", "[" T("VMX", HV("{\"cpu_type\":\"host\"}", "90")) "]", NULL, "fake", 1, NULL,
	 "template 'VMX', step 1 (hypervisor.apply_settings): hypervisor 'fake' refuses the "
	 "parameters: "},
	{"hv-fake-ok", "[" T("ARGS", HV("{\"kernel_args\":\"quiet\"}", "90")) "]", NULL, "fake", 1,
	 "deploy.prepare:100 ARGS#1:90 deploy.write_image:80 deploy.run_os_scripts:70 "
	 "deploy.personalize:65 deploy.prepare_boot:60 deploy.tear_down_appliance:40 "
	 "deploy.switch_networks:30 deploy.boot:20"},
	{"hv-bad-value", "[" T("A", HV("{\"boot_order\":\"floppy\"}", "90")) "]", NULL, "kvm", 1,
	 NULL, "template 'A', step 1 (hypervisor.apply_settings): argument 'hvparams' "},
	/* conflicts between templates */
	{"conflict-disk", "[" T("A", RESIZE("0", "90")) "," T("B", RESIZE("0", "50")) "]", NULL,
	 "kvm", 1, NULL,
	 "install templates 'A' (step 1) and 'B' (step 1) both give deploy.resize_disk disk=0: "
	 "only one template may"},
	{"conflict-disable",
	 "[" T("X", DISABLE("boot")) "," T("Y", RESIZE("0", "90") "," DISABLE("boot")) "]", NULL,
	 "kvm", 1, NULL, "install templates 'X' (step 1) and 'Y' (step 2) both give deploy.boot"},
	{"conflict-hv",
	 "[" T("V1", HV("{\"cpu_type\":\"host\"}", "90")) "," T("V2",
								HV("{\"acpi\":false}", "91")) "]",
	 NULL, "kvm", 1, NULL,
	 "install templates 'V1' (step 1) and 'V2' (step 1) both give "
	 "hypervisor.apply_settings"},
	{"no-conflict-disks", "[" T("A", RESIZE("0", "90")) "," T("B", RESIZE("1", "90")) "]", NULL,
	 "kvm", 2,
	 "deploy.prepare:100 A#1:90 B#1:90 deploy.write_image:80 deploy.run_os_scripts:70 "
	 "deploy.personalize:65 deploy.prepare_boot:60 deploy.tear_down_appliance:40 "
	 "deploy.switch_networks:30 deploy.boot:20"},
	{"same-name-twice", "[" T("A", RESIZE("0", "90")) "," T("A", RESIZE("1", "90")) "]", NULL,
	 "kvm", 2, NULL, "install template 'A' is given twice"},
	/* the cluster's policy */
	{"denied-template-step", "[" T("A", RESIZE("0", "90")) "]",
	 "{\"install_denied_steps\":[\"deploy.resize_disk\"]}", "kvm", 1, NULL,
	 "template 'A', step 1 (deploy.resize_disk): the step is denied by the cluster policy "
	 "(install_denied_steps)"},
	{"denied-core", "[]", "{\"install_denied_steps\":[\"deploy.personalize\"]}", "kvm", 1,
	 "deploy.prepare:100 deploy.write_image:80 deploy.run_os_scripts:70 "
	 "deploy.prepare_boot:60 deploy.tear_down_appliance:40 deploy.switch_networks:30 "
	 "deploy.boot:20",
	 "denied by the cluster policy (install_denied_steps)"},
	{"denied-and-disabled", "[" T("A", DISABLE("personalize")) "]",
	 "{\"install_denied_steps\":[\"deploy.personalize\"]}", "kvm", 1,
	 "deploy.prepare:100 deploy.write_image:80 deploy.run_os_scripts:70 "
	 "deploy.prepare_boot:60 deploy.tear_down_appliance:40 deploy.switch_networks:30 "
	 "deploy.boot:20",
	 "denied by the cluster policy"},
	{"override-core", "[" T("A", RESIZE("0", "72")) "]",
	 "{\"install_step_priorities\":{\"deploy.run_os_scripts\":75}}", "kvm", 1,
	 "deploy.prepare:100 deploy.write_image:80 deploy.run_os_scripts:75 A#1:72 "
	 "deploy.personalize:65 deploy.prepare_boot:60 deploy.tear_down_appliance:40 "
	 "deploy.switch_networks:30 deploy.boot:20"},
	{"override-zero", "[]", "{\"install_step_priorities\":{\"deploy.switch_networks\":0}}",
	 "kvm", 1,
	 "deploy.prepare:100 deploy.write_image:80 deploy.run_os_scripts:70 "
	 "deploy.personalize:65 deploy.prepare_boot:60 deploy.tear_down_appliance:40 "
	 "deploy.boot:20",
	 "priority 0 by the cluster policy (install_step_priorities)"},
	/* a template's priority beats the cluster's override: the row runs
	 * at the template's */
	{"template-beats-override", "[" T("A", RESIZE("0", "95")) "]",
	 "{\"install_step_priorities\":{\"deploy.resize_disk\":0}}", "kvm", 1,
	 "deploy.prepare:100 A#1:95 deploy.write_image:80 deploy.run_os_scripts:70 "
	 "deploy.personalize:65 deploy.prepare_boot:60 deploy.tear_down_appliance:40 "
	 "deploy.switch_networks:30 deploy.boot:20"},
	/* every refusal of the steps' checker, through the builder */
	{"unknown-step", "[" T("A", ROW("raid", "create_configuration", "{}", "10")) "]", NULL,
	 "kvm", 1, NULL, "template 'A', step 1: unknown install step 'raid.create_configuration'"},
	{"test-step-operator", "[" T("A", NOTE("x", "50")) "]", NULL, "kvm", 1, NULL,
	 "template 'A', step 1: unknown install step 'test.note'"},
	{"test-step-allowed", "[" T("A", NOTE("x", "50")) "]", NULL, "kvm", 1,
	 "deploy.prepare:100 deploy.write_image:80 deploy.run_os_scripts:70 "
	 "deploy.personalize:65 deploy.prepare_boot:60 A#1:50 deploy.tear_down_appliance:40 "
	 "deploy.switch_networks:30 deploy.boot:20",
	 NULL, TRUE},
	{"unknown-arg",
	 "[" T("A", ROW("deploy", "resize_disk", "{\"disk\":0,\"size\":1,\"raid\":1}", "90")) "]",
	 NULL, "kvm", 1, NULL,
	 "template 'A', step 1 (deploy.resize_disk): unknown argument 'raid'"},
	{"missing-arg", "[" T("A", ROW("deploy", "resize_disk", "{\"disk\":0}", "90")) "]", NULL,
	 "kvm", 1, NULL, "template 'A', step 1 (deploy.resize_disk): missing argument 'size'"},
	{"wrong-type",
	 "[" T("A", ROW("deploy", "resize_disk", "{\"disk\":0.5,\"size\":1}", "90")) "]", NULL,
	 "kvm", 1, NULL,
	 "template 'A', step 1 (deploy.resize_disk): argument 'disk' must be an integer, not "
	 "number"},
	{"prio-minus-one", "[" T("A", RESIZE("0", "-1")) "]", NULL, "kvm", 1, NULL,
	 "template 'A', step 1 (deploy.resize_disk): priority -1 is out of range (0 or 21..99)"},
	/* the JSON reader refuses it before any template is made of it */
	{"prio-2-63", "[" T("A", RESIZE("0", "9223372036854775808")) "]", NULL, "kvm", 1, NULL,
	 "invalid JSON: an integer does not fit 64 bits"},
	{"prio-2-64-plus-50", "[" T("A", RESIZE("0", "18446744073709551666")) "]", NULL, "kvm", 1,
	 NULL, "invalid JSON: an integer does not fit 64 bits"},
	/* what json-glib alone would have made of 2^63 */
	{"prio-int64-min", "[" T("A", RESIZE("0", "-9223372036854775808")) "]", NULL, "kvm", 1,
	 NULL,
	 "template 'A', step 1 (deploy.resize_disk): priority -9223372036854775808 is out of "
	 "range (0 or 21..99)"},
	{"prio-string", "[" T("A", RESIZE("0", "\"010\"")) "]", NULL, "kvm", 1, NULL,
	 "template 'A', step 1 (deploy.resize_disk): priority \"010\" is not an integer (0..999)"},
	{"prio-1e3", "[" T("A", RESIZE("0", "1e3")) "]", NULL, "kvm", 1, NULL,
	 "template 'A', step 1 (deploy.resize_disk): priority 1000.0 is not an integer"},
	{"prio-core-50", "[" T("A", ROW("deploy", "write_image", "{}", "50")) "]", NULL, "kvm", 1,
	 NULL,
	 "template 'A', step 1 (deploy.write_image): priority 50 not allowed: deploy.write_image "
	 "is a core step, which a template may only disable (priority 0)"},
	{"prio-band", "[" T("A", RESIZE("0", "101")) "]", NULL, "kvm", 1, NULL,
	 "priority 101 is out of range (0 or 21..99)"},
	{"extra-member",
	 "[{\"name\":\"A\",\"steps\":[{\"interface\":\"deploy\",\"step\":\"boot\",\"args\":{},"
	 "\"priority\":0,\"when\":1}]}]",
	 NULL, "kvm", 1, NULL, "template 'A', step 1: unknown member 'when'"},
	{"no-args",
	 "[{\"name\":\"A\",\"steps\":[{\"interface\":\"deploy\",\"step\":\"boot\",\"priority\":0}]}]",
	 NULL, "kvm", 1, NULL, "template 'A', step 1: 'args' is missing (give {} for none)"},
	{"no-steps", "[{\"name\":\"A\",\"steps\":[]}]", NULL, "kvm", 1, NULL,
	 "template 'A' has no steps"},
	{"steps-missing", "[{\"name\":\"A\"}]", NULL, "kvm", 1, NULL, "template 'A' has no steps"},
	{"no-name", "[{\"steps\":[]}]", NULL, "kvm", 1, NULL, "install template 1 has no name"},
	{"repeat-in-template", "[" T("A", RESIZE("0", "90") "," RESIZE("0", "91")) "]", NULL, "kvm",
	 1, NULL,
	 "template 'A', step 2 (deploy.resize_disk disk=0): repeats step 1 (the same step on the "
	 "same thing)"},
	{"hv-unknown-param", "[" T("A", HV("{\"vmx\":true}", "90")) "]", NULL, "kvm", 1, NULL,
	 "template 'A', step 1 (hypervisor.apply_settings): argument 'hvparams' 'vmx' is not a "
	 "parameter of any hypervisor"},
	/* storage steps: the payload is written in band (appliance.write_payload
	 * at 85 in place of deploy.write_image), which a template may not name */
	{"storage-payload", "[" T("L", LAYOUT) "]", NULL, "kvm", 1,
	 "deploy.prepare:100 L#1:99 L#2:97 L#3:91 L#4:89 appliance.write_payload:85 "
	 "deploy.run_os_scripts:70 deploy.personalize:65 deploy.prepare_boot:60 "
	 "deploy.tear_down_appliance:40 deploy.switch_networks:30 deploy.boot:20"},
	{"storage-write-image", "[" T("L", LAYOUT "," DISABLE("write_image")) "]", NULL, "kvm", 1,
	 NULL,
	 "template 'L', step 5 (deploy.write_image): refused with storage steps in the plan "
	 "(appliance.wipe_disks of template 'L'): the disks are laid out inside the install "
	 "appliance, and the host cannot write onto a layout it does not see"},
	{"storage-write-image-other", "[" T("L", LAYOUT) "," T("W", DISABLE("write_image")) "]",
	 NULL, "kvm", 1, NULL, "template 'W', step 1 (deploy.write_image): refused"},
	/* the steps that need the appliance's VM: refused where the agent runs
	 * on the node (the fake hypervisor), named by template and row; one that
	 * does not run is not; other in-band steps run there */
	{"storage-on-fake", "[" T("L", LAYOUT) "]", NULL, "fake", 1, NULL,
	 "template 'L', step 1 (appliance.wipe_disks): hypervisor 'fake' runs the in-band steps "
	 "on the node itself, not in an install appliance VM, and this step runs only inside "
	 "that VM: on the node it would act on the node's own disks"},
	{"storage-off-on-fake",
	 "[" T("L", ROW("appliance", "wipe_disks", "{}",
			"0") "," ROW("appliance", "zero_disk_start", "{\"disk\":0}", "90")) "]",
	 NULL, "fake", 1,
	 "deploy.prepare:100 L#2:90 deploy.write_image:80 deploy.run_os_scripts:70 "
	 "deploy.personalize:65 deploy.prepare_boot:60 deploy.tear_down_appliance:40 "
	 "deploy.switch_networks:30 deploy.boot:20",
	 "priority 0 in its template"},
	{"write-image-alone", "[" T("W", DISABLE("write_image")) "]", NULL, "kvm", 1,
	 "deploy.prepare:100 deploy.run_os_scripts:70 deploy.personalize:65 "
	 "deploy.prepare_boot:60 deploy.tear_down_appliance:40 deploy.switch_networks:30 "
	 "deploy.boot:20",
	 "disabled by template 'W'"},
	{"core-args", "[" T("A", ROW("deploy", "write_image", "{\"url\":\"x\"}", "0")) "]", NULL,
	 "kvm", 1, NULL,
	 "template 'A', step 1 (deploy.write_image): unknown argument 'url' (deploy.write_image "
	 "takes none)"},
};

/* The rows that run as "id:priority ..."; the "why" of those that don't
 * into @whys. */
static gchar *
plan_runs(JsonObject *plan, GString *whys)
{
	JsonArray *rows = json_object_get_array_member(plan, "rows");
	g_autoptr(GString) out = g_string_new(NULL);
	gboolean runs_done = FALSE;

	for (guint i = 0; i < json_array_get_length(rows); i++) {
		JsonObject *row = json_array_get_object_element(rows, i);

		if (!json_object_get_boolean_member(row, "runs")) {
			runs_done = TRUE;
			g_string_append_printf(whys, "%s: %s\n",
					       json_object_get_string_member(row, "id"),
					       json_object_get_string_member(row, "why"));
			continue;
		}
		/* the rows that do not run come after all that do */
		g_assert_false(runs_done);
		g_assert_true(json_object_get_null_member(row, "why"));
		g_string_append_printf(out, "%s%s:%" G_GINT64_FORMAT, out->len > 0 ? " " : "",
				       json_object_get_string_member(row, "id"),
				       json_object_get_int_member(row, "priority"));
	}
	return g_string_free(g_steal_pointer(&out), FALSE);
}

static JsonNode *
parse_or_die(const gchar *text)
{
	g_autoptr(GError) error = NULL;
	JsonNode *node = gnt_json_parse(text, -1, &error);

	g_assert_no_error(error);
	return node;
}

static GPtrArray *
templates_of(JsonNode *node)
{
	GPtrArray *out = g_ptr_array_new();
	JsonArray *array = json_node_get_array(node);

	for (guint i = 0; i < json_array_get_length(array); i++)
		g_ptr_array_add(out, json_array_get_object_element(array, i));
	return out;
}

static void
test_table(void)
{
	guint refusals = 0;

	g_assert_cmpuint(G_N_ELEMENTS(cases), >=, 40);
	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		const Case *c = &cases[i];
		g_autoptr(GError) parse_error = NULL;
		g_autoptr(JsonNode) templates = gnt_json_parse(c->templates, -1, &parse_error);
		g_autoptr(JsonNode) settings = c->settings != NULL ? parse_or_die(c->settings)
								   : NULL;
		g_autoptr(GPtrArray) list = NULL;
		GntInstallPlanTarget target = {c->hypervisor, c->n_disks};
		g_autoptr(GError) error = NULL;
		g_autoptr(GntInstallPlan) plan = NULL;
		g_autoptr(JsonObject) json = NULL;
		g_autoptr(GString) whys = g_string_new(NULL);
		g_autofree gchar *runs = NULL;

		/* text the JSON reader refuses never becomes a template */
		if (templates == NULL) {
			g_assert_null(c->runs);
			g_assert_cmpstr(parse_error->message, ==, c->message);
			refusals++;
			continue;
		}
		list = templates_of(templates);
		plan = gnt_install_plan_build_full((JsonObject *const *)list->pdata, list->len,
						   settings != NULL ? json_node_get_object(settings)
								    : NULL,
						   &target, c->allow_test, &error);
		if (c->runs == NULL) {
			if (plan != NULL)
				g_error("%s: built, not refused", c->name);
			g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
			if (strstr(error->message, c->message) == NULL)
				g_error("%s: '%s' lacks '%s'", c->name, error->message, c->message);
			refusals++;
			continue;
		}
		if (plan == NULL)
			g_error("%s: %s", c->name, error->message);
		json = gnt_install_plan_to_json(plan);
		runs = plan_runs(json, whys);
		if (strcmp(runs, c->runs) != 0)
			g_error("%s: runs\n  %s\nnot\n  %s", c->name, runs, c->runs);
		if (c->message != NULL && strstr(whys->str, c->message) == NULL)
			g_error("%s: the rows not run (%s) lack '%s'", c->name, whys->str,
				c->message);
	}
	g_assert_cmpuint(refusals, >=, 20);
}

/* What the record keeps: every member of a row, the templates with their
 * serial numbers, copies of the arguments. */
static void
test_json(void)
{
	g_autoptr(JsonNode) templates =
		parse_or_die("[" T("RAID", RESIZE("1", "90") "," DISABLE("personalize")) "]");
	g_autoptr(GPtrArray) list = templates_of(templates);
	GntInstallPlanTarget target = {"kvm", 2};
	g_autoptr(GError) error = NULL;
	g_autoptr(GntInstallPlan) plan = gnt_install_plan_build((JsonObject *const *)list->pdata,
								list->len, NULL, &target, &error);
	g_autoptr(JsonObject) json = NULL;
	g_autoptr(JsonNode) node = NULL;
	g_autofree gchar *text = NULL;
	JsonObject *step;

	g_assert_no_error(error);
	json = gnt_install_plan_to_json(plan);
	/* a template changed afterwards changes no plan */
	step = json_array_get_object_element(
		json_object_get_array_member(g_ptr_array_index(list, 0), "steps"), 0);
	json_object_set_int_member(json_object_get_object_member(step, "args"), "disk", 0);
	json_object_set_int_member(g_ptr_array_index(list, 0), "serial_no", 4);
	node = gnt_json_node_new_object(json_object_ref(json));
	text = gnt_json_to_string(node);
	g_assert_cmpstr(
		text, ==,
		"{\"templates\":[{\"name\":\"RAID\",\"serial_no\":3}],\"rows\":["
		"{\"id\":\"deploy.prepare\",\"step\":\"deploy.prepare\",\"priority\":100,\"args\":{},"
		"\"origin\":\"core\",\"template\":null,\"position\":null,\"runs\":true,\"why\":null},"
		"{\"id\":\"RAID#1\",\"step\":\"deploy.resize_disk\",\"priority\":90,"
		"\"args\":{\"disk\":1,\"size\":\"2G\"},\"origin\":\"template\",\"template\":\"RAID\","
		"\"position\":1,\"runs\":true,\"why\":null},"
		"{\"id\":\"deploy.write_image\",\"step\":\"deploy.write_image\",\"priority\":80,"
		"\"args\":{},\"origin\":\"core\",\"template\":null,\"position\":null,\"runs\":true,"
		"\"why\":null},"
		"{\"id\":\"deploy.run_os_scripts\",\"step\":\"deploy.run_os_scripts\",\"priority\":70,"
		"\"args\":{},\"origin\":\"core\",\"template\":null,\"position\":null,\"runs\":true,"
		"\"why\":null},"
		"{\"id\":\"deploy.prepare_boot\",\"step\":\"deploy.prepare_boot\",\"priority\":60,"
		"\"args\":{},\"origin\":\"core\",\"template\":null,\"position\":null,\"runs\":true,"
		"\"why\":null},"
		"{\"id\":\"deploy.tear_down_appliance\",\"step\":\"deploy.tear_down_appliance\","
		"\"priority\":40,\"args\":{},\"origin\":\"core\",\"template\":null,\"position\":null,"
		"\"runs\":true,\"why\":null},"
		"{\"id\":\"deploy.switch_networks\",\"step\":\"deploy.switch_networks\","
		"\"priority\":30,\"args\":{},\"origin\":\"core\",\"template\":null,\"position\":null,"
		"\"runs\":true,\"why\":null},"
		"{\"id\":\"deploy.boot\",\"step\":\"deploy.boot\",\"priority\":20,\"args\":{},"
		"\"origin\":\"core\",\"template\":null,\"position\":null,\"runs\":true,\"why\":null},"
		"{\"id\":\"deploy.personalize\",\"step\":\"deploy.personalize\",\"priority\":65,"
		"\"args\":{},\"origin\":\"core\",\"template\":null,\"position\":null,\"runs\":false,"
		"\"why\":\"disabled by template 'RAID' (step 2)\"}]}");
}

/* Eight templates with rows of equal priorities, given in 1,000 shuffled
 * orders: the same plan each time. */
static void
test_shuffled(void)
{
	g_autoptr(JsonNode) templates = parse_or_die(
		"[" T("K", NOTE("k1", "50") "," NOTE("k2", "50")) "," T("B", NOTE("b", "50")) "," T(
			"CUSTOM_Z",
			NOTE("z", "70") "," RESIZE(
				"0",
				"50")) "," T("a",
					     NOTE("a",
						  "50")) "," T("CUSTOM_A",
							       RESIZE("1", "50") "," NOTE(
								       "ca",
								       "80")) "," T("M",
										    HV("{\"cpu_type\":\"host\"}",
										       "50")) "," T("N",
												    DISABLE("boot") "," NOTE(
													    "n",
													    "20")) "," T("Q",
															 NOTE("q",
															      "20")) "]");
	g_autoptr(GPtrArray) list = templates_of(templates);
	GntInstallPlanTarget target = {"kvm", 2};
	g_autoptr(GRand) rand = g_rand_new_with_seed(14);
	g_autofree gchar *first = NULL;

	for (guint round = 0; round < 1000; round++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(GntInstallPlan) plan = NULL;
		g_autoptr(JsonNode) node = NULL;
		g_autofree gchar *text = NULL;

		/* Fisher-Yates */
		for (guint i = list->len - 1; i > 0; i--) {
			guint k = g_rand_int_range(rand, 0, (gint32)i + 1);
			gpointer tmp = list->pdata[i];

			list->pdata[i] = list->pdata[k];
			list->pdata[k] = tmp;
		}
		plan = gnt_install_plan_build_full((JsonObject *const *)list->pdata, list->len,
						   NULL, &target, TRUE, &error);
		g_assert_no_error(error);
		node = gnt_json_node_new_object(gnt_install_plan_to_json(plan));
		text = gnt_json_to_string(node);
		if (first == NULL)
			first = g_steal_pointer(&text);
		else
			g_assert_cmpstr(text, ==, first);
	}
	/* and the documented order */
	{
		g_autoptr(JsonNode) node = parse_or_die(first);
		g_autoptr(GString) whys = g_string_new(NULL);
		g_autofree gchar *runs = plan_runs(json_node_get_object(node), whys);

		g_assert_cmpstr(runs, ==,
				"deploy.prepare:100 deploy.write_image:80 CUSTOM_A#2:80 "
				"deploy.run_os_scripts:70 CUSTOM_Z#1:70 deploy.personalize:65 "
				"deploy.prepare_boot:60 B#1:50 CUSTOM_A#1:50 CUSTOM_Z#2:50 K#1:50 "
				"K#2:50 M#1:50 a#1:50 deploy.tear_down_appliance:40 "
				"deploy.switch_networks:30 N#2:20 Q#1:20");
		g_assert_cmpstr(whys->str, ==, "deploy.boot: disabled by template 'N' (step 1)\n");
	}
}

typedef struct {
	const gchar *denied;
	const gchar *priorities;
	const gchar *error; /* NULL: accepted */
} PolicyCase;

static const PolicyCase policy_cases[] = {
	{"[\"deploy.resize_disk\", \"deploy.boot\"]", "{\"deploy.run_os_scripts\": 75}", NULL},
	{NULL, "{\"deploy.boot\": 0, \"deploy.prepare\": 999}", NULL},
	{"[\"deploy.nope\"]", NULL, "denied install steps: unknown install step 'deploy.nope'"},
	{"[\"test.fail\"]", NULL, "denied install steps: unknown install step 'test.fail'"},
	{"[3]", NULL, "denied install steps: element 1 must be a string, not integer"},
	{NULL, "{\"deploy.run_os_scripts\": 85}",
	 "install step priorities: deploy.run_os_scripts (85) must stay below "
	 "deploy.write_image (80): core steps keep their order"},
	{NULL, "{\"deploy.boot\": 30}",
	 "deploy.boot (30) must stay below deploy.switch_networks (30)"},
	{NULL, "{\"deploy.resize_disk\": 50}",
	 "install step priorities: deploy.resize_disk needs the argument 'disk', which only a "
	 "template gives: it cannot run by default"},
	{NULL, "{\"deploy.resize_disk\": 0}", NULL},
	{NULL, "{\"deploy.boot\": -1}",
	 "install step priorities: deploy.boot: -1 is not an integer in 0..999"},
	{NULL, "{\"deploy.boot\": \"10\"}",
	 "install step priorities: deploy.boot: \"10\" is not an integer in 0..999"},
	{NULL, "{\"deploy.boot\": 1000}", "is not an integer in 0..999"},
};

static void
test_policy(void)
{
	for (guint i = 0; i < G_N_ELEMENTS(policy_cases); i++) {
		const PolicyCase *c = &policy_cases[i];
		g_autoptr(JsonNode) denied = c->denied != NULL ? parse_or_die(c->denied) : NULL;
		g_autoptr(JsonNode) priorities = c->priorities != NULL ? parse_or_die(c->priorities)
								       : NULL;
		g_autoptr(GError) error = NULL;
		gboolean ok = gnt_install_policy_check(
			denied != NULL ? json_node_get_array(denied) : NULL,
			priorities != NULL ? json_node_get_object(priorities) : NULL, &error);

		if (c->error == NULL) {
			if (!ok)
				g_error("policy %u: %s", i, error->message);
			continue;
		}
		if (ok)
			g_error("policy %u: accepted", i);
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		if (strstr(error->message, c->error) == NULL)
			g_error("policy %u: '%s' lacks '%s'", i, error->message, c->error);
	}
}

static void
test_core(void)
{
	g_autoptr(JsonObject) plan = gnt_install_plan_new_core();
	g_autoptr(GString) whys = g_string_new(NULL);
	g_autofree gchar *runs = plan_runs(plan, whys);

	g_assert_cmpstr(runs, ==, CORE_RUNS);
	g_assert_cmpstr(whys->str, ==, "");
	g_assert_cmpuint(json_array_get_length(json_object_get_array_member(plan, "templates")), ==,
			 0);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/install/plan/table", test_table);
	g_test_add_func("/install/plan/json", test_json);
	g_test_add_func("/install/plan/shuffled", test_shuffled);
	g_test_add_func("/install/plan/policy", test_policy);
	g_test_add_func("/install/plan/core", test_core);
	return g_test_run();
}
