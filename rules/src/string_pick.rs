//! Choosing one string value among the candidates of a call: the latest
//! reply wins, after its last correction cue; within it, the best-ranked,
//! earliest candidate.

use super::amendment::last_cue_with_followers;
use super::evidence::Analysis;
use super::profile::{FieldProfile, StringKind};
use super::string::StringCandidate;
use super::string_text::same_text;
use super::transcript::TurnIndex;

impl Analysis<'_, '_> {
    /// "Saturdays we're nine to five. Sundays we're closed, though." for
    /// the day the shop is closed: of several days (months, dates, times)
    /// in one reply, those said in a clause that names the field come
    /// first; never below them a short opening answer ("Tuesday works. I
    /// see your last appointment was on a Friday.").
    pub(super) fn prefer_clauses_naming_the_field(
        &self,
        profile: &FieldProfile,
        string_kind: &StringKind,
        candidates: &mut [StringCandidate],
    ) {
        if !matches!(
            string_kind,
            StringKind::Weekday | StringKind::Month | StringKind::Date | StringKind::Time { .. }
        ) {
            return;
        }
        let names_field: Vec<bool> = candidates
            .iter()
            .map(|c| {
                let sent = &self.transcript.sentences[c.sentence];
                sent.stems
                    .get(sent.clause_range(c.clause))
                    .unwrap_or(&[])
                    .iter()
                    .any(|st| profile.is_strong_keyword(st))
            })
            .collect();
        let opening_answer = |c: &StringCandidate| {
            let sent = &self.transcript.sentences[c.sentence];
            self.transcript.turns[c.turn].sentences.first() == Some(&c.sentence)
                && sent.word_lowers().count() <= 3
        };
        for at in 0..candidates.len() {
            let another_named = (0..candidates.len()).any(|other| {
                names_field[other]
                    && candidates[other].turn == candidates[at].turn
                    && !same_text(&candidates[other].text, &candidates[at].text)
            });
            if !names_field[at] && another_named && !opening_answer(&candidates[at]) {
                candidates[at].rank = candidates[at].rank.saturating_add(1);
            }
        }
    }
}

/// Within a reply, candidates after the last correction cue win; then the
/// best-ranked, earliest one. Across replies the last wins.
pub(super) fn pick_string(
    analysis: &Analysis,
    candidates: Vec<StringCandidate>,
) -> Option<StringCandidate> {
    let mut by_turn: Vec<(TurnIndex, Vec<StringCandidate>)> = Vec::new();
    for candidate in candidates {
        match by_turn.last_mut() {
            Some((turn, group)) if *turn == candidate.turn => group.push(candidate),
            _ => by_turn.push((candidate.turn, vec![candidate])),
        }
    }
    let (turn, group) = by_turn.pop()?;
    let cue = last_cue_with_followers(analysis, turn, group.iter().map(|c| c.clause).collect());
    let mut group: Vec<StringCandidate> = group
        .into_iter()
        .filter(|c| cue.is_none_or(|k| c.clause >= k))
        .collect();
    group.sort_by_key(|c| (c.rank, c.sentence, c.clause));
    group.into_iter().next()
}
