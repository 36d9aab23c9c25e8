/* libFuzzer target: Gantry's kickstart validator and the line reader
 * under it (install/gnt-kickstart-validate.h, gnt-kickstart-lines.h),
 * which read rendered files whose values came from templates and
 * instances. A file passes, or is refused with messages that each name a
 * line; for RHEL 8 and 10, BIOS and UEFI alike. */
#include <string.h>

#include "gnt-error.h"
#include "gnt-kickstart-validate.h"

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size)
{
	GntKickstartTarget target = {.firmware = size % 2 == 0 ? GNT_KICKSTART_FIRMWARE_UEFI
							       : GNT_KICKSTART_FIRMWARE_BIOS,
				     .n_disks = 2,
				     .disk_names = {"vda", "vdb"},
				     .disk_mib = {10240, 1}};

	for (guint major = 8; major <= 10; major += 2) {
		g_autoptr(GError) error = NULL;

		target.release = (GntKickstartRelease){GNT_KICKSTART_FAMILY_RHEL, major};
		if (gnt_kickstart_validate((const gchar *)data, size, &target, &error)) {
			if (error != NULL)
				__builtin_trap();
			continue;
		}
		if (error == NULL || error->code != GNT_ERROR_INVALID ||
		    !g_str_has_prefix(error->message, "line "))
			__builtin_trap();
	}
	return 0;
}
