//! Stage 3: which turns raise each field, the regions of replies they open,
//! and the evidence sentences a value is read from.

use super::lexicon::{FILLERS, PUSH_BACKS, REVISION_CUES};
use super::phrase::{has_any_phrase, has_split_phrase};
use super::profile::{FieldIndex, FieldProfile, FieldUnit, ValueKind};
use super::relevance::{
    TurnParts, is_bare_question, keyword_mask, keyword_score, keyword_score_in, mask_score,
    turn_parts, turn_score, type_bonus,
};
use super::transcript::{Sentence, SentenceIndex, Speaker, Transcript, TurnIndex};
use super::value_kind::per_canonical;
use agentcall_english::units::Unit;

/// Minimum keyword score for a turn to raise a field. A distinctive word
/// of the field's name scores 2, a generic or light one 0.5 to 1, a
/// description word 1 (0.5 when the objective uses it too), a synonym half
/// its word: 1.5 takes one distinctive name word, or a light name word with
/// a description word, but not description words the objective repeats.
const TOPIC_THRESHOLD: f64 = 1.5;
/// Minimum keyword score for a sentence to count as mentioning a field
/// outright: a little more than a turn needs (see [`TOPIC_THRESHOLD`]),
/// since a sentence is read without the question around it.
pub(super) const DIRECT_THRESHOLD: f64 = 1.75;
/// A region never spans more turns than this.
const MAX_REGION_TURNS: usize = 8;

/// Why a sentence counts as evidence for a field; the order breaks ties
/// when one sentence qualifies twice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Role {
    /// A reply by the answering side of a region.
    Answer,
    /// A statement by the asking side inside its own region.
    Asker,
    /// A sentence that mentions the field outright.
    Direct,
    /// The asking side's first words after the answer ("Friday it is, then.").
    Echo,
    /// The question that raised the field (used only when answered "yes").
    Question,
}

/// One sentence that may carry a field's value, and why it was picked.
#[derive(Debug, Clone, Copy)]
pub(super) struct Evidence {
    pub(super) sentence: SentenceIndex,
    pub(super) role: Role,
    /// Opening turn of the region (for `Question`/`Answer`), else the sentence's turn.
    pub(super) region: TurnIndex,
}

/// The sentences a value was read from: `from` to `to`, in one turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Source {
    pub(super) from: SentenceIndex,
    pub(super) to: SentenceIndex,
}

impl Source {
    /// One sentence.
    pub(super) fn sentence(sentence: SentenceIndex) -> Self {
        Self {
            from: sentence,
            to: sentence,
        }
    }
}

/// The replies to a turn that raised a field.
pub(super) struct Region {
    pub(super) turns: Vec<TurnIndex>,
    /// First asking-side turn after the region (its leading sentences are echoes).
    closer: Option<TurnIndex>,
}

/// The transcript and field profiles with the scores every stage needs,
/// computed once: how strongly each sentence and turn is about each field,
/// which fields each turn raises, and the region each turn opens.
pub(super) struct Analysis<'d, 's> {
    pub(super) transcript: &'d Transcript,
    pub(super) profiles: &'s [FieldProfile<'s>],
    /// Keyword relevance per field, per sentence.
    relevance: Vec<Vec<f64>>,
    /// Topic score per field, per turn.
    topic: Vec<Vec<f64>>,
    /// Region opened by each turn, if any.
    regions: Vec<Option<Region>>,
    /// `topics(turn, 0.6)` for every turn.
    raised: Vec<Vec<FieldIndex>>,
    /// Per turn, the latest earlier turn that raised any field.
    last_raiser: Vec<Option<TurnIndex>>,
}

