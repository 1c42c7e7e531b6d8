//! Rule-based offline extractor.
//!
//! Pipeline:
//! 1. Parse the transcript into turns, sentences and clauses (token level,
//!    never byte slicing of caller text).
//! 2. Profile each field: keywords from its name (split snake/camelCase) and
//!    description, stemmed, with a few synonyms, weighted down when several
//!    fields share a word; plus what kind of value it wants (money, weekday,
//!    person name, …).
//! 3. Find the turns that raise each field (its *topic* turns) and the
//!    replies that follow until the asking side moves on (the *region*),
//!    plus sentences that mention the field outright.
//! 4. Read a typed value from that evidence: later answers and explicit
//!    corrections ("actually", "X, not Y") win, dodges ("I'm not sure",
//!    "let me check") and vague answers give null.
//!
//! Everything is deterministic and allocation-light; a 30-line transcript
//! takes well under a millisecond.

use serde_json::{Map, Value};

use super::coerce::json_number;
use super::words::{
    self, COLORS, DurUnit, NumMention, TokKind, Token, Unit, classify_number_word,
    split_identifier, stem, stems_match,
};
use crate::domain::{FieldDefinition, FieldType};

/// A word list as a hash set, built once (the lists are scanned in hot loops).
macro_rules! set {
    ($list:expr) => {{
        static SET: std::sync::OnceLock<std::collections::HashSet<&'static str>> =
            std::sync::OnceLock::new();
        SET.get_or_init(|| $list.iter().copied().collect())
    }};
}

/// A phrase list split into words, built once.
macro_rules! phrases {
    ($list:expr) => {{
        static SPLIT: std::sync::OnceLock<Vec<Vec<&'static str>>> = std::sync::OnceLock::new();
        SPLIT
            .get_or_init(|| $list.iter().map(|p| p.split(' ').collect()).collect())
            .as_slice()
    }};
}

/// Minimum keyword score for a turn to raise a field.
const T_TOPIC: f64 = 1.5;
/// Minimum keyword score for a sentence to count as mentioning a field outright.
const T_DIRECT: f64 = 1.75;
/// A region never spans more turns than this.
const MAX_REGION_TURNS: usize = 8;

/// Offline, deterministic extractor: reads caller-defined fields out of a
/// speaker-labelled transcript with linguistic heuristics (no I/O, no model).
///
/// When the evidence is unclear it returns `null` for the field: a wrong
/// value is worse than none.
#[derive(Debug, Clone, Default)]
pub struct OfflineExtractor {
    _private: (),
}

impl OfflineExtractor {
    /// Creates an extractor with the default rules.
    pub fn new() -> Self {
        Self::default()
    }

    /// Extracts every field from `transcript` (lines `Agent: …` /
    /// `Recipient: …`, one turn per line). The result has one key per
    /// distinct field name, each a value of the declared type or `null`.
    /// Deterministic, no I/O.
    pub fn extract(
        &self,
        objective: &str,
        fields: &[FieldDefinition],
        transcript: &str,
    ) -> Map<String, Value> {
        let doc = Doc::parse(objective, transcript);
        let specs = build_specs(fields, &doc);
        let ctx = Ctx::new(&doc, &specs);
        let mut out = Map::new();
        let mut numbers: Vec<(usize, Option<f64>)> = Vec::new();
        for (fi, spec) in specs.iter().enumerate() {
            if out.contains_key(&spec.def.name) {
                continue;
            }
            let v = match &spec.kind {
                Kind::Bool => ctx.extract_bool(fi).map(Value::Bool),
                Kind::Num(ns) => {
                    let v = ctx.extract_number(fi, ns);
                    numbers.push((fi, v));
                    v.and_then(json_number)
                }
                Kind::Str(cat) => ctx.extract_string(fi, cat).map(Value::String),
            };
            out.insert(spec.def.name.clone(), v.unwrap_or(Value::Null));
        }
        // "Same as the rent": copy another number field's value.
        for (fi, v) in &numbers {
            if v.is_none()
                && let Some(copied) = ctx.same_as_reference(*fi, &numbers)
                && let Some(j) = json_number(copied)
            {
                out.insert(specs[*fi].def.name.clone(), j);
            }
        }
        out
    }
}

// ───────────────────────────── transcript model ─────────────────────────────

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Speaker {
    Agent,
    Recipient,
    Other,
}

#[derive(Debug)]
struct Sent {
    turn: usize,
    toks: Vec<Token>,
    /// Per token: stem for words, digits for numbers, empty otherwise.
    stems: Vec<String>,
    /// Per token: clause id, unique within the turn.
    clause: Vec<usize>,
    /// (clause id, its lower-case words joined by spaces).
    clause_texts: Vec<(usize, String)>,
    /// `stems` with words of subordinate clauses ("when it's ready", "if …")
    /// blanked: they mention a topic without asking about it.
    topic_stems: Vec<String>,
    question: bool,
    /// Starts with "if"/"unless": the whole sentence is hypothetical.
    conditional: bool,
    /// For "What flavors …?" / "How much is the deposit?": the stems of the
    /// noun the question asks for.
    focus: Vec<String>,
    nums: Vec<NumMention>,
}

impl Sent {
    fn word_lowers(&self) -> impl Iterator<Item = &str> {
        self.toks
            .iter()
            .filter(|t| t.is_word())
            .map(|t| t.lower.as_str())
    }

    fn clause_range(&self, c: usize) -> std::ops::Range<usize> {
        let start = self.clause.iter().position(|&x| x == c).unwrap_or(0);
        let end = self
            .clause
            .iter()
            .rposition(|&x| x == c)
            .map_or(start, |e| e + 1);
        start..end
    }

    fn clause_ids(&self) -> Vec<usize> {
        let mut ids: Vec<usize> = self.clause.clone();
        ids.dedup();
        ids
    }
}

#[derive(Debug)]
struct Turn {
    speaker: Speaker,
    sents: Vec<usize>,
    raw: String,
}

#[derive(Debug)]
struct Doc {
    turns: Vec<Turn>,
    sents: Vec<Sent>,
    objective_stems: Vec<String>,
    objective_lower: String,
}

/// Words that start a new clause.
#[rustfmt::skip]
const CLAUSE_WORDS: &[&str] = &[
    "but", "so", "because", "though", "although", "unless", "if", "cause", "except", "when", "once",
    "whenever", "until", "till",
];
/// Words that open a subordinate (conditional/temporal) clause.
const SUBORDINATORS: &[&str] = &["if", "unless", "when", "once", "whenever", "until", "till"];

fn speaker_of(label: &str) -> Option<Speaker> {
    let l = label.trim().to_lowercase();
    match l.as_str() {
        "agent" | "assistant" | "ai" | "bot" | "caller" | "ai agent" => Some(Speaker::Agent),
        "recipient" | "callee" | "customer" | "user" | "human" | "person" | "contact" => {
            Some(Speaker::Recipient)
        }
        _ if !l.is_empty() && l.chars().count() <= 24 && l.split_whitespace().count() <= 3 => {
            Some(Speaker::Other)
        }
        _ => None,
    }
}

impl Doc {
    fn parse(objective: &str, transcript: &str) -> Doc {
        let mut turns: Vec<Turn> = Vec::new();
        let mut sents: Vec<Sent> = Vec::new();
        for line in transcript.lines() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let (speaker, text) = match line.split_once(':') {
                Some((label, rest)) => match speaker_of(label) {
                    Some(sp) => (Some(sp), rest.trim()),
                    None => (None, line),
                },
                None => (None, line),
            };
            match (speaker, turns.last_mut()) {
                // An unlabelled line continues the previous turn.
                (None, Some(prev)) => {
                    prev.raw.push(' ');
                    prev.raw.push_str(text);
                }
                (sp, _) => turns.push(Turn {
                    speaker: sp.unwrap_or(Speaker::Other),
                    sents: Vec::new(),
                    raw: text.to_string(),
                }),
            }
        }
        for (ti, turn) in turns.iter_mut().enumerate() {
            let mut clause_id = 0;
            for toks in words::split_sentences(words::tokenize(&turn.raw)) {
                let stems: Vec<String> = toks
                    .iter()
                    .map(|t| match t.kind {
                        TokKind::Word => stem(&t.lower),
                        TokKind::Num => t.text.replace(',', ""),
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
                        TokKind::Punct(',' | ';' | ':' | '…' | '—' | '(' | ')' | '"')
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
                let nums = words::find_numbers(&toks);
                let first_word = toks.iter().position(Token::is_word);
                let mut topic_stems: Vec<String> = stems.clone();
                // Unit words after a number ("ninety minutes") are units, not topics.
                for m in &nums {
                    let after_number = (m.start..m.end)
                        .find(|&i| {
                            toks.get(i).is_some_and(|t| {
                                t.kind == TokKind::Num || classify_number_word(&t.lower).is_some()
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
                                && (DurUnit::parse(&t.lower).is_some()
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
                // Words inside a multi-word name ("Comfort Air Heating") are not topics.
                let capish = |t: &Token| {
                    t.is_word()
                        && t.is_capitalized()
                        && t.lower != "i"
                        && words::weekday(&t.lower).is_none()
                        && words::month(t).is_none()
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
                    .map(|c| (c, build_clause_text(&toks, &clause, c)))
                    .collect();
                let focus = if question {
                    question_focus(&toks)
                } else {
                    Vec::new()
                };
                turn.sents.push(sents.len());
                sents.push(Sent {
                    turn: ti,
                    toks,
                    stems,
                    clause_texts,
                    clause,
                    topic_stems,
                    question,
                    conditional,
                    focus,
                    nums,
                });
            }
        }
        let objective_stems = words::tokenize(objective)
            .iter()
            .filter(|t| t.is_word())
            .map(|t| stem(&t.lower))
            .collect();
        Doc {
            turns,
            sents,
            objective_stems,
            objective_lower: objective.to_lowercase(),
        }
    }
}

// ───────────────────────────── field profiles ─────────────────────────────

#[derive(Debug, Clone)]
struct Kw {
    stem: String,
    w: f64,
    /// Added as a synonym, not written in the field's name or description.
    syn: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FUnit {
    Money,
    Weight,
    Duration(DurUnit),
    Percent,
    Clock,
    Count,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RangePref {
    Upper,
    Lower,
    Neither,
}

#[derive(Debug, Clone)]
struct NumSpec {
    unit: FUnit,
    per: Option<&'static str>,
    range: RangePref,
    hour24: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NamePart {
    First,
    Last,
    Full,
}

#[derive(Debug, Clone, PartialEq)]
enum StrCat {
    Options(Vec<String>),
    Weekday,
    Month,
    Date,
    Color,
    Time,
    Address,
    Code,
    Quote,
    /// `common`: a named thing that may be a common noun ("Name of the
    /// treatment" → "deep conditioning").
    Name {
        person: bool,
        part: NamePart,
        common: bool,
    },
    Generic,
}

#[derive(Debug, Clone)]
enum Kind {
    Bool,
    Num(NumSpec),
    Str(StrCat),
}

#[derive(Debug)]
struct Spec<'a> {
    def: &'a FieldDefinition,
    kw: Vec<Kw>,
    /// Numeric tokens of the name ("october_12_available" → "12"): a turn
    /// must mention them to be about this field.
    required: Vec<String>,
    /// Stems of the head nouns of the name (for "X filling" patterns).
    heads: Vec<String>,
    kind: Kind,
}

impl Spec<'_> {
    fn is_keyword(&self, st: &str) -> bool {
        !st.is_empty() && self.kw.iter().any(|k| stems_match(&k.stem, st))
    }

    /// A word written in the field's name or description (not a synonym).
    fn is_own_word(&self, st: &str) -> bool {
        !st.is_empty() && self.kw.iter().any(|k| !k.syn && stems_match(&k.stem, st))
    }

    /// A keyword that identifies this field rather than its surroundings.
    fn is_strong_keyword(&self, st: &str) -> bool {
        !st.is_empty()
            && self
                .kw
                .iter()
                .any(|k| k.w >= 1.0 && stems_match(&k.stem, st))
    }
}

#[rustfmt::skip]
const STOPWORDS: &[&str] = &[
    "a", "an", "the", "of", "to", "in", "on", "at", "for", "by", "with", "from", "and", "or", "but", "is",
    "are", "was", "were", "be", "been", "being", "it", "its", "this", "that", "these", "those", "there",
    "here", "as", "if", "whether", "which", "what", "who", "whom", "whose", "when", "where", "why", "how",
    "do", "does", "did", "have", "has", "had", "will", "would", "can", "could", "should", "shall", "may",
    "might", "must", "not", "no", "yes", "i", "me", "my", "we", "us", "our", "you", "your", "he", "him",
    "his", "she", "her", "they", "them", "their", "any", "some", "all", "each", "every", "so", "than",
    "then", "too", "very", "just", "also", "about", "up", "out", "into", "more", "most", "such", "only",
    "get", "got", "i'm", "it's", "that's", "there's", "we're", "you're", "they're", "i'll", "we'll",
    "you'll", "i'd", "we'd", "i've", "we've", "okay", "ok", "oh", "um", "uh", "well", "like", "hi", "hello",
    "thanks", "thank", "please", "yeah", "yep", "call", "calling", "called", "caller", "assistant",
    "automated", "ai", "agent", "behalf", "let", "know", "go", "going", "per", "dollar", "dollars", "usd",
    "cents", "eg", "ie", "etc", "given", "via", "many", "much", "e", "g", "s", "one", "being", "whose",
    "someone", "something", "anything", "is", "am", "isn't", "don't", "doesn't", "lowercase", "uppercase",
    "digits", "digit", "form", "format", "value",
];

/// Name words that say little about the topic.
#[rustfmt::skip]
const GENERIC_NAME_WORDS: &[&str] = &[
    "name", "number", "amount", "value", "type", "choice", "new", "current", "is", "has", "main", "kind",
];

/// Common verbs in names: they say something, but less than a noun.
#[rustfmt::skip]
const LIGHT_NAME_WORDS: &[&str] = &[
    "need", "needs", "want", "wants", "get", "gets", "keep", "keeping", "use", "add", "adds", "take", "make",
    "give",
];

#[rustfmt::skip]
const WEEKDAY_WORDS: &[&str] = &[
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
];

/// Synonym groups (surface words; stemmed at use).
#[rustfmt::skip]
const SYNONYMS: &[&[&str]] = &[
    &["price", "cost", "charge", "fee", "rate", "quote"],
    &["available", "open", "opening", "availability", "free"],
    &["allowed", "permitted", "accepted", "allow"],
    &["person", "guest", "head", "people"],
    &["alternative", "another", "other", "else", "different"],
    &["bag", "suitcase", "luggage"],
    &["recommend", "suggest"],
    &["home", "house"],
    &["ready", "done", "finished"],
    &["cancel", "cancellation", "terminate", "termination"],
    &["weight", "weigh", "heavy"],
    &["pet", "pets", "dog", "dogs", "cat", "animal"],
    &["neutered", "fixed", "spayed"],
    &["attend", "attending", "come", "coming", "join"],
    &["chaperone", "volunteer", "join"],
    &["start", "begin", "starting"],
    &["included", "include", "covered", "cover"],
    &["spot", "space", "opening", "room"],
    &["servers", "serve", "serving", "staff"],
    &["size", "big", "large"],
    &["duration", "long", "length"],
    &["location", "where"],
    &["delivered", "delivery", "arrive"],
    &["removed", "out"],
    &["confirmed", "confirm"],
    &["refill", "refills", "prescription"],
    &["total", "owe", "owed"],
    &["headcount", "guests", "people"],
    &["message", "writing", "written", "write", "wording", "inscription", "say", "says"],
    &["instructor", "teacher", "teach", "teaches", "tutor", "coach"],
    &["fixed", "resolved", "repaired", "working", "solved"],
    &["improve", "improvement", "better"],
];

/// [`SYNONYMS`], stemmed once.
fn stemmed_synonyms() -> &'static [Vec<String>] {
    static CELL: std::sync::OnceLock<Vec<Vec<String>>> = std::sync::OnceLock::new();
    CELL.get_or_init(|| {
        SYNONYMS
            .iter()
            .map(|g| g.iter().map(|w| stem(w)).collect())
            .collect()
    })
}

fn build_specs<'a>(fields: &'a [FieldDefinition], doc: &Doc) -> Vec<Spec<'a>> {
    let mut specs: Vec<Spec<'a>> = fields.iter().map(|f| build_spec(f, doc)).collect();
    // A word other fields also use tells them apart less: damp it by how
    // strongly the others use it.
    let raw: Vec<Vec<Kw>> = specs.iter().map(|s| s.kw.clone()).collect();
    for (i, s) in specs.iter_mut().enumerate() {
        for k in &mut s.kw {
            let others: f64 = raw
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .filter_map(|(_, kws)| {
                    kws.iter()
                        .filter(|o| stems_match(&o.stem, &k.stem))
                        .map(|o| o.w)
                        .reduce(f64::max)
                })
                .sum();
            k.w /= 1.0 + 0.25 * others;
        }
    }
    specs
}

fn push_kw(kw: &mut Vec<Kw>, st: String, w: f64) {
    if st.is_empty() {
        return;
    }
    if let Some(k) = kw.iter_mut().find(|k| k.stem == st) {
        k.w = k.w.max(w);
    } else {
        kw.push(Kw {
            stem: st,
            w,
            syn: false,
        });
    }
}

/// Removes "(e.g. …)" / "(for example …)" asides, which describe format,
/// not topic.
fn strip_examples(desc: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    let mut buf = String::new();
    for c in desc.chars() {
        match c {
            '(' => {
                depth += 1;
                if depth == 1 {
                    buf.clear();
                    continue;
                }
            }
            ')' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    let l = buf.to_lowercase();
                    let example = l.starts_with("e.g")
                        || l.starts_with("eg ")
                        || l.contains("for example")
                        || l.starts_with("such as");
                    if !example {
                        out.push(' ');
                        out.push_str(&buf);
                        out.push(' ');
                    }
                    continue;
                }
            }
            _ => {}
        }
        if depth > 0 {
            buf.push(c);
        } else {
            out.push(c);
        }
    }
    out
}

fn build_spec<'a>(def: &'a FieldDefinition, doc: &Doc) -> Spec<'a> {
    let name_words = split_identifier(&def.name);
    let desc = def.description.clone().unwrap_or_default();
    let desc_lower = desc.to_lowercase();
    let desc_clean = strip_examples(&desc);
    let mut kw: Vec<Kw> = Vec::new();
    let mut required = Vec::new();
    let standalone_digits: Vec<String> = def
        .name
        .split(|c: char| !c.is_alphanumeric())
        .filter(|seg| !seg.is_empty() && seg.chars().all(|c| c.is_ascii_digit()))
        .map(str::to_string)
        .collect();
    for w in &name_words {
        if w.chars().all(|c| c.is_ascii_digit()) {
            // "october_12_available": the 12 names the thing asked about; a
            // digit glued to a word ("last4") only describes the format.
            if standalone_digits.contains(w) {
                required.push(w.trim_start_matches('0').to_string());
                push_kw(&mut kw, w.clone(), 2.0);
            } else {
                push_kw(&mut kw, w.clone(), 0.5);
            }
            continue;
        }
        if set!(STOPWORDS).contains(w.as_str()) {
            continue;
        }
        let weight = if GENERIC_NAME_WORDS.contains(&w.as_str()) {
            0.5
        } else if LIGHT_NAME_WORDS.contains(&w.as_str()) {
            1.0
        } else {
            2.0
        };
        push_kw(&mut kw, stem(w), weight);
    }
    let desc_toks = words::tokenize(&desc_clean);
    for t in desc_toks.iter().filter(|t| t.is_word()) {
        if set!(STOPWORDS).contains(t.lower.as_str()) || t.lower.chars().count() < 2 {
            continue;
        }
        let st = stem(&t.lower);
        // Description words the objective already uses are call context, not topic.
        let in_objective = doc.objective_stems.iter().any(|o| stems_match(o, &st));
        let weight = if in_objective { 0.5 } else { 1.0 };
        push_kw(&mut kw, st, weight);
    }
    // Synonyms at half weight.
    let base: Vec<Kw> = kw.clone();
    for k in &base {
        for stems in stemmed_synonyms() {
            if stems.iter().any(|s| s == &k.stem) {
                for s in stems.iter().cloned() {
                    if !kw.iter().any(|x| x.stem == s) {
                        kw.push(Kw {
                            stem: s,
                            w: k.w * 0.5,
                            syn: true,
                        });
                    }
                }
            }
        }
    }
    let text = format!("{} {}", name_words.join(" "), desc_lower);
    let kind = match def.field_type {
        FieldType::Boolean => Kind::Bool,
        FieldType::Number => Kind::Num(num_spec(&name_words, &desc_lower, &text)),
        FieldType::String => Kind::Str(str_category(&name_words, &desc, &text)),
    };
    // Question words that ask for this kind of value.
    // A yes/no field tied to a time ("this week", "today", "on Friday") is
    // what a "when" question asks about.
    let timed = [
        "week",
        "today",
        "tomorrow",
        "tonight",
        "weekend",
        "month",
        "morning",
        "afternoon",
        "evening",
        "time",
    ]
    .iter()
    .any(|w| has_word(&text, w))
        || WEEKDAY_WORDS.iter().any(|w| has_word(&text, w));
    if matches!(kind, Kind::Bool) && timed {
        push_kw(&mut kw, stem("when"), 1.0);
    }
    if matches!(kind, Kind::Str(StrCat::Name { person: true, .. })) {
        push_kw(&mut kw, stem("who"), 1.5);
    }
    let extra: &[&str] = match &kind {
        Kind::Str(StrCat::Weekday | StrCat::Month | StrCat::Date | StrCat::Time) => &["when"],
        Kind::Num(NumSpec {
            unit: FUnit::Clock, ..
        }) => &["time", "when"],
        _ => &[],
    };
    for e in extra {
        push_kw(&mut kw, stem(e), 1.0);
    }
    // "How much …?" asks for an amount, "How many …?" for a count.
    match &kind {
        Kind::Num(NumSpec {
            unit: FUnit::Money, ..
        }) => push_kw(&mut kw, stem("much"), 1.5),
        Kind::Num(NumSpec {
            unit: FUnit::Count,
            per,
            ..
        }) => {
            push_kw(&mut kw, stem("many"), 1.5);
            // "How often …?" asks for a count per day/week.
            if per.is_some() {
                push_kw(&mut kw, stem("often"), 1.5);
            }
        }
        Kind::Num(NumSpec {
            unit: FUnit::Duration(_),
            ..
        }) => {
            push_kw(&mut kw, stem("long"), 1.5);
            push_kw(&mut kw, stem("when"), 1.0);
        }
        _ => {}
    }
    let heads = name_words
        .iter()
        .filter(|w| {
            !GENERIC_NAME_WORDS.contains(&w.as_str()) && !set!(STOPWORDS).contains(w.as_str())
        })
        .filter(|w| !w.chars().all(|c| c.is_ascii_digit()))
        .map(|w| stem(w))
        .collect();
    Spec {
        def,
        kw,
        required,
        heads,
        kind,
    }
}

fn has_word(text: &str, w: &str) -> bool {
    text_words(text).any(|x| x == w)
}

fn text_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric() && c != '$' && c != '%')
        .filter(|x| !x.is_empty())
}

