//! The TwiML that connects an answered call to our ConversationRelay
//! WebSocket.
//!
//! Twilio runs it when the callee answers: `<Connect>` hands the call to
//! ConversationRelay (Twilio does speech-to-text and text-to-speech and talks
//! to our WebSocket in text), and when the relay session ends Twilio requests
//! the `<Connect>` element's `action` URL. Nothing follows `</Connect>`: the
//! action callback decides what happens next.
//!
//! ```
//! use agentcall::twilio::twiml::RelayTwiml;
//!
//! let twiml = RelayTwiml::new(
//!     "wss://agent.example.com/twilio/relay/call_123",
//!     "https://agent.example.com/twilio/relay-ended",
//!     "Hi, it's Ada from Acme about Friday's delivery.",
//!     "call_123",
//! )
//! .language("en-US")
//! .to_xml();
//!
//! assert_eq!(
//!     twiml,
//!     concat!(
//!         r#"<?xml version="1.0" encoding="UTF-8"?><Response>"#,
//!         r#"<Connect action="https://agent.example.com/twilio/relay-ended">"#,
//!         r#"<ConversationRelay url="wss://agent.example.com/twilio/relay/call_123" "#,
//!         r#"welcomeGreeting="Hi, it&apos;s Ada from Acme about Friday&apos;s delivery." "#,
//!         r#"welcomeGreetingInterruptible="none" dtmfDetection="true" language="en-US">"#,
//!         r#"<Parameter name="callId" value="call_123"/>"#,
//!         r#"</ConversationRelay></Connect></Response>"#,
//!     )
//! );
//! ```

/// The name of the `<Parameter>` that carries our call id to the relay
/// session (it arrives in the session's `setup` message).
pub const CALL_ID_PARAMETER: &str = "callId";

/// Builds the `<Response><Connect><ConversationRelay>` document for one call.
///
/// Every value is XML-escaped. Characters XML 1.0 cannot carry at all (C0
/// controls other than tab, line feed and carriage return, and U+FFFE,
/// U+FFFF) are dropped; tab, line feed and carriage return are written as
/// character references so that XML's attribute normalisation does not turn
/// them into spaces.
///
/// Twilio accepts at most 4000 characters of TwiML inline in a call
/// creation, so keep the greeting short.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelayTwiml {
    relay_url: String,
    action_url: String,
    welcome_greeting: String,
    call_id: String,
    language: Option<String>,
    tts_provider: Option<String>,
    voice: Option<String>,
    transcription_provider: Option<String>,
}

impl RelayTwiml {
    /// TwiML connecting the call to the WebSocket at `relay_url` (`wss://…`),
    /// with Twilio requesting `action_url` when the relay session ends. The
    /// callee hears `welcome_greeting` first, uninterruptibly; `call_id` is
    /// passed to the session as the `callId` parameter.
    pub fn new(
        relay_url: impl Into<String>,
        action_url: impl Into<String>,
        welcome_greeting: impl Into<String>,
        call_id: impl Into<String>,
    ) -> Self {
        Self {
            relay_url: relay_url.into(),
            action_url: action_url.into(),
            welcome_greeting: welcome_greeting.into(),
            call_id: call_id.into(),
            language: None,
            tts_provider: None,
            voice: None,
            transcription_provider: None,
        }
    }

    /// The language of speech recognition and synthesis, e.g. `en-US`.
    pub fn language(mut self, language: impl Into<String>) -> Self {
        self.language = Some(language.into());
        self
    }

    /// The text-to-speech provider, e.g. `ElevenLabs` or `Google`.
    pub fn tts_provider(mut self, provider: impl Into<String>) -> Self {
        self.tts_provider = Some(provider.into());
        self
    }

    /// The provider's voice name.
    pub fn voice(mut self, voice: impl Into<String>) -> Self {
        self.voice = Some(voice.into());
        self
    }

    /// The speech-to-text provider, e.g. `Deepgram` or `Google`.
    pub fn transcription_provider(mut self, provider: impl Into<String>) -> Self {
        self.transcription_provider = Some(provider.into());
        self
    }

