//! Stage 4 for yes/no fields: the polarity of the replies that answer them.

use super::charges::{
    about_a_charge, charge_for_another, claims_inclusion, denies_a_charge, is_no_charge_aside,
    on_the_free_side, opens_with_no_charge,
};
use super::clause_polarity::{
    clause_polarity, contrasted_reading, corrects_a_figure, is_hypothetical, states_the_field,
};
use super::days::offers_a_later_day;
use super::evidence::{Analysis, Role, Source};
use super::lexicon::{
    ACCEPT_WORDS, CONFIRMATIONS, DETERMINERS, FAREWELLS, FILLERS, HOLDS, NEGATIONS, PASS_ONS,
    REVISION_CUES, SIGN_OFFS, STOPWORDS, SUBJECT_CHANGES,
};
use super::options::{chooses_other_option, names_own_option};
use super::phrase::{has_any_phrase, has_split_phrase};
use super::profile::{FieldIndex, FieldProfile};
use super::question::negation_shared;
use super::transcript::{Sentence, SentenceIndex, Speaker, TurnIndex, clause_text};
use crate::extract::text::identifier::field_words;
use crate::extract::text::opposites::denies_in_its_own_words;
use crate::extract::text::stem::{stem, stems_match};

/// How a reply answers a yes/no question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Polarity {
    Yes,
    No,
    /// Declined to answer ("not sure", "let me check").
    Dodge,
}

