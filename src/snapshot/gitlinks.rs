//! Tracked gitlinks (nested repositories and submodules at a path HEAD
//! records as a commit), settled after the status walk as git's `add -A`
//! records them now, whatever the cache remembers: the nested repository's
//! HEAD when it has one, HEAD's gitlink when the folder is there without a
//! repository (an uninitialised submodule, a `.git` removed), removed when
//! the folder is gone. A repository moved away and back, or whose `.git`
//! vanished after its HEAD moved, is recorded as it is now, not as it was.

use gix::ObjectId;
use gix::bstr::BString;
use gix::index::entry::{Flags, Mode, Stat};
use gix::objs::tree::EntryKind;

use super::Ctx;
use super::tree::Edit;
use crate::error::Result;

/// Settle every gitlink of `tracked`, HEAD's tree being `head`.
pub(super) fn settle(
    ctx: &Ctx<'_, '_>,
    tracked: &mut gix::index::File,
    head: ObjectId,
    edits: &mut Vec<Edit>,
) -> Result<()> {
    let links: Vec<usize> = tracked
        .entries()
        .iter()
        .enumerate()
        .filter(|(_, e)| e.mode == Mode::COMMIT && !e.flags.contains(Flags::SKIP_WORKTREE))
        .map(|(i, _)| i)
        .collect();
    for i in links {
        let Some(entry) = tracked.entries().get(i) else {
            continue;
        };
        let rela: BString = entry.path(tracked).to_owned();
        let Ok(path) = crate::model::path::abs(ctx.workdir, rela.as_ref()) else {
            continue;
        };
        let (id, stat) = match std::fs::symlink_metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                edits.push(Edit::Remove(rela));
                (entry.id, Stat::default())
            }
            Ok(md) if md.is_dir() => {
                let now = gix::open_opts(&path, gix::open::Options::isolated())
                    .ok()
                    .and_then(|sub| sub.head_id().ok().map(gix::Id::detach));
                let id = match now {
                    Some(id) => id,
                    // No repository there: git keeps what the index has (HEAD's).
                    None => match crate::repo::entry_at(ctx.repo, head, &rela)? {
                        Some((mode, id)) if mode.is_commit() => id,
                        _ => continue,
                    },
                };
                edits.push(Edit::Upsert(rela, EntryKind::Commit, id));
                let stat = Stat::from_fs(&gix::index::fs::Metadata::from_path_no_follow(&path).map_err(
                    |e| crate::Error::Io {
                        context: format!("could not stat {}", path.display()),
                        path: None,
                        source: e,
                    },
                )?)
                .unwrap_or_default();
                (id, stat)
            }
            // A file where the gitlink was: the walk's type change holds.
            _ => continue,
        };
        if let Some(e) = tracked.entries_mut().get_mut(i) {
            e.id = id;
            e.stat = stat;
        }
    }
    Ok(())
}
