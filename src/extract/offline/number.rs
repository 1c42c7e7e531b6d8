//! Stage 4 for number fields: candidate amounts scored by unit, rate and
//! context, with corrections and echoes taken into account.

use super::amendment::suppress_before_cues;
use super::evidence::{Analysis, DIRECT_THRESHOLD, Evidence, Role, Source};
use super::lexicon::{CHARGE_NOUNS, NAMING_NOUNS, STOPWORDS};
use super::not_an_amount::names_no_amount;
use super::options::said_for_own_option;
use super::phrase::has_any_phrase;
use super::profile::{FieldIndex, FieldProfile, FieldUnit, NumberProfile, RangePreference};
use super::relevance::keyword_score;
use super::spoken_amount::is_small_measure;
use super::transcript::{ClauseId, Sentence, SentenceIndex, Speaker, TurnIndex, clause_text};
use super::unit_fit::{counts_people, per_fit, unit_fit};
use super::value_kind::per_canonical;
use crate::extract::text::numbers::{NumberMention, same_amount};
use crate::extract::text::stem::{stem, stems_match};
use crate::extract::text::units::Unit;
use crate::extract::text::vocabulary;

/// A number that may be a field's value, with how well it fits.
#[derive(Debug, Clone)]
pub(super) struct NumberCandidate {
    pub(super) sentence: SentenceIndex,
    pub(super) turn: TurnIndex,
    /// Clause id within the turn.
    pub(super) clause: ClauseId,
    pub(super) value: f64,
    pub(super) alt: Option<f64>,
    /// (low, high) for a range.
    pub(super) range: Option<(f64, f64)>,
    pub(super) score: f64,
    pub(super) echo: bool,
    /// Read from a reply to a turn that raised the field (or its echo).
    answered: bool,
}

impl Analysis<'_, '_> {
    /// The numeric value of `field`: the best-fitting number of the latest
    /// reply that fits about as well as any, in the field's unit; with the
    /// sentence it was read from.
    pub(super) fn extract_number(
        &self,
        field: FieldIndex,
        number_profile: &NumberProfile,
    ) -> Option<(f64, Source)> {
        if number_profile.unit == FieldUnit::Clock {
            return self.extract_clock_number(field, number_profile);
        }
        let candidates = self.scored_candidates(field, number_profile)?;
        // The asker's own figure ("Their budget is about seventy pounds
        // per person") competes only when the other side said it too.
        let said_by_other_side = |value: f64| {
            candidates.iter().any(|c| {
                self.transcript.turns[c.turn].speaker != Speaker::Agent
                    && (same_amount(c.value, value) || c.alt.is_some_and(|a| same_amount(a, value)))
            })
        };
        let competing = candidates.iter().filter(|c| {
            c.answered
                || self.transcript.turns[c.turn].speaker != Speaker::Agent
                || said_by_other_side(c.value)
        });
        // Within a reply the best-fitting number wins (earliest on a tie);
        // across replies the latest reply that fits about as well wins.
        let mut per_turn: Vec<&NumberCandidate> = Vec::new();
        for candidate in competing {
            match per_turn.last_mut() {
                Some(best) if best.turn == candidate.turn => {
                    if candidate.score > best.score {
                        *best = candidate;
                    }
                }
                _ => per_turn.push(candidate),
            }
        }
        let best = per_turn
            .iter()
            .map(|c| c.score)
            .fold(f64::NEG_INFINITY, f64::max);
        let pick = *per_turn.iter().rev().find(|c| c.score >= best - 0.5)?;
        let mut value = match (pick.range, number_profile.range) {
            (Some((lo, _)), RangePreference::Lower) => lo,
            (Some((_, hi)), RangePreference::Upper) => hi,
            (Some(_), RangePreference::Neither) => return None,
            (None, _) => pick.value,
        };
        value = self.settled_reading(pick, &candidates, value);
        let said = self.said_at(pick, &candidates);
        // Precision first: a value only from a reply to a question about the
        // field, and only when that reply gives one amount that fits clearly
        // better than any other it gives.
        let said_candidate = candidates.iter().find(|c| c.sentence == said);
        if !said_candidate.is_some_and(|c| c.answered) {
            return None;
        }
        let rivals = candidates.iter().filter(|c| {
            c.turn == pick.turn
                && !c.echo
                && !same_amount(c.value, pick.value)
                && !pick.alt.is_some_and(|a| same_amount(a, c.value))
                && pick.range.is_none()
                && c.score >= pick.score - 0.25
                && c.clause >= pick.clause
        });
        if rivals.count() > 0
            || self.reply_hedges(field, said)
            || self.withdrawn(pick, &candidates)
            || self.left_unanswered(field, pick, &candidates)
        {
            return None;
        }
        Some(self.apply_not_corrections(said, value))
    }

