/*
 * What an in-band step and a reboot cost (doc/benchmarks.md "In-band
 * steps"): noded in process, a real gantry-metad, the real appliance booted
 * by libvirt under TCG (the appliance tests' fixture), one appliance_run
 * per session. In each round, in one run of the program:
 *   - a session of 0 steps (the agent's catalogue, then power off),
 *   - a session of 20 test_noop steps,
 *   - a session of one test_reboot step (two boots);
 * the overhead per step is (t20 - t0) / 20, the reboot's cost t_reboot -
 * t0 next to t0 (the appliance's boot with nothing to do), and, within the
 * reboot session (one load for both), the reboot (its request to the
 * agent's next first report) next to the first boot (the call to the
 * agent's first report).
 *
 *   appliance/build-appliance /tmp/appl
 *   GNT_TEST_APPLIANCE_DIR=/tmp/appl meson test -C build --benchmark inband-steps -v
 * ROUNDS (default 3) sets the rounds; needs root and libvirtd.
 */
#include <stdlib.h>

#include "appliance-fixture.h"
#include "gnt-hypervisor.h"
#include "gnt-metadata.h"
#include "gnt-node-calls-appliance.h"
#include "bench-stats.h"

/* The guest's own cost of the session's steps, from metad's progress
 * times: from the first step's start to the last step's result, a step. */
static gdouble
steps_span(JsonObject *result)
{
	JsonArray *entries = json_object_get_array_member(result, "steps");
	gdouble first = 0, last = 0;
	guint n = 0;

	for (guint i = 0; i < json_array_get_length(entries); i++) {
		JsonObject *entry = json_array_get_object_element(entries, i);
		const gchar *step = json_object_get_string_member(entry, "step");
		const gchar *state = json_object_get_string_member(entry, "state");
		gdouble time = json_object_get_double_member(entry, "time");

		if (!g_str_equal(step, "test_noop"))
			continue;
		if (g_str_equal(state, "start") && first == 0)
			first = time;
		if (g_str_equal(state, "done")) {
			last = time;
			n++;
		}
	}
	return n > 0 ? (last - first) / n : 0;
}

/* In a reboot session's progress (metad's real times): the first boot,
 * from @started (real time, s) to the agent's first "appliance start",
 * and the reboot, from "appliance info reboot requested" to the second
 * "appliance start": the same session, so the same load for both. */
static void
reboot_split(JsonObject *result, gdouble started, gdouble *boot, gdouble *reboot)
{
	JsonArray *entries = json_object_get_array_member(result, "steps");
	gdouble first = 0, asked = 0, second = 0;

	for (guint i = 0; i < json_array_get_length(entries); i++) {
		JsonObject *entry = json_array_get_object_element(entries, i);
		const gchar *step = json_object_get_string_member(entry, "step");
		const gchar *state = json_object_get_string_member(entry, "state");
		gdouble time = json_object_get_double_member(entry, "time");

		if (!g_str_equal(step, "appliance"))
			continue;
		if (g_str_equal(state, "start") && first == 0)
			first = time;
		else if (g_str_equal(state, "start") && asked > 0 && second == 0)
			second = time;
		else if (g_str_equal(state, "info") && asked == 0 &&
			 g_str_has_prefix(json_object_get_string_member(entry, "detail"),
					  GNT_METADATA_REBOOT_DETAIL_PREFIX))
			asked = time;
	}
	if (first == 0 || asked == 0 || second == 0)
		g_error("the reboot session's progress lacks a boot: %g %g %g", first, asked,
			second);
	*boot = first - started;
	*reboot = second - asked;
}

static gdouble
run_session(ApplFx *fx, const gchar *name, const gchar *steps_json, gdouble *per_step,
	    gdouble *boot, gdouble *reboot)
{
	g_autoptr(JsonObject) spec = make_spec_for(fx, name, "kvm", FALSE);
	g_autoptr(JsonObject) options = make_session_options(name, "#!/bin/sh\n", steps_json);
	g_autoptr(JsonObject) result = NULL;
	g_autoptr(GError) error = NULL;
	gint64 started = g_get_monotonic_time();
	gdouble started_real = (gdouble)g_get_real_time() / G_USEC_PER_SEC;

	result = gnt_node_call_appliance_run(fx->node1.client, fx->node1.record, spec, options,
					     NULL, NULL, &error);
	if (result == NULL)
		g_error("session of %s: %s", name, error->message);
	if (per_step != NULL)
		*per_step = steps_span(result);
	if (boot != NULL)
		reboot_split(result, started_real, boot, reboot);
	return (gdouble)(g_get_monotonic_time() - started) / G_USEC_PER_SEC;
}