fn num_spec(name_words: &[String], desc_lower: &str, text: &str) -> NumSpec {
    let tw: Vec<&str> = text_words(text).collect();
    let any = |ws: &[&str]| ws.iter().any(|w| tw.contains(w));
    let money_explicit = any(&[
        "dollar", "dollars", "usd", "$", "cents", "euro", "euros", "eur", "gbp", "sterling",
    ]);
    let unit = if money_explicit {
        FUnit::Money
    } else if any(&[
        "pound",
        "pounds",
        "lbs",
        "lb",
        "kg",
        "kilograms",
        "kilos",
        "weight",
        "weigh",
    ]) {
        FUnit::Weight
    } else if any(&["percent", "percentage", "%", "apr"]) {
        FUnit::Percent
    } else if desc_lower.contains("24-hour")
        || desc_lower.contains("24 hour")
        || desc_lower.contains("clock")
        || desc_lower.contains("hour of")
        || desc_lower.contains("time of day")
        || (has_word(text, "hour") && any(&["start", "begin", "arrival", "pickup"]))
    {
        FUnit::Clock
    } else if let Some(d) = duration_in(text) {
        FUnit::Duration(d)
    } else if any(&[
        "price",
        "cost",
        "fee",
        "rent",
        "copay",
        "deposit",
        "tuition",
        "budget",
        "charge",
        "salary",
        "wage",
        "bid",
        "quote",
        "allowance",
        "reimbursement",
        "payment",
        "owed",
        "fare",
        "tip",
        "rate",
        "bill",
    ]) {
        FUnit::Money
    } else {
        FUnit::Count
    };
    let mut per = None;
    for w in name_words {
        per = per.or(match w.as_str() {
            "hourly" => Some("hour"),
            "daily" => Some("day"),
            "weekly" => Some("week"),
            "monthly" => Some("month"),
            "nightly" => Some("night"),
            "yearly" | "annual" | "annually" => Some("year"),
            _ => None,
        });
    }
    let toks: Vec<&str> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    for pair in toks.windows(2) {
        if let [a, b] = pair
            && matches!(*a, "per" | "each" | "every")
        {
            per = per.or_else(|| per_canonical(&stem(b)));
        }
    }
    if !matches!(unit, FUnit::Money | FUnit::Count) {
        per = None;
    }
    let range = if any(&["upper", "maximum", "max", "highest", "most"]) {
        RangePref::Upper
    } else if any(&["lower", "minimum", "min", "lowest", "least"]) {
        RangePref::Lower
    } else {
        RangePref::Neither
    };
    let hour24 = desc_lower.contains("24");
    NumSpec {
        unit,
        per,
        range,
        hour24,
    }
}

fn duration_in(text: &str) -> Option<DurUnit> {
    // "day of the week" names a weekday, not a duration.
    let cleaned = text.replace("day of the week", "");
    let ws: Vec<&str> = cleaned
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    // "doses per day" is a rate: the day is not the quantity's unit.
    ws.iter().enumerate().find_map(|(i, w)| {
        let rate = i > 0
            && matches!(
                ws.get(i - 1),
                Some(&("per" | "a" | "an" | "each" | "every"))
            );
        if rate { None } else { DurUnit::parse(w) }
    })
}

/// Canonical rate noun, so "a head" meets "per guest".
fn per_canonical(st: &str) -> Option<&'static str> {
    Some(match st {
        "person" | "guest" | "head" | "each" | "peopl" | "attende" | "individu" => "person",
        "visit" | "session" | "cut" | "lesson" | "class" | "appointment" | "appoint" | "mow"
        | "servic" => "visit",
        "hour" | "hr" => "hour",
        "day" => "day",
        "night" => "night",
        "week" => "week",
        "month" => "month",
        "year" | "annum" => "year",
        "stay" => "stay",
        "item" | "piec" | "unit" => "item",
        _ => return None,
    })
}

/// Things whose value is a proper name ("Name of the venue", "brand").
#[rustfmt::skip]
const NAMED_THINGS: &[&str] = &[
    "park", "venue", "shop", "store", "company", "brand", "provider", "business", "restaurant", "hotel",
    "city", "town", "street", "school", "clinic", "hospital", "bank", "insurance", "insurer", "airline",
    "carrier", "hall", "competitor", "competing", "team", "firm", "agency", "pharmacy", "building", "center",
    "centre", "neighborhood", "country", "state", "vendor", "make", "manufacturer", "club", "gym", "church",
    "airport",
];
/// Things (not people) that a name field may also be about.
#[rustfmt::skip]
const ORG_WORDS: &[&str] = &[
    "park", "venue", "shop", "store", "company", "brand", "provider", "business", "restaurant", "hotel",
    "city", "town", "street", "school", "clinic", "hospital", "bank", "insurance", "insurer", "airline",
    "carrier", "hall", "location", "competitor", "competing", "product", "model", "treatment", "service",
    "plan", "dish", "song", "book", "movie", "team", "firm", "agency", "pharmacy", "place", "building",
    "center", "centre", "neighborhood", "country", "state", "vendor", "make", "manufacturer", "club", "gym",
    "church", "airport",
];
#[rustfmt::skip]
const PERSON_WORDS: &[&str] = &[
    "staff", "member", "person", "who", "contact", "representative", "rep", "host", "nurse", "doctor", "vet",
    "owner", "employee", "worker", "agent", "receptionist", "coordinator", "manager", "technician", "tech",
    "surname", "firstname", "lastname", "pharmacist", "therapist", "stylist", "dentist", "physician",
    "driver", "teacher", "tutor", "instructor", "adjuster", "director", "tuner", "landlord", "seller",
    "buyer", "guest", "caller", "speaker", "spouse", "wife", "husband", "son", "daughter", "mom", "dad",
    "mother", "father",
];

fn str_category(name_words: &[String], desc: &str, text: &str) -> StrCat {
    if let Some(opts) = parse_options(desc) {
        return StrCat::Options(opts);
    }
    let tw: Vec<&str> = text_words(text).collect();
    let any = |ws: &[&str]| ws.iter().any(|w| tw.contains(w));
    let phrase = |p: &str| text.contains(p);
    if phrase("day of the week")
        || any(&["weekday"])
        || (name_words.iter().any(|w| w == "day") && !any(&["date"]))
    {
        return StrCat::Weekday;
    }
    if any(&["date"]) || phrase("month and day") {
        return StrCat::Date;
    }
    if any(&["month"]) {
        return StrCat::Month;
    }
    if any(&["color", "colour"]) {
        return StrCat::Color;
    }
    if name_words.iter().any(|w| w == "time") || text.trim_start().starts_with("time ") {
        return StrCat::Time;
    }
    if any(&["address", "street"]) {
        return StrCat::Address;
    }
    if any(&[
        "code",
        "pin",
        "zip",
        "postcode",
        "digits",
        "ticket",
        "confirmation",
        "reference",
        "tracking",
        "account",
    ]) || (name_words.iter().any(|w| w == "number") && !phrase("number of"))
    {
        return StrCat::Code;
    }
    if any(&[
        "message",
        "wording",
        "inscription",
        "written",
        "writing",
        "text",
        "says",
        "say",
    ]) {
        return StrCat::Quote;
    }
    let org = any(ORG_WORDS);
    // The named thing must be what the field is about: in its name or at the
    // head of the description ("City where …", "Water heater brand …"), not
    // context ("… suggests the company improve").
    let desc_head: Vec<String> = text_words(desc).take(4).map(str::to_lowercase).collect();
    let heads_thing = name_words
        .iter()
        .chain(desc_head.iter())
        .any(|w| set!(NAMED_THINGS).contains(w.as_str()));
    let named_thing = heads_thing && !person_markers_only(name_words, text);
    let part = if phrase("first name") || phrase("given name") {
        NamePart::First
    } else if phrase("last name") || phrase("surname") || phrase("family name") {
        NamePart::Last
    } else {
        NamePart::Full
    };
    let role_noun = name_words.iter().any(|w| {
        w.len() > 4
            && (w.ends_with("er") || w.ends_with("or") || w.ends_with("ist") || w.ends_with("ian"))
    });
    // The field's own name decides first ("repair_shop" is a thing even if
    // the description mentions a person); the description may only say
    // "person" when it does not name a thing.
    let name_is_thing = name_words
        .iter()
        .any(|w| set!(ORG_WORDS).contains(w.as_str()));
    let person_markers =
        part != NamePart::Full || phrase("full name") || any(PERSON_WORDS) || role_noun;
    // A thing named in the description ("dental insurance") wins over a
    // vague person word unless a role or name part says otherwise.
    let vague = org && !any(PERSON_WORDS) && !role_noun && part == NamePart::Full;
    let person = !name_is_thing && person_markers && !vague;
    if named_thing || any(&["name", "called", "who"]) {
        return StrCat::Name {
            person,
            part,
            common: !person && !named_thing,
        };
    }
    StrCat::Generic
}

/// True when the description names a thing only as the place a person
/// works ("the pharmacy staff member"): the field is still about the person.
fn person_markers_only(name_words: &[String], text: &str) -> bool {
    let name_is_thing = name_words
        .iter()
        .any(|w| NAMED_THINGS.contains(&w.as_str()));
    !name_is_thing && PERSON_WORDS.iter().any(|w| has_word(text, w))
}

/// Options listed in a description: "Tom's entrée: chicken, salmon, or
/// mushroom risotto", "(morning or afternoon)".
fn parse_options(desc: &str) -> Option<Vec<String>> {
    let mut segments: Vec<String> = Vec::new();
    if let Some((_, after)) = desc.split_once(':') {
        segments.push(after.to_string());
    }
    let mut rest = desc;
    while let Some(open) = rest.find('(') {
        let after = &rest[open + 1..];
        let Some(close) = after.find(')') else { break };
        segments.push(after[..close].to_string());
        rest = &after[close + 1..];
    }
    for seg in segments {
        let l = seg.to_lowercase();
        if l.contains("e.g") || l.contains("for example") || !l.contains(" or ") {
            continue;
        }
        let l = l.trim().trim_end_matches(['.', ')']).to_string();
        let opts: Vec<String> = l
            .split(&[',', ';'][..])
            .flat_map(|p| p.split(" or "))
            .map(|p| {
                let p = p.trim();
                let p = p.strip_prefix("or ").unwrap_or(p);
                let p = p.strip_prefix("either ").unwrap_or(p);
                let p = p.strip_prefix("the ").unwrap_or(p);
                let p = p.strip_prefix("a ").unwrap_or(p);
                p.trim().to_string()
            })
            .filter(|p| !p.is_empty())
            .collect();
        let short = opts.iter().all(|o| o.split_whitespace().count() <= 4);
        if opts.len() >= 2 && short {
            return Some(opts);
        }
    }
    None
}

// ───────────────────────────── lexicons ─────────────────────────────

#[rustfmt::skip]
const FILLERS: &[&str] = &[
    "um", "umm", "uh", "uhh", "hmm", "hm", "mm", "mmm", "er", "erm", "ah", "aw", "oh", "ooh", "well", "so",
    "like", "gosh", "man", "shoot", "ugh", "wow", "hey", "huh", "honestly", "actually", "really", "just",
    "anyway", "anyways", "look", "listen", "sorry", "thanks", "thank", "please", "ha", "heh", "jeez", "geez",
    "boy", "and", "also", "then", "now", "okay", "ok", "alright", "right", "yeah", "yes", "great", "perfect",
    "got", "it", "good", "wait", "i", "mean", "hi", "hello", "see", "let's", "realistically", "basically",
];

#[rustfmt::skip]
const DODGES: &[&str] = &[
    "not sure", "no idea", "no clue", "don't know", "do not know", "dunno", "not certain", "can't say",
    "cannot say", "couldn't say", "can't tell", "cannot tell", "couldn't tell", "hard to say",
    "have to check", "need to check", "let me check", "let me look", "let me see", "let me find",
    "let me pull", "have to ask", "need to ask", "i'd have to", "i would have to", "have to think",
    "need to think", "think about", "get back to you", "circle back", "call you back", "let you know",
    "depends", "either way", "maybe", "might", "possibly", "perhaps", "could be", "not decided",
    "haven't decided", "undecided", "still deciding", "hold on", "one sec", "one moment", "hang on",
    "one second", "bear with me", "can't help", "blanking", "can't remember", "don't remember", "forgot",
    "can't recall", "don't recall", "can't think", "on the spot", "i'll email", "we'll see", "probably",
    "i think so", "i guess so", "i believe so", "not at liberty", "check with", "ask the", "find out",
    "no way to know", "can't confirm", "cannot confirm", "unclear", "don't have", "no information",
    "not in the system", "don't see", "up to the", "still arguing", "still working", "haven't heard",
    "not yet decided", "we'll find", "i'll find", "i'll ask", "can't promise", "cannot promise",
    "no promises", "can't guarantee", "cannot guarantee", "not promising",
];

