import Foundation
import Synchronization

/// Closes connections whose request was answered before its body ended (413 from the head,
/// say) the way RFC 9112 §9.6 asks: the answer is sent and the sending side shut, then what
/// the client is still sending is read and thrown away for a while before the socket closes.
/// Closing at once with unread bytes resets the connection, and a reset makes the client's
/// kernel drop the answer it has not read yet: the client would see "broken pipe" instead of
/// its 413.
///
/// libmicrohttpd closes its own descriptor; this keeps a duplicate of it open, read on one
/// thread of its own with `poll`, and closes it at the client's end of stream, after
/// `byteLimit` bytes, or after `timeLimit`, whichever comes first.
final class LingeringClose: @unchecked Sendable {
    private struct Lingering {
        let descriptor: Int32
        let deadline: ContinuousClock.Instant
        var discarded = 0
    }

    private let byteLimit: Int
    private let timeLimit: Duration
    /// At most this many connections linger at once; others are closed at once.
    private let capacity = 256
    private let lingering = Mutex<(connections: [Lingering], stopped: Bool)>(([], false))
    /// A pipe written to wake the thread when a connection is added or the closer stops;
    /// without it (no descriptor to spare) connections are closed at once.
    private let wake: (read: Int32, write: Int32)?

    init(byteLimit: Int, timeLimit: Duration = .seconds(5)) {
        self.byteLimit = byteLimit
        self.timeLimit = timeLimit
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            wake = nil
            return
        }
        for end in ends {
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        wake = (ends[0], ends[1])
        let thread = Thread { [self] in run() }  // the thread owns the closer until it stops
        thread.name = "timeline-http-linger"
        thread.start()
    }

    /// Lingers on a duplicate of `descriptor` (libmicrohttpd closes its own).
    func add(duplicating descriptor: Int32) {
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { return }
        shutdown(copy, Int32(SHUT_WR))
        let added = lingering.withLock { state -> Bool in
            guard !state.stopped, wake != nil, state.connections.count < capacity else { return false }
            state.connections.append(Lingering(descriptor: copy, deadline: .now + timeLimit))
            return true
        }
        guard added else {
            close(copy)
            return
        }
        signal()
    }

    /// Closes every lingering connection and ends the thread.
    func stop() {
        lingering.withLock { $0.stopped = true }
        signal()
    }

    private func signal() {
        guard let wake else { return }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)  // a full pipe already wakes the thread
    }

    private func run() {
        guard let wake else { return }
        var scratch = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let (connections, stopped) = lingering.withLock { ($0.connections, $0.stopped) }
            if stopped {
                for connection in connections { close(connection.descriptor) }
                close(wake.read)
                close(wake.write)
                return
            }
            var polled =
                [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
                + connections.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
            let timeout = connections.map(\.deadline).min().map { deadline in
                Int32(clamping: Int((ContinuousClock.now.duration(to: deadline) / .milliseconds(1)).rounded(.up)))
            }
            _ = poll(&polled, nfds_t(polled.count), timeout.map { max(0, $0) } ?? -1)
            if polled[0].revents != 0 {
                var drained = [UInt8](repeating: 0, count: 64)
                while read(wake.read, &drained, drained.count) > 0 {}
            }
            // Read what is waiting on each; the ones that ended, overran or timed out are closed.
            var finished: Set<Int32> = []
            var discarded: [Int32: Int] = [:]
            let now = ContinuousClock.now
            for (index, connection) in connections.enumerated() {
                var total = connection.discarded
                var ended = now >= connection.deadline
                if polled[index + 1].revents != 0 {
                    while !ended {
                        let count = recv(connection.descriptor, &scratch, scratch.count, Int32(MSG_DONTWAIT))
                        if count > 0 {
                            total += count
                            ended = total > byteLimit
                        } else {
                            ended = count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                            if !ended { break }
                        }
                    }
                }
                if ended { finished.insert(connection.descriptor) } else { discarded[connection.descriptor] = total }
            }
            lingering.withLock { state in
                // Closed under the lock, after leaving the list: `add` may reuse the number at once.
                state.connections.removeAll { finished.contains($0.descriptor) }
                for descriptor in finished { close(descriptor) }
                for index in state.connections.indices {
                    if let total = discarded[state.connections[index].descriptor] {
                        state.connections[index].discarded = total
                    }
                }
            }
        }
    }
}
