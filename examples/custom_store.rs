//! Placeholder: written next.
fn main() {}
