//! Bracket expressions (`[a-z[:digit:]]`, `[^]x]`) and single characters
//! of a POSIX pattern, spelled as `regex-syntax` reads them.

use std::fmt::Write as _;

use super::parse::Parser;
use super::spell::{class_char, class_key};

impl Parser<'_> {
    /// A bracket expression after its `[`, as a Rust class.
    pub(super) fn bracket(&mut self) -> Result<String, String> {
        let unmatched = || "unmatched [, [^, [:, [., or [=".to_string();
        let negated = self.peek() == Some(b'^');
        if negated {
            self.i += 1;
        }
        let mut items = String::new();
        let mut first = true;
        loop {
            let c = self.peek().ok_or_else(unmatched)?;
            if c == b']' && !first {
                self.i += 1;
                break;
            }
            first = false;
            if c == b'[' && self.peek2() == Some(b':') {
                self.i += 2;
                let name = self.until(b":]").ok_or_else(unmatched)?;
                items.push_str(&self.class_body(&name).ok_or("invalid character class name")?);
                continue;
            }
            let low = self.bracket_char()?;
            let is_range = self.peek() == Some(b'-') && self.peek2().is_some_and(|n| n != b']');
            if is_range {
                self.i += 1;
                let high = self.bracket_char()?;
                if class_key(high) < class_key(low) {
                    return Err("invalid range end".into());
                }
                let _ = write!(
                    items,
                    "{}-{}",
                    class_char(low, self.flags.multibyte),
                    class_char(high, self.flags.multibyte)
                );
            } else {
                items.push_str(&class_char(low, self.flags.multibyte));
            }
        }
        if negated && self.flags.newline {
            items.push_str(r"\x{a}");
        }
        Ok(format!("[{}{items}]", if negated { "^" } else { "" }))
    }

    /// One character of a bracket expression: `[.c.]` and `[=c=]` stand for
    /// `c`; anything else (a backslash too) for itself.
    fn bracket_char(&mut self) -> Result<u32, String> {
        if self.peek() == Some(b'[') && matches!(self.peek2(), Some(b'.' | b'=')) {
            let close = [self.peek2().unwrap_or(b'.'), b']'];
            self.i += 2;
            let inner = self.until(&close).ok_or("unmatched [, [^, [:, [., or [=")?;
            let mut sub = Parser {
                p: &inner,
                i: 0,
                flags: self.flags,
                groups: 0,
            };
            let ch = sub.next_char();
            if sub.i != inner.len() || inner.is_empty() {
                return Err("invalid collation character".into());
            }
            return Ok(ch);
        }
        if self.peek().is_none() {
            return Err("unmatched [, [^, [:, [., or [=".into());
        }
        Ok(self.next_char())
    }

    /// The bytes up to `close`, consumed with it.
    fn until(&mut self, close: &[u8]) -> Option<Vec<u8>> {
        let rest = self.p.get(self.i..)?;
        let at = rest.windows(close.len()).position(|w| w == close)?;
        self.i += at + close.len();
        rest.get(..at).map(<[u8]>::to_vec)
    }
}
