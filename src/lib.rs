//! git-t3: per-turn checkpoints of the working tree for coding agents,
//! stored as plain git refs with their metadata in git notes.
//!
//! The binary (`src/main.rs`) parses the command line with [`cli`], runs it
//! with [`app::run`] and renders the typed outcome with [`output`].
#![warn(missing_docs)]

pub mod capture;
pub mod error;
pub mod git;
pub mod lock;
pub mod note;
pub mod summary;
pub mod sync;
pub mod thread;
pub mod trace;

pub use error::{Error, Result};
pub mod app;
pub mod cli;
pub mod commands;
pub mod output;
pub mod patch;
pub mod provider;
pub mod restore;
pub mod revert;
pub mod store;