    /// Whether the asker's turn right after the other side's `turn`
    /// repeats `value` in its first sentence ("Fifty-five, got it.").
    fn echoed_at_once(&self, turn: TurnIndex, value: f64) -> bool {
        self.transcript.turns[turn].speaker == Speaker::Recipient
            && self
                .transcript
                .turns
                .get(turn.next().0)
                .is_some_and(|next| {
                    next.speaker == Speaker::Agent
                        && next.sentences.first().is_some_and(|&first| {
                            self.transcript.sentences[first]
                                .numbers
                                .iter()
                                .any(|m| same_amount(m.value, value))
                        })
                })
    }

    /// The evidence for `field`, with the reformulation right after a
    /// mention ("Come back in a year. So, twelve months.") and the rest of
    /// a retracting turn; and the sentences of those retracting turns.
    fn number_evidence(&self, field: FieldIndex) -> (Vec<Evidence>, Vec<SentenceIndex>) {
        let mut evidence = self.evidence(field, false);
        let extra: Vec<Evidence> = evidence
            .iter()
            .filter(|e| matches!(e.role, Role::Direct | Role::Answer))
            .filter_map(|e| {
                let next = e.sentence.next();
                let n = self.transcript.sentences.get(next.0)?;
                let reformulates = n.turn == self.transcript.sentences[e.sentence].turn
                    && !n.question
                    && matches!(
                        n.word_lowers().next(),
                        Some(
                            "so" | "that's"
                                | "i"
                                | "actually"
                                | "or"
                                | "call"
                                | "make"
                                | "that"
                                | "basically"
                        )
                    );
                (reformulates && !evidence.iter().any(|x| x.sentence == next)).then_some(Evidence {
                    sentence: next,
                    role: e.role,
                    region: e.region,
                })
            })
            .collect();
        evidence.extend(extra);
        let corrected = self.corrected_later(field, &evidence);
        let mut revising: Vec<SentenceIndex> = corrected.iter().map(|e| e.sentence).collect();
        evidence.extend(corrected);
        let revised = self.retracted_rest(field, &evidence);
        revising.extend(revised.iter().map(|e| e.sentence));
        evidence.extend(revised);
        evidence.sort_by_key(|e| (e.sentence, e.role));
        evidence.dedup_by_key(|e| e.sentence);
        (evidence, revising)
    }

