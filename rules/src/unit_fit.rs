//! How well a mentioned figure fits a number field: its unit (money,
//! weight, a length in some unit of time, a count) and the rate it is
//! said per ("a night", "each").

use super::profile::{FieldProfile, FieldUnit, NumberProfile};
use super::value_kind::per_canonical;
use agentcall_english::numbers::NumberMention;
use agentcall_english::units::{DurationUnit, Unit};

/// How well a mention's unit fits the field: `(score, conversion factor)`,
/// or `None` when incompatible.
pub(super) fn unit_fit(number_profile: &NumberProfile, m: &NumberMention) -> Option<(f64, f64)> {
    let clocky = m.unit == Unit::Clock || (m.clock.is_some() && m.after_time_prep);
    if clocky {
        return None;
    }
    let bare = m.unit == Unit::None;
    if m.ordinal && number_profile.unit != FieldUnit::Count {
        return None;
    }
    match number_profile.unit {
        FieldUnit::Money => match m.unit {
            Unit::Money => Some((1.0, 1.0)),
            // Pounds are sterling unless the field is in dollars.
            Unit::Pound if !number_profile.in_dollars => Some((1.0, 1.0)),
            // "at ten" is a time, not a price; "puts you at three
            // seventy-five" is no time.
            Unit::None if !m.after_time_prep || m.written || cannot_be_a_time(m) => {
                Some((0.0, 1.0))
            }
            _ => None,
        },
        FieldUnit::Weight => match m.unit {
            Unit::Pound | Unit::Weight => Some((1.0, 1.0)),
            Unit::None => Some((0.0, 1.0)),
            _ => None,
        },
        // A share said bare is one plain number of at most the whole
        // ("nineteen fifty" is a price, no deposit percentage).
        FieldUnit::Percent => match m.unit {
            Unit::Percent => Some((1.0, 1.0)),
            Unit::None if m.value <= 100.0 && m.alt.is_none() => Some((0.0, 1.0)),
            _ => None,
        },
        FieldUnit::Duration(want) => match &m.unit {
            Unit::Duration(DurationUnit::Week)
                if want == DurationUnit::Day && number_profile.working_days =>
            {
                Some((1.0, 5.0))
            }
            // "A two-day job" is no forty-eight hours of labour.
            Unit::Duration(DurationUnit::Day)
                if want == DurationUnit::Hour && number_profile.hours_of_work =>
            {
                None
            }
            Unit::Duration(have) => have.factor_to(want).map(|k| (1.0, k)),
            // "So seven thirty" is a time of day, not a length.
            Unit::None if m.clock.is_some() && m.alt.is_some() => None,
            Unit::None => Some((0.0, 1.0)),
            _ => None,
        },
        FieldUnit::Count => match &m.unit {
            Unit::None => Some((0.0, 1.0)),
            Unit::Count(_) => Some((0.0, 1.0)),
            _ if bare => Some((0.0, 1.0)),
            _ => None,
        },
        FieldUnit::Clock => None,
    }
}

/// Whether mention `m` cannot be a time of day: no clock reading and more
/// than 24 ("at three seventy-five").
fn cannot_be_a_time(m: &NumberMention) -> bool {
    m.clock.is_none() && m.value > 24.0
}

/// Whether a count field counts people ("group size, in people",
/// "number of guests").
pub(super) fn counts_people(profile: &FieldProfile) -> bool {
    [
        "peopl", "person", "guest", "attende", "group", "child", "kid", "player", "visitor",
    ]
    .iter()
    .any(|st| profile.is_own_word(st))
}

/// How well a mention's rate noun ("a night") fits the field's rate.
pub(super) fn per_fit(number_profile: &NumberProfile, m: &NumberMention) -> f64 {
    let have = m.per.as_deref().and_then(per_canonical);
    match (number_profile.per, have, m.per.is_some()) {
        (Some(want), Some(h), _) if want == h => 1.0,
        (Some(_), _, true) => -1.0,
        (None, _, true) => -0.5,
        _ => 0.0,
    }
}

/// Whether `m` is a rate over another period of time than the field's
/// ("three hundred a week" for a monthly rent): no value of it.
pub(super) fn another_period(number_profile: &NumberProfile, m: &NumberMention) -> bool {
    const PERIODS: &[&str] = &["hour", "day", "night", "week", "month", "year"];
    // A night's stay is a day's ("ninety-five a night" for a daily rate).
    let day = |period: &'static str| if period == "night" { "day" } else { period };
    let have = m.per.as_deref().and_then(per_canonical).map(day);
    match (number_profile.per.map(day), have) {
        (Some(want), Some(have)) => {
            want != have && PERIODS.contains(&want) && PERIODS.contains(&have)
        }
        _ => false,
    }
}
