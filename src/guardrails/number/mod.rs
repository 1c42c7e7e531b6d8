//! Destination-number classification that agrees with Google's libphonenumber.
//!
//! [`NumberClassifier`] is compiled at build time from the metadata shipped
//! with the `phonenumber` crate (pinned to 0.3.10), loaded in well under a
//! millisecond, and then answers
//! "is this strict E.164 string a valid, canonical number, and of which region
//! and type?" with the same result as libphonenumber's
//! `parse(input, None)` + `isValidNumber` + `getRegionCodeForNumber` +
//! `getNumberType` + `format(E164) == input`.
//!
//! The `phonenumber` crate's own validator is not used: it matches descriptor
//! patterns as prefixes (so over-long numbers pass), does not strip some
//! national prefixes the way libphonenumber's parser does, and keeps its regex
//! cache behind one global mutex.
//!
//! Design: for every country calling code, the national-number patterns of
//! every descriptor of every region sharing that code (plus each region's
//! leading-digits prefix) are compiled into one anchored, multi-pattern dense
//! DFA with `MatchKind::All`. One pass over the national number yields, at
//! end of input, every pattern that matches the *whole* number; possible-length
//! checks are precomputed per region as bit masks indexed by length. The
//! national-prefix-for-parsing rule of the calling code's main region gets its
//! own small leftmost-first DFA, and a `PikeVM` only where a transform rule needs
//! capture groups. All automata are immutable, so classification takes no lock
//! and allocates nothing on the common path.

use std::fmt;
use std::ops::Deref;

mod bits;
mod tables;

use bits::{MAX_NSN_LEN, MAX_REGIONS, bit};
use regex_automata::{
    Anchored, Input, PatternID,
    dfa::{Automaton, dense},
    nfa::thompson::{self, pikevm::PikeVM},
    util::{captures::Captures, primitives::StateID, start, syntax},
};

/// Why a destination string is not an acceptable E.164 number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NumberError {
    /// Not exactly `^\+[1-9][0-9]{1,14}$` (ASCII only, nothing before or after).
    #[error("not a strict E.164 number (expected '+' and 2 to 15 ASCII digits)")]
    Syntax,
    /// No country calling code is assigned to the leading digits.
    #[error("unknown country calling code")]
    UnknownCallingCode,
    /// Well-formed, but not a valid number according to the numbering plan.
    #[error("not a valid phone number")]
    Invalid,
    /// Valid only after removing a trunk or carrier prefix that follows the
    /// calling code (for example `+4407400123456`), so not in E.164 form.
    #[error("not in canonical E.164 form (trunk or carrier prefix after the calling code)")]
    NotCanonical,
}

/// The kind of a valid number, as libphonenumber's `PhoneNumberType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NumberType {
    /// Geographic fixed line.
    FixedLine,
    /// Mobile.
    Mobile,
    /// Fixed line and mobile ranges cannot be told apart (e.g. NANPA).
    FixedLineOrMobile,
    /// Free for the caller.
    TollFree,
    /// Premium rate (charged above normal rates).
    PremiumRate,
    /// Cost shared between caller and recipient.
    SharedCost,
    /// Voice over IP.
    Voip,
    /// Personal number routed to other numbers.
    PersonalNumber,
    /// Pager.
    Pager,
    /// Universal access number (company number routed to its offices).
    Uan,
    /// Voicemail access.
    Voicemail,
    /// No type matched (never returned for a successfully classified number).
    Unknown,
}

/// A valid number in canonical E.164 form, split into its parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassifiedNumber {
    /// Country calling code, e.g. `44`.
    pub calling_code: u16,
    /// ISO 3166 region id ("US", "GB", "JM", ...) chosen as libphonenumber's
    /// `getRegionCodeForNumber`; `None` for non-geographic entities (metadata
    /// id "001": +800, +870, +881, +882, +883, ...).
    pub region: Option<&'static str>,
    /// National significant number: the digits after the calling code.
    pub national_number: NationalNumber,
    /// libphonenumber's number type for `region`.
    pub number_type: NumberType,
}

