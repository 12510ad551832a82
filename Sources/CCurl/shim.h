#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>
#include <errno.h>
#include <curl/curl.h>

/* libcurl's options are set through the variadic curl_easy_setopt, which Swift cannot call: this
   bridge makes one HTTPS POST on a reusable handle (its connections and HTTP/2 sessions are kept
   between calls) and returns libcurl's code; the status lands in *status. */

static size_t timeline_curl_discard(char *data, size_t size, size_t count, void *context) {
    (void)data; (void)context;
    return size * count;
}

/** Whether the IPv4 address `ip` (host order) is not on the public Internet: "this network"
    (0/8: Linux connects 0.0.0.0 to itself), private (10/8, 172.16/12, 192.168/16), carrier-grade
    NAT (100.64/10), loopback, link-local (169.254/16: cloud metadata), IETF protocol assignments
    (192.0.0/24), documentation, 6to4 relays, benchmarking (198.18/15), multicast and reserved
    (224/3, broadcast included). */
static inline int timeline_ipv4_is_private(uint32_t ip) {
    return (ip >> 24) == 0 || (ip >> 24) == 10 || (ip >> 22) == (0x64400000u >> 22) || (ip >> 24) == 127
        || (ip >> 16) == 0xA9FE || (ip >> 20) == 0xAC1 || (ip >> 8) == 0xC00000 || (ip >> 8) == 0xC00002
        || (ip >> 8) == 0xC05863 || (ip >> 16) == 0xC0A8 || (ip >> 17) == (0xC6120000u >> 17) || (ip >> 8) == 0xC63364
        || (ip >> 8) == 0xCB0071 || (ip >> 29) == 7;
}

/** The IPv4 address in four bytes (network order), in host order. */
static inline uint32_t timeline_ipv4_at(const unsigned char *b) {
    return ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) | (uint32_t)b[3];
}

/** Whether `address` is not on the public Internet, the one rule every push connection is held
    to. IPv4 by `timeline_ipv4_is_private`. IPv6 that carries an IPv4 address — IPv4-compatible
    (::/96, which holds :: and ::1: Linux connects :: to ::1), IPv4-mapped (::ffff:0:0/96),
    IPv4-translated (::ffff:0:0:0/96), NAT64 (64:ff9b::/96) and 6to4 (2002::/16) — is judged by
    the IPv4 address it carries; any other IPv6 address is public only in global unicast
    (2000::/3) outside the IETF's special ranges (2001::/23: Teredo, which reaches an IPv4
    address, benchmarking, ORCHID) and documentation (2001:db8::/32, 3fff::/20). So link-local
    (fe80::/10), unique local (fc00::/7), site-local, multicast (ff00::/8), discard (100::/64)
    and local NAT64 (64:ff9b:1::/48) are private. Other families are refused. */
static inline int timeline_address_is_private(const struct sockaddr *address) {
    if (address->sa_family == AF_INET) {
        return timeline_ipv4_is_private(ntohl(((const struct sockaddr_in *)address)->sin_addr.s_addr));
    }
    if (address->sa_family == AF_INET6) {
        const unsigned char *b = ((const struct sockaddr_in6 *)address)->sin6_addr.s6_addr;
        static const unsigned char zeros[12] = {0};
        static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
        static const unsigned char translated[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0};
        static const unsigned char nat64[12] = {0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0};
        if (memcmp(b, zeros, 12) == 0 || memcmp(b, mapped, 12) == 0 || memcmp(b, translated, 12) == 0
            || memcmp(b, nat64, 12) == 0) {
            return timeline_ipv4_is_private(timeline_ipv4_at(b + 12));
        }
        if (b[0] == 0x20 && b[1] == 0x02) return timeline_ipv4_is_private(timeline_ipv4_at(b + 2));
        if ((b[0] & 0xE0) != 0x20) return 1;
        if (b[0] == 0x20 && b[1] == 0x01 && b[2] < 0x02) return 1;
        if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0D && b[3] == 0xB8) return 1;
        if (b[0] == 0x3F && b[1] == 0xFF && (b[2] & 0xF0) == 0) return 1;
        return 0;
    }
    return 1;
}

/** Whether the address written as `text` (IPv4 dotted quad, or IPv6 without brackets) is private
    by `timeline_address_is_private`: 1 or 0, and -1 when `text` is not an address. */
static inline int timeline_address_text_is_private(const char *text) {
    struct sockaddr_in6 v6 = {0};
    struct sockaddr_in v4 = {0};
    if (inet_pton(AF_INET6, text, &v6.sin6_addr) == 1) {
        v6.sin6_family = AF_INET6;
        return timeline_address_is_private((const struct sockaddr *)&v6);
    }
    if (inet_pton(AF_INET, text, &v4.sin_addr) == 1) {
        v4.sin_family = AF_INET;
        return timeline_address_is_private((const struct sockaddr *)&v4);
    }
    return -1;
}

/** Refuses, at connect time (after DNS, so no rebinding gets past it), a private address. */
static curl_socket_t timeline_curl_open_public(void *context, curlsocktype purpose, struct curl_sockaddr *address) {
    (void)context; (void)purpose;
    if (timeline_address_is_private(&address->addr)) return CURL_SOCKET_BAD;
    return socket(address->family, address->socktype, address->protocol);
}

/** A handle for HTTPS POSTs: HTTP/2 when the server offers it, https only, no redirects. */
static inline CURL *timeline_curl_new(const char *ca_file, int allow_private) {
    CURL *curl = curl_easy_init();
    if (!curl) return NULL;
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "https");
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, timeline_curl_discard);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
    if (ca_file) curl_easy_setopt(curl, CURLOPT_CAINFO, ca_file);
    if (!allow_private) curl_easy_setopt(curl, CURLOPT_OPENSOCKETFUNCTION, timeline_curl_open_public);
    return curl;
}

