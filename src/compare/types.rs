//! What `diff` is asked and what it reports.

use super::*;

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
    /// `--shortstat`: the totals line of `--stat` alone.
    ShortStat,
    /// `--summary` alone: created, deleted, renamed, mode-changed files.
    Summary,
    /// `--dirstat`: each directory's share of the change.
    Dirstat(crate::diff::dirstat::Params),
}

/// Which of `--name-only` and `--name-status` (git prints nothing else
/// with either).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Names {
    /// `--name-only`.
    Only,
    /// `--name-status`.
    Status,
}

/// The outputs asked for together, as git's `output_format` bits: written
/// in git's order (numstat, stat, shortstat, dirstat, summary, then the
/// patch after a separator line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Formats {
    /// The patch.
    pub patch: bool,
    /// `--numstat`.
    pub numstat: bool,
    /// `--stat`.
    pub stat: bool,
    /// `--shortstat`.
    pub shortstat: bool,
    /// `--dirstat`, with its parameters.
    pub dirstat: Option<crate::diff::dirstat::Params>,
    /// `--summary`.
    pub summary: bool,
    /// `--name-only` or `--name-status`, alone.
    pub names: Option<Names>,
}

impl Formats {
    /// Whether git runs its stat pass (`compute_diffstat`) over the files:
    /// for `--numstat`, `--stat`, `--shortstat` or a dirstat by lines.
    pub fn counts_pass(&self) -> bool {
        self.numstat
            || self.stat
            || self.shortstat
            || self
                .dirstat
                .is_some_and(|d| d.method == crate::diff::dirstat::Method::Lines)
    }

    /// The patch and nothing else: the listed files and their counts are
    /// then what the patch's own comparison finds (no stat pass).
    pub fn patch_alone(&self) -> bool {
        *self
            == Formats {
                patch: true,
                ..Formats::default()
            }
    }

    /// Whether a format counts lines (else git lists names without looking
    /// at contents, so whitespace-only changes are listed even when
    /// whitespace is ignored).
    pub fn needs_counts(&self) -> bool {
        self.patch || self.numstat || self.stat || self.shortstat || self.dirstat_by_lines()
    }

    /// Whether `--dirstat` counts lines (git computes it with the stat).
    pub fn dirstat_by_lines(&self) -> bool {
        self.dirstat
            .is_some_and(|p| p.method == crate::diff::dirstat::Method::Lines)
    }
}

