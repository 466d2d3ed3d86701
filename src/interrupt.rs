//! SIGINT and SIGTERM as a value: the edge installs the handlers
//! ([`install`]) and hands the library an [`Interrupt`] (through the
//! command settings and the held lock); long walks stop on it, the revert
//! saga and the put-backs check it between steps, and a provider helper's
//! whole process group is ended when it fires. The command then fails with
//! [`Error::Interrupted`] (exit 130 or 143), a revert leaving its journal.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock};

use crate::error::{Error, Result};

static FLAG: LazyLock<Arc<AtomicBool>> = LazyLock::new(|| Arc::new(AtomicBool::new(false)));
static SIGNAL: LazyLock<Arc<AtomicUsize>> = LazyLock::new(|| Arc::new(AtomicUsize::new(0)));
static NEVER: AtomicBool = AtomicBool::new(false);

/// Whether (and by which signal) the process was asked to stop.
#[derive(Debug, Clone, Copy)]
pub struct Interrupt {
    flag: &'static AtomicBool,
}

impl Default for Interrupt {
    /// An interrupt that never fires (a library caller without handlers).
    fn default() -> Self {
        Interrupt { flag: &NEVER }
    }
}

impl Interrupt {
    /// The flag long gix operations poll.
    pub fn flag(&self) -> &'static AtomicBool {
        self.flag
    }

    /// Whether a stop was asked for.
    pub fn fired(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }

    /// `Err(Interrupted)` once a stop was asked for: call at safe points.
    pub fn check(&self) -> Result<()> {
        if self.fired() {
            let signal = i32::try_from(SIGNAL.load(Ordering::Relaxed)).unwrap_or(0);
            return Err(Error::Interrupted {
                signal: if signal == 0 { libc::SIGINT } else { signal },
            });
        }
        Ok(())
    }
}

/// The interrupt of this process, for engines deep below the commands
/// that are handed none (a tree comparison): it fires only after
/// [`install`] (in the binary), never in a library caller without handlers.
pub fn process() -> Interrupt {
    Interrupt {
        flag: LazyLock::force(&FLAG).as_ref(),
    }
}

/// Install handlers for SIGINT and SIGTERM (the binary does, once) and
/// return the interrupt they set. A second signal ends the process at once.
pub fn install() -> Interrupt {
    use signal_hook::consts::{SIGINT, SIGTERM};
    use signal_hook::flag;
    for signal in [SIGINT, SIGTERM] {
        // The second signal ends the process at once (registered first, so
        // it sees the flag as the first signal left it), with git's status.
        let exit = 128 + signal;
        let _ = flag::register_conditional_shutdown(signal, exit, Arc::clone(&FLAG));
        let _ = flag::register_usize(signal, Arc::clone(&SIGNAL), usize::try_from(signal).unwrap_or(0));
        let _ = flag::register(signal, Arc::clone(&FLAG));
    }
    Interrupt {
        flag: LazyLock::force(&FLAG).as_ref(),
    }
}