/// A [`ClassifiedNumber`] whose national number is borrowed from the input.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Classification<'i> {
    pub(crate) calling_code: u16,
    pub(crate) region: Option<&'static str>,
    pub(crate) national_number: &'i str,
    pub(crate) number_type: NumberType,
}

impl Classification<'_> {
    /// The owned form. Fails only for a national number over 17 digits,
    /// which strict E.164 input (at most 14 after the code) never has.
    pub(crate) fn to_owned(self) -> Result<ClassifiedNumber, NumberError> {
        Ok(ClassifiedNumber {
            calling_code: self.calling_code,
            region: self.region,
            national_number: NationalNumber::from_digits(self.national_number.as_bytes())
                .ok_or(NumberError::Invalid)?,
            number_type: self.number_type,
        })
    }
}

/// Shortest national significant number libphonenumber accepts.
const MIN_NSN_LEN: usize = 2;

/// National significant number stored inline (at most 17 ASCII digits), so a
/// classification allocates nothing. Dereferences to `&str`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct NationalNumber {
    len: u8,
    digits: [u8; MAX_NSN_LEN],
}

impl NationalNumber {
    /// Copies ASCII digits; `None` if longer than libphonenumber's 17-digit maximum.
    fn from_digits(digits: &[u8]) -> Option<Self> {
        let mut out = Self::default();
        out.digits.get_mut(..digits.len())?.copy_from_slice(digits);
        out.len = u8::try_from(digits.len()).ok()?;
        Some(out)
    }

    /// The digits as a string slice.
    #[must_use]
    pub fn as_str(&self) -> &str {
        // Only ASCII digits are ever stored, so this never falls back.
        std::str::from_utf8(self.as_bytes()).unwrap_or_default()
    }

    fn as_bytes(&self) -> &[u8] {
        self.digits.get(..usize::from(self.len)).unwrap_or_default()
    }
}

