use super::lexicon::FILLERS;
use super::phrase::has_any_phrase;
use super::profile::{FieldProfile, FieldUnit, ValueKind};
use super::relevance::{
    TurnParts, is_bare_question, keyword_mask, keyword_score_in, mask_score, turn_parts,
    turn_score, type_bonus,
};
use super::transcript::{Sentence, Speaker, Transcript};
use super::value_kind::per_canonical;
use crate::extract::text::units::Unit;

/// Minimum keyword score for a turn to raise a field.
const TOPIC_THRESHOLD: f64 = 1.5;
/// Minimum keyword score for a sentence to count as mentioning a field outright.
pub(super) const DIRECT_THRESHOLD: f64 = 1.75;
/// A region never spans more turns than this.
const MAX_REGION_TURNS: usize = 8;

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

#[derive(Debug, Clone, Copy)]
pub(super) struct Evidence {
    pub(super) sentence: usize,
    pub(super) role: Role,
    /// Opening turn of the region (for `Question`/`Answer`), else the sentence's turn.
    pub(super) region: usize,
}

pub(super) struct Region {
    pub(super) turns: Vec<usize>,
    /// First asking-side turn after the region (its leading sentences are echoes).
    closer: Option<usize>,
}

pub(super) struct Analysis<'d, 's> {
    pub(super) transcript: &'d Transcript,
    pub(super) profiles: &'s [FieldProfile<'s>],
    /// kw relevance per (field, sentence).
    pub(super) relevance: Vec<Vec<f64>>,
    /// Topic score per (field, turn).
    pub(super) topic: Vec<Vec<f64>>,
    /// Regions opened by each turn.
    pub(super) regions: Vec<Option<Region>>,
    /// `topics(t, 0.6)` for every turn.
    pub(super) raised: Vec<Vec<usize>>,
}

