//! [`Transcript`]: a call's conversation as turns, each with its
//! [`Speaker`], its words and what the carrier knows of it. The agent
//! keeps one, carriers report one, extractors and the evidence check read
//! one; the `Agent: …` / `Recipient: …` text is only how the API shows it
//! (spec 2.1's `transcript` string, [`Transcript::to_text`]).
//!
//! ```
//! use agentcall::transcript::{Speaker, Transcript, Turn};
//!
//! let mut transcript = Transcript::new();
//! transcript.push(Turn::new(Speaker::Agent, "Hi, this is an AI assistant calling for Acme."));
//! transcript.push(Turn::new(Speaker::Recipient, "Hi."));
//! transcript.push(Turn::keys("5"));
//! transcript.push(Turn::new(Speaker::System, "The call is about to reach its time limit."));
//! assert_eq!(
//!     transcript.to_text(),
//!     "Agent: Hi, this is an AI assistant calling for Acme.\nRecipient: Hi.\nRecipient: [pressed 5]"
//! );
//! // Lines of the text form are numbered from 1, as evidence names them.
//! let lines: Vec<_> = transcript.lines().map(|(number, turn)| (number, turn.speaker)).collect();
//! assert_eq!(lines, [(1, Speaker::Agent), (2, Speaker::Recipient), (3, Speaker::Recipient)]);
//! assert_eq!(Transcript::from_text(&transcript.to_text()).to_text(), transcript.to_text());
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};

/// Who a turn is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Speaker {
    /// The AI that placed the call (`Agent:` lines).
    Agent,
    /// The person called, or their voicemail or phone menu (`Recipient:`
    /// lines).
    Recipient,
    /// Something the call did that nobody said (a note to the agent, such
    /// as to wrap up): shown to the model as context, never spoken, and
    /// not part of the text form.
    System,
}

impl Speaker {
    /// The label of the text form (`Agent`, `Recipient`), `None` for
    /// [`Speaker::System`].
    pub fn label(self) -> Option<&'static str> {
        match self {
            Self::Agent => Some("Agent"),
            Self::Recipient => Some("Recipient"),
            Self::System => None,
        }
    }
}

/// What a turn is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TurnKind {
    /// Words said (for the agent: what the recipient heard of them).
    #[default]
    Speech,
    /// Keys pressed (DTMF); the text is the keys.
    Keys,
}

/// One turn of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Turn {
    /// Who.
    pub speaker: Speaker,
    /// What was said (for the agent: what the recipient heard of it), or
    /// the keys pressed.
    pub text: String,
    /// Words or keys.
    #[serde(default, skip_serializing_if = "is_speech")]
    pub kind: TurnKind,
    /// The recipient spoke over this agent turn: `text` is what they heard
    /// of it before they did.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// When the turn began, in milliseconds from the answer, when the
    /// carrier says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset_ms: Option<u64>,
    /// The speech recognizer's confidence in the words (0 to 1), when the
    /// carrier gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f32>,
}

fn is_speech(kind: &TurnKind) -> bool {
    *kind == TurnKind::Speech
}

impl Turn {
    /// Words of `speaker`.
    pub fn new(speaker: Speaker, text: impl Into<String>) -> Self {
        Self {
            speaker,
            text: text.into(),
            kind: TurnKind::Speech,
            interrupted: false,
            offset_ms: None,
            confidence: None,
        }
    }

    /// Keys the recipient pressed.
    pub fn keys(keys: impl Into<String>) -> Self {
        Self {
            kind: TurnKind::Keys,
            ..Self::new(Speaker::Recipient, keys)
        }
    }

    /// The same turn, begun `offset_ms` after the answer.
    pub fn at(mut self, offset_ms: u64) -> Self {
        self.offset_ms = Some(offset_ms);
        self
    }

    /// Whether the turn is a line of the text form: a turn of the agent or
    /// the recipient with something in it.
    pub fn is_shown(&self) -> bool {
        self.speaker != Speaker::System && !self.text.trim().is_empty()
    }

    /// The turn's words as one line of the text form (keys as
    /// `[pressed 5]`, line breaks inside the turn as spaces).
    pub fn line_text(&self) -> String {
        let words = self.text.split_whitespace().collect::<Vec<_>>().join(" ");
        match self.kind {
            TurnKind::Keys => format!("[pressed {words}]"),
            TurnKind::Speech => words,
        }
    }
}

