//! The page's word highlights: for each changed line of a file's patch,
//! which words changed, from the word diff `--color-words` prints
//! ([`crate::diff::words`]).

use crate::diff::words::{self, Piece};

/// One run of removed and added lines: where each line starts in the run's
/// text, and that text.
#[derive(Default)]
struct Side {
    starts: Vec<usize>,
    text: Vec<u8>,
}

impl Side {
    fn push(&mut self, line: &str) {
        self.starts.push(self.text.len());
        self.text.extend_from_slice(line.as_bytes());
        self.text.push(b'\n');
    }

    /// Per line, the parts of `ranges` (byte ranges of the run's text) that
    /// fall in it, in UTF-16 units of the line.
    fn per_line(&self, ranges: &[std::ops::Range<usize>]) -> Vec<Vec<[usize; 2]>> {
        let mut out = Vec::with_capacity(self.starts.len());
        for (k, &start) in self.starts.iter().enumerate() {
            let end = self.starts.get(k + 1).map_or(self.text.len(), |n| n - 1);
            let line = std::str::from_utf8(self.text.get(start..end).unwrap_or_default()).unwrap_or_default();
            let utf16 = |byte: usize| line.get(..byte).map_or(0, |s| s.encode_utf16().count());
            let marks = ranges
                .iter()
                .filter_map(|r| {
                    let (a, b) = (r.start.max(start), r.end.min(end));
                    (a < b).then(|| [utf16(a - start), utf16(b - start)])
                })
                .collect();
            out.push(marks);
        }
        out
    }
}

/// The changed words of each `-` and `+` line of `file` (a file's patch).
pub fn marks(file: &str) -> Vec<Vec<[usize; 2]>> {
    let mut out = Vec::new();
    let (mut minus, mut plus) = (Side::default(), Side::default());
    let mut in_hunk = false;
    for line in file.lines() {
        if line.starts_with("@@") {
            in_hunk = true;
            flush(&mut minus, &mut plus, &mut out);
            continue;
        }
        if !in_hunk || line.starts_with('\\') {
            continue;
        }
        match line.split_at_checked(1) {
            Some(("-", body)) => minus.push(body),
            Some(("+", body)) => plus.push(body),
            _ => flush(&mut minus, &mut plus, &mut out),
        }
    }
    flush(&mut minus, &mut plus, &mut out);
    out
}

/// The marks of a run: its removed lines', then its added lines' (none
/// unless the run both removes and adds).
fn flush(minus: &mut Side, plus: &mut Side, out: &mut Vec<Vec<[usize; 2]>>) {
    if minus.starts.is_empty() && plus.starts.is_empty() {
        return;
    }
    let (mut old, mut new) = (Vec::new(), Vec::new());
    if !minus.starts.is_empty() && !plus.starts.is_empty() {
        for (piece, r) in words::diff_ranges(&minus.text, &plus.text, None) {
            match piece {
                Piece::Old => old.push(r),
                Piece::New => new.push(r),
                Piece::Context => {}
            }
        }
    }
    out.extend(minus.per_line(&old));
    out.extend(plus.per_line(&new));
    *minus = Side::default();
    *plus = Side::default();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_words_of_each_changed_line() {
        let file = "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n ctx\n-let x = 1;\n+let y = 1;\n@@ -9 +9,2 @@\n+only added\n";
        assert_eq!(marks(file), [vec![[4, 5]], vec![[4, 5]], vec![]]);
    }
}
