//! Function lines by a driver's funcname patterns, as git's `ff_regexp`
//! finds them: the patterns are tried in order on the line without its
//! newline (and a CR before it); the first that matches decides — a
//! rejecting one (`!`) says "not a function line", any other gives its
//! first group (else the whole match), cut to the room there is, trailing
//! whitespace dropped.

use crate::diff::posix::{Flags, Posix};

/// A driver's funcname patterns, compiled.
#[derive(Debug)]
pub struct FuncName {
    /// Each pattern and whether it rejects.
    patterns: Vec<(Posix, bool)>,
}

impl FuncName {
    /// Compile `text` (patterns one a line, `!` first for a rejecting one;
    /// the last may not reject), or say why git refuses it.
    pub fn new(text: &[u8], flags: Flags) -> Result<FuncName, String> {
        let lines: Vec<&[u8]> = text.split(|b| *b == b'\n').collect();
        let mut patterns = Vec::with_capacity(lines.len());
        for (i, line) in lines.iter().enumerate() {
            let (negate, expression) = match line.strip_prefix(b"!") {
                Some(rest) => (true, rest),
                None => (false, *line),
            };
            if negate && i + 1 == lines.len() {
                return Err(format!(
                    "Last expression must not be negated: {}",
                    String::from_utf8_lossy(line)
                ));
            }
            let compiled = Posix::new(expression, flags).map_err(|e| {
                format!(
                    "Invalid regexp to look for hunk header: {} ({e})",
                    String::from_utf8_lossy(expression)
                )
            })?;
            patterns.push((compiled, negate));
        }
        Ok(FuncName { patterns })
    }

    /// The function name `line` (with its newline, if any) gives, at most
    /// `room` bytes; `None` when it is no function line.
    pub fn find<'l>(&self, line: &'l [u8], room: usize) -> Option<&'l [u8]> {
        let line = content(line);
        let re = self.decider(line)?;
        let (whole, group) = re.find_group(line)?;
        let range = group.unwrap_or(whole);
        let text = line.get(range.start..range.end.min(range.start + room))?;
        let keep = text
            .iter()
            .rposition(|b| !crate::diff::space::is_git_space(*b))
            .map_or(0, |p| p + 1);
        text.get(..keep)
    }

    /// Whether `line` is a function line.
    pub fn is_func(&self, line: &[u8]) -> bool {
        self.decider(content(line)).is_some()
    }

    /// The pattern that makes `line` a function line: the first that
    /// matches, unless it rejects.
    fn decider(&self, line: &[u8]) -> Option<&Posix> {
        let (re, negate) = self.patterns.iter().find(|(re, _)| re.is_match(line))?;
        (!negate).then_some(re)
    }
}

/// A line without its newline, and without a CR before that.
fn content(line: &[u8]) -> &[u8] {
    match line.strip_suffix(b"\n") {
        Some(l) => l.strip_suffix(b"\r").unwrap_or(l),
        None => line,
    }
}
