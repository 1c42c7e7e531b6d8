//! The JSON frames of the ConversationRelay protocol, both ways.
//!
//! What the carrier sends is read tolerantly: unknown keys are ignored and
//! a frame of an unknown type is [`Inbound::Other`], so a carrier that adds
//! to the protocol does not break a call. What we send is exactly what the
//! protocol documents.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A frame from the carrier.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
#[non_exhaustive]
pub enum Inbound {
    /// The first frame of a session: which call this socket serves.
    #[serde(rename_all = "camelCase")]
    Setup {
        /// The carrier's id of the call.
        #[serde(default)]
        call_sid: String,
        /// The `<Parameter>`s of the TwiML, by name (ours: `callId`).
        #[serde(default)]
        custom_parameters: BTreeMap<String, String>,
    },
    /// Speech to text of what the recipient said; acted on when `last`.
    #[serde(rename_all = "camelCase")]
    Prompt {
        /// The words.
        #[serde(default)]
        voice_prompt: String,
        /// Whether the utterance is complete.
        #[serde(default = "yes")]
        last: bool,
    },
    /// The recipient spoke over the agent.
    #[serde(rename_all = "camelCase")]
    Interrupt {
        /// What had been spoken of the agent's turn when the recipient
        /// started talking.
        #[serde(default)]
        utterance_until_interrupt: String,
    },
    /// The recipient pressed a key.
    Dtmf {
        /// The key.
        #[serde(default)]
        digit: String,
    },
    /// The carrier reports a problem with something we sent.
    Error {
        /// The carrier's words.
        #[serde(default)]
        description: String,
    },
    /// A frame type this crate does not act on.
    #[serde(other)]
    Other,
}

fn yes() -> bool {
    true
}

/// A frame to the carrier.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
#[non_exhaustive]
pub enum Outbound {
    /// A piece of the agent's turn to speak; `last` marks the turn's end.
    Text {
        /// The words.
        token: String,
        /// Whether the turn is complete.
        last: bool,
    },
    /// Press keys on the call.
    SendDigits {
        /// The keys.
        digits: String,
    },
    /// End the session; the carrier then requests the `<Connect action>`
    /// URL with `handoffData`.
    #[serde(rename_all = "camelCase")]
    End {
        /// A JSON document, as a string.
        handoff_data: String,
    },
}

impl Inbound {
    /// Parses one text frame; `None` for a frame that is not a JSON object
    /// with a string `type` (the session logs and skips it).
    pub fn parse(frame: &str) -> Option<Self> {
        serde_json::from_str(frame).ok()
    }
}

impl Outbound {
    /// The frame's text.
    pub fn to_frame(&self) -> String {
        // Plain strings and booleans: serializing cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn carrier_frames_are_read_with_unknown_keys_ignored() {
        let setup = Inbound::parse(
            r#"{"type":"setup","sessionId":"VX1","callSid":"CA1","from":"+1","to":"+2",
                "customParameters":{"callId":"call_1"},"somethingNew":{"a":1}}"#,
        );
        assert_eq!(
            setup,
            Some(Inbound::Setup {
                call_sid: "CA1".into(),
                custom_parameters: [("callId".to_owned(), "call_1".to_owned())].into(),
            })
        );
        assert_eq!(
            Inbound::parse(
                r#"{"type":"prompt","voicePrompt":"Hi there","lang":"en-US","last":true}"#
            ),
            Some(Inbound::Prompt {
                voice_prompt: "Hi there".into(),
                last: true
            })
        );
        assert_eq!(
            Inbound::parse(
                r#"{"type":"interrupt","utteranceUntilInterrupt":"Could you","durationUntilInterruptMs":820}"#
            ),
            Some(Inbound::Interrupt {
                utterance_until_interrupt: "Could you".into()
            })
        );
        assert_eq!(
            Inbound::parse(r#"{"type":"dtmf","digit":"5"}"#),
            Some(Inbound::Dtmf { digit: "5".into() })
        );
        assert_eq!(
            Inbound::parse(r#"{"type":"info","foo":1}"#),
            Some(Inbound::Other)
        );
        assert_eq!(Inbound::parse("not json"), None);
        assert_eq!(Inbound::parse(r#"{"voicePrompt":"no type"}"#), None);
    }

    #[test]
    fn our_frames_are_the_documented_ones() {
        assert_eq!(
            Outbound::Text {
                token: "Hi".into(),
                last: false
            }
            .to_frame(),
            r#"{"type":"text","token":"Hi","last":false}"#
        );
        assert_eq!(
            Outbound::SendDigits {
                digits: "12#".into()
            }
            .to_frame(),
            r#"{"type":"sendDigits","digits":"12#"}"#
        );
        assert_eq!(
            Outbound::End {
                handoff_data: r#"{"reason":"objective_met"}"#.into()
            }
            .to_frame(),
            r#"{"type":"end","handoffData":"{\"reason\":\"objective_met\"}"}"#
        );
    }

    proptest! {
        #[test]
        fn any_frame_parses_or_is_refused_without_panicking(frame in ".{0,200}") {
            let _ = Inbound::parse(&frame);
        }

        #[test]
        fn any_text_token_round_trips_through_json(token in ".{0,100}", last: bool) {
            let frame = Outbound::Text { token: token.clone(), last }.to_frame();
            let value: serde_json::Value = serde_json::from_str(&frame).unwrap();
            prop_assert_eq!(value["token"].as_str(), Some(token.as_str()));
            prop_assert_eq!(value["last"].as_bool(), Some(last));
        }
    }
}
