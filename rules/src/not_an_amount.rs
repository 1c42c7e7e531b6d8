//! Numbers that are no amount of a field, whatever its question: they name
//! a thing or a time of day, or qualify some other figure ("a CX-5", "we
//! close at nine", "free on orders over five hundred").

use super::profile::{FieldProfile, FieldUnit, NumberProfile, RangePreference};
use super::transcript::{Sentence, clause_text};
use agentcall_english::numbers::NumberMention;
use agentcall_english::units::{DurationUnit, Unit};
use agentcall_english::vocabulary;

/// Whether mention `m` of `sent` can be no value of the field: any of the
/// tests below.
pub(super) fn names_no_amount(
    profile: &FieldProfile,
    number_profile: &NumberProfile,
    sent: &Sentence,
    m: &NumberMention,
) -> bool {
    let said = Said { sent, m };
    let unit = number_profile.unit;
    said.is_model_code()
        || said.is_model_name()
        || said.is_lone_one(unit)
        || said.is_clock_time(unit)
        || said.is_opening_time(unit)
        || said.is_date()
        || said.is_lead_time(profile, unit)
        || said.is_set_aside()
        || (number_profile.range == RangePreference::Neither && said.is_threshold())
        || said.is_rate_for_length(profile, unit)
        || said.is_each_for_total(profile)
        || said.is_in_condition()
        || (matches!(unit, FieldUnit::Money | FieldUnit::Duration(_)) && said.is_quantity_of())
}

/// A number mention in its sentence.
struct Said<'a> {
    sent: &'a Sentence,
    m: &'a NumberMention,
}

/// Words after which "over" or "under" sets a condition ("orders over
/// fifty", "for groups under ten"), not an estimate ("just over fifty").
const CONDITION_WORDS: &[&str] = &[
    "orders",
    "order",
    "anything",
    "everything",
    "groups",
    "group",
    "bookings",
    "booking",
    "parties",
    "party",
    "purchases",
    "spend",
    "spends",
    "spending",
    "spent",
    "jobs",
    "trips",
    "kids",
    "children",
    "people",
    "guests",
    "aged",
    "ages",
    "loads",
    "items",
    "bills",
    "for",
    "on",
    "with",
    "of",
    "if",
];