/** POSTs `body` to `url` with `header_count` header lines; the answer's status goes to *status. */
static inline int timeline_curl_post(CURL *curl, const char *url, const char *const *headers, int header_count,
                                     const unsigned char *body, size_t body_length, long timeout_ms, long *status) {
    struct curl_slist *list = NULL;
    for (int i = 0; i < header_count; i++) list = curl_slist_append(list, headers[i]);
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_length);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
    CURLcode code = curl_easy_perform(curl);
    *status = 0;
    if (code == CURLE_OK) curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, status);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, NULL);
    curl_slist_free_all(list);
    return (int)code;
}

/** A GET's answer as it arrives: its bytes, in a buffer grown up to `limit`, or written to the
    file `fd` when it is not -1 (a video: never held in memory). */
struct timeline_curl_answer {
    unsigned char *bytes;
    size_t length;
    size_t capacity;
    size_t limit;
    int too_long;
    int fd;
};

static size_t timeline_curl_collect(char *data, size_t size, size_t count, void *context) {
    struct timeline_curl_answer *answer = (struct timeline_curl_answer *)context;
    size_t n = size * count;
    if (answer->length + n > answer->limit) {
        answer->too_long = 1;
        return 0; /* libcurl ends the transfer with CURLE_WRITE_ERROR */
    }
    if (answer->fd != -1) {
        for (size_t written = 0; written < n;) {
            ssize_t w = write(answer->fd, data + written, n - written);
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) return 0; /* a full disk ends the transfer too */
            written += (size_t)w;
        }
        answer->length += n;
        return n;
    }
    if (answer->length + n > answer->capacity) {
        size_t capacity = answer->capacity ? answer->capacity : 16384;
        while (capacity < answer->length + n) capacity *= 2;
        if (capacity > answer->limit) capacity = answer->limit;
        unsigned char *grown = (unsigned char *)realloc(answer->bytes, capacity);
        if (!grown) return 0;
        answer->bytes = grown;
        answer->capacity = capacity;
    }
    memcpy(answer->bytes + answer->length, data, n);
    answer->length += n;
    return n;
}

/** GETs `url` with `header_count` header lines, keeping at most `answer->limit` bytes of the
    body in `answer` (the caller frees `answer->bytes`); the status goes to *status. */
static inline int timeline_curl_get(CURL *curl, const char *url, const char *const *headers, int header_count,
                                    long timeout_ms, long *status, struct timeline_curl_answer *answer) {
    struct curl_slist *list = NULL;
    for (int i = 0; i < header_count; i++) list = curl_slist_append(list, headers[i]);
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, timeline_curl_collect);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, answer);
    CURLcode code = curl_easy_perform(curl);
    *status = 0;
    if (code == CURLE_OK) curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, status);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, timeline_curl_discard);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, NULL);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, NULL);
    curl_slist_free_all(list);
    return (int)code;
}

/** Sends the requests for HOST:PORT to ADDR:PORT instead (curl's --connect-to lines), for
    tests that run several servers on loopback under names of their own; returns the list the
    handle now uses (freed by the caller after the handle). */
static inline struct curl_slist *timeline_curl_connect_to(CURL *curl, const char *const *lines, int count) {
    struct curl_slist *list = NULL;
    for (int i = 0; i < count; i++) list = curl_slist_append(list, lines[i]);
    curl_easy_setopt(curl, CURLOPT_CONNECT_TO, list);
    return list;
}

/** What an SMTP upload reads from: the message's bytes and how far it has been sent. */
struct timeline_smtp_body {
    const unsigned char *bytes;
    size_t length;
    size_t sent;
};

static size_t timeline_smtp_read(char *buffer, size_t size, size_t count, void *context) {
    struct timeline_smtp_body *body = (struct timeline_smtp_body *)context;
    size_t room = size * count, left = body->length - body->sent;
    size_t n = left < room ? left : room;
    memcpy(buffer, body->bytes + body->sent, n);
    body->sent += n;
    return n;
}

/** Sends one message (`message`: the headers and body, CRLF lines) by SMTP to `url`
    (smtp://HOST:PORT, or smtps://), from `from` to `recipient`: STARTTLS when the server offers
    it (CURLUSESSL_TRY), the system's authorities and `ca_file` trusted. Returns libcurl's code;
    the server's last reply code lands in *reply. */
static inline int timeline_curl_smtp_send(const char *url, const char *ca_file, const char *from,
                                          const char *recipient, const unsigned char *message, size_t length,
                                          long timeout_ms, long *reply) {
    CURL *curl = curl_easy_init();
    if (!curl) return (int)CURLE_FAILED_INIT;
    struct curl_slist *recipients = curl_slist_append(NULL, recipient);
    struct timeline_smtp_body body = {message, length, 0};
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
    curl_easy_setopt(curl, CURLOPT_USE_SSL, (long)CURLUSESSL_TRY);
    if (ca_file) curl_easy_setopt(curl, CURLOPT_CAINFO, ca_file);
    curl_easy_setopt(curl, CURLOPT_MAIL_FROM, from);
    curl_easy_setopt(curl, CURLOPT_MAIL_RCPT, recipients);
    curl_easy_setopt(curl, CURLOPT_READFUNCTION, timeline_smtp_read);
    curl_easy_setopt(curl, CURLOPT_READDATA, &body);
    curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    CURLcode code = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, reply);
    curl_slist_free_all(recipients);
    curl_easy_cleanup(curl);
    return (int)code;
}
