//! Alternatives of one kind ("weekday" and "weekend", "adult" and
//! "child", "standard" and "rush"): when a field names one, a value said
//! for another is not its value ("Weekdays are forty" for a weekend rate).
//! Opposite ways to ask one yes/no question are in
//! [`asks_the_other_side`].

use chrono::Weekday;

use super::days::{day_mentions, field_day};
use super::lexicon::STOPWORDS;
use super::profile::FieldProfile;
use super::transcript::Sentence;
use agentcall::domain::FieldDefinition;
use agentcall_english::identifier::field_words;
use agentcall_english::number_words::classify_number_word;
use agentcall_english::numbers::{NumberMention, find_numbers, same_amount};
use agentcall_english::opposites::asks_the_other_side;
use agentcall_english::stem::stem;
use agentcall_english::tokens::tokenize;
use agentcall_english::units::Unit;
use agentcall_english::vocabulary;

/// The index in [`CONTRASTS`] of weekdays and weekends, which a field
/// about one day leaves to its day.
const WEEKDAYS_AND_WEEKENDS: usize = 0;

/// Each set lists its classes; each class the words that name it.
#[rustfmt::skip]
const CONTRASTS: &[&[&[&str]]] = &[
    &[
        &["weekday", "weekdays", "weeknight", "weeknights", "monday", "mondays", "tuesday",
          "tuesdays", "wednesday", "wednesdays", "thursday", "thursdays", "friday", "fridays"],
        &["weekend", "weekends", "saturday", "saturdays", "sunday", "sundays"],
    ],
    &[
        &["adult", "adults", "grown-up", "grown-ups"],
        &["child", "children", "kid", "kids", "junior", "juniors", "youth", "under-12s"],
        &["senior", "seniors", "pensioner", "pensioners"],
        &["student", "students"],
    ],
    &[
        &["standard", "regular", "normal", "economy"],
        &["rush", "express", "expedited", "priority", "urgent", "same-day"],
    ],
    &[&["indoor"], &["outdoor"]],
    &[&["upload", "uploads"], &["download", "downloads"]],
    // Periods as adjectives only: "day of the week" names no weekly
    // option.
    &[
        &["weekly"],
        &["biweekly", "bi-weekly", "fortnightly", "every-other-week"],
        &["monthly"],
        &["quarterly"],
        &["annual", "annually", "yearly"],
    ],
    &[&["holiday", "holidays"], &["normal", "regular", "usual", "standard", "everyday"]],
    &[&["full"], &["partial"]],
    &[&["peak", "high-season"], &["off-peak", "low-season"]],
    &[&["manual"], &["automatic"]],
    &[&["matte"], &["polished", "gloss", "glossy"]],
    &[&["member", "members"], &["non-member", "non-members", "nonmember", "nonmembers"]],
    &[
        &["single", "solo", "individual"],
        &["shared", "sharing", "double", "twin", "tandem", "tandems"],
    ],
    &[
        &["private", "one-to-one", "one-to-ones", "one-on-one", "one-on-ones", "1-to-1"],
        &["shared", "sharing", "group", "communal", "squad", "squads"],
    ],
    &[&["half-day"], &["full-day"]],
    &[
        &["small", "smaller", "smallest"],
        &["medium"],
        &["large", "larger", "largest", "big", "bigger", "biggest"],
    ],
    &[
        &["daytime", "daytimes", "morning", "mornings", "afternoon", "afternoons"],
        &["evening", "evenings", "night-time", "nighttime"],
    ],
    &[
        &["single", "one-off", "drop-in"],
        &["block", "blocks", "bundle", "bundles"],
    ],
    &[&["internal", "in-house"], &["external", "outside"]],
    &[
        &["in-person", "face-to-face"],
        &["video", "virtual", "remote", "zoom"],
    ],
    &[&["bridal", "bride", "bride's"], &["bridesmaid", "bridesmaids", "bridesmaids'"]],
    &[&["solo"], &["group", "groups", "pack"]],
    &[&["domestic"], &["international", "overseas"]],
    &[&["residential", "domestic"], &["commercial", "business"]],
    &[&["one-way"], &["return", "round-trip"]],
    &[
        &["studio", "studios", "one-bed", "one-beds", "one-bedroom", "one-bedroomed"],
        &["two-bed", "two-beds", "two-bedroom", "two-bedroomed"],
        &["three-bed", "three-beds", "three-bedroom", "three-bedroomed"],
        &["four-bed", "four-beds", "four-bedroom", "four-bedroomed"],
    ],
];

