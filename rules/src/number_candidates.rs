//! The amounts one sentence offers for a number field, each scored by how
//! well its unit, its rate and its words fit the field.

use super::evidence::Analysis;
use super::lexicon::{CHARGE_NOUNS, NAMING_NOUNS, STOPWORDS};
use super::not_an_amount::names_no_amount;
use super::number::{NumberCandidate, said_by_its_article};
use super::options::said_for_own_option;
use super::phrase::has_any_phrase;
use super::profile::{FieldProfile, FieldUnit, NumberProfile, RangePreference};
use super::relevance::keyword_score;
use super::spoken_amount::reads_as_cents;
use super::transcript::{Sentence, SentenceIndex, clause_text};
use super::unit_fit::{another_period, counts_people, per_fit, unit_fit};
use super::value_kind::per_canonical;
use agentcall_english::numbers::{NumberMention, same_amount};
use agentcall_english::stem::{stem, stems_match};
use agentcall_english::units::Unit;
use agentcall_english::vocabulary;

impl Analysis<'_, '_> {
    /// The numbers of one sentence that fit the field, scored.
    pub(super) fn number_candidates(
        &self,
        profile: &FieldProfile,
        number_profile: &NumberProfile,
        sentence: SentenceIndex,
    ) -> Vec<NumberCandidate> {
        let sent = &self.transcript.sentences[sentence];
        let mut out = Vec::new();
        let own_numbers: Vec<f64> = profile
            .required
            .iter()
            .filter_map(|r| r.parse::<f64>().ok())
            .collect();
        let priced_per = profile.priced_per();
        // "Expected number of weeks": for a usual amount, "it's usually
        // about three weeks" is the answer.
        let asks_the_usual = [
            "expected", "typical", "usual", "usually", "normally", "average",
        ]
        .iter()
        .any(|word| profile.is_own_word(&stem(word)));
        // "Twenty-one hundred with fitting, before tax" for a cost "before
        // tax": what the field sets apart, named after "before", restates
        // the field's own limit.
        let sets_apart = |at: usize| {
            at.checked_sub(1)
                .and_then(|before| sent.tokens.get(before))
                .is_some_and(|t| {
                    matches!(
                        t.lower.as_str(),
                        "before" | "excluding" | "without" | "minus" | "less" | "ex" | "pre"
                    )
                })
        };
        // "Fourteen fifty, with the permit and deposit separate": said to
        // be apart after the amount (not "The fabric's separate; the moss
        // is forty-four a yard", which prices what is apart).
        let said_apart = |at: usize, amount_end: usize| {
            at >= amount_end
                && has_any_phrase(
                    clause_text(sent, sent.clause_at(at)),
                    &[
                        "separate",
                        "separately",
                        "on top",
                        "not included",
                        "excluded",
                        "extra",
                    ],
                )
        };
        let excluded_at = |at: usize, amount_end: usize| {
            sent.stems.get(at).is_some_and(|st| {
                profile.excluded.iter().any(|ex| stems_match(ex, st))
                    && !sets_apart(at)
                    && !said_apart(at, amount_end)
            })
        };
        // ("Four." alone for a coffee is still four: only beside a
        // count, or asked back.)
        let counted_nearby = self.transcript.turns[sent.turn]
            .sentences
            .iter()
            .map(|&other| &self.transcript.sentences[other])
            .any(|other| {
                other.question
                    || other
                        .numbers
                        .iter()
                        .any(|n| matches!(n.unit, Unit::Count(_)))
            });
        for (mention_index, m) in sent.numbers.iter().enumerate() {
            // The second end of a range is handled with the first.
            if m.range_with.is_some_and(|o| o < mention_index) {
                continue;
            }
            let Some((mut score, factor)) = unit_fit(number_profile, m) else {
                continue;
            };
            // "The initial service is one sixty-five": a spoken price said
            // within a sentence counts nothing ("Two eighty." alone may
            // count seats).
            let whole_answer = sent.word_lowers().count() == m.end - m.start;
            if number_profile.unit == FieldUnit::Count
                && m.unit == Unit::None
                && m.alt.is_some()
                && !whole_answer
            {
                continue;
            }
            // "Three." for a price: a small whole number said with no
            // currency, no cents and no rate is a count more often than a
            // price (still a rival to the others).
            let bare_small = number_profile.unit == FieldUnit::Money
                && counted_nearby
                && m.unit == Unit::None
                && m.alt.is_none()
                && m.per.is_none()
                && (1.0..10.0).contains(&m.value)
                && m.value.fract() == 0.0;
            if names_no_amount(profile, number_profile, sent, m) {
                continue;
            }
            // "eight to noon": the other end is a time of day, so this one
            // is too.
            let a_time = |other: &NumberMention| other.unit == Unit::Clock || other.pm.is_some();
            // "It's fifteen until ten pm", "Pints are five till seven pm":
            // an amount said as one ("it's", "are", a unit) stays one.
            let said_as_an_amount = m.unit != Unit::None
                || matches!(
                    sent.lower_before(m.start, 1),
                    Some("is" | "are" | "was" | "it's" | "that's" | "costs" | "cost" | "be")
                );
            let to_a_time = !said_as_an_amount
                && m.range_with
                    .and_then(|other| sent.numbers.get(other))
                    .is_some_and(a_time)
                || (number_profile.unit != FieldUnit::Clock
                    && sent.tokens.get(m.end).is_some_and(|t| {
                        matches!(t.lower.as_str(), "to" | "till" | "until" | "-")
                            || (t.lower == "and"
                                && sent.lower_before(m.start, 1) == Some("between"))
                    })
                    && (sent
                        .tokens
                        .get(m.end + 1)
                        .is_some_and(|t| matches!(t.lower.as_str(), "noon" | "midnight"))
                        || sent
                            .numbers
                            .iter()
                            .any(|o| o.start == m.end + 1 && a_time(o))));
            if to_a_time {
                continue;
            }
            // "Hot desks are three fifty a month each": an amount said per
            // a stretch of time counts nothing, unless the field counts
            // per one too ("sessions per week").
            let per_time =
                m.per.as_deref().and_then(per_canonical).is_some_and(|p| {
                    matches!(p, "hour" | "day" | "night" | "week" | "month" | "year")
                });
            // Only a figure that reads as money: "Eight a month" may count
            // classes.
            let reads_as_money = m.alt.is_some() || matches!(m.unit, Unit::Money | Unit::Pound);
            if number_profile.unit == FieldUnit::Count
                && number_profile.per.is_none()
                && per_time
                && reads_as_money
            {
                continue;
            }
            if own_numbers.iter().any(|v| same_amount(*v, m.value))
                || profile
                    .described_amounts
                    .iter()
                    .any(|d| d.said_as_in(&sent.tokens, m.start, m.end, m.value))
                || (sent.habitual_before(m.start) && !asks_the_usual)
                || said_for_own_option(profile, sent, m.start) == Some(false)
            {
                continue;
            }
            // "Unit 412", "bus twenty-one": a number that names its noun
            // is that noun's, not an amount of the field (unless the field
            // is named for that noun: "room number").
            let names = m
                .start
                .checked_sub(1)
                .and_then(|before| sent.tokens.get(before))
                .is_some_and(|t| {
                    t.is_word()
                        && set!(NAMING_NOUNS).contains(t.lower.as_str())
                        && !profile
                            .heads
                            .iter()
                            .any(|h| stems_match(h, &stem(&t.lower)))
                });
            if names {
                continue;
            }
            // "an eight-dollar holiday surcharge" for a rate "before any
            // holiday surcharge": an amount of what the field is not.
            // "twenty-three nine ninety-five plus tax": what follows "plus"
            // is added on top, not named.
            let named_end = (m.end..(m.end + 3).min(sent.stems.len()))
                .find(|&at| sent.tokens.get(at).is_some_and(|t| t.lower == "plus"))
                .unwrap_or((m.end + 3).min(sent.stems.len()));
            if (m.end..named_end).any(|at| excluded_at(at, m.end)) {
                continue;
            }
            // "There's a bonus on top, last year it was about four grand" for
            // a salary "excluding bonus": a sentence about what the field sets
            // apart, and not about the field itself.
            // What follows a "plus" after the amount is added on top of it
            // ("One fifty-nine a night, plus tax and the resort fee").
            let added_on_from = (m.end..sent.tokens.len())
                .find(|&at| sent.tokens[at].lower == "plus")
                .unwrap_or(sent.stems.len());
            let excluded_subject = (0..added_on_from.min(sent.stems.len()))
                .any(|at| excluded_at(at, m.end))
                && !sent
                    .stems
                    .iter()
                    .any(|st| profile.heads.iter().any(|h| stems_match(h, st)));
            if excluded_subject {
                continue;
            }
            // "Four sixty-nine a square foot", "eight fifty a tray": a
            // price per small measure or piece is dollars and cents (4.69),
            // not hundreds; so is one said bare for a field priced so
            // ("price per gallon": "three oh nine").
            let per = m.per.clone().or_else(|| priced_per.clone());
            let (value, alt) = match m.alt {
                Some(alt)
                    if alt < m.value
                        && number_profile.unit == FieldUnit::Money
                        && per.as_deref().is_some_and(|per| reads_as_cents(per, alt)) =>
                {
                    (alt, Some(m.value))
                }
                _ => (m.value, m.alt),
            };
            let value = value * factor;
            // "Me and two of the lads": the speaker counts too, in a
            // count of the people sent ("me and eight students" is eight
            // students).
            let crew = [
                "crew",
                "team",
                "staff",
                "worker",
                "mover",
                "cleaner",
                "technician",
                "installer",
                "helper",
                "peopl",
            ]
            .iter()
            .any(|word| profile.is_own_word(word))
                // "Me and two friends" for the size of a party.
                || counts_people(profile);
            let with_speaker = number_profile.unit == FieldUnit::Count
                && crew
                && matches!(sent.lower_before(m.start, 1), Some("and" | "plus"))
                && matches!(sent.lower_before(m.start, 2), Some("me" | "myself"));
            let value = if with_speaker { value + 1.0 } else { value };
            // "Two ten a night. With the discount it's one ninety.": a
            // bare amount in the same reply keeps the rate said before it.
            let inherited =
                if m.per.is_none() && matches!(m.unit, Unit::None | Unit::Money | Unit::Pound) {
                    self.previous_rate(sentence, mention_index)
                } else {
                    None
                };
            if inherited.is_none() && another_period(number_profile, m) {
                continue;
            }
            score += match inherited {
                Some(p) => per_fit(
                    number_profile,
                    &NumberMention {
                        per: Some(p),
                        ..m.clone()
                    },
                ),
                // "sixty-eight per child" for a "price per child": the
                // field names what the price is per, so it fits (a count
                // of children is no price "a kid").
                None if number_profile.unit == FieldUnit::Money
                    && number_profile.per.is_none()
                    && !profile.is_own_word("total")
                    && m.per
                        .as_deref()
                        .is_some_and(|p| profile.is_keyword(&stem(p))) =>
                {
                    0.0
                }
                None => per_fit(number_profile, m),
            };
            // "sixty-five a head" is a price, not how many people.
            if number_profile.unit == FieldUnit::Count
                && counts_people(profile)
                && m.per.as_deref().and_then(per_canonical) == Some("person")
            {
                score -= 1.0;
            }
            // "a forty dollar key deposit": the amount belongs to the noun
            // it qualifies; another charge's noun means another field.
            let after: Vec<&str> = (m.end..m.end + 3)
                .filter_map(|i| sent.tokens.get(i))
                .take_while(|t| {
                    t.is_word()
                        && !set!(STOPWORDS).contains(t.lower.as_str())
                        && !matches!(
                            t.lower.as_str(),
                            "before" | "after" | "plus" | "including" | "excluding" | "less"
                        )
                })
                .map(|t| t.lower.as_str())
                .collect();
            // "Three tiers feeds eighty" for a number of servings: a count
            // of another noun is not the field's count.
            if number_profile.unit == FieldUnit::Count
                && let Unit::Count(noun) = &m.unit
                && !profile.is_keyword(noun)
            {
                score -= 1.0;
            }
            // "The day rate comes out to twenty-one hundred" for a number
            // of seats: an amount a charge comes to is money, no count.
            let clause_before: Vec<&str> = sent
                .tokens
                .get(sent.clause_range(sent.clause_at(m.start)).start..m.start)
                .unwrap_or(&[])
                .iter()
                .filter(|t| t.is_word())
                .map(|t| t.lower.as_str())
                .collect();
            if number_profile.unit == FieldUnit::Count
                && m.unit == Unit::None
                && clause_before
                    .iter()
                    .any(|w| set!(CHARGE_NOUNS).contains(w) && !profile.is_keyword(&stem(w)))
            {
                continue;
            }
            if let Some(noun) = after.iter().find(|w| set!(CHARGE_NOUNS).contains(*w)) {
                if !profile.is_keyword(&stem(noun)) {
                    continue;
                }
                score += 0.5;
            }
            let clause = sent.clause_at(m.start);
            // "The hog would've been thirteen": what would have been is no
            // amount of what was agreed.
            if has_any_phrase(
                clause_text(sent, clause),
                &[
                    "would've been",
                    "would have been",
                    "could've been",
                    "could have been",
                    "would've cost",
                    "would have cost",
                ],
            ) {
                continue;
            }
            let r = sent.clause_range(clause);
            let crel = keyword_score(profile, sent.stems.get(r).unwrap_or(&[]));
            if crel >= 1.0 {
                score += 0.5;
            }
            if crel >= 3.0 {
                score += 0.5;
            }
            // "If …", and "Over twenty we charge forty-five": a figure said
            // under a condition.
            let under_threshold = matches!(
                sent.word_lowers().next(),
                Some("over" | "under" | "above" | "below" | "beyond")
            ) && sent
                .numbers
                .first()
                .is_some_and(|first| first.start == 1 && first.start < m.start);
            // "Groups of twenty or more get two dollars": a figure for
            // those past a threshold said before it.
            // (Not when the field is said of that threshold: "price per
            // chair for an order of ten chairs".)
            let past_threshold = sent.numbers.iter().any(|other| {
                other.end <= m.start
                    && !profile
                        .described_amounts
                        .iter()
                        .any(|d| same_amount(d.value, other.value))
                    // (Nor when the threshold is said of the field's own
                    // people: "for groups of ten or more" for a group price,
                    // "kids three and up" for a child's ticket.)
                    && !sent.stems[other.start.saturating_sub(3)..other.start]
                        .iter()
                        .any(|st| profile.is_own_word(st))
                    && {
                        let after: Vec<&str> = (other.end..(other.end + 2).min(m.start))
                            .filter_map(|at| sent.tokens.get(at))
                            .filter(|t| t.is_word())
                            .map(|t| t.lower.as_str())
                            .collect();
                        matches!(
                            after.as_slice(),
                            ["or", "more" | "over" | "above" | "up"]
                                | ["and", "over" | "up" | "above"]
                        )
                    }
            });
            if sent.conditional || under_threshold || past_threshold {
                score -= 1.0;
            }
            let by_its_article = said_by_its_article(sent, m);
            // "up to thirty kilos" for a maximum, "at least ten" for a minimum.
            let before: Vec<&str> = (m.start.saturating_sub(2)..m.start)
                .filter_map(|i| sent.tokens.get(i))
                .filter(|t| t.is_word())
                .map(|t| t.lower.as_str())
                .collect();
            let bound = |pairs: &[[&str; 2]], singles: &[&str]| {
                pairs.iter().any(|p| before.ends_with(p))
                    || before.last().is_some_and(|w| singles.contains(w))
            };
            let upper = bound(
                &[["up", "to"], ["at", "most"], ["no", "more"]],
                &["max", "maximum", "limit"],
            );
            let lower = bound(
                &[["at", "least"], ["starting", "at"]],
                &["min", "minimum", "from"],
            );
            if (number_profile.range == RangePreference::Upper && upper)
                || (number_profile.range == RangePreference::Lower && lower)
            {
                score += 0.5;
            }
            let range = m.range_with.and_then(|o| sent.numbers.get(o)).map(|o| {
                let (a, b) = (value, o.value * factor);
                (a.min(b), a.max(b))
            });
            out.push(NumberCandidate {
                sentence,
                turn: sent.turn,
                clause,
                value,
                alt: alt.map(|a| a * factor),
                range,
                score,
                echo: false,
                answered: false,
                by_its_article,
                bare_small,
            });
        }
        // "no fee", "free", "no charge": zero (unless the sentence states an
        // amount and the zero is an exception: "waived for members on weekdays").
        if matches!(number_profile.unit, FieldUnit::Money | FieldUnit::Count) && out.is_empty() {
            let words: Vec<&str> = sent.word_lowers().collect();
            // The token of each word.
            let word_tokens: Vec<usize> = (0..sent.tokens.len())
                .filter(|&k| sent.tokens[k].is_word())
                .collect();
            for (i, (w, &token)) in words.iter().zip(&word_tokens).enumerate() {
                let next = words.get(i + 1).map(|n| stem(n));
                let zero = match *w {
                    "no" => next.as_deref().is_some_and(|n| {
                        profile.is_keyword(n)
                            || (number_profile.unit == FieldUnit::Money
                                && matches!(n, "fe" | "charg" | "cost" | "pric"))
                    }),
                    "free" => {
                        number_profile.unit == FieldUnit::Money
                            && free_is_a_price(sent, &words, i, token)
                    }
                    // "If he goes ahead with the repair, that gets
                    // waived": waived on a condition is no zero.
                    // ("Waived if he signs up before the end of the
                    // month" puts the condition after.)
                    "waived" | "complimentary" => {
                        number_profile.unit == FieldUnit::Money
                            && !words.get(i + 1).is_some_and(|next| {
                                matches!(
                                    *next,
                                    "if" | "unless" | "when" | "once" | "provided" | "providing"
                                )
                            })
                            && !words[..i].iter().enumerate().any(|(at, w)| {
                                matches!(*w, "if" | "unless")
                                    // "If you're asking about online, it's
                                    // waived" names a topic, no condition.
                                    && !matches!(
                                        words.get(at + 1..at + 3),
                                        Some(["you're" | "you", "asking" | "mean"])
                                    )
                            })
                    }
                    "none" | "zero" => true,
                    // "It's on the house."
                    "house" => {
                        number_profile.unit == FieldUnit::Money
                            && i >= 2
                            && words[i - 2] == "on"
                            && words[i - 1] == "the"
                    }
                    // "Garden waste costs nothing."
                    // (Not "it costs nothing to look", nor "membership
                    // costs nothing" for a class.)
                    "nothing" => {
                        number_profile.unit == FieldUnit::Money
                            && i.checked_sub(1)
                                .and_then(|at| words.get(at))
                                .is_some_and(|w| {
                                    matches!(*w, "costs" | "cost" | "charge" | "charges")
                                })
                            && words.get(i + 1).is_none()
                            && words[..i].iter().any(|w| profile.is_own_word(&stem(w)))
                    }
                    _ => false,
                };
                if zero {
                    let clause = sent.clause_at(token);
                    out.push(NumberCandidate {
                        sentence,
                        turn: sent.turn,
                        clause,
                        value: 0.0,
                        alt: None,
                        range: None,
                        score: 1.0,
                        echo: false,
                        answered: false,
                        by_its_article: false,
                        bare_small: false,
                    });
                    break;
                }
            }
        }
        out
    }

