//! git's `--diff-filter`: which statuses of changed files to show.

use super::TreeChange;
use crate::model::note::ChangeKind;

/// The statuses `--diff-filter` keeps: upper-case letters select, lower-case
/// ones leave out (with only lower-case letters, everything else is kept);
/// `*` keeps every file when any file is selected, else none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatusFilter {
    keep: u32,
}

/// git's status letters, in its order, and its all-or-none `*`.
const LETTERS: &[u8] = b"ACDMRTUXB*";

fn bit(letter: u8) -> u32 {
    LETTERS.iter().position(|l| *l == letter).map_or(0, |i| 1 << i)
}

impl StatusFilter {
    /// Parse a filter; an unknown letter is refused as git refuses it.
    pub fn parse(text: &str) -> Result<StatusFilter, String> {
        let all_or_none = bit(b'*');
        let mut wanted = 0;
        let mut unwanted = 0;
        for c in text.bytes() {
            let upper = c.to_ascii_uppercase();
            if !LETTERS.contains(&upper) {
                return Err(format!(
                    "--diff-filter={text}: unknown change class '{}' (use A, C, D, M, R, T, U, X, B, *)",
                    char::from(c).escape_default()
                ));
            }
            if c.is_ascii_lowercase() {
                unwanted |= bit(upper);
            } else {
                wanted |= bit(upper);
            }
        }
        // git's diff_setup_done: lower-case letters alone leave out of all
        // the statuses (the all-or-none mark not being one).
        if unwanted != 0 {
            if wanted == 0 {
                wanted = ((1u32 << LETTERS.len()) - 1) & !all_or_none;
            }
            wanted &= !unwanted;
        }
        Ok(StatusFilter { keep: wanted })
    }

    /// Whether `change`'s status is selected.
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

    /// `changes` without those the filter leaves out, as git's
    /// `diffcore_apply_filter`: nothing selected filters nothing; with `*`
    /// all are kept when any is selected, else none.
    pub fn apply(&self, changes: &mut Vec<TreeChange>) {
        if self.keep == 0 {
            return;
        }
        if self.keep & bit(b'*') != 0 {
            if !changes.iter().any(|c| self.keeps(c)) {
                changes.clear();
            }
            return;
        }
        changes.retain(|c| self.keeps(c));
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
        // As git: a letter selected and left out filters nothing.
        assert_eq!(StatusFilter::parse("Aa").unwrap().keep, 0);
        assert_eq!(StatusFilter::parse("d*").unwrap().keep, bit(b'*'));
    }
}
