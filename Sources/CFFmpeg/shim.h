#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* One whole job over FFmpeg's libraries, which Swift cannot drive safely pointer by pointer:
   a video file in (MP4, MOV, WebM: H.264, HEVC, VP8, VP9, AV1, MPEG-4), an H.264 + AAC MP4 out
   (faststart, no metadata, rotation applied, at most `max_long` × `max_short`), and its first
   frame as RGB for the poster. Every limit is checked before the work it guards. Returns 0, or
   a code below with a message in `error`. */

enum {
    TIMELINE_VIDEO_OK = 0,
    TIMELINE_VIDEO_UNREADABLE = 1,   /* not a container we read, or truncated */
    TIMELINE_VIDEO_NO_VIDEO = 2,     /* no video stream */
    TIMELINE_VIDEO_UNSUPPORTED = 3,  /* a codec we do not take */
    TIMELINE_VIDEO_TOO_LONG = 4,     /* over the duration limit */
    TIMELINE_VIDEO_TOO_LARGE = 5,    /* a frame size over the limit (a decompression bomb) */
    TIMELINE_VIDEO_FAILED = 6        /* decoding or encoding failed */
};

typedef struct {
    double max_seconds;      /* the longest video taken */
    int max_pixels;          /* the largest frame taken, width × height */
    int max_long, max_short; /* the output's bounds (1920 × 1080) */
    int threads;             /* codec threads */
} timeline_video_limits;

typedef struct {
    int width, height;       /* the output's size, after rotation */
    double seconds;          /* its duration */
    double fps;              /* its frame rate */
    int has_audio;
    unsigned char *poster;   /* the first frame, RGB24, width × height (free with timeline_video_free) */
} timeline_video_info;

static inline void timeline_video_free(void *p) { av_free(p); }

static inline int timeline_video_fail(char *error, size_t len, int code, const char *what) {
    snprintf(error, len, "%s", what);
    return code;
}

/* Rotates a w×h plane by 90 (clockwise), 180 or 270 degrees into dst (whose line size is dst_ls). */
static inline void timeline_rotate_plane(const uint8_t *src, int src_ls, int w, int h, uint8_t *dst, int dst_ls, int degrees) {
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            uint8_t v = src[y * src_ls + x];
            switch (degrees) {
            case 90: dst[x * dst_ls + (h - 1 - y)] = v; break;
            case 180: dst[(h - 1 - y) * dst_ls + (w - 1 - x)] = v; break;
            case 270: dst[(w - 1 - x) * dst_ls + y] = v; break;
            default: dst[y * dst_ls + x] = v;
            }
        }
    }
}

typedef struct {
    AVFormatContext *in, *out;
    AVCodecContext *vdec, *venc, *adec, *aenc;
    struct SwsContext *sws, *rgb;
    SwrContext *swr;
    /* What `swr` converts from: a stream's sound may change its layout, format or rate midway. */
    AVChannelLayout swr_layout;
    int swr_format, swr_rate;
    AVAudioFifo *fifo;
    AVFrame *frame, *scaled, *rotated, *aframe;
    AVPacket *pkt;
    int vindex, aindex, rotation;
    int64_t audio_pts;
    AVStream *vout, *aout;
} timeline_video_job;

static inline void timeline_video_job_free(timeline_video_job *j) {
    if (j->out && !(j->out->oformat->flags & AVFMT_NOFILE) && j->out->pb) avio_closep(&j->out->pb);
    avformat_free_context(j->out);
    avformat_close_input(&j->in);
    avcodec_free_context(&j->vdec);
    avcodec_free_context(&j->venc);
    avcodec_free_context(&j->adec);
    avcodec_free_context(&j->aenc);
    sws_freeContext(j->sws);
    sws_freeContext(j->rgb);
    swr_free(&j->swr);
    av_channel_layout_uninit(&j->swr_layout);
    if (j->fifo) av_audio_fifo_free(j->fifo);
    av_frame_free(&j->frame);
    av_frame_free(&j->scaled);
    av_frame_free(&j->rotated);
    av_frame_free(&j->aframe);
    av_packet_free(&j->pkt);
}

