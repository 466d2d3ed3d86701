//! The repository-wide git-t3 lock.
//!
//! An OS file lock (`flock` on Unix, `LockFileEx` on Windows) on
//! `<common dir>/t3/lock`: the kernel releases it when its holder exits, even
//! on SIGKILL, so a lock left by a killed process is never stale — the file
//! stays, the lock does not. The file holds the holder's pid and command for
//! the message shown to whoever waits.

use std::fs::{File, OpenOptions};
use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use crate::error::{Context as _, Error, Result};

/// Default time to wait for another git-t3 process, overridable with `T3_LOCK_TIMEOUT` (seconds).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);
/// What an agent hook waits at most: agents stop hooks after 60 s by default.
pub const HOOK_TIMEOUT: Duration = Duration::from_secs(20);

/// Milliseconds to wait by default, when `T3_LOCK_TIMEOUT` is not set.
static DEFAULT_WAIT_MS: std::sync::atomic::AtomicU64 =
    std::sync::atomic::AtomicU64::new(DEFAULT_TIMEOUT.as_secs() * 1000);

/// Change how long this process waits for the lock by default (agent hooks
/// must finish well within the agent's own hook timeout).
pub fn set_default_timeout(timeout: Duration) {
    let ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
    DEFAULT_WAIT_MS.store(ms, std::sync::atomic::Ordering::Relaxed);
}

/// A held repository lock; released on drop.
#[derive(Debug)]
pub struct RepoLock {
    file: File,
    path: PathBuf,
    acquired_at: SystemTime,
}

impl RepoLock {
    /// Take the lock in `dir`, waiting up to the timeout for another holder.
    pub fn acquire(dir: &Path, what: &str) -> Result<Self> {
        let timeout = std::env::var("T3_LOCK_TIMEOUT")
            .ok()
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map_or_else(
                || Duration::from_millis(DEFAULT_WAIT_MS.load(std::sync::atomic::Ordering::Relaxed)),
                Duration::from_secs_f64,
            );
        Self::acquire_with_timeout(dir, what, timeout)
    }

    /// Take the lock in `dir`, waiting at most `timeout`.
    pub fn acquire_with_timeout(dir: &Path, what: &str, timeout: Duration) -> Result<Self> {
        std::fs::create_dir_all(dir).context(|| format!("could not create {}", dir.display()))?;
        let path = dir.join("lock");
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .context(|| format!("could not open the lock file {}", path.display()))?;
        let start = Instant::now();
        let mut pause = Duration::from_millis(1);
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) => {
                    if start.elapsed() >= timeout {
                        let mut holder = String::new();
                        let _ = file.read_to_string(&mut holder);
                        let holder = holder.trim();
                        return Err(Error::LockTimeout {
                            path,
                            holder: (!holder.is_empty()).then(|| holder.chars().take(200).collect()),
                            secs: timeout.as_secs(),
                        });
                    }
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(25));
                }
                Err(std::fs::TryLockError::Error(e)) => {
                    return Err(e).context(|| format!("could not lock {}", path.display()));
                }
            }
        }
        // Say who holds it; this write also sets the file's mtime to the file
        // system's clock, which capture uses as its racy-git timestamp.
        let info = format!("pid {} ({what})\n", std::process::id());
        file.set_len(0)
            .and_then(|()| file.seek(SeekFrom::Start(0)).map(drop))
            .and_then(|()| file.write_all(info.as_bytes()))
            .context(|| format!("could not write {}", path.display()))?;
        let acquired_at = file
            .metadata()
            .and_then(|m| m.modified())
            .context(|| format!("could not stat {}", path.display()))?;
        Ok(RepoLock {
            file,
            path,
            acquired_at,
        })
    }

    /// The file system's time when the lock was taken: every file changed
    /// after that has an mtime at or after it.
    pub fn acquired_at(&self) -> SystemTime {
        self.acquired_at
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for RepoLock {
    fn drop(&mut self) {
        let _ = self.file.set_len(0);
        let _ = self.file.unlock();
    }
}
