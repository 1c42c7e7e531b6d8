//! The classifier's tables, compiled from libphonenumber's metadata by the
//! build script (`build/numbers.rs`): Rust statics for regions, lengths and
//! pattern targets, and the serialized DFAs, which load without copying
//! (`DFA::from_bytes` only validates them). Only the few national-prefix
//! transform rules, which need capture groups, compile a small `PikeVM`
//! here, on first use.

use std::ops::Range;

use super::*;

/// One calling code's tables, as the build script writes them.
pub(super) struct CodeTable {
    pub(super) code: u16,
    pub(super) regions: &'static [Region],
    /// Byte range of the code's serialized multi-pattern DFA.
    pub(super) dfa: Range<usize>,
    pub(super) targets: &'static [&'static [(u8, u16)]],
    pub(super) national_prefix: Option<PrefixTable>,
    pub(super) possible_lengths: &'static [usize],
    pub(super) local_only_lengths: &'static [usize],
}

/// The main region's national-prefix-for-parsing rule.
pub(super) struct PrefixTable {
    /// Byte range of the rule's serialized leftmost-first DFA.
    pub(super) dfa: Range<usize>,
    /// The rule itself, compiled into a `PikeVM` when a transform needs groups.
    pub(super) pattern: &'static str,
    pub(super) transform_rule: Option<&'static str>,
}

include!(concat!(env!("OUT_DIR"), "/numbers.rs"));

/// `include_bytes!` guarantees no alignment; the zero-length `u64` array
/// gives the blob the 8-byte alignment the build script laid the DFAs out for.
#[repr(C)]
struct Aligned<B: ?Sized> {
    _align: [u64; 0],
    bytes: B,
}

static AUTOMATA: &Aligned<[u8]> = &Aligned {
    _align: [],
    bytes: *include_bytes!(concat!(env!("OUT_DIR"), "/numbers.dfa")),
};

fn build_error(err: impl fmt::Display) -> BuildError {
    BuildError(err.to_string())
}

fn load_dfa(range: &Range<usize>) -> Result<dense::DFA<&'static [u32]>, BuildError> {
    let bytes = AUTOMATA
        .bytes
        .get(range.clone())
        .ok_or_else(|| build_error("automaton out of range"))?;
    let (dfa, _) = dense::DFA::from_bytes(bytes).map_err(build_error)?;
    Ok(dfa)
}

pub(super) fn load_calling_code(table: &'static CodeTable) -> Result<CallingCode, BuildError> {
    let dfa = load_dfa(&table.dfa)?;
    let start = dfa
        .start_state(&start::Config::new().anchored(Anchored::Yes))
        .map_err(build_error)?;
    if table.targets.len() != dfa.pattern_len() {
        return Err(BuildError(format!(
            "+{}: pattern count mismatch",
            table.code
        )));
    }
    let national_prefix = match &table.national_prefix {
        None => None,
        Some(prefix) => Some(NationalPrefix {
            dfa: load_dfa(&prefix.dfa)?,
            transform: prefix.transform_rule.map(|rule| LazyTransform {
                pattern: prefix.pattern,
                rule,
                compiled: std::sync::OnceLock::new(),
            }),
        }),
    };
    Ok(CallingCode {
        code: table.code,
        regions: table.regions,
        dfa,
        start,
        targets: table.targets,
        national_prefix,
        possible_lengths: table.possible_lengths,
        local_only_lengths: table.local_only_lengths,
    })
}

pub(super) fn compile_transform(pattern: &str, rule: &str) -> Result<Transform, BuildError> {
    let vm = PikeVM::builder()
        .syntax(
            // ASCII `\d`, as the DFAs: inputs are ASCII digits.
            syntax::Config::new().unicode(false).utf8(false),
        )
        .thompson(thompson::Config::new().utf8(false))
        .build(pattern)
        .map_err(build_error)?;
    let groups = vm
        .get_nfa()
        .group_info()
        .group_len(PatternID::ZERO)
        .saturating_sub(1);
    let empty_match_is_noop = vm.get_nfa().look_set_any().is_empty() && {
        let mut cache = vm.create_cache();
        let mut caps = vm.create_captures();
        vm.captures(
            &mut cache,
            Input::new("").anchored(Anchored::Yes),
            &mut caps,
        );
        caps.is_match() && caps.get_group(groups).is_none()
    };
    Ok(Transform {
        vm,
        groups,
        pieces: parse_transform(rule),
        empty_match_is_noop,
    })
}

/// Splits `9$1` into literal text and `$n` group references.
fn parse_transform(rule: &str) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut literal = String::new();
    let mut chars = rule.chars().peekable();
    while let Some(c) = chars.next() {
        let mut group = None;
        if c == '$' {
            while let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                group = Some(group.unwrap_or(0) * 10 + d as usize);
                chars.next();
            }
        }
        match group {
            Some(index) => {
                if !literal.is_empty() {
                    pieces.push(Piece::Literal(std::mem::take(&mut literal)));
                }
                pieces.push(Piece::Group(index));
            }
            None => literal.push(c),
        }
    }
    if !literal.is_empty() {
        pieces.push(Piece::Literal(literal));
    }
    pieces
}
