//! POSIX character classes (`[:alpha:]`, …) as glibc's locales define them.
//!
//! In the `C` locale they are ASCII, as Rust's own `[:alpha:]`. In a UTF-8
//! locale, glibc's tables (checked against glibc 2.36's `C.UTF-8`, every
//! code point): `space`, `blank`, `cntrl`, `digit` and `xdigit` exactly;
//! the others by the Unicode properties that give glibc's sets for every
//! character its Unicode version knows (code points assigned since may
//! differ).

/// glibc's `space` in a UTF-8 locale.
const SPACE: &str =
    r"\x{9}-\x{D}\x{20}\x{1680}\x{2000}-\x{2006}\x{2008}-\x{200A}\x{2028}\x{2029}\x{205F}\x{3000}";
/// glibc's `blank` in a UTF-8 locale.
const BLANK: &str = r"\x{9}\x{20}\x{1680}\x{2000}-\x{2006}\x{2008}-\x{200A}\x{205F}\x{3000}";
/// What is printable: not a control, unassigned, line or paragraph separator.
const PRINT: &str = r"[^\p{Cc}\p{Cn}\p{Zl}\p{Zp}]";

/// The members of class `name` as the inside of a Rust class; `None` for a
/// name glibc does not know.
pub(super) fn body(name: &[u8], multibyte: bool) -> Option<String> {
    const NAMES: [&str; 12] = [
        "alpha", "upper", "lower", "digit", "xdigit", "space", "print", "punct", "graph", "cntrl", "blank",
        "alnum",
    ];
    let name = *NAMES.iter().find(|n| n.as_bytes() == name)?;
    if !multibyte {
        return Some(format!("[:{name}:]"));
    }
    Some(match name {
        "alpha" => r"[[\p{Alphabetic}\p{Nd}]--0-9]".into(),
        "alnum" => r"\p{Alphabetic}\p{Nd}".into(),
        "upper" => r"\p{Uppercase}".into(),
        "lower" => r"\p{Lowercase}".into(),
        "digit" => "0-9".into(),
        "xdigit" => "0-9A-Fa-f".into(),
        "space" => SPACE.into(),
        "blank" => BLANK.into(),
        "cntrl" => r"\x{0}-\x{1F}\x{7F}-\x{9F}\x{2028}\x{2029}".into(),
        "print" => PRINT.into(),
        "graph" => format!("[{PRINT}--[{SPACE}]]"),
        _ => format!(r"[{PRINT}--[{SPACE}\p{{Alphabetic}}\p{{Nd}}]]"),
    })
}
