//! Stage 2: what the extractor knows about each field before reading the
//! call: weighted keywords and the kind of value it wants.

use std::ops::Index;

use super::lexicon::{
    GENERIC_NAME_WORDS, LIGHT_NAME_WORDS, STOPWORDS, WEEKDAY_WORDS, stemmed_synonyms,
};
use super::options::FieldOptions;
use super::transcript::Transcript;
use super::value_kind::{classify_string_field, profile_number};
use agentcall::domain::{FieldDefinition, FieldType};
use agentcall_english::identifier::split_identifier;
use agentcall_english::numbers::find_numbers;
use agentcall_english::stem::{stem, stems_match};
use agentcall_english::tokens::{Token, TokenKind, tokenize};
use agentcall_english::units::DurationUnit;

/// One stemmed keyword of a field and how much it says about the field.
#[derive(Debug, Clone)]
pub(super) struct Keyword {
    pub(super) stem: String,
    pub(super) weight: f64,
    /// Added as a synonym, not written in the field's name or description.
    synonym: bool,
}

/// The unit a number field is asked in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FieldUnit {
    Money,
    Weight,
    Duration(DurationUnit),
    Percent,
    Clock,
    Count,
}

/// Which end of a stated range the field wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RangePreference {
    Upper,
    Lower,
    Neither,
}

/// What a number field wants: unit, rate noun, range end, 24-hour clock.
#[derive(Debug, Clone)]
pub(super) struct NumberProfile {
    pub(super) unit: FieldUnit,
    pub(super) per: Option<&'static str>,
    pub(super) range: RangePreference,
    pub(super) hour24: bool,
    /// An amount in dollars or euros: "a hundred-pound stock" is a weight.
    pub(super) in_dollars: bool,
    /// Days counted on working days only: a week is five.
    pub(super) working_days: bool,
    /// Hours of work ("labour time, in hours"): a day of work is not
    /// twenty-four of them.
    pub(super) hours_of_work: bool,
}

/// Which part of a person's name the field wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NamePart {
    First,
    Last,
    Full,
}

/// What kind of text a string field wants.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum StringKind {
    Options(Vec<String>),
    Weekday,
    Month,
    Date,
    Color,
    /// `hour24`: the description asks for the 24-hour clock ("16:15").
    Time {
        hour24: bool,
    },
    Address,
    Code,
    Quote,
    /// `common`: a named thing that may be a common noun ("Name of the
    /// treatment" → "deep conditioning").
    Name {
        person: bool,
        part: NamePart,
        common: bool,
    },
    Generic,
}

/// The kind of value a field wants, by its declared type.
#[derive(Debug, Clone)]
pub(super) enum ValueKind {
    Boolean,
    Number(NumberProfile),
    Text(StringKind),
}

/// Position of a field in the caller's field list (and in the profiles
/// built from it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct FieldIndex(pub(super) usize);

impl<'a> Index<FieldIndex> for [FieldProfile<'a>] {
    type Output = FieldProfile<'a>;

    fn index(&self, field: FieldIndex) -> &FieldProfile<'a> {
        &self[field.0]
    }
}

/// What the extractor knows about one field before reading the call.
#[derive(Debug)]
pub(super) struct FieldProfile<'a> {
    pub(super) definition: &'a FieldDefinition,
    pub(super) keywords: Vec<Keyword>,
    /// Numeric tokens of the name ("october_12_available" → "12"): a turn
    /// must mention them to be about this field.
    pub(super) required: Vec<String>,
    /// Amounts the description states as a condition of the field ("for a
    /// household of two", "a 12-month permit"), with the words on either
    /// side: said the same way in the call, they are what the field is
    /// said of, never its value.
    pub(super) described_amounts: Vec<DescribedAmount>,
    /// Stems of the head nouns of the name (for "X filling" patterns).
    pub(super) heads: Vec<String>,
    /// Stems of what the description sets apart ("before any holiday
    /// surcharge"): an amount of one of those is not this field's.
    pub(super) excluded: Vec<String>,
    /// The options it names ("weekend", "Saturday", "four hours").
    pub(super) options: FieldOptions,
    pub(super) kind: ValueKind,
}

