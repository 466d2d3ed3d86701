//! git's `--diff-filter`: which statuses of changed files to show.

use super::TreeChange;
use crate::model::note::ChangeKind;

/// The statuses `--diff-filter` keeps: upper-case letters select, lower-case
/// ones leave out (with only lower-case letters, everything else is kept).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatusFilter {
    keep: u32,
}

/// git's status letters, in its order.
const LETTERS: &[u8] = b"ACDMRTUXB";

fn bit(letter: u8) -> u32 {
    LETTERS.iter().position(|l| *l == letter).map_or(0, |i| 1 << i)
}

impl StatusFilter {
    /// Parse a filter; an unknown letter is refused as git refuses it.
    pub fn parse(text: &str) -> Result<StatusFilter, String> {
        let all = (1u32 << LETTERS.len()) - 1;
        let mut wanted = 0;
        let mut unwanted = 0;
        for c in text.bytes() {
            let upper = c.to_ascii_uppercase();
            if c == b'*' || !LETTERS.contains(&upper) {
                return Err(format!(
                    "--diff-filter={text}: unknown change class '{}' (use A, C, D, M, R, T, U, X, B)",
                    char::from(c).escape_default()
                ));
            }
            if c.is_ascii_uppercase() {
                wanted |= bit(upper);
            } else {
                unwanted |= bit(upper);
            }
        }
        let base = if wanted == 0 { all } else { wanted };
        Ok(StatusFilter {
            keep: base & !unwanted,
        })
    }

    /// Whether `change` is shown.
    pub fn keeps(&self, change: &TreeChange) -> bool {
        let letter = match change.kind {
            ChangeKind::Added => b'A',
            ChangeKind::Deleted => b'D',
            ChangeKind::Modified => b'M',
            ChangeKind::Renamed => b'R',
            ChangeKind::Copied => b'C',
            ChangeKind::TypeChanged => b'T',
        };
        self.keep & bit(letter) != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upper_case_selects_and_lower_case_leaves_out() {
        let f = StatusFilter::parse("AM").unwrap();
        assert_eq!(f.keep, bit(b'A') | bit(b'M'));
        let f = StatusFilter::parse("d").unwrap();
        assert_eq!(f.keep & bit(b'D'), 0);
        assert_ne!(f.keep & bit(b'M'), 0);
        let f = StatusFilter::parse("Ad").unwrap();
        assert_eq!(f.keep, bit(b'A'));
        assert!(StatusFilter::parse("Q").is_err());
        assert!(StatusFilter::parse("*").is_err());
    }
}
