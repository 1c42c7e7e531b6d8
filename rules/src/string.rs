//! Stage 4 for text fields: candidates of the wanted kind, the choice among
//! them, and fallbacks for values that are unmistakable anywhere.

use super::clock::{format_clock, is_bare_hour, is_clock, refuses_the_time};
use super::days::{day_span_ends, field_day};
use super::evidence::{Analysis, Evidence, Role, Source};
use super::lexicon::{DODGES, NEGATIVE_STATES, TENTATIVE};
use super::names::{asks_for_the_one_on_the_line, name_in_passing, no_person};
use super::names::{join_tokens, proper_spans, proper_spans_of_answer};
use super::options::said_for_own_option;
use super::phrase::{has_any_phrase, has_split_phrase, is_negated_text, option_in};
use super::places::{asks_where, names_a_time};
use super::profile::{FieldIndex, FieldProfile, NamePart, StringKind};
use super::string_candidates::{
    address_candidates, code_candidates, generic_candidates, modifier_candidates, option_choice,
    quote_candidates,
};
use super::string_pick::pick_string;
use super::string_text::{finish_string, normalize_words, same_text};
use super::transcript::{ClauseId, SentenceIndex, Speaker, TurnIndex, clause_text};
use agentcall_english::identifier::split_identifier;
use agentcall_english::stem::{stem, stems_match};
use agentcall_english::vocabulary;

/// A phrase that may be a string field's value.
#[derive(Debug, Clone)]
pub(super) struct StringCandidate {
    pub(super) sentence: SentenceIndex,
    pub(super) turn: TurnIndex,
    /// Clause id within the turn.
    pub(super) clause: ClauseId,
    /// The token the value starts at.
    token: usize,
    pub(super) text: String,
    /// Lower is better within a turn (e.g. a bare fragment beats a copula reading).
    pub(super) rank: u8,
    pub(super) echo: bool,
}

