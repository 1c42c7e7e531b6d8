//! A phone number's time zones, from libphonenumber's time-zone map
//! (`data/timezones/map_data.txt`, compiled in by the build script).

use std::sync::OnceLock;

use jiff::tz::TimeZone;

mod tables {
    // ZONE_NAMES: IANA names, sorted. ZONE_LISTS: indexes into ZONE_NAMES.
    // PREFIXES: (prefix length, prefix digits, first index into ZONE_LISTS,
    // how many), sorted by length then digits.
    include!(concat!(env!("OUT_DIR"), "/timezones.rs"));
}

/// The longest prefix in the map, in digits.
fn longest_prefix() -> usize {
    tables::PREFIXES
        .last()
        .map_or(0, |&(length, ..)| usize::from(length))
}

/// The IANA time zones of an E.164 number (`+` and digits), as
/// libphonenumber gives them: the entry of the longest prefix of the
/// number's digits in the map, which falls back to the whole country when
/// no area prefix is listed (`+1` lists every NANP zone). Empty for a
/// number the map has no entry for (non-geographic codes such as `+800`) or
/// that is not `+` and digits.
///
/// Like libphonenumber's `getTimeZonesForGeographicalNumber`, this does not
/// check that the number is valid; the guardrails do that first.
///
/// ```
/// use agentcall::schedule::time_zones;
///
/// let names: Vec<&str> = time_zones("+12125550123").map(|zone| zone.name()).collect();
/// assert_eq!(names, ["America/New_York"]);
/// // Idaho's 208 spans two zones.
/// assert_eq!(time_zones("+12085550123").count(), 2);
/// assert_eq!(time_zones("+80012345678").count(), 0);
/// ```
pub fn time_zones(e164: &str) -> impl ExactSizeIterator<Item = Zone> + Clone + use<> {
    let zones: &'static [u16] = lookup(e164).unwrap_or(&[]);
    zones.iter().map(|&index| Zone { index })
}

fn lookup(e164: &str) -> Option<&'static [u16]> {
    let digits = e164.strip_prefix('+')?.as_bytes();
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut value = 0u64;
    let mut prefixes = [0u64; 16];
    for (length, digit) in digits.iter().take(15).enumerate() {
        value = value * 10 + u64::from(digit - b'0');
        prefixes[length + 1] = value;
    }
    let longest = longest_prefix().min(digits.len().min(15));
    (1..=longest).rev().find_map(|length| {
        let key = (length as u8, prefixes[length]);
        let found = tables::PREFIXES
            .binary_search_by(|&(l, p, ..)| (l, p).cmp(&key))
            .ok()?;
        let (_, _, start, count) = tables::PREFIXES[found];
        let start = usize::from(start);
        tables::ZONE_LISTS.get(start..start + usize::from(count))
    })
}

/// One IANA time zone of the map.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Zone {
    index: u16,
}

impl Zone {
    /// The zone's IANA name, e.g. `America/New_York`.
    pub fn name(self) -> &'static str {
        tables::ZONE_NAMES[usize::from(self.index)]
    }

    /// The zone's rules from the bundled time-zone database, or `None` if
    /// the database does not know the name (a test checks it knows every
    /// zone of the map). Loaded once per zone.
    pub fn time_zone(self) -> Option<&'static TimeZone> {
        static LOADED: OnceLock<Vec<OnceLock<Option<TimeZone>>>> = OnceLock::new();
        let loaded = LOADED.get_or_init(|| {
            (0..tables::ZONE_NAMES.len())
                .map(|_| OnceLock::new())
                .collect()
        });
        loaded
            .get(usize::from(self.index))?
            .get_or_init(|| TimeZone::get(self.name()).ok())
            .as_ref()
    }

    /// Every zone of the map.
    pub fn all() -> impl Iterator<Item = Zone> {
        (0..tables::ZONE_NAMES.len() as u16).map(|index| Zone { index })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_database_knows_every_zone_of_the_map() {
        let unknown: Vec<&str> = Zone::all()
            .filter(|zone| zone.time_zone().is_none())
            .map(Zone::name)
            .collect();
        assert!(unknown.is_empty(), "{unknown:?}");
    }

    #[test]
    fn the_longest_listed_prefix_wins_and_the_country_entry_is_the_fallback() {
        let names = |number: &str| -> Vec<&str> { time_zones(number).map(Zone::name).collect() };
        assert_eq!(names("+12125550123"), ["America/New_York"]);
        assert_eq!(names("+442079460000"), ["Europe/London"]);
        // 1-900 is not geographic: the whole of +1.
        assert_eq!(names("+19005550123").len(), 42);
        for malformed in ["", "+", "12125550123", "+1212555012a", "+ 1"] {
            assert_eq!(time_zones(malformed).count(), 0, "{malformed:?}");
        }
    }
}
