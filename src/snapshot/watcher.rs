//! Asking a file-system watcher what changed since the last capture
//! (git's fsmonitor hook protocol, version 2, or Watchman). Filled in by
//! issue 14.
