#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Ganeti's job and opcode status strings, in Ganeti's order. */
typedef enum {
	GNT_JOB_STATUS_QUEUED,
	GNT_JOB_STATUS_WAITING,
	GNT_JOB_STATUS_CANCELING,
	GNT_JOB_STATUS_RUNNING,
	GNT_JOB_STATUS_CANCELED,
	GNT_JOB_STATUS_SUCCESS,
	GNT_JOB_STATUS_ERROR,
	GNT_JOB_STATUS_LAST
} GntJobStatus;

const gchar *
gnt_job_status_to_string(GntJobStatus status);
/* FALSE if @str is not one of the seven status strings. */
gboolean
gnt_job_status_from_string(const gchar *str, GntJobStatus *status);
/* canceled, success and error */
gboolean
gnt_job_status_is_finalized(GntJobStatus status);

/* Ganeti's job status derivation from its opcodes' statuses: the first
 * error/canceling/canceled opcode decides; else the last waiting/running
 * one; all success gives success; otherwise queued. */
GntJobStatus
gnt_job_status_calc(const GntJobStatus *op_statuses, guint n_ops);

/* Opcode priorities: lower runs first; only these three at submission. */
#define GNT_OP_PRIO_HIGH    (-10)
#define GNT_OP_PRIO_NORMAL  0
#define GNT_OP_PRIO_LOW	    10
#define GNT_OP_PRIO_LOWEST  19
#define GNT_OP_PRIO_HIGHEST (-20)

G_END_DECLS
