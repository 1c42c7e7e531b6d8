//! Stage 2, continued: what kind of number or text a field wants, read
//! from the words of its name and description.

use super::lexicon::{NAMED_THINGS, ORG_WORDS, PERSON_WORDS};
use super::profile::{
    FieldUnit, NamePart, NumberProfile, RangePreference, StringKind, has_word, text_words,
};
use agentcall_english::identifier::counts_working_days;
use agentcall_english::stem::stem;
use agentcall_english::units::{DurationUnit, is_currency_word};

/// Words that make a number field an amount of money.
const MONEY_NOUNS: &[&str] = &[
    "price",
    "cost",
    "fee",
    "rent",
    "copay",
    "deposit",
    "tuition",
    "budget",
    "charge",
    "salary",
    "wage",
    "bid",
    "quote",
    "allowance",
    "reimbursement",
    "payment",
    "owed",
    "fare",
    "tip",
    "rate",
    "bill",
    "prices",
    "costs",
    "fees",
    "charges",
    "deposits",
    "payments",
    "fares",
    "rates",
    "bills",
];

/// What a number field wants, from its name and description words.
pub(super) fn profile_number(name_words: &[String], desc_lower: &str, text: &str) -> NumberProfile {
    let tw: Vec<&str> = text_words(text).collect();
    let any = |ws: &[&str]| ws.iter().any(|w| tw.contains(w));
    let money_explicit = any(&["usd", "$", "cents", "eur", "gbp", "sterling"])
        || tw.iter().any(|w| is_currency_word(w));
    // "Asking price in pounds" is sterling; "Weight in pounds" is weight,
    // even "before the overweight fee applies".
    let weighed = any(&[
        "weight", "weigh", "weighs", "heavy", "heavier", "kg", "lbs", "kilos",
    ]);
    let sterling = any(&["pound", "pounds"]) && any(MONEY_NOUNS) && !weighed;
    let unit = if money_explicit || sterling {
        FieldUnit::Money
    } else if closes_on_a_count(&tw) || closes_on_a_length(&tw) {
        // "Number of letters included in the base price, in letters";
        // "Mileage allowance per day, in miles" (no money, however
        // "allowance" reads).
        FieldUnit::Count
    } else if any(&[
        "pound",
        "pounds",
        "lbs",
        "lb",
        "kg",
        "kilograms",
        "kilos",
        "weight",
        "weigh",
    ]) {
        FieldUnit::Weight
    } else if any(&["percent", "percentage", "%", "apr"]) {
        FieldUnit::Percent
    } else if desc_lower.contains("24-hour")
        || desc_lower.contains("24 hour")
        || desc_lower.contains("clock")
        || desc_lower.contains("hour of")
        || desc_lower.contains("time of day")
        || (has_word(text, "hour")
            && !money_explicit
            && !any(&["per", "before", "after", "many"])
            && any(&[
                "start",
                "begin",
                "arrival",
                "pickup",
                "open",
                "opens",
                "opening",
                "close",
                "closes",
                "closing",
                "departure",
                "depart",
                "leave",
                "leaves",
                "finish",
                "finishes",
                "vacate",
            ]))
    {
        FieldUnit::Clock
    } else if opens_on_a_count(desc_lower) {
        // "Number of boxes needed for a year's supply"
        FieldUnit::Count
    } else if let Some(d) = duration_in(text) {
        FieldUnit::Duration(d)
    } else if any(MONEY_NOUNS) {
        FieldUnit::Money
    } else {
        FieldUnit::Count
    };
    let mut per = None;
    // The name's words, and the description's first ("Monthly rent").
    let opening = desc_lower
        .split(|c: char| !c.is_alphanumeric())
        .find(|w| !w.is_empty())
        .map(str::to_owned);
    for w in name_words.iter().chain(opening.iter()) {
        per = per.or(match w.as_str() {
            "hourly" => Some("hour"),
            "daily" => Some("day"),
            "weekly" => Some("week"),
            "monthly" => Some("month"),
            "nightly" => Some("night"),
            "yearly" | "annual" | "annually" => Some("year"),
            _ => None,
        });
    }
    let toks: Vec<&str> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    for pair in toks.windows(2) {
        if let [a, b] = pair
            && matches!(*a, "per" | "each" | "every")
        {
            per = per.or_else(|| per_canonical(&stem(b)));
        }
    }
    if !matches!(unit, FieldUnit::Money | FieldUnit::Count) {
        per = None;
    }
    // A window on the clock ("Start of the arrival window") opens and
    // closes.
    let clock = unit == FieldUnit::Clock;
    let range = if any(&["upper", "maximum", "max", "highest", "most"])
        || (clock && any(&["end", "latest", "closing", "close", "closes", "finish"]))
    {
        RangePreference::Upper
    } else if any(&["lower", "minimum", "min", "lowest", "least"])
        || (clock && any(&["start", "earliest", "opening", "opens", "beginning"]))
    {
        RangePreference::Lower
    } else {
        RangePreference::Neither
    };
    let hour24 = asks_24_hour(desc_lower);
    // Money in a currency other than pounds: "pounds" there is a weight.
    let in_dollars = desc_lower.contains('$')
        || desc_lower
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| w != "quid" && is_currency_word(w));
    // "Business days needed to print": a week is five of them.
    let working_days = counts_working_days(desc_lower);
    let hours_of_work = any(&["labour", "labor", "work", "working", "billable", "job"]);
    NumberProfile {
        unit,
        per,
        range,
        hour24,
        in_dollars,
        working_days,
        hours_of_work,
    }
}