    /// The TwiML document.
    pub fn to_xml(&self) -> String {
        let mut xml = String::with_capacity(512);
        xml.push_str(r#"<?xml version="1.0" encoding="UTF-8"?><Response><Connect"#);
        push_attribute(&mut xml, "action", &self.action_url);
        xml.push_str("><ConversationRelay");
        push_attribute(&mut xml, "url", &self.relay_url);
        push_attribute(&mut xml, "welcomeGreeting", &self.welcome_greeting);
        // The greeting states who is calling and why; it is heard in full.
        push_attribute(&mut xml, "welcomeGreetingInterruptible", "none");
        // Keys pressed reach the session as `dtmf` frames only when asked for.
        push_attribute(&mut xml, "dtmfDetection", "true");
        let optional = [
            ("language", &self.language),
            ("ttsProvider", &self.tts_provider),
            ("voice", &self.voice),
            ("transcriptionProvider", &self.transcription_provider),
        ];
        for (name, value) in optional {
            if let Some(value) = value {
                push_attribute(&mut xml, name, value);
            }
        }
        xml.push_str("><Parameter");
        push_attribute(&mut xml, "name", CALL_ID_PARAMETER);
        push_attribute(&mut xml, "value", &self.call_id);
        xml.push_str("/></ConversationRelay></Connect></Response>");
        xml
    }
}

/// Appends ` name="value"` with `value` escaped for a double-quoted attribute.
/// TwiML that speaks `message` (after a moment, so a voicemail's beep is
/// over) and hangs up: what replaces the relay when a machine answered.
pub fn say_and_hang_up(message: &str) -> String {
    let mut xml = String::with_capacity(message.len() + 128);
    xml.push_str(r#"<?xml version="1.0" encoding="UTF-8"?><Response><Pause length="1"/><Say>"#);
    push_escaped(&mut xml, message);
    xml.push_str("</Say><Hangup/></Response>");
    xml
}

fn push_attribute(xml: &mut String, name: &str, value: &str) {
    xml.push(' ');
    xml.push_str(name);
    xml.push_str("=\"");
    push_escaped(xml, value);
    xml.push('"');
}

/// `text` escaped for an attribute value or element content.
fn push_escaped(xml: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => xml.push_str("&amp;"),
            '<' => xml.push_str("&lt;"),
            '>' => xml.push_str("&gt;"),
            '"' => xml.push_str("&quot;"),
            '\'' => xml.push_str("&apos;"),
            '\t' => xml.push_str("&#9;"),
            '\n' => xml.push_str("&#10;"),
            '\r' => xml.push_str("&#13;"),
            c if is_xml_char(c) => xml.push(c),
            _ => {}
        }
    }
}

