//! Changed-file summaries between two trees: the kinds git reports with
//! `git diff -M` (50% similarity renames) and the line counts of
//! `git diff --numstat --minimal`, optionally ignoring all whitespace like
//! `--ignore-all-space`.
//!
//! gix finds the changed paths and renames; line counts are computed here on
//! interned line tokens, because gix has no whitespace-ignoring diff.

use gix::ObjectId;
use gix::bstr::BString;
use gix::diff::blob::{Algorithm, Diff, InternedInput};
use gix::objs::tree::{EntryKind, EntryMode};

use crate::error::{Context as _, Result};
use crate::model::note::{ChangeKind, FileChange};

/// How git decides that a blob is binary: a NUL in its first 8000 bytes.
const BINARY_SNIFF: usize = 8000;

/// One side of a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Side {
    /// The object (blob, or commit for a gitlink).
    pub id: ObjectId,
    /// Its tree entry kind.
    pub kind: EntryKind,
}

/// One changed path between two trees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeChange {
    /// The path on the new side (or the deleted path).
    pub path: BString,
    /// The source of a rename.
    pub old_path: Option<BString>,
    /// What happened.
    pub kind: ChangeKind,
    /// The old side, absent for an addition.
    pub old: Option<Side>,
    /// The new side, absent for a deletion.
    pub new: Option<Side>,
    /// For a rename: git's similarity index in percent.
    pub similarity: Option<u8>,
}

/// Line counts of one change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    /// Lines added.
    pub additions: u64,
    /// Lines deleted.
    pub deletions: u64,
    /// Either side is binary; the counts are then 0.
    pub binary: bool,
}

fn side(mode: EntryMode, id: ObjectId) -> Option<Side> {
    let kind = mode.kind();
    (kind != EntryKind::Tree).then_some(Side { id, kind })
}

