//! Stage 1: the transcript as turns, sentences and clauses, with per-sentence
//! stems, numbers and question focus computed once.

use std::ops::Index;

use super::lexicon::FILLERS;
use super::phrase::has_any_phrase;
use super::relevance::question_focus;
use agentcall::extract::Quote;
use agentcall_english::number_words::classify_number_word;
use agentcall_english::numbers::{NumberMention, find_numbers};
use agentcall_english::stem::stem;
use agentcall_english::tokens::{Token, TokenKind, split_sentences, tokenize};
use agentcall_english::units::DurationUnit;
use agentcall_english::vocabulary;

/// Position of a turn in [`Transcript::turns`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct TurnIndex(pub(super) usize);

impl TurnIndex {
    /// The turn right after this one.
    pub(super) fn next(self) -> TurnIndex {
        TurnIndex(self.0 + 1)
    }

    /// The turn right before this one, if any.
    pub(super) fn previous(self) -> Option<TurnIndex> {
        self.0.checked_sub(1).map(TurnIndex)
    }
}

/// Position of a sentence in [`Transcript::sentences`]; sentences are
/// numbered across the whole transcript, so later turns have higher indices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct SentenceIndex(pub(super) usize);

impl SentenceIndex {
    /// The sentence right after this one (possibly in the next turn).
    pub(super) fn next(self) -> SentenceIndex {
        SentenceIndex(self.0 + 1)
    }
}

/// A clause of a turn. Ids count up through the turn, so a higher id is
/// later in the reply; they are not token positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct ClauseId(pub(super) usize);

pub(super) use agentcall::transcript::Speaker;

/// One sentence of a turn, tokenized, with what the later stages need
/// precomputed once.
#[derive(Debug)]
pub(super) struct Sentence {
    pub(super) turn: TurnIndex,
    pub(super) tokens: Vec<Token>,
    /// Per token: stem for words, digits for numbers, empty otherwise.
    pub(super) stems: Vec<String>,
    /// Per token: clause id, unique within the turn.
    pub(super) token_clauses: Vec<ClauseId>,
    /// (clause id, its lower-case words joined by spaces).
    clause_texts: Vec<(ClauseId, String)>,
    /// `stems` with words of subordinate clauses ("when it's done", "if …")
    /// blanked: they mention a topic without asking about it.
    pub(super) topic_stems: Vec<String>,
    pub(super) question: bool,
    /// Starts with "if"/"unless": the whole sentence is hypothetical.
    pub(super) conditional: bool,
    /// For "What sizes …?" / "How much is the toll?": the stems of the
    /// noun the question asks for.
    pub(super) focus: Vec<String>,
    pub(super) numbers: Vec<NumberMention>,
}

impl Sentence {
    /// The lower-case words of the sentence.
    /// The lower-case token `back` places before token `token`.
    pub(super) fn lower_before(&self, token: usize, back: usize) -> Option<&str> {
        token
            .checked_sub(back)
            .and_then(|i| self.tokens.get(i))
            .map(|t| t.lower.as_str())
    }

    /// The words of the sentence, lower case, with their token positions.
    pub(super) fn indexed_word_lowers(&self) -> Vec<(usize, &str)> {
        self.tokens
            .iter()
            .enumerate()
            .filter(|(_, t)| t.is_word())
            .map(|(i, t)| (i, t.lower.as_str()))
            .collect()
    }

    pub(super) fn word_lowers(&self) -> impl Iterator<Item = &str> {
        self.tokens
            .iter()
            .filter(|t| t.is_word())
            .map(|t| t.lower.as_str())
    }

    /// The words of the sentence, lower case, joined by single spaces (the
    /// form phrases are matched in).
    pub(super) fn lower_text(&self) -> String {
        self.word_lowers().collect::<Vec<_>>().join(" ")
    }

    /// Whether the clause holding token `tok` says, before it, that what
    /// follows is habitual or superseded ("usually", "normally", "it used
    /// to be", "last time it was"): a value there is no answer about this
    /// case.
    pub(super) fn habitual_before(&self, tok: usize) -> bool {
        let Some(&clause) = self.token_clauses.get(tok) else {
            return false;
        };
        let range = self.clause_range(clause);
        let words: Vec<&str> = self.tokens[range.start..tok.min(range.end)]
            .iter()
            .filter(|t| t.is_word())
            .map(|t| t.lower.as_str())
            .collect();
        // "Last time it was eight dollars", not "the last time slot".
        // ("Last time I checked it's two hundred" still stands.)
        let last_time = words.windows(3).enumerate().any(|(at, w)| {
            w[..2] == ["last", "time"]
                && matches!(
                    w[2],
                    "it" | "she" | "he" | "they" | "we" | "i" | "you" | "was" | "were"
                )
                && !words
                    .get(at + 3)
                    .is_some_and(|next| matches!(*next, "checked" | "looked" | "heard"))
        });
        words.iter().any(|w| set!(HABITUAL).contains(w))
            || words.windows(2).any(|pair| pair == ["used", "to"])
            || last_time
    }

