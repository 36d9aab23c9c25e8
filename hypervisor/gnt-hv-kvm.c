/* The kvm hypervisor: libvirt's qemu driver through the libvirt C API.
 * Domains are transient (virDomainCreateXML): like Ganeti, the node keeps
 * no hypervisor configuration; the record passed to start is the truth,
 * and a stopped instance leaves nothing behind in libvirt. */
#include <errno.h>
#include <string.h>

#include "gnt-error.h"
#include "gnt-hypervisor-private.h"

#ifdef GNT_HAVE_LIBVIRT

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

struct _GntHvKvm {
	GntHypervisor parent_instance;
	gchar *uri;
	GMutex lock; /* guards conn */
	virConnectPtr conn;
};

#define GNT_TYPE_HV_KVM (gnt_hv_kvm_get_type())
G_DECLARE_FINAL_TYPE(GntHvKvm, gnt_hv_kvm, GNT, HV_KVM, GntHypervisor)
G_DEFINE_FINAL_TYPE(GntHvKvm, gnt_hv_kvm, GNT_TYPE_HYPERVISOR)

G_DEFINE_AUTOPTR_CLEANUP_FUNC(virDomain, virDomainFree)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(virConnect, virConnectClose)

/* how often a shutdown looks whether the guest is gone */
#define KVM_POLL_US (100 * 1000)
/* where the system libvirtd keeps its qemu domains' pid files */
#define KVM_QEMU_PID_DIR "/run/libvirt/qemu"

static void
quiet_error_func(void *user_data, virErrorPtr err)
{
	/* every error is reported through GError; libvirt must not print */
}

static gpointer
libvirt_init_once(gpointer data)
{
	/* virInitialize() must run before threads use libvirt */
	if (virInitialize() < 0)
		return GINT_TO_POINTER(FALSE);
	virSetErrorFunc(NULL, quiet_error_func);
	return GINT_TO_POINTER(TRUE);
}

static GntError
code_from_virt(gint virt_code)
{
	switch (virt_code) {
	case VIR_ERR_NO_DOMAIN:
		return GNT_ERROR_NOT_FOUND;
	case VIR_ERR_DOM_EXIST:
		return GNT_ERROR_EXISTS;
	case VIR_ERR_OPERATION_INVALID:
		return GNT_ERROR_WRONG_STATE;
	case VIR_ERR_XML_ERROR:
	case VIR_ERR_CONFIG_UNSUPPORTED:
	case VIR_ERR_INVALID_ARG:
		return GNT_ERROR_INVALID;
	default:
		return GNT_ERROR_ENVIRONMENT;
	}
}

/* libvirt's last error on this thread, converted at the module edge:
 * "<what>: <libvirt's message>" */
G_GNUC_PRINTF(2, 3)
static void
set_virt_error(GError **error, const gchar *format, ...)
{
	virErrorPtr err = virGetLastError();
	g_autofree gchar *what = NULL;
	va_list args;

	va_start(args, format);
	what = g_strdup_vprintf(format, args);
	va_end(args);
	g_set_error(error, GNT_ERROR, err ? code_from_virt(err->code) : GNT_ERROR_ENVIRONMENT,
		    "%s: %s", what, err && err->message ? err->message : "unknown libvirt error");
	virResetLastError();
}

static gboolean
last_error_is(gint virt_code)
{
	virErrorPtr err = virGetLastError();

	return err != NULL && err->code == virt_code;
}

/* A reference to a live connection, made again when libvirtd went away. */
static virConnectPtr
get_conn(GntHvKvm *self, GError **error)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->lock);

	if (self->conn != NULL && virConnectIsAlive(self->conn) != 1) {
		g_debug("connection to '%s' lost, reconnecting", self->uri);
		g_clear_pointer(&self->conn, virConnectClose);
	}
	if (self->conn == NULL) {
		self->conn = virConnectOpen(self->uri);
		if (self->conn == NULL) {
			g_autoptr(GError) local = NULL;

			/* whatever libvirt's reason, the environment is at fault */
			set_virt_error(&local, "cannot connect to libvirt at '%s'", self->uri);
			g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "kvm: %s",
				    local->message);
			return NULL;
		}
	}
	virConnectRef(self->conn);
	return self->conn;
}

