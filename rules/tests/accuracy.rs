//! Scores `RulesExtractor` + `ground` (what the service stores) on the
//! labelled transcripts in `tests/data/` with the README's exact rule:
//! accuracy and wrong non-null values, overall and per type.
//!
//! Run with `cargo test --test extraction_accuracy -- --nocapture` to see
//! the figures and every miss.

mod extraction_scoring;

use agentcall::domain::FieldType;
use agentcall::extract::ground;
use agentcall_rules::RulesExtractor;
use extraction_scoring::{Case, Tally, is_correct, load_cases, norm};
use serde_json::Value;

/// Scores every case as the service stores it (the extractor's values
/// after [`ground`]); prints the figures, and the misses when `show_misses`
/// (never for a frozen held-out set, so that nobody tunes on it); returns
/// the overall tally.
fn score_both(cases: &[Case], show_misses: bool) -> Tally {
    let ex = RulesExtractor::new();
    let (mut all, mut boolean, mut number, mut string) = (
        Tally::default(),
        Tally::default(),
        Tally::default(),
        Tally::default(),
    );
    let mut false_non_null = 0;
    let mut misses = Vec::new();
    for case in cases {
        let extraction = ex.extract(&case.objective, &case.fields, &case.transcript);
        let grounded = ground(&case.fields, &extraction, &case.transcript);
        let got = grounded.values;
        for f in &case.fields {
            let e = case.expected.get(&f.name).cloned().unwrap_or(Value::Null);
            let p = got.get(&f.name).cloned().unwrap_or(Value::Null);
            let ok = is_correct(f.field_type, &e, &p);
            all.add(ok, &p);
            match f.field_type {
                FieldType::Boolean => boolean.add(ok, &p),
                FieldType::Number => number.add(ok, &p),
                FieldType::String => string.add(ok, &p),
            }
            if !ok {
                if e.is_null() {
                    false_non_null += 1;
                }
                let why = grounded.reasons.get(&f.name).map_or("", String::as_str);
                misses.push(format!(
                    "  {} {} ({:?}): expected {e}, got {p} {why}",
                    case.id, f.name, f.field_type
                ));
            }
        }
    }
    for (name, t) in [
        ("overall", &all),
        ("boolean", &boolean),
        ("number", &number),
        ("string", &string),
    ] {
        println!(
            "{name:<8} accuracy {:.1}% ({}/{} fields), wrong non-null {:.1}% ({})",
            100.0 * t.ratio(),
            t.right,
            t.total,
            100.0 * t.wrong_rate(),
            t.wrong_values
        );
    }
    println!("false non-null (expected null, got a value): {false_non_null}");
    if show_misses {
        println!("misses ({}):", misses.len());
        for m in &misses {
            println!("{m}");
        }
    }
    all
}

/// What a set must keep scoring: at least `right` correct fields and at
/// most `wrong` wrong non-null values, out of `fields`.
struct Floor {
    fields: usize,
    right: usize,
    wrong: usize,
}

/// Scores `set` and holds it to its floor: the figures measured at the end
/// of the latest work on the rules. Each set's comment below tells its
/// history up to the session it was last studied in; the floors are the
/// tenth session's final figures.
fn holds(set: &str, cases: usize, show_misses: bool, floor: Floor) {
    let loaded = load_cases(set);
    assert_eq!(loaded.len(), cases, "{set}");
    let all = score_both(&loaded, show_misses);
    println!(
        "{set}: {}/{} right, {} wrong non-null",
        all.right, all.total, all.wrong_values
    );
    assert_eq!(all.total, floor.fields, "{set}");
    assert!(
        all.right >= floor.right,
        "{set}: {} right, below the floor of {}",
        all.right,
        floor.right
    );
    assert!(
        all.wrong_values <= floor.wrong,
        "{set}: {} wrong non-null values, above the ceiling of {}",
        all.wrong_values,
        floor.wrong
    );
}

/// The 30 public cases (tuned on): 129/141 (91.5%), no wrong value.
#[test]
fn offline_extraction_accuracy() {
    let floor = Floor {
        fields: 141,
        right: 129,
        wrong: 0,
    };
    holds("extraction", 30, true, floor);
}

