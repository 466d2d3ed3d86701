//! `git t3 diff`: what a turn, a range of turns or the whole thread changed,
//! and the live review modes (worktree against HEAD, branch against its base).

use gix::ObjectId;
use gix::bstr::{BString, ByteSlice};
use serde::Serialize;

use crate::commands::Context;
use crate::diff::changes::{self, TreeChange};
use crate::diff::patch::{self, FilePatch};
use crate::diff::{cache, summary};
use crate::error::{Error, Result};
use crate::model::note::FileChange;
use crate::model::thread::ThreadId;
use crate::repo::{self, NotesReader, Recorder};
use crate::store;

/// What to compare.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// Turn `k-1 → k`; `None`: the latest turn.
    Turn(Option<u64>),
    /// `from → to` (`to` default: latest).
    Range {
        /// The older checkpoint.
        from: u64,
        /// The newer checkpoint.
        to: Option<u64>,
    },
    /// Turn 0 (or HEAD when it is gone) → `to` (default: latest).
    Full {
        /// The newer checkpoint.
        to: Option<u64>,
    },
    /// HEAD → the live worktree, untracked files included.
    Worktree,
    /// A checkpoint (`None`: the latest) → the live worktree (`--to worktree`).
    ToWorktree {
        /// The checkpoint.
        from: Option<u64>,
    },
    /// merge-base(BASE, HEAD) → HEAD.
    Branch(Option<String>),
}

/// How the diff is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A git-style patch.
    Patch,
    /// `--stat`.
    Stat,
    /// `--numstat`.
    Numstat,
    /// `--name-only`.
    NameOnly,
    /// `--name-status`.
    NameStatus,
}

impl Format {
    /// Whether it lists names only (git does not look at contents then, so
    /// whitespace-only changes are listed even when whitespace is ignored).
    pub fn names_only(self) -> bool {
        matches!(self, Format::NameOnly | Format::NameStatus)
    }
}

/// Inputs of `diff`.
#[derive(Debug, Clone)]
pub struct Options {
    /// The thread, for checkpoint modes.
    pub thread: Option<ThreadId>,
    /// What to compare.
    pub mode: Mode,
    /// Ignore all whitespace when comparing lines.
    pub ignore_whitespace: bool,
    /// Include binary patches.
    pub binary: bool,
    /// The output wanted (the patch is only built for [`Format::Patch`]).
    pub format: Format,
    /// Lines of context in the patch (`-U<n>`).
    pub context: u32,
    /// Limit to these pathspecs (git's syntax, relative to `prefix`).
    pub paths: Vec<String>,
    /// Where the command runs in the worktree (`sub/dir/`; empty: the root).
    pub prefix: BString,
    /// git's `--relative`: only paths that start with these bytes, shown
    /// without them (and a `/` that follows). `None` or empty: off.
    pub relative: Option<BString>,
    /// [`Mode::Turn`]: compare from turn N-1 even when N's note has a
    /// `pre_turn_tree` (the worktree when N's prompt was submitted), so the
    /// user's edits between the turns are shown too.
    pub include_user_edits: bool,
}

/// How wide `--stat` may be: git's `--stat=<width>,<name-width>`,
/// `diff.statGraphWidth` and `diff.statNameWidth`, the terminal's width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatWidths {
    /// The whole line (default: the terminal's columns, else 80).
    pub width: usize,
    /// Largest name part; 0: no limit of its own.
    pub name: usize,
    /// Largest graph part; 0: no limit of its own.
    pub graph: usize,
}

impl Default for StatWidths {
    fn default() -> Self {
        StatWidths {
            width: 80,
            name: 0,
            graph: 0,
        }
    }
}

/// Totals of a diff.
#[derive(Debug, Clone, Copy, Serialize, Default)]
pub struct Totals {
    /// Files listed.
    pub files: usize,
    /// Lines added.
    pub additions: u64,
    /// Lines deleted.
    pub deletions: u64,
}

