//! Stage 4 for yes/no fields: the polarity of the replies that answer them.

use super::charges::{denies_a_charge, on_the_free_side};
use super::days::offers_a_later_day;
use super::evidence::{Analysis, Role, Source};
use super::lexicon::{
    CONFIRMATIONS, FAREWELLS, FILLERS, NEGATIONS, REVISION_CUES, SIGN_OFFS, STOPWORDS,
};
use super::options::{chooses_other_option, names_own_option};
use super::phrase::{has_any_phrase, has_split_phrase};
use super::profile::{FieldIndex, FieldProfile};
use super::question::negation_shared;
use super::transcript::{Sentence, SentenceIndex, Speaker, TurnIndex, clause_text};
use agentcall_english::identifier::field_words;
use agentcall_english::opposites::denies_in_its_own_words;
use agentcall_english::stem::stems_match;

/// How a reply answers a yes/no question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Polarity {
    Yes,
    No,
    /// Declined to answer ("not sure", "let me check").
    Dodge,
}

/// What decided a yes/no reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Basis {
    /// A yes or no word ("Yep", "Nope, sorry"), or a dodge.
    Word,
    /// A clause that names the field ("The oven's included", "We don't
    /// deliver on Sundays").
    Named,
    /// An implication: a state, another option, a later day, what is ruled
    /// out or in contrast ("We're fully booked", "Bank transfer only").
    Implied,
}

impl Analysis<'_, '_> {
    /// The yes/no value of `field`: the polarity of the last reply (or
    /// unprompted statement) that answers it, `None` when that is a dodge;
    /// with the sentences of that reply.
    pub(super) fn extract_bool(&self, field: FieldIndex) -> Option<(bool, Source)> {
        self.read_bool(field).map(|(yes, source, _)| (yes, source))
    }

    /// [`Self::extract_bool`], with what decided the value.
    pub(super) fn read_bool(&self, field: FieldIndex) -> Option<(bool, Source, Basis)> {
        let profile = &self.profiles[field];
        let evidence = self.evidence(field, true);
        let mut last: Option<(Polarity, Source, Basis)> = None;
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
                        Some((polarity, Basis::Word))
                    } else if let Some(polarity) = alternative {
                        Some((polarity, Basis::Implied))
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
                            Some((polarity, Basis::Word)) => Some((polarity, Basis::Word)),
                            _ if direct_reply && chooses_other_option(profile, &sentences) => {
                                Some((Polarity::No, Basis::Implied))
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
                        Some((Polarity::Yes, Basis::Implied))
                    } else {
                        reading
                    };
                    // "Could you come tomorrow?" "… Earliest I can do is
                    // Monday, sorry.": another first free day is a no (not
                    // after a yes or no said in words: "Yes, Saturday's
                    // fine. After that the next available is Wednesday.").
                    let reading = if direct_reply
                        && !matches!(reading, Some((_, Basis::Word)))
                        && sentences
                            .iter()
                            .any(|sent| offers_a_later_day(profile.definition, sent))
                    {
                        Some((Polarity::No, Basis::Implied))
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
                    if after_a_sign_off && matches!(reading, Some((_, Basis::Word))) {
                        continue;
                    }
                    if let Some((polarity, basis)) = reading {
                        let plain = basis == Basis::Word;
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
                        if matches!(last, Some((Polarity::Yes | Polarity::No, _, _)))
                            && topic < 0.5 * answered_topic
                            && !self.is_follow_up(item.region)
                            && !revises
                        {
                            continue;
                        }
                        answered_topic = topic;
                        last = Some((polarity, source, basis));
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
                    if let Some((polarity, basis)) =
                        self.reply_reading(profile, &[item.sentence], true, false, true)
                    {
                        last = Some((polarity, Source::sentence(item.sentence), basis));
                    }
                }
                _ => position += 1,
            }
        }
        match last? {
            (Polarity::Yes, source, basis) => Some((true, source, basis)),
            (Polarity::No, source, basis) => Some((false, source, basis)),
            (Polarity::Dodge, _, _) => None,
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
}
