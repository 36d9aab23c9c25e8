/* Handing freed memory back to the system after bursts (gnt-memory.h). */
#include "gnt-memory.h"

#include <malloc.h>

#define TRIM_DELAY_S 2

static GMutex trim_lock;
static GSource *trim_source; /* the pending trim, under trim_lock */

static gboolean
trim_cb(G_GNUC_UNUSED gpointer user_data)
{
	g_mutex_lock(&trim_lock);
	g_clear_pointer(&trim_source, g_source_unref);
	g_mutex_unlock(&trim_lock);
	malloc_trim(0);
	return G_SOURCE_REMOVE;
}

void
gnt_memory_trim_soon(void)
{
	g_mutex_lock(&trim_lock);
	if (trim_source == NULL) {
		trim_source = g_timeout_source_new_seconds(TRIM_DELAY_S);
		g_source_set_callback(trim_source, trim_cb, NULL, NULL);
		g_source_attach(trim_source, NULL);
	}
	g_mutex_unlock(&trim_lock);
}
