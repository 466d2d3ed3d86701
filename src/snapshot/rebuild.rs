//! Rebuilding `index.tracked` from HEAD when the cache cannot be edited
//! in place: stat data copied only where it describes the same content.

use gix::ObjectId;
use gix::index::entry::{Flags, Stat};

use super::cache::Cache;
use crate::error::{Context as _, Result};

/// A fresh `index.tracked`: an index of the HEAD tree with stat data copied
/// from the old cache and the user's index where it describes the same
/// content, and skip-worktree bits from the user's index. Its timestamp is
/// the oldest of the indexes stat data came from, so racy entries stay racy.
///
/// The cache's ids were hashed under the attributes its fingerprint names
/// (see [`super::attrs`]). The user's index may hold ids hashed under
/// settings or attributes since changed (say `core.autocrlf` was true when
/// git last looked at the file), which `git status` keeps trusting but `git
/// add -A` into a fresh index does not: its stat data is copied only when
/// `trust_user`, asked about the fresh index, says nothing can convert a
/// file now, and only where the size it recorded is the blob's own (a file
/// written through a conversion — line endings, `ident`, a filter, an
/// encoding — is almost never the size of its blob).
///
/// With `copy_stat` false (the attributes changed) no stat data is copied:
/// every file is hashed again.
pub(super) fn tracked(
    repo: &gix::Repository,
    head: ObjectId,
    cache: Option<&Cache>,
    copy_stat: bool,
    trust_user: impl FnOnce(&gix::index::State) -> bool,
) -> Result<gix::index::File> {
    let mut fresh = repo
        .index_from_tree(&head)
        .context(|| format!("could not read the HEAD tree {head}"))?;
    let trust_user = copy_stat && trust_user(&fresh);
    let user = match repo.index_path() {
        p if p.is_file() => Some(
            repo.open_index()
                .context(|| format!("could not read the index {}", p.display()))?,
        ),
        _ => None,
    };
    let sources: Vec<&gix::index::File> = cache
        .map(|c| [&c.tracked, &c.untracked])
        .into_iter()
        .flatten()
        .chain(user.as_ref())
        .collect();
    let mut oldest = None;
    let user_ptr = user.as_ref().map(|u| u as *const gix::index::File);
    let (entries, backing) = fresh.entries_mut_and_pathbacking();
    for entry in entries.iter_mut() {
        let path = entry.path_in(backing);
        let mut got_stat = false;
        for src in &sources {
            let Some(e) = src.entry_by_path(path) else {
                continue;
            };
            if e.stage_raw() != 0 {
                continue;
            }
            let is_user = user_ptr == Some(*src as *const gix::index::File);
            if is_user && e.flags.contains(Flags::SKIP_WORKTREE) {
                entry.flags.insert(Flags::SKIP_WORKTREE | Flags::EXTENDED);
            }
            if copy_stat
                && !got_stat
                && e.id == entry.id
                && e.mode == entry.mode
                && e.stat != Stat::default()
                && (!is_user || (trust_user && blob_size(repo, e.id) == Some(u64::from(e.stat.size))))
            {
                entry.stat = e.stat;
                got_stat = true;
                let ts = src.timestamp();
                oldest = Some(match oldest {
                    Some(o) if o < ts => o,
                    _ => ts,
                });
            }
        }
    }
    if let Some(ts) = oldest {
        fresh.set_timestamp(ts);
    }
    Ok(fresh)
}

/// The size of the object `id`, when it can be read.
fn blob_size(repo: &gix::Repository, id: ObjectId) -> Option<u64> {
    repo.find_header(id).ok().map(|h| h.size())
}
