//! Comparing: what a turn, a range of turns or the whole thread changed,
//! and the live review modes (worktree against HEAD, branch against its
//! base) — the use case of `diff`, of `log -p`'s patches and of the review
//! page.

use gix::ObjectId;
use gix::bstr::{BString, ByteSlice};
use serde::Serialize;

use crate::context::Context;
use crate::diff::changes::{self, TreeChange};
use crate::diff::lines::Space;
use crate::diff::patch::{self, FilePatch};
use crate::diff::{cache, summary};
use crate::error::{Error, Result};
use crate::model::note::FileChange;
use crate::model::thread::ThreadId;
use crate::repo::{self, NotesReader, Recorder};
use crate::store;

mod attributes;
mod counts;
mod dirstat;
mod listing;
mod settings;
mod sides;
mod types;
pub use attributes::{not_supported, word_regexes};
pub use counts::{Counting, default_ignore_whitespace, fill, turn_counts};
pub use settings::check as check_settings;
use sides::*;
pub use types::*;

struct Side {
    label: String,
    turn: Option<u64>,
    tree: ObjectId,
    /// The checkpoint's commit, when the side is a checkpoint.
    commit: Option<ObjectId>,
}

/// `diff.relative`: `prefix` (the current directory) when it is on, else
/// `None`; a value that is not a boolean is refused, as git refuses it.
pub fn relative_from_config(repo: &gix::Repository, prefix: &gix::bstr::BStr) -> Result<Option<BString>> {
    let config = repo.config_snapshot();
    match config.try_boolean("diff.relative") {
        Ok(on) => Ok(on.unwrap_or(false).then(|| prefix.to_owned())),
        Err(_) => Err(Error::BadConfig {
            key: "diff.relative".into(),
            value: config
                .string("diff.relative")
                .map(|v| v.to_string())
                .unwrap_or_default(),
            origin: "git config".into(),
            problem: "not a boolean (true or false)".into(),
        }),
    }
}

/// Compute the diff `opts` asks for.
pub fn run(ctx: &Context, opts: Options) -> Result<DiffOutcome> {
    #[rustfmt::skip]
    let Options { thread, mode, ignore_whitespace, binary, format, context, paths, prefix, relative, include_user_edits, shape } = opts;
    let relative = relative.filter(|r| !r.is_empty());
    let mut notices = Vec::new();
    let turn_thread = thread.clone().filter(|_| matches!(mode, Mode::Turn(_)));
    // git reads the index's attributes too when a side is the worktree.
    let live = matches!(mode, Mode::Worktree | Mode::ToWorktree { .. });
    // Read-only, the worktree's new objects are only in memory: everything
    // after reads through this repository.
    let mut in_memory = None;
    let (mut from, mut to) = resolve(ctx, thread.as_ref(), &mode, &mut in_memory, &mut notices)?;
    let repo = in_memory.as_ref().unwrap_or(&ctx.repo);
    let mut limit = changes::Pathspecs::new(repo, &paths, &prefix)?;
    let thread = turn_thread.filter(|_| !include_user_edits);
    let rel = relative.as_ref().map(|r| r.as_slice());
    let user_edits = from_pre_turn(
        repo,
        thread.as_ref(),
        &mut from,
        to.turn
            .zip(to.commit)
            .map(|(turn, commit)| store::TurnRef { turn, commit }),
        (limit.as_mut(), rel),
        &mut notices,
    )?;
    // `-w` beats `-b`, which beats `--ignore-space-at-eol`.
    let space = if ignore_whitespace {
        Space::All
    } else {
        shape.space
    };
    if shape.reverse {
        // git's -R: the new side is shown as the old one.
        std::mem::swap(&mut from, &mut to);
    }
    let how = patch::Options {
        space,
        binary,
        context,
        inter_hunk: shape.inter_hunk,
        function_context: shape.function_context,
        ignore_blank_lines: shape.ignore_blank_lines,
        interrupt: ctx.settings.interrupt,
    };
    let mut attrs = attributes::for_format(format, repo, live, ctx.settings.multibyte)?;
    #[rustfmt::skip]
    let Listed { files, shown, treatments, hidden, dirstat, patch: built } = files_and_shown(
        repo,
        &from,
        &to,
        Compare {
            space,
            format,
            relative: relative.as_ref().map(|r| r.as_slice()),
            filter: shape.filter,
            modes: shape.summary,
            recount: shape.ignore_blank_lines.then_some(how),
            patch: how,
            detection: changes::Detection::resolve(repo, &shape.renames)?,
            interrupt: ctx.settings.interrupt,
            keep_summary: !ctx.settings.read_only,
            ignore_driver_algorithm: shape.ignore_driver_algorithm,
        },
        limit,
        attrs.as_mut(),
    )?;
    notices.extend(whitespace_notice(hidden));
    let totals = Totals::of(&files);
    let programs = attributes::programs(&shown, &treatments);
    let patch = listing::patches(built, format.patch, repo, (&shown, &treatments), how)?;
    let mut sizes = listing::binary_sizes_for(format, repo, (from.tree, to.tree), &files)?;
    let (mut files, mut patch) = (files, patch);
    let whole = listing::relative(relative.as_ref(), format, &mut files, &mut patch, &mut sizes);
    let pre_turn_tree = user_edits.map(|_| from.label.clone());
    Ok(DiffOutcome {
        from: from.label,
        to: to.label,
        from_turn: from.turn,
        to_turn: to.turn,
        pre_turn_tree,
        user_edits,
        ignore_whitespace,
        files,
        whole,
        totals,
        whitespace_only: hidden,
        patch,
        relative: relative.map(|r| r.to_str_lossy().into_owned()),
        notices,
        trees: in_memory.is_none().then_some((from.tree, to.tree)),
        view: DiffView {
            format,
            quote_path: repo.config_snapshot().boolean("core.quotePath").unwrap_or(true),
            ..DiffView::default()
        },
        sizes,
        dirstat,
        programs,
    })
}