    /// Every amount that may be `field`'s value, scored, in transcript
    /// order, after the correction cues of each reply; `None` when there is
    /// none. Replies to a question about the field (and amounts the asker
    /// put that a plain yes confirmed) are marked answered and rank higher.
    fn scored_candidates(
        &self,
        field: FieldIndex,
        number_profile: &NumberProfile,
    ) -> Option<Vec<NumberCandidate>> {
        let profile = &self.profiles[field];
        let (evidence, revising) = self.number_evidence(field);
        let mut candidates: Vec<NumberCandidate> = Vec::new();
        let mut echo_candidates: Vec<NumberCandidate> = Vec::new();
        // "Your website says the deposit is two hundred, is that still
        // right?" "That's right.": the amount the asker put, confirmed.
        let mut confirmed_opens: Vec<TurnIndex> = Vec::new();
        for item in &evidence {
            if item.role != Role::Question
                || confirmed_opens.contains(&item.region)
                || !self.confirmed_plainly(item.region)
            {
                continue;
            }
            confirmed_opens.push(item.region);
            // "Just her and her son, so two. I understood the income limit
            // is fifty-two thousand. Is that right?": what is confirmed of
            // the field is said in the sentences about it.
            let sentences = &self.transcript.turns[item.region].sentences;
            let most = sentences
                .iter()
                .map(|&sentence| self.relevance(field, sentence))
                .fold(0.0, f64::max);
            let about: Vec<SentenceIndex> = sentences
                .iter()
                .copied()
                .filter(|&sentence| self.relevance(field, sentence) >= 0.5 * most)
                .collect();
            let read = if most > 0.0 { &about } else { sentences };
            for &sentence in read {
                for mut candidate in self.number_candidates(profile, number_profile, sentence) {
                    candidate.score += 0.5;
                    candidate.answered = true;
                    candidates.push(candidate);
                }
            }
        }
        for item in &evidence {
            if item.role == Role::Question {
                continue;
            }
            if self.transcript.sentences[item.sentence].question {
                continue;
            }
            // "Thirty-one guests. How many of those would need vegetarian
            // meals?": once answered, a count of part of them is no count
            // of them all.
            if item.role == Role::Answer
                && number_profile.unit == FieldUnit::Count
                && candidates.iter().any(|c| c.answered)
                && self.asks_for_a_part(field, item.region)
            {
                continue;
            }
            let mut found = self.number_candidates(profile, number_profile, item.sentence);
            // "What would that run per visit?" "… a hundred sixty-five.":
            // the reply to a question about a price gives money, not a
            // count of cleaners.
            if number_profile.unit == FieldUnit::Count
                && item.role == Role::Answer
                && self.asks_a_price(item.region)
            {
                let unitless: Vec<f64> = self.transcript.sentences[item.sentence]
                    .numbers
                    .iter()
                    .filter(|m| m.unit == Unit::None)
                    .map(|m| m.value)
                    .collect();
                found.retain(|c| !unitless.iter().any(|&v| same_amount(v, c.value)));
            }
            // A reply to the question about the field outranks a passing mention.
            if matches!(item.role, Role::Answer | Role::Echo) {
                // "How many years of experience?" "About two and a half.":
                // the reply's opening figure is in the unit asked.
                let in_unit_asked = item.role == Role::Answer
                    && self.opens_reply_in_unit_asked(number_profile, item);
                for (at, candidate) in found.iter_mut().enumerate() {
                    candidate.score += if in_unit_asked && at == 0 { 2.0 } else { 0.5 };
                    candidate.answered = true;
                }
            }
            // "… so that'd be fifty-five a visit." "Fifty-five, got it.":
            // an amount the other side states of the field unasked, and
            // the asker repeats at once, is given as clearly as an answer.
            if item.role == Role::Direct {
                let turn = self.transcript.sentences[item.sentence].turn;
                for candidate in &mut found {
                    if self.echoed_at_once(turn, candidate.value) {
                        candidate.answered = true;
                    }
                }
            }
            if item.role == Role::Echo {
                for candidate in &mut found {
                    candidate.echo = true;
                }
                echo_candidates.extend(found);
            } else {
                candidates.extend(found);
            }
        }
        // Echoes only confirm what was said, and the one they confirm is
        // the one that stands ("… or two twenty." "So two twenty.").
        for mut echo in echo_candidates {
            let confirmed = candidates
                .iter()
                .filter(|o| {
                    same_amount(o.value, echo.value)
                        || o.alt.is_some_and(|a| same_amount(a, echo.value))
                })
                .map(|o| o.score)
                .reduce(f64::max);
            if let Some(score) = confirmed {
                echo.score = echo.score.max(score);
                // "Forty-two in a single run. The shared run is thirty-eight
                // each." "So thirty-eight per dog in the shared run.": an
                // echo that names the field and picks one of a reply's
                // amounts settles it.
                let picked_from = candidates
                    .iter()
                    .filter(|o| o.turn < echo.turn && same_amount(o.value, echo.value))
                    .map(|o| o.turn)
                    .max();
                if let Some(turn) = picked_from
                    && self.relevance(field, echo.sentence) >= 1.0
                {
                    let best_of_reply = candidates
                        .iter()
                        .filter(|o| o.turn == turn)
                        .map(|o| o.score)
                        .fold(f64::NEG_INFINITY, f64::max);
                    echo.score = echo.score.max(best_of_reply);
                }
                candidates.push(echo);
            }
        }
        if candidates.is_empty() {
            return None;
        }
        // A revision stands however little it repeats ("It's four fifty
        // now" after "Four pound a night").
        for at in 0..candidates.len() {
            if revising.contains(&candidates[at].sentence) {
                let earlier = candidates
                    .iter()
                    .filter(|c| c.turn < candidates[at].turn)
                    .map(|c| c.score)
                    .fold(f64::NEG_INFINITY, f64::max);
                candidates[at].score = candidates[at].score.max(earlier);
            }
        }
        candidates.sort_by_key(|c| (c.sentence, c.clause));
        let candidates = suppress_before_cues(self, candidates);
        Some(candidates)
    }

    /// Where the value of `pick` was said: an echo, or the agent repeating
    /// the value, only confirms, so the value was read where the other side
    /// said it, if it did ("The website lists it at thirty-eight pounds."
    /// "Yep, still thirty-eight.": the other side's words after it, when
    /// none came before).
    fn said_at(&self, pick: &NumberCandidate, candidates: &[NumberCandidate]) -> SentenceIndex {
        let by_agent =
            |c: &NumberCandidate| self.transcript.turns[c.turn].speaker == Speaker::Agent;
        let other_side_said = |c: &&NumberCandidate| {
            !c.echo
                && !by_agent(c)
                && (same_amount(c.value, pick.value)
                    || c.alt.is_some_and(|a| same_amount(a, pick.value)))
        };
        if pick.echo || by_agent(pick) {
            candidates
                .iter()
                .rev()
                .filter(|c| c.sentence < pick.sentence)
                .find(other_side_said)
                .or_else(|| {
                    candidates
                        .iter()
                        .filter(|c| c.sentence > pick.sentence && c.answered)
                        .find(other_side_said)
                })
                .map_or(pick.sentence, |c| c.sentence)
        } else {
            pick.sentence
        }
    }

