//! Dates and colours said in a sentence, as text values: "the 19th of
//! June", "the 4th" after a month, "antique white".

use super::evidence::Analysis;
use super::transcript::SentenceIndex;
use agentcall_english::units::Unit;
use agentcall_english::vocabulary;
use agentcall_english::vocabulary::COLORS;

impl Analysis<'_, '_> {
    /// Dates in a sentence ("May 3", "the 19th of June", "the 4th" after a month).
    pub(super) fn dates_in(&self, sentence: SentenceIndex) -> Vec<(usize, String)> {
        let sent = &self.transcript.sentences[sentence];
        let mut out = Vec::new();
        for m in &sent.numbers {
            if m.value < 1.0
                || m.value > 31.0
                || m.value.fract() != 0.0
                || m.unit != Unit::None && !matches!(m.unit, Unit::Count(_))
            {
                continue;
            }
            let before = m.start.checked_sub(1).and_then(|i| sent.tokens.get(i));
            let month_before = before.and_then(vocabulary::month);
            // "the 19th of October"
            let month_after = sent
                .tokens
                .get(m.end)
                .filter(|t| t.lower == "of")
                .and_then(|_| sent.tokens.get(m.end + 1))
                .and_then(vocabulary::month);
            let month = month_before.or(month_after).or_else(|| {
                (m.ordinal && before.is_some_and(|t| t.lower == "the"))
                    .then(|| self.month_before(sentence, m.start))
                    .flatten()
            });
            if let Some(mo) = month {
                out.push((m.start, format!("{mo} {}", m.value as u32)));
            }
        }
        out
    }

    /// Nearest month named before token `tok` of sentence `s`.
    fn month_before(&self, sentence: SentenceIndex, tok: usize) -> Option<&'static str> {
        let sent = &self.transcript.sentences[sentence];
        if let Some(m) = sent
            .tokens
            .get(..tok)
            .unwrap_or(&[])
            .iter()
            .rev()
            .find_map(vocabulary::month)
        {
            return Some(m);
        }
        self.transcript
            .sentences
            .get(..sentence.0)
            .unwrap_or(&[])
            .iter()
            .rev()
            .find_map(|x| x.tokens.iter().rev().find_map(vocabulary::month))
    }

    /// The colours said in `sentence`, at their token, with a shade or a
    /// paint's name said before them ("the antique white mat", "Accessible
    /// Beige").
    pub(super) fn colours_in(&self, sentence: SentenceIndex) -> Vec<(usize, String)> {
        let sent = &self.transcript.sentences[sentence];
        let lower_words = sent.indexed_word_lowers();
        // "the antique white mat", "Accessible Beige": a shade or a
        // paint's name said before the colour is part of it.
        let vals: Vec<(usize, String)> = lower_words
            .iter()
            .filter(|(_, w)| COLORS.contains(w))
            .map(|&(i, w)| {
                let shade = i.checked_sub(1).and_then(|before| {
                    let t = sent.tokens.get(before)?;
                    // A paint's name is written in capitals whole
                    // ("Accessible Beige", not "Farrow and Ball white").
                    let named = t.is_capitalized()
                        && sent.tokens[i].is_capitalized()
                        && sent.tokens[..before].iter().any(|t| t.is_word());
                    (t.is_word() && (SHADES.contains(&t.lower.as_str()) || named))
                        .then(|| (before, format!("{} {}", t.text, sent.tokens[i].text)))
                });
                shade.unwrap_or((i, w.to_owned()))
            })
            .collect();
        vals
    }
}

/// Words that name a shade of the colour after them ("antique white").
const SHADES: &[&str] = &[
    "antique",
    "pale",
    "light",
    "dark",
    "deep",
    "bright",
    "off",
    "soft",
    "warm",
    "cool",
    "dusty",
    "forest",
    "sky",
    "royal",
    "hunter",
    "navy",
    "sage",
    "pure",
    "brilliant",
    "baby",
    "powder",
];
