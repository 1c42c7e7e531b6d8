//! The asker's read-back: of the figures one reply gives, the one the
//! asker repeats at once is the one that was meant for the field.

use super::evidence::Analysis;
use super::number::NumberCandidate;
use super::profile::{FieldIndex, FieldUnit, ValueKind};
use super::relevance::keyword_score;
use super::transcript::{Speaker, TurnIndex};
use agentcall_english::numbers::{NumberMention, same_amount};
use agentcall_english::units::Unit;

impl Analysis<'_, '_> {
    /// "Spanish is thirty-five a page, Arabic's a bit more, forty-five per
    /// page." "Forty-five a page, three business days.": when a reply of
    /// the other side gives `field` two or more figures and the asker's
    /// next turn opens by repeating exactly one of them, that one is the
    /// reply's answer and the others are no rivals to it. Not when the
    /// repeat speaks of another field ("Fifty for the deposit"), nor when
    /// the other side then objects ("No, the forty-five is for Arabic");
    /// a repeat put as a question counts only once it is answered yes.
    pub(super) fn settle_by_read_back(
        &self,
        field: FieldIndex,
        candidates: &mut [NumberCandidate],
    ) {
        let mut turns: Vec<TurnIndex> = candidates
            .iter()
            .filter(|c| !c.echo && self.transcript.turns[c.turn].speaker == Speaker::Recipient)
            .map(|c| c.turn)
            .collect();
        turns.sort_unstable();
        turns.dedup();
        for turn in turns {
            let of_reply = |c: &NumberCandidate| c.turn == turn && !c.echo;
            let best = candidates
                .iter()
                .filter(|c| of_reply(c))
                .map(|c| c.score)
                .fold(f64::NEG_INFINITY, f64::max);
            // Only figures that fit the field about as well as the best
            // ("three courses" is no price; "Ninety for the first hour,
            // then sixty" read back as "Sixty an hour after" does not
            // outweigh the clause that names the field), each read one way
            // only ("five fifty" may be 5.50 or 550: no read-back settles
            // that).
            let mut values: Vec<f64> = Vec::new();
            let mut ambiguous = false;
            for c in candidates
                .iter()
                .filter(|c| of_reply(c))
                .filter(|c| c.score >= best - 0.5)
            {
                ambiguous |= c.alt.is_some();
                if !values.iter().any(|&v| same_amount(v, c.value)) {
                    values.push(c.value);
                }
            }
            if values.len() < 2 || ambiguous {
                continue;
            }
            let Some(read_back) = self.read_back_of(field, turn, &values) else {
                continue;
            };
            // The figure repeated must be said as much of the field as any
            // other of the reply ("Singles are sixty-five, doubles are
            // ninety." "Ninety for a double?" repeats the other room's).
            let named = |c: &NumberCandidate| {
                let sent = &self.transcript.sentences[c.sentence];
                let stems = sent.stems.get(sent.clause_range(c.clause)).unwrap_or(&[]);
                keyword_score(&self.profiles[field], stems)
            };
            let most = candidates
                .iter()
                .filter(|c| of_reply(c))
                .map(named)
                .fold(0.0, f64::max);
            let repeated = candidates
                .iter()
                .filter(|c| of_reply(c))
                .filter(|c| same_amount(c.value, read_back))
                .map(named)
                .fold(0.0, f64::max);
            if repeated < most {
                continue;
            }
            for c in candidates.iter_mut().filter(|c| of_reply(c)) {
                if same_amount(c.value, read_back) {
                    c.score = best + 0.5;
                } else {
                    c.score = c.score.min(best - 1.0);
                }
            }
        }
    }

    /// The one of `values` (said in the other side's `turn`) that the
    /// asker's next turn repeats in its first sentence, if exactly one is
    /// and the repeat stands (see [`Self::settle_by_read_back`]).
    fn read_back_of(&self, field: FieldIndex, turn: TurnIndex, values: &[f64]) -> Option<f64> {
        let asker = turn.next();
        let next = self.transcript.turns.get(asker.0)?;
        if next.speaker != Speaker::Agent {
            return None;
        }
        let first = *next.sentences.first()?;
        let repeat = &self.transcript.sentences[first];
        // The repeat's clause that holds the figure speaks of no other
        // field ("Forty-five a page, three business days" repeats the
        // price; "Fifty for the deposit" does not repeat the rent).
        let unit = match &self.profiles[field].kind {
            ValueKind::Number(number) => number.unit,
            _ => return None,
        };
        let of_this_field = |m: &NumberMention| {
            // ("… and that takes about thirty-five minutes?" repeats no
            // price of thirty-five.)
            let same_kind = match unit {
                FieldUnit::Money => matches!(m.unit, Unit::None | Unit::Money | Unit::Pound),
                FieldUnit::Count => matches!(m.unit, Unit::None | Unit::Count(_)),
                _ => true,
            };
            if !same_kind {
                return false;
            }
            let Some(&clause) = repeat.token_clauses.get(m.start) else {
                return false;
            };
            let stems = repeat.stems.get(repeat.clause_range(clause)).unwrap_or(&[]);
            !self.field_indices().any(|other| {
                other != field
                    && stems.iter().any(|st| {
                        self.profiles[other].is_strong_keyword(st)
                            && !self.profiles[field].is_own_word(st)
                    })
            })
        };
        let mut repeated = values.iter().copied().filter(|&v| {
            repeat
                .numbers
                .iter()
                .any(|m| same_amount(m.value, v) && of_this_field(m))
        });
        let value = repeated.next()?;
        if repeated.next().is_some() {
            return None;
        }
        let stands = if repeat.question {
            self.confirmed_at_once(asker)
        } else {
            !self.objects_at_once(asker)
        };
        stands.then_some(value)
    }

    /// Whether the other side's reply to the asker's `turn` opens with a
    /// plain yes ("That's right.", "Yep.").
    fn confirmed_at_once(&self, turn: TurnIndex) -> bool {
        let opening = self.opening_words(turn.next());
        matches!(
            opening.as_slice(),
            [
                "yes" | "yeah" | "yep" | "yup" | "correct" | "right" | "exactly",
                ..
            ] | ["that's" | "that", "right" | "correct" | "it", ..]
                | ["that", "is", "right" | "correct"]
        )
    }

    /// Whether the other side's reply to the asker's `turn` opens by
    /// objecting ("No, …", "Actually, …", "Sorry, …").
    fn objects_at_once(&self, turn: TurnIndex) -> bool {
        let opening = self.opening_words(turn.next());
        matches!(
            opening.first().copied(),
            Some("no" | "nope" | "nah" | "actually" | "sorry" | "wait" | "not" | "hang" | "hold")
        )
    }

    /// The first three words of `turn`, lower case, if the other side says
    /// it; none otherwise.
    fn opening_words(&self, turn: TurnIndex) -> Vec<&str> {
        let Some(reply) = self.transcript.turns.get(turn.0) else {
            return Vec::new();
        };
        if reply.speaker != Speaker::Recipient {
            return Vec::new();
        }
        reply
            .sentences
            .iter()
            .flat_map(|&sentence| self.transcript.sentences[sentence].word_lowers())
            .take(3)
            .collect()
    }
}