/// Our own cases, written before the first rules (tuned on since):
/// 125/146 (85.6%), 2 wrong values (1 until the seventh session's rule
/// that a time in a clause naming the field outranks the reply's other
/// times read "the gate closes at four thirty, but we stop taking
/// appliances at four", labelled `null`, as 16:30).
#[test]
fn offline_extraction_on_own_cases() {
    let floor = Floor {
        fields: 146,
        right: 125,
        wrong: 2,
    };
    holds("extraction_extra", 30, true, floor);
}

/// A development set (`tests/data/extraction-dev/`), written blind to the
/// rules after the first held-out set was frozen, and tuned on since:
/// 174/240 (72.5%), 6 wrong values (2.5%; 5 until "at" a figure over 24
/// became a price, which read "I'm at sixty-two now" as a salary).
#[test]
fn offline_extraction_on_the_dev_set() {
    let floor = Floor {
        fields: 240,
        right: 178,
        wrong: 6,
    };
    holds("extraction-dev", 48, true, floor);
}

/// The second development set (`tests/data/extraction-dev-2/`), written
/// blind on 2026-11-27 in the style of the third and fourth held-out sets
/// and tuned on since. First contact (the rules at `7dd4b0e`): 133/281
/// (47.3%), 66 wrong non-null values (23.5%); at `ec77a62` 158 (56.2%)
/// and 37 (13.2%); at `52ace8b` 177 (63.0%) and 24 (8.5%); at the end of
/// the fourth session 183 (65.1%) and 21 (7.5%).
#[test]
fn offline_extraction_on_the_second_dev_set() {
    let floor = Floor {
        fields: 281,
        right: 199,
        wrong: 15,
    };
    holds("extraction-dev-2", 64, true, floor);
}

/// The first held-out set (`tests/data/extraction-heldout/`), written blind
/// to the rules: at first contact 180/285 (63.2%) with 61 wrong values
/// (21.4%), 173 (60.7%) with 37 (13.0%) at the end of the work it measured.
/// Development data since 2026-11-26 (its misses were read, and rules were
/// tuned on it on 2026-11-27): 182 (63.9%) with 27 (9.5%) at `ec77a62`,
/// 185 (64.9%) with 26 (9.1%) at `52ace8b`, 194 (68.1%) with 18 (6.3%) at
/// the end of the fourth session.
#[test]
fn offline_extraction_on_the_held_out_set() {
    let floor = Floor {
        fields: 285,
        right: 202,
        wrong: 15,
    };
    holds("extraction-heldout", 64, true, floor);
}

/// The second held-out set (`tests/data/extraction-heldout-2/`), written
/// blind on 2026-11-26 and measured once while frozen: 176/267 (65.9%), 25
/// wrong non-null values (9.4%). Development data since 2026-11-27, when
/// the third held-out set replaced it (its misses were read and rules tuned
/// on it): 190 (71.2%) with 13 (4.9%) at `ec77a62`, 197 (73.8%) with 12
/// (4.5%) at `52ace8b`, 200 (74.9%) with 10 (3.7%) at the end of the
/// fourth session.
#[test]
fn offline_extraction_on_the_second_held_out_set() {
    let floor = Floor {
        fields: 267,
        right: 201,
        wrong: 10,
    };
    holds("extraction-heldout-2", 64, true, floor);
}

/// The third held-out set (`tests/data/extraction-heldout-3/`), written
/// blind to the rules and to the other sets on 2026-11-27, committed before
/// any rule changed, and frozen until it was made a development set in the
/// third session of 2026-11-27 (its misses printed and tuned on since).
/// First contact (the rules at `e275f0a`): 153/280 (54.6%), 58 wrong
/// non-null values (20.7%); final at the end of tuning (`f42fb9f`): 162
/// (57.9%), 45 (16.1%); after the review mends (`ec77a62`, made without
/// looking at any held-out set): 163 (58.2%), 44 (15.7%). Its writers'
/// reports described some of its cases, and a few rules since were checked
/// against calls shaped on those descriptions, so its final figures are
/// not clean; the fourth set's are. Measured once more, figures only,
/// after the fifth set's work (`52ace8b`) and after the review mends: 164
/// (58.6%), 46 (16.4%). As a development set, at the end of the third
/// session's tuning: 183 (65.4%), 25; of the fourth: 186 (66.4%), 21.
#[test]
fn offline_extraction_on_the_third_held_out_set() {
    let floor = Floor {
        fields: 280,
        right: 204,
        wrong: 21,
    };
    holds("extraction-heldout-3", 64, true, floor);
}

