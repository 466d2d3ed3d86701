//! git-t3: per-turn checkpoints of the working tree for coding agents,
//! stored as plain git refs with their metadata in git notes.
//!
//! Layers, from the bottom up (a module only calls into layers below it):
//! - [`model`]: thread ids, ref names, the note schema (no I/O);
//! - [`repo`]: gix plumbing — open, objects, refs, notes, flush, the lock;
//! - [`store`], [`snapshot`], [`diff`], [`restore`]: the checkpoint store and
//!   the engines that capture, compare and put back trees; [`oplog`] and
//!   [`prompts`]: the operation log and the prompts agents' hooks record;
//! - [`revert`], [`sync`], [`provider`], [`retention`]: the revert saga,
//!   push/fetch, provider helpers, and disk usage, pruning and maintenance;
//! - [`commands`]: one use case per subcommand, returning typed outcomes;
//!   [`output`] renders them;
//! - [`web`]: the local review page's server, which calls the same use
//!   cases with typed requests and renders through [`output`];
//! - [`cli`]: the edge — clap's types, the environment and `git -c`, turned
//!   into typed requests and dispatched.
#![warn(missing_docs)]

pub mod atomic;
pub mod child;
pub mod cores;
pub mod error;
pub mod fault;
pub mod fsread;
pub mod interrupt;
pub mod model;
pub mod repo;
#[cfg(test)]
mod testing;
pub mod trace;

pub mod diff;
pub mod oplog;
pub mod prompts;
pub mod restore;
pub mod retention;
pub mod snapshot;
pub mod store;

pub mod provider;
pub mod revert;
pub mod sync;

pub mod context;

pub mod compare;
pub mod record;

pub mod commands;
pub mod output;

pub mod web;

pub mod cli;

pub use error::{Error, Result};

#[doc = include_str!("../docs/library.md")]
pub mod embedding {}