/// Counted things a description may close on ("in people"): the field is
/// a count, whatever duration word it holds ("… for a day visit").
#[rustfmt::skip]
const COUNTED: &[&str] = &["people", "persons", "guests", "attendees", "units", "items"];

/// Measures other than time that a description may close on ("in
/// kilometres"): the field is no duration, though no count either.
#[rustfmt::skip]
const MEASURES: &[&str] = &[
    "pounds", "dollars", "euros", "cents", "kilograms", "kilos", "kg", "lbs", "grams", "miles",
    "kilometres", "kilometers", "metres", "meters", "centimetres", "centimeters", "millimetres",
    "millimeters", "cm", "mm", "feet", "inches", "litres", "liters", "gallons", "percent",
];

/// The word a field's text closes on after "in" ("… in letters", "… in
/// whole days"), if it does.
fn closing_unit<'w>(words: &[&'w str]) -> Option<&'w str> {
    let n = words.len();
    [n.checked_sub(2), n.checked_sub(3)]
        .into_iter()
        .flatten()
        .find(|&at| words[at] == "in")
        .and_then(|_| words.last().copied())
}

/// Whether the field counts what its text closes on, named once before
/// ("Number of letters included in the base price, in letters"), or
/// counted things ("in people").
fn closes_on_a_count(words: &[&str]) -> bool {
    let Some(last) = closing_unit(words) else {
        return false;
    };
    // "… in letters", right at the close, not "… in the shop".
    let right_at_close = words.len() >= 2 && words[words.len() - 2] == "in";
    let named_before = right_at_close
        && words[..words.len() - 1].contains(&last)
        && DurationUnit::parse(last).is_none()
        && !MEASURES.contains(&last);
    COUNTED.contains(&last) || named_before
}

/// Whether the field's text closes on a length or a volume ("…, in
/// miles", "… in litres"): an amount of it, counted.
fn closes_on_a_length(words: &[&str]) -> bool {
    closing_unit(words).is_some_and(|last| {
        MEASURES.contains(&last)
            && !matches!(
                last,
                "pounds"
                    | "dollars"
                    | "euros"
                    | "cents"
                    | "kilograms"
                    | "kilos"
                    | "kg"
                    | "lbs"
                    | "grams"
                    | "percent"
            )
    })
}

/// Whether a field's lower-case description opens on a count of things
/// that are no money and no time ("Number of follow-up visits included
/// in the price", "Number of boxes needed for a year's supply"): a
/// count, whatever money or time it also names.
fn opens_on_a_count(desc_lower: &str) -> bool {
    let words: Vec<&str> = desc_lower
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .filter(|w| !w.is_empty())
        .collect();
    let counted = match words.as_slice() {
        ["number", "of", rest @ ..] | ["how", "many", rest @ ..] => rest,
        _ => return false,
    };
    counted
        .iter()
        .take_while(|w| {
            !matches!(
                **w,
                "in" | "for" | "of" | "on" | "at" | "that" | "which" | "included"
            )
        })
        .all(|w| {
            !MONEY_NOUNS.contains(w)
                && !matches!(*w, "dollars" | "pounds" | "euros")
                && DurationUnit::parse(w).is_none()
        })
}