/// The fourth held-out set (`tests/data/extraction-heldout-4/`), written
/// blind on 2026-11-27 by writers who reported only counts, committed
/// before any rule changed after it, and frozen until it was made a
/// development set in the third session of 2026-11-27 (its misses printed
/// and tuned on since). First contact (the rules at `bbfffb4`): 159/284 (56.0%),
/// 56 wrong non-null values (19.7%); final at the end of tuning
/// (`f42fb9f`): 172 (60.6%), 44 (15.5%); after the review mends
/// (`ec77a62`, made without looking at any held-out set): 172 (60.6%), 43
/// (15.1%); boolean 73.7% / 15.2%, number 49.5% / 13.5%, string 59.5% /
/// 17.6%. Measured once more, figures only, after the fifth set's work
/// (`52ace8b`): 176 (62.0%), 44 (15.5%); after the review mends (`5578008`):
/// 177 (62.3%), 44. As a development set, at the end of the third
/// session's tuning: 191 (67.3%), 29; of the fourth: 202 (71.1%), 17.
#[test]
fn offline_extraction_on_the_fourth_held_out_set() {
    let floor = Floor {
        fields: 284,
        right: 214,
        wrong: 12,
    };
    holds("extraction-heldout-4", 64, true, floor);
}

/// The fifth frozen held-out set (`tests/data/extraction-heldout-5/`),
/// written blind on 2026-11-27 by writers who reported only counts, and
/// committed before any rule changed after it; never tuned on, misses
/// never printed. First contact (the rules at `8537a33`): 205/311
/// (65.9%), 37 wrong non-null values (11.9%); boolean 72.5% / 13.8%,
/// number 56.2% / 14.8%, string 73.0% / 4.1%. Final, measured at the end
/// of tuning on the development sets (`c8feb2a`) and once more, the same,
/// after a tightening of the evidence check made for a development case
/// (`52ace8b`): 213 (68.5%), 36 (11.6%); boolean 73.4% / 12.8%, number 60.2% /
/// 14.8%, string 75.7% / 4.1%. After a reviewer's mends (`5578008`, made
/// against invented counter-examples and the development sets): 212
/// (68.2%), 37 (11.9%); boolean 72.5% / 13.8%. Measured twice more, figures
/// only, during the third session's tuning (`cfb0001`): 212 (68.2%), 36
/// (11.6%); and at its end (`162d8fb`): 213 (68.5%), 34 (10.9%); boolean
/// 73.4% / 12.8%, number 60.2% / 13.3%, string 75.7% / 4.1%. Made a
/// development set at the start of the fourth session (misses printed,
/// tuned on since); its figures from then on are tuning figures: 228
/// (73.3%), 17 (5.5%) at the end of that session.
#[test]
fn offline_extraction_on_the_fifth_held_out_set() {
    let floor = Floor {
        fields: 311,
        right: 244,
        wrong: 11,
    };
    holds("extraction-heldout-5", 64, true, floor);
}

#[test]
fn norm_matches_reference_examples() {
    assert_eq!(norm("O'Neil"), "oneil");
    assert_eq!(norm("3:45 p.m."), "345 pm");
    assert_eq!(norm("Saint-Denis"), "saintdenis");
    assert_eq!(norm("  «Hello»,\t World¡ "), "hello world");
}

/// The sixth frozen held-out set (`tests/data/extraction-heldout-6/`),
/// written blind on 2026-11-27 by writers who reported only counts, and
/// committed before any rule changed after it; never tuned on, misses
/// never printed. First contact (the rules at `3fb779b`): 189/304
/// (62.2%), 41 wrong non-null values (13.5%); boolean 73.6% / 13.2%,
/// number 53.6% / 16.8%, string 60.3% / 8.2%. Measured once during the
/// tuning that followed (`cfb0001`, taken for final too early): 192
/// (63.2%), 39 (12.8%). Final, at the end of that tuning (`162d8fb`): 195
/// (64.1%), 37 (12.2%); boolean 75.5% / 11.3%, number 54.4% / 16.8%,
/// string 64.4% / 5.5%. Measured once more, figures only, at the end of
/// the fourth session (`59e81df`): 201 (66.1%), 33 (10.9%); boolean 75.5% /
/// 11.3%, number 59.2% / 13.6%, string 64.4% / 5.5%. Made a development
/// set at the start of the fifth session (misses printed, tuned on since);
/// its figures from then on are tuning figures.
#[test]
fn offline_extraction_on_the_sixth_held_out_set() {
    let floor = Floor {
        fields: 304,
        right: 237,
        wrong: 6,
    };
    holds("extraction-heldout-6", 64, true, floor);
}