impl Analysis<'_, '_> {
    /// The yes/no value of `field`: the polarity of the last reply (or
    /// unprompted statement) that answers it, `None` when that is a dodge;
    /// with the sentences of that reply.
    pub(super) fn extract_bool(&self, field: FieldIndex) -> Option<(bool, Source)> {
        let profile = &self.profiles[field];
        let evidence = self.evidence(field, true);
        let mut last: Option<(Polarity, Source)> = None;
        // How strongly the question answered last was about the field: a
        // later question that only brushes it ("Does she need to fast the
        // night before?" after "Does she need bloodwork beforehand?")
        // does not override its clear answer.
        let mut answered_topic = 0.0_f64;
        // Group answer sentences by turn so the clause logic sees whole replies.
        let mut position = 0;
        while position < evidence.len() {
            let item = evidence[position];
            let turn = self.transcript.sentences[item.sentence].turn;
            match item.role {
                Role::Answer => {
                    let mut group = vec![item.sentence];
                    let mut next = position + 1;
                    while next < evidence.len()
                        && evidence[next].role == Role::Answer
                        && self.transcript.sentences[evidence[next].sentence].turn == turn
                    {
                        group.push(evidence[next].sentence);
                        next += 1;
                    }
                    position = next;
                    group.retain(|&sentence| !self.offer_to_choose(profile, sentence));
                    if group.is_empty() {
                        continue;
                    }
                    let alternative = self.alternative_answer(field, item.region, &group);
                    let direct_reply = turn == item.region.next();
                    let negative_question = direct_reply
                        .then(|| {
                            self.answer_to_negative_question(item.region, &group)
                                .or_else(|| {
                                    self.agrees_with_negative_statement(field, item.region, &group)
                                })
                        })
                        .flatten();
                    let sentences: Vec<&Sentence> = group
                        .iter()
                        .map(|&sentence| &self.transcript.sentences[sentence])
                        .collect();
                    // "Bare yes to a question asked in the negative": no
                    // answer here, and an earlier answer stands.
                    if negative_question == Some(Polarity::Dodge) {
                        continue;
                    }
                    if self.pleasantry_to_someone_else(profile, item.region, turn, &sentences) {
                        continue;
                    }
                    // "We're closed Mondays." … "Would Tuesday work
                    // instead?" "Yeah, that's open.": asked of another
                    // option only, the reply speaks of that one.
                    let questions: Vec<&Sentence> = self.transcript.turns[item.region]
                        .sentences
                        .iter()
                        .map(|&sentence| &self.transcript.sentences[sentence])
                        .filter(|sentence| sentence.question)
                        .collect();
                    // Every question of the turn counts: "Do you deliver
                    // on Sundays? What about Saturdays?" asks of Sundays.
                    let asked_of_another_option =
                        !questions.is_empty() && chooses_other_option(profile, &questions);
                    if asked_of_another_option && !names_own_option(profile, &sentences) {
                        continue;
                    }
                    let wh = self.asks_wh(item.region);
                    // `(polarity, plain)`: `plain` when a yes or no word
                    // decided it, so a question asked from the field's other
                    // side reverses it; a clause that names the field or an
                    // option speaks in the field's own terms already.
                    let reading = if let Some(polarity) = negative_question {
                        Some((polarity, true))
                    } else if let Some(polarity) = alternative {
                        Some((polarity, false))
                    } else {
                        // A reply to "When…?" or one that opens with a
                        // question of its own answers no yes/no question by
                        // implication: only what names the field counts.
                        let implied_ok = !wh && !self.transcript.sentences[group[0]].question;
                        let read = self.reply_reading(
                            profile,
                            &group,
                            !implied_ok,
                            direct_reply,
                            self.asks_about(field, item.region),
                        );
                        match read {
                            Some((polarity, true)) => Some((polarity, true)),
                            _ if direct_reply && chooses_other_option(profile, &sentences) => {
                                Some((Polarity::No, false))
                            }
                            other => other,
                        }
                    };
                    // "What's the trip charge?" "… So no trip charge for
                    // her.": for a field on the side of free, saying there
                    // is no charge is a yes (asked from the charge's side,
                    // the plain no is reversed below instead).
                    let reading = if on_the_free_side(profile)
                        && (wh || !self.asked_inverted(field, item.region))
                        && !matches!(reading, Some((Polarity::Yes, _)))
                        && sentences
                            .iter()
                            .any(|sent| denies_a_charge(profile, &sent.lower_text()))
                    {
                        Some((Polarity::Yes, false))
                    } else {
                        reading
                    };
                    // "Could you come tomorrow?" "… Earliest I can do is
                    // Monday, sorry.": another first free day is a no.
                    let reading = if direct_reply
                        && !matches!(reading, Some((Polarity::No, _)))
                        && sentences
                            .iter()
                            .any(|sent| offers_a_later_day(profile.definition, sent))
                    {
                        Some((Polarity::No, false))
                    } else {
                        reading
                    };
                    // "Okay, I'll let her know. Thanks for the quote."
                    // "You bet.": a yes or no word answers the turn right
                    // before it, and a sign-off asks nothing ("Original
                    // birth certificate and a photo ID. Thank you, Marcus."
                    // "Sure thing, have a good day." says goodbye).
                    // ("Yep, that's right, have a good day!" still confirms.)
                    let says_goodbye = self.turn_says(turn, phrases!(FAREWELLS))
                        && !self.turn_says(turn, phrases!(CONFIRMATIONS));
                    let after_a_sign_off = (!direct_reply || says_goodbye)
                        && turn.previous().is_some_and(|previous| {
                            self.transcript.turns[previous].speaker
                                != self.transcript.turns[turn].speaker
                                && self.transcript.last_question(previous).is_none()
                                && self.turn_says(previous, phrases!(SIGN_OFFS))
                        });
                    if after_a_sign_off && matches!(reading, Some((_, true))) {
                        continue;
                    }
                    if let Some((polarity, plain)) = reading {
                        let source = Source {
                            from: group[0],
                            to: group[group.len() - 1],
                        };
                        // Reversed when a yes or no word decided it, or when
                        // the reply answers in the question's frame ("They
                        // can't use their own", "Not a single one"); not
                        // when it speaks in the field's terms ("It's
                        // provided") or states a condition that reads as a
                        // no on its own ("We're closed Sundays"). Asked
                        // whether it would be a problem, only a yes or no
                        // word answers in the question's frame: "Half our
                        // campers bring dogs" speaks of the dogs.
                        // "We don't allow dogs" speaks of the dogs too.
                        let about_a_problem = self.asked_about_a_problem(field, item.region);
                        // "And there's no extra charge for delivery,
                        // right?" for "included at no extra charge": the
                        // question negates the other side in the field's
                        // own words, so a reply in its own terms ("Right,
                        // delivery's on us") speaks from the field's side;
                        // a bare "Correct." is still reversed.
                        let shares_negation = self
                            .transcript
                            .last_question(item.region)
                            .is_some_and(|question| negation_shared(profile, question));
                        let reversed = !wh
                            && (plain || !shares_negation)
                            && self.asked_inverted(field, item.region)
                            && if about_a_problem {
                                plain
                                    && !denies_in_its_own_words(
                                        profile.definition,
                                        sentences.iter().flat_map(|sent| {
                                            sent.clause_ids()
                                                .into_iter()
                                                .map(|clause| clause_text(sent, clause))
                                        }),
                                    )
                            } else {
                                plain || !self.reply_in_field_terms(field, item.region, &sentences)
                            };
                        let polarity = match (reversed, polarity) {
                            (true, Polarity::Yes) => Polarity::No,
                            (true, Polarity::No) => Polarity::Yes,
                            (_, polarity) => polarity,
                        };
                        let topic = self.topic(field, item.region);
                        // A reply that revises ("Actually we do need a
                        // deposit now") speaks of it, whatever brushed it.
                        let revises = sentences.iter().any(|sentence| {
                            has_split_phrase(&sentence.lower_text(), phrases!(REVISION_CUES))
                        });
                        if matches!(last, Some((Polarity::Yes | Polarity::No, _)))
                            && topic < 0.5 * answered_topic
                            && !self.is_follow_up(item.region)
                            && !revises
                        {
                            continue;
                        }
                        answered_topic = topic;
                        last = Some((polarity, source));
                    }
                }
                Role::Direct
                    if self.transcript.turns[turn].speaker != Speaker::Agent
                        && !self.offer_to_choose(profile, item.sentence)
                        && !chooses_other_option(
                            profile,
                            &[&self.transcript.sentences[item.sentence]],
                        )
                        && self.direct_bool_ok(field, item.sentence) =>
                {
                    position += 1;
                    if let Some(polarity) =
                        self.reply_polarity(profile, &[item.sentence], true, false, true)
                    {
                        last = Some((polarity, Source::sentence(item.sentence)));
                    }
                }
                _ => position += 1,
            }
        }
        match last? {
            (Polarity::Yes, source) => Some((true, source)),
            (Polarity::No, source) => Some((false, source)),
            (Polarity::Dodge, _) => None,
        }
    }

