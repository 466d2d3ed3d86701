//! A POSIX regular expression, as glibc's `regcomp` reads it, written as a
//! pattern of the `regex-syntax` crate.
//!
//! Extended (ERE) and basic (BRE, git's `diff.<driver>.funcname`) syntax,
//! with glibc's rules: bracket expressions (a backslash in them is a plain
//! backslash; `[:class:]`, `[=c=]`, `[.c.]`), intervals, `\w \W \s \S \b \B
//! \< \> \` \'`, any other escaped byte is itself (`\t` is `t`), `.` never
//! matches a NUL, an unmatched `)` in an ERE is a plain `)`, a repetition
//! with nothing before it is an error in an ERE and a plain byte in a BRE.
//! `REG_NEWLINE` keeps `.` and `[^…]` off newlines and makes `^`, `$` match
//! at them. Back-references have no counterpart: they are refused.
//!
//! Bytes: in a single-byte locale (`C`) every byte is a character; in a
//! UTF-8 locale the pattern's and the text's characters are UTF-8 sequences
//! (a byte that is not part of one matches nothing but itself).

use super::spell::{BYTE, literal, utf8_len};

/// How a pattern is read (`regcomp`'s flags, and the locale).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Flags {
    /// `REG_EXTENDED`; else basic syntax.
    pub extended: bool,
    /// `REG_ICASE`.
    pub icase: bool,
    /// `REG_NEWLINE`.
    pub newline: bool,
    /// The locale's characters are UTF-8 sequences.
    pub multibyte: bool,
}

/// The translation: the pattern and whether it has a group.
#[derive(Debug)]
pub(super) struct Translated {
    pub pattern: String,
    pub groups: usize,
}

/// `pattern` as a `regex-syntax` pattern, or glibc's reason to refuse it.
pub(super) fn translate(pattern: &[u8], flags: Flags) -> Result<Translated, String> {
    let mut p = Parser {
        p: pattern,
        i: 0,
        flags,
        groups: 0,
    };
    let body = p.alternation(0)?;
    if p.i < p.p.len() {
        return Err("unmatched ) or \\)".into());
    }
    let mode = match (flags.multibyte, flags.icase) {
        (true, true) => "(?i)",
        (true, false) => "",
        (false, true) => "(?i-u)",
        (false, false) => "(?-u)",
    };
    Ok(Translated {
        pattern: format!("{mode}{body}"),
        groups: p.groups,
    })
}

pub(super) struct Parser<'a> {
    pub(super) p: &'a [u8],
    pub(super) i: usize,
    pub(super) flags: Flags,
    pub(super) groups: usize,
}