/// XML 1.0's `Char` production (surrogates cannot occur in a `char`).
fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{FFFD}' | '\u{10000}'..)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn relay(greeting: &str, call_id: &str) -> RelayTwiml {
        RelayTwiml::new(
            "wss://agent.example.com/relay",
            "https://agent.example.com/relay-ended?call=1&x=2",
            greeting,
            call_id,
        )
    }

    #[test]
    fn minimal_document_has_the_exact_structure() {
        assert_eq!(
            relay("Hello", "call_1").to_xml(),
            concat!(
                r#"<?xml version="1.0" encoding="UTF-8"?><Response>"#,
                r#"<Connect action="https://agent.example.com/relay-ended?call=1&amp;x=2">"#,
                r#"<ConversationRelay url="wss://agent.example.com/relay" welcomeGreeting="Hello" welcomeGreetingInterruptible="none" dtmfDetection="true">"#,
                r#"<Parameter name="callId" value="call_1"/>"#,
                "</ConversationRelay></Connect></Response>",
            )
        );
    }

    #[test]
    fn optional_attributes_follow_in_order() {
        let xml = relay("Hello", "call_1")
            .transcription_provider("Deepgram")
            .voice("Polly.Joanna")
            .tts_provider("Amazon")
            .language("en-US")
            .to_xml();
        assert!(
            xml.contains(concat!(
                r#"welcomeGreetingInterruptible="none" dtmfDetection="true" language="en-US" ttsProvider="Amazon" "#,
                r#"voice="Polly.Joanna" transcriptionProvider="Deepgram">"#
            )),
            "{xml}"
        );
    }

    #[test]
    fn every_special_character_is_escaped() {
        let xml = relay(r#"Say "<&>'" now"#, r#"id"<&>'"#).to_xml();
        assert!(
            xml.contains(r#"welcomeGreeting="Say &quot;&lt;&amp;&gt;&apos;&quot; now""#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"value="id&quot;&lt;&amp;&gt;&apos;"/>"#),
            "{xml}"
        );
    }

    #[test]
    fn a_voicemail_message_is_spoken_escaped_then_the_call_hangs_up() {
        let xml = say_and_hang_up("Hi <Sam> & \"co\", call back.");
        assert_eq!(
            xml,
            r#"<?xml version="1.0" encoding="UTF-8"?><Response><Pause length="1"/><Say>Hi &lt;Sam&gt; &amp; &quot;co&quot;, call back.</Say><Hangup/></Response>"#
        );
    }

    #[test]
    fn nothing_follows_connect() {
        let xml = relay("Hello", "call_1").to_xml();
        assert!(xml.ends_with("</Connect></Response>"));
    }

    #[test]
    fn whitespace_survives_and_forbidden_characters_are_dropped() {
        let xml = relay("a\tb\nc\rd\u{0}e\u{1b}f\u{FFFF}g", "x").to_xml();
        assert!(
            xml.contains(r#"welcomeGreeting="a&#9;b&#10;c&#13;defg""#),
            "{xml}"
        );
    }

    /// A checker for the documents `to_xml` writes: asserts well-formedness
    /// (declaration, balanced elements, quoted attributes, known entities,
    /// only XML characters, no raw `<` or `&` in values) and returns every
    /// attribute as (element, name, unescaped value).
    fn parse(xml: &str) -> Result<Vec<(String, String, String)>, String> {
        let declaration = r#"<?xml version="1.0" encoding="UTF-8"?>"#;
        let mut rest = xml.strip_prefix(declaration).ok_or("no XML declaration")?;
        let mut open: Vec<String> = Vec::new();
        let mut attributes = Vec::new();
        let mut seen_root = false;
        while !rest.is_empty() {
            rest = rest.strip_prefix('<').ok_or("text outside elements")?;
            if let Some(after) = rest.strip_prefix('/') {
                let end = after.find('>').ok_or("unterminated end tag")?;
                let name = &after[..end];
                if open.pop().as_deref() != Some(name) {
                    return Err(format!("unbalanced </{name}>"));
                }
                rest = &after[end + 1..];
                continue;
            }
            if open.is_empty() && seen_root {
                return Err("a second root element".into());
            }
            seen_root = true;
            let name_end = rest.find([' ', '>', '/']).ok_or("unterminated start tag")?;
            let element = rest[..name_end].to_owned();
            if element.is_empty() || !element.chars().all(|c| c.is_ascii_alphanumeric()) {
                return Err(format!("bad element name {element:?}"));
            }
            rest = &rest[name_end..];
            let mut names = Vec::new();
            loop {
                if let Some(after) = rest.strip_prefix("/>") {
                    rest = after;
                    break;
                }
                if let Some(after) = rest.strip_prefix('>') {
                    open.push(element.clone());
                    rest = after;
                    break;
                }
                rest = rest.strip_prefix(' ').ok_or("attributes need a space")?;
                let eq = rest.find("=\"").ok_or("attribute without =\"")?;
                let name = rest[..eq].to_owned();
                if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric()) {
                    return Err(format!("bad attribute name {name:?}"));
                }
                if names.contains(&name) {
                    return Err(format!("duplicate attribute {name}"));
                }
                rest = &rest[eq + 2..];
                let close = rest.find('"').ok_or("unterminated attribute value")?;
                let value = unescape(&rest[..close])?;
                rest = &rest[close + 1..];
                names.push(name.clone());
                attributes.push((element.clone(), name, value));
            }
        }
        if !open.is_empty() {
            return Err(format!("unclosed {open:?}"));
        }
        Ok(attributes)
    }

    fn unescape(raw: &str) -> Result<String, String> {
        let mut out = String::new();
        let mut rest = raw;
        while let Some(c) = rest.chars().next() {
            match c {
                '<' => return Err("raw < in attribute".into()),
                '&' => {
                    let end = rest.find(';').ok_or("unterminated entity")?;
                    let decoded = match &rest[1..end] {
                        "amp" => '&',
                        "lt" => '<',
                        "gt" => '>',
                        "quot" => '"',
                        "apos" => '\'',
                        "#9" => '\t',
                        "#10" => '\n',
                        "#13" => '\r',
                        other => return Err(format!("unknown entity {other}")),
                    };
                    out.push(decoded);
                    rest = &rest[end + 1..];
                }
                '\t' | '\n' | '\r' => return Err("raw whitespace would be normalised".into()),
                c if !is_xml_char(c) => return Err(format!("{c:?} is not an XML character")),
                c => {
                    out.push(c);
                    rest = &rest[c.len_utf8()..];
                }
            }
        }
        Ok(out)
    }

    fn attribute<'a>(attributes: &'a [(String, String, String)], name: &str) -> &'a str {
        &attributes
            .iter()
            .find(|(_, n, _)| n == name)
            .unwrap_or_else(|| panic!("no {name}"))
            .2
    }

    #[test]
    fn checker_rejects_broken_documents() {
        let declaration = r#"<?xml version="1.0" encoding="UTF-8"?>"#;
        for broken in [
            "<Response/>",
            r#"<A b="<"/>"#,
            r#"<A b="&x;"/>"#,
            r#"<A b="""/>"#,
            "<A><B></A></B>",
            "<A>",
        ] {
            let doc = if broken.starts_with("<Response") {
                broken.to_owned()
            } else {
                format!("{declaration}{broken}")
            };
            assert!(parse(&doc).is_err(), "{doc}");
        }
    }

    proptest! {
        #[test]
        fn any_text_gives_well_formed_xml_that_round_trips(
            greeting in any::<String>(),
            call_id in any::<String>(),
            voice in any::<String>(),
        ) {
            let xml = relay(&greeting, &call_id).voice(voice.clone()).to_xml();
            let attributes = parse(&xml).map_err(|e| TestCaseError::fail(format!("{e}: {xml}")))?;
            let kept = |text: &str| text.chars().filter(|&c| is_xml_char(c)).collect::<String>();
            prop_assert_eq!(attribute(&attributes, "welcomeGreeting"), kept(&greeting));
            prop_assert_eq!(attribute(&attributes, "value"), kept(&call_id));
            prop_assert_eq!(attribute(&attributes, "voice"), kept(&voice));
            let elements: Vec<&str> = attributes.iter().map(|(e, _, _)| e.as_str()).collect();
            prop_assert_eq!(
                elements,
                ["Connect", "ConversationRelay", "ConversationRelay", "ConversationRelay",
                 "ConversationRelay", "ConversationRelay", "Parameter", "Parameter"]
            );
        }
    }
}
