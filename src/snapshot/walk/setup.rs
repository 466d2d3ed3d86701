//! Setting up gix's walks for the status walk: `index_worktree_status`
//! with the t3 rules as exclude overrides, the options of the directory
//! walk for untracked files, and the walker of the untracked-walk cache
//! that replaces that walk where it can.

use gix::ObjectId;
use gix::bstr::BStr;

use super::delegates::{Collect, GitlinkHead, HashAndWrite};
use crate::error::{Context as _, Result};
use crate::snapshot::Ctx;
use crate::snapshot::untracked::{self, Walker};

/// The t3 rules as exclude overrides of the walk, when they only exclude
/// (see `scope`): a t3-ignored folder is then never walked into.
pub(super) fn overrides(ctx: &Ctx<'_, '_>) -> Option<gix::ignore::Search> {
    ctx.excludes
        .as_ref()
        .filter(|e| !e.has_negations())
        .map(crate::snapshot::scope::Excludes::search)
}

/// The walker of the untracked-walk cache, or `None` where gix's own walk
/// must do (a case-insensitive file system, where lookups fold case).
pub(super) fn cached_walker(
    ctx: &Ctx<'_, '_>,
    tracked: &gix::index::File,
    head: ObjectId,
) -> Result<Option<Walker>> {
    use gix::worktree::stack::state::{attributes, ignore};
    let repo = ctx.repo;
    let git = |e: gix::Error| crate::Error::Git {
        context: "could not prepare the untracked walk".into(),
        source: Box::new(e),
    };
    let fs_caps = repo.filesystem_options().map_err(git)?;
    if fs_caps.ignore_case {
        return Ok(None);
    }
    let excludes = repo
        .excludes(
            tracked,
            overrides(ctx),
            ignore::Source::WorktreeThenIdMappingIfNotSkipped,
        )
        .map_err(git)?
        .detach();
    let pathspec = repo
        .pathspec(
            false,
            None::<&BStr>,
            true,
            tracked,
            attributes::Source::WorktreeThenIdMapping,
        )
        .map_err(git)?
        .into_parts()
        .0;
    let cwd = repo.current_dir().to_owned();
    let git_dir_realpath = gix::path::realpath_opts(repo.git_dir(), &cwd, gix::path::realpath::MAX_SYMLINKS)
        .map_err(|e| git(gix::Error::from_error(e)))?;
    Ok(Some(Walker {
        workdir: ctx.workdir.to_owned(),
        git_dir_realpath,
        current_dir: cwd,
        excludes,
        pathspec,
        objects: repo
            .objects
            .clone()
            .into_arc()
            .context(|| "could not share the object database".into())?,
        options: untracked_walk(repo)?.into(),
        rules: untracked::rules_fingerprint(repo, ctx.workdir),
        head: head.to_string().into(),
        started: ctx.walk_started,
    }))
}

/// gix's `Repository::index_worktree_status`, with `overrides` added to the
/// exclude stack of the untracked walk (gix's own passes none): the same
/// attribute and exclude stacks, pathspec, resource cache and options.
pub(super) fn index_worktree_status(
    ctx: &Ctx<'_, '_>,
    index: &gix::index::State,
    overrides: Option<gix::ignore::Search>,
    delegate: &mut Collect,
    compare: HashAndWrite,
    submodules: GitlinkHead,
    options: gix::status::index_worktree::Options,
) -> gix::Result<gix::status::plumbing::index_as_worktree_with_renames::Outcome> {
    use gix::status::plumbing::index_as_worktree_with_renames as plumbing;
    use gix::worktree::stack::state::{attributes, ignore};
    let repo = ctx.repo;
    let attrs_and_excludes = repo.attributes(
        index,
        attributes::Source::WorktreeThenIdMapping,
        ignore::Source::WorktreeThenIdMappingIfNotSkipped,
        overrides,
    )?;
    // `untracked_walk` sets `empty_patterns_match_prefix(false)`.
    let pathspec = repo
        .pathspec(
            false,
            None::<&BStr>,
            true,
            index,
            attributes::Source::WorktreeThenIdMapping,
        )?
        .into_parts()
        .0;
    let cwd = repo.current_dir();
    let git_dir_realpath = gix::path::realpath_opts(repo.git_dir(), cwd, gix::path::realpath::MAX_SYMLINKS)
        .map_err(gix::Error::from_error)?;
    let fs_caps = repo.filesystem_options()?;
    // gix's default: on where the Git for Windows installation turns it on.
    let fscache = repo
        .config_snapshot()
        .boolean("core.fscache")
        .unwrap_or(cfg!(windows));
    let accelerate_lookup = fs_caps.ignore_case.then(|| index.prepare_icase_backing());
    let resource_cache = gix::diff::resource_cache(
        repo,
        gix::diff::blob::pipeline::Mode::ToGit,
        attrs_and_excludes.detach(),
        gix::diff::blob::pipeline::WorktreeRoots {
            old_root: None,
            new_root: Some(ctx.workdir.to_owned()),
        },
    )?;
    let objects = repo.objects.clone().into_arc().map_err(gix::Error::from_error)?;
    gix::status::plumbing::index_as_worktree_with_renames(
        index,
        ctx.workdir,
        delegate,
        compare,
        submodules,
        objects,
        &mut gix::progress::Discard,
        plumbing::Context {
            pathspec,
            resource_cache,
            should_interrupt: ctx.interrupt.flag(),
            dirwalk: plumbing::DirwalkContext {
                git_dir_realpath: git_dir_realpath.as_path(),
                current_dir: cwd,
                ignore_case_index_lookup: accelerate_lookup.as_ref(),
            },
        },
        plumbing::Options {
            sorting: options.sorting,
            tracked_file_modifications: gix::status::plumbing::index_as_worktree::Options {
                fs: fs_caps,
                thread_limit: options.thread_limit,
                stat: repo.stat_options()?,
                fscache,
            },
            fscache,
            dirwalk: options.dirwalk_options.map(Into::into),
            rewrites: options.rewrites,
        },
    )
}

/// Options of the directory walk: emit the untracked, not ignored files
/// (and nested repositories, without entering them), nothing else.
pub(super) fn untracked_walk(repo: &gix::Repository) -> Result<gix::dirwalk::Options> {
    Ok(repo
        .dirwalk_options()
        .context(|| "could not configure the directory walk".into())?
        .emit_untracked(gix::dir::walk::EmissionMode::Matching)
        .emit_ignored(None)
        .emit_tracked(false)
        .emit_pruned(false)
        .emit_empty_directories(false)
        .recurse_repositories(false)
        .empty_patterns_match_prefix(false)
        .classify_untracked_bare_repositories(false)
        .symlinks_to_directories_are_ignored_like_directories(false))
}