/// What `diff` found.
#[derive(Debug, Serialize)]
pub struct DiffOutcome {
    /// The older side: a checkpoint ref, `HEAD`, or a commit id.
    pub from: String,
    /// The newer side: a checkpoint ref, `HEAD` or `worktree`.
    pub to: String,
    /// The older side's turn, for checkpoint modes.
    pub from_turn: Option<u64>,
    /// The newer side's turn, for checkpoint modes.
    pub to_turn: Option<u64>,
    /// `--turn N` compared from N's `pre_turn_tree` (then also `from`): the
    /// worktree when N's prompt was submitted, so only the agent's work shows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pre_turn_tree: Option<String>,
    /// With `pre_turn_tree`: how many files changed between turn N-1 and N's
    /// prompt (the user's edits), left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_edits: Option<usize>,
    /// Whether whitespace was ignored.
    pub ignore_whitespace: bool,
    /// With `--relative`: the directory (or leading part of paths) that
    /// `files` are relative to; only paths under it are listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relative: Option<String>,
    /// The changed files, sorted by path bytes.
    pub files: Vec<FileChange>,
    /// Totals over `files`.
    pub totals: Totals,
    /// The patch, when asked for.
    #[serde(skip)]
    pub patch: Vec<FilePatch>,
    /// How to show it.
    #[serde(skip)]
    pub format: Format,
    /// Paths NUL-terminated and unquoted (`-z`).
    #[serde(skip)]
    pub null_terminated: bool,
    /// Colour the patch or stat.
    #[serde(skip)]
    pub color: bool,
    /// The colours and whitespace rules of git's config (set by the caller).
    #[serde(skip)]
    pub look: crate::diff::style::Look,
    /// Page the output through this shell command.
    #[serde(skip)]
    pub pager: Option<String>,
    /// Messages for stderr.
    #[serde(skip)]
    pub notices: Vec<String>,
    /// How wide `--stat` may be.
    #[serde(skip)]
    pub stat_widths: StatWidths,
    /// Quote bytes above 0x7f in paths (`core.quotePath`, default on).
    #[serde(skip)]
    pub quote_path: bool,
    /// Exit 1 when there are differences (`--exit-code`, `--quiet`).
    #[serde(skip)]
    pub exit_code: bool,
    /// Print nothing (`--quiet`).
    #[serde(skip)]
    pub quiet: bool,
    /// For `--stat`: the old and new sizes of binary files whose content
    /// changed, by path.
    #[serde(skip)]
    pub sizes: std::collections::HashMap<Vec<u8>, (u64, u64)>,
}

impl DiffOutcome {
    /// The old and new byte sizes of binary `f` (0, 0 when its content is
    /// the same on both sides, or unknown).
    pub fn binary_sizes(&self, f: &FileChange) -> (u64, u64) {
        self.sizes.get(f.path_bytes().as_ref()).copied().unwrap_or((0, 0))
    }
}

struct Side {
    label: String,
    turn: Option<u64>,
    tree: ObjectId,
}