/// The changed paths from tree `from` to tree `to`, with rename detection,
/// sorted by path bytes.
pub fn tree_changes(repo: &gix::Repository, from: ObjectId, to: ObjectId) -> Result<Vec<TreeChange>> {
    if from == to {
        return Ok(Vec::new());
    }
    let old = repo
        .find_tree(from)
        .context(|| format!("could not read tree {from}"))?;
    let new = repo
        .find_tree(to)
        .context(|| format!("could not read tree {to}"))?;
    // gix's `diff_tree_to_tree` loads the whole index for an attribute stack;
    // rename detection between two trees does not need it, so start empty.
    let empty = gix::index::State::new(repo.object_hash());
    let attrs = repo
        .attributes_only(&empty, gix::worktree::stack::state::attributes::Source::IdMapping)
        .context(|| "could not set up attributes".into())?;
    let mut cache = gix::diff::resource_cache(
        repo,
        gix::diff::blob::pipeline::Mode::ToGit,
        attrs.detach(),
        Default::default(),
    )
    .context(|| "could not set up the diff".into())?;
    let options = gix::diff::Options::default().with_rewrites(Some(gix::diff::Rewrites::default()));
    let mut changes = Vec::new();
    gix::diff::tree_with_rewrites(
        gix::objs::TreeRefIter::from_bytes(&old.data, from.kind()),
        gix::objs::TreeRefIter::from_bytes(&new.data, to.kind()),
        &mut cache,
        &mut Default::default(),
        &repo.objects,
        |change: gix::diff::tree_with_rewrites::ChangeRef<'_>| -> gix::Result<_> {
            changes.push(change.into_owned());
            Ok(std::ops::ControlFlow::Continue(()))
        },
        options.into(),
    )
    .map_err(|e| crate::Error::Git {
        context: format!("could not compare trees {from} and {to}"),
        source: Box::new(e),
    })?;
    use gix::object::tree::diff::ChangeDetached as C;
    let mut out = Vec::with_capacity(changes.len());
    for change in changes {
        let tc = match change {
            C::Addition {
                location,
                entry_mode,
                id,
                ..
            } => side(entry_mode, id).map(|s| TreeChange {
                path: location,
                old_path: None,
                kind: ChangeKind::Added,
                old: None,
                new: Some(s),
                similarity: None,
            }),
            C::Deletion {
                location,
                entry_mode,
                id,
                ..
            } => side(entry_mode, id).map(|s| TreeChange {
                path: location,
                old_path: None,
                kind: ChangeKind::Deleted,
                old: Some(s),
                new: None,
                similarity: None,
            }),
            C::Modification {
                location,
                previous_entry_mode,
                previous_id,
                entry_mode,
                id,
            } => match (side(previous_entry_mode, previous_id), side(entry_mode, id)) {
                (Some(o), Some(n)) => Some(TreeChange {
                    path: location,
                    old_path: None,
                    kind: if same_type(o.kind, n.kind) {
                        ChangeKind::Modified
                    } else {
                        ChangeKind::TypeChanged
                    },
                    old: Some(o),
                    new: Some(n),
                    similarity: None,
                }),
                // A tree became a file or the other way round: the file side alone.
                (Some(o), None) => Some(TreeChange {
                    path: location,
                    old_path: None,
                    kind: ChangeKind::Deleted,
                    old: Some(o),
                    new: None,
                    similarity: None,
                }),
                (None, Some(n)) => Some(TreeChange {
                    path: location,
                    old_path: None,
                    kind: ChangeKind::Added,
                    old: None,
                    new: Some(n),
                    similarity: None,
                }),
                (None, None) => None,
            },
            C::Rewrite {
                source_location,
                source_entry_mode,
                source_id,
                entry_mode,
                id,
                location,
                copy,
                similarity,
                ..
            } => match (side(source_entry_mode, source_id), side(entry_mode, id)) {
                (Some(o), Some(n)) if !copy => Some(TreeChange {
                    path: location,
                    old_path: Some(source_location),
                    kind: ChangeKind::Renamed,
                    old: Some(o),
                    new: Some(n),
                    similarity: Some(similarity.map_or(100, |s| {
                        u8::try_from(u32::from(s.score()) * 100 / 60_000).unwrap_or(100)
                    })),
                }),
                (_, Some(n)) => Some(TreeChange {
                    path: location,
                    old_path: None,
                    kind: ChangeKind::Added,
                    old: None,
                    new: Some(n),
                    similarity: None,
                }),
                _ => None,
            },
        };
        out.extend(tc);
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

fn same_type(a: EntryKind, b: EntryKind) -> bool {
    let class = |k| match k {
        EntryKind::Blob | EntryKind::BlobExecutable => 0,
        EntryKind::Link => 1,
        EntryKind::Commit => 2,
        EntryKind::Tree => 3,
    };
    class(a) == class(b)
}

/// The bytes of one side (empty when absent), or `None` for a gitlink.
pub fn load(repo: &gix::Repository, side: Option<Side>) -> Result<Option<Vec<u8>>> {
    match side {
        None => Ok(Some(Vec::new())),
        Some(Side {
            kind: EntryKind::Commit,
            ..
        }) => Ok(None),
        Some(Side { id, .. }) => Ok(Some(
            repo.find_blob(id)
                .context(|| format!("could not read blob {id}"))?
                .take_data(),
        )),
    }
}

/// git's rule: a NUL in the first 8000 bytes makes a blob binary.
pub fn is_binary(data: &[u8]) -> bool {
    data[..data.len().min(BINARY_SNIFF)].contains(&0)
}

/// Count the lines a change adds and deletes, like `git diff --numstat --minimal`
/// (with `-w` when `ignore_whitespace`).
pub fn count(repo: &gix::Repository, change: &TreeChange, ignore_whitespace: bool) -> Result<Counts> {
    let [counts] = count_modes(repo, change, [ignore_whitespace])?;
    Ok(counts)
}

/// [`count`] in several whitespace modes from one read of the blobs.
pub fn count_modes<const N: usize>(
    repo: &gix::Repository,
    change: &TreeChange,
    modes: [bool; N],
) -> Result<[Counts; N]> {
    let (old, new) = (load(repo, change.old)?, load(repo, change.new)?);
    let (Some(old), Some(new)) = (old, new) else {
        // git shows a gitlink as one "Subproject commit <id>" line.
        return Ok([Counts {
            additions: u64::from(change.new.is_some_and(|s| s.kind == EntryKind::Commit)),
            deletions: u64::from(change.old.is_some_and(|s| s.kind == EntryKind::Commit)),
            binary: false,
        }; N]);
    };
    if is_binary(&old) || is_binary(&new) {
        return Ok([Counts {
            binary: true,
            ..Counts::default()
        }; N]);
    }
    Ok(modes.map(|ws| line_counts(&old, &new, ws)))
}

/// [`count`] for each change, on several threads when there are enough of
/// them to pay for it (reading and inflating blobs dominates).
pub fn count_all(
    repo: &gix::Repository,
    changes: &[TreeChange],
    ignore_whitespace: bool,
) -> Result<Vec<Counts>> {
    const PER_THREAD: usize = 64;
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(changes.len() / PER_THREAD)
        .min(8);
    if threads < 2 {
        return changes
            .iter()
            .map(|c| count(repo, c, ignore_whitespace))
            .collect();
    }
    let shared = repo.clone().into_sync();
    let chunk = changes.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = changes
            .chunks(chunk)
            .map(|part| {
                let shared = &shared;
                s.spawn(move || {
                    let repo = shared.to_thread_local();
                    part.iter()
                        .map(|c| count(&repo, c, ignore_whitespace))
                        .collect::<Result<Vec<_>>>()
                })
            })
            .collect();
        let mut all = Vec::with_capacity(changes.len());
        for h in handles {
            let part = h
                .join()
                .map_err(|_| crate::Error::Internal("a diff thread panicked".into()))??;
            all.extend(part);
        }
        Ok(all)
    })
}

