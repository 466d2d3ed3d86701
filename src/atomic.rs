//! Atomic file writes: a temporary file in the same directory, filled,
//! given its permissions, optionally flushed, then renamed over the target.
//! A reader (or a crash) sees the old file or the new one, never half of one.

use std::io::Write as _;
use std::path::Path;

use crate::error::{IoContext as _, Result};

/// How much a write must survive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// A cache: atomic, but a crash may lose the new version.
    Cache,
    /// The user's data: file and directory flushed before returning.
    Flushed,
}

/// Replace `path` with `data` atomically, with Unix permissions `mode`
/// (`None`: those of the file it replaces, else the default for new files).
pub fn write(path: &Path, data: &[u8], mode: Option<u32>, durability: Durability) -> Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).at("could not create", dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".t3-tmp-")
        .tempfile_in(dir)
        .at("could not create a temporary file in", dir)?;
    tmp.write_all(data).at("could not write", tmp.path())?;
    let mode = mode.or_else(|| {
        std::fs::symlink_metadata(path)
            .ok()
            .filter(std::fs::Metadata::is_file)
            .map(|m| m.permissions().mode() & 0o7777)
    });
    // tempfile creates files 0600; a new file gets the usual 0644 unless asked.
    let perms = std::fs::Permissions::from_mode(mode.unwrap_or(0o644));
    tmp.as_file()
        .set_permissions(perms)
        .at("could not set the permissions of", tmp.path())?;
    if durability == Durability::Flushed {
        tmp.as_file().sync_all().at("could not flush", tmp.path())?;
    }
    tmp.persist(path)
        .map_err(|e| e.error)
        .at("could not replace", path)?;
    if durability == Durability::Flushed
        && let Ok(d) = std::fs::File::open(dir)
    {
        // Some file systems refuse fsync on a directory; the rename is done either way.
        let _ = d.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    #[test]
    fn replaces_whole_keeps_permissions_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/hook");
        write(&path, b"one", Some(0o755), Durability::Flushed).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"one");
        write(&path, b"two", None, Durability::Cache).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o755, "the replaced file's permissions are kept");
        let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("hook")]);
        let fresh = dir.path().join("fresh.json");
        write(&fresh, b"{}", None, Durability::Cache).unwrap();
        let mode = std::fs::metadata(&fresh).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o644);
    }
}
