#include <stddef.h>
#include <vips/vips.h>

/* libvips' operations are variadic (optional arguments end with NULL), which Swift cannot
   call: these fixed-argument wrappers are the only C of the bridge. Images are returned owned
   (release them with timeline_vips_release); NULL means failure, with a message in
   vips_error_buffer(). */

/** Starts libvips once: `concurrency` worker threads per image, no operation cache. */
static inline int timeline_vips_start(int concurrency) {
    if (VIPS_INIT("timeline")) return -1;
    vips_concurrency_set(concurrency);
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    return 0;
}

/** The name of the loader that recognises `buf` (e.g. "VipsForeignLoadJpegBuffer"), or NULL. */
static inline const char *timeline_vips_loader(const void *buf, size_t len) {
    return vips_foreign_find_load_buffer(buf, len);
}

/** Opens `buf` reading only its header (no pixels are decoded). `buf` must outlive the image. */
static inline VipsImage *timeline_vips_header(const void *buf, size_t len) {
    return vips_image_new_from_buffer(buf, len, "fail_on=warning", NULL);
}

/** Decodes `buf` in full (shrinking on load where the format allows), orients it upright by its
    EXIF orientation and fits it in `width`×`height` (never enlarging) in sRGB; the result is in
    memory, independent of `buf`. */
static inline VipsImage *timeline_vips_fit_buffer(const void *buf, size_t len, int width, int height) {
    VipsImage *thumb = NULL, *memory = NULL, *probe = NULL;
    /* Colour-managed into sRGB when the file carries a colour profile (a phone's Display P3,
       Adobe RGB); without one it is sRGB already, and the two profile transforms would be
       most of a small image's cost. */
    int profiled = 0;
    if ((probe = vips_image_new_from_buffer(buf, len, "", NULL))) {
        profiled = vips_image_get_typeof(probe, VIPS_META_ICC_NAME) != 0;
        g_object_unref(probe);
    }
    if (profiled ? vips_thumbnail_buffer((void *)buf, len, &thumb, width, "height", height, "size", VIPS_SIZE_DOWN,
                                         "option_string", "fail_on=warning", "export_profile", "srgb", NULL)
                 : vips_thumbnail_buffer((void *)buf, len, &thumb, width, "height", height, "size", VIPS_SIZE_DOWN,
                                         "option_string", "fail_on=warning", NULL)) return NULL;
    memory = vips_image_copy_memory(thumb);
    g_object_unref(thumb);
    return memory;
}

/** `image` resized to fit `width`×`height`, or, with `crop`, to fill it exactly (centre crop).
    The crop first cuts the centre square: scaling a whole 1×12000 strip to cover 320×320 would
    make it 320×3,840,000 before cutting (seconds of work and gigabytes for a 100-byte file). */
static inline VipsImage *timeline_vips_resize(VipsImage *image, int width, int height, int crop) {
    VipsImage *out = NULL;
    if (crop) {
        int w = vips_image_get_width(image), h = vips_image_get_height(image);
        int side = w < h ? w : h;
        VipsImage *square = NULL;
        if (vips_extract_area(image, &square, (w - side) / 2, (h - side) / 2, side, side, NULL)) return NULL;
        int failed = vips_thumbnail_image(square, &out, width, "height", height, "size", VIPS_SIZE_BOTH,
                                          "crop", VIPS_INTERESTING_CENTRE, NULL);
        g_object_unref(square);
        if (failed) return NULL;
    } else {
        if (vips_thumbnail_image(image, &out, width, "height", height, "size", VIPS_SIZE_DOWN, NULL)) return NULL;
    }
    return out;
}

/** `image` as 8-bit sRGB (alpha kept). */
static inline VipsImage *timeline_vips_srgb(VipsImage *image) {
    VipsImage *out = NULL;
    if (vips_colourspace(image, &out, VIPS_INTERPRETATION_sRGB, NULL)) return NULL;
    return out;
}

static inline int timeline_vips_width(VipsImage *image) { return vips_image_get_width(image); }
static inline int timeline_vips_height(VipsImage *image) { return vips_image_get_height(image); }
static inline int timeline_vips_has_alpha(VipsImage *image) { return vips_image_hasalpha(image); }
static inline void timeline_vips_release(VipsImage *image) { g_object_unref(image); }

