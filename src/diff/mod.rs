//! The diff engine: changed paths between two trees, line counts, the
//! summary cache, patches as structured data (rendered by `output`) and
//! the look git's config gives them.

pub mod attributes;
pub mod cache;
pub mod changes;
pub mod delta;
pub mod dirstat;
pub mod lines;
pub mod moved;
pub mod patch;
pub mod patience;
pub mod posix;
pub mod slider;
pub mod space;
pub mod style;
pub mod summary;
pub mod userdiff;
pub mod words;
pub mod xdiff;