/// Compute the diff `opts` asks for.
pub fn run(ctx: &Context, opts: Options) -> Result<DiffOutcome> {
    let Options {
        thread,
        mode,
        ignore_whitespace,
        binary,
        format,
        context,
        paths,
        prefix,
        relative,
        include_user_edits,
    } = opts;
    let relative = relative.filter(|r| !r.is_empty());
    let mut notices = Vec::new();
    let turn_thread = thread.clone().filter(|_| matches!(mode, Mode::Turn(_)));
    // Read-only, the worktree's new objects are only in memory: everything
    // after reads through this repository.
    let mut in_memory = None;
    let (mut from, to) = match &mode {
        Mode::Worktree => worktree(ctx, &mut in_memory)?,
        Mode::ToWorktree { from } => {
            let repo = &ctx.repo;
            let thread = thread
                .as_ref()
                .ok_or_else(|| Error::usage("this diff needs --thread or T3_THREAD"))?;
            let turn = match from {
                Some(t) => *t,
                None => store::latest_turn(repo, thread)?.ok_or_else(|| Error::UnknownThread {
                    thread: thread.to_string(),
                })?,
            };
            let from_side = checkpoint(repo, &mut None, thread, turn)?;
            (from_side, worktree(ctx, &mut in_memory)?.1)
        }
        Mode::Branch(base) => branch(&ctx.repo, base.as_deref())?,
        _ => {
            let _t = crate::trace::span("resolve checkpoints");
            let thread = thread.ok_or_else(|| Error::usage("this diff needs --thread or T3_THREAD"))?;
            checkpoints(&ctx.repo, &thread, &mode, &mut notices)?
        }
    };
    let repo = in_memory.as_ref().unwrap_or(&ctx.repo);
    let mut limit = changes::Pathspecs::new(repo, &paths, &prefix)?;
    let mut user_edits = None;
    if let Some(thread) = &turn_thread
        && !include_user_edits
        && let Some(turn) = to.turn
        && let Some(pre) = pre_turn_tree(repo, thread, turn, &mut notices)
    {
        let mut edited = changes::tree_changes_with(repo, from.tree, pre, true)?;
        if let Some(limit) = limit.as_mut() {
            edited = changes::limit(edited, |path| limit.includes(path));
        }
        if let Some(rel) = &relative {
            edited = changes::limit(edited, |path| path.starts_with(rel));
        }
        let n = edited.len();
        if n > 0 {
            let before = from
                .turn
                .map_or_else(|| "HEAD".to_owned(), |t| format!("turn {t}"));
            let (file, them) = if n == 1 { ("file", "it") } else { ("files", "them") };
            notices.push(format!(
                "{n} {file} changed between {before} and the prompt of turn {turn} (not by the agent) \
                 left out: --include-user-edits shows {them}"
            ));
        }
        user_edits = Some(n);
        from = Side {
            label: pre.to_string(),
            turn: None,
            tree: pre,
        };
    }
    let (files, shown, hidden) = files_and_shown(
        repo,
        &from,
        &to,
        Compare {
            ignore_whitespace,
            format,
            relative: relative.as_ref().map(|r| r.as_slice()),
            interrupt: ctx.settings.interrupt,
            keep_summary: !ctx.settings.read_only,
        },
        limit,
    )?;
    if hidden > 0 {
        notices.push(format!(
            "{hidden} file{} differ{} only in whitespace (--keep-whitespace shows them)",
            if hidden == 1 { "" } else { "s" },
            if hidden == 1 { "s" } else { "" }
        ));
    }
    let totals = Totals {
        files: files.len(),
        additions: files.iter().map(|f| f.additions).sum(),
        deletions: files.iter().map(|f| f.deletions).sum(),
    };
    let patch = if format == Format::Patch {
        patch::build(
            repo,
            &shown,
            patch::Options {
                ignore_whitespace,
                binary,
                context,
                interrupt: ctx.settings.interrupt,
            },
        )?
    } else {
        Vec::new()
    };
    let mut sizes = if format == Format::Stat {
        binary_sizes(repo, from.tree, to.tree, &files)?
    } else {
        Default::default()
    };
    let (mut files, mut patch) = (files, patch);
    if let Some(rel) = &relative {
        // Paths shown relative to the directory, once everything that reads
        // the trees by path is done.
        for f in &mut files {
            let path = strip_relative(rel, &f.path_bytes());
            let old = f.old_path_bytes().map(|old| strip_relative(rel, &old));
            *f = FileChange {
                similarity: f.similarity,
                ..FileChange::new(
                    &path,
                    old.as_deref(),
                    f.kind,
                    [f.additions, f.deletions],
                    f.binary,
                )
            };
        }
        for p in &mut patch {
            p.header.old_path = strip_relative(rel, &p.header.old_path).into();
            p.header.new_path = strip_relative(rel, &p.header.new_path).into();
        }
        sizes = sizes
            .into_iter()
            .map(|(path, size)| (strip_relative(rel, &path), size))
            .collect();
    }
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
        totals,
        patch,
        format,
        null_terminated: false,
        color: false,
        look: Default::default(),
        relative: relative.map(|r| r.to_str_lossy().into_owned()),
        pager: None,
        notices,
        stat_widths: Default::default(),
        quote_path: repo.config_snapshot().boolean("core.quotePath").unwrap_or(true),
        exit_code: false,
        quiet: false,
        sizes,
    })
}