impl FieldProfile<'_> {
    /// The field's description, lower case ("" when it has none).
    pub(super) fn description_lower(&self) -> String {
        self.definition
            .description
            .as_deref()
            .unwrap_or_default()
            .to_lowercase()
    }

    /// What a price field is priced per, as a stem: the noun after "per",
    /// "a" or "an" in its description ("Price of a dozen eggs", "price
    /// per gallon"); `None` for other fields.
    pub(super) fn priced_per(&self) -> Option<String> {
        let ValueKind::Number(number_profile) = &self.kind else {
            return None;
        };
        if number_profile.unit != FieldUnit::Money {
            return None;
        }
        let description = self.description_lower();
        let words: Vec<&str> = text_words(&description).collect();
        words
            .windows(2)
            .find(|pair| matches!(pair[0], "per" | "a" | "an"))
            .map(|pair| stem(pair[1]))
    }

    /// Whether `st` matches any keyword (synonyms included).
    pub(super) fn is_keyword(&self, st: &str) -> bool {
        !st.is_empty() && self.keywords.iter().any(|k| stems_match(&k.stem, st))
    }

    /// A word written in the field's name or description (not a synonym).
    pub(super) fn is_own_word(&self, st: &str) -> bool {
        !st.is_empty()
            && self
                .keywords
                .iter()
                .any(|k| !k.synonym && stems_match(&k.stem, st))
    }

    /// A keyword that identifies this field rather than its surroundings.
    pub(super) fn is_strong_keyword(&self, st: &str) -> bool {
        !st.is_empty()
            && self
                .keywords
                .iter()
                .any(|k| k.weight >= 1.0 && stems_match(&k.stem, st))
    }
}

/// Profiles every field, damping words that several fields share.
pub(super) fn build_profiles<'a>(
    fields: &'a [FieldDefinition],
    transcript: &Transcript,
) -> Vec<FieldProfile<'a>> {
    let mut profiles: Vec<FieldProfile<'a>> = fields
        .iter()
        .map(|definition| build_profile(definition, transcript))
        .collect();
    // A word other fields also use tells them apart less: damp it by how
    // strongly the others use it.
    let raw: Vec<Vec<Keyword>> = profiles
        .iter()
        .map(|profile| profile.keywords.clone())
        .collect();
    for (field, profile) in profiles.iter_mut().enumerate() {
        for keyword in &mut profile.keywords {
            let others: f64 = raw
                .iter()
                .enumerate()
                .filter(|(other, _)| *other != field)
                .filter_map(|(_, other_keywords)| {
                    other_keywords
                        .iter()
                        .filter(|o| stems_match(&o.stem, &keyword.stem))
                        .map(|o| o.weight)
                        .reduce(f64::max)
                })
                .sum();
            keyword.weight /= 1.0 + 0.25 * others;
        }
    }
    profiles
}

/// Adds a keyword, or raises the weight of one already there.
fn push_keyword(keywords: &mut Vec<Keyword>, word_stem: String, weight: f64) {
    if word_stem.is_empty() {
        return;
    }
    if let Some(k) = keywords.iter_mut().find(|k| k.stem == word_stem) {
        k.weight = k.weight.max(weight);
    } else {
        keywords.push(Keyword {
            stem: word_stem,
            weight,
            synonym: false,
        });
    }
}

/// Removes "(e.g. …)" / "(for example …)" asides, which describe format,
/// not topic.
fn strip_examples(desc: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    let mut buf = String::new();
    for c in desc.chars() {
        match c {
            '(' => {
                depth += 1;
                if depth == 1 {
                    buf.clear();
                    continue;
                }
            }
            ')' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    let l = buf.to_lowercase();
                    let example = l.starts_with("e.g")
                        || l.starts_with("eg ")
                        || l.contains("for example")
                        || l.starts_with("such as");
                    if !example {
                        out.push(' ');
                        out.push_str(&buf);
                        out.push(' ');
                    }
                    continue;
                }
            }
            _ => {}
        }
        if depth > 0 {
            buf.push(c);
        } else {
            out.push(c);
        }
    }
    out
}

