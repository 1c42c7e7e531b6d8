//! How a value once said stops being the answer, or is made one: a
//! correction cue or a later "A, not B" replaces an amount, a retraction
//! hands the answer to the rest of its turn, a hold withdraws an amount, a
//! hedge withholds it, a plain yes confirms an amount the question put,
//! and a change asked for and accepted replaces a day or a time.

use super::evidence::{Analysis, Evidence, Role, Source};
use super::lexicon::{
    BELIEFS, CHARGE_NOUNS, CHECKS, CORRECTION_CUES, DECLINES, DEPENDS, DODGES, HEDGES, HOLDS,
    OUTGROWN, RETRACTIONS, REVISION_CUES, SELF_CORRECTIONS, STOPWORDS,
};
use super::number::NumberCandidate;
use super::phrase::{has_any_phrase, has_split_phrase};
use super::profile::{FieldIndex, FieldProfile, RangePreference, StringKind, ValueKind};
use super::string::StringCandidate;
use super::string_text::{normalize_words, same_text};
use super::transcript::{ClauseId, SentenceIndex, Speaker, TurnIndex, clause_text};
use agentcall_english::number_words::classify_number_word;
use agentcall_english::numbers::same_amount;
use agentcall_english::stem::stem;

/// Words of a question that offer a change ("Could he do Wednesday?").
const CHANGE_OFFERS: &[&str] = &[
    "could",
    "can",
    "how about",
    "what about",
    "instead",
    "would",
    "shall",
];

/// Words of a reply that accept what it repeats ("Wednesday at six is
/// fine").
const ACCEPTANCES: &[&str] = &[
    "fine",
    "works",
    "yes",
    "yeah",
    "sure",
    "great",
    "no problem",
    "okay",
    "ok",
    "lovely",
    "perfect",
    "good",
    "that's",
];

impl Analysis<'_, '_> {
    /// Whether the speaker puts `pick` on hold after saying it ("about one
    /// ninety... hold on, let me re-run it"), or says they would have to
    /// check ("Inside town limits it's twelve. Ridgeway's further, I'd
    /// need to check with our driver"), and no amount that fits the field
    /// follows in the turn: the figure was withdrawn.
    pub(super) fn withdrawn(&self, pick: &NumberCandidate, candidates: &[NumberCandidate]) -> bool {
        let turn = &self.transcript.turns[pick.turn];
        let hold = turn.sentences.iter().find_map(|&sentence| {
            let sent = &self.transcript.sentences[sentence];
            sent.clause_ids().into_iter().find(|&clause| {
                clause > pick.clause
                    && (has_any_phrase(clause_text(sent, clause), HOLDS)
                        || has_any_phrase(clause_text(sent, clause), CHECKS))
            })
        });
        hold.is_some_and(|hold| {
            !candidates
                .iter()
                .any(|c| c.turn == pick.turn && c.clause > hold)
        })
    }

    /// Whether the asker asked about `field` again after the reply `pick`
    /// was read from ("And the tent sites specifically?", "And on the
    /// weekend?") and the reply to that declined ("I'd have to check")
    /// with no amount of its own: the question was left unanswered.
    pub(super) fn left_unanswered(
        &self,
        field: FieldIndex,
        pick: &NumberCandidate,
        candidates: &[NumberCandidate],
    ) -> bool {
        self.evidence(field, false).iter().any(|asked| {
            let turn = self.transcript.sentences[asked.sentence].turn;
            let reply = turn.next();
            asked.role == Role::Question
                && turn > pick.turn
                && self.is_follow_up(turn)
                && self.transcript.turns[turn].speaker != self.transcript.turns[pick.turn].speaker
                && self.transcript.turns.get(reply.0).is_some_and(|answer| {
                    answer.speaker == self.transcript.turns[pick.turn].speaker
                        && !candidates.iter().any(|c| c.turn == reply)
                        && answer.sentences.iter().any(|&sentence| {
                            let text = self.transcript.sentences[sentence].lower_text();
                            has_split_phrase(&text, phrases!(DECLINES))
                        })
                })
        })
    }