/// `path` without the `--relative` part `rel`, and without the `/` after
/// it (git strips the bytes, so `--relative=su` makes `sub/a` into `b/a`).
fn strip_relative(rel: &[u8], path: &[u8]) -> Vec<u8> {
    let rest = path.strip_prefix(rel).unwrap_or(path);
    rest.strip_prefix(b"/").unwrap_or(rest).to_vec()
}

/// How files are compared and listed.
#[derive(Debug, Clone, Copy)]
struct Compare<'a> {
    ignore_whitespace: bool,
    format: Format,
    /// git's `--relative`: only paths starting with these bytes.
    relative: Option<&'a [u8]>,
    /// Stop between files when this fires.
    interrupt: crate::interrupt::Interrupt,
    /// Remember the summary computed (in the cache of [`cache`]); not when
    /// nothing may be written.
    keep_summary: bool,
}

/// The old and new sizes of the binary files of `files` whose content
/// differs (git's `Bin <old> -> <new> bytes`), by path.
fn binary_sizes(
    repo: &gix::Repository,
    from: ObjectId,
    to: ObjectId,
    files: &[FileChange],
) -> Result<std::collections::HashMap<Vec<u8>, (u64, u64)>> {
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

/// The listed files with their counts, and the changes whose patches git
/// would show (only computed for [`Format::Patch`]).
///
/// For counts only, a summary computed before (by a capture, or an earlier
/// diff of the same trees) answers without reading a tree.
fn files_and_shown(
    repo: &gix::Repository,
    from: &Side,
    to: &Side,
    how: Compare<'_>,
    mut limit: Option<changes::Pathspecs<'_>>,
) -> Result<(Vec<FileChange>, Vec<TreeChange>, usize)> {
    let Compare {
        ignore_whitespace,
        format,
        relative,
        interrupt,
        keep_summary,
    } = how;
    // Names need no contents: whitespace-only changes are listed.
    let ignore_whitespace = ignore_whitespace && !format.names_only();
    // git's `diff.renames` (default on; `copies` is taken as on).
    let renames = repo.config_snapshot().string("diff.renames").is_none_or(|v| {
        !matches!(
            v.to_string().to_ascii_lowercase().as_str(),
            "false" | "no" | "off" | "0"
        )
    });
    // The cache holds git's default: renames paired, Myers counts.
    let default_counts =
        renames && crate::diff::lines::algorithm(repo) == crate::diff::lines::Algorithm::Myers;
    let cacheable = format != Format::Patch
        && format != Format::NameStatus
        && limit.is_none()
        && relative.is_none()
        && default_counts;
    if cacheable && let Some(files) = cache::get(repo, from.tree, to.tree, ignore_whitespace) {
        // The exact summary, when known too, tells what whitespace hides.
        let hidden = if ignore_whitespace {
            cache::get(repo, from.tree, to.tree, false).map_or(0, |all| all.len().saturating_sub(files.len()))
        } else {
            0
        };
        return Ok((files, Vec::new(), hidden));
    }
    let mut changes = changes::tree_changes_with(repo, from.tree, to.tree, renames)?;
    if let Some(limit) = limit.as_mut() {
        changes = changes::limit(changes, |path| limit.includes(path));
    }
    if let Some(rel) = relative {
        changes = changes::limit(changes, |path| path.starts_with(rel));
    }
    let counts = summary::count_all(repo, &changes, ignore_whitespace, interrupt)?;
    let visible: Vec<bool> = changes
        .iter()
        .zip(&counts)
        .map(|(c, n)| summary::is_visible(c, n, ignore_whitespace))
        .collect();
    let files = summary::files(&changes, counts, ignore_whitespace);
    if keep_summary && limit.is_none() && relative.is_none() && default_counts {
        cache::put(repo, from.tree, to.tree, ignore_whitespace, &files);
    }
    let hidden = visible.iter().filter(|v| !**v).count();
    let shown: Vec<TreeChange> = changes
        .into_iter()
        .zip(visible)
        .filter_map(|(c, v)| v.then_some(c))
        .collect();
    Ok((files, shown, hidden))
}

fn checkpoints(
    repo: &gix::Repository,
    thread: &ThreadId,
    mode: &Mode,
    notices: &mut Vec<String>,
) -> Result<(Side, Side)> {
    // Explicit turns are looked up directly; only a default end needs the
    // listing of the thread's refs (it grows with the thread).
    let explicit_to = match *mode {
        Mode::Turn(t) => t,
        Mode::Range { to, .. } | Mode::Full { to } => to,
        Mode::Worktree | Mode::Branch(_) | Mode::ToWorktree { .. } => {
            return Err(Error::Internal(
                "a live mode reached the checkpoint resolver".into(),
            ));
        }
    };
    let to = match explicit_to {
        Some(t) => t,
        None => store::latest_turn(repo, thread)?.ok_or_else(|| Error::UnknownThread {
            thread: thread.to_string(),
        })?,
    };
    let from = match *mode {
        Mode::Turn(_) if to == 0 => {
            return Err(Error::Refused(format!(
                "turn 0 of thread '{thread}' is its baseline: nothing before it to compare with (try --full)"
            )));
        }
        Mode::Turn(_) => Some(to - 1),
        // Either order, like `git diff B A`: a newer --from shows the change backwards.
        Mode::Range { from, .. } => Some(from),
        _ => None,
    };
    let mut notes = None;
    let to_side = checkpoint(repo, &mut notes, thread, to)?;
    let from_side = match from {
        Some(f) => checkpoint(repo, &mut notes, thread, f)?,
        None => match store::turn_ref(repo, thread, 0)? {
            Some(_) => checkpoint(repo, &mut notes, thread, 0)?,
            None => {
                notices.push(format!(
                    "turn 0 of thread '{thread}' is gone ({}): comparing from HEAD instead",
                    thread.checkpoint_ref(0)
                ));
                Side {
                    label: "HEAD".into(),
                    turn: None,
                    tree: head_tree(repo)?,
                }
            }
        },
    };
    Ok((from_side, to_side))
}

/// The `pre_turn_tree` of turn `turn`'s note, when it has one and the tree
/// is here (a fetched turn's is not: it is said, and the turn is compared
/// from the turn before).
fn pre_turn_tree(
    repo: &gix::Repository,
    thread: &ThreadId,
    turn: u64,
    notices: &mut Vec<String>,
) -> Option<ObjectId> {
    let found = store::turn_ref(repo, thread, turn).ok()??;
    let mut notes = NotesReader::open(repo).ok()?;
    let note = store::load(repo, &mut notes, thread, found).ok()?.note;
    let named = note.pre_turn_tree?;
    let tree = ObjectId::from_hex(named.as_bytes()).ok().filter(|id| {
        repo.find_header(*id)
            .is_ok_and(|h| h.kind() == gix::objs::Kind::Tree)
    });
    if tree.is_none() {
        notices.push(format!(
            "turn {turn}'s note names the worktree when its prompt was submitted ({named}), which is not in this \
             repository: showing everything since the turn before, the user's edits between turns included"
        ));
    }
    tree
}

fn checkpoint<'r>(
    repo: &'r gix::Repository,
    notes: &mut Option<NotesReader<'r>>,
    thread: &ThreadId,
    turn: u64,
) -> Result<Side> {
    let Some(found) = store::turn_ref(repo, thread, turn)? else {
        let latest = store::latest_turn(repo, thread)?;
        return Err(match latest {
            None => Error::UnknownThread {
                thread: thread.to_string(),
            },
            Some(_) => Error::NoSuchTurn {
                thread: thread.to_string(),
                turn,
                latest,
            },
        });
    };
    let reference = thread.checkpoint_ref(turn);
    let tree = repo::commit_tree(repo, found.commit).map_err(|_| Error::BadMetadata {
        reference: reference.clone(),
        problem: "does not point at a checkpoint commit".into(),
    })?;
    // A placeholder's commit holds the empty tree, so only then is its note
    // worth reading (a damaged note does not stop a diff of a real snapshot).
    if tree == ObjectId::empty_tree(repo.object_hash())
        && let Ok(cp) = store::load(repo, notes_reader(repo, notes)?, thread, found)
        && cp.note.placeholder
    {
        return Err(Error::Placeholder {
            thread: thread.to_string(),
            turn,
            reference,
        });
    }
    Ok(Side {
        label: reference,
        turn: Some(turn),
        tree,
    })
}