/// Keywords and value kind of one field, from its name and description.
fn build_profile<'a>(definition: &'a FieldDefinition, transcript: &Transcript) -> FieldProfile<'a> {
    let name_words = split_identifier(&definition.name);
    let desc = definition.description.clone().unwrap_or_default();
    let desc_lower = desc.to_lowercase();
    let desc_clean = strip_examples(&desc);
    let mut keywords: Vec<Keyword> = Vec::new();
    let mut required = Vec::new();
    let standalone_digits: Vec<String> = definition
        .name
        .split(|c: char| !c.is_alphanumeric())
        .filter(|seg| !seg.is_empty() && seg.chars().all(|c| c.is_ascii_digit()))
        .map(str::to_string)
        .collect();
    for w in &name_words {
        if w.chars().all(|c| c.is_ascii_digit()) {
            // "october_12_available": the 12 names the thing asked about; a
            // digit glued to a word ("last4") only describes the format.
            if standalone_digits.contains(w) {
                required.push(w.trim_start_matches('0').to_string());
                push_keyword(&mut keywords, w.clone(), 2.0);
            } else {
                push_keyword(&mut keywords, w.clone(), 0.5);
            }
            continue;
        }
        if set!(STOPWORDS).contains(w.as_str()) {
            continue;
        }
        let weight = if GENERIC_NAME_WORDS.contains(&w.as_str()) {
            0.5
        } else if LIGHT_NAME_WORDS.contains(&w.as_str()) {
            1.0
        } else {
            2.0
        };
        push_keyword(&mut keywords, stem(w), weight);
    }
    let desc_toks = tokenize(&desc_clean);
    let parts = description_parts(&desc_toks);
    let is_word = |t: &Token| {
        t.is_word() && !set!(STOPWORDS).contains(t.lower.as_str()) && t.lower.chars().count() >= 2
    };
    let excluded: Vec<String> = desc_toks
        .iter()
        .zip(&parts)
        .filter(|(t, part)| **part == DescriptionPart::SetApart && is_word(t))
        .map(|(t, _)| stem(&t.lower))
        .collect();
    for (t, _) in desc_toks
        .iter()
        .zip(&parts)
        .filter(|(t, part)| **part == DescriptionPart::Field && is_word(t))
    {
        let st = stem(&t.lower);
        // Description words the objective already uses are call context, not topic.
        let in_objective = transcript
            .objective_stems
            .iter()
            .any(|o| stems_match(o, &st));
        let weight = if in_objective { 0.5 } else { 1.0 };
        push_keyword(&mut keywords, st, weight);
    }
    // Synonyms at half weight.
    let base: Vec<Keyword> = keywords.clone();
    for keyword in &base {
        for group in stemmed_synonyms() {
            if group.iter().any(|s| s == &keyword.stem) {
                for synonym in group.iter().cloned() {
                    if !keywords.iter().any(|x| x.stem == synonym) {
                        keywords.push(Keyword {
                            stem: synonym,
                            weight: keyword.weight * 0.5,
                            synonym: true,
                        });
                    }
                }
            }
        }
    }
    let text = format!("{} {}", name_words.join(" "), desc_lower);
    let kind = match definition.field_type {
        FieldType::Boolean => ValueKind::Boolean,
        FieldType::Number => ValueKind::Number(profile_number(&name_words, &desc_lower, &text)),
        FieldType::String => ValueKind::Text(classify_string_field(&name_words, &desc, &text)),
    };
    // Question words that ask for this kind of value.
    // A yes/no field tied to a time ("this week", "today", "on Friday") is
    // what a "when" question asks about.
    let timed = [
        "week",
        "today",
        "tomorrow",
        "tonight",
        "weekend",
        "month",
        "morning",
        "afternoon",
        "evening",
        "time",
    ]
    .iter()
    .any(|w| has_word(&text, w))
        || WEEKDAY_WORDS.iter().any(|w| has_word(&text, w));
    if matches!(kind, ValueKind::Boolean) && timed {
        push_keyword(&mut keywords, stem("when"), 1.0);
    }
    if matches!(kind, ValueKind::Text(StringKind::Name { person: true, .. })) {
        push_keyword(&mut keywords, stem("who"), 1.5);
    }
    let extra: &[&str] = match &kind {
        ValueKind::Text(
            StringKind::Weekday | StringKind::Month | StringKind::Date | StringKind::Time { .. },
        ) => &["when"],
        ValueKind::Number(NumberProfile {
            unit: FieldUnit::Clock,
            ..
        }) => &["time", "when"],
        _ => &[],
    };
    for e in extra {
        push_keyword(&mut keywords, stem(e), 1.0);
    }
    // "How much …?" asks for an amount, "How many …?" for a count.
    match &kind {
        ValueKind::Number(NumberProfile {
            unit: FieldUnit::Money,
            ..
        }) => push_keyword(&mut keywords, stem("much"), 1.5),
        ValueKind::Number(NumberProfile {
            unit: FieldUnit::Count,
            per,
            ..
        }) => {
            push_keyword(&mut keywords, stem("many"), 1.5);
            // "How often …?" asks for a count per day/week.
            if per.is_some() {
                push_keyword(&mut keywords, stem("often"), 1.5);
            }
        }
        ValueKind::Number(NumberProfile {
            unit: FieldUnit::Duration(_),
            ..
        }) => {
            push_keyword(&mut keywords, stem("long"), 1.5);
            push_keyword(&mut keywords, stem("when"), 1.0);
        }
        _ => {}
    }
    let heads = name_words
        .iter()
        .filter(|w| {
            !GENERIC_NAME_WORDS.contains(&w.as_str()) && !set!(STOPWORDS).contains(w.as_str())
        })
        .filter(|w| !w.chars().all(|c| c.is_ascii_digit()))
        .map(|w| stem(w))
        .collect();
    let described_amounts = find_numbers(&desc_toks)
        .iter()
        .map(|m| DescribedAmount {
            value: m.value,
            before: word_before(&desc_toks, m.start),
            after: word_after(&desc_toks, m.end),
        })
        .collect();
    FieldProfile {
        definition,
        keywords,
        required,
        described_amounts,
        heads,
        excluded,
        options: FieldOptions::of(definition),
        kind,
    }
}

