//! Reading files that someone else may have replaced: a FIFO, socket or
//! device where a regular file is expected is never opened for reading
//! (opening a FIFO blocks until a writer comes, with the repository lock
//! held). The file is opened without blocking and its type checked on the
//! open descriptor, so nothing can be swapped in between.

use std::io::Read as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::Path;

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
    if !file.metadata()?.file_type().is_file() {
        return Err(std::io::Error::other(format!(
            "{} is not a regular file (a FIFO, socket, device or folder): not read",
            path.display()
        )));
    }
    Ok(file)
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

    #[test]
    fn a_fifo_is_refused_without_blocking_and_a_file_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo with a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        let err = read_regular(&fifo, true).unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
        let file = dir.path().join("file");
        std::fs::write(&file, b"data").unwrap();
        assert_eq!(read_regular(&file, false).unwrap(), b"data");
    }
}
