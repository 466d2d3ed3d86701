//! The repository-wide git-t3 lock, as a value.
//!
//! An OS file lock (`flock`) on `<common dir>/t3/lock`: the kernel releases
//! it when its holder exits, even on SIGKILL, so a lock left by a killed
//! process is never stale — the file stays, the lock does not. The file
//! holds the holder's pid and command for the message shown to whoever waits.
//!
//! [`RepoLock::acquire`] returns a [`Locked`]: the repository together with
//! the held lock. Every function that writes refs, notes or the worktree
//! takes `&Locked`, so holding the lock is checked by the compiler, and the
//! racy-git timestamp ([`Locked::racy_timestamp`]) can only be had from it.

use std::fs::File;
use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use crate::error::{Error, IoContext as _, Result};

/// Default time to wait for another git-t3 process.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);
/// What an agent hook waits at most: agents stop hooks after 60 s by default.
pub const HOOK_TIMEOUT: Duration = Duration::from_secs(20);

/// A held OS lock on `<common dir>/t3/lock`; released on drop.
#[derive(Debug)]
pub struct RepoLock {
    file: File,
    path: PathBuf,
    acquired_at: SystemTime,
}

/// The repository with its git-t3 lock held: the licence to write.
#[derive(Debug)]
pub struct Locked<'r> {
    repo: &'r gix::Repository,
    lock: RepoLock,
    interrupt: crate::interrupt::Interrupt,
}

impl RepoLock {
    /// Take the lock of `repo` for `what` (shown to waiters), waiting at most `timeout`.
    pub fn acquire<'r>(repo: &'r gix::Repository, what: &str, timeout: Duration) -> Result<Locked<'r>> {
        let lock = Self::acquire_in(&crate::repo::t3_common_dir(repo), what, timeout)?;
        // No other git-t3 process writes now: lock files a killed one left go.
        let removed = crate::repo::inflight::recover(repo.common_dir());
        crate::trace::note(|| format!("removed stale lock files: {removed:?}"));
        Ok(Locked {
            repo,
            lock,
            interrupt: crate::interrupt::Interrupt::default(),
        })
    }

    /// Take the lock file in `dir`, waiting at most `timeout`.
    fn acquire_in(dir: &Path, what: &str, timeout: Duration) -> Result<Self> {
        std::fs::create_dir_all(dir).at("could not create", dir)?;
        let path = dir.join("lock");
        // Never a FIFO or device (opening one could block) nor a link.
        let mut file = crate::fsread::open_regular_rw(&path).at("could not open the lock file", &path)?;
        let start = Instant::now();
        let mut pause = Duration::from_millis(1);
        let mut waiting = false;
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) => {
                    if !waiting {
                        // Tells a test that it waits (fault injection only).
                        crate::fault::record("lock-wait", what);
                        waiting = true;
                    }
                    if start.elapsed() >= timeout {
                        return Err(timed_out(&mut file, path, timeout));
                    }
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(25));
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(e).at("could not lock", &path),
            }
        }
        // Say who holds it; this write also sets the file's mtime to the file
        // system's clock, which capture uses as its racy-git timestamp.
        let info = format!("pid {} ({what})\n", std::process::id());
        file.set_len(0)
            .and_then(|()| file.seek(SeekFrom::Start(0)).map(drop))
            .and_then(|()| file.write_all(info.as_bytes()))
            .at("could not write", &path)?;
        let acquired_at = file
            .metadata()
            .and_then(|m| m.modified())
            .at("could not stat", &path)?;
        crate::fault::point("pause-after-lock");
        Ok(RepoLock {
            file,
            path,
            acquired_at,
        })
    }
}

fn timed_out(file: &mut File, path: PathBuf, timeout: Duration) -> Error {
    let mut holder = String::new();
    let _ = file.read_to_string(&mut holder);
    let holder = holder.trim();
    Error::LockTimeout {
        path,
        holder: (!holder.is_empty()).then(|| holder.chars().filter(|c| !c.is_control()).take(200).collect()),
        secs: timeout.as_secs(),
    }
}

impl<'r> Locked<'r> {
    /// The repository this lock belongs to.
    pub fn repo(&self) -> &'r gix::Repository {
        self.repo
    }

    /// The file system's time when the lock was taken: every file changed
    /// after that has an mtime at or after it (the racy-git timestamp).
    pub fn racy_timestamp(&self) -> SystemTime {
        self.lock.acquired_at
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.lock.path
    }

    /// This lock, with `interrupt` telling its holder when to stop.
    pub fn with_interrupt(mut self, interrupt: crate::interrupt::Interrupt) -> Self {
        self.interrupt = interrupt;
        self
    }

    /// When to stop (SIGINT, SIGTERM), at the next safe point.
    pub fn interrupt(&self) -> crate::interrupt::Interrupt {
        self.interrupt
    }
}

impl Drop for RepoLock {
    fn drop(&mut self) {
        let _ = self.file.set_len(0);
        let _ = self.file.unlock();
    }
}
