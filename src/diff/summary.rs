//! Changed-file summaries between two trees: the kinds git reports with
//! `git diff -M` (50% similarity renames) and the line counts of
//! `git diff-tree -r -M --numstat` (git's default algorithm, whatever
//! `diff.algorithm` says), optionally ignoring all whitespace like
//! `--ignore-all-space`.

use gix::ObjectId;
use gix::objs::tree::EntryKind;

use crate::diff::changes::{TreeChange, tree_changes};
use crate::diff::lines::{Algorithm, Counts, Space, Treat, count, count_modes};
use crate::error::Result;
use crate::interrupt::Interrupt;
use crate::model::note::{ChangeKind, FileChange};

/// [`count`] for each change, on several threads when there are enough of
/// them to pay for it (reading and inflating blobs dominates).
pub fn count_all(
    repo: &gix::Repository,
    changes: &[TreeChange],
    treats: Option<&[Treat]>,
    space: Space,
    algorithm: Algorithm,
    interrupt: Interrupt,
) -> Result<Vec<Counts>> {
    let treat = |i: usize| treats.and_then(|t| t.get(i)).copied().unwrap_or_default();
    const PER_THREAD: usize = 64;
    let threads = crate::cores::cores().min(changes.len() / PER_THREAD).min(8);
    // Objects kept in memory (a read-only worktree diff) stay with this
    // thread's repository: `into_sync` leaves them behind.
    let threads = if repo.objects.num_objects_in_memory() > 0 {
        1
    } else {
        threads
    };
    if threads < 2 {
        return changes
            .iter()
            .enumerate()
            .map(|(i, c)| {
                interrupt.check()?;
                count(repo, c, space, algorithm, treat(i))
            })
            .collect();
    }
    let shared = repo.clone().into_sync();
    let chunk = changes.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = changes
            .chunks(chunk)
            .enumerate()
            .map(|(k, part)| {
                let (shared, treat) = (&shared, &treat);
                s.spawn(move || {
                    let repo = shared.to_thread_local();
                    part.iter()
                        .enumerate()
                        .map(|(i, c)| {
                            interrupt.check()?;
                            count(&repo, c, space, algorithm, treat(k * chunk + i))
                        })
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

/// [`is_visible`] of each of `changes` with its `counts`.
pub fn visibility(changes: &[TreeChange], counts: &[Counts], ignore_whitespace: bool) -> Vec<bool> {
    changes
        .iter()
        .zip(counts)
        .map(|(c, n)| is_visible(c, n, ignore_whitespace))
        .collect()
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
            similarity: change.similarity,
            modes: Some([
                change.old.map(|s| crate::model::mode::digits(s.kind)),
                change.new.map(|s| crate::model::mode::digits(s.kind)),
            ]),
            ..FileChange::new(
                &change.path,
                change.old_path.as_ref().map(|p| p.as_slice()),
                change.kind,
                [counts.additions, counts.deletions],
                counts.binary,
            )
        })
        .collect()
}

/// The file summary from tree `from` to tree `to`.
pub fn summarize(
    repo: &gix::Repository,
    from: ObjectId,
    to: ObjectId,
    ignore_whitespace: bool,
    interrupt: Interrupt,
) -> Result<Vec<FileChange>> {
    let changes = tree_changes(repo, from, to)?;
    // A note holds `git diff-tree -r -M`'s counts, whatever `diff.algorithm`
    // says: everyone records the same summary of a turn.
    let counts = count_all(
        repo,
        &changes,
        None,
        ignore_whitespace.into(),
        Algorithm::Myers,
        interrupt,
    )?;
    Ok(files(&changes, counts, ignore_whitespace))
}

/// The summary counting whitespace (stored in notes) and the one ignoring it
/// (what `diff` shows by default), from one read of each blob.
pub fn summarize_both(
    repo: &gix::Repository,
    from: ObjectId,
    to: ObjectId,
    interrupt: Interrupt,
) -> Result<(Vec<FileChange>, Vec<FileChange>)> {
    let changes = tree_changes(repo, from, to)?;
    let mut exact = Vec::with_capacity(changes.len());
    let mut squeezed = Vec::with_capacity(changes.len());
    for change in &changes {
        interrupt.check()?;
        let [e, w] = count_modes(
            repo,
            change,
            [Space::Exact, Space::All],
            Algorithm::Myers,
            Treat::default(),
        )?;
        exact.push(e);
        squeezed.push(w);
    }
    Ok((files(&changes, exact, false), files(&changes, squeezed, true)))
}
