#include "gnt-job-store.h"

G_DEFINE_INTERFACE(GntJobStore, gnt_job_store, G_TYPE_OBJECT)

static void
gnt_job_store_default_init(GntJobStoreInterface *iface)
{
}

GntJobStoreChange *
gnt_job_store_change_new(GntJobStoreChangeKind kind, guint64 id)
{
	GntJobStoreChange *change = g_new0(GntJobStoreChange, 1);

	change->kind = kind;
	change->id = id;
	return change;
}

void
gnt_job_store_change_free(GntJobStoreChange *change)
{
	if (change == NULL)
		return;
	g_free(change->record);
	g_free(change->private_values);
	g_free(change);
}

gboolean
gnt_job_store_load(GntJobStore *self, guint64 *last_id, gboolean *drained, GntJobStoreLoadFunc func,
		   gpointer user_data, GError **error)
{
	g_return_val_if_fail(GNT_IS_JOB_STORE(self), FALSE);
	return GNT_JOB_STORE_GET_IFACE(self)->load(self, last_id, drained, func, user_data, error);
}

gboolean
gnt_job_store_write(GntJobStore *self, GPtrArray *changes, GError **error)
{
	g_return_val_if_fail(GNT_IS_JOB_STORE(self), FALSE);
	return GNT_JOB_STORE_GET_IFACE(self)->write(self, changes, error);
}

JsonObject *
gnt_job_store_lookup(GntJobStore *self, guint64 id, gboolean *archived, GError **error)
{
	g_return_val_if_fail(GNT_IS_JOB_STORE(self), NULL);
	return GNT_JOB_STORE_GET_IFACE(self)->lookup(self, id, archived, error);
}

gboolean
gnt_job_store_lookup_status(GntJobStore *self, guint64 id, GntJobStatus *status, GError **error)
{
	g_return_val_if_fail(GNT_IS_JOB_STORE(self), FALSE);
	return GNT_JOB_STORE_GET_IFACE(self)->lookup_status(self, id, status, error);
}

gboolean
gnt_job_store_foreach(GntJobStore *self, gboolean archived, GntJobStoreReadFunc func,
		      gpointer user_data, GError **error)
{
	g_return_val_if_fail(GNT_IS_JOB_STORE(self), FALSE);
	return GNT_JOB_STORE_GET_IFACE(self)->foreach (self, archived, func, user_data, error);
}

GArray *
gnt_job_store_list_finished(GntJobStore *self, gint64 ended_before_usec, guint limit,
			    GError **error)
{
	g_return_val_if_fail(GNT_IS_JOB_STORE(self), NULL);
	return GNT_JOB_STORE_GET_IFACE(self)->list_finished(self, ended_before_usec, limit, error);
}
