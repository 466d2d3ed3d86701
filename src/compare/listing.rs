//! What the listing needs after the comparison: the changes shown, the
//! binary files' sizes for `--stat`, and the paths `--relative` shortens.

use gix::ObjectId;
use gix::bstr::BString;

use super::Formats;
use crate::diff::attributes::Treatment;
use crate::diff::changes::{self, TreeChange};
use crate::diff::patch::{self, FilePatch};
use crate::diff::summary;
use crate::error::Result;
use crate::model::note::FileChange;

type Sizes = std::collections::HashMap<Vec<u8>, (u64, u64)>;

/// A patch alone: each change's patch built once, and the listed files
/// counted from it (what whitespace hid is what shows no hunk).
pub(super) fn patch_alone(
    repo: &gix::Repository,
    changes: Vec<TreeChange>,
    treatments: Vec<Treatment>,
    how: patch::Options,
    ignore_whitespace: bool,
) -> Result<super::Listed> {
    let patches = patch::build_each(repo, &changes, &treatments, how)?;
    let counts: Vec<_> = patches.iter().map(|p| patch::counts_of(p)).collect();
    let visible = summary::visibility(&changes, &counts, ignore_whitespace);
    let files = summary::files(&changes, counts, ignore_whitespace);
    let hidden = visible.iter().filter(|v| !**v).count();
    let patch = patches
        .into_iter()
        .zip(&visible)
        .filter(|(_, v)| **v)
        .flat_map(|(p, _)| p)
        .collect();
    let (shown, treatments) = visible_only(changes, &visible, treatments);
    Ok(super::Listed {
        files,
        shown,
        treatments,
        hidden,
        dirstat: Vec::new(),
        patch: Some(patch),
    })
}

/// The patches of `shown`: those already `built`, else built now when the
/// format is a patch (else none).
pub(super) fn patches(
    built: Option<Vec<FilePatch>>,
    wanted: bool,
    repo: &gix::Repository,
    (shown, treatments): (&[TreeChange], &[Treatment]),
    how: patch::Options,
) -> Result<Vec<FilePatch>> {
    Ok(match built {
        Some(patch) => patch,
        None if wanted => {
            let _t = crate::trace::span("patches");
            patch::build(repo, shown, treatments, how)?
        }
        None => Vec::new(),
    })
}

/// The changes whose `visible` entry is set, each with its treatment.
pub(super) fn visible_only(
    changes: Vec<TreeChange>,
    visible: &[bool],
    treatments: Vec<Treatment>,
) -> (Vec<TreeChange>, Vec<Treatment>) {
    let mut treatments = treatments.into_iter();
    changes
        .into_iter()
        .zip(visible)
        .filter_map(|(c, v)| {
            let t = treatments.next().unwrap_or_default();
            v.then_some((c, t))
        })
        .unzip()
}

/// Paths shown relative to the directory `rel`, once everything that reads
/// the trees by path is done; the files named whole, for `--summary`
/// (git's names them so), else none.
pub(super) fn relative(
    rel: Option<&BString>,
    format: Formats,
    files: &mut [FileChange],
    patch: &mut [FilePatch],
    sizes: &mut Sizes,
) -> Vec<FileChange> {
    let Some(rel) = rel else {
        return Vec::new();
    };
    let whole = if format.summary {
        files.to_vec()
    } else {
        Vec::new()
    };
    strip_relative_all(rel, files, patch, sizes);
    whole
}

/// Every path of `files`, `patch` and `sizes` without the `--relative`
/// part `rel`.
fn strip_relative_all(rel: &[u8], files: &mut [FileChange], patch: &mut [FilePatch], sizes: &mut Sizes) {
    for f in files.iter_mut() {
        let path = strip_relative(rel, &f.path_bytes());
        let old = f.old_path_bytes().map(|old| strip_relative(rel, &old));
        *f = FileChange {
            similarity: f.similarity,
            modes: f.modes,
            ..FileChange::new(
                &path,
                old.as_deref(),
                f.kind,
                [f.additions, f.deletions],
                f.binary,
            )
        };
    }
    for p in patch.iter_mut() {
        p.header.old_path = strip_relative(rel, &p.header.old_path).into();
        p.header.new_path = strip_relative(rel, &p.header.new_path).into();
    }
    *sizes = std::mem::take(sizes)
        .into_iter()
        .map(|(path, size)| (strip_relative(rel, &path), size))
        .collect();
}

/// For `--stat`: the sizes of the binary files (else none).
pub(super) fn binary_sizes_for(
    format: Formats,
    repo: &gix::Repository,
    (from, to): (ObjectId, ObjectId),
    files: &[FileChange],
) -> Result<Sizes> {
    if format.stat {
        binary_sizes(repo, from, to, files)
    } else {
        Ok(Default::default())
    }
}

/// `path` without the `--relative` part `rel`, and without the `/` after
/// it (git strips the bytes, so `--relative=su` makes `sub/a` into `b/a`).
fn strip_relative(rel: &[u8], path: &[u8]) -> Vec<u8> {
    let rest = path.strip_prefix(rel).unwrap_or(path);
    rest.strip_prefix(b"/").unwrap_or(rest).to_vec()
}

/// The old and new sizes of the binary files of `files` whose content
/// differs (git's `Bin <old> -> <new> bytes`), by path.
fn binary_sizes(repo: &gix::Repository, from: ObjectId, to: ObjectId, files: &[FileChange]) -> Result<Sizes> {
    let mut sizes = std::collections::HashMap::new();
    for f in files.iter().filter(|f| f.binary) {
        let path = f.path_bytes();
        let old_path = f.old_path_bytes().unwrap_or_else(|| path.clone());
        let old = changes::blob_at(repo, from, &old_path)?;
        let new = changes::blob_at(repo, to, &path)?;
        if old.map(|b| b.0) == new.map(|b| b.0) {
            continue;
        }
        let size = |b: Option<(ObjectId, u64)>| b.map_or(0, |b| b.1);
        sizes.insert(path.to_vec(), (size(old), size(new)));
    }
    Ok(sizes)
}