impl Parser<'_> {
    pub(super) fn peek(&self) -> Option<u8> {
        self.p.get(self.i).copied()
    }

    pub(super) fn peek2(&self) -> Option<u8> {
        self.p.get(self.i + 1).copied()
    }

    fn ere(&self) -> bool {
        self.flags.extended
    }

    /// Whether the next token closes a group (`)` in an ERE inside a group,
    /// `\)` in a BRE).
    fn at_close(&self, depth: usize) -> bool {
        if self.ere() {
            depth > 0 && self.peek() == Some(b')')
        } else {
            self.peek() == Some(b'\\') && self.peek2() == Some(b')')
        }
    }

    /// Whether the next token separates branches.
    fn at_bar(&self) -> bool {
        if self.ere() {
            self.peek() == Some(b'|')
        } else {
            self.peek() == Some(b'\\') && self.peek2() == Some(b'|')
        }
    }

    fn alternation(&mut self, depth: usize) -> Result<String, String> {
        let mut out = self.branch(depth)?;
        while self.at_bar() {
            self.i += if self.ere() { 1 } else { 2 };
            out.push('|');
            out.push_str(&self.branch(depth)?);
        }
        Ok(out)
    }

    fn branch(&mut self, depth: usize) -> Result<String, String> {
        let mut out = String::new();
        let mut pieces = 0usize;
        while self.i < self.p.len() && !self.at_close(depth) && !self.at_bar() {
            let start = pieces == 0;
            let Some(mut piece) = self.atom(depth, start)? else {
                continue;
            };
            let mut anchor = piece.anchor;
            // A BRE's `*` after an anchor is a plain `*`.
            while (!anchor || self.ere())
                && let Some(q) = self.quantifier()?
            {
                if anchor && self.ere() {
                    return Err("invalid preceding regular expression".into());
                }
                anchor = false;
                piece.text = format!("(?:{}){q}", piece.text);
            }
            out.push_str(&piece.text);
            pieces += 1;
        }
        Ok(out)
    }

    /// A repetition operator at the cursor, consumed, in Rust's spelling.
    fn quantifier(&mut self) -> Result<Option<String>, String> {
        let (c, next) = (self.peek(), self.peek2());
        let ere = self.ere();
        let simple = match (c, next) {
            (Some(b'*'), _) => Some((1, "*")),
            (Some(b'+'), _) if ere => Some((1, "+")),
            (Some(b'?'), _) if ere => Some((1, "?")),
            (Some(b'\\'), Some(b'+')) if !ere => Some((2, "+")),
            (Some(b'\\'), Some(b'?')) if !ere => Some((2, "?")),
            _ => None,
        };
        if let Some((n, q)) = simple {
            self.i += n;
            return Ok(Some(q.into()));
        }
        let opens = match (c, next) {
            (Some(b'{'), _) if ere => 1,
            (Some(b'\\'), Some(b'{')) if !ere => 2,
            _ => return Ok(None),
        };
        self.i += opens;
        self.interval().map(Some)
    }

    /// `{m}`, `{m,}`, `{m,n}` or `{,n}` after its `{` (`\{…\}` in a BRE).
    fn interval(&mut self) -> Result<String, String> {
        let bad = || "invalid content of \\{\\}".to_string();
        let number = |s: &mut Self| -> Option<u32> {
            let start = s.i;
            while s.peek().is_some_and(|b| b.is_ascii_digit()) {
                s.i += 1;
            }
            std::str::from_utf8(s.p.get(start..s.i)?).ok()?.parse().ok()
        };
        let min = number(self);
        let max = if self.peek() == Some(b',') {
            self.i += 1;
            number(self)
        } else {
            Some(min.ok_or_else(bad)?)
        };
        let close = if self.ere() { &b"}"[..] } else { b"\\}" };
        if !self.p.get(self.i..).is_some_and(|r| r.starts_with(close)) {
            return Err(bad());
        }
        self.i += close.len();
        let min = min.unwrap_or(0);
        if max.is_some_and(|m| m < min) || min > 0x7fff || max.is_some_and(|m| m > 0x7fff) {
            return Err(bad());
        }
        Ok(match max {
            None => format!("{{{min},}}"),
            Some(m) => format!("{{{min},{m}}}"),
        })
    }

    /// One atom (`None`: nothing to emit, e.g. a BRE's `*` handled as a
    /// literal is still an atom; `None` only for what produces no text).
    fn atom(&mut self, depth: usize, start: bool) -> Result<Option<Piece>, String> {
        let Some(c) = self.peek() else {
            return Ok(None);
        };
        let ere = self.ere();
        self.i += 1;
        let text = match c {
            b'(' if ere => return self.group(depth).map(Some),
            b')' if ere => literal(u32::from(c), self.flags.multibyte),
            b'*' | b'+' | b'?' | b'{' if ere && matches!(c, b'*' | b'+' | b'?' | b'{') => {
                return Err("invalid preceding regular expression".into());
            }
            b'*' if !ere && start => literal(u32::from(c), self.flags.multibyte),
            b'^' if ere || start => return Ok(Some(Piece::anchor(self.line_start()))),
            b'$' if ere || self.bre_at_end(depth) => return Ok(Some(Piece::anchor(self.line_end()))),
            b'.' => self.dot(),
            b'[' => self.bracket()?,
            b'\\' => return self.escape(depth).map(Some),
            _ => {
                self.i -= 1;
                self.character()
            }
        };
        Ok(Some(Piece::new(text)))
    }

    /// Whether a BRE's `$` (just consumed) ends the pattern, a group or a branch.
    fn bre_at_end(&self, depth: usize) -> bool {
        self.i >= self.p.len() || self.at_bar() || (depth > 0 && self.at_close(depth))
    }

    fn line_start(&self) -> String {
        if self.flags.newline { "(?m:^)" } else { r"\A" }.into()
    }

    fn line_end(&self) -> String {
        if self.flags.newline { "(?m:$)" } else { r"\z" }.into()
    }

    fn dot(&self) -> String {
        // glibc's RE_DOT_NOT_NULL: `.` never matches a NUL.
        if self.flags.newline {
            r"[^\x{0}\x{a}]".into()
        } else {
            r"[^\x{0}]".into()
        }
    }

    /// A group after its `(` (or `\(`), up to its closing parenthesis.
    fn group(&mut self, depth: usize) -> Result<Piece, String> {
        self.groups += 1;
        let inner = self.alternation(depth + 1)?;
        if !self.at_close(depth + 1) {
            return Err("unmatched ( or \\(".into());
        }
        self.i += if self.ere() { 1 } else { 2 };
        Ok(Piece::new(format!("({inner})")))
    }

    /// What follows a backslash.
    fn escape(&mut self, depth: usize) -> Result<Piece, String> {
        let Some(c) = self.peek() else {
            return Err("trailing backslash".into());
        };
        self.i += 1;
        let word = self.word_class();
        let text = match c {
            b'(' if !self.ere() => return self.group(depth),
            b'{' if !self.ere() => return Err("invalid preceding regular expression".into()),
            b'1'..=b'9' => return Err("back-references (\\1 to \\9) are not supported".into()),
            b'w' => format!("[{word}]"),
            b'W' => format!("[^{word}]"),
            b's' => format!("[{}]", self.class_body(b"space").unwrap_or_default()),
            b'S' => format!("[^{}]", self.class_body(b"space").unwrap_or_default()),
            b'b' => return Ok(Piece::anchor(r"\b".into())),
            b'B' => return Ok(Piece::anchor(r"\B".into())),
            b'<' => return Ok(Piece::anchor(r"\b{start}".into())),
            b'>' => return Ok(Piece::anchor(r"\b{end}".into())),
            b'`' => return Ok(Piece::anchor(r"\A".into())),
            b'\'' => return Ok(Piece::anchor(r"\z".into())),
            _ => {
                self.i -= 1;
                self.character()
            }
        };
        Ok(Piece::new(text))
    }

    /// glibc's word characters: `_` and the alphanumerics.
    fn word_class(&self) -> String {
        format!("_{}", self.class_body(b"alnum").unwrap_or_default())
    }

    /// The character (a UTF-8 sequence in a multibyte locale, else a
    /// byte) at the cursor, consumed, as a literal.
    fn character(&mut self) -> String {
        let c = self.next_char();
        literal(c, self.flags.multibyte)
    }

    /// The character at the cursor, consumed: a code point, or a byte
    /// (single-byte locale, or a byte that starts no UTF-8 sequence) as
    /// [`BYTE`] plus its value.
    pub(super) fn next_char(&mut self) -> u32 {
        let rest = self.p.get(self.i..).unwrap_or_default();
        let Some(&b) = rest.first() else { return 0 };
        if self.flags.multibyte && b >= 0x80 {
            let len = utf8_len(b);
            if let Some(ch) = rest
                .get(..len)
                .and_then(|s| std::str::from_utf8(s).ok())
                .and_then(|s| s.chars().next())
            {
                self.i += len;
                return u32::from(ch);
            }
            self.i += 1;
            return BYTE + u32::from(b);
        }
        self.i += 1;
        u32::from(b)
    }

    /// A character class's members as the inside of a Rust class.
    pub(super) fn class_body(&self, name: &[u8]) -> Option<String> {
        super::classes::body(name, self.flags.multibyte)
    }
}

/// A translated piece and whether it is an anchor (which an ERE may not
/// repeat).
struct Piece {
    text: String,
    anchor: bool,
}

impl Piece {
    fn new(text: String) -> Self {
        Piece { text, anchor: false }
    }

    fn anchor(text: String) -> Self {
        Piece { text, anchor: true }
    }
}