int
main(int argc, char **argv)
{
	ApplFx fx = {0};
	guint rounds = g_getenv("ROUNDS") != NULL ? (guint)atoi(g_getenv("ROUNDS")) : 3;
	g_autoptr(GString) twenty = g_string_new("[");
	g_autoptr(GArray) t0 = g_array_new(FALSE, FALSE, sizeof(gdouble));
	g_autoptr(GArray) t20 = g_array_new(FALSE, FALSE, sizeof(gdouble));
	g_autoptr(GArray) treboot = g_array_new(FALSE, FALSE, sizeof(gdouble));
	g_autoptr(GArray) per_step = g_array_new(FALSE, FALSE, sizeof(gdouble));
	g_autoptr(GArray) guest_step = g_array_new(FALSE, FALSE, sizeof(gdouble));
	g_autoptr(GArray) reboot_ratio = g_array_new(FALSE, FALSE, sizeof(gdouble));

	if (g_getenv("GNT_TEST_APPLIANCE_DIR") == NULL) {
		g_print("SKIP: set GNT_TEST_APPLIANCE_DIR to a built appliance "
			"(appliance/build-appliance DIR)\n");
		return 0;
	}
	for (guint i = 0; i < 20; i++)
		g_string_append_printf(
			twenty,
			"%s{\"id\": \"B#%u\", \"step\": \"test_noop\", \"args\": {}, "
			"\"timeout\": 60}",
			i > 0 ? "," : "", i + 1);
	g_string_append_c(twenty, ']');
	appl_set_up(&fx, NULL);
	g_assert_true(install_real_appliance(&fx));
	g_setenv(GNT_HV_APPLIANCE_TEST_STEPS_ENV, "1", TRUE);
	for (guint r = 0; r < MAX(rounds, 1); r++) {
		g_autofree gchar *a = g_strdup_printf("b%u-0", r);
		g_autofree gchar *b = g_strdup_printf("b%u-20", r);
		g_autofree gchar *c = g_strdup_printf("b%u-reboot", r);
		gdouble guest = 0;
		gdouble first_boot = 0, the_reboot = 0, ratio;
		gdouble zero = run_session(&fx, a, "[]", NULL, NULL, NULL);
		gdouble many = run_session(&fx, b, twenty->str, &guest, NULL, NULL);
		gdouble reboot = run_session(
			&fx, c,
			"[{\"id\": \"R#1\", \"step\": \"test_reboot\", \"args\": {}, \"timeout\": "
			"60}]",
			NULL, &first_boot, &the_reboot);
		gdouble step = (many - zero) / 20;

		g_print("round %u: 0 steps %.2f s, 20 noop steps %.2f s (%.0f ms a step; in the "
			"guest, metad's times: %.0f ms a step), a reboot step %.2f s (the reboot "
			"%.2f s, %.2fx the 0-step session)\n",
			r + 1, zero, many, step * 1000, guest * 1000, reboot, reboot - zero,
			(reboot - zero) / zero);
		ratio = the_reboot / first_boot;
		g_print("round %u: in the reboot session, the first boot %.2f s (the call to the "
			"agent's first report), the reboot %.2f s (the reboot asked to the agent's "
			"next first report): %.2fx\n",
			r + 1, first_boot, the_reboot, ratio);
		g_array_append_val(reboot_ratio, ratio);
		g_array_append_val(guest_step, guest);
		g_array_append_val(t0, zero);
		g_array_append_val(t20, many);
		g_array_append_val(treboot, reboot);
		g_array_append_val(per_step, step);
	}
	g_print("median: 0 steps %.2f s, 20 steps %.2f s, per step %.0f ms (target <= 50 ms; in "
		"the guest %.0f ms); reboot session %.2f s\n",
		bench_median(t0), bench_median(t20), bench_median(per_step) * 1000,
		bench_median(guest_step) * 1000, bench_median(treboot));
	g_print("median: a reboot costs %.2fx the session's first boot (target <= 1.2x)\n",
		bench_median(reboot_ratio));
	g_unsetenv(GNT_HV_APPLIANCE_TEST_STEPS_ENV);
	appl_tear_down(&fx, NULL);
	return 0;
}