/* The running (or paused) domain of instance @name; GNT_ERROR_NOT_FOUND
 * when there is none. */
static virDomainPtr
lookup(GntHvKvm *self, const gchar *name, GError **error)
{
	g_autoptr(virConnect) conn = get_conn(self, error);
	g_autofree gchar *dom_name = NULL;
	g_autoptr(virDomain) dom = NULL;

	if (conn == NULL) {
		g_prefix_error(error, "instance '%s': ", name);
		return NULL;
	}
	dom_name = gnt_hypervisor_dup_domain_name(GNT_HYPERVISOR(self), name);
	dom = virDomainLookupByName(conn, dom_name);
	if (dom == NULL && !last_error_is(VIR_ERR_NO_DOMAIN)) {
		set_virt_error(error, "instance '%s'", name);
		return NULL;
	}
	if (dom == NULL || virDomainIsActive(dom) != 1) {
		virResetLastError();
		g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND, "instance '%s' is not running",
			    name);
		return NULL;
	}
	return g_steal_pointer(&dom);
}

static gboolean
kvm_start(GntHypervisor *hv, const GntHvInstance *inst, GHashTable *hvparams, gboolean paused,
	  GError **error)
{
	GntHvKvm *self = GNT_HV_KVM(hv);
	g_autoptr(virConnect) conn = get_conn(self, error);
	g_autofree gchar *dom_name = gnt_hypervisor_dup_domain_name(hv, inst->name);
	g_autofree gchar *xml = NULL;
	g_autoptr(virDomain) existing = NULL;
	g_autoptr(virDomain) dom = NULL;
	g_autoptr(GntHvUefi) uefi = NULL;

	if (conn == NULL) {
		g_prefix_error(error, "starting instance '%s': ", inst->name);
		return FALSE;
	}
	existing = virDomainLookupByName(conn, dom_name);
	virResetLastError();
	if (existing != NULL && virDomainIsActive(existing) == 1) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_EXISTS, "instance '%s' is already running",
			    inst->name);
		return FALSE;
	}
	if (g_str_equal(gnt_hv_params_get_string(hvparams, "firmware"), "uefi")) {
		g_autofree gchar *what = g_strdup_printf("instance '%s'", inst->name);

		uefi = gnt_hv_uefi_prepare(GNT_HV_OVMF_DIR, inst->state_dir, what, error);
		if (uefi == NULL)
			return FALSE;
	}
	xml = gnt_hv_kvm_build_xml(inst, hvparams, dom_name, g_get_real_time() / G_USEC_PER_SEC,
				   uefi, error);
	if (xml == NULL)
		return FALSE;
	if (inst->console_log != NULL) {
		g_autofree gchar *dir = g_path_get_dirname(inst->console_log);

		if (g_mkdir_with_parents(dir, 0750) != 0) {
			gnt_error_set_errno(error, errno, dir);
			g_prefix_error(error, "starting instance '%s': console log: ", inst->name);
			return FALSE;
		}
	}
	g_debug("starting '%s':\n%s", dom_name, xml);
	dom = virDomainCreateXML(conn, xml, paused ? VIR_DOMAIN_START_PAUSED : 0);
	if (dom == NULL && paused && last_error_is(VIR_ERR_INVALID_ARG)) {
		/* a driver that can not create paused (the test driver): create,
		 * then pause at once */
		virResetLastError();
		dom = virDomainCreateXML(conn, xml, 0);
		if (dom != NULL && virDomainSuspend(dom) != 0) {
			set_virt_error(error, "pausing instance '%s'", inst->name);
			virDomainDestroy(dom);
			return FALSE;
		}
	}
	if (dom == NULL) {
		set_virt_error(error, "starting instance '%s'", inst->name);
		return FALSE;
	}
	return TRUE;
}