    /// Whether the reply to the question in turn `open` opens with a plain
    /// yes ("That's right.", "Yes, still is.") and neither qualifies it nor
    /// gives another amount: what the question said stands.
    pub(super) fn confirmed_plainly(&self, open: TurnIndex) -> bool {
        let reply = open.next();
        let Some(turn) = self.transcript.turns.get(reply.0) else {
            return false;
        };
        if turn.speaker == self.transcript.turns[open].speaker {
            return false;
        }
        let words: Vec<&str> = turn
            .sentences
            .iter()
            .flat_map(|&sentence| self.transcript.sentences[sentence].word_lowers())
            .collect();
        let opening: Vec<&str> = words.iter().copied().take(3).collect();
        let plain_yes = matches!(
            opening.as_slice(),
            [
                "yes" | "yeah" | "yep" | "yup" | "correct" | "right" | "exactly" | "uh-huh",
                ..
            ] | ["that's" | "that", "right" | "correct" | "it", ..]
                | ["that", "is", "right" | "correct"]
                | ["still" | "it", "is", ..]
                | ["oh" | "um" | "well", "yes" | "yeah" | "yep" | "correct", ..]
        );
        // A question of the reply's own ("Lot's about a quarter acre,
        // isn't it?") qualifies nothing.
        let stated: Vec<&str> = turn
            .sentences
            .iter()
            .map(|&sentence| &self.transcript.sentences[sentence])
            .filter(|sentence| !sentence.question)
            .flat_map(|sentence| sentence.word_lowers())
            .collect();
        let qualified = stated.iter().any(|w| {
            matches!(
                *w,
                "but" | "actually" | "except" | "although" | "though" | "however" | "no" | "not"
            ) || w.ends_with("n't")
        });
        // Repeating the amount ("Yeah, that's right, forty-five.") or
        // naming an ordinal ("that covers the first hour") gives no other.
        let asked_amounts: Vec<f64> = self.transcript.turns[open]
            .sentences
            .iter()
            .flat_map(|&sentence| self.transcript.sentences[sentence].numbers.iter())
            .map(|m| m.value)
            .collect();
        let other_amount = turn.sentences.iter().any(|&sentence| {
            self.transcript.sentences[sentence].numbers.iter().any(|m| {
                !m.ordinal
                    && !asked_amounts
                        .iter()
                        .any(|&asked| same_amount(asked, m.value))
            })
        });
        let text = words.join(" ");
        let hedged = has_split_phrase(&text, phrases!(DODGES))
            || has_any_phrase(&text, HEDGES)
            || has_split_phrase(&text, phrases!(HOLDS));
        plain_yes && !qualified && !other_amount && !hedged
    }

    /// Whether `turn` revises an earlier answer ("Ah, I forgot the
    /// permit, so …", "make that …").
    pub(super) fn revises(&self, turn: TurnIndex) -> bool {
        self.turn_says(turn, phrases!(REVISION_CUES))
    }

    /// Whether a sentence of `turn` holds a phrase of `list` (split with
    /// `phrases!`).
    pub(super) fn turn_says(&self, turn: TurnIndex, list: &[Vec<&str>]) -> bool {
        self.transcript.turns[turn]
            .sentences
            .iter()
            .any(|&sentence| {
                has_split_phrase(&self.transcript.sentences[sentence].lower_text(), list)
            })
    }

    /// "I told you wrong on the hookup, sorry. It went up in April. It's
    /// four fifty now.": the rest of a turn in which the answering side
    /// names `field` (or answers about it: "Hang on. The truing is another
    /// twenty, I forgot to ring that up. So call it one nineteen.") and
    /// takes back what it said, as answers; a sentence that names another
    /// field speaks of that one.
    pub(super) fn retracted_rest(&self, field: FieldIndex, evidence: &[Evidence]) -> Vec<Evidence> {
        let names_another_field = |sentence| self.speaks_of_another_field(field, sentence);
        evidence
            .iter()
            .filter(|e| matches!(e.role, Role::Direct | Role::Answer))
            .filter(|e| {
                let turn = self.transcript.sentences[e.sentence].turn;
                self.transcript.turns[turn].speaker == Speaker::Recipient
                    && (has_any_phrase(
                        &self.transcript.sentences[e.sentence].lower_text(),
                        RETRACTIONS,
                    ) || self.corrects_itself_at_the_end(e.sentence))
            })
            .flat_map(|e| {
                let turn = self.transcript.sentences[e.sentence].turn;
                self.transcript.turns[turn]
                    .sentences
                    .iter()
                    .copied()
                    .filter(move |&sentence| sentence > e.sentence)
                    .take_while(move |&sentence| !names_another_field(sentence))
                    .map(move |sentence| Evidence {
                        sentence,
                        role: Role::Answer,
                        region: e.region,
                    })
            })
            .collect()
    }

