//! Proper names in a sentence (spans of capitalised words that look like
//! names), and those that are no answer to a field asking for a name:
//! places and businesses for a person's name, and names said in passing
//! (the speaker introducing themselves, the person thanked, one of several
//! still open).

use super::evidence::{Analysis, Source};
use super::lexicon::{
    BUSINESS_WORDS, CAPITALISED_NON_NAMES, FILLERS, STOPWORDS, STREET_SUFFIXES, STRONG_NO,
    STRONG_YES,
};
use super::profile::{FieldProfile, NamePart, StringKind, ValueKind, text_words};
use super::transcript::{Sentence, SentenceIndex, Speaker, Transcript};
use agentcall_english::number_words::classify_number_word;
use agentcall_english::tokens::{Token, TokenKind};
use agentcall_english::vocabulary;

/// Whether the name at tokens `start..end` of `sent` names no person: a
/// place ("his house in Pontcanna") or a business ("RoadReady Mobile
/// Repairs").
pub(super) fn no_person(sent: &Sentence, start: usize, end: usize) -> bool {
    // The last word names a business ("… Mobile Repairs", "Harbourview Inn").
    let business = end
        .checked_sub(1)
        .filter(|&last| last >= start)
        .and_then(|last| sent.tokens.get(last))
        .is_some_and(|t| set!(BUSINESS_WORDS).contains(t.lower.as_str()));
    // "the Elm Street address", "on Larch Court": a street is no person
    // ("That'd be Sarah Lane" is one).
    let street = end
        .checked_sub(1)
        .filter(|&last| last > start)
        .and_then(|last| sent.tokens.get(last))
        .is_some_and(|t| STREET_SUFFIXES.contains(&t.lower.as_str()))
        && start
            .checked_sub(1)
            .and_then(|i| sent.tokens.get(i))
            .is_some_and(|t| {
                matches!(t.lower.as_str(), "the" | "on" | "off") || t.kind == TokenKind::Num
            });
    after_place_word(sent, start) || business || street
}

/// Whether the name at token `start` of `sent` follows a word of place
/// ("near Linden Park", "at Harbour Point").
pub(super) fn after_place_word(sent: &Sentence, start: usize) -> bool {
    start
        .checked_sub(1)
        .and_then(|i| sent.tokens.get(i))
        .is_some_and(|t| {
            matches!(
                t.lower.as_str(),
                "in" | "at" | "near" | "outside" | "via" | "into"
            )
        })
}

/// Whether the name at tokens `start..end` of `sent` is the speaker's own,
/// introduced: "Sophie speaking", "Sam here." (the sentence ends after
/// "here"), "this is Gary", "my name is Ines".
pub(super) fn introduces_self(sent: &Sentence, start: usize, end: usize) -> bool {
    let word = |i: usize| {
        sent.tokens
            .get(i)
            .filter(|t| t.is_word())
            .map(|t| t.lower.as_str())
    };
    let before = |back: usize| start.checked_sub(back).and_then(word);
    let here_at_end = word(end) == Some("here")
        && sent
            .tokens
            .get(end + 1..)
            .is_none_or(|rest| rest.iter().all(|t| !t.is_word()));
    word(end) == Some("speaking")
        || here_at_end
        || (before(2) == Some("this") && before(1) == Some("is"))
        || (before(3) == Some("my") && before(2) == Some("name") && before(1) == Some("is"))
}