/* Whether @dom has ended: inactive, or (transient) gone altogether. */
static gboolean
domain_is_gone(virDomainPtr dom)
{
	gint active = virDomainIsActive(dom);

	virResetLastError();
	return active != 1;
}

static gboolean
destroy_domain(virDomainPtr dom, const gchar *name, GError **error)
{
	if (virDomainDestroy(dom) == 0 || domain_is_gone(dom))
		return TRUE;
	set_virt_error(error, "destroying instance '%s'", name);
	return FALSE;
}

static gboolean
kvm_shutdown(GntHypervisor *hv, const gchar *name, guint timeout_s, gboolean *forced,
	     GError **error)
{
	g_autoptr(virDomain) dom = lookup(GNT_HV_KVM(hv), name, error);
	gint64 deadline;

	if (dom == NULL)
		return FALSE;
	*forced = FALSE;
	/* with no guest agent configured, the default method is the ACPI button */
	if (timeout_s > 0 && virDomainShutdown(dom) == 0) {
		deadline = g_get_monotonic_time() + (gint64)timeout_s * G_USEC_PER_SEC;
		while (g_get_monotonic_time() < deadline) {
			if (domain_is_gone(dom))
				return TRUE;
			g_usleep(KVM_POLL_US);
		}
		if (domain_is_gone(dom))
			return TRUE;
		g_message("instance '%s' did not power off within %u s, destroying it", name,
			  timeout_s);
	} else if (timeout_s > 0) {
		g_autoptr(GError) local = NULL;

		set_virt_error(&local, "ACPI shutdown");
		g_message("instance '%s': %s; destroying it", name, local->message);
	}
	*forced = TRUE;
	return destroy_domain(dom, name, error);
}

static gboolean
kvm_reboot_soft(GntHypervisor *hv, const gchar *name, GError **error)
{
	g_autoptr(virDomain) dom = lookup(GNT_HV_KVM(hv), name, error);

	if (dom == NULL)
		return FALSE;
	if (virDomainReboot(dom, 0) != 0) {
		set_virt_error(error, "rebooting instance '%s'", name);
		return FALSE;
	}
	return TRUE;
}

static gboolean
kvm_destroy(GntHypervisor *hv, const gchar *name, GError **error)
{
	g_autoptr(virDomain) dom = lookup(GNT_HV_KVM(hv), name, error);

	return dom != NULL && destroy_domain(dom, name, error);
}

static GntHvState
state_from_virt(gint state)
{
	switch ((virDomainState)state) {
	case VIR_DOMAIN_RUNNING:
	case VIR_DOMAIN_BLOCKED:
	case VIR_DOMAIN_SHUTDOWN: /* being shut down */
		return GNT_HV_STATE_RUNNING;
	case VIR_DOMAIN_PAUSED:
	case VIR_DOMAIN_PMSUSPENDED:
		return GNT_HV_STATE_PAUSED;
	case VIR_DOMAIN_NOSTATE:
	case VIR_DOMAIN_SHUTOFF:
	case VIR_DOMAIN_CRASHED:
	default:
		return GNT_HV_STATE_SHUTOFF;
	}
}

/* The start time kept in the domain's Gantry metadata, or 0. */
static gint64
domain_started(virDomainPtr dom)
{
	g_autofree gchar *meta =
		virDomainGetMetadata(dom, VIR_DOMAIN_METADATA_ELEMENT, GNT_HV_KVM_XML_NS, 0);
	g_autoptr(GRegex) re = NULL;
	g_autoptr(GMatchInfo) match = NULL;
	g_autofree gchar *digits = NULL;

	virResetLastError();
	if (meta == NULL)
		return 0;
	re = g_regex_new("started=['\"]([0-9]+)['\"]", 0, 0, NULL);
	if (!g_regex_match(re, meta, 0, &match))
		return 0;
	digits = g_match_info_fetch(match, 1);
	return g_ascii_strtoll(digits, NULL, 10);
}

