//! The paths a watcher reports, as worktree-relative paths.

use super::*;

/// The worktree-relative paths among `entries` (a directory's trailing '/'
/// dropped, the worktree's `.git` left out), sorted and without duplicates;
/// None (everything may have changed) if any entry is not a plain relative
/// path.
pub(super) fn relative_paths<'a>(entries: impl Iterator<Item = &'a [u8]>) -> Option<Vec<BString>> {
    let mut paths = Vec::new();
    for entry in entries {
        if let Some(path) = relative_path(entry)? {
            paths.push(path);
        }
    }
    paths.sort_unstable();
    paths.dedup();
    Some(paths)
}

/// `Some(None)`: nothing to report (empty, or in the worktree's `.git`);
/// `None`: not a plain relative path (leading '/', NUL, an empty, `.` or
/// `..` component): doubt.
pub(super) fn relative_path(entry: &[u8]) -> Option<Option<BString>> {
    if entry.is_empty() {
        return Some(None);
    }
    if entry.starts_with(b"/") || entry.contains(&0) {
        return None;
    }
    let path = entry.strip_suffix(b"/").unwrap_or(entry);
    let mut components = path.split(|&b| b == b'/');
    if components.any(|c| c.is_empty() || c == b"." || c == b"..") {
        return None;
    }
    // git never adds a `.git` in any letter case.
    let first = path.split(|&b| b == b'/').next().unwrap_or_default();
    if first.eq_ignore_ascii_case(b".git") {
        return Some(None);
    }
    Some(Some(path.into()))
}

/// `bytes` for a message: lossy UTF-8, control characters escaped.
pub(super) fn shown(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len());
    for c in String::from_utf8_lossy(bytes).chars() {
        if c.is_control() {
            text.extend(c.escape_default());
        } else {
            text.push(c);
        }
    }
    text
}