/// Whether a person-name field asks for the one on the other end of the
/// call ("First name of the innkeeper spoken to", "… who took the
/// reservation"): the name they introduce themselves by.
pub(super) fn asks_for_the_one_on_the_line(profile: &FieldProfile) -> bool {
    let description = profile.description_lower();
    let words: Vec<&str> = text_words(&description).collect();
    // The phrase qualifies the person the field names, within ten words
    // of "name of" ("First name of the innkeeper spoken to", "… of the
    // person at the removals company the agent spoke with").
    let Some(named) = words.windows(2).position(|pair| pair == ["name", "of"]) else {
        return false;
    };
    let after = &words[named + 2..];
    const PHRASES: &[&[&str]] = &[
        &["spoken", "to"],
        &["spoke", "to"],
        &["spoke", "with"],
        &["speaking", "with"],
        &["speaking", "to"],
        &["who", "took"],
        &["who", "answered"],
        &["that", "took"],
        &["that", "answered"],
        &["on", "the", "call"],
        &["on", "the", "phone"],
        &["on", "the", "line"],
    ];
    // Context words before the phrase make it context: "if the person
    // spoken to can't help", "as given on the call".
    let context = |at: usize| {
        after[..at]
            .iter()
            .any(|w| matches!(*w, "if" | "unless" | "ask" | "as" | "when" | "besides"))
    };
    (0..after.len().min(10))
        .any(|at| !context(at) && PHRASES.iter().any(|phrase| after[at..].starts_with(phrase)))
}

/// Whether the name at tokens `start..end` of `sent` is said in passing
/// rather than given as an answer:
/// - for a name that is not a person's (a room, a boat), the speaker
///   introducing themselves ("Events, Sophie speaking", "this is Gary");
/// - the person spoken to, named in a greeting or thanks ("Thanks, Fran.");
/// - one of several still open ("Either me or Sam, whoever's free").
pub(super) fn name_in_passing(
    profile: &FieldProfile,
    sent: &Sentence,
    start: usize,
    end: usize,
) -> bool {
    let word = |i: usize| {
        sent.tokens
            .get(i)
            .filter(|t| t.is_word())
            .map(|t| t.lower.as_str())
    };
    let person = matches!(
        profile.kind,
        ValueKind::Text(StringKind::Name { person: true, .. })
    );
    // "Sophie speaking", "Sam here." (the sentence ends after "here"),
    // "this is Gary".
    let introduces = introduces_self(sent, start, end);
    let at_end = sent
        .tokens
        .get(end..)
        .is_none_or(|rest| rest.iter().all(|t| !t.is_word()));
    let comma_before = start
        .checked_sub(1)
        .and_then(|i| sent.tokens.get(i))
        .is_some_and(|t| t.is_punct(','));
    let addressed = at_end
        && comma_before
        && matches!(
            start.checked_sub(2).and_then(word),
            Some("thanks" | "you" | "hi" | "hello" | "hey" | "bye" | "goodbye" | "cheers")
        );
    // "Either me or Sam", "whoever's free" (not "Jules either way").
    let words: Vec<&str> = sent.word_lowers().collect();
    let open_choice = words
        .iter()
        .any(|w| matches!(*w, "whoever" | "whoever's" | "whichever"))
        || words
            .iter()
            .position(|w| *w == "either")
            .is_some_and(|at| words[at..].contains(&"or"));
    (introduces && !person) || addressed || open_choice
}

impl Analysis<'_, '_> {
    /// The name the other side last introduced themselves by ("Trattoria
    /// Bellini, Dario speaking."; after a transfer, the one put through),
    /// the `part` of it the field asks for, with the sentence it is said
    /// in. Only a name said as one, nothing after it but "speaking" or
    /// "here": not a business ("this is Lakeside Dental", "Doctor Patel's
    /// office", "Model X Pro you mean?"), and a last name only when two
    /// words were said.
    pub(super) fn self_introduction(&self, part: NamePart) -> Option<(String, Source)> {
        let (sentence, start, end) = self
            .transcript
            .turns
            .iter()
            .filter(|turn| turn.speaker == Speaker::Recipient)
            .flat_map(|turn| turn.sentences.iter().copied())
            .rev()
            .find_map(|sentence| {
                let sent = &self.transcript.sentences[sentence];
                proper_spans(sent, self.transcript)
                    .into_iter()
                    .find(|&(start, end)| {
                        introduces_self(sent, start, end)
                            && !no_person(sent, start, end)
                            && end - start <= 2
                            && !sent.tokens[start..end].iter().any(|t| {
                                t.lower.ends_with("'s")
                                    || matches!(t.lower.as_str(), "doctor" | "dr" | "dr.")
                            })
                            // "this is Doctor Patel's office": a noun after
                            // the name makes it a business's.
                            && sent.tokens.get(end).is_none_or(|next| {
                                !next.is_word()
                                    || matches!(next.lower.as_str(), "speaking" | "here" | "and")
                            })
                    })
                    .map(|(start, end)| (sentence, start, end))
            })?;
        let sent = &self.transcript.sentences[sentence];
        let name = name_part_of(&sent.tokens[start..end], part)?;
        Some((name, Source::sentence(sentence)))
    }