static GntHvInfo *
kvm_get_info(GntHypervisor *hv, const gchar *name, GError **error)
{
	g_autoptr(virDomain) dom = lookup(GNT_HV_KVM(hv), name, error);
	virDomainInfo vinfo = {0};
	GntHvInfo *info;
	gint64 started;

	if (dom == NULL)
		return NULL;
	if (virDomainGetInfo(dom, &vinfo) != 0) {
		set_virt_error(error, "instance '%s'", name);
		return NULL;
	}
	info = gnt_hv_info_new(name, state_from_virt(vinfo.state));
	info->memory_mib = vinfo.memory / 1024;
	info->vcpus = vinfo.nrVirtCpu;
	info->cpu_time_ns = vinfo.cpuTime;
	started = domain_started(dom);
	if (started > 0)
		info->uptime_s = (guint64)MAX(g_get_real_time() / G_USEC_PER_SEC - started, 0);
	return info;
}

static gboolean
kvm_resume(GntHypervisor *hv, const gchar *name, GError **error)
{
	g_autoptr(GntHvInfo) info = kvm_get_info(hv, name, error);
	g_autoptr(virDomain) dom = NULL;

	if (info == NULL)
		return FALSE;
	if (info->state != GNT_HV_STATE_PAUSED) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE, "instance '%s' is not paused",
			    name);
		return FALSE;
	}
	dom = lookup(GNT_HV_KVM(hv), name, error);
	if (dom == NULL)
		return FALSE;
	if (virDomainResume(dom) != 0) {
		set_virt_error(error, "resuming instance '%s'", name);
		return FALSE;
	}
	return TRUE;
}

static GPtrArray *
kvm_list(GntHypervisor *hv, GError **error)
{
	g_autoptr(virConnect) conn = get_conn(GNT_HV_KVM(hv), error);
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	virDomainPtr *doms = NULL;
	gint n;

	if (conn == NULL)
		return NULL;
	n = virConnectListAllDomains(conn, &doms, VIR_CONNECT_LIST_DOMAINS_ACTIVE);
	if (n < 0) {
		set_virt_error(error, "listing instances");
		return NULL;
	}
	for (gint i = 0; i < n; i++) {
		const gchar *dom_name = virDomainGetName(doms[i]);
		const gchar *name = dom_name ? gnt_hypervisor_strip_prefix(hv, dom_name) : NULL;

		if (name != NULL)
			g_ptr_array_add(names, g_strdup(name));
		virDomainFree(doms[i]);
	}
	free(doms);
	return g_steal_pointer(&names);
}

/* The first serial port of a live domain XML: its pty and log file. */
typedef struct {
	gboolean in_serial;
	gboolean done;
	gchar *pty;
	gchar *log;
} SerialScan;

static void
serial_start_element(GMarkupParseContext *ctx, const gchar *element, const gchar **names,
		     const gchar **values, gpointer user_data, GError **error)
{
	SerialScan *scan = user_data;

	if (scan->done)
		return;
	if (g_str_equal(element, "serial")) {
		scan->in_serial = TRUE;
		return;
	}
	if (!scan->in_serial)
		return;
	for (guint i = 0; names[i] != NULL; i++) {
		gchar **slot = NULL;

		if (g_str_equal(element, "source") && g_str_equal(names[i], "path"))
			slot = &scan->pty;
		else if (g_str_equal(element, "log") && g_str_equal(names[i], "file"))
			slot = &scan->log;
		if (slot != NULL) {
			g_free(*slot);
			*slot = g_strdup(values[i]);
		}
	}
}

static void
serial_end_element(GMarkupParseContext *ctx, const gchar *element, gpointer user_data,
		   GError **error)
{
	SerialScan *scan = user_data;

	if (scan->in_serial && g_str_equal(element, "serial")) {
		scan->in_serial = FALSE;
		scan->done = TRUE;
	}
}