/// An amount written in a field's description, with the words right
/// before and after it (lowercase).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct DescribedAmount {
    pub(super) value: f64,
    pub(super) before: Option<String>,
    pub(super) after: Option<String>,
}

impl DescribedAmount {
    /// Whether `mention` in `tokens` says this amount the way the
    /// description does: the same amount with the same word before or
    /// after it ("a household of two").
    pub(super) fn said_as_in(
        &self,
        tokens: &[Token],
        start: usize,
        end: usize,
        value: f64,
    ) -> bool {
        agentcall_english::numbers::same_amount(self.value, value)
            && ((self.before.is_some() && self.before == word_before(tokens, start))
                || (self.after.is_some() && self.after == word_after(tokens, end)))
    }
}

/// The word right before token `start`, if the token there is a word.
pub(super) fn word_before(tokens: &[Token], start: usize) -> Option<String> {
    let token = tokens.get(start.checked_sub(1)?)?;
    token.is_word().then(|| token.lower.clone())
}

/// The word at token `end` (right after a mention), if it is a word.
pub(super) fn word_after(tokens: &[Token], end: usize) -> Option<String> {
    let token = tokens.get(end)?;
    token.is_word().then(|| token.lower.clone())
}

/// What a description word says of the field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DescriptionPart {
    /// Describes the field.
    Field,
    /// Opens a set-apart clause ("before any", "excluding").
    Cue,
    /// Names what the value is not ("holiday surcharge" in "before any
    /// holiday surcharge"), to the end of its clause.
    SetApart,
}

/// What is added on top of a price ("before tax and fees").
const ADD_ONS: &[&str] = &[
    "tax",
    "taxes",
    "fee",
    "fees",
    "tip",
    "tips",
    "gratuity",
    "surcharge",
    "surcharges",
    "vat",
];

/// Each description token's part: words after "before any", "separate
/// from", "excluding" and the like, to the end of their clause, name what
/// the value is not, so they are no keywords.
fn description_parts(tokens: &[Token]) -> Vec<DescriptionPart> {
    const CUES: &[&[&str]] = &[
        &["excluding"],
        &["except"],
        &["besides"],
        &["without"],
        &["before", "any"],
        &["separate", "from"],
        &["apart", "from"],
        &["aside", "from"],
        &["other", "than"],
        &["not", "including"],
        &["not", "counting"],
        &["rather", "than"],
        &["instead", "of"],
    ];
    let mut parts = vec![DescriptionPart::Field; tokens.len()];
    let mut inside = false;
    let mut position = 0;
    while position < tokens.len() {
        if matches!(
            tokens[position].kind,
            TokenKind::Punct(',' | ';' | '.' | ')' | '(' | '—')
        ) {
            inside = false;
            position += 1;
            continue;
        }
        let cue = CUES.iter().find(|cue| {
            cue.iter().enumerate().all(|(offset, word)| {
                tokens
                    .get(position + offset)
                    .is_some_and(|t| t.is_word() && t.lower == *word)
            })
        });
        if let Some(cue) = cue {
            for part in &mut parts[position..position + cue.len()] {
                *part = DescriptionPart::Cue;
            }
            inside = true;
            position += cue.len();
            continue;
        }
        // "Group rate per night before tax and fees": what is added on
        // top of the value is set apart too.
        let before_add_ons = tokens[position].is_word()
            && tokens[position].lower == "before"
            && tokens
                .get(position + 1)
                .is_some_and(|next| next.is_word() && ADD_ONS.contains(&next.lower.as_str()));
        if before_add_ons {
            parts[position] = DescriptionPart::Cue;
            inside = true;
            position += 1;
            continue;
        }
        if inside {
            parts[position] = DescriptionPart::SetApart;
        }
        position += 1;
    }
    parts
}

/// Whether `w` is one of the words of `text`.
pub(super) fn has_word(text: &str, w: &str) -> bool {
    text_words(text).any(|x| x == w)
}

/// The words of a name or description (keeping `$` and `%`).
pub(super) fn text_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric() && c != '$' && c != '%')
        .filter(|x| !x.is_empty())
}
