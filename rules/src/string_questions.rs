//! Text values read through the question: the value a yes/no question
//! puts, taken when the reply says yes ("Is collection on Tuesday?"
//! "Yes."), and replies that refuse, so carry no value.

use super::boolean::Polarity;
use super::evidence::{Analysis, Role};
use super::lexicon::{DODGES, FILLERS, HOLDS, REVISION_CUES};
use super::names::{join_tokens, no_person, proper_spans};
use super::phrase::{has_any_phrase, has_split_phrase, is_negated_text};
use super::profile::{FieldProfile, StringKind};
use super::string::StringCandidate;
use super::string_candidates::modifier_candidates;
use super::transcript::{SentenceIndex, TurnIndex, clause_text};

impl Analysis<'_, '_> {
    /// Whether the reply to the question in turn `open` is a clear yes.
    pub(super) fn answered_yes(&self, profile: &FieldProfile, open: TurnIndex) -> bool {
        let Some(region) = self.region(open) else {
            return false;
        };
        let asker = self.transcript.turns[open].speaker;
        let Some(&reply) = region
            .turns
            .iter()
            .find(|&&turn| self.transcript.turns[turn].speaker != asker)
        else {
            return false;
        };
        self.reply_polarity(
            profile,
            &self.transcript.turns[reply].sentences,
            false,
            reply == open.next(),
            true,
        ) == Some(Polarity::Yes)
    }

    /// A reply that opens with a refusal or a dodge ("No, nothing's
    /// settled", "No idea at all") carries no value for a string field.
    pub(super) fn reply_refuses(&self, sentence: SentenceIndex) -> bool {
        let sent = &self.transcript.sentences[sentence];
        let turn = &self.transcript.turns[sent.turn];
        let Some(&first) = turn.sentences.first() else {
            return false;
        };
        let first_sent = &self.transcript.sentences[first];
        let Some(first_clause) = first_sent.clause_ids().into_iter().find(|&clause| {
            clause_text(first_sent, clause)
                .split(' ')
                .any(|w| !w.is_empty() && !set!(FILLERS).contains(w))
        }) else {
            return false;
        };
        let text = clause_text(first_sent, first_clause);
        let opens_no = text
            .split(' ')
            .find(|w| !set!(FILLERS).contains(w))
            .is_some_and(|w| matches!(w, "no" | "nope" | "nah"))
            && !has_any_phrase(text, &["no problem", "no worries"]);
        let first_text: String = first_sent.lower_text();
        // "Let me pull it up… B7704, yes.": a hold that the turn goes on
        // past is a search, and what follows it answers.
        let clauses_in_turn: usize = turn
            .sentences
            .iter()
            .map(|&other| self.transcript.sentences[other].clause_ids().len())
            .sum();
        let hold_then_answer = has_split_phrase(text, phrases!(HOLDS))
            && !phrases!(DODGES)
                .iter()
                .filter(|dodge| !phrases!(HOLDS).contains(dodge))
                .any(|dodge| has_split_phrase(&first_text, std::slice::from_ref(dodge)))
            && clauses_in_turn > 1
            // (Not "Let me check. I can't see it here, you'd have to ask
            // Sarah in dispatch.")
            && !turn.sentences.iter().any(|&other| {
                let text = self.transcript.sentences[other].lower_text();
                is_negated_text(&text)
                    || has_any_phrase(
                        &text,
                        &["ask", "would know", "check with", "speak to", "talk to"],
                    )
            });
        let dodge = has_split_phrase(&first_text, phrases!(DODGES)) && !hold_then_answer;
        // Only when nothing after a correction cue rescues it.
        let later_cue = turn.sentences.iter().any(|&other| {
            let other_sent = &self.transcript.sentences[other];
            other_sent.clause_ids().into_iter().any(|clause| {
                let text = clause_text(other_sent, clause);
                (other != first || clause != first_clause)
                    && (has_split_phrase(text, phrases!(REVISION_CUES))
                        || has_any_phrase(text, &["sorry", "rather", "make it"]))
            })
        });
        (opens_no || dodge) && !later_cue
    }

    /// Values a question itself proposes, for when the reply is a plain yes.
    pub(super) fn question_candidates(
        &self,
        profile: &FieldProfile,
        string_kind: &StringKind,
        sentence: SentenceIndex,
    ) -> Vec<StringCandidate> {
        let sent = &self.transcript.sentences[sentence];
        let mut out = Vec::new();
        match string_kind {
            StringKind::Name { common, person, .. } => {
                for (start, end) in proper_spans(sent, self.transcript) {
                    if *person
                        && (no_person(sent, start, end)
                            || self.named_as_a_place(&join_tokens(&sent.tokens[start..end])))
                    {
                        continue;
                    }
                    out.push(self.candidate_at(
                        sentence,
                        start,
                        join_tokens(&sent.tokens[start..end]),
                        1,
                    ));
                }
                if out.is_empty() && *common {
                    out.extend(modifier_candidates(self, profile, sentence, true));
                }
            }
            StringKind::Generic => out.extend(modifier_candidates(self, profile, sentence, true)),
            // "Is collection on Tuesday?" "Yes.": the day, time, date or
            // colour the question puts, when it puts one.
            StringKind::Weekday
            | StringKind::Month
            | StringKind::Date
            | StringKind::Time { .. }
            | StringKind::Color => {
                let mut offered = Vec::new();
                out.extend(self.string_candidates(
                    profile,
                    string_kind,
                    sentence,
                    Role::Answer,
                    false,
                    &mut offered,
                ));
            }
            _ => {}
        }
        out
    }
}