/// The seventh frozen held-out set (`tests/data/extraction-heldout-7/`),
/// written blind on 2026-11-27 by writers who reported only counts, and
/// committed before any rule changed after it; never tuned on, misses
/// never printed. First contact (the rules at `c94badb`): 206/304 (67.8%),
/// 36 wrong non-null values (11.8%); boolean 73.8% / 15.0%, number
/// 56.0% / 10.4%, string 79.2% / 9.7%. Final, measured once at the end of
/// the fourth session's tuning and review mends (`59e81df`): 207 (68.1%), 36
/// (11.8%); boolean 73.8% / 15.0%, number 56.8% / 10.4%, string 79.2% /
/// 9.7%. Measured once more at the end of the fifth session (`dabe08a`),
/// figures only: 210 (69.1%), 33 (10.9%); boolean 73.8% / 15.0%, number
/// 58.4% / 8.8%, string 80.6% / 8.3%. A development set since the sixth
/// session (misses printed, tuned on): 228 (75.0%), 19 (6.3%); after the
/// seventh session: 233 (76.6%), 18 (5.9%).
#[test]
fn offline_extraction_on_the_seventh_held_out_set() {
    let floor = Floor {
        fields: 304,
        right: 240,
        wrong: 15,
    };
    holds("extraction-heldout-7", 64, true, floor);
}

/// The eighth frozen held-out set (`tests/data/extraction-heldout-8/`),
/// written blind on 2026-11-27 by writers who reported only counts, and
/// committed after the fourth session's last rule change, for the next
/// round of work to measure against; never tuned on, misses never
/// printed. First contact (the rules at `99fe84c`, those of the seventh
/// set's final figures): 211/313 (67.4%), 48 wrong non-null values
/// (15.3%); boolean 73.8% / 15.0%, number 60.5% / 18.6%, string 70.1% /
/// 10.4%. Final for the fifth session's rules, measured once at its end
/// (`dabe08a`): 213 (68.1%), 46 (14.7%); boolean 72.9% / 15.9%, number
/// 62.8% / 16.3%, string 70.1% / 10.4%. A development set since the sixth
/// session (misses printed, tuned on): 233 (74.4%), 35 (11.2%); after the
/// seventh session: 242 (77.3%), 30 (9.6%).
#[test]
fn offline_extraction_on_the_eighth_held_out_set() {
    let floor = Floor {
        fields: 313,
        right: 250,
        wrong: 28,
    };
    holds("extraction-heldout-8", 64, true, floor);
}

/// The ninth frozen held-out set (`tests/data/extraction-heldout-9/`),
/// written blind on 2026-11-27 by writers who reported only counts, and
/// committed after the fifth session's last rule change, for the next
/// round of work to measure against; never tuned on, misses never
/// printed. First contact (the rules at `40ea55e`, the fifth session's
/// final ones): 214/302 (70.9%), 32 wrong non-null values (10.6%);
/// boolean 79.6% / 9.7%, number 61.1% / 11.9%, string 75.3% / 9.6%.
/// Final for the sixth session's rules, measured once at its end
/// (`8007cc2`): 220 (72.8%), 28 (9.3%); boolean 79.6% / 9.7%, number
/// 65.1% / 9.5%, string 76.7% / 8.2%. A development set since the seventh
/// session (misses printed, tuned on): 236 (78.1%), 16 (5.3%).
#[test]
fn offline_extraction_on_the_ninth_held_out_set() {
    let floor = Floor {
        fields: 302,
        right: 241,
        wrong: 14,
    };
    holds("extraction-heldout-9", 64, true, floor);
}

/// The tenth frozen held-out set (`tests/data/extraction-heldout-10/`),
/// written blind on 2026-11-27 by writers who reported only counts, and
/// committed before it was first scored; never tuned on, misses never
/// printed. First contact (the rules at `b30d0d3`, unchanged since
/// `40ea55e`): 204/309 (66.0%), 39 wrong non-null values
/// (12.6%); boolean 74.3% / 11.9%, number 60.7% / 9.8%, string 63.5% /
/// 16.7%. Final for the sixth session's rules, measured once at its end
/// (`8007cc2`): 207 (67.0%), 39 (12.6%); boolean 74.3% / 11.9%, number
/// 63.4% / 9.8%, string 63.5% / 16.7%. A development set since the
/// seventh session (misses printed, tuned on): 229 (74.1%), 20 (6.5%).
#[test]
fn offline_extraction_on_the_tenth_held_out_set() {
    let floor = Floor {
        fields: 309,
        right: 241,
        wrong: 16,
    };
    holds("extraction-heldout-10", 64, true, floor);
}