/// The two sides `mode` compares (`in_memory`: the repository the
/// worktree's objects live in when nothing may be written).
fn resolve(
    ctx: &Context,
    thread: Option<&ThreadId>,
    mode: &Mode,
    in_memory: &mut Option<gix::Repository>,
    notices: &mut Vec<String>,
) -> Result<(Side, Side)> {
    let needs_thread = || thread.ok_or_else(|| Error::usage("this diff needs --thread or T3_THREAD"));
    Ok(match mode {
        Mode::Worktree => worktree(ctx, in_memory)?,
        Mode::ToWorktree { from } => {
            let repo = &ctx.repo;
            let thread = needs_thread()?;
            let turn = match from {
                Some(t) => *t,
                None => store::latest_turn(repo, thread)?.ok_or_else(|| Error::UnknownThread {
                    thread: thread.to_string(),
                })?,
            };
            let from_side = checkpoint(repo, &mut None, thread, turn)?;
            (from_side, worktree(ctx, in_memory)?.1)
        }
        Mode::Branch(base) => branch(&ctx.repo, base.as_deref())?,
        _ => {
            let _t = crate::trace::span("resolve checkpoints");
            checkpoints(&ctx.repo, needs_thread()?, mode, notices)?
        }
    })
}

/// "2 files differ only in whitespace": said when whitespace hid any.
fn whitespace_notice(hidden: usize) -> Option<String> {
    (hidden > 0).then(|| {
        format!(
            "{hidden} file{} differ{} only in whitespace (--keep-whitespace shows them)",
            if hidden == 1 { "" } else { "s" },
            if hidden == 1 { "s" } else { "" }
        )
    })
}

/// How files are compared and listed.
#[derive(Debug, Clone, Copy)]
struct Compare<'a> {
    /// How whitespace counts (`-w`, `-b`, `--ignore-space-at-eol`).
    space: Space,
    format: Formats,
    /// git's `--relative`: only paths starting with these bytes.
    relative: Option<&'a [u8]>,
    /// git's `--diff-filter`.
    filter: Option<changes::StatusFilter>,
    /// The files' modes are wanted (a cached summary has none).
    modes: bool,
    /// Count the lines the patch shows, built this way (with
    /// `--ignore-blank-lines`, git's stat counts what its patch shows).
    recount: Option<patch::Options>,
    /// How a patch is built (used when the format is a patch).
    patch: patch::Options,
    /// How renames and copies are found (`diff.renames`, `-M`, `-C`, ...).
    detection: changes::Detection,
    /// Stop between files when this fires.
    interrupt: crate::interrupt::Interrupt,
    /// Remember the summary computed (in the cache of [`cache`]); not when
    /// nothing may be written.
    keep_summary: bool,
    /// A diff driver's `algorithm` does not apply.
    ignore_driver_algorithm: bool,
}

/// Whether the summary cache of [`cache`] holds what `how` asks for: git's
/// default renames and counts of every path, whitespace all or nothing.
fn cache_fits(repo: &gix::Repository, how: &Compare<'_>, space: Space, limited: bool) -> bool {
    // The cache holds git's default: renames (no copies) paired at 50%
    // within the default limit, Myers counts.
    how.detection.is_summary_default()
        && crate::diff::lines::algorithm(repo) == crate::diff::lines::Algorithm::Myers
        && !limited
        && how.relative.is_none()
        && how.filter.is_none()
        && matches!(space, Space::Exact | Space::All)
}

