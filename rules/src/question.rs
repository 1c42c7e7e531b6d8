//! How a yes/no question was asked, which decides what its reply means:
//! a question for information rather than a yes or a no, a question asked
//! from the field's other side, and a question asked in the negative.

use super::boolean::Polarity;
use super::charges::claims_inclusion;
use super::evidence::{Analysis, Evidence};
use super::lexicon::{DETERMINERS, FILLERS, NEGATIONS, NEGATIVE_STATES, SHORT_ECHOES, STRONG_YES};
use super::options::asked_from_the_other_side;
use super::phrase::{has_any_phrase, has_split_phrase, is_negated_text};
use super::profile::{FieldIndex, FieldProfile, FieldUnit, NumberProfile, text_words};
use super::transcript::{Sentence, SentenceIndex, TurnIndex, clause_text};
use agentcall_english::opposites::{WAIVED, field_side_words};
use agentcall_english::opposites::{asks_about_a_problem, turns_round};
use agentcall_english::stem::stem;
use agentcall_english::units::{DurationUnit, Unit};

impl Analysis<'_, '_> {
    /// Whether `reply` speaks in the field's own terms against the question
    /// in turn `open` (a word of the field's side of the opposite pair the
    /// question turned, or a state that reads as a no on its own:
    /// "closed", "extra").
    pub(super) fn reply_in_field_terms(
        &self,
        field: FieldIndex,
        open: TurnIndex,
        reply: &[&Sentence],
    ) -> bool {
        let Some(question) = self.transcript.last_question(open) else {
            return false;
        };
        let asked: Vec<&str> = question.word_lowers().collect();
        let mut side = field_side_words(self.profiles[field].definition, &asked);
        // "Is there an initiation fee?" "… but we're waiving it": for a
        // field about a waiver, waiving is its own term.
        if WAIVED
            .iter()
            .any(|w| self.profiles[field].is_own_word(&stem(w)))
        {
            side.extend_from_slice(WAIVED);
        }
        // "You don't exclude mattresses, do you?" "Mattresses are fine.":
        // for a field about what is allowed, calling it fine is its side.
        if side
            .iter()
            .any(|w| matches!(*w, "allowed" | "accepted" | "permitted" | "included"))
        {
            side.extend_from_slice(&["fine", "welcome"]);
        }
        reply
            .iter()
            .flat_map(|s| s.word_lowers())
            .any(|w| side.contains(&w) || set!(NEGATIVE_STATES).contains(w))
    }

    /// Whether the last question of turn `open` asks for something other
    /// than a yes or a no ("When are you expecting more?").
    pub(super) fn asks_wh(&self, open: TurnIndex) -> bool {
        self.transcript
            .last_question(open)
            .and_then(|question| {
                question
                    .word_lowers()
                    .find(|w| !matches!(*w, "and" | "so" | "um" | "uh" | "oh" | "okay" | "great"))
            })
            .is_some_and(|first| {
                matches!(
                    first,
                    "when"
                        | "what"
                        | "what's"
                        | "how"
                        | "which"
                        | "where"
                        | "who"
                        | "why"
                        | "whose"
                )
            })
    }

    /// Whether the question that opened `open` asks the field's question
    /// from the other side ("Does she need to bring her own helmet?" for a
    /// field about a helmet being provided): its answer means the opposite.
    pub(super) fn asked_inverted(&self, field: FieldIndex, open: TurnIndex) -> bool {
        self.transcript
            .last_question(open)
            .is_some_and(|question| asked_from_the_other_side(&self.profiles[field], question))
    }

    /// Whether the question that opened `open` asks whether something
    /// would be a problem ("They've got a dog. Is that a problem?"), for a
    /// field that is not about one.
    pub(super) fn asked_about_a_problem(&self, field: FieldIndex, open: TurnIndex) -> bool {
        self.transcript.last_question(open).is_some_and(|question| {
            let asked: Vec<&str> = question.word_lowers().collect();
            asks_about_a_problem(self.profiles[field].definition, &asked)
        })
    }

    /// Whether `sentence` answers yes or no to a question the other side
    /// ended its last turn on ("Ceremony's at three-thirty, right?" "Yes,
    /// three-thirty.").
    pub(super) fn answers_a_question_back(&self, sentence: SentenceIndex) -> bool {
        let sent = &self.transcript.sentences[sentence];
        let yes_or_no = matches!(
            sent.word_lowers().next(),
            Some("yes" | "yeah" | "yep" | "right" | "correct" | "no" | "nope")
        );
        let turn = sent.turn;
        yes_or_no
            && turn.previous().is_some_and(|previous| {
                self.transcript.turns[previous].speaker != self.transcript.turns[turn].speaker
                    && self.transcript.turns[previous]
                        .sentences
                        .last()
                        .is_some_and(|&last| self.transcript.sentences[last].question)
            })
    }

