//! What the window does to keep its memory down (the memory budget, docs/architecture.md §6,
//! benches/results/memory.md): how WebKitGTK paints and caches, and handing freed heap back to
//! the system after heavy work.

use std::sync::mpsc;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The WebKitGTK environment the window sets for its web process when the person has not set it:
/// `(name, value)` pairs for [`std::env::set_var`]. `get` reads the current environment.
///
/// Tiles are painted on the CPU (`WEBKIT_SKIA_ENABLE_CPU_RENDERING=1`) and composited on the GPU as
/// before: compositing stays on. WebKitGTK's default paints tiles with Skia on a GL context per
/// painting thread, whose caches (glyph atlases, scratch textures) grow with every view and are
/// never given back; with a software GL (llvmpipe) they are the web process's own memory, 65 MB of
/// the heavy home's figure. Plandeck's pages are text and lists, which the CPU rasteriser paints as
/// fast. A person who set either variable (to force GPU painting, say) keeps their choice.
pub fn webkit_env(
    get: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> Vec<(&'static str, &'static str)> {
    let chosen = [
        "WEBKIT_SKIA_ENABLE_CPU_RENDERING",
        "WEBKIT_SKIA_GPU_PAINTING_THREADS",
    ]
    .iter()
    .any(|name| get(name).is_some());
    if chosen || !cfg!(target_os = "linux") {
        return Vec::new();
    }
    vec![("WEBKIT_SKIA_ENABLE_CPU_RENDERING", "1")]
}

/// Sets [`webkit_env`] in this process, which the web process inherits. Called before the window
/// (and any thread) starts.
pub fn set_webkit_env() {
    for (name, value) in webkit_env(|n| std::env::var_os(n)) {
        std::env::set_var(name, value);
    }
}

/// When freed heap is given back: once work has been quiet for `QUIET`, or `MAX_WAIT` after the
/// first work not yet followed by a release (an agent appending records all the time never lets
/// it be quiet).
#[derive(Debug, Default)]
pub struct ReleaseClock {
    first: Option<Instant>,
    last: Option<Instant>,
}

pub const QUIET: Duration = Duration::from_secs(2);
pub const MAX_WAIT: Duration = Duration::from_secs(30);

impl ReleaseClock {
    /// Work happened at `now`.
    pub fn work(&mut self, now: Instant) {
        self.first.get_or_insert(now);
        self.last = Some(now);
    }

    /// How long to wait from `now` before releasing; `None` when nothing is pending.
    pub fn wait(&self, now: Instant) -> Option<Duration> {
        let (first, last) = (self.first?, self.last?);
        let quiet = (last + QUIET).saturating_duration_since(now);
        let max = (first + MAX_WAIT).saturating_duration_since(now);
        Some(quiet.min(max))
    }

    /// The release was done.
    pub fn released(&mut self) {
        *self = Self::default();
    }
}

/// Says that heavy work (a scan, a listing, an index update) just ended: the heap it freed is
/// given back to the system once work is quiet ([`ReleaseClock`]), on a thread of its own.
/// glibc's malloc keeps what threads free in per-thread arenas; after reading a heavy home's
/// 2.5 GB of transcripts that is tens of MB the process never uses again.
pub fn after_work() {
    static TX: OnceLock<Option<mpsc::Sender<()>>> = OnceLock::new();
    let tx = TX.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<()>();
        std::thread::Builder::new()
            .name("memory-release".into())
            .spawn(move || release_loop(rx))
            .map_err(|e| tracing::warn!("freed memory is not given back: {e}"))
            .ok()
            .map(|_| tx)
    });
    if let Some(tx) = tx {
        let _ = tx.send(());
    }
}

fn release_loop(rx: mpsc::Receiver<()>) {
    let mut clock = ReleaseClock::default();
    loop {
        let got = match clock.wait(Instant::now()) {
            None => rx.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected),
            Some(wait) if wait.is_zero() => Err(mpsc::RecvTimeoutError::Timeout),
            Some(wait) => rx.recv_timeout(wait),
        };
        match got {
            Ok(()) => clock.work(Instant::now()),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                release_freed_heap();
                clock.released();
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => return,
        }
    }
}

/// Gives the free pages of every malloc arena back to the system (glibc's `malloc_trim`).
fn release_freed_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: malloc_trim takes no pointer and only returns free pages of glibc's own arenas
        // to the kernel, under each arena's lock: it is safe to call from any thread at any time.
        let released = unsafe { libc::malloc_trim(0) };
        tracing::debug!(released, "freed heap given back");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_painting_unless_the_person_chose() {
        let none = |_: &str| None;
        let expected = if cfg!(target_os = "linux") {
            vec![("WEBKIT_SKIA_ENABLE_CPU_RENDERING", "1")]
        } else {
            vec![]
        };
        assert_eq!(webkit_env(none), expected);
        for chosen in [
            "WEBKIT_SKIA_ENABLE_CPU_RENDERING",
            "WEBKIT_SKIA_GPU_PAINTING_THREADS",
        ] {
            let get = |n: &str| (n == chosen).then(|| "0".into());
            assert_eq!(webkit_env(get), vec![], "{chosen} set by the person");
        }
    }

    #[test]
    fn released_once_quiet() {
        let t0 = Instant::now();
        let mut c = ReleaseClock::default();
        assert_eq!(c.wait(t0), None, "nothing pending");
        c.work(t0);
        assert_eq!(c.wait(t0), Some(QUIET));
        c.work(t0 + Duration::from_secs(1));
        assert_eq!(
            c.wait(t0 + Duration::from_secs(1)),
            Some(QUIET),
            "more work: wait again"
        );
        assert_eq!(c.wait(t0 + Duration::from_secs(3)), Some(Duration::ZERO));
        c.released();
        assert_eq!(c.wait(t0 + Duration::from_secs(3)), None);
    }

    #[test]
    fn released_within_max_wait_under_constant_work() {
        let t0 = Instant::now();
        let mut c = ReleaseClock::default();
        let mut now = t0;
        while now < t0 + MAX_WAIT {
            c.work(now);
            assert!(c.wait(now).unwrap() <= QUIET);
            now += Duration::from_millis(200);
        }
        c.work(now);
        assert_eq!(
            c.wait(now),
            Some(Duration::ZERO),
            "due at MAX_WAIT though work goes on"
        );
    }
}
