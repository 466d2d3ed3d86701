//! Skip-worktree entries (`git update-index --skip-worktree`, sparse
//! checkouts): a checkpoint records the worktree's file when it exists —
//! what a safety checkpoint must keep — and HEAD's entry when it does not.
//! The same worktree gives the same tree with a warm or a cold cache.
//!
//! The status walk does not look at entries marked skip-worktree in
//! `index.tracked` (the marks come from the user's index when the cache is
//! built); this pass looks at each: a file there is hashed (reused when its
//! stat data still matches) and the mark dropped, so later captures follow
//! it like any file. A tracked file the walk found deleted is kept when the
//! user's index marks it skip-worktree (the mark may be newer than the
//! cache), and an absent marked entry whose mark the user's index no longer
//! has is deleted. The user's index is read only when one of those asks.

use gix::ObjectId;
use gix::bstr::{BStr, BString};
use gix::index::entry::{Flags, Mode, Stat};

use super::Ctx;
use super::hash::{Rehash, lstat};
use super::tree::{Edit, kind_mode, mode_kind};
use crate::error::{Context as _, Result};

/// The user's index, read on first need.
struct UserIndex<'r> {
    repo: &'r gix::Repository,
    index: Option<Option<gix::index::File>>,
}

impl UserIndex<'_> {
    /// Whether the user's index marks `path` skip-worktree.
    fn skips(&mut self, path: &BStr) -> Result<bool> {
        if self.index.is_none() {
            let path = self.repo.index_path();
            self.index = Some(if path.is_file() {
                Some(
                    self.repo
                        .open_index()
                        .context(|| format!("could not read the index {}", path.display()))?,
                )
            } else {
                None
            });
        }
        Ok(self
            .index
            .as_ref()
            .and_then(Option::as_ref)
            .and_then(|i| i.entry_by_path(path))
            .is_some_and(|e| e.flags.contains(Flags::SKIP_WORKTREE)))
    }
}

/// Settle the skip-worktree entries of `tracked` after the status walk:
/// The paths the walk found deleted are the `Remove` edits in `edits`.
/// `head` is HEAD's tree. Returns how many files were hashed.
pub(super) fn settle(
    ctx: &Ctx<'_, '_>,
    tracked: &mut gix::index::File,
    head: ObjectId,
    edits: &mut Vec<Edit>,
) -> Result<usize> {
    let removed: Vec<BString> = edits
        .iter()
        .filter_map(|e| match e {
            Edit::Remove(p) => Some(p.clone()),
            Edit::Upsert(..) => None,
        })
        .collect();
    let mut user = UserIndex {
        repo: ctx.repo,
        index: None,
    };
    let mut rehash = Rehash::new(ctx);
    // Marked entries: present → the worktree's content; absent → HEAD's,
    // if the mark is still the user's.
    let marked: Vec<usize> = tracked
        .entries()
        .iter()
        .enumerate()
        .filter(|(_, e)| e.flags.contains(Flags::SKIP_WORKTREE))
        .map(|(i, _)| i)
        .collect();
    for i in marked {
        ctx.interrupt.check()?;
        let Some(entry) = tracked.entries().get(i) else {
            continue;
        };
        let path: BString = entry.path(tracked).to_owned();
        let (id, mode, stat) = (entry.id, entry.mode, entry.stat);
        let settled = match lstat(ctx.workdir, &path) {
            Some(now) if now == stat && stat != Stat::default() => {
                // Unchanged since it was hashed: the recorded id holds.
                edits.push(Edit::Upsert(path, mode_kind(mode), id));
                Some((id, mode, stat, false))
            }
            Some(_) => rehash
                .file(&path, tracked, edits)?
                .map(|(id, mode, stat)| (id, mode, stat, false)),
            None if ctx.sparse || user.skips(path.as_ref())? => None,
            None => {
                edits.push(Edit::Remove(path));
                Some((id, mode, Stat::default(), false))
            }
        };
        if let Some((id, mode, stat, keep_mark)) = settled
            && let Some(e) = tracked.entries_mut().get_mut(i)
        {
            e.id = id;
            e.mode = mode;
            e.stat = stat;
            if !keep_mark {
                e.flags.remove(Flags::SKIP_WORKTREE);
            }
        }
    }
    // Deleted files the user's index marks skip-worktree: HEAD's entry.
    for path in &removed {
        if !user.skips(path.as_ref())? {
            continue;
        }
        let Some((id, mode)) = head_entry(ctx.repo, head, path.as_ref())? else {
            continue;
        };
        edits.retain(|e| !matches!(e, Edit::Remove(p) if p == path));
        edits.push(Edit::Upsert(path.clone(), mode_kind(mode), id));
        if let Some(e) = tracked
            .entry_index_by_path(path.as_ref())
            .ok()
            .and_then(|i| tracked.entries_mut().get_mut(i))
        {
            e.id = id;
            e.mode = mode;
            e.stat = Stat::default();
            e.flags.insert(Flags::SKIP_WORKTREE | Flags::EXTENDED);
        }
    }
    Ok(rehash.hashed)
}

/// HEAD's blob (or link, or gitlink) at `path`, with its index mode.
fn head_entry(repo: &gix::Repository, head: ObjectId, path: &BStr) -> Result<Option<(ObjectId, Mode)>> {
    Ok(crate::repo::entry_at(repo, head, path)?
        .filter(|(mode, _)| !mode.is_tree())
        .map(|(mode, id)| (id, kind_mode(mode.kind()))))
}
