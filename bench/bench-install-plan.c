/*
 * bench-install-plan: building one install's plan (install/gnt-install-plan.h,
 * doc/benchmarks.md "Install plan"): the core steps, 3 install templates of
 * 10 steps each and a cluster policy, as create and reinstall build it in
 * their check; templates given as the JSON objects the config hands out,
 * every template's steps checked again as part of the build. Prints the
 * median time of one build over rounds of many builds, with and without
 * the plan's JSON (what the record keeps). Asserts nothing.
 *
 *	bench-install-plan [--rounds N] [--builds N]	(default 7 rounds of 20,000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gnt-install-plan-private.h"
#include "gnt-json.h"

/* Three templates of 10 steps: 10 disks grown, hvparams and core steps
 * disabled, and test steps (the only other kind with many rows). */
static JsonObject *
template_new(guint which)
{
	g_autoptr(GString) text = g_string_new(NULL);
	g_autoptr(JsonNode) node = NULL;
	g_autoptr(GError) error = NULL;

	g_string_append_printf(
		text, "{\"name\": \"CUSTOM_BENCH_%u\", \"serial_no\": 4, \"steps\": [", which);
	for (guint i = 0; i < 10; i++) {
		if (i > 0)
			g_string_append(text, ", ");
		if (which == 0)
			g_string_append_printf(
				text,
				"{\"interface\": \"deploy\", \"step\": "
				"\"resize_disk\", \"args\": {\"disk\": %u, \"size\": "
				"\"%uG\"}, \"priority\": %u}",
				i, 10 + i, 90 - i);
		else if (which == 1 && i == 0)
			g_string_append(text,
					"{\"interface\": \"hypervisor\", \"step\": "
					"\"apply_settings\", \"args\": {\"hvparams\": "
					"{\"cpu_type\": \"host\", \"boot_order\": \"disk\"}}, "
					"\"priority\": 110}");
		else if (which == 1 && i < 4)
			g_string_append_printf(text,
					       "{\"interface\": \"deploy\", \"step\": \"%s\", "
					       "\"args\": {}, \"priority\": 0}",
					       i == 1	? "personalize"
					       : i == 2 ? "switch_networks"
							: "tear_down_appliance");
		else
			g_string_append_printf(
				text,
				"{\"interface\": \"test\", \"step\": \"note\", \"args\": "
				"{\"text\": \"t%u-%u\"}, \"priority\": %u}",
				which, i, 50 + i % 3);
	}
	g_string_append(text, "]}");
	node = gnt_json_parse(text->str, -1, &error);
	if (node == NULL) {
		g_printerr("bench-install-plan: %s\n", error->message);
		exit(1);
	}
	return json_object_ref(json_node_get_object(node));
}

static gint
compare_doubles(gconstpointer a, gconstpointer b)
{
	gdouble x = *(const gdouble *)a;
	gdouble y = *(const gdouble *)b;

	return x < y ? -1 : (x > y ? 1 : 0);
}

static gdouble
cpu_us(void)
{
	struct timespec now;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
	return (gdouble)now.tv_sec * 1e6 + (gdouble)now.tv_nsec / 1e3;
}

/* The median over @rounds of the mean time of one build (µs): the
 * thread's CPU time in *@cpu (what it costs; the machine's other load
 * aside) and the wall time in *@wall. */
static void
measure(JsonObject **templates, guint n_templates, JsonObject *settings, gboolean with_json,
	guint rounds, guint builds, gdouble *cpu, gdouble *wall)
{
	GntInstallPlanTarget target = {"kvm", 16};
	g_autoptr(GArray) cpus = g_array_new(FALSE, FALSE, sizeof(gdouble));
	g_autoptr(GArray) walls = g_array_new(FALSE, FALSE, sizeof(gdouble));

	for (guint r = 0; r < rounds; r++) {
		gint64 start = g_get_monotonic_time();
		gdouble cpu_start = cpu_us();
		gdouble mean;

		for (guint b = 0; b < builds; b++) {
			g_autoptr(GError) error = NULL;
			g_autoptr(GntInstallPlan) plan = gnt_install_plan_build_full(
				templates, n_templates, settings, &target, TRUE, &error);

			if (plan == NULL) {
				g_printerr("bench-install-plan: %s\n", error->message);
				exit(1);
			}
			if (with_json)
				json_object_unref(gnt_install_plan_to_json(plan));
		}
		mean = (cpu_us() - cpu_start) / builds;
		g_array_append_val(cpus, mean);
		mean = (gdouble)(g_get_monotonic_time() - start) / builds;
		g_array_append_val(walls, mean);
	}
	g_array_sort(cpus, compare_doubles);
	g_array_sort(walls, compare_doubles);
	*cpu = g_array_index(cpus, gdouble, rounds / 2);
	*wall = g_array_index(walls, gdouble, rounds / 2);
}

static void
report(const gchar *what, JsonObject **templates, guint n_templates, JsonObject *settings,
       gboolean with_json, guint rounds, guint builds)
{
	gdouble cpu = 0;
	gdouble wall = 0;

	measure(templates, n_templates, settings, with_json, rounds, builds, &cpu, &wall);
	printf("  %-42s %8.2f us CPU %8.2f us wall\n", what, cpu, wall);
}

int
main(int argc, char **argv)
{
	gint rounds = 7;
	gint builds = 20000;
	GOptionEntry entries[] = {
		{"rounds", 0, 0, G_OPTION_ARG_INT, &rounds, "Rounds (the median is shown)", "N"},
		{"builds", 0, 0, G_OPTION_ARG_INT, &builds, "Builds per round", "N"},
		{NULL},
	};
	g_autoptr(GOptionContext) context = g_option_context_new("- time install plan builds");
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) settings = NULL;
	JsonObject *templates[3];

	g_option_context_add_main_entries(context, entries, NULL);
	if (!g_option_context_parse(context, &argc, &argv, &error) || rounds < 1 || builds < 1) {
		g_printerr("bench-install-plan: %s\n",
			   error != NULL ? error->message : "--rounds and --builds must be >= 1");
		return 2;
	}
	for (guint i = 0; i < 3; i++)
		templates[i] = template_new(i);
	settings = gnt_json_parse("{\"install_denied_steps\": [\"deploy.write_image\"],"
				  " \"install_step_priorities\": {\"deploy.run_os_scripts\": 75}}",
				  -1, &error);
	g_assert_no_error(error);
	printf("install plan builds, median of %d rounds of %d (target: at most 50 us)\n", rounds,
	       builds);
	report("core steps only", NULL, 0, NULL, FALSE, (guint)rounds, (guint)builds);
	report("core + 3 templates x 10 steps + policy", templates, 3,
	       json_node_get_object(settings), FALSE, (guint)rounds, (guint)builds);
	report("the same, and its JSON for the record", templates, 3,
	       json_node_get_object(settings), TRUE, (guint)rounds, (guint)builds);
	for (guint i = 0; i < 3; i++)
		json_object_unref(templates[i]);
	return 0;
}
