//! # agentcall-english
//!
//! English for [agentcall](https://docs.rs/agentcall): the word-level
//! reading its English evidence check and its rules extractor
//! (`agentcall-rules`) share. A tokenizer, a light stemmer, identifier
//! splitting, spoken and written numbers ("twelve fifty", "a dozen", "half
//! past four", "two and a half hours"), opposites ("included" / "extra"),
//! and the checks of [`agree`]: whether quoted words carry a number, a
//! yes or a no, or a string, whether they dodge, and whether a reply
//! confirms what was said to it.
//!
//! Nothing here knows agentcall's types: a field is anything that is
//! [`FieldText`], and everything else is text. Another language is another
//! crate of the same shape, plugged into agentcall's evidence check
//! (`agentcall::extract::ValueCheck`).
//!
//! Everything works on `char`s or owned tokens, never on byte offsets of
//! caller text, so non-ASCII input cannot split a UTF-8 sequence.
//!
//! ```
//! use agentcall_english::agree::{number_agrees, polarity};
//!
//! assert!(number_agrees(460.0, "UA four sixty", false));
//! assert!(number_agrees(150.0, "two and a half hours", false));
//! assert_eq!(polarity("No, we don't deliver on Sundays."), Some(false));
//! ```
#![forbid(unsafe_code)]
#![deny(rustdoc::broken_intra_doc_links)]

pub mod agree;
pub mod identifier;
pub mod number_pairs;
pub mod number_words;
pub mod numbers;
pub mod opposites;
mod spoken_time;
pub mod stem;
pub mod tokens;
pub mod units;
pub mod vocabulary;

/// A field as the helpers here read it: its name (`snake_case` or
/// `camelCase`) and its description, if any.
pub trait FieldText {
    /// The field's name.
    fn name(&self) -> &str;
    /// What the field asks for, in words.
    fn description(&self) -> Option<&str>;
}

/// A field given as plain text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field<'a> {
    /// The field's name.
    pub name: &'a str,
    /// Its description.
    pub description: Option<&'a str>,
}

impl<'a> Field<'a> {
    /// A field named `name`, described by `description`.
    pub fn new(name: &'a str, description: Option<&'a str>) -> Self {
        Self { name, description }
    }
}

impl FieldText for Field<'_> {
    fn name(&self) -> &str {
        self.name
    }

    fn description(&self) -> Option<&str> {
        self.description
    }
}
