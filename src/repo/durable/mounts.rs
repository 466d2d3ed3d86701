//! Whether one flush covers every file (ext4 with data=journal on Linux): the mount holding a path.

use super::*;

/// Whether one `fsync` commits what every earlier write on this file
/// system did (a journal committed in order): XFS, and ext4 with a
/// journal, by the type of the mount `path` is on (`/proc/self/mounts`;
/// ext2 and ext3 share ext4's magic number, so `statfs` cannot tell them
/// apart) and jbd2's list of journals.
///
/// Asked once per path and process (a capture asks for the objects folder
/// and each ref it writes; a machine may have hundreds of mounts).
#[cfg(target_os = "linux")]
pub(super) fn one_flush_covers_all(path: &Path) -> bool {
    static SEEN: std::sync::Mutex<Vec<(PathBuf, bool)>> = std::sync::Mutex::new(Vec::new());
    let mut seen = SEEN.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, ordered)) = seen.iter().find(|(p, _)| p == path) {
        return *ordered;
    }
    let (Ok(real), Ok(mounts)) = (std::fs::canonicalize(path), std::fs::read("/proc/self/mounts")) else {
        return false;
    };
    let ordered = match mount_of(&mounts, &real) {
        Some((_, b"xfs")) => true,
        // ext4 made without a journal (`^has_journal`) flushes only the
        // file asked and its new directory entries: no batch there.
        Some((device, b"ext4")) => ext4_journaled(&unescape_mount(device)),
        _ => false,
    };
    seen.push((path.to_owned(), ordered));
    ordered
}

/// Whether the ext4 file system on `device` (as `/proc/self/mounts` names
/// it) has a journal: jbd2 lists one per journalled device, as
/// `<kernel device name>-<journal inode>` in `/proc/fs/jbd2`.
#[cfg(target_os = "linux")]
pub(super) fn ext4_journaled(device: &[u8]) -> bool {
    use std::os::unix::ffi::OsStrExt as _;
    let device = Path::new(std::ffi::OsStr::from_bytes(device));
    // `/dev/mapper/x` is a link to `/dev/dm-0`, jbd2's `dm-0-8`.
    let Some(name) = std::fs::canonicalize(device)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
    else {
        return false;
    };
    let Ok(journals) = std::fs::read_dir("/proc/fs/jbd2") else {
        return false;
    };
    has_journal(
        &name,
        journals
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned()),
    )
}

/// Whether one of the jbd2 `journals` is the device `name`'s.
#[cfg(target_os = "linux")]
pub(super) fn has_journal(name: &str, mut journals: impl Iterator<Item = String>) -> bool {
    journals.any(|j| {
        j.strip_prefix(name)
            .and_then(|rest| rest.strip_prefix('-'))
            .is_some_and(|inode| !inode.is_empty() && inode.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// The device and type of the mount in `mounts` (the format of
/// `/proc/self/mounts`) that holds `path`: the last listed of the longest
/// mount points above it.
#[cfg(target_os = "linux")]
pub(super) fn mount_of<'m>(mounts: &'m [u8], path: &Path) -> Option<(&'m [u8], &'m [u8])> {
    use std::os::unix::ffi::OsStrExt as _;
    let path = path.as_os_str().as_bytes();
    let mut best: Option<(usize, &[u8], &[u8])> = None;
    for line in mounts.split(|b| *b == b'\n') {
        let mut fields = line.split(|b| *b == b' ');
        let (Some(device), Some(point), Some(kind)) = (fields.next(), fields.next(), fields.next()) else {
            continue;
        };
        let point = unescape_mount(point);
        let holds = path.starts_with(&point)
            && (point.ends_with(b"/") || path.len() == point.len() || path.get(point.len()) == Some(&b'/'));
        if holds && best.is_none_or(|(len, _, _)| point.len() >= len) {
            best = Some((point.len(), device, kind));
        }
    }
    best.map(|(_, device, kind)| (device, kind))
}

/// A mount point as `/proc/self/mounts` writes it: space, tab, newline and
/// backslash as three octal digits after a backslash.
#[cfg(target_os = "linux")]
pub(super) fn unescape_mount(field: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(field.len());
    let mut i = 0;
    while let Some(&b) = field.get(i) {
        let octal = field
            .get(i + 1..i + 4)
            .filter(|d| b == b'\\' && d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match octal {
            Some(d) => {
                out.push(
                    d.iter()
                        .fold(0u8, |acc, c| acc.wrapping_mul(8).wrapping_add(c - b'0')),
                );
                i += 4;
            }
            None => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

/// Elsewhere, each file is flushed in full.
#[cfg(not(target_os = "linux"))]
pub(super) fn one_flush_covers_all(_path: &Path) -> bool {
    false
}
