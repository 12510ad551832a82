#include <archive.h>
#include <archive_entry.h>

/** A zip writer whose bytes go to `write` (called with `context`): streaming, no file. */
static inline struct archive *timeline_zip_new(void *context, archive_write_callback *write) {
    struct archive *a = archive_write_new();
    if (a == NULL) return NULL;
    if (archive_write_set_format_zip(a) != ARCHIVE_OK
        || archive_write_set_bytes_per_block(a, 0) != ARCHIVE_OK
        || archive_write_open2(a, context, NULL, write, NULL, NULL) != ARCHIVE_OK) {
        archive_write_free(a);
        return NULL;
    }
    return a;
}

/** Starts a regular file `path` of `size` bytes, mode 0644, modified at `mtime` (s since 1970). */
static inline int timeline_zip_begin(struct archive *a, const char *path, long long size, long long mtime) {
    struct archive_entry *entry = archive_entry_new();
    if (entry == NULL) return ARCHIVE_FATAL;
    archive_entry_set_pathname_utf8(entry, path);
    archive_entry_set_size(entry, size);
    archive_entry_set_filetype(entry, AE_IFREG);
    archive_entry_set_perm(entry, 0644);
    archive_entry_set_mtime(entry, (time_t)mtime, 0);
    int status = archive_write_header(a, entry);
    archive_entry_free(entry);
    return status;
}

/** A reader of the zip archive at `path`, read in 64 KiB blocks (never the whole file at once). */
static inline struct archive *timeline_zip_open(const char *path) {
    struct archive *a = archive_read_new();
    if (a == NULL) return NULL;
    if (archive_read_support_format_zip(a) != ARCHIVE_OK || archive_read_open_filename(a, path, 65536) != ARCHIVE_OK) {
        archive_read_free(a);
        return NULL;
    }
    return a;
}

/** The next entry's header: 1 with its path (UTF-8; NULL when it has none), whether it is a
    regular file and its declared size (-1 when unknown), 0 at the end, -1 on a damaged archive. */
static inline int timeline_zip_next(struct archive *a, const char **path, int *regular, long long *size) {
    struct archive_entry *entry = NULL;
    int status = archive_read_next_header(a, &entry);
    if (status == ARCHIVE_EOF) return 0;
    if (status != ARCHIVE_OK && status != ARCHIVE_WARN) return -1;
    *path = archive_entry_pathname_utf8(entry);
    if (*path == NULL) *path = archive_entry_pathname(entry);
    *regular = archive_entry_filetype(entry) == AE_IFREG;
    *size = archive_entry_size_is_set(entry) ? (long long)archive_entry_size(entry) : -1;
    return 1;
}