    /// An unprompted mention settles a yes/no field only if it names two of
    /// the field's words ("the parcel has been found") or replies to a turn
    /// that touched the field at all: "Towels and soap provided" says
    /// nothing about parking.
    fn direct_bool_ok(&self, field: FieldIndex, sentence: SentenceIndex) -> bool {
        let sent = &self.transcript.sentences[sentence];
        let profile = &self.profiles[field];
        let mut matched: Vec<&str> = sent
            .topic_stems
            .iter()
            .filter(|st| profile.is_keyword(st))
            .map(String::as_str)
            .collect();
        matched.sort_unstable();
        matched.dedup();
        let distinct = matched.len();
        let first = sent
            .word_lowers()
            .find(|w| !set!(FILLERS).contains(w) || matches!(*w, "yes" | "yeah"));
        let strong_start = matches!(
            first,
            Some("yes" | "yeah" | "yep" | "yup" | "no" | "nope" | "nah")
        );
        // The field came up in the last few turns.
        let recent = (sent.turn.0.saturating_sub(3)..sent.turn.0)
            .map(TurnIndex)
            .any(|turn| self.topic(field, turn) >= 1.0);
        // "it isn't finished yet" speaks of the thing at hand; "Towels and
        // soap provided" names a different subject.
        let first_keyword = sent
            .topic_stems
            .iter()
            .position(|st| profile.is_keyword(st))
            .unwrap_or(0);
        let clause = sent.token_clauses.get(first_keyword).copied();
        let other_subject = sent
            .tokens
            .iter()
            .zip(&sent.stems)
            .take(first_keyword)
            .enumerate()
            .any(|(token, (t, st))| {
                sent.token_clauses.get(token).copied() == clause
                    && t.is_word()
                    && !set!(STOPWORDS).contains(t.lower.as_str())
                    && !set!(FILLERS).contains(t.lower.as_str())
                    && !set!(NEGATIONS).contains(t.lower.as_str())
                    && !profile.is_keyword(st)
                    && !matches!(
                        t.lower.as_str(),
                        "quite" | "still" | "already" | "yet" | "now" | "definitely"
                    )
            });
        // A reply inside the exchange about another field is about that field.
        let elsewhere = self.regions().any(|(open, region)| {
            region.turns.contains(&sent.turn)
                && !self.raised(open).is_empty()
                && self.topic(field, open) <= 0.0
        });
        distinct >= 2 || strong_start || (!elsewhere && (recent || !other_subject))
    }

