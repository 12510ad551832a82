import Foundation
import TimelineDomain

/// The cells of the place index: bands of 0.5° of latitude, each cut into as many cells of
/// longitude as keep a cell at least 0.5° of latitude wide (≈ 55.6 km) along the band's
/// poleward edge — 720 at the equator, fewer towards the poles, one at each pole. A circle of
/// up to 50 km then touches at most three bands and a few cells in each.
///
/// `cells(around:radiusKm:)` is conservative: it names every cell any point within the radius
/// can be in (with a margin against rounding), and the query then keeps only the candidates
/// whose true great-circle distance is within the radius. So the index only has to never miss.
enum PlaceGrid {
    /// Degrees of latitude per band.
    static let bandDegrees = 0.5
    static let bandCount = Int(180 / bandDegrees)
    /// Added to every extent, in degrees (≈ 1 km): cells are only candidates, so a wider search
    /// costs a little and misses nothing that rounding could have put at the edge.
    static let margin = 0.01

    /// The band of a latitude (−90 is band 0, 90 is in the last band).
    static func band(_ latitude: Double) -> Int {
        min(bandCount - 1, max(0, Int(((latitude + 90) / bandDegrees).rounded(.down))))
    }

    /// How many cells of longitude band `band` has.
    static func cellCount(_ band: Int) -> Int {
        let south = -90 + Double(band) * bandDegrees, north = south + bandDegrees
        let poleward = max(abs(south), abs(north))
        return max(1, Int((360 / bandDegrees * cos(poleward * .pi / 180)).rounded(.down)))
    }

    /// The cell of longitude `longitude` in a band of `count` cells (180 is −180: one meridian).
    static func cell(_ longitude: Double, count: Int) -> Int {
        let x = Int(((longitude + 180) / 360 * Double(count)).rounded(.down))
        return ((x % count) + count) % count
    }

    /// The cell's name, as the index keys it.
    static func name(band: Int, cell: Int) -> String { "\(band).\(cell)" }

    /// The cell a place is indexed under.
    static func cell(of place: Place) -> String {
        let band = band(place.latitude)
        return name(band: band, cell: cell(place.longitude, count: cellCount(band)))
    }

    /// Every cell a point within `radiusKm` of `centre` can be in.
    static func cells(around centre: Place, radiusKm: Double) -> [String] {
        let angle = radiusKm / Place.earthRadiusKm  // radians
        let reach = angle * 180 / .pi + margin  // degrees of latitude
        let south = centre.latitude - reach, north = centre.latitude + reach
        // The longitudes the circle spans (Matuschek's bounding box of a spherical cap), or all
        // of them when it reaches a pole.
        var halfWidth = 180.0
        if south > -90, north < 90 {
            let ratio = sin(angle) / cos(centre.latitude * .pi / 180)
            if ratio < 1 { halfWidth = min(180, asin(ratio) * 180 / .pi + margin) }
        }
        var names: [String] = []
        for band in band(max(-90, south))...band(min(90, north)) {
            let count = cellCount(band)
            let first = ((centre.longitude - halfWidth + 180) / 360 * Double(count)).rounded(.down)
            let last = ((centre.longitude + halfWidth + 180) / 360 * Double(count)).rounded(.down)
            if halfWidth >= 180 || last - first + 1 >= Double(count) {
                names += (0..<count).map { name(band: band, cell: $0) }
            } else {
                names += (Int(first)...Int(last)).map { name(band: band, cell: (($0 % count) + count) % count) }
            }
        }
        return names
    }
}