    /// Whether `word` is spelt out letter by letter right after it is said
    /// somewhere in the call ("Furey, F-U-R-E-Y.").
    fn spelled_out(&self, word: &str) -> bool {
        let letters = word.chars().filter(char::is_ascii_alphabetic).count();
        self.transcript.sentences.iter().any(|sent| {
            sent.tokens.iter().enumerate().any(|(at, t)| {
                t.text.eq_ignore_ascii_case(word)
                    && sent.tokens[at + 1..]
                        .iter()
                        .filter(|t| t.is_word())
                        .take(letters)
                        .filter(|t| t.text.chars().count() == 1)
                        .count()
                        >= letters.min(3)
            })
        })
    }

    /// Whether `name` is said somewhere in the call as a place ("Claire
    /// lives near Linden Park"): then it is no person's name anywhere.
    pub(super) fn named_as_a_place(&self, name: &str) -> bool {
        // Two words or more, none possessive: "near Linden Park", not "at
        // Dave's desk" or "in Austin".
        if name.split_whitespace().count() < 2 {
            return false;
        }
        self.transcript.sentences.iter().any(|sent| {
            proper_spans(sent, self.transcript)
                .into_iter()
                .any(|(start, end)| {
                    after_place_word(sent, start)
                        && !sent.tokens[start..end]
                            .iter()
                            .any(|t| t.lower.ends_with("'s"))
                        && join_tokens(&sent.tokens[start..end]).eq_ignore_ascii_case(name)
                })
        })
    }
}

impl Analysis<'_, '_> {
    /// The full name the other side gives somewhere in the call for a
    /// person named alone ("I'd need Niamh to confirm" … "Niamh Kehoe,
    /// yeah."; "Furey, F-U-R-E-Y." after "Declan Furey."): a name of two
    /// or three words that starts with `one`, or ends with it when `one`
    /// is spelt out, and names no place or business.
    pub(super) fn full_name_of(&self, one: &str) -> Option<(String, SentenceIndex)> {
        // A surname completes only when it is spelt out ("Furey,
        // F-U-R-E-Y."): "Ryan." may be another person than Sarah Ryan.
        let spelled = self.spelled_out(one);
        self.sentences()
            .filter(|(_, sent)| self.transcript.turns[sent.turn].speaker != Speaker::Agent)
            .flat_map(|(index, sent)| {
                proper_spans(sent, self.transcript)
                    .into_iter()
                    .map(move |(start, end)| (index, sent, start, end))
            })
            .filter(|&(_, sent, start, end)| {
                (2..=3).contains(&(end - start))
                    && (sent.tokens[start].text.eq_ignore_ascii_case(one)
                        || (spelled && sent.tokens[end - 1].text.eq_ignore_ascii_case(one)))
                    // "Mike Junior" is another Mike.
                    && !sent.tokens[start + 1..end].iter().any(|t| {
                        matches!(t.lower.as_str(), "junior" | "senior" | "jr" | "sr")
                    })
                    && sent.tokens[start..end].iter().all(|t| t.is_word())
                    && !no_person(sent, start, end)
            })
            .map(|(index, sent, start, end)| (join_tokens(&sent.tokens[start..end]), index))
            .find(|(name, _)| !self.named_as_a_place(name))
    }
}

