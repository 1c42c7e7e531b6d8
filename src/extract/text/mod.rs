//! Word-level helpers shared by coercion, the summary and the offline
//! extractor: a small tokenizer, a light stemmer, identifier splitting,
//! spoken/written number parsing and a few closed word classes.
//!
//! Everything here works on `char`s or owned tokens, never on byte offsets
//! of caller text, so non-ASCII input cannot split a UTF-8 sequence.

pub(crate) mod identifier;
pub(crate) mod number_pairs;
pub(crate) mod number_words;
pub(crate) mod numbers;
pub(crate) mod opposites;
mod spoken_time;
pub(crate) mod stem;
pub(crate) mod tokens;
pub(crate) mod units;
pub(crate) mod vocabulary;