impl Analysis<'_, '_> {
    /// The text value of `field`: the candidate of the latest reply that
    /// gives one (after its last correction cue), or a fallback for values
    /// that are unmistakable wherever they appear; with the sentence it was
    /// read from.
    pub(super) fn extract_string(
        &self,
        field: FieldIndex,
        string_kind: &StringKind,
    ) -> Option<(String, Source)> {
        let profile = &self.profiles[field];
        // "Larkspur House, Gwen speaking." for the innkeeper spoken to.
        if let StringKind::Name {
            person: true, part, ..
        } = string_kind
            && asks_for_the_one_on_the_line(profile)
            && let Some(introduced) = self.self_introduction(*part)
        {
            return Some(introduced);
        }
        let mut evidence = self.evidence(field, false);
        // "The parcel has been found. It's waiting in Leeds.": a reply that names
        // the field goes on to give the value in its next sentence.
        if !matches!(string_kind, StringKind::Generic | StringKind::Quote) {
            let extra: Vec<Evidence> = evidence
                .iter()
                .filter(|e| {
                    e.role == Role::Direct
                        && self.transcript.turns[self.transcript.sentences[e.sentence].turn].speaker
                            != Speaker::Agent
                })
                .filter_map(|e| {
                    let next = e.sentence.next();
                    let same_turn = self
                        .transcript
                        .sentences
                        .get(next.0)
                        .is_some_and(|n| n.turn == self.transcript.sentences[e.sentence].turn);
                    (same_turn && !evidence.iter().any(|x| x.sentence == next)).then_some(
                        Evidence {
                            sentence: next,
                            role: Role::Direct,
                            region: e.region,
                        },
                    )
                })
                .collect();
            evidence.extend(extra);
            evidence.sort_by_key(|e| (e.sentence, e.role));
            evidence.dedup_by_key(|e| e.sentence);
        }
        let mut candidates: Vec<StringCandidate> = Vec::new();
        let mut echo_candidates: Vec<StringCandidate> = Vec::new();
        let mut offered: Vec<String> = Vec::new();
        for item in &evidence {
            let mut found = match item.role {
                Role::Question => {
                    if !self.answered_yes(profile, item.region) {
                        continue;
                    }
                    self.question_candidates(profile, string_kind, item.sentence)
                }
                Role::Answer if self.reply_refuses(item.sentence) => continue,
                // "Ceremony's at three-thirty, right?" "Yes, three-thirty.":
                // the asker answering a question back speaks of that.
                Role::Asker if self.answers_a_question_back(item.sentence) => continue,
                role => {
                    // Bare-phrase answers ("Geometry.") only as replies to a question about the field.
                    // (Not in a reply that opens by asking back: "Oh, is
                    // she the one with the big dog? Lovely dog, that.")
                    let asks_back = self.transcript.turns
                        [self.transcript.sentences[item.sentence].turn]
                        .sentences
                        .first()
                        .is_some_and(|&first| self.transcript.sentences[first].question);
                    let fragments =
                        role == Role::Answer && !asks_back && self.asks_about(field, item.region);
                    self.string_candidates(
                        profile,
                        string_kind,
                        item.sentence,
                        role,
                        fragments,
                        &mut offered,
                    )
                }
            };
            if item.role == Role::Echo {
                for candidate in &mut found {
                    candidate.echo = true;
                }
                echo_candidates.extend(found);
            } else {
                candidates.extend(found);
            }
        }
        for echo in echo_candidates {
            if candidates.iter().any(|o| same_text(&o.text, &echo.text)) {
                candidates.push(echo);
            }
        }
        // "Vaccine required besides rabies and distemper": what the
        // description sets apart is never the value.
        candidates.retain(|c| {
            !normalize_words(&c.text)
                .split(' ')
                .any(|word| profile.excluded.iter().any(|ex| stems_match(ex, word)))
        });
        // "Rabies, mainly.": an adverb is how the answer is said, not what.
        candidates.retain(|c| {
            let adverb = !c.text.contains(' ')
                && c.text.len() > 4
                && c.text.ends_with("ly")
                && c.text.chars().all(|ch| ch.is_ascii_lowercase());
            !adverb
        });
        // "Main entrance on Carver Street, unless there's a bay round the
        // back you'd rather use": what a condition names is no value.
        candidates.retain(|c| {
            let sent = &self.transcript.sentences[c.sentence];
            let clause = sent.clause_at(c.token);
            let first = clause_text(sent, clause).split(' ').next().unwrap_or("");
            // (An opening "if" clause may hold its consequence too: "If
            // it's old I'd swap it for a Thermalux.")
            let opens_sentence = sent.clause_range(clause).start == 0;
            !(first == "unless" || (first == "if" && !opens_sentence))
        });
        // "If everyone's of age, …": a condition is never the value.
        candidates.retain(|c| {
            let first = c
                .text
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_lowercase();
            !matches!(
                first.as_str(),
                "if" | "unless" | "when" | "whenever" | "because" | "since" | "although"
            )
        });
        if candidates.is_empty() {
            return self.string_fallback(profile, string_kind);
        }
        candidates.sort_by_key(|c| (c.sentence, c.clause));
        let by_agent = |turn: TurnIndex| self.transcript.turns[turn].speaker == Speaker::Agent;
        let said: Vec<(SentenceIndex, String)> = candidates
            .iter()
            .filter(|c| !c.echo && !by_agent(c.turn))
            .map(|c| (c.sentence, c.text.clone()))
            .collect();
        self.prefer_clauses_naming_the_field(profile, string_kind, &mut candidates);
        let mut chosen = pick_string(self, candidates)?;
        if let Some(agreed) = self.agreed_change(profile, string_kind, &chosen) {
            chosen = agreed;
        }
        // A full name asked for, and a first name chosen: the full name the
        // other side gives for that person elsewhere.
        if let StringKind::Name {
            person: true,
            part: NamePart::Full,
            ..
        } = string_kind
            && !chosen.text.contains(' ')
            && let Some((full, said_in)) = self.full_name_of(&chosen.text)
        {
            chosen.text = full;
            chosen.sentence = said_in;
            chosen.turn = self.transcript.sentences[said_in].turn;
            chosen.echo = false;
        }
        // An echo, or the agent repeating the value, only confirms: the
        // value was read where the other side said it, if it did.
        // The words are the other side's too, when they said more ("Yeah,
        // Accessible Beige." repeated as "beige").
        // ("B7704, Lowell, yes, that's him.": said back in the next turn.)
        let said_back = |sentence: &SentenceIndex| {
            *sentence > chosen.sentence
                && self.transcript.sentences[sentence.0].turn == chosen.turn.next()
        };
        let (sentence, text) = if chosen.echo || by_agent(chosen.turn) {
            said.iter()
                .rev()
                .find(|(sentence, text)| {
                    (*sentence < chosen.sentence || said_back(sentence))
                        && same_text(text, &chosen.text)
                })
                .map_or(
                    (chosen.sentence, chosen.text.clone()),
                    |(sentence, text)| {
                        let longer = text.len() > chosen.text.len();
                        (
                            *sentence,
                            if longer {
                                text.clone()
                            } else {
                                chosen.text.clone()
                            },
                        )
                    },
                )
        } else {
            (chosen.sentence, chosen.text.clone())
        };
        Some((
            finish_string(string_kind, &text),
            Source::sentence(sentence),
        ))
    }

