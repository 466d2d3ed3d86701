//! What decides how a file is hashed besides its bytes: git's attributes
//! (`.gitattributes` at any depth, `info/attributes`, `core.attributesFile`)
//! and the line-ending settings. Their fingerprint is stored with the
//! capture cache; when it changes, no cached id or stat data is trusted and
//! every file is hashed again (`git add` after `--renormalize`), so a new
//! `eol` or `text` rule reaches every file, tracked or not.

use std::path::{Path, PathBuf};

use gix::bstr::BStr;

/// Whether `path` (worktree-relative) is a `.gitattributes` file.
pub(super) fn is_attributes_file(path: &BStr) -> bool {
    path == ".gitattributes" || path.ends_with(b"/.gitattributes")
}

/// The fingerprint of the attribute sources and settings, with the
/// `.gitattributes` files among `paths` read from the worktree.
pub(super) fn fingerprint<'a>(
    repo: &gix::Repository,
    workdir: &Path,
    paths: impl Iterator<Item = &'a BStr>,
) -> String {
    let mut buf = Vec::new();
    let config = repo.config_snapshot();
    for key in [
        "core.autocrlf",
        "core.eol",
        "core.safecrlf",
        "core.attributesFile",
        "core.checkRoundtripEncoding",
    ] {
        buf.extend_from_slice(key.as_bytes());
        buf.push(b'=');
        if let Some(v) = config.string(key) {
            buf.extend_from_slice(&v);
        }
        buf.push(0);
    }
    let global = config
        .trusted_path("core.attributesFile")
        .ok()
        .flatten()
        .or_else(|| {
            std::env::var_os("XDG_CONFIG_HOME")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
                .map(|c| c.join("git").join("attributes"))
        });
    let mut files: Vec<PathBuf> = [Some(repo.common_dir().join("info").join("attributes")), global]
        .into_iter()
        .flatten()
        .collect();
    let mut found: Vec<&BStr> = paths.filter(|p| is_attributes_file(p)).collect();
    found.sort();
    found.dedup();
    for p in found {
        if let Ok(rel) = gix::path::from_bstr(p) {
            files.push(workdir.join(rel));
        }
    }
    for f in files {
        buf.extend_from_slice(f.as_os_str().as_encoded_bytes());
        buf.push(0);
        match crate::fsread::read_regular(&f, true) {
            Ok(data) => {
                buf.extend_from_slice(&(data.len() as u64).to_le_bytes());
                buf.extend_from_slice(&data);
            }
            Err(_) => buf.push(b'-'),
        }
        buf.push(0);
    }
    gix::objs::compute_hash(repo.object_hash(), gix::objs::Kind::Blob, &buf)
        .map(|id| id.to_string())
        .unwrap_or_default()
}
