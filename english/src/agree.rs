//! Whether quoted words can carry a value: a number that appears in them,
//! a yes or no that matches (read after the question it answers: see
//! `asks_in_the_negative` and `asks_the_other_side_of`), a string whose
//! words they contain, and no dodge.

use crate::FieldText;
use crate::number_pairs::window_opening;
use crate::number_words::{NumberWord, classify_number_word};
use crate::numbers::{find_numbers, same_amount};
use crate::opposites::{asks_about_a_problem, asks_the_other_side, turns_round};
use crate::stem::{stem, stems_match};
use crate::tokens::{Token, TokenKind, tokenize};
use crate::units::{DurationUnit, Unit};
use crate::vocabulary;

/// Words that open a reply without answering ("well", "oh").
const OPENERS: &[&str] = &["well", "oh", "um", "uh", "so", "hmm", "ah", "and"];

/// Acknowledgements: they confirm what the agent just said ("Okay."), but
/// answer no question ("Okay, we don't deliver").
#[rustfmt::skip]
const ACKNOWLEDGEMENTS: &[&str] = &[
    "okay", "ok", "alright", "all right", "fine", "great", "got it", "understood", "sounds good",
    "perfect", "that works", "works for me", "lovely", "brilliant", "excellent", "wonderful",
    "will do",
];

/// Replies that answer yes, compared on their first one to three words.
#[rustfmt::skip]
const YES: &[&str] = &[
    "yes", "yeah", "yep", "yup", "ya", "yea", "yah", "sure", "correct", "right", "exactly", "absolutely",
    "definitely", "certainly", "indeed", "affirmative", "of course", "that's right", "that's correct",
    "that is right", "that is correct", "you bet", "uh huh", "uh-huh", "mm-hmm", "mhm", "sure thing",
    "you got it", "that's it", "yes please", "sounds right", "sounds good", "perfect",
    "that's the one",
];

/// Replies that answer no, compared on their first one to three words.
#[rustfmt::skip]
const NO: &[&str] = &[
    "no", "nope", "nah", "not really", "negative", "not at all", "no way", "afraid not", "i'm afraid not",
    "definitely not", "absolutely not", "of course not", "certainly not", "never",
];

/// Replies that open with a "no" word and still agree ("no problem").
const NO_THAT_AGREES: &[&str] = &["no problem", "no worries", "no doubt", "no question"];

/// Words that negate the clause they are in.
const NEGATIONS: &[&str] = &[
    "not", "never", "no", "none", "nothing", "nobody", "neither", "nor", "without", "cannot",
];

/// Words that take back or qualify what they follow.
const RESERVATIONS: &[&str] = &["actually", "but", "except", "although", "though", "however"];

/// Phrases that give no answer: whatever else a quote holds, it supports
/// no value.
#[rustfmt::skip]
const DODGES: &[&str] = &[
    "not sure", "no idea", "no clue", "don't know", "do not know", "dunno", "not certain", "can't say",
    "cannot say", "couldn't say", "hard to say", "have to check", "need to check", "get back to you",
    "let you know", "maybe", "possibly", "perhaps", "probably", "might be", "rather not", "prefer not to",
    "no comment", "can't remember", "don't remember", "can't recall", "don't recall", "not decided",
    "haven't decided", "undecided", "it depends", "depends on", "can't give you", "cannot give you",
    "don't quote me", "won't know", "might not", "hard to tell", "would have to ask", "i'd have to ask",
];

/// Words that state an amount of nothing.
const ZERO_WORDS: &[&str] = &["zero", "free", "nothing", "none", "waived", "nil"];

/// The lower-case words and numbers of `text`, in order.
fn words(tokens: &[Token]) -> Vec<&str> {
    tokens
        .iter()
        .filter(|t| matches!(t.kind, TokenKind::Word | TokenKind::Num))
        .map(|t| t.lower.as_str())
        .collect()
}

/// Whether `words` contain `phrase` (space-separated words) anywhere.
fn has_phrase(words: &[&str], phrase: &str) -> bool {
    let wanted: Vec<&str> = phrase.split(' ').collect();
    words.windows(wanted.len()).any(|w| w == wanted.as_slice())
}

fn negates(word: &str) -> bool {
    NEGATIONS.contains(&word) || word.ends_with("n't")
}