/// The duration unit a field's text names, unless only as a rate.
fn duration_in(text: &str) -> Option<DurationUnit> {
    // "day of the week" names a weekday, not a duration.
    let cleaned = text.replace("day of the week", "");
    let ws: Vec<&str> = cleaned
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    // A closing "in people", "in days" names the unit outright; a
    // duration word elsewhere may only describe the thing ("a day visit").
    if let Some(last) = closing_unit(&ws) {
        if let Some(unit) = DurationUnit::parse(last) {
            return Some(unit);
        }
        if COUNTED.contains(&last) || MEASURES.contains(&last) {
            return None;
        }
    }
    // "cups per day" is a rate: the day is not the quantity's unit.
    let units: Vec<(&str, DurationUnit)> = ws
        .iter()
        .enumerate()
        .filter_map(|(i, w)| {
            let rate = i > 0
                && matches!(
                    ws.get(i - 1),
                    Some(&("per" | "a" | "an" | "each" | "every"))
                );
            if rate {
                None
            } else {
                DurationUnit::parse(w).map(|unit| (*w, unit))
            }
        })
        .collect();
    // "min_hours_per_month": "min" is the minimum when another unit of
    // time is named, or when the description says "minimum"
    // ("free_delivery_min_bags").
    // (Not "min_wait", "Minimum wait time": minutes of waiting.)
    let says_minimum = ws.contains(&"minimum")
        && !ws.iter().any(|w| {
            matches!(
                *w,
                "wait" | "time" | "notice" | "stay" | "duration" | "length"
            )
        });
    units
        .iter()
        .find(|(w, _)| !matches!(*w, "min" | "mins") || (units.len() == 1 && !says_minimum))
        .map(|&(_, unit)| unit)
}

/// Canonical rate noun, so "a head" meets "per guest".
pub(super) fn per_canonical(st: &str) -> Option<&'static str> {
    Some(match st {
        "person" | "guest" | "head" | "each" | "peopl" | "attende" | "individu" => "person",
        "visit" | "session" | "cut" | "lesson" | "class" | "appointment" | "appoint" | "mow"
        | "servic" => "visit",
        "hour" | "hr" => "hour",
        "day" => "day",
        "night" => "night",
        "week" => "week",
        "month" => "month",
        "year" | "annum" => "year",
        "stay" => "stay",
        "item" | "piec" | "unit" => "item",
        // Measures: "two fifty a pound", "eighteen ninety-nine a yard".
        "pound" | "lb" => "pound",
        "kilo" | "kg" | "kilogram" => "kilo",
        "yard" => "yard",
        "foot" | "feet" => "foot",
        "metr" | "meter" => "metre",
        "gallon" => "gallon",
        "litr" | "liter" => "litre",
        "mile" => "mile",
        "ton" | "tonn" => "ton",
        _ => return None,
    })
}

/// Whether a lower-case description asks for the 24-hour clock ("hour on a
/// 24-hour clock", "in 24-hour HH:MM format"), not for "hh:mm am/pm".
pub(super) fn asks_24_hour(desc_lower: &str) -> bool {
    ["24-hour", "24 hour", "24h", "hh:mm"]
        .iter()
        .any(|cue| desc_lower.contains(cue))
        && !desc_lower.contains("am/pm")
}

/// Whether "number of …" counts things ("number of guests") rather than
/// naming an identifier of one ("form number of the claim form").
fn counts_things(text: &str) -> bool {
    text.match_indices("number of ").any(|(at, found)| {
        let next = text[at + found.len()..].split_whitespace().next();
        !matches!(
            next,
            Some("the" | "his" | "her" | "their" | "your" | "our" | "its" | "this" | "that")
        )
    })
}