static GntHvConsole *
kvm_get_console(GntHypervisor *hv, const gchar *name, GError **error)
{
	static const GMarkupParser parser = {serial_start_element, serial_end_element, NULL, NULL,
					     NULL};
	GntHvKvm *self = GNT_HV_KVM(hv);
	g_autoptr(virDomain) dom = lookup(self, name, error);
	g_autofree gchar *xml = NULL;
	g_autoptr(GMarkupParseContext) ctx = NULL;
	g_autoptr(GntHvConsole) console = NULL;
	SerialScan scan = {0};
	gboolean ok;

	if (dom == NULL)
		return NULL;
	xml = virDomainGetXMLDesc(dom, 0);
	if (xml == NULL) {
		set_virt_error(error, "console of instance '%s'", name);
		return NULL;
	}
	ctx = g_markup_parse_context_new(&parser, 0, &scan, NULL);
	ok = g_markup_parse_context_parse(ctx, xml, -1, error) &&
	     g_markup_parse_context_end_parse(ctx, error);
	console = gnt_hv_console_new(name);
	console->pty = g_steal_pointer(&scan.pty);
	console->log = g_steal_pointer(&scan.log);
	if (!ok) {
		gnt_error_convert(error);
		g_prefix_error(error, "console of instance '%s': ", name);
		return NULL;
	}
	if (console->pty != NULL) {
		g_autofree gchar *dom_name = gnt_hypervisor_dup_domain_name(hv, name);
		const gchar *argv[] = {"virsh", "-c", self->uri, "console", dom_name, NULL};

		console->command = g_strdupv((gchar **)argv);
	}
	return g_steal_pointer(&console);
}

/* --- the install appliance --------------------------------------------- */

/* libvirt's default event loop, run in a thread of its own from the first
 * appliance on: the lifecycle events of the appliance's domain come
 * through it. */
static gpointer
event_loop_thread(gpointer data)
{
	for (;;) {
		if (virEventRunDefaultImpl() < 0)
			g_usleep(KVM_POLL_US);
	}
	return NULL;
}

static gpointer
event_loop_init_once(gpointer data)
{
	if (virEventRegisterDefaultImpl() < 0)
		return GINT_TO_POINTER(FALSE);
	g_thread_unref(g_thread_new("gnt-libvirt-events", event_loop_thread, NULL));
	return GINT_TO_POINTER(TRUE);
}

/* What the lifecycle events said about one appliance domain; shared with
 * the event thread, so reference counted (g_atomic_rc_box). */
typedef struct {
	GMutex lock;
	GCond cond;
	gchar *dom_name;
	gboolean guest_shutdown; /* "shutdown, guest request": done */
	gboolean stopped;
	gint stop_detail;
} ApplianceWait;

static void
appliance_wait_clear(gpointer data)
{
	ApplianceWait *wait = data;

	g_mutex_clear(&wait->lock);
	g_cond_clear(&wait->cond);
	g_free(wait->dom_name);
}

static void
appliance_wait_release(gpointer data)
{
	g_atomic_rc_box_release_full(data, appliance_wait_clear);
}

static int
appliance_lifecycle_cb(virConnectPtr conn, virDomainPtr dom, int event, int detail, void *opaque)
{
	ApplianceWait *wait = opaque;
	const gchar *name = virDomainGetName(dom);

	if (g_strcmp0(name, wait->dom_name) != 0)
		return 0;
	g_debug("appliance '%s': lifecycle event %d, detail %d", name, event, detail);
	g_mutex_lock(&wait->lock);
	if (event == VIR_DOMAIN_EVENT_SHUTDOWN && detail == VIR_DOMAIN_EVENT_SHUTDOWN_GUEST)
		wait->guest_shutdown = TRUE;
	if (event == VIR_DOMAIN_EVENT_STOPPED) {
		wait->stopped = TRUE;
		wait->stop_detail = detail;
	}
	g_cond_broadcast(&wait->cond);
	g_mutex_unlock(&wait->lock);
	return 0;
}

typedef enum {
	WAIT_STOPPED,
	WAIT_TIMED_OUT,
	WAIT_CANCELLED
} WaitOutcome;

