//! Every row of the shared `numbers.tsv` must get its expected verdict.

mod numbers_common;

use agentcall::guardrails::NumberClassifier;

#[test]
fn numbers_tsv_agrees_with_libphonenumber() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/numbers.tsv");
    let data = std::fs::read_to_string(path).expect("read tests/data/numbers.tsv");
    let classifier = NumberClassifier::new();
    let engine = agentcall::Guardrails::default();
    let mut rows = 0;
    let mut disagreements = Vec::new();
    // Fields are never trimmed: some inputs carry whitespace or BOMs on purpose.
    for line in data.split('\n').skip(1).filter(|l| !l.is_empty()) {
        let fields: Vec<&str> = line.split('\t').collect();
        let [input, expected, region, kind, category] = fields[..] else {
            panic!("malformed row: {line:?}");
        };
        rows += 1;
        let got = numbers_common::verdict(&engine, input);
        let detail = classifier.classify(input);
        // Beyond the verdict: a valid number must also get libphonenumber's
        // region ("001" for non-geographic entities) and type.
        let reading_differs = expected != "invalid_number"
            && detail.as_ref().is_ok_and(|n| {
                (
                    n.region.unwrap_or("001"),
                    numbers_common::type_name(n.number_type),
                ) != (region, kind)
            });
        if got != expected || reading_differs {
            disagreements.push(format!(
                "{input:?}: expected {expected} ({region} {kind}, {category}), got {got}: {detail:?}"
            ));
        }
    }
    for line in &disagreements {
        eprintln!("{line}");
    }
    println!(
        "numbers.tsv: {} of {rows} rows agree",
        rows - disagreements.len()
    );
    assert!(rows > 1900, "only {rows} rows read");
    assert!(
        disagreements.is_empty(),
        "{} disagreements",
        disagreements.len()
    );
}