/// A call's conversation, turn by turn.
///
/// Serialized as the array of its turns (how stores keep it); read from
/// that array or from the text form, so documents written before turns
/// were typed still read.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Transcript {
    turns: Vec<Turn>,
}

impl<'de> Deserialize<'de> for Transcript {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Stored {
            Turns(Vec<Turn>),
            Text(String),
        }
        Ok(match Stored::deserialize(deserializer)? {
            Stored::Turns(turns) => Self { turns },
            Stored::Text(text) => Self::from_text(&text),
        })
    }
}

impl Transcript {
    /// An empty transcript.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a turn at the end.
    pub fn push(&mut self, turn: Turn) {
        self.turns.push(turn);
    }

    /// Every turn, in order (with [`Speaker::System`] ones).
    pub fn turns(&self) -> &[Turn] {
        &self.turns
    }

    /// Every turn, mutably.
    pub fn turns_mut(&mut self) -> &mut [Turn] {
        &mut self.turns
    }

    /// Whether there is no turn at all.
    pub fn is_empty(&self) -> bool {
        self.turns.is_empty()
    }

    /// The turns of the text form with their line numbers, from 1: the
    /// numbering evidence uses ([`Evidence::turn`](crate::extract::Evidence::turn)).
    pub fn lines(&self) -> impl Iterator<Item = (usize, &Turn)> {
        self.turns
            .iter()
            .filter(|turn| turn.is_shown())
            .enumerate()
            .map(|(index, turn)| (index + 1, turn))
    }

    /// The transcript keeping only its first `lines` lines of the text form
    /// (and the other turns before them).
    pub fn truncated(&self, lines: usize) -> Self {
        let mut shown = 0;
        let turns = self
            .turns
            .iter()
            .take_while(|turn| {
                if turn.is_shown() {
                    shown += 1;
                }
                shown <= lines
            })
            .cloned()
            .collect();
        Self { turns }
    }

    /// The text form: one `Agent: …` or `Recipient: …` line per turn of the
    /// agent or the recipient, joined by `\n`; system turns and empty turns
    /// are left out.
    pub fn to_text(&self) -> String {
        let mut text = String::new();
        for (number, turn) in self.lines() {
            if number > 1 {
                text.push('\n');
            }
            text.push_str(turn.speaker.label().unwrap_or_default());
            text.push_str(": ");
            text.push_str(&turn.line_text());
        }
        text
    }

    /// Reads the text form: a line labelled `Agent:` or `Recipient:` (in
    /// any case) starts a turn, `[pressed …]` on a recipient line is keys,
    /// and any other line continues the turn before it (lines before the
    /// first label belong to no turn). For text the API shows or a caller
    /// wrote; the carrier's details of each turn are not in it.
    pub fn from_text(text: &str) -> Self {
        let mut transcript = Self::new();
        for line in text.lines() {
            let line = line.trim();
            let labelled = line.split_once(':').and_then(|(label, rest)| {
                let label = label.trim();
                if label.eq_ignore_ascii_case("agent") {
                    Some((Speaker::Agent, rest.trim()))
                } else if label.eq_ignore_ascii_case("recipient") {
                    Some((Speaker::Recipient, rest.trim()))
                } else {
                    None
                }
            });
            match (labelled, transcript.turns.last_mut()) {
                (Some((Speaker::Recipient, rest)), _)
                    if rest.starts_with("[pressed ") && rest.ends_with(']') =>
                {
                    let keys = &rest["[pressed ".len()..rest.len() - 1];
                    transcript.push(Turn::keys(keys));
                }
                (Some((speaker, rest)), _) => transcript.push(Turn::new(speaker, rest)),
                (None, Some(turn)) if !line.is_empty() => {
                    turn.text.push('\n');
                    turn.text.push_str(line);
                }
                (None, _) => {}
            }
        }
        transcript
    }
}

impl fmt::Display for Transcript {
    /// The text form ([`Transcript::to_text`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}

impl From<&str> for Transcript {
    /// Reads the text form ([`Transcript::from_text`]).
    fn from(text: &str) -> Self {
        Self::from_text(text)
    }
}

impl From<Vec<Turn>> for Transcript {
    fn from(turns: Vec<Turn>) -> Self {
        Self { turns }
    }
}

impl FromIterator<Turn> for Transcript {
    fn from_iter<I: IntoIterator<Item = Turn>>(iter: I) -> Self {
        Self {
            turns: iter.into_iter().collect(),
        }
    }
}

/// The API's form of a record's transcript: the text, or `null`.
pub(crate) mod as_text {
    use serde::{Deserialize, Deserializer, Serializer};