/* Sends `frame` (NULL: flush) to `enc` and writes what comes out to `stream`. */
static inline int timeline_video_encode(timeline_video_job *j, AVCodecContext *enc, AVStream *stream, AVFrame *frame) {
    int ret = avcodec_send_frame(enc, frame);
    if (ret < 0 && ret != AVERROR_EOF) return ret;
    for (;;) {
        ret = avcodec_receive_packet(enc, j->pkt);
        if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF) return 0;
        if (ret < 0) return ret;
        av_packet_rescale_ts(j->pkt, enc->time_base, stream->time_base);
        j->pkt->stream_index = stream->index;
        ret = av_interleaved_write_frame(j->out, j->pkt);
        if (ret < 0) return ret;
    }
}

/* Encodes what the audio FIFO holds in whole frames (all of it when `flush`). */
static inline int timeline_video_drain_audio(timeline_video_job *j, int flush) {
    int size = j->aenc->frame_size;
    while (av_audio_fifo_size(j->fifo) >= size || (flush && av_audio_fifo_size(j->fifo) > 0)) {
        int n = FFMIN(size, av_audio_fifo_size(j->fifo));
        AVFrame *f = av_frame_alloc();
        if (!f) return AVERROR(ENOMEM);
        f->nb_samples = n;
        f->format = j->aenc->sample_fmt;
        f->sample_rate = j->aenc->sample_rate;
        av_channel_layout_copy(&f->ch_layout, &j->aenc->ch_layout);
        int ret = av_frame_get_buffer(f, 0);
        if (ret >= 0 && av_audio_fifo_read(j->fifo, (void **)f->data, n) < n) ret = AVERROR(EIO);
        if (ret >= 0) {
            f->pts = j->audio_pts;
            j->audio_pts += n;
            ret = timeline_video_encode(j, j->aenc, j->aout, f);
        }
        av_frame_free(&f);
        if (ret < 0) return ret;
    }
    return 0;
}

static inline int timeline_video_codec_taken(enum AVCodecID id) {
    switch (id) {
    case AV_CODEC_ID_H264: case AV_CODEC_ID_HEVC: case AV_CODEC_ID_VP8: case AV_CODEC_ID_VP9:
    case AV_CODEC_ID_AV1: case AV_CODEC_ID_MPEG4: return 1;
    default: return 0;
    }
}

