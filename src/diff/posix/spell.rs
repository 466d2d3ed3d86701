//! How a character or byte of a POSIX pattern is spelled for
//! `regex-syntax`, so that nothing can read it as syntax.

/// Added to a byte that stands for itself in a multibyte pattern.
pub(super) const BYTE: u32 = 0x8000_0000;

pub(super) fn utf8_len(b: u8) -> usize {
    match b {
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => 1,
    }
}

/// The order a range compares its ends in.
pub(super) fn class_key(c: u32) -> u32 {
    c & !BYTE
}

/// A character or byte as a literal outside a class (`multibyte`: `c` is
/// a code point, else a byte).
pub(super) fn literal(c: u32, multibyte: bool) -> String {
    if c & BYTE != 0 {
        return format!(r"(?-u:\x{:02X})", c & 0xff);
    }
    escaped(c, multibyte)
}

/// `c` spelled so that no syntax can take it for anything but itself: a
/// byte as `\xHH` (the only spelling of a byte above 0x7f), a code point
/// as `\x{H…}`.
fn escaped(c: u32, multibyte: bool) -> String {
    match char::from_u32(c) {
        Some(ch) if ch.is_ascii_alphanumeric() => ch.to_string(),
        _ if !multibyte => format!(r"\x{:02X}", c & 0xff),
        _ => format!(r"\x{{{c:X}}}"),
    }
}

/// A character or byte inside a class.
pub(super) fn class_char(c: u32, multibyte: bool) -> String {
    if c & BYTE != 0 {
        // A lone byte in a multibyte pattern: matches nothing in UTF-8 text
        // but itself, which a Unicode class cannot say; leave it out.
        return String::new();
    }
    escaped(c, multibyte)
}