    /// A candidate at token `tok` of `sentence`.
    pub(super) fn candidate_at(
        &self,
        sentence: SentenceIndex,
        tok: usize,
        text: String,
        rank: u8,
    ) -> StringCandidate {
        let sent = &self.transcript.sentences[sentence];
        StringCandidate {
            sentence,
            turn: sent.turn,
            clause: sent.clause_at(tok),
            token: tok,
            text,
            rank,
            echo: false,
        }
    }

    /// Values of the field's kind in one evidence sentence.
    pub(super) fn string_candidates(
        &self,
        profile: &FieldProfile,
        string_kind: &StringKind,
        sentence: SentenceIndex,
        role: Role,
        fragments: bool,
        offered: &mut Vec<String>,
    ) -> Vec<StringCandidate> {
        let sent = &self.transcript.sentences[sentence];
        let answerer = role == Role::Answer;
        // The answering side's check-backs ("that's a Sunday, isn't it?") assert a value.
        let asserts = answerer
            && !matches!(
                string_kind,
                StringKind::Generic | StringKind::Quote | StringKind::Code
            );
        if sent.question && !asserts {
            return Vec::new();
        }
        let mut out: Vec<StringCandidate> = Vec::new();
        let lower_words = sent.indexed_word_lowers();
        let clause_words = |token: usize| clause_text(sent, sent.clause_at(token));
        // ("Day the boots would be ready if dropped off this Saturday": a
        // day the description sets as a condition is given, not asked.)
        let given_day = matches!(string_kind, StringKind::Weekday)
            .then(|| field_day(profile.definition))
            .flatten()
            .filter(|_| day_is_a_condition(profile));
        // "When's the earliest?" "Not before June.": a bound that denies
        // what comes before the value names the earliest.
        let earliest_field = ["earliest", "soonest"]
            .iter()
            .any(|word| profile.is_own_word(&stem(word)));
        let bound_from = |token: usize| {
            earliest_field
                && matches!(
                    (sent.lower_before(token, 2), sent.lower_before(token, 1)),
                    (Some("not"), Some("before" | "until" | "till"))
                )
        };
        // "Sundays we're closed" for the day the shop is closed: a state
        // the field names is its value, no refusal.
        let states_the_field = |token: usize| {
            clause_words(token).split(' ').any(|word| {
                set!(NEGATIVE_STATES).contains(word) && profile.is_own_word(&stem(word))
            })
        };
        let negated_clause = |token: usize| {
            is_negated_text(clause_words(token)) && !bound_from(token) && !states_the_field(token)
        };
        match string_kind {
            StringKind::Weekday => {
                // "Let me know by Friday": a deadline, not the day asked
                // for, unless the field is a deadline.
                let definition = profile.definition;
                let description = definition
                    .description
                    .as_deref()
                    .unwrap_or("")
                    .to_lowercase();
                let deadline_field = split_identifier(&definition.name)
                    .into_iter()
                    .map(|w| w.to_lowercase())
                    .chain(
                        description
                            .split(|c: char| !c.is_alphanumeric())
                            .filter(|w| !w.is_empty())
                            .map(str::to_owned),
                    )
                    .any(|w| {
                        matches!(
                            w.as_str(),
                            "deadline" | "due" | "latest" | "before" | "until"
                        )
                    });
                let vals: Vec<(usize, &str)> = lower_words
                    .iter()
                    .filter_map(|(i, w)| vocabulary::weekday(w).map(|d| (*i, d)))
                    .filter(|(i, _)| {
                        let word_before = |back: usize| sent.lower_before(*i, back);
                        // "I could swing by Thursday" is a visit, not a deadline.
                        let visit = matches!(
                            word_before(2),
                            Some("swing" | "stop" | "drop" | "pop" | "pass")
                        );
                        let after_by = !visit
                            && matches!(word_before(1), Some("by" | "before" | "until" | "till"));
                        // "I'll send the contract by Friday" is about the field.
                        let about_field = || {
                            let clause = sent.clause_at(*i);
                            sent.stems
                                .get(sent.clause_range(clause))
                                .unwrap_or(&[])
                                .iter()
                                .any(|st| profile.is_keyword(st))
                        };
                        !after_by || deadline_field || about_field()
                    })
                    // "Day the boots would be ready if dropped off this
                    // Saturday": the day the field names is given, not asked.
                    .filter(|(_, day)| {
                        given_day
                            .is_none_or(|given| day.parse::<chrono::Weekday>().ok() != Some(given))
                    })
                    .collect();
                // "We'd put it up on the Friday, so it's ready and dry for
                // the Saturday": the day a result is ready for is not the
                // day asked ("book it for the Friday" still is).
                let for_a_result = |token: usize| {
                    let word = |back: usize| sent.lower_before(token, back);
                    let result = (3..=5).filter_map(word).any(|w| {
                        matches!(
                            w,
                            "ready" | "dry" | "done" | "finished" | "set" | "prepared"
                        )
                    });
                    word(1) == Some("the") && word(2) == Some("for") && result
                };
                let vals: Vec<(usize, &str)> = if vals.iter().any(|(i, _)| !for_a_result(*i)) {
                    vals.into_iter()
                        .filter(|(i, _)| !for_a_result(*i))
                        .collect()
                } else {
                    vals
                };
                // "Monday through Wednesday": a span of days gives no one day.
                let spanned = day_span_ends(&sent.tokens);
                let vals: Vec<(usize, &str)> = vals
                    .into_iter()
                    .filter(|(i, _)| !spanned.contains(i))
                    .collect();
                push_values(self, sentence, &vals, &negated_clause, &mut out);
            }
            StringKind::Month => {
                let vals: Vec<(usize, &str)> = sent
                    .tokens
                    .iter()
                    .enumerate()
                    .filter_map(|(i, t)| vocabulary::month(t).map(|m| (i, m)))
                    .collect();
                push_values(self, sentence, &vals, &negated_clause, &mut out);
            }
            StringKind::Color => {
                let vals = self.colours_in(sentence);
                let refs: Vec<(usize, &str)> = vals.iter().map(|(i, c)| (*i, c.as_str())).collect();
                push_values(self, sentence, &refs, &negated_clause, &mut out);
            }
            StringKind::Date => {
                let vals = self.dates_in(sentence);
                let refs: Vec<(usize, &str)> = vals.iter().map(|(i, d)| (*i, d.as_str())).collect();
                push_values(self, sentence, &refs, &negated_clause, &mut out);
            }
            StringKind::Time { hour24 } => {
                // "What time do you close?" "Five.": a bare hour answering.
                let bare_hours = answerer
                    && !sent.question
                    && sent.numbers.len() == 1
                    && sent
                        .turn
                        .previous()
                        .is_some_and(|asked| self.asks_the_time(asked));
                let vals: Vec<(usize, String)> = sent
                    .numbers
                    .iter()
                    // "two nineteen a night" is a price, not a time.
                    // ("We open at nine every day" is a time.)
                    .filter(|m| {
                        let every = m
                            .end
                            .checked_sub(2)
                            .and_then(|at| sent.tokens.get(at))
                            .is_some_and(|t| t.lower == "every");
                        (is_clock(m) || (bare_hours && is_bare_hour(m)))
                            && (m.per.is_none() || every)
                    })
                    .map(|m| {
                        // "around noon" is said best as "noon".
                        let word = sent.tokens.get(m.start).map(|t| t.lower.as_str());
                        let named = matches!(word, Some("noon" | "midday" | "midnight"))
                            && m.end == m.start + 1;
                        match word {
                            Some(word) if named && !*hour24 => (m.start, word.to_owned()),
                            _ => (m.start, format_clock(m, *hour24)),
                        }
                    })
                    .collect();
                let refs: Vec<(usize, &str)> = vals.iter().map(|(i, d)| (*i, d.as_str())).collect();
                let refuses = |token: usize| refuses_the_time(clause_words(token));
                push_values(self, sentence, &refs, &refuses, &mut out);
            }
            StringKind::Options(opts) => {
                let text: String = sent.lower_text();
                let present: Vec<&String> = opts.iter().filter(|o| option_in(&text, o)).collect();
                if present.len() >= 2 && lower_words.iter().any(|(_, w)| *w == "or") {
                    return out;
                }
                for o in present {
                    let last = o.split_whitespace().last().map(stem).unwrap_or_default();
                    let Some(ti) = sent.stems.iter().position(|st| *st == last) else {
                        continue;
                    };
                    if negated_clause(ti) {
                        continue;
                    }
                    out.push(self.candidate_at(sentence, ti, o.clone(), 0));
                }
            }
            StringKind::Address => out.extend(address_candidates(self, sentence)),
            StringKind::Code => {
                if answerer || role == Role::Direct || role == Role::Echo {
                    out.extend(code_candidates(self, sentence));
                }
            }
            StringKind::Quote => out.extend(quote_candidates(self, sentence)),
            StringKind::Name { person, common, .. } => {
                let objective_names = |txt: &str| {
                    self.transcript
                        .objective_lower
                        .contains(&txt.to_lowercase())
                };
                // ("Pass, sorry. The office would know.": not while the
                // reply hedges or hands the question on.)
                let hedged = self.transcript.turns[sent.turn]
                    .sentences
                    .iter()
                    .any(|&other| {
                        let text = self.transcript.sentences[other].lower_text();
                        has_split_phrase(&text, phrases!(DODGES))
                            || has_any_phrase(&text, TENTATIVE)
                            || has_any_phrase(&text, &["would know", "sorry"])
                    });
                let spans = if fragments && !hedged {
                    proper_spans_of_answer(sent, self.transcript)
                } else {
                    proper_spans(sent, self.transcript)
                };
                for (start, end) in spans {
                    let txt = join_tokens(&sent.tokens[start..end]);
                    // Names containing the field's own words are the organisation ("Birchfield Bakery").
                    let own = sent.stems.get(start..end).unwrap_or(&[]).iter().any(|st| {
                        profile.heads.iter().any(|h| h == st) || (*person && profile.is_keyword(st))
                    });
                    if own
                        || (*person && no_person(sent, start, end))
                        || (*person && self.named_as_a_place(&txt))
                        // (A make or brand is never the caller's client;
                        // a name something is held under may be.)
                        || ((*person || !profile.is_own_word("nam")) && objective_names(&txt))
                        || name_in_passing(profile, sent, start, end)
                    {
                        continue;
                    }
                    out.push(self.candidate_at(sentence, start, txt, 0));
                }
                // "Name of the course": a common-noun answer ("beginner pottery course").
                if out.is_empty() && *common {
                    out.extend(modifier_candidates(self, profile, sentence, false));
                }
            }
            StringKind::Generic => {
                out.extend(modifier_candidates(self, profile, sentence, false));
                if answerer {
                    // "Where …": a place a preposition names, and no time.
                    let where_field = asks_where(profile);
                    if where_field {
                        out.extend(self.place_candidates(sentence));
                    }
                    out.extend(
                        generic_candidates(self, profile, sentence, offered, fragments)
                            .into_iter()
                            .filter(|candidate| {
                                let words: Vec<String> = candidate
                                    .text
                                    .split_whitespace()
                                    .map(str::to_lowercase)
                                    .collect();
                                let words: Vec<&str> = words.iter().map(String::as_str).collect();
                                // "It's on the sheet here": a phrase of place
                                // answers no question but "Where…?".
                                let placed = matches!(
                                    words.as_slice(),
                                    [
                                        "on" | "in" | "at" | "under" | "behind" | "inside" | "near",
                                        "the"
                                            | "a"
                                            | "my"
                                            | "our"
                                            | "your"
                                            | "her"
                                            | "his"
                                            | "their"
                                            | "this"
                                            | "that",
                                        ..
                                    ]
                                );
                                if where_field {
                                    !names_a_time(&words)
                                } else {
                                    !placed
                                }
                            }),
                    );
                } else {
                    out.extend(option_choice(self, sentence, offered));
                }
            }
        }
        // "Could be Wednesday, could be Friday", "probably Sam": a value
        // said tentatively is no answer.
        // "I think… Thursday?": a guess asked back is tentative too.
        // (The value itself asked: "Thursday works, I think, does that
        // suit her?" is no guess.)
        let guessed = |token: usize| {
            sent.question
                && has_any_phrase(&sent.lower_text(), &["i think", "i guess", "i believe"])
                && sent
                    .tokens
                    .get(token + 1)
                    .is_some_and(|next| next.is_punct('?'))
        };
        let tentative = |token: usize| {
            let clause = sent.clause_at(token);
            guessed(token) || has_any_phrase(clause_text(sent, clause), TENTATIVE)
        };
        // "Tuesdays I've got four already, so not Tuesdays", "Not Word,
        // please, anything but Word": a value the turn refuses anywhere
        // is refused everywhere in it.
        // The turn's sentences' words, read once for every candidate.
        let turn_words: Vec<Vec<String>> = self.transcript.turns[sent.turn]
            .sentences
            .iter()
            .map(|&other| {
                self.transcript.sentences[other]
                    .word_lowers()
                    .map(|w| w.trim_end_matches('s').to_owned())
                    .collect()
            })
            .collect();
        let refused_in_turn = |text: &str| {
            let wanted: Vec<String> = text
                .split_whitespace()
                .map(|w| w.to_lowercase().trim_end_matches('s').to_owned())
                .collect();
            turn_words.iter().any(|words| {
                // "not Tuesdays", "not for an area outage", "anything
                // but Word", "the hog roast machine's out" ("No wait,
                // Wednesday" corrects, and refuses nothing).
                let linking =
                    |w: &str| matches!(w, "for" | "a" | "an" | "the" | "on" | "at" | "in");
                !wanted.is_empty()
                    && words.windows(wanted.len()).enumerate().any(|(at, window)| {
                        let before: Vec<&str> = words[..at]
                            .iter()
                            .rev()
                            .map(String::as_str)
                            .skip_while(|w| linking(w))
                            .take(2)
                            .collect();
                        let after = &words[(at + wanted.len()).min(words.len())..];
                        // ("Not Monday morning, Monday afternoon" refuses
                        // a part of the day only.)
                        let part_of_day = after.first().is_some_and(|next| {
                            matches!(
                                next.as_str(),
                                "morning" | "afternoon" | "evening" | "night" | "lunchtime"
                            )
                        });
                        window == wanted.as_slice()
                            && !part_of_day
                            && (before.first() == Some(&"not")
                                || matches!(before.as_slice(), ["but", "anything" | "everything"])
                                || after.get(..2).is_some_and(|pair| {
                                    pair[0].ends_with('\'')
                                        && matches!(pair[1].as_str(), "out" | "gone")
                                }))
                    })
            })
        };
        out.retain(|candidate| {
            !refused_in_turn(&candidate.text)
                && !tentative(candidate.token)
                && !sent.habitual_before(candidate.token)
                // (A day is the value of a day field, not another option
                // of the one day the field names; "a weekend class" still
                // leaves out weekdays.)
                && (given_day.is_some()
                    || said_for_own_option(profile, sent, candidate.token) != Some(false))
        });
        out
    }