/// The options a field names, read once from its definition: the classes
/// of each contrast set it speaks of, the one day of the week it is about,
/// and the sizes it names ("four hours").
#[derive(Debug, Clone, Default)]
pub(super) struct FieldOptions {
    /// `(set, class)` pairs of [`CONTRASTS`]. A field about one day of the
    /// week leaves weekdays and weekends to `day`: "Sundays" is not a
    /// Saturday's price.
    classes: Vec<(usize, usize)>,
    day: Option<Weekday>,
    /// "four hours" in "Price for four hours of booth hire", "two-hour"
    /// in "a two-hour session": a value and the unit it counts.
    qualifiers: Vec<(f64, Unit)>,
    /// The heads of the field's compounds that name an option ("flue" of
    /// "single-flue"): a compound of another option with the same head
    /// ("double-flue") names that option.
    heads: Vec<String>,
    /// A capitalised word qualifying the noun after it ("French bustle"):
    /// the qualifier in lower case and the noun's stem. The same noun
    /// qualified otherwise ("American bustle") is another option.
    named: Option<(String, String)>,
}

impl FieldOptions {
    /// The options `definition` names.
    pub(super) fn of(definition: &FieldDefinition) -> Self {
        let day = field_day(definition);
        // "children's tickets" names children.
        let words: Vec<String> = field_words(definition)
            .into_iter()
            .map(|w| {
                let w = w.strip_suffix("'s").unwrap_or(&w);
                w.trim_end_matches('\'').to_string()
            })
            .collect();
        // "one full day" names the full-day option, as a reply does.
        let words: Vec<String> = words
            .iter()
            .enumerate()
            .map(
                |(at, w)| match (w.as_str(), words.get(at + 1).map(String::as_str)) {
                    ("half" | "full", Some("day" | "days")) => format!("{w}-day"),
                    _ => w.clone(),
                },
            )
            .collect();
        // "single-flue" names the single option; "flue" is the head that
        // another option's compound must share ("double-flue"); so does
        // the word after an option ("large dog" → "large-dog suites").
        let heads: Vec<String> = words
            .iter()
            .filter_map(|w| w.split_once('-'))
            .filter(|(first, _)| names_an_option(first))
            .map(|(_, head)| head.to_string())
            .chain(
                words
                    .windows(2)
                    .filter(|pair| !pair[0].contains('-') && names_an_option(&pair[0]))
                    .map(|pair| pair[1].clone()),
            )
            .collect();
        // "(not in a block)", "excluding weekends": an option the field is
        // said not to be.
        let denied = |at: usize| {
            words[at.saturating_sub(3)..at]
                .iter()
                .any(|w| matches!(w.as_str(), "not" | "excluding" | "except" | "without"))
        };
        let words: Vec<String> = words
            .iter()
            .enumerate()
            .filter(|&(at, _)| !denied(at))
            .map(|(_, w)| option_word(w, &heads))
            .collect();
        let mut classes = Vec::new();
        for (set, names_of_class) in CONTRASTS.iter().enumerate() {
            if day.is_some() && set == WEEKDAYS_AND_WEEKENDS {
                continue;
            }
            for (class, names) in names_of_class.iter().enumerate() {
                if words.iter().any(|w| names.contains(&w.as_str()))
                    && !classes.contains(&(set, class))
                {
                    classes.push((set, class));
                }
            }
        }
        // "Price of one eight-inch trophy": "one" there is an article, not
        // a digit of "eighteen".
        let words = field_words(definition);
        let qualifier_words: Vec<&str> = words
            .iter()
            .enumerate()
            .filter(|(at, word)| {
                !(word.as_str() == "one"
                    && words
                        .get(at + 1)
                        .and_then(|next| next.split('-').next())
                        .is_some_and(|next| classify_number_word(next).is_some()))
            })
            .map(|(_, word)| word.as_str())
            .collect();
        let qualifiers = find_numbers(&tokenize(&qualifier_words.join(" ")))
            .into_iter()
            .filter(|m| matches!(m.unit, Unit::Duration(_) | Unit::Count(_)))
            .map(|m| (m.value, m.unit))
            .collect();
        Self {
            classes,
            day,
            qualifiers,
            heads,
            named: named_qualifier(definition),
        }
    }

    fn is_empty(&self) -> bool {
        self.classes.is_empty()
            && self.day.is_none()
            && self.qualifiers.is_empty()
            && self.named.is_none()
    }
}

/// The first capitalised word of `definition`'s description (not its
/// first word, nor a day) that qualifies a lower-case noun after it:
/// ("french", "bustl") for "Price of adding a French bustle".
fn named_qualifier(definition: &FieldDefinition) -> Option<(String, String)> {
    let tokens = tokenize(definition.description.as_deref()?);
    tokens.windows(2).skip(1).find_map(|pair| {
        let [word, noun] = pair else { return None };
        (word.is_word()
            && word.is_capitalized()
            && vocabulary::weekday(&word.lower).is_none()
            && noun.is_word()
            && !noun.is_capitalized()
            && !STOPWORDS.contains(&noun.lower.as_str()))
        .then(|| (word.lower.clone(), stem(&noun.lower)))
    })
}

