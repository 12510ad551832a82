import Foundation
import JSONModel

/// Where a photo was taken: a point on the Earth and, optionally, the place's name. Personal
/// data: recorded sealed with the author's key (`PostPlaced`), like a caption.
public struct Place: Equatable, Sendable, Codable {
    /// Degrees north, −90…90.
    public var latitude: Double
    /// Degrees east, −180…180.
    public var longitude: Double
    /// The place's name (≤ 100 characters, trimmed), if any.
    public var name: String?

    /// A place at `latitude`, `longitude` (degrees), optionally named.
    public init(latitude: Double, longitude: Double, name: String? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.name = name
    }

    /// The JSON form, `{latitude, longitude, name?}` (in commands, events and posts).
    package var jsonValue: JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("latitude", .double(latitude)), ("longitude", .double(longitude))
        ]
        if let name { members.append(("name", .string(name))) }
        return .object(members)
    }

    /// The mean Earth radius the distances use, in kilometres (IUGG).
    public static let earthRadiusKm = 6371.0088

    /// The great-circle (haversine) distance to `other`, in kilometres.
    public func distance(to other: Place) -> Double {
        let radians = Double.pi / 180
        let φ1 = latitude * radians, φ2 = other.latitude * radians
        let dφ = (other.latitude - latitude) * radians, dλ = (other.longitude - longitude) * radians
        let h = sin(dφ / 2) * sin(dφ / 2) + cos(φ1) * cos(φ2) * sin(dλ / 2) * sin(dλ / 2)
        return 2 * Self.earthRadiusKm * asin(min(1, h.squareRoot()))
    }
}

extension Place: SchemaDescribed {
    /// `schemas/envelope.schema.json#/$defs/place` (`definition`), where commands and results refer to it.
    public static var jsonSchema: JSONSchema { .place }
    /// A place.
    public static var schemaPlaceholder: Place { Place(latitude: 0, longitude: 0) }

    /// The schema of a place, `schemas/envelope.schema.json#/$defs/place`.
    public static let definition = JSONSchema.object(
        [
            ("latitude", JSONSchema.number.with("minimum", -90).with("maximum", 90).described("Degrees north.")),
            ("longitude", JSONSchema.number.with("minimum", -180).with("maximum", 180).described("Degrees east.")),
            (
                "name",
                JSONSchema.string.with("maxLength", 100)
                    .described("The place's name (at most 100 characters, trimmed).")
            )
        ], required: ["latitude", "longitude"]
    ).described(
        "Where a photo was taken: a point on the Earth (WGS 84 degrees) and, optionally, the place's name.")
}