/// The eleventh frozen held-out set (`tests/data/extraction-heldout-11/`),
/// written blind on 2026-11-27 by writers who reported only counts, and
/// committed before it was first scored; never tuned on, misses never
/// printed. First contact (the sixth session's final rules, `a5683cc`):
/// 203/312 (65.1%), 37 wrong non-null values (11.9%); boolean 73.3% /
/// 9.5%, number 62.4% / 16.5%, string 59.2% / 9.2%. Final for the seventh
/// session's rules, measured at its end (`2bac799`): 208 (66.7%), 36
/// (11.5%); boolean 75.2% / 9.5%, number 63.3% / 15.6%, string 61.2% /
/// 9.2%. A development set since the eighth session (misses printed, tuned
/// on): 228 (73.1%), 19 (6.1%) after it.
#[test]
fn offline_extraction_on_the_eleventh_held_out_set() {
    let floor = Floor {
        fields: 312,
        right: 233,
        wrong: 16,
    };
    holds("extraction-heldout-11", 64, true, floor);
}

/// The twelfth held-out set (`tests/data/extraction-heldout-12/`),
/// written blind on 2026-11-28 by writers who reported only counts, and
/// committed before it was first scored; never tuned on, misses never
/// printed. First contact (the seventh session's final rules, `84773f6`):
/// 202/311 (65.0%), 44 wrong non-null values (14.1%); boolean 71.4% /
/// 13.3%, number 59.4% / 17.0%, string 64.0% / 12.0%. Final for the eighth
/// session's rules, measured once at its end (`86799c3`): 205 (65.9%), 42
/// (13.5%); boolean 71.4% / 13.3%, number 61.3% / 16.0%, string 65.0% /
/// 11.0%. A development set since the ninth session (misses printed, tuned
/// on): 229 (73.6%), 27 (8.7%) after it.
#[test]
fn offline_extraction_on_the_twelfth_held_out_set() {
    let floor = Floor {
        fields: 311,
        right: 229,
        wrong: 27,
    };
    holds("extraction-heldout-12", 64, true, floor);
}

/// The thirteenth frozen held-out set (`tests/data/extraction-heldout-13/`),
/// written blind on 2026-11-28 by writers who reported only counts, and
/// committed before it was first scored; never tuned on, misses never
/// printed. First contact (the eighth session's final rules, `7632f6e`):
/// 208/313 (66.5%), 32 wrong non-null values (10.2%); boolean 71.4% /
/// 15.2%, number 60.6% / 10.1%, string 67.7% / 5.1%. Final for the ninth
/// session's rules, measured once at its end (`33c25db`): 208 (66.5%), 31
/// (9.9%); boolean 71.4% / 14.3%, number 61.5% / 10.1%, string 66.7% /
/// 5.1%. A development set since the tenth session (misses printed, tuned
/// on): 223 (71.2%), 26 (8.3%) after it.
#[test]
fn offline_extraction_on_the_thirteenth_held_out_set() {
    let floor = Floor {
        fields: 313,
        right: 223,
        wrong: 26,
    };
    holds("extraction-heldout-13", 64, true, floor);
}

/// The fourteenth frozen held-out set (`tests/data/extraction-heldout-14/`),
/// written blind on 2026-11-29 by writers who reported only counts, and
/// committed before it was first scored; never tuned on, misses never
/// printed. First contact (the ninth session's final rules, `45490a8`):
/// 206/310 (66.5%), 32 wrong non-null values (10.3%); boolean 69.9% /
/// 9.7%, number 63.0% / 12.0%, string 66.7% / 9.1%. Final for the tenth
/// session's rules, measured once at its end (`dfdd7c7`): 206 (66.5%), 33
/// (10.6%); boolean 68.9% / 10.7%, number 62.0% / 12.0%, string 68.7% /
/// 9.1%.
#[test]
fn offline_extraction_on_the_fourteenth_held_out_set() {
    let floor = Floor {
        fields: 310,
        right: 206,
        wrong: 33,
    };
    holds("extraction-heldout-14", 64, false, floor);
}
