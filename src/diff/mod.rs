//! The diff engine: changed paths between two trees, line counts, the
//! summary cache, and patches as structured data (rendered by `output`).

pub mod cache;
pub mod changes;
pub mod delta;
pub mod lines;
pub mod patch;
pub mod slider;
pub mod summary;
