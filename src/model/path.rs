//! git's rules for a tree entry name that may be written into a worktree
//! (its `verify_path`): what a checkpoint fetched from someone else must
//! not hold, and how a path's bytes are kept when they are not UTF-8; also
//! small helpers for worktree-relative paths (quoted for people, made
//! absolute, the folder one is in). Pure functions; the walk over a tree
//! is in `restore::verify`.

use std::borrow::Cow;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

/// Longest path component written (most file systems' limit).
pub const MAX_COMPONENT: usize = 255;
/// Longest worktree-relative path written (`PATH_MAX`).
pub const MAX_PATH: usize = 4096;
/// Longest symlink target written.
pub const MAX_LINK_TARGET: usize = 4096;

/// Why a name may not be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problem {
    /// The empty name.
    Empty,
    /// `.` or `..`.
    Dots,
    /// A `/` or NUL inside the name.
    Separator,
    /// `.git` in any case, or a name file systems treat as `.git`
    /// (`git~1`, `.git` followed by spaces or dots, an NTFS stream, HFS+
    /// ignorable characters).
    DotGit,
    /// Longer than [`MAX_COMPONENT`].
    TooLong,
}

impl Problem {
    /// What is wrong, in words.
    pub fn as_str(self) -> &'static str {
        match self {
            Problem::Empty => "an empty path component",
            Problem::Dots => "a '.' or '..' path component",
            Problem::Separator => "a '/' or NUL inside a name",
            Problem::DotGit => "a component git treats as .git (git refuses to write it)",
            Problem::TooLong => "a path component longer than 255 bytes",
        }
    }
}

/// Characters HFS+ ignores when it compares names (git's list).
fn hfs_ignorable(c: char) -> bool {
    matches!(c, '\u{200C}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{206A}'..='\u{206F}' | '\u{FEFF}')
}

/// Whether the name `name` may be written into a worktree.
pub fn check_component(name: &[u8]) -> Result<(), Problem> {
    if name.is_empty() {
        return Err(Problem::Empty);
    }
    if name == b"." || name == b".." {
        return Err(Problem::Dots);
    }
    if name.iter().any(|b| *b == b'/' || *b == 0) {
        return Err(Problem::Separator);
    }
    if name.len() > MAX_COMPONENT {
        return Err(Problem::TooLong);
    }
    if is_dot_git(name) {
        return Err(Problem::DotGit);
    }
    Ok(())
}

fn is_dot_git(name: &[u8]) -> bool {
    let lower = name.to_ascii_lowercase();
    // NTFS: trailing spaces and dots are dropped; `git~1` is the short name;
    // `.git::$INDEX_ALLOCATION` and other streams name the folder itself.
    let trimmed = {
        let mut end = lower.len();
        while end > 0 && matches!(lower[end - 1], b' ' | b'.') {
            end -= 1;
        }
        &lower[..end]
    };
    if trimmed == b".git" || trimmed == b"git~1" || lower.starts_with(b".git:") {
        return true;
    }
    // HFS+: ignorable code points are dropped before names are compared.
    std::str::from_utf8(name).is_ok_and(|s| {
        let folded: String = s.chars().filter(|c| !hfs_ignorable(*c)).collect();
        folded.eq_ignore_ascii_case(".git")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_git_refuses() {
        for bad in [
            &b""[..],
            b".",
            b"..",
            b"a/b",
            b"a\0b",
            b".git",
            b".GIT",
            b".Git",
            b"git~1",
            b"GIT~1",
            b".git ",
            b".git.",
            b".git. .",
            b".git::$INDEX_ALLOCATION",
            ".g\u{200c}it".as_bytes(),
            "\u{feff}.git".as_bytes(),
        ] {
            assert!(
                check_component(bad).is_err(),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
        assert_eq!(check_component(&[b'x'; 256]), Err(Problem::TooLong));
        for good in [
            &b"a"[..],
            b".gitignore",
            b".github",
            b"git",
            b"..a",
            b"a.git",
            b"\xff\xfe",
        ] {
            assert!(
                check_component(good).is_ok(),
                "{:?}",
                String::from_utf8_lossy(good)
            );
        }
    }
}

/// A path as text: its display form (invalid UTF-8 replaced by U+FFFD) and,
/// only when that loses bytes, the exact bytes in base64 (standard alphabet,
/// padded). Two distinct paths never share both.
pub fn to_text(bytes: &[u8]) -> (String, Option<String>) {
    match std::str::from_utf8(bytes) {
        Ok(s) => (s.to_owned(), None),
        Err(_) => (
            String::from_utf8_lossy(bytes).into_owned(),
            Some(STANDARD.encode(bytes)),
        ),
    }
}

/// The bytes [`to_text`] described. Base64 that does not decode (a note
/// from elsewhere) falls back to the display form.
pub fn from_text<'a>(display: &'a str, b64: Option<&str>) -> Cow<'a, [u8]> {
    match b64.and_then(|b| STANDARD.decode(b).ok()) {
        Some(bytes) => Cow::Owned(bytes),
        None => Cow::Borrowed(display.as_bytes()),
    }
}

/// A path in JSON: a string when it is UTF-8, else
/// `{"path": <display>, "path_b64": <bytes>}` (see [`to_text`]).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct PathText(pub Vec<u8>);

impl serde::Serialize for PathText {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        match to_text(&self.0) {
            (text, None) => s.serialize_str(&text),
            (text, Some(b64)) => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("path", &text)?;
                m.serialize_entry("path_b64", &b64)?;
                m.end()
            }
        }
    }
}

