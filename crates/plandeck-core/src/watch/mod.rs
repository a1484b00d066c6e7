//! Debounced file watching; a handle stops its watcher when dropped. (Being built: see issue 3.)
