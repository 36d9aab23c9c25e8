#include "gnt-locks.h"

static void
test_shared_and_exclusive(void)
{
	g_autoptr(GntLockManager) mgr = gnt_lock_manager_new();
	g_autoptr(GntLockSet) shared1 = gnt_lock_set_new();
	g_autoptr(GntLockSet) shared2 = gnt_lock_set_new();
	g_autoptr(GntLockSet) excl = gnt_lock_set_new();

	gnt_lock_set_add(shared1, GNT_LOCK_LEVEL_CLUSTER, GNT_LOCK_BGL, GNT_LOCK_SHARED);
	gnt_lock_set_add(shared2, GNT_LOCK_LEVEL_CLUSTER, GNT_LOCK_BGL, GNT_LOCK_SHARED);
	gnt_lock_set_add(excl, GNT_LOCK_LEVEL_CLUSTER, GNT_LOCK_BGL, GNT_LOCK_EXCLUSIVE);
	g_assert_true(gnt_lock_manager_try_acquire(mgr, shared1));
	g_assert_true(gnt_lock_manager_try_acquire(mgr, shared2));
	g_assert_false(gnt_lock_manager_try_acquire(mgr, excl));
	gnt_lock_manager_release(mgr, shared1);
	g_assert_false(gnt_lock_manager_try_acquire(mgr, excl));
	gnt_lock_manager_release(mgr, shared2);
	g_assert_true(gnt_lock_manager_try_acquire(mgr, excl));
	g_assert_false(gnt_lock_manager_try_acquire(mgr, shared1));
	gnt_lock_manager_release(mgr, excl);
	g_assert_true(gnt_lock_manager_try_acquire(mgr, shared1));
	gnt_lock_manager_release(mgr, shared1);
}

static void
test_all_or_nothing(void)
{
	g_autoptr(GntLockManager) mgr = gnt_lock_manager_new();
	g_autoptr(GntLockSet) holder = gnt_lock_set_new();
	g_autoptr(GntLockSet) both = gnt_lock_set_new();
	g_autoptr(GntLockSet) a_only = gnt_lock_set_new();

	gnt_lock_set_add(holder, GNT_LOCK_LEVEL_NODE, "b", GNT_LOCK_EXCLUSIVE);
	gnt_lock_set_add(both, GNT_LOCK_LEVEL_NODE, "b", GNT_LOCK_SHARED);
	gnt_lock_set_add(both, GNT_LOCK_LEVEL_NODE, "a", GNT_LOCK_EXCLUSIVE);
	gnt_lock_set_add(both, GNT_LOCK_LEVEL_NODE, "a", GNT_LOCK_SHARED); /* stays exclusive */
	gnt_lock_set_add(a_only, GNT_LOCK_LEVEL_NODE, "a", GNT_LOCK_EXCLUSIVE);
	g_assert_cmpuint(gnt_lock_set_get_size(both), ==, 2);
	g_assert_true(gnt_lock_manager_try_acquire(mgr, holder));
	g_assert_false(gnt_lock_manager_try_acquire(mgr, both));
	/* "a" was taken first (global order) and given back */
	g_assert_true(gnt_lock_manager_try_acquire(mgr, a_only));
}

typedef struct {
	GntLockManager *mgr;
	GntLockSet *set;
	gint abort;
	gboolean acquired;
} Waiter;

static gboolean
waiter_abort(gpointer user_data)
{
	return g_atomic_int_get(&((Waiter *)user_data)->abort);
}

static gpointer
waiter_thread(gpointer data)
{
	Waiter *w = data;

	w->acquired = gnt_lock_manager_acquire(w->mgr, w->set, waiter_abort, w, NULL);
	return NULL;
}

static void
test_wait_then_abort(void)
{
	g_autoptr(GntLockManager) mgr = gnt_lock_manager_new();
	g_autoptr(GntLockSet) holder = gnt_lock_set_new();
	g_autoptr(GntLockSet) wanted = gnt_lock_set_new();
	Waiter w = {mgr, wanted, FALSE, TRUE};
	GThread *thread;

	gnt_lock_set_add(holder, GNT_LOCK_LEVEL_INSTANCE, "i1", GNT_LOCK_EXCLUSIVE);
	gnt_lock_set_add(wanted, GNT_LOCK_LEVEL_INSTANCE, "i1", GNT_LOCK_SHARED);
	g_assert_true(gnt_lock_manager_try_acquire(mgr, holder));
	thread = g_thread_new("waiter", waiter_thread, &w);
	g_atomic_int_set(&w.abort, TRUE);
	gnt_lock_manager_wake(mgr);
	g_thread_join(thread);
	g_assert_false(w.acquired);
	gnt_lock_manager_release(mgr, holder);
}

static void
test_wait_then_get(void)
{
	g_autoptr(GntLockManager) mgr = gnt_lock_manager_new();
	g_autoptr(GntLockSet) holder = gnt_lock_set_new();
	g_autoptr(GntLockSet) wanted = gnt_lock_set_new();
	Waiter w = {mgr, wanted, FALSE, FALSE};
	GThread *thread;

	gnt_lock_set_add(holder, GNT_LOCK_LEVEL_INSTANCE, "i1", GNT_LOCK_SHARED);
	gnt_lock_set_add(wanted, GNT_LOCK_LEVEL_INSTANCE, "i1", GNT_LOCK_EXCLUSIVE);
	g_assert_true(gnt_lock_manager_try_acquire(mgr, holder));
	thread = g_thread_new("waiter", waiter_thread, &w);
	gnt_lock_manager_release(mgr, holder);
	g_thread_join(thread);
	g_assert_true(w.acquired);
	gnt_lock_manager_release(mgr, wanted);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/locks/shared-and-exclusive", test_shared_and_exclusive);
	g_test_add_func("/locks/all-or-nothing", test_all_or_nothing);
	g_test_add_func("/locks/wait-then-abort", test_wait_then_abort);
	g_test_add_func("/locks/wait-then-get", test_wait_then_get);
	return g_test_run();
}
