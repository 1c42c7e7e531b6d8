//! Longest-prefix lookup of digit strings (IRSF ranges).

use std::io::BufRead;

/// A set of E.164 prefixes (`+` optional, digits only) with lookup in time
/// bounded by the number's length, independent of how many prefixes are
/// stored: a digit trie.
#[derive(Debug, Clone)]
pub struct PrefixSet {
    /// Node 0 is the root; each node has ten children (0 = none) and a flag.
    nodes: Vec<([u32; 10], bool)>,
    len: usize,
}

impl Default for PrefixSet {
    fn default() -> Self {
        Self {
            nodes: vec![([0; 10], false)],
            len: 0,
        }
    }
}

/// A prefix line that is not `+` and digits.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {text:?} is not a prefix of digits (optionally after '+')")]
pub struct InvalidPrefix {
    /// 1-based line number.
    pub line: usize,
    /// The offending text.
    pub text: String,
}

impl PrefixSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// The prefixes shipped with the crate (`data/irsf_prefixes.txt`).
    pub fn shipped_irsf() -> Self {
        Self::parse(include_str!("../../data/irsf_prefixes.txt").as_bytes())
            .expect("the shipped IRSF list is well formed")
    }

    /// Reads one prefix per line; blank lines and `#` comments are skipped.
    pub fn parse(reader: impl BufRead) -> Result<Self, InvalidPrefix> {
        let mut set = Self::new();
        for (index, line) in reader.lines().enumerate() {
            let line = line.map_err(|_| InvalidPrefix {
                line: index + 1,
                text: String::new(),
            })?;
            let text = line.split('#').next().unwrap_or_default().trim();
            if text.is_empty() {
                continue;
            }
            set.insert(text).map_err(|_| InvalidPrefix {
                line: index + 1,
                text: text.to_owned(),
            })?;
        }
        Ok(set)
    }

    /// Adds a prefix such as `+88213` or `88213`.
    pub fn insert(&mut self, prefix: &str) -> Result<(), InvalidPrefix> {
        let digits = prefix.strip_prefix('+').unwrap_or(prefix);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(InvalidPrefix {
                line: 0,
                text: prefix.to_owned(),
            });
        }
        let mut node = 0usize;
        for digit in digits.bytes().map(|b| usize::from(b - b'0')) {
            let next = self.nodes[node].0[digit];
            node = if next == 0 {
                self.nodes.push(([0; 10], false));
                let created = self.nodes.len() - 1;
                self.nodes[node].0[digit] = created as u32;
                created
            } else {
                next as usize
            };
        }
        if !self.nodes[node].1 {
            self.nodes[node].1 = true;
            self.len += 1;
        }
        Ok(())
    }

    /// The longest stored prefix of `number` (`+` optional), in digits.
    pub fn longest_match<'a>(&self, number: &'a str) -> Option<&'a str> {
        let digits = number.strip_prefix('+').unwrap_or(number);
        let len = self.longest_match_len(digits.bytes())?;
        digits.get(..len)
    }

    /// The length of the longest stored prefix of a digit sequence (which
    /// ends at its first non-digit), so a caller holding the number in parts
    /// need not join them first.
    pub fn longest_match_len(&self, digits: impl IntoIterator<Item = u8>) -> Option<usize> {
        let mut node = 0usize;
        let mut best = None;
        for (i, b) in digits.into_iter().enumerate() {
            if !b.is_ascii_digit() {
                break;
            }
            match self.nodes[node].0[usize::from(b - b'0')] {
                0 => break,
                next => node = next as usize,
            }
            if self.nodes[node].1 {
                best = Some(i + 1);
            }
        }
        best
    }

    /// How many prefixes are stored.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no prefix is stored.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longest_prefix_wins_and_non_matches_are_none() {
        let mut set = PrefixSet::new();
        set.insert("+4470").unwrap();
        set.insert("447012").unwrap();
        assert_eq!(set.longest_match("+447012345678"), Some("447012"));
        assert_eq!(set.longest_match("+447099999999"), Some("4470"));
        assert_eq!(set.longest_match("+4471"), None);
        assert_eq!(set.len(), 2);
        assert!(set.insert("+44a").is_err() && set.insert("").is_err());
    }

    #[test]
    fn parses_files_with_comments() {
        let set = PrefixSet::parse("# list\n+882 # satellite\n\n  +8816\n".as_bytes()).unwrap();
        assert_eq!(set.len(), 2);
        assert!(PrefixSet::parse("+1x\n".as_bytes()).unwrap_err().line == 1);
        assert!(!PrefixSet::shipped_irsf().is_empty());
    }
}