/// Lines added and deleted between two texts.
pub fn line_counts(old: &[u8], new: &[u8], ignore_whitespace: bool) -> Counts {
    if old == new {
        return Counts::default();
    }
    let mut scratch = Squeezed::default();
    let input = intern(old, new, ignore_whitespace, &mut scratch);
    let diff = Diff::compute(Algorithm::MyersMinimal, &input);
    Counts {
        additions: u64::from(diff.count_additions()),
        deletions: u64::from(diff.count_removals()),
        binary: false,
    }
}

/// Both sides with all whitespace squeezed out, line by line, in one buffer
/// per side (no allocation per line).
#[derive(Default)]
pub struct Squeezed {
    old: (Vec<u8>, Vec<usize>),
    new: (Vec<u8>, Vec<usize>),
}

fn squeeze(text: &[u8], (buf, ends): &mut (Vec<u8>, Vec<usize>)) {
    buf.reserve(text.len());
    for line in text.split_inclusive(|b| *b == b'\n') {
        // Copy the runs between whitespace: few, long runs in source code.
        for run in line.split(|b| is_git_space(*b)) {
            buf.extend_from_slice(run);
        }
        ends.push(buf.len());
    }
}

fn slices((buf, ends): &(Vec<u8>, Vec<usize>)) -> impl Iterator<Item = &[u8]> {
    ends.iter().scan(0, move |start, &end| {
        let line = buf.get(*start..end).unwrap_or_default();
        *start = end;
        Some(line)
    })
}

/// Lines as tokens: exactly, newline included, or with all whitespace
/// removed (squeezed into `scratch`), like git's `--ignore-all-space`.
pub fn intern<'a>(
    old: &'a [u8],
    new: &'a [u8],
    ignore_whitespace: bool,
    scratch: &'a mut Squeezed,
) -> InternedInput<&'a [u8]> {
    let mut input = InternedInput::default();
    if ignore_whitespace {
        squeeze(old, &mut scratch.old);
        squeeze(new, &mut scratch.new);
        let scratch: &'a Squeezed = scratch;
        input.update_before(slices(&scratch.old));
        input.update_after(slices(&scratch.new));
    } else {
        input.update_before(old.split_inclusive(|b| *b == b'\n'));
        input.update_after(new.split_inclusive(|b| *b == b'\n'));
    }
    input
}

fn is_git_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// Whether git would list this change at all: with whitespace ignored, a plain
/// modification (same mode) whose lines are all equal disappears.
pub fn is_visible(change: &TreeChange, counts: &Counts, ignore_whitespace: bool) -> bool {
    if !ignore_whitespace || change.kind != ChangeKind::Modified || counts.binary {
        return true;
    }
    if counts.additions != 0 || counts.deletions != 0 {
        return true;
    }
    let mode_changed = change.old.map(|s| s.kind) != change.new.map(|s| s.kind);
    let content_changed = change.old.map(|s| s.id) != change.new.map(|s| s.id);
    mode_changed || (content_changed && change.old.is_some_and(|s| s.kind == EntryKind::Commit))
}

/// The listed files of `changes` with their counts: what git shows.
pub fn files(
    changes: &[TreeChange],
    counts: impl IntoIterator<Item = Counts>,
    ignore_whitespace: bool,
) -> Vec<FileChange> {
    changes
        .iter()
        .zip(counts)
        .filter(|(change, counts)| is_visible(change, counts, ignore_whitespace))
        .map(|(change, counts)| FileChange {
            path: crate::repo::path_string(&change.path),
            kind: change.kind,
            old_path: change.old_path.as_ref().map(|p| crate::repo::path_string(p)),
            additions: counts.additions,
            deletions: counts.deletions,
            binary: counts.binary,
        })
        .collect()
}