/// Dodges that put the other side on hold; an answer usually follows.
#[rustfmt::skip]
const HOLDS: &[&str] = &[
    "let me check", "let me look", "let me see", "let me find", "let me pull", "hold on", "one sec",
    "one moment", "hang on", "one second", "bear with me",
];

#[rustfmt::skip]
const STRONG_YES: &[&str] = &[
    "yes", "yeah", "yep", "yup", "ya", "yea", "yah", "absolutely", "definitely", "certainly", "of course",
    "correct", "exactly", "indeed", "affirmative", "that's right", "you bet", "count me in", "sounds good",
    "will do", "i'll be there", "we'll be there", "why not", "for sure", "by all means", "that works",
    "works for me", "uh-huh", "uh huh", "mm-hmm", "please do", "go ahead", "no problem", "i'd love",
    "we'd love", "happy to", "glad to", "sure thing", "sure", "totally", "you got it", "that'd be great",
    "of course", "we do", "we can", "i can", "i do", "i will", "we will", "it is", "they are", "it does",
    "we are", "i am", "she can", "he can", "she will", "he will", "they can", "we have", "it has",
];

#[rustfmt::skip]
const STRONG_NO: &[&str] = &[
    "no", "nope", "nah", "not really", "no way", "not at all", "negative", "afraid not", "i'm afraid",
    "i don't think so", "unfortunately", "won't work", "doesn't work", "not going to work", "can't make it",
    "wish i could", "not right now", "not today", "not yet", "no longer", "not anymore", "say no", "never",
    "don't think so", "not this", "we don't", "we can't", "i can't", "i don't", "it doesn't", "it isn't",
    "we aren't", "they aren't", "she can't", "he can't", "she won't", "he won't", "i won't", "we won't",
    "won't be", "not available", "no can do", "can't do", "it's not", "it is not", "that's not",
    "they're not", "we're not", "not included",
];

/// Pronoun + negated auxiliary: a strong "no" only as the whole reply
/// ("We don't."), not inside a longer clause ("he can't step on the field
/// without a physical").
#[rustfmt::skip]
const SHORT_NEGATIVE_ECHOES: &[&str] = &[
    "we don't", "we can't", "i can't", "i don't", "it doesn't", "it isn't", "we aren't", "they aren't",
    "she can't", "he can't", "she won't", "he won't", "i won't", "we won't", "it's not", "that's not",
    "they're not", "we're not",
];

#[rustfmt::skip]
const NEGATIONS: &[&str] = &[
    "not", "never", "none", "nothing", "nobody", "without", "cannot", "no", "neither", "nor",
];

#[rustfmt::skip]
const NEG_STATE: &[&str] = &[
    "booked", "full", "gone", "closed", "taken", "unavailable", "sold", "slammed", "swamped", "busy", "hard",
    "tough", "separate", "separately", "extra", "additional", "rejected", "denied", "declined", "cancelled",
    "canceled", "missing", "lost", "broken", "impossible", "difficult", "bad", "problem", "late", "delayed",
    "behind", "overdue", "expired",
];

#[rustfmt::skip]
const DETERMINERS: &[&str] = &[
    "a", "an", "the", "some", "any", "this", "that", "these", "those", "my", "your", "our", "their", "his",
    "her",
];

/// Nouns naming a charge: an amount qualifying one of them is that charge.
#[rustfmt::skip]
const CHARGE_NOUNS: &[&str] = &[
    "fee", "deposit", "charge", "cost", "price", "rent", "tip", "tax", "copay", "fine", "discount", "refund",
    "surcharge", "rate", "minimum", "gratuity", "penalty", "premium", "deductible",
];

/// Negative states that count only as predicates.
const PREDICATIVE_NEG: &[&str] = &[
    "full",
    "busy",
    "hard",
    "tough",
    "bad",
    "difficult",
    "swamped",
    "slammed",
];

const ACCEPT_WORDS: &[&str] = &[
    "okay", "ok", "alright", "fine", "right", "good", "great", "perfect", "sounds",
];

#[rustfmt::skip]
const CUES: &[&str] = &[
    "actually", "wait", "sorry", "i mean", "make that", "rather", "correction", "scratch that",
    "second thought", "instead", "realistically", "call it", "so", "but", "now", "changed", "hang on",
    "let's say", "no", "final", "finally", "i'd say", "put me down",
];

/// Words after a number noun that make it a rate ("a head").
/// `hay` and `needle` are space-joined lower-case words; match whole words.
fn phrase_in(hay: &str, needle: &str) -> bool {
    let words: Vec<&str> = hay.split(' ').collect();
    phrase_words_in(&words, needle)
}

/// Lower-case words and numbers of clause `c`, space-joined (cached at parse).
fn clause_text(s: &Sent, c: usize) -> &str {
    s.clause_texts
        .iter()
        .find(|(id, _)| *id == c)
        .map_or("", |(_, t)| t.as_str())
}

