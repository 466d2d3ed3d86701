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
    let keys = [
        "core.autocrlf",
        "core.eol",
        "core.safecrlf",
        "core.attributesFile",
        "core.checkRoundtripEncoding",
    ];
    let mut files: Vec<PathBuf> = [
        Some(repo.common_dir().join("info").join("attributes")),
        super::fingerprint::global_file(repo, "core.attributesFile", "attributes"),
    ]
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
    super::fingerprint::of(repo, &keys, &files)
}