#[cfg(test)]
mod text_tests {
    use super::*;

    #[test]
    fn non_utf8_paths_survive_and_stay_distinct() {
        let a = b"caf\xe9.txt".as_slice();
        let b = b"caf\xe8.txt".as_slice();
        let (ta, ba) = to_text(a);
        let (tb, bb) = to_text(b);
        assert_eq!(ta, tb, "both display the same");
        assert_ne!(ba, bb);
        assert_eq!(from_text(&ta, ba.as_deref()), a);
        assert_eq!(from_text(&tb, bb.as_deref()), b);
        assert_eq!(to_text(b"plain.rs"), ("plain.rs".to_owned(), None));
        assert_eq!(
            from_text("plain.rs", Some("%%not base64")),
            b"plain.rs".as_slice()
        );
        let json = serde_json::to_value([PathText(a.to_vec()), PathText(b"x".to_vec())]).unwrap();
        assert_eq!(json[0]["path"], "caf\u{fffd}.txt");
        assert_eq!(json[0]["path_b64"], "Y2Fm6S50eHQ=");
        assert_eq!(json[1], "x");
    }
}

/// C-quote `path` like git's `quote_c_style`; bytes above 0x7f are escaped
/// only with `quote_high` (`core.quotePath`).
pub fn quote_as(path: &gix::bstr::BStr, quote_high: bool) -> Vec<u8> {
    let special = |b: u8| b < 0x20 || b == 0x7f || b == b'"' || b == b'\\' || (quote_high && b >= 0x80);
    let needs = path.iter().any(|&b| special(b));
    if !needs {
        return path.to_vec();
    }
    let mut s = Vec::with_capacity(path.len() + 2);
    s.push(b'"');
    for &b in path.iter() {
        match b {
            b'"' => s.extend_from_slice(b"\\\""),
            b'\\' => s.extend_from_slice(b"\\\\"),
            b'\n' => s.extend_from_slice(b"\\n"),
            b'\t' => s.extend_from_slice(b"\\t"),
            b'\r' => s.extend_from_slice(b"\\r"),
            0x07 => s.extend_from_slice(b"\\a"),
            0x08 => s.extend_from_slice(b"\\b"),
            0x0b => s.extend_from_slice(b"\\v"),
            0x0c => s.extend_from_slice(b"\\f"),
            0x20..=0x7e => s.push(b),
            0x80..=0xff if !quote_high => s.push(b),
            _ => s.extend_from_slice(format!("\\{b:03o}").as_bytes()),
        }
    }
    s.push(b'"');
    s
}

/// `path` C-quoted like git does for people (`core.quotePath` on).
pub fn quoted(path: impl AsRef<[u8]>) -> String {
    String::from_utf8_lossy(&quote_as(gix::bstr::BStr::new(path.as_ref()), true)).into_owned()
}

/// The absolute path of the worktree-relative `rela` (a name git could
/// not have on this system is an error).
pub fn abs(workdir: &std::path::Path, rela: &gix::bstr::BStr) -> crate::error::Result<std::path::PathBuf> {
    use gix::bstr::ByteSlice as _;
    let rel = gix::path::from_bstr(rela).map_err(|e| crate::error::Error::Git {
        context: format!("{} is not a valid path here", rela.to_str_lossy()),
        source: Box::new(e),
    })?;
    Ok(workdir.join(rel))
}

/// The folder the worktree-relative `path` is in (`""`: the root).
pub fn parent(path: &gix::bstr::BStr) -> &gix::bstr::BStr {
    use gix::bstr::ByteSlice as _;
    path.rfind_byte(b'/')
        .map_or(b"".as_bstr(), |i| path[..i].as_bstr())
}
