//! Ports of git's own xdiff algorithms where gix's differ from them: the
//! Myers search of `--minimal` and the histogram diff. Each marks the lines
//! removed and added; hunks are then slid into place like any other diff's.

pub mod histogram;
pub mod myers;
mod prepare;

#[cfg(test)]
mod tests;

/// How the search runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mode {
    /// No cost cut-off: xdiff's `XDF_NEED_MINIMAL`.
    pub minimal: bool,
    /// The pre-pass sets frequent lines aside (always, before git 2.50;
    /// since, only without `minimal`).
    pub frequency_limit: bool,
}
