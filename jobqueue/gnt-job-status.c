#include "gnt-job-status.h"

static const gchar *const status_names[] = {
	[GNT_JOB_STATUS_QUEUED] = "queued",	  [GNT_JOB_STATUS_WAITING] = "waiting",
	[GNT_JOB_STATUS_CANCELING] = "canceling", [GNT_JOB_STATUS_RUNNING] = "running",
	[GNT_JOB_STATUS_CANCELED] = "canceled",	  [GNT_JOB_STATUS_SUCCESS] = "success",
	[GNT_JOB_STATUS_ERROR] = "error",
};
G_STATIC_ASSERT(G_N_ELEMENTS(status_names) == GNT_JOB_STATUS_LAST);

const gchar *
gnt_job_status_to_string(GntJobStatus status)
{
	g_return_val_if_fail(status < GNT_JOB_STATUS_LAST, NULL);
	return status_names[status];
}

gboolean
gnt_job_status_from_string(const gchar *str, GntJobStatus *status)
{
	for (guint i = 0; str != NULL && i < G_N_ELEMENTS(status_names); i++) {
		if (g_strcmp0(str, status_names[i]) == 0) {
			*status = (GntJobStatus)i;
			return TRUE;
		}
	}
	return FALSE;
}

gboolean
gnt_job_status_is_finalized(GntJobStatus status)
{
	return status == GNT_JOB_STATUS_CANCELED || status == GNT_JOB_STATUS_SUCCESS ||
	       status == GNT_JOB_STATUS_ERROR;
}

GntJobStatus
gnt_job_status_calc(const GntJobStatus *op_statuses, guint n_ops)
{
	GntJobStatus status = GNT_JOB_STATUS_QUEUED;
	gboolean all_success = TRUE; /* no opcodes: success, as in Ganeti */

	for (guint i = 0; i < n_ops; i++) {
		switch (op_statuses[i]) {
		case GNT_JOB_STATUS_SUCCESS:
			continue;
		case GNT_JOB_STATUS_QUEUED:
			all_success = FALSE;
			continue;
		case GNT_JOB_STATUS_ERROR:
		case GNT_JOB_STATUS_CANCELING:
		case GNT_JOB_STATUS_CANCELED:
			return op_statuses[i];
		case GNT_JOB_STATUS_WAITING:
		case GNT_JOB_STATUS_RUNNING:
			all_success = FALSE;
			status = op_statuses[i];
			continue;
		case GNT_JOB_STATUS_LAST:
		default:
			g_return_val_if_reached(GNT_JOB_STATUS_ERROR);
		}
	}
	return all_success ? GNT_JOB_STATUS_SUCCESS : status;
}