/// The file summary from tree `from` to tree `to`.
pub fn summarize(
    repo: &gix::Repository,
    from: ObjectId,
    to: ObjectId,
    ignore_whitespace: bool,
) -> Result<Vec<FileChange>> {
    let changes = tree_changes(repo, from, to)?;
    let counts = count_all(repo, &changes, ignore_whitespace)?;
    Ok(files(&changes, counts, ignore_whitespace))
}

/// The summary counting whitespace (stored in notes) and the one ignoring it
/// (what `diff` shows by default), from one read of each blob.
pub fn summarize_both(
    repo: &gix::Repository,
    from: ObjectId,
    to: ObjectId,
) -> Result<(Vec<FileChange>, Vec<FileChange>)> {
    let changes = tree_changes(repo, from, to)?;
    let mut exact = Vec::with_capacity(changes.len());
    let mut squeezed = Vec::with_capacity(changes.len());
    for change in &changes {
        let [e, w] = count_modes(repo, change, [false, true])?;
        exact.push(e);
        squeezed.push(w);
    }
    Ok((files(&changes, exact, false), files(&changes, squeezed, true)))
}

/// Summaries already computed, by `(from tree, to tree, whitespace mode)`.
///
/// Trees are content-addressed and counting is deterministic, so an entry can
/// never go stale; the directory name carries a version for changes to the
/// counting itself. Capture fills in its own turn (the blobs are at hand
/// then), so reviewing the latest turn costs one small read, whatever its size.
pub mod cache {
    use std::path::PathBuf;

    use gix::ObjectId;

    use crate::model::note::FileChange;

    const VERSION: &str = "summaries-v1";
    /// Entries kept; older ones are pruned now and then.
    const KEEP: usize = 2048;

    fn path(repo: &gix::Repository, from: ObjectId, to: ObjectId, ignore_whitespace: bool) -> PathBuf {
        let mode = if ignore_whitespace { "w" } else { "exact" };
        crate::repo::t3_common_dir(repo)
            .join(VERSION)
            .join(format!("{from}-{to}.{mode}.json"))
    }

    /// The cached summary, if any (an unreadable entry is a miss).
    pub fn get(
        repo: &gix::Repository,
        from: ObjectId,
        to: ObjectId,
        ignore_whitespace: bool,
    ) -> Option<Vec<FileChange>> {
        let data = std::fs::read(path(repo, from, to, ignore_whitespace)).ok()?;
        serde_json::from_slice(&data).ok()
    }

    /// Remember a summary; failures only cost a later recomputation.
    pub fn put(
        repo: &gix::Repository,
        from: ObjectId,
        to: ObjectId,
        ignore_whitespace: bool,
        files: &[FileChange],
    ) {
        let target = path(repo, from, to, ignore_whitespace);
        let Some(dir) = target.parent() else { return };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        let Ok(data) = serde_json::to_vec(files) else {
            return;
        };
        let tmp = target.with_extension(format!("tmp{}", std::process::id()));
        if std::fs::write(&tmp, data).is_ok() && std::fs::rename(&tmp, &target).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        // Prune now and then (about one write in 64), oldest first.
        if to.as_bytes().first().is_some_and(|b| b % 64 == 0) {
            prune(dir);
        }
    }

    fn prune(dir: &std::path::Path) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut all: Vec<_> = entries
            .filter_map(|e| e.ok())
            .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
            .collect();
        if all.len() <= KEEP {
            return;
        }
        all.sort();
        for (_, p) in &all[..all.len() - KEEP] {
            let _ = std::fs::remove_file(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_lines_like_git() {
        let c = line_counts(b"a\nb\nc\n", b"a\nB\nc\nd\n", false);
        assert_eq!((c.additions, c.deletions), (2, 1));
        // A missing newline at the end is a change of that line.
        let c = line_counts(b"x", b"x\n", false);
        assert_eq!((c.additions, c.deletions), (1, 1));
    }

    #[test]
    fn ignores_all_whitespace_like_git_w() {
        let c = line_counts(b"fn a() {}\nfn b() {}\n", b"fn a() {  }\n    fn b() {}\n", true);
        assert_eq!((c.additions, c.deletions), (0, 0));
        let c = line_counts(b"x", b"x\n", true);
        assert_eq!((c.additions, c.deletions), (0, 0));
        let c = line_counts(b"a\r\nb\r\n", b"a\nb\nc\n", true);
        assert_eq!((c.additions, c.deletions), (1, 0));
    }

    #[test]
    fn binary_is_a_nul_in_the_first_8000_bytes() {
        assert!(is_binary(b"a\0b"));
        let mut late = vec![b'a'; 9000];
        late.push(0);
        assert!(!is_binary(&late));
    }
}