    /// Whether `sentence` only offers a choice ("The big rounds we can leave
    /// for firewood if he wants") to a field about what someone wants: the
    /// offer is not the choice.
    fn offer_to_choose(&self, profile: &FieldProfile, sentence: SentenceIndex) -> bool {
        let wish = |w: &str| {
            matches!(
                w,
                "want" | "wants" | "like" | "likes" | "prefer" | "prefers" | "wish" | "wishes"
            )
        };
        // "Whether he wants …", "what she would like"; not "extras like
        // towing".
        let words = field_words(profile.definition);
        let asks_a_wish = words.iter().enumerate().any(|(i, w)| {
            wish(w)
                && (!w.starts_with("like")
                    || i.checked_sub(1).is_some_and(|before| {
                        matches!(
                            words[before].as_str(),
                            "would" | "she'd" | "he'd" | "they'd" | "i'd" | "we'd"
                        )
                    }))
        });
        if !asks_a_wish {
            return false;
        }
        let words: Vec<&str> = self.transcript.sentences[sentence].word_lowers().collect();
        words
            .iter()
            .enumerate()
            .any(|(i, w)| *w == "if" && words.iter().skip(i + 1).take(3).any(|next| wish(next)))
    }

    /// Whether `reply` (turn `turn`, in the exchange opened by `open`) is a
    /// pleasantry said after the asker spoke again, naming nothing of the
    /// field: "No worries, see her Saturday" answers the goodbye, not the
    /// question asked turns before.
    fn pleasantry_to_someone_else(
        &self,
        profile: &FieldProfile,
        open: TurnIndex,
        turn: TurnIndex,
        reply: &[&Sentence],
    ) -> bool {
        let asker = self.transcript.turns[open].speaker;
        let asker_spoke_again =
            (open.0 + 1..turn.0).any(|between| self.transcript.turns[between].speaker == asker);
        let names_field = reply.iter().any(|sentence| {
            sentence
                .stems
                .iter()
                .any(|st| profile.is_strong_keyword(st))
        });
        let opening: Vec<&str> = reply
            .first()
            .map(|sentence| sentence.word_lowers().take(2).collect())
            .unwrap_or_default();
        let pleasantry = matches!(
            opening.as_slice(),
            ["no", "worries" | "problem" | "bother"]
                | ["sure", "just"]
                | ["cheers", ..]
                | ["of", "course"]
                | ["will", "do"]
        );
        pleasantry && asker_spoke_again && !names_field
    }

    /// "Would he like the window or the aisle?" answered "The aisle's fine."
    fn alternative_answer(
        &self,
        field: FieldIndex,
        open: TurnIndex,
        reply: &[SentenceIndex],
    ) -> Option<Polarity> {
        let profile = &self.profiles[field];
        let q = self.transcript.last_question(open)?;
        let words: Vec<(&str, &str)> = q
            .tokens
            .iter()
            .zip(&q.stems)
            .filter(|(t, _)| t.is_word())
            .map(|(t, s)| (t.lower.as_str(), s.as_str()))
            .collect();
        let or = words.iter().position(|(w, _)| *w == "or")?;
        let right: Vec<&str> = words[or + 1..].iter().map(|(_, s)| *s).collect();
        if right.is_empty()
            || matches!(
                words.get(or + 1),
                Some(("not" | "no" | "so" | "anything" | "something", _))
            )
        {
            return None;
        }
        let take = right.len() + 1;
        let left: Vec<&str> = words[..or]
            .iter()
            .rev()
            .take(take)
            .map(|(_, s)| *s)
            .collect();
        let content = |v: &[&str]| -> Vec<String> {
            v.iter()
                .filter(|s| !s.is_empty() && !STOPWORDS.contains(s) && s.chars().count() > 1)
                .map(|s| s.to_string())
                .collect()
        };
        let (l, r) = (content(&left), content(&right));
        let l_only: Vec<&String> = l.iter().filter(|x| !r.contains(x)).collect();
        let r_only: Vec<&String> = r.iter().filter(|x| !l.contains(x)).collect();
        let score = |v: &[&String]| -> f64 {
            profile
                .keywords
                .iter()
                .filter(|k| v.iter().any(|s| stems_match(&k.stem, s)))
                .map(|k| k.weight)
                .sum()
        };
        let (ls, rs) = (score(&l_only), score(&r_only));
        if (ls - rs).abs() < 0.25 {
            return None;
        }
        let positive_right = rs > ls;
        let mut hit_l = 0;
        let mut hit_r = 0;
        for &sentence in reply {
            let sent = &self.transcript.sentences[sentence];
            if sent.question {
                continue;
            }
            for st in &sent.stems {
                if l_only.contains(&st) {
                    hit_l += 1;
                }
                if r_only.contains(&st) {
                    hit_r += 1;
                }
            }
        }
        // A negated mention ("not online") is not a choice; let polarity decide.
        let negated = reply.iter().any(|&sentence| {
            let text: String = self.transcript.sentences[sentence].lower_text();
            has_any_phrase(&text, &["not", "no", "don't", "rather not"])
        });
        if negated || hit_l == hit_r {
            return None;
        }
        let chose_right = hit_r > hit_l;
        Some(if chose_right == positive_right {
            Polarity::Yes
        } else {
            Polarity::No
        })
    }