impl Deref for NationalNumber {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for NationalNumber {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Display for NationalNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for NationalNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq<str> for NationalNumber {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for NationalNumber {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// Strict syntax check alone: exactly `^\+[1-9][0-9]{1,14}$`, ASCII only,
/// nothing before or after.
pub fn is_strict_e164(input: &str) -> bool {
    match input.as_bytes() {
        [b'+', first, rest @ ..] => {
            (b'1'..=b'9').contains(first)
                && (1..=14).contains(&rest.len())
                && rest.iter().all(u8::is_ascii_digit)
        }
        _ => false,
    }
}

/// Error building a [`NumberClassifier`] from the metadata.
#[derive(Debug, Clone, thiserror::Error)]
#[error("cannot compile phone number metadata: {0}")]
pub struct BuildError(String);

/// Checked in this order after the general descriptor, as libphonenumber's
/// `getNumberTypeHelper`; fixed line and mobile come last.
const SPECIAL_TYPES: [(u16, NumberType); 8] = [
    (bit::PREMIUM_RATE, NumberType::PremiumRate),
    (bit::TOLL_FREE, NumberType::TollFree),
    (bit::SHARED_COST, NumberType::SharedCost),
    (bit::VOIP, NumberType::Voip),
    (bit::PERSONAL_NUMBER, NumberType::PersonalNumber),
    (bit::PAGER, NumberType::Pager),
    (bit::UAN, NumberType::Uan),
    (bit::VOICEMAIL, NumberType::Voicemail),
];

/// One region's (territory's) share of a calling code.
struct Region {
    /// `None` for the non-geographic "001" entities.
    id: Option<&'static str>,
    has_leading_digits: bool,
    /// libphonenumber skips the separate mobile check when both patterns are
    /// equal (or both absent).
    same_fixed_mobile: bool,
    /// Indexed by national-number length: the bits whose descriptor admits
    /// that length (no possible-length list means any length).
    length_ok: [u16; MAX_NSN_LEN + 1],
}

impl Region {
    /// libphonenumber's `getNumberTypeHelper` over the DFA's pattern matches.
    fn number_type(&self, pattern_bits: u16, len: usize) -> NumberType {
        let bits = pattern_bits & self.length_ok.get(len).copied().unwrap_or(0);
        if bits & bit::GENERAL == 0 {
            return NumberType::Unknown;
        }
        if let Some(&(_, kind)) = SPECIAL_TYPES.iter().find(|(b, _)| bits & b != 0) {
            return kind;
        }
        if bits & bit::FIXED_LINE != 0 {
            if self.same_fixed_mobile || bits & bit::MOBILE != 0 {
                NumberType::FixedLineOrMobile
            } else {
                NumberType::FixedLine
            }
        } else if !self.same_fixed_mobile && bits & bit::MOBILE != 0 {
            NumberType::Mobile
        } else {
            NumberType::Unknown
        }
    }
}

/// A piece of a national-prefix transform rule such as `9$1`.
enum Piece {
    Literal(String),
    Group(usize),
}

/// `national_prefix_transform_rule` with the `PikeVM` that supplies its groups.
struct Transform {
    vm: PikeVM,
    /// Number of capture groups (Python's `len(match.groups())`).
    groups: usize,
    pieces: Vec<Piece>,
    /// An empty prefix match leaves the last group unset, so nothing changes.
    /// Without look-around, the groups of an empty leftmost-first match are
    /// those of matching the empty string, so this is known at build time.
    empty_match_is_noop: bool,
}

/// The main region's `national_prefix_for_parsing`, a prefix match.
struct NationalPrefix {
    /// Leftmost-first, anchored: the match end a backtracking engine reports.
    dfa: dense::DFA<&'static [u32]>,
    /// Compiled on first use: seven calling codes have one, and compiling
    /// them all would take most of the classifier's load time.
    transform: Option<LazyTransform>,
}

/// Everything compiled for one country calling code.
struct CallingCode {
    code: u16,
    /// In metadata order, main country first (as libphonenumber iterates them).
    regions: &'static [Region],
    dfa: dense::DFA<&'static [u32]>,
    start: StateID,
    /// For each DFA pattern: the (region index, bit) pairs it stands for;
    /// identical patterns are compiled once.
    targets: &'static [&'static [(u8, u16)]],
    national_prefix: Option<NationalPrefix>,
    /// Main region's general-descriptor lengths, for `testNumberLength`.
    possible_lengths: &'static [usize],
    local_only_lengths: &'static [usize],
}

type Masks = [u16; MAX_REGIONS];

impl CallingCode {
    /// Per region, which patterns whole-match `nsn` (lengths not yet applied).
    fn match_masks(&self, nsn: &[u8]) -> Masks {
        let mut masks = [0; MAX_REGIONS];
        let mut state = self.start;
        for &byte in nsn {
            state = self.dfa.next_state(state, byte);
            if self.dfa.is_dead_state(state) {
                return masks;
            }
        }
        state = self.dfa.next_eoi_state(state);
        if self.dfa.is_match_state(state) {
            for i in 0..self.dfa.match_len(state) {
                let pattern = self.dfa.match_pattern(state, i);
                for &(region, bit) in self
                    .targets
                    .get(pattern.as_usize())
                    .copied()
                    .into_iter()
                    .flatten()
                {
                    if let Some(mask) = masks.get_mut(usize::from(region)) {
                        *mask |= bit;
                    }
                }
            }
        }
        masks
    }

    /// Whether the main region's general pattern whole-matches (no length check).
    fn main_general_matches(&self, nsn: &[u8]) -> bool {
        self.match_masks(nsn)[0] & bit::GENERAL != 0
    }

