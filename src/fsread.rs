//! Opening files that someone else may have replaced: a FIFO, socket or
//! device where a regular file is expected is never opened for a blocking
//! read or write (opening a FIFO blocks until the other end comes, with the
//! repository lock held). The file is opened without blocking and its type
//! checked on the open descriptor, so nothing can be swapped in between.

use std::io::Read as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

/// The error of a path that is not a regular file (see [`is_not_regular`]).
#[derive(Debug)]
pub struct NotRegular(
    /// The path.
    pub PathBuf,
);

impl std::fmt::Display for NotRegular {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The caller's context names the path.
        write!(
            f,
            "not a regular file (a FIFO, socket, device or folder), so not opened"
        )
    }
}

impl std::error::Error for NotRegular {}

/// Whether `e` says the path was not a regular file (and so was left alone).
pub fn is_not_regular(e: &std::io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<NotRegular>())
}

/// `file`, if it is a regular file; else a [`NotRegular`] error naming `path`.
fn regular(file: std::fs::File, path: &Path) -> std::io::Result<std::fs::File> {
    if !file.metadata()?.file_type().is_file() {
        return Err(std::io::Error::other(NotRegular(path.to_owned())));
    }
    Ok(file)
}

/// Open `path` for reading if it is a regular file (following a symlink
/// only when `follow`); any other kind of file is an error naming it.
pub fn open_regular(path: &Path, follow: bool) -> std::io::Result<std::fs::File> {
    let mut flags = libc::O_NONBLOCK;
    if !follow {
        flags |= libc::O_NOFOLLOW;
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags)
        .open(path)?;
    regular(file, path)
}

/// Open `path` for reading and writing, creating it when it does not
/// exist, if it is a regular file and not a symbolic link (a lock file, a
/// cache file written in place); anything else is an error naming it.
pub fn open_regular_rw(path: &Path) -> std::io::Result<std::fs::File> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(path)?;
    regular(file, path)
}

/// The bytes of the regular file at `path` (see [`open_regular`]).
pub fn read_regular(path: &Path, follow: bool) -> std::io::Result<Vec<u8>> {
    let mut file = open_regular(path, follow)?;
    let mut data = Vec::new();
    file.read_to_end(&mut data)?;
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mkfifo(path: &Path) {
        use rustix::fs::{CWD, FileType, Mode, mknodat};
        mknodat(CWD, path, FileType::Fifo, Mode::from(0o644), 0).unwrap();
    }

    #[test]
    fn a_fifo_is_refused_without_blocking_and_a_file_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        mkfifo(&fifo);
        let err = read_regular(&fifo, true).unwrap_err();
        assert!(is_not_regular(&err), "{err}");
        assert!(err.to_string().contains("not a regular file"), "{err}");
        let file = dir.path().join("file");
        std::fs::write(&file, b"data").unwrap();
        assert_eq!(read_regular(&file, false).unwrap(), b"data");
        assert!(!is_not_regular(
            &read_regular(&dir.path().join("gone"), true).unwrap_err()
        ));
    }

    #[test]
    fn a_fifo_or_a_link_is_never_opened_for_writing() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        mkfifo(&fifo);
        let err = open_regular_rw(&fifo).unwrap_err();
        assert!(is_not_regular(&err), "{err}");
        let target = dir.path().join("target");
        std::fs::write(&target, b"kept").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(open_regular_rw(&link).is_err());
        let fresh = dir.path().join("fresh");
        open_regular_rw(&fresh).unwrap();
        assert!(fresh.is_file());
    }
}
