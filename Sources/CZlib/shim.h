#include <zlib.h>

/** deflateInit2 with a gzip wrapper (windowBits 15 + 16), memLevel 8, the default strategy:
 *  a macro in zlib.h, which Swift cannot call. */
static inline int timeline_gzip_init(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}
