//! Stage 4 for number fields: candidate amounts scored by unit, rate and
//! context, with corrections and echoes taken into account.

use super::amendment::suppress_before_cues;
use super::charges::asks_of_another_charge;
use super::evidence::{Analysis, DIRECT_THRESHOLD, Evidence, Role, Source};
use super::phrase::{has_any_phrase, is_negated_text};
use super::profile::{FieldIndex, FieldProfile, FieldUnit, NumberProfile, RangePreference};
use super::relevance::keyword_score;
use super::transcript::{ClauseId, Sentence, SentenceIndex, Speaker, TurnIndex, clause_text};
use super::unit_fit::per_fit;
use agentcall_english::numbers::{NumberMention, same_amount};
use agentcall_english::stem::{stem, stems_match};
use agentcall_english::units::Unit;

/// Words that put an answer off ("I'd have to get with dispatch"), not a
/// hold before it ("let me look… I've got nine").
const DEFERRALS: &[&str] = &[
    "i'd have to",
    "i would have to",
    "i'd need to",
    "have to ask",
    "need to ask",
    "get back to you",
    "call you back",
    "let you know",
    "depends",
    "not sure",
    "can't say",
    "couldn't say",
    "don't know",
    "no idea",
];

/// How strongly an unasked sentence of the other side must name a number
/// field for its one amount to count as given (`DIRECT_THRESHOLD` admits
/// a sentence as evidence at all). Chosen on the development sets: at
/// 3.0 it read 16 more values right and one more wrong, at 2.0 32 and
/// 13.
const VOLUNTEERED_THRESHOLD: f64 = 3.0;

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
    pub(super) answered: bool,
    /// An amount of time said by its article alone ("an hour", "about a
    /// week", "a fortnight").
    pub(super) by_its_article: bool,
    /// A small whole number said bare for a price ("three"): a rival, but
    /// never the price itself.
    pub(super) bare_small: bool,
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
        let mut candidates = self.scored_candidates(field, number_profile)?;
        // "Two hours, then she can't drive for an hour": an amount said by
        // its article alone counts only when its turn says no other.
        candidates.retain(|c| !c.by_its_article || !self.turn_says_another_amount(c.turn));
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
        // field (or an amount the other side states of it strongly, or that
        // the asker repeats at once), and only when that reply gives one
        // amount that fits clearly better than any other it gives.
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
            || self.defers_the_figure_asked(field, pick.turn)
            || pick.bare_small
            || self.reply_hedges(field, said)
            || self.withdrawn(pick, &candidates)
            || self.left_unanswered(field, pick, &candidates)
        {
            return None;
        }
        Some(self.apply_not_corrections(said, value))
    }

    /// "What's the hourly rate for three?" "Two guys is one sixty. Three,
    /// I'd have to get with dispatch on that.": whether the reply `turn`
    /// names a figure the question before it put and, in that sentence,
    /// defers it; then what it says of other figures answers nothing.
    fn defers_the_figure_asked(&self, field: FieldIndex, turn: TurnIndex) -> bool {
        let Some(question) = turn
            .previous()
            .and_then(|asked| self.transcript.last_question(asked))
        else {
            return false;
        };
        // Only a figure the question puts in the clause that names the
        // field ("the hourly rate for three"), not one of another question
        // ("…, and could she do four hours on Friday?").
        let profile = &self.profiles[field];
        let asked: Vec<f64> = question
            .numbers
            .iter()
            .filter(|m| {
                // ("four hours on Friday" is a length asked, no option.)
                if !matches!(m.unit, Unit::None | Unit::Count(_)) {
                    return false;
                }
                let clause = question.clause_at(m.start);
                question
                    .stems
                    .get(question.clause_range(clause))
                    .unwrap_or(&[])
                    .iter()
                    .any(|st| profile.is_strong_keyword(st))
            })
            .map(|m| m.value)
            .collect();
        self.transcript.turns[turn]
            .sentences
            .iter()
            .any(|&sentence| {
                let sent = &self.transcript.sentences[sentence];
                sent.numbers
                    .iter()
                    .any(|m| asked.iter().any(|&value| same_amount(value, m.value)))
                    && has_any_phrase(&sent.lower_text(), DEFERRALS)
            })
    }

    /// Whether `turn` says an amount other than one said by its article
    /// alone ("an hour").
    fn turn_says_another_amount(&self, turn: TurnIndex) -> bool {
        self.transcript.turns[turn].sentences.iter().any(|at| {
            let sent = &self.transcript.sentences[*at];
            sent.numbers.iter().any(|m| !said_by_its_article(sent, m))
        })
    }

    /// "Delivery is fifteen dollars. Where are you located?" "Northgate."
    /// "Oh, that's outside our zone. That'd be twenty-five then.": an
    /// answer that asks back and, told, settles the amount "then" revises
    /// it. The sentences of such settling replies.
    fn settled_after_asking_back(&self, evidence: &[Evidence]) -> Vec<SentenceIndex> {
        let answer_turns: Vec<TurnIndex> = evidence
            .iter()
            .filter(|e| e.role == Role::Answer)
            .map(|e| self.transcript.sentences[e.sentence].turn)
            .collect();
        evidence
            .iter()
            .filter(|e| e.role == Role::Answer)
            .filter(|e| {
                let sent = &self.transcript.sentences[e.sentence];
                let turn = sent.turn;
                let asked_back = turn.0 >= 2 && {
                    let before = TurnIndex(turn.0 - 2);
                    answer_turns.contains(&before)
                        && self.transcript.turns[before]
                            .sentences
                            .last()
                            .is_some_and(|&last| self.transcript.sentences[last].question)
                };
                // (One amount, said plainly: not "then we can drop it by
                // two, and it's free on orders over fifty".)
                asked_back
                    && sent.numbers.len() == 1
                    && !sent.conditional
                    && sent.word_lowers().any(|w| w == "then")
            })
            .map(|e| e.sentence)
            .collect()
    }

    /// "And to lock in the date?" "Deposit's a couple hundred.": a reply
    /// whose sentence opens by naming the field's head as what it states
    /// ("Deposit's", "The deposit is").
    fn opens_with_the_field(&self, profile: &FieldProfile, sentence: SentenceIndex) -> bool {
        let sent = &self.transcript.sentences[sentence];
        let turn = sent.turn;
        let replies = turn.previous().is_some_and(|asked| {
            self.transcript.turns[asked].speaker == Speaker::Agent
                && self.transcript.last_question(asked).is_some()
        });
        let mut words = sent
            .tokens
            .iter()
            .filter(|t| t.is_word())
            .skip_while(|t| matches!(t.lower.as_str(), "the" | "our" | "so" | "and" | "oh"));
        let Some(first) = words.next() else {
            return false;
        };
        let (head, copula) = match first.lower.strip_suffix("'s") {
            Some(head) => (head.to_string(), true),
            None => (
                first.lower.clone(),
                words
                    .next()
                    .is_some_and(|w| matches!(w.lower.as_str(), "is" | "would" | "will")),
            ),
        };
        // The amount in that opening clause, which says it plainly
        // ("Deposit's not refundable, and cancelling costs fifty" states no
        // deposit).
        let opening = sent.clause_at(0);
        let amount_in_opening = sent
            .numbers
            .iter()
            .any(|m| sent.clause_at(m.start) == opening);
        replies
            && copula
            && amount_in_opening
            && !is_negated_text(clause_text(sent, opening))
            && profile.heads.iter().any(|h| stems_match(h, &stem(&head)))
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
                            let echo = &self.transcript.sentences[first];
                            // "Two hundred? Is that the same for weekdays?"
                            // asks; it confirms nothing unless the other
                            // side says yes to it ("Just to confirm: four
                            // fifty a week?" "That's it.").
                            (!echo.question || self.confirmed_plainly(turn.next()))
                                && echo.numbers.iter().any(|m| same_amount(m.value, value))
                        })
                })
    }

    /// Whether `sentence` states `value` plainly, so that saying it unasked
    /// can give it: its clause puts no condition, limit, past or discount
    /// on it ("if the order is under fifty", "up to three thousand", "the
    /// last tenant paid", "discounted by twenty"), unless the field is
    /// itself a limit or a discount ("Minimum days before departure"), and
    /// it is said per what the field is per, or names, if per anything
    /// ("eighteen per child" is no total; "twenty-five a cylinder" is the
    /// price to rekey one cylinder).
    fn stated_plainly(
        &self,
        profile: &FieldProfile,
        number_profile: &NumberProfile,
        sentence: SentenceIndex,
        value: f64,
    ) -> bool {
        const QUALIFIERS: &[&str] = &[
            "if",
            "unless",
            "would",
            "used to",
            "paid",
            "last",
            "over",
            "under",
            "up to",
            "at least",
            "at most",
            "more than",
            "less than",
            "waived",
            "discount",
            "discounted",
            "off",
        ];
        let field_is_a_limit = [
            "minimum", "maximum", "min", "max", "limit", "discount", "cap",
        ]
        .iter()
        .any(|word| profile.is_own_word(&stem(word)));
        let sent = &self.transcript.sentences[sentence];
        sent.numbers
            .iter()
            .filter(|m| same_amount(m.value, value))
            .all(|m| {
                let clause = sent.clause_at(m.start);
                let per_own = m.per.as_deref().is_some_and(|per| profile.is_own_word(per));
                (field_is_a_limit || !has_any_phrase(clause_text(sent, clause), QUALIFIERS))
                    && (per_fit(number_profile, m) >= 0.0 || per_own)
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
        revising.extend(self.settled_after_asking_back(&evidence));
        evidence.sort_by_key(|e| (e.sentence, e.role));
        evidence.dedup_by_key(|e| e.sentence);
        (evidence, revising)
    }

    /// Every amount that may be `field`'s value, scored, in transcript
    /// order, after the correction cues of each reply; `None` when there is
    /// none. Replies to a question about the field (and amounts the asker
    /// put that a plain yes confirmed) are marked answered and rank higher.
    pub(super) fn scored_candidates(
        &self,
        field: FieldIndex,
        number_profile: &NumberProfile,
    ) -> Option<Vec<NumberCandidate>> {
        let profile = &self.profiles[field];
        let everyone: Vec<FieldIndex> = self.field_indices().collect();
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
            // "What's the fee for the term?" … "Is there a registration
            // fee on top?" "Twenty-five, one-off.": a reply to a question
            // about another charge gives none of the field's.
            if item.role == Role::Answer
                && number_profile.unit == FieldUnit::Money
                && self
                    .transcript
                    .last_question(item.region)
                    .is_some_and(|question| {
                        let words: Vec<&str> = question.word_lowers().collect();
                        asks_of_another_charge(profile, &words)
                    })
            {
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
            // A sentence shared with a field it is more about: only the
            // clauses that name this field more than that one.
            // (Among the fields its region raised, as evidence shares it.)
            let among: &[FieldIndex] = match item.role {
                Role::Answer | Role::Asker => self.raised(item.region),
                _ => &everyone,
            };
            if self.transcript.sentences[item.sentence].numbers.len() >= 2
                && self.another_field_outweighs(field, item.sentence, among)
            {
                let sent = &self.transcript.sentences[item.sentence];
                found.retain(|c| {
                    let range = sent.clause_range(c.clause);
                    let stems = sent.stems.get(range).unwrap_or(&[]);
                    let mine = keyword_score(profile, stems);
                    mine > 0.0
                        && everyone.iter().all(|&other| {
                            other == field
                                || self.profiles[other].definition.field_type
                                    != profile.definition.field_type
                                || keyword_score(&self.profiles[other], stems) <= mine
                        })
                });
            }
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
            // "How much is the six for a week?" "Six is three-eighty for
            // the week.": a figure the wh-question itself named is what it
            // asks about, not the answer.
            // (Only beside another figure: "Still two hundred?" "Two
            // hundred, yeah." answers with it.)
            if item.role == Role::Answer
                && self.asks_wh(item.region)
                && let Some(question) = self.transcript.last_question(item.region)
            {
                let named = |c: &NumberCandidate| {
                    question
                        .numbers
                        .iter()
                        .any(|m| same_amount(m.value, c.value))
                };
                if found.iter().any(|c| !named(c)) {
                    found.retain(|c| !named(c));
                }
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
                // "So the diagnostic is seventy-nine": one amount in a
                // sentence of the other side's that names the field
                // strongly is given, asked or not.
                let volunteered = self.transcript.turns[turn].speaker == Speaker::Recipient
                    && (self.relevance(field, item.sentence) >= VOLUNTEERED_THRESHOLD
                        || self.opens_with_the_field(profile, item.sentence))
                    && found.len() == 1;
                // "He was told forty-five dollars a mow. Is that still
                // right?" "Yeah, that's right.": the asker's amount of the
                // field, confirmed plainly.
                let confirmed = self.transcript.turns[turn].speaker == Speaker::Agent
                    && self.transcript.last_question(turn).is_some()
                    && self.confirmed_plainly(turn);
                for candidate in &mut found {
                    if confirmed {
                        candidate.answered = true;
                        candidate.score += 0.5;
                    }
                    if (volunteered || self.echoed_at_once(turn, candidate.value))
                        && self.stated_plainly(
                            profile,
                            number_profile,
                            item.sentence,
                            candidate.value,
                        )
                    {
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
        self.settle_by_read_back(field, &mut candidates);
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

/// "an hour", "about a week", "a fortnight": an amount of time implied by
/// an article.
pub(super) fn said_by_its_article(sent: &Sentence, m: &NumberMention) -> bool {
    // (Only the article and the unit: "an hour and a half" is said outright.)
    matches!(m.unit, Unit::Duration(_))
        && m.end == m.start + 2
        && sent
            .tokens
            .get(m.start)
            .is_some_and(|t| matches!(t.lower.as_str(), "a" | "an"))
}
