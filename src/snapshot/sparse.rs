//! Untracked files in a sparse checkout: `git add -A` leaves out those
//! outside the sparse-checkout patterns (and says so), so a checkpoint does.
//!
//! Which paths are in is decided by gix's reading of `info/sparse-checkout`
//! (cone patterns when `core.sparseCheckoutCone` is set, else the patterns
//! as written), the one git's checkout uses too. A worktree whose patterns
//! file is missing takes every path, as git does.
//!
//! Folders whose tracked files are all marked skip-worktree are walked like
//! any other (gix's walk would prune them): a file there is left out only
//! when the patterns leave it out, and with no sparse checkout at all it is
//! taken, as `git add -A` takes it.

use gix::bstr::BString;
use gix::dir::entry::Kind;
use gix::index::entry::{Flags, Mode, Stat};

use crate::error::{Context as _, Result};

/// `found` (untracked paths and their kind on disk) less the paths outside
/// `repo`'s sparse-checkout patterns.
pub(super) fn in_patterns(
    repo: &gix::Repository,
    found: Vec<(BString, Option<Kind>)>,
) -> Result<Vec<(BString, Option<Kind>)>> {
    if found.is_empty() {
        return Ok(found);
    }
    let patterns = gix::worktree::sparse::read_patterns(repo.git_dir())
        .context(|| "could not read the sparse-checkout patterns".into())?;
    let Some(patterns) = patterns else {
        return Ok(found);
    };
    let config = repo.config_snapshot();
    let cone = config.boolean("core.sparseCheckoutCone").unwrap_or(false);
    let case = if config.boolean("core.ignoreCase").unwrap_or(false) {
        gix::glob::pattern::Case::Fold
    } else {
        gix::glob::pattern::Case::Sensitive
    };
    let mut state = gix::index::State::new(repo.object_hash());
    let null = gix::ObjectId::null(repo.object_hash());
    let mut name = BString::default();
    for (path, kind) in &found {
        // git asks about a nested repository as `path/`, which it matches
        // as a file inside that folder.
        name.clone_from(path);
        if *kind == Some(Kind::Repository) {
            name.extend_from_slice(b"/-");
        }
        state.dangerously_push_entry(Stat::default(), null, Flags::empty(), Mode::FILE, name.as_ref());
    }
    let source = repo.git_dir().join("info").join("sparse-checkout");
    gix::worktree::sparse::apply_patterns(&mut state, &patterns, &source, cone, case)
        .context(|| "could not apply the sparse-checkout patterns".into())?;
    // The entries are still in `found`'s order.
    let outside: Vec<bool> = state
        .entries()
        .iter()
        .map(|e| e.flags.contains(Flags::SKIP_WORKTREE))
        .collect();
    Ok(found
        .into_iter()
        .zip(outside)
        .filter_map(|(f, out)| (!out).then_some(f))
        .collect())
}

/// Set (`set`) or clear the up-to-date flag of every skip-worktree entry of
/// `tracked`, around the status walk: gix's walk prunes a folder whose
/// entries are all skip-worktree, unless one is up to date. The status
/// walk looks at neither kind of entry, so nothing else changes.
pub(super) fn mark_walkable(tracked: &mut gix::index::File, set: bool) {
    for e in tracked.entries_mut() {
        if e.flags.contains(Flags::SKIP_WORKTREE) {
            if set {
                e.flags.insert(Flags::UPTODATE);
            } else {
                e.flags.remove(Flags::UPTODATE);
            }
        }
    }
}
