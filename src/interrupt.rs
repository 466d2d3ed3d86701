//! SIGINT and SIGTERM as a value: the edge installs the handlers
//! ([`install`]) and hands the library an [`Interrupt`] (through the
//! command settings and the held lock); long walks stop on it, the revert
//! saga and the put-backs check it between steps, and a provider helper's
//! whole process group is ended when it fires. The command then fails with
//! [`Error::Interrupted`] (exit 130 or 143), a revert leaving its journal.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

use crate::error::{Error, Result};

static FLAG: AtomicBool = AtomicBool::new(false);
static SIGNAL: AtomicI32 = AtomicI32::new(0);
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
            let signal = SIGNAL.load(Ordering::Relaxed);
            return Err(Error::Interrupted {
                signal: if signal == 0 { libc::SIGINT } else { signal },
            });
        }
        Ok(())
    }
}

extern "C" fn on_signal(signal: libc::c_int) {
    // Only async-signal-safe work: atomics, and _exit on a second signal.
    if FLAG.swap(true, Ordering::SeqCst) {
        // SAFETY: _exit is async-signal-safe; the user insisted.
        unsafe { libc::_exit(128 + signal) };
    }
    SIGNAL.store(signal, Ordering::SeqCst);
}

/// The interrupt of this process, for engines deep below the commands
/// that are handed none (a tree comparison): it fires only after
/// [`install`] (in the binary), never in a library caller without handlers.
pub fn process() -> Interrupt {
    Interrupt { flag: &FLAG }
}

/// Install handlers for SIGINT and SIGTERM (the binary does, once) and
/// return the interrupt they set. A second signal ends the process at once.
pub fn install() -> Interrupt {
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: a zeroed sigaction with a plain handler and an empty mask
        // is valid; on_signal only touches atomics (and _exit).
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as *const () as usize;
            libc::sigemptyset(&mut action.sa_mask);
            action.sa_flags = libc::SA_RESTART;
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
    Interrupt { flag: &FLAG }
}
