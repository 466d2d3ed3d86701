//! `git t3 diff`: what a turn, a range of turns or the whole thread
//! changed (the use case is [`crate::compare`]).

pub use crate::compare::{
    DiffOutcome, DiffView, Format, Formats, Mode, Names, Options, Shape, StatWidths, Totals,
    relative_from_config, run,
};