fn build_clause_text(toks: &[Token], clause: &[usize], c: usize) -> String {
    toks.iter()
        .zip(clause)
        .filter(|(t, id)| **id == c && (t.is_word() || t.kind == TokKind::Num))
        .map(|(t, _)| t.lower.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

fn has_any_phrase(text: &str, list: &[&str]) -> bool {
    let words: Vec<&str> = text.split(' ').collect();
    list.iter().any(|p| phrase_words_in(&words, p))
}

/// [`has_any_phrase`] for a pre-split list (see `phrases!`).
fn has_split_phrase(text: &str, list: &[Vec<&str>]) -> bool {
    let words: Vec<&str> = text.split(' ').collect();
    list.iter()
        .any(|p| !p.is_empty() && words.windows(p.len()).any(|w| w == p.as_slice()))
}

/// Whether the words of phrase `p` occur consecutively in `words`.
fn phrase_words_in(words: &[&str], p: &str) -> bool {
    let Some(first) = p.split(' ').next() else {
        return false;
    };
    let n = p.split(' ').count();
    words.len() >= n
        && words
            .windows(n)
            .any(|w| w.first() == Some(&first) && w.iter().zip(p.split(' ')).all(|(a, b)| *a == b))
}

/// Negation or a refusal ("not", "won't work", "we're out"), without the
/// softer negative states ("extra", "booked").
fn is_refusal_text(text: &str) -> bool {
    let ws: Vec<&str> = text.split(' ').collect();
    let out_of_stock =
        ws.windows(2).any(|p| {
            p[1] == "out"
                && (p[0].ends_with("'s")
                    || p[0].ends_with("'re")
                    || matches!(p[0], "is" | "are" | "all" | "sold"))
        }) && !has_any_phrase(text, &["out front", "out back", "out there", "out here"]);
    ws.iter()
        .any(|w| set!(NEGATIONS).contains(w) || w.ends_with("n't"))
        || out_of_stock
        || has_any_phrase(text, &["won't work"])
}

fn is_negated_text(text: &str) -> bool {
    let ws: Vec<&str> = text.split(' ').collect();
    // "our supplier's out", "we're out of it": out of stock.
    let out_of_stock =
        ws.windows(2).any(|p| {
            p[1] == "out"
                && (p[0].ends_with("'s")
                    || p[0].ends_with("'re")
                    || matches!(p[0], "is" | "are" | "all" | "sold"))
        }) && !has_any_phrase(text, &["out front", "out back", "out there", "out here"]);
    // "full", "busy", "hard" are negative only as predicates ("we're full",
    // "mornings are hard"), not as modifiers ("after a full clean").
    let predicate = |i: usize| {
        i.checked_sub(1).and_then(|j| ws.get(j)).is_some_and(|p| {
            p.ends_with("'re")
                || p.ends_with("'s")
                || matches!(
                    *p,
                    "is" | "are"
                        | "was"
                        | "were"
                        | "be"
                        | "been"
                        | "pretty"
                        | "too"
                        | "so"
                        | "very"
                        | "completely"
                        | "totally"
                        | "fully"
                        | "all"
                        | "really"
                        | "quite"
                        | "kinda"
                        | "bit"
                )
        }) || i + 1 == ws.len()
    };
    let neg_state = ws.iter().enumerate().any(|(i, w)| {
        set!(NEG_STATE).contains(w) && (!set!(PREDICATIVE_NEG).contains(w) || predicate(i))
    });
    ws.iter()
        .any(|w| set!(NEGATIONS).contains(w) || w.ends_with("n't"))
        || neg_state
        || out_of_stock
        || has_any_phrase(text, &["won't work", "doesn't work", "no good", "not good"])
}

// ───────────────────────────── context & evidence ─────────────────────────────

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Role {
    /// A reply by the answering side of a region.
    Answer,
    /// A statement by the asking side inside its own region.
    Asker,
    /// A sentence that mentions the field outright.
    Direct,
    /// The asking side's first words after the answer ("Wednesday it is.").
    Echo,
    /// The question that raised the field (used only when answered "yes").
    Question,
}

#[derive(Debug, Clone, Copy)]
struct Ev {
    sent: usize,
    role: Role,
    /// Opening turn of the region (for `Question`/`Answer`), else the sentence's turn.
    region: usize,
}

struct Region {
    turns: Vec<usize>,
    /// First asking-side turn after the region (its leading sentences are echoes).
    closer: Option<usize>,
}

struct Ctx<'d, 's> {
    doc: &'d Doc,
    specs: &'s [Spec<'s>],
    /// kw relevance per (field, sentence).
    rel: Vec<Vec<f64>>,
    /// Topic score per (field, turn).
    topic: Vec<Vec<f64>>,
    /// Regions opened by each turn.
    regions: Vec<Option<Region>>,
    /// `topics(t, 0.6)` for every turn.
    raised: Vec<Vec<usize>>,
}

impl<'d, 's> Ctx<'d, 's> {
    fn new(doc: &'d Doc, specs: &'s [Spec<'s>]) -> Self {
        // Which keywords each sentence mentions, per field: computed once,
        // then unions give turn scores without re-matching words.
        let masks: Vec<Vec<Vec<bool>>> = specs
            .iter()
            .map(|sp| {
                doc.sents
                    .iter()
                    .map(|s| kw_mask(sp, &s.topic_stems))
                    .collect()
            })
            .collect();
        let rel: Vec<Vec<f64>> = specs
            .iter()
            .zip(&masks)
            .map(|(sp, m)| m.iter().map(|mask| mask_score(sp, &[mask])).collect())
            .collect();
        let parts: Vec<Vec<TurnParts>> = specs
            .iter()
            .zip(&masks)
            .map(|(sp, m)| {
                doc.turns
                    .iter()
                    .map(|t| turn_parts(sp, doc, m, t))
                    .collect()
            })
            .collect();
        let mut topic: Vec<Vec<f64>> = (0..specs.len())
            .map(|f| {
                (0..doc.turns.len())
                    .map(|t| {
                        let context_question = parts.iter().all(|row| row[t].q <= 0.0);
                        turn_score(parts[f][t], context_question)
                    })
                    .collect()
            })
            .collect();
        // "Will it need one?": a bare follow-up question that raises nothing
        // itself is about what the other side just said.
        for t in 1..doc.turns.len() {
            let bare_question = doc.turns[t]
                .sents
                .iter()
                .map(|&s| &doc.sents[s])
                .any(|s| s.question && is_bare_question(s));
            let quiet = topic.iter().all(|row| row[t] < T_TOPIC);
            if bare_question && quiet && doc.turns[t - 1].speaker != doc.turns[t].speaker {
                // Only for fields the question does touch ("need" in "Will it need one?").
                for row in &mut topic {
                    if row[t] > 0.0 {
                        row[t] = row[t].max(row[t - 1]);
                    }
                }
            }
        }
        let mut ctx = Ctx {
            doc,
            specs,
            rel,
            topic,
            regions: Vec::new(),
            raised: Vec::new(),
        };
        ctx.raised = (0..doc.turns.len()).map(|t| ctx.topics(t, 0.6)).collect();
        ctx.regions = (0..doc.turns.len()).map(|t| ctx.region_of(t)).collect();
        ctx
    }

    /// Fields a turn raises: scores at least `T_TOPIC` and within `ratio` of the best.
    fn topics(&self, turn: usize, ratio: f64) -> Vec<usize> {
        let best = (0..self.specs.len())
            .map(|f| self.topic[f][turn])
            .fold(0.0_f64, f64::max);
        if best < T_TOPIC {
            return Vec::new();
        }
        (0..self.specs.len())
            .filter(|&f| self.topic[f][turn] >= T_TOPIC && self.topic[f][turn] >= ratio * best)
            .collect()
    }

    /// Whether turn `t` asks a question about `f` itself (or a bare question
    /// about what it just said).
    fn asks_about(&self, f: usize, t: usize) -> bool {
        let bare = self.doc.turns[t]
            .sents
            .iter()
            .map(|&s| &self.doc.sents[s])
            .filter(|s| s.question)
            .any(is_bare_question);
        self.turn_has_question(t)
            && (self.question_topic(f, t) >= T_TOPIC || (bare && self.topic[f][t] >= T_TOPIC))
    }

    /// For yes/no fields: the turn raises `f` clearly more than any other
    /// yes/no field (a yes or no cannot answer a number or name, so those do
    /// not compete), and is not mostly about something else.
    fn raises_strictly(&self, f: usize, turn: usize) -> bool {
        let mine = self.topic[f][turn];
        let all_best = (0..self.specs.len())
            .map(|g| self.topic[g][turn])
            .fold(0.0_f64, f64::max);
        let bool_best = (0..self.specs.len())
            .filter(|&g| matches!(self.specs[g].kind, Kind::Bool))
            .map(|g| self.topic[g][turn])
            .fold(0.0_f64, f64::max);
        mine >= T_TOPIC && mine >= 0.85 * bool_best && mine >= 0.5 * all_best
    }

    /// Keyword score of a turn's question sentences alone.
    fn question_topic(&self, f: usize, t: usize) -> f64 {
        let spec = &self.specs[f];
        let sents: Vec<&Sent> = self.doc.turns[t]
            .sents
            .iter()
            .map(|&s| &self.doc.sents[s])
            .filter(|s| s.question)
            .collect();
        let stems: Vec<&[String]> = sents.iter().map(|s| s.topic_stems.as_slice()).collect();
        let bonus = if sents.iter().any(|s| type_bonus(spec, s)) {
            1.0
        } else {
            0.0
        };
        kw_rel_in(spec, &stems) + bonus
    }

    /// "I can do strawberry or cherry": a turn offering alternatives.
    fn turn_offers(&self, t: usize) -> bool {
        self.doc.turns[t].sents.iter().any(|&s| {
            let ws: Vec<&str> = self.doc.sents[s].word_lowers().collect();
            ws.iter().enumerate().any(|(i, w)| {
                *w == "or"
                    && i > 0
                    && ws
                        .get(i + 1)
                        .is_some_and(|n| !matches!(*n, "so" | "not" | "anything" | "something"))
            })
        })
    }

    fn turn_has_question(&self, t: usize) -> bool {
        self.doc.turns[t]
            .sents
            .iter()
            .any(|&s| self.doc.sents[s].question)
    }

    fn is_clarification(&self, t: usize) -> bool {
        let turn = &self.doc.turns[t];
        turn.sents
            .iter()
            .filter(|&&s| self.doc.sents[s].question)
            .all(|&s| {
                let sent = &self.doc.sents[s];
                let text: String = sent.word_lowers().collect::<Vec<_>>().join(" ");
                let n = sent.word_lowers().count();
                let new_topic = has_any_phrase(
                    &text,
                    &["another", "other", "else", "anything", "any other"],
                );
                let opener = sent.word_lowers().find(|w| !set!(FILLERS).contains(w));
                let fresh_question = matches!(
                    opener,
                    Some(
                        "when"
                            | "where"
                            | "who"
                            | "how"
                            | "why"
                            | "is"
                            | "are"
                            | "do"
                            | "does"
                            | "did"
                            | "can"
                            | "could"
                            | "will"
                            | "would"
                            | "should"
                            | "has"
                            | "have"
                    )
                );
                !new_topic
                    && ((n <= 3 && !fresh_question)
                        || has_any_phrase(
                            &text,
                            &[
                                "repeat",
                                "again",
                                "spell",
                                "pardon",
                                "say that",
                                "did you say",
                                "was that",
                                "what was",
                                "come again",
                                "which one",
                                "is that right",
                                "specific",
                                "exact",
                                "exactly",
                                "precise",
                                "ballpark",
                                "estimate",
                                "confirm that",
                                "you said",
                                "is that",
                                "sorry",
                            ],
                        ))
            })
    }

    /// The replies to a turn that raises a field: the other side's turns until
    /// the asking side moves on (raises something else, asks a new question,
    /// or speaks again without having been asked anything).
    fn region_of(&self, open: usize) -> Option<Region> {
        let asker = self.doc.turns[open].speaker;
        // The agent's statements propose ("I'm calling to confirm …"); the other
        // side only invites an answer by asking about the field itself.
        let opens = if asker == Speaker::Agent {
            !self.raised[open].is_empty()
        } else {
            (0..self.specs.len()).any(|f| self.question_topic(f, open) >= T_TOPIC)
        };
        if !opens {
            return None;
        }
        let mut turns = Vec::new();
        let mut closer = None;
        for u in open + 1..self.doc.turns.len().min(open + 1 + MAX_REGION_TURNS) {
            if self.doc.turns[u].speaker == asker {
                let has_topic = !self.raised[u].is_empty();
                let question = self.turn_has_question(u);
                let clarifying = question && self.is_clarification(u);
                // The other side asked something back, or offered a choice.
                let was_asked = u > 0
                    && self.doc.turns[u - 1].speaker != asker
                    && (self.turn_has_question(u - 1) || self.turn_offers(u - 1));
                // Answering the other side's question back keeps the region open.
                let moves_on = if question { !clarifying } else { !was_asked };
                if moves_on || (has_topic && !was_asked) {
                    closer = Some(u);
                    break;
                }
            }
            turns.push(u);
        }
        Some(Region { turns, closer })
    }

    /// Whether a sentence is about another field (among `among`) much more
    /// than about `f`.
    fn belongs_elsewhere(&self, f: usize, s: usize, among: &[usize]) -> bool {
        let mine = self.rel[f][s];
        // Only fields of the same type compete: "the bag's been located" can
        // settle a yes/no field and still lead to a city.
        let ty = self.specs[f].def.field_type;
        among.iter().any(|&g| {
            g != f
                && self.specs[g].def.field_type == ty
                && self.rel[g][s] >= T_DIRECT
                && self.rel[g][s] > mine + 0.5
        })
    }

    /// A rate field ("hourly rate in dollars") and an amount stated at that
    /// rate ("$165 an hour"): the shape alone is strong evidence.
    fn typed_rate(&self, f: usize, sent: &Sent) -> bool {
        let Kind::Num(ns) = &self.specs[f].kind else {
            return false;
        };
        let Some(want) = ns.per else { return false };
        ns.unit == FUnit::Money
            && sent.nums.iter().any(|m| {
                matches!(m.unit, Unit::Money | Unit::Pound | Unit::None)
                    && m.per.as_deref().and_then(per_canonical) == Some(want)
            })
    }

    /// Evidence sentences for field `f`, in transcript order.
    fn evidence(&self, f: usize, strict: bool) -> Vec<Ev> {
        let mut ev: Vec<Ev> = Vec::new();
        for (t, region) in self.regions.iter().enumerate() {
            let Some(region) = region else { continue };
            let raised = if strict {
                self.raises_strictly(f, t)
            } else {
                self.raised[t].contains(&f)
            };
            if !raised {
                continue;
            }
            let asker = self.doc.turns[t].speaker;
            // A reply is shared out only among the fields this turn raised.
            let raised_here = &self.raised[t];
            for &s in &self.doc.turns[t].sents {
                if self.doc.sents[s].question {
                    ev.push(Ev {
                        sent: s,
                        role: Role::Question,
                        region: t,
                    });
                }
            }
            for &u in &region.turns {
                let role = if self.doc.turns[u].speaker == asker {
                    Role::Asker
                } else {
                    Role::Answer
                };
                for &s in &self.doc.turns[u].sents {
                    if role == Role::Asker && self.doc.sents[s].question {
                        continue;
                    }
                    if !self.belongs_elsewhere(f, s, raised_here) {
                        ev.push(Ev {
                            sent: s,
                            role,
                            region: t,
                        });
                    }
                }
            }
            if let Some(c) = region.closer {
                for &s in &self.doc.turns[c].sents {
                    // Up to the closer's first question; echoes only ever
                    // confirm a value already given, so a sentence that also
                    // touches another field ("She has the conference code, so
                    // one forty-five.") is still safe to read.
                    if self.doc.sents[s].question {
                        break;
                    }
                    ev.push(Ev {
                        sent: s,
                        role: Role::Echo,
                        region: t,
                    });
                }
            }
        }
        for (s, sent) in self.doc.sents.iter().enumerate() {
            let everyone: Vec<usize> = (0..self.specs.len()).collect();
            if sent.question || self.belongs_elsewhere(f, s, &everyone) {
                continue;
            }
            if self.rel[f][s] >= T_DIRECT || (self.rel[f][s] >= 1.0 && self.typed_rate(f, sent)) {
                ev.push(Ev {
                    sent: s,
                    role: Role::Direct,
                    region: sent.turn,
                });
            }
        }
        ev.sort_by_key(|e| (e.sent, e.role));
        ev.dedup_by_key(|e| e.sent);
        ev
    }
}

fn kw_rel(spec: &Spec, stems: &[String]) -> f64 {
    kw_rel_in(spec, &[stems])
}

/// For each keyword of `spec`, whether `stems` mention it.
fn kw_mask(spec: &Spec, stems: &[String]) -> Vec<bool> {
    spec.kw
        .iter()
        .map(|k| {
            stems
                .iter()
                .any(|s| !s.is_empty() && stems_match(&k.stem, s))
        })
        .collect()
}

/// Score of the union of several keyword masks; zero unless the field's
/// required tokens (digits of its name) are all present.
fn mask_score(spec: &Spec, masks: &[&[bool]]) -> f64 {
    let hit = |i: usize| masks.iter().any(|m| m.get(i).copied().unwrap_or(false));
    let required_ok = spec.required.iter().all(|r| {
        spec.kw
            .iter()
            .enumerate()
            .any(|(i, k)| k.stem == *r && hit(i))
    });
    if !required_ok {
        return 0.0;
    }
    spec.kw
        .iter()
        .enumerate()
        .filter(|(i, _)| hit(*i))
        .map(|(_, k)| k.w)
        .sum()
}

/// Keyword score over several stem lists taken together (each keyword
/// counts once).
fn kw_rel_in(spec: &Spec, lists: &[&[String]]) -> f64 {
    let all = || {
        lists
            .iter()
            .flat_map(|l| l.iter())
            .filter(|s| !s.is_empty())
    };
    if !spec.required.iter().all(|r| all().any(|s| s == r)) {
        return 0.0;
    }
    spec.kw
        .iter()
        .filter(|k| all().any(|s| stems_match(&k.stem, s)))
        .map(|k| k.w)
        .sum()
}

/// Whether a sentence holds a value of the field's distinctive kind.
fn type_bonus(spec: &Spec, s: &Sent) -> bool {
    match &spec.kind {
        Kind::Str(StrCat::Weekday) => s
            .toks
            .iter()
            .any(|t| t.is_word() && words::weekday(&t.lower).is_some()),
        Kind::Str(StrCat::Month | StrCat::Date) => s
            .toks
            .iter()
            .any(|t| t.is_word() && words::month(t).is_some()),
        Kind::Str(StrCat::Color) => s.toks.iter().any(|t| COLORS.contains(&t.lower.as_str())),
        Kind::Str(StrCat::Time)
        | Kind::Num(NumSpec {
            unit: FUnit::Clock, ..
        }) => s.nums.iter().any(|m| m.unit == Unit::Clock),
        Kind::Str(StrCat::Address) => {
            s.nums.iter().any(|m| {
                s.toks
                    .get(m.end)
                    .is_some_and(|t| t.is_word() && t.is_capitalized())
                    || matches!(m.unit, Unit::Count(_))
                        && s.toks
                            .get(m.end.saturating_sub(1))
                            .is_some_and(Token::is_capitalized)
            }) || s.toks.iter().enumerate().any(|(i, t)| {
                i > 0
                    && t.is_capitalized()
                    && STREET_SUFFIXES.contains(&t.lower.as_str())
                    && s.toks
                        .get(i - 1)
                        .is_some_and(|p| p.is_word() && p.is_capitalized())
            })
        }
        Kind::Str(StrCat::Options(opts)) => opts.iter().any(|o| {
            o.split_whitespace()
                .last()
                .is_some_and(|last| s.stems.contains(&stem(last)))
        }),
        _ => false,
    }
}

/// The noun a wh-question asks for: "What flavors do you offer?" →
/// flavor; "What's the total?" → total; "How much is the deposit?" → deposit.
fn question_focus(toks: &[Token]) -> Vec<String> {
    let ws: Vec<&Token> = toks.iter().filter(|t| t.is_word()).collect();
    let Some(start) = ws
        .iter()
        .position(|t| !set!(FILLERS).contains(t.lower.as_str()) || t.lower == "and")
    else {
        return Vec::new();
    };
    let rest = &ws[start..];
    let skip_to = match rest
        .iter()
        .map(|t| t.lower.as_str())
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["what" | "which", ..] | ["what's", ..] => 1,
        ["how", "much" | "many", ..] => 2,
        _ => return Vec::new(),
    };
    rest.iter()
        .skip(skip_to)
        .map(|t| t.lower.as_str())
        .skip_while(|w| {
            matches!(
                *w,
                "is" | "are"
                    | "was"
                    | "the"
                    | "a"
                    | "an"
                    | "your"
                    | "his"
                    | "her"
                    | "their"
                    | "kind"
                    | "of"
                    | "type"
                    | "sort"
            )
        })
        .take(2)
        .take_while(|w| !set!(STOPWORDS).contains(w))
        .map(stem)
        .collect()
}

/// Parts of a turn's topic score for one field.
#[derive(Debug, Clone, Copy, Default)]
struct TurnParts {
    has_question: bool,
    /// Every question sentence is bare.
    bare: bool,
    /// Keyword score of the question sentences (with their type bonus).
    q: f64,
    /// Keyword score of the whole turn.
    all: f64,
    /// The question's asked-for noun is one of the field's words.
    focus: f64,
    bonus: f64,
}

fn turn_parts(spec: &Spec, doc: &Doc, masks: &[Vec<bool>], turn: &Turn) -> TurnParts {
    let mut q_stems: Vec<&[bool]> = Vec::new();
    let mut all_stems: Vec<&[bool]> = Vec::new();
    let mut p = TurnParts {
        bare: true,
        ..TurnParts::default()
    };
    let mut q_bonus = false;
    let mut any_bonus = false;
    for &s in &turn.sents {
        let sent = &doc.sents[s];
        let b = type_bonus(spec, sent);
        if sent.question {
            p.has_question = true;
            // The noun the question asks for weighs extra.
            if sent
                .focus
                .iter()
                .any(|f| spec.is_own_word(f) && !GENERIC_NAME_WORDS.iter().any(|g| stem(g) == *f))
            {
                p.focus += 1.0;
            }
            q_stems.extend(masks.get(s).map(Vec::as_slice));
            p.bare &= is_bare_question(sent);
            q_bonus |= b;
        }
        all_stems.extend(masks.get(s).map(Vec::as_slice));
        any_bonus |= b;
    }
    p.q = mask_score(spec, &q_stems) + if q_bonus { 1.0 } else { 0.0 } + p.focus.min(1.0);
    p.all = mask_score(spec, &all_stems);
    p.bonus = if any_bonus { 1.0 } else { 0.0 };
    p
}

/// Combines [`TurnParts`]. `context_question`: the question names nothing
/// any field is about, so (like a bare one) it refers to the statements
/// around it ("When could you do it? She was hoping for this week.").
fn turn_score(p: TurnParts, context_question: bool) -> f64 {
    if !p.has_question || p.bare || context_question {
        return p.all + p.bonus;
    }
    // A real question is about what it names; the statements around it
    // ("Devon has a small dog. Are pets allowed?") only add a little.
    if p.q <= 0.0 {
        return 0.0;
    }
    p.q + 0.25 * (p.all - p.q).max(0.0)
}

/// Words a question may use and still be "bare", i.e. about whatever was
/// just said ("Do any of those work?", "Will it need one?").
#[rustfmt::skip]
const BARE_QUESTION_WORDS: &[&str] = &[
    "work", "works", "have", "has", "do", "does", "need", "needs", "sound", "sounds", "right", "correct",
    "okay", "ok", "good", "true", "one",
];

/// A question with no content words of its own.
fn is_bare_question(s: &Sent) -> bool {
    s.word_lowers().all(|w| {
        set!(STOPWORDS).contains(w) || set!(FILLERS).contains(w) || BARE_QUESTION_WORDS.contains(&w)
    })
}

fn option_in(text: &str, opt: &str) -> bool {
    if phrase_in(text, opt) {
        return true;
    }
    // Match on the option's last word, stemmed ("the risotto", "mornings").
    let Some(last) = opt.split_whitespace().last() else {
        return false;
    };
    let ls = stem(last);
    text.split(' ').any(|w| stem(w) == ls)
}

// ───────────────────────────── booleans ─────────────────────────────

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pol {
    Yes,
    No,
    Dodge,
}

impl Ctx<'_, '_> {
    fn extract_bool(&self, f: usize) -> Option<bool> {
        let spec = &self.specs[f];
        let ev = self.evidence(f, true);
        let mut last: Option<Pol> = None;
        // Group answer sentences by turn so the clause logic sees whole replies.
        let mut i = 0;
        while i < ev.len() {
            let e = ev[i];
            let sent = &self.doc.sents[e.sent];
            let turn = sent.turn;
            match e.role {
                Role::Answer => {
                    let mut group = vec![e.sent];
                    let mut j = i + 1;
                    while j < ev.len()
                        && ev[j].role == Role::Answer
                        && self.doc.sents[ev[j].sent].turn == turn
                    {
                        group.push(ev[j].sent);
                        j += 1;
                    }
                    i = j;
                    let alt = self.alternative_answer(f, e.region, &group);
                    let direct_reply = turn == e.region + 1;
                    if let Some(p) = alt.or_else(|| {
                        self.reply_polarity(
                            spec,
                            &group,
                            false,
                            direct_reply,
                            self.asks_about(f, e.region),
                        )
                    }) {
                        last = Some(p);
                    }
                }
                Role::Direct
                    if self.doc.turns[turn].speaker != Speaker::Agent
                        && self.direct_bool_ok(f, e.sent) =>
                {
                    i += 1;
                    if let Some(p) = self.reply_polarity(spec, &[e.sent], true, false, true) {
                        last = Some(p);
                    }
                }
                _ => i += 1,
            }
        }
        match last {
            Some(Pol::Yes) => Some(true),
            Some(Pol::No) => Some(false),
            _ => None,
        }
    }

    /// An unprompted mention settles a yes/no field only if it names two of
    /// the field's words ("the bag's been located") or replies to a turn
    /// that touched the field at all: "Heat and water included" says
    /// nothing about parking.
    fn direct_bool_ok(&self, f: usize, s: usize) -> bool {
        let sent = &self.doc.sents[s];
        let spec = &self.specs[f];
        let mut matched: Vec<&str> = sent
            .topic_stems
            .iter()
            .filter(|st| spec.is_keyword(st))
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
        let recent = (sent.turn.saturating_sub(3)..sent.turn).any(|t| self.topic[f][t] >= 1.0);
        // "it's not ready yet" speaks of the thing at hand; "Heat and water
        // included" names a different subject.
        let first_kw = sent
            .topic_stems
            .iter()
            .position(|st| spec.is_keyword(st))
            .unwrap_or(0);
        let clause = sent.clause.get(first_kw).copied();
        let other_subject = sent
            .toks
            .iter()
            .zip(&sent.stems)
            .take(first_kw)
            .enumerate()
            .any(|(i, (t, st))| {
                sent.clause.get(i).copied() == clause
                    && t.is_word()
                    && !set!(STOPWORDS).contains(t.lower.as_str())
                    && !set!(FILLERS).contains(t.lower.as_str())
                    && !set!(NEGATIONS).contains(t.lower.as_str())
                    && !spec.is_keyword(st)
                    && !matches!(
                        t.lower.as_str(),
                        "quite" | "still" | "already" | "yet" | "now" | "definitely"
                    )
            });
        // A reply inside the exchange about another field is about that field.
        let elsewhere = self.regions.iter().enumerate().any(|(t, r)| {
            r.as_ref().is_some_and(|r| r.turns.contains(&sent.turn))
                && !self.raised[t].is_empty()
                && self.topic[f][t] <= 0.0
        });
        distinct >= 2 || strong_start || (!elsewhere && (recent || !other_subject))
    }

    /// "Would she prefer in-person or online?" answered "Online's fine."
    fn alternative_answer(&self, f: usize, open: usize, reply: &[usize]) -> Option<Pol> {
        let spec = &self.specs[f];
        let q = self.doc.turns[open]
            .sents
            .iter()
            .rev()
            .map(|&s| &self.doc.sents[s])
            .find(|s| s.question)?;
        let words: Vec<(&str, &str)> = q
            .toks
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
            spec.kw
                .iter()
                .filter(|k| v.iter().any(|s| stems_match(&k.stem, s)))
                .map(|k| k.w)
                .sum()
        };
        let (ls, rs) = (score(&l_only), score(&r_only));
        if (ls - rs).abs() < 0.25 {
            return None;
        }
        let positive_right = rs > ls;
        let mut hit_l = 0;
        let mut hit_r = 0;
        for &s in reply {
            let sent = &self.doc.sents[s];
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
        let negated = reply.iter().any(|&s| {
            let text: String = self.doc.sents[s]
                .word_lowers()
                .collect::<Vec<_>>()
                .join(" ");
            has_any_phrase(&text, &["not", "no", "don't", "rather not"])
        });
        if negated || hit_l == hit_r {
            return None;
        }
        let chose_right = hit_r > hit_l;
        Some(if chose_right == positive_right {
            Pol::Yes
        } else {
            Pol::No
        })
    }

    /// Polarity of a reply made of `sents` (one turn). `direct`: the reply was
    /// not prompted, so only clauses naming the field (or clear yes/no) count.
    ///
    /// `first_reply`: the turn right after the question, where a bare
    /// "okay" accepts; later it only acknowledges.
    ///
    /// `weak_ok`: an implicit answer that does not name the field ("My
    /// wife'll be around") counts only as a reply to a question, not to a
    /// statement.
    fn reply_polarity(
        &self,
        spec: &Spec,
        sents: &[usize],
        direct: bool,
        first_reply: bool,
        weak_ok: bool,
    ) -> Option<Pol> {
        // Strong answers and dodges always count; a weak (implicit) answer
        // counts when nothing strong came before it in the reply, and may
        // override an earlier dodge ("let me check… the 12th is booked").
        #[derive(Clone, Copy, PartialEq)]
        enum State {
            Empty,
            Weak(Pol),
            Strong(Pol),
            Dodge,
        }
        let mut state = State::Empty;
        let mut hold = false;
        let mut seen_informative = false;
        for &s in sents {
            let sent = &self.doc.sents[s];
            if sent.question {
                continue;
            }
            let turn_first = self.doc.turns[sent.turn].sents.first() == Some(&s);
            for (ci, c) in sent.clause_ids().into_iter().enumerate() {
                let text = clause_text(sent, c);
                if text.is_empty() {
                    continue;
                }
                let r = sent.clause_range(c);
                let clause_stems = sent.stems.get(r).unwrap_or(&[]);
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
                let mentions_field = clause_stems.iter().any(|st| spec.is_strong_keyword(st));
                let turn_initial = turn_first && ci == 0 && first_reply;
                let p = clause_polarity(text, &content, turn_initial, seen_informative);
                match p {
                    // "Let me check…" is followed by the answer; "I'm not sure" is final.
                    Some((Pol::Dodge, _)) => {
                        let is_hold = has_split_phrase(text, phrases!(HOLDS));
                        // "Yes. Let me pull them up.": a hold after a clear answer
                        // is about the details, not a retraction.
                        if !(is_hold && matches!(state, State::Strong(_))) {
                            state = State::Dodge;
                            hold = is_hold;
                        }
                    }
                    Some((pol, true)) => state = State::Strong(pol),
                    Some((pol, false)) => {
                        // An echo of the keywords alone ("the patio, uh") is not an answer.
                        let substantive = content.iter().any(|w| {
                            !DETERMINERS.contains(w)
                                && !spec.is_own_word(&stem(w))
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
                        // "Cash or debit only": naming only other things means no.
                        // "Just a cat." to "any dogs?": naming only other things.
                        let own = clause_stems.iter().any(|st| spec.is_own_word(st));
                        let exclusive = has_any_phrase(text, &["only"])
                            || text
                                .split(' ')
                                .find(|w| !matches!(*w, "um" | "uh" | "oh" | "well"))
                                .is_some_and(|w| w == "just");
                        let pol = if !own && exclusive { Pol::No } else { pol };
                        // A later implicit answer replaces an earlier one only if it names the field.
                        let replaces = !matches!(state, State::Weak(_)) || mentions_field;
                        if eligible && open && replaces {
                            state = State::Weak(pol);
                        }
                    }
                    _ => {}
                }
                if !content.is_empty() && p.is_some() {
                    seen_informative = true;
                }
            }
        }
        match state {
            State::Empty => None,
            State::Weak(p) | State::Strong(p) => Some(p),
            State::Dodge => Some(Pol::Dodge),
        }
    }
}

/// Polarity of one clause: `(pol, strong)`.
fn clause_polarity(
    text: &str,
    content: &[&str],
    turn_initial: bool,
    seen_informative: bool,
) -> Option<(Pol, bool)> {
    if has_split_phrase(text, phrases!(DODGES))
        && !has_any_phrase(text, &["no doubt", "definitely", "absolutely"])
    {
        // "make sure" is not a dodge either way; "not sure" is.
        return Some((Pol::Dodge, true));
    }
    let words: Vec<&str> = text.split(' ').collect();
    // Strong markers: the last one in the clause wins.
    let mut strong: Option<(usize, Pol)> = None;
    for (i, _) in words.iter().enumerate() {
        let rest = &words[i..];
        // The words from `i` on begin with phrase `p`.
        let starts = |p: &str| {
            let n = p.split(' ').count();
            rest.len() >= n && p.split(' ').zip(rest).all(|(a, b)| a == *b)
        };
        let starts_split = |p: &[&str]| rest.starts_with(p);
        let is_no_start = starts("no");
        if is_no_start {
            let next = words.get(i + 1).copied();
            if matches!(
                next,
                Some("problem" | "worries" | "worry" | "doubt" | "question" | "trouble")
            ) {
                strong = Some((i, Pol::Yes));
                continue;
            }
            // "Tuesday — no, sorry, Wednesday": a self-correction, not an answer.
            if seen_informative
                && i == 0
                && matches!(next, Some("wait" | "sorry" | "actually" | "i"))
            {
                continue;
            }
            if i > 0 && matches!(next, Some("wait" | "sorry" | "actually")) {
                continue;
            }
        }
        if let Some(p) = phrases!(STRONG_NO).iter().find(|p| starts_split(p)) {
            // "not sure" was handled as a dodge; "no need"/"no dogs" are no.
            let n = p.len();
            let echo = phrases!(SHORT_NEGATIVE_ECHOES).contains(p);
            if echo && words.len() > i + n + 1 {
                continue;
            }
            strong = Some((i, Pol::No));
            continue;
        }
        if phrases!(STRONG_YES).iter().any(|p| starts_split(p)) {
            if starts("sure")
                && i > 0
                && matches!(words.get(i - 1), Some(&("make" | "not" | "be" | "unsure")))
            {
                continue;
            }
            // Short echoes ("we can", "it is") only count as the whole clause.
            let short_echo = [
                "we do", "we can", "i can", "i do", "i will", "we will", "it is", "they are",
                "it does", "we are", "i am", "she can", "he can", "she will", "he will",
                "they can", "we have", "it has",
            ];
            if let Some(p) = short_echo.iter().find(|p| starts(p)) {
                let n = p.split(' ').count();
                if words.len() > i + n
                    && !matches!(words.get(i + n), Some(&("yeah" | "yes" | "too")))
                {
                    continue;
                }
            }
            strong = Some((i, Pol::Yes));
        }
    }
    if let Some((_, p)) = strong {
        return Some((p, true));
    }
    if content.is_empty() {
        // Acceptance words open a reply ("Okay, yep."), but "okay" later is a filler.
        if turn_initial && words.iter().any(|w| ACCEPT_WORDS.contains(w)) {
            return Some((Pol::Yes, false));
        }
        return None;
    }
    if has_any_phrase(text, &["oh no"]) {
        return Some((Pol::No, false));
    }
    if is_negated_text(text) {
        return Some((Pol::No, false));
    }
    Some((Pol::Yes, false))
}

// ───────────────────────────── numbers ─────────────────────────────

#[derive(Debug, Clone)]
struct NumCand {
    sent: usize,
    turn: usize,
    /// Clause id within the turn.
    clause: usize,
    value: f64,
    alt: Option<f64>,
    /// (low, high) for a range.
    range: Option<(f64, f64)>,
    score: f64,
    echo: bool,
}

impl Ctx<'_, '_> {
    fn extract_number(&self, f: usize, ns: &NumSpec) -> Option<f64> {
        let spec = &self.specs[f];
        if ns.unit == FUnit::Clock {
            return self.extract_clock_number(f, ns);
        }
        let mut ev = self.evidence(f, false);
        // "Recheck in a month. So, four weeks.": a reformulation right after
        // a mention belongs with it.
        let extra: Vec<Ev> = ev
            .iter()
            .filter(|e| matches!(e.role, Role::Direct | Role::Answer))
            .filter_map(|e| {
                let next = e.sent + 1;
                let n = self.doc.sents.get(next)?;
                let reformulates = n.turn == self.doc.sents[e.sent].turn
                    && !n.question
                    && matches!(
                        n.word_lowers().next(),
                        Some(
                            "so" | "that's"
                                | "i"
                                | "actually"
                                | "or"
                                | "call"
                                | "make"
                                | "that"
                                | "basically"
                        )
                    );
                (reformulates && !ev.iter().any(|x| x.sent == next)).then_some(Ev {
                    sent: next,
                    role: e.role,
                    region: e.region,
                })
            })
            .collect();
        ev.extend(extra);
        ev.sort_by_key(|e| (e.sent, e.role));
        ev.dedup_by_key(|e| e.sent);
        let mut cands: Vec<NumCand> = Vec::new();
        let mut echo_cands: Vec<NumCand> = Vec::new();
        for e in &ev {
            if e.role == Role::Question {
                continue;
            }
            let sent = &self.doc.sents[e.sent];
            if sent.question {
                continue;
            }
            let mut found = self.number_candidates(spec, ns, e.sent);
            // A reply to the question about the field outranks a passing mention.
            if matches!(e.role, Role::Answer | Role::Echo) {
                for c in &mut found {
                    c.score += 0.5;
                }
            }
            if e.role == Role::Echo {
                for c in &mut found {
                    c.echo = true;
                }
                echo_cands.extend(found);
            } else {
                cands.extend(found);
            }
        }
        // Echoes only confirm what was said, and the one they confirm is
        // the one that stands ("… or one forty-five." "So one forty-five.").
        for mut c in echo_cands {
            let confirmed = cands
                .iter()
                .filter(|o| same(o.value, c.value) || o.alt.is_some_and(|a| same(a, c.value)))
                .map(|o| o.score)
                .reduce(f64::max);
            if let Some(score) = confirmed {
                c.score = c.score.max(score);
                cands.push(c);
            }
        }
        if cands.is_empty() {
            return self.sole_amount(ns);
        }
        cands.sort_by_key(|c| (c.sent, c.clause));
        let cands = suppress_before_cues(self, cands);
        // Within a reply the best-fitting number wins (earliest on a tie);
        // across replies the latest reply that fits about as well wins.
        let mut per_turn: Vec<&NumCand> = Vec::new();
        for c in &cands {
            match per_turn.last_mut() {
                Some(best) if best.turn == c.turn => {
                    if c.score > best.score {
                        *best = c;
                    }
                }
                _ => per_turn.push(c),
            }
        }
        let best = per_turn
            .iter()
            .map(|c| c.score)
            .fold(f64::NEG_INFINITY, f64::max);
        let pick = *per_turn.iter().rev().find(|c| c.score >= best - 0.5)?;
        let mut value = match (pick.range, ns.range) {
            (Some((lo, _)), RangePref::Lower) => lo,
            (Some((_, hi)), RangePref::Upper) => hi,
            (Some(_), RangePref::Neither) => return None,
            (None, _) => pick.value,
        };
        // An ambiguous spoken amount settled by another mention ("Fourteen fifty" … "Fourteen hundred fifty").
        if let Some(alt) = pick.alt
            && cands
                .iter()
                .any(|c| c.sent != pick.sent && same(c.value, alt))
            && !cands
                .iter()
                .any(|c| c.sent != pick.sent && same(c.value, value))
        {
            value = alt;
        }
        Some(self.apply_not_corrections(pick.sent, value))
    }

    fn number_candidates(&self, spec: &Spec, ns: &NumSpec, s: usize) -> Vec<NumCand> {
        let sent = &self.doc.sents[s];
        let mut out = Vec::new();
        let own_numbers: Vec<f64> = spec
            .required
            .iter()
            .filter_map(|r| r.parse::<f64>().ok())
            .collect();
        for (mi, m) in sent.nums.iter().enumerate() {
            // The second end of a range is handled with the first.
            if m.range_with.is_some_and(|o| o < mi) {
                continue;
            }
            let Some((mut score, factor)) = unit_fit(ns, m) else {
                continue;
            };
            if own_numbers.iter().any(|v| same(*v, m.value)) {
                continue;
            }
            let value = m.value * factor;
            // "One fifty-nine a night. With the code it's one forty-five.": a
            // bare amount in the same reply keeps the rate said before it.
            let inherited =
                if m.per.is_none() && matches!(m.unit, Unit::None | Unit::Money | Unit::Pound) {
                    self.previous_rate(s, mi)
                } else {
                    None
                };
            score += match inherited {
                Some(p) => per_fit(
                    ns,
                    &NumMention {
                        per: Some(p),
                        ..m.clone()
                    },
                ),
                None => per_fit(ns, m),
            };
            // "a fifty dollar cleaning deposit": the amount belongs to the noun
            // it qualifies; another charge's noun means another field.
            let after: Vec<&str> = (m.end..m.end + 3)
                .filter_map(|i| sent.toks.get(i))
                .take_while(|t| t.is_word())
                .map(|t| t.lower.as_str())
                .collect();
            if let Some(noun) = after.iter().find(|w| set!(CHARGE_NOUNS).contains(*w)) {
                score += if spec.is_keyword(&stem(noun)) {
                    0.5
                } else {
                    -1.0
                };
            }
            let clause = sent.clause.get(m.start).copied().unwrap_or(0);
            let r = sent.clause_range(clause);
            let crel = kw_rel(spec, sent.stems.get(r).unwrap_or(&[]));
            if crel >= 1.0 {
                score += 0.5;
            }
            if crel >= 3.0 {
                score += 0.5;
            }
            if sent.conditional {
                score -= 1.0;
            }
            // "up to fifty pounds" for a maximum, "at least ten" for a minimum.
            let before: Vec<&str> = (m.start.saturating_sub(2)..m.start)
                .filter_map(|i| sent.toks.get(i))
                .filter(|t| t.is_word())
                .map(|t| t.lower.as_str())
                .collect();
            let bound = |pairs: &[[&str; 2]], singles: &[&str]| {
                pairs.iter().any(|p| before.ends_with(p))
                    || before.last().is_some_and(|w| singles.contains(w))
            };
            let upper = bound(
                &[["up", "to"], ["at", "most"], ["no", "more"]],
                &["max", "maximum", "limit"],
            );
            let lower = bound(
                &[["at", "least"], ["starting", "at"]],
                &["min", "minimum", "from"],
            );
            if (ns.range == RangePref::Upper && upper) || (ns.range == RangePref::Lower && lower) {
                score += 0.5;
            }
            let range = m.range_with.and_then(|o| sent.nums.get(o)).map(|o| {
                let (a, b) = (value, o.value * factor);
                (a.min(b), a.max(b))
            });
            out.push(NumCand {
                sent: s,
                turn: sent.turn,
                clause,
                value,
                alt: m.alt.map(|a| a * factor),
                range,
                score,
                echo: false,
            });
        }
        // "no fee", "free", "no charge": zero (unless the sentence states an
        // amount and the zero is an exception: "waived for students on free lunch").
        if matches!(ns.unit, FUnit::Money | FUnit::Count) && out.is_empty() {
            let words: Vec<&str> = sent.word_lowers().collect();
            for (i, w) in words.iter().enumerate() {
                let next = words.get(i + 1).map(|n| stem(n));
                let zero = match *w {
                    "no" => next.as_deref().is_some_and(|n| {
                        spec.is_keyword(n)
                            || (ns.unit == FUnit::Money
                                && matches!(n, "fe" | "charg" | "cost" | "pric"))
                    }),
                    "free" | "waived" | "complimentary" => ns.unit == FUnit::Money,
                    "none" | "zero" => true,
                    _ => false,
                };
                if zero {
                    let clause = sent
                        .toks
                        .iter()
                        .enumerate()
                        .filter(|(_, t)| t.is_word())
                        .nth(i)
                        .and_then(|(ti, _)| sent.clause.get(ti).copied())
                        .unwrap_or(0);
                    out.push(NumCand {
                        sent: s,
                        turn: sent.turn,
                        clause,
                        value: 0.0,
                        alt: None,
                        range: None,
                        score: 1.0,
                        echo: false,
                    });
                    break;
                }
            }
        }
        out
    }

    /// A price nobody asked for: when this is the only money field and the
    /// other side states exactly one amount in dollars ("That'll be
    /// forty-eight dollars"), that amount is it.
    fn sole_amount(&self, ns: &NumSpec) -> Option<f64> {
        let money = |sp: &Spec| {
            matches!(
                sp.kind,
                Kind::Num(NumSpec {
                    unit: FUnit::Money,
                    ..
                })
            )
        };
        if ns.unit != FUnit::Money
            || self.specs.iter().filter(|sp| money(sp)).count() != 1
            || ns.per.is_some()
        {
            return None;
        }
        let mut amounts: Vec<f64> = Vec::new();
        for sent in &self.doc.sents {
            if sent.question
                || sent.conditional
                || self.doc.turns[sent.turn].speaker == Speaker::Agent
            {
                continue;
            }
            for m in &sent.nums {
                if m.unit == Unit::Money
                    && m.per.is_none()
                    && m.range_with.is_none()
                    && !amounts.iter().any(|a| same(*a, m.value))
                {
                    amounts.push(m.value);
                }
            }
        }
        match amounts.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }

    /// The rate noun ("a night") of the last amount before mention `mi` of
    /// sentence `s`, within the same turn.
    fn previous_rate(&self, s: usize, mi: usize) -> Option<String> {
        let turn = self.doc.sents[s].turn;
        let here = self.doc.sents[s]
            .nums
            .iter()
            .take(mi)
            .rev()
            .find_map(|m| m.per.clone());
        here.or_else(|| {
            self.doc.turns[turn]
                .sents
                .iter()
                .filter(|&&x| x < s)
                .rev()
                .find_map(|&x| {
                    self.doc.sents[x]
                        .nums
                        .iter()
                        .rev()
                        .find_map(|m| m.per.clone())
                })
        })
    }

    /// "put me down as a six, not a seven": a later "A, not B" with B equal
    /// to the value replaces it with A.
    fn apply_not_corrections(&self, from_sent: usize, mut value: f64) -> f64 {
        for sent in self.doc.sents.iter().skip(from_sent + 1) {
            if sent.question {
                continue;
            }
            for pair in sent.nums.windows(2) {
                let [a, b] = pair else { continue };
                let gap: Vec<&str> = sent
                    .toks
                    .get(a.end..b.start)
                    .unwrap_or(&[])
                    .iter()
                    .filter(|t| t.is_word())
                    .map(|t| t.lower.as_str())
                    .collect();
                let not_gap = matches!(gap.as_slice(), ["not"] | ["not", "a" | "an" | "the"]);
                if not_gap && same(b.value, value) {
                    value = a.value;
                }
            }
        }
        value
    }

    /// "Same as a month's rent": copies the value of the number field the
    /// phrase names.
    fn same_as_reference(&self, f: usize, numbers: &[(usize, Option<f64>)]) -> Option<f64> {
        let mut sents: Vec<usize> = Vec::new();
        for (t, region) in self.regions.iter().enumerate() {
            let Some(region) = region else { continue };
            if self.raised[t].contains(&f) {
                for &u in &region.turns {
                    sents.extend(self.doc.turns[u].sents.iter().copied());
                }
            }
        }
        for &s in sents.iter().rev() {
            let sent = &self.doc.sents[s];
            let lw: Vec<&str> = sent.toks.iter().map(|t| t.lower.as_str()).collect();
            let Some(pos) = lw.windows(2).position(|w| w == ["same", "as"]) else {
                continue;
            };
            let tail: Vec<String> = sent.stems.iter().skip(pos + 2).take(5).cloned().collect();
            let mut best: Option<(f64, f64)> = None;
            for (g, v) in numbers {
                if *g == f {
                    continue;
                }
                let Some(v) = v else { continue };
                let r = kw_rel(&self.specs[*g], &tail);
                if r >= T_DIRECT && best.is_none_or(|(br, _)| r > br) {
                    best = Some((r, *v));
                }
            }
            if let Some((_, v)) = best {
                return Some(v);
            }
        }
        None
    }

    /// Hour-of-day fields: the last clock time mentioned in the evidence (or
    /// anywhere, when nothing raises the field).
    fn extract_clock_number(&self, f: usize, ns: &NumSpec) -> Option<f64> {
        let ev = self.evidence(f, false);
        let mut sents: Vec<usize> = ev
            .iter()
            .filter(|e| e.role != Role::Question)
            .map(|e| e.sent)
            .collect();
        if !sents
            .iter()
            .any(|&s| self.doc.sents[s].nums.iter().any(is_clock))
        {
            sents = (0..self.doc.sents.len()).collect();
        }
        let mut last: Option<(u32, u32, Option<bool>)> = None;
        for s in sents {
            let sent = &self.doc.sents[s];
            if sent.question || self.is_offer(sent, |t: &Sent| clock_values(t).len()) {
                continue;
            }
            for m in sent.nums.iter().filter(|m| is_clock(m)) {
                let clause = sent.clause.get(m.start).copied().unwrap_or(0);
                if is_negated_text(clause_text(sent, clause)) {
                    continue;
                }
                let (h, mm) = m.clock.unwrap_or((m.value as u32, 0));
                last = Some((h, mm, m.pm));
            }
        }
        let (h, mm, pm) = last?;
        if h > 24 {
            return None;
        }
        let mut hour = h;
        if ns.hour24 {
            match pm {
                Some(true) if hour < 12 => hour += 12,
                Some(false) if hour == 12 => hour = 0,
                // No am/pm: business hours, so 1–7 means afternoon.
                None if (1..=7).contains(&hour) => hour += 12,
                _ => {}
            }
        }
        Some(f64::from(hour) + f64::from(mm) / 60.0)
    }

    /// A sentence offering several values ("Monday at ten or Tuesday at four").
    fn is_offer(&self, s: &Sent, count: impl Fn(&Sent) -> usize) -> bool {
        let has_or = s.word_lowers().any(|w| w == "or");
        has_or && count(s) >= 2
    }
}

/// A clock time: "3 pm", "ten o'clock", "at two", "seven-thirty", "7:30".
fn is_clock(m: &NumMention) -> bool {
    m.unit == Unit::Clock
        || (m.after_time_prep
            && m.unit == Unit::None
            && !m.ordinal
            && (1.0..=12.0).contains(&m.value)
            && m.value.fract() == 0.0)
        || (m.clock.is_some() && matches!(m.unit, Unit::None | Unit::Clock))
}

fn clock_values(s: &Sent) -> Vec<u32> {
    let mut v: Vec<u32> = s
        .nums
        .iter()
        .filter(|m| is_clock(m))
        .map(|m| m.clock.map_or(m.value as u32, |c| c.0))
        .collect();
    v.dedup();
    v
}

fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0)
}

/// How well a mention's unit fits the field: `(score, conversion factor)`,
/// or `None` when incompatible.
fn unit_fit(ns: &NumSpec, m: &NumMention) -> Option<(f64, f64)> {
    let clocky = m.unit == Unit::Clock || (m.clock.is_some() && m.after_time_prep);
    if clocky {
        return None;
    }
    let bare = m.unit == Unit::None;
    if m.ordinal && ns.unit != FUnit::Count {
        return None;
    }
    match ns.unit {
        FUnit::Money => match m.unit {
            Unit::Money | Unit::Pound => Some((1.0, 1.0)),
            // "at ten" is a time, not a price.
            Unit::None if !m.after_time_prep || m.written => Some((0.0, 1.0)),
            _ => None,
        },
        FUnit::Weight => match m.unit {
            Unit::Pound | Unit::Weight => Some((1.0, 1.0)),
            Unit::None => Some((0.0, 1.0)),
            _ => None,
        },
        FUnit::Percent => match m.unit {
            Unit::Percent => Some((1.0, 1.0)),
            Unit::None => Some((0.0, 1.0)),
            _ => None,
        },
        FUnit::Duration(want) => match &m.unit {
            Unit::Duration(have) => have.factor_to(want).map(|k| (1.0, k)),
            Unit::None => Some((0.0, 1.0)),
            _ => None,
        },
        FUnit::Count => match &m.unit {
            Unit::None => Some((0.0, 1.0)),
            Unit::Count(_) => Some((0.0, 1.0)),
            _ if bare => Some((0.0, 1.0)),
            _ => None,
        },
        FUnit::Clock => None,
    }
}

fn per_fit(ns: &NumSpec, m: &NumMention) -> f64 {
    let have = m.per.as_deref().and_then(per_canonical);
    match (ns.per, have, m.per.is_some()) {
        (Some(want), Some(h), _) if want == h => 1.0,
        (Some(_), _, true) => -1.0,
        (None, _, true) => -0.5,
        _ => 0.0,
    }
}

/// Within one reply, a correction cue ("actually", "oh, hang on", "so") makes
/// the numbers before it stale, provided a fitting number follows it.
fn suppress_before_cues(ctx: &Ctx, cands: Vec<NumCand>) -> Vec<NumCand> {
    let mut keep: Vec<NumCand> = Vec::with_capacity(cands.len());
    let mut by_turn: Vec<(usize, Vec<NumCand>)> = Vec::new();
    for c in cands {
        match by_turn.last_mut() {
            Some((t, v)) if *t == c.turn => v.push(c),
            _ => by_turn.push((c.turn, vec![c])),
        }
    }
    for (turn, group) in by_turn {
        let cue = last_cue_with_followers(ctx, turn, group.iter().map(|c| c.clause).collect());
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
fn last_cue_with_followers(ctx: &Ctx, turn: usize, clauses: Vec<usize>) -> Option<usize> {
    let mut cue_clauses: Vec<usize> = Vec::new();
    for &s in &ctx.doc.turns[turn].sents {
        let sent = &ctx.doc.sents[s];
        for c in sent.clause_ids() {
            let text = clause_text(sent, c);
            // "Large. Well, extra large": a mid-reply "well" revises.
            let well = c > 0 && text.split(' ').next() == Some("well");
            if well || has_split_phrase(text, phrases!(CUES)) {
                cue_clauses.push(c);
            }
        }
    }
    cue_clauses
        .into_iter()
        .rev()
        .find(|&k| clauses.iter().any(|&c| c >= k) && clauses.iter().any(|&c| c < k))
}

// ───────────────────────────── strings ─────────────────────────────

#[derive(Debug, Clone)]
struct StrCand {
    sent: usize,
    turn: usize,
    clause: usize,
    text: String,
    /// Lower is better within a turn (e.g. a bare fragment beats a copula reading).
    rank: u8,
    echo: bool,
}

impl Ctx<'_, '_> {
    fn extract_string(&self, f: usize, cat: &StrCat) -> Option<String> {
        let spec = &self.specs[f];
        let mut ev = self.evidence(f, false);
        // "The bag's been located. It's sitting in Denver.": a reply that names
        // the field goes on to give the value in its next sentence.
        if !matches!(cat, StrCat::Generic | StrCat::Quote) {
            let extra: Vec<Ev> = ev
                .iter()
                .filter(|e| {
                    e.role == Role::Direct
                        && self.doc.turns[self.doc.sents[e.sent].turn].speaker != Speaker::Agent
                })
                .filter_map(|e| {
                    let next = e.sent + 1;
                    let same_turn = self
                        .doc
                        .sents
                        .get(next)
                        .is_some_and(|n| n.turn == self.doc.sents[e.sent].turn);
                    (same_turn && !ev.iter().any(|x| x.sent == next)).then_some(Ev {
                        sent: next,
                        role: Role::Direct,
                        region: e.region,
                    })
                })
                .collect();
            ev.extend(extra);
            ev.sort_by_key(|e| (e.sent, e.role));
            ev.dedup_by_key(|e| e.sent);
        }
        let mut cands: Vec<StrCand> = Vec::new();
        let mut echo_cands: Vec<StrCand> = Vec::new();
        let mut offered: Vec<String> = Vec::new();
        for e in &ev {
            let mut found = match e.role {
                Role::Question => {
                    if !self.answered_yes(spec, e.region) {
                        continue;
                    }
                    self.question_candidates(spec, cat, e.sent)
                }
                Role::Answer if self.reply_refuses(e.sent) => continue,
                role => {
                    // Bare-phrase answers ("Algebra.") only as replies to a question about the field.
                    let fragments = role == Role::Answer && self.asks_about(f, e.region);
                    self.string_candidates(spec, cat, e.sent, role, fragments, &mut offered)
                }
            };
            if e.role == Role::Echo {
                for c in &mut found {
                    c.echo = true;
                }
                echo_cands.extend(found);
            } else {
                cands.extend(found);
            }
        }
        for c in echo_cands {
            if cands.iter().any(|o| same_text(&o.text, &c.text)) {
                cands.push(c);
            }
        }
        if cands.is_empty() {
            return self.string_fallback(spec, cat);
        }
        cands.sort_by_key(|c| (c.sent, c.clause));
        let chosen = pick_string(self, cands)?;
        Some(finish_string(cat, &chosen.text))
    }

    /// Whether the reply to the question in turn `open` is a clear yes.
    fn answered_yes(&self, spec: &Spec, open: usize) -> bool {
        let Some(Some(region)) = self.regions.get(open) else {
            return false;
        };
        let asker = self.doc.turns[open].speaker;
        let Some(&reply) = region
            .turns
            .iter()
            .find(|&&u| self.doc.turns[u].speaker != asker)
        else {
            return false;
        };
        self.reply_polarity(
            spec,
            &self.doc.turns[reply].sents,
            false,
            reply == open + 1,
            true,
        ) == Some(Pol::Yes)
    }

    /// A reply that opens with a refusal or a dodge ("No, they're still
    /// arguing", "No clue, sorry") carries no value for a string field.
    fn reply_refuses(&self, s: usize) -> bool {
        let sent = &self.doc.sents[s];
        let turn = &self.doc.turns[sent.turn];
        let Some(&first) = turn.sents.first() else {
            return false;
        };
        let first_sent = &self.doc.sents[first];
        let Some(c) = first_sent.clause_ids().into_iter().find(|&c| {
            clause_text(first_sent, c)
                .split(' ')
                .any(|w| !w.is_empty() && !set!(FILLERS).contains(w))
        }) else {
            return false;
        };
        let text = clause_text(first_sent, c);
        let opens_no = text
            .split(' ')
            .find(|w| !set!(FILLERS).contains(w))
            .is_some_and(|w| matches!(w, "no" | "nope" | "nah"))
            && !has_any_phrase(text, &["no problem", "no worries"]);
        let first_text: String = first_sent.word_lowers().collect::<Vec<_>>().join(" ");
        let dodge = has_split_phrase(&first_text, phrases!(DODGES));
        // Only when nothing after a correction cue rescues it.
        let later_cue = turn.sents.iter().any(|&x| {
            let st = &self.doc.sents[x];
            st.clause_ids().into_iter().any(|k| {
                (x != first || k != c)
                    && has_any_phrase(clause_text(st, k), &["actually", "wait", "sorry"])
            })
        });
        (opens_no || dodge) && !later_cue
    }

    fn question_candidates(&self, spec: &Spec, cat: &StrCat, s: usize) -> Vec<StrCand> {
        let sent = &self.doc.sents[s];
        let mut out = Vec::new();
        match cat {
            StrCat::Name { common, .. } => {
                for (start, end) in proper_spans(sent, self.doc) {
                    out.push(self.cand(s, start, join_tokens(&sent.toks[start..end]), 1));
                }
                if out.is_empty() && *common {
                    out.extend(modifier_candidates(self, spec, s, true));
                }
            }
            StrCat::Generic => out.extend(modifier_candidates(self, spec, s, true)),
            _ => {}
        }
        out
    }

    fn cand(&self, s: usize, tok: usize, text: String, rank: u8) -> StrCand {
        let sent = &self.doc.sents[s];
        StrCand {
            sent: s,
            turn: sent.turn,
            clause: sent.clause.get(tok).copied().unwrap_or(0),
            text,
            rank,
            echo: false,
        }
    }

    fn string_candidates(
        &self,
        spec: &Spec,
        cat: &StrCat,
        s: usize,
        role: Role,
        fragments: bool,
        offered: &mut Vec<String>,
    ) -> Vec<StrCand> {
        let sent = &self.doc.sents[s];
        let answerer = role == Role::Answer;
        // The answering side's check-backs ("that's a Saturday, right?") assert a value.
        let asserts = answerer && !matches!(cat, StrCat::Generic | StrCat::Quote | StrCat::Code);
        if sent.question && !asserts {
            return Vec::new();
        }
        let mut out: Vec<StrCand> = Vec::new();
        let lower_words: Vec<(usize, &str)> = sent
            .toks
            .iter()
            .enumerate()
            .filter(|(_, t)| t.is_word())
            .map(|(i, t)| (i, t.lower.as_str()))
            .collect();
        let negated_clause = |ti: usize| -> bool {
            let c = sent.clause.get(ti).copied().unwrap_or(0);
            is_negated_text(clause_text(sent, c))
        };
        match cat {
            StrCat::Weekday => {
                let vals: Vec<(usize, &str)> = lower_words
                    .iter()
                    .filter_map(|(i, w)| words::weekday(w).map(|d| (*i, d)))
                    .collect();
                push_values(self, s, &vals, &negated_clause, &mut out);
            }
            StrCat::Month => {
                let vals: Vec<(usize, &str)> = sent
                    .toks
                    .iter()
                    .enumerate()
                    .filter_map(|(i, t)| words::month(t).map(|m| (i, m)))
                    .collect();
                push_values(self, s, &vals, &negated_clause, &mut out);
            }
            StrCat::Color => {
                let vals: Vec<(usize, &str)> = lower_words
                    .iter()
                    .filter_map(|(i, w)| COLORS.iter().find(|c| *c == w).map(|c| (*i, *c)))
                    .collect();
                push_values(self, s, &vals, &negated_clause, &mut out);
            }
            StrCat::Date => {
                let vals = self.dates_in(s);
                let refs: Vec<(usize, &str)> = vals.iter().map(|(i, d)| (*i, d.as_str())).collect();
                push_values(self, s, &refs, &negated_clause, &mut out);
            }
            StrCat::Time => {
                let vals: Vec<(usize, String)> = sent
                    .nums
                    .iter()
                    .filter(|m| is_clock(m))
                    .map(|m| (m.start, format_clock(m)))
                    .collect();
                let refs: Vec<(usize, &str)> = vals.iter().map(|(i, d)| (*i, d.as_str())).collect();
                push_values(self, s, &refs, &negated_clause, &mut out);
            }
            StrCat::Options(opts) => {
                let text: String = sent.word_lowers().collect::<Vec<_>>().join(" ");
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
                    out.push(self.cand(s, ti, o.clone(), 0));
                }
            }
            StrCat::Address => out.extend(address_candidates(self, s)),
            StrCat::Code => {
                if answerer || role == Role::Direct || role == Role::Echo {
                    out.extend(code_candidates(self, s));
                }
            }
            StrCat::Quote => out.extend(quote_candidates(self, s)),
            StrCat::Name { person, common, .. } => {
                let objective_names =
                    |txt: &str| self.doc.objective_lower.contains(&txt.to_lowercase());
                for (start, end) in proper_spans(sent, self.doc) {
                    let txt = join_tokens(&sent.toks[start..end]);
                    // Names containing the field's own words are the organisation ("Greenway Pharmacy").
                    let own = sent.stems.get(start..end).unwrap_or(&[]).iter().any(|st| {
                        spec.heads.iter().any(|h| h == st) || (*person && spec.is_keyword(st))
                    });
                    if own || (*person && objective_names(&txt)) {
                        continue;
                    }
                    out.push(self.cand(s, start, txt, 0));
                }
                // "Name of the treatment": a common-noun answer ("deep conditioning treatment").
                if out.is_empty() && *common {
                    out.extend(modifier_candidates(self, spec, s, false));
                }
            }
            StrCat::Generic => {
                out.extend(modifier_candidates(self, spec, s, false));
                if answerer {
                    out.extend(generic_candidates(self, spec, s, offered, fragments));
                } else {
                    out.extend(option_choice(self, s, offered));
                }
            }
        }
        out
    }

    fn dates_in(&self, s: usize) -> Vec<(usize, String)> {
        let sent = &self.doc.sents[s];
        let mut out = Vec::new();
        for m in &sent.nums {
            if m.value < 1.0
                || m.value > 31.0
                || m.value.fract() != 0.0
                || m.unit != Unit::None && !matches!(m.unit, Unit::Count(_))
            {
                continue;
            }
            let before = m.start.checked_sub(1).and_then(|i| sent.toks.get(i));
            let month_before = before.and_then(words::month);
            // "the 19th of October"
            let month_after = sent
                .toks
                .get(m.end)
                .filter(|t| t.lower == "of")
                .and_then(|_| sent.toks.get(m.end + 1))
                .and_then(words::month);
            let month = month_before.or(month_after).or_else(|| {
                (m.ordinal && before.is_some_and(|t| t.lower == "the"))
                    .then(|| self.month_before(s, m.start))
                    .flatten()
            });
            if let Some(mo) = month {
                out.push((m.start, format!("{mo} {}", m.value as u32)));
            }
        }
        out
    }

    /// Nearest month named before token `tok` of sentence `s`.
    fn month_before(&self, s: usize, tok: usize) -> Option<&'static str> {
        let sent = &self.doc.sents[s];
        if let Some(m) = sent
            .toks
            .get(..tok)
            .unwrap_or(&[])
            .iter()
            .rev()
            .find_map(words::month)
        {
            return Some(m);
        }
        self.doc
            .sents
            .get(..s)
            .unwrap_or(&[])
            .iter()
            .rev()
            .find_map(|x| x.toks.iter().rev().find_map(words::month))
    }

    /// When nothing raised the field: for kinds whose values are unmistakable
    /// (weekday, month, date, colour, time, street, quoted words) take the last
    /// one stated anywhere; for people, the name the conversation uses most.
    fn string_fallback(&self, spec: &Spec, cat: &StrCat) -> Option<String> {
        match cat {
            StrCat::Weekday
            | StrCat::Month
            | StrCat::Date
            | StrCat::Color
            | StrCat::Time
            | StrCat::Address
            | StrCat::Quote => {
                let mut offered = Vec::new();
                let mut last: Option<StrCand> = None;
                for (s, sent) in self.doc.sents.iter().enumerate() {
                    // The other side's check-backs ("the blue one?") assert a value.
                    let by_agent = self.doc.turns[sent.turn].speaker == Speaker::Agent;
                    if sent.question && by_agent {
                        continue;
                    }
                    let role = if sent.question {
                        Role::Answer
                    } else {
                        Role::Direct
                    };
                    let found = self.string_candidates(spec, cat, s, role, false, &mut offered);
                    if let Some(c) = found.into_iter().next_back() {
                        last = Some(c);
                    }
                }
                last.map(|c| finish_string(cat, &c.text))
            }
            StrCat::Name {
                person: true, part, ..
            } => self.person_fallback(*part),
            _ => None,
        }
    }

    /// The person the call is with or about, for fields like "name of the
    /// tuner": the most-mentioned name that is neither in the objective nor
    /// the agent's client; a self-introduction counts extra.
    fn person_fallback(&self, part: NamePart) -> Option<String> {
        let mut counts: Vec<(String, f64, usize)> = Vec::new();
        let clients = self.client_names();
        for (s, sent) in self.doc.sents.iter().enumerate() {
            for (start, end) in proper_spans(sent, self.doc) {
                let toks = &sent.toks[start..end];
                let name = join_tokens(toks);
                let key = person_key(toks);
                if key.is_empty()
                    || self.doc.objective_lower.contains(&key.to_lowercase())
                    || clients.contains(&key)
                {
                    continue;
                }
                let lw: Vec<&str> = toks.iter().map(|t| t.lower.as_str()).collect();
                if lw
                    .iter()
                    .any(|w| set!(ORG_WORDS).contains(w) || set!(COMMON_CAPS).contains(w))
                {
                    continue;
                }
                let intro = self.is_intro(s, start, end);
                let w = 1.0 + if intro { 2.0 } else { 0.0 };
                match counts.iter_mut().find(|(k, _, _)| *k == key) {
                    Some(entry) => {
                        entry.1 += w;
                        if name.split_whitespace().count() > entry.0.split_whitespace().count() {
                            entry.0 = key.clone();
                        }
                    }
                    None => counts.push((key, w, s)),
                }
            }
        }
        let best = counts.iter().map(|c| c.1).fold(0.0_f64, f64::max);
        let top: Vec<&(String, f64, usize)> = counts.iter().filter(|c| c.1 == best).collect();
        let (name, score, _) = top.first()?;
        if top.len() > 1 || *score < 2.0 {
            return None;
        }
        Some(name_part(name, part))
    }

    /// Whether the span is a self-introduction or a greeting ("this is
    /// Marco", "Hi Walt", "Jake speaking").
    fn is_intro(&self, s: usize, start: usize, end: usize) -> bool {
        let sent = &self.doc.sents[s];
        let lw = |i: usize| sent.toks.get(i).map(|t| t.lower.as_str());
        let before2 = start.checked_sub(2).and_then(&lw);
        let before1 = start.checked_sub(1).and_then(&lw);
        let mr = matches!(before1, Some("mr" | "ms" | "mrs" | "dr"));
        let (b1, b2) = if mr {
            (
                start.checked_sub(2).and_then(&lw),
                start.checked_sub(3).and_then(&lw),
            )
        } else {
            (before1, before2)
        };
        matches!(
            (b2, b1),
            (Some("this"), Some("is"))
                | (Some("name"), Some("is"))
                | (Some("with"), Some("speaking"))
        ) || matches!(b1, Some("hi" | "hello" | "hey" | "thanks" | "thank"))
            || matches!(lw(end), Some("speaking" | "here"))
            || (matches!(b1, Some(",")) && matches!(b2, Some("you" | "thanks")))
    }

    /// Names the agent calls on behalf of ("calling for a customer, Janelle Price").
    fn client_names(&self) -> Vec<String> {
        let mut out = Vec::new();
        for sent in &self.doc.sents {
            let lw: Vec<&str> = sent.toks.iter().map(|t| t.lower.as_str()).collect();
            for (start, end) in proper_spans(sent, self.doc) {
                let window: Vec<&str> = lw
                    .get(start.saturating_sub(6)..start)
                    .unwrap_or(&[])
                    .to_vec();
                let joined = window.join(" ");
                // "on behalf of X", "calling for X", "for a customer, X".
                let for_a = matches!(
                    window.as_slice(),
                    [.., "for", "a" | "an" | "my" | "our", _, ","]
                );
                if joined.contains("behalf of") || joined.ends_with("calling for") || for_a {
                    out.push(person_key(&sent.toks[start..end]));
                }
            }
        }
        out
    }
}

/// Canonical key of a person span: without titles.
fn person_key(toks: &[Token]) -> String {
    toks.iter()
        .filter(|t| !matches!(t.lower.as_str(), "mr" | "ms" | "mrs" | "dr"))
        .map(|t| t.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

fn name_part(name: &str, part: NamePart) -> String {
    let ws: Vec<&str> = name
        .split_whitespace()
        .filter(|w| {
            !matches!(
                w.to_lowercase().trim_end_matches('.'),
                "mr" | "ms" | "mrs" | "dr"
            )
        })
        .collect();
    match part {
        NamePart::First => ws.first().map(|w| w.to_string()).unwrap_or_default(),
        NamePart::Last => ws.last().map(|w| w.to_string()).unwrap_or_default(),
        NamePart::Full => ws.join(" "),
    }
}

fn push_values(
    ctx: &Ctx,
    s: usize,
    vals: &[(usize, &str)],
    negated: &dyn Fn(usize) -> bool,
    out: &mut Vec<StrCand>,
) {
    let sent = &ctx.doc.sents[s];
    let mut distinct: Vec<&str> = vals.iter().map(|(_, v)| *v).collect();
    distinct.sort_unstable();
    distinct.dedup();
    // An offer ("Tuesday, Wednesday, or Friday") names no single value.
    if distinct.len() >= 2 && sent.word_lowers().any(|w| w == "or") {
        return;
    }
    for (ti, v) in vals {
        if negated(*ti) {
            continue;
        }
        out.push(ctx.cand(s, *ti, v.to_string(), 0));
    }
}

fn same_text(a: &str, b: &str) -> bool {
    let na = simple_norm(a);
    let nb = simple_norm(b);
    !na.is_empty() && !nb.is_empty() && (na.contains(&nb) || nb.contains(&na))
}

fn simple_norm(s: &str) -> String {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(stem)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Within a reply, candidates after the last correction cue win; then the
/// best-ranked, earliest one. Across replies the last wins.
fn pick_string(ctx: &Ctx, cands: Vec<StrCand>) -> Option<StrCand> {
    let mut by_turn: Vec<(usize, Vec<StrCand>)> = Vec::new();
    for c in cands {
        match by_turn.last_mut() {
            Some((t, v)) if *t == c.turn => v.push(c),
            _ => by_turn.push((c.turn, vec![c])),
        }
    }
    let (turn, group) = by_turn.pop()?;
    let cue = last_cue_with_followers(ctx, turn, group.iter().map(|c| c.clause).collect());
    let mut group: Vec<StrCand> = group
        .into_iter()
        .filter(|c| cue.is_none_or(|k| c.clause >= k))
        .collect();
    group.sort_by_key(|c| (c.rank, c.sent, c.clause));
    group.into_iter().next()
}

fn finish_string(cat: &StrCat, text: &str) -> String {
    let t = text.trim().trim_matches(|c: char| {
        c.is_ascii_punctuation() && c != '\'' && c != '"' && c != ')' && c != '('
    });
    let t = t.trim();
    match cat {
        StrCat::Name { part, .. } => name_part(t, *part),
        _ => t.to_string(),
    }
}

fn format_clock(m: &NumMention) -> String {
    let (h, mm) = m.clock.unwrap_or((m.value as u32, 0));
    let suffix = match m.pm {
        Some(true) => " pm",
        Some(false) => " am",
        None => "",
    };
    if mm == 0 {
        format!("{h}{suffix}")
    } else {
        format!("{h}:{mm:02}{suffix}")
    }
}

/// Capitalised words that are not names.
#[rustfmt::skip]
const COMMON_CAPS: &[&str] = &[
    "i", "i'm", "i'll", "i'd", "i've", "ok", "okay", "ai", "id", "dj", "tv", "am", "pm", "mr", "ms", "mrs",
    "dr", "hi", "hello", "hey", "yes", "yeah", "no", "thanks", "thank", "sorry", "god", "oh", "rsvp",
    "rsvps", "faq", "usa", "us", "uk", "eu", "asap", "ceo", "gps", "suv", "atm", "pdf", "ssn", "dob", "apr",
    "epipen", "fyi", "vip", "ppo", "hmo", "faq", "ok'd", "aka", "etc", "ps", "ii", "iii", "tba", "tbd",
    "eta", "pin", "vin", "ssn",
];

/// Spans of capitalised words that look like names. Sentence-initial words
/// count only when followed by another capitalised word or seen capitalised
/// mid-sentence elsewhere in the transcript.
fn proper_spans(sent: &Sent, doc: &Doc) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let toks = &sent.toks;
    let first_word = toks.iter().position(|t| t.is_word());
    let is_cap = |i: usize| -> bool {
        let Some(t) = toks.get(i) else { return false };
        if !t.is_word() || !t.is_capitalized() {
            return false;
        }
        let l = t.lower.as_str();
        if set!(COMMON_CAPS).contains(l) || words::weekday(l).is_some() || words::month(t).is_some()
        {
            return false;
        }
        // "That's", "We'll": sentence openers, not names (a possessive "Dev's" is fine).
        let base = l.strip_suffix("'s").unwrap_or(l);
        if set!(STOPWORDS).contains(l)
            || set!(STOPWORDS).contains(base)
            || set!(FILLERS).contains(base)
            || base.contains('\'')
        {
            return false;
        }
        // Spelled-out letters ("C-R-U-Z") are not names.
        let letters = t.text.chars().filter(|c| c.is_alphabetic()).count();
        if letters <= 1 {
            return false;
        }
        if classify_number_word(l).is_some() {
            return false;
        }
        true
    };
    let mut i = 0;
    while i < toks.len() {
        let title = toks.get(i).is_some_and(|t| {
            matches!(t.lower.as_str(), "mr" | "ms" | "mrs" | "dr") && t.is_capitalized()
        });
        let starts_name = is_cap(i) || (title && is_cap(i + 1));
        if !starts_name {
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        while is_cap(i) && toks.get(i).is_some_and(|t| t.space_before) {
            i += 1;
        }
        let end = i;
        let initial = Some(start) == first_word;
        if initial && end - start == 1 && !seen_mid_sentence(doc, &toks[start].text) {
            continue;
        }
        if initial && end - start == 1 && STOPWORDS.contains(&toks[start].lower.as_str()) {
            continue;
        }
        let span_end = end;
        // Possessive "Dev's" → "Dev".
        spans.push((start, span_end));
    }
    spans
}

fn seen_mid_sentence(doc: &Doc, text: &str) -> bool {
    let base = text.strip_suffix("'s").unwrap_or(text);
    doc.sents.iter().any(|s| {
        let first = s.toks.iter().position(|t| t.is_word());
        s.toks.iter().enumerate().any(|(i, t)| {
            Some(i) != first
                && t.is_word()
                && t.is_capitalized()
                && t.text.strip_suffix("'s").unwrap_or(&t.text) == base
        })
    })
}

fn join_tokens(toks: &[Token]) -> String {
    let mut out = String::new();
    for (i, t) in toks.iter().enumerate() {
        if i > 0 && t.space_before {
            out.push(' ');
        }
        let text = t.text.strip_suffix("'s").unwrap_or(&t.text);
        out.push_str(text);
    }
    out
}

fn address_candidates(ctx: &Ctx, s: usize) -> Vec<StrCand> {
    let sent = &ctx.doc.sents[s];
    let mut out = Vec::new();
    for m in &sent.nums {
        let Some(d) = m.digits.clone().or_else(|| {
            (m.value.fract() == 0.0 && m.value >= 1.0).then(|| format!("{}", m.value as u64))
        }) else {
            continue;
        };
        let mut j = m.end;
        // The unit attacher may have taken the street name as a count noun.
        if matches!(m.unit, Unit::Count(_)) {
            j = m.end - 1;
        }
        let mut street = Vec::new();
        while let Some(t) = sent.toks.get(j) {
            if t.is_word() && t.is_capitalized() && street.len() < 4 {
                street.push(t.text.clone());
                j += 1;
            } else {
                break;
            }
        }
        if !street.is_empty() {
            out.push(ctx.cand(s, m.start, format!("{d} {}", street.join(" ")), 0));
        }
    }
    // Without a house number: "on Fulton Avenue".
    if out.is_empty() {
        let toks = &sent.toks;
        for (i, t) in toks.iter().enumerate() {
            if !(t.is_word() && t.is_capitalized() && STREET_SUFFIXES.contains(&t.lower.as_str())) {
                continue;
            }
            let mut start = i;
            while start > 0
                && toks
                    .get(start - 1)
                    .is_some_and(|p| p.is_word() && p.is_capitalized())
                && i - start < 3
            {
                start -= 1;
            }
            if start < i {
                out.push(ctx.cand(s, start, join_tokens(&toks[start..=i]), 1));
            }
        }
    }
    out
}

#[rustfmt::skip]
const STREET_SUFFIXES: &[&str] = &[
    "street", "st", "avenue", "ave", "road", "rd", "boulevard", "blvd", "lane", "ln", "drive", "dr", "court",
    "ct", "way", "place", "pl", "parkway", "pkwy", "highway", "hwy", "terrace", "circle", "square", "trail",
    "alley",
];

fn code_candidates(ctx: &Ctx, s: usize) -> Vec<StrCand> {
    let sent = &ctx.doc.sents[s];
    let mut out = Vec::new();
    // Spelled codes: "D-E-N-four-four-eight", "C 7 7 2".
    let mut i = 0;
    while i < sent.toks.len() {
        let mut code = String::new();
        let mut j = i;
        while let Some(t) = sent.toks.get(j) {
            let single_letter = t.is_word()
                && t.text.chars().count() == 1
                && t.text.chars().all(|c| c.is_ascii_uppercase());
            if single_letter {
                code.push_str(&t.text);
            } else if t.is_word()
                && let Some(words::NumWord::Unit(v)) = classify_number_word(&t.lower)
            {
                code.push_str(&v.to_string());
            } else if t.is_word() && matches!(t.lower.as_str(), "zero" | "oh") && !code.is_empty() {
                code.push('0');
            } else if t.kind == TokKind::Num && t.text.chars().all(|c| c.is_ascii_digit()) {
                code.push_str(&t.text);
            } else if !(t.is_punct('-') || t.is_punct(',')) || code.is_empty() {
                break;
            }
            j += 1;
        }
        let has_letter = code.chars().any(|c| c.is_ascii_alphabetic());
        let has_digit = code.chars().any(|c| c.is_ascii_digit());
        let pieces = sent
            .toks
            .get(i..j)
            .unwrap_or(&[])
            .iter()
            .filter(|t| !t.is_punct('-') && !t.is_punct(','))
            .count();
        // "DEN44812", "7 2 1 9" (digit by digit), "4B" (glued).
        let glued = pieces == 2 && sent.toks.get(i + 1).is_some_and(|t| !t.space_before);
        let spelled = pieces >= 3 && code.len() >= 3;
        if has_digit && ((has_letter && (code.len() >= 4 || glued)) || (!has_letter && spelled)) {
            out.push(ctx.cand(s, i, code, 0));
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    for m in &sent.nums {
        if m.ordinal || m.unit != Unit::None || m.clock.is_some() && m.after_time_prep {
            continue;
        }
        let Some(d) = &m.digits else { continue };
        if d.len() >= 2 && !out.iter().any(|c| c.text.contains(d.as_str())) {
            out.push(ctx.cand(s, m.start, d.clone(), 0));
        }
    }
    out
}

fn quote_candidates(ctx: &Ctx, s: usize) -> Vec<StrCand> {
    let sent = &ctx.doc.sents[s];
    let mut out = Vec::new();
    let mut open: Option<usize> = None;
    for (i, t) in sent.toks.iter().enumerate() {
        if t.is_punct('"') {
            match open {
                None => open = Some(i),
                Some(o) => {
                    let inner = sent.toks.get(o + 1..i).unwrap_or(&[]);
                    if inner.iter().any(Token::is_word) {
                        out.push(ctx.cand(s, o, join_raw(inner), 0));
                    }
                    open = None;
                }
            }
        }
    }
    // A quote left open at the sentence end (the closing mark went to the next sentence).
    if let Some(o) = open {
        let inner = sent.toks.get(o + 1..).unwrap_or(&[]);
        if inner.iter().any(Token::is_word) {
            out.push(ctx.cand(s, o, join_raw(inner), 0));
        }
    }
    out
}

/// Joins tokens back with their original spacing.
fn join_raw(toks: &[Token]) -> String {
    let mut out = String::new();
    for t in toks {
        if !out.is_empty() && t.space_before {
            out.push(' ');
        }
        out.push_str(&t.text);
    }
    out.trim_end_matches(['.', ' ']).to_string()
}

/// "raspberry filling", "a deep conditioning treatment": the words before a
/// head noun of the field name.
fn modifier_candidates(ctx: &Ctx, spec: &Spec, s: usize, from_question: bool) -> Vec<StrCand> {
    let sent = &ctx.doc.sents[s];
    let mut out = Vec::new();
    for (i, st) in sent.stems.iter().enumerate() {
        if st.is_empty() || !spec.heads.iter().any(|h| stems_match(h, st)) {
            continue;
        }
        let mut j = i;
        let mut mods: Vec<&Token> = Vec::new();
        while j > 0 && mods.len() < 3 {
            j -= 1;
            let Some(t) = sent.toks.get(j) else { break };
            let l = t.lower.as_str();
            if !t.is_word()
                || set!(STOPWORDS).contains(l)
                || set!(FILLERS).contains(l)
                || classify_number_word(l).is_some()
                || matches!(
                    l,
                    "any"
                        | "some"
                        | "extra"
                        | "new"
                        | "same"
                        | "food"
                        | "another"
                        | "other"
                        | "few"
                        | "several"
                        | "many"
                        | "couple"
                        | "lot"
                        | "lots"
                        | "various"
                        | "different"
                        | "multiple"
                        | "both"
                        | "all"
                        | "every"
                        | "each"
                        | "more"
                        | "less"
                        | "additional"
                        | "certain"
                        | "usual"
                        | "whole"
                )
                || spec.is_keyword(&sent.stems[j])
            {
                break;
            }
            // "is also taking song requests": a verb, not a modifier.
            let verb_like = (l.ends_with("ing") || l.ends_with("ed"))
                && (1..=2).any(|b| {
                    j.checked_sub(b)
                        .and_then(|k| sent.toks.get(k))
                        .is_some_and(|p| {
                            matches!(
                                p.lower.as_str(),
                                "is" | "are"
                                    | "was"
                                    | "were"
                                    | "be"
                                    | "been"
                                    | "am"
                                    | "i'm"
                                    | "we're"
                                    | "they're"
                                    | "it's"
                                    | "he's"
                                    | "she's"
                            )
                        })
                });
            if verb_like {
                break;
            }
            mods.push(t);
        }
        if mods.is_empty() {
            continue;
        }
        // Questions only lend a value through "a/the X <head>", not "any X <head>".
        if from_question {
            let det = sent.toks.get(j).map(|t| t.lower.as_str());
            if !matches!(det, Some("a" | "an" | "the")) {
                continue;
            }
        }
        mods.reverse();
        let text = mods
            .iter()
            .map(|t| t.text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        out.push(ctx.cand(s, i, text, 1));
    }
    out
}

/// Verbs that make a phrase a clause rather than a bare answer.
#[rustfmt::skip]
const VERBISH: &[&str] = &[
    "is", "are", "was", "were", "be", "been", "has", "have", "had", "do", "does", "did", "can", "could",
    "will", "would", "should", "may", "might", "must", "got", "get", "gets", "go", "goes", "going", "went",
    "come", "comes", "need", "needs", "want", "wants", "think", "know", "take", "takes", "make", "makes",
    "said", "say", "says", "let", "put", "give", "gives", "tell", "told", "looks", "sounds", "works",
];

/// Pleasantries that are never a field value.
#[rustfmt::skip]
const CLOSINGS: &[&str] = &[
    "bye", "goodbye", "thanks", "thank", "welcome", "hello", "hi", "cheers", "care", "later", "problem",
    "worries", "sure", "course", "good", "great", "fine", "okay", "nice", "awesome", "wonderful", "perfect",
];

#[rustfmt::skip]
const LEAD_PHRASES: &[&str] = &[
    "it's", "it is", "that's", "that is", "they're", "she's", "he's", "there's", "we have", "we've got",
    "i've got", "i have", "we got", "i'd say", "i'd like", "i'll have", "i'll take", "let's do",
    "let's go with", "let's say", "we go with", "we use", "we recommend", "go with", "make it", "she'd like",
    "he'd like", "she wants", "he wants", "we'd like", "i want", "she has", "he has", "the answer is",
    "it'd be", "it would be", "probably", "definitely", "mostly", "usually", "just", "only", "for",
];
#[rustfmt::skip]
const TAIL_PHRASES: &[&str] = &[
    "for me", "for her", "for him", "for us", "please", "got it", "thanks", "thank you", "i guess",
    "i think", "that kind of thing", "honestly", "for sure", "then", "mostly", "i suppose", "if possible",
    "too",
];

/// Bare answers: "Algebra.", "Salmon for me.", "Ava's is peanuts."
fn generic_candidates(
    ctx: &Ctx,
    spec: &Spec,
    s: usize,
    offered: &mut Vec<String>,
    fragments: bool,
) -> Vec<StrCand> {
    let sent = &ctx.doc.sents[s];
    let mut out = Vec::new();
    // Remember offers ("I can do strawberry or cherry", "Chocolate, vanilla,
    // or lemon") so a later choice can be read.
    if let Some(list) = listed_options(sent) {
        offered.extend(list);
        return out;
    }
    for c in sent.clause_ids() {
        let words: Vec<&Token> = sent
            .toks
            .get(sent.clause_range(c))
            .unwrap_or(&[])
            .iter()
            .filter(|t| t.is_word())
            .collect();
        if let Some(p) = words.iter().position(|t| t.lower == "or")
            && let (Some(a), Some(b)) = (
                p.checked_sub(1).and_then(|i| words.get(i)),
                words.get(p + 1),
            )
        {
            offered.push(a.lower.clone());
            offered.push(b.lower.clone());
            return out;
        }
    }
    out.extend(option_choice(ctx, s, offered));
    // "Raspberry, hmm, our supplier's out": a value named only to be refused.
    let whole: String = sent.word_lowers().collect::<Vec<_>>().join(" ");
    if !fragments || is_refusal_text(&whole) || has_split_phrase(&whole, phrases!(DODGES)) {
        return out;
    }
    for c in sent.clause_ids() {
        let text = clause_text(sent, c);
        // "Yes, thanks for calling back": pleasantries carry no value.
        if text.is_empty() || text.split(' ').any(|w| set!(CLOSINGS).contains(w)) {
            continue;
        }
        let range = sent.clause_range(c);
        let toks: Vec<&Token> = sent
            .toks
            .get(range)
            .unwrap_or(&[])
            .iter()
            .filter(|t| t.is_word())
            .collect();
        let mut lo = 0;
        let mut hi = toks.len();
        // Strip leading fillers and lead phrases, trailing tails.
        loop {
            let rest: Vec<&str> = toks[lo..hi].iter().map(|t| t.lower.as_str()).collect();
            let joined = rest.join(" ");
            if let Some(first) = rest.first()
                && (set!(FILLERS).contains(first)
                    || matches!(*first, "sure" | "yep" | "yup" | "and" | "the" | "a" | "an"))
            {
                lo += 1;
                continue;
            }
            if let Some(p) = LEAD_PHRASES
                .iter()
                .find(|p| joined == **p || joined.starts_with(&format!("{p} ")))
            {
                lo += p.split(' ').count();
                continue;
            }
            // "Ava's is peanuts": drop a short subject before "is".
            if let Some(is) = rest.iter().position(|w| matches!(*w, "is" | "are" | "was"))
                && is <= 2
                && is + 1 < rest.len()
            {
                lo += is + 1;
                continue;
            }
            if let Some(p) = TAIL_PHRASES
                .iter()
                .find(|p| joined.ends_with(&format!(" {p}")))
            {
                hi -= p.split(' ').count();
                continue;
            }
            break;
        }
        if lo >= hi {
            continue;
        }
        let core = &toks[lo..hi];
        let n = core.len();
        let first = core[0].lower.as_str();
        let pronoun_start = matches!(
            first,
            "i" | "we"
                | "you"
                | "he"
                | "she"
                | "they"
                | "it"
                | "my"
                | "your"
                | "his"
                | "her"
                | "our"
                | "their"
                | "this"
                | "that"
                | "there"
        );
        let all_stop = core.iter().all(|t| {
            set!(STOPWORDS).contains(t.lower.as_str()) || spec.is_own_word(&stem(&t.lower))
        }) || core
            .iter()
            .any(|t| set!(CLOSINGS).contains(t.lower.as_str()));
        let verbish = core
            .iter()
            .any(|t| set!(VERBISH).contains(t.lower.as_str()));
        if n > 4
            || pronoun_start
            || all_stop
            || verbish
            || core
                .iter()
                .any(|t| ACCEPT_WORDS.contains(&t.lower.as_str()))
        {
            continue;
        }
        let text = core
            .iter()
            .map(|t| t.text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        out.push(ctx.cand(s, toks_index(sent, core[0]), text, 2));
    }
    out
}

fn toks_index(sent: &Sent, tok: &Token) -> usize {
    sent.toks
        .iter()
        .position(|t| std::ptr::eq(t, tok))
        .unwrap_or(0)
}

/// The items of a short list with "or": "Chocolate, vanilla, or lemon."
fn listed_options(sent: &Sent) -> Option<Vec<String>> {
    let ids = sent.clause_ids();
    let texts: Vec<&str> = ids
        .iter()
        .map(|&c| clause_text(sent, c))
        .filter(|t| !t.is_empty())
        .collect();
    if texts.len() < 2 || !texts.iter().any(|t| t.starts_with("or ")) {
        return None;
    }
    let items: Vec<String> = texts
        .iter()
        .map(|t| {
            t.trim_start_matches("or ")
                .trim_start_matches("and ")
                .to_string()
        })
        .collect();
    items
        .iter()
        .all(|i| i.split(' ').count() <= 2)
        .then_some(items)
}

/// A sentence naming exactly one previously offered option.
fn option_choice(ctx: &Ctx, s: usize, offered: &[String]) -> Vec<StrCand> {
    let sent = &ctx.doc.sents[s];
    let hits: Vec<(usize, &Token)> = sent
        .toks
        .iter()
        .enumerate()
        .filter(|(_, t)| t.is_word() && offered.contains(&t.lower))
        .collect();
    let mut distinct: Vec<&str> = hits.iter().map(|(_, t)| t.lower.as_str()).collect();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() != 1 {
        return Vec::new();
    }
    hits.first()
        .map(|(i, t)| ctx.cand(s, *i, t.text.clone(), 0))
        .into_iter()
        .collect()
}

#[cfg(test)]
mod trace {
    //! `CASE=public-07 cargo test trace_case -- --ignored --nocapture` prints
    //! how each field of a labelled case was read.
    use super::*;

    #[test]
    #[ignore = "debugging aid"]
    fn trace_case() {
        let id = std::env::var("CASE").unwrap_or_else(|_| "public-01".into());
        let dir = if id.starts_with("extra") {
            "extraction_extra"
        } else {
            "extraction"
        };
        let path = format!("{}/tests/data/{dir}/{id}.json", env!("CARGO_MANIFEST_DIR"));
        let Ok(text) = std::fs::read_to_string(&path) else {
            return;
        };
        let Ok(case) = serde_json::from_str::<Value>(&text) else {
            return;
        };
        let objective = case["objective"].as_str().unwrap_or_default();
        let transcript = case["transcript"].as_str().unwrap_or_default();
        let fields: Vec<FieldDefinition> =
            serde_json::from_value(case["fields"].clone()).unwrap_or_default();
        let doc = Doc::parse(objective, transcript);
        let specs = build_specs(&fields, &doc);
        let ctx = Ctx::new(&doc, &specs);
        for (fi, spec) in specs.iter().enumerate() {
            println!("== {} {:?}", spec.def.name, spec.kind);
            println!(
                "   kw: {}",
                spec.kw
                    .iter()
                    .map(|k| format!("{}:{:.2}", k.stem, k.w))
                    .collect::<Vec<_>>()
                    .join(" ")
            );
            for t in 0..doc.turns.len() {
                if ctx.topic[fi][t] > 0.0 {
                    println!(
                        "   topic t{t}: {:.2} loose={:?}",
                        ctx.topic[fi][t],
                        ctx.topics(t, 0.6)
                    );
                }
            }
            for e in ctx.evidence(fi, false) {
                let s = &doc.sents[e.sent];
                let text = s
                    .toks
                    .iter()
                    .map(|t| t.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ");
                println!(
                    "   ev s{} t{} {:?} rel={:.2}: {text}",
                    e.sent, s.turn, e.role, ctx.rel[fi][e.sent]
                );
            }
        }
        let out = OfflineExtractor::new().extract(objective, &fields, transcript);
        println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        println!("expected {}", case["expected"]);
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn field(name: &str, t: FieldType, desc: &str) -> FieldDefinition {
        FieldDefinition {
            name: name.into(),
            field_type: t,
            description: Some(desc.into()),
        }
    }

    fn run(fields: &[FieldDefinition], transcript: &str) -> Map<String, Value> {
        OfflineExtractor::new().extract("Call the shop.", fields, transcript)
    }

    #[test]
    fn undiscussed_fields_are_null_and_all_keys_present() {
        let fields = [
            field(
                "loaner_available",
                FieldType::Boolean,
                "Whether a loaner car is available",
            ),
            field("shirt_size", FieldType::String, "T-shirt size"),
            field("copay", FieldType::Number, "Copay in dollars"),
        ];
        let out = run(
            &fields,
            "Agent: Hi, is the car ready?\nRecipient: Yes, it's ready.",
        );
        assert_eq!(out.len(), 3);
        assert!(out.values().all(Value::is_null), "{out:?}");
    }

    #[test]
    fn reads_final_answer_after_correction() {
        let fields = [field(
            "party_size",
            FieldType::Number,
            "Number of people coming",
        )];
        let t = "Agent: How many people will be coming?\n\
                 Recipient: Four of us. Actually, make that three, my brother can't come.\n\
                 Agent: Three, got it.";
        assert_eq!(run(&fields, t)["party_size"], json!(3));
    }

    #[test]
    fn dodges_give_null_and_indirect_answers_count() {
        let fields = [
            field("will_attend", FieldType::Boolean, "Whether she will attend"),
            field("needs_ride", FieldType::Boolean, "Whether she needs a ride"),
            field(
                "can_volunteer",
                FieldType::Boolean,
                "Whether she can volunteer",
            ),
        ];
        let t = "Agent: Will you attend the meeting on Friday?\n\
                 Recipient: I'll be there.\n\
                 Agent: Do you need a ride?\n\
                 Recipient: Hmm, I'm not sure yet, let me get back to you.\n\
                 Agent: Could you volunteer at the desk?\n\
                 Recipient: That won't work for me, sorry.";
        let out = run(&fields, t);
        assert_eq!(out["will_attend"], json!(true));
        assert_eq!(out["needs_ride"], Value::Null);
        assert_eq!(out["can_volunteer"], json!(false));
    }

    #[test]
    fn agent_stated_fee_counts() {
        let fields = [field("late_fee", FieldType::Number, "Late fee in dollars")];
        let t = "Recipient: Can I pay next week?\n\
                 Agent: Yes, but there's a late fee of twenty-five dollars.\n\
                 Recipient: Okay.";
        assert_eq!(run(&fields, t)["late_fee"], json!(25));
    }

    #[test]
    fn weekday_and_name() {
        let fields = [
            field(
                "pickup_day",
                FieldType::String,
                "Day of the week for pickup",
            ),
            field(
                "clerk_name",
                FieldType::String,
                "First name of the staff member on the call",
            ),
        ];
        let t = "Recipient: Main Street Cleaners, this is Rosa.\n\
                 Agent: Hi Rosa, when can my client pick up the coat?\n\
                 Recipient: Tuesday. No wait, Wednesday, the tailor's out Tuesday.\n\
                 Agent: Wednesday, thank you Rosa.";
        let out = run(&fields, t);
        assert_eq!(out["pickup_day"], json!("Wednesday"));
        assert_eq!(out["clerk_name"], json!("Rosa"));
    }

    #[test]
    fn odd_input_does_not_panic() {
        let fields = [
            field("a", FieldType::Boolean, ""),
            field("b", FieldType::Number, "(e.g. 5"),
            field("", FieldType::String, "name: x, or y"),
            field("a", FieldType::String, "duplicate name"),
        ];
        for t in [
            "",
            "\n\n",
            "Agent:",
            "Recipient: ???",
            "no label at all",
            "Agent: é😀 ñ — … “quoted” 12th 3:4 $",
            "Agent: - - 1,2,3 ... a.m. p.",
        ] {
            let out = run(&fields, t);
            assert_eq!(out.len(), 3);
        }
    }
}
