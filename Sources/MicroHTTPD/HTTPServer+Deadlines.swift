import Foundation
import Synchronization
internal import CMicroHTTPD

// Connection deadlines: every open connection watched (`Watched`), and the reaper that shuts
// one whose head or body arrives too slowly (slowloris).

extension HTTPServer {
    /// Where one connection is, for the head deadline and the body rate.
    struct Watched {
        let socket: Int32
        enum Phase {
            /// Waiting for a head, for at most this long from `since` (nil: no limit).
            case head(within: Duration?)
            case body(received: Int)
            case handled
        }
        var phase: Phase
        var since = ContinuousClock.now
        var cut = false
    }

    /// A connection opened or closed. A new one while stopping is shut at once; libmicrohttpd
    /// calls this for a closed one before it closes the socket, so the reaper (which shuts
    /// sockets under the same lock) never touches a descriptor that has been reused.
    func connectionChanged(_ connection: OpaquePointer, opened: Bool) {
        let address = UInt(bitPattern: connection)
        guard opened else { return _ = watched.withLock { $0.removeValue(forKey: address) } }
        let socket = timeline_mhd_connection_fd(connection)
        guard socket >= 0 else { return }
        let stopping = state.withLock { $0.stopping }
        watched.withLock { watched in
            watched[address] = Watched(socket: socket, phase: .head(within: headAllowance(afterRequest: false)))
            if stopping {
                watched[address]?.cut = true
                Glibc.shutdown(socket, Int32(SHUT_RDWR))
            }
        }
    }

    /// How long a connection may take to send a whole head: `headTimeout`, plus `idleTimeout`
    /// on a keep-alive connection after a request (nil: no limit).
    func headAllowance(afterRequest: Bool) -> Duration? {
        guard options.headTimeout > 0, !(afterRequest && options.idleTimeout == 0) else { return nil }
        return .seconds(options.headTimeout + (afterRequest ? options.idleTimeout : 0))
    }

    /// Moves a connection to `phase` (from now, unless `restart` is false).
    func watch(_ connection: OpaquePointer, _ phase: Watched.Phase, restart: Bool = true) {
        watched.withLock { watched in
            guard watched[UInt(bitPattern: connection)] != nil else { return }
            watched[UInt(bitPattern: connection)]!.phase = phase
            if restart { watched[UInt(bitPattern: connection)]!.since = .now }
        }
    }

    /// Waits half a second, then shuts the sockets of connections past their deadline: a head
    /// not complete within its allowance (`headAllowance`), a body slower than
    /// `minimumBodyRate` after `headTimeout` seconds. libmicrohttpd then sees the connection
    /// end and closes it. False once the server has stopped.
    func reapOnce() -> Bool {
        reaper.lock()
        if !reaperStopped { _ = reaper.wait(until: Date(timeIntervalSinceNow: 0.5)) }
        let stopped = reaperStopped
        reaper.unlock()
        guard !stopped else { return false }
        guard options.headTimeout > 0 else { return true }
        let bodyGrace = Duration.seconds(options.headTimeout), now = ContinuousClock.now
        watched.withLock { watched in
            for (address, connection) in watched where !connection.cut {
                let elapsed = now - connection.since
                switch connection.phase {
                case .handled: continue
                case .head(let within):
                    guard let within, elapsed > within else { continue }
                case .body(let received):
                    guard elapsed > bodyGrace else { continue }
                    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                    guard Double(received) < seconds * Double(options.minimumBodyRate) else { continue }
                }
                watched[address]!.cut = true
                Glibc.shutdown(connection.socket, Int32(SHUT_RDWR))
            }
        }
        return true
    }
}