/// The `part` of the name said in `words`: a last name only when two
/// words or more were said.
pub(super) fn name_part_of(words: &[Token], part: NamePart) -> Option<String> {
    match part {
        NamePart::First => Some(words.first()?.text.clone()),
        NamePart::Last if words.len() >= 2 => Some(words.last()?.text.clone()),
        NamePart::Last => None,
        NamePart::Full => Some(join_tokens(words)),
    }
}

/// Spans of capitalised words that look like names. Sentence-initial words
/// count only when followed by another capitalised word or seen capitalised
/// mid-sentence elsewhere in the transcript.
pub(super) fn proper_spans(sent: &Sentence, transcript: &Transcript) -> Vec<(usize, usize)> {
    spans_of_names(sent, transcript, false)
}

/// [`proper_spans`] of a reply to a question asking for the name: there a
/// capitalised word that opens the sentence and stands alone ("Rheem.",
/// "Rheem, nearly always.") is the name given.
pub(super) fn proper_spans_of_answer(
    sent: &Sentence,
    transcript: &Transcript,
) -> Vec<(usize, usize)> {
    spans_of_names(sent, transcript, true)
}

fn spans_of_names(
    sent: &Sentence,
    transcript: &Transcript,
    opening_answers: bool,
) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let toks = &sent.tokens;
    // The word ends the sentence or its clause.
    let set_off = |end: usize| {
        toks.get(end)
            .is_none_or(|t| t.is_punct(',') || t.is_punct('.') || t.is_punct('!'))
    };
    let first_word = toks.iter().position(|t| t.is_word());
    let is_cap = |i: usize| -> bool {
        let Some(t) = toks.get(i) else { return false };
        if !t.is_word() || !t.is_capitalized() {
            return false;
        }
        let l = t.lower.as_str();
        if set!(CAPITALISED_NON_NAMES).contains(l)
            || vocabulary::weekday(l).is_some()
            || vocabulary::month(t).is_some()
        {
            return false;
        }
        // "That's", "We'll": sentence openers, not names (a possessive "Kim's" is fine).
        let base = l.strip_suffix("'s").unwrap_or(l);
        if set!(STOPWORDS).contains(l)
            || set!(STOPWORDS).contains(base)
            || set!(FILLERS).contains(base)
            || base.contains('\'')
        {
            return false;
        }
        // Spelled-out letters ("K-O-V") are not names.
        let letters = t.text.chars().filter(|c| c.is_alphabetic()).count();
        if letters <= 1 {
            return false;
        }
        // The letters of a code ("AB-4719", "XK22") are not a name either.
        let code_prefix = t.text.chars().all(|c| c.is_ascii_uppercase())
            && toks.get(i + 1).is_some_and(|next| {
                !next.space_before && (next.is_punct('-') || next.kind == TokenKind::Num)
            });
        if code_prefix {
            return false;
        }
        if classify_number_word(l).is_some() {
            return false;
        }
        true
    };
    let mut i = 0;
    while i < toks.len() {
        let title = toks.get(i).is_some_and(|t| {
            matches!(t.lower.as_str(), "mr" | "ms" | "mrs" | "dr") && t.is_capitalized()
        });
        let starts_name = is_cap(i) || (title && is_cap(i + 1));
        if !starts_name {
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        while is_cap(i) && toks.get(i).is_some_and(|t| t.space_before) {
            i += 1;
        }
        let end = i;
        let initial = Some(start) == first_word;
        // "Marcus, he's our senior guy.": a word the next clause calls
        // he or she is someone.
        // (Not an adverb: "Unfortunately, he's booked", "Normally, she's in".)
        let adverb = end - start == 1 && {
            let l = toks[start].lower.as_str();
            [
                "ally", "ately", "ously", "ently", "antly", "stly", "itely", "ably", "ibly", "ily",
            ]
            .iter()
            .any(|ending| l.ends_with(ending))
                && !matches!(l, "emily" | "lily" | "sally" | "molly" | "holly" | "kelly")
        };
        let called_a_person = !adverb
            && toks.get(end).is_some_and(|t| t.is_punct(','))
            && toks.get(end + 1).is_some_and(|t| {
                matches!(
                    t.lower.as_str(),
                    "he" | "she" | "he's" | "she's" | "he'll" | "she'll" | "he'd" | "she'd"
                )
            });
        // (Asked for the name, a word standing alone at the opening is one.)
        let answers_with_it =
            opening_answers && !adverb && set_off(end) && !a_word_of_manner(&toks[start].lower);
        if initial
            && end - start == 1
            && !called_a_person
            && !answers_with_it
            && !seen_mid_sentence(transcript, &toks[start].text)
        {
            continue;
        }
        if initial && end - start == 1 && STOPWORDS.contains(&toks[start].lower.as_str()) {
            continue;
        }
        let span_end = end;
        // Possessive "Kim's" → "Kim".
        spans.push((start, span_end));
    }
    spans
}

