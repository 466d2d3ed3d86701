//! Recording turns: the use cases that write a thread's checkpoints — a
//! capture of the worktree, the baseline (turn 0) and a placeholder for a
//! turn whose snapshot was not taken. The `capture`, `baseline` and
//! `placeholder` commands and the agents' hooks all call these, each with
//! the repository lock it holds.

mod baseline;
mod capture;
mod placeholder;

pub use baseline::{Baseline, baseline, check_provider};
pub use capture::*;
pub use placeholder::{Placeholder, placeholder};