/// The class `word` names in each contrast set of `wanted` (the
/// field's `(set, class)` pairs) that has it: `(set, class)` pairs.
fn classes_of<'w>(
    wanted: &'w [(usize, usize)],
    word: &'w str,
) -> impl Iterator<Item = (usize, usize)> + 'w {
    wanted.iter().filter_map(move |&(set, _)| {
        CONTRASTS[set]
            .iter()
            .position(|names| names.contains(&word))
            .map(|class| (set, class))
    })
}

/// The words of `sentence` with their token positions, hyphenated
/// compounds joined ("off-peak", "non-members", "half-day"), so that a
/// compound is never read as its last part.
fn option_words(sentence: &Sentence, heads: &[String]) -> Vec<(usize, String)> {
    let tokens = &sentence.tokens;
    let mut words = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if !tokens[i].is_word() {
            i += 1;
            continue;
        }
        let mut word = tokens[i].lower.clone();
        let mut end = i + 1;
        // "every other week" names the every-other-week option.
        let next_words = |n: usize| {
            (1..=n)
                .map(|k| {
                    tokens
                        .get(i + k)
                        .filter(|t| t.is_word())
                        .map(|t| t.lower.as_str())
                })
                .collect::<Option<Vec<&str>>>()
        };
        if word == "every" && next_words(2).as_deref() == Some(&["other", "week"][..]) {
            words.push((i, "every-other-week".to_string()));
            i += 3;
            continue;
        }
        // "for the full day" names the full-day option.
        if matches!(word.as_str(), "half" | "full")
            && tokens.get(i + 1).is_some_and(|t| {
                t.is_word() && matches!(t.lower.as_str(), "day" | "days" | "day's")
            })
        {
            words.push((i, format!("{word}-day")));
            i += 2;
            continue;
        }
        while let (Some(dash), Some(next)) = (tokens.get(end), tokens.get(end + 1)) {
            if dash.is_punct('-') && !dash.space_before && !next.space_before && next.is_word() {
                word.push('-');
                word.push_str(&next.lower);
                end += 2;
            } else {
                break;
            }
        }
        words.push((i, option_word(&word, heads)));
        i = end;
    }
    words
}

/// The option a word names: a compound that is no option of its own and
/// ends on one of `heads` names the option of its first part
/// ("double-flue" is "double" for a field about the single-flue sweep,
/// never "double-checked"); "off-peak" and "half-day" stay whole.
fn option_word(word: &str, heads: &[String]) -> String {
    // "Upload's around a hundred" names the upload option.
    let word = word.strip_suffix("'s").unwrap_or(word);
    match word.split_once('-') {
        Some((first, head))
            if !names_an_option(word)
                && names_an_option(first)
                && heads.iter().any(|h| h == head) =>
        {
            first.to_string()
        }
        _ => word.to_string(),
    }
}

/// Whether `word` names a class of a contrast set.
fn names_an_option(word: &str) -> bool {
    CONTRASTS
        .iter()
        .any(|set| set.iter().any(|class| class.contains(&word)))
}