fn notes_reader<'a, 'r>(
    repo: &'r gix::Repository,
    notes: &'a mut Option<NotesReader<'r>>,
) -> Result<&'a mut NotesReader<'r>> {
    if notes.is_none() {
        *notes = Some(NotesReader::open(repo)?);
    }
    notes
        .as_mut()
        .ok_or_else(|| Error::Internal("notes reader missing".into()))
}

fn head_tree(repo: &gix::Repository) -> Result<ObjectId> {
    repo::head_tree_or_empty(repo)
}

/// HEAD against a snapshot of the worktree, which writes blobs (never
/// refs); read-only, it writes nothing and `in_memory` is set to the
/// repository that reads the worktree's new objects from memory.
fn worktree(ctx: &Context, in_memory: &mut Option<gix::Repository>) -> Result<(Side, Side)> {
    let repo = &ctx.repo;
    repo::workdir(repo)?;
    let tree = if ctx.settings.read_only {
        let preview = crate::snapshot::preview(repo, ctx.settings.interrupt)?;
        *in_memory = Some(preview.repo);
        preview.tree
    } else {
        let lock = ctx.lock("diff --worktree")?;
        let rec = Recorder::new(repo);
        let snapshot = crate::snapshot::snapshot(&lock, &rec)?;
        snapshot.keep_cache(&rec)?;
        snapshot.tree
    };
    Ok((
        Side {
            label: "HEAD".into(),
            turn: None,
            tree: head_tree(repo)?,
        },
        Side {
            label: "worktree".into(),
            turn: None,
            tree,
        },
    ))
}