/* The pid of the qemu running domain @dom_name, from the system libvirt's
 * pid file; 0 when it cannot be read (another URI, another layout). */
static pid_t
read_qemu_pid(const gchar *dom_name)
{
	g_autofree gchar *path = g_strdup_printf(KVM_QEMU_PID_DIR "/%s.pid", dom_name);
	g_autofree gchar *text = NULL;
	gint64 pid;

	if (!g_file_get_contents(path, &text, NULL, NULL))
		return 0;
	pid = g_ascii_strtoll(g_strstrip(text), NULL, 10);
	return pid > 1 && pid <= G_MAXINT ? (pid_t)pid : 0;
}

/* Whether process @pid still runs (a zombie does not). */
static gboolean
process_exists(pid_t pid)
{
	g_autofree gchar *path = g_strdup_printf("/proc/%d/stat", (gint)pid);
	g_autofree gchar *stat = NULL;
	const gchar *end;

	if (!g_file_get_contents(path, &stat, NULL, NULL))
		return FALSE;
	end = strrchr(stat, ')');
	return end == NULL || end[1] != ' ' || end[2] != 'Z';
}

/* Waits for the "stopped" event (after "shutdown, guest request" or any
 * other end), looking at the domain itself now and then in case an event
 * was lost. */
static WaitOutcome
appliance_wait(ApplianceWait *wait, virDomainPtr dom, pid_t qemu_pid, gint64 deadline,
	       GCancellable *cancellable, gint *stop_detail)
{
	WaitOutcome outcome = WAIT_STOPPED;
	guint rounds = 0;

	g_mutex_lock(&wait->lock);
	while (!wait->stopped) {
		gint64 until = g_get_monotonic_time() + KVM_POLL_US;

		if (deadline > 0 && until > deadline)
			until = deadline;
		g_cond_wait_until(&wait->cond, &wait->lock, until);
		if (wait->stopped)
			break;
		/* The guest powered off after its last write and qemu exits at
		 * once (on_poweroff destroy), but libvirt's "stopped" comes about
		 * 1.4 s later (its own cleanup; measured with virsh event and
		 * the process table): once qemu's process is gone, nothing
		 * holds the disks, and libvirt ends the transient domain on
		 * its own. */
		if (wait->guest_shutdown && qemu_pid > 0 && !process_exists(qemu_pid)) {
			g_debug("appliance '%s': qemu (pid %d) has exited", wait->dom_name,
				(gint)qemu_pid);
			wait->stopped = TRUE;
			wait->stop_detail = VIR_DOMAIN_EVENT_STOPPED_SHUTDOWN;
			break;
		}
		if (g_cancellable_is_cancelled(cancellable)) {
			outcome = WAIT_CANCELLED;
			break;
		}
		if (deadline > 0 && g_get_monotonic_time() >= deadline) {
			outcome = WAIT_TIMED_OUT;
			break;
		}
		if (++rounds % 10 == 0) {
			gboolean gone;

			g_mutex_unlock(&wait->lock);
			gone = domain_is_gone(dom);
			g_mutex_lock(&wait->lock);
			if (gone) {
				g_debug("appliance '%s' gone without a stopped event",
					wait->dom_name);
				wait->stopped = TRUE;
				wait->stop_detail = VIR_DOMAIN_EVENT_STOPPED_SHUTDOWN;
			}
		}
	}
	*stop_detail = wait->stop_detail;
	if (wait->guest_shutdown)
		*stop_detail = VIR_DOMAIN_EVENT_STOPPED_SHUTDOWN;
	g_mutex_unlock(&wait->lock);
	return outcome;
}