static inline int timeline_transcode(const char *input, const char *output, const timeline_video_limits *limits,
                                     timeline_video_info *info, char *error, size_t error_len) {
    timeline_video_job j;
    memset(&j, 0, sizeof j);
    memset(info, 0, sizeof *info);
    j.vindex = j.aindex = -1;
    int code = TIMELINE_VIDEO_FAILED, ret;
    av_log_set_level(AV_LOG_QUIET);

    /* Only the containers phones and browsers make; probing bounded. */
    AVDictionary *opts = NULL;
    av_dict_set(&opts, "format_whitelist", "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm", 0);
    av_dict_set(&opts, "probesize", "20000000", 0);
    ret = avformat_open_input(&j.in, input, NULL, &opts);
    av_dict_free(&opts);
    if (ret < 0) { code = timeline_video_fail(error, error_len, TIMELINE_VIDEO_UNREADABLE, "not a video file we read (MP4, MOV or WebM)"); goto done; }
    if (avformat_find_stream_info(j.in, NULL) < 0) { code = timeline_video_fail(error, error_len, TIMELINE_VIDEO_UNREADABLE, "the video's streams cannot be read"); goto done; }
    j.vindex = av_find_best_stream(j.in, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (j.vindex < 0) { code = timeline_video_fail(error, error_len, TIMELINE_VIDEO_NO_VIDEO, "the file holds no video"); goto done; }
    AVStream *vin = j.in->streams[j.vindex];
    if (!timeline_video_codec_taken(vin->codecpar->codec_id)) { code = timeline_video_fail(error, error_len, TIMELINE_VIDEO_UNSUPPORTED, "the video's codec is not one we take (H.264, HEVC, VP8, VP9, AV1, MPEG-4)"); goto done; }
    int w = vin->codecpar->width, h = vin->codecpar->height;
    if (w <= 0 || h <= 0 || (int64_t)w * h > limits->max_pixels) { code = timeline_video_fail(error, error_len, TIMELINE_VIDEO_TOO_LARGE, "the video's frames are larger than we take"); goto done; }
    double seconds = j.in->duration > 0 ? j.in->duration / (double)AV_TIME_BASE
        : (vin->duration > 0 ? vin->duration * av_q2d(vin->time_base) : -1);
    /* A length not told (a browser's recording, a live WebM) is measured as it is decoded, below. */
    if (seconds < 0) seconds = 0;
    if (seconds > limits->max_seconds) { code = timeline_video_fail(error, error_len, TIMELINE_VIDEO_TOO_LONG, "the video is longer than we take"); goto done; }
    j.aindex = av_find_best_stream(j.in, AVMEDIA_TYPE_AUDIO, -1, j.vindex, NULL, 0);
    if (j.aindex >= 0) {
        enum AVCodecID a = j.in->streams[j.aindex]->codecpar->codec_id;
        if (a != AV_CODEC_ID_AAC && a != AV_CODEC_ID_OPUS && a != AV_CODEC_ID_VORBIS && a != AV_CODEC_ID_MP3
            && a != AV_CODEC_ID_PCM_S16LE && a != AV_CODEC_ID_AC3 && a != AV_CODEC_ID_ALAC) j.aindex = -1;
    }

    /* Rotation, as the display matrix says (phones record sideways and say so). */
    const uint8_t *matrix = av_stream_get_side_data(vin, AV_PKT_DATA_DISPLAYMATRIX, NULL);
    if (matrix) {
        double theta = -av_display_rotation_get((const int32_t *)matrix);
        theta -= 360 * floor(theta / 360 + 0.9 / 360);
        j.rotation = ((int)lrint(theta / 90) * 90) % 360;
    }

    /* The decoder. */
    const AVCodec *vdec = avcodec_find_decoder(vin->codecpar->codec_id);
    j.vdec = vdec ? avcodec_alloc_context3(vdec) : NULL;
    if (!j.vdec || avcodec_parameters_to_context(j.vdec, vin->codecpar) < 0) goto failed;
    j.vdec->thread_count = limits->threads;
    if (avcodec_open2(j.vdec, vdec, NULL) < 0) { code = timeline_video_fail(error, error_len, TIMELINE_VIDEO_UNSUPPORTED, "the video cannot be decoded"); goto done; }

    /* The output size: the frame within max_long × max_short (after rotation), never enlarged, even. */
    int rw = (j.rotation == 90 || j.rotation == 270) ? h : w, rh = (j.rotation == 90 || j.rotation == 270) ? w : h;
    double bound_w = rw >= rh ? limits->max_long : limits->max_short, bound_h = rw >= rh ? limits->max_short : limits->max_long;
    double scale = fmin(1.0, fmin(bound_w / rw, bound_h / rh));
    int ow = ((int)(rw * scale)) & ~1, oh = ((int)(rh * scale)) & ~1;
    if (ow < 2) ow = 2;
    if (oh < 2) oh = 2;
    int sw = (j.rotation == 90 || j.rotation == 270) ? oh : ow, sh = (j.rotation == 90 || j.rotation == 270) ? ow : oh;

    /* The output: MP4, H.264 (libx264) and AAC, no metadata. */
    if (avformat_alloc_output_context2(&j.out, NULL, "mp4", output) < 0) goto failed;
    j.out->flags |= AVFMT_FLAG_BITEXACT;
    const AVCodec *x264 = avcodec_find_encoder_by_name("libx264");
    if (!x264) x264 = avcodec_find_encoder(AV_CODEC_ID_H264);
    j.venc = x264 ? avcodec_alloc_context3(x264) : NULL;
    if (!j.venc) goto failed;
    AVRational rate = av_guess_frame_rate(j.in, vin, NULL);
    if (rate.num <= 0 || rate.den <= 0 || av_q2d(rate) > 120) rate = (AVRational){30, 1};
    j.venc->width = ow;
    j.venc->height = oh;
    j.venc->pix_fmt = AV_PIX_FMT_YUV420P;
    j.venc->time_base = vin->time_base;
    j.venc->framerate = rate;
    j.venc->thread_count = limits->threads;
    j.venc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    av_opt_set(j.venc->priv_data, "preset", "veryfast", 0);
    av_opt_set(j.venc->priv_data, "crf", "23", 0);
    av_opt_set(j.venc->priv_data, "profile", "high", 0);
    /* Half of veryfast's lookahead: x264's frames in flight are most of a transcode's memory
       (a 1080p one peaks near 300 MiB with 10); 5 keeps it well under, at a small cost in bits. */
    av_opt_set_int(j.venc->priv_data, "rc-lookahead", 5, 0);
    if (avcodec_open2(j.venc, x264, NULL) < 0) goto failed;
    j.vout = avformat_new_stream(j.out, NULL);
    if (!j.vout || avcodec_parameters_from_context(j.vout->codecpar, j.venc) < 0) goto failed;
    j.vout->time_base = j.venc->time_base;

    if (j.aindex >= 0) {
        AVStream *ain = j.in->streams[j.aindex];
        const AVCodec *adec = avcodec_find_decoder(ain->codecpar->codec_id);
        const AVCodec *aac = avcodec_find_encoder(AV_CODEC_ID_AAC);
        j.adec = adec ? avcodec_alloc_context3(adec) : NULL;
        j.aenc = aac ? avcodec_alloc_context3(aac) : NULL;
        if (!j.adec || !j.aenc || avcodec_parameters_to_context(j.adec, ain->codecpar) < 0 || avcodec_open2(j.adec, adec, NULL) < 0) {
            avcodec_free_context(&j.adec);
            avcodec_free_context(&j.aenc);
            j.aindex = -1;
        } else {
            j.aenc->sample_rate = 48000;
            j.aenc->sample_fmt = AV_SAMPLE_FMT_FLTP;
            av_channel_layout_default(&j.aenc->ch_layout, 2);
            j.aenc->bit_rate = 128000;
            j.aenc->time_base = (AVRational){1, 48000};
            j.aenc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER | AV_CODEC_FLAG_BITEXACT;
            if (avcodec_open2(j.aenc, aac, NULL) < 0) goto failed;
            j.aout = avformat_new_stream(j.out, NULL);
            if (!j.aout || avcodec_parameters_from_context(j.aout->codecpar, j.aenc) < 0) goto failed;
            j.aout->time_base = j.aenc->time_base;
            /* The converter is made for the first sound frame's layout, format and rate (below). */
            j.fifo = av_audio_fifo_alloc(j.aenc->sample_fmt, 2, j.aenc->frame_size > 0 ? j.aenc->frame_size : 1024);
            if (!j.fifo) goto failed;
        }
    }
    if (avio_open(&j.out->pb, output, AVIO_FLAG_WRITE) < 0) goto failed;
    AVDictionary *mux = NULL;
    av_dict_set(&mux, "movflags", "+faststart", 0);
    ret = avformat_write_header(j.out, &mux);
    av_dict_free(&mux);
    if (ret < 0) goto failed;

    j.frame = av_frame_alloc();
    j.scaled = av_frame_alloc();
    j.rotated = av_frame_alloc();
    j.aframe = av_frame_alloc();
    j.pkt = av_packet_alloc();
    if (!j.frame || !j.scaled || !j.rotated || !j.aframe || !j.pkt) goto failed;
    j.scaled->format = j.rotated->format = AV_PIX_FMT_YUV420P;
    j.scaled->width = sw; j.scaled->height = sh;
    j.rotated->width = ow; j.rotated->height = oh;
    if (av_frame_get_buffer(j.scaled, 0) < 0 || av_frame_get_buffer(j.rotated, 0) < 0) goto failed;
    AVPacket *in = av_packet_alloc();
    if (!in) goto failed;
    int64_t frames = 0, max_frames = (int64_t)(limits->max_seconds * 120) + 120;
    /* The length as decoded, not as the header says (a header can lie): the last frame's time. */
    int64_t first_ts = vin->start_time;
    double decoded_seconds = 0;
    int draining = 0;
    while (!draining) {
        ret = av_read_frame(j.in, in);
        if (ret < 0 && ret != AVERROR_EOF) {
            av_packet_free(&in);
            code = timeline_video_fail(error, error_len, TIMELINE_VIDEO_UNREADABLE, "the video is damaged or truncated");
            goto done;
        }
        if (ret < 0) draining = 1;
        AVCodecContext *dec = NULL;
        if (!draining && in->stream_index == j.vindex) dec = j.vdec;
        else if (!draining && in->stream_index == j.aindex) dec = j.adec;
        else if (!draining) { av_packet_unref(in); continue; }
        AVCodecContext *decoders[2] = {dec, NULL};
        if (draining) { decoders[0] = j.vdec; decoders[1] = j.adec; }
        for (int d = 0; d < 2 && decoders[d]; d++) {
            AVCodecContext *c = decoders[d];
            ret = avcodec_send_packet(c, draining ? NULL : in);
            if (ret < 0 && ret != AVERROR_EOF && ret != AVERROR(EAGAIN)) {
                av_packet_free(&in);
                code = timeline_video_fail(error, error_len, TIMELINE_VIDEO_UNREADABLE, "the video is damaged or truncated");
                goto done;
            }
            for (;;) {
                AVFrame *f = c == j.vdec ? j.frame : j.aframe;
                ret = avcodec_receive_frame(c, f);
                if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF) break;
                if (ret < 0) { av_packet_free(&in); goto failed; }
                if (c == j.vdec) {
                    if (f->width != w || f->height != h) {
                        av_frame_unref(f);
                        av_packet_free(&in);
                        code = timeline_video_fail(error, error_len, TIMELINE_VIDEO_TOO_LARGE, "the video's frame size changes");
                        goto done;
                    }
                    if (++frames > max_frames) { av_frame_unref(f); av_packet_free(&in); code = timeline_video_fail(error, error_len, TIMELINE_VIDEO_TOO_LONG, "the video has more frames than its length says"); goto done; }
                    if (f->best_effort_timestamp != AV_NOPTS_VALUE) {
                        if (first_ts == AV_NOPTS_VALUE) first_ts = f->best_effort_timestamp;
                        double t = (f->best_effort_timestamp - first_ts) * av_q2d(vin->time_base) + 1 / av_q2d(rate);
                        if (t > decoded_seconds) decoded_seconds = t;
                        if (decoded_seconds > limits->max_seconds + 1) { av_frame_unref(f); av_packet_free(&in); code = timeline_video_fail(error, error_len, TIMELINE_VIDEO_TOO_LONG, "the video is longer than we take"); goto done; }
                    }
                    j.sws = sws_getCachedContext(j.sws, w, h, f->format, sw, sh, AV_PIX_FMT_YUV420P, SWS_BICUBIC, NULL, NULL, NULL);
                    if (!j.sws || av_frame_make_writable(j.scaled) < 0) { av_frame_unref(f); av_packet_free(&in); goto failed; }
                    sws_scale(j.sws, (const uint8_t *const *)f->data, f->linesize, 0, h, j.scaled->data, j.scaled->linesize);
                    AVFrame *out = j.scaled;
                    if (j.rotation) {
                        if (av_frame_make_writable(j.rotated) < 0) { av_frame_unref(f); av_packet_free(&in); goto failed; }
                        for (int p = 0; p < 3; p++) {
                            int pw = p ? sw / 2 : sw, ph = p ? sh / 2 : sh;
                            timeline_rotate_plane(j.scaled->data[p], j.scaled->linesize[p], pw, ph, j.rotated->data[p], j.rotated->linesize[p], j.rotation);
                        }
                        out = j.rotated;
                    }
                    if (!info->poster) {
                        /* swscale's vector code may write a little past a row's end: padding. */
                        unsigned char *rgb = av_mallocz((size_t)ow * oh * 3 + 256);
                        j.rgb = sws_getContext(ow, oh, AV_PIX_FMT_YUV420P, ow, oh, AV_PIX_FMT_RGB24, SWS_BICUBIC, NULL, NULL, NULL);
                        if (rgb && j.rgb) {
                            uint8_t *planes[4] = {rgb, NULL, NULL, NULL};
                            int lines[4] = {ow * 3, 0, 0, 0};
                            sws_scale(j.rgb, (const uint8_t *const *)out->data, out->linesize, 0, oh, planes, lines);
                            info->poster = rgb;
                        } else av_free(rgb);
                    }
                    out->pts = f->best_effort_timestamp;
                    av_frame_unref(f);
                    ret = timeline_video_encode(&j, j.venc, j.vout, out);
                    if (ret < 0) { av_packet_free(&in); goto failed; }
                } else {
                    if (f->ch_layout.nb_channels <= 0 || f->ch_layout.nb_channels > 16 || f->sample_rate <= 0) {
                        av_frame_unref(f);
                        av_packet_free(&in);
                        code = timeline_video_fail(error, error_len, TIMELINE_VIDEO_UNREADABLE, "the video's sound is damaged");
                        goto done;
                    }
                    /* A converter for this frame's layout, format and rate (made anew when they change). */
                    if (!j.swr || av_channel_layout_compare(&f->ch_layout, &j.swr_layout) || f->format != j.swr_format
                        || f->sample_rate != j.swr_rate) {
                        swr_free(&j.swr);
                        av_channel_layout_uninit(&j.swr_layout);
                        if (swr_alloc_set_opts2(&j.swr, &j.aenc->ch_layout, j.aenc->sample_fmt, j.aenc->sample_rate,
                                                &f->ch_layout, f->format, f->sample_rate, 0, NULL) < 0
                            || swr_init(j.swr) < 0 || av_channel_layout_copy(&j.swr_layout, &f->ch_layout) < 0) {
                            av_frame_unref(f);
                            av_packet_free(&in);
                            goto failed;
                        }
                        j.swr_format = f->format;
                        j.swr_rate = f->sample_rate;
                    }
                    uint8_t **converted = NULL;
                    int max = swr_get_out_samples(j.swr, f->nb_samples);
                    if (max < 0 || av_samples_alloc_array_and_samples(&converted, NULL, 2, max, j.aenc->sample_fmt, 0) < 0) { av_frame_unref(f); av_packet_free(&in); goto failed; }
                    int n = swr_convert(j.swr, converted, max, (const uint8_t **)f->extended_data, f->nb_samples);
                    if (n > 0) av_audio_fifo_write(j.fifo, (void **)converted, n);
                    av_freep(&converted[0]);
                    av_freep(&converted);
                    av_frame_unref(f);
                    if (n < 0 || timeline_video_drain_audio(&j, 0) < 0) { av_packet_free(&in); goto failed; }
                    /* The sound is held to the length limit too (a short video over hours of sound). */
                    if (j.audio_pts > (int64_t)((limits->max_seconds + 1) * j.aenc->sample_rate)) {
                        av_packet_free(&in);
                        code = timeline_video_fail(error, error_len, TIMELINE_VIDEO_TOO_LONG, "the video is longer than we take");
                        goto done;
                    }
                }
            }
        }
        if (!draining) av_packet_unref(in);
    }
    av_packet_free(&in);
    if (frames == 0) { code = timeline_video_fail(error, error_len, TIMELINE_VIDEO_UNREADABLE, "the video holds no frame we can decode"); goto done; }
    if (timeline_video_encode(&j, j.venc, j.vout, NULL) < 0) goto failed;
    if (j.aenc && (timeline_video_drain_audio(&j, 1) < 0 || timeline_video_encode(&j, j.aenc, j.aout, NULL) < 0)) goto failed;
    if (av_write_trailer(j.out) < 0) goto failed;
    info->width = ow;
    info->height = oh;
    info->seconds = decoded_seconds > 0 ? decoded_seconds : seconds;
    info->fps = av_q2d(rate);
    info->has_audio = j.aenc != NULL;
    code = TIMELINE_VIDEO_OK;
    goto done;
failed:
    code = timeline_video_fail(error, error_len, TIMELINE_VIDEO_FAILED, "the video could not be transcoded");
done:
    if (code != TIMELINE_VIDEO_OK && info->poster) { av_free(info->poster); info->poster = NULL; }
    timeline_video_job_free(&j);
    return code;
}