/// Whether `text` appears capitalised somewhere other than at a sentence start.
fn seen_mid_sentence(transcript: &Transcript, text: &str) -> bool {
    let base = text.strip_suffix("'s").unwrap_or(text);
    transcript.sentences.iter().any(|s| {
        let first = s.tokens.iter().position(|t| t.is_word());
        s.tokens.iter().enumerate().any(|(i, t)| {
            Some(i) != first
                && t.is_word()
                && t.is_capitalized()
                && t.text.strip_suffix("'s").unwrap_or(&t.text) == base
        })
    })
}

/// Joins a name span, dropping a possessive "'s" that ends it ("Kim's"
/// in "Kim's car" is "Kim"), not one inside the name ("Miller's Ford"),
/// nor the one of a saint's name, which names a place ("St. Aidan's").
pub(super) fn join_tokens(toks: &[Token]) -> String {
    let saints = toks
        .first()
        .is_some_and(|t| matches!(t.lower.as_str(), "st" | "st." | "saint"));
    let mut out = String::new();
    for (i, t) in toks.iter().enumerate() {
        if i > 0 && t.space_before {
            out.push(' ');
        }
        let text = if i + 1 == toks.len() && !saints {
            t.text.strip_suffix("'s").unwrap_or(&t.text)
        } else {
            &t.text
        };
        out.push_str(text);
    }
    out
}

/// A word that opens a reply as how it is said, not what ("Sure.",
/// "Always.", "Lovely.", "Outdoors."): no name, even where it stands
/// alone.
fn a_word_of_manner(word: &str) -> bool {
    word.ends_with("ly")
        || phrases!(STRONG_YES).iter().any(|p| p.as_slice() == [word])
        || phrases!(STRONG_NO).iter().any(|p| p.as_slice() == [word])
        || matches!(
            word,
            "always"
                | "never"
                | "sometimes"
                | "often"
                | "outdoors"
                | "indoors"
                | "outside"
                | "inside"
                | "anywhere"
                | "everywhere"
                | "whatever"
                | "nothing"
                | "everything"
                | "anything"
                | "both"
                | "either"
                | "neither"
                | "none"
                | "all"
                | "fine"
                | "great"
                | "perfect"
                | "brilliant"
                | "wonderful"
                | "cheers"
                | "thanks"
                | "mine"
                | "ours"
                | "his"
                | "hers"
                | "theirs"
                | "yours"
                | "pass"
                | "depends"
                | "dunno"
                | "unsure"
                | "whoever"
                | "maybe"
                | "sorry"
                | "gosh"
        )
}