    /// Polarity of a reply made of `sentences` (one turn); see
    /// [`Self::reply_reading`].
    pub(super) fn reply_polarity(
        &self,
        profile: &FieldProfile,
        sentences: &[SentenceIndex],
        direct: bool,
        first_reply: bool,
        weak_ok: bool,
    ) -> Option<Polarity> {
        self.reply_reading(profile, sentences, direct, first_reply, weak_ok)
            .map(|(polarity, _)| polarity)
    }

    /// Whether `stems` name a field other than `profile`'s.
    fn names_another_field(&self, profile: &FieldProfile, stems: &[String]) -> bool {
        self.profiles
            .iter()
            .filter(|other| !std::ptr::eq(*other, profile))
            .any(|other| {
                stems
                    .iter()
                    .any(|st| other.is_strong_keyword(st) && !profile.is_keyword(st))
            })
    }

    /// Polarity of a reply made of `sentences` (one turn), and whether a
    /// yes or no word (or a dodge) decided it rather than an implied answer.
    ///
    /// `direct`: only clauses naming the field (or a clear yes/no) count:
    /// the reply was not prompted by a yes/no question (an unprompted
    /// statement, a reply to "When…?", or one that opens with a question).
    ///
    /// `first_reply`: the turn right after the question, where a bare
    /// "okay" accepts; later it only acknowledges.
    ///
    /// `weak_ok`: an implicit answer that does not name the field ("My
    /// wife'll be around") counts only as a reply to a question, not to a
    /// statement.
    fn reply_reading(
        &self,
        profile: &FieldProfile,
        sentences: &[SentenceIndex],
        direct: bool,
        first_reply: bool,
        weak_ok: bool,
    ) -> Option<(Polarity, bool)> {
        // Strong answers and dodges always count; a weak (implicit) answer
        // counts when nothing strong came before it in the reply, and may
        // override an earlier dodge ("let me look… the 3rd is taken").
        /// What the reply has said so far.
        #[derive(Clone, Copy, PartialEq)]
        enum State {
            Empty,
            Weak(Polarity),
            Strong(Polarity),
            Dodge,
        }
        let mut state = State::Empty;
        // The sentence whose clear answer opened the reply, if one did.
        let mut opened_strong: Option<SentenceIndex> = None;
        let mut hold = false;
        let mut seen_informative = false;
        // The sentence of the implicit answer held, if one is.
        let mut weak_sentence: Option<SentenceIndex> = None;
        // Whether an earlier sentence of the reply named the field.
        let mut field_named = false;
        // The sentences of the reply that said yes, no or a dodge in words.
        let mut polar: Vec<SentenceIndex> = Vec::new();
        for &sentence in sentences {
            let sent = &self.transcript.sentences[sentence];
            let spoke_of_field = field_named;
            field_named |= sent.stems.iter().any(|st| profile.is_strong_keyword(st));
            if sent.question {
                continue;
            }
            let turn_first = self.transcript.turns[sent.turn].sentences.first() == Some(&sentence);
            // "Oh, by the way, we've got a new wall": the reply turns to
            // something else, and says nothing about the question.
            let sentence_text: String = sent.lower_text();
            if has_split_phrase(&sentence_text, phrases!(SUBJECT_CHANGES)) {
                break;
            }
            // "The main hall's got a wedding that night. The studio
            // theatre's free, though.": what is said of another thing in
            // contrast says the opposite of the field's.
            // (Only once the reply has spoken of the field: "Let me
            // check. The gym's closed, though." says nothing of the pool.)
            if let Some(polarity) = contrasted_reading(profile, sent).filter(|_| spoke_of_field) {
                if matches!(state, State::Empty | State::Weak(_)) || (state == State::Dodge && hold)
                {
                    state = State::Weak(polarity);
                    weak_sentence = Some(sentence);
                }
                continue;
            }
            // Words before the answer ("For parties over six, yes.") make it
            // a qualified one.
            let mut prefaced = false;
            let clause_ids = sent.clause_ids();
            let texts: Vec<&str> = clause_ids
                .iter()
                .map(|&clause| clause_text(sent, clause))
                .collect();
            for (clause_position, clause) in clause_ids.into_iter().enumerate() {
                let text = texts[clause_position];
                if text.is_empty() {
                    continue;
                }
                if corrects_a_figure(&texts, clause_position) {
                    continue;
                }
                // "We do, a big batch came in. Wild-caught, from Colombia.
                // No, wait, that was the rummynoses.": after an answer, a
                // no that opens a self-correction takes back the detail
                // said just before it ("Yes. No, wait, sorry, they sold out"
                // takes back the yes).
                let after_a_detail = sentence.0.checked_sub(1).is_some_and(|previous| {
                    self.transcript.sentences[previous].turn == sent.turn
                        && !polar.contains(&SentenceIndex(previous))
                });
                let corrects_itself = matches!(text, "no" | "oh no" | "no no")
                    && state != State::Empty
                    && after_a_detail
                    && texts.get(clause_position + 1).is_some_and(|next| {
                        ["wait", "sorry", "actually", "hang on", "hold on"]
                            .iter()
                            .any(|opening| next.starts_with(opening))
                    });
                if corrects_itself {
                    continue;
                }
                let clause_stems = sent.stems.get(sent.clause_range(clause)).unwrap_or(&[]);
                let content: Vec<&str> = text
                    .split(' ')
                    .filter(|w| !set!(FILLERS).contains(w))
                    .collect();
                let first_word = content.first().copied();
                let conditional = sent.conditional
                    || matches!(first_word, Some("if" | "unless" | "when" | "whenever"));
                if conditional {
                    continue;
                }
                let mentions_field = clause_stems.iter().any(|st| profile.is_strong_keyword(st));
                let turn_initial = turn_first && clause_position == 0 && first_reply;
                // "We do, I'm afraid.", "She would, unfortunately.": an
                // apology after the answer.
                if matches!(state, State::Strong(_))
                    && matches!(
                        text,
                        "i'm afraid"
                            | "i am afraid"
                            | "i'm afraid so"
                            | "unfortunately"
                            | "sadly"
                            | "sorry"
                            | "i'm sorry"
                    )
                {
                    continue;
                }
                // "Yep, the certificate comes with it, no extra charge": a
                // no-charge aside after a yes elaborates it, unless the field
                // is about a charge.
                // "Our van goes out Tuesdays, no charge.": nor is one a
                // no on its own.
                // "Yep, we take the old one, no extra charge." for a field
                // that says it is included: the aside says yes too.
                if opens_with_no_charge(text)
                    && claims_inclusion(profile)
                    && !charge_for_another(profile, text)
                {
                    if matches!(state, State::Empty | State::Weak(_)) {
                        state = State::Weak(Polarity::Yes);
                        weak_sentence = Some(sentence);
                    }
                    continue;
                }
                if is_no_charge_aside(text) && !about_a_charge(profile) {
                    continue;
                }
                // "Happy to help.", "Oh, how fun!": a pleasantry answers nothing.
                if matches!(
                    content.as_slice(),
                    ["happy" | "glad", "to", "help" | "assist"]
                        | ["how", "fun" | "lovely" | "exciting" | "nice" | "wonderful"]
                        | ["congratulations" | "congrats"]
                ) {
                    continue;
                }
                let mut p = clause_polarity(text, &content, turn_initial, seen_informative);
                // "All booked." for "whether the boarding is booked": a
                // state that reads as a no elsewhere is the field itself.
                if p == Some((Polarity::No, false)) && states_the_field(profile, text) {
                    p = Some((Polarity::Yes, false));
                }
                match p {
                    // "Let me check…" is followed by the answer; "I'm not sure" is final.
                    Some((Polarity::Dodge, _)) => {
                        let is_hold = has_split_phrase(text, phrases!(HOLDS));
                        let passes_on = has_split_phrase(text, phrases!(PASS_ONS));
                        // "Yes. Let me pull them up.", "Yes, we deliver. I'll
                        // have my manager confirm the slot.": a hold or a
                        // hand-over after a clear answer is about the
                        // details, not a retraction.
                        if !((is_hold || passes_on) && matches!(state, State::Strong(_))) {
                            state = State::Dodge;
                            hold = is_hold;
                        }
                    }
                    // A clear answer that opens the reply stands against a
                    // later sentence's opposite word unless that sentence
                    // revises it ("He will. No card, no entry." is a yes;
                    // "Yes. Actually, no." is a no).
                    // "Cake's fine, yeah. Just no outside pizza.": after a
                    // clear answer, a limit on something the field does not
                    // name leaves the answer standing.
                    // ("Yeah, no sandals, no heels." for closed-toe shoes:
                    // what is ruled out spells the yes out.)
                    Some((pol, true))
                        if matches!(state, State::Strong(held) if held != pol)
                            && (text.split(' ').next().is_some_and(|w| LIMITS.contains(&w))
                                || (text.starts_with("no ") && text.split(' ').count() >= 2))
                            && !mentions_field => {}
                    // "Let me pull up the calendar. Hmm, yeah, so we've
                    // already got a wedding": after a search, "yeah, so"
                    // is the speaker reading, not an answer.
                    Some((Polarity::Yes, true))
                        if matches!(
                            text.split(' ')
                                .filter(|w| !matches!(*w, "hmm" | "um" | "uh" | "oh"))
                                .collect::<Vec<_>>()
                                .as_slice(),
                            ["yeah" | "yes" | "yep" | "right" | "okay"]
                        ) && texts
                            .get(clause_position + 1)
                            .is_some_and(|next| next.starts_with("so "))
                            && self.transcript.turns[sent.turn]
                                .sentences
                                .iter()
                                .take_while(|&&earlier| earlier <= sentence)
                                .any(|&earlier| {
                                    has_split_phrase(
                                        &self.transcript.sentences[earlier].lower_text(),
                                        phrases!(HOLDS),
                                    )
                                }) => {}
                    Some((pol, true)) => {
                        let stands = matches!(state, State::Strong(held) if held != pol)
                            && opened_strong.is_some_and(|first| first != sentence)
                            && !has_split_phrase(&sentence_text, phrases!(REVISION_CUES));
                        if !stands {
                            state = State::Strong(pol);
                            if opened_strong.is_none() && turn_first && first_reply && !prefaced {
                                opened_strong = Some(sentence);
                            }
                        }
                    }
                    // "With breakfast it'd be one seventy-nine": what would
                    // be, under another choice, answers nothing.
                    Some((_, false)) if is_hypothetical(text) => {}
                    Some((pol, false)) => {
                        // An echo of the keywords alone ("the garden, um") is not an answer.
                        // "The oven's included." states it in the field's
                        // own words, though.
                        let states = mentions_field
                            && content.iter().any(|w| {
                                matches!(*w, "is" | "are" | "was" | "were") || w.ends_with("'s")
                            });
                        let substantive = states
                            || content.iter().any(|w| {
                                !DETERMINERS.contains(w)
                                    && !profile.is_own_word(&stem(w))
                                    && !ACCEPT_WORDS.contains(w)
                            });
                        let first_informative =
                            first_reply && !seen_informative && state == State::Empty;
                        let eligible = substantive
                            && (mentions_field || (!direct && weak_ok && first_informative));
                        let open = match state {
                            State::Empty | State::Weak(_) => true,
                            State::Dodge => hold,
                            State::Strong(_) => false,
                        };
                        // "Bank transfer only": naming only other things means no.
                        // "Just a rabbit." to "any birds?": naming only other things.
                        let own = clause_stems.iter().any(|st| profile.is_own_word(st));
                        // "Cash or check, that's all we do": the whole
                        // sentence may say the list is all there is.
                        let exclusive = has_any_phrase(text, &["only"])
                            // (Named brands may be kinds of the field's
                            // thing: "Visa and Mastercard, that's all".)
                            || (has_any_phrase(
                                &sentence_text,
                                &["that's all we", "that's all they", "that's all i"],
                            ) && !sent.stems.iter().any(|st| profile.is_own_word(st))
                                && !sent.tokens.iter().skip(1).any(|t| t.is_word() && t.is_capitalized()))
                            || text
                                .split(' ')
                                .find(|w| !matches!(*w, "um" | "uh" | "oh" | "well"))
                                .is_some_and(|w| w == "just");
                        let by_exclusion = !own && exclusive;
                        // "Only Biscuit." to "Any pets?": a name after
                        // "only" may be one of the field's own kind, so it
                        // says neither yes nor no.
                        let names_one = sent
                            .tokens
                            .get(sent.clause_range(clause))
                            .unwrap_or(&[])
                            .iter()
                            .skip(1)
                            .any(|t| t.is_word() && t.is_capitalized() && !t.text.starts_with('I'));
                        if by_exclusion && names_one {
                            continue;
                        }
                        let pol = if by_exclusion { Polarity::No } else { pol };
                        // "We don't hold keys for that block" to "Does he
                        // need to be home?": an implied no that names
                        // nothing of the field is a reason, not an answer;
                        // only a yes is read by implication.
                        // ("Not at that rate." opens on the no itself.)
                        let opens_negated =
                            matches!(first_word, Some("not" | "no" | "never" | "nothing"));
                        let eligible = eligible
                            && (pol == Polarity::Yes
                                || mentions_field
                                || by_exclusion
                                || opens_negated);
                        // A later implicit answer replaces an earlier one only if it names the field.
                        let replaces = !matches!(state, State::Weak(_)) || mentions_field;
                        // "Friday's a bank holiday, the whole building is
                        // shut": an implicit yes then a no in one sentence,
                        // the no about nothing else the call asks, is the
                        // no (the yes named the field without answering).
                        // ("…, so he doesn't need to buy one" draws a
                        // consequence, "…, but not after three" limits the
                        // yes: neither is the answer).
                        let yes_then_no = state == State::Weak(Polarity::Yes)
                            && pol == Polarity::No
                            && weak_sentence == Some(sentence)
                            && substantive
                            && !text.split(' ').next().is_some_and(|w| {
                                LIMITS.contains(&w)
                                    || matches!(
                                        w,
                                        "so" | "which" | "because" | "since" | "as" | "meaning"
                                            | "but" | "although" | "though" | "unless"
                                    )
                            })
                            // "…, you don't pay anything extra" restates a yes.
                            && !text.split(' ').any(|w| {
                                matches!(w, "pay" | "charge" | "extra" | "cost" | "fee" | "free")
                            })
                            && !self.names_another_field(profile, clause_stems);
                        if yes_then_no {
                            state = State::Weak(Polarity::No);
                        } else if eligible && open && replaces {
                            state = State::Weak(pol);
                            weak_sentence = Some(sentence);
                        }
                    }
                    _ => {}
                }
                if matches!(p, Some((_, true))) {
                    polar.push(sentence);
                }
                if !content.is_empty() && p.is_some() {
                    seen_informative = true;
                }
                if !content.is_empty() && !matches!(p, Some((_, true))) {
                    prefaced = true;
                }
            }
        }
        match state {
            State::Empty => None,
            State::Weak(p) => Some((p, false)),
            State::Strong(p) => Some((p, true)),
            State::Dodge => Some((Polarity::Dodge, true)),
        }
    }
}

/// Words that open a limit on what was just said ("just no outside
/// pizza", "only on weekdays"): no answer of their own against it.
const LIMITS: &[&str] = &["just", "except", "only"];
