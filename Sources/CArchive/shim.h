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
