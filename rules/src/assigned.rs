//! Who the other side puts on the job ("It'll be Terrence", "he'd have
//! Ewa", "I'll book her with Meenal"): for a field asking who will do it,
//! the answer is often given without the question being asked.

use super::evidence::{Analysis, Source};
use super::names::{join_tokens, name_part_of, no_person, proper_spans};
use super::phrase::has_any_phrase;
use super::profile::{FieldProfile, NamePart};
use super::transcript::{SentenceIndex, Speaker};
use agentcall::domain::FieldDefinition;

impl Analysis<'_, '_> {
    /// The person the other side last assigns to the job in so many words
    /// ("it'll be X", "it'd be X doing it", "you'd have X", "book her with
    /// X", "we'll send X"), for a field whose description asks who will
    /// do, handle or be sent for it; the `part` of the name the field
    /// wants, completed to the full name said elsewhere when it asks for
    /// that. Never the caller's own client (named in the objective).
    pub(super) fn assigned_person(
        &self,
        profile: &FieldProfile,
        part: NamePart,
    ) -> Option<(String, Source)> {
        if !asks_who_is_assigned(profile.definition) {
            return None;
        }
        let mut last = None;
        for (sentence, sent) in self.sentences() {
            if self.transcript.turns[sent.turn].speaker != Speaker::Recipient || sent.question {
                continue;
            }
            for (start, end) in proper_spans(sent, self.transcript) {
                let before = |back: usize| sent.lower_before(start, back).unwrap_or("");
                let assigned = match (before(3), before(2), before(1)) {
                    (_, "it'll" | "it'd" | "that'll" | "that'd", "be") => true,
                    ("it" | "that", "will" | "would", "be") => true,
                    (
                        _,
                        "you'd" | "you'll" | "he'd" | "he'll" | "she'd" | "she'll" | "they'd"
                        | "they'll" | "we'd",
                        "have" | "get",
                    ) => true,
                    (w3, w2, "with") => [w3, w2]
                        .iter()
                        .any(|w| matches!(*w, "book" | "booked" | "put" | "pencil" | "pencilled")),
                    (_, "we'll" | "we're" | "i'll" | "i'm", "send" | "sending") => true,
                    _ => false,
                };
                if !assigned {
                    continue;
                }
                let name = join_tokens(&sent.tokens[start..end]);
                let the_client = self
                    .transcript
                    .objective_lower
                    .contains(&name.to_lowercase());
                if !the_client
                    && !no_person(sent, start, end)
                    && !self.named_as_a_place(&name)
                    && self.said_of_a_person_for_sure(sentence, end)
                {
                    last = Some((sentence, start, end));
                }
            }
        }
        let (sentence, start, end) = last?;
        let words = &self.transcript.sentences[sentence].tokens[start..end];
        if let (NamePart::Full, [one]) = (part, words)
            && let Some((full, said_in)) = self.full_name_of(&one.text)
        {
            return Some((full, Source::sentence(said_in)));
        }
        Some((name_part_of(words, part)?, Source::sentence(sentence)))
    }

    /// Whether the name ending at token `end` of `sentence` is a person
    /// put on the job and kept there: the turn goes on to speak of them as
    /// "he" or "she" ("It'll be Terrence, he's our best"; not "it'll be
    /// Easter", "it'll be Zoom", "I'll book her with Lavender, that's our
    /// quiet room"), the name is no possessive ("Dave's lot") nor one of
    /// alternatives ("Priya or Tom"), and nothing after it in the turn
    /// takes it back ("Oh hang on, Terrence is on leave, I'll let you
    /// know").
    fn said_of_a_person_for_sure(&self, sentence: SentenceIndex, end: usize) -> bool {
        let sent = &self.transcript.sentences[sentence];
        if sent.tokens[end - 1].lower.ends_with("'s") {
            return false;
        }
        let turn = &self.transcript.turns[sent.turn];
        let after: Vec<&str> = turn
            .sentences
            .iter()
            .filter(|&&other| other >= sentence)
            .flat_map(|&other| {
                let words = self.transcript.sentences[other].tokens.iter();
                let skip = if other == sentence { end } else { 0 };
                words
                    .skip(skip)
                    .filter(|t| t.is_word())
                    .map(|t| t.lower.as_str())
            })
            .collect();
        let spoken_of = after.iter().any(|w| {
            matches!(
                *w,
                "he" | "she" | "he's" | "she's" | "he'll" | "she'll" | "he'd" | "she'd" | "him"
            )
        });
        let taken_back = has_any_phrase(&after.join(" "), TAKEN_BACK);
        spoken_of && !taken_back
    }
}

/// Words that take an assignment back ("Actually no, Gareth's moved",
/// "I'll let you know who's going"), or make it one of alternatives ("Priya
/// or Tom").
const TAKEN_BACK: &[&str] = &[
    "actually",
    "hang on",
    "hold on",
    "let you know",
    "find out",
    "on leave",
    "off that",
    "not sure",
    "who's going",
    "who's covering",
    "or",
];

/// Whether the field asks who will do, handle or be sent for the job
/// ("Name of the locksmith who will do the job", "Name of the cleaner who
/// would be assigned", "Name of the instructor she is booked with").
fn asks_who_is_assigned(definition: &FieldDefinition) -> bool {
    let description = definition
        .description
        .as_deref()
        .unwrap_or_default()
        .to_lowercase();
    [
        "who will",
        "who'll",
        "who would",
        "assigned",
        "booked with",
        "being sent",
        "be sent",
        "handling",
        "handle",
        "look after",
        "looking after",
    ]
    .iter()
    .any(|cue| description.contains(cue))
}
