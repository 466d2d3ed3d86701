//! What a capture leaves out besides what git ignores (DESIGN "Capture
//! scope"):
//!
//! - untracked files larger than `t3.maxFileSize` (default 10 MiB, git's
//!   `k`/`m`/`g` suffixes, `0` = no cap), measured on disk by the one
//!   `lstat` the capture takes of each untracked file anyway; a file in HEAD
//!   or in the user's index is captured whatever its size;
//! - untracked paths matched by `.t3ignore` at the worktree root or by
//!   `info/t3-exclude` in the (common) git dir: gitignore syntax, matched by
//!   gix's own ignore machinery.
//!
//! # How `.t3ignore` combines with `.gitignore`
//!
//! An untracked path is captured only when neither git's rules nor the t3
//! rules exclude it: a t3 rule only ever removes paths. So `!keep.log` in
//! `.gitignore` cannot bring back a path `.t3ignore` excludes, and
//! `!build/` in `.t3ignore` cannot bring back what `.gitignore` excludes; a
//! `!` line in `.t3ignore` only takes back an earlier `.t3ignore` (or
//! `info/t3-exclude`) line, as in a `.gitignore`. `.t3ignore` wins over
//! `info/t3-exclude` when both match, as `.gitignore` does over
//! `info/exclude`. Tracked files are always captured.
//!
//! Without `!` lines the t3 rules are handed to the status walk as gix's
//! exclude *overrides* (checked before git's own rules), so a t3-ignored
//! folder is never walked into; with `!` lines the walk uses git's rules
//! alone and each untracked path it finds is then matched against the t3
//! rules on their own ([`Matcher`]), which keeps the "only removes" rule
//! exact.

use std::path::{Path, PathBuf};

use gix::ObjectId;
use gix::bstr::{BStr, BString, ByteSlice};
use gix::ignore::Search;

use crate::error::{Context as _, Error, Result};

/// The cap when `t3.maxFileSize` is not set: 10 MiB.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 10 << 20;
/// The config key of the cap.
pub const MAX_FILE_SIZE_KEY: &str = "t3.maxFileSize";
/// The exclusion file at the worktree root.
pub const T3IGNORE: &str = ".t3ignore";
/// A `.t3ignore` read from a tree larger than this is not read (a hostile
/// checkpoint could hold any size).
const MAX_RULES_BYTES: u64 = 1 << 20;

/// An untracked file left out: for its size, or because it can't be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Worktree-relative path.
    pub path: BString,
    /// Its size on disk, in bytes.
    pub size: u64,
    /// Left out because it could not be read (permissions), not for its size.
    pub unreadable: bool,
}

/// The largest untracked file captured (`None`: no cap), from
/// `t3.maxFileSize` as git reads an integer (`k`, `m`, `g` suffixes).
pub fn max_file_size(repo: &gix::Repository) -> Result<Option<u64>> {
    let config = repo.config_snapshot();
    let bad = || Error::BadConfig {
        key: MAX_FILE_SIZE_KEY.into(),
        value: config
            .string(MAX_FILE_SIZE_KEY)
            .map(|v| v.to_string())
            .unwrap_or_default(),
        origin: "git config".into(),
        problem: "not a size: give bytes, optionally with k, m or g (like 10m), or 0 for no limit".into(),
    };
    match config.try_integer(MAX_FILE_SIZE_KEY) {
        Ok(None) => Ok(Some(DEFAULT_MAX_FILE_SIZE)),
        Ok(Some(0)) => Ok(None),
        Ok(Some(n)) => u64::try_from(n).map(Some).map_err(|_| bad()),
        Err(_) => Err(bad()),
    }
}

/// `info/t3-exclude`, beside git's `info/exclude` (in the common git dir,
/// so every worktree of the repository shares it).
pub fn t3_exclude_path(repo: &gix::Repository) -> PathBuf {
    repo.common_dir().join("info").join("t3-exclude")
}

/// The t3 exclusion rules: `info/t3-exclude`, then `.t3ignore` (later lists
/// win, as in gix's searches).
#[derive(Clone)]
pub struct Excludes {
    search: Search,
    negations: bool,
}

