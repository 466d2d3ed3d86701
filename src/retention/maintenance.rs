//! Housekeeping in the background: the daily prune (`t3.pruneAfter`),
//! folding git-t3's own packs, trimming the reflogs that grow with every
//! capture, and git's own `gc --auto`, started by a capture when due and
//! never running twice at once.
//!
//! A capture only makes the cheap check ([`start_if_due`]): a `stat` of
//! the prune stamp, of the gc stamp and of the notes reflog, and three
//! directory listings (`objects/17`, git's estimate of the loose objects,
//! `objects/pack`, as a capture writes a pack, and `t3/packs`, the packs
//! git-t3 wrote). When something is due it starts `git t3 maintenance
//! --auto` detached (no terminal, no pipes the agent waits on), which takes
//! `t3/maintenance.lock` without waiting — a second one finding it taken
//! leaves at once — and runs the prune, the fold (`repo::fold`), the
//! reflog trim ([`super::reflog`]), then, when due, `git gc --auto` in the
//! foreground (git itself packs only when `gc.auto` or `gc.autoPackLimit`
//! say so).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::error::{Context as _, Result};
use crate::repo;

/// The lock a maintenance run holds (in the common git dir's `t3/`).
pub const LOCK_FILE: &str = "maintenance.lock";
/// How often the daily prune runs at most.
pub const PRUNE_INTERVAL: Duration = Duration::from_secs(86_400);
/// How often `git gc --auto` is started at most: unreachable loose objects
/// (kept by git for `gc.pruneExpire`) can keep git's estimate above
/// `gc.auto` for weeks, and each run is a whole `gc --auto`.
pub const GC_INTERVAL: Duration = Duration::from_secs(3600);
/// `gc.auto` when unset, as git has it.
const DEFAULT_GC_AUTO: u64 = 6700;
/// `gc.autoPackLimit` when unset, as git has it.
const DEFAULT_AUTO_PACK_LIMIT: u64 = 50;

/// A file whose modification time says when something last ran.
#[derive(Debug, Clone, Copy)]
pub enum Stamp {
    /// The daily prune (`t3/prune-stamp`).
    Prune,
    /// `git gc --auto` (`t3/gc-stamp`).
    Gc,
}

impl Stamp {
    fn path(self, repo: &gix::Repository) -> PathBuf {
        repo::t3_common_dir(repo).join(match self {
            Stamp::Prune => "prune-stamp",
            Stamp::Gc => "gc-stamp",
        })
    }

    /// How old the stamp is (`None`: there is none).
    fn age(self, repo: &gix::Repository) -> Option<Duration> {
        let modified = std::fs::metadata(self.path(repo))
            .and_then(|m| m.modified())
            .ok()?;
        // A stamp from the future (a clock set back) counts as old.
        Some(modified.elapsed().unwrap_or(Duration::MAX))
    }
}

/// What is due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Due {
    /// The daily prune: `t3.pruneAfter` is on and the stamp is a day old.
    pub prune: bool,
    /// Packing: more loose objects than `gc.auto`, or more packs than
    /// `gc.autoPackLimit` (a capture writes one), and no gc started within
    /// the hour.
    pub gc: bool,
    /// Folding git-t3's own packs: more than [`repo::fold::LIMIT`] are
    /// recorded (whatever `gc.auto` says).
    pub fold: bool,
    /// Trimming the notes reflog: it is over [`super::reflog::DUE_BYTES`].
    pub trim: bool,
    /// Packing the refs under `refs/t3/` (see [`super::packrefs`]): the
    /// capture that starts the run found many loose.
    pub refs: bool,
}

impl Due {
    /// Whether anything is due.
    pub fn any(&self) -> bool {
        self.prune || self.gc || self.fold || self.trim || self.refs
    }
}

/// Mark `stamp` as run now.
pub fn touch(repo: &gix::Repository, stamp: Stamp) -> Result<()> {
    let path = stamp.path(repo);
    // A new empty file renamed over the old one: its mtime is now, and
    // whatever was there (a FIFO, which an open would block on) is replaced
    // unopened.
    crate::atomic::write(&path, b"", None, crate::atomic::Durability::Cache)
}

/// What is due, from three `stat`s and three directory listings. A
/// repository without a prune stamp starts the clock now (its first day
/// prunes nothing).
pub fn due(repo: &gix::Repository) -> Due {
    let prune = matches!(super::prune_after(repo), Ok(Some(_)))
        && match Stamp::Prune.age(repo) {
            Some(age) => age >= PRUNE_INTERVAL,
            None => {
                let _ = touch(repo, Stamp::Prune);
                false
            }
        };
    let gc = gc_auto(repo).is_some_and(|limit| {
        repo::disk::loose_estimate(repo) > limit
            || auto_pack_limit(repo).is_some_and(|packs| repo::disk::pack_count(repo) > packs)
    }) && Stamp::Gc.age(repo).is_none_or(|age| age >= GC_INTERVAL);
    let fold = repo::fold::recorded(repo) > repo::fold::LIMIT;
    let trim = super::reflog::due(repo);
    Due {
        prune,
        gc,
        fold,
        trim,
        refs: false,
    }
}

/// `gc.auto`: the loose objects git tolerates before packing (`None`: off).
fn gc_auto(repo: &gix::Repository) -> Option<u64> {
    limit(repo, "gc.auto", DEFAULT_GC_AUTO)
}

