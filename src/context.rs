//! What every use case runs with: the open repository and the settings the
//! edge (`cli`) read from the environment once.

use std::path::Path;
use std::time::Duration;

use crate::error::Result;
use crate::repo::{self, Locked, RepoLock};

/// Settings that come from outside the repository (environment, flags).
#[derive(Debug, Clone)]
pub struct Settings {
    /// How long to wait for another git-t3 process holding the lock.
    pub lock_timeout: Duration,
    /// Where provider helpers are found and how long they may run.
    pub provider: crate::provider::Settings,
    /// When to stop at the next safe point (the binary installs handlers).
    pub interrupt: crate::interrupt::Interrupt,
    /// `git -c key=value` settings (from `GIT_CONFIG_PARAMETERS`), applied
    /// over every configuration file.
    pub config_overrides: Vec<String>,
    /// Write nothing into the repository — no object, no cache file, no
    /// lock, no ref: the review page's GET requests, which must also work
    /// in a repository the user can only read. `diff --worktree` then keeps
    /// the worktree's new objects in memory.
    pub read_only: bool,
    /// The locale's characters are UTF-8 sequences (`LC_ALL`, else
    /// `LC_CTYPE`, else `LANG` names a UTF-8 locale): git's regexes (word
    /// regexes, funcname patterns) then match characters, not bytes.
    pub multibyte: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            lock_timeout: repo::lock::DEFAULT_TIMEOUT,
            provider: crate::provider::Settings::default(),
            interrupt: crate::interrupt::Interrupt::default(),
            config_overrides: Vec::new(),
            read_only: false,
            multibyte: false,
        }
    }
}

/// An open repository and the settings to run commands with.
#[derive(Debug)]
pub struct Context {
    /// The repository.
    pub repo: gix::Repository,
    /// The settings.
    pub settings: Settings,
}

impl Context {
    /// Open the repository holding `dir` (discovered like git does).
    pub fn open(dir: &Path, settings: Settings) -> Result<Self> {
        Ok(Context {
            repo: repo::open(dir, &settings.config_overrides)?,
            settings,
        })
    }

    /// The thread `given` names, which may abbreviate an existing thread's
    /// id (see [`crate::store::resolve_thread`]). Commands that create
    /// threads take their id exactly and do not call this.
    pub fn resolve(&self, given: crate::model::thread::ThreadId) -> Result<crate::model::thread::ThreadId> {
        crate::store::resolve_thread(&self.repo, given)
    }

    /// Take the repository lock for `what`, waiting at most the configured time.
    pub fn lock(&self, what: &str) -> Result<Locked<'_>> {
        Ok(RepoLock::acquire(&self.repo, what, self.settings.lock_timeout)?
            .with_interrupt(self.settings.interrupt))
    }
}