impl<'d, 's> Analysis<'d, 's> {
    pub(super) fn new(transcript: &'d Transcript, profiles: &'s [FieldProfile<'s>]) -> Self {
        // Which keywords each sentence mentions, per field: computed once,
        // then unions give turn scores without re-matching words.
        let masks: Vec<Vec<Vec<bool>>> = profiles
            .iter()
            .map(|sp| {
                transcript
                    .sentences
                    .iter()
                    .map(|s| keyword_mask(sp, &s.topic_stems))
                    .collect()
            })
            .collect();
        let relevance: Vec<Vec<f64>> = profiles
            .iter()
            .zip(&masks)
            .map(|(sp, m)| m.iter().map(|mask| mask_score(sp, &[mask])).collect())
            .collect();
        let parts: Vec<Vec<TurnParts>> = profiles
            .iter()
            .zip(&masks)
            .map(|(sp, m)| {
                transcript
                    .turns
                    .iter()
                    .map(|t| turn_parts(sp, transcript, m, t))
                    .collect()
            })
            .collect();
        let mut topic: Vec<Vec<f64>> = (0..profiles.len())
            .map(|f| {
                (0..transcript.turns.len())
                    .map(|t| {
                        let context_question = parts.iter().all(|row| row[t].q <= 0.0);
                        turn_score(parts[f][t], context_question)
                    })
                    .collect()
            })
            .collect();
        // "Does it have one?": a bare follow-up question that raises nothing
        // itself is about what the other side just said.
        for t in 1..transcript.turns.len() {
            let bare_question = transcript.turns[t]
                .sentences
                .iter()
                .map(|&s| &transcript.sentences[s])
                .any(|s| s.question && is_bare_question(s));
            let quiet = topic.iter().all(|row| row[t] < TOPIC_THRESHOLD);
            if bare_question
                && quiet
                && transcript.turns[t - 1].speaker != transcript.turns[t].speaker
            {
                // Only for fields the question does touch ("have" in "Does it have one?").
                for row in &mut topic {
                    if row[t] > 0.0 {
                        row[t] = row[t].max(row[t - 1]);
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
        };
        analysis.raised = (0..transcript.turns.len())
            .map(|t| analysis.topics(t, 0.6))
            .collect();
        analysis.regions = (0..transcript.turns.len())
            .map(|t| analysis.region_of(t))
            .collect();
        analysis
    }

    /// Fields a turn raises: scores at least `TOPIC_THRESHOLD` and within `ratio` of the best.
    pub(super) fn topics(&self, turn: usize, ratio: f64) -> Vec<usize> {
        let best = (0..self.profiles.len())
            .map(|f| self.topic[f][turn])
            .fold(0.0_f64, f64::max);
        if best < TOPIC_THRESHOLD {
            return Vec::new();
        }
        (0..self.profiles.len())
            .filter(|&f| {
                self.topic[f][turn] >= TOPIC_THRESHOLD && self.topic[f][turn] >= ratio * best
            })
            .collect()
    }

    /// Whether turn `t` asks a question about `f` itself (or a bare question
    /// about what it just said).
    pub(super) fn asks_about(&self, f: usize, t: usize) -> bool {
        let bare = self.transcript.turns[t]
            .sentences
            .iter()
            .map(|&s| &self.transcript.sentences[s])
            .filter(|s| s.question)
            .any(is_bare_question);
        self.turn_has_question(t)
            && (self.question_topic(f, t) >= TOPIC_THRESHOLD
                || (bare && self.topic[f][t] >= TOPIC_THRESHOLD))
    }

    /// For yes/no fields: the turn raises `f` clearly more than any other
    /// yes/no field (a yes or no cannot answer a number or name, so those do
    /// not compete), and is not mostly about something else.
    fn raises_strictly(&self, f: usize, turn: usize) -> bool {
        let mine = self.topic[f][turn];
        let all_best = (0..self.profiles.len())
            .map(|g| self.topic[g][turn])
            .fold(0.0_f64, f64::max);
        let bool_best = (0..self.profiles.len())
            .filter(|&g| matches!(self.profiles[g].kind, ValueKind::Boolean))
            .map(|g| self.topic[g][turn])
            .fold(0.0_f64, f64::max);
        mine >= TOPIC_THRESHOLD && mine >= 0.85 * bool_best && mine >= 0.5 * all_best
    }

    /// Keyword score of a turn's question sentences alone.
    fn question_topic(&self, f: usize, t: usize) -> f64 {
        let profile = &self.profiles[f];
        let sents: Vec<&Sentence> = self.transcript.turns[t]
            .sentences
            .iter()
            .map(|&s| &self.transcript.sentences[s])
            .filter(|s| s.question)
            .collect();
        let stems: Vec<&[String]> = sents.iter().map(|s| s.topic_stems.as_slice()).collect();
        let bonus = if sents.iter().any(|s| type_bonus(profile, s)) {
            1.0
        } else {
            0.0
        };
        keyword_score_in(profile, &stems) + bonus
    }

    /// "I can do blue or green": a turn offering alternatives.
    fn turn_offers(&self, t: usize) -> bool {
        self.transcript.turns[t].sentences.iter().any(|&s| {
            let ws: Vec<&str> = self.transcript.sentences[s].word_lowers().collect();
            ws.iter().enumerate().any(|(i, w)| {
                *w == "or"
                    && i > 0
                    && ws
                        .get(i + 1)
                        .is_some_and(|n| !matches!(*n, "so" | "not" | "anything" | "something"))
            })
        })
    }

    fn turn_has_question(&self, t: usize) -> bool {
        self.transcript.turns[t]
            .sentences
            .iter()
            .any(|&s| self.transcript.sentences[s].question)
    }

    fn is_clarification(&self, t: usize) -> bool {
        let turn = &self.transcript.turns[t];
        turn.sentences
            .iter()
            .filter(|&&s| self.transcript.sentences[s].question)
            .all(|&s| {
                let sent = &self.transcript.sentences[s];
                let text: String = sent.word_lowers().collect::<Vec<_>>().join(" ");
                let n = sent.word_lowers().count();
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
                    && ((n <= 3 && !fresh_question)
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

    /// The replies to a turn that raises a field: the other side's turns until
    /// the asking side moves on (raises something else, asks a new question,
    /// or speaks again without having been asked anything).
    fn region_of(&self, open: usize) -> Option<Region> {
        let asker = self.transcript.turns[open].speaker;
        // The agent's statements propose ("I'm calling to check that …"); the other
        // side only invites an answer by asking about the field itself.
        let opens = if asker == Speaker::Agent {
            !self.raised[open].is_empty()
        } else {
            (0..self.profiles.len()).any(|f| self.question_topic(f, open) >= TOPIC_THRESHOLD)
        };
        if !opens {
            return None;
        }
        let mut turns = Vec::new();
        let mut closer = None;
        for u in open + 1..self.transcript.turns.len().min(open + 1 + MAX_REGION_TURNS) {
            if self.transcript.turns[u].speaker == asker {
                let has_topic = !self.raised[u].is_empty();
                let question = self.turn_has_question(u);
                let clarifying = question && self.is_clarification(u);
                // The other side asked something back, or offered a choice.
                let was_asked = u > 0
                    && self.transcript.turns[u - 1].speaker != asker
                    && (self.turn_has_question(u - 1) || self.turn_offers(u - 1));
                // Answering the other side's question back keeps the region open.
                let moves_on = if question { !clarifying } else { !was_asked };
                if moves_on || (has_topic && !was_asked) {
                    closer = Some(u);
                    break;
                }
            }
            turns.push(u);
        }
        Some(Region { turns, closer })
    }

    /// Whether a sentence is about another field (among `among`) much more
    /// than about `f`.
    fn belongs_elsewhere(&self, f: usize, s: usize, among: &[usize]) -> bool {
        let mine = self.relevance[f][s];
        // Only fields of the same type compete: "the parcel has been found"
        // can settle a yes/no field and still lead to a place.
        let ty = self.profiles[f].definition.field_type;
        among.iter().any(|&g| {
            g != f
                && self.profiles[g].definition.field_type == ty
                && self.relevance[g][s] >= DIRECT_THRESHOLD
                && self.relevance[g][s] > mine + 0.5
        })
    }

    /// A rate field ("weekly rate in dollars") and an amount stated at that
    /// rate ("$90 a week"): the shape alone is strong evidence.
    fn typed_rate(&self, f: usize, sent: &Sentence) -> bool {
        let ValueKind::Number(number_profile) = &self.profiles[f].kind else {
            return false;
        };
        let Some(want) = number_profile.per else {
            return false;
        };
        number_profile.unit == FieldUnit::Money
            && sent.numbers.iter().any(|m| {
                matches!(m.unit, Unit::Money | Unit::Pound | Unit::None)
                    && m.per.as_deref().and_then(per_canonical) == Some(want)
            })
    }

    /// Evidence sentences for field `f`, in transcript order.
    pub(super) fn evidence(&self, f: usize, strict: bool) -> Vec<Evidence> {
        let mut evidence: Vec<Evidence> = Vec::new();
        for (t, region) in self.regions.iter().enumerate() {
            let Some(region) = region else { continue };
            let raised = if strict {
                self.raises_strictly(f, t)
            } else {
                self.raised[t].contains(&f)
            };
            if !raised {
                continue;
            }
            let asker = self.transcript.turns[t].speaker;
            // A reply is shared out only among the fields this turn raised.
            let raised_here = &self.raised[t];
            for &s in &self.transcript.turns[t].sentences {
                if self.transcript.sentences[s].question {
                    evidence.push(Evidence {
                        sentence: s,
                        role: Role::Question,
                        region: t,
                    });
                }
            }
            for &u in &region.turns {
                let role = if self.transcript.turns[u].speaker == asker {
                    Role::Asker
                } else {
                    Role::Answer
                };
                for &s in &self.transcript.turns[u].sentences {
                    if role == Role::Asker && self.transcript.sentences[s].question {
                        continue;
                    }
                    if !self.belongs_elsewhere(f, s, raised_here) {
                        evidence.push(Evidence {
                            sentence: s,
                            role,
                            region: t,
                        });
                    }
                }
            }
            if let Some(c) = region.closer {
                for &s in &self.transcript.turns[c].sentences {
                    // Up to the closer's first question; echoes only ever
                    // confirm a value already given, so a sentence that also
                    // touches another field ("She has the loyalty card, so
                    // two twenty.") is still safe to read.
                    if self.transcript.sentences[s].question {
                        break;
                    }
                    evidence.push(Evidence {
                        sentence: s,
                        role: Role::Echo,
                        region: t,
                    });
                }
            }
        }
        for (s, sent) in self.transcript.sentences.iter().enumerate() {
            let everyone: Vec<usize> = (0..self.profiles.len()).collect();
            if sent.question || self.belongs_elsewhere(f, s, &everyone) {
                continue;
            }
            if self.relevance[f][s] >= DIRECT_THRESHOLD
                || (self.relevance[f][s] >= 1.0 && self.typed_rate(f, sent))
            {
                evidence.push(Evidence {
                    sentence: s,
                    role: Role::Direct,
                    region: sent.turn,
                });
            }
        }
        evidence.sort_by_key(|e| (e.sentence, e.role));
        evidence.dedup_by_key(|e| e.sentence);
        evidence
    }
}
