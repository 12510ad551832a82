#include <stddef.h>
#include <string.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/* MHD_start_daemon and MHD_get_connection_info are variadic, which Swift cannot call: these
   fixed-argument wrappers, and the URL unescaper the daemon is started with, are the only C
   of the bridge. */

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

/** Starts a daemon with its own epoll thread pool, suspend/resume and the given limits; with
    `tls_key` and `tls_cert` (PEM), it speaks HTTPS. */
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
                                | (tls ? MHD_USE_TLS : 0),
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
