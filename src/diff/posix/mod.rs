//! POSIX regular expressions as git runs them (glibc's `regcomp` and
//! `regexec`): git's funcname patterns and word regexes.
//!
//! POSIX matching is leftmost-longest: of the matches that start first,
//! the longest; Rust's engines are leftmost-first (the first alternative
//! that matches wins: `[^[:space:]]|[\xc0-\xff][\x80-\xbf]+` would take
//! one byte of `é` where glibc takes both). So a match is found in two
//! searches: a leftmost-first one for where it starts (the same place in
//! both semantics), then an anchored search there in regex-automata's
//! `MatchKind::All`, whose end is the longest match's. The first group
//! (what git's hunk headers show) is read from a third search that must
//! span exactly that match, with the leftmost-first priorities POSIX's
//! subexpression rule gives for the patterns git ships.

use regex_automata::meta::{Config, Regex};
use regex_automata::util::syntax;
use regex_automata::{Anchored, Input, MatchKind};

mod bracket;
mod classes;
mod parse;
mod spell;
pub use parse::Flags;

/// A compiled POSIX regular expression.
#[derive(Debug)]
pub struct Posix {
    /// Leftmost-first, unanchored: where the match starts.
    first: Regex,
    /// `MatchKind::All`: searched anchored, the longest match's end.
    longest: Regex,
    /// The pattern followed by the end of the text, for the groups of a
    /// match already found (none when the pattern has no group).
    spans: Option<Regex>,
}

impl Posix {
    /// Compile `pattern` as `regcomp` would with `flags`; the error is a
    /// reason to show after the pattern.
    pub fn new(pattern: &[u8], flags: Flags) -> Result<Posix, String> {
        let t = parse::translate(pattern, flags)?;
        let build = |pattern: &str, kind: MatchKind| {
            Regex::builder()
                .syntax(syntax::Config::new().utf8(false))
                .configure(
                    Config::new()
                        .match_kind(kind)
                        .utf8_empty(false)
                        .nfa_size_limit(Some(64 << 20)),
                )
                .build(pattern)
                .map_err(|e| match e.syntax_error() {
                    Some(s) => s.to_string(),
                    None => e.to_string(),
                })
        };
        let first = build(&t.pattern, MatchKind::LeftmostFirst)?;
        let longest = build(&t.pattern, MatchKind::All)?;
        let spans = if t.groups > 0 {
            Some(build(&format!(r"(?:{})\z", t.pattern), MatchKind::LeftmostFirst)?)
        } else {
            None
        };
        Ok(Posix {
            first,
            longest,
            spans,
        })
    }

    /// Whether `hay` has a match.
    pub fn is_match(&self, hay: &[u8]) -> bool {
        self.first.is_match(Input::new(hay))
    }

    /// The leftmost-longest match in `hay` (the whole of it is the string
    /// `regexec` sees), as a byte range.
    pub fn find(&self, hay: &[u8]) -> Option<std::ops::Range<usize>> {
        let m = self.first.search(&Input::new(hay))?;
        let longest = Input::new(hay).range(m.start()..).anchored(Anchored::Yes);
        let end = self
            .longest
            .search(&longest)
            .map_or(m.end(), |l| l.end().max(m.end()));
        Some(m.start()..end)
    }

    /// The match [`Posix::find`] finds and its first group's range, if the
    /// group took part.
    #[allow(clippy::type_complexity)]
    pub fn find_group(&self, hay: &[u8]) -> Option<(std::ops::Range<usize>, Option<std::ops::Range<usize>>)> {
        let whole = self.find(hay)?;
        let Some(spans) = &self.spans else {
            return Some((whole, None));
        };
        let within = hay.get(..whole.end)?;
        let input = Input::new(within).range(whole.start..).anchored(Anchored::Yes);
        let mut caps = spans.create_captures();
        spans.search_captures(&input, &mut caps);
        let group = caps.get_group(1).map(|s| s.start..s.end);
        Some((whole, group))
    }
}

#[cfg(test)]
mod tests;