/// `gc.autoPackLimit`: the packs git tolerates before folding them into
/// one (`None`: off).
fn auto_pack_limit(repo: &gix::Repository) -> Option<u64> {
    limit(repo, "gc.autoPackLimit", DEFAULT_AUTO_PACK_LIMIT)
}

/// A limit setting as git reads it: `default` when unset or unreadable,
/// off (`None`) at zero or below.
fn limit(repo: &gix::Repository, key: &str, default: u64) -> Option<u64> {
    match repo.config_snapshot().try_integer(key) {
        Ok(None) | Err(_) => Some(default),
        Ok(Some(n)) => u64::try_from(n).ok().filter(|n| *n > 0),
    }
}

/// After a capture: start the background run when something is due.
/// Returns what was due when a run was started. Never fails the capture.
/// The stamps are renewed by the run itself, once it holds the lock, so a
/// run that finds another one busy leaves the work due.
pub fn start_if_due(repo: &gix::Repository, refs: bool) -> Option<Due> {
    let due = Due { refs, ..due(repo) };
    if !due.any() {
        return None;
    }
    let what = if due.prune {
        "prune"
    } else if due.gc {
        "gc"
    } else if due.fold {
        "fold"
    } else if due.trim {
        "trim"
    } else {
        "refs"
    };
    start(repo, due.prune, what).then_some(due)
}

/// How a background maintenance run is started for a worktree or git
/// directory (`prune`: the prune too); returns whether it started. The run
/// does what is due then (`git t3 maintenance --auto`).
pub type Starter = fn(&std::path::Path, bool) -> bool;

static STARTER: std::sync::OnceLock<Starter> = std::sync::OnceLock::new();

/// Hand the library the way to start background maintenance (the binary
/// does, once: it starts itself as `git t3 maintenance`). A program that
/// embeds the library and installs none gets no process started; the work
/// stays due until `git t3 maintenance` runs.
pub fn install_starter(starter: Starter) {
    let _ = STARTER.set(starter);
}

/// Start `git t3 maintenance [--prune]` for `repo` through the installed
/// [`Starter`]. Returns whether it started (never without a starter).
pub fn spawn(repo: &gix::Repository, prune: bool) -> bool {
    start(repo, prune, if prune { "prune" } else { "gc" })
}

/// [`spawn`], saying `what` it was started for (fault injection's record).
fn start(repo: &gix::Repository, prune: bool, what: &str) -> bool {
    let dir = repo.workdir().unwrap_or_else(|| repo.git_dir());
    let started = STARTER.get().is_some_and(|start| start(dir, prune));
    if started {
        crate::fault::record("maintenance-started", what);
    }
    started
}

/// The maintenance lock, held while this value lives (released by the
/// operating system if the process dies).
#[derive(Debug)]
pub struct MaintenanceLock {
    _file: File,
}

/// Take the maintenance lock without waiting: `None` when another run
/// holds it.
pub fn try_lock(repo: &gix::Repository) -> Result<Option<MaintenanceLock>> {
    let dir = repo::t3_common_dir(repo);
    std::fs::create_dir_all(&dir).context(|| format!("could not create {}", dir.display()))?;
    let path = dir.join(LOCK_FILE);
    // Never a FIFO or device (opening one could block) nor a link.
    let file =
        crate::fsread::open_regular_rw(&path).context(|| format!("could not open {}", path.display()))?;
    match file.try_lock() {
        Ok(()) => Ok(Some(MaintenanceLock { _file: file })),
        Err(std::fs::TryLockError::WouldBlock) => {
            crate::fault::record("maintenance-busy", "");
            Ok(None)
        }
        Err(std::fs::TryLockError::Error(e)) => {
            Err(e).context(|| format!("could not lock {}", path.display()))
        }
    }
}

/// Make this process (and the git it runs) yield to everything else: the
/// lowest CPU priority and the idle I/O class, so housekeeping never slows
/// the agent's turns down. Best effort.
pub fn lower_priority() {
    let _ = rustix::process::setpriority_process(None, 19);
    #[cfg(target_os = "linux")]
    // SAFETY: ioprio_set(2) takes three plain integers (IOPRIO_WHO_PROCESS = 1,
    // this process = 0, IOPRIO_CLASS_IDLE = 3 << 13), reads no memory of
    // ours and changes only this process's I/O scheduling; nothing safe
    // wraps it.
    unsafe {
        libc::syscall(libc::SYS_ioprio_set, 1, 0, 3 << 13);
    }
}

/// Run `git gc --auto --quiet` in the foreground (git decides whether
/// anything needs packing; `gc.autoDetach` is off so the lock covers it).
/// git-t3 cannot pack objects itself, so this is git's own program; a
/// signal to us stops it (git removes its lock files on SIGTERM).
pub fn git_gc_auto(dir: &Path, interrupt: crate::interrupt::Interrupt) -> Result<bool> {
    let mut command = Command::new("git");
    command
        .arg("-C")
        .arg(dir)
        .args(["-c", "gc.autoDetach=false", "gc", "--auto", "--quiet"]);
    let done = crate::child::run(&mut command, crate::child::Options::default(), interrupt)?;
    Ok(done.success())
}