    /// Whether the question that opened `open` follows up on the one before
    /// ("And Saturday?", "What about weekends?"): it asks the same again.
    pub(super) fn is_follow_up(&self, open: TurnIndex) -> bool {
        self.transcript.last_question(open).is_some_and(|question| {
            let words: Vec<&str> = question.word_lowers().collect();
            words.len() <= 4
                || words.first() == Some(&"and")
                || words.starts_with(&["what", "about"])
                || words.starts_with(&["how", "about"])
        })
    }

    /// "… and delivery isn't included." "Yep.": a reply that opens by
    /// agreeing with a statement the asker made in the negative about the
    /// field, with no question in that turn, is a no.
    pub(super) fn agrees_with_negative_statement(
        &self,
        field: FieldIndex,
        open: TurnIndex,
        reply: &[SentenceIndex],
    ) -> Option<Polarity> {
        let said = &self.transcript.turns[open].sentences;
        if said
            .iter()
            .any(|&sentence| self.transcript.sentences[sentence].question)
        {
            return None;
        }
        let &last = said.last()?;
        let statement = &self.transcript.sentences[last];
        // The negation must be in the clause that names the field ("so
        // there's a deposit, no way around it" states one).
        let profile = &self.profiles[field];
        let negated = statement.clause_ids().into_iter().any(|clause| {
            let range = statement.clause_range(clause);
            let names_field = statement.stems[range.start..range.end.min(statement.stems.len())]
                .iter()
                .any(|st| profile.is_strong_keyword(st));
            let text = clause_text(statement, clause);
            let words: Vec<&str> = text.split(' ').collect();
            // "So thirteen twenty-five, plus the permit.": what comes on
            // top is not included.
            let added_on = claims_inclusion(profile)
                && words.windows(3).any(|three| {
                    three[0] == "plus"
                        && (profile.is_strong_keyword(&stem(three[1]))
                            || (DETERMINERS.contains(&three[1])
                                && profile.is_strong_keyword(&stem(three[2]))))
                });
            names_field
                && (added_on
                    || words
                        .iter()
                        .any(|w| set!(NEGATIONS).contains(w) || w.ends_with("n't")))
                && !has_any_phrase(text, &["no problem", "no worries", "no way around"])
        });
        if !negated {
            return None;
        }
        let first = self.transcript.sentences.get(reply.first()?.0)?;
        let words: Vec<&str> = first.word_lowers().collect();
        let agrees = matches!(
            words.as_slice(),
            ["yep" | "yes" | "yeah" | "yup" | "correct" | "exactly" | "right"]
                | ["that's", "right" | "correct"]
        );
        agrees.then_some(Polarity::No)
    }

