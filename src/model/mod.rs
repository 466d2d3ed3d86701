//! The domain's plain data: thread ids and the ref names derived from them,
//! the note schema, and git's colour and whitespace-error rules. No I/O
//! happens here.

pub mod age;
pub mod agent;
pub mod color;
pub mod config_params;
pub mod document;
pub mod mode;
pub mod note;
pub mod oid;
pub mod path;
pub mod thread;
pub mod units;
pub mod whitespace;
pub mod width;