    /// libphonenumber's `maybeStripNationalPrefixAndCarrierCode` followed by
    /// the parser's `testNumberLength` guard. `Ok(None)` keeps `nsn` as is;
    /// `Err` is a parse failure in libphonenumber.
    fn strip_national_prefix(
        &self,
        nsn: &[u8],
        original_viable: bool,
    ) -> Result<Option<Vec<u8>>, NumberError> {
        let Some(prefix) = &self.national_prefix else {
            return Ok(None);
        };
        let input = Input::new(nsn).anchored(Anchored::Yes);
        let Ok(Some(end)) = prefix.dfa.try_search_fwd(&input) else {
            return Ok(None);
        };
        let end = end.offset();
        let transform = match &prefix.transform {
            Some(lazy) => Some(lazy.get()?),
            None => None,
        };
        let candidate = match transform {
            // Python indexes groups()[-1]: no groups at all is an exception.
            Some(transform) if transform.groups == 0 => return Err(NumberError::Invalid),
            Some(transform) if end > 0 || !transform.empty_match_is_noop => {
                let mut cache = transform.vm.create_cache();
                let mut caps = transform.vm.create_captures();
                transform.vm.captures(&mut cache, input, &mut caps);
                let rest = nsn.get(end..).unwrap_or_default();
                if caps.get_group(transform.groups).is_none() {
                    rest.to_vec()
                } else {
                    let mut out = expand(&transform.pieces, &caps, nsn)?;
                    out.extend_from_slice(rest);
                    out
                }
            }
            // Stripping nothing leaves the number as it is (common for AR,
            // whose whole rule is optional); only the length test could fail.
            _ if end == 0 => {
                self.keeps_stripped(nsn.len())?;
                return Ok(None);
            }
            _ => nsn.get(end..).unwrap_or_default().to_vec(),
        };
        // Refuse a strip that turns a viable number into a non-viable one.
        if original_viable && !self.main_general_matches(&candidate) {
            return Ok(None);
        }
        // Keep it only if it is not too short for the region (the original
        // might be a valid short number).
        Ok(self.keeps_stripped(candidate.len())?.then_some(candidate))
    }

    /// `testNumberLength(stripped, UNKNOWN)` is `IS_POSSIBLE` or `TOO_LONG`.
    fn keeps_stripped(&self, len: usize) -> Result<bool, NumberError> {
        if self.local_only_lengths.contains(&len) {
            return Ok(false);
        }
        let (Some(&min), Some(&max)) =
            (self.possible_lengths.first(), self.possible_lengths.last())
        else {
            // Python indexes possible_lengths[0]: an empty list is an exception.
            return Err(NumberError::Invalid);
        };
        Ok(len == min || (len > min && (len > max || self.possible_lengths.contains(&len))))
    }

    /// libphonenumber's `getRegionCodeForNumber` then `getNumberType`.
    fn region_and_type(&self, masks: &Masks, len: usize) -> Option<(&Region, NumberType)> {
        let mut regions = self.regions.iter().zip(masks);
        let (region, &mask) = if self.regions.len() == 1 {
            regions.next()?
        } else {
            regions.find(|(region, mask)| {
                if region.has_leading_digits {
                    **mask & bit::LEADING_DIGITS != 0
                } else {
                    region.number_type(**mask, len) != NumberType::Unknown
                }
            })?
        };
        match region.number_type(mask, len) {
            NumberType::Unknown => None,
            kind => Some((region, kind)),
        }
    }
}

/// A transform rule and the prefix pattern whose groups it uses, compiled
/// into a [`Transform`] the first time a number needs it.
struct LazyTransform {
    pattern: &'static str,
    rule: &'static str,
    compiled: std::sync::OnceLock<Result<Transform, BuildError>>,
}

impl LazyTransform {
    /// The compiled transform. The build script compiled the same pattern
    /// into a DFA, so failing here is not expected; if it ever did, the
    /// numbers that need the rule are refused as invalid, never accepted.
    fn get(&self) -> Result<&Transform, NumberError> {
        self.compiled
            .get_or_init(|| tables::compile_transform(self.pattern, self.rule))
            .as_ref()
            .map_err(|_| NumberError::Invalid)
    }