/// merge-base(BASE, HEAD) against HEAD.
fn branch(repo: &gix::Repository, base: Option<&str>) -> Result<(Side, Side)> {
    let head = repo
        .head_id()
        .map_err(|_| Error::Refused("--branch: HEAD has no commit yet".into()))?
        .detach();
    let base_id = match base {
        Some(name) => repo
            .rev_parse_single(name)
            .map_err(|_| Error::Usage(format!("--branch: '{name}' does not name a commit")))?
            .detach(),
        None => default_base(repo)?,
    };
    let merge_base = repo
        .merge_base(base_id, head)
        .ok()
        .flatten()
        .ok_or_else(|| Error::Refused(format!("--branch: HEAD and {base_id} have no common ancestor")))?
        .detach();
    Ok((
        Side {
            label: merge_base.to_string(),
            turn: None,
            tree: repo::commit_tree(repo, merge_base)?,
        },
        Side {
            label: "HEAD".into(),
            turn: None,
            tree: head_tree(repo)?,
        },
    ))
}

/// The branch's upstream, else `main`, else `master`.
fn default_base(repo: &gix::Repository) -> Result<ObjectId> {
    if let Ok(Some(head)) = repo.head_name() {
        // A remote upstream is its remote-tracking ref; with `remote = .`
        // the upstream is the local branch named by `merge` itself.
        let tracking = repo
            .branch_remote_tracking_ref_name(head.as_ref(), gix::remote::Direction::Fetch)
            .and_then(std::result::Result::ok);
        let merge = repo
            .branch_remote_ref_name(head.as_ref(), gix::remote::Direction::Fetch)
            .and_then(std::result::Result::ok);
        for name in [tracking, merge].into_iter().flatten() {
            if let Some(id) = repo::find_ref(repo, &name.as_bstr().to_string())? {
                return Ok(id);
            }
        }
    }
    for name in [
        "refs/heads/main",
        "refs/heads/master",
        "refs/remotes/origin/main",
        "refs/remotes/origin/master",
    ] {
        if let Some(id) = repo::find_ref(repo, name)? {
            return Ok(id);
        }
    }
    Err(Error::Refused(
        "--branch: no base found (no upstream, no main, no master); name one: git t3 diff --branch BASE"
            .into(),
    ))
}
