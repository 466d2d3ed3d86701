//! Retention: what git-t3 costs on disk and what goes when.
//!
//! - [`usage`]: `du`'s figures, bytes each thread alone holds.
//! - [`kept`]: what refs and the operation log still keep; orphaned notes.
//! - [`maintenance`]: the cheap check a capture makes, and the background
//!   run (the daily prune, folding git-t3's packs, trimming the reflogs,
//!   git's own `gc --auto`) that never runs twice.
//! - [`reflog`]: trimming the reflogs that grow with every capture.
//!
//! The policy: `prune` removes whole threads whose latest checkpoint is
//! older than an age, or that are beyond the N most recently used, with
//! their notes; `t3.pruneAfter` (default 30 days, `never` for no limit) is
//! the age applied once a day in the background after a capture.

pub mod kept;
pub mod maintenance;
pub mod packrefs;
pub mod reflog;
pub mod usage;

use crate::error::{Error, Result};
use crate::model::thread::ThreadId;

/// The config key of the age after which threads are pruned.
pub const PRUNE_AFTER_KEY: &str = "t3.pruneAfter";
/// `t3.pruneAfter` when unset: 30 days.
pub const DEFAULT_PRUNE_AFTER: u64 = 30 * 86_400;

/// The age (seconds) after which threads are pruned, `None` when
/// `t3.pruneAfter` is `never` (or `off`, `false`, or any zero age).
pub fn prune_after(repo: &gix::Repository) -> Result<Option<u64>> {
    let config = repo.config_snapshot();
    let Some(raw) = config.string(PRUNE_AFTER_KEY) else {
        return Ok(Some(DEFAULT_PRUNE_AFTER));
    };
    let raw = raw.to_string();
    if ["never", "off", "false", "0"].contains(&raw.trim().to_ascii_lowercase().as_str()) {
        return Ok(None);
    }
    // An age of zero would prune every thread at the next capture: it
    // means never, like `0`.
    crate::model::age::parse(&raw)
        .map(|secs| (secs > 0).then_some(secs))
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

/// When `thread` was last used: the newest of its latest checkpoint's
/// time (its note's `completed_at`, else its commit's), the reverts that
/// note records (a revert to an old turn is use), and its pending prompt
/// (an agent resumed the thread). `None` when none of them is readable.
pub fn last_used(
    repo: &gix::Repository,
    notes: &mut crate::repo::NotesReader<'_>,
    thread: &ThreadId,
    latest: u64,
) -> Option<jiff::Timestamp> {
    let mut times: Vec<String> = Vec::new();
    if let Ok(Some(t)) = crate::store::turn_ref(repo, thread, latest) {
        match crate::store::load(repo, notes, thread, t) {
            Ok(cp) => {
                times.push(cp.note.completed_at.clone());
                times.extend(cp.note.reverts.iter().map(|r| r.at.clone()));
            }
            Err(_) => times.extend(crate::repo::commit_time(repo, t.commit).ok()),
        }
    }
    if let Ok(Some(prompt)) = crate::repo::find_direct_ref(repo, &crate::prompts::prompts_ref(thread)) {
        times.extend(crate::repo::commit_time(repo, prompt).ok());
    }
    times
        .iter()
        .filter_map(|t| t.parse::<jiff::Timestamp>().ok())
        .max()
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