    /// When nothing raised the field: for kinds whose values are unmistakable
    /// (weekday, month, date, colour, time, street, quoted words) take the last
    /// one stated anywhere. A person's name only when the other side assigns
    /// that person to the job in so many words ("It'll be Terrence"): a
    /// name is otherwise only read as the answer to a question about it.
    fn string_fallback(
        &self,
        profile: &FieldProfile,
        string_kind: &StringKind,
    ) -> Option<(String, Source)> {
        match string_kind {
            StringKind::Name {
                person: true, part, ..
            } => self.assigned_person(profile, *part),
            StringKind::Weekday
            | StringKind::Month
            | StringKind::Date
            | StringKind::Color
            | StringKind::Time { .. }
            | StringKind::Address
            | StringKind::Quote => {
                let mut offered = Vec::new();
                let mut last: Option<(StringCandidate, bool)> = None;
                for (sentence, sent) in self.sentences() {
                    // The other side's check-backs ("the green one?") assert a value.
                    let by_agent = self.transcript.turns[sent.turn].speaker == Speaker::Agent;
                    if sent.question && by_agent {
                        continue;
                    }
                    let role = if sent.question {
                        Role::Answer
                    } else {
                        Role::Direct
                    };
                    let found = self.string_candidates(
                        profile,
                        string_kind,
                        sentence,
                        role,
                        false,
                        &mut offered,
                    );
                    // The other side's words outrank the agent's repeating them.
                    if let Some(candidate) = found.into_iter().next_back()
                        && (!by_agent || last.as_ref().is_none_or(|(_, agent)| *agent))
                    {
                        last = Some((candidate, by_agent));
                    }
                }
                last.map(|(candidate, _)| {
                    (
                        finish_string(string_kind, &candidate.text),
                        Source::sentence(candidate.sentence),
                    )
                })
            }
            _ => None,
        }
    }
}

/// Adds one candidate per value unless the sentence offers several or negates it.
fn push_values(
    analysis: &Analysis,
    sentence: SentenceIndex,
    vals: &[(usize, &str)],
    negated: &dyn Fn(usize) -> bool,
    out: &mut Vec<StringCandidate>,
) {
    let sent = &analysis.transcript.sentences[sentence];
    let mut distinct: Vec<&str> = vals.iter().map(|(_, v)| *v).collect();
    distinct.sort_unstable();
    distinct.dedup();
    // An offer ("Monday, Thursday, or Saturday") names no single value.
    if distinct.len() >= 2 && sent.word_lowers().any(|w| w == "or") {
        return;
    }
    for (ti, v) in vals {
        if negated(*ti) {
            continue;
        }
        out.push(analysis.candidate_at(sentence, *ti, v.to_string(), 0));
    }
}

/// Whether the description of a day field sets the day it names as a
/// condition ("ready if dropped off this Saturday").
fn day_is_a_condition(profile: &FieldProfile) -> bool {
    let description = format!(" {} ", profile.description_lower());
    [" if ", " when ", " once "]
        .iter()
        .any(|word| description.contains(word))
}