    fn memory_usage(&self) -> usize {
        match self.compiled.get() {
            Some(Ok(transform)) => transform.vm.get_nfa().memory_usage(),
            _ => 0,
        }
    }
}

/// Applies a transform rule; unmatched groups expand to nothing (Python's `re.sub`).
fn expand(pieces: &[Piece], caps: &Captures, haystack: &[u8]) -> Result<Vec<u8>, NumberError> {
    let mut out = Vec::new();
    for piece in pieces {
        match piece {
            Piece::Literal(text) => out.extend_from_slice(text.as_bytes()),
            Piece::Group(index) if *index < caps.group_len() => {
                if let Some(span) = caps.get_group(*index) {
                    out.extend_from_slice(haystack.get(span.range()).unwrap_or_default());
                }
            }
            // `re.sub` raises on a reference to a group that does not exist.
            Piece::Group(_) => return Err(NumberError::Invalid),
        }
    }
    Ok(out)
}

/// The classifier: `Send + Sync`, cheap to share via `Arc`. Each calling
/// code's automata are compiled at build time and loaded (validated, not
/// copied) the first time a number of that code is classified, so a new
/// classifier is ready at once; [`preload`](Self::preload) loads them all.
pub struct NumberClassifier {
    /// Index + 1 into `codes` for each calling code below 1000; 0 if unassigned.
    by_code: Vec<u16>,
    codes: Vec<LazyCallingCode>,
}

/// A calling code's tables and, once needed, its loaded automata.
struct LazyCallingCode {
    table: &'static tables::CodeTable,
    loaded: std::sync::OnceLock<Result<CallingCode, BuildError>>,
}

impl LazyCallingCode {
    fn get(&self) -> Result<&CallingCode, &BuildError> {
        self.loaded
            .get_or_init(|| {
                let loaded = tables::load_calling_code(self.table);
                if let Err(error) = &loaded {
                    // Logged once: the result is kept, so the code's numbers
                    // are refused consistently from here on.
                    tracing::error!(calling_code = self.table.code, %error,
                        "number automata failed to load; this calling code's numbers are refused");
                }
                loaded
            })
            .as_ref()
    }
}

impl Default for NumberClassifier {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for NumberClassifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tables = || self.codes.iter().map(|c| c.table);
        f.debug_struct("NumberClassifier")
            .field("calling_codes", &self.codes.len())
            .field("regions", &tables().map(|t| t.regions.len()).sum::<usize>())
            .field(
                "patterns",
                &tables().map(|t| t.targets.len()).sum::<usize>(),
            )
            .field("automata_bytes", &self.memory_usage())
            .finish_non_exhaustive()
    }
}

impl NumberClassifier {
    /// A classifier over the automata the build script compiled from the
    /// `phonenumber` crate's metadata. Nothing is loaded yet: each calling
    /// code's automata load on its first number (tens of microseconds;
    /// a millisecond for all of them, see [`preload`](Self::preload)).
    #[must_use]
    pub fn new() -> Self {
        let mut by_code = vec![0u16; 1000];
        let mut codes = Vec::with_capacity(tables::CALLING_CODES.len());
        for table in tables::CALLING_CODES {
            codes.push(LazyCallingCode {
                table,
                loaded: std::sync::OnceLock::new(),
            });
            // The build script emits codes 1..1000 once each: at most 999.
            if let (Some(slot), Ok(index)) = (
                by_code.get_mut(usize::from(table.code)),
                u16::try_from(codes.len()),
            ) {
                *slot = index;
            }
        }
        Self { by_code, codes }
    }

    /// A classifier with every automaton loaded and validated.
    ///
    /// # Errors
    ///
    /// [`BuildError`] if a serialized automaton fails validation.
    pub fn try_new() -> Result<Self, BuildError> {
        let classifier = Self::new();
        classifier.preload()?;
        Ok(classifier)
    }

    /// Loads and validates every calling code's automata now (about a
    /// millisecond in release builds) rather than on first use, for hosts
    /// that want the first number of every country to take no longer than
    /// the next one.
    ///
    /// # Errors
    ///
    /// [`BuildError`] if a serialized automaton fails validation (the
    /// numbers of that calling code are then refused as invalid).
    pub fn preload(&self) -> Result<(), BuildError> {
        for code in &self.codes {
            code.get().map_err(Clone::clone)?;
        }
        Ok(())
    }