/// The option a value at token `at` of `sentence` is said for, as it
/// bears on the field: `Some(false)` when the nearest option word of a set
/// the field names is another class than the field's ("Weekdays are
/// forty" for a weekend rate), `Some(true)` when it is the field's own,
/// `None` when the sentence names no option of those sets. Nearest by
/// token distance; on a tie the word before the value wins.
pub(super) fn said_for_own_option(
    profile: &FieldProfile,
    sentence: &Sentence,
    at: usize,
) -> Option<bool> {
    let options = &profile.options;
    if options.is_empty() {
        return None;
    }
    let wanted = &options.classes;
    let mut nearest: Option<(usize, bool, bool)> = None;
    // Every option word with its position, so that words naming one thing
    // together ("weekday evenings") are read together.
    let mut named: Vec<(usize, bool)> = Vec::new();
    // "A day pass is thirty-five, or there's a three-day bundle for
    // ninety": an option named after a break speaks of what follows it.
    let broken = |from: usize, to: usize| {
        sentence.tokens[from.min(sentence.tokens.len())..to.min(sentence.tokens.len())]
            .iter()
            .any(|t| t.is_punct(';') || matches!(t.lower.as_str(), "or" | "but"))
    };
    let mut consider = |position: usize, own: bool| {
        named.push((position, own));
        if position > at && broken(at, position) {
            return;
        }
        let distance = position.abs_diff(at);
        let before = position < at;
        let closer = nearest.is_none_or(|(best, best_before, _)| {
            distance < best || (distance == best && before && !best_before)
        });
        if closer {
            nearest = Some((distance, before, own));
        }
    };
    if let Some(day) = options.day {
        for (position, days) in day_mentions(sentence) {
            consider(position, days.contains(day));
        }
    }
    // "Our three-hour package is five-fifty" for a four-hour price.
    for m in sentence.numbers.iter().filter(|m| m.start != at) {
        if let Some(own) = qualifier_fits(&options.qualifiers, m) {
            consider(m.start, own);
        }
    }
    // "Our standard American bustle is a hundred and twenty-five" for a
    // French bustle.
    if let Some((qualifier, head)) = &options.named {
        let first_word = sentence.tokens.iter().position(|t| t.is_word());
        for (position, pair) in sentence.tokens.windows(2).enumerate() {
            let [word, noun] = pair else {
                continue;
            };
            // (Not a sentence's first word: "The bustle is ninety-five.")
            if Some(position) != first_word
                && !STOPWORDS.contains(&word.lower.as_str())
                && word.is_word()
                && word.is_capitalized()
                && noun.is_word()
                && !noun.is_capitalized()
                && sentence.stems.get(position + 1) == Some(head)
            {
                consider(position, word.lower == *qualifier);
            }
        }
    }
    for (position, word) in option_words(sentence, &options.heads) {
        for (set, class) in classes_of(wanted, &word) {
            consider(position, wanted.contains(&(set, class)));
        }
    }
    // "Thirty-eight a night, big or small": an amount said for both
    // classes of a set at once is said of none in particular.
    named.sort_unstable();
    let both = named.windows(2).any(|pair| {
        let (from, to) = (pair[0].0.min(pair[1].0), pair[0].0.max(pair[1].0));
        pair[0].1 != pair[1].1
            && to - from <= 2
            && sentence.tokens[from..to].iter().any(|t| t.lower == "or")
    });
    if both {
        return None;
    }
    let (distance, before, own) = nearest?;
    let position = if before { at - distance } else { at + distance };
    // "Weekday evenings are nine fifty" for a Saturday evening: a word
    // right beside the nearest one qualifies the same thing, and another
    // option there makes it another's.
    let beside_other = named
        .iter()
        .any(|&(other, other_own)| other.abs_diff(position) == 1 && !other_own);
    Some(own && !beside_other)
}

/// Whether `sentences` name an option of a set the field speaks of, and
/// only options other than the field's ("Okay, standard it is." to
/// "expedited shipping?"): a choice of the other option, so a no.
pub(super) fn chooses_other_option(profile: &FieldProfile, sentences: &[&Sentence]) -> bool {
    let (own, other) = options_named(profile, sentences);
    other && !own
}

/// Whether `sentences` name the field's own option ("Mondays" for a field
/// about Mondays).
pub(super) fn names_own_option(profile: &FieldProfile, sentences: &[&Sentence]) -> bool {
    options_named(profile, sentences).0
}

/// Whether `sentences` name the field's own option, and whether they name
/// another option of a set the field speaks of.
fn options_named(profile: &FieldProfile, sentences: &[&Sentence]) -> (bool, bool) {
    let wanted = &profile.options.classes;
    let (mut own, mut other) = (false, false);
    for sentence in sentences {
        if let Some(day) = profile.options.day {
            for (_, days) in day_mentions(sentence) {
                if days.contains(day) {
                    own = true;
                } else {
                    other = true;
                }
            }
        }
        for (_, word) in option_words(sentence, &profile.options.heads) {
            for (set, class) in classes_of(wanted, &word) {
                if wanted.contains(&(set, class)) {
                    own = true;
                } else {
                    other = true;
                }
            }
        }
    }
    (own, other)
}

/// Whether `question` asks the field's yes/no question from the opposite
/// side (see [`asks_the_other_side`]).
pub(super) fn asked_from_the_other_side(profile: &FieldProfile, question: &Sentence) -> bool {
    let asked: Vec<&str> = question.word_lowers().collect();
    asks_the_other_side(profile.definition, &asked)
}

/// Whether mention `m` sizes an option the way one of `qualifiers` does:
/// `Some(true)` for the same size ("four hours"), `Some(false)` for
/// another size of the same unit ("three-hour"), `None` when it sizes
/// nothing the field names.
fn qualifier_fits(qualifiers: &[(f64, Unit)], m: &NumberMention) -> Option<bool> {
    let mut verdict = None;
    for (value, unit) in qualifiers {
        if *unit == m.unit {
            if same_amount(*value, m.value) {
                return Some(true);
            }
            verdict = Some(false);
        }
    }
    verdict
}
