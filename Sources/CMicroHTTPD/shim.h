#include <stddef.h>
#include <string.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <microhttpd.h>

/* MHD_start_daemon and MHD_get_connection_info are variadic, which Swift cannot call: these
   fixed-argument wrappers, and the URL unescaper the daemon is started with, are the only C
   of the bridge, with the few epoll and eventfd calls of the WebSocket reactor (epoll_event is
   a packed struct around a union, which is clearer handled here). */

/** Percent-decodes a URL's path or argument in place as libmicrohttpd does, except one that
    holds an encoded NUL (`%00`), which is left as it came: decoded, the NUL would end the C
    string the handler gets, so `/v1/posts/ID%00junk` would name post ID. Left encoded, it names
    nothing (no identifier holds `%`). */
static inline size_t timeline_mhd_unescape(void *cls, struct MHD_Connection *connection, char *value) {
    (void)cls; (void)connection;
    for (const char *at = value; (at = strchr(at, '%')) != NULL; at++) {
        if (at[1] == '0' && at[2] == '0') return strlen(value);
    }
    return MHD_http_unescape(value);
}

/** Starts a daemon with its own epoll thread pool, suspend/resume and the given limits, on
    `address` (IPv4 or IPv6); with `tls_key` and `tls_cert` (PEM), it speaks HTTPS. */
static inline struct MHD_Daemon *timeline_mhd_start(const struct sockaddr *address,
                                                    unsigned int threads,
                                                    unsigned int connection_limit,
                                                    unsigned int per_ip_limit,
                                                    unsigned int timeout_seconds,
                                                    size_t connection_memory,
                                                    MHD_AccessHandlerCallback handler, void *handler_cls,
                                                    MHD_RequestCompletedCallback completed, void *completed_cls,
                                                    MHD_NotifyConnectionCallback notify, void *notify_cls,
                                                    const char *tls_key, const char *tls_cert) {
    int tls = tls_key && tls_cert;
    /* The TLS options, or none: one option array, so one call starts either daemon. */
    struct MHD_OptionItem extra[] = {
        { tls ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, 0, (void *)tls_key },
        { MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)tls_cert },
        { MHD_OPTION_END, 0, NULL },
    };
    return MHD_start_daemon(MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ITC | MHD_ALLOW_SUSPEND_RESUME | MHD_ALLOW_UPGRADE
                                | (tls ? MHD_USE_TLS : 0)
                                /* Without the flag libmicrohttpd opens an IPv4 socket and fails to
                                   bind it to an IPv6 address (`--listen [::1]:PORT`). */
                                | (address->sa_family == AF_INET6 ? MHD_USE_IPv6 : 0),
                            0, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_SOCK_ADDR, address,
                            MHD_OPTION_THREAD_POOL_SIZE, threads,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                            MHD_OPTION_NOTIFY_CONNECTION, notify, notify_cls,
                            MHD_OPTION_UNESCAPE_CALLBACK, timeline_mhd_unescape, NULL,
                            MHD_OPTION_ARRAY, extra,
                            MHD_OPTION_END);
}

/** Closes a connection a WebSocket was given (MHD_upgrade_action is variadic). */
static inline void timeline_mhd_upgrade_close(struct MHD_UpgradeResponseHandle *handle) {
    MHD_upgrade_action(handle, MHD_UPGRADE_ACTION_CLOSE);
}

/** The peer's address of a connection (NULL if unknown). */
static inline const struct sockaddr *timeline_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? info->client_addr : NULL;
}

/** The socket of a connection (-1 if unknown). */
static inline int timeline_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

/** The port the daemon listens on (for port 0: the one the kernel chose). */
static inline uint16_t timeline_mhd_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

/** Whether a connection notification is the opening one (Swift does not see the enum's cases). */
static inline int timeline_mhd_is_opening(enum MHD_ConnectionNotificationCode code) {
    return code == MHD_CONNECTION_NOTIFY_STARTED;
}

/** A new epoll set, closed on exec (-1 on failure). */
static inline int timeline_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

/** Adds (`op` 0), changes (1) or removes (2) `fd` in `epoll`: level-triggered, reported as `id`,
    for reading and, with `writable`, for writing. 0, or -1 with errno. */
static inline int timeline_epoll_set(int epoll, int op, int fd, int writable, uint64_t id) {
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = EPOLLIN | EPOLLRDHUP | (writable ? EPOLLOUT : 0);
    event.data.u64 = id;
    int operation = op == 0 ? EPOLL_CTL_ADD : op == 1 ? EPOLL_CTL_MOD : EPOLL_CTL_DEL;
    return epoll_ctl(epoll, operation, fd, &event);
}

/** Waits up to `timeout_ms` (-1: no limit) for at most `max` (<= 64) ready descriptors: their ids
    and what they are ready for (bit 0: to read, or hung up; bit 1: to write). How many (0 on
    timeout, -1 with errno). */
static inline int timeline_epoll_wait(int epoll, uint64_t *ids, uint32_t *ready, int max, int timeout_ms) {
    struct epoll_event events[64];
    int count = epoll_wait(epoll, events, max < 64 ? max : 64, timeout_ms);
    for (int i = 0; i < count; i++) {
        ids[i] = events[i].data.u64;
        uint32_t bits = events[i].events;
        ready[i] = ((bits & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) ? 1u : 0u)
                 | ((bits & (EPOLLOUT | EPOLLHUP | EPOLLERR)) ? 2u : 0u);
    }
    return count;
}

/** A non-blocking eventfd, closed on exec (-1 on failure): what wakes a reactor's thread. */
static inline int timeline_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

/** Makes `fd` (an eventfd) readable. */
static inline void timeline_eventfd_signal(int fd) {
    uint64_t one = 1;
    ssize_t written = write(fd, &one, sizeof one);
    (void)written;  /* only fails when the counter is full, and then it is readable anyway */
}

/** Makes `fd` (an eventfd) unreadable again. */
static inline void timeline_eventfd_clear(int fd) {
    uint64_t value;
    ssize_t count = read(fd, &value, sizeof value);
    (void)count;
}

/** Fixes `fd`'s kernel send buffer at `bytes` (doubled by the kernel) instead of letting it grow
    to megabytes for a client that does not read. */
static inline void timeline_socket_limit_send_buffer(int fd, int bytes) {
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
}

/** The bytes `fd`'s kernel still holds for the peer (sent and not acknowledged, or unsent). */
static inline int timeline_socket_unsent(int fd) {
    int count = 0;
    return ioctl(fd, TIOCOUTQ, &count) == 0 ? count : 0;
}

/** Makes closing `fd` a reset that drops what is unsent (SO_LINGER 0): for a client that does
    not read, whose unsent bytes would otherwise keep the connection in the kernel. */
static inline void timeline_socket_abort_on_close(int fd) {
    struct linger linger = { 1, 0 };
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, sizeof linger);
}
