//! Ambiguous spoken amounts ("sixteen twenty": 16.20 or 1,620): which
//! reading the rest of the call settles.

use super::evidence::Analysis;
use super::number::NumberCandidate;
use agentcall_english::numbers::same_amount;
use agentcall_english::stem::stem;
use agentcall_english::units::Unit;

impl Analysis<'_, '_> {
    /// The reading of `pick`'s amount that the call settles, starting from
    /// `value` (its default reading, or the end of a range the field asks
    /// for).
    pub(super) fn settled_reading(
        &self,
        pick: &NumberCandidate,
        candidates: &[NumberCandidate],
        mut value: f64,
    ) -> f64 {
        // An ambiguous spoken amount settled by another mention ("Sixteen
        // twenty" … "Sixteen hundred twenty"), or by the same amount said
        // plainly earlier in the call ("The website lists it at eleven
        // hundred and fifty." "Yep, eleven-fifty.").
        let said_plainly_before = |x: f64| {
            self.transcript.sentences[..pick.sentence.0]
                .iter()
                .any(|s| {
                    s.numbers.iter().any(|n| {
                        n.alt.is_none()
                            && matches!(n.unit, Unit::Money | Unit::Pound | Unit::None)
                            && same_amount(n.value, x)
                    })
                })
        };
        let mentioned = |x: f64| {
            candidates
                .iter()
                .any(|c| c.sentence != pick.sentence && same_amount(c.value, x))
                || said_plainly_before(x)
        };
        if let Some(alt) = pick.alt
            && mentioned(alt)
            && !mentioned(value)
        {
            value = alt;
        }
        // "That comes to thirty-eight hundred. … so forty-two fifty all
        // in.": an ambiguous amount that revises an earlier one is of its
        // order (4,250, not 42.50), unless another mention settled it.
        if let Some(alt) = pick.alt
            && same_amount(value, pick.value)
            && self.revises(pick.turn)
            && let Some(earlier) = candidates
                .iter()
                .rev()
                .find(|c| c.turn < pick.turn && c.alt.is_none() && c.value > 0.0)
        {
            let distance = |x: f64| (x / earlier.value).ln().abs();
            if x_positive(alt) && distance(alt) < distance(value) {
                value = alt;
            }
        }
        // "Half day's eleven hundred, full day's nineteen fifty.": an
        // ambiguous amount said beside plain ones is of their order, be
        // they this field's or another option's ("Five hours is nineteen
        // fifty. The six-hour is twenty-three hundred.").
        if let Some(alt) = pick.alt
            && same_amount(value, pick.value)
            && x_positive(alt)
        {
            // An echo ("Fourteen fifty for the tank.") is read beside the
            // reply it repeats.
            let said_in = candidates
                .iter()
                .find(|c| !c.echo && c.turn < pick.turn && same_amount(c.value, pick.value))
                .filter(|_| pick.echo)
                .map_or(pick.turn, |c| c.turn);
            let turn = &self.transcript.turns[said_in];
            let siblings: Vec<f64> = turn
                .sentences
                .iter()
                .flat_map(|&s| self.transcript.sentences[s].numbers.iter())
                .filter(|m| {
                    // An amount, not a count ("Boat takes six max").
                    let amount = matches!(m.unit, Unit::Money | Unit::Pound)
                        || (m.unit == Unit::None
                            && !m.written
                            && m.clock.is_none()
                            && m.value >= 100.0);
                    m.alt.is_none() && amount && x_positive(m.value)
                })
                .map(|m| m.value)
                .filter(|&v| !same_amount(v, pick.value))
                .collect();
            let distance = |x: f64| {
                siblings
                    .iter()
                    .map(|s| (x / s).ln().abs())
                    .fold(f64::INFINITY, f64::min)
            };
            if !siblings.is_empty() && distance(alt) + 1.0 < distance(value) {
                value = alt;
            }
        }
        value
    }
}

/// Whether `x` is a positive finite amount (one whose order can be compared).
fn x_positive(x: f64) -> bool {
    x > 0.0 && x.is_finite()
}

/// Whether a rate noun (a stem) is a small measure of goods, priced in
/// dollars and cents ("four sixty-nine a square foot" is 4.69): a square
/// foot, a metre ("met" is "meter"), a letter ("lett"), a litre ("lit" is
/// "liter"), a page ("pag"), a tile ("til"), a mile ("mil"), a portion
/// of food or drink (a slice, a scoop, a pint). Not a yard
/// (of concrete) or a bottle (of champagne), often priced in hundreds.
pub(super) fn is_small_measure(per: &str) -> bool {
    matches!(
        per,
        "squar"
            | "foot"
            | "feet"
            | "metr"
            | "met"
            | "inch"
            | "lett"
            | "word"
            | "kilo"
            | "pound"
            | "litr"
            | "lit"
            | "gallon"
            | "ounc"
            | "sheet"
            | "pag"
            | "copy"
            | "stem"
            | "til"
            | "brick"
            | "mil"
    ) || PORTIONS.iter().any(|portion| stem(portion) == per)
}

/// Whether an ambiguous spoken amount said per `per` (a stem), whose
/// dollars-and-cents reading is `cents`, is dollars and cents: always per
/// a small measure ("four sixty-nine a square foot"), and per a pack of
/// food or goods when the dollars are five or more ("eight fifty a tray",
/// "six fifty a dozen"). Not "each" or "a person": a fare or a laptop at
/// "six forty-nine each" is in hundreds.
pub(super) fn reads_as_cents(per: &str, cents: f64) -> bool {
    is_small_measure(per)
        || (cents >= 5.0
            && matches!(
                per,
                "dozen" | "tray" | "bag" | "box" | "bottl" | "bunch" | "loaf" | "jar" | "pack"
            ))
}

/// Portions of food and drink, priced in dollars and cents ("four
/// seventy-five a slice" is 4.75).
const PORTIONS: &[&str] = &[
    "slice", "cupcake", "cookie", "scoop", "cup", "glass", "bagel", "muffin", "donut", "doughnut",
    "pint",
];
