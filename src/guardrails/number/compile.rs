//! Compiling libphonenumber's metadata into the classifier's automata: one
//! multi-pattern DFA per calling code, the national-prefix rule, and
//! transform rules.

use super::*;

/// Patterns keep the XML's whitespace; libphonenumber strips it.
pub(super) fn clean(pattern: &str) -> String {
    pattern.chars().filter(|c| !c.is_whitespace()).collect()
}

pub(super) fn syntax_config() -> syntax::Config {
    // ASCII `\d`: inputs are ASCII digits and Unicode classes bloat the DFAs.
    syntax::Config::new().unicode(false).utf8(false)
}

pub(super) fn build_error(err: impl fmt::Display) -> BuildError {
    BuildError(err.to_string())
}

/// The type descriptors in mask-bit order (general first).
pub(super) fn descriptors(metadata: &Metadata) -> [(u16, Option<&Descriptor>); 11] {
    let d = metadata.descriptors();
    [
        (bit::GENERAL, Some(d.general())),
        (bit::PREMIUM_RATE, d.premium_rate()),
        (bit::TOLL_FREE, d.toll_free()),
        (bit::SHARED_COST, d.shared_cost()),
        (bit::VOIP, d.voip()),
        (bit::PERSONAL_NUMBER, d.personal_number()),
        (bit::PAGER, d.pager()),
        (bit::UAN, d.uan()),
        (bit::VOICEMAIL, d.voicemail()),
        (bit::FIXED_LINE, d.fixed_line()),
        (bit::MOBILE, d.mobile()),
    ]
}

/// The general descriptor's lengths as libphonenumber's metadata builder
/// derives them: the union over the type descriptors (the XML lists none at
/// the general level; no-international-dialling is excluded), and local-only
/// lengths that are not also national lengths.
pub(super) fn general_lengths(metadata: &Metadata) -> (Vec<usize>, Vec<usize>) {
    let mut national = BTreeSet::new();
    let mut local = BTreeSet::new();
    for (_, desc) in descriptors(metadata).into_iter().skip(1) {
        if let Some(desc) = desc {
            national.extend(desc.possible_length().iter().map(|&l| usize::from(l)));
            local.extend(desc.possible_local_length().iter().map(|&l| usize::from(l)));
        }
    }
    let local = local.difference(&national).copied().collect();
    (national.into_iter().collect(), local)
}

pub(super) fn compile_calling_code(
    code: u16,
    metadata: &[&'static Metadata],
) -> Result<CallingCode, BuildError> {
    if metadata.len() > MAX_REGIONS {
        return Err(BuildError(format!(
            "+{code} has more than {MAX_REGIONS} regions"
        )));
    }
    // Identical patterns (shared NANP ranges, fixed == mobile) compile once.
    let mut patterns: Vec<String> = Vec::new();
    let mut targets: Vec<Vec<(u8, u16)>> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut add = |pattern: String, region: usize, bit: u16| -> Result<(), BuildError> {
        let region = u8::try_from(region).map_err(build_error)?;
        let index = *seen.entry(pattern).or_insert_with_key(|pattern| {
            patterns.push(pattern.clone());
            targets.push(Vec::new());
            patterns.len() - 1
        });
        targets[index].push((region, bit));
        Ok(())
    };

    let mut regions = Vec::with_capacity(metadata.len());
    for (index, meta) in metadata.iter().copied().enumerate() {
        let (general, _) = general_lengths(meta);
        let mut length_ok = [bit::LEADING_DIGITS; MAX_NSN_LEN + 1];
        let mut fixed_mobile = [None, None];
        for (bit, desc) in descriptors(meta) {
            let Some(desc) = desc else { continue };
            let pattern = clean(desc.national_number().as_str());
            if bit == bit::FIXED_LINE {
                fixed_mobile[0] = Some(pattern.clone());
            } else if bit == bit::MOBILE {
                fixed_mobile[1] = Some(pattern.clone());
            }
            // libphonenumber never matches an empty pattern.
            if !pattern.is_empty() {
                add(format!("(?:{pattern})"), index, bit)?;
            }
            let lengths: Vec<usize> = if bit == bit::GENERAL {
                general.clone()
            } else {
                desc.possible_length()
                    .iter()
                    .map(|&l| usize::from(l))
                    .collect()
            };
            for (len, ok) in length_ok.iter_mut().enumerate() {
                if lengths.is_empty() || lengths.contains(&len) {
                    *ok |= bit;
                }
            }
        }
        if let Some(leading) = meta.leading_digits() {
            // A prefix match on a digit string is a whole match of `ld[0-9]*`.
            add(
                format!("(?:{})[0-9]*", clean(leading.as_str())),
                index,
                bit::LEADING_DIGITS,
            )?;
        }
        regions.push(Region {
            id: (meta.id() != "001").then_some(meta.id()),
            has_leading_digits: meta.leading_digits().is_some(),
            same_fixed_mobile: fixed_mobile[0] == fixed_mobile[1],
            length_ok,
        });
    }

    let dfa = dense::Builder::new()
        .configure(
            dense::Config::new()
                .match_kind(MatchKind::All)
                .start_kind(StartKind::Anchored),
        )
        .syntax(syntax_config())
        .thompson(
            thompson::Config::new()
                .utf8(false)
                .which_captures(WhichCaptures::None),
        )
        .build_many(&patterns)
        .map_err(build_error)?;
    let start = dfa
        .start_state(&start::Config::new().anchored(Anchored::Yes))
        .map_err(build_error)?;
    if targets.len() != dfa.pattern_len() {
        return Err(BuildError(format!("+{code}: pattern count mismatch")));
    }

    // Parsing strips with the metadata of the code's main region (first).
    let main = metadata
        .first()
        .copied()
        .ok_or_else(|| BuildError(format!("+{code} has no regions")))?;
    let (possible_lengths, local_only_lengths) = general_lengths(main);
    Ok(CallingCode {
        code,
        regions,
        dfa,
        start,
        targets,
        national_prefix: compile_national_prefix(main)?,
        possible_lengths,
        local_only_lengths,
    })
}

pub(super) fn compile_national_prefix(
    main: &Metadata,
) -> Result<Option<NationalPrefix>, BuildError> {
    // Without an explicit rule, libphonenumber parses with the national prefix.
    let pattern = match main.national_prefix_for_parsing() {
        Some(regex) => clean(regex.as_str()),
        None => main.national_prefix().map(clean).unwrap_or_default(),
    };
    if pattern.is_empty() {
        return Ok(None);
    }
    let dfa = dense::Builder::new()
        .configure(
            dense::Config::new()
                .match_kind(MatchKind::LeftmostFirst)
                .start_kind(StartKind::Anchored),
        )
        .syntax(syntax_config())
        .thompson(
            thompson::Config::new()
                .utf8(false)
                .which_captures(WhichCaptures::None),
        )
        .build(&pattern)
        .map_err(build_error)?;
    let transform = match main
        .national_prefix_transform_rule()
        .filter(|r| !r.is_empty())
    {
        None => None,
        Some(rule) => {
            let vm = PikeVM::builder()
                .syntax(syntax_config())
                .thompson(thompson::Config::new().utf8(false))
                .build(&pattern)
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
            Some(Transform {
                vm,
                groups,
                pieces: parse_transform(rule),
                empty_match_is_noop,
            })
        }
    };
    Ok(Some(NationalPrefix { dfa, transform }))
}

/// Splits `9$1` into literal text and `$n` group references.
pub(super) fn parse_transform(rule: &str) -> Vec<Piece> {
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