/// What kind of text a string field wants, from its name and description.
pub(super) fn classify_string_field(name_words: &[String], desc: &str, text: &str) -> StringKind {
    if let Some(opts) = parse_options(desc) {
        return StringKind::Options(opts);
    }
    let tw: Vec<&str> = text_words(text).collect();
    let any = |ws: &[&str]| ws.iter().any(|w| tw.contains(w));
    let phrase = |p: &str| text.contains(p);
    // "weekday_closing_time", "Time the cleaner closes on weekdays": a
    // time whose name ends in "time" is one, whatever day it is for.
    let time_head =
        name_words.last().is_some_and(|w| w == "time") || text.trim_start().starts_with("time ");
    if time_head {
        return StringKind::Time {
            hour24: asks_24_hour(&desc.to_lowercase()),
        };
    }
    if phrase("day of the week")
        || any(&["weekday"])
        || (name_words.iter().any(|w| w == "day") && !any(&["date"]))
    {
        return StringKind::Weekday;
    }
    if any(&["date"]) || phrase("month and day") {
        return StringKind::Date;
    }
    if any(&["month"]) {
        return StringKind::Month;
    }
    if any(&["color", "colour"]) {
        return StringKind::Color;
    }
    if name_words.iter().any(|w| w == "time") || text.trim_start().starts_with("time ") {
        return StringKind::Time {
            hour24: asks_24_hour(&desc.to_lowercase()),
        };
    }
    // "Document accepted as proof of address" asks for a document.
    let document = phrase("proof of") || any(&["document", "documents", "documentation"]);
    if any(&["address", "street"]) && !document {
        return StringKind::Address;
    }
    // "account_rep_name", "Full name of the account representative": a
    // name, whatever else the field's words name.
    let desc_lower = desc.to_lowercase();
    let asks_a_name = (name_words.last().is_some_and(|w| w == "name")
        || desc_lower.starts_with("full name")
        || desc_lower.starts_with("name of"))
        && !name_words
            .iter()
            .any(|w| matches!(w.as_str(), "code" | "number" | "pin" | "reference"));
    if !asks_a_name
        && (any(&[
            "code",
            "pin",
            "zip",
            "postcode",
            "digits",
            "ticket",
            "confirmation",
            "reference",
            "tracking",
            "account",
        ]) || ((name_words.iter().any(|w| w == "number")
            || text_words(desc)
                .take(3)
                .any(|w| w.eq_ignore_ascii_case("number")))
            && !counts_things(text)))
    {
        return StringKind::Code;
    }
    if any(&[
        "message",
        "wording",
        "inscription",
        "written",
        "writing",
        "text",
        "says",
        "say",
    ]) {
        return StringKind::Quote;
    }
    let org = any(ORG_WORDS);
    // The named thing must be what the field is about: in its name or at the
    // head of the description ("Town where …", "Oven brand …"), not
    // context ("… asks the firm to call back").
    let desc_head: Vec<String> = text_words(desc).take(4).map(str::to_lowercase).collect();
    let heads_thing = name_words
        .iter()
        .chain(desc_head.iter())
        .any(|w| set!(NAMED_THINGS).contains(w.as_str()));
    let named_thing = heads_thing && !person_markers_only(name_words, text);
    let part = if phrase("first name") || phrase("given name") {
        NamePart::First
    } else if phrase("last name") || phrase("surname") || phrase("family name") {
        NamePart::Last
    } else {
        NamePart::Full
    };
    let role_noun = name_words.iter().any(|w| {
        w.len() > 4
            && (w.ends_with("er") || w.ends_with("or") || w.ends_with("ist") || w.ends_with("ian"))
    });
    // The field's own name decides first ("repair_shop" is a thing even if
    // the description mentions a person); the description may only say
    // "person" when it does not name a thing.
    let name_is_thing = name_words
        .iter()
        .any(|w| set!(ORG_WORDS).contains(w.as_str()));
    let person_markers =
        part != NamePart::Full || phrase("full name") || any(PERSON_WORDS) || role_noun;
    // A thing named in the description ("home insurance") wins over a
    // vague person word unless a role or name part says otherwise.
    let vague = org && !any(PERSON_WORDS) && !role_noun && part == NamePart::Full;
    // A first or last name is always a person's ("plan_contact_name":
    // "First name of the staff member to ask for").
    let person = part != NamePart::Full || (!name_is_thing && person_markers && !vague);
    if named_thing || any(&["name", "called", "who"]) {
        return StringKind::Name {
            person,
            part,
            common: !person && !named_thing,
        };
    }
    StringKind::Generic
}

/// True when the description names a thing only as the place a person
/// works ("the bakery staff member"): the field is still about the person.
fn person_markers_only(name_words: &[String], text: &str) -> bool {
    let name_is_thing = name_words
        .iter()
        .any(|w| NAMED_THINGS.contains(&w.as_str()));
    !name_is_thing && PERSON_WORDS.iter().any(|w| has_word(text, w))
}

/// Options listed in a description: "Main course: beef, trout, or
/// bean stew", "(weekday or weekend)".
fn parse_options(desc: &str) -> Option<Vec<String>> {
    let mut segments: Vec<String> = Vec::new();
    if let Some((_, after)) = desc.split_once(':') {
        segments.push(after.to_string());
    }
    let mut rest = desc;
    while let Some(open) = rest.find('(') {
        let after = &rest[open + 1..];
        let Some(close) = after.find(')') else { break };
        segments.push(after[..close].to_string());
        rest = &after[close + 1..];
    }
    for seg in segments {
        let l = seg.to_lowercase();
        if l.contains("e.g") || l.contains("for example") || !l.contains(" or ") {
            continue;
        }
        let l = l.trim().trim_end_matches(['.', ')']).to_string();
        let opts: Vec<String> = l
            .split(&[',', ';'][..])
            .flat_map(|p| p.split(" or "))
            .map(|p| {
                let p = p.trim();
                let p = p.strip_prefix("or ").unwrap_or(p);
                let p = p.strip_prefix("either ").unwrap_or(p);
                let p = p.strip_prefix("the ").unwrap_or(p);
                let p = p.strip_prefix("a ").unwrap_or(p);
                p.trim().to_string()
            })
            .filter(|p| !p.is_empty())
            .collect();
        let short = opts.iter().all(|o| o.split_whitespace().count() <= 4);
        if opts.len() >= 2 && short {
            return Some(opts);
        }
    }
    None
}