    use super::Transcript;

    pub(crate) fn serialize<S: Serializer>(
        transcript: &Option<Transcript>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match transcript {
            Some(transcript) => serializer.serialize_str(&transcript.to_text()),
            None => serializer.serialize_none(),
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Transcript>, D::Error> {
        let text = Option::<String>::deserialize(deserializer)?;
        Ok(text.map(|text| Transcript::from_text(&text)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn continuation_lines_join_the_turn_before_and_stray_lines_are_dropped() {
        let transcript = Transcript::from_text(
            "preamble\nAgent: Hello\nthere.\nRECIPIENT: Hi\n\nrecipient: [pressed 42]",
        );
        let turns: Vec<_> = transcript
            .turns()
            .iter()
            .map(|t| (t.speaker, t.kind, t.text.as_str()))
            .collect();
        assert_eq!(
            turns,
            [
                (Speaker::Agent, TurnKind::Speech, "Hello\nthere."),
                (Speaker::Recipient, TurnKind::Speech, "Hi"),
                (Speaker::Recipient, TurnKind::Keys, "42"),
            ]
        );
        assert_eq!(
            transcript.to_text(),
            "Agent: Hello there.\nRecipient: Hi\nRecipient: [pressed 42]"
        );
    }

    #[test]
    fn truncation_counts_lines_of_the_text_form() {
        let transcript: Transcript = vec![
            Turn::new(Speaker::Agent, "One."),
            Turn::new(Speaker::System, "note"),
            Turn::new(Speaker::Agent, " "),
            Turn::new(Speaker::Recipient, "Two."),
            Turn::new(Speaker::Agent, "Three."),
        ]
        .into();
        assert_eq!(
            transcript.truncated(2).to_text(),
            "Agent: One.\nRecipient: Two."
        );
        assert_eq!(transcript.truncated(9), transcript);
    }

    #[test]
    fn the_stored_form_keeps_the_carriers_details() {
        let mut turn = Turn::new(Speaker::Agent, "Hello th").at(1_200);
        turn.interrupted = true;
        turn.confidence = Some(0.5);
        let transcript: Transcript = vec![turn, Turn::keys("5")].into();
        let json = serde_json::to_value(&transcript).unwrap();
        assert_eq!(
            json,
            serde_json::json!([
                {"speaker": "agent", "text": "Hello th", "interrupted": true, "offsetMs": 1200, "confidence": 0.5},
                {"speaker": "recipient", "text": "5", "kind": "keys"}
            ])
        );
        assert_eq!(
            serde_json::from_value::<Transcript>(json).unwrap(),
            transcript
        );
        // Documents from before turns were typed held the text form.
        let old: Transcript =
            serde_json::from_value("Agent: Hi\nRecipient: [pressed 5]".into()).unwrap();
        assert_eq!(old.turns()[1], Turn::keys("5"));
    }

    fn speaker() -> impl Strategy<Value = Speaker> {
        prop_oneof![
            Just(Speaker::Agent),
            Just(Speaker::Recipient),
            Just(Speaker::System)
        ]
    }

    proptest! {
        /// Reading the text form back gives the same text form, and as
        /// many lines as the transcript shows.
        #[test]
        fn the_text_form_reads_back_to_itself(
            turns in prop::collection::vec((speaker(), "\\PC{0,30}", any::<bool>()), 0..12)
        ) {
            let transcript: Transcript = turns
                .into_iter()
                .map(|(speaker, text, keys)| {
                    if keys && speaker == Speaker::Recipient {
                        Turn::keys(text.replace(']', ""))
                    } else {
                        Turn::new(speaker, text)
                    }
                })
                .collect();
            let text = transcript.to_text();
            let back = Transcript::from_text(&text);
            prop_assert_eq!(back.to_text(), text);
            prop_assert!(back.lines().count() <= transcript.lines().count());
        }

        /// Any text reads without panicking.
        #[test]
        fn any_text_reads(text in "\\PC{0,200}") {
            let transcript = Transcript::from_text(&text);
            let _ = transcript.to_text();
        }
    }
}