    /// "There's a connection fee, that's thirty-five dollars… oh, sorry,
    /// no, that went up in January. It's forty now.": a sentence whose
    /// last amount is followed by a self-correction ("sorry, no", "no,
    /// wait", "hang on") and no amount after it goes on correcting in the
    /// sentences that follow.
    fn corrects_itself_at_the_end(&self, sentence: SentenceIndex) -> bool {
        let sent = &self.transcript.sentences[sentence];
        let Some(last_end) = sent.numbers.iter().map(|m| m.end).max() else {
            return false;
        };
        let after: Vec<&str> = sent
            .tokens
            .iter()
            .skip(last_end)
            .filter(|t| t.is_word())
            .map(|t| t.lower.as_str())
            .collect();
        has_any_phrase(&after.join(" "), SELF_CORRECTIONS)
    }

    /// Whether `sentence` names a field other than `field` by one of its
    /// strong keywords that is no word of `field`'s own: it speaks of that
    /// one ("The king's two nineteen" still speaks of the king room's rate).
    fn speaks_of_another_field(&self, field: FieldIndex, sentence: SentenceIndex) -> bool {
        self.field_indices().any(|other| {
            other != field
                && self.transcript.sentences[sentence].stems.iter().any(|st| {
                    self.profiles[other].is_strong_keyword(st)
                        && !self.profiles[field].is_own_word(st)
                })
        })
    }

    /// "Oh — wait, sorry. One eighty-nine is the queen, I had the wrong
    /// line highlighted. The king's two nineteen.": a later turn of the
    /// answering side that names again an amount it gave for `field` and
    /// takes it back (a revision cue, a retraction or "wrong") corrects
    /// it in the sentences that follow, whatever question that turn
    /// answers. They are answers in the region of the amount they correct.
    pub(super) fn corrected_later(
        &self,
        field: FieldIndex,
        evidence: &[Evidence],
    ) -> Vec<Evidence> {
        let given: Vec<(TurnIndex, TurnIndex, f64)> = evidence
            .iter()
            .filter(|e| matches!(e.role, Role::Direct | Role::Answer))
            .flat_map(|e| {
                let sentence = &self.transcript.sentences[e.sentence];
                sentence
                    .numbers
                    .iter()
                    .map(move |m| (sentence.turn, e.region, m.value))
            })
            .filter(|(turn, _, _)| self.transcript.turns[*turn].speaker == Speaker::Recipient)
            .collect();
        let mut out = Vec::new();
        for (turn, region, value) in given {
            for later in (turn.0 + 1)..self.transcript.turns.len() {
                let later_turn = &self.transcript.turns[later];
                if later_turn.speaker != Speaker::Recipient
                    || evidence.iter().any(|e| {
                        e.role != Role::Direct
                            && self.transcript.sentences[e.sentence].turn.0 == later
                    })
                {
                    continue;
                }
                let takes_back = later_turn.sentences.iter().any(|&sentence| {
                    let text = self.transcript.sentences[sentence].lower_text();
                    has_any_phrase(&text, RETRACTIONS)
                        || text.split_whitespace().any(|w| w == "wrong")
                });
                // It names the amount again, or the field itself ("Oh, and
                // the minimum, sorry, I was reading off the old sheet.").
                let repeats = later_turn.sentences.iter().find(|&&sentence| {
                    self.transcript.sentences[sentence]
                        .numbers
                        .iter()
                        .any(|m| same_amount(m.value, value))
                });
                let names_field = || {
                    later_turn.sentences.iter().find(|&&sentence| {
                        self.transcript.sentences[sentence].numbers.is_empty()
                            && self.relevance(field, sentence) >= 1.0
                    })
                };
                let Some(&named) = repeats.or_else(names_field) else {
                    continue;
                };
                if !takes_back {
                    continue;
                }
                let rest: Vec<SentenceIndex> = later_turn
                    .sentences
                    .iter()
                    .copied()
                    .filter(|&sentence| sentence > named)
                    .take_while(|&sentence| !self.speaks_of_another_field(field, sentence))
                    .collect();
                // The correction must speak of the field ("The king's two
                // nineteen"), not of what that turn was asked ("Cleaning
                // is seventy-five").
                if repeats.is_some()
                    && !rest
                        .iter()
                        .any(|&sentence| self.relevance(field, sentence) > 0.0)
                {
                    continue;
                }
                out.extend(rest.into_iter().map(|sentence| Evidence {
                    sentence,
                    role: Role::Answer,
                    region,
                }));
            }
        }
        out
    }

