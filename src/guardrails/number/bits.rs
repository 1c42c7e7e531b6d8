// Shared by the crate and its build script (`build/numbers.rs`), so the
// tables the build script writes and the code that reads them agree.

/// Longest national significant number libphonenumber accepts.
pub(crate) const MAX_NSN_LEN: usize = 17;
/// Most regions sharing one calling code (+1 has 25); per-call masks live on the stack.
pub(crate) const MAX_REGIONS: usize = 32;

/// Bits of a per-region mask: which descriptor patterns matched.
pub(crate) mod bit {
    pub(crate) const GENERAL: u16 = 1 << 0;
    pub(crate) const PREMIUM_RATE: u16 = 1 << 1;
    pub(crate) const TOLL_FREE: u16 = 1 << 2;
    pub(crate) const SHARED_COST: u16 = 1 << 3;
    pub(crate) const VOIP: u16 = 1 << 4;
    pub(crate) const PERSONAL_NUMBER: u16 = 1 << 5;
    pub(crate) const PAGER: u16 = 1 << 6;
    pub(crate) const UAN: u16 = 1 << 7;
    pub(crate) const VOICEMAIL: u16 = 1 << 8;
    pub(crate) const FIXED_LINE: u16 = 1 << 9;
    pub(crate) const MOBILE: u16 = 1 << 10;
    /// The region's leading-digits prefix (not a descriptor: no length check).
    pub(crate) const LEADING_DIGITS: u16 = 1 << 11;
}