impl Said<'_> {
    /// The lower-case word `back` tokens before the mention.
    fn before(&self, back: usize) -> Option<&str> {
        self.sent.lower_before(self.m.start, back)
    }

    /// The lower-case word `ahead` tokens after the mention (0: right after).
    fn after(&self, ahead: usize) -> Option<&str> {
        self.sent
            .tokens
            .get(self.m.end + ahead)
            .map(|t| t.lower.as_str())
    }

    fn bare(&self) -> bool {
        self.m.unit == Unit::None
    }

    /// "a CX-5", "the F-150": capitals, a hyphen, digits.
    fn is_model_code(&self) -> bool {
        let start = self.m.start;
        self.m.written
            && self.bare()
            && start
                .checked_sub(1)
                .and_then(|i| self.sent.tokens.get(i))
                .is_some_and(|t| t.is_punct('-') && !t.space_before)
            && start
                .checked_sub(2)
                .and_then(|i| self.sent.tokens.get(i))
                .is_some_and(|t| {
                    t.is_word()
                        && t.text.chars().count() <= 4
                        && t.text.chars().all(|c| c.is_ascii_uppercase())
                })
    }

    /// "He should have one on the van": a bare "one" is a thing, not a
    /// price or a percentage (those say "one pound", "one percent", "one
    /// fifty").
    fn is_lone_one(&self, unit: FieldUnit) -> bool {
        matches!(unit, FieldUnit::Money | FieldUnit::Percent)
            && !self.m.written
            && self.bare()
            && self.m.value == 1.0
            && self.m.end == self.m.start + 1
    }

    /// "For a 13, the screen is …", "on a 14 Pro": a model named by its
    /// number after a preposition (not "she's a 7", a size).
    fn is_model_name(&self) -> bool {
        self.m.written
            && self.bare()
            && self.m.per.is_none()
            && matches!(self.before(1), Some("a" | "an"))
            && matches!(self.before(2), Some("for" | "on" | "with" | "from" | "of"))
            && self
                .sent
                .tokens
                .get(self.m.end)
                .is_some_and(|t| t.is_punct(',') || (t.is_word() && t.is_capitalized()))
    }

    /// "We close at nine", "open until six": a bare time of day, for a
    /// length, count or percentage ("at" only for a length: "we're at
    /// eight" is a count). Not a limit or a level ("we cap it at six").
    fn is_clock_time(&self, unit: FieldUnit) -> bool {
        let preposition = match unit {
            FieldUnit::Duration(_) => matches!(
                self.before(1),
                Some("at" | "until" | "till" | "til" | "by" | "before" | "after")
            ),
            FieldUnit::Count | FieldUnit::Percent => matches!(
                self.before(1),
                Some("until" | "till" | "til" | "by" | "before" | "after")
            ),
            _ => false,
        };
        let limit = [2, 3]
            .into_iter()
            .filter_map(|back| self.before(back))
            .any(|w| {
                matches!(
                    w,
                    "cap"
                        | "caps"
                        | "capped"
                        | "max"
                        | "maxes"
                        | "maxed"
                        | "limit"
                        | "limited"
                        | "set"
                        | "start"
                        | "starts"
                        | "starting"
                        | "priced"
                        | "stands"
                        | "sits"
                        | "holds"
                        | "keep"
                        | "keeps"
                        | "tops"
                        | "top"
                        | "out"
                )
            });
        preposition
            && self.bare()
            && !self.m.ordinal
            && self.m.per.is_none()
            && (1.0..=12.0).contains(&self.m.value)
            && !limit
    }

    /// "Open ten till four": the opening hour of a span of the clock, for a
    /// length, count or percentage (not "twelve till Easter").
    fn is_opening_time(&self, unit: FieldUnit) -> bool {
        matches!(
            unit,
            FieldUnit::Duration(_) | FieldUnit::Count | FieldUnit::Percent
        ) && self.bare()
            && matches!(self.after(0), Some("till" | "til" | "until"))
            && self
                .sent
                .numbers
                .iter()
                .any(|other| other.start == self.m.end + 1)
    }

    /// "Wednesday the 11th", "the 3rd of May": a date, not a count.
    fn is_date(&self) -> bool {
        let tokens = &self.sent.tokens;
        let near_a_day = (1..=3)
            .filter_map(|back| self.m.start.checked_sub(back).and_then(|i| tokens.get(i)))
            .any(|t| vocabulary::weekday(&t.lower).is_some() || vocabulary::month(t).is_some());
        let of_a_month = self.after(0) == Some("of")
            && tokens
                .get(self.m.end + 1)
                .is_some_and(|t| vocabulary::month(t).is_some());
        self.m.ordinal && (near_a_day || of_a_month)
    }

    /// "He'll call thirty minutes ahead": a lead time, for a length that
    /// is not one ("hours' notice", "cancel up to 48 hours before").
    fn is_lead_time(&self, profile: &FieldProfile, unit: FieldUnit) -> bool {
        let ahead = matches!(self.after(0), Some("ahead" | "beforehand" | "notice"))
            || (self.after(0) == Some("in") && self.after(1) == Some("advance"));
        let asks_for_one = [
            "notic", "advanc", "ahead", "befor", "prior", "lead", "cancel",
        ]
        .iter()
        .any(|st| profile.is_keyword(st));
        matches!(unit, FieldUnit::Duration(_)) && ahead && !asks_for_one
    }

    /// "Twenty-three, as long as they've held a licence two years": a
    /// figure in a clause that sets a condition on the answer.
    fn is_in_condition(&self) -> bool {
        let clause = self.sent.clause_at(self.m.start);
        let text = clause_text(self.sent, clause);
        [
            "as long as ",
            "so long as ",
            "provided ",
            "providing ",
            "unless ",
        ]
        .iter()
        .any(|opening| text.starts_with(opening))
    }

    /// "Sixty of the white folding chairs", "six of the tablets": how
    /// many, not a price or a length.
    fn is_quantity_of(&self) -> bool {
        self.bare()
            && self.after(0) == Some("of")
            && matches!(
                self.after(1),
                Some("the" | "those" | "these" | "them" | "our")
            )
    }

    /// "Seventy-five an hour, not sixty-five": the figure set aside.
    fn is_set_aside(&self) -> bool {
        self.before(1) == Some("not") && self.before(2) == Some(",")
    }

    /// "Free on orders over five hundred", "for groups of more than ten":
    /// the threshold of a condition, not the amount asked for (while "just
    /// over two hundred" is an estimate of it).
    fn is_threshold(&self) -> bool {
        let condition = |back: usize| {
            self.before(back)
                .is_some_and(|w| CONDITION_WORDS.contains(&w))
        };
        let over = matches!(self.before(1), Some("over" | "above" | "under" | "below"));
        let than = self.before(1) == Some("than")
            && matches!(self.before(2), Some("more" | "less" | "fewer"));
        (over && condition(2)) || (than && condition(3))
    }

    /// "Seventy-five an hour" for a number of hours: a rate in the field's
    /// own unit, or per something the field does not count by ("forty-five
    /// a lesson" still answers "minutes per lesson").
    fn is_rate_for_length(&self, profile: &FieldProfile, unit: FieldUnit) -> bool {
        let FieldUnit::Duration(want) = unit else {
            return false;
        };
        let Some(per) = self.m.per.as_deref() else {
            return false;
        };
        matches!(self.m.unit, Unit::None | Unit::Money)
            && (DurationUnit::parse(per) == Some(want) || !profile.is_keyword(per))
    }

    /// "Twenty sessions, an hour and a half each" for a total: a figure for
    /// each one.
    fn is_each_for_total(&self, profile: &FieldProfile) -> bool {
        profile.is_own_word("total") && self.m.per.as_deref() == Some("each")
    }
}
