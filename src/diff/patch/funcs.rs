//! Function lines (hunk headers' context, `-W`'s functions), as xdiff's
//! `match_func_rec` finds them: git's default rule, or the funcname
//! patterns of the file's diff driver.

use crate::diff::userdiff::FuncName;

/// How function lines are found.
#[derive(Debug, Clone, Copy, Default)]
pub(super) enum Funcs<'a> {
    /// git's default: a line that starts with a letter, `_` or `$`.
    #[default]
    Default,
    /// A diff driver's funcname patterns.
    Driver(&'a FuncName),
}

impl Funcs<'_> {
    /// The function text `line` (with its newline) gives, at most `room`
    /// bytes, trailing whitespace dropped; `None` when it is no function
    /// line.
    pub(super) fn find<'l>(&self, line: &'l [u8], room: usize) -> Option<&'l [u8]> {
        match self {
            Funcs::Default => default_rule(line, room),
            Funcs::Driver(f) => f.find(line, room),
        }
    }

    /// Whether `line` is a function line.
    pub(super) fn is_func(&self, line: &[u8]) -> bool {
        match self {
            Funcs::Default => default_rule(line, 1).is_some(),
            Funcs::Driver(f) => f.is_func(line),
        }
    }
}

/// xdiff's `def_ff`.
fn default_rule(line: &[u8], room: usize) -> Option<&[u8]> {
    let first = *line.first()?;
    if !(first.is_ascii_alphabetic() || first == b'_' || first == b'$') {
        return None;
    }
    let cut = line.get(..line.len().min(room))?;
    let keep = cut
        .iter()
        .rposition(|b| !crate::diff::space::is_git_space(*b))
        .map_or(0, |p| p + 1);
    cut.get(..keep)
}
