#include "gnt-secret.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct _GntSecret {
	gchar *data; /* page-aligned mapping of map_len bytes */
	gsize len;
	gsize map_len;
	gboolean heap; /* g_malloc fallback when mmap failed */
};

void
gnt_secret_wipe(gpointer mem, gsize len)
{
	if (mem != NULL && len > 0)
		explicit_bzero(mem, len);
}

/* Called through a volatile pointer: the compiler may not replace the
 * library's functions (and their registers) with inline code. */
static void *(*volatile copy_fn)(void *, const void *, size_t) = memcpy;
static size_t (*volatile length_fn)(const char *) = strlen;
static void *(*volatile find_fn)(const void *, int, size_t) = memchr;

__attribute__((noinline)) void
gnt_secret_wipe_registers(void)
{
	static const gchar zeros[8192];
	gchar plain[8192];
	static const gsize sizes[] = {16, 32, 64, 128, 256, 512, 1024, sizeof(plain)};

	/* each size takes its own path through the copy, with its registers */
	for (guint i = 0; i < G_N_ELEMENTS(sizes); i++)
		copy_fn(plain, zeros, sizes[i]);
	memset(plain, 'x', sizeof(plain) - 1);
	plain[sizeof(plain) - 1] = '\0';
	(void)length_fn(plain);
	(void)find_fn(plain, 'y', sizeof(plain));
	explicit_bzero(plain, sizeof(plain));
}

__attribute__((noinline)) void
gnt_secret_wipe_traces(void)
{
	gchar below[GNT_SECRET_STACK_WIPE];

	explicit_bzero(below, sizeof(below));
	/* keeps the array from being optimized away */
	__asm__ __volatile__("" : : "r"(below) : "memory");
	gnt_secret_wipe_registers();
}

void
gnt_secret_wipe_string(gchar *str)
{
	if (str != NULL)
		gnt_secret_wipe(str, strlen(str));
}

GntSecret *
gnt_secret_new_zeroed(gsize len)
{
	GntSecret *self;
	gsize page = (gsize)sysconf(_SC_PAGESIZE);
	gpointer map;

	self = g_new0(GntSecret, 1);
	self->len = len;
	self->map_len = ((self->len + 1 + page - 1) / page) * page;
	map = mmap(NULL, self->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		/* out of mappings: still zeroed on free, and the daemons are
		 * not dumpable anyway (PR_SET_DUMPABLE) */
		self->map_len = self->len + 1;
		self->data = g_malloc0(self->map_len);
		self->heap = TRUE;
	} else {
		/* best effort: RLIMIT_MEMLOCK may be small */
		(void)madvise(map, self->map_len, MADV_DONTDUMP);
		(void)mlock(map, self->map_len);
		self->data = map;
	}
	return self;
}

GntSecret *
gnt_secret_new(const gchar *value, gssize len)
{
	GntSecret *self;

	g_return_val_if_fail(value != NULL, NULL);

	self = gnt_secret_new_zeroed(len < 0 ? strlen(value) : (gsize)len);
	memcpy(self->data, value, self->len);
	return self;
}

gchar *
gnt_secret_get_data(GntSecret *self)
{
	g_return_val_if_fail(self != NULL, NULL);
	return self->data;
}

GntSecret *
gnt_secret_copy(const GntSecret *self)
{
	g_return_val_if_fail(self != NULL, NULL);
	return gnt_secret_new(self->data, self->len);
}

void
gnt_secret_free(GntSecret *self)
{
	if (self == NULL)
		return;
	gnt_secret_wipe(self->data, self->map_len);
	if (self->heap) {
		g_free(self->data);
	} else {
		(void)munlock(self->data, self->map_len);
		munmap(self->data, self->map_len);
	}
	g_free(self);
}

const gchar *
gnt_secret_get(const GntSecret *self)
{
	g_return_val_if_fail(self != NULL, NULL);
	return self->data;
}

gsize
gnt_secret_get_length(const GntSecret *self)
{
	g_return_val_if_fail(self != NULL, 0);
	return self->len;
}