    /// The answer to a question asked in the negative ("There's no resort
    /// fee on top, correct?", "You don't charge for parking, do you?"),
    /// when the reply opens by agreeing with it: "Correct", "That's
    /// right" agree that there is none, so the field is no; a bare "Yes"
    /// or "Yep" could mean either, so it is no answer (`Dodge`, which the
    /// caller skips: an earlier answer stands). `None` leaves the
    /// reply to the usual reading ("No, we don't" is a no either way; "We
    /// do" or "Yes, we do" contradict the question and say yes).
    pub(super) fn answer_to_negative_question(
        &self,
        open: TurnIndex,
        reply: &[SentenceIndex],
    ) -> Option<Polarity> {
        let question = self.transcript.last_question(open)?;
        let asked: Vec<&str> = question.word_lowers().collect();
        // The tag of "It is, isn't it?" turns nothing.
        let tag = |i: usize, w: &str| {
            w.ends_with("n't")
                && i + 2 >= asked.len()
                && asked.get(i + 1).is_some_and(|n| {
                    matches!(
                        *n,
                        "it" | "they" | "there" | "he" | "she" | "you" | "we" | "i"
                    )
                })
        };
        let negated = asked.iter().enumerate().any(|(i, w)| {
            (set!(NEGATIONS).contains(w) || w.ends_with("n't"))
                // "…or not?", "no problem"
                && !(i > 0 && asked[i - 1] == "or")
                && !matches!(asked.get(i + 1), Some(&("problem" | "worries" | "idea")))
                && !tag(i, w)
        });
        // "You don't mind if she brings a cake, do you?", "He wouldn't go
        // out without a check, would he?": a question whose words turn
        // twice, or on a verb of objecting, takes a yes or a no to mean
        // its opposite as often as not; no answer is plain.
        let turns = asked
            .iter()
            .enumerate()
            .filter(|&(i, w)| {
                ((set!(NEGATIONS).contains(w) || w.ends_with("n't")) && !tag(i, w))
                    || matches!(*w, "mind" | "object" | "without")
                    || negative_prefix(w)
            })
            .count();
        if asked.contains(&"mind") || turns >= 2 {
            return Some(Polarity::Dodge);
        }
        if !negated {
            return None;
        }
        let first = reply
            .iter()
            .map(|&sentence| &self.transcript.sentences[sentence])
            .find(|sentence| !sentence.question)?;
        let clauses = first.clause_ids();
        let opening = clause_text(first, *clauses.first()?);
        let words: Vec<&str> = opening
            .split(' ')
            .filter(|w| !set!(FILLERS).contains(w) || matches!(*w, "right" | "yes" | "yeah"))
            .collect();
        // Anything after the opening that contradicts ("Yes, we do").
        let rest: String = clauses
            .iter()
            .skip(1)
            .map(|&clause| clause_text(first, clause))
            .collect::<Vec<_>>()
            .join(" ");
        let contradicts = (has_split_phrase(&rest, phrases!(STRONG_YES))
            || has_split_phrase(&rest, phrases!(SHORT_ECHOES)))
            && !has_any_phrase(&rest, &["correct", "right", "exactly"]);
        let agrees = matches!(
            words.as_slice(),
            ["correct", ..]
                | ["that's", "right" | "correct", ..]
                | ["that", "is", "correct" | "right", ..]
                | ["exactly", ..]
                | ["you're", "right", ..]
        );
        // A yes word, wherever its clause ends ("Yep totally free").
        let bare_yes = matches!(
            words.as_slice(),
            [
                "yes" | "yeah" | "yep" | "yup" | "uh-huh" | "mm-hmm" | "sure",
                ..
            ] | ["of", "course", ..]
        );
        // "There's no shuttle, is there?" "Oh, no, we do have one.": a no
        // that goes on to say the opposite denies the question's premise.
        let texts: Vec<&str> = clauses
            .iter()
            .map(|&clause| clause_text(first, clause))
            .filter(|text| text.split(' ').any(|w| !set!(FILLERS).contains(w)))
            .collect();
        let opens_with_no = matches!(texts.first(), Some(&("no" | "nope" | "nah")));
        let turns = texts.get(1).is_some_and(|next| {
            let words: Vec<&str> = next.split(' ').collect();
            turns_round(&words, |length| length == words.len())
        });
        if opens_with_no && turns {
            return Some(Polarity::Yes);
        }
        // "There's no deposit, is there?" "Ah, there is, I'm afraid.": a
        // short echo that opens the reply contradicts the question, what
        // ever regret follows it.
        // ("Sure we do, just come in.": after a yes word too.)
        let mut echo_of_another = false;
        let echo_opens = texts.first().is_some_and(|text| {
            let words: Vec<&str> = text
                .split(' ')
                .filter(|w| !set!(FILLERS).contains(w))
                .collect();
            let words = match words.as_slice() {
                ["sure" | "yes" | "yeah" | "yep" | "oh", rest @ ..] => rest,
                all => all,
            };
            // ("You don't…, do you?" "They do, the Main Street shop": an
            // echo about someone else answers nothing of the one asked.)
            let asked_of = asked.iter().rev().find_map(|w| match *w {
                "you" => Some(&["i", "we", "you"][..]),
                "they" => Some(&["they"][..]),
                "he" => Some(&["he"][..]),
                "she" => Some(&["she"][..]),
                "it" => Some(&["it"][..]),
                "there" => Some(&["there"][..]),
                "we" => Some(&["you", "we"][..]),
                _ => None,
            });
            let same_subject = words
                .first()
                .is_some_and(|subject| asked_of.is_none_or(|subjects| subjects.contains(subject)));
            let echoes = phrases!(SHORT_ECHOES)
                .iter()
                .any(|echo| echo.as_slice() == words);
            echo_of_another = echoes && !same_subject;
            same_subject && echoes
        });
        if echo_opens {
            return Some(Polarity::Yes);
        }
        if echo_of_another {
            return Some(Polarity::Dodge);
        }
        if contradicts {
            return None;
        }
        // "Correct, but there's a fee overnight": qualified, no answer.
        if (agrees || bare_yes)
            && has_any_phrase(&rest, &["but", "except", "although", "though", "unless"])
        {
            return Some(Polarity::Dodge);
        }
        if agrees {
            return Some(Polarity::No);
        }
        if bare_yes && is_negated_text(&rest) {
            // "Yeah, we don't": agreeing that there is none.
            return Some(Polarity::No);
        }
        bare_yes.then_some(Polarity::Dodge)
    }
}

