import Synchronization

/// Counters for `GET /metrics` (Prometheus text format): requests by route and status, and a
/// latency histogram.
final class Metrics: Sendable {
    /// Upper bounds of the latency buckets, in seconds.
    static let buckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    private struct Counts {
        var requests: [String: [Int: Int]] = [:]
        var latency = [Int](repeating: 0, count: Metrics.buckets.count + 1)
        var latencySum = 0.0
        var latencyCount = 0
    }
    private let counts = Mutex(Counts())

    func record(route: String, status: Int, duration: Duration) {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        let bucket = Self.buckets.firstIndex { seconds <= $0 } ?? Self.buckets.count
        counts.withLock { counts in
            counts.requests[route, default: [:]][status, default: 0] += 1
            counts.latency[bucket] += 1
            counts.latencySum += seconds
            counts.latencyCount += 1
        }
    }

    func render(
        logSequence: UInt64, projectionLag: UInt64, openStreams: Int, batchSizes: (batches: UInt64, commands: UInt64)
    ) -> String {
        let counts = counts.withLock { $0 }
        var lines = [
            "# HELP timeline_http_requests_total HTTP requests by route template and status.",
            "# TYPE timeline_http_requests_total counter"
        ]
        for (route, statuses) in counts.requests.sorted(by: { $0.key < $1.key }) {
            for (status, count) in statuses.sorted(by: { $0.key < $1.key }) {
                lines.append(#"timeline_http_requests_total{route="\#(route)",status="\#(status)"} \#(count)"#)
            }
        }
        lines += [
            "# HELP timeline_http_request_duration_seconds Time to answer a request.",
            "# TYPE timeline_http_request_duration_seconds histogram"
        ]
        var cumulative = 0
        for (index, bound) in Self.buckets.enumerated() {
            cumulative += counts.latency[index]
            lines.append(#"timeline_http_request_duration_seconds_bucket{le="\#(bound)"} \#(cumulative)"#)
        }
        lines.append(#"timeline_http_request_duration_seconds_bucket{le="+Inf"} \#(counts.latencyCount)"#)
        lines.append("timeline_http_request_duration_seconds_sum \(counts.latencySum)")
        lines.append("timeline_http_request_duration_seconds_count \(counts.latencyCount)")
        lines += [
            "# HELP timeline_commit_batches_total Group commits (one write transaction and one fsync each).",
            "# TYPE timeline_commit_batches_total counter", "timeline_commit_batches_total \(batchSizes.batches)",
            "# HELP timeline_commit_commands_total Commands committed; divided by the batches, the mean batch size.",
            "# TYPE timeline_commit_commands_total counter", "timeline_commit_commands_total \(batchSizes.commands)",
            "# HELP timeline_log_sequence The last event's sequence number.",
            "# TYPE timeline_log_sequence gauge", "timeline_log_sequence \(logSequence)",
            "# HELP timeline_projection_lag_events Events of the log the read models have not applied yet.",
            "# TYPE timeline_projection_lag_events gauge", "timeline_projection_lag_events \(projectionLag)",
            "# HELP timeline_open_streams Open event streams.",
            "# TYPE timeline_open_streams gauge", "timeline_open_streams \(openStreams)"
        ]
        return lines.joined(separator: "\n") + "\n"
    }
}
