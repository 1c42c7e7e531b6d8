//! Server-sent events, as OpenAI-compatible servers stream chat completions:
//! an incremental decoder that turns bytes, however the network splits
//! them, into the `data` of each event.
//!
//! It follows the WHATWG event-stream rules that matter for completions:
//! lines end with CRLF, LF or a lone CR (a CRLF split across two reads is
//! one line end); a line starting with `:` is a comment; `data:` lines
//! accumulate (joined by `\n`, one leading space after the colon dropped);
//! a blank line dispatches the event; other fields (`event`, `id`, `retry`)
//! are ignored. Bytes are decoded as UTF-8 per line, so a character split
//! across reads is whole again; invalid UTF-8 becomes U+FFFD.

/// The longest line the decoder buffers: a server that never ends a line
/// would otherwise grow memory without bound.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The most data one event may join from its `data:` lines: a server that
/// never sends the blank line would otherwise grow it without bound.
pub const MAX_EVENT_BYTES: usize = 1 << 20;

/// Why a stream cannot be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SseError {
    /// A line longer than [`MAX_LINE_BYTES`].
    #[error("event-stream line longer than {MAX_LINE_BYTES} bytes")]
    LineTooLong,
    /// An event whose data is longer than [`MAX_EVENT_BYTES`].
    #[error("event-stream event longer than {MAX_EVENT_BYTES} bytes")]
    EventTooLong,
}

/// Decodes an event stream incrementally; see the [module docs](self).
#[derive(Debug, Default)]
pub struct SseDecoder {
    /// The current line so far (without its end).
    line: Vec<u8>,
    /// The data of the event being read.
    data: String,
    /// Whether the event being read has a `data` line (an empty one counts).
    has_data: bool,
    /// The last byte fed was a CR: a LF right after it ends nothing more.
    after_cr: bool,
}

impl SseDecoder {
    /// An empty decoder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds the next bytes; returns the data of every event they complete,
    /// in order.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<Vec<String>, SseError> {
        let mut events = Vec::new();
        for &byte in bytes {
            let after_cr = std::mem::replace(&mut self.after_cr, false);
            match byte {
                b'\n' if after_cr => {}
                b'\n' => self.end_line(&mut events)?,
                b'\r' => {
                    self.after_cr = true;
                    self.end_line(&mut events)?;
                }
                _ => {
                    if self.line.len() == MAX_LINE_BYTES {
                        return Err(SseError::LineTooLong);
                    }
                    self.line.push(byte);
                }
            }
        }
        Ok(events)
    }

    /// Ends the stream: an event whose blank line never came is dispatched,
    /// as servers that close right after their last `data:` line expect.
    pub fn finish(mut self) -> Option<String> {
        if !self.line.is_empty() {
            let mut events = Vec::new();
            self.end_line(&mut events).ok()?;
        }
        self.has_data.then_some(self.data)
    }

    fn end_line(&mut self, events: &mut Vec<String>) -> Result<(), SseError> {
        let line = String::from_utf8_lossy(&self.line).into_owned();
        self.line.clear();
        if line.is_empty() {
            if self.has_data {
                events.push(std::mem::take(&mut self.data));
                self.has_data = false;
            }
            return Ok(());
        }
        if line.starts_with(':') {
            return Ok(());
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_str(), ""),
        };
        if field == "data" {
            if self.data.len() + value.len() + 1 > MAX_EVENT_BYTES {
                return Err(SseError::EventTooLong);
            }
            if self.has_data {
                self.data.push('\n');
            }
            self.data.push_str(value);
            self.has_data = true;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn decode_all(chunks: &[&[u8]]) -> Vec<String> {
        let mut decoder = SseDecoder::new();
        let mut events = Vec::new();
        for chunk in chunks {
            events.extend(decoder.feed(chunk).unwrap());
        }
        events.extend(decoder.finish());
        events
    }

    #[test]
    fn openai_framing_with_comments_and_done() {
        let stream = b": keep-alive\n\ndata: {\"a\":1}\n\ndata: [DONE]\n\n";
        assert_eq!(decode_all(&[stream]), ["{\"a\":1}", "[DONE]"]);
    }

    #[test]
    fn crlf_lone_cr_and_lf_are_the_same_line_end() {
        let lf = decode_all(&[b"data: x\ndata: y\n\n"]);
        let crlf = decode_all(&[b"data: x\r\ndata: y\r\n\r\n"]);
        let cr = decode_all(&[b"data: x\rdata: y\r\r"]);
        assert_eq!(lf, ["x\ny"]);
        assert_eq!((crlf, cr), (lf.clone(), lf));
    }

    #[test]
    fn other_fields_are_ignored_and_a_missing_space_is_fine() {
        let events = decode_all(&[b"event: message\nid: 7\nretry: 10\ndata:{}\n\n"]);
        assert_eq!(events, ["{}"]);
    }

    #[test]
    fn a_stream_closed_without_its_blank_line_still_dispatches() {
        assert_eq!(decode_all(&[b"data: last"]), ["last"]);
        assert!(decode_all(&[b": only a comment"]).is_empty());
    }

    #[test]
    fn an_endless_line_is_an_error_not_unbounded_memory() {
        let mut decoder = SseDecoder::new();
        let chunk = vec![b'a'; 64 * 1024];
        let mut failed = false;
        for _ in 0..=(MAX_LINE_BYTES / chunk.len()) {
            if decoder.feed(&chunk).is_err() {
                failed = true;
                break;
            }
        }
        assert!(failed);
    }

    #[test]
    fn an_endless_event_is_an_error_not_unbounded_memory() {
        let mut decoder = SseDecoder::new();
        let line = format!("data: {}\n", "a".repeat(60 * 1024));
        let failed = (0..=(MAX_EVENT_BYTES / (60 * 1024)))
            .any(|_| decoder.feed(line.as_bytes()) == Err(SseError::EventTooLong));
        assert!(failed);
    }

    /// One event per payload, each with its own line-end style.
    fn stream_of(payloads: &[String], ends: &[u8]) -> Vec<u8> {
        let mut bytes = Vec::new();
        for (i, payload) in payloads.iter().enumerate() {
            let end: &[u8] = match ends[i % ends.len()] % 3 {
                0 => b"\n",
                1 => b"\r\n",
                _ => b"\r",
            };
            bytes.extend_from_slice(b": comment");
            bytes.extend_from_slice(end);
            for line in payload.split('\n') {
                bytes.extend_from_slice(b"data: ");
                bytes.extend_from_slice(line.as_bytes());
                bytes.extend_from_slice(end);
            }
            bytes.extend_from_slice(end);
        }
        bytes
    }

    proptest! {
        /// However the network splits the bytes (inside a CRLF or a UTF-8
        /// character included), the same events come out.
        #[test]
        fn any_split_decodes_to_the_same_events(
            payloads in proptest::collection::vec("[^\r]{0,40}", 1..6),
            ends in proptest::collection::vec(any::<u8>(), 1..6),
            cuts in proptest::collection::vec(any::<proptest::sample::Index>(), 0..12),
        ) {
            let bytes = stream_of(&payloads, &ends);
            let mut points: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
            points.sort_unstable();
            points.dedup();
            let mut chunks = Vec::new();
            let mut start = 0;
            for point in points {
                chunks.push(&bytes[start..point]);
                start = point;
            }
            chunks.push(&bytes[start..]);
            prop_assert_eq!(decode_all(&chunks), payloads.clone());
            prop_assert_eq!(decode_all(&[&bytes]), payloads);
        }

        /// Arbitrary bytes never panic.
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let _ = decode_all(&[&bytes]);
        }
    }
}
