#pragma once

#include "gnt-hypervisor.h"

G_BEGIN_DECLS

/*
 * For the backends and the tests only. A backend is a final subclass of
 * GntHypervisor. The base class checks the arguments and fills the hvparams;
 * the vfuncs get a checked record and a complete hvparam table, and set
 * errors that name the instance.
 */
struct _GntHypervisorClass {
	GObjectClass parent_class;

	gboolean (*start)(GntHypervisor *self, const GntHvInstance *inst, GHashTable *hvparams,
			  gboolean paused, GError **error);
	gboolean (*shutdown)(GntHypervisor *self, const gchar *name, guint timeout_s,
			     gboolean *forced, GError **error);
	gboolean (*reboot_soft)(GntHypervisor *self, const gchar *name, GError **error);
	gboolean (*destroy)(GntHypervisor *self, const gchar *name, GError **error);
	gboolean (*resume)(GntHypervisor *self, const gchar *name, GError **error);
	GntHvInfo *(*get_info)(GntHypervisor *self, const gchar *name, GError **error);
	GPtrArray *(*list)(GntHypervisor *self, GError **error);
	GntHvConsole *(*get_console)(GntHypervisor *self, const gchar *name, GError **error);
	/* NULL: the hypervisor has no appliance; @app is checked, its
	 * console log's directory made */
	gboolean (*run_appliance)(GntHypervisor *self, const GntHvAppliance *app,
				  GCancellable *cancellable, GError **error);
	/* NULL: nothing of a run outlives its caller */
	gboolean (*destroy_appliance)(GntHypervisor *self, const gchar *name, GError **error);
};

/* Set once by the backend's constructor. */
void
gnt_hypervisor_set_identity(GntHypervisor *self, const gchar *name, const gchar *prefix);

/* "<prefix><name>" (transfer full); NULL when @dom_name is not ours. */
gchar *
gnt_hypervisor_dup_domain_name(GntHypervisor *self, const gchar *name);
const gchar *
gnt_hypervisor_strip_prefix(GntHypervisor *self, const gchar *dom_name);

GntHvInfo *
gnt_hv_info_new(const gchar *name, GntHvState state);
GntHvConsole *
gnt_hv_console_new(const gchar *name);

/* gnt-hv-fake.c */
#define GNT_TYPE_HV_FAKE (gnt_hv_fake_get_type())
G_DECLARE_FINAL_TYPE(GntHvFake, gnt_hv_fake, GNT, HV_FAKE, GntHypervisor)
GntHypervisor *
gnt_hv_fake_new(const gchar *state_dir, const gchar *prefix, GError **error);

/* gnt-hv-kvm.c: without libvirt, fails with GNT_ERROR_ENVIRONMENT. */
GntHypervisor *
gnt_hv_kvm_new(const gchar *uri, const gchar *prefix, GError **error);

/* The namespace of Gantry's element in a domain's <metadata>. */
#define GNT_HV_KVM_XML_NS "urn:x-gantry:instance:1"

/* Where Debian's ovmf package puts OVMF. */
#define GNT_HV_OVMF_DIR "/usr/share/OVMF"

/* The UEFI firmware of a domain (firmware=uefi): OVMF's code (read-only
 * flash), the template of its variables, and the domain's own variables
 * file, which libvirt makes from the template when it is missing. */
typedef struct {
	gchar *code;
	gchar *vars_template;
	gchar *vars;
} GntHvUefi;

void
gnt_hv_uefi_free(GntHvUefi *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntHvUefi, gnt_hv_uefi_free)

/*
 * OVMF's files in @ovmf_dir (GNT_HV_OVMF_DIR but in tests) and the
 * variables file GNT_HV_UEFI_VARS_FILE in @state_dir, which is made if
 * missing. @what names the domain in errors ("instance 'web1'").
 * GNT_ERROR_ENVIRONMENT when OVMF is not installed or @state_dir can not be
 * made, GNT_ERROR_INVALID when @state_dir is NULL. (transfer full)
 */
GntHvUefi *
gnt_hv_uefi_prepare(const gchar *ovmf_dir, const gchar *state_dir, const gchar *what,
		    GError **error);

/*
 * The libvirt domain XML for @inst with its complete @hvparams, as a
 * transient domain named @dom_name; @started (seconds since the epoch) is
 * kept in the domain's metadata for the uptime; @uefi: the firmware's
 * files, required when the `firmware` hvparam is uefi. Pure: the
 * golden-file tests call it. GNT_ERROR_INVALID for a combination it can
 * not express. (transfer full)
 */
gchar *
gnt_hv_kvm_build_xml(const GntHvInstance *inst, GHashTable *hvparams, const gchar *dom_name,
		     gint64 started, const GntHvUefi *uefi, GError **error);

/* "appliance-<prefix><name>": not listed among the instances; a session's
 * reboot @boot (2, 3, ...) "appliance-<prefix><name>~<boot>" ('~' is in no
 * instance name). @boot 0 or 1: the first boot's. */
gchar *
gnt_hypervisor_dup_appliance_domain_name(GntHypervisor *self, const gchar *name, guint boot);

/* The timeout error, with the console's tail. */
void
gnt_hv_appliance_set_timeout_error(const GntHvAppliance *app, GError **error);

/*
 * The libvirt domain XML of the install appliance @app, a transient domain
 * named @dom_name; @uefi as for gnt_hv_kvm_build_xml(), required when
 * @app's firmware is uefi. Pure, like gnt_hv_kvm_build_xml().
 * (transfer full)
 */
gchar *
gnt_hv_kvm_build_appliance_xml(const GntHvAppliance *app, const gchar *dom_name,
			       const GntHvUefi *uefi, GError **error);

G_END_DECLS
