#include <string.h>
#include <stdint.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>
#include <curl/curl.h>

/* libcurl's options are set through the variadic curl_easy_setopt, which Swift cannot call: this
   bridge makes one HTTPS POST on a reusable handle (its connections and HTTP/2 sessions are kept
   between calls) and returns libcurl's code; the status lands in *status. */

static size_t timeline_curl_discard(char *data, size_t size, size_t count, void *context) {
    (void)data; (void)context;
    return size * count;
}

/** Whether `address` is loopback, private, link-local or otherwise not on the public Internet. */
static inline int timeline_address_is_private(const struct sockaddr *address) {
    if (address->sa_family == AF_INET) {
        uint32_t ip = ntohl(((const struct sockaddr_in *)address)->sin_addr.s_addr);
        return (ip >> 24) == 10 || (ip >> 24) == 127 || (ip >> 24) == 0 || (ip >> 16) == 0xA9FE || (ip >> 20) == 0xAC1
            || (ip >> 16) == 0xC0A8 || (ip >> 22) == (0x64400000u >> 22) || (ip >> 28) >= 0xE;
    }
    if (address->sa_family == AF_INET6) {
        const unsigned char *b = ((const struct sockaddr_in6 *)address)->sin6_addr.s6_addr;
        static const unsigned char loopback[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
        static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
        if (memcmp(b, loopback, 16) == 0 || (b[0] & 0xFE) == 0xFC || (b[0] == 0xFE && (b[1] & 0xC0) == 0x80) || b[0] == 0xFF) return 1;
        if (memcmp(b, mapped, 12) == 0) {
            struct sockaddr_in v4 = {0};
            v4.sin_family = AF_INET;
            memcpy(&v4.sin_addr, b + 12, 4);
            return timeline_address_is_private((const struct sockaddr *)&v4);
        }
        return 0;
    }
    return 1;
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
