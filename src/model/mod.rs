//! The domain's plain data: thread ids and the ref names derived from them,
//! and the note schema. No I/O happens here.

pub mod config_params;
pub mod note;
pub mod path;
pub mod thread;