    /// A change one side asks for after `chosen` was given, and the other
    /// side accepts: "Hold on, they've got cleaners in on Tuesday. Could he
    /// do Wednesday, same time?" — "Wednesday at six is fine." Only for
    /// days, dates and times; only a question that offers a change ("could
    /// he", "how about", "instead"), in a turn with a revision cue; and only
    /// a value the other side's reply repeats and accepts without refusing.
    /// The last such change stands.
    pub(super) fn agreed_change(
        &self,
        profile: &FieldProfile,
        string_kind: &StringKind,
        chosen: &StringCandidate,
    ) -> Option<StringCandidate> {
        if !matches!(
            string_kind,
            StringKind::Weekday | StringKind::Date | StringKind::Time { .. }
        ) {
            return None;
        }
        let turns = &self.transcript.turns;
        let text_of = |sentences: &[SentenceIndex]| {
            sentences
                .iter()
                .map(|&sentence| self.transcript.sentences[sentence].lower_text())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let revises = |turn: TurnIndex| {
            self.revises(turn)
                || turns[turn].sentences.iter().any(|&sentence| {
                    let text = self.transcript.sentences[sentence].lower_text();
                    has_split_phrase(&text, phrases!(HOLDS))
                        // "Sorry, that one just got taken": the value is gone.
                        || has_any_phrase(&text, &["got taken", "been taken", "just went"])
                })
        };
        let mut agreed: Option<StringCandidate> = None;
        for proposal in (chosen.turn.0 + 1..turns.len().saturating_sub(1)).map(TurnIndex) {
            let reply = &turns[proposal.next()];
            if !revises(proposal) || reply.speaker == turns[proposal].speaker {
                continue;
            }
            let answer = text_of(&reply.sentences);
            let words: Vec<&str> = answer.split(' ').collect();
            let refused = has_split_phrase(&answer, phrases!(DODGES))
                || words.iter().any(|w| *w == "not" || w.ends_with("n't"))
                || (words.first() == Some(&"no")
                    && !matches!(words.get(1), Some(&("problem" | "worries" | "bother"))));
            if refused {
                continue;
            }
            // "Wednesday, eight to noon. I'll let her know.": saying the
            // value back first accepts it too.
            let accepts = |value: &str| {
                has_any_phrase(&answer, ACCEPTANCES)
                    || normalize_words(&answer).starts_with(&normalize_words(value))
            };
            let mut offered = Vec::new();
            let standing = agreed.as_ref().unwrap_or(chosen);
            let repeated: Vec<StringCandidate> = turns[proposal]
                .sentences
                .iter()
                .filter(|&&sentence| {
                    let asked = &self.transcript.sentences[sentence];
                    // ("Friday at half five?": a bare other value, offered;
                    // "Oh, sorry, that one just got taken. Next one's
                    // Thursday.": another value said outright.)
                    // (Not "Monday for the old one?": of another thing.)
                    !asked.question
                        || has_any_phrase(&asked.lower_text(), CHANGE_OFFERS)
                        || (asked.word_lowers().count() <= 5
                            && !asked
                                .word_lowers()
                                .any(|w| matches!(w, "for" | "with" | "of")))
                })
                .flat_map(|&sentence| {
                    self.string_candidates(
                        profile,
                        string_kind,
                        sentence,
                        Role::Answer,
                        false,
                        &mut offered,
                    )
                })
                .filter(|c| !same_text(&c.text, &standing.text))
                .filter(|c| normalize_words(&answer).contains(&normalize_words(&c.text)))
                .filter(|c| accepts(&c.text))
                .collect();
            if let [one] = repeated.as_slice() {
                agreed = Some(one.clone());
            }
        }
        agreed
    }

    /// Whether the reply holding `sentence` withholds an amount ("could be a
    /// day, could be two", "I won't put a number on it", "it depends"), in
    /// `sentence` or in another sentence that is not about another charge:
    /// the amount it gives is no clear answer.
    pub(super) fn reply_hedges(&self, field: FieldIndex, sentence: SentenceIndex) -> bool {
        let turn = self.transcript.sentences[sentence].turn;
        let wants_one_end = matches!(
            &self.profiles[field].kind,
            ValueKind::Number(number) if number.range != RangePreference::Neither
        );
        let guessed = self.transcript.turns[turn].sentences.iter().any(|&other| {
            let sent = &self.transcript.sentences[other];
            sent.question || has_any_phrase(&sent.lower_text(), &["i think", "maybe", "probably"])
        });
        let amounts_in_turn: usize = self.transcript.turns[turn]
            .sentences
            .iter()
            .map(|&other| self.transcript.sentences[other].numbers.len())
            .sum();
        self.transcript.turns[turn].sentences.iter().any(|&other| {
            let sent = &self.transcript.sentences[other];
            // "Forty, I think? Or fifty.": an amount offered as another
            // guess leaves both in doubt.
            // (Not another option: "Or one sixty with the wine pairing.",
            // "Fifty dollars. Or forty cash.": only after a guess.)
            let another_guess = amounts_in_turn >= 2
                && !sent.numbers.is_empty()
                && sent.word_lowers().next() == Some("or")
                && sent.word_lowers().count() <= 4
                && !sent
                    .word_lowers()
                    .any(|w| matches!(w, "cash" | "card" | "with" | "for" | "if"))
                && guessed;
            if another_guess {
                return true;
            }
            // "Fifteen a signature. The trip charge is on top, it depends
            // on the mileage.": a hedge about another charge.
            let profile = &self.profiles[field];
            let words: Vec<&str> = sent.word_lowers().collect();
            let about_another = other != sentence
                && words.windows(2).any(|pair| {
                    set!(CHARGE_NOUNS).contains(pair[1])
                        && !set!(STOPWORDS).contains(pair[0])
                        && !profile.is_keyword(&stem(pair[0]))
                });
            let text = sent.lower_text();
            // "Depends what the sky's doing": in the amount's own sentence,
            // or a sentence that is only that (not "the final bill depends
            // on the guests", said of something else).
            let opening = text
                .split(' ')
                .find(|w| !matches!(*w, "ah" | "oh" | "well" | "um" | "uh" | "so" | "but"));
            let depends = !wants_one_end
                && has_any_phrase(&text, DEPENDS)
                && (other == sentence || matches!(opening, Some("depends" | "it" | "that")));
            // "It'll be more" (not "if you want a Saturday it'll be more").
            let outgrown = has_any_phrase(&text, OUTGROWN) && !sent.conditional;
            // "Forty-five, I think." or "I think it's forty-five" (not "I
            // think that includes the nail trim").
            let belief = other == sentence
                && sent.clause_ids().into_iter().any(|clause| {
                    let clause = clause_text(sent, clause);
                    BELIEFS.iter().any(|belief| {
                        clause == *belief
                            || clause.starts_with(&format!("{belief} it's"))
                            || clause.starts_with(&format!("{belief} it is"))
                            || clause.starts_with(&format!("{belief} it was"))
                    })
                });
            !about_another && (has_any_phrase(&text, HEDGES) || depends || outgrown || belief)
        })
    }

    /// "make it a four, not a five": a later "A, not B" with B equal
    /// to the value read in sentence `from` replaces it with A.
    pub(super) fn apply_not_corrections(
        &self,
        from: SentenceIndex,
        mut value: f64,
    ) -> (f64, Source) {
        let mut source = Source::sentence(from);
        for (sentence, sent) in self.sentences().skip(from.0 + 1) {
            if sent.question {
                continue;
            }
            for pair in sent.numbers.windows(2) {
                let [a, b] = pair else { continue };
                let gap: Vec<&str> = sent
                    .tokens
                    .get(a.end..b.start)
                    .unwrap_or(&[])
                    .iter()
                    .filter(|t| t.is_word())
                    .map(|t| t.lower.as_str())
                    .collect();
                let not_gap = matches!(gap.as_slice(), ["not"] | ["not", "a" | "an" | "the"]);
                if not_gap && same_amount(b.value, value) {
                    value = a.value;
                    source = Source::sentence(sentence);
                }
            }
        }
        (value, source)
    }
}

/// Within one reply, a correction cue ("actually", "hang on", "so") makes
/// the numbers before it stale, provided a fitting number follows it.
pub(super) fn suppress_before_cues(
    analysis: &Analysis,
    candidates: Vec<NumberCandidate>,
) -> Vec<NumberCandidate> {
    let mut keep: Vec<NumberCandidate> = Vec::with_capacity(candidates.len());
    let mut by_turn: Vec<(TurnIndex, Vec<NumberCandidate>)> = Vec::new();
    for candidate in candidates {
        match by_turn.last_mut() {
            Some((turn, group)) if *turn == candidate.turn => group.push(candidate),
            _ => by_turn.push((candidate.turn, vec![candidate])),
        }
    }
    for (turn, group) in by_turn {
        let cue = last_cue_with_followers(analysis, turn, group.iter().map(|c| c.clause).collect());
        keep.extend(
            group
                .into_iter()
                .filter(|c| cue.is_none_or(|k| c.clause >= k)),
        );
    }
    keep
}

/// The clause id of the last cue in `turn` that still has a candidate at or
/// after it.
pub(super) fn last_cue_with_followers(
    analysis: &Analysis,
    turn: TurnIndex,
    clauses: Vec<ClauseId>,
) -> Option<ClauseId> {
    let mut cue_clauses: Vec<ClauseId> = Vec::new();
    for &sentence in &analysis.transcript.turns[turn].sentences {
        let sent = &analysis.transcript.sentences[sentence];
        for clause in sent.clause_ids() {
            let text = without_false_cues(clause_text(sent, clause));
            let text = text.as_str();
            // "Blue. Well, dark blue": a mid-reply "well" revises.
            let well = clause.0 > 0 && text.split(' ').next() == Some("well");
            // "Twelve quarter-size… let me look. I've got nine": a hold
            // before a figure revises the one said before it.
            if well
                || has_split_phrase(text, phrases!(CORRECTION_CUES))
                || has_split_phrase(text, phrases!(HOLDS))
            {
                cue_clauses.push(clause);
            }
        }
    }
    cue_clauses
        .into_iter()
        .rev()
        .find(|&k| clauses.iter().any(|&c| c >= k) && clauses.iter().any(|&c| c < k))
}

/// `text` without the words that look like a correction cue but revise
/// nothing: an aside ("just so you know, …") and a "so" of consequence
/// ("so with twenty-seven you'd be split into two groups", "so nine is
/// great", "so we're strict about it"), which draws on a figure rather
/// than replacing it.
fn without_false_cues(text: &str) -> String {
    let words: Vec<&str> = text.split(' ').collect();
    let mut kept: Vec<&str> = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        let after = |k: usize| words.get(i + k).copied();
        if words[i] == "so" {
            let aside = after(1) == Some("you") && matches!(after(2), Some("know" | "know,"))
                || matches!(after(1), Some("you're")) && after(2) == Some("aware");
            if aside {
                i += 3;
                continue;
            }
            // "so you're looking at three-fifty" still revises: a figure
            // told to the listener.
            let figure_follows = words[i + 1..].iter().any(|w| {
                w.chars().any(|c| c.is_ascii_digit()) || classify_number_word(w).is_some()
            });
            let to_the_listener = matches!(after(1), Some("you" | "you'd" | "you'll" | "you're"));
            let consequence = !(to_the_listener && figure_follows)
                && matches!(
                    after(1),
                    Some(
                        "with"
                            | "you"
                            | "you'd"
                            | "you'll"
                            | "you're"
                            | "they"
                            | "they'd"
                            | "they'll"
                            | "they're"
                            | "we"
                            | "we're"
                            | "we'd"
                            | "i'm"
                            | "if"
                            | "that"
                    )
                );
            // "so nine is great": a figure judged, not given.
            let judged = matches!(after(2), Some("is" | "'s" | "would" | "should"))
                && matches!(
                    after(3),
                    Some(
                        "great" | "fine" | "perfect" | "good" | "ok" | "okay" | "plenty" | "enough"
                    )
                );
            if consequence || judged {
                i += 1;
                continue;
            }
        }
        kept.push(words[i]);
        i += 1;
    }
    kept.join(" ")
}
