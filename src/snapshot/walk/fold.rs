//! Folding what the status walk reported for tracked entries into the next
//! `index.tracked` (id, mode, stat) and into tree edits against the base
//! tree; files the walk could not settle are hashed again here.

use gix::ObjectId;
use gix::index::entry::{Mode, Stat};
use gix::objs::tree::EntryKind;
use gix::status::plumbing::index_as_worktree::{Change, EntryStatus};

use super::TrackedChange;
use crate::error::Result;
use crate::snapshot::Ctx;
use crate::snapshot::hash::{self, Rehash};
use crate::snapshot::tree::{Edit, mode_kind, toggle_exec};

/// Fold the walk's findings for tracked entries into `tracked`, the next
/// `index.tracked`, and derive their tree edits against the base tree (the
/// last captured tree when `incremental`, else HEAD's). Returns the edits and
/// how many files had to be hashed again here.
pub(in crate::snapshot) fn fold_tracked(
    ctx: &Ctx<'_, '_>,
    tracked: &mut gix::index::File,
    changes: Vec<TrackedChange>,
    incremental: bool,
) -> Result<(Vec<Edit>, usize)> {
    let mut fold = Fold {
        ctx,
        rehash: Rehash::new(ctx),
        incremental,
        edits: Vec::new(),
    };
    for TrackedChange { index, status } in changes {
        let Some(entry) = tracked.entries().get(index) else {
            continue;
        };
        if let Some((id, mode, stat)) = fold.entry(tracked, entry, status)?
            && let Some(e) = tracked.entries_mut().get_mut(index)
        {
            e.id = id;
            e.mode = mode;
            e.stat = stat;
        }
    }
    Ok((fold.edits, fold.rehash.hashed))
}

/// The state of [`fold_tracked`].
struct Fold<'c, 'a, 'r> {
    ctx: &'c Ctx<'a, 'r>,
    rehash: Rehash<'c, 'a, 'r>,
    incremental: bool,
    edits: Vec<Edit>,
}

impl Fold<'_, '_, '_> {
    /// Record the edit for one tracked `entry` of `tracked` and return its
    /// new id, mode and stat, or `None` to leave it as it is.
    fn entry(
        &mut self,
        tracked: &gix::index::State,
        entry: &gix::index::Entry,
        status: EntryStatus<Option<ObjectId>, ObjectId>,
    ) -> Result<Option<(ObjectId, Mode, Stat)>> {
        let path = entry.path(tracked).to_owned();
        let (id, mode, stat) = (entry.id, entry.mode, entry.stat);
        let edits = &mut self.edits;
        Ok(match status {
            EntryStatus::NeedsUpdate(new_stat) => {
                // Same content as the entry. In an incremental run an
                // all-zero stat marks a file absent at the last capture.
                if self.incremental && stat == Stat::default() {
                    edits.push(Edit::Upsert(path, mode_kind(mode), id));
                }
                Some((id, mode, new_stat))
            }
            EntryStatus::Change(Change::Removed) => {
                edits.push(Edit::Remove(path));
                Some((id, mode, Stat::default()))
            }
            EntryStatus::Change(Change::Modification {
                executable_bit_changed,
                content_change,
                ..
            }) => {
                let new_mode = if executable_bit_changed {
                    toggle_exec(mode)
                } else {
                    mode
                };
                match content_change {
                    // Left to the rehash (`Ctx::auto_eol`), or the file
                    // shrank while it was read: hash it (again).
                    Some(None) => self.rehash.file(&path, tracked, edits)?,
                    other => {
                        let new_id = other.flatten().unwrap_or(id);
                        let stat = hash::lstat(self.ctx.workdir, &path).unwrap_or_default();
                        edits.push(Edit::Upsert(path, mode_kind(new_mode), new_id));
                        Some((new_id, new_mode, stat))
                    }
                }
            }
            EntryStatus::Change(Change::Type { .. }) => self.rehash.file(&path, tracked, edits)?,
            EntryStatus::Change(Change::SubmoduleModification(commit)) => {
                edits.push(Edit::Upsert(path, EntryKind::Commit, commit));
                Some((commit, Mode::COMMIT, stat))
            }
            EntryStatus::Conflict { .. } | EntryStatus::IntentToAdd => None,
        })
    }
}