/// The listing a summary computed before (by a capture, or an earlier
/// diff of the same trees) gives, when there is one and the files'
/// attributes change none of its counts.
fn cached(
    repo: &gix::Repository,
    (from, to): (ObjectId, ObjectId),
    ignore_whitespace: bool,
    attrs: Option<&mut crate::diff::attributes::Attributes<'_>>,
) -> Result<Option<Listed>> {
    let Some(files) = cache::get(repo, from, to, ignore_whitespace) else {
        return Ok(None);
    };
    // The exact summary, when known too, tells what whitespace hides.
    let all = ignore_whitespace
        .then(|| cache::get(repo, from, to, false))
        .flatten();
    let hidden = all
        .as_ref()
        .map_or(0, |all| all.len().saturating_sub(files.len()));
    // The cache holds summaries without attributes: good only for files
    // whose attributes change no count.
    if !attributes::summary_holds(attrs, &files, all.as_deref())? {
        return Ok(None);
    }
    Ok(Some(Listed {
        files,
        shown: Vec::new(),
        treatments: Vec::new(),
        hidden,
        dirstat: Vec::new(),
        patch: None,
    }))
}

/// The listed files with their counts, the changes whose patches git
/// would show (only computed for a patch) with how their attributes treat
/// them, and the dirstat.
///
/// For counts only, a summary computed before (by a capture, or an earlier
/// diff of the same trees) answers without reading a tree.
fn files_and_shown(
    repo: &gix::Repository,
    from: &Side,
    to: &Side,
    how: Compare<'_>,
    mut limit: Option<changes::Pathspecs<'_>>,
    mut attrs: Option<&mut crate::diff::attributes::Attributes<'_>>,
) -> Result<Listed> {
    let Compare {
        space,
        format,
        relative,
        filter,
        modes,
        recount,
        patch: patch_how,
        detection,
        interrupt,
        keep_summary,
        ignore_driver_algorithm,
    } = how;
    // Names need no contents, nor does a dirstat by bytes or files: git
    // lists whitespace-only changes there.
    let by_names = !format.needs_counts();
    let space = if by_names { Space::Exact } else { space };
    let recount = recount.filter(|_| !by_names);
    let ignore_whitespace = space != Space::Exact;
    let default_counts = cache_fits(repo, &how, space, limit.is_some()) && recount.is_none();
    let cacheable = default_counts
        && !format.patch
        && format.names != Some(Names::Status)
        && format.dirstat.is_none()
        && !modes;
    if cacheable
        && let Some(listed) = cached(
            repo,
            (from.tree, to.tree),
            ignore_whitespace,
            attrs.as_deref_mut(),
        )?
    {
        return Ok(listed);
    }
    // Pathspecs and `--relative` limit what git looks at before it pairs
    // renames and copies.
    let mut keep = |path: &[u8]| {
        relative.is_none_or(|rel| path.starts_with(rel)) && limit.as_mut().is_none_or(|l| l.includes(path))
    };
    let mut changes = {
        let _t = crate::trace::span("changed files (tree diff, renames)");
        changes::tree_changes_found(repo, from.tree, to.tree, &detection, &mut keep)?
    };
    if let Some(filter) = filter {
        filter.apply(&mut changes);
    }
    let mut treatments = match attrs {
        Some(a) => a.treatments(&changes, ignore_driver_algorithm)?,
        None => Vec::new(),
    };
    if format.patch_alone() && recount.is_none() {
        // The patch's own comparison counts the files and says which
        // whitespace hid: each file is read and compared once.
        let _t = crate::trace::span("patches (counted)");
        let space = patch::Options { space, ..patch_how };
        return listing::patch_alone(repo, changes, treatments, space, ignore_whitespace);
    }
    let treats: Vec<_> = treatments.iter().map(|t| t.counts).collect();
    let algorithm = crate::diff::lines::algorithm(repo);
    let mut counts = {
        let _t = crate::trace::span("counts");
        summary::count_all(repo, &changes, Some(&treats), space, algorithm, interrupt)?
    };
    if let Some(how) = recount {
        for (n, shown) in counts
            .iter_mut()
            .zip(patch::shown_counts(repo, &changes, &treatments, how)?)
        {
            if let Some([additions, deletions]) = shown {
                (n.additions, n.deletions) = (additions, deletions);
            }
        }
    }
    // Every change, whitespace-only ones too, as git's dirstat sees them.
    let dirstat = match format.dirstat {
        Some(params) => dirstat::lines(
            params,
            repo,
            (&changes, &treatments),
            &summary::files(&changes, counts.clone(), false),
        )?,
        None => Vec::new(),
    };
    let ignore_whitespace = ignore_whitespace || recount.is_some();
    let visible = summary::visibility(&changes, &counts, ignore_whitespace);
    let files = summary::files(&changes, counts, ignore_whitespace);
    if keep_summary && default_counts && treats.iter().all(|t| *t == Default::default()) {
        cache::put(repo, from.tree, to.tree, ignore_whitespace, &files);
    }
    let hidden = visible.iter().filter(|v| !**v).count();
    if format.patch && format.counts_pass() {
        attributes::carry_stat_algorithm(&mut treatments);
    }
    let (shown, treatments) = listing::visible_only(changes, &visible, treatments);
    Ok(Listed {
        files,
        shown,
        treatments,
        hidden,
        dirstat,
        patch: None,
    })
}