    /// Bytes of the automata loaded so far (the serialized DFAs, which stay
    /// in the binary's read-only data, and any `PikeVM`).
    #[must_use]
    pub fn memory_usage(&self) -> usize {
        self.codes
            .iter()
            .filter_map(|c| c.loaded.get()?.as_ref().ok())
            .map(|c| {
                c.dfa.memory_usage()
                    + c.national_prefix.as_ref().map_or(0, |p| {
                        p.dfa.memory_usage()
                            + p.transform.as_ref().map_or(0, LazyTransform::memory_usage)
                    })
            })
            .sum()
    }

    /// Classifies a destination: `Ok` only for a strict E.164 string that
    /// libphonenumber parses (no default region) into a valid number whose
    /// E.164 form is the input itself.
    ///
    /// # Errors
    ///
    /// The first rule the input breaks, as a [`NumberError`].
    pub fn classify(&self, input: &str) -> Result<ClassifiedNumber, NumberError> {
        self.classify_borrowed(input)?.to_owned()
    }

    /// [`classify`](Self::classify) with the national number borrowed from
    /// `input`: the guardrails apply their policy to this and copy the digits
    /// once, at the end (copying them first, then reading the copy back, cost
    /// as much as the policy itself).
    pub(crate) fn classify_borrowed<'i>(
        &self,
        input: &'i str,
    ) -> Result<Classification<'i>, NumberError> {
        if !is_strict_e164(input) {
            return Err(NumberError::Syntax);
        }
        let digits = input.as_bytes().get(1..).unwrap_or_default();
        // libphonenumber: too short after the '+' (TOO_SHORT_AFTER_IDD).
        if digits.len() <= MIN_NSN_LEN {
            return Err(NumberError::Invalid);
        }
        let (cc, nsn) = self
            .split_calling_code(digits)
            .ok_or(NumberError::UnknownCallingCode)?;
        // Fails closed: tables that do not load refuse their numbers.
        let cc = cc.get().map_err(|_| NumberError::Invalid)?;
        if nsn.len() < MIN_NSN_LEN {
            return Err(NumberError::Invalid);
        }
        let masks = cc.match_masks(nsn);
        let stripped = cc.strip_national_prefix(nsn, masks[0] & bit::GENERAL != 0)?;
        if let Some(national) = stripped.filter(|s| s.as_slice() != nsn) {
            // The parser keeps the stripped digits; the number can be valid
            // but its E.164 form then differs from the input.
            if !(MIN_NSN_LEN..=MAX_NSN_LEN).contains(&national.len()) {
                return Err(NumberError::Invalid);
            }
            let masks = cc.match_masks(&national);
            return Err(match cc.region_and_type(&masks, national.len()) {
                Some(_) => NumberError::NotCanonical,
                None => NumberError::Invalid,
            });
        }
        let (region, number_type) = cc
            .region_and_type(&masks, nsn.len())
            .ok_or(NumberError::Invalid)?;
        // `nsn` is the input's tail (ASCII digits), so this slice is in bounds.
        let national_number = input
            .get(input.len() - nsn.len()..)
            .ok_or(NumberError::Invalid)?;
        Ok(Classification {
            calling_code: cc.code,
            region: region.id,
            national_number,
            number_type,
        })
    }

    /// libphonenumber's `extractCountryCode`: the shortest assigned prefix of
    /// one to three digits.
    fn split_calling_code<'d>(&self, digits: &'d [u8]) -> Option<(&LazyCallingCode, &'d [u8])> {
        let mut code = 0usize;
        for (len, &digit) in digits.iter().enumerate().take(3) {
            code = code * 10 + usize::from(digit.wrapping_sub(b'0'));
            let index = usize::from(*self.by_code.get(code)?);
            if index != 0 {
                return Some((self.codes.get(index - 1)?, digits.get(len + 1..)?));
            }
        }
        None
    }
}
