//! How whitespace counts when lines are compared: git's `-w`
//! (`--ignore-all-space`), `-b` (`--ignore-space-change`) and
//! `--ignore-space-at-eol`, as xdiff's `xdl_recmatch` compares lines; each
//! is a normalization of the line, so that equal lines intern to one token
//! (gix has no whitespace-ignoring diff).

use gix::diff::blob::InternedInput;

/// Which whitespace differences lines are compared without.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Space {
    /// Every byte counts.
    #[default]
    Exact,
    /// Whitespace at the end of a line does not (`--ignore-space-at-eol`).
    AtEol,
    /// Nor does the amount of whitespace inside one (`-b`).
    Change,
    /// No whitespace counts at all (`-w`).
    All,
}

impl From<bool> for Space {
    /// `-w` or nothing.
    fn from(ignore_all: bool) -> Self {
        if ignore_all { Space::All } else { Space::Exact }
    }
}

/// Both sides with whitespace squeezed as a [`Space`] says, line by line,
/// in one buffer per side (no allocation per line).
#[derive(Default)]
pub struct Squeezed {
    old: (Vec<u8>, Vec<usize>),
    new: (Vec<u8>, Vec<usize>),
}

/// Append `text`'s lines squeezed as `space` says to `buf`, recording where
/// each ends.
fn squeeze(text: &[u8], space: Space, (buf, ends): &mut (Vec<u8>, Vec<usize>)) {
    buf.reserve(text.len());
    for line in text.split_inclusive(|b| *b == b'\n') {
        squeeze_into(line, space, buf);
        ends.push(buf.len());
    }
}

/// One line (its newline included) squeezed as `space` says: two lines
/// are equal under `space` when their squeezed forms are.
pub fn squeeze_line(line: &[u8], space: Space) -> Vec<u8> {
    let mut buf = Vec::with_capacity(line.len());
    squeeze_into(line, space, &mut buf);
    buf
}

/// Append `line` squeezed as `space` says to `buf`.
fn squeeze_into(line: &[u8], space: Space, buf: &mut Vec<u8>) {
    match space {
        Space::Exact => buf.extend_from_slice(line),
        Space::All => {
            // Copy the runs between whitespace: few, long runs in source code.
            for run in line.split(|b| is_git_space(*b)) {
                buf.extend_from_slice(run);
            }
        }
        Space::AtEol => buf.extend_from_slice(trim_end(line)),
        Space::Change => {
            // Each run of whitespace inside the line is one space; the
            // run at its end (the newline with it) is none.
            let mut in_run = false;
            for &b in trim_end(line) {
                if is_git_space(b) {
                    if !in_run {
                        buf.push(b' ');
                    }
                    in_run = true;
                } else {
                    buf.push(b);
                    in_run = false;
                }
            }
        }
    }
}

/// `line` without the whitespace (newline included) it ends with.
fn trim_end(line: &[u8]) -> &[u8] {
    let keep = line.iter().rposition(|b| !is_git_space(*b)).map_or(0, |i| i + 1);
    &line[..keep]
}

/// The squeezed lines back out of their buffer.
fn slices((buf, ends): &(Vec<u8>, Vec<usize>)) -> impl Iterator<Item = &[u8]> {
    ends.iter().scan(0, move |start, &end| {
        let line = buf.get(*start..end).unwrap_or_default();
        *start = end;
        Some(line)
    })
}

/// Lines as tokens: exactly, newline included, or with whitespace squeezed
/// (into `scratch`) as git's `-w`, `-b` or `--ignore-space-at-eol` compares
/// lines.
pub fn intern<'a>(
    old: &'a [u8],
    new: &'a [u8],
    space: impl Into<Space>,
    scratch: &'a mut Squeezed,
) -> InternedInput<&'a [u8]> {
    let mut input = InternedInput::default();
    let space = space.into();
    if space != Space::Exact {
        squeeze(old, space, &mut scratch.old);
        squeeze(new, space, &mut scratch.new);
        let scratch: &'a Squeezed = scratch;
        input.update_before(slices(&scratch.old));
        input.update_after(slices(&scratch.new));
    } else {
        input.update_before(old.split_inclusive(|b| *b == b'\n'));
        input.update_after(new.split_inclusive(|b| *b == b'\n'));
    }
    input
}

/// The bytes squeezed out as whitespace: git's own `isspace` (space, TAB,
/// LF and CR; `\v` and `\f` are kept).
pub fn is_git_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}