static gboolean
kvm_run_appliance(GntHypervisor *hv, const GntHvAppliance *app, GCancellable *cancellable,
		  GError **error)
{
	static GOnce loop_once = G_ONCE_INIT;
	GntHvKvm *self = GNT_HV_KVM(hv);
	g_autofree gchar *dom_name =
		gnt_hypervisor_dup_appliance_domain_name(hv, app->name, app->boot);
	g_autofree gchar *xml = NULL;
	g_autoptr(virConnect) conn = NULL;
	g_autoptr(virDomain) existing = NULL;
	g_autoptr(virDomain) dom = NULL;
	ApplianceWait *wait;
	WaitOutcome outcome;
	gint callback;
	gint stop_detail = 0;
	gint64 deadline = 0;
	g_autoptr(GntHvUefi) uefi = NULL;

	if (!GPOINTER_TO_INT(g_once(&loop_once, event_loop_init_once, NULL))) {
		set_virt_error(error, "install appliance of instance '%s': libvirt's event loop",
			       app->name);
		return FALSE;
	}
	if (g_str_equal(app->firmware, "uefi")) {
		g_autofree gchar *what =
			g_strdup_printf("install appliance of instance '%s'", app->name);

		uefi = gnt_hv_uefi_prepare(GNT_HV_OVMF_DIR, app->state_dir, what, error);
		if (uefi == NULL)
			return FALSE;
	}
	xml = gnt_hv_kvm_build_appliance_xml(app, dom_name, uefi, error);
	if (xml == NULL)
		return FALSE;
	/* a connection of its own, opened after the event loop exists */
	conn = virConnectOpen(self->uri);
	if (conn == NULL) {
		g_autoptr(GError) local = NULL;

		set_virt_error(&local, "cannot connect to libvirt at '%s'", self->uri);
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "install appliance of instance '%s': %s", app->name, local->message);
		return FALSE;
	}
	existing = virDomainLookupByName(conn, dom_name);
	virResetLastError();
	if (existing != NULL && virDomainIsActive(existing) == 1) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_EXISTS,
			    "an install appliance runs for instance '%s' already", app->name);
		return FALSE;
	}
	wait = g_atomic_rc_box_new0(ApplianceWait);
	g_mutex_init(&wait->lock);
	g_cond_init(&wait->cond);
	wait->dom_name = g_strdup(dom_name);
	callback = virConnectDomainEventRegisterAny(
		conn, NULL, VIR_DOMAIN_EVENT_ID_LIFECYCLE,
		VIR_DOMAIN_EVENT_CALLBACK(appliance_lifecycle_cb), g_atomic_rc_box_acquire(wait),
		appliance_wait_release);
	if (callback < 0) {
		appliance_wait_release(wait); /* the callback's reference */
		appliance_wait_release(wait);
		set_virt_error(error, "install appliance of instance '%s': lifecycle events",
			       app->name);
		return FALSE;
	}
	g_debug("starting the install appliance '%s':\n%s", dom_name, xml);
	dom = virDomainCreateXML(conn, xml, 0);
	if (dom == NULL) {
		set_virt_error(error, "starting the install appliance of instance '%s'", app->name);
		virConnectDomainEventDeregisterAny(conn, callback);
		appliance_wait_release(wait);
		return FALSE;
	}
	if (app->timeout_s > 0)
		deadline = g_get_monotonic_time() + (gint64)app->timeout_s * G_USEC_PER_SEC;
	outcome = appliance_wait(wait, dom, read_qemu_pid(dom_name), deadline, cancellable,
				 &stop_detail);
	virConnectDomainEventDeregisterAny(conn, callback);
	appliance_wait_release(wait);
	if (outcome != WAIT_STOPPED) {
		g_autoptr(GError) local = NULL;

		if (!destroy_domain(dom, app->name, &local))
			g_warning("install appliance of instance '%s': %s", app->name,
				  local->message);
		if (outcome == WAIT_CANCELLED) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
				    "install appliance of instance '%s': cancelled", app->name);
			return FALSE;
		}
		gnt_hv_appliance_set_timeout_error(app, error);
		return FALSE;
	}
	if (stop_detail == VIR_DOMAIN_EVENT_STOPPED_CRASHED ||
	    stop_detail == VIR_DOMAIN_EVENT_STOPPED_FAILED) {
		g_autofree gchar *tail =
			gnt_hv_read_tail(app->console_log, GNT_HV_APPLIANCE_TAIL_LINES);

		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "install appliance %s; its console ended with: %s",
			    stop_detail == VIR_DOMAIN_EVENT_STOPPED_CRASHED ? "crashed"
									    : "failed to run",
			    *tail != '\0' ? tail : "(nothing)");
		return FALSE;
	}
	return TRUE;
}

