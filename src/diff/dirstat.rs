//! git's `--dirstat`: how much of the change each directory holds. The
//! damage of a file is, by default (`changes`), what git's
//! `diffcore_count_changes` measures — bytes removed plus bytes added, by
//! chunks of a line or 64 bytes (its span hash); `lines` counts the lines
//! the numstat counts (binary files by 64 bytes), `files` counts each file
//! once. The lines are written by [`report`].

use std::collections::HashMap;

use gix::bstr::{BString, ByteSlice};

/// How damage is counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Bytes changed (git's default).
    Changes,
    /// Lines added and deleted.
    Lines,
    /// One per file.
    Files,
}

/// `--dirstat`'s parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    /// How damage is counted.
    pub method: Method,
    /// A directory's share counts in its parent's too.
    pub cumulative: bool,
    /// Directories under this share (in tenths of a percent) are not shown.
    pub permille: u64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            method: Method::Changes,
            cumulative: false,
            permille: 30,
        }
    }
}

impl Params {
    /// Read `text` (`changes`, `lines`, `files`, `cumulative`,
    /// `noncumulative`, a percentage) over `self`, as git's
    /// `parse_dirstat_params`; a parameter it does not know is refused.
    pub fn parse(self, text: &str) -> Result<Params, String> {
        let (p, problems) = self.parse_lenient(text);
        match problems.first() {
            Some(problem) => Err(problem.clone()),
            None => Ok(p),
        }
    }

    /// Read `text` over `self` as git reads `diff.dirstat`: each parameter
    /// it knows is taken, each other one is a problem, in git's words.
    pub fn parse_lenient(mut self, text: &str) -> (Params, Vec<String>) {
        let mut problems = Vec::new();
        if text.is_empty() {
            return (self, problems);
        }
        for p in text.split(',') {
            match p {
                "changes" => self.method = Method::Changes,
                "lines" => self.method = Method::Lines,
                "files" => self.method = Method::Files,
                "cumulative" => self.cumulative = true,
                "noncumulative" => self.cumulative = false,
                _ if p.starts_with(|c: char| c.is_ascii_digit()) => match cut_off(p) {
                    Some(permille) => self.permille = permille,
                    None => problems.push(format!("Failed to parse dirstat cut-off percentage '{p}'")),
                },
                _ => problems.push(format!("Unknown dirstat parameter '{p}'")),
            }
        }
        (self, problems)
    }
}

/// A cut-off percentage in tenths (`5`, `2.5`; digits after the first
/// decimal are ignored, as git ignores them).
fn cut_off(p: &str) -> Option<u64> {
    let (whole, frac) = p.split_once('.').unwrap_or((p, ""));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !(frac.is_empty() || digits(frac)) {
        return None;
    }
    let whole: u64 = whole.parse().ok()?;
    let tenth = frac.bytes().next().map_or(0, |b| u64::from(b - b'0'));
    Some(whole.saturating_mul(10).saturating_add(tenth))
}

/// git's span hash of `data`: chunk hash → bytes in such chunks (a chunk
/// ends at a newline or after 64 bytes; CR of CRLF left out in text).
fn spans(data: &[u8], text: bool) -> HashMap<u32, u64> {
    const HASHBASE: u32 = 107_927;
    let mut out = HashMap::new();
    let (mut n, mut a1, mut a2) = (0u64, 0u32, 0u32);
    for (i, &c) in data.iter().enumerate() {
        if text && c == b'\r' && data.get(i + 1) == Some(&b'\n') {
            continue;
        }
        let old = a1;
        a1 = (a1 << 7) ^ (a2 >> 25);
        a2 = (a2 << 7) ^ (old >> 25);
        a1 = a1.wrapping_add(u32::from(c));
        n += 1;
        if n < 64 && c != b'\n' {
            continue;
        }
        *out.entry(a1.wrapping_add(a2.wrapping_mul(0x61)) % HASHBASE)
            .or_insert(0) += n;
        (n, a1, a2) = (0, 0, 0);
    }
    if n > 0 {
        *out.entry(a1.wrapping_add(a2.wrapping_mul(0x61)) % HASHBASE)
            .or_insert(0) += n;
    }
    out
}

/// `diffcore_count_changes`: bytes of `old` kept, bytes of `new` added
/// (`binary`: each side's diff driver says binary or text; else its
/// content does).
pub fn count_changes(old: &[u8], new: &[u8], binary: [Option<bool>; 2]) -> (u64, u64) {
    let text = |d: &[u8], b: Option<bool>| !b.unwrap_or_else(|| crate::diff::lines::is_binary(d));
    let (s, d) = (spans(old, text(old, binary[0])), spans(new, text(new, binary[1])));
    let mut copied = 0;
    let mut added = 0;
    for (h, &dc) in &d {
        let sc = s.get(h).copied().unwrap_or(0);
        copied += sc.min(dc);
        added += dc.saturating_sub(sc);
    }
    (copied, added)
}

/// The damage `changes` does to a file whose sides are `old` and `new`
/// (`None`: no such side), as git's `show_dirstat` counts it.
pub fn damage(old: Option<&[u8]>, new: Option<&[u8]>, binary: [Option<bool>; 2]) -> u64 {
    let damage = match (old, new) {
        (Some(o), Some(n)) => {
            let (copied, added) = count_changes(o, n, binary);
            (o.len() as u64).saturating_sub(copied) + added
        }
        (Some(o), None) => o.len() as u64,
        (None, Some(n)) => n.len() as u64,
        (None, None) => 0,
    };
    damage.max(1)
}

/// git's `gather_dirstat` over `files` (path, damage; sorted by path): the
/// directory lines to write, `  NN.N% dir/`.
pub fn report(files: &[(BString, u64)], params: Params) -> Vec<String> {
    let total: u64 = files.iter().map(|f| f.1).sum();
    let mut out = Vec::new();
    if total == 0 {
        return out;
    }
    let mut at = 0;
    gather(files, &mut at, total, b"", params, &mut out);
    out
}

fn gather(
    files: &[(BString, u64)],
    at: &mut usize,
    total: u64,
    base: &[u8],
    params: Params,
    out: &mut Vec<String>,
) -> u64 {
    let (mut sum, mut sources) = (0u64, 0u32);
    while let Some((name, changed)) = files.get(*at) {
        if !name.starts_with(base) {
            break;
        }
        let changes = match name[base.len()..].find_byte(b'/') {
            Some(slash) => {
                let sub = &name[..base.len() + slash + 1];
                sources += 1;
                gather(files, at, total, sub, params, out)
            }
            None => {
                *at += 1;
                sources += 2;
                *changed
            }
        };
        sum += changes;
    }
    if !base.is_empty() && sources != 1 && sum > 0 {
        let permille = sum * 1000 / total;
        if permille >= params.permille {
            out.push(format!(
                "{:4}.{}% {}",
                permille / 10,
                permille % 10,
                base.to_str_lossy()
            ));
            if !params.cumulative {
                return 0;
            }
        }
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_as_git_reads_them() {
        let p = Params::default().parse("lines,cumulative,10.25").unwrap();
        assert_eq!((p.method, p.cumulative, p.permille), (Method::Lines, true, 102));
        assert!(Params::default().parse("bogus").is_err());
        assert!(Params::default().parse("5x").is_err());
    }

    #[test]
    fn a_directory_with_one_source_is_reported_by_its_parent() {
        let files = [("a/b/f".into(), 10), ("a/b/g".into(), 10), ("c/h".into(), 80)];
        assert_eq!(report(&files, Params::default()), ["  20.0% a/b/", "  80.0% c/"]);
    }
}
