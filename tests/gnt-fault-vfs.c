#include "gnt-fault-vfs.h"

#include <sqlite3.h>

/* A file of ours: SQLite allocates szOsFile bytes, the platform's file
 * lives right behind. */
typedef struct {
	sqlite3_file base;
	gboolean chosen; /* its path contains the part given at install */
	sqlite3_file *real;
} FaultFile;

static sqlite3_vfs fault_vfs;
static sqlite3_vfs *real_vfs;
static gchar *chosen_part;

static GMutex fault_mutex;
static struct {
	gboolean armed;
	GntFaultOp op;
	guint skip;
	gint count; /* -1: every call */
	guint n_failed[2];
} fault;

/* Whether this call of @op on a chosen file fails. */
static gboolean
fault_hit(FaultFile *file, GntFaultOp op)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&fault_mutex);

	if (!file->chosen || !fault.armed || fault.op != op)
		return FALSE;
	if (fault.skip > 0) {
		fault.skip--;
		return FALSE;
	}
	if (fault.count == 0)
		return FALSE;
	if (fault.count > 0)
		fault.count--;
	fault.n_failed[op]++;
	return TRUE;
}

#define REAL(f) (((FaultFile *)(f))->real)

static int
fault_close(sqlite3_file *f)
{
	return REAL(f)->pMethods->xClose(REAL(f));
}

static int
fault_read(sqlite3_file *f, void *buf, int amount, sqlite3_int64 offset)
{
	return REAL(f)->pMethods->xRead(REAL(f), buf, amount, offset);
}

static int
fault_write(sqlite3_file *f, const void *buf, int amount, sqlite3_int64 offset)
{
	if (fault_hit((FaultFile *)f, GNT_FAULT_WRITE))
		return SQLITE_FULL;
	return REAL(f)->pMethods->xWrite(REAL(f), buf, amount, offset);
}

static int
fault_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	return REAL(f)->pMethods->xTruncate(REAL(f), size);
}

static int
fault_sync(sqlite3_file *f, int flags)
{
	if (fault_hit((FaultFile *)f, GNT_FAULT_SYNC))
		return SQLITE_IOERR_FSYNC;
	return REAL(f)->pMethods->xSync(REAL(f), flags);
}

static int
fault_file_size(sqlite3_file *f, sqlite3_int64 *size)
{
	return REAL(f)->pMethods->xFileSize(REAL(f), size);
}

static int
fault_lock(sqlite3_file *f, int level)
{
	return REAL(f)->pMethods->xLock(REAL(f), level);
}

static int
fault_unlock(sqlite3_file *f, int level)
{
	return REAL(f)->pMethods->xUnlock(REAL(f), level);
}

static int
fault_check_reserved_lock(sqlite3_file *f, int *out)
{
	return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out);
}

static int
fault_file_control(sqlite3_file *f, int op, void *arg)
{
	return REAL(f)->pMethods->xFileControl(REAL(f), op, arg);
}

static int
fault_sector_size(sqlite3_file *f)
{
	return REAL(f)->pMethods->xSectorSize(REAL(f));
}

static int
fault_device_characteristics(sqlite3_file *f)
{
	return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}

static int
fault_shm_map(sqlite3_file *f, int region, int size, int extend, void volatile **out)
{
	return REAL(f)->pMethods->xShmMap(REAL(f), region, size, extend, out);
}

static int
fault_shm_lock(sqlite3_file *f, int offset, int n, int flags)
{
	return REAL(f)->pMethods->xShmLock(REAL(f), offset, n, flags);
}

static void
fault_shm_barrier(sqlite3_file *f)
{
	REAL(f)->pMethods->xShmBarrier(REAL(f));
}

static int
fault_shm_unmap(sqlite3_file *f, int delete_flag)
{
	return REAL(f)->pMethods->xShmUnmap(REAL(f), delete_flag);
}

static int
fault_fetch(sqlite3_file *f, sqlite3_int64 offset, int amount, void **out)
{
	return REAL(f)->pMethods->xFetch(REAL(f), offset, amount, out);
}

static int
fault_unfetch(sqlite3_file *f, sqlite3_int64 offset, void *p)
{
	return REAL(f)->pMethods->xUnfetch(REAL(f), offset, p);
}

static const sqlite3_io_methods fault_io_methods = {
	3,
	fault_close,
	fault_read,
	fault_write,
	fault_truncate,
	fault_sync,
	fault_file_size,
	fault_lock,
	fault_unlock,
	fault_check_reserved_lock,
	fault_file_control,
	fault_sector_size,
	fault_device_characteristics,
	fault_shm_map,
	fault_shm_lock,
	fault_shm_barrier,
	fault_shm_unmap,
	fault_fetch,
	fault_unfetch,
};

static int
fault_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out_flags)
{
	FaultFile *file = (FaultFile *)f;
	int rc;

	file->real = (sqlite3_file *)(file + 1);
	file->chosen = name != NULL && strstr(name, chosen_part) != NULL;
	rc = real_vfs->xOpen(real_vfs, name, file->real, flags, out_flags);
	/* SQLite calls xClose only on a file with methods */
	file->base.pMethods = file->real->pMethods != NULL ? &fault_io_methods : NULL;
	return rc;
}

static int
fault_delete(sqlite3_vfs *vfs, const char *name, int sync_dir)
{
	return real_vfs->xDelete(real_vfs, name, sync_dir);
}

static int
fault_access(sqlite3_vfs *vfs, const char *name, int flags, int *out)
{
	return real_vfs->xAccess(real_vfs, name, flags, out);
}

static int
fault_full_pathname(sqlite3_vfs *vfs, const char *name, int n, char *out)
{
	return real_vfs->xFullPathname(real_vfs, name, n, out);
}

void
gnt_fault_vfs_install(const gchar *path_part)
{
	g_return_if_fail(real_vfs == NULL);

	real_vfs = sqlite3_vfs_find(NULL);
	g_assert_nonnull(real_vfs);
	chosen_part = g_strdup(path_part);
	/* the platform's methods, but files are ours */
	fault_vfs = *real_vfs;
	fault_vfs.zName = "gnt-fault";
	fault_vfs.szOsFile = (int)sizeof(FaultFile) + real_vfs->szOsFile;
	fault_vfs.pNext = NULL;
	fault_vfs.xOpen = fault_open;
	fault_vfs.xDelete = fault_delete;
	fault_vfs.xAccess = fault_access;
	fault_vfs.xFullPathname = fault_full_pathname;
	g_assert_cmpint(sqlite3_vfs_register(&fault_vfs, 1), ==, SQLITE_OK);
}

void
gnt_fault_vfs_fail(GntFaultOp op, guint skip, gint count)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&fault_mutex);

	fault.armed = TRUE;
	fault.op = op;
	fault.skip = skip;
	fault.count = count;
}

void
gnt_fault_vfs_clear(void)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&fault_mutex);

	fault.armed = FALSE;
}

guint
gnt_fault_vfs_get_n_failed(GntFaultOp op)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&fault_mutex);

	return fault.n_failed[op];
}