impl Excludes {
    /// The rules of the worktree now: `info/t3-exclude` and the worktree's
    /// `.t3ignore` (not followed when it is a symlink, as git does not
    /// follow an in-tree `.gitignore`). `None` when there are no patterns.
    pub fn of_worktree(repo: &gix::Repository, workdir: &Path) -> Result<Option<Self>> {
        let mut search = Search::default();
        let mut buf = Vec::new();
        for (path, follow) in [(t3_exclude_path(repo), true), (workdir.join(T3IGNORE), false)] {
            let list = gix::glob::search::pattern::List::<gix::ignore::search::Ignore>::from_file(
                path.clone(),
                None,
                follow,
                &mut buf,
                Default::default(),
            )
            .context(|| format!("could not read {}", path.display()))?;
            search.patterns.extend(list);
        }
        Ok(Self::from_search(search))
    }

    /// The rules a restore to `tree` keeps files by: `info/t3-exclude` and
    /// the `.t3ignore` at the root of `tree`. `None` when there are none.
    pub fn of_tree(repo: &gix::Repository, tree: ObjectId) -> Result<Option<Self>> {
        let mut search = Search::default();
        let mut buf = Vec::new();
        let path = t3_exclude_path(repo);
        let list = gix::glob::search::pattern::List::<gix::ignore::search::Ignore>::from_file(
            path.clone(),
            None,
            true,
            &mut buf,
            Default::default(),
        )
        .context(|| format!("could not read {}", path.display()))?;
        search.patterns.extend(list);
        let root = repo
            .find_tree(tree)
            .context(|| format!("could not read tree {tree}"))?;
        let entry = root
            .find_entry(T3IGNORE)
            .filter(|e| e.mode().is_blob())
            .map(|e| e.object_id());
        if let Some(id) = entry
            && repo.find_header(id).is_ok_and(|h| h.size() <= MAX_RULES_BYTES)
        {
            let blob = repo
                .find_blob(id)
                .context(|| format!("could not read {T3IGNORE} of tree {tree}"))?;
            search
                .add_patterns_buffer(&blob.data, T3IGNORE, None, Default::default())
                .context(|| format!("could not read {T3IGNORE} of tree {tree}"))?;
        }
        Ok(Self::from_search(search))
    }

    fn from_search(search: Search) -> Option<Self> {
        let mut patterns = search.patterns.iter().flat_map(|l| l.patterns.iter()).peekable();
        patterns.peek()?;
        let negations = patterns.any(|m| m.pattern.is_negative());
        Some(Excludes { search, negations })
    }

    /// Whether a `!` line takes back a pattern (the rules cannot then be
    /// handed to the walk as overrides: see the module docs).
    pub fn has_negations(&self) -> bool {
        self.negations
    }

    /// The rules, for gix's exclude overrides.
    pub fn search(&self) -> Search {
        self.search.clone()
    }

    /// A matcher of worktree-relative paths against these rules alone.
    pub fn matcher<'r>(&self, repo: &'r gix::Repository) -> Matcher<'r> {
        Matcher::new(repo, self.search.clone())
    }
}

/// Matches paths against t3 rules alone (no `.gitignore` is read), through
/// gix's exclude stack: a path below an excluded directory is excluded.
pub struct Matcher<'r> {
    repo: &'r gix::Repository,
    stack: gix::worktree::Stack,
}

impl<'r> Matcher<'r> {
    fn new(repo: &'r gix::Repository, search: Search) -> Self {
        let ignore_case = repo.filesystem_options().map(|o| o.ignore_case).unwrap_or(false);
        let case = if ignore_case {
            gix::glob::pattern::Case::Fold
        } else {
            gix::glob::pattern::Case::Sensitive
        };
        // Id mappings and no index: no `.gitignore` is ever read.
        let ignore = gix::worktree::stack::state::Ignore::new(
            search,
            Search::default(),
            None,
            gix::worktree::stack::state::ignore::Source::IdMapping,
            Default::default(),
        );
        let root = repo.workdir().unwrap_or(repo.git_dir()).to_owned();
        let stack = gix::worktree::Stack::new(
            root,
            gix::worktree::stack::State::IgnoreStack(ignore),
            case,
            Vec::new(),
            Vec::new(),
        );
        Matcher { repo, stack }
    }

    /// Whether the rules exclude the file (or, `is_dir`, the directory)
    /// at the worktree-relative `path`, or a directory above it.
    pub fn is_excluded(&mut self, path: &BStr, is_dir: bool) -> Result<bool> {
        let mode = is_dir.then_some(gix::index::entry::Mode::DIR);
        let platform = self
            .stack
            .at_entry(path, mode, &self.repo.objects)
            .context(|| format!("could not match {} against the t3 rules", path.to_str_lossy()))?;
        Ok(platform.is_excluded())
    }
}