impl<'d, 's> Analysis<'d, 's> {
    /// Scores every sentence and turn against every field, then finds the
    /// fields each turn raises and the regions they open.
    pub(super) fn new(transcript: &'d Transcript, profiles: &'s [FieldProfile<'s>]) -> Self {
        // Which keywords each sentence mentions, per field: computed once,
        // then unions give turn scores without re-matching words.
        let masks: Vec<Vec<Vec<bool>>> = profiles
            .iter()
            .map(|profile| {
                transcript
                    .sentences
                    .iter()
                    .map(|sentence| keyword_mask(profile, &sentence.topic_stems))
                    .collect()
            })
            .collect();
        let relevance: Vec<Vec<f64>> = profiles
            .iter()
            .zip(&masks)
            .map(|(profile, field_masks)| {
                field_masks
                    .iter()
                    .map(|mask| mask_score(profile, &[mask]))
                    .collect()
            })
            .collect();
        let parts: Vec<Vec<TurnParts>> = profiles
            .iter()
            .zip(&masks)
            .map(|(profile, field_masks)| {
                transcript
                    .turns
                    .iter()
                    .map(|turn| turn_parts(profile, transcript, field_masks, turn))
                    .collect()
            })
            .collect();
        let turn_count = transcript.turns.len();
        let mut topic: Vec<Vec<f64>> = (0..profiles.len())
            .map(|field| {
                (0..turn_count)
                    .map(|turn| {
                        let context_question = parts.iter().all(|row| row[turn].question <= 0.0);
                        turn_score(parts[field][turn], context_question)
                    })
                    .collect()
            })
            .collect();
        // "Does it have one?": a bare follow-up question that raises nothing
        // itself is about what the other side just said.
        for turn in 1..turn_count {
            let bare_question = transcript.turns[turn]
                .sentences
                .iter()
                .map(|&sentence| &transcript.sentences[sentence])
                .any(|sentence| sentence.question && is_bare_question(sentence));
            let quiet = topic.iter().all(|row| row[turn] < TOPIC_THRESHOLD);
            if bare_question
                && quiet
                && transcript.turns[turn - 1].speaker != transcript.turns[turn].speaker
            {
                // Only for fields the question does touch ("have" in "Does it have one?").
                for row in &mut topic {
                    if row[turn] > 0.0 {
                        row[turn] = row[turn].max(row[turn - 1]);
                    }
                }
            }
        }
        let mut analysis = Analysis {
            transcript,
            profiles,
            relevance,
            topic,
            regions: Vec::new(),
            raised: Vec::new(),
            last_raiser: Vec::new(),
        };
        analysis.raised = analysis
            .turn_indices()
            .map(|turn| {
                let mut raised = analysis.topics(turn, 0.6);
                for field in analysis.asked_clause_by_clause(turn) {
                    if !raised.contains(&field) {
                        raised.push(field);
                    }
                }
                raised.sort_unstable();
                raised
            })
            .collect();
        let mut latest = None;
        analysis.last_raiser = analysis
            .raised
            .iter()
            .enumerate()
            .map(|(turn, fields)| {
                let before = latest;
                if !fields.is_empty() {
                    latest = Some(TurnIndex(turn));
                }
                before
            })
            .collect();
        analysis.regions = analysis
            .turn_indices()
            .map(|turn| analysis.region_of(turn))
            .collect();
        analysis
    }

    /// Every field, in the caller's order.
    pub(super) fn field_indices(&self) -> impl Iterator<Item = FieldIndex> + use<> {
        (0..self.profiles.len()).map(FieldIndex)
    }

    /// Every turn, in transcript order.
    pub(super) fn turn_indices(&self) -> impl Iterator<Item = TurnIndex> + use<> {
        (0..self.transcript.turns.len()).map(TurnIndex)
    }

    /// Every sentence with its index, in transcript order.
    pub(super) fn sentences(
        &self,
    ) -> impl Iterator<Item = (SentenceIndex, &'d Sentence)> + use<'d> {
        self.transcript
            .sentences
            .iter()
            .enumerate()
            .map(|(position, sentence)| (SentenceIndex(position), sentence))
    }

    /// How strongly `turn` is about `field`.
    pub(super) fn topic(&self, field: FieldIndex, turn: TurnIndex) -> f64 {
        self.topic[field.0][turn.0]
    }

    /// How strongly `sentence` mentions `field` (keywords only).
    pub(super) fn relevance(&self, field: FieldIndex, sentence: SentenceIndex) -> f64 {
        self.relevance[field.0][sentence.0]
    }

    /// The fields `turn` raises.
    pub(super) fn raised(&self, turn: TurnIndex) -> &[FieldIndex] {
        &self.raised[turn.0]
    }

    /// The fields raised by the latest turn before `turn` that raised any.
    fn last_raised_before(&self, turn: TurnIndex) -> &[FieldIndex] {
        self.last_raiser
            .get(turn.0)
            .copied()
            .flatten()
            .map_or(&[], |raiser| self.raised(raiser))
    }

    /// The region `turn` opens, if it opens one.
    pub(super) fn region(&self, turn: TurnIndex) -> Option<&Region> {
        self.regions.get(turn.0).and_then(Option::as_ref)
    }

    /// Every region with the turn that opened it.
    pub(super) fn regions(&self) -> impl Iterator<Item = (TurnIndex, &Region)> {
        self.regions
            .iter()
            .enumerate()
            .filter_map(|(position, region)| Some((TurnIndex(position), region.as_ref()?)))
    }

    /// Fields a turn raises: scores at least `TOPIC_THRESHOLD` and within `ratio` of the best.
    pub(super) fn topics(&self, turn: TurnIndex, ratio: f64) -> Vec<FieldIndex> {
        let best = self
            .field_indices()
            .map(|field| self.topic(field, turn))
            .fold(0.0_f64, f64::max);
        if best < TOPIC_THRESHOLD {
            return Vec::new();
        }
        self.field_indices()
            .filter(|&field| {
                self.topic(field, turn) >= TOPIC_THRESHOLD
                    && self.topic(field, turn) >= ratio * best
            })
            .collect()
    }

    /// "What does it cost to hire the hall, and is there a deposit?": the
    /// field each clause of a question is most about, when it names it
    /// well enough, so that a question asking two things raises both.
    fn asked_clause_by_clause(&self, turn: TurnIndex) -> Vec<FieldIndex> {
        let mut asked = Vec::new();
        for &sentence in &self.transcript.turns[turn].sentences {
            let sent = &self.transcript.sentences[sentence];
            if !sent.question || sent.clause_ids().len() < 2 {
                continue;
            }
            // The one field each clause is most about.
            let mut by_clause: Vec<FieldIndex> = Vec::new();
            for clause in sent.clause_ids() {
                let stems = sent.stems.get(sent.clause_range(clause)).unwrap_or(&[]);
                let scores: Vec<(FieldIndex, f64)> = self
                    .field_indices()
                    .map(|field| (field, keyword_score(&self.profiles[field.0], stems)))
                    .collect();
                let best = scores.iter().map(|(_, score)| *score).fold(0.0, f64::max);
                let top: Vec<FieldIndex> = scores
                    .iter()
                    .filter(|(_, score)| *score == best)
                    .map(|(field, _)| *field)
                    .collect();
                if best >= TOPIC_THRESHOLD && top.len() == 1 && !by_clause.contains(&top[0]) {
                    by_clause.push(top[0]);
                }
            }
            // Only a question asking two things or more.
            if by_clause.len() >= 2 {
                asked.extend(by_clause);
            }
        }
        asked
    }

    /// Whether `turn` asks a question about `field` itself (or a bare
    /// question about what it just said).
    pub(super) fn asks_about(&self, field: FieldIndex, turn: TurnIndex) -> bool {
        let bare = self.transcript.turns[turn]
            .sentences
            .iter()
            .map(|&sentence| &self.transcript.sentences[sentence])
            .filter(|sentence| sentence.question)
            .any(is_bare_question);
        self.turn_has_question(turn)
            && (self.question_topic(field, turn) >= TOPIC_THRESHOLD
                || (bare && self.topic(field, turn) >= TOPIC_THRESHOLD))
    }

    /// For yes/no fields: the turn raises `field` clearly more than any other
    /// yes/no field (a yes or no cannot answer a number or name, so those do
    /// not compete), and is not mostly about something else.
    fn raises_strictly(&self, field: FieldIndex, turn: TurnIndex) -> bool {
        let mine = self.topic(field, turn);
        let all_best = self
            .field_indices()
            .map(|other| self.topic(other, turn))
            .fold(0.0_f64, f64::max);
        let boolean_best = self
            .field_indices()
            .filter(|&other| matches!(self.profiles[other].kind, ValueKind::Boolean))
            .map(|other| self.topic(other, turn))
            .fold(0.0_f64, f64::max);
        mine >= TOPIC_THRESHOLD && mine >= 0.85 * boolean_best && mine >= 0.5 * all_best
    }

    /// Keyword score of a turn's question sentences alone.
    fn question_topic(&self, field: FieldIndex, turn: TurnIndex) -> f64 {
        let profile = &self.profiles[field];
        let questions: Vec<&Sentence> = self.transcript.turns[turn]
            .sentences
            .iter()
            .map(|&sentence| &self.transcript.sentences[sentence])
            .filter(|sentence| sentence.question)
            .collect();
        let stems: Vec<&[String]> = questions
            .iter()
            .map(|sentence| sentence.topic_stems.as_slice())
            .collect();
        let bonus = if questions
            .iter()
            .any(|sentence| type_bonus(profile, sentence))
        {
            1.0
        } else {
            0.0
        };
        keyword_score_in(profile, &stems) + bonus
    }

    /// "I can do blue or green": a turn offering alternatives.
    fn turn_offers(&self, turn: TurnIndex) -> bool {
        self.transcript.turns[turn]
            .sentences
            .iter()
            .any(|&sentence| {
                let words: Vec<&str> = self.transcript.sentences[sentence].word_lowers().collect();
                words.iter().enumerate().any(|(position, word)| {
                    *word == "or"
                        && position > 0
                        && words.get(position + 1).is_some_and(|next| {
                            !matches!(*next, "so" | "not" | "anything" | "something")
                        })
                })
            })
    }

    /// Whether any sentence of `turn` is a question.
    fn turn_has_question(&self, turn: TurnIndex) -> bool {
        self.transcript.turns[turn]
            .sentences
            .iter()
            .any(|&sentence| self.transcript.sentences[sentence].question)
    }

    /// Whether every question in `turn` only asks the other side to repeat
    /// or pin down what they said, rather than moving on.
    fn is_clarification(&self, turn: TurnIndex) -> bool {
        self.transcript.turns[turn]
            .sentences
            .iter()
            .filter(|&&sentence| self.transcript.sentences[sentence].question)
            .all(|&sentence| {
                let sent = &self.transcript.sentences[sentence];
                let text: String = sent.lower_text();
                let word_count = sent.word_lowers().count();
                let new_topic = has_any_phrase(
                    &text,
                    &["another", "other", "else", "anything", "any other"],
                );
                let opener = sent.word_lowers().find(|w| !set!(FILLERS).contains(w));
                let fresh_question = matches!(
                    opener,
                    Some(
                        "when"
                            | "where"
                            | "who"
                            | "how"
                            | "why"
                            | "is"
                            | "are"
                            | "do"
                            | "does"
                            | "did"
                            | "can"
                            | "could"
                            | "will"
                            | "would"
                            | "should"
                            | "has"
                            | "have"
                    )
                );
                !new_topic
                    && ((word_count <= 3 && !fresh_question)
                        || has_any_phrase(
                            &text,
                            &[
                                "repeat",
                                "again",
                                "spell",
                                "pardon",
                                "say that",
                                "did you say",
                                "was that",
                                "what was",
                                "come again",
                                "which one",
                                "is that right",
                                "specific",
                                "exact",
                                "exactly",
                                "precise",
                                "ballpark",
                                "estimate",
                                "confirm that",
                                "you said",
                                "is that",
                                "sorry",
                            ],
                        ))
            })
    }

    /// Whether `reply` is about a field `open` did not raise more than
    /// about any field it did.
    fn turns_to_another_field(&self, open: TurnIndex, reply: TurnIndex) -> bool {
        let raised = self.raised(open);
        let own = raised
            .iter()
            .map(|&field| self.topic(field, reply))
            .fold(0.0_f64, f64::max);
        self.field_indices()
            .filter(|field| !raised.contains(field))
            .any(|field| self.topic(field, reply) >= 1.0 && self.topic(field, reply) > own)
    }

    /// Whether `turn` opens by pushing back on what the other side just
    /// said (see [`PUSH_BACKS`]).
    fn pushes_back(&self, turn: TurnIndex) -> bool {
        let Some(&first) = self.transcript.turns[turn].sentences.first() else {
            return false;
        };
        let text = self.transcript.sentences[first].lower_text();
        has_any_phrase(&text, PUSH_BACKS)
    }

    /// The replies to a turn that raises a field: the other side's turns until
    /// the asking side moves on (raises something else, asks a new question,
    /// or speaks again without having been asked anything).
    fn region_of(&self, open: TurnIndex) -> Option<Region> {
        let asker = self.transcript.turns[open].speaker;
        // The agent's statements propose ("I'm calling to check that …"); the other
        // side only invites an answer by asking about the field itself.
        let opens = if asker == Speaker::Agent {
            !self.raised(open).is_empty()
        } else {
            self.field_indices()
                .any(|field| self.question_topic(field, open) >= TOPIC_THRESHOLD)
        };
        if !opens {
            return None;
        }
        let mut turns = Vec::new();
        let mut closer = None;
        let end = self
            .transcript
            .turns
            .len()
            .min(open.0 + 1 + MAX_REGION_TURNS);
        for reply in (open.0 + 1..end).map(TurnIndex) {
            if self.transcript.turns[reply].speaker == asker {
                let has_topic = !self.raised(reply).is_empty();
                let question = self.turn_has_question(reply);
                // "And the cost?" is short, yet moves on to another field.
                let clarifying = question
                    && self.is_clarification(reply)
                    && !self.turns_to_another_field(open, reply);
                // The other side asked something back, or offered a choice.
                let was_asked = reply.previous().is_some_and(|previous| {
                    self.transcript.turns[previous].speaker != asker
                        && (self.turn_has_question(previous) || self.turn_offers(previous))
                });
                // Answering the other side's question back keeps the region
                // open, and so does pushing back on the answer's terms
                // ("She mentioned ninety minutes." "For ninety minutes
                // it's five fifty.").
                let pushes_back = !question && !has_topic && self.pushes_back(reply);
                let moves_on = if question {
                    !clarifying
                } else {
                    !was_asked && !pushes_back
                };
                if moves_on || (has_topic && !was_asked) {
                    closer = Some(reply);
                    break;
                }
            }
            turns.push(reply);
        }
        Some(Region { turns, closer })
    }

    /// Whether a sentence is about another field (among `among`) much more
    /// than about `field`.
    fn belongs_elsewhere(
        &self,
        field: FieldIndex,
        sentence: SentenceIndex,
        among: &[FieldIndex],
    ) -> bool {
        let mine = self.relevance(field, sentence);
        // "Install is three forty-nine and monitoring runs twenty-nine
        // ninety-nine a month": a sentence with an amount for each field it
        // names is shared (each clause is read for its own field).
        let shared = mine >= 1.0 && self.transcript.sentences[sentence].numbers.len() >= 2;
        !shared && self.another_field_outweighs(field, sentence, among)
    }

    /// Whether a field of `among` of the same type as `field` is
    /// clearly more what `sentence` is about.
    pub(super) fn another_field_outweighs(
        &self,
        field: FieldIndex,
        sentence: SentenceIndex,
        among: &[FieldIndex],
    ) -> bool {
        let mine = self.relevance(field, sentence);
        // Only fields of the same type compete: "the parcel has been found"
        // can settle a yes/no field and still lead to a place.
        let field_type = self.profiles[field].definition.field_type;
        among.iter().any(|&other| {
            other != field
                && self.profiles[other].definition.field_type == field_type
                && self.relevance(other, sentence) >= DIRECT_THRESHOLD
                && self.relevance(other, sentence) > mine + 0.5
        })
    }

    /// A rate field ("weekly rate in dollars") and an amount stated at that
    /// rate ("$90 a week"): the shape alone is strong evidence.
    fn typed_rate(&self, field: FieldIndex, sentence: &Sentence) -> bool {
        let ValueKind::Number(number_profile) = &self.profiles[field].kind else {
            return false;
        };
        let Some(want) = number_profile.per else {
            return false;
        };
        number_profile.unit == FieldUnit::Money
            && sentence.numbers.iter().any(|mention| {
                matches!(mention.unit, Unit::Money | Unit::Pound | Unit::None)
                    && mention.per.as_deref().and_then(per_canonical) == Some(want)
            })
    }

    /// Evidence sentences for `field`, in transcript order. `strict` (for
    /// yes/no fields) keeps only regions whose turn is clearly about it.
    pub(super) fn evidence(&self, field: FieldIndex, strict: bool) -> Vec<Evidence> {
        let mut evidence: Vec<Evidence> = Vec::new();
        for (open, region) in self.regions() {
            let raised = if strict {
                self.raises_strictly(field, open)
            } else {
                self.raised(open).contains(&field)
            };
            if !raised {
                continue;
            }
            let asker = self.transcript.turns[open].speaker;
            // A reply is shared out only among the fields this turn raised.
            let raised_here = self.raised(open);
            for &sentence in &self.transcript.turns[open].sentences {
                if self.transcript.sentences[sentence].question {
                    evidence.push(Evidence {
                        sentence,
                        role: Role::Question,
                        region: open,
                    });
                }
            }
            for &reply in &region.turns {
                let role = if self.transcript.turns[reply].speaker == asker {
                    Role::Asker
                } else {
                    Role::Answer
                };
                for &sentence in &self.transcript.turns[reply].sentences {
                    if role == Role::Asker && self.transcript.sentences[sentence].question {
                        continue;
                    }
                    if !self.belongs_elsewhere(field, sentence, raised_here) {
                        evidence.push(Evidence {
                            sentence,
                            role,
                            region: open,
                        });
                    }
                }
            }
            if let Some(closer) = region.closer {
                for &sentence in &self.transcript.turns[closer].sentences {
                    // Up to the closer's first question; echoes only ever
                    // confirm a value already given, so a sentence that also
                    // touches another field ("She has the loyalty card, so
                    // two twenty.") is still safe to read.
                    if self.transcript.sentences[sentence].question {
                        break;
                    }
                    evidence.push(Evidence {
                        sentence,
                        role: Role::Echo,
                        region: open,
                    });
                }
            }
        }
        let everyone: Vec<FieldIndex> = self.field_indices().collect();
        for (sentence, sent) in self.sentences() {
            if sent.question || self.belongs_elsewhere(field, sentence, &everyone) {
                continue;
            }
            if self.relevance(field, sentence) >= DIRECT_THRESHOLD
                || (self.relevance(field, sentence) >= 1.0 && self.typed_rate(field, sent))
            {
                evidence.push(Evidence {
                    sentence,
                    role: Role::Direct,
                    region: sent.turn,
                });
            }
        }
        if !strict {
            evidence.extend(self.revisions(field, &evidence, &everyone));
        }
        evidence.sort_by_key(|item| (item.sentence, item.role));
        evidence.dedup_by_key(|item| item.sentence);
        evidence
    }

    /// Sentences after the field was first answered that revise an answer
    /// without naming the field ("Oh wait, Thursday's gone now. We'll do
    /// Friday instead.", "Sorry, make that sixteen."): a revision cue, and
    /// no other field more clearly about it. Read as answers, so the
    /// latest reply still wins; the value must still fit the field.
    fn revisions(
        &self,
        field: FieldIndex,
        evidence: &[Evidence],
        everyone: &[FieldIndex],
    ) -> Vec<Evidence> {
        let Some(answered) = evidence
            .iter()
            .filter(|item| item.role == Role::Answer)
            .map(|item| self.transcript.sentences[item.sentence].turn)
            .min()
        else {
            return Vec::new();
        };
        let mut found = Vec::new();
        let mut revising: Option<TurnIndex> = None;
        for (sentence, sent) in self.sentences() {
            if sent.turn <= answered {
                continue;
            }
            let text: String = sent.lower_text();
            let cue = has_split_phrase(&text, phrases!(REVISION_CUES));
            if cue {
                revising = Some(sent.turn);
            }
            // The cue's sentence and the rest of its turn, said by the
            // answering side, when the field is the last one talked about:
            // "make that sixteen" revises what was just said.
            if revising != Some(sent.turn)
                || self.transcript.turns[sent.turn].speaker == Speaker::Agent
                || !self.last_raised_before(sent.turn).contains(&field)
                || sent.question
                || self.belongs_elsewhere(field, sentence, everyone)
                || evidence.iter().any(|item| item.sentence == sentence)
            {
                continue;
            }
            found.push(Evidence {
                sentence,
                role: Role::Answer,
                region: sent.turn,
            });
        }
        found
    }
}