    /// The clause token `token` is in (the first clause past the end).
    pub(super) fn clause_at(&self, token: usize) -> ClauseId {
        self.token_clauses
            .get(token)
            .copied()
            .unwrap_or(ClauseId(0))
    }

    /// Token range of `clause`.
    pub(super) fn clause_range(&self, clause: ClauseId) -> std::ops::Range<usize> {
        let start = self
            .token_clauses
            .iter()
            .position(|&x| x == clause)
            .unwrap_or(0);
        let end = self
            .token_clauses
            .iter()
            .rposition(|&x| x == clause)
            .map_or(start, |e| e + 1);
        start..end
    }

    /// The sentence's clause ids, in order.
    pub(super) fn clause_ids(&self) -> Vec<ClauseId> {
        let mut ids: Vec<ClauseId> = self.token_clauses.clone();
        ids.dedup();
        ids
    }
}

/// One speaker turn: a labelled line plus any unlabelled lines after it.
#[derive(Debug)]
pub(super) struct Turn {
    pub(super) speaker: Speaker,
    /// The turn's sentences, in order.
    pub(super) sentences: Vec<SentenceIndex>,
    pub(super) raw: String,
}

/// The parsed call: turns, all sentences in transcript order, and the
/// objective (whose words are call context rather than field topics).
#[derive(Debug)]
pub(super) struct Transcript {
    pub(super) turns: Vec<Turn>,
    pub(super) sentences: Vec<Sentence>,
    pub(super) objective_stems: Vec<String>,
    pub(super) objective_lower: String,
}

impl Index<TurnIndex> for Vec<Turn> {
    type Output = Turn;

    fn index(&self, turn: TurnIndex) -> &Turn {
        &self[turn.0]
    }
}

impl Index<SentenceIndex> for Vec<Sentence> {
    type Output = Sentence;

    fn index(&self, sentence: SentenceIndex) -> &Sentence {
        &self[sentence.0]
    }
}

/// Words that start a new clause.
#[rustfmt::skip]
const CLAUSE_WORDS: &[&str] = &[
    "but", "so", "because", "though", "although", "unless", "if", "cause", "except", "when", "once",
    "whenever", "until", "till",
];
/// Adverbs that make a statement habitual or past rather than about the
/// case at hand.
#[rustfmt::skip]
const HABITUAL: &[&str] = &[
    "usually", "normally", "typically", "generally", "ordinarily", "previously", "formerly",
];
/// Words that open a subordinate (conditional/temporal) clause.
const SUBORDINATORS: &[&str] = &["if", "unless", "when", "once", "whenever", "until", "till"];

impl Transcript {
    /// The last question of turn `turn`: the one its reply answers.
    pub(super) fn last_question(&self, turn: TurnIndex) -> Option<&Sentence> {
        self.turns[turn]
            .sentences
            .iter()
            .rev()
            .map(|&sentence| &self.sentences[sentence])
            .find(|sentence| sentence.question)
    }

    /// The words of sentences `from` to `to` (of one turn), as the turn has
    /// them, and who said them, as a quote; `None` for a turn of neither
    /// side.
    pub(super) fn quote(&self, from: SentenceIndex, to: SentenceIndex) -> Option<Quote> {
        let first = self.sentences.get(from.0)?;
        let last = self.sentences.get(to.0)?;
        let turn = &self.turns[first.turn];
        let start = first.tokens.first()?.chars.start;
        let end = last.tokens.last()?.chars.end;
        let text: String = turn
            .raw
            .chars()
            .skip(start)
            .take(end.saturating_sub(start))
            .collect();
        // Turns are the transcript's lines: its number is the line's.
        let number = first.turn.0 + 1;
        match turn.speaker {
            Speaker::Agent => Some(Quote::agent(text).in_turn(number)),
            Speaker::Recipient => Some(Quote::recipient(text).in_turn(number)),
            _ => None,
        }
    }

