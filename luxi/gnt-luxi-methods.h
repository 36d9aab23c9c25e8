#pragma once

#include "gnt-config.h"
#include "gnt-queue.h"
#include "gnt-rpc-client.h"

G_BEGIN_DECLS

/*
 * The LUXI methods masterd serves (one static table in gnt-luxi-methods.c)
 * and the call each request becomes. A call answers exactly once, now or
 * later (a submission waits for the commit, WaitForJobChange for a change
 * of the job), unless it is aborted first because its client went away.
 * Everything runs in the thread-default main context of the queue.
 */

typedef struct _GntLuxiCall GntLuxiCall;

/* The answer: the whole message for the wire ({"success", "result"} and
 * the terminator, gnt-luxi-codec.h), @len bytes. (transfer full: @message) */
typedef void (*GntLuxiReplyFunc)(gchar *message, gsize len, gpointer user_data);

/* The longest WaitForJobChange wait, in seconds (Ganeti's WFJC_TIMEOUT). */
#define GNT_LUXI_WFJC_MAX_TIMEOUT 89

/* @queue and @config are referenced by the call; @func gets @user_data. */
GntLuxiCall *
gnt_luxi_call_new(GntQueue *queue, GntConfig *config, GntLuxiReplyFunc func, gpointer user_data);
GntLuxiCall *
gnt_luxi_call_ref(GntLuxiCall *self);
void
gnt_luxi_call_unref(GntLuxiCall *self);

/* The node RPC client live-data queries use (referenced; NULL: none, live
 * cells answer RS_NODATA). Call before gnt_luxi_call_dispatch(). */
void
gnt_luxi_call_set_rpc(GntLuxiCall *self, GntRpcClient *rpc);

/*
 * Runs @method with @args (transfer none). An unknown method, a wrong
 * number of arguments or an argument of the wrong type answer the plain
 * string "Failed to parse request: ..." naming the method or argument;
 * so do invalid opcodes, and nothing is queued then.
 */
void
gnt_luxi_call_dispatch(GntLuxiCall *self, const gchar *method, JsonArray *args);

/* The client went away: removes the call's job watch and timer and drops
 * its answer; the reply function is not called any more. */
void
gnt_luxi_call_abort(GntLuxiCall *self);

/* TRUE once the call answered or was aborted. */
gboolean
gnt_luxi_call_is_done(GntLuxiCall *self);
/* TRUE while the call waits on a job watch (WaitForJobChange). */
gboolean
gnt_luxi_call_is_watching(GntLuxiCall *self);

/* The method names of the table, NULL-terminated. (transfer none) */
const gchar *const *
gnt_luxi_methods_get_names(void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntLuxiCall, gnt_luxi_call_unref)

G_END_DECLS