/// The words after any openers.
fn after_openers<'a>(words: &'a [&'a str]) -> &'a [&'a str] {
    let skip = words.iter().take_while(|w| OPENERS.contains(w)).count();
    &words[skip..]
}

/// How many words of an acknowledgement `words` open with.
fn acknowledgement(words: &[&str]) -> Option<usize> {
    (1..=2).rev().find(|&length| {
        words
            .get(..length)
            .is_some_and(|head| ACKNOWLEDGEMENTS.contains(&head.join(" ").as_str()))
    })
}

/// The answer word a reply opens with: `Some(true)` for yes, `Some(false)`
/// for no, with how many words it takes (after any openers and an
/// acknowledgement: "Okay, no, …").
fn opening_answer(words: &[&str]) -> Option<(bool, usize)> {
    let words = after_openers(words);
    let words = &words[acknowledgement(words).unwrap_or(0)..];
    for length in (1..=3).rev() {
        let Some(head) = words.get(..length) else {
            continue;
        };
        let head = head.join(" ");
        if NO_THAT_AGREES.contains(&head.as_str()) {
            return Some((true, length));
        }
        if YES.contains(&head.as_str()) {
            return Some((true, length));
        }
        if NO.contains(&head.as_str()) {
            return Some((false, length));
        }
    }
    None
}

/// Whether the last question in `text` is asked in the negative ("You
/// don't charge for parking, do you?", "There's no fee, correct?"): a
/// "yes" or "correct" to it may agree that there is none. "…or not?",
/// "no problem" and a closing tag ("It's included, isn't it?") are not.
pub fn asks_in_the_negative(text: &str) -> bool {
    let tokens = tokenize(text);
    let Some(question) = last_question(&tokens) else {
        return false;
    };
    let asked = words(question);
    asked.iter().enumerate().any(|(at, word)| {
        let tag = word.ends_with("n't")
            && at + 2 == asked.len()
            && matches!(
                asked[at + 1],
                "it" | "they" | "there" | "he" | "she" | "you" | "we" | "i"
            );
        let or_not = at > 0 && asked[at - 1] == "or";
        negates(word)
            && !tag
            && !or_not
            && !matches!(
                asked.get(at + 1),
                Some(&("problem" | "worries" | "idea" | "doubt" | "question"))
            )
    })
}

/// Whether `text` asks nothing and ends on a statement in the negative
/// ("So eleven hundred a week, and delivery isn't included."): a yes
/// word after it agrees that there is none.
pub fn states_in_the_negative(text: &str) -> bool {
    let tokens = tokenize(text);
    if tokens
        .iter()
        .any(|t| matches!(t.kind, TokenKind::Punct('?')))
    {
        return false;
    }
    let body = match tokens.last() {
        Some(t) if matches!(t.kind, TokenKind::Punct('.' | '!')) => &tokens[..tokens.len() - 1],
        _ => &tokens[..],
    };
    let start = body
        .iter()
        .rposition(|t| matches!(t.kind, TokenKind::Punct('.' | '!')))
        .map_or(0, |at| at + 1);
    words(&body[start..]).iter().any(|word| negates(word))
}

/// Whether the last question in `text` asks `field`'s yes/no question
/// from its other side ("Does she bring her own helmet?" for "helmet
/// provided").
pub fn asks_the_other_side_of(field: &dyn FieldText, text: &str) -> bool {
    let tokens = tokenize(text);
    last_question(&tokens).is_some_and(|asked| asks_the_other_side(field, &words(asked)))
}

/// Whether the last question in `text` asks whether something would be
/// a problem, for a field that is not about one ("They've got a dog. Is
/// that a problem?" for `dogs_allowed`).
pub fn asks_about_a_problem_of(field: &dyn FieldText, text: &str) -> bool {
    let tokens = tokenize(text);
    last_question(&tokens).is_some_and(|asked| asks_about_a_problem(field, &words(asked)))
}

/// The tokens of the last question in `tokens` (up to its `?`).
fn last_question(tokens: &[Token]) -> Option<&[Token]> {
    let end = tokens
        .iter()
        .rposition(|t| matches!(t.kind, TokenKind::Punct('?')))?;
    let start = tokens[..end]
        .iter()
        .rposition(|t| matches!(t.kind, TokenKind::Punct('.' | '!' | '?')))
        .map_or(0, |at| at + 1);
    Some(&tokens[start..end])
}

/// Whether a quote that opens with a yes only agrees ("Correct.",
/// "That's right, it's free.") rather than asserting the positive ("Yes,
/// we do charge"): no short echo such as "we do" or "it is" follows.
pub fn only_agrees(text: &str) -> bool {
    const ECHOES: &[&str] = &[
        "we do",
        "we can",
        "i can",
        "i do",
        "it is",
        "they are",
        "it does",
        "we are",
        "there is",
        "there are",
        "we will",
        "they do",
        "we have",
        "it has",
        "she does",
        "he does",
        "you do",
    ];
    let tokens = tokenize(text);
    let words = words(&tokens);
    !ECHOES.iter().any(|echo| has_phrase(&words, echo))
}

/// Whether a quote declines or hedges rather than answers.
pub fn is_dodge(text: &str) -> bool {
    let tokens = tokenize(text);
    let words = words(&tokens);
    DODGES.iter().any(|dodge| has_phrase(&words, dodge))
}

/// Whether the recipient's `reply` confirms what the agent just `said`: it
/// opens with a yes or an acknowledgement and neither takes it back ("yes,
/// but …", "right, actually …"), hedges, nor offers a figure or day of its
/// own ("Lovely, I can do Saturday at three" to "Saturday at two?").
pub fn confirms(said: &str, reply: &str) -> bool {
    let said_tokens = tokenize(said);
    let said_words = words(&said_tokens);
    // A question of the reply's own ("Lot's about a quarter acre, isn't
    // it?") neither confirms nor takes back.
    let all_tokens = tokenize(reply);
    let mut tokens: Vec<Token> = Vec::new();
    let mut sentence: Vec<Token> = Vec::new();
    for token in all_tokens {
        let ends = matches!(token.kind, TokenKind::Punct('.' | '!' | '?'));
        let question = matches!(token.kind, TokenKind::Punct('?'));
        sentence.push(token);
        if ends {
            if !question {
                tokens.append(&mut sentence);
            }
            sentence.clear();
        }
    }
    tokens.append(&mut sentence);
    let words = words(&tokens);
    let opened = after_openers(&words);
    let answer = opening_answer(&words);
    let echoed = echoes(&said_words, &tokens);
    let rest = match (answer, acknowledgement(opened)) {
        (Some((true, _)), _) | (None, Some(_)) => {
            // What follows the yes or the acknowledgement.
            let skip = acknowledgement(opened).unwrap_or(0);
            let after = &opened[skip..];
            let length = opening_answer(after).map_or(0, |(_, length)| length);
            &after[length..]
        }
        // "Sunday it is.", "Eight forty Saturday, you're in.": an opening
        // that repeats what the agent said confirms it.
        // ("Second of August... ah, the machine's out" hesitates instead.)
        (None, None)
            if echoed > 0
                && !words[echoed.min(words.len())..].iter().any(|w| {
                    matches!(
                        *w,
                        "ah" | "oh"
                            | "hmm"
                            | "um"
                            | "uh"
                            | "well"
                            | "sorry"
                            | "afraid"
                            | "unfortunately"
                            | "out"
                            | "tight"
                    )
                }) =>
        {
            &words[echoed.min(words.len())..]
        }
        _ => return false,
    };
    // "Lovely, I can do Saturday at three": an acknowledgement that offers
    // a figure or a day the agent did not say offers that instead.
    let offers = [
        "can do",
        "could do",
        "instead",
        "how about",
        "what about",
        "can offer",
    ]
    .iter()
    .any(|offer| has_phrase(rest, offer));
    let own_value = answer.is_none()
        && offers
        && rest.iter().any(|w| {
            (w.chars().any(|c| c.is_ascii_digit())
                || classify_number_word(w).is_some()
                || vocabulary::weekday(w).is_some())
                && !said_words.contains(w)
        });
    // "Sure, why not.": a "not" that agrees.
    let takes_back = rest.iter().enumerate().any(|(at, w)| {
        RESERVATIONS.contains(w)
            || (negates(w) && !(at > 0 && rest[at - 1] == "why" && *w == "not"))
    });
    !own_value && !takes_back && !is_dodge(reply)
}

/// How many words of the reply's first clause (in `tokens`) echo what the
/// agent said (`said_words`): each word one the agent said, a weekday, or
/// a word that settles ("it is", "then", "done"), and one of them a value
/// the agent said (a number or a day, or a name written capitalised).
/// Zero when the first clause is anything else.
fn echoes(said_words: &[&str], tokens: &[Token]) -> usize {
    let clause = first_clause(tokens);
    let settles = |w: &str| {
        matches!(
            w,
            "it" | "is" | "it's" | "then" | "that" | "works" | "done" | "please" | "great" | "fine"
        )
    };
    let value_word = |w: &str| {
        w.chars().any(|c| c.is_ascii_digit())
            || w.split('-')
                .all(|part| classify_number_word(part).is_some())
            || vocabulary::weekday(w).is_some()
            || tokens
                .iter()
                .any(|t| t.lower == w && t.text.starts_with(|c: char| c.is_uppercase()))
    };
    let all_echo = clause
        .iter()
        .all(|w| said_words.contains(w) || vocabulary::weekday(w).is_some() || settles(w));
    let names_said_value = clause
        .iter()
        .any(|w| said_words.contains(w) && value_word(w) && !settles(w));
    if all_echo && names_said_value {
        clause.len()
    } else {
        0
    }
}

/// Words that start a new clause.
#[rustfmt::skip]
const CLAUSE_BREAKS: &[&str] = &[
    "but", "so", "because", "and", "although", "though", "since", "if", "when", "unless", "otherwise",
    "except", "while", "which",
];

/// The words of the quote's first clause: up to the first `,;.?!` or dash,
/// or a word that starts a new clause.
fn first_clause(tokens: &[Token]) -> Vec<&str> {
    let mut clause = Vec::new();
    for token in tokens {
        match token.kind {
            TokenKind::Punct(',' | ';' | '.' | '?' | '!' | '—' | '…') if !clause.is_empty() => {
                break;
            }
            TokenKind::Word | TokenKind::Num => {
                if !clause.is_empty() && CLAUSE_BREAKS.contains(&token.lower.as_str()) {
                    break;
                }
                clause.push(token.lower.as_str());
            }
            _ => {}
        }
    }
    clause
}

/// How many times `words` negate ("no problem" and the like do not).
fn negation_count(words: &[&str]) -> usize {
    (0..words.len())
        .filter(|&at| {
            negates(words[at])
                && !NO_THAT_AGREES
                    .iter()
                    .any(|phrase| words[at..].starts_with(&phrase.split(' ').collect::<Vec<_>>()))
        })
        .count()
}

/// The yes or no a quote states, only where it is plain:
///
/// - its opening answer word ("Nope, we're closed"), unless the rest
///   takes it back or answers the other way too ("No, but…", "Okay, no…
///   yeah, count me in");
/// - else a no when its first clause negates ("Not at that rate.", "We
///   don't deliver").
///
/// Anything else ("We're fully booked", "Not a separate oven, but we bake
/// it first thing") can answer either way: `None`.
pub fn polarity(text: &str) -> Option<bool> {
    let tokens = tokenize(text);
    let words = words(&tokens);
    if let Some((yes, length)) = opening_answer(&words) {
        let opened = after_openers(&words);
        let skip = acknowledgement(opened).unwrap_or(0) + length;
        let rest = &opened[skip.min(opened.len())..];
        let other_way = (0..rest.len()).any(|at| match opening_answer(&rest[at..]) {
            Some((answer, _)) => answer != yes && !(yes && negates(rest[at])),
            None => false,
        });
        // "Oh, no, we do have one", "Oh no, it is!": a no that turns
        // straight round.
        let turned = !yes && turns_round(rest, |length| clause_ends_after(&tokens, rest, length));
        let taken_back = turned || rest.iter().any(|w| RESERVATIONS.contains(w));
        return (!other_way && !taken_back).then_some(yes);
    }
    let clause = first_clause(&tokens);
    let plain_yes = clause.iter().any(|w| YES.contains(w));
    // "The cat can't get into the boxes, so yeah, it's fine": a yes drawn
    // from the first clause makes its negation a reason.
    let concluded_yes = words
        .windows(2)
        .any(|pair| pair[0] == "so" && YES.contains(&pair[1]));
    (negation_count(&clause) % 2 == 1 && !plain_yes && !concluded_yes).then_some(false)
}

/// Whether, in `tokens`, the clause ends right after the first `length`
/// of the words `rest` (the reply's last words): what follows them is
/// punctuation or nothing.
fn clause_ends_after(tokens: &[Token], rest: &[&str], length: usize) -> bool {
    let word_positions: Vec<usize> = (0..tokens.len())
        .filter(|&at| matches!(tokens[at].kind, TokenKind::Word | TokenKind::Num))
        .collect();
    // `rest` is the tail of the reply's words.
    let first = word_positions.len().saturating_sub(rest.len());
    let Some(&last) = word_positions.get(first + length.saturating_sub(1)) else {
        return false;
    };
    tokens
        .get(last + 1)
        .is_none_or(|next| !matches!(next.kind, TokenKind::Word | TokenKind::Num))
}

const DURATIONS: [DurationUnit; 6] = [
    DurationUnit::Minute,
    DurationUnit::Hour,
    DurationUnit::Day,
    DurationUnit::Week,
    DurationUnit::Month,
    DurationUnit::Year,
];

/// Whether `value` appears in the quote as a number, written in digits or
/// words: any number in it (either reading of an ambiguous spoken amount),
/// a duration in it or the sum of its durations converted to another unit
/// ("two and a half hours" is 150 minutes; a week is five working days
/// when `working_days`), or 0 for words of nothing ("it's free", "no
/// fee").
pub fn number_agrees(value: f64, text: &str, working_days: bool) -> bool {
    let tokens = tokenize(text);
    let mentions = find_numbers(&tokens);
    let readings = mentions.iter().enumerate().flat_map(|(at, m)| {
        let digits = m.digits.as_deref().and_then(|d| d.parse::<f64>().ok());
        // A time of day also reads on the 24-hour clock, minutes as a fraction.
        // ("at seven" is a time too.)
        let clock = (m.clock.is_some()
            || m.unit == Unit::Clock
            || m.pm.is_some()
            || (m.after_time_prep && m.unit == Unit::None && m.value <= 12.0))
            .then(|| {
                let (hour, minute) = m.clock.unwrap_or((m.value as u32, 0));
                f64::from(hour) + f64::from(minute) / 60.0
            });
        let afternoon = clock.filter(|&hour| hour < 12.0).map(|hour| hour + 12.0);
        // "Me and three guys" counts four.
        let with_speaker = (m.start >= 2
            && matches!(tokens[m.start - 1].lower.as_str(), "and" | "plus")
            && matches!(tokens[m.start - 2].lower.as_str(), "me" | "myself"))
        .then_some(m.value + 1.0);
        // "One to five in the afternoon": the window's opening is a time
        // of day too, so it reads in the afternoon as well.
        let opening_afternoon = window_opening(&tokens, &mentions, at + 1)
            .map(|(hour, minute, _)| f64::from(hour) + f64::from(minute) / 60.0)
            .filter(|&hour| hour < 12.0)
            .map(|hour| hour + 12.0);
        [
            Some(m.value),
            m.alt,
            digits,
            clock,
            afternoon,
            opening_afternoon,
            with_speaker,
        ]
        .into_iter()
        .flatten()
    });
    for reading in readings {
        if same_amount(reading, value) {
            return true;
        }
    }
    // Durations, alone or summed, in any unit they convert to.
    let durations: Vec<(f64, DurationUnit)> = mentions
        .iter()
        .filter_map(|m| match m.unit {
            Unit::Duration(unit) => Some((m.value, unit)),
            _ => None,
        })
        .collect();
    for target in DURATIONS {
        let converted: Vec<f64> = durations
            .iter()
            .filter_map(|&(amount, unit)| unit.factor_to(target).map(|f| amount * f))
            .collect();
        if converted.iter().any(|&c| same_amount(c, value))
            || (converted.len() > 1 && same_amount(converted.iter().sum(), value))
        {
            return true;
        }
    }
    // Weeks counted in working days ("two weeks" is ten business days).
    if working_days
        && durations
            .iter()
            .any(|&(amount, unit)| unit == DurationUnit::Week && same_amount(amount * 5.0, value))
    {
        return true;
    }
    if value == 0.0 {
        let words = words(&tokens);
        return words.iter().any(|w| ZERO_WORDS.contains(w))
            || words
                .windows(2)
                .any(|pair| pair[0] == "no" && !matches!(pair[1], "i" | "we" | "it" | "not"))
            || words
                .windows(3)
                .any(|three| three == ["on", "the", "house"]);
    }
    false
}

/// Words of a string value that carry no content of their own.
#[rustfmt::skip]
const LIGHT: &[&str] = &[
    "a", "an", "the", "of", "and", "or", "on", "at", "in", "to", "for", "with", "by", "from", "is", "it",
    "s", "'s", "am", "pm",
];

/// Whether a code `value` ("HV2281", "4419") is spelled out, whole, in
/// the quote a character or a few digits at a time ("H, V, two, two, eight, one",
/// "4-4-1-9", "7 2 1 9"). Only values with a digit, so that no name is
/// read out of initials.
fn spelled_out(value: &str, quote_tokens: &[Token]) -> bool {
    let wanted: String = value
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    if wanted.chars().count() < 3 || !wanted.chars().any(|c| c.is_ascii_digit()) {
        return false;
    }
    // Runs of single characters and digit groups, broken by any other word,
    // by the end of a sentence, and by a comma after a group of digits
    // ("Room 22, 81 Main Street" spells no 2281).
    let mut runs = vec![String::new()];
    let mut last_piece = 0;
    for token in quote_tokens {
        let text = token.lower.as_str();
        let run_started = runs.last().is_some_and(|run| !run.is_empty());
        let piece = match token.kind {
            TokenKind::Num if text.chars().all(|c| c.is_ascii_digit()) => Some(text.to_string()),
            TokenKind::Word if text.chars().count() == 1 => Some(text.to_string()),
            // "B W, then seven, oh, three"
            TokenKind::Word if vocabulary::is_code_bridge(text) => continue,
            // "Oh, 4 4 1 9": an "oh" before any digit is a sound.
            TokenKind::Word if text == "oh" && !run_started => continue,
            TokenKind::Word if text == "oh" => Some("0".to_string()),
            TokenKind::Word => match classify_number_word(text) {
                Some(NumberWord::Zero) => Some("0".to_string()),
                Some(NumberWord::Unit(digit)) => Some(digit.to_string()),
                _ => None,
            },
            TokenKind::Punct(',') if last_piece <= 1 => continue,
            TokenKind::Punct(',' | '.' | '?' | '!' | ';') => None,
            _ => continue,
        };
        match piece {
            Some(piece) => {
                last_piece = piece.chars().count();
                if let Some(run) = runs.last_mut() {
                    run.push_str(&piece);
                }
            }
            None => {
                last_piece = 0;
                runs.push(String::new());
            }
        }
    }
    // The whole run, so that part of a code ("70331" of "BW70331") is not
    // read as the code; a leading "a" or "I" may be a word.
    runs.iter().any(|run| {
        run == &wanted
            || run
                .strip_prefix(['a', 'i'])
                .is_some_and(|rest| rest == wanted)
    })
}

/// Whether every content word of a string `value` is in the quote (case
/// folded; a word matches the same word, its stem, or a close variant such
/// as a plural).
pub fn words_agree(value: &str, text: &str) -> bool {
    let quote_tokens = tokenize(text);
    let quoted: Vec<(&str, String)> = words(&quote_tokens)
        .into_iter()
        .map(|w| (w, stem(w)))
        .collect();
    let value_tokens = tokenize(value);
    let mut content = words(&value_tokens)
        .into_iter()
        .filter(|w| !LIGHT.contains(w))
        .peekable();
    if content.peek().is_none() {
        return false;
    }
    let said_morning = quoted.iter().any(|(q, _)| *q == "morning");
    // Numbers in the quote, as said and digit by digit ("two twelve" is
    // 212, "four four seven one" 4471).
    let spoken: Vec<String> = find_numbers(&quote_tokens)
        .iter()
        .flat_map(|m| {
            let value = (m.value.fract() == 0.0).then(|| format!("{}", m.value as i64));
            let alt = m
                .alt
                .filter(|a| a.fract() == 0.0)
                .map(|a| format!("{}", a as i64));
            // A time of day as said ("4:15") and on the 24-hour clock: in
            // the morning ("04:15") unless said pm, in the afternoon
            // ("16:15") unless said am or "in the morning".
            let whole_hour = (m.clock.is_none()
                && (m.unit == Unit::Clock || m.after_time_prep)
                && m.value.fract() == 0.0
                && (0.0..=12.0).contains(&m.value))
            .then_some((m.value as u32, 0));
            let (clock, clock24, afternoon) = match m.clock.or(whole_hour) {
                Some((hour, minute)) => (
                    Some(format!("{hour}:{minute:02}")),
                    (m.pm != Some(true)).then(|| format!("{hour:02}:{minute:02}")),
                    (hour < 12 && m.pm != Some(false) && !said_morning)
                        .then(|| format!("{}:{minute:02}", hour + 12)),
                ),
                None => (None, None, None),
            };
            [value, alt, m.digits.clone(), clock, clock24, afternoon]
                .into_iter()
                .flatten()
        })
        .collect();
    spelled_out(value, &quote_tokens)
        || content.all(|word| {
            let word_stem = stem(word);
            quoted.iter().any(|(q, q_stem)| {
                *q == word || *q_stem == word_stem || stems_match(q_stem, &word_stem)
            }) || spoken.iter().any(|number| number == &word.replace(',', ""))
        })
}
