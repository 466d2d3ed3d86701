//! A fingerprint of settings and files, stored with a cache to tell when
//! what it was computed under changed (ignore rules, attributes).

use std::path::PathBuf;

/// The hash of the values of `keys` in `repo`'s config and of the contents
/// of `files` (a missing or non-regular file counts as absent).
pub(super) fn of(repo: &gix::Repository, keys: &[&str], files: &[PathBuf]) -> String {
    Pending::of(repo, keys).finish(files, false, &mut |_| {})
}

/// A fingerprint with its settings read from the repository, its files
/// still to read: what another thread can finish.
pub(super) struct Pending {
    buf: Vec<u8>,
    kind: gix::hash::Kind,
}

impl Pending {
    /// The values of `keys` in `repo`'s config.
    pub(super) fn of(repo: &gix::Repository, keys: &[&str]) -> Pending {
        let mut buf = Vec::new();
        let config = repo.config_snapshot();
        for key in keys {
            buf.extend_from_slice(key.as_bytes());
            buf.push(b'=');
            if let Some(v) = config.string(*key) {
                buf.extend_from_slice(&v);
            }
            buf.push(0);
        }
        Pending {
            buf,
            kind: repo.object_hash(),
        }
    }

    /// The fingerprint, with the contents of `files`, each shown to
    /// `inspect` on the way; with `skip_absent`, a missing file counts for
    /// nothing, so a longer list of files that are mostly absent gives the
    /// same fingerprint.
    pub(super) fn finish(
        self,
        files: &[PathBuf],
        skip_absent: bool,
        inspect: &mut dyn FnMut(&[u8]),
    ) -> String {
        let Pending { mut buf, kind } = self;
        for f in files {
            let read = crate::fsread::read_regular(f, true);
            if skip_absent && read.is_err() {
                continue;
            }
            buf.extend_from_slice(f.as_os_str().as_encoded_bytes());
            buf.push(0);
            match read {
                Ok(data) => {
                    inspect(&data);
                    buf.extend_from_slice(&(data.len() as u64).to_le_bytes());
                    buf.extend_from_slice(&data);
                }
                Err(_) => buf.push(b'-'),
            }
            buf.push(0);
        }
        gix::objs::compute_hash(kind, gix::objs::Kind::Blob, &buf)
            .map(|id| id.to_string())
            .unwrap_or_default()
    }
}

/// The file `key` (a path setting, like `core.excludesFile`) names, else
/// git's default for it: `$XDG_CONFIG_HOME/git/<name>` or
/// `~/.config/git/<name>`.
pub(super) fn global_file(repo: &gix::Repository, key: &str, name: &str) -> Option<PathBuf> {
    repo.config_snapshot()
        .trusted_path(key)
        .ok()
        .flatten()
        .or_else(|| {
            std::env::var_os("XDG_CONFIG_HOME")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
                .map(|c| c.join("git").join(name))
        })
}
