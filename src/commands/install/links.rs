//! Files install-hooks writes are never written through a symbolic link: a
//! link committed to the repository (`.claude` → somewhere outside) would
//! otherwise have it write wherever the link points. Each file has a base —
//! the worktree, the git dir, or the user's agent configuration folder,
//! which may itself be a link (dotfiles) — and neither the file nor any
//! folder between the base and it may be a link.

use std::path::{Component, Path};

use crate::error::{Error, IoContext as _, Result};

/// Refuse, naming it, a symbolic link at `path` or at a folder between
/// `base` and it. What does not exist yet is fine (it is created as a
/// regular file or folder).
pub(super) fn refuse(base: &Path, path: &Path) -> Result<()> {
    let rel = path
        .strip_prefix(base)
        .map_err(|_| Error::Internal(format!("{} is not under {}", path.display(), base.display())))?;
    let mut at = base.to_owned();
    for component in rel.components() {
        let Component::Normal(name) = component else {
            return Err(Error::Internal(format!(
                "{} has a `..` or `.` below {}",
                path.display(),
                base.display()
            )));
        };
        at.push(name);
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let to = std::fs::read_link(&at)
                    .map(|t| format!(" (to {})", t.display()))
                    .unwrap_or_default();
                return Err(Error::Refused(format!(
                    "{} is a symbolic link{to}: git t3 does not write through links, so nothing was changed; \
                     put a regular file or folder there, or choose another --scope",
                    at.display()
                )));
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e).at("could not look at", &at),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_below_the_base_is_refused_and_the_base_may_be_one() {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().join("real");
        std::fs::create_dir_all(real.join("sub")).unwrap();
        let base = tmp.path().join("base");
        std::os::unix::fs::symlink(&real, &base).unwrap();
        // The base itself: a dotfiles link, fine; and what does not exist yet.
        refuse(&base, &base.join("sub/settings.json")).unwrap();
        refuse(&base, &base.join("new/deeper/settings.json")).unwrap();
        // A folder on the way, then the file.
        std::os::unix::fs::symlink(&real, real.join("linked")).unwrap();
        let err = refuse(&base, &base.join("linked/settings.json")).unwrap_err();
        assert!(err.to_string().contains("linked is a symbolic link"), "{err}");
        std::os::unix::fs::symlink("/nowhere", real.join("sub/settings.json")).unwrap();
        let err = refuse(&base, &base.join("sub/settings.json")).unwrap_err();
        assert!(
            err.to_string()
                .contains("settings.json is a symbolic link (to /nowhere)"),
            "{err}"
        );
        assert!(matches!(
            refuse(&base, &tmp.path().join("elsewhere")),
            Err(Error::Internal(_))
        ));
    }
}