/** Encodes as progressive JPEG at `quality` with no metadata; free the bytes with g_free. */
static inline int timeline_vips_jpeg(VipsImage *image, int quality, void **buf, size_t *len) {
    return vips_jpegsave_buffer(image, buf, len, "Q", quality, "interlace", TRUE, "strip", TRUE,
                                "optimize_coding", TRUE, NULL);
}

/**
 * The pixels as 8-bit sRGB, three bands (alpha flattened onto white), row after row; free
 * them with g_free. For the blurhash, which reads a small copy of the photo.
 */
static inline void *timeline_vips_rgb_pixels(VipsImage *image, size_t *len) {
    VipsImage *flat = NULL, *three = NULL, *bytes = NULL;
    void *pixels = NULL;
    VipsImage *source = image;
    if (vips_image_hasalpha(image)) {
        double white[3] = { 255, 255, 255 };
        VipsArrayDouble *background = vips_array_double_new(white, 3);
        int failed = vips_flatten(image, &flat, "background", background, NULL);
        vips_area_unref(VIPS_AREA(background));
        if (failed) return NULL;
        source = flat;
    }
    if (vips_colourspace(source, &three, VIPS_INTERPRETATION_sRGB, NULL) == 0
        && vips_cast_uchar(three, &bytes, NULL) == 0
        && vips_image_get_bands(bytes) >= 3) {
        VipsImage *rgb = NULL;
        if (vips_extract_band(bytes, &rgb, 0, "n", 3, NULL) == 0) {
            pixels = vips_image_write_to_memory(rgb, len);
            g_object_unref(rgb);
        }
    }
    if (bytes) g_object_unref(bytes);
    if (three) g_object_unref(three);
    if (flat) g_object_unref(flat);
    return pixels;
}

/** Encodes as PNG with no metadata; free the bytes with g_free. */
static inline int timeline_vips_png(VipsImage *image, void **buf, size_t *len) {
    return vips_pngsave_buffer(image, buf, len, "strip", TRUE, "compression", 6, NULL);
}

/** A `width`×`height` photo-like sRGB image (for the demo network): a vertical gradient from the
    colour `top` to `bottom` with a soft grain drawn from `seed`. */
static inline VipsImage *timeline_vips_gradient(int width, int height, const double top[3], const double bottom[3], int seed) {
    VipsImage *xyz = NULL, *y = NULL, *ramp = NULL, *grain = NULL, *grainy = NULL, *bytes = NULL, *out = NULL;
    double scale[3], offset[3];
    for (int i = 0; i < 3; i++) {
        scale[i] = (bottom[i] - top[i]) / (height > 1 ? height - 1 : 1);
        offset[i] = top[i];
    }
    int failed = vips_xyz(&xyz, width, height, NULL)
        || vips_extract_band(xyz, &y, 1, NULL)
        || vips_linear(y, &ramp, scale, offset, 3, NULL)
        || vips_gaussnoise(&grain, width, height, "sigma", 5.0, "mean", 0.0, "seed", seed, NULL)
        || vips_add(ramp, grain, &grainy, NULL)
        || vips_cast_uchar(grainy, &bytes, NULL)
        || vips_copy(bytes, &out, "interpretation", VIPS_INTERPRETATION_sRGB, NULL);
    VipsImage *made[] = {xyz, y, ramp, grain, grainy, bytes};
    for (int i = 0; i < 6; i++) if (made[i]) g_object_unref(made[i]);
    if (failed) { if (out) g_object_unref(out); return NULL; }
    VipsImage *memory = vips_image_copy_memory(out);
    g_object_unref(out);
    return memory;
}

/** A one-band 8-bit image copied from `pixels` (`width`×`height`, row after row). */
static inline VipsImage *timeline_vips_pixels(const unsigned char *pixels, int width, int height, int bands) {
    return vips_image_new_from_memory_copy(
        pixels, (size_t)width * (size_t)height * (size_t)bands, width, height, bands, VIPS_FORMAT_UCHAR);
}

/** The last error's message (and clears it). Copy it before the next libvips call. */
static inline const char *timeline_vips_error(void) { return vips_error_buffer(); }
static inline void timeline_vips_clear_error(void) { vips_error_clear(); }
static inline void timeline_vips_free(void *buf) { g_free(buf); }