/* Destroys the install domains of instance @name a crashed run left: the
 * first boot's and any reboot's (gnt_hypervisor_dup_appliance_domain_name). */
static gboolean
kvm_destroy_appliance(GntHypervisor *hv, const gchar *name, GError **error)
{
	g_autofree gchar *dom_name = gnt_hypervisor_dup_appliance_domain_name(hv, name, 1);
	g_autofree gchar *reboot_prefix = g_strconcat(dom_name, "~", NULL);
	g_autoptr(virConnect) conn = get_conn(GNT_HV_KVM(hv), error);
	virDomainPtr *doms = NULL;
	gboolean ok = TRUE;
	gint n;

	if (conn == NULL)
		return FALSE;
	n = virConnectListAllDomains(conn, &doms, VIR_CONNECT_LIST_DOMAINS_ACTIVE);
	if (n < 0) {
		set_virt_error(error, "listing the domains for instance '%s'", name);
		return FALSE;
	}
	for (gint i = 0; i < n; i++) {
		const gchar *found = virDomainGetName(doms[i]);

		if (ok && found != NULL &&
		    (g_str_equal(found, dom_name) || g_str_has_prefix(found, reboot_prefix))) {
			g_info("destroying the install domain '%s' a crashed run left", found);
			ok = destroy_domain(doms[i], name, error);
		}
		virDomainFree(doms[i]);
	}
	free(doms);
	return ok;
}

static void
gnt_hv_kvm_finalize(GObject *object)
{
	GntHvKvm *self = GNT_HV_KVM(object);

	g_clear_pointer(&self->conn, virConnectClose);
	g_free(self->uri);
	g_mutex_clear(&self->lock);
	G_OBJECT_CLASS(gnt_hv_kvm_parent_class)->finalize(object);
}

static void
gnt_hv_kvm_class_init(GntHvKvmClass *klass)
{
	GntHypervisorClass *hv_class = GNT_HYPERVISOR_CLASS(klass);

	G_OBJECT_CLASS(klass)->finalize = gnt_hv_kvm_finalize;
	hv_class->start = kvm_start;
	hv_class->shutdown = kvm_shutdown;
	hv_class->reboot_soft = kvm_reboot_soft;
	hv_class->destroy = kvm_destroy;
	hv_class->resume = kvm_resume;
	hv_class->get_info = kvm_get_info;
	hv_class->list = kvm_list;
	hv_class->get_console = kvm_get_console;
	hv_class->run_appliance = kvm_run_appliance;
	hv_class->destroy_appliance = kvm_destroy_appliance;
}

static void
gnt_hv_kvm_init(GntHvKvm *self)
{
	g_mutex_init(&self->lock);
}

GntHypervisor *
gnt_hv_kvm_new(const gchar *uri, const gchar *prefix, GError **error)
{
	static GOnce init_once = G_ONCE_INIT;
	GntHvKvm *self;

	if (!GPOINTER_TO_INT(g_once(&init_once, libvirt_init_once, NULL))) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "kvm: libvirt failed to initialise");
		return NULL;
	}
	self = g_object_new(GNT_TYPE_HV_KVM, NULL);
	gnt_hypervisor_set_identity(GNT_HYPERVISOR(self), "kvm", prefix);
	self->uri = g_strdup(uri != NULL ? uri : GNT_HV_DEFAULT_URI);
	return GNT_HYPERVISOR(self);
}

#else /* !GNT_HAVE_LIBVIRT */

GntHypervisor *
gnt_hv_kvm_new(const gchar *uri, const gchar *prefix, GError **error)
{
	g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
		    "hypervisor 'kvm' is not available: Gantry was built without libvirt");
	return NULL;
}

#endif