    /// The numbers of one sentence that fit the field, scored.
    fn number_candidates(
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
        for (mention_index, m) in sent.numbers.iter().enumerate() {
            // The second end of a range is handled with the first.
            if m.range_with.is_some_and(|o| o < mention_index) {
                continue;
            }
            let Some((mut score, factor)) = unit_fit(number_profile, m) else {
                continue;
            };
            if names_no_amount(profile, number_profile, sent, m) {
                continue;
            }
            // "eight to noon": the other end is a time of day, so this one
            // is too.
            let a_time = |other: &NumberMention| other.unit == Unit::Clock || other.pm.is_some();
            let to_a_time = m
                .range_with
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
                || sent.habitual_before(m.start)
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
            let named = sent.stems.get(m.end..named_end);
            if named.is_some_and(|after| {
                after
                    .iter()
                    .any(|st| profile.excluded.iter().any(|ex| stems_match(ex, st)))
            }) {
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
            let excluded_subject = sent.stems[..added_on_from.min(sent.stems.len())]
                .iter()
                .any(|st| profile.excluded.iter().any(|ex| stems_match(ex, st)))
                && !sent
                    .stems
                    .iter()
                    .any(|st| profile.heads.iter().any(|h| stems_match(h, st)));
            if excluded_subject {
                continue;
            }
            // "Four sixty-nine a square foot": a rate per small measure is
            // dollars and cents (4.69), not hundreds.
            let (value, alt) = match m.alt {
                Some(alt) if alt < m.value && m.per.as_deref().is_some_and(is_small_measure) => {
                    (alt, Some(m.value))
                }
                _ => (m.value, m.alt),
            };
            let value = value * factor;
            // "Two ten a night. With the discount it's one ninety.": a
            // bare amount in the same reply keeps the rate said before it.
            let inherited =
                if m.per.is_none() && matches!(m.unit, Unit::None | Unit::Money | Unit::Pound) {
                    self.previous_rate(sentence, mention_index)
                } else {
                    None
                };
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
                .get(
                    sent.clause_range(
                        sent.token_clauses
                            .get(m.start)
                            .copied()
                            .unwrap_or(ClauseId(0)),
                    )
                    .start..m.start,
                )
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
            let clause = sent
                .token_clauses
                .get(m.start)
                .copied()
                .unwrap_or(ClauseId(0));
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
            if sent.conditional || under_threshold {
                score -= 1.0;
            }
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
                    "waived" | "complimentary" => {
                        number_profile.unit == FieldUnit::Money
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
                    _ => false,
                };
                if zero {
                    let clause = sent
                        .token_clauses
                        .get(token)
                        .copied()
                        .unwrap_or(ClauseId(0));
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

    /// "Same as the deposit": copies the value of the number field the
    /// phrase names.
    pub(super) fn same_as_reference(
        &self,
        field: FieldIndex,
        numbers: &[(FieldIndex, Option<(f64, Source)>)],
    ) -> Option<(f64, Source)> {
        let mut replies: Vec<SentenceIndex> = Vec::new();
        for (open, region) in self.regions() {
            if self.raised(open).contains(&field) {
                for &reply in &region.turns {
                    replies.extend(self.transcript.turns[reply].sentences.iter().copied());
                }
            }
        }
        for &sentence in replies.iter().rev() {
            let sent = &self.transcript.sentences[sentence];
            let lw: Vec<&str> = sent.tokens.iter().map(|t| t.lower.as_str()).collect();
            let Some(pos) = lw.windows(2).position(|w| w == ["same", "as"]) else {
                continue;
            };
            let tail: Vec<String> = sent.stems.iter().skip(pos + 2).take(5).cloned().collect();
            let mut best: Option<(f64, (f64, Source))> = None;
            for (other, v) in numbers {
                if *other == field {
                    continue;
                }
                let Some(v) = v else { continue };
                let r = keyword_score(&self.profiles[*other], &tail);
                if r >= DIRECT_THRESHOLD && best.is_none_or(|(br, _)| r > br) {
                    // The value is read where the other field's was.
                    best = Some((r, *v));
                }
            }
            if let Some((_, v)) = best {
                return Some(v);
            }
        }
        None
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