/// Whether `word` carries a negative prefix ("unable", "unheated"), not
/// a word that merely starts like one ("under", "unless", "uniform").
fn negative_prefix(word: &str) -> bool {
    word.strip_prefix("un").is_some_and(|rest| {
        rest.chars().count() >= 4
            && !word.starts_with("under")
            && !matches!(
                word,
                "unless"
                    | "until"
                    | "uniform"
                    | "uniforms"
                    | "unique"
                    | "united"
                    | "universal"
                    | "university"
                    | "universe"
                    | "unisex"
                    | "union"
                    | "unions"
                    | "unity"
            )
    })
}

/// What a question asks of a number field.
impl Analysis<'_, '_> {
    /// Whether the question that opened `open` asks for a price ("How
    /// much is it?", "What would that run per visit?").
    pub(super) fn asks_a_price(&self, open: TurnIndex) -> bool {
        self.transcript.last_question(open).is_some_and(|question| {
            let words: Vec<&str> = question.word_lowers().collect();
            // Not "How many guests does that price include?", "How many
            // trucks do you run?".
            if words.windows(2).any(|pair| pair == ["how", "many"]) {
                return false;
            }
            words.windows(2).any(|pair| {
                pair == ["how", "much"]
                    || (matches!(pair[0], "that" | "it" | "this") && pair[1] == "run")
            }) || words
                .iter()
                .any(|w| matches!(*w, "cost" | "costs" | "price" | "charge" | "fee"))
        })
    }

    /// Whether the question that opened `open` asks how many "of those"
    /// ("of them", "of these") for something the field does not name: a
    /// part of what the field counts ("How many of those need vegetarian
    /// meals?" for the number of guests, not for the vegetarian meals).
    pub(super) fn asks_for_a_part(&self, field: FieldIndex, open: TurnIndex) -> bool {
        let profile = &self.profiles[field];
        self.transcript.last_question(open).is_some_and(|question| {
            let words: Vec<&str> = question.word_lowers().collect();
            let of_those = words
                .windows(2)
                .any(|pair| pair[0] == "of" && matches!(pair[1], "those" | "them" | "these"));
            let names_field = question.stems.iter().any(|st| {
                !matches!(st.as_str(), "many" | "much" | "numb") && profile.is_strong_keyword(st)
            });
            of_those && words.windows(2).any(|pair| pair == ["how", "many"]) && !names_field
        })
    }

    /// Whether `item` is the first sentence of the direct reply to a
    /// question that names the field's unit of time ("How many years …?"),
    /// and gives a bare figure ("About two and a half."): the figure is in
    /// that unit, whatever the reply goes on to say in others.
    pub(super) fn opens_reply_in_unit_asked(
        &self,
        number_profile: &NumberProfile,
        item: &Evidence,
    ) -> bool {
        let FieldUnit::Duration(unit) = number_profile.unit else {
            return false;
        };
        let sentence = &self.transcript.sentences[item.sentence];
        let turn = &self.transcript.turns[sentence.turn];
        let first = turn.sentences.first() == Some(&item.sentence);
        let direct = sentence.turn == item.region.next();
        let bare =
            !sentence.numbers.is_empty() && sentence.numbers.iter().all(|m| m.unit == Unit::None);
        let asked_in_unit = self.transcript.last_question(item.region).is_some_and(|q| {
            q.word_lowers()
                .any(|w| DurationUnit::parse(w) == Some(unit))
        });
        first && direct && bare && asked_in_unit
    }
}

/// Whether `question` negates with the words the field's description
/// negates with ("no extra", "not required"): its negation is the
/// field's own.
pub(super) fn negation_shared(profile: &FieldProfile, question: &Sentence) -> bool {
    let description = profile.description_lower();
    let described: Vec<&str> = text_words(&description).collect();
    // After the question's last "but": "Linens are no extra charge, I
    // saw, but is cleaning extra?" asks of cleaning.
    let clauses: Vec<&str> = question
        .clause_ids()
        .into_iter()
        .map(|clause| clause_text(question, clause))
        .collect();
    let from = clauses
        .iter()
        .rposition(|text| text.starts_with("but "))
        .unwrap_or(0);
    let asked: Vec<&str> = clauses[from..]
        .iter()
        .flat_map(|text| text.split(' '))
        .collect();
    described.windows(2).any(|pair| {
        matches!(pair[0], "no" | "not" | "without") && asked.windows(2).any(|other| other == pair)
    })
}