    /// The rate noun ("a night") of the last amount before mention
    /// `mention_index` of `sentence`, within the same turn.
    fn previous_rate(&self, sentence: SentenceIndex, mention_index: usize) -> Option<String> {
        let turn = self.transcript.sentences[sentence].turn;
        let here = self.transcript.sentences[sentence]
            .numbers
            .iter()
            .take(mention_index)
            .rev()
            .find_map(|m| m.per.clone());
        here.or_else(|| {
            self.transcript.turns[turn]
                .sentences
                .iter()
                .filter(|&&earlier| earlier < sentence)
                .rev()
                .find_map(|&earlier| {
                    self.transcript.sentences[earlier]
                        .numbers
                        .iter()
                        .rev()
                        .find_map(|m| m.per.clone())
                })
        })
    }
}

/// Whether "free", word `i` of `words` (token `token` of `sent`), says
/// that something costs nothing: not free time ("we're free", "free all
/// morning", "free on Tuesday", "the 21st free"), while "free on orders
/// over …" is a price.
fn free_is_a_price(sent: &Sentence, words: &[&str], i: usize, token: usize) -> bool {
    let before = i.checked_sub(1).and_then(|j| words.get(j)).copied();
    let after = |k: usize| words.get(i + k).copied();
    let free_person = matches!(
        before,
        Some("we're" | "i'm" | "they're" | "he's" | "she's" | "you're" | "am" | "are")
    );
    // "Tuesday free", "any evening free": a day or a time that is open.
    let free_date = before.is_some_and(|b| {
        vocabulary::weekday(b).is_some()
            || matches!(
                b,
                "date"
                    | "dates"
                    | "day"
                    | "days"
                    | "slot"
                    | "slots"
                    | "morning"
                    | "afternoon"
                    | "evening"
                    | "night"
                    | "weekend"
            )
    });
    let free_on_a_day = after(1) == Some("on")
        && after(2).is_none_or(|n| {
            matches!(n, "the" | "that" | "this" | "those") || vocabulary::weekday(n).is_some()
        });
    let free_time = after(1).is_some_and(|n| {
        matches!(
            n,
            "all"
                | "from"
                | "after"
                | "before"
                | "at"
                | "in"
                | "until"
                | "till"
                | "then"
                | "that"
                | "this"
                | "tomorrow"
                | "today"
        ) || vocabulary::weekday(n).is_some()
    });
    // "I've the 21st free": a date that is open.
    let after_a_date = sent
        .numbers
        .iter()
        .any(|m| m.ordinal && m.start < token && token <= m.end);
    !free_person && !free_date && !after_a_date && !free_on_a_day && !free_time
}
