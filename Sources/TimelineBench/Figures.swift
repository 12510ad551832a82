import Foundation

/// One measured figure, beside its baseline when it has one.
public struct Figure: Sendable {
    /// What is measured.
    public var name: String
    /// The measurement.
    public var value: Double
    /// Its unit (`ms`, `events/s`, …).
    public var unit: String
    /// The baseline's measurement in the same run, if there is one.
    public var baseline: Double?
    /// What the baseline is.
    public var baselineName: String?
    /// What the figure should reach (shown in the table), e.g. "≥ 0.5×".
    public var target: String?
    /// The same measurement of the SQLite peer design (`SQLitePeer`), in the same run.
    public var sqlite: Double?
    /// This figure over SQLite's: below 1, Timeline is faster (for latencies).
    public var vsSQLite: Double? { sqlite.map { $0 > 0 ? value / $0 : 0 } }
    /// value / baseline, for throughputs; baseline / value reads as "fraction of raw speed".
    public var ratio: Double? { baseline.map { $0 > 0 ? value / $0 : 0 } }

}

extension Figure: Encodable {
    private enum CodingKeys: String, CodingKey {
        case name, value, unit, baseline, ratio, baselineName, target, sqlite
        case vsSQLite = "vs_sqlite"
    }

    /// `{name, value, unit}`, with `baseline` and `ratio`, `baselineName`, `target`, and
    /// `sqlite` and `vs_sqlite` when the figure has them.
    public func encode(to encoder: any Encoder) throws {
        var out = encoder.container(keyedBy: CodingKeys.self)
        try out.encode(name, forKey: .name)
        try out.encode(value, forKey: .value)
        try out.encode(unit, forKey: .unit)
        if let baseline {
            try out.encode(baseline, forKey: .baseline)
            try out.encode(ratio ?? 0, forKey: .ratio)
        }
        try out.encodeIfPresent(baselineName, forKey: .baselineName)
        try out.encodeIfPresent(target, forKey: .target)
        if let sqlite {
            try out.encode(sqlite, forKey: .sqlite)
            try out.encode(vsSQLite ?? 0, forKey: .vsSQLite)
        }
    }
}

/// Latency samples in seconds.
struct Samples {
    private(set) var values: [Double] = []
    mutating func add(_ seconds: Double) { values.append(seconds) }

    func percentile(_ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }
}

/// Monotonic time in seconds.
@inline(__always)
func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

/// Times `body` once, in seconds.
@inline(__always)
func time(_ body: () throws -> Void) rethrows -> Double {
    let start = now()
    try body()
    return now() - start
}

/// A field of `/proc/self/status` in bytes: `VmHWM` is the peak resident set (mapped database
/// pages included), `RssAnon` the process's own memory now.
func procStatus(_ field: String) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
        let digits = line.split(separator: " ").compactMap { Int($0) }
        return (digits.first ?? 0) * 1024
    }
    return 0
}

func peakRSS() -> Int { procStatus("VmHWM") }

/// A small seeded generator (SplitMix64), so every run builds the same network (and every
/// random test repeats exactly).
public struct SplitMix: RandomNumberGenerator, Sendable {
    var state: UInt64
    init(state: UInt64) { self.state = state }
    /// A generator starting from `seed`.
    public init(seed: UInt64) { state = seed }
    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