    /// [`Transcript::parse`] of a transcript's text form.
    #[cfg(test)]
    pub(super) fn parse_text(objective: &str, text: &str) -> Transcript {
        Self::parse(objective, &agentcall::Transcript::from_text(text))
    }

    /// Parses `transcript` (its lines of the agent and the recipient) and
    /// notes the words of `objective`.
    pub(super) fn parse(objective: &str, transcript: &agentcall::Transcript) -> Transcript {
        let mut turns: Vec<Turn> = transcript
            .lines()
            .map(|(_, turn)| Turn {
                speaker: turn.speaker,
                sentences: Vec::new(),
                raw: turn.line_text(),
            })
            .collect();
        let mut sentences: Vec<Sentence> = Vec::new();
        for (turn_position, turn) in turns.iter_mut().enumerate() {
            let mut clause_id = 0;
            for toks in split_sentences(tokenize(&turn.raw)) {
                let stems: Vec<String> = toks
                    .iter()
                    .map(|t| match t.kind {
                        TokenKind::Word => stem(&t.lower),
                        TokenKind::Num => t.text.replace(',', ""),
                        _ => String::new(),
                    })
                    .collect();
                let mut clause = Vec::with_capacity(toks.len());
                let mut fresh = true;
                for t in &toks {
                    let breaks_before = t.is_word() && CLAUSE_WORDS.contains(&t.lower.as_str());
                    if breaks_before && !fresh {
                        clause_id += 1;
                    }
                    clause.push(clause_id);
                    fresh = false;
                    if matches!(
                        t.kind,
                        TokenKind::Punct(',' | ';' | ':' | '…' | '—' | '(' | ')' | '"')
                    ) {
                        clause_id += 1;
                        fresh = true;
                    }
                }
                clause_id += 1;
                let question = toks
                    .iter()
                    .rev()
                    .find(|t| !t.is_punct('"'))
                    .is_some_and(|t| t.is_punct('?'));
                let first_content = toks
                    .iter()
                    .filter(|t| t.is_word())
                    .map(|t| t.lower.as_str())
                    .find(|w| !set!(FILLERS).contains(w));
                let conditional = matches!(first_content, Some("if" | "unless"));
                let nums = find_numbers(&toks);
                let first_word = toks.iter().position(Token::is_word);
                let mut topic_stems: Vec<String> = stems.clone();
                // Unit words after a number ("forty minutes") are units, not topics.
                for m in &nums {
                    let after_number = (m.start..m.end)
                        .find(|&i| {
                            toks.get(i).is_some_and(|t| {
                                t.kind == TokenKind::Num || classify_number_word(&t.lower).is_some()
                            })
                        })
                        .map_or(m.start, |i| i + 1);
                    // Just the unit right after the number (or its hyphen), not a rate ("an hour").
                    let unit_at = if toks.get(after_number).is_some_and(|t| t.is_punct('-')) {
                        after_number + 1
                    } else {
                        after_number
                    };
                    for i in unit_at..(unit_at + 1).min(m.end) {
                        let unit_word = toks.get(i).is_some_and(|t| {
                            t.is_word()
                                && (DurationUnit::parse(&t.lower).is_some()
                                    || matches!(
                                        t.lower.as_str(),
                                        "pounds" | "pound" | "lbs" | "dollars" | "dollar" | "bucks"
                                    ))
                        });
                        if unit_word && let Some(st) = topic_stems.get_mut(i) {
                            st.clear();
                        }
                    }
                }
                // Words inside a multi-word name ("Blue Ridge Plumbing") are not topics.
                let capish = |t: &Token| {
                    t.is_word()
                        && t.is_capitalized()
                        && t.lower != "i"
                        && vocabulary::weekday(&t.lower).is_none()
                        && vocabulary::month(t).is_none()
                };
                for i in 0..toks.len() {
                    let in_run = capish(&toks[i])
                        && (toks.get(i + 1).is_some_and(capish)
                            || (i > 0 && toks.get(i - 1).is_some_and(capish)));
                    if in_run && let Some(st) = topic_stems.get_mut(i) {
                        st.clear();
                    }
                }
                // "Who's calling?" / "Who is this?" ask about the caller, not a field.
                for (i, t) in toks.iter().enumerate() {
                    let next = toks.get(i + 1).map(|n| n.lower.as_str());
                    let caller = matches!(t.lower.as_str(), "who's" | "who")
                        && matches!(next, Some("calling" | "this" | "speaking" | "is" | "am"))
                        && !(t.lower == "who"
                            && next == Some("is")
                            && toks
                                .get(i + 2)
                                .is_some_and(|n| !matches!(n.lower.as_str(), "this" | "calling")));
                    if caller && let Some(st) = topic_stems.get_mut(i) {
                        st.clear();
                    }
                }
                let mut sub_clause: Option<usize> = None;
                for (i, t) in toks.iter().enumerate() {
                    let opens = t.is_word()
                        && SUBORDINATORS.contains(&t.lower.as_str())
                        && !(t.lower == "when" && Some(i) == first_word);
                    if opens {
                        sub_clause = clause.get(i).copied();
                    }
                    if sub_clause.is_some()
                        && sub_clause == clause.get(i).copied()
                        && let Some(st) = topic_stems.get_mut(i)
                    {
                        st.clear();
                    }
                }
                let mut ids = clause.clone();
                ids.dedup();
                let clause_texts = ids
                    .into_iter()
                    .map(|c| (ClauseId(c), build_clause_text(&toks, &clause, c)))
                    .collect();
                let focus = if question {
                    question_focus(&toks)
                } else {
                    Vec::new()
                };
                turn.sentences.push(SentenceIndex(sentences.len()));
                sentences.push(Sentence {
                    turn: TurnIndex(turn_position),
                    tokens: toks,
                    stems,
                    clause_texts,
                    token_clauses: clause.into_iter().map(ClauseId).collect(),
                    topic_stems,
                    question,
                    conditional,
                    focus,
                    numbers: nums,
                });
            }
        }
        // "Sunday? No no, Sunday closed.": a word or two of the question
        // just asked, said back before a statement, is an echo, not a
        // question back.
        // (Only the answering side's, and not before a statement that asks
        // back: the asker's "Two hundred? The website said one fifty."
        // challenges, and "Deliver? Depends where you are." asks.)
        let echoes: Vec<usize> = (1..turns.len())
            .filter(|&turn| {
                turns[turn].speaker == Speaker::Recipient
                    && turns[turn - 1].speaker != Speaker::Recipient
            })
            .filter_map(|turn| {
                let first = *turns[turn].sentences.first()?;
                let answer = *turns[turn].sentences.get(1)?;
                if !sentences[first.0].question || sentences[answer.0].question {
                    return None;
                }
                let said: Vec<&str> = sentences[first.0]
                    .word_lowers()
                    .filter(|w| !matches!(*w, "the" | "a" | "an" | "oh" | "um" | "uh" | "sorry"))
                    .collect();
                if said.is_empty() || said.len() > 3 {
                    return None;
                }
                let asked: Vec<&str> = turns[turn - 1]
                    .sentences
                    .iter()
                    .flat_map(|s| sentences[s.0].word_lowers())
                    .collect();
                let asks_back =
                    matches!(
                        sentences[answer.0].word_lowers().next(),
                        Some("depends" | "where" | "which" | "what" | "how" | "when" | "who")
                    ) || has_any_phrase(&sentences[answer.0].lower_text(), DEPENDS_OPENINGS);
                (said.iter().all(|w| asked.contains(w)) && !asks_back).then_some(first.0)
            })
            .collect();
        for sentence in echoes {
            sentences[sentence].question = false;
        }
        let objective_stems = tokenize(objective)
            .iter()
            .filter(|t| t.is_word())
            .map(|t| stem(&t.lower))
            .collect();
        Transcript {
            turns,
            sentences,
            objective_stems,
            objective_lower: objective.to_lowercase(),
        }
    }
}

/// Openings of a statement that makes an answer depend on what is asked
/// back ("it depends where", "that depends on").
const DEPENDS_OPENINGS: &[&str] = &["it depends", "that depends", "depends on"];

/// Lower-case words and numbers of `clause`, space-joined (cached at parse).
pub(super) fn clause_text(sentence: &Sentence, clause: ClauseId) -> &str {
    sentence
        .clause_texts
        .iter()
        .find(|(id, _)| *id == clause)
        .map_or("", |(_, t)| t.as_str())
}

/// Lower-case words and numbers of `clause`, space-joined; `token_clauses`
/// gives each token's clause id.
fn build_clause_text(toks: &[Token], token_clauses: &[usize], clause: usize) -> String {
    toks.iter()
        .zip(token_clauses)
        .filter(|(t, id)| **id == clause && (t.is_word() || t.kind == TokenKind::Num))
        .map(|(t, _)| t.lower.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}
