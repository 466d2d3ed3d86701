//! Retention: what git-t3 costs on disk and what goes when.
//!
//! - [`usage`]: `du`'s figures, bytes each thread alone holds.
//! - [`kept`]: what refs and the operation log still keep; orphaned notes.
//! - [`maintenance`]: the cheap check a capture makes, and the background
//!   run (the daily prune, git's own `gc --auto`) that never runs twice.
//!
//! The policy: `prune` removes whole threads whose latest checkpoint is
//! older than an age, or that are beyond the N most recently used, with
//! their notes; `t3.pruneAfter` (default 30 days, `never` for no limit) is
//! the age applied once a day in the background after a capture.

pub mod kept;
pub mod maintenance;
pub mod usage;

use crate::error::{Error, Result};
use crate::model::thread::ThreadId;
use crate::store::ThreadSummary;

/// The config key of the age after which threads are pruned.
pub const PRUNE_AFTER_KEY: &str = "t3.pruneAfter";
/// `t3.pruneAfter` when unset: 30 days.
pub const DEFAULT_PRUNE_AFTER: u64 = 30 * 86_400;

/// The age (seconds) after which threads are pruned, `None` when
/// `t3.pruneAfter` is `never` (or `0`, `off`, `false`).
pub fn prune_after(repo: &gix::Repository) -> Result<Option<u64>> {
    let config = repo.config_snapshot();
    let Some(raw) = config.string(PRUNE_AFTER_KEY) else {
        return Ok(Some(DEFAULT_PRUNE_AFTER));
    };
    let raw = raw.to_string();
    if ["never", "off", "false", "0"].contains(&raw.trim().to_ascii_lowercase().as_str()) {
        return Ok(None);
    }
    crate::model::age::parse(&raw)
        .map(Some)
        .map_err(|problem| Error::BadConfig {
            key: PRUNE_AFTER_KEY.into(),
            value: raw.clone(),
            origin: "git config".into(),
            problem: format!("{problem}; or `never`"),
        })
}

/// Which threads a prune removes.
#[derive(Debug, Clone, Copy, Default)]
pub struct Policy {
    /// Threads whose latest checkpoint is older than this many seconds.
    pub older_than: Option<u64>,
    /// Threads beyond the N most recently used.
    pub keep_last: Option<usize>,
}

/// A thread and when it was last used.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// The thread.
    pub thread: ThreadId,
    /// Its checkpoints.
    pub turns: usize,
    /// When its latest checkpoint was written (`None`: unknown).
    pub updated_at: Option<jiff::Timestamp>,
}

impl Candidate {
    /// A thread of `list`'s overview; `fallback` dates it when its latest
    /// note does not (a checkpoint T3 Code wrote without one).
    pub fn of(summary: &ThreadSummary, fallback: impl FnOnce() -> Option<jiff::Timestamp>) -> Option<Self> {
        let thread = ThreadId::parse(&summary.thread).ok()?;
        let updated_at = summary
            .updated_at
            .as_deref()
            .and_then(|u| u.parse::<jiff::Timestamp>().ok())
            .or_else(fallback);
        Some(Candidate {
            thread,
            turns: summary.turns,
            updated_at,
        })
    }
}

impl Policy {
    /// The candidates this policy removes, most recently used first. When
    /// both limits are given a thread goes only when both say so (the N
    /// most recent stay whatever their age; younger ones stay whatever
    /// their rank). A thread of unknown age is never too old.
    pub fn select(&self, mut threads: Vec<Candidate>, now: jiff::Timestamp) -> Vec<Candidate> {
        threads.sort_by(|a, b| {
            b.updated_at
                .cmp(&a.updated_at)
                .then_with(|| a.thread.cmp(&b.thread))
        });
        threads
            .into_iter()
            .enumerate()
            .filter(|(rank, c)| {
                let beyond = self.keep_last.map(|n| *rank >= n);
                let old = self.older_than.map(|age| {
                    c.updated_at.is_some_and(|t| {
                        now.as_second().saturating_sub(t.as_second()) > i64::try_from(age).unwrap_or(i64::MAX)
                    })
                });
                match (beyond, old) {
                    (None, None) => false,
                    (Some(b), None) => b,
                    (None, Some(o)) => o,
                    (Some(b), Some(o)) => b && o,
                }
            })
            .map(|(_, c)| c)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(thread: &str, secs_ago: i64) -> Candidate {
        Candidate {
            thread: ThreadId::parse(thread).unwrap(),
            turns: 1,
            updated_at: Some(jiff::Timestamp::from_second(1_000_000 - secs_ago).unwrap()),
        }
    }

    fn names(c: Vec<Candidate>) -> Vec<String> {
        c.into_iter().map(|c| c.thread.to_string()).collect()
    }

    #[test]
    fn policy_selects_by_age_by_rank_and_by_both() {
        let now = jiff::Timestamp::from_second(1_000_000).unwrap();
        let threads = vec![at("old", 500), at("new", 10), at("mid", 100)];
        let by_age = Policy {
            older_than: Some(100),
            keep_last: None,
        };
        assert_eq!(names(by_age.select(threads.clone(), now)), ["old"]);
        let by_rank = Policy {
            older_than: None,
            keep_last: Some(1),
        };
        assert_eq!(names(by_rank.select(threads.clone(), now)), ["mid", "old"]);
        let both = Policy {
            older_than: Some(50),
            keep_last: Some(2),
        };
        assert_eq!(names(both.select(threads.clone(), now)), ["old"]);
        assert!(Policy::default().select(threads, now).is_empty());
        let mut unknown = at("unknown", 0);
        unknown.updated_at = None;
        assert!(by_age.select(vec![unknown], now).is_empty());
    }
}
