//! `CASE=public-07 cargo test trace_case -- --ignored --nocapture` prints
//! how each field of a labelled case was read.

use super::RulesExtractor;
use super::evidence::Analysis;
use super::profile::build_profiles;
use super::transcript::Transcript;
use agentcall::domain::FieldDefinition;
use serde_json::Value;

/// The frozen held-out sets: never traced or dumped, so nobody tunes on them.
const FROZEN: [&str; 1] = ["extraction-heldout-14"];

#[test]
#[ignore = "debugging aid"]
fn trace_case() {
    let id = std::env::var("CASE").unwrap_or_else(|_| "public-01".into());
    // Never a frozen held-out set (`FROZEN`): nobody tunes on it.
    let dir = match id.split_once('-') {
        Some(("extra", _)) => "extraction_extra".to_owned(),
        Some(("dev", _)) => "extraction-dev".to_owned(),
        Some(("d2", _)) => "extraction-dev-2".to_owned(),
        Some(("heldout", _)) => "extraction-heldout".to_owned(),
        Some((set, _))
            if FROZEN.contains(&format!("extraction-heldout-{}", &set[1..]).as_str()) =>
        {
            return;
        }
        Some((set, _)) if set.starts_with('h') => format!("extraction-heldout-{}", &set[1..]),
        _ => "extraction".to_owned(),
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
    let parsed = Transcript::parse_text(objective, transcript);
    let profiles = build_profiles(&fields, &parsed);
    let analysis = Analysis::new(&parsed, &profiles);
    for field in analysis.field_indices() {
        let profile = &analysis.profiles[field];
        println!("== {} {:?}", profile.definition.name, profile.kind);
        println!(
            "   kw: {}",
            profile
                .keywords
                .iter()
                .map(|k| format!("{}:{:.2}", k.stem, k.weight))
                .collect::<Vec<_>>()
                .join(" ")
        );
        for turn in analysis.turn_indices() {
            if analysis.topic(field, turn) > 0.0 {
                println!(
                    "   topic t{}: {:.2} loose={:?}",
                    turn.0,
                    analysis.topic(field, turn),
                    analysis.topics(turn, 0.6)
                );
            }
        }
        for item in analysis.evidence(field, false) {
            let sentence = &parsed.sentences[item.sentence];
            let text = sentence
                .tokens
                .iter()
                .map(|t| t.text.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            let numbers: Vec<String> = sentence
                .numbers
                .iter()
                .map(|m| format!("{}{:?}", m.value, m.unit))
                .collect();
            println!(
                "   ev s{} t{} {:?} rel={:.2}: {text} {numbers:?}",
                item.sentence.0,
                sentence.turn.0,
                item.role,
                analysis.relevance(field, item.sentence)
            );
        }
        if let super::profile::ValueKind::Number(number_profile) = &profile.kind {
            for c in analysis
                .scored_candidates(field, number_profile)
                .unwrap_or_default()
            {
                println!(
                    "   cand s{} t{} {} score={:.2} answered={} echo={}",
                    c.sentence.0, c.turn.0, c.value, c.score, c.answered, c.echo
                );
            }
        }
    }
    let text = transcript;
    let transcript = &agentcall::Transcript::from_text(text);
    let out = RulesExtractor::new().extract(objective, &fields, transcript);
    println!(
        "{}",
        serde_json::to_string_pretty(&out.values).unwrap_or_default()
    );
    for (name, quote) in &out.quotes {
        println!("   quote {name}: {:?} {:?}", quote.speaker, quote.text);
    }
    let grounded = agentcall::extract::ground(&fields, &out, transcript);
    println!("grounded {}", serde_json::Value::Object(grounded.values));
    for (name, reason) in &grounded.reasons {
        println!("   reason {name}: {reason}");
    }
    println!("expected {}", case["expected"]);
}

/// `cargo test --lib dump_features -- --ignored` writes one row per value
/// the offline extractor reads on the development sets to
/// `/tmp/features.tsv`: how it was read, whether it changes when one line
/// of the call is left out (`ch_val`, `ch_null`, and where: `cv_…`), and
/// the label. `SETS=extraction-heldout-7,…` picks other sets; for a frozen
/// set, read only aggregate figures. The set kept for first contact (the
/// thirteenth) is never dumped.
#[test]
#[ignore = "analysis aid"]
fn dump_features() {
    use super::profile::ValueKind;
    use super::transcript::Speaker;
    let sets = std::env::var("SETS").ok();
    let default_dirs = [
        "extraction",
        "extraction_extra",
        "extraction-dev",
        "extraction-dev-2",
        "extraction-heldout",
        "extraction-heldout-2",
        "extraction-heldout-3",
        "extraction-heldout-4",
        "extraction-heldout-5",
        "extraction-heldout-6",
    ];
    let dirs: Vec<&str> = sets
        .as_deref()
        .map_or_else(|| default_dirs.to_vec(), |s| s.split(',').collect())
        .into_iter()
        .filter(|d| !FROZEN.contains(d))
        .collect();
    let mut rows = vec![
        "case\tfield\tkind\texpected\tgot\tspeaker\tasks_prev\ttopic_prev\traised_prev\trel\tnums_turn\tnums_sent\ttopic_turns\tgap\tlater_topic\tquote_words\tfirst_word\tsents_turn\tprev_question\tch_val\tch_null\tcv_before\tcv_q\tcv_self\tcv_next\tcv_after\tbasis"
            .to_string(),
    ];
    for dir in dirs {
        let root = format!("{}/tests/data/{dir}", env!("CARGO_MANIFEST_DIR"));
        let mut paths: Vec<_> = std::fs::read_dir(&root)
            .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
            .unwrap_or_default();
        paths.sort();
        for path in paths
            .iter()
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
        {
            let Ok(case) = std::fs::read_to_string(path)
                .map_err(|_| ())
                .and_then(|t| serde_json::from_str::<Value>(&t).map_err(|_| ()))
            else {
                continue;
            };
            let objective = case["objective"].as_str().unwrap_or_default();
            let transcript = case["transcript"].as_str().unwrap_or_default();
            let fields: Vec<FieldDefinition> =
                serde_json::from_value(case["fields"].clone()).unwrap_or_default();
            let text = transcript;
            let transcript = &agentcall::Transcript::from_text(text);
            let out = RulesExtractor::new().extract(objective, &fields, transcript);
            let grounded = agentcall::extract::ground(&fields, &out, transcript);
            let lines: Vec<&str> = text.lines().collect();
            let without: Vec<serde_json::Map<String, Value>> = (0..lines.len())
                .map(|skip| {
                    let t: Vec<&str> = lines
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| *i != skip)
                        .map(|(_, l)| *l)
                        .collect();
                    let t = agentcall::Transcript::from_text(&t.join("\n"));
                    let o = RulesExtractor::new().extract(objective, &fields, &t);
                    agentcall::extract::ground(&fields, &o, &t).values
                })
                .collect();
            let parsed = Transcript::parse(objective, transcript);
            let profiles = build_profiles(&fields, &parsed);
            let analysis = Analysis::new(&parsed, &profiles);
            for field in analysis.field_indices() {
                let profile = &analysis.profiles[field];
                let name = &profile.definition.name;
                let got = grounded.values.get(name).cloned().unwrap_or(Value::Null);
                if got.is_null() {
                    continue;
                }
                let basis = match &profile.kind {
                    ValueKind::Boolean => analysis
                        .read_bool(field)
                        .map_or("-".to_owned(), |(_, _, basis)| format!("{basis:?}")),
                    _ => "-".to_owned(),
                };
                let source = match &profile.kind {
                    ValueKind::Boolean => analysis.extract_bool(field).map(|(_, s)| s),
                    ValueKind::Number(p) => analysis.extract_number(field, p).map(|(_, s)| s),
                    ValueKind::Text(k) => analysis.extract_string(field, k).map(|(_, s)| s),
                };
                let Some(source) = source else { continue };
                let sentence = &parsed.sentences[source.from.0];
                let turn = sentence.turn;
                let prev = turn.previous();
                let topic_turns: Vec<usize> = analysis
                    .turn_indices()
                    .filter(|t| analysis.topic(field, *t) > 0.0)
                    .map(|t| t.0)
                    .collect();
                let gap = topic_turns
                    .iter()
                    .rfind(|t| **t <= turn.0)
                    .map_or(99, |t| turn.0 - t);
                let later = topic_turns.iter().any(|t| *t > turn.0 + 1);
                let kind = match profile.kind {
                    ValueKind::Boolean => "b",
                    ValueKind::Number(_) => "n",
                    ValueKind::Text(_) => "s",
                };
                let speaker = if parsed.turns[turn.0].speaker == Speaker::Agent {
                    "A"
                } else {
                    "R"
                };
                let nums_turn: usize = parsed.turns[turn.0]
                    .sentences
                    .iter()
                    .map(|s| parsed.sentences[s.0].numbers.len())
                    .sum();
                let quote_words: usize = (source.from.0..=source.to.0)
                    .map(|s| parsed.sentences[s].tokens.len())
                    .sum();
                let first = sentence.word_lowers().next().unwrap_or("").to_string();
                let prev_question = prev.is_some_and(|p| {
                    parsed.turns[p.0]
                        .sentences
                        .iter()
                        .any(|s| parsed.sentences[s.0].question)
                });
                let same_lines = parsed.turns.len() == lines.len();
                let changed_where = |rel: i64| {
                    without
                        .iter()
                        .enumerate()
                        .filter(|(i, w)| {
                            let d = *i as i64 - turn.0 as i64;
                            let bucket = if d < -1 {
                                -2
                            } else if d > 1 {
                                2
                            } else {
                                d
                            };
                            let v = w.get(name).cloned().unwrap_or(Value::Null);
                            same_lines && bucket == rel && v != got && !v.is_null()
                        })
                        .count()
                };
                let where_ = format!(
                    "{}\t{}\t{}\t{}\t{}",
                    changed_where(-2),
                    changed_where(-1),
                    changed_where(0),
                    changed_where(1),
                    changed_where(2)
                );
                let changed = |to_null: bool| {
                    without
                        .iter()
                        .filter(|w| {
                            let v = w.get(name).cloned().unwrap_or(Value::Null);
                            v != got && v.is_null() == to_null
                        })
                        .count()
                };
                rows.push(format!(
                    "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.2}\t{}\t{:.2}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                    case["id"].as_str().unwrap_or_default(),
                    name,
                    kind,
                    case["expected"][name.as_str()],
                    got,
                    speaker,
                    prev.is_some_and(|p| analysis.asks_about(field, p)),
                    prev.map_or(0.0, |p| analysis.topic(field, p)),
                    prev.map_or(0, |p| analysis.raised(p).len()),
                    analysis.relevance(field, source.from),
                    nums_turn,
                    sentence.numbers.len(),
                    topic_turns.len(),
                    gap,
                    later,
                    quote_words,
                    first,
                    parsed.turns[turn.0].sentences.len(),
                    prev_question,
                    changed(false),
                    changed(true),
                    where_,
                    basis,
                ));
            }
        }
    }
    let _ = std::fs::write("/tmp/features.tsv", rows.join("\n") + "\n");
}

/// `cargo test --lib dump_mentions -- --ignored` writes every number
/// mention of the development sets' calls, with its unit, to
/// `/tmp/mentions.tsv`: for finding how words are misread as units.
#[test]
#[ignore = "analysis aid"]
fn dump_mentions() {
    let mut rows = vec!["case\tvalue\tunit\tper\twords".to_string()];
    let root = format!("{}/tests/data", env!("CARGO_MANIFEST_DIR"));
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    dirs.sort();
    for dir in dirs
        .iter()
        .filter(|d| d.is_dir() && !FROZEN.iter().any(|f| d.ends_with(f)))
    {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for path in entries.filter_map(Result::ok).map(|e| e.path()) {
            let Ok(case) = std::fs::read_to_string(&path)
                .map_err(|_| ())
                .and_then(|t| serde_json::from_str::<Value>(&t).map_err(|_| ()))
            else {
                continue;
            };
            let transcript = case["transcript"].as_str().unwrap_or_default();
            let parsed = Transcript::parse_text("", transcript);
            for sentence in &parsed.sentences {
                for m in &sentence.numbers {
                    let words: Vec<&str> = sentence.tokens
                        [m.start.saturating_sub(2)..(m.end + 2).min(sentence.tokens.len())]
                        .iter()
                        .map(|t| t.text.as_str())
                        .collect();
                    rows.push(format!(
                        "{}\t{}\t{:?}\t{:?}\t{}",
                        case["id"].as_str().unwrap_or_default(),
                        m.value,
                        m.unit,
                        m.per,
                        words.join(" ")
                    ));
                }
            }
        }
    }
    std::fs::write("/tmp/mentions.tsv", rows.join("\n") + "\n").ok();
}
