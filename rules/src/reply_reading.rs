//! The reading of one reply to a yes/no question, clause by clause: clear
//! answers, implied ones, dodges, and what a later clause does to them.

use super::boolean::{Basis, Polarity};
use super::charges::{
    about_a_charge, charge_for_another, claims_inclusion, is_no_charge_aside, opens_with_no_charge,
};
use super::clause_polarity::{
    clause_polarity, contrasted_reading, corrects_a_figure, is_hypothetical, states_the_field,
};
use super::evidence::Analysis;
use super::lexicon::{
    ACCEPT_WORDS, DETERMINERS, FILLERS, HOLDS, NEGATIONS, NEGATIVE_STATES, PASS_ONS, REVISION_CUES,
    SUBJECT_CHANGES,
};
use super::phrase::{has_any_phrase, has_split_phrase};
use super::profile::FieldProfile;
use super::transcript::{SentenceIndex, clause_text};
use agentcall_english::stem::stem;

impl Analysis<'_, '_> {
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

    /// Polarity of a reply made of `sentences` (one turn), and what decided
    /// it: a yes or no word (or a dodge), a clause naming the field, or an
    /// implication.
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
    pub(super) fn reply_reading(
        &self,
        profile: &FieldProfile,
        sentences: &[SentenceIndex],
        direct: bool,
        first_reply: bool,
        weak_ok: bool,
    ) -> Option<(Polarity, Basis)> {
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
        // The sentence of the implicit answer held, if one is, and what
        // it rests on.
        let mut weak_sentence: Option<SentenceIndex> = None;
        let mut weak_basis = Basis::Implied;
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
                    weak_basis = Basis::Implied;
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
                        weak_basis = Basis::Implied;
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
                        // "Yeah, nah, we're cleaned out. Could be a
                        // fortnight.": a guess at an amount after a clear
                        // answer hedges the detail, not the answer.
                        // (Not "I'm not sure, the system says 2".)
                        let hedges_a_detail = !sent.numbers.is_empty()
                            && !mentions_field
                            && has_any_phrase(text, &["could be", "maybe", "might be", "probably"])
                            && !has_any_phrase(
                                text,
                                &[
                                    "not sure",
                                    "no idea",
                                    "don't know",
                                    "not certain",
                                    "hundred percent",
                                ],
                            );
                        if !((is_hold || passes_on || hedges_a_detail)
                            && matches!(state, State::Strong(_)))
                        {
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
                                || rules_things_out(text, &texts)
                                || adds_a_thing_ruled_out(text))
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
                        ) && texts.get(clause_position + 1).is_some_and(|next| {
                            // ("Yep, so that's fine, ten o'clock" accepts.)
                            next.starts_with("so ")
                                && !next.split(' ').any(|w| {
                                    matches!(
                                        w,
                                        "fine" | "free" | "available" | "can" | "open" | "good"
                                    )
                                })
                        }) && self.transcript.turns[sent.turn]
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
                        // ("It's on back order.", "We're all out this
                        // week.": a state that is a no, not a verb negated.)
                        let a_negative_state = !text
                            .split(' ')
                            .any(|w| set!(NEGATIONS).contains(w) || w.ends_with("n't"));
                        // ("That won't work for me": "that" is what was
                        // asked.)
                        let of_what_was_asked =
                            matches!(first_word, Some("that" | "that's" | "it" | "it's" | "this"));
                        let eligible = eligible
                            && (pol == Polarity::Yes
                                || mentions_field
                                || by_exclusion
                                || opens_negated
                                || a_negative_state
                                || of_what_was_asked);
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
                            weak_basis = if mentions_field {
                                Basis::Named
                            } else {
                                Basis::Implied
                            };
                        } else if eligible && open && replaces {
                            state = State::Weak(pol);
                            weak_sentence = Some(sentence);
                            weak_basis = if mentions_field && !by_exclusion {
                                Basis::Named
                            } else {
                                Basis::Implied
                            };
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
            State::Weak(p) => Some((p, weak_basis)),
            State::Strong(p) => Some((p, Basis::Word)),
            State::Dodge => Some((Polarity::Dodge, Basis::Word)),
        }
    }
}

/// Words that open a limit on what was just said ("just no outside
/// pizza", "only on weekdays"): no answer of their own against it.
const LIMITS: &[&str] = &["just", "except", "only"];

/// "Yep, full offset, and no monthly fee on that product.": clause `text`
/// adds, with a conjunction, a "no <thing>" detail to what was said.
fn adds_a_thing_ruled_out(text: &str) -> bool {
    match text.split(' ').collect::<Vec<_>>().as_slice() {
        ["and" | "plus" | "with", rest @ ..] => rules_things_out_alone(rest),
        _ => false,
    }
}

/// Whether `words` say "no <thing>" of a thing, not "no chance", "no can
/// do", nor a state ("no vacancies").
fn rules_things_out_alone(words: &[&str]) -> bool {
    matches!(words, ["no", thing, ..] if !matches!(
        *thing,
        "chance" | "can" | "way" | "luck" | "vacancies" | "vacancy" | "room" | "space"
            | "availability" | "problem" | "worries" | "thanks" | "sorry" | "need"
    )) && !words.iter().any(|w| set!(NEGATIVE_STATES).contains(w))
}

/// "Yeah, no sandals, no heels.": clause `text` is one of two or more "no
/// <thing>" clauses of its sentence (`texts`) that list what is ruled out;
/// not "no chance", "no can do", nor a state ("no vacancies").
fn rules_things_out(text: &str, texts: &[&str]) -> bool {
    let ruling_out = |clause: &str| rules_things_out_alone(&clause.split(' ').collect::<Vec<_>>());
    ruling_out(text) && texts.iter().filter(|clause| ruling_out(clause)).count() >= 2
}