impl From<Format> for Formats {
    fn from(format: Format) -> Self {
        let mut f = Formats::default();
        match format {
            Format::Patch => f.patch = true,
            Format::Stat => f.stat = true,
            Format::Numstat => f.numstat = true,
            Format::NameOnly => f.names = Some(Names::Only),
            Format::NameStatus => f.names = Some(Names::Status),
            Format::ShortStat => f.shortstat = true,
            Format::Summary => f.summary = true,
            Format::Dirstat(params) => f.dirstat = Some(params),
        }
        f
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
    /// The outputs wanted (the patch is only built when asked for).
    pub format: Formats,
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
    /// git's options that change what is compared and how hunks are cut.
    pub shape: Shape,
}

/// git's options that change what is compared and how hunks are cut.
#[derive(Debug, Clone, Default)]
pub struct Shape {
    /// Swap the sides (`-R`).
    pub reverse: bool,
    /// Only these statuses (`--diff-filter`).
    pub filter: Option<crate::diff::changes::StatusFilter>,
    /// The files' modes are needed (`--summary`): no cached summary then.
    pub summary: bool,
    /// Hunks grow to the whole functions around them (`-W`).
    pub function_context: bool,
    /// Changes of blank lines alone are left out, of the patch and of the
    /// counts (`--ignore-blank-lines`).
    pub ignore_blank_lines: bool,
    /// Whitespace differences to compare lines without, short of all of
    /// them (`-b`, `--ignore-space-at-eol`; `-w` is `ignore_whitespace`).
    pub space: crate::diff::lines::Space,
    /// Merge hunks this many lines apart or closer, beyond their context
    /// (`--inter-hunk-context`, `diff.interHunkContext`).
    pub inter_hunk: u32,
    /// What the command line asks of rename and copy detection (`-M`,
    /// `-C`, `--no-renames`, `--find-copies-harder`, `-l`), over
    /// `diff.renames` and `diff.renameLimit`.
    pub renames: crate::diff::changes::Asked,
    /// The command line named the algorithm (`--diff-algorithm`,
    /// `--patience`, ...): a diff driver's `algorithm` does not apply.
    pub ignore_driver_algorithm: bool,
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
    /// Files listed before ` ...` (`--stat=,,<count>`); 0: all.
    pub count: usize,
}

impl Default for StatWidths {
    fn default() -> Self {
        StatWidths {
            width: 80,
            name: 0,
            graph: 0,
            count: 0,
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

impl Totals {
    /// The totals of `files`.
    pub fn of(files: &[FileChange]) -> Self {
        Totals {
            files: files.len(),
            additions: files.iter().map(|f| f.additions).sum(),
            deletions: files.iter().map(|f| f.deletions).sum(),
        }
    }
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
    /// With `--relative` and `--summary`: `files` with their whole paths
    /// (git's `--summary` names files whole); empty otherwise.
    #[serde(skip)]
    pub whole: Vec<FileChange>,
    /// Totals over `files`.
    pub totals: Totals,
    /// Files left out because they changed only in whitespace.
    pub whitespace_only: usize,
    /// The patch, when asked for.
    #[serde(skip)]
    pub patch: Vec<FilePatch>,
    /// Messages for stderr.
    #[serde(skip)]
    pub notices: Vec<String>,
    /// How to show it (the caller fills it in).
    #[serde(skip)]
    pub view: DiffView,
    /// The trees compared (older, newer); `None` when the newer side is the
    /// live worktree hashed in memory (its objects are not in the repository).
    #[serde(skip)]
    pub trees: Option<(ObjectId, ObjectId)>,
    /// For `--stat`: the old and new sizes of binary files whose content
    /// changed, by path.
    #[serde(skip)]
    pub sizes: std::collections::HashMap<Vec<u8>, (u64, u64)>,
    /// For `--dirstat`: its lines.
    #[serde(skip)]
    pub dirstat: Vec<String>,
    /// What git would run a program for in the patch (a diff driver's
    /// `textconv` or `command`), named for a message: the patch shows
    /// those files' contents unconverted.
    #[serde(skip)]
    pub programs: Vec<String>,
}

/// How a diff is shown: what the command line (or the page) decides, not
/// what was compared.
#[derive(Debug, Clone)]
pub struct DiffView {
    /// The outputs wanted.
    pub format: Formats,
    /// Paths NUL-terminated and unquoted (`-z`).
    pub null_terminated: bool,
    /// Colour the patch or stat.
    pub color: bool,
    /// The colours and whitespace rules of git's config (set by the caller).
    pub look: crate::diff::style::Look,
    /// Page the output through this shell command.
    pub pager: Option<String>,
    /// How wide `--stat` may be.
    pub stat_widths: StatWidths,
    /// Quote bytes above 0x7f in paths (`core.quotePath`, default on).
    pub quote_path: bool,
    /// Exit 1 when there are differences (`--exit-code`, `--quiet`).
    pub exit_code: bool,
    /// Print nothing (`--quiet`).
    pub quiet: bool,
    /// The prefixes of the old and new names in a patch (`a/`, `b/`).
    pub prefixes: [String; 2],
    /// An empty context line is written without its space
    /// (`diff.suppressBlankEmpty`).
    pub suppress_blank_empty: bool,
    /// Write to this file instead of standard output (`--output`).
    pub output: Option<std::path::PathBuf>,
    /// `--stat` names carry what happened to the file (`--compact-summary`).
    pub compact_summary: bool,
    /// The patch as a word diff (`--word-diff`, `--color-words`).
    pub words: Option<crate::diff::words::Mode>,
    /// Moved lines coloured as such (`--color-moved`, `diff.colorMoved`).
    pub moved: Option<crate::diff::moved::Settings>,
}

impl Default for DiffView {
    fn default() -> Self {
        DiffView {
            format: Format::Patch.into(),
            null_terminated: false,
            color: false,
            look: Default::default(),
            pager: None,
            stat_widths: Default::default(),
            quote_path: true,
            exit_code: false,
            quiet: false,
            prefixes: ["a/".into(), "b/".into()],
            suppress_blank_empty: false,
            output: None,
            compact_summary: false,
            words: None,
            moved: None,
        }
    }
}

impl DiffOutcome {
    /// The old and new byte sizes of binary `f` (0, 0 when its content is
    /// the same on both sides, or unknown).
    pub fn binary_sizes(&self, f: &FileChange) -> (u64, u64) {
        self.sizes.get(f.path_bytes().as_ref()).copied().unwrap_or((0, 0))
    }
}

/// What `files_and_shown` finds.
pub(super) struct Listed {
    /// The listed files with their counts.
    pub(super) files: Vec<FileChange>,
    /// The changes whose patches git would show.
    pub(super) shown: Vec<TreeChange>,
    /// How their attributes treat the changes of `shown`.
    pub(super) treatments: Vec<crate::diff::attributes::Treatment>,
    /// Files left out because whitespace hid their changes.
    pub(super) hidden: usize,
    /// `--dirstat`'s lines, when asked for.
    pub(super) dirstat: Vec<String>,
    /// The patches of `shown`, when they were built to count the files
    /// (a patch alone: one comparison of each file, not two).
    pub(super) patch: Option<Vec<crate::diff::patch::FilePatch>>,
}
